//! The player view: who is in a snapshot (names, clans, skins, teams,
//! scores, positions) and a tracker that follows players tick by tick.
//!
//! # Where the facts live
//!
//! Protocol 0.6 / DDNet (`datasrc/network.py`), item id = client id unless
//! said:
//!
//! ```text
//! obj_client_info  (type 11, 17 ints)  name[4] clan[3] country skin[6]
//!                                      use_custom_color color_body color_feet
//! obj_player_info  (type 10, 5 ints)   local client_id team score latency
//!                                      (the client id is the m_ClientId field)
//! obj_character    (type 9, 22 ints)   tick x y vel_x vel_y angle direction …
//! ```
//!
//! Protocol 0.7 (Teeworlds 0.7 `datasrc/network.py`): `obj_player_info`
//! (type 11) has 3 ints, `player_flags score latency`; names and teams come
//! by message (`Sv_ClientInfo`, `De_ClientEnter`, dropped by
//! `Sv_ClientDrop` / `De_ClientLeave`), and demos recorded by the 0.7 client
//! also carry `obj_de_client_info` (type 13, 58 ints: `local team name[4]
//! clan[3] country skin_part_names[6][6] use_custom_colors[6]
//! skin_part_colors[6]`). `obj_character` is type 10; x and y are again
//! ints 1 and 2.
//!
//! # Strings packed into ints
//!
//! Names, clans and skins in snapshot items are strings packed 4 bytes per
//! int, big-endian, each byte stored plus 128 (DDNet `StrToInts`). Reading
//! follows DDNet's `IntsToStr`: subtract 128 from each byte, stop at the
//! first NUL, force the very last byte to be the terminator (so a 4-int name
//! holds at most 15 bytes), and an invalid UTF-8 result counts as empty.
//!
//! # Quirks
//!
//! - A client id can be reused by a different player after a leave; the
//!   tracker keys records by client id and lists every distinct name seen.
//! - Memory is bounded: at most [`TrackerConfig::max_players`] records,
//!   [`TrackerConfig::max_strings`] distinct names/clans/skins and
//!   [`TrackerConfig::max_team_changes`] team changes per player (each cap
//!   reported once per player by a warning), position tracks are sampled
//!   and capped ([`PositionConfig`]), and chat lines are kept only with
//!   [`TrackerConfig::keep_chat`] (drained as they come by a streaming
//!   reader, [`PlayerTracker::drain_chat`]).
//! - Time is linear: views and records are found through tables by client
//!   id, never by a search through the players.

use std::collections::BTreeMap;

use super::message::{Body, ChatMode, Message};
use crate::codec::snapshot::{item_id, item_type, Protocol, Snapshot};

/// 0.6 item types.
const V06_CHARACTER: u16 = 9;
const V06_PLAYER_INFO: u16 = 10;
const V06_CLIENT_INFO: u16 = 11;
/// 0.7 item types.
const V07_CHARACTER: u16 = 10;
const V07_PLAYER_INFO: u16 = 11;
const V07_DE_CLIENT_INFO: u16 = 13;

/// A non-fatal oddity found while reading players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlayerWarningKind {
    /// A player-related item has fewer ints than its layout.
    ShortItem,
    /// A packed name/clan/skin was not UTF-8 (read as empty, like DDNet).
    InvalidString,
    /// More distinct client ids than the tracker keeps (once per id).
    TooManyPlayers,
    /// More distinct names, clans or skins for one player than the tracker
    /// keeps ([`TrackerConfig::max_strings`]; once per player and list).
    TooManyStrings,
    /// More team changes for one player than the tracker keeps
    /// ([`TrackerConfig::max_team_changes`]; once per player).
    TooManyTeamChanges,
}

crate::kind::kind_names!(PlayerWarningKind {
    ShortItem => "short_item",
    InvalidString => "invalid_string",
    TooManyPlayers => "too_many_players",
    TooManyStrings => "too_many_strings",
    TooManyTeamChanges => "too_many_team_changes",
});

/// A warning with the item key (`type << 16 | id`) it concerns, or the
/// client id for [`PlayerWarningKind::TooManyPlayers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlayerWarning {
    pub kind: PlayerWarningKind,
    pub key: u32,
}

/// Unpacks a string packed into ints the DDNet way (see the module docs).
///
/// Returns `None` if the bytes are not UTF-8 (DDNet then uses "").
pub fn ints_to_str(ints: &[i32]) -> Option<String> {
    let mut bytes: Vec<u8> = ints
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .map(|b| b.wrapping_sub(128))
        .collect();
    if let Some(last) = bytes.last_mut() {
        *last = 0;
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes.truncate(end);
    String::from_utf8(bytes).ok()
}

/// One player as one snapshot (plus, in 0.7, the client-info messages so
/// far) shows them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerView {
    pub client_id: u16,
    pub name: Option<String>,
    pub clan: Option<String>,
    pub country: Option<i32>,
    /// 0.6 skin name; 0.7 body part name.
    pub skin: Option<String>,
    pub team: Option<i32>,
    pub score: Option<i32>,
    pub latency: Option<i32>,
    /// The recording client's own player.
    pub local: bool,
    /// `obj_character` position, if the player has a character.
    pub position: Option<(i32, i32)>,
}

/// What 0.7 messages said about a client (name, clan, skin body, team).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MessageInfo {
    pub name: String,
    pub clan: Option<String>,
    pub skin: Option<String>,
    pub country: Option<i32>,
    pub team: Option<i32>,
}

/// Sets `slot` to `text`, reusing its buffer or one from `pool`.
fn set_str(slot: &mut Option<String>, text: &str, pool: &mut Vec<String>) {
    let s = slot.get_or_insert_with(|| pool.pop().unwrap_or_default());
    if s != text {
        s.clear();
        s.push_str(text);
    }
}

/// Decodes the string packed in `data[range]` (see [`ints_to_str`]) into
/// `slot` without allocating once warm; an invalid string becomes empty
/// with a warning.
fn read_str_into(
    data: &[i32],
    range: std::ops::Range<usize>,
    key: u32,
    slot: &mut Option<String>,
    pool: &mut Vec<String>,
    warnings: &mut Vec<PlayerWarning>,
) {
    let Some(ints) = data.get(range) else {
        return;
    };
    // Names, clans and skins are at most 6 ints (24 bytes).
    let mut buf = [0u8; 64];
    let n = 4 * ints.len().min(buf.len() / 4);
    for (chunk, v) in buf[..n].chunks_exact_mut(4).zip(ints) {
        chunk.copy_from_slice(&v.to_be_bytes());
    }
    for b in &mut buf[..n] {
        *b = b.wrapping_sub(128);
    }
    if n > 0 {
        buf[n - 1] = 0;
    }
    let end = buf[..n].iter().position(|&b| b == 0).unwrap_or(n);
    match std::str::from_utf8(&buf[..end]) {
        Ok(text) => set_str(slot, text, pool),
        Err(_) => {
            warnings.push(PlayerWarning {
                kind: PlayerWarningKind::InvalidString,
                key,
            });
            set_str(slot, "", pool);
        }
    }
}

/// Client ids below this have their client-info strings cached; larger
/// ones are decoded anew.
const CACHED_IDS: usize = 256;

/// Name (4), clan (3), country (1), skin (6): the same layout in 0.6
/// `obj_client_info` (from int 0) and 0.7 `obj_de_client_info` (from int 2).
const RAW_INFO_INTS: usize = 14;

/// A table by client id (every `u16`: indexing needs no bounds check).
#[derive(Clone, Debug)]
struct IdIndex(Box<[u32; 1 << 16]>);

impl IdIndex {
    fn new() -> IdIndex {
        let table: Box<[u32]> = vec![0; 1 << 16].into_boxed_slice();
        IdIndex(table.try_into().expect("1 << 16 entries"))
    }
}

/// The players of the latest snapshot given to [`PlayerViews::update`],
/// kept from one call to the next: a view's string buffers are reused, and
/// a client whose client-info ints did not change since the previous call
/// keeps its name, clan and skin without decoding or comparing them (only
/// strings that decoded without warnings are kept, so warnings repeat
/// exactly as on a fresh decode). Called tick after tick it allocates
/// nothing once warm.
#[derive(Clone, Debug, Default)]
pub struct PlayerViews {
    views: Vec<PlayerView>,
    /// Parallel to `views` during an update: (any item seen, client-info
    /// strings set).
    seen: Vec<(bool, bool)>,
    pool: Vec<String>,
    /// By client id: the client-info ints of call number `.0`, when its
    /// strings decoded cleanly (only those of the previous call count).
    raw: Vec<Option<(u64, [i32; RAW_INFO_INTS])>>,
    /// Client ids whose strings the latest call kept unchanged.
    reused: [u64; CACHED_IDS / 64],
    calls: u64,
    /// Decode every string anew (tests compare this with the reuse).
    always_decode: bool,
    /// By client id: position + 1 of its view during an update (0: none);
    /// allocated at the first update and reset entry by entry, so an
    /// update costs O(items).
    index: Option<IdIndex>,
    /// Views looked up (see [`crate::demo::analysis::Probe`]).
    ops: u64,
}

impl PlayerViews {
    pub fn new() -> PlayerViews {
        PlayerViews::default()
    }

    /// The players of the latest snapshot, sorted by client id.
    pub fn views(&self) -> &[PlayerView] {
        &self.views
    }

    /// Whether the latest [`PlayerViews::update`] kept `client_id`'s name,
    /// clan and skin from the call before because its client-info ints
    /// were unchanged. `false` says nothing.
    pub fn strings_reused(&self, client_id: u16) -> bool {
        let id = usize::from(client_id);
        id < CACHED_IDS && self.reused[id / 64] >> (id % 64) & 1 != 0
    }

    /// Replaces the views with the players of `snap` (see [`players`]).
    pub fn update(
        &mut self,
        snap: &Snapshot,
        protocol: Protocol,
        infos: &BTreeMap<u16, MessageInfo>,
        warnings: &mut Vec<PlayerWarning>,
    ) {
        self.calls += 1;
        self.reused = [0; CACHED_IDS / 64];
        if self.raw.len() < CACHED_IDS {
            self.raw.resize(CACHED_IDS, None);
        }
        let mut index = self.index.take().unwrap_or_else(IdIndex::new);
        self.seen.clear();
        for (i, v) in self.views.iter_mut().enumerate() {
            v.country = None;
            v.team = None;
            v.score = None;
            v.latency = None;
            v.local = false;
            v.position = None;
            self.seen.push((false, false));
            index.0[usize::from(v.client_id)] = i as u32 + 1;
        }
        for (key, data) in snap.iter() {
            let (ty, id) = (item_type(key), item_id(key));
            let short = |need: usize, w: &mut Vec<PlayerWarning>| {
                let s = data.len() < need;
                if s {
                    w.push(PlayerWarning {
                        kind: PlayerWarningKind::ShortItem,
                        key,
                    });
                }
                s
            };
            match (protocol, ty) {
                (Protocol::V06, V06_CLIENT_INFO) => {
                    if short(17, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    self.client_strings(at, &data[..RAW_INFO_INTS], key, warnings);
                }
                (Protocol::V06, V06_PLAYER_INFO) => {
                    if short(5, warnings) {
                        continue;
                    }
                    let Ok(cid) = u16::try_from(data[1]) else {
                        continue;
                    };
                    let at = self.entry(&mut index, cid);
                    let p = &mut self.views[at];
                    p.local = data[0] != 0;
                    p.team = Some(data[2]);
                    p.score = Some(data[3]);
                    p.latency = Some(data[4]);
                }
                (Protocol::V07, V07_PLAYER_INFO) => {
                    if short(3, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    let p = &mut self.views[at];
                    p.score = Some(data[1]);
                    p.latency = Some(data[2]);
                }
                (Protocol::V07, V07_DE_CLIENT_INFO) => {
                    if short(58, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    let p = &mut self.views[at];
                    p.local = data[0] != 0;
                    p.team = Some(data[1]);
                    self.client_strings(at, &data[2..2 + RAW_INFO_INTS], key, warnings);
                }
                (Protocol::V06, V06_CHARACTER) | (Protocol::V07, V07_CHARACTER) => {
                    if short(3, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    self.views[at].position = Some((data[1], data[2]));
                }
                _ => {}
            }
        }
        for v in &self.views {
            index.0[usize::from(v.client_id)] = 0;
        }
        self.index = Some(index);
        // Drop the clients without items, and the strings of clients
        // without client info, into the pool.
        let mut kept = 0;
        for i in 0..self.views.len() {
            let (present, strings) = self.seen[i];
            let v = &mut self.views[i];
            if !present || !strings {
                let strings = [v.name.take(), v.clan.take(), v.skin.take()];
                self.pool.extend(strings.into_iter().flatten());
            }
            if present {
                self.views.swap(kept, i);
                kept += 1;
            }
        }
        self.views.truncate(kept);
        if protocol == Protocol::V07 {
            for p in self.views.iter_mut() {
                if let Some(info) = infos.get(&p.client_id) {
                    if p.name.is_none() {
                        set_str(&mut p.name, &info.name, &mut self.pool);
                        set_opt_str(&mut p.clan, info.clan.as_deref(), &mut self.pool);
                        set_opt_str(&mut p.skin, info.skin.as_deref(), &mut self.pool);
                        p.country = info.country;
                    }
                    if p.team.is_none() {
                        p.team = info.team;
                    }
                }
            }
        }
        // Usually already in order (the views kept theirs; new ones follow
        // the items' order, which is by type then id).
        if !self.views.is_sorted_by_key(|p| p.client_id) {
            self.views.sort_unstable_by_key(|p| p.client_id);
        }
    }

    /// The view of client `id`, added if it has none yet.
    #[inline]
    fn entry(&mut self, index: &mut IdIndex, id: u16) -> usize {
        self.ops += 1;
        let slot = usize::from(id);
        let at = match index.0[slot] {
            0 => {
                self.views.push(PlayerView::default());
                self.seen.push((false, false));
                let at = self.views.len() - 1;
                self.views[at].client_id = id;
                index.0[slot] = at as u32 + 1;
                at
            }
            i => i as usize - 1,
        };
        self.seen[at].0 = true;
        at
    }

    /// Sets view `at`'s name, clan, country and skin from the client-info
    /// ints `info` ([`RAW_INFO_INTS`] of them), keeping the strings of the
    /// previous call when the ints are the same.
    fn client_strings(
        &mut self,
        at: usize,
        info: &[i32],
        key: u32,
        warnings: &mut Vec<PlayerWarning>,
    ) {
        let Ok(raw) = <[i32; RAW_INFO_INTS]>::try_from(info) else {
            return;
        };
        self.seen[at].1 = true;
        let p = &mut self.views[at];
        p.country = Some(raw[7]);
        let id = usize::from(p.client_id);
        let cached = self.raw.get(id).copied().flatten();
        let same = |c: &[i32; RAW_INFO_INTS]| {
            // An OR of XORs, not `==`: the array comparison compiles to a
            // libc memcmp call that cost more than the rest of the update.
            c.iter().zip(&raw).fold(0, |acc, (a, b)| acc | (a ^ b)) == 0
        };
        let unchanged = cached.is_some_and(|(call, c)| call + 1 == self.calls && same(&c));
        if unchanged && p.name.is_some() && !self.always_decode {
            self.reused[id / 64] |= 1 << (id % 64);
            self.raw[id] = Some((self.calls, raw));
            return;
        }
        let before = warnings.len();
        let pool = &mut self.pool;
        read_str_into(&raw, 0..4, key, &mut p.name, pool, warnings);
        read_str_into(&raw, 4..7, key, &mut p.clan, pool, warnings);
        read_str_into(&raw, 8..14, key, &mut p.skin, pool, warnings);
        if let Some(slot) = self.raw.get_mut(id) {
            *slot = (warnings.len() == before).then_some((self.calls, raw));
        }
    }
}

/// Sets `slot` to `text` (or `None`), reusing buffers as [`set_str`] does.
fn set_opt_str(slot: &mut Option<String>, text: Option<&str>, pool: &mut Vec<String>) {
    match text {
        Some(t) => set_str(slot, t, pool),
        None => pool.extend(slot.take()),
    }
}

/// The players of one snapshot, sorted by client id.
///
/// `infos` supplies 0.7 names from messages (ignored for 0.6); a 0.7
/// `obj_de_client_info` item takes precedence over it. A player is listed
/// when any of its items is present. [`PlayerViews`] does the same tick
/// after tick without allocating.
pub fn players(
    snap: &Snapshot,
    protocol: Protocol,
    infos: &BTreeMap<u16, MessageInfo>,
    warnings: &mut Vec<PlayerWarning>,
) -> Vec<PlayerView> {
    let mut views = PlayerViews::new();
    views.update(snap, protocol, infos, warnings);
    views.views
}

/// How positions are sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PositionConfig {
    /// Keep a position when at least this many ticks passed since the last
    /// kept one (1 = every tick).
    pub every_ticks: u32,
    /// At most this many positions per player; later ones are counted in
    /// [`PlayerRecord::positions_dropped`].
    pub max_points: usize,
}

/// Limits of a [`PlayerTracker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TrackerConfig {
    /// Most client ids tracked (DDNet has at most 128 clients).
    pub max_players: usize,
    /// Most distinct names (and clans, skins) kept per player.
    pub max_strings: usize,
    /// Position tracks, or `None` for none.
    pub positions: Option<PositionConfig>,
    /// Most team changes kept per player (later ones are counted in
    /// [`PlayerRecord::team_changes_dropped`], with a warning).
    pub max_team_changes: usize,
    /// Keep chat lines ([`PlayerTracker::chat`],
    /// [`PlayerTracker::drain_chat`]); without, they are not stored.
    pub keep_chat: bool,
}

/// Default [`TrackerConfig::max_players`].
pub const DEFAULT_MAX_PLAYERS: usize = 256;
/// Default [`TrackerConfig::max_strings`].
pub const DEFAULT_MAX_STRINGS: usize = 32;
/// Default [`TrackerConfig::max_team_changes`].
pub const DEFAULT_MAX_TEAM_CHANGES: usize = 1024;

impl Default for TrackerConfig {
    fn default() -> Self {
        TrackerConfig {
            max_players: DEFAULT_MAX_PLAYERS,
            max_strings: DEFAULT_MAX_STRINGS,
            positions: None,
            max_team_changes: DEFAULT_MAX_TEAM_CHANGES,
            keep_chat: true,
        }
    }
}

/// A team change seen at `tick`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TeamChange {
    pub tick: i32,
    pub team: i32,
}

/// A kept position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PositionSample {
    pub tick: i32,
    pub x: i32,
    pub y: i32,
}

/// Everything the tracker learnt about one client id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerRecord {
    pub client_id: u16,
    /// Distinct names, in the order first seen.
    pub names: Vec<String>,
    pub clans: Vec<String>,
    pub skins: Vec<String>,
    /// The first team seen and every change after it.
    pub teams: Vec<TeamChange>,
    /// The latest score seen.
    pub score: Option<i32>,
    /// First and last tick the player was in a snapshot.
    pub first_tick: i32,
    pub last_tick: i32,
    /// Ticks with the player in the snapshot.
    pub ticks_present: u32,
    /// Whether the player was ever the recording client's own.
    pub local: bool,
    pub positions: Vec<PositionSample>,
    /// Samples not kept because the track was full.
    pub positions_dropped: u64,
    /// Team changes not kept because `teams` was full.
    pub team_changes_dropped: u64,
    /// The latest team seen.
    team: Option<i32>,
    /// Lists that dropped a string (names, clans, skins: bits 0, 1, 2),
    /// warned about once each.
    strings_dropped: u8,
    /// Tick of the latest sample (kept or dropped).
    last_sample: Option<i32>,
}

/// A chat line with the sender's name at that tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatLine {
    pub tick: i32,
    /// -1 for the server.
    pub client_id: i32,
    /// The sender's name when the line arrived, if known.
    pub name: Option<String>,
    pub mode: ChatMode,
    /// 0.6 team / 0.7 mode as sent.
    pub raw_mode: i32,
    /// 0.7 whisper target.
    pub target_id: Option<i32>,
    pub text: String,
}

/// Position in the tracker's records of `client_id`'s record.
fn record_index(record_at: &[u32], client_id: u16) -> Option<usize> {
    match record_at.get(usize::from(client_id)) {
        Some(&at) if at != 0 => Some(at as usize - 1),
        _ => None,
    }
}

/// Adds a record for a new client id (at most `max_players` of them, so
/// re-sorting and re-indexing all is cheap; the index grows to the largest
/// id, at most 65 536 entries).
fn add_record(records: &mut Vec<PlayerRecord>, record_at: &mut Vec<u32>, record: PlayerRecord) {
    let id = usize::from(record.client_id);
    if record_at.len() <= id {
        record_at.resize(id + 1, 0);
    }
    records.push(record);
    records.sort_by_key(|r| r.client_id);
    for (i, r) in records.iter().enumerate() {
        record_at[usize::from(r.client_id)] = i as u32 + 1;
    }
}

/// Follows players through a demo: feed it every snapshot (once per tick,
/// in tick order) and every message.
#[derive(Clone, Debug)]
pub struct PlayerTracker {
    protocol: Protocol,
    config: TrackerConfig,
    /// Sorted by client id.
    records: Vec<PlayerRecord>,
    /// By client id: position in `records` + 1 (0: none).
    record_at: Vec<u32>,
    /// Current names by client id (from the latest snapshot or message).
    current: BTreeMap<u16, String>,
    /// Whether a message set a current name since the latest snapshot.
    names_from_messages: bool,
    /// 0.7: what messages said about each connected client.
    infos: BTreeMap<u16, MessageInfo>,
    chat: Vec<ChatLine>,
    view: PlayerViews,
    /// Client ids refused for lack of room (warned about once each).
    refused: std::collections::BTreeSet<u16>,
    /// Records and strings looked up (see
    /// [`crate::demo::analysis::Probe`]).
    ops: u64,
}

/// Adds `s` to `list` unless it is there; returns `false` when it is new
/// but the list is full (`cap`, so the search is bounded; only strings that
/// changed since the previous tick's view get here,
/// [`PlayerViews::strings_reused`]). `ops` counts the strings compared.
fn push_distinct(list: &mut Vec<String>, s: &str, cap: usize, ops: &mut u64) -> bool {
    *ops += list.len() as u64;
    if list.iter().any(|x| x == s) {
        return true;
    }
    if list.len() < cap {
        list.push(s.to_owned());
        return true;
    }
    false
}

impl PlayerTracker {
    pub fn new(protocol: Protocol, config: TrackerConfig) -> PlayerTracker {
        PlayerTracker {
            protocol,
            config,
            records: Vec::new(),
            record_at: Vec::new(),
            current: BTreeMap::new(),
            names_from_messages: false,
            infos: BTreeMap::new(),
            chat: Vec::new(),
            view: PlayerViews::new(),
            refused: std::collections::BTreeSet::new(),
            ops: 0,
        }
    }

    /// Records the players of the snapshot shown at `tick`.
    ///
    /// Feeding the same tick twice does not count it twice.
    pub fn feed_snapshot(&mut self, tick: i32, snap: &Snapshot, warnings: &mut Vec<PlayerWarning>) {
        self.view.update(snap, self.protocol, &self.infos, warnings);
        let cfg = self.config;
        for p in self.view.views() {
            self.ops += 1;
            if record_index(&self.record_at, p.client_id).is_none() {
                if self.records.len() >= cfg.max_players {
                    if self.refused.insert(p.client_id) {
                        warnings.push(PlayerWarning {
                            kind: PlayerWarningKind::TooManyPlayers,
                            key: u32::from(p.client_id),
                        });
                    }
                    continue;
                }
                add_record(
                    &mut self.records,
                    &mut self.record_at,
                    PlayerRecord {
                        client_id: p.client_id,
                        names: Vec::new(),
                        clans: Vec::new(),
                        skins: Vec::new(),
                        teams: Vec::new(),
                        score: None,
                        first_tick: tick,
                        last_tick: tick,
                        ticks_present: 0,
                        local: false,
                        positions: Vec::new(),
                        positions_dropped: 0,
                        team_changes_dropped: 0,
                        team: None,
                        strings_dropped: 0,
                        last_sample: None,
                    },
                );
            }
            let Some(at) = record_index(&self.record_at, p.client_id) else {
                continue;
            };
            let r = &mut self.records[at];
            // Strings taken over from the previous tick's view were noted
            // then (the record existed: records are never dropped).
            let noted = r.ticks_present > 0 && self.view.strings_reused(p.client_id);
            if r.ticks_present == 0 || r.last_tick != tick {
                r.ticks_present = r.ticks_present.saturating_add(1);
            }
            r.last_tick = tick;
            r.local |= p.local;
            let mut dropped = 0u8;
            if let Some(name) = &p.name {
                if !noted && !push_distinct(&mut r.names, name, cfg.max_strings, &mut self.ops) {
                    dropped |= 1;
                }
                // The previous tick set this very name, unless a message
                // changed it since.
                let set = noted && !self.names_from_messages;
                if !set && self.current.get(&p.client_id) != Some(name) {
                    self.current.insert(p.client_id, name.clone());
                }
            }
            if !noted {
                if let Some(clan) = &p.clan {
                    if !push_distinct(&mut r.clans, clan, cfg.max_strings, &mut self.ops) {
                        dropped |= 2;
                    }
                }
                if let Some(skin) = &p.skin {
                    if !push_distinct(&mut r.skins, skin, cfg.max_strings, &mut self.ops) {
                        dropped |= 4;
                    }
                }
            }
            if dropped & !r.strings_dropped != 0 {
                r.strings_dropped |= dropped;
                warnings.push(PlayerWarning {
                    kind: PlayerWarningKind::TooManyStrings,
                    key: u32::from(p.client_id),
                });
            }
            if let Some(team) = p.team {
                let changed = r.team != Some(team);
                r.team = Some(team);
                if changed && r.team_changes_dropped > 0 {
                    r.team_changes_dropped += 1;
                } else if changed && r.teams.len() >= cfg.max_team_changes {
                    r.team_changes_dropped = 1;
                    warnings.push(PlayerWarning {
                        kind: PlayerWarningKind::TooManyTeamChanges,
                        key: u32::from(p.client_id),
                    });
                } else if changed {
                    r.teams.push(TeamChange { tick, team });
                }
            }
            if p.score.is_some() {
                r.score = p.score;
            }
            if let (Some(pc), Some((x, y))) = (cfg.positions, p.position) {
                let due = r
                    .last_sample
                    .is_none_or(|l| i64::from(tick) - i64::from(l) >= i64::from(pc.every_ticks));
                if due {
                    r.last_sample = Some(tick);
                    if r.positions.len() < pc.max_points {
                        r.positions.push(PositionSample { tick, x, y });
                    } else {
                        r.positions_dropped += 1;
                    }
                }
            }
        }
        self.names_from_messages = false;
    }

    /// Records what a message says: chat lines, and in 0.7 the names
    /// clients join and leave with.
    pub fn feed_message(&mut self, tick: i32, msg: &Message) {
        match &msg.body {
            Body::Chat(c) if self.config.keep_chat => {
                let name = u16::try_from(c.client_id)
                    .ok()
                    .and_then(|id| self.current.get(&id))
                    .cloned();
                self.chat.push(ChatLine {
                    tick,
                    client_id: c.client_id,
                    name,
                    mode: c.mode,
                    raw_mode: c.raw_mode,
                    target_id: c.target_id,
                    text: c.text.clone().into_owned(),
                });
            }
            Body::ClientInfo(ci) => {
                if let Ok(id) = u16::try_from(ci.client_id) {
                    let info = MessageInfo {
                        name: ci.name.clone().into_owned(),
                        clan: Some(ci.clan.clone().into_owned()),
                        skin: Some(ci.skin_parts[0].clone().into_owned()),
                        country: Some(ci.country),
                        team: Some(ci.team),
                    };
                    self.current.insert(id, info.name.clone());
                    self.names_from_messages = true;
                    self.infos.insert(id, info);
                }
            }
            Body::ClientEnter {
                name,
                client_id,
                team,
            } => {
                if let Ok(id) = u16::try_from(*client_id) {
                    let info = self.infos.entry(id).or_default();
                    info.name = name.clone().into_owned();
                    info.team = Some(*team);
                    self.current.insert(id, info.name.clone());
                    self.names_from_messages = true;
                }
            }
            Body::Team {
                client_id, team, ..
            } => {
                if let Some(info) = u16::try_from(*client_id)
                    .ok()
                    .and_then(|id| self.infos.get_mut(&id))
                {
                    info.team = Some(*team);
                }
            }
            Body::ClientDrop { client_id, .. } | Body::ClientLeave { client_id, .. } => {
                if let Ok(id) = u16::try_from(*client_id) {
                    self.infos.remove(&id);
                }
            }
            _ => {}
        }
    }

    /// Every tracked player, by client id.
    pub fn players(&self) -> impl Iterator<Item = &PlayerRecord> {
        self.records.iter()
    }

    /// The record of one client id.
    pub fn player(&self, client_id: u16) -> Option<&PlayerRecord> {
        Some(&self.records[record_index(&self.record_at, client_id)?])
    }

    /// The players of the latest snapshot fed.
    pub fn current_view(&self) -> &[PlayerView] {
        self.view.views()
    }

    /// The name a client id has now, if known.
    pub fn current_name(&self, client_id: u16) -> Option<&str> {
        self.current.get(&client_id).map(String::as_str)
    }

    /// Every chat line fed so far (and not drained), with
    /// [`TrackerConfig::keep_chat`].
    pub fn chat(&self) -> &[ChatLine] {
        &self.chat
    }

    /// Takes the chat lines fed since the previous call (with
    /// [`TrackerConfig::keep_chat`]): drained after every message, the
    /// tracker holds at most one.
    pub fn drain_chat(&mut self) -> std::vec::Drain<'_, ChatLine> {
        self.chat.drain(..)
    }

    /// Records, views and strings looked up so far (see
    /// [`crate::demo::analysis::Probe`]).
    #[doc(hidden)]
    pub fn ops(&self) -> u64 {
        self.ops + self.view.ops
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::snapshot::item_key;

    /// DDNet `StrToInts` for the tests.
    fn str_to_ints<const N: usize>(s: &str) -> [i32; N] {
        let mut bytes = vec![0u8; N * 4];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        let mut out = [0; N];
        for (o, c) in out.iter_mut().zip(bytes.chunks_exact(4)) {
            *o = i32::from_be_bytes([
                c[0].wrapping_add(128),
                c[1].wrapping_add(128),
                c[2].wrapping_add(128),
                c[3].wrapping_add(128),
            ]);
        }
        out
    }

    fn client_info(name: &str, clan: &str, skin: &str) -> Vec<i32> {
        let mut v = Vec::new();
        v.extend(str_to_ints::<4>(name));
        v.extend(str_to_ints::<3>(clan));
        v.push(276);
        v.extend(str_to_ints::<6>(skin));
        v.extend([1, 65408, 65280]);
        v
    }

    #[test]
    fn ints_to_str_follows_ddnet() {
        assert_eq!(
            ints_to_str(&str_to_ints::<4>("nameless tee")).as_deref(),
            Some("nameless tee")
        );
        // 16 bytes: the last is forced to NUL.
        assert_eq!(
            ints_to_str(&str_to_ints::<4>("0123456789abcdef")).as_deref(),
            Some("0123456789abcde")
        );
        // All-zero ints are bytes 0x80: invalid UTF-8, empty in DDNet.
        assert_eq!(ints_to_str(&[0, 0, 0]), None);
        assert_eq!(ints_to_str(&[]).as_deref(), Some(""));
    }

    #[test]
    fn players_06() {
        let mut s = Snapshot::new();
        s.push(
            item_key(11, 3),
            &client_info("brainless tee", "DDNet", "default"),
        )
        .unwrap();
        s.push(item_key(10, 3), &[1, 3, 0, 42, 17]).unwrap();
        s.push(
            item_key(9, 3),
            &[
                0, 100, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0,
            ],
        )
        .unwrap();
        s.push(item_key(10, 5), &[0, 5, -1, 0, 0]).unwrap();
        let mut w = Vec::new();
        let v = players(&s, Protocol::V06, &BTreeMap::new(), &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(v.len(), 2);
        assert_eq!(
            v[0],
            PlayerView {
                client_id: 3,
                name: Some("brainless tee".into()),
                clan: Some("DDNet".into()),
                country: Some(276),
                skin: Some("default".into()),
                team: Some(0),
                score: Some(42),
                latency: Some(17),
                local: true,
                position: Some((100, 200)),
            }
        );
        assert_eq!(
            (v[1].client_id, v[1].team, v[1].name.as_deref()),
            (5, Some(-1), None)
        );
    }

    #[test]
    fn short_items_warn() {
        let mut s = Snapshot::new();
        s.push(item_key(11, 0), &[1, 2]).unwrap();
        let mut w = Vec::new();
        assert!(players(&s, Protocol::V06, &BTreeMap::new(), &mut w).is_empty());
        assert_eq!(
            w,
            [PlayerWarning {
                kind: PlayerWarningKind::ShortItem,
                key: item_key(11, 0)
            }]
        );
    }

    #[test]
    fn tracker_counts_ticks_teams_positions() {
        let cfg = TrackerConfig {
            positions: Some(PositionConfig {
                every_ticks: 2,
                max_points: 2,
            }),
            ..TrackerConfig::default()
        };
        let mut t = PlayerTracker::new(Protocol::V06, cfg);
        let mut w = Vec::new();
        for tick in 10..16 {
            let mut s = Snapshot::new();
            s.push(
                item_key(11, 0),
                &client_info(if tick < 13 { "a" } else { "b" }, "", "x"),
            )
            .unwrap();
            s.push(item_key(10, 0), &[0, 0, i32::from(tick >= 12), tick, 0])
                .unwrap();
            let mut ch = [0; 22];
            ch[1] = tick * 10;
            s.push(item_key(9, 0), &ch).unwrap();
            t.feed_snapshot(tick, &s, &mut w);
            t.feed_snapshot(tick, &s, &mut w);
        }
        let r = t.player(0).unwrap();
        assert_eq!((r.first_tick, r.last_tick, r.ticks_present), (10, 15, 6));
        assert_eq!(r.names, ["a", "b"]);
        assert_eq!(
            r.teams,
            [
                TeamChange { tick: 10, team: 0 },
                TeamChange { tick: 12, team: 1 }
            ]
        );
        assert_eq!(r.score, Some(15));
        assert_eq!(
            r.positions,
            [
                PositionSample {
                    tick: 10,
                    x: 100,
                    y: 0
                },
                PositionSample {
                    tick: 12,
                    x: 120,
                    y: 0
                }
            ]
        );
        assert_eq!(r.positions_dropped, 1);
        assert!(w.is_empty());
    }

    #[test]
    fn tracker_07_names_by_message_and_chat() {
        use crate::demo::message::decode;
        let mut t = PlayerTracker::new(Protocol::V07, TrackerConfig::default());
        let mut w = Vec::new();
        // Real bytes: De_ClientEnter "bar", id 1, team 0.
        let enter = decode(b"\x2cbar\0\x01\0\0", Protocol::V07, &mut Vec::new()).unwrap();
        t.feed_message(10, &enter);
        let mut s = Snapshot::new();
        s.push(item_key(11, 1), &[0, 5, 30]).unwrap();
        t.feed_snapshot(10, &s, &mut w);
        assert_eq!(t.current_view()[0].name.as_deref(), Some("bar"));
        assert_eq!(t.current_view()[0].team, Some(0));
        // Sv_Chat 0.7: mode 2 (team), client 1, target -1, "gl".
        let chat = decode(b"\x06\x02\x01\x40gl\0\0\0", Protocol::V07, &mut Vec::new()).unwrap();
        t.feed_message(11, &chat);
        let line = &t.chat()[0];
        assert_eq!(
            (
                line.tick,
                line.client_id,
                line.name.as_deref(),
                line.mode,
                line.text.as_str()
            ),
            (11, 1, Some("bar"), ChatMode::Team, "gl")
        );
        // Sv_ClientDrop id 1: the message name is gone from later views.
        let drop = decode(&[0x28, 1, 0, 0], Protocol::V07, &mut Vec::new()).unwrap();
        t.feed_message(12, &drop);
        t.feed_snapshot(12, &s, &mut w);
        assert_eq!(t.current_view()[0].name, None);
        let r = t.player(1).unwrap();
        assert_eq!(
            (r.names.as_slice(), r.score, r.ticks_present),
            (&["bar".to_owned()][..], Some(5), 2)
        );
        assert!(w.is_empty());
    }

    #[test]
    fn tracker_caps_players() {
        let cfg = TrackerConfig {
            max_players: 1,
            ..TrackerConfig::default()
        };
        let mut t = PlayerTracker::new(Protocol::V06, cfg);
        let mut s = Snapshot::new();
        s.push(item_key(10, 0), &[0, 0, 0, 0, 0]).unwrap();
        s.push(item_key(10, 1), &[0, 1, 0, 0, 0]).unwrap();
        let mut w = Vec::new();
        t.feed_snapshot(1, &s, &mut w);
        t.feed_snapshot(2, &s, &mut w);
        assert_eq!(t.players().count(), 1);
        assert_eq!(
            w,
            [PlayerWarning {
                kind: PlayerWarningKind::TooManyPlayers,
                key: 1
            }]
        );
    }

    /// One client's items in a generated tick: which client-info variant
    /// (none, two names, an invalid string), and whether player info and a
    /// character are there.
    type ClientItems = (u8, bool, bool);

    fn generated_snapshot(protocol: Protocol, clients: &[(u16, ClientItems)]) -> Snapshot {
        let mut snap = Snapshot::new();
        for &(id, (info, player, character)) in clients {
            let strings = match info {
                1 => Some(client_info("alpha", "c", "default")),
                2 => Some(client_info("beta", "c", "bluekitty")),
                // 0x80 bytes: not UTF-8, warned and read as "".
                3 => Some([vec![0; 4], client_info("x", "y", "z")[4..].to_vec()].concat()),
                _ => None,
            };
            let (info_type, player_type, char_type) = match protocol {
                Protocol::V06 => (V06_CLIENT_INFO, V06_PLAYER_INFO, V06_CHARACTER),
                Protocol::V07 => (V07_DE_CLIENT_INFO, V07_PLAYER_INFO, V07_CHARACTER),
            };
            if let Some(strings) = strings {
                let data = match protocol {
                    Protocol::V06 => strings,
                    Protocol::V07 => {
                        let mut d = vec![0, 1];
                        d.extend(&strings[..14]);
                        d.resize(58, 0);
                        d
                    }
                };
                snap.push(item_key(info_type, id), &data).unwrap();
            }
            if player {
                let data = match protocol {
                    Protocol::V06 => vec![0, i32::from(id), 0, 5, 20],
                    Protocol::V07 => vec![0, 5, 20],
                };
                let key_id = if protocol == Protocol::V06 {
                    0x100 + id
                } else {
                    id
                };
                snap.push(item_key(player_type, key_id), &data).unwrap();
            }
            if character {
                snap.push(item_key(char_type, id), &[0, 32, 64]).unwrap();
            }
        }
        snap
    }

    proptest::proptest! {
        /// Tick after tick, the cached views equal fresh ones (strings,
        /// warnings), whatever appears, changes or goes away; ids from 256
        /// are not cached.
        #[test]
        fn cached_views_equal_fresh_ones(
            v07 in proptest::bool::ANY,
            ticks in proptest::collection::vec(
                proptest::collection::vec((0..4u8, proptest::bool::ANY, proptest::bool::ANY), 4),
                1..24,
            ),
        ) {
            let protocol = if v07 { Protocol::V07 } else { Protocol::V06 };
            let ids = [0u16, 1, 255, 300];
            let mut infos = BTreeMap::new();
            infos.insert(1, MessageInfo { name: "from message".into(), ..MessageInfo::default() });
            let mut views = PlayerViews::new();
            for tick in &ticks {
                let clients: Vec<_> = ids.iter().copied().zip(tick.iter().copied()).collect();
                let snap = generated_snapshot(protocol, &clients);
                let (mut w_cached, mut w_fresh) = (Vec::new(), Vec::new());
                views.update(&snap, protocol, &infos, &mut w_cached);
                let fresh = players(&snap, protocol, &infos, &mut w_fresh);
                proptest::prop_assert_eq!(views.views(), &fresh[..]);
                proptest::prop_assert_eq!(&w_cached, &w_fresh);
            }
        }
    }

    /// 0.7 messages: `De_ClientEnter` (name, client id, team 0) and
    /// `Sv_Chat` (team mode, client id, no target, "gl").
    fn enter_07(name: &str, id: u8) -> Vec<u8> {
        [&[0x2c][..], name.as_bytes(), &[0, id, 0, 0]].concat()
    }
    fn chat_07(id: u8) -> Vec<u8> {
        vec![0x06, 0x02, id, 0x40, b'g', b'l', 0, 0, 0]
    }

    proptest::proptest! {
        /// Over random ticks and messages, a tracker that keeps unchanged
        /// strings records exactly what one decoding every string records.
        #[test]
        fn tracker_reuse_changes_nothing(
            v07 in proptest::bool::ANY,
            steps in proptest::collection::vec(
                (0..4u8, proptest::collection::vec((0..4u8, proptest::bool::ANY, proptest::bool::ANY), 4)),
                1..32,
            ),
        ) {
            use crate::demo::message::decode;
            let protocol = if v07 { Protocol::V07 } else { Protocol::V06 };
            let mut reusing = PlayerTracker::new(protocol, TrackerConfig::default());
            let mut decoding = PlayerTracker::new(protocol, TrackerConfig::default());
            decoding.view.always_decode = true;
            let ids = [0u16, 1, 255, 300];
            let (mut w1, mut w2) = (Vec::new(), Vec::new());
            for (tick, (what, clients)) in steps.iter().enumerate() {
                let tick = tick as i32;
                let message = match what {
                    1 if v07 => Some(enter_07(if tick % 2 == 0 { "bar" } else { "baz" }, 1)),
                    2 => Some(chat_07(clients[0].0 % 2)),
                    _ => None,
                };
                if let Some(bytes) = message {
                    let m = decode(&bytes, protocol, &mut Vec::new()).unwrap();
                    reusing.feed_message(tick, &m);
                    decoding.feed_message(tick, &m);
                }
                let clients: Vec<_> = ids.iter().copied().zip(clients.iter().copied()).collect();
                let snap = generated_snapshot(protocol, &clients);
                reusing.feed_snapshot(tick, &snap, &mut w1);
                decoding.feed_snapshot(tick, &snap, &mut w2);
                proptest::prop_assert_eq!(reusing.current_view(), decoding.current_view());
            }
            proptest::prop_assert_eq!(&w1, &w2);
            let r1: Vec<_> = reusing.players().collect();
            let r2: Vec<_> = decoding.players().collect();
            proptest::prop_assert_eq!(r1, r2);
            proptest::prop_assert_eq!(reusing.chat(), decoding.chat());
            for id in [0, 1, 255, 300] {
                proptest::prop_assert_eq!(reusing.current_name(id), decoding.current_name(id));
            }
        }
    }
}
