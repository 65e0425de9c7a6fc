//! Per-snapshot views: who is in one snapshot (names, clans, skins, teams,
//! scores, positions), rebuilt tick after tick in reused buffers.

use std::collections::BTreeMap;

use super::changes::PlayerChanges;
use super::strings::{read_str_into, set_opt_str, set_str};
use super::{PlayerWarning, PlayerWarningKind};
use crate::codec::snapshot::{item_id, item_key, item_type, v06, v07, Protocol, Snapshot};
use crate::warn::{Counting, Warn};

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

/// Client ids below this have their client-info strings cached; larger
/// ones are decoded anew.
const CACHED_IDS: usize = 256;

/// Name (4), clan (3), country (1), skin (6): the same layout in 0.6
/// `obj_client_info` (from int 0) and 0.7 `obj_de_client_info` (from int 2).
const RAW_INFO_INTS: usize = 14;

/// A table by client id, grown to the largest id entered (at most
/// 65,536 entries; most demos use ids below 64, so a demo does not zero a
/// table of every `u16`).
#[derive(Clone, Debug, Default)]
struct IdIndex(Vec<u32>);

impl IdIndex {
    /// The entry of client `id`, the table grown to hold it.
    #[inline]
    fn slot(&mut self, id: u16) -> &mut u32 {
        let slot = usize::from(id);
        if slot >= self.0.len() {
            self.0.resize(slot + 1, 0);
        }
        &mut self.0[slot]
    }
}

/// The players of the latest snapshot given to [`PlayerViews::update`],
/// kept from one call to the next: a view's string buffers are reused, and
/// a client whose client-info ints did not change since the previous call
/// keeps its name, clan and skin without decoding or comparing them (only
/// strings that decoded without warnings are kept, so warnings repeat
/// exactly as on a fresh decode). Called tick after tick it allocates
/// nothing once warm.
///
/// Views made [`PlayerViews::without_positions`] leave every
/// [`PlayerView::position`] `None` (characters still make their player
/// present, and a short one still warns): a followed update then has
/// nothing to do for a character that only moved.
#[derive(Clone, Debug, Default)]
pub struct PlayerViews {
    views: Vec<PlayerView>,
    /// Positions are not kept ([`PlayerViews::without_positions`]).
    no_positions: bool,
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
    pub(super) always_decode: bool,
    /// By client id: position + 1 of its view during an update (0: none);
    /// kept from one update to the next and reset entry by entry, so an
    /// update costs O(items).
    index: Option<IdIndex>,
    /// Views looked up (see [`crate::demo::analysis::Probe`]).
    pub(super) ops: u64,
    /// Whether the views can follow item updates one by one
    /// ([`PlayerViews::update_changed`]): the latest full update gave no
    /// warning and no client has two 0.6 player-info items.
    clean: bool,
    /// 0.6: (item id, client id) of every player-info item of the latest
    /// full update.
    player_info_ids: Vec<(u16, u16)>,
    /// 0.6, by player-info item id: client id + 1 of the item in the
    /// latest full update (0: no such item); set from and reset by
    /// `player_info_ids`, grown to the largest item id.
    info_client: Vec<u32>,
    /// The latest update followed item updates: every string is the
    /// previous call's ([`PlayerViews::strings_reused`]).
    all_reused: bool,
    /// After a followed update: the clients whose player info it updated
    /// (team, score, `local` may have changed; may repeat).
    changed: Vec<u16>,
    /// By client id: position + 1 of its view in `views` (0: none), set by
    /// every full update (followed updates keep the views' order), so a
    /// followed update finds a view without a search.
    view_at: Vec<u32>,
}

/// The position of client `id`'s view, from [`PlayerViews::view_at`].
#[inline]
fn view_of(view_at: &[u32], id: u16) -> Option<usize> {
    match view_at.get(usize::from(id)) {
        Some(&at) if at != 0 => Some(at as usize - 1),
        _ => None,
    }
}

/// The character item type of `protocol`.
#[inline]
fn character_type(protocol: Protocol) -> u16 {
    match protocol {
        Protocol::V06 => v06::CHARACTER,
        Protocol::V07 => v07::CHARACTER,
    }
}

/// Whether `key` is a character item in `protocol`.
#[inline]
pub(super) fn is_character(protocol: Protocol, key: u32) -> bool {
    item_type(key) == character_type(protocol)
}

/// The item types the views read in `protocol`, with or without the
/// character, as bits of a mask: bit `t` for type `t` (they are below 64).
#[inline]
pub(super) fn player_types(protocol: Protocol, characters: bool) -> u64 {
    let infos = match protocol {
        Protocol::V06 => [v06::PLAYER_INFO, v06::CLIENT_INFO],
        Protocol::V07 => [v07::PLAYER_INFO, v07::DE_CLIENT_INFO],
    };
    let mut mask = infos.iter().fold(0u64, |m, &t| m | 1 << t);
    if characters {
        mask |= 1 << character_type(protocol);
    }
    mask
}

/// Whether the type of `key` is one of the bits of `types`.
#[inline]
pub(super) fn has_type(types: u64, key: u32) -> bool {
    types.checked_shr(u32::from(item_type(key))).unwrap_or(0) & 1 != 0
}

/// The position in a character item's data (ints 1 and 2, in both
/// protocols), if the item holds them.
#[inline]
fn position(data: &[i32]) -> Option<(i32, i32)> {
    match data {
        [_, x, y, ..] => Some((*x, *y)),
        _ => None,
    }
}

/// Sets `p`'s fields from a 0.6 `obj_player_info` (at least 5 ints:
/// local, client id, team, score, latency).
#[inline]
fn player_info_06(p: &mut PlayerView, data: &[i32]) {
    p.local = data[0] != 0;
    p.team = Some(data[2]);
    p.score = Some(data[3]);
    p.latency = Some(data[4]);
}

/// Sets `p`'s fields from a 0.7 `obj_player_info` (at least 3 ints:
/// player flags, score, latency).
#[inline]
fn player_info_07(p: &mut PlayerView, data: &[i32]) {
    p.score = Some(data[1]);
    p.latency = Some(data[2]);
}

impl PlayerViews {
    pub fn new() -> PlayerViews {
        PlayerViews::default()
    }

    /// Views that keep no positions (see the type docs).
    pub fn without_positions() -> PlayerViews {
        PlayerViews {
            no_positions: true,
            ..PlayerViews::default()
        }
    }

    /// The players of the latest snapshot, sorted by client id.
    pub fn views(&self) -> &[PlayerView] {
        &self.views
    }

    /// After an update that followed the changed items (the players and
    /// strings are those of the update before): the clients whose player
    /// info changed. `None` after a full update.
    pub fn followed(&self) -> Option<&[u16]> {
        self.all_reused.then_some(&self.changed[..])
    }

    /// The position in [`PlayerViews::views`] of client `id`'s view.
    #[inline]
    pub fn view_index(&self, id: u16) -> Option<usize> {
        view_of(&self.view_at, id)
    }

    /// Whether the latest [`PlayerViews::update`] kept `client_id`'s name,
    /// clan and skin from the call before because its client-info ints
    /// were unchanged (always after a followed update). `false` says
    /// nothing.
    pub fn strings_reused(&self, client_id: u16) -> bool {
        if self.all_reused {
            return true;
        }
        let id = usize::from(client_id);
        id < CACHED_IDS && self.reused[id / 64] >> (id % 64) & 1 != 0
    }

    /// Replaces the views with the players of `snap` (see [`players`]).
    pub fn update(
        &mut self,
        snap: &Snapshot,
        protocol: Protocol,
        infos: &BTreeMap<u16, MessageInfo>,
        warnings: &mut dyn Warn<PlayerWarning>,
    ) {
        let warnings = &mut Counting::new(warnings);
        let warnings_before = warnings.count;
        self.calls += 1;
        self.all_reused = false;
        for &(item, _) in &self.player_info_ids {
            self.info_client[usize::from(item)] = 0;
        }
        self.player_info_ids.clear();
        self.reused = [0; CACHED_IDS / 64];
        if self.raw.len() < CACHED_IDS {
            self.raw.resize(CACHED_IDS, None);
        }
        let mut index = self.index.take().unwrap_or_default();
        self.seen.clear();
        for (i, v) in self.views.iter_mut().enumerate() {
            if let Some(at) = self.view_at.get_mut(usize::from(v.client_id)) {
                *at = 0;
            }
            v.country = None;
            v.team = None;
            v.score = None;
            v.latency = None;
            v.local = false;
            v.position = None;
            self.seen.push((false, false));
            *index.slot(v.client_id) = i as u32 + 1;
        }
        for (key, data) in snap.iter() {
            let (ty, id) = (item_type(key), item_id(key));
            let short = |need: usize, w: &mut dyn Warn<PlayerWarning>| {
                let s = data.len() < need;
                if s {
                    w.warn(PlayerWarning {
                        kind: PlayerWarningKind::ShortItem,
                        key,
                    });
                }
                s
            };
            match (protocol, ty) {
                (Protocol::V06, v06::CLIENT_INFO) => {
                    if short(17, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    self.client_strings(at, &data[..RAW_INFO_INTS], key, warnings);
                }
                (Protocol::V06, v06::PLAYER_INFO) => {
                    if short(5, warnings) {
                        continue;
                    }
                    let Ok(cid) = u16::try_from(data[1]) else {
                        continue;
                    };
                    self.player_info_ids.push((id, cid));
                    let item = usize::from(id);
                    if self.info_client.len() <= item {
                        self.info_client.resize(item + 1, 0);
                    }
                    self.info_client[item] = u32::from(cid) + 1;
                    let at = self.entry(&mut index, cid);
                    player_info_06(&mut self.views[at], data);
                }
                (Protocol::V07, v07::PLAYER_INFO) => {
                    if short(3, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    player_info_07(&mut self.views[at], data);
                }
                (Protocol::V07, v07::DE_CLIENT_INFO) => {
                    if short(58, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    let p = &mut self.views[at];
                    p.local = data[0] != 0;
                    p.team = Some(data[1]);
                    self.client_strings(at, &data[2..2 + RAW_INFO_INTS], key, warnings);
                }
                (Protocol::V06, v06::CHARACTER) | (Protocol::V07, v07::CHARACTER) => {
                    if short(3, warnings) {
                        continue;
                    }
                    let at = self.entry(&mut index, id);
                    if !self.no_positions {
                        self.views[at].position = position(data);
                    }
                }
                _ => {}
            }
        }
        for v in &self.views {
            *index.slot(v.client_id) = 0;
        }
        self.index = Some(index);
        self.clean = warnings.count == warnings_before && self.player_infos_distinct();
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
        if let Some(last) = self.views.last() {
            let need = usize::from(last.client_id) + 1;
            if self.view_at.len() < need {
                self.view_at.resize(need, 0);
            }
        }
        for (i, v) in self.views.iter().enumerate() {
            self.view_at[usize::from(v.client_id)] = i as u32 + 1;
        }
    }

    /// Whether no two 0.6 player-info items name the same client (then an
    /// update of one sets all of its view's player fields).
    fn player_infos_distinct(&mut self) -> bool {
        let ids = &mut self.player_info_ids;
        ids.sort_unstable_by_key(|&(_, cid)| cid);
        ids.windows(2).all(|w| w[0].1 != w[1].1)
    }

    /// 0.6: the client the player-info item `item` named in the latest
    /// full update.
    #[inline]
    fn info_client(&self, item: u16) -> Option<u16> {
        match self.info_client.get(usize::from(item)) {
            Some(&c) if c != 0 => Some((c - 1) as u16),
            _ => None,
        }
    }

    /// Brings the views from the snapshot of the latest update to `snap`,
    /// which `changes` describes: item by item when the player items were
    /// only updated in place (characters, player infos: work in
    /// proportion to those), else (items added or removed, client infos
    /// changed, `infos_changed`, or the latest update was not
    /// `PlayerViews::clean`) by a full [`PlayerViews::update`]. The
    /// views, strings and warnings are those of a full update either way.
    pub fn update_changed(
        &mut self,
        snap: &Snapshot,
        protocol: Protocol,
        infos: &BTreeMap<u16, MessageInfo>,
        changes: &PlayerChanges,
        infos_changed: bool,
        warnings: &mut dyn Warn<PlayerWarning>,
    ) {
        // Views with positions need the updated characters noted.
        let noted_enough = self.no_positions || !changes.no_positions;
        let followed = noted_enough
            && !changes.rebuild
            && !infos_changed
            && self.clean
            && self.calls > 0
            && self.follow(snap, protocol, changes);
        if !followed {
            self.update(snap, protocol, infos, warnings);
        }
    }

    /// The item-by-item way of [`PlayerViews::update_changed`]: each
    /// change is checked and applied in one pass (a character or player
    /// info of a client with a view, a 0.6 player info still naming the
    /// same client, a character removed from a client that keeps another
    /// item); `false` at the first that cannot be followed, and the views
    /// are then for a full update, which sets every field a change here
    /// may have set.
    fn follow(&mut self, snap: &Snapshot, protocol: Protocol, changes: &PlayerChanges) -> bool {
        self.changed.clear();
        for &key in changes.removed.iter().chain(&changes.added) {
            self.ops += 1;
            let id = item_id(key);
            let Some(at) = view_of(&self.view_at, id) else {
                return false;
            };
            let data = snap.get(key);
            if let Some(d) = data {
                // A character still (or again) there must be whole.
                if d.len() < 3 {
                    return false;
                }
            } else {
                // Gone: the client must keep another item.
                let kept = match protocol {
                    Protocol::V06 => {
                        snap.get(item_key(v06::CLIENT_INFO, id)).is_some()
                            || self.info_client(id) == Some(id)
                    }
                    Protocol::V07 => {
                        snap.get(item_key(v07::PLAYER_INFO, id)).is_some()
                            || snap.get(item_key(v07::DE_CLIENT_INFO, id)).is_some()
                    }
                };
                if !kept {
                    return false;
                }
            }
            if !self.no_positions {
                self.views[at].position = data.and_then(position);
            }
        }
        let keys = snap.keys();
        for &(key, noted_at) in &changes.updated {
            if self.no_positions && is_character(protocol, key) {
                // Updated in place, so with the size it had in the
                // previous snapshot, whose update found it whole and its
                // client with a view: only its position changed.
                continue;
            }
            self.ops += 1;
            // The position noted, unless a later chunk of the tick moved
            // the item.
            let i = if keys.get(noted_at as usize) == Some(&key) {
                noted_at as usize
            } else {
                match snap.index_of(key) {
                    Some(i) => i,
                    None => return false,
                }
            };
            let Some((_, data)) = snap.item(i) else {
                return false;
            };
            let (ty, id) = (item_type(key), item_id(key));
            match (protocol, ty) {
                (Protocol::V06, v06::CHARACTER) | (Protocol::V07, v07::CHARACTER) => {
                    let (Some(at), Some(pos)) = (view_of(&self.view_at, id), position(data)) else {
                        return false;
                    };
                    self.views[at].position = Some(pos);
                }
                (Protocol::V06, v06::PLAYER_INFO) => {
                    let cid = match self.info_client(id) {
                        Some(c) if data.len() >= 5 && i32::from(c) == data[1] => c,
                        _ => return false,
                    };
                    let Some(at) = view_of(&self.view_at, cid) else {
                        return false;
                    };
                    player_info_06(&mut self.views[at], data);
                    self.changed.push(cid);
                }
                (Protocol::V07, v07::PLAYER_INFO) => {
                    let Some(at) = view_of(&self.view_at, id).filter(|_| data.len() >= 3) else {
                        return false;
                    };
                    player_info_07(&mut self.views[at], data);
                    self.changed.push(id);
                }
                _ => return false,
            }
        }
        // `calls` stays: the client-info ints cached by the latest full
        // update are still the current ones (a change to one is not
        // followed), so the next full update reuses their strings.
        self.all_reused = true;
        true
    }

    /// The view of client `id`, added if it has none yet.
    #[inline]
    fn entry(&mut self, index: &mut IdIndex, id: u16) -> usize {
        self.ops += 1;
        let slot = index.slot(id);
        let at = match *slot {
            0 => {
                let at = self.views.len();
                *slot = at as u32 + 1;
                self.views.push(PlayerView::default());
                self.seen.push((false, false));
                self.views[at].client_id = id;
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
        warnings: &mut dyn Warn<PlayerWarning>,
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
        let warnings = &mut Counting::new(warnings);
        let pool = &mut self.pool;
        read_str_into(&raw, 0..4, key, &mut p.name, pool, warnings);
        read_str_into(&raw, 4..7, key, &mut p.clan, pool, warnings);
        read_str_into(&raw, 8..14, key, &mut p.skin, pool, warnings);
        if let Some(slot) = self.raw.get_mut(id) {
            *slot = (warnings.count == 0).then_some((self.calls, raw));
        }
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
    warnings: &mut dyn Warn<PlayerWarning>,
) -> Vec<PlayerView> {
    let mut views = PlayerViews::new();
    views.update(snap, protocol, infos, warnings);
    views.views
}
