//! The tracker: follows players through a demo, snapshot after snapshot
//! and message after message, into one record per client id.

use std::collections::BTreeMap;

use super::changes::PlayerChanges;
use super::sessions::{Session, Sessions};
use super::views::{MessageInfo, PlayerView, PlayerViews};
use super::{PlayerWarning, PlayerWarningKind};
use crate::codec::snapshot::{Protocol, Snapshot};
use crate::demo::message::{Body, ChatMode, Message};
use crate::warn::Warn;

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

/// A run of followed updates (the same players tick after tick, see
/// [`PlayerViews::followed`]): each record of those players gains the same
/// ticks and the same last tick, so they are counted once for the run and
/// added to the records when it ends ([`PlayerTracker::settle`]), not
/// record by record every tick.
#[derive(Clone, Debug, Default)]
struct PendingTicks {
    /// A run is open.
    open: bool,
    /// Positions in the tracker's records of the run's players.
    records: Vec<u32>,
    /// New ticks seen during the run.
    ticks: u32,
    /// The latest tick of the run.
    last: i32,
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
    pub(super) view: PlayerViews,
    /// Whether a message changed `infos` since the latest snapshot fed.
    infos_changed: bool,
    /// Client ids refused for lack of room (warned about once each).
    refused: std::collections::BTreeSet<u16>,
    /// Ticks counted once for every record of a run of followed updates
    /// (see [`PendingTicks`]).
    pending: PendingTicks,
    /// Tick of the latest snapshot fed.
    last_fed: Option<i32>,
    /// The sessions so far ([`super::sessions`]).
    sessions: Sessions,
    /// Records and strings looked up (see
    /// [`crate::demo::analysis::Probe`]).
    ops: u64,
}

/// Notes `p`'s team (a change, within the cap) and score in its record.
fn note_team_and_score(
    r: &mut PlayerRecord,
    p: &PlayerView,
    tick: i32,
    cfg: TrackerConfig,
    warnings: &mut dyn Warn<PlayerWarning>,
) {
    if let Some(team) = p.team {
        let changed = r.team != Some(team);
        r.team = Some(team);
        if changed && r.team_changes_dropped > 0 {
            r.team_changes_dropped += 1;
        } else if changed && r.teams.len() >= cfg.max_team_changes {
            r.team_changes_dropped = 1;
            warnings.warn(PlayerWarning {
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
            // Without position tracks nothing reads the views' positions.
            view: if config.positions.is_some() {
                PlayerViews::new()
            } else {
                PlayerViews::without_positions()
            },
            infos_changed: false,
            refused: std::collections::BTreeSet::new(),
            pending: PendingTicks::default(),
            last_fed: None,
            sessions: Sessions::new(config.max_strings, config.max_team_changes),
            ops: 0,
        }
    }

    /// Records the players of the snapshot shown at `tick`.
    ///
    /// Feeding the same tick twice does not count it twice.
    pub fn feed_snapshot(
        &mut self,
        tick: i32,
        snap: &Snapshot,
        warnings: &mut dyn Warn<PlayerWarning>,
    ) {
        self.infos_changed = false;
        self.view.update(snap, self.protocol, &self.infos, warnings);
        self.record_views(tick, warnings);
    }

    /// [`PlayerTracker::feed_snapshot`] for a snapshot that `changes`
    /// describes against the one fed before (see
    /// [`PlayerViews::update_changed`]): the views follow the changed
    /// player items only. Records and warnings are the same.
    pub fn feed_snapshot_changed(
        &mut self,
        tick: i32,
        snap: &Snapshot,
        changes: &PlayerChanges,
        warnings: &mut dyn Warn<PlayerWarning>,
    ) {
        let infos_changed = std::mem::take(&mut self.infos_changed);
        self.view.update_changed(
            snap,
            self.protocol,
            &self.infos,
            changes,
            infos_changed,
            warnings,
        );
        self.record_views(tick, warnings);
    }

    /// The protocol the tracker reads.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// Adds the ticks of the open run of followed updates, if any, to its
    /// records.
    fn settle(&mut self) {
        let run = &mut self.pending;
        if !run.open {
            return;
        }
        run.open = false;
        for &at in &run.records {
            self.ops += 1;
            if let Some(r) = self.records.get_mut(at as usize) {
                r.ticks_present = r.ticks_present.saturating_add(run.ticks);
                r.last_tick = run.last;
            }
        }
    }

    /// Notes the views of the latest update in the records.
    fn record_views(&mut self, tick: i32, warnings: &mut dyn Warn<PlayerWarning>) {
        let cfg = self.config;
        let previous = self.last_fed.replace(tick);
        if let (Some(changed), None, Some(previous)) =
            (self.view.followed(), cfg.positions, previous)
        {
            // The views kept their players and strings since the previous
            // tick, whose pass made every record, noted every string and
            // set every record's last tick to `previous`: each player's
            // tick counts (once for all of them, in the run), and only the
            // players whose player info changed can change team, score or
            // `local`.
            let run = &mut self.pending;
            if !run.open {
                run.open = true;
                run.records.clear();
                run.ticks = 0;
                run.last = previous;
                for p in self.view.views() {
                    self.ops += 1;
                    if let Some(at) = record_index(&self.record_at, p.client_id) {
                        run.records.push(at as u32);
                    }
                }
            }
            if tick != run.last {
                run.ticks = run.ticks.saturating_add(1);
            }
            run.last = tick;
            for &id in changed {
                let views = self.view.views();
                let Some(v) = self.view.view_index(id) else {
                    continue;
                };
                let Some(at) = record_index(&self.record_at, id) else {
                    continue;
                };
                let (p, r) = (&views[v], &mut self.records[at]);
                r.local |= p.local;
                note_team_and_score(r, p, tick, cfg, warnings);
            }
            self.sessions.note_changed(&self.view, changed);
            self.names_from_messages = false;
            return;
        }
        self.settle();
        self.sessions
            .note_views(tick, previous, &self.view, self.names_from_messages);
        for p in self.view.views() {
            self.ops += 1;
            if record_index(&self.record_at, p.client_id).is_none() {
                if self.records.len() >= cfg.max_players {
                    if self.refused.insert(p.client_id) {
                        warnings.warn(PlayerWarning {
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
                warnings.warn(PlayerWarning {
                    kind: PlayerWarningKind::TooManyStrings,
                    key: u32::from(p.client_id),
                });
            }
            note_team_and_score(r, p, tick, cfg, warnings);
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
        if matches!(
            msg.body,
            Body::ClientInfo(_)
                | Body::ClientEnter { .. }
                | Body::Team { .. }
                | Body::ClientDrop { .. }
                | Body::ClientLeave { .. }
        ) {
            self.infos_changed = true;
        }
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
                    self.sessions.entered(id, tick, &info.name);
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
                    self.sessions.entered(id, tick, name);
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
                    let in_view = self.view.view_index(id).is_some();
                    self.sessions.dropped(id, self.last_fed, in_view);
                }
            }
            _ => {}
        }
    }

    /// Every tracked player, by client id.
    pub fn players(&mut self) -> impl Iterator<Item = &PlayerRecord> {
        self.settle();
        self.records.iter()
    }

    /// The record of one client id.
    pub fn player(&mut self, client_id: u16) -> Option<&PlayerRecord> {
        self.settle();
        Some(&self.records[record_index(&self.record_at, client_id)?])
    }

    /// Every session so far, in order of start (see
    /// [`super::sessions`]): the open ones last seen at the latest
    /// snapshot fed.
    pub fn sessions(&mut self) -> &[Session] {
        self.sessions.all(self.last_fed)
    }

    /// The session of `client_id` at the latest event fed: its open one,
    /// else the latest it had (a message just after a leave still names
    /// the player who left); `None` for an id never seen.
    pub fn session_of(&self, client_id: u16) -> Option<i32> {
        self.sessions.session_of(client_id)
    }

    /// The players of the latest snapshot fed (with their positions only
    /// when the tracker samples them, [`TrackerConfig::positions`]).
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
