//! One pass over a demo for reports: snapshot statistics, players, and
//! message counts (chat lines, kills, race finishes), combined in a single
//! [`Visitor`] so the stream is decoded once.

use super::message::{self, Body, MessageWarning};
use super::players::{PlayerRecord, PlayerTracker, PlayerWarning, TrackerConfig};
use super::stream::{DemoStats, Event, StatsVisitor, Visitor};
use crate::codec::snapshot::Protocol;
use std::collections::BTreeMap;

/// Message totals of one demo.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MessageCounts {
    /// Messages by `space:name` (`game:Sv_Chat`, `system:…`); unnamed ids
    /// as `space:#id` or `space:uuid`.
    pub by_name: BTreeMap<String, u64>,
    pub chat_lines: u64,
    /// `Sv_KillMsg` and DDNet's team kill messages.
    pub kills: u64,
    /// `Sv_RaceFinish` (DDNet) messages.
    pub race_finishes: u64,
    /// Message chunks whose bytes did not decode as a message.
    pub undecodable: u64,
}

/// Statistics, players and messages of one demo.
pub struct AnalysisVisitor {
    protocol: Protocol,
    stats: StatsVisitor,
    tracker: PlayerTracker,
    messages: MessageCounts,
    /// Messages by (space, id), with the id's name: named once, at the
    /// end (a demo has a few dozen kinds and thousands of messages).
    kinds: Vec<(&'static str, message::MessageId, Option<&'static str>, u64)>,
    message_warnings: Vec<MessageWarning>,
    player_warnings: Vec<PlayerWarning>,
}

/// What [`AnalysisVisitor::finish`] returns.
pub struct Analysis {
    pub stats: DemoStats,
    pub players: Vec<PlayerRecord>,
    pub chat: Vec<super::players::ChatLine>,
    pub messages: MessageCounts,
    pub message_warnings: usize,
    pub player_warnings: usize,
}

impl AnalysisVisitor {
    pub fn new(protocol: Protocol) -> Self {
        AnalysisVisitor {
            protocol,
            stats: StatsVisitor::new(),
            tracker: PlayerTracker::new(protocol, TrackerConfig::default()),
            messages: MessageCounts::default(),
            kinds: Vec::new(),
            message_warnings: Vec::new(),
            player_warnings: Vec::new(),
        }
    }

    pub fn finish(mut self) -> Analysis {
        for (space, id, name, count) in self.kinds {
            let name = match (name, id) {
                (Some(n), _) => format!("{space}:{n}"),
                (None, message::MessageId::Ordinal(id)) => format!("{space}:#{id}"),
                (None, message::MessageId::Ex(uuid)) => format!("{space}:{uuid}"),
            };
            *self.messages.by_name.entry(name).or_default() += count;
        }
        Analysis {
            stats: self.stats.finish(),
            players: self.tracker.players().cloned().collect(),
            chat: self.tracker.chat().to_vec(),
            messages: self.messages,
            message_warnings: self.message_warnings.len(),
            player_warnings: self.player_warnings.len(),
        }
    }
}

impl Visitor for AnalysisVisitor {
    fn visit(&mut self, event: &Event<'_>) {
        self.stats.visit(event);
        match event {
            Event::Tick(t) => {
                if let Some(s) = t.snapshot {
                    self.tracker
                        .feed_snapshot(t.tick, s, &mut self.player_warnings);
                }
            }
            Event::Message(m) => {
                match message::decode(m.bytes, self.protocol, &mut self.message_warnings) {
                    Ok(msg) => {
                        let kind = (msg.space(), msg.id);
                        match self.kinds.iter_mut().find(|k| (k.0, k.1) == kind) {
                            Some(k) => k.3 += 1,
                            None => self.kinds.push((kind.0, kind.1, msg.name, 1)),
                        }
                        match msg.body {
                            Body::Chat(_) => self.messages.chat_lines += 1,
                            Body::KillMsg(_) | Body::KillMsgTeam { .. } => self.messages.kills += 1,
                            Body::RaceFinish { .. } => self.messages.race_finishes += 1,
                            _ => {}
                        }
                        self.tracker.feed_message(m.tick, &msg);
                    }
                    Err(_) => self.messages.undecodable += 1,
                }
            }
            _ => {}
        }
    }
}
