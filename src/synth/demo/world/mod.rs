//! The simulated server of the demo generator: players joining, moving,
//! firing and dying on the generated map, and the snapshot items and
//! messages each tick gives.

use super::{pack_message, push_str_ints, PlayerChange, SynthParams};
use crate::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints};
use crate::codec::snapshot::{item_key, v06, Snapshot};
use crate::demo::finishes::{ChatWording, Finish};
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

    /// The client id of each connected player named `name`, if exactly
    /// one is (as the `finishes` table attributes a chat line).
    fn only_id_named(&self, name: &str) -> Option<i32> {
        let mut ids = (0..64).filter(|&i| self.players[i].as_ref().is_some_and(|p| p.name == name));
        match (ids.next(), ids.next()) {
            (Some(id), None) => Some(id as i32),
            _ => None,
        }
    }

    /// A race finish in the next of [`super::RACE_FORMS`], its messages
    /// queued and its rows in `finishes` (call right after the snapshot,
    /// so the players are those the messages' tick shows).
    pub(super) fn race_finish(&mut self, rng: &mut Rng) {
        let form = self.finish_no as usize % super::RACE_FORMS.len();
        // Times are unique per finish: the finish number in seconds plus
        // a random part, in hundredths.
        let hundredths = i64::from(self.finish_no) * 6100 + i64::from(rng.range(0, 5999));
        self.finish_no += 1;
        let (minutes, rest) = ((hundredths / 6000) as u32, (hundredths % 6000) as u32);
        let connected: Vec<usize> = (0..64).filter(|&i| self.players[i].is_some()).collect();
        let name_of = |w: &World, slot: usize| {
            w.players[slot]
                .as_ref()
                .map(|p| p.name.clone())
                .unwrap_or_default()
        };
        let chat = |w: &mut World, wording: ChatWording, names: &[&str]| {
            let line = wording.line(names, minutes, rest);
            w.messages
                .push(pack_message(NetMsg::Sv_Chat, &[0, -1], Some(&line)));
            let named: Vec<Option<&str>> = if names.is_empty() {
                vec![None]
            } else {
                names.iter().map(|&n| Some(n)).collect()
            };
            for n in named {
                let client_id = n.and_then(|n| w.only_id_named(n));
                w.finishes.push(Finish {
                    client_id,
                    name: n.map(str::to_owned),
                    time_ms: hundredths * 10,
                    source: "chat",
                    kind: wording.kind(),
                    diff_ms: None,
                    record_personal: None,
                    record_server: None,
                });
            }
        };
        let player = |w: &World, slot: usize, source, diff_ms, personal, server| Finish {
            client_id: Some(slot as i32),
            name: Some(name_of(w, slot)),
            time_ms: hundredths * 10,
            source,
            kind: "player",
            diff_ms,
            record_personal: personal,
            record_server: server,
        };
        let diff = i64::from(rng.range(-9000, 9000));
        match form {
            0 => {
                let slot = rng.pick(&connected);
                chat(self, ChatWording::Player, &[&name_of(self, slot)]);
                // The line after a finish is no finish.
                let text = format!(
                    "New record: {} minute(s) {:>5} second(s) better.",
                    1, "2.50"
                );
                self.messages
                    .push(pack_message(NetMsg::Sv_Chat, &[0, -1], Some(&text)));
            }
            1 => {
                let n = connected.len().min(2 + rng.below(2) as usize);
                let names: Vec<String> = connected[..n].iter().map(|&s| name_of(self, s)).collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                chat(self, ChatWording::Team, &names);
            }
            2 => chat(self, ChatWording::OwnTeam, &[]),
            3 => chat(self, ChatWording::Practice, &[]),
            4 | 5 => {
                // The local player (slot 0), with the race timer before.
                let msg = if form == 4 {
                    NetMsg::Sv_DDRaceTime
                } else {
                    NetMsg::Sv_DDRaceTimeLegacy
                };
                self.messages
                    .push(pack_message(msg, &[(hundredths - 50) as i32, 0, 0], None));
                chat(self, ChatWording::Player, &[&name_of(self, 0)]);
                self.messages.push(pack_message(
                    msg,
                    &[hundredths as i32, diff as i32, 1],
                    None,
                ));
                let source = if form == 4 {
                    "message:Sv_DDRaceTime"
                } else {
                    "message:Sv_DDRaceTimeLegacy"
                };
                let f = player(self, 0, source, Some(diff * 10), None, None);
                self.finishes.push(f);
            }
            6 => {
                let slot = rng.pick(&connected);
                chat(self, ChatWording::Player, &[&name_of(self, slot)]);
                let (personal, server) = (rng.chance(1, 2), rng.chance(1, 2));
                let ints = [
                    slot as i32,
                    (hundredths * 10) as i32,
                    (diff * 10) as i32,
                    i32::from(personal),
                    i32::from(server),
                ];
                self.messages
                    .push(pack_message(NetMsg::Sv_RaceFinish, &ints, None));
                let f = player(
                    self,
                    slot,
                    "message:Sv_RaceFinish",
                    Some(diff * 10),
                    Some(personal),
                    Some(server),
                );
                self.finishes.push(f);
            }
            _ => {
                let best = [rng.range(100, 500_000), hundredths as i32];
                for (legacy, msg) in [(false, NetMsg::Sv_Record), (true, NetMsg::Sv_RecordLegacy)] {
                    self.messages.push(pack_message(msg, &best, None));
                    self.records.push((legacy, best[0], best[1]));
                }
            }
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

    fn step_player(&mut self, slot: usize, tick: i32, rng: &mut Rng) {
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

    fn push(&mut self, snap: &mut Snapshot, type_id: u16, id: u16) {
        // Every item pushed here is small, with a key unique per snapshot,
        // and there are far fewer than 1024 of them.
        snap.push(item_key(type_id, id), &self.data)
            .expect("generated snapshot within limits");
        self.data.clear();
    }

    pub(super) fn build_snapshot(&mut self, snap: &mut Snapshot, ddnet: bool) {
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
