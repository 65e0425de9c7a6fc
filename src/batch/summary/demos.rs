//! The `demos index` aggregate: counts per distinct key only (versions,
//! message and item names, maps, player names); nothing per file.

use super::{
    add_outcome, bump, digest_kinds, list_top, merge_counts, merge_kinds, sum, top, Aggregate,
    ByKind,
};
use crate::batch::demos::DemoRecord;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Totals over all demos (durations in ticks, 50 per second).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DemoTotals {
    /// Tick markers.
    pub ticks: u64,
    /// Sum of last tick - first tick.
    pub duration_ticks: u64,
    /// Snapshot chunks.
    pub snapshots: u64,
    /// Snapshot delta chunks.
    pub deltas: u64,
    pub snapshots_reconstructed: u64,
    /// Message chunks.
    pub messages: u64,
    pub chat_lines: u64,
    pub kills: u64,
    /// Race finishes (chat lines and race messages, see
    /// `crate::demo::finishes`; one finish reported by both counted once).
    pub race_finishes: u64,
    /// Message chunks that did not decode as a message.
    pub undecodable_messages: u64,
}

impl DemoTotals {
    fn merge(&mut self, o: DemoTotals) -> Result<(), String> {
        super::sums!(
            self,
            o,
            "totals.",
            ticks,
            duration_ticks,
            snapshots,
            deltas,
            snapshots_reconstructed,
            messages,
            chat_lines,
            kills,
            race_finishes,
            undecodable_messages,
        );
        Ok(())
    }
}

/// Demos recorded on one map (name and sha256 of the embedded map).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapUse {
    pub demos: u64,
    pub duration_ticks: u64,
    /// Race finishes in those demos.
    #[serde(default)]
    pub finishes: u64,
}

/// One player name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerUse {
    /// Demos the name was seen in.
    pub demos: u64,
    /// Ticks present, summed over the client ids that had the name.
    pub ticks_present: u64,
}

/// The `demos index` aggregate (see the README for each field).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DemosAggregate {
    pub files: u64,
    pub ok: u64,
    pub failed: u64,
    /// File sizes.
    pub bytes: u64,
    /// Bytes after the header and the embedded map (the chunks).
    pub chunk_bytes: u64,
    /// Demos per header version.
    pub versions: BTreeMap<String, u64>,
    /// Demos per snapshot protocol (`0.6`, `0.7`, `unknown`).
    pub protocols: BTreeMap<String, u64>,
    /// Demos per header net version string.
    pub net_versions: BTreeMap<String, u64>,
    /// Demos per type (`client`, `server`).
    pub types: BTreeMap<String, u64>,
    pub totals: DemoTotals,
    /// Messages per `space:name`.
    pub messages_by_name: BTreeMap<String, u64>,
    /// Snapshot item occurrences per type name.
    pub item_types: BTreeMap<String, u64>,
    /// Map name -> embedded map sha256 -> demos and duration.
    pub maps: BTreeMap<String, BTreeMap<String, MapUse>>,
    /// Player name -> demos and ticks present.
    pub players: BTreeMap<String, PlayerUse>,
    /// Finisher name -> race finishes (the names the finish lines and
    /// messages give).
    #[serde(default)]
    pub finishes_by_player: BTreeMap<String, u64>,
    /// Files per error kind (`stage.kind`).
    pub errors: ByKind,
    /// Warnings per kind (occurrences), with example paths.
    pub warnings: ByKind,
}

impl Aggregate for DemosAggregate {
    const COMMAND: &'static str = super::DEMOS_INDEX;
    type Record = DemoRecord;

    fn add(&mut self, r: &DemoRecord) {
        self.files = self.files.saturating_add(1);
        self.bytes = self.bytes.saturating_add(r.size);
        let failed = add_outcome(
            &mut self.errors,
            &mut self.warnings,
            &r.path,
            r.error.as_ref(),
            &r.warnings,
        );
        if failed {
            self.failed = self.failed.saturating_add(1);
        } else {
            self.ok = self.ok.saturating_add(1);
        }
        let b = &r.body;
        self.chunk_bytes = self.chunk_bytes.saturating_add(b.chunk_bytes.unwrap_or(0));
        let duration = match (b.first_tick, b.last_tick) {
            (Some(a), Some(b)) => u64::try_from(i64::from(b) - i64::from(a)).unwrap_or(0),
            _ => 0,
        };
        if let Some(h) = &b.header {
            bump(&mut self.versions, &h.version.to_string(), 1);
            bump(&mut self.protocols, h.protocol.unwrap_or("unknown"), 1);
            bump(&mut self.net_versions, &h.net_version, 1);
            bump(&mut self.types, &h.demo_type, 1);
            if let Some(m) = &b.map {
                let u = self
                    .maps
                    .entry(h.map_name.clone())
                    .or_default()
                    .entry(m.sha256.clone())
                    .or_default();
                u.demos = u.demos.saturating_add(1);
                u.duration_ticks = u.duration_ticks.saturating_add(duration);
                let finishes = b.messages.as_ref().map_or(0, |m| m.race_finishes);
                u.finishes = u.finishes.saturating_add(finishes);
            }
        }
        let t = &mut self.totals;
        t.duration_ticks = t.duration_ticks.saturating_add(duration);
        t.ticks = t.ticks.saturating_add(b.ticks.unwrap_or(0));
        t.snapshots_reconstructed = t
            .snapshots_reconstructed
            .saturating_add(b.snapshots_reconstructed.unwrap_or(0));
        if let Some(c) = &b.chunks {
            t.snapshots = t.snapshots.saturating_add(c.snapshot);
            t.deltas = t.deltas.saturating_add(c.snapshot_delta);
            t.messages = t.messages.saturating_add(c.message);
        }
        if let Some(m) = &b.messages {
            t.chat_lines = t.chat_lines.saturating_add(m.chat_lines);
            t.kills = t.kills.saturating_add(m.kills);
            t.race_finishes = t.race_finishes.saturating_add(m.race_finishes);
            t.undecodable_messages = t.undecodable_messages.saturating_add(m.undecodable);
            for c in &m.by_name {
                bump(&mut self.messages_by_name, &c.name, c.count);
            }
            for c in &m.finishes_by_player {
                bump(&mut self.finishes_by_player, &c.name, c.count);
            }
        }
        for t in &b.item_types {
            bump(&mut self.item_types, &t.summary_key(), t.occurrences);
        }
        let mut names = BTreeSet::new();
        for p in &b.players {
            for n in &p.names {
                names.insert(n.as_str());
                match self.players.get_mut(n) {
                    Some(u) => {
                        u.ticks_present = u.ticks_present.saturating_add(u64::from(p.ticks_present))
                    }
                    None => {
                        self.players.insert(
                            n.clone(),
                            PlayerUse {
                                demos: 0,
                                ticks_present: u64::from(p.ticks_present),
                            },
                        );
                    }
                }
            }
        }
        for n in names {
            if let Some(u) = self.players.get_mut(n) {
                u.demos = u.demos.saturating_add(1);
            }
        }
    }

    fn merge(&mut self, o: DemosAggregate) -> Result<(), String> {
        super::sums!(self, o, "", files, ok, failed, bytes, chunk_bytes);
        merge_counts(&mut self.versions, o.versions, "versions")?;
        merge_counts(&mut self.protocols, o.protocols, "protocols")?;
        merge_counts(&mut self.net_versions, o.net_versions, "net_versions")?;
        merge_counts(&mut self.types, o.types, "types")?;
        self.totals.merge(o.totals)?;
        merge_counts(
            &mut self.messages_by_name,
            o.messages_by_name,
            "messages_by_name",
        )?;
        merge_counts(&mut self.item_types, o.item_types, "item_types")?;
        for (name, shas) in o.maps {
            let Some(into) = self.maps.get_mut(&name) else {
                self.maps.insert(name, shas);
                continue;
            };
            for (sha, u) in shas {
                let Some(e) = into.get_mut(&sha) else {
                    into.insert(sha, u);
                    continue;
                };
                let at = |f: &str| format!("maps[{name:?}][{sha:?}].{f}");
                sum(&mut e.demos, u.demos, || at("demos"))?;
                sum(&mut e.duration_ticks, u.duration_ticks, || {
                    at("duration_ticks")
                })?;
                sum(&mut e.finishes, u.finishes, || at("finishes"))?;
            }
        }
        for (name, u) in o.players {
            let Some(e) = self.players.get_mut(&name) else {
                self.players.insert(name, u);
                continue;
            };
            let at = |f: &str| format!("players[{name:?}].{f}");
            sum(&mut e.demos, u.demos, || at("demos"))?;
            sum(&mut e.ticks_present, u.ticks_present, || {
                at("ticks_present")
            })?;
        }
        merge_counts(
            &mut self.finishes_by_player,
            o.finishes_by_player,
            "finishes_by_player",
        )?;
        merge_kinds(&mut self.errors, o.errors, "errors")?;
        merge_kinds(&mut self.warnings, o.warnings, "warnings")?;
        Ok(())
    }

    fn finish(&mut self) {}

    fn file_counts(&self) -> (u64, u64, u64) {
        (self.files, self.ok, self.failed)
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn digest(&self) -> Vec<String> {
        let mut out = Vec::new();
        let t = &self.totals;
        out.push(format!(
            "{:.2} h of play, {} chat lines, {} kills, {} race finishes",
            t.duration_ticks as f64 / f64::from(crate::demo::TICKS_PER_SECOND) / 3600.0,
            t.chat_lines,
            t.kills,
            t.race_finishes
        ));
        let mut maps: BTreeMap<String, u64> = BTreeMap::new();
        for (name, shas) in &self.maps {
            maps.insert(name.clone(), shas.values().map(|u| u.demos).sum());
        }
        if !maps.is_empty() {
            out.push(format!(
                "top maps: {}",
                list_top(&top(&maps, 5, |n| *n), " demos")
            ));
        }
        if !self.players.is_empty() {
            out.push(format!(
                "top players: {}",
                list_top(&top(&self.players, 5, |u| u.ticks_present), " ticks")
            ));
        }
        let mut map_finishes: BTreeMap<String, u64> = BTreeMap::new();
        for (name, shas) in &self.maps {
            let n: u64 = shas.values().map(|u| u.finishes).sum();
            if n > 0 {
                map_finishes.insert(name.clone(), n);
            }
        }
        if !map_finishes.is_empty() {
            out.push(format!(
                "finishes by map: {}",
                list_top(&top(&map_finishes, 5, |n| *n), " finishes")
            ));
        }
        if !self.finishes_by_player.is_empty() {
            out.push(format!(
                "top finishers: {}",
                list_top(&top(&self.finishes_by_player, 5, |n| *n), " finishes")
            ));
        }
        digest_kinds(&mut out, "error", &self.errors);
        digest_kinds(&mut out, "warning", &self.warnings);
        out
    }
}
