//! Applying a snapshot delta in place, with an incremental checksum.
//!
//! [`apply_delta_with`](super::apply_delta_with) builds the new snapshot in
//! a second buffer: it copies
//! every kept item, then the stream sums all data again for the checksum.
//! Most real deltas change little: of the 2781 deltas in the 10 real demos,
//! 2029 remove nothing and 669 remove only items at the end of the old
//! snapshot (the events appended the tick before). For those the new
//! snapshot is the old one, cut after its last kept item, with the diffs
//! added where they apply and the new items appended, and the new checksum is
//! the old one minus the removed data plus every diff and new item:
//!
//! ```text
//! old   [ kept items ........................ | removed suffix ]
//! new   [ kept items, diffs added in place .. | new items ... ]
//! checksum(new) = checksum(old) - sum(removed) + sum(diffs) + sum(new items)
//! ```
//!
//! A delta that removes any other item (83 of the 2781) goes through
//! [`apply_delta_with`](super::apply_delta_with) into the spare snapshot,
//! which is then swapped in, and its checksum is summed in full.
//!
//! The result, warnings and errors equal `apply_delta_with`'s, DDNet's
//! quirks (see [`super::delta`]) included; where in place needs care:
//!
//! - A kept item updated twice in one delta is `old + last diff`, not
//!   `old + both`: every update stamps its item with the delta's generation
//!   and the offset of its diff, and a second update first subtracts the
//!   previous diff.
//! - A key both removed and updated is appended as `old + diff`: the removed
//!   suffix is first moved to the spare snapshot, where its old data stays
//!   available.
//! - Appended keys repeated in the delta replace the earlier data (with a
//!   warning); the checksum subtracts what they replace.
//!
//! Speed: item deltas of kept items are found by position first. DDNet
//! sends the changed items in snapshot order, and in real demos most
//! updates skip one unchanged item (a character, then an unchanged player
//! item...), so the guess is the last update's position plus the last
//! stride, then the next position, then the key index. The update itself is
//! one pass of [`wrapping_add_assign_with`] (data += diff, returning the
//! diff's sum); new and repeated items take an out-of-line path.

use super::delta::DELTA_HEADER_INTS;
use super::{
    checksum_with, wrapping_add_assign_with, wrapping_add_with, Delta, Error, ErrorKind, ItemDelta,
    Protocol, Snapshot, Warning, WarningKind, MAX_ITEMS, MAX_SIZE,
};
use crate::backend::Backend;

/// Stamp offset of a removed item (diff offsets are below it: deltas longer
/// than `u32::MAX` ints go the copying way).
const REMOVED_STAMP: u32 = u32::MAX;

/// [`apply_delta_in_place_with`] with the SIMD tier.
pub fn apply_delta_in_place(
    snap: &mut Snapshot,
    spare: &mut Snapshot,
    delta: &[i32],
    protocol: Protocol,
    warnings: &mut Vec<Warning>,
    checksum: i32,
) -> Result<i32, Error> {
    apply_delta_in_place_with(
        Backend::Simd,
        snap,
        spare,
        delta,
        protocol,
        warnings,
        checksum,
    )
}

/// Applies `delta` to `snap` in place.
///
/// Afterwards `snap` holds exactly what
/// `apply_delta_with(backend, &old_snap, delta, protocol, &mut new, warnings)`
/// would have put in `new` (same items, order and data; the same warnings
/// pushed in the same order; the same error kind and offset). Returns the new
/// checksum (equal to `snap.checksum()`), computed from `checksum`, which
/// must be the old snapshot's checksum, plus what changed.
///
/// `spare` is a reusable buffer for the deltas that cannot be applied in
/// place (those removing items before the last kept one); its contents are
/// unspecified afterwards. On error `snap`'s contents are unspecified too
/// (but it is a valid snapshot, fit for [`Snapshot::parse_into`] or another
/// delta); warnings met before the error stay in `warnings`.
pub fn apply_delta_in_place_with(
    backend: Backend,
    snap: &mut Snapshot,
    spare: &mut Snapshot,
    delta: &[i32],
    protocol: Protocol,
    warnings: &mut Vec<Warning>,
    checksum: i32,
) -> Result<i32, Error> {
    let warnings_at = warnings.len();
    let parsed = Delta::parse(delta, protocol)?;
    if delta.len() >= REMOVED_STAMP as usize {
        // Diff offsets would not fit a stamp.
        return apply_by_copy(backend, snap, spare, delta, protocol, warnings);
    }
    if parsed.padding() != 0 {
        warnings.push(Warning {
            kind: WarningKind::NonZeroPadding,
            offset: 2,
        });
    }
    let generation = snap.next_generation();
    let stamp = |offset: u32| u64::from(generation) << 32 | u64::from(offset);
    let stamped = |s: u64| (s >> 32) as u32 == generation;

    // Removed keys: which positions, and are they a suffix?
    let n_old = snap.len();
    let mut n_kept = n_old;
    let mut num_removed = 0;
    for (j, &k) in parsed.removed_keys().iter().enumerate() {
        match snap.index.find(k as u32) {
            Some(i) => {
                let s = &mut snap.stamps[i];
                if !stamped(*s) {
                    *s = stamp(REMOVED_STAMP);
                    num_removed += 1;
                }
                n_kept = n_kept.min(i);
            }
            None => warnings.push(Warning {
                kind: WarningKind::RemovedKeyMissing,
                offset: DELTA_HEADER_INTS + j,
            }),
        }
    }
    if n_kept + num_removed != n_old {
        warnings.truncate(warnings_at);
        return apply_by_copy(backend, snap, spare, delta, protocol, warnings);
    }

    let mut sum = checksum;
    // The removed suffix moves to `spare`, where a key both removed and
    // updated finds its old data.
    let removed_at = snap.starts[n_kept] as usize;
    if num_removed > 0 {
        let removed = &snap.data[removed_at..];
        sum = sum.wrapping_sub(checksum_with(backend, removed));
        spare.clear();
        spare.index.reset(num_removed);
        for (p, &k) in snap.keys[n_kept..].iter().enumerate() {
            let _ = spare.index.insert(k, p);
            snap.index.remove(k);
        }
        spare.keys.extend_from_slice(&snap.keys[n_kept..]);
        spare.starts.extend(
            snap.starts[n_kept + 1..]
                .iter()
                .map(|&s| s - removed_at as u32),
        );
        spare.data.extend_from_slice(removed);
        snap.keys.truncate(n_kept);
        snap.starts.truncate(n_kept + 1);
        snap.data.truncate(removed_at);
    }
    let mut items = parsed.items();
    // Where the next item delta is most likely: DDNet sends the changed
    // items in snapshot order, so after the item at `last` comes the one
    // `stride` further (characters alternate with unchanged items), or the
    // next one.
    let (mut last, mut stride) = (0usize, 0usize);
    for item in &mut items {
        let item = item?;
        let key = item.key;
        let guess = last + stride;
        let at = if snap.keys.get(guess) == Some(&key) {
            Some(guess)
        } else if snap.keys.get(last + 1) == Some(&key) {
            Some(last + 1)
        } else {
            snap.index.find(key)
        };
        sum = sum.wrapping_add(match at {
            Some(i) if i < n_kept => {
                stride = i.saturating_sub(last).max(1);
                last = i;
                update_kept(backend, snap, i, &item, delta, generation)?
            }
            at => add_item(backend, snap, spare, num_removed > 0, at, &item, warnings)?,
        });
    }
    if items.position() < delta.len() {
        warnings.push(Warning {
            kind: WarningKind::TrailingData,
            offset: items.position(),
        });
    }
    Ok(sum)
}

/// `old + diff` for the kept item at position `i`; returns by how much the
/// checksum changes. A second update of the item in this delta (its stamp
/// has this generation) first takes the earlier diff back out: DDNet
/// computes every update from the old item.
#[inline(always)]
fn update_kept(
    backend: Backend,
    snap: &mut Snapshot,
    i: usize,
    item: &ItemDelta<'_>,
    delta: &[i32],
    generation: u32,
) -> Result<i32, Error> {
    let size = item.data.len();
    let (s, e) = (snap.starts[i] as usize, snap.starts[i + 1] as usize);
    if e - s != size {
        return Err(Error::new(ErrorKind::SizeMismatch, item.offset));
    }
    let dst = &mut snap.data[s..e];
    let diff_at = item.offset + 2 + usize::from(item.explicit_size);
    let stamp = &mut snap.stamps[i];
    let mut change = 0i32;
    if (*stamp >> 32) as u32 == generation {
        let prev = *stamp as u32 as usize;
        let prev_diff = delta.get(prev..prev + size).unwrap_or_default();
        change = change.wrapping_sub(subtract_assign(dst, prev_diff));
    }
    *stamp = u64::from(generation) << 32 | diff_at as u64;
    Ok(change.wrapping_add(wrapping_add_assign_with(backend, dst, item.data)))
}

/// An item delta for a key that is not a kept item: a key added earlier by
/// this delta (`at` its position: replaced in place, warned), or a new key
/// or one removed by this delta (`at` is `None`: appended; a removed key's
/// old data is in `spare` when `removed`). Returns by how much the checksum
/// changes.
#[inline(never)]
fn add_item(
    backend: Backend,
    snap: &mut Snapshot,
    spare: &Snapshot,
    removed: bool,
    at: Option<usize>,
    item: &ItemDelta<'_>,
    warnings: &mut Vec<Warning>,
) -> Result<i32, Error> {
    let size = item.data.len();
    // The old data of a removed key, of the item delta's size.
    let old = match removed.then(|| spare.index.find(item.key)).flatten() {
        Some(p) => {
            let (s, e) = (spare.starts[p] as usize, spare.starts[p + 1] as usize);
            if e - s != size {
                return Err(Error::new(ErrorKind::SizeMismatch, item.offset));
            }
            Some(&spare.data[s..e])
        }
        None => None,
    };
    let mut change = 0i32;
    let dst = match at {
        Some(j) => {
            warnings.push(Warning {
                kind: WarningKind::DuplicateItemDelta,
                offset: item.offset,
            });
            let (s, e) = (snap.starts[j] as usize, snap.starts[j + 1] as usize);
            if e - s != size {
                return Err(Error::new(ErrorKind::SizeMismatch, item.offset));
            }
            let dst = &mut snap.data[s..e];
            change = change.wrapping_sub(checksum_with(backend, dst));
            dst
        }
        None => {
            let j = snap.len();
            if j >= MAX_ITEMS {
                return Err(Error::new(ErrorKind::TooManyItems, item.offset));
            }
            if snap.total_size_bytes() + 8 + 4 * size > MAX_SIZE {
                return Err(Error::new(ErrorKind::TooLarge, item.offset));
            }
            let _ = snap.index.insert(item.key, j);
            snap.keys.push(item.key);
            let s = snap.data.len();
            snap.data.resize(s + size, 0);
            snap.starts.push(snap.data.len() as u32);
            &mut snap.data[s..]
        }
    };
    match old {
        Some(od) => wrapping_add_with(backend, od, item.data, dst),
        None => dst.copy_from_slice(item.data),
    }
    Ok(change.wrapping_add(checksum_with(backend, dst)))
}

/// The copying way: `spare = apply(snap, delta)`, swapped into `snap`, with
/// the checksum summed in full.
fn apply_by_copy(
    backend: Backend,
    snap: &mut Snapshot,
    spare: &mut Snapshot,
    delta: &[i32],
    protocol: Protocol,
    warnings: &mut Vec<Warning>,
) -> Result<i32, Error> {
    super::apply_delta_with(backend, snap, delta, protocol, spare, warnings)?;
    std::mem::swap(snap, spare);
    Ok(snap.checksum_with(backend))
}

/// `data -= diff` (wrapping); returns the wrapping sum of `diff`. Only for
/// a kept item updated twice in one delta, which DDNet never sends.
fn subtract_assign(data: &mut [i32], diff: &[i32]) -> i32 {
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
    use super::super::{apply_delta_with, item_key};
    use super::*;

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
            cur.stamps = vec![u64::from(start) << 32 | 3; 2];
            let mut spare = Snapshot::new();
            let mut sum = cur.checksum();
            let mut expect = base.clone();
            for _ in 0..4 {
                sum = apply_delta_in_place_with(
                    Backend::Simd,
                    &mut cur,
                    &mut spare,
                    &delta,
                    Protocol::V06,
                    &mut Vec::new(),
                    sum,
                )
                .unwrap();
                let mut next = Snapshot::new();
                apply_delta_with(
                    Backend::Oracle,
                    &expect,
                    &delta,
                    Protocol::V06,
                    &mut next,
                    &mut Vec::new(),
                )
                .unwrap();
                expect = next;
                assert_eq!(cur, expect, "start {start}");
                assert_eq!(sum, expect.checksum());
            }
            assert!((1..=4).contains(&cur.generation));
        }
    }
}
