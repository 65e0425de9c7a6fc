//! One pass over a demo for reports: snapshot statistics, players, and
//! message counts (chat lines, kills, race finishes), combined in a single
//! [`Visitor`] so the stream is decoded once.
//!
//! Every table the pass keeps is a hash map or an index by number, so the
//! work per item, message and declaration is O(1) amortised whatever a
//! demo holds ([`Probe`] counts it for the scaling tests), and every list
//! that could grow with the input is capped: warnings by the caller's sink
//! ([`StageWarnings`] keeps [`crate::limits::Limits::max_warnings`] per
//! stage, one `too_many_warnings` standing for the rest), players, names
//! and team changes by [`TrackerConfig`] (with a warning), chat lines are
//! kept only when asked for and then handed out as they come
//! ([`AnalysisVisitor::drain_chat`]).

use std::collections::{BTreeMap, HashMap};

use super::finishes::{finishes_of, Finish};
use super::message::{self, Body, MessageErrorKind, MessageWarning, MessageWarningKind};
pub use super::players::TrackerConfig;
use super::players::{
    ChatLine, PlayerChanges, PlayerRecord, PlayerTracker, PlayerWarning, PlayerWarningKind,
};
use super::stream::{DemoStats, Event, StatsVisitor, Visitor};
use crate::codec::snapshot::{item_id, item_type, Protocol};
use crate::demo::stream::stats::is_declaration;
pub use crate::demo::stream::stats::Probe;
use crate::warn::{wrap, Discard, TooMany, Warn, Warnings};

/// Message totals of one demo.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MessageCounts {
    /// Messages by `space:name` (`game:Sv_Chat`, `system:…`); unnamed ids
    /// as `space:#id` or `space:uuid`.
    pub by_name: BTreeMap<String, u64>,
    pub chat_lines: u64,
    /// `Sv_KillMsg` and DDNet's team kill messages.
    pub kills: u64,
    /// Race finishes ([`crate::demo::finishes`]): server chat finish lines
    /// and DDNet's race finish messages, a finish that both report (same
    /// name, same time in milliseconds) counted once.
    pub race_finishes: u64,
    /// Race finishes by the finisher's name (finishes without a name are
    /// counted in `race_finishes` only).
    pub finishes_by_player: BTreeMap<String, u64>,
    /// Message chunks whose bytes did not decode as a message (each also
    /// a `message` warning `undecodable.<reason>` while warnings are kept).
    pub undecodable: u64,
}

/// What an [`AnalysisWarning`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnalysisWarningKind {
    /// A message decoded with this oddity.
    Message(MessageWarningKind),
    /// A message chunk did not decode as a message, for this reason.
    Undecodable(MessageErrorKind),
    /// The players of a snapshot showed this oddity.
    Player(PlayerWarningKind),
    /// The warning limit was reached here; later warnings of the same
    /// stage are dropped.
    TooManyWarnings,
}

/// Which part of the analysis a warning comes from ([`StageWarnings`]
/// keeps a list of each, capped separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnalysisStage {
    Message,
    Players,
}

impl AnalysisStage {
    /// The stage of a report record: `message` or `players`.
    pub fn stage(self) -> crate::kind::Stage {
        match self {
            AnalysisStage::Message => crate::kind::Stage::Message,
            AnalysisStage::Players => crate::kind::Stage::Players,
        }
    }
}

/// A warning of the analysis: the chunk it comes from (a message chunk, or
/// for players the tick marker of the tick whose snapshot showed it), the
/// chunk's byte offset in the file, the byte offset inside the message (0
/// for players) and, for players, the item key (`type << 16 | id`; the
/// client id for [`PlayerWarningKind::TooManyPlayers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AnalysisWarning {
    pub stage: AnalysisStage,
    pub kind: AnalysisWarningKind,
    pub chunk: usize,
    pub offset: usize,
    pub inner_offset: usize,
    pub tick: i32,
    pub key: Option<u32>,
}

impl AnalysisWarning {
    /// The record's `section`: `chunk N` for messages, `chunk N (tick T,
    /// item TYPE:ID)` for players.
    pub fn section(&self) -> String {
        match (self.kind, self.key) {
            (AnalysisWarningKind::Player(PlayerWarningKind::TooManyPlayers), Some(k)) => {
                format!("chunk {} (tick {}, client {k})", self.chunk, self.tick)
            }
            (_, Some(k)) => format!(
                "chunk {} (tick {}, item {}:{})",
                self.chunk,
                self.tick,
                item_type(k),
                item_id(k)
            ),
            (_, None) => format!("chunk {}", self.chunk),
        }
    }
}

impl AnalysisWarningKind {
    /// Every kind (those of messages and players included).
    pub fn all() -> Vec<AnalysisWarningKind> {
        use AnalysisWarningKind as K;
        let mut all: Vec<_> = MessageWarningKind::ALL
            .iter()
            .map(|&k| K::Message(k))
            .collect();
        all.extend(MessageErrorKind::ALL.iter().map(|&k| K::Undecodable(k)));
        all.extend(PlayerWarningKind::ALL.iter().map(|&k| K::Player(k)));
        all.push(K::TooManyWarnings);
        all
    }
}

// The record's `kind`: `control_characters`, `undecodable.string_too_long`,
// `short_item`, `too_many_warnings`.
crate::kind::kind_names!(AnalysisWarningKind {
    Message(MessageWarningKind),
    Undecodable(MessageErrorKind) => "undecodable.",
    Player(PlayerWarningKind),
    TooManyWarnings => crate::kind::TOO_MANY_WARNINGS,
});

/// A message kind: (space, id).
type KindKey = (&'static str, message::MessageId);

/// Ordinal message ids below this are counted in a table by id (the
/// protocols' ids are below 64; larger ones and extended ids go to a
/// hash map).
const KIND_TABLE: usize = 64;

/// Statistics, players and messages of one demo; the warnings go to the
/// caller's sink `S`.
pub struct AnalysisVisitor<S = Discard> {
    protocol: Protocol,
    stats: StatsVisitor,
    tracker: PlayerTracker,
    /// What the snapshot chunks since the latest tick changed in the
    /// player items: the tracker follows those only.
    player_changes: PlayerChanges,
    messages: MessageCounts,
    /// Messages by (space, id), with the id's name: named once, at the
    /// end (a demo has a few dozen kinds and thousands of messages).
    /// Ordinal ids below [`KIND_TABLE`] are counted in `kind_table`
    /// instead, without hashing.
    kinds: HashMap<KindKey, (Option<&'static str>, u64)>,
    /// Counts of the messages with an ordinal id below [`KIND_TABLE`], at
    /// `system as usize * KIND_TABLE + id` (named at the end, from the
    /// protocol's tables).
    kind_table: Box<[u64; 2 * KIND_TABLE]>,
    warn: S,
    /// Operation counts of `kinds`.
    kind_ops: u64,
    /// Race finishes by (name, time in ms): (chat lines, messages).
    finishes: BTreeMap<(Option<String>, i64), (u64, u64)>,
    /// The finishes of the current message (reused).
    found: Vec<Finish>,
}

/// What [`AnalysisVisitor::finish`] returns.
pub struct Analysis {
    pub stats: DemoStats,
    pub players: Vec<PlayerRecord>,
    pub messages: MessageCounts,
}

/// A sink for [`AnalysisVisitor`] that caps each stage's warnings
/// separately and keeps them apart (a report lists the message warnings,
/// then the player warnings).
#[derive(Clone, Debug)]
pub struct StageWarnings {
    pub message: Warnings<AnalysisWarning>,
    pub players: Warnings<AnalysisWarning>,
}

impl StageWarnings {
    /// Keeps at most `max` warnings per stage, then one `too_many_warnings`.
    pub fn new(max: usize) -> Self {
        StageWarnings {
            message: Warnings::new(max),
            players: Warnings::new(max),
        }
    }
}

impl Warn<AnalysisWarning> for StageWarnings {
    #[inline]
    fn warn(&mut self, w: AnalysisWarning) {
        match w.stage {
            AnalysisStage::Message => self.message.warn(w),
            AnalysisStage::Players => self.players.warn(w),
        }
    }
}

impl AnalysisVisitor {
    /// An analysis with the default limits that keeps no chat lines and
    /// drops its warnings.
    pub fn new(protocol: Protocol) -> Self {
        let config = TrackerConfig {
            keep_chat: false,
            ..TrackerConfig::default()
        };
        AnalysisVisitor::with_config(protocol, config, Discard)
    }
}

impl<S: Warn<AnalysisWarning>> AnalysisVisitor<S> {
    /// An analysis with these tracker limits (chat lines are kept for
    /// [`AnalysisVisitor::drain_chat`] when `config.keep_chat`), handing its
    /// warnings to `warn`.
    pub fn with_config(protocol: Protocol, config: TrackerConfig, warn: S) -> Self {
        AnalysisVisitor {
            protocol,
            stats: StatsVisitor::new(),
            tracker: PlayerTracker::new(protocol, config),
            player_changes: if config.positions.is_some() {
                PlayerChanges::new()
            } else {
                PlayerChanges::without_positions()
            },
            messages: MessageCounts::default(),
            kinds: HashMap::new(),
            kind_table: Box::new([0; 2 * KIND_TABLE]),
            warn,
            kind_ops: 0,
            finishes: BTreeMap::new(),
            found: Vec::new(),
        }
    }

    /// The chat lines decoded since the previous call (only with
    /// [`TrackerConfig::keep_chat`]); call after each event to stream them.
    pub fn drain_chat(&mut self) -> std::vec::Drain<'_, ChatLine> {
        self.tracker.drain_chat()
    }

    /// Operation counts so far (see [`Probe`]).
    #[doc(hidden)]
    pub fn probe(&self) -> Probe {
        Probe {
            message_kinds: self.kind_ops,
            players: self.tracker.ops(),
            ..self.stats.probe()
        }
    }

    /// Leaves the snapshots of the tick in progress out of the statistics
    /// (see [`StatsVisitor::stream_failed`]): call when the stream ended
    /// with an error.
    pub fn stream_failed(&mut self) {
        self.stats.stream_failed();
    }

    pub fn finish(mut self) -> Analysis {
        let mut messages = self.messages;
        let protocol = self.protocol;
        let table = self.kind_table.iter().enumerate().filter(|&(_, &c)| c > 0);
        let table = table.map(|(at, &count)| {
            let system = at >= KIND_TABLE;
            let id = message::MessageId::Ordinal((at % KIND_TABLE) as u32);
            let name = message::message_name(protocol, system, id);
            ((message::space_name(system), id), (name, count))
        });
        for ((space, id), (name, count)) in self.kinds.into_iter().chain(table) {
            let name = match (name, id) {
                (Some(n), _) => format!("{space}:{n}"),
                (None, message::MessageId::Ordinal(id)) => format!("{space}:#{id}"),
                (None, message::MessageId::Ex(uuid)) => format!("{space}:{uuid}"),
            };
            *messages.by_name.entry(name).or_default() += count;
        }
        for ((name, _), (chat, msgs)) in self.finishes {
            let n = chat.max(msgs);
            messages.race_finishes += n;
            if let Some(name) = name {
                *messages.finishes_by_player.entry(name).or_default() += n;
            }
        }
        Analysis {
            stats: self.stats.finish(),
            players: self.tracker.players().cloned().collect(),
            messages,
        }
    }
}

impl TooMany for AnalysisWarning {
    fn too_many(self) -> Self {
        AnalysisWarning {
            kind: AnalysisWarningKind::TooManyWarnings,
            ..self
        }
    }
}

impl<S: Warn<AnalysisWarning>> Visitor for AnalysisVisitor<S> {
    fn visit(&mut self, event: &Event<'_>) {
        if let Event::Snapshot(e) = event {
            // One look at each changed key for the players and for the
            // statistics' check of the UUID declarations.
            let declarations = self.player_changes.note_touching(
                self.protocol,
                e.snapshot,
                e.changes,
                is_declaration,
            );
            self.stats.visit_snapshot(e, declarations);
            return;
        }
        self.stats.visit(event);
        match event {
            Event::Tick(t) => {
                if let Some(s) = t.snapshot {
                    let mut warn = wrap(&mut self.warn, |w: PlayerWarning| AnalysisWarning {
                        stage: AnalysisStage::Players,
                        kind: AnalysisWarningKind::Player(w.kind),
                        chunk: t.pos.index,
                        offset: t.pos.offset,
                        inner_offset: 0,
                        tick: t.tick,
                        key: Some(w.key),
                    });
                    self.tracker
                        .feed_snapshot_changed(t.tick, s, &self.player_changes, &mut warn);
                    self.player_changes.clear();
                }
            }
            Event::Message(m) => {
                let at = |kind, inner_offset| AnalysisWarning {
                    stage: AnalysisStage::Message,
                    kind,
                    chunk: m.pos.index,
                    offset: m.pos.offset,
                    inner_offset,
                    tick: m.tick,
                    key: None,
                };
                let mut warn = wrap(&mut self.warn, |w: MessageWarning| {
                    at(AnalysisWarningKind::Message(w.kind), w.offset)
                });
                let decoded = message::decode(m.bytes, self.protocol, &mut warn);
                match decoded {
                    Ok(msg) => {
                        self.kind_ops += 1;
                        match msg.id {
                            message::MessageId::Ordinal(id) if (id as usize) < KIND_TABLE => {
                                let at = usize::from(msg.system) * KIND_TABLE + id as usize;
                                self.kind_table[at] += 1;
                            }
                            _ => {
                                self.kinds
                                    .entry((msg.space(), msg.id))
                                    .or_insert((msg.name, 0))
                                    .1 += 1;
                            }
                        }
                        match msg.body {
                            Body::Chat(_) => self.messages.chat_lines += 1,
                            Body::KillMsg(_) | Body::KillMsgTeam { .. } => self.messages.kills += 1,
                            _ => {}
                        }
                        self.tracker.feed_message(m.tick, &msg);
                        finishes_of(&msg.body, msg.name, Some(&self.tracker), &mut self.found);
                        for f in self.found.drain(..) {
                            let e = self.finishes.entry((f.name, f.time_ms)).or_default();
                            if f.source == "chat" {
                                e.0 += 1;
                            } else {
                                e.1 += 1;
                            }
                        }
                    }
                    Err(e) => {
                        self.messages.undecodable += 1;
                        let w = at(AnalysisWarningKind::Undecodable(e.kind), e.offset);
                        self.warn.warn(w);
                    }
                }
            }
            _ => {}
        }
    }
}
