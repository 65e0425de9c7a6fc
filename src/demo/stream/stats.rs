//! Per-demo statistics gathered in one decoding pass, with the field names
//! and definitions of the golden `summary.json` files:
//!
//! - `chunks`: tick markers (and how many are keyframes), snapshot, delta,
//!   message and unknown data chunks.
//! - `first_tick`, `last_tick`: of the first and last tick marker.
//! - `snapshots_reconstructed`: snapshot and delta chunks decoded, in
//!   complete ticks.
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
//! **Complete ticks.** The stream emits a tick once all of its chunks were
//! read: at the next tick marker (also one the stream then refuses: over
//! the tick limit, going backwards, out of range) or at the end of the
//! data. `chunks.tick_markers` (the `ticks` of `demos index`), `last_tick`
//! and `snapshots_reconstructed` count complete ticks only: when the stream
//! stops inside a tick (a chunk that does not decode), the snapshots
//! reconstructed for that tick are left out like the tick itself
//! ([`StatsVisitor::stream_failed`]). The other chunk counts and the item
//! type tables cover every chunk decoded.
//!
//! `a += b` appends `b`'s counts to `a`'s as if `b`'s chunks followed
//! `a`'s: counts add up, `first_tick` keeps `a`'s, `last_tick` takes `b`'s.
//! Over a batch of demos the sums are totals and the ticks are those of the
//! first and last demo.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::AddAssign;

use serde::Serialize;
use uuid::Uuid;

use super::{visit, Decoder, Event, Outcome, SnapshotEvent, Visitor};
use crate::backend::Backend;
use crate::codec::snapshot::uuid::{lookup_uuid, uuid_from_ints, OFFSET_UUID_TYPE};
use crate::codec::snapshot::{item_id, item_type, Changes, Snapshot};
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

/// Whether `key` is a UUID type declaration: type 0, id `0x4000..`
/// (a snapshot whose change touches one is recounted).
#[inline(always)]
pub fn is_declaration(key: u32) -> bool {
    // Type 0 and id >= OFFSET_UUID_TYPE: the key in 0x4000..=0xffff.
    key.wrapping_sub(u32::from(OFFSET_UUID_TYPE)) < 0x1_0000 - u32::from(OFFSET_UUID_TYPE)
}

/// Distinct sizes are kept in a flat list while they are few (real types
/// have one or two); past [`SMALL_SIZES`] the rest go to a sorted set, so
/// a type with thousands of sizes costs a logarithmic lookup per item, not
/// a linear one.
const SMALL_SIZES: usize = 8;

/// Per-type counters with small flat tables for the hot path.
///
/// Occurrences are counted lazily: `live` items of the type are in the
/// current snapshot since snapshot number `since`, and `occurrences`
/// holds the snapshots before that. A snapshot that adds or removes an
/// item of the type settles the count ([`TypeCounter::settle`]); one that
/// does not costs nothing here.
#[derive(Clone, Debug, Default)]
struct TypeCounter {
    occurrences: u64,
    /// Items of the type in the current snapshot.
    live: u64,
    /// First snapshot number not yet in `occurrences`.
    since: u64,
    /// Whether the counter is in [`StatsVisitor::touched`].
    listed: bool,
    /// Distinct sizes seen, the first [`SMALL_SIZES`] of them.
    sizes: Vec<usize>,
    /// Distinct sizes beyond those.
    more_sizes: BTreeSet<usize>,
}

impl TypeCounter {
    /// Adds the snapshots before number `now` to `occurrences`, with the
    /// current `live` count.
    #[inline(always)]
    fn settle(&mut self, now: u64) {
        self.occurrences += self.live * now.saturating_sub(self.since);
        self.since = now;
    }

    /// Notes an item of `size` ints in the current snapshot (number
    /// `now`); `ops` counts the set lookups past the short list (the
    /// caller counts one per item).
    #[inline(always)]
    fn add(&mut self, size: usize, now: u64, ops: &mut u64) {
        self.settle(now);
        self.live += 1;
        if !self.sizes.contains(&size) {
            self.add_size(size, ops);
        }
    }

    /// An item of the type left the current snapshot (number `now`).
    #[inline(always)]
    fn remove(&mut self, now: u64) {
        self.settle(now);
        self.live = self.live.saturating_sub(1);
    }

    /// A size not among the first [`SMALL_SIZES`] (the scan of those, at
    /// most that many comparisons, counts as the item's one operation).
    #[cold]
    fn add_size(&mut self, size: usize, ops: &mut u64) {
        if self.sizes.len() < SMALL_SIZES {
            self.sizes.push(size);
        } else {
            *ops += 1;
            self.more_sizes.insert(size);
        }
    }

    fn to_stats(&self) -> ItemTypeStats {
        ItemTypeStats {
            occurrences: self.occurrences,
            sizes_ints: self.sizes.iter().chain(&self.more_sizes).copied().collect(),
        }
    }
}

/// A counter: an ordinal type number (below `1 << 16`), or `1 << 16`
/// plus the position of a UUID type in [`StatsVisitor::uuid`].
type CounterId = u32;

/// The counter id of the UUID type at position `at`.
const UUID_COUNTER: CounterId = 1 << 16;

/// Operation counts of the analysis tables, for the scaling tests: each
/// element compared in a scan and each hash or tree lookup counts one.
/// Linear time means these grow in proportion to the input.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// Snapshot items charged to their type counter (sizes compared).
    pub item_sizes: u64,
    /// Type-0 declarations resolved to their UUID.
    pub uuid_declarations: u64,
    /// Items of a UUID type number resolved to their declaration.
    pub uuid_items: u64,
    /// Message kinds looked up ([`crate::demo::analysis`]).
    pub message_kinds: u64,
    /// Player views and records looked up, names compared
    /// ([`crate::demo::players`]).
    pub players: u64,
}

/// A [`Visitor`] computing [`DemoStats`].
///
/// Item counts follow what each snapshot chunk changed
/// ([`crate::codec::snapshot::Changes`]): a delta's removed and appended
/// items move the per-type live counts (updated items keep their type and
/// size), so a delta costs work in proportion to the items it touched,
/// not to the snapshot. A full snapshot, a delta of unknown change (the
/// oracle tier) or one that touches a UUID declaration (type 0, id
/// `0x4000..`) recounts the snapshot (`StatsVisitor::recount`).
#[derive(Debug, Default)]
pub struct StatsVisitor {
    stats: DemoStats,
    ordinal: Vec<TypeCounter>,
    /// UUID item types seen, in first-seen order.
    uuid: Vec<(Uuid, TypeCounter)>,
    /// Position in `uuid` of each UUID.
    uuid_at: HashMap<Uuid, u32>,
    /// By UUID type number - `0x4000` (up to the largest declared, at
    /// most the 49,152 of `0x4000..=0xffff`): the recount (`epoch`) that
    /// last declared it and the position in `uuid` it declared. A snapshot
    /// usually declares what the previous one did, so a declaration is
    /// checked against this before the UUID is hashed.
    decl: Vec<(u64, u32)>,
    /// Recounts so far (the stamp of `decl`): declarations hold from one
    /// recount to the next, since a snapshot that changes one is recounted.
    epoch: u64,
    /// Snapshots counted so far (the current one's number).
    snapshots: u64,
    /// Counters that may have live items (each once, `listed`): what a
    /// recount resets.
    touched: Vec<CounterId>,
    /// This snapshot's items of a UUID type number seen before their
    /// declaration: (type number, size).
    pending: Vec<(u16, usize)>,
    /// Snapshots reconstructed since the latest tick event (they count in
    /// `snapshots_reconstructed` once their tick is complete).
    open_snapshots: u64,
    probe: Probe,
}

impl StatsVisitor {
    pub fn new() -> StatsVisitor {
        StatsVisitor::default()
    }

    /// Counts snapshot `snap`, which `changes` made from the previous one.
    #[cfg(test)]
    fn count_snapshot(&mut self, snap: &Snapshot, changes: &Changes) {
        let declarations = changes.touches(snap, is_declaration);
        self.count_snapshot_touching(snap, changes, declarations);
    }

    /// [`StatsVisitor::count_snapshot`] where the caller looked at the
    /// changed keys: `declarations` says whether `changes` touches an item
    /// that [`is_declaration`] (as [`Changes::touches`] would).
    fn count_snapshot_touching(&mut self, snap: &Snapshot, changes: &Changes, declarations: bool) {
        self.snapshots += 1;
        if declarations {
            self.recount(snap);
            return;
        }
        let now = self.snapshots;
        let mut size_ops = 0;
        let mut uuid_ops = 0;
        for &(key, _) in changes.removed() {
            size_ops += 1;
            let id = self.resolve(item_type(key), &mut uuid_ops);
            self.counter(id).remove(now);
        }
        for i in changes.added_from()..snap.len() {
            let Some((key, data)) = snap.item(i) else {
                break;
            };
            size_ops += 1;
            let id = self.resolve(item_type(key), &mut uuid_ops);
            self.live_add(id, data.len(), &mut size_ops);
        }
        self.probe.item_sizes += size_ops;
        self.probe.uuid_items += uuid_ops;
    }

    /// The counter of an item of type `t` in the current snapshot: the
    /// UUID its declaration names, else its number.
    #[inline]
    fn resolve(&self, t: u16, uuid_ops: &mut u64) -> CounterId {
        if t >= OFFSET_UUID_TYPE {
            *uuid_ops += 1;
            if let Some(at) = self.declared(t) {
                return UUID_COUNTER + at as CounterId;
            }
        }
        CounterId::from(t)
    }

    /// The counter `id`, created if needed.
    #[inline]
    fn counter(&mut self, id: CounterId) -> &mut TypeCounter {
        if id >= UUID_COUNTER {
            return &mut self.uuid[(id - UUID_COUNTER) as usize].1;
        }
        let t = id as usize;
        if t >= self.ordinal.len() {
            self.ordinal.resize(t + 1, TypeCounter::default());
        }
        &mut self.ordinal[t]
    }

    /// Notes an item of `size` ints for counter `id` in the current
    /// snapshot.
    #[inline]
    fn live_add(&mut self, id: CounterId, size: usize, ops: &mut u64) {
        let now = self.snapshots;
        let c = self.counter(id);
        c.add(size, now, ops);
        if !c.listed {
            c.listed = true;
            self.touched.push(id);
        }
    }

    /// Counts the items of `snap` from scratch in one pass: an item of a
    /// UUID type number is charged to the UUID its snapshot declares
    /// (type-0 items, anywhere in the snapshot: items seen before their
    /// declaration wait in `pending`), else counted under its number.
    /// Every item costs O(1) table work (amortised), whatever the number
    /// of types.
    fn recount(&mut self, snap: &Snapshot) {
        let now = self.snapshots;
        for i in 0..self.touched.len() {
            let id = self.touched[i];
            let c = self.counter(id);
            c.settle(now);
            c.live = 0;
            c.listed = false;
        }
        self.touched.clear();
        self.epoch += 1;
        let stamp = self.epoch;
        self.pending.clear();
        // Operation counts in locals (registers), added to the probe once.
        let mut size_ops = snap.len() as u64;
        let mut uuid_ops = 0;
        for (key, data) in snap.iter() {
            let t = item_type(key);
            if t >= OFFSET_UUID_TYPE {
                uuid_ops += 1;
                let size = data.len();
                match self.declared(t) {
                    Some(at) => self.live_add(UUID_COUNTER + at as CounterId, size, &mut size_ops),
                    None => self.pending.push((t, size)),
                }
                continue;
            }
            if t == 0 && item_id(key) >= OFFSET_UUID_TYPE {
                if let Some(u) = uuid_from_ints(data) {
                    self.declare(item_id(key), u, stamp);
                }
            }
            self.live_add(CounterId::from(t), data.len(), &mut size_ops);
        }
        for i in 0..self.pending.len() {
            let (t, size) = self.pending[i];
            let id = self.resolve(t, &mut uuid_ops);
            self.live_add(id, size, &mut size_ops);
        }
        self.probe.item_sizes += size_ops;
        self.probe.uuid_items += uuid_ops;
    }

    /// Position in `uuid` of what the current snapshot declares for the
    /// UUID type number `t`, if it declared it (so far).
    #[inline]
    fn declared(&self, t: u16) -> Option<usize> {
        let (stamp, at) = *self.decl.get(usize::from(t - OFFSET_UUID_TYPE))?;
        (stamp == self.epoch).then_some(at as usize)
    }

    /// Notes that this snapshot (`stamp`) declares UUID type number `t` as
    /// `u`.
    fn declare(&mut self, t: u16, u: Uuid, stamp: u64) {
        let slot = usize::from(t - OFFSET_UUID_TYPE);
        if self.decl.len() <= slot {
            // Grown to the largest type number declared (most demos use a
            // few dozen past 0x4000), not allocated and zeroed whole.
            self.decl.resize(slot + 1, (0, 0));
        }
        let (declared, prev) = self.decl[slot];
        if declared == stamp {
            // Declared twice in one snapshot: the first declaration holds.
            return;
        }
        self.probe.uuid_declarations += 1;
        let at = match self.uuid.get(prev as usize) {
            Some(c) if c.0 == u => prev,
            _ => {
                self.probe.uuid_declarations += 1;
                let next = self.uuid.len() as u32;
                let at = *self.uuid_at.entry(u).or_insert(next);
                if at == next {
                    let counter = TypeCounter {
                        since: self.snapshots,
                        ..TypeCounter::default()
                    };
                    self.uuid.push((u, counter));
                }
                at
            }
        };
        self.decl[slot] = (stamp, at);
    }

    /// Operation counts so far (see [`Probe`]).
    #[doc(hidden)]
    pub fn probe(&self) -> Probe {
        self.probe
    }

    /// Drops the snapshots of the tick in progress from
    /// `snapshots_reconstructed`: the stream stopped inside it (see the
    /// module docs). Call before [`StatsVisitor::finish`] when the stream
    /// ended with an error.
    pub fn stream_failed(&mut self) {
        self.open_snapshots = 0;
    }

    /// The statistics gathered so far.
    pub fn finish(mut self) -> DemoStats {
        let end = self.snapshots + 1;
        for i in 0..self.touched.len() {
            let id = self.touched[i];
            self.counter(id).settle(end);
        }
        let mut stats = self.stats;
        stats.snapshots_reconstructed += self.open_snapshots;
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

    /// [`Visitor::visit`] of a snapshot event for a caller that already
    /// looked at the keys the event's changes touched: `declarations` is
    /// `e.changes.touches(e.snapshot, is_declaration)`.
    pub fn visit_snapshot(&mut self, e: &SnapshotEvent<'_>, declarations: bool) {
        let s = &mut self.stats;
        match e.kind {
            super::SnapshotKind::Full => s.chunks.snapshot += 1,
            super::SnapshotKind::Delta => s.chunks.snapshot_delta += 1,
        }
        self.open_snapshots += 1;
        s.decompressed_snapshot_and_delta_bytes += e.payload.decompressed.len() as u64;
        self.count_snapshot_touching(e.snapshot, e.changes, declarations);
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
                s.snapshots_reconstructed += std::mem::take(&mut self.open_snapshots);
            }
            Event::Snapshot(e) => {
                let declarations = e.changes.touches(e.snapshot, is_declaration);
                self.visit_snapshot(e, declarations);
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
    let mut r = visit(demo, &mut decoder, StatsVisitor::new());
    if r.error.is_some() {
        r.visitor.stream_failed();
    }
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

    /// The range test is the definition: type 0, id from
    /// `OFFSET_UUID_TYPE` (every id of types 0 and 1, and the ends of the
    /// key range).
    #[test]
    fn is_declaration_is_type_0_extended_id() {
        let keys = (0..=0x1_ffffu32).chain([u32::MAX, u32::MAX - 0x4000, 0xffff_0000]);
        for k in keys {
            let expected = item_type(k) == 0 && item_id(k) >= OFFSET_UUID_TYPE;
            assert_eq!(is_declaration(k), expected, "{k:#x}");
        }
    }

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
        let mut full = Changes::default();
        full.set_unknown();
        v.count_snapshot(&snap, &full);
        v.count_snapshot(&snap, &full);
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
