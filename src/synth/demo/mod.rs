//! A deterministic generator of realistic demos, for tests and benchmarks.
//!
//! [`generate`] simulates a small deathmatch on a generated map and records
//! it with [`DemoWriter`] the way a DDNet client records: a snapshot every
//! [`SynthParams::snapshot_interval`] ticks through
//! [`DemoWriter::record_snapshot`] (so a keyframe on the first snapshot and
//! whenever more than 250 ticks passed), the server's messages after it.
//! Everything comes from one seeded splitmix64 stream and integer
//! arithmetic, so the same parameters give the same bytes on every platform.
//!
//! What the snapshots hold (protocol 0.6 / DDNet item types and sizes):
//!
//! - type-0 declarations of the extended types `DDNetPlayer`,
//!   `DDNetCharacter` and `GameInfoEx` (ids 0x7fff, 0x7ffe, 0x7ffd, 4 UUID
//!   ints each), in every snapshot;
//! - per connected player: `ClientInfo` (name, clan and skin as DDNet's
//!   strings-in-ints: 4 bytes per int, each byte + 128, big-endian, last
//!   byte 0), `PlayerInfo` (local flag, id, team, score, latency) and
//!   `DDNetPlayer`;
//! - per living player: `Character` (core: tick, position, velocity in
//!   1/256 px, angle, direction, jump and hook state; health, armor, ammo,
//!   weapon, emote, attack tick) and `DDNetCharacter` (flags, jumps, aim);
//!   movement is integer physics (DDNet's default tuning: running
//!   acceleration and friction, gravity, jumps and double jumps, walls and a
//!   floor). Like DDNet, the core in the snapshot is the one of the last
//!   "reckoning" tick, refreshed when the input changes or every 3 s (the
//!   client predicts in between), which is what keeps real deltas small.
//!   [`SynthParams::idle_percent`] of the players stand still (AFK);
//! - projectiles (gun, shotgun, grenade: constant items, as DDNet sends a
//!   projectile's start and velocity), lasers, pickups that vanish when
//!   taken and come back;
//! - `GameInfo`, `GameInfoEx`;
//! - events of the ticks since the last snapshot: world sounds, explosions,
//!   hammer hits, damage indicators, deaths, spawns.
//!
//! Players (up to 64) join and leave; the server announces it in chat.
//! With [`SynthParams::renames_per_minute`] players change names (DDNet's
//! `'a' changed name to 'b'` chat line, the client info changes), and with
//! [`SynthParams::rejoins_per_minute`] a player leaves and a new player
//! takes the same client id a few snapshots later (so a snapshot without
//! the id comes between). Every join, leave and rename is reported as a
//! [`SynthEvent::Player`].
//! Messages are real 0.6 message bytes: the header int `msg_id << 1` (game
//! message, not system) and the fields packed as varints, strings
//! NUL-terminated: `Sv_Chat` (3: team, client id, text), `Sv_KillMsg`
//! (4: killer, victim, weapon, mode special), as in DDNet's
//! `datasrc/network.py`, and `Sv_TuneParams` (6: DDNet's 50 default tuning
//! values × 100) after every snapshot, as DDNet clients record it (the real
//! DDNet demos carry one per snapshot; it is most of a quiet demo's size).
//!
//! Sizes (seed 5, release build, chunk bytes per second of game, map
//! excluded): 1 player 4.6 KB/s, 16 players 7.0 KB/s, 64 players 14 KB/s
//! (0.84 MB/min); the real DDNet demos have 3.9–4.2 KB/s for 1–2 players
//! and 18.9 KB/s for 62 players (`ddnet__Multeasymap_bench`).
//!
//! The embedded map ([`super::map::deathmatch_map`]) is a small valid
//! datafile built with [`DatafileWriter`](crate::datafile::DatafileWriter):
//! version and info items, one game group with a game tile layer (solid
//! border, floor and a few platforms).

mod world;

use std::io::{Cursor, Seek, Write};

use super::rng::Rng;
use crate::codec::snapshot::uuid::uuid_from_name;
use crate::codec::snapshot::{Protocol, Snapshot};
use crate::codec::varint;
use crate::demo::finishes::Finish;
use crate::demo::message::NetMsg;
use crate::demo::write::{
    DemoHeader, DemoVersion, DemoWriter, SnapshotChunk, WriteError, WriteStats,
};
use crate::demo::TICKS_PER_SECOND;
use crate::map::strings::to_i32_string;
use world::{World, MAP_H, MAP_W, TUNING};

/// Parameters of a generated demo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthParams {
    pub seed: u64,
    /// Players connected at the start and at most at any time (1..=64).
    pub players: usize,
    /// Ticks from the first snapshot to the last (50 per second).
    pub duration_ticks: i32,
    /// Tick of the first snapshot.
    pub start_tick: i32,
    /// Ticks between snapshots (DDNet clients record every 2nd tick).
    pub snapshot_interval: i32,
    /// Chat messages per minute on the whole server.
    pub chat_per_minute: u32,
    /// Players leaving (and others joining in their place) per minute.
    pub leaves_per_minute: u32,
    /// Deaths per player per minute.
    pub deaths_per_minute: u32,
    /// Include DDNet's extended items (`DDNetPlayer`, `DDNetCharacter`,
    /// `GameInfoEx`) and their declarations.
    pub ddnet_items: bool,
    /// Record the server's tuning (`Sv_TuneParams`) with every snapshot, as
    /// DDNet clients do.
    pub tune_params: bool,
    /// Share of players that stand still (AFK), in percent.
    pub idle_percent: u32,
    /// Race finishes per minute (0: none, the default). Each comes in the
    /// next of DDNet's forms in turn (see [`RACE_FORMS`]), reported as
    /// [`SynthEvent::Finish`] and [`SynthEvent::Record`].
    pub finishes_per_minute: u32,
    /// Players changing their name per minute (0 by default: the output of
    /// the other parameters is unchanged).
    pub renames_per_minute: u32,
    /// Players leaving whose client id a new player takes again
    /// [`REJOIN_GAP_SNAPSHOTS`] snapshots later, per minute (0 by default).
    pub rejoins_per_minute: u32,
    pub version: DemoVersion,
    pub map_name: String,
    pub timestamp: String,
}

impl Default for SynthParams {
    fn default() -> Self {
        SynthParams {
            seed: 1,
            players: 16,
            duration_ticks: TICKS_PER_SECOND * 60,
            start_tick: 100_000,
            snapshot_interval: 2,
            chat_per_minute: 12,
            leaves_per_minute: 2,
            deaths_per_minute: 3,
            ddnet_items: true,
            tune_params: true,
            idle_percent: 20,
            finishes_per_minute: 0,
            renames_per_minute: 0,
            rejoins_per_minute: 0,
            version: DemoVersion::V6,
            map_name: "synth_dm".to_owned(),
            timestamp: "2024-06-01_12-00-00".to_owned(),
        }
    }
}

impl SynthParams {
    /// The parameters of demo `index` of a generated collection: 1 to 64
    /// players, 20 s to 2 min, seeds derived from `(seed, index)`.
    pub fn collection(seed: u64, index: u32) -> SynthParams {
        const PLAYERS: [usize; 6] = [1, 4, 8, 16, 32, 64];
        let mix = seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(u64::from(index).wrapping_mul(0xbf58_476d_1ce4_e5b9));
        let mix = mix ^ (mix >> 29);
        SynthParams {
            seed: mix,
            players: PLAYERS[index as usize % PLAYERS.len()],
            duration_ticks: TICKS_PER_SECOND * (20 + (mix % 100) as i32),
            start_tick: 1000 + (mix >> 40) as i32 % 100_000,
            ..SynthParams::default()
        }
    }
}

/// Something the generator wrote, for callers that check the output.
#[derive(Clone, Copy, Debug)]
pub enum SynthEvent<'a> {
    /// The snapshot recorded at `tick` and how the writer stored it.
    Snapshot {
        tick: i32,
        snap: &'a Snapshot,
        chunk: SnapshotChunk,
    },
    /// A message written after the snapshot of `tick` (unpadded bytes).
    Message { tick: i32, bytes: &'a [u8] },
    /// A race finish the messages after the snapshot of `tick` report, as
    /// a row of the `finishes` table gives it (reported in message order).
    Finish { tick: i32, finish: &'a Finish },
    /// A record notice (`Sv_Record` or, with `legacy`, `Sv_RecordLegacy`)
    /// after the snapshot of `tick`: the best times in hundredths of a
    /// second.
    Record {
        tick: i32,
        legacy: bool,
        server_best: i32,
        player_best: i32,
    },
    /// A player joined, left or was renamed at game tick `tick` (seen in
    /// the first snapshot from that tick on); `name` is the player's name
    /// (the new one for a rename).
    Player {
        tick: i32,
        client_id: u16,
        change: PlayerChange,
        name: &'a str,
    },
}

/// The forms race finishes take in a generated demo, in the order they
/// come (see [`SynthParams::finishes_per_minute`]): the four chat
/// wordings ([`crate::demo::finishes::ChatWording`]); a chat line with `Sv_DDRaceTime` (after a
/// race timer `Sv_DDRaceTime`), with `Sv_DDRaceTimeLegacy` (both for the
/// local player) and with `Sv_RaceFinish`, as DDNet sends both; a record
/// notice as `Sv_Record` and `Sv_RecordLegacy` at the same tick.
pub const RACE_FORMS: [&str; 8] = [
    "chat:player",
    "chat:team_member",
    "chat:own_team",
    "chat:practice",
    "chat+message:Sv_DDRaceTime",
    "chat+message:Sv_DDRaceTimeLegacy",
    "chat+message:Sv_RaceFinish",
    "message:Sv_Record",
];

/// What happened to a player ([`SynthEvent::Player`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerChange {
    Join,
    Leave,
    Rename,
}

/// Snapshots between a rejoining player's leave and the new player on the
/// same client id ([`SynthParams::rejoins_per_minute`]).
pub const REJOIN_GAP_SNAPSHOTS: i32 = 3;

/// What a generation run wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynthStats {
    /// Size of the demo in bytes.
    pub bytes: u64,
    /// Size of the embedded map.
    pub map_bytes: u64,
    pub first_tick: i32,
    pub last_tick: i32,
    pub write: WriteStats,
}

/// Generates the demo into memory.
pub fn generate(params: &SynthParams) -> Vec<u8> {
    generate_observed(params, |_| {})
}

/// [`generate`], reporting every snapshot and message to `on_event`.
pub fn generate_observed(params: &SynthParams, on_event: impl FnMut(SynthEvent<'_>)) -> Vec<u8> {
    // Writing to memory cannot fail and the generator keeps within every
    // snapshot and chunk limit.
    let (out, _) = generate_to_observed(params, Cursor::new(Vec::new()), on_event)
        .expect("in-memory generation within limits");
    out.into_inner()
}

/// Generates the demo into `out` as it goes (nothing but the current and
/// previous snapshot is kept in memory).
pub fn generate_to<W: Write + Seek>(
    params: &SynthParams,
    out: W,
) -> Result<SynthStats, WriteError> {
    generate_to_observed(params, out, |_| {}).map(|(_, stats)| stats)
}

/// [`generate_to`], reporting every snapshot and message to `on_event`;
/// returns the output too.
pub(crate) fn generate_to_observed<W: Write + Seek>(
    params: &SynthParams,
    out: W,
    mut on_event: impl FnMut(SynthEvent<'_>),
) -> Result<(W, SynthStats), WriteError> {
    let mut rng = Rng::new(params.seed);
    let map = super::map::deathmatch_map(MAP_W, MAP_H, params.seed);
    let header = DemoHeader {
        version: params.version,
        protocol: Protocol::V06,
        map_name: &params.map_name,
        map: &map,
        embed_map: true,
        demo_type: "client",
        timestamp: &params.timestamp,
    };
    let mut writer = DemoWriter::new(out, &header)?;
    let mut world = World::new(params, &mut rng);
    let interval = params.snapshot_interval.max(1);
    let first = params.start_tick.max(0);
    let last = first.saturating_add(params.duration_ticks.max(0));
    let mut snap = Snapshot::new();
    let mut tick = first;
    loop {
        world.build_snapshot(&mut snap, params.ddnet_items);
        let chunk = writer.record_snapshot(tick, &snap)?;
        on_event(SynthEvent::Snapshot {
            tick,
            snap: &snap,
            chunk,
        });
        if world.finish_rate.0 > 0
            && rng.chance(world.finish_rate.0 * interval as u64, world.finish_rate.1)
        {
            world.race_finish(&mut rng);
        }
        if params.tune_params {
            world
                .messages
                .insert(0, pack_message(NetMsg::Sv_TuneParams, &TUNING, None));
        }
        for m in world.messages.drain(..) {
            writer.message(&m)?;
            on_event(SynthEvent::Message { tick, bytes: &m });
        }
        for finish in world.finishes.drain(..) {
            on_event(SynthEvent::Finish {
                tick,
                finish: &finish,
            });
        }
        for (legacy, server_best, player_best) in world.records.drain(..) {
            on_event(SynthEvent::Record {
                tick,
                legacy,
                server_best,
                player_best,
            });
        }
        for (tick, client_id, change, name) in world.player_log.drain(..) {
            on_event(SynthEvent::Player {
                tick,
                client_id,
                change,
                name: &name,
            });
        }
        world.events.clear();
        let next = tick.saturating_add(interval);
        if next > last || next == tick {
            break;
        }
        while tick < next {
            tick += 1;
            world.step(tick, &mut rng);
        }
    }
    let write = writer.stats();
    let bytes = writer.position();
    let out = writer.finish()?;
    Ok((
        out,
        SynthStats {
            bytes,
            map_bytes: map.len() as u64,
            first_tick: first,
            last_tick: tick,
            write,
        },
    ))
}

/// Appends `s` as DDNet's strings-in-ints (`StrToInts`) of `n` ints.
pub(super) fn push_str_ints(out: &mut Vec<i32>, s: &str, n: usize) {
    out.extend(to_i32_string(s, n));
}

/// Packs a 0.6 game message: header int (and for a DDNet extended
/// message, id 0 and the UUID), then ints and NUL-terminated strings.
fn pack_message(msg: NetMsg, ints: &[i32], text: Option<&str>) -> Vec<u8> {
    debug_assert!(!msg.system(), "{msg:?} is a system message");
    let mut m = Vec::with_capacity(24 + text.map_or(0, str::len));
    match msg.ordinal(Protocol::V06) {
        Some(id) => varint::pack_int((id as i32) << 1, &mut m),
        None => {
            let name = msg.uuid_name().expect("a 0.6 or extended message");
            varint::pack_int(0, &mut m);
            m.extend_from_slice(uuid_from_name(name).as_bytes());
        }
    }
    varint::pack(ints, &mut m);
    if let Some(t) = text {
        m.extend_from_slice(t.as_bytes());
        m.push(0);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_in_ints_like_ddnet() {
        let mut v = Vec::new();
        push_str_ints(&mut v, "abcdefg", 2);
        // 'a' + 128 = 0xe1 ...; the last byte of the last int is 0.
        assert_eq!(v, [0xe1e2e3e4u32 as i32, 0xe5e6e700u32 as i32]);
        v.clear();
        push_str_ints(&mut v, "", 1);
        assert_eq!(v, [0x80808000u32 as i32]);
    }

    #[test]
    fn chat_message_bytes() {
        let m = pack_message(NetMsg::Sv_Chat, &[0, -1], Some("hi"));
        // header 3 << 1 = 6, team 0, client -1 (0x40), "hi\0".
        assert_eq!(m, [6, 0, 0x40, b'h', b'i', 0]);
        let k = pack_message(NetMsg::Sv_KillMsg, &[3, 70, -1, 0], None);
        assert_eq!(k, [8, 3, 0x80 | 6, 1, 0x40, 0]);
    }

    #[test]
    fn map_is_a_datafile() {
        let map = super::super::map::deathmatch_map(50, 20, 3);
        let df = crate::datafile::Datafile::parse(&map).unwrap();
        assert_eq!(df.num_items(), 4);
        assert_eq!(df.num_data(), 1);
        let mut inflater = crate::datafile::Inflater::new(Default::default());
        assert_eq!(df.data(0, &mut inflater).unwrap().len(), 50 * 20 * 4);
    }
}
