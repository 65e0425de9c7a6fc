//! Per-demo statistics gathered in one decoding pass, with the field names
//! and definitions of the golden `summary.json` files:
//!
//! - `chunks`: tick markers (and how many are keyframes), snapshot, delta,
//!   message and unknown data chunks.
//! - `first_tick`, `last_tick`: of the first and last tick marker.
//! - `snapshots_reconstructed`: snapshot and delta chunks decoded.
//! - `ticks_without_snapshot_chunk`: ticks that reuse the previous snapshot.
//! - `decompressed_snapshot_and_delta_bytes`: Huffman output of snapshot and
//!   delta chunks.
//! - `message_bytes_after_int_unpacking`: 4 × ints of message chunks.
//! - `item_types_ordinal` / `item_types_uuid`: over every reconstructed
//!   snapshot (one per snapshot or delta chunk), how many items each type
//!   has and their distinct sizes in data ints. Extended types (`>= 0x4000`)
//!   are resolved through the snapshot's type-0 declarations and keyed
//!   `uuid (Name)` (bare UUID when the name is unknown); an extended type
//!   without declaration is counted under its number in the ordinal table.
//!
//! `a += b` appends `b`'s counts to `a`'s as if `b`'s chunks followed
//! `a`'s: counts add up, `first_tick` keeps `a`'s, `last_tick` takes `b`'s.
//! Over a batch of demos the sums are totals and the ticks are those of the
//! first and last demo.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::AddAssign;

use serde::Serialize;
use uuid::Uuid;

use super::{visit, Decoder, Event, Outcome, Visitor};
use crate::backend::Backend;
use crate::codec::snapshot::uuid::{lookup_uuid, uuid_from_ints, OFFSET_UUID_TYPE};
use crate::codec::snapshot::{item_id, item_type, Snapshot};
use crate::demo::Demo;

/// Chunk counts (golden `chunks`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ChunkCounts {
    pub tick_markers: u64,
    pub keyframe_tick_markers: u64,
    pub snapshot: u64,
    pub snapshot_delta: u64,
    pub message: u64,
    pub unknown: u64,
}

impl AddAssign for ChunkCounts {
    fn add_assign(&mut self, o: ChunkCounts) {
        self.tick_markers += o.tick_markers;
        self.keyframe_tick_markers += o.keyframe_tick_markers;
        self.snapshot += o.snapshot;
        self.snapshot_delta += o.snapshot_delta;
        self.message += o.message;
        self.unknown += o.unknown;
    }
}

/// How often an item type occurs and in which sizes (data ints).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ItemTypeStats {
    pub occurrences: u64,
    pub sizes_ints: BTreeSet<usize>,
}

impl AddAssign for ItemTypeStats {
    fn add_assign(&mut self, o: ItemTypeStats) {
        self.occurrences += o.occurrences;
        self.sizes_ints.extend(o.sizes_ints);
    }
}

/// Statistics of one demo (or, summed, of many); see the module docs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DemoStats {
    pub chunks: ChunkCounts,
    pub first_tick: Option<i32>,
    pub last_tick: Option<i32>,
    pub snapshots_reconstructed: u64,
    pub ticks_without_snapshot_chunk: u64,
    pub decompressed_snapshot_and_delta_bytes: u64,
    pub message_bytes_after_int_unpacking: u64,
    pub item_types_ordinal: BTreeMap<u16, ItemTypeStats>,
    pub item_types_uuid: BTreeMap<String, ItemTypeStats>,
}

fn merge_maps<K: Ord>(a: &mut BTreeMap<K, ItemTypeStats>, b: BTreeMap<K, ItemTypeStats>) {
    for (k, v) in b {
        *a.entry(k).or_default() += v;
    }
}

impl AddAssign for DemoStats {
    fn add_assign(&mut self, o: DemoStats) {
        self.chunks += o.chunks;
        self.first_tick = self.first_tick.or(o.first_tick);
        self.last_tick = o.last_tick.or(self.last_tick);
        self.snapshots_reconstructed += o.snapshots_reconstructed;
        self.ticks_without_snapshot_chunk += o.ticks_without_snapshot_chunk;
        self.decompressed_snapshot_and_delta_bytes += o.decompressed_snapshot_and_delta_bytes;
        self.message_bytes_after_int_unpacking += o.message_bytes_after_int_unpacking;
        merge_maps(&mut self.item_types_ordinal, o.item_types_ordinal);
        merge_maps(&mut self.item_types_uuid, o.item_types_uuid);
    }
}

/// Per-type counters with small flat tables for the hot path.
#[derive(Clone, Debug, Default)]
struct TypeCounter {
    occurrences: u64,
    /// Distinct sizes seen (few per type).
    sizes: Vec<usize>,
}

impl TypeCounter {
    /// Counts `count` items of `size` ints.
    #[inline]
    fn add(&mut self, size: usize, count: u64) {
        self.occurrences += count;
        if !self.sizes.contains(&size) {
            self.sizes.push(size);
        }
    }

    fn to_stats(&self) -> ItemTypeStats {
        ItemTypeStats {
            occurrences: self.occurrences,
            sizes_ints: self.sizes.iter().copied().collect(),
        }
    }
}

/// A [`Visitor`] computing [`DemoStats`].
#[derive(Debug, Default)]
pub struct StatsVisitor {
    stats: DemoStats,
    ordinal: Vec<TypeCounter>,
    /// UUID item types seen, in first-seen order (a demo has a handful, so
    /// a linear search beats hashing per item).
    uuid: Vec<(Uuid, TypeCounter)>,
    /// This snapshot's declarations: (type number, index in `uuid`).
    decls: Vec<(u16, usize)>,
    /// This snapshot's items of UUID type numbers: (type number, size,
    /// count).
    pending: Vec<(u16, usize, u64)>,
}

impl StatsVisitor {
    pub fn new() -> StatsVisitor {
        StatsVisitor::default()
    }

    /// Counts the items of `snap` in one pass: items of a UUID type number
    /// are tallied by (type number, size) in `pending` and charged to their
    /// UUID once the snapshot's declarations (type-0 items, anywhere in the
    /// snapshot) are all known.
    fn count_items(&mut self, snap: &Snapshot) {
        self.decls.clear();
        self.pending.clear();
        for (key, data) in snap.iter() {
            let t = item_type(key);
            if t >= OFFSET_UUID_TYPE {
                let size = data.len();
                match self.pending.iter_mut().find(|p| p.0 == t && p.1 == size) {
                    Some(p) => p.2 += 1,
                    None => self.pending.push((t, size, 1)),
                }
                continue;
            }
            if t == 0 && item_id(key) >= OFFSET_UUID_TYPE {
                if let Some(u) = uuid_from_ints(data) {
                    let at = match self.uuid.iter().position(|c| c.0 == u) {
                        Some(at) => at,
                        None => {
                            self.uuid.push((u, TypeCounter::default()));
                            self.uuid.len() - 1
                        }
                    };
                    self.decls.push((item_id(key), at));
                }
            }
            self.ordinal_counter(t).add(data.len(), 1);
        }
        for i in 0..self.pending.len() {
            let (t, size, count) = self.pending[i];
            match self.decls.iter().find(|d| d.0 == t) {
                Some(&(_, at)) => self.uuid[at].1.add(size, count),
                None => self.ordinal_counter(t).add(size, count),
            }
        }
    }

    /// The counter of the ordinal type number `t`.
    #[inline]
    fn ordinal_counter(&mut self, t: u16) -> &mut TypeCounter {
        let t = usize::from(t);
        if t >= self.ordinal.len() {
            self.ordinal.resize(t + 1, TypeCounter::default());
        }
        &mut self.ordinal[t]
    }

    /// The statistics gathered so far.
    pub fn finish(self) -> DemoStats {
        let mut stats = self.stats;
        for (t, c) in self.ordinal.iter().enumerate() {
            if c.occurrences > 0 {
                stats.item_types_ordinal.insert(t as u16, c.to_stats());
            }
        }
        for (u, c) in &self.uuid {
            if c.occurrences == 0 {
                // Declared but no item of the type.
                continue;
            }
            let key = match lookup_uuid(u) {
                Some(k) => format!("{} ({})", u.hyphenated(), k.name),
                None => u.hyphenated().to_string(),
            };
            stats.item_types_uuid.insert(key, c.to_stats());
        }
        stats
    }
}

impl Visitor for StatsVisitor {
    fn visit(&mut self, event: &Event<'_>) {
        let s = &mut self.stats;
        match event {
            Event::Tick(t) => {
                s.chunks.tick_markers += 1;
                s.chunks.keyframe_tick_markers += u64::from(t.keyframe);
                s.first_tick.get_or_insert(t.tick);
                s.last_tick = Some(t.tick);
                s.ticks_without_snapshot_chunk += u64::from(!t.had_snapshot_chunk);
            }
            Event::Snapshot(e) => {
                match e.kind {
                    super::SnapshotKind::Full => s.chunks.snapshot += 1,
                    super::SnapshotKind::Delta => s.chunks.snapshot_delta += 1,
                }
                s.snapshots_reconstructed += 1;
                s.decompressed_snapshot_and_delta_bytes += e.payload.decompressed.len() as u64;
                self.count_items(e.snapshot);
            }
            Event::Message(m) => {
                s.chunks.message += 1;
                s.message_bytes_after_int_unpacking += 4 * m.payload.ints.len() as u64;
            }
            Event::Unknown(_) => s.chunks.unknown += 1,
        }
    }
}

/// [`DemoStats`] of `demo` in one sequential pass, with the warnings and the
/// error that ended the stream early, if any (the statistics then cover
/// what was decoded before it).
pub fn demo_stats(backend: Backend, demo: &Demo<'_>) -> Outcome<DemoStats> {
    let mut decoder = Decoder::new(backend);
    let r = visit(demo, &mut decoder, StatsVisitor::new());
    Outcome {
        visitor: r.visitor.finish(),
        warnings: r.warnings,
        error: r.error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::snapshot::item_key;
    use crate::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints};

    /// Items of a UUID type number are charged to the UUID their snapshot
    /// declares, wherever the declaration stands; without one they count
    /// under their number. Sizes are kept per type.
    #[test]
    fn uuid_items_follow_their_declaration() {
        let named = uuid_from_name("character@netobj.ddnet.tw");
        let mut snap = Snapshot::new();
        snap.push(item_key(0x4001, 0), &[1, 2, 3]).unwrap();
        snap.push(item_key(0x4002, 0), &[9]).unwrap();
        snap.push(item_key(5, 1), &[0; 4]).unwrap();
        snap.push(item_key(0x4001, 1), &[4, 5]).unwrap();
        snap.push(item_key(0, 0x4001), &uuid_to_ints(&named))
            .unwrap();
        snap.push(item_key(0x4001, 2), &[6, 7, 8]).unwrap();
        let mut v = StatsVisitor::new();
        v.count_items(&snap);
        v.count_items(&snap);
        let stats = v.finish();
        let sizes = |s: &ItemTypeStats| s.sizes_ints.iter().copied().collect::<Vec<_>>();
        let uuid = &stats.item_types_uuid;
        assert_eq!(uuid.len(), 1, "{uuid:?}");
        let (key, s) = uuid.iter().next().unwrap();
        assert!(key.starts_with(&named.hyphenated().to_string()), "{key}");
        assert_eq!((s.occurrences, sizes(s)), (6, vec![2, 3]));
        let ordinal = &stats.item_types_ordinal;
        let get = |t: u16| ordinal.get(&t).map(|s| (s.occurrences, sizes(s)));
        assert_eq!(get(0x4002), Some((2, vec![1])));
        assert_eq!(get(5), Some((2, vec![4])));
        assert_eq!(get(0), Some((2, vec![4])));
        assert_eq!(ordinal.len(), 3);
    }
}
