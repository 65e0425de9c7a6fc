//! Applying a snapshot delta in place, with an incremental checksum.
//!
//! [`SnapshotKernels::apply_delta`] builds the new snapshot in
//! a second buffer: it copies every kept item, then the stream sums all data
//! again for the checksum. Most real deltas change little: of the 2781 deltas in the 10 real demos,
//! 2029 remove nothing and 669 remove only items at the end of the old
//! snapshot (the events appended the tick before). In place, the removed
//! items move to the spare snapshot, the kept items after the first removed
//! one move down (one copy per run of kept items; nothing moves when the
//! removed items are a suffix), the diffs are added where they apply and
//! the new items appended. The new checksum is the old one minus the removed
//! data plus every diff and new item:
//!
//! ```text
//! old   [ kept ..... | removed | kept ... | removed suffix ]
//! new   [ kept ..... | kept ... (moved)   | new items ... ]
//!         diffs added in place
//! checksum(new) = checksum(old) - sum(removed) + sum(diffs) + sum(new items)
//! ```
//!
//! The result, warnings and errors equal `SnapshotKernels::apply_delta`'s, DDNet's
//! quirks (see [`super::delta`]) included; where in place needs care:
//!
//! - A kept item updated twice in one delta is `old + last diff`, not
//!   `old + both`: every update stamps its item with the delta's generation
//!   and the offset of its diff, and a second update first subtracts the
//!   previous diff.
//! - A key both removed and updated is appended as `old + diff`, its old
//!   data taken from the spare snapshot.
//! - A kept item that moved gets its index entry and a clear stamp with it.
//! - Appended keys repeated in the delta replace the earlier data (with a
//!   warning); the checksum subtracts what they replace.
//!
//! Speed: item deltas of kept items are found by position first. DDNet
//! sends the changed items in snapshot order, and in real demos most
//! updates skip one unchanged item (a character, then an unchanged player
//! item...), so the guess is the last update's position plus the last
//! stride, then the next position, then the key index. The update itself is
//! one pass of [`SnapshotKernels::wrapping_add_assign`] (data += diff; the
//! SIMD tier keeps the diffs' sum in lanes and reduces once per delta;
//! 22-int items, characters, 95 % of the real item deltas, get a copy
//! unrolled for that size). The item loop is compiled once per [`AddTier`],
//! chosen once per delta, and keeps its state in locals: the item reader's
//! guess ([`ItemShape`](super::delta)) is two scalars, the kept items'
//! keys, starts and stamps are slices of one length; new and repeated items
//! leave the loop for an out-of-line path.

use super::applier::{AddTier, SnapshotKernels};
use super::delta::{ItemShape, DELTA_HEADER_INTS};
use super::{
    Changes, Delta, Error, ErrorKind, ItemDelta, Protocol, Snapshot, Warning, WarningKind,
};
use crate::warn::Warn;

/// Stamp offset of a removed item (diff offsets are below it: deltas longer
/// than `u32::MAX` ints go the copying way).
const REMOVED_STAMP: u32 = u32::MAX;

/// An item's stamp: the generation of the delta that last touched it in the
/// high half, the offset of its diff in that delta (or [`REMOVED_STAMP`]) in
/// the low half. A stamp of the current generation is the largest one.
#[inline(always)]
fn make_stamp(generation: u32, offset: usize) -> u64 {
    u64::from(generation) << 32 | offset as u64
}

/// The generation half of a stamp.
#[inline(always)]
fn stamp_generation(stamp: u64) -> u32 {
    (stamp >> 32) as u32
}

/// The diff offset half of a stamp.
#[inline(always)]
fn stamp_offset(stamp: u64) -> usize {
    stamp as u32 as usize
}

/// Receives what an in-place application changes; [`NoTrack`] ignores it
/// (the plain kernel compiles without a trace of it).
pub(super) trait Track {
    /// The item `key` of `size` data ints was removed.
    fn removed(&mut self, key: u32, size: usize);
    /// Kept item `i` (a position in the new snapshot) got its first diff
    /// of this delta.
    fn updated(&mut self, i: usize);
    /// Items from position `n_kept` on are appended by the delta.
    fn kept(&mut self, n_kept: usize);
    /// The change is not described (the copying way ran).
    fn unknown(&mut self);
}

pub(super) struct NoTrack;

impl Track for NoTrack {
    #[inline(always)]
    fn removed(&mut self, _: u32, _: usize) {}
    #[inline(always)]
    fn updated(&mut self, _: usize) {}
    #[inline(always)]
    fn kept(&mut self, _: usize) {}
    #[inline(always)]
    fn unknown(&mut self) {}
}

impl Track for Changes {
    #[inline(always)]
    fn removed(&mut self, key: u32, size: usize) {
        self.removed.push((key, size as u32));
    }
    #[inline(always)]
    fn updated(&mut self, i: usize) {
        self.updated.push(i as u32);
    }
    #[inline(always)]
    fn kept(&mut self, n_kept: usize) {
        self.added_from = n_kept;
    }
    fn unknown(&mut self) {
        self.clear();
        self.known = false;
    }
}

/// Applies `delta` to `snap` in place (see
/// [`DeltaApplier::apply_in_place`](super::DeltaApplier::apply_in_place);
/// `spare` is the applier's spare snapshot), telling `track` what changed.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn apply_in_place<T: Track>(
    kernels: &SnapshotKernels,
    snap: &mut Snapshot,
    spare: &mut Snapshot,
    delta: &[i32],
    protocol: Protocol,
    warnings: &mut impl Warn<Warning>,
    checksum: i32,
    track: &mut T,
) -> Result<i32, Error> {
    let parsed = Delta::parse(delta, protocol)?;
    if delta.len() >= REMOVED_STAMP as usize {
        // Diff offsets would not fit a stamp.
        track.unknown();
        return apply_by_copy(kernels, snap, spare, delta, protocol, warnings);
    }
    if parsed.padding() != 0 {
        warnings.warn(Warning {
            kind: WarningKind::NonZeroPadding,
            offset: 2,
        });
    }
    let generation = snap.next_generation();
    let stamped = |s: u64| stamp_generation(s) == generation;
    let removed_stamp = make_stamp(generation, REMOVED_STAMP as usize);

    // Removed keys: stamp their items, count them, find the first.
    let mut first_removed = snap.len();
    let mut num_removed = 0;
    for (j, &k) in parsed.removed_keys().iter().enumerate() {
        match snap.index.find(k as u32) {
            Some(i) => {
                let s = &mut snap.stamps[i];
                if !stamped(*s) {
                    *s = removed_stamp;
                    num_removed += 1;
                }
                first_removed = first_removed.min(i);
            }
            None => warnings.warn(Warning {
                kind: WarningKind::RemovedKeyMissing,
                offset: DELTA_HEADER_INTS + j,
            }),
        }
    }
    let mut sum = checksum;
    if num_removed > 0 {
        sum = sum.wrapping_sub(remove_items(
            kernels,
            snap,
            spare,
            first_removed,
            num_removed,
            removed_stamp,
            track,
        ));
    }
    let removed = num_removed > 0;
    track.kept(snap.len());
    let k = kernels;
    let change = match kernels.add_tier() {
        AddTier::Oracle => {
            apply_items::<Oracle, T>(k, snap, spare, &parsed, removed, warnings, track)
        }
        AddTier::Scalar => {
            apply_items::<Scalar, T>(k, snap, spare, &parsed, removed, warnings, track)
        }
        #[cfg(target_arch = "x86_64")]
        AddTier::Avx2 => {
            // SAFETY: `SnapshotKernels::new` gives the AVX2 tier only where
            // `AddKernel::chosen` is AVX2, which it is only where the CPU
            // has AVX2.
            unsafe { apply_items_avx2::<T>(k, snap, spare, &parsed, removed, warnings, track) }
        }
        _ => apply_items::<Simd, T>(k, snap, spare, &parsed, removed, warnings, track),
    }?;
    Ok(sum.wrapping_add(change))
}

/// One tier of [`SnapshotKernels::wrapping_add_assign`], chosen once per delta (the item loop is compiled for each), with the
/// diffs' running sum in the form the tier keeps it.
trait AddAssign {
    type Sum: Copy;
    const ZERO: Self::Sum;
    /// `data += diff`; adds the diff ints to `sum`.
    fn add_assign(data: &mut [i32], diff: &[i32], sum: Self::Sum) -> Self::Sum;
    fn total(sum: Self::Sum) -> i32;
}

/// A plain tier: the running sum is one `i32`.
macro_rules! plain_tier {
    ($tier:ident, $kernel:path) => {
        struct $tier;

        impl AddAssign for $tier {
            type Sum = i32;
            const ZERO: i32 = 0;
            #[inline(always)]
            fn add_assign(data: &mut [i32], diff: &[i32], sum: i32) -> i32 {
                sum.wrapping_add($kernel(data, diff))
            }
            fn total(sum: i32) -> i32 {
                sum
            }
        }
    };
}

plain_tier!(Oracle, super::add::wrapping_add_assign_oracle);
plain_tier!(Scalar, super::add::wrapping_add_assign_scalar);

struct Simd;

impl AddAssign for Simd {
    /// Reduced once per delta, not per item.
    type Sum = wide::i32x8;
    const ZERO: wide::i32x8 = wide::i32x8::ZERO;
    #[inline(always)]
    fn add_assign(data: &mut [i32], diff: &[i32], sum: wide::i32x8) -> wide::i32x8 {
        sum + super::add::wrapping_add_assign_simd_lanes(data, diff)
    }
    fn total(sum: wide::i32x8) -> i32 {
        sum.reduce_add()
    }
}

/// The SIMD tier at [`AddKernel::Avx2`](super::add::AddKernel::Avx2):
/// the diffs' sum in one `ymm` register.
#[cfg(target_arch = "x86_64")]
struct Avx2;

#[cfg(target_arch = "x86_64")]
impl AddAssign for Avx2 {
    type Sum = core::arch::x86_64::__m256i;
    // SAFETY: all-zero bits are a valid `__m256i` (plain integer lanes).
    const ZERO: Self::Sum = unsafe { std::mem::zeroed() };
    #[inline(always)]
    fn add_assign(data: &mut [i32], diff: &[i32], sum: Self::Sum) -> Self::Sum {
        use core::arch::x86_64::_mm256_add_epi32;
        // SAFETY: only instantiated in `apply_items_avx2`, which runs
        // where the CPU has AVX2 (and inlines this).
        unsafe { _mm256_add_epi32(sum, super::add::wrapping_add_assign_avx2_lanes(data, diff)) }
    }
    fn total(sum: Self::Sum) -> i32 {
        // SAFETY: as for `add_assign`.
        unsafe { super::add::reduce_add_avx2(sum) }
    }
}

/// [`apply_items`] compiled for AVX2, with the AVX2 add kernel inlined in
/// its item loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn apply_items_avx2<T: Track>(
    kernels: &SnapshotKernels,
    snap: &mut Snapshot,
    spare: &Snapshot,
    delta: &Delta<'_>,
    removed: bool,
    warnings: &mut impl Warn<Warning>,
    track: &mut T,
) -> Result<i32, Error> {
    apply_items_body::<Avx2, T>(kernels, snap, spare, delta, removed, warnings, track)
}

/// Applies the item deltas of `delta` to `snap`, whose removed items are
/// gone (into `spare` if `removed`); returns by how much the checksum
/// changes.
fn apply_items<K: AddAssign, T: Track>(
    kernels: &SnapshotKernels,
    snap: &mut Snapshot,
    spare: &Snapshot,
    delta: &Delta<'_>,
    removed: bool,
    warnings: &mut impl Warn<Warning>,
    track: &mut T,
) -> Result<i32, Error> {
    apply_items_body::<K, T>(kernels, snap, spare, delta, removed, warnings, track)
}

/// The body of [`apply_items`], inlined into each tier's copy.
///
/// The loop keeps its state in locals and the kept items' parts in slices
/// of length `n_kept` (one bounds check per lookup covers keys, starts and
/// stamps); an item delta that is not an update of a kept item leaves the
/// inner loop for [`add_item`], after which the slices are taken again.
#[inline(always)]
fn apply_items_body<K: AddAssign, T: Track>(
    kernels: &SnapshotKernels,
    snap: &mut Snapshot,
    spare: &Snapshot,
    delta: &Delta<'_>,
    removed: bool,
    warnings: &mut impl Warn<Warning>,
    track: &mut T,
) -> Result<i32, Error> {
    let ints = delta.ints();
    let protocol = delta.protocol();
    let generation = snap.generation;
    // Stamps at or above this one are of this generation.
    let current = make_stamp(generation, 0);
    // Items at positions below this are kept ones, from here on appended.
    let n_kept = snap.len();
    // The walk of `ItemDeltas::next`, with its position, count and shape in
    // locals: through the iterator (its state in memory) the whole decode
    // takes 2.3 % more cycles (12.62 M against 12.34 M per pass over the
    // real demos).
    let mut pos = delta.items_offset();
    let mut remaining = delta.num_item_deltas();
    let mut shape = ItemShape::NONE;
    // Where the next item delta is most likely: DDNet sends the changed
    // items in snapshot order, so after the item at `last` comes the one
    // `stride` further (characters alternate with unchanged items), or the
    // next one.
    let (mut last, mut stride) = (0usize, 0usize);
    // Kept items' diffs and the other items' changes.
    let mut diffs = K::ZERO;
    let mut sum = 0i32;
    'items: loop {
        let keys = &snap.keys[..n_kept];
        let starts = &snap.starts[..=n_kept];
        let stamps = &mut snap.stamps[..n_kept];
        let data = &mut snap.data[..];
        let index = &snap.index;
        // The first item delta that is not an update of a kept item, with
        // its position (if added earlier by this delta).
        let (at, key, diff, found) = loop {
            if remaining == 0 {
                break 'items;
            }
            remaining -= 1;
            let at = pos;
            let (key, diff) = shape.read_or_learn(ints, protocol, at)?;
            let diff_at = at + shape.header_ints();
            pos = diff_at + diff.len();
            let guess = last + stride;
            let i = if keys.get(guess) == Some(&key) {
                guess
            } else if keys.get(last + 1) == Some(&key) {
                last + 1
            } else {
                match index.find(key) {
                    Some(i) if i < n_kept => i,
                    found => break (at, key, diff, found),
                }
            };
            stride = i.saturating_sub(last).max(1);
            last = i;
            // `old + diff` for the kept item at `i`. A second update of the
            // item in this delta (its stamp has this generation) first
            // takes the earlier diff back out: DDNet computes every update
            // from the old item.
            let (s, e) = (starts[i] as usize, starts[i + 1] as usize);
            if e.wrapping_sub(s) != diff.len() {
                return Err(Error::new(ErrorKind::SizeMismatch, at));
            }
            let dst = &mut data[s..e];
            let stamp = &mut stamps[i];
            if *stamp >= current {
                sum = sum.wrapping_sub(undo_update(dst, ints, stamp_offset(*stamp)));
            } else {
                track.updated(i);
            }
            *stamp = make_stamp(generation, diff_at);
            diffs = K::add_assign(dst, diff, diffs);
        };
        sum = sum.wrapping_add(add_item(
            kernels,
            snap,
            spare,
            removed,
            found,
            &ItemDelta {
                key,
                data: diff,
                offset: at,
                explicit_size: shape.explicit_size(),
            },
            warnings,
        )?);
    }
    if pos < ints.len() {
        warnings.warn(Warning {
            kind: WarningKind::TrailingData,
            offset: pos,
        });
    }
    Ok(sum.wrapping_add(K::total(diffs)))
}

/// Removes the `num_removed` items whose stamp is `removed` (all at or after
/// position `first`), moving them to `spare` (where a key both removed and
/// updated finds its old data): the kept items after `first` move down, one
/// copy per run, with their index entries. Returns the sum of the removed
/// data. The moved items' stamps are cleared (they held other items').
fn remove_items<T: Track>(
    kernels: &SnapshotKernels,
    snap: &mut Snapshot,
    spare: &mut Snapshot,
    first: usize,
    num_removed: usize,
    removed: u64,
    track: &mut T,
) -> i32 {
    spare.clear();
    spare.index.reset(num_removed);
    let n_old = snap.len();
    // Next kept position and where its data goes.
    let (mut w, mut w_at) = (first, snap.starts[first] as usize);
    let mut r = first;
    while r < n_old {
        let (s0, s1) = (snap.starts[r] as usize, snap.starts[r + 1] as usize);
        if snap.stamps[r] == removed {
            let key = snap.keys[r];
            // Removed items of a snapshot within the limits, keys unique:
            // they fit. Through `Snapshot::push` and its checks the real
            // demos' decode ran 60.31 M instructions per pass, not 59.36 M.
            spare.append_unchecked(key, |d| d.extend_from_slice(&snap.data[s0..s1]));
            track.removed(key, s1 - s0);
            snap.index.remove(key);
            r += 1;
            continue;
        }
        // The run of kept items [r, e) moves to w (< r: `first` is removed).
        let mut e = r + 1;
        while e < n_old && snap.stamps[e] != removed {
            e += 1;
        }
        let end = snap.starts[e] as usize;
        snap.data.copy_within(s0..end, w_at);
        snap.keys.copy_within(r..e, w);
        let shift = (s0 - w_at) as u32;
        for k in 0..e - r {
            // Reads stay ahead of writes: w + 1 + k < r + 1 + k.
            snap.starts[w + 1 + k] = snap.starts[r + 1 + k] - shift;
            snap.index.set(snap.keys[w + k], w + k);
            snap.stamps[w + k] = 0;
        }
        w += e - r;
        w_at += end - s0;
        r = e;
    }
    snap.keys.truncate(w);
    snap.starts.truncate(w + 1);
    snap.data.truncate(w_at);
    kernels.checksum(&spare.data)
}

/// An item delta for a key that is not a kept item: a key added earlier by
/// this delta (`at` its position: replaced in place, warned), or a new key
/// or one removed by this delta (`at` is `None`: appended; a removed key's
/// old data is in `spare` when `removed`). Returns by how much the checksum
/// changes.
#[inline(never)]
fn add_item(
    kernels: &SnapshotKernels,
    snap: &mut Snapshot,
    spare: &Snapshot,
    removed: bool,
    at: Option<usize>,
    item: &ItemDelta<'_>,
    warnings: &mut impl Warn<Warning>,
) -> Result<i32, Error> {
    let (key, diff, offset) = (item.key, item.data, item.offset);
    let size = diff.len();
    // The old data of a removed key, of the item delta's size.
    let old = match removed.then(|| spare.index.find(key)).flatten() {
        Some(p) => {
            let (s, e) = (spare.starts[p] as usize, spare.starts[p + 1] as usize);
            if e - s != size {
                return Err(Error::new(ErrorKind::SizeMismatch, offset));
            }
            Some(&spare.data[s..e])
        }
        None => None,
    };
    let mut change = 0i32;
    let dst = match at {
        Some(j) => {
            warnings.warn(Warning {
                kind: WarningKind::DuplicateItemDelta,
                offset,
            });
            let (s, e) = (snap.starts[j] as usize, snap.starts[j + 1] as usize);
            if e - s != size {
                return Err(Error::new(ErrorKind::SizeMismatch, offset));
            }
            let dst = &mut snap.data[s..e];
            change = change.wrapping_sub(kernels.checksum(dst));
            dst
        }
        None => {
            let s = snap.data.len();
            snap.append_zeroed(key, size, offset)?;
            &mut snap.data[s..]
        }
    };
    match old {
        Some(od) => kernels.wrapping_add(od, diff, dst),
        None => dst.copy_from_slice(diff),
    }
    Ok(change.wrapping_add(kernels.checksum(dst)))
}

/// [`DeltaApplier::apply_by_copy`](super::DeltaApplier::apply_by_copy) with
/// `spare` as the spare snapshot.
pub(super) fn apply_by_copy(
    kernels: &SnapshotKernels,
    snap: &mut Snapshot,
    spare: &mut Snapshot,
    delta: &[i32],
    protocol: Protocol,
    warnings: &mut impl Warn<Warning>,
) -> Result<i32, Error> {
    kernels.apply_delta(snap, delta, protocol, spare, warnings)?;
    std::mem::swap(snap, spare);
    Ok(kernels.checksum(&snap.data))
}

/// Takes the earlier diff of a kept item updated twice in one delta (which
/// DDNet never sends) back out: `data -= diff` (wrapping) with the diff of
/// `data`'s size at `diff_at` in `delta`; returns the wrapping sum of that
/// diff.
#[cold]
#[inline(never)]
fn undo_update(data: &mut [i32], delta: &[i32], diff_at: usize) -> i32 {
    let diff = delta.get(diff_at..diff_at + data.len()).unwrap_or_default();
    let mut sum = 0i32;
    for (o, &d) in data.iter_mut().zip(diff) {
        *o = o.wrapping_sub(d);
        sum = sum.wrapping_add(d);
    }
    sum
}

impl Snapshot {
    /// Starts an in-place delta application: a generation no stamp holds
    /// yet, and a stamp for every item.
    fn next_generation(&mut self) -> u32 {
        if self.generation == u32::MAX {
            self.stamps.fill(0);
            self.generation = 0;
        }
        self.generation += 1;
        if self.stamps.len() < self.keys.len() {
            self.stamps.resize(self.keys.len(), 0);
        }
        self.generation
    }
}

#[cfg(test)]
mod tests {
    use super::super::{item_key, DeltaApplier};
    use super::*;
    use crate::backend::Backend;

    fn snap(items: &[(u32, &[i32])]) -> Snapshot {
        let mut s = Snapshot::new();
        for &(k, d) in items {
            s.push(k, d).unwrap();
        }
        s
    }

    #[test]
    fn generation_wraps_around() {
        // A kept item updated twice right after the generation wrapped: the
        // stamps of the generation before must not look current.
        let base = snap(&[(item_key(5, 0), &[10, 20, 1]), (item_key(5, 1), &[1, 2, 3])]);
        let delta = [0, 3, 0, 5, 0, 1, 1, 1, 5, 1, 2, 2, 2, 5, 0, 3, 3, 3];
        for start in [u32::MAX - 2, u32::MAX - 1, u32::MAX] {
            let mut cur = base.clone();
            cur.generation = start;
            cur.stamps = vec![make_stamp(start, 3); 2];
            let mut applier = DeltaApplier::new(Backend::Simd);
            let mut sum = cur.checksum();
            let mut expect = base.clone();
            for _ in 0..4 {
                sum = applier
                    .apply_in_place(&mut cur, &delta, Protocol::V06, &mut Vec::new(), sum)
                    .unwrap();
                let mut next = Snapshot::new();
                SnapshotKernels::new(Backend::Oracle)
                    .apply_delta(&expect, &delta, Protocol::V06, &mut next, &mut Vec::new())
                    .unwrap();
                expect = next;
                assert_eq!(cur, expect, "start {start}");
                assert_eq!(sum, expect.checksum());
            }
            assert!((1..=4).contains(&cur.generation));
        }
    }
}
