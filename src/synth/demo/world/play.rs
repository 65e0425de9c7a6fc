//! One player's server tick: input, movement, hook, weapons fired
//! (projectiles, lasers, hammer hits), damage and deaths.

use super::{
    Laser, Projectile, World, FIX, GROUND_Y, MAP_W, MAX_LASERS, MAX_PROJECTILES, TILE,
    WEAPON_GRENADE, WEAPON_GUN, WEAPON_HAMMER, WEAPON_LASER, WEAPON_SHOTGUN,
};
use crate::codec::snapshot::v06;
use crate::demo::message::NetMsg;
use crate::demo::TICKS_PER_SECOND;
use crate::synth::demo::pack_message;
use crate::synth::rng::Rng;

impl World {
    pub(super) fn step_player(&mut self, slot: usize, tick: i32, rng: &mut Rng) {
        let Some(p) = self.players[slot].as_mut() else {
            return;
        };
        if tick % TICKS_PER_SECOND == slot as i32 % TICKS_PER_SECOND {
            p.latency = (p.latency + rng.range(-3, 3)).clamp(5, 300);
        }
        if p.character.is_none() {
            if tick >= p.respawn_tick {
                self.spawn(slot, tick, rng);
            }
            return;
        }
        if rng.chance(1, 3000) {
            p.idle = !p.idle;
        }
        let active = !p.idle;
        let Some(ch) = p.character.as_mut() else {
            return;
        };
        // Input: run, jump, aim, hook. Idle players only fall and stop.
        let mut input_changed = false;
        if active && rng.chance(1, 12) {
            let dir = rng.range(-1, 1);
            input_changed |= dir != ch.dir;
            ch.dir = dir;
        } else if !active && ch.dir != 0 {
            ch.dir = 0;
            input_changed = true;
        }
        let on_ground = ch.y >= GROUND_Y * FIX;
        let (accel, max_speed) = if on_ground {
            (2 * FIX, 10 * FIX)
        } else {
            (FIX * 3 / 2, 5 * FIX)
        };
        if ch.dir != 0 {
            ch.vx = (ch.vx + ch.dir * accel).clamp(-max_speed, max_speed);
        } else {
            ch.vx = ch.vx * if on_ground { 1 } else { 19 } / if on_ground { 2 } else { 20 };
        }
        if on_ground {
            ch.jumped = 0;
            ch.jumps_made = 0;
            if active && rng.chance(1, 40) {
                input_changed = true;
                ch.vy = -13 * FIX - FIX / 5;
                ch.jumped = 1;
                ch.jumps_made = 1;
            }
        } else if active && ch.jumped == 1 && ch.vy > 0 && rng.chance(1, 30) {
            input_changed = true;
            ch.vy = -12 * FIX;
            ch.jumped = 3;
            ch.jumps_made = 2;
        }
        ch.vy = (ch.vy + FIX / 2).min(40 * FIX);
        ch.x += ch.vx;
        ch.y += ch.vy;
        if ch.y >= GROUND_Y * FIX {
            ch.y = GROUND_Y * FIX;
            ch.vy = 0;
        }
        let (lo, hi) = (2 * TILE * FIX, (MAP_W as i32 - 2) * TILE * FIX);
        if ch.x < lo || ch.x > hi {
            ch.x = ch.x.clamp(lo, hi);
            ch.vx = 0;
            ch.dir = -ch.dir;
            input_changed = true;
        }
        if active && rng.chance(1, 3) {
            ch.angle = (ch.angle + rng.range(-40, 40)).clamp(-804, 804);
        }
        let (px, py) = (ch.x / FIX, ch.y / FIX);
        // Hook: fly out, grab, release.
        match ch.hook_state {
            0 if active && rng.chance(1, 40) => {
                input_changed = true;
                ch.hook_state = 4;
                ch.hook_tick = 0;
                ch.hook_dx = rng.range(-256, 256);
                ch.hook_dy = -rng.range(64, 256);
            }
            4 => {
                ch.hook_tick += 1;
                ch.hook_x = px + ch.hook_dx * ch.hook_tick * 80 / 256;
                ch.hook_y = py + ch.hook_dy * ch.hook_tick * 80 / 256;
                if ch.hook_tick > 5 {
                    ch.hook_state = if rng.chance(1, 2) { 5 } else { -1 };
                }
            }
            5 if rng.chance(1, 20) => {
                input_changed = true;
                ch.hook_state = -1;
            }
            -1 => {
                ch.hook_state = 0;
                ch.hook_x = px;
                ch.hook_y = py;
            }
            _ => {}
        }
        // Weapons.
        if rng.chance(1, 200) {
            ch.weapon = rng.range(WEAPON_HAMMER, WEAPON_LASER);
            ch.ammo = 10;
        }
        if input_changed || tick.saturating_sub(ch.sent_tick) >= 150 {
            ch.sent = [
                tick,
                px,
                py,
                ch.vx,
                ch.vy,
                ch.angle,
                ch.dir,
                ch.jumped,
                -1,
                ch.hook_state,
                ch.hook_tick,
                ch.hook_x,
                ch.hook_y,
                ch.hook_dx,
                ch.hook_dy,
            ];
            ch.sent_tick = tick;
        }
        let fire = active && rng.chance(1, 50);
        let (weapon, angle) = (ch.weapon, ch.angle);
        if fire {
            ch.attack_tick = tick;
            ch.ammo = (ch.ammo - 1).max(0);
        }
        if rng.chance(1, 500) {
            ch.emote = rng.range(0, 5);
        }
        // Pickups.
        let mut took = None;
        for (i, pk) in self.pickups.iter_mut().enumerate() {
            if pk.back_tick == 0 && (pk.x - px).abs() < 28 && (pk.y - py).abs() < 64 {
                pk.back_tick = tick + 15 * TICKS_PER_SECOND;
                took = Some((i, pk.kind));
            }
        }
        if let Some((_, kind)) = took {
            match kind {
                0 => ch.health = (ch.health + 1).min(10),
                1 => ch.armor = (ch.armor + 1).min(10),
                _ => ch.ammo = 10,
            }
        }
        if took.is_some() {
            self.events.push((v06::EVENT_SOUND_WORLD, [px, py, 19]));
        }
        if fire {
            self.fire(weapon, angle, px, py, tick, rng);
        }
        // Damage and death.
        if rng.chance(1, 400) {
            if let Some(ch) = self.players[slot]
                .as_mut()
                .and_then(|p| p.character.as_mut())
            {
                if ch.armor > 0 {
                    ch.armor -= 1;
                } else {
                    ch.health = (ch.health - 1).max(1);
                }
            }
            self.events
                .push((v06::EVENT_DAMAGE_INDICATOR, [px, py, rng.range(-804, 804)]));
        }
        if rng.chance(self.death_rate.0, self.death_rate.1) {
            self.kill(slot, tick, px, py, rng);
        }
    }

    fn fire(&mut self, weapon: i32, angle: i32, x: i32, y: i32, tick: i32, rng: &mut Rng) {
        // Direction from the angle (1/256 rad) by a small integer table-free
        // approximation: cos ~ 1 - a²/2, sin ~ a, good enough for a game.
        let a = angle as i64;
        let dx = (256 - a * a / 512).clamp(-256, 256) as i32;
        let dy = a.clamp(-256, 256) as i32;
        let sound = [0, 1, 2, 3, 4][weapon as usize % 5];
        self.events.push((v06::EVENT_SOUND_WORLD, [x, y, sound]));
        let (count, speed, life) = match weapon {
            WEAPON_GUN => (1, 2200, 2 * TICKS_PER_SECOND),
            WEAPON_SHOTGUN => (rng.range(3, 5), 2750, 10),
            WEAPON_GRENADE => (1, 1000, 2 * TICKS_PER_SECOND),
            WEAPON_LASER => {
                if self.lasers.len() >= MAX_LASERS {
                    return;
                }
                let id = self.entity_id();
                self.lasers.push(Laser {
                    id,
                    x: x + dx * 3,
                    y: y + dy * 3,
                    from_x: x,
                    from_y: y,
                    start_tick: tick,
                    end_tick: tick + 8,
                });
                return;
            }
            _ => {
                if rng.chance(1, 3) {
                    self.events
                        .push((v06::EVENT_HAMMERHIT, [x + dx / 8, y + dy / 8, 0]));
                }
                return;
            }
        };
        for k in 0..count {
            if self.projectiles.len() >= MAX_PROJECTILES {
                break;
            }
            let spread = (k - count / 2) * 20;
            let id = self.entity_id();
            self.projectiles.push(Projectile {
                id,
                x,
                y,
                vx: (dx + spread) * speed / 256,
                vy: (dy - spread) * speed / 256,
                weapon,
                start_tick: tick,
                end_tick: tick + life,
            });
        }
    }

    fn kill(&mut self, victim: usize, tick: i32, x: i32, y: i32, rng: &mut Rng) {
        let alive: Vec<usize> = (0..64)
            .filter(|&i| {
                i != victim
                    && self.players[i]
                        .as_ref()
                        .is_some_and(|p| p.character.is_some())
            })
            .collect();
        let (killer, weapon) = if alive.is_empty() || rng.chance(1, 10) {
            (victim, -1)
        } else {
            (rng.pick(&alive), rng.range(WEAPON_HAMMER, WEAPON_LASER))
        };
        if let Some(p) = self.players[killer].as_mut() {
            p.score += if killer == victim { -1 } else { 1 };
        }
        if let Some(p) = self.players[victim].as_mut() {
            p.character = None;
            p.respawn_tick = tick + rng.range(25, 150);
        }
        self.events.push((v06::EVENT_DEATH, [x, y, victim as i32]));
        self.events.push((v06::EVENT_SOUND_WORLD, [x, y, 11]));
        self.messages.push(pack_message(
            NetMsg::Sv_KillMsg,
            &[killer as i32, victim as i32, weapon, 0],
            None,
        ));
    }
}
