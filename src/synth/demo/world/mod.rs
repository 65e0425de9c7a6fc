//! The simulated server of the demo generator: players joining, moving,
//! firing and dying on the generated map, and the snapshot items and
//! messages each tick gives.

mod play;
mod race;
mod snapshot;

use super::{pack_message, PlayerChange, SynthParams};
use crate::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints};
use crate::codec::snapshot::v06;
use crate::demo::finishes::Finish;
use crate::demo::message::NetMsg;
use crate::demo::TICKS_PER_SECOND;
use crate::synth::rng::Rng;

pub(super) const MAP_W: usize = 120;
pub(super) const MAP_H: usize = 40;
const TILE: i32 = 32;
/// Positions and velocities are kept in 1/256 px.
const FIX: i32 = 256;
const GROUND_Y: i32 = (MAP_H as i32 - 3) * TILE - 14;
// Caps that keep every snapshot far below 1024 items and 64 KiB.
const MAX_PROJECTILES: usize = 160;
const MAX_LASERS: usize = 64;
const MAX_EVENTS: usize = 256;

// Extended types, numbered from the top as DDNet does.
const T_DDNET_PLAYER: u16 = 0x7fff;
const T_DDNET_CHARACTER: u16 = 0x7ffe;
const T_GAME_INFO_EX: u16 = 0x7ffd;
const EXTENDED: [(u16, &str); 3] = [
    (T_DDNET_PLAYER, "player@netobj.ddnet.tw"),
    (T_DDNET_CHARACTER, "character@netobj.ddnet.tw"),
    (T_GAME_INFO_EX, "gameinfo@netobj.ddnet.tw"),
];

/// DDNet's default tuning (`src/game/tuning.h`), each value × 100, in
/// message order: ground control speed/accel/friction, jump impulses, air
/// control, hook, gravity, velocity ramp, gun, shotgun, grenade, laser,
/// player collision/hooking, DDNet strengths, hook duration, fire delays,
/// elasticity, ninja.
pub(super) const TUNING: [i32; 50] = [
    1000, 200, 50, 1320, 1200, 500, 150, 95, 38000, 8000, 300, 1500, 50, 55000, 200000, 140, 125,
    220000, 200, 125, 275000, 80, 20, 700, 100000, 200, 80000, 15000, 100000, 0, 500, 100, 100,
    40000, 1000, 600, 100, 125, 12500, 12500, 50000, 50000, 80000, 80000, 32000, 0, 0, 1500000,
    20000, 5000,
];

const WEAPON_HAMMER: i32 = 0;
const WEAPON_GUN: i32 = 1;
const WEAPON_SHOTGUN: i32 = 2;
const WEAPON_GRENADE: i32 = 3;
const WEAPON_LASER: i32 = 4;

const NAMES: [&str; 24] = [
    "nameless tee",
    "brainless tee",
    "Skeith",
    "Ryozuki",
    "heinrich5991",
    "deen",
    "Learath2",
    "Jupstar",
    "Chiller",
    "murpi",
    "fokkonaut",
    "Teero",
    "def",
    "Zwelf",
    "Patiga",
    "Robyt3",
    "Voxel",
    "Cellegen",
    "Lady Saavik",
    "Welf",
    "timakro",
    "ChillerDragon",
    "Avolicious",
    "bencie",
];
const CLANS: [&str; 6] = ["", "DDNet", "Kog", "noobs", "|*KoG*|", "Unique"];
const SKINS: [&str; 10] = [
    "default",
    "bluekitty",
    "pinky",
    "redstripe",
    "saddo",
    "toptri",
    "twinbop",
    "cammo",
    "coala",
    "warpaint",
];
const CHAT: [&str; 16] = [
    "gg",
    "nice shot",
    "lol",
    "wait for me",
    "who wants to race?",
    "brb",
    "ez",
    "can someone hammer me?",
    "sorry",
    "thx",
    "nice map",
    "omg lag",
    "xD",
    "1v1?",
    "where is the finish",
    "gl hf",
];

#[derive(Clone, Debug)]
struct Character {
    x: i32,
    y: i32,
    vx: i32,
    vy: i32,
    dir: i32,
    angle: i32,
    jumped: i32,
    jumps_made: i32,
    hook_state: i32,
    hook_tick: i32,
    hook_x: i32,
    hook_y: i32,
    hook_dx: i32,
    hook_dy: i32,
    weapon: i32,
    ammo: i32,
    health: i32,
    armor: i32,
    emote: i32,
    attack_tick: i32,
    /// The core as last sent (DDNet sends the core of the last
    /// "reckoning" tick, refreshed when the input changes or every 3 s;
    /// clients predict the rest).
    sent: [i32; 15],
    sent_tick: i32,
}

#[derive(Clone, Debug)]
struct Player {
    name: String,
    clan: &'static str,
    skin: &'static str,
    country: i32,
    custom_color: i32,
    color_body: i32,
    color_feet: i32,
    score: i32,
    latency: i32,
    character: Option<Character>,
    respawn_tick: i32,
    idle: bool,
}

#[derive(Clone, Copy, Debug)]
struct Projectile {
    id: u16,
    x: i32,
    y: i32,
    vx: i32,
    vy: i32,
    weapon: i32,
    start_tick: i32,
    end_tick: i32,
}

#[derive(Clone, Copy, Debug)]
struct Laser {
    id: u16,
    x: i32,
    y: i32,
    from_x: i32,
    from_y: i32,
    start_tick: i32,
    end_tick: i32,
}

#[derive(Clone, Copy, Debug)]
struct Pickup {
    x: i32,
    y: i32,
    kind: i32,
    subtype: i32,
    back_tick: i32,
}

pub(super) struct World {
    players: Vec<Option<Player>>,
    max_players: usize,
    projectiles: Vec<Projectile>,
    lasers: Vec<Laser>,
    pickups: Vec<Pickup>,
    /// (type, data) of the events since the last snapshot.
    pub(super) events: Vec<(u16, [i32; 3])>,
    pub(super) messages: Vec<Vec<u8>>,
    next_entity: u16,
    round_start: i32,
    /// Per-tick probabilities as (numerator, denominator).
    chat_rate: (u64, u64),
    leave_rate: (u64, u64),
    death_rate: (u64, u64),
    idle_percent: u32,
    rename_rate: (u64, u64),
    rejoin_rate: (u64, u64),
    /// Ticks from a rejoining player's leave to the new player's join.
    rejoin_gap: i32,
    /// Slots a new player takes at a tick (rejoins).
    pending_rejoins: Vec<(usize, i32)>,
    /// Joins, leaves and renames since the last snapshot: (tick, client
    /// id, change, name).
    pub(super) player_log: Vec<(i32, u16, PlayerChange, String)>,
    /// The type-0 declarations: type id and UUID ints.
    extended: [(u16, [i32; 4]); 3],
    data: Vec<i32>,
    /// Race finishes per snapshot tick as (numerator, denominator per
    /// tick).
    pub(super) finish_rate: (u64, u64),
    /// Race finishes made so far (their form is the next of
    /// [`super::RACE_FORMS`]).
    finish_no: u32,
    /// The finishes of the messages since the last snapshot.
    pub(super) finishes: Vec<Finish>,
    /// The record notices since the last snapshot: (legacy, server best,
    /// player best).
    pub(super) records: Vec<(bool, i32, i32)>,
}

impl World {
    pub(super) fn new(params: &SynthParams, rng: &mut Rng) -> World {
        let max_players = params.players.clamp(1, 64);
        let per_minute = |n: u32| (u64::from(n), TICKS_PER_SECOND as u64 * 60);
        let mut w = World {
            players: vec![None; 64],
            max_players,
            projectiles: Vec::new(),
            lasers: Vec::new(),
            pickups: Vec::new(),
            events: Vec::new(),
            messages: Vec::new(),
            next_entity: 0,
            round_start: params.start_tick.saturating_sub(3000).max(0),
            chat_rate: per_minute(params.chat_per_minute),
            leave_rate: per_minute(params.leaves_per_minute),
            death_rate: per_minute(params.deaths_per_minute),
            idle_percent: params.idle_percent.min(100),
            rename_rate: per_minute(params.renames_per_minute),
            rejoin_rate: per_minute(params.rejoins_per_minute),
            rejoin_gap: params.snapshot_interval.max(1) * super::REJOIN_GAP_SNAPSHOTS,
            pending_rejoins: Vec::new(),
            player_log: Vec::new(),
            extended: EXTENDED.map(|(id, name)| (id, uuid_to_ints(&uuid_from_name(name)))),
            data: Vec::with_capacity(32),
            finish_rate: per_minute(params.finishes_per_minute),
            finish_no: 0,
            finishes: Vec::new(),
            records: Vec::new(),
        };
        for i in 0..12 {
            w.pickups.push(Pickup {
                x: (8 + i * 9) * TILE + TILE / 2,
                y: GROUND_Y - 2 * TILE,
                kind: i % 3,
                subtype: if i % 3 == 2 { 2 + i % 3 } else { 0 },
                back_tick: 0,
            });
        }
        for slot in 0..max_players {
            w.join(slot, params.start_tick, rng, false);
        }
        w
    }

    fn entity_id(&mut self) -> u16 {
        self.next_entity = self.next_entity.wrapping_add(1);
        self.next_entity
    }

    fn join(&mut self, slot: usize, tick: i32, rng: &mut Rng, announce: bool) {
        let base = rng.pick(&NAMES);
        let name = if rng.chance(1, 3) {
            format!("{base}{}", rng.below(100))
        } else {
            base.to_owned()
        };
        if announce {
            let text = format!("'{name}' entered and joined the game");
            self.messages
                .push(pack_message(NetMsg::Sv_Chat, &[0, -1], Some(&text)));
        }
        self.player_log
            .push((tick, slot as u16, PlayerChange::Join, name.clone()));
        self.players[slot] = Some(Player {
            name,
            clan: rng.pick(&CLANS),
            skin: rng.pick(&SKINS),
            country: rng.pick(&[-1, 276, 840, 250, 752, 643]),
            custom_color: rng.below(2) as i32,
            color_body: rng.below(0xff_ffff) as i32,
            color_feet: rng.below(0xff_ffff) as i32,
            score: 0,
            latency: rng.range(10, 120),
            character: None,
            respawn_tick: tick + rng.range(0, 30),
            idle: rng.chance(u64::from(self.idle_percent), 100),
        });
    }

    /// The player of `slot` leaves (announced in chat).
    fn leave(&mut self, slot: usize, tick: i32) {
        if let Some(p) = self.players[slot].take() {
            let text = format!("'{}' has left the game", p.name);
            self.messages
                .push(pack_message(NetMsg::Sv_Chat, &[0, -1], Some(&text)));
            self.player_log
                .push((tick, slot as u16, PlayerChange::Leave, p.name));
        }
    }

    /// Renames and rejoins (none, and no random draw, at their default
    /// rate 0).
    fn renames_and_rejoins(&mut self, tick: i32, rng: &mut Rng) {
        let others =
            |w: &World| -> Vec<usize> { (1..64).filter(|&i| w.players[i].is_some()).collect() };
        if self.rename_rate.0 > 0 && rng.chance(self.rename_rate.0, self.rename_rate.1) {
            let others = others(self);
            if !others.is_empty() {
                let slot = rng.pick(&others);
                let mut new = format!("{}{}", rng.pick(&NAMES), 100 + rng.below(900));
                // DDNet names hold at most 15 bytes (the names are ASCII).
                new.truncate(15);
                if let Some(p) = self.players[slot].as_mut() {
                    if p.name != new {
                        let text = format!("'{}' changed name to '{new}'", p.name);
                        self.messages
                            .push(pack_message(NetMsg::Sv_Chat, &[0, -1], Some(&text)));
                        p.name.clone_from(&new);
                        self.player_log
                            .push((tick, slot as u16, PlayerChange::Rename, new));
                    }
                }
            }
        }
        if self.rejoin_rate.0 > 0 && rng.chance(self.rejoin_rate.0, self.rejoin_rate.1) {
            let others = others(self);
            if !others.is_empty() {
                let slot = rng.pick(&others);
                self.leave(slot, tick);
                self.pending_rejoins.push((slot, tick + self.rejoin_gap));
            }
        }
        let mut i = 0;
        while i < self.pending_rejoins.len() {
            let (slot, at) = self.pending_rejoins[i];
            if at <= tick {
                self.pending_rejoins.swap_remove(i);
                self.join(slot, tick, rng, true);
            } else {
                i += 1;
            }
        }
    }

    fn spawn(&mut self, slot: usize, tick: i32, rng: &mut Rng) {
        let x = rng.range(3 * TILE, (MAP_W as i32 - 3) * TILE);
        let ch = Character {
            x: x * FIX,
            y: GROUND_Y * FIX,
            vx: 0,
            vy: 0,
            dir: 0,
            angle: rng.range(-804, 804),
            jumped: 0,
            jumps_made: 0,
            hook_state: 0,
            hook_tick: 0,
            hook_x: x,
            hook_y: GROUND_Y,
            hook_dx: 0,
            hook_dy: 0,
            weapon: WEAPON_GUN,
            ammo: 10,
            health: 10,
            armor: 0,
            emote: 0,
            attack_tick: 0,
            sent: [0; 15],
            sent_tick: tick,
        };
        let mut ch = ch;
        ch.sent = [
            tick, x, GROUND_Y, 0, 0, ch.angle, 0, 0, -1, 0, 0, x, GROUND_Y, 0, 0,
        ];
        self.events.push((v06::EVENT_SPAWN, [x, GROUND_Y, 0]));
        self.events
            .push((v06::EVENT_SOUND_WORLD, [x, GROUND_Y, 17]));
        if let Some(p) = self.players[slot].as_mut() {
            p.character = Some(ch);
        }
    }

    /// One server tick of the game.
    pub(super) fn step(&mut self, tick: i32, rng: &mut Rng) {
        // Leaving and joining.
        let connected: Vec<usize> = (0..64).filter(|&i| self.players[i].is_some()).collect();
        if connected.len() > 1 && rng.chance(self.leave_rate.0, self.leave_rate.1) {
            // Never the local player (slot 0).
            let slot = connected[1 + rng.below(connected.len() as u32 - 1) as usize];
            self.leave(slot, tick);
        }
        let pending = self.pending_rejoins.len();
        if connected.len() + pending < self.max_players && rng.chance(1, 100) {
            let free = |i: usize| {
                self.players[i].is_none() && !self.pending_rejoins.iter().any(|&(s, _)| s == i)
            };
            if let Some(slot) = (0..64).find(|&i| free(i)) {
                self.join(slot, tick, rng, true);
            }
        }
        self.renames_and_rejoins(tick, rng);
        // Chat.
        if rng.chance(self.chat_rate.0, self.chat_rate.1) {
            let connected: Vec<usize> = (0..64).filter(|&i| self.players[i].is_some()).collect();
            if !connected.is_empty() {
                let from = rng.pick(&connected) as i32;
                let text = rng.pick(&CHAT);
                self.messages
                    .push(pack_message(NetMsg::Sv_Chat, &[0, from], Some(text)));
            }
        }
        // Expiring projectiles (grenades explode), lasers, pickups.
        let mut i = 0;
        while i < self.projectiles.len() {
            let p = self.projectiles[i];
            if p.end_tick <= tick {
                if p.weapon == WEAPON_GRENADE {
                    let t = (tick - p.start_tick) as i64;
                    let x = p.x + (i64::from(p.vx) * t / 256) as i32;
                    let y = (p.y + (i64::from(p.vy) * t / 256) as i32).min(GROUND_Y);
                    self.events.push((v06::EVENT_EXPLOSION, [x, y, 0]));
                    self.events.push((v06::EVENT_SOUND_WORLD, [x, y, 26]));
                }
                self.projectiles.swap_remove(i);
            } else {
                i += 1;
            }
        }
        self.lasers.retain(|l| l.end_tick > tick);
        for p in &mut self.pickups {
            if p.back_tick != 0 && p.back_tick <= tick {
                p.back_tick = 0;
            }
        }
        for slot in 0..64 {
            self.step_player(slot, tick, rng);
        }
    }
}
