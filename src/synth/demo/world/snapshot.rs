//! The snapshot items of the world at a snapshot tick: client and player
//! infos, characters, projectiles, lasers, pickups, the game info and the
//! events since the last snapshot (with DDNet's extended items).

use super::{World, MAX_EVENTS, T_DDNET_CHARACTER, T_DDNET_PLAYER, T_GAME_INFO_EX};
use crate::codec::snapshot::item_key;
use crate::codec::snapshot::v06;
use crate::codec::snapshot::Snapshot;
use crate::synth::demo::push_str_ints;

impl World {
    fn push(&mut self, snap: &mut Snapshot, type_id: u16, id: u16) {
        // Every item pushed here is small, with a key unique per snapshot,
        // and there are far fewer than 1024 of them.
        snap.push(item_key(type_id, id), &self.data)
            .expect("generated snapshot within limits");
        self.data.clear();
    }

    pub(in crate::synth::demo) fn build_snapshot(&mut self, snap: &mut Snapshot, ddnet: bool) {
        snap.clear();
        self.data.clear();
        if ddnet {
            for (type_id, uuid) in self.extended {
                self.data.extend_from_slice(&uuid);
                self.push(snap, 0, type_id);
            }
        }
        for slot in 0..64 {
            let Some(p) = self.players[slot].as_ref() else {
                continue;
            };
            let d = &mut self.data;
            push_str_ints(d, &p.name, 4);
            push_str_ints(d, p.clan, 3);
            d.push(p.country);
            push_str_ints(d, p.skin, 6);
            d.extend_from_slice(&[p.custom_color, p.color_body, p.color_feet]);
            self.push(snap, v06::CLIENT_INFO, slot as u16);
            let p = self.players[slot].as_ref().expect("checked above");
            let local = i32::from(slot == 0);
            let info = [local, slot as i32, 0, p.score, p.latency];
            self.data.extend_from_slice(&info);
            self.push(snap, v06::PLAYER_INFO, slot as u16);
            if ddnet {
                self.data.extend_from_slice(&[0, 0]);
                self.push(snap, T_DDNET_PLAYER, slot as u16);
            }
        }
        for slot in 0..64 {
            let Some(ch) = self.players[slot]
                .as_ref()
                .and_then(|p| p.character.as_ref())
            else {
                continue;
            };
            let core = ch.sent;
            let rest = [
                0,
                ch.health,
                ch.armor,
                ch.ammo,
                ch.weapon,
                ch.emote,
                ch.attack_tick,
            ];
            let a = ch.angle;
            let jumps = ch.jumps_made;
            self.data.extend_from_slice(&core);
            self.data.extend_from_slice(&rest);
            self.push(snap, v06::CHARACTER, slot as u16);
            if ddnet {
                // The aim, relative to the tee.
                let target = [
                    (256 - a * a / 512).clamp(-256, 256) / 2,
                    a.clamp(-256, 256) / 2,
                ];
                self.data
                    .extend_from_slice(&[0x8000, 0, 2, -1, slot as i32, jumps, 0, 0]);
                self.data.extend_from_slice(&target);
                self.push(snap, T_DDNET_CHARACTER, slot as u16);
            }
        }
        for i in 0..self.projectiles.len() {
            let p = self.projectiles[i];
            self.data
                .extend_from_slice(&[p.x, p.y, p.vx, p.vy, p.weapon, p.start_tick]);
            self.push(snap, v06::PROJECTILE, p.id);
        }
        for i in 0..self.lasers.len() {
            let l = self.lasers[i];
            self.data
                .extend_from_slice(&[l.x, l.y, l.from_x, l.from_y, l.start_tick]);
            self.push(snap, v06::LASER, l.id);
        }
        for i in 0..self.pickups.len() {
            let p = self.pickups[i];
            if p.back_tick == 0 {
                self.data.extend_from_slice(&[p.x, p.y, p.kind, p.subtype]);
                self.push(snap, v06::PICKUP, i as u16);
            }
        }
        self.data
            .extend_from_slice(&[0, 0, self.round_start, 0, 20, 0, 1, 1]);
        self.push(snap, v06::GAME_INFO, 0);
        if ddnet {
            self.data.extend_from_slice(&[0x1ff, 8, 0]);
            self.push(snap, T_GAME_INFO_EX, 0);
        }
        // Events of the ticks since the last snapshot, numbered from 0.
        let events = std::mem::take(&mut self.events);
        for (n, &(type_id, d)) in events.iter().enumerate().take(MAX_EVENTS) {
            let len = if matches!(
                type_id,
                v06::EVENT_DEATH | v06::EVENT_SOUND_WORLD | v06::EVENT_DAMAGE_INDICATOR
            ) {
                3
            } else {
                2
            };
            self.data.extend_from_slice(&d[..len]);
            self.push(snap, type_id, n as u16);
        }
        self.events = events;
    }
}
