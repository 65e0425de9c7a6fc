//! Snapshot deltas: parsing, applying and creating them.
//!
//! ```text
//! [1] num_removed  [1] num_item_deltas  [1] _zero
//! [num_removed] removed item keys
//! item delta: [1] type (0..=0x7fff)  [1] id (0..=0xffff)
//!             [1] size in ints, only if the protocol has no pre-agreed size
//!             [size] data
//! ```
//!
//! Applying follows DDNet's `CSnapshotDelta::UnpackDelta`:
//!
//! - The new snapshot holds the old items that are not removed, in their old
//!   order, then the items new in the delta, in delta order.
//! - An item delta whose key is in the old snapshot is a diff: the new data
//!   is `old + diff` with wrapping `i32` addition; its size must equal the old
//!   item's ([`ErrorKind::SizeMismatch`] otherwise). Any other item delta
//!   carries the new data as is.
//! - Quirks kept from DDNet: a removed key that is not in the old snapshot is
//!   ignored (here: [`WarningKind::RemovedKeyMissing`]); a key both removed
//!   and updated is appended at the end with `old + diff`; a key repeated in
//!   one delta replaces the earlier data in place (warned as
//!   [`WarningKind::DuplicateItemDelta`] when the key was added by the
//!   delta; a repeated update of a kept item is not warned about: each is
//!   computed from the old item, so the last wins); ints after the last item delta
//!   are ignored ([`WarningKind::TrailingData`]); `_zero` is ignored
//!   ([`WarningKind::NonZeroPadding`]).
//!
//! Creating follows DDNet's `CSnapshotDelta::CreateDelta`: removed keys in
//! old order, then for every item of the new snapshot in its order either
//! the full data (not in the old snapshot) or the diff (only if non-zero).
//! So `apply(old, create(old, new))` has the items of `new` with the same
//! data; the order equals `new`'s whenever `new` lists its kept items in old
//! order before its new items. Every applied snapshot does, except one whose
//! delta removed and updated the same key: that item was appended, and the
//! re-created delta puts it back at its old place.

use super::applier::{AddTier, SnapshotKernels};
use super::{
    item_id, item_key, item_type, Error, ErrorKind, Protocol, Snapshot, Warning, WarningKind,
    MAX_ID, MAX_ITEM_SIZE, MAX_TYPE,
};
use crate::backend::Backend;
use crate::warn::Warn;

/// A delta whose header and removed-key list were checked; item deltas are
/// checked as [`Delta::items`] walks them.
#[derive(Clone, Copy, Debug)]
pub struct Delta<'a> {
    ints: &'a [i32],
    protocol: Protocol,
    num_removed: usize,
    num_item_deltas: usize,
}

/// Ints before the removed keys.
pub const DELTA_HEADER_INTS: usize = 3;

impl<'a> Delta<'a> {
    /// Checks the header: both counts non-negative and not larger than the
    /// remaining ints can hold (a removed key is 1 int, an item delta at
    /// least 2).
    pub fn parse(ints: &'a [i32], protocol: Protocol) -> Result<Delta<'a>, Error> {
        use ErrorKind::*;
        if ints.len() < DELTA_HEADER_INTS {
            return Err(Error::new(Truncated, ints.len()));
        }
        let (nr, nu) = (ints[0], ints[1]);
        if nr < 0 {
            return Err(Error::new(NegativeCount, 0));
        }
        if nu < 0 {
            return Err(Error::new(NegativeCount, 1));
        }
        let rest = ints.len() - DELTA_HEADER_INTS;
        let nr = nr as usize;
        if nr > rest {
            return Err(Error::new(CountTooLarge, 0));
        }
        let nu = nu as usize;
        if nu > (rest - nr) / 2 {
            return Err(Error::new(CountTooLarge, 1));
        }
        Ok(Delta {
            ints,
            protocol,
            num_removed: nr,
            num_item_deltas: nu,
        })
    }

    pub fn num_removed(&self) -> usize {
        self.num_removed
    }

    pub fn num_item_deltas(&self) -> usize {
        self.num_item_deltas
    }

    /// The `_zero` header field.
    pub fn padding(&self) -> i32 {
        self.ints[2]
    }

    /// The removed item keys (their int offsets are `3 + i`).
    pub fn removed_keys(&self) -> &'a [i32] {
        &self.ints[DELTA_HEADER_INTS..DELTA_HEADER_INTS + self.num_removed]
    }

    /// The item deltas, each checked as it is read; the walk stops after the
    /// first error.
    pub fn items(&self) -> ItemDeltas<'a> {
        ItemDeltas {
            ints: self.ints,
            protocol: self.protocol,
            pos: self.items_offset(),
            remaining: self.num_item_deltas,
            shape: ItemShape::NONE,
        }
    }

    /// Int offset of the first item delta.
    pub(super) fn items_offset(&self) -> usize {
        DELTA_HEADER_INTS + self.num_removed
    }

    /// All the delta's ints.
    pub(super) fn ints(&self) -> &'a [i32] {
        self.ints
    }

    pub(super) fn protocol(&self) -> Protocol {
        self.protocol
    }
}

/// One item delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemDelta<'a> {
    pub key: u32,
    /// New data, or the diff against the old item.
    pub data: &'a [i32],
    /// Int offset of the item delta's `type` field.
    pub offset: usize,
    /// Whether the size was written (not pre-agreed).
    pub explicit_size: bool,
}

impl ItemDelta<'_> {
    pub fn type_id(&self) -> u16 {
        item_type(self.key)
    }
    pub fn id(&self) -> u16 {
        item_id(self.key)
    }
}

/// The type and size of an item delta, and whether the size is written:
/// the guess for the next one. Item deltas mostly come in runs of one type
/// (all characters, then all players...), so [`ItemShape::read`] guesses
/// that an item delta has the shape of the one before and only checks it:
/// the position of the next item then does not wait for the type and size
/// table loads (a branch, not a data dependency). When the guess fails,
/// [`ItemShape::learn`] checks the item delta in full and returns its shape.
///
/// Both take and return plain values (no `&mut self`), so a loop keeps its
/// position and shape in registers. The shape is two scalars so that
/// [`ItemShape::learn`] returns it in registers: returned through memory,
/// it was written as two 4-byte fields and read back as one 8-byte word, a
/// failed store-to-load forward on every new run of a type.
#[derive(Clone, Copy, Debug)]
pub(super) struct ItemShape {
    /// The type (low 32 bits, as `u32`) and the data ints (high 32 bits).
    type_size: u64,
    /// Ints before the data: 2 (type, id), or 3 when the size is written
    /// ([`ItemShape::NONE`]: huge).
    header: usize,
}

impl ItemShape {
    /// Before the first item delta and after an error: a header longer
    /// than any slice of ints (and short enough not to overflow a
    /// position), so [`Self::read`] fails and the shape is learnt.
    pub(super) const NONE: ItemShape = ItemShape {
        type_size: 0,
        header: usize::MAX / 4,
    };

    fn new(ty: i32, size: usize, header: usize) -> ItemShape {
        ItemShape {
            type_size: u64::from(ty as u32) | (size as u64) << 32,
            header,
        }
    }

    #[inline(always)]
    fn ty(self) -> i32 {
        self.type_size as u32 as i32
    }

    #[inline(always)]
    fn size(self) -> usize {
        (self.type_size >> 32) as usize
    }

    /// Ints before the data: type, id and, if written, the size.
    #[inline(always)]
    pub(super) fn header_ints(self) -> usize {
        self.header
    }

    /// Whether the size is written.
    #[inline(always)]
    pub(super) fn explicit_size(self) -> bool {
        self.header == 3
    }

    /// The item delta at `at` if it has this shape, a valid id and all its
    /// ints: its key and data (which starts at `at + self.header_ints()`).
    /// `at` must be at most `ints.len()`.
    #[inline(always)]
    pub(super) fn read(self, ints: &[i32], at: usize) -> Option<(u32, &[i32])> {
        let p = at + self.header_ints();
        let size = self.size();
        let item = ints.get(at..p + size)?;
        let (&[t, id], rest) = item.split_first_chunk::<2>()?;
        if t != self.ty() || id as u32 > MAX_ID {
            return None;
        }
        let data = match self.explicit_size() {
            false => rest,
            true => match rest.split_first() {
                Some((&s, data)) if s as usize == size => data,
                _ => return None,
            },
        };
        Some((item_key(t as u16, id as u16), data))
    }

    /// Checks the item delta at `at` in full and returns its shape, which
    /// [`Self::read`] then accepts; on error, stores it in `error` and
    /// returns [`Self::NONE`], which [`Self::read`] rejects. (No
    /// `Result<ItemShape, Error>`: it would come back through memory.)
    #[cold]
    #[inline(never)]
    fn learn(ints: &[i32], protocol: Protocol, at: usize, error: &mut Error) -> ItemShape {
        match Self::check(ints, protocol, at) {
            Ok(shape) => shape,
            Err(e) => {
                *error = e;
                Self::NONE
            }
        }
    }

    /// The checks of [`Self::learn`].
    #[inline(always)]
    fn check(ints: &[i32], protocol: Protocol, at: usize) -> Result<ItemShape, Error> {
        use ErrorKind::*;
        let (t, id) = match ints.get(at..at + 2) {
            Some(&[t, id]) => (t, id),
            _ => return Err(Error::new(Truncated, at)),
        };
        if t < 0 || t as u32 > MAX_TYPE {
            return Err(Error::new(TypeOutOfRange, at));
        }
        if id < 0 || id as u32 > MAX_ID {
            return Err(Error::new(IdOutOfRange, at + 1));
        }
        let mut p = at + 2;
        let (size, header) = match protocol.static_size(t as u32) {
            Some(s) => (s, 2),
            None => {
                let s = *ints.get(p).ok_or(Error::new(Truncated, p))?;
                if s < 0 {
                    return Err(Error::new(NegativeSize, p));
                }
                if s as usize > MAX_ITEM_SIZE / 4 {
                    return Err(Error::new(ItemTooLarge, p));
                }
                p += 1;
                (s as usize, 3)
            }
        };
        if ints.len() - p < size {
            return Err(Error::new(Truncated, p));
        }
        Ok(ItemShape::new(t, size, header))
    }

    /// [`Self::read`], learning the shape first when the guess fails.
    #[inline(always)]
    pub(super) fn read_or_learn<'a>(
        &mut self,
        ints: &'a [i32],
        protocol: Protocol,
        at: usize,
    ) -> Result<(u32, &'a [i32]), Error> {
        if let Some(item) = self.read(ints, at) {
            return Ok(item);
        }
        // Overwritten by `learn` on error; otherwise `learn` made the guess
        // right and the read succeeds.
        let mut error = Error::new(ErrorKind::Truncated, at);
        *self = Self::learn(ints, protocol, at, &mut error);
        self.read(ints, at).ok_or(error)
    }
}

/// Iterator over a delta's item deltas; see [`Delta::items`].
#[derive(Clone, Debug)]
pub struct ItemDeltas<'a> {
    ints: &'a [i32],
    protocol: Protocol,
    pos: usize,
    remaining: usize,
    shape: ItemShape,
}

impl<'a> ItemDeltas<'a> {
    /// Int offset after the item deltas read so far (after a complete walk:
    /// the end of the delta).
    pub fn position(&self) -> usize {
        self.pos
    }

    #[inline(always)]
    fn read(&mut self) -> Result<ItemDelta<'a>, Error> {
        let at = self.pos;
        let (key, data) = self.shape.read_or_learn(self.ints, self.protocol, at)?;
        let explicit_size = self.shape.explicit_size();
        self.pos = at + self.shape.header_ints() + data.len();
        Ok(ItemDelta {
            key,
            data,
            offset: at,
            explicit_size,
        })
    }
}

impl<'a> Iterator for ItemDeltas<'a> {
    type Item = Result<ItemDelta<'a>, Error>;
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let r = self.read();
        if r.is_err() {
            self.remaining = 0;
        }
        Some(r)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.remaining))
    }
}

const REMOVED: u32 = u32::MAX;

/// [`SnapshotKernels::apply_delta`] with the SIMD tier.
pub fn apply_delta(
    old: &Snapshot,
    delta: &[i32],
    protocol: Protocol,
    new: &mut Snapshot,
    warnings: &mut impl Warn<Warning>,
) -> Result<(), Error> {
    SnapshotKernels::new(Backend::Simd).apply_delta(old, delta, protocol, new, warnings)
}

/// [`SnapshotKernels::apply_delta`]: the add kernel is chosen once per delta, and
/// the item loop compiled for each.
pub(super) fn apply_delta_by(
    kernels: &SnapshotKernels,
    old: &Snapshot,
    delta: &[i32],
    protocol: Protocol,
    new: &mut Snapshot,
    warnings: &mut impl Warn<Warning>,
) -> Result<(), Error> {
    new.clear();
    let r = match kernels.add_tier() {
        AddTier::Oracle => apply_inner(
            super::wrapping_add_oracle,
            old,
            delta,
            protocol,
            new,
            warnings,
        ),
        AddTier::Scalar => apply_inner(
            super::wrapping_add_scalar,
            old,
            delta,
            protocol,
            new,
            warnings,
        ),
        AddTier::Wide | AddTier::Avx2 => apply_inner(
            super::wrapping_add_simd,
            old,
            delta,
            protocol,
            new,
            warnings,
        ),
    };
    if r.is_err() {
        new.clear();
    }
    r
}

/// `new = apply(old, ints)` with `add` as the `old + diff` kernel.
fn apply_inner(
    add: impl Fn(&[i32], &[i32], &mut [i32]),
    old: &Snapshot,
    ints: &[i32],
    protocol: Protocol,
    new: &mut Snapshot,
    warnings: &mut impl Warn<Warning>,
) -> Result<(), Error> {
    let delta = Delta::parse(ints, protocol)?;
    if delta.padding() != 0 {
        warnings.warn(Warning {
            kind: WarningKind::NonZeroPadding,
            offset: 2,
        });
    }

    // Kept items, in old order. `old_to_new[i]`: new position of old item i.
    let mut old_to_new = std::mem::take(&mut new.scratch);
    let all_kept = delta.num_removed() == 0;
    if all_kept {
        new.keys.extend_from_slice(&old.keys);
        new.starts.clear();
        new.starts.extend_from_slice(&old.starts);
        new.data.extend_from_slice(&old.data);
        new.index.clone_from(&old.index);
    } else {
        old_to_new.clear();
        old_to_new.resize(old.len(), 0);
        // Start from the old index: drop the removed keys, then move the
        // kept items after the first removed one to their new positions.
        new.index.clone_from(&old.index);
        let mut first_removed = old.len();
        for (j, &k) in delta.removed_keys().iter().enumerate() {
            match old.index_of(k as u32) {
                Some(i) => {
                    old_to_new[i] = REMOVED;
                    first_removed = first_removed.min(i);
                    new.index.remove(k as u32);
                }
                None => warnings.warn(Warning {
                    kind: WarningKind::RemovedKeyMissing,
                    offset: DELTA_HEADER_INTS + j,
                }),
            }
        }
        let mut i = 0;
        while i < old.len() {
            if old_to_new[i] == REMOVED {
                i += 1;
                continue;
            }
            // Copy the run of kept items [i, e) in one go.
            let mut e = i + 1;
            while e < old.len() && old_to_new[e] != REMOVED {
                e += 1;
            }
            let j0 = new.keys.len();
            let shift = (new.data.len() as u32).wrapping_sub(old.starts[i]);
            let keys = &old.keys[i..e];
            new.keys.extend_from_slice(keys);
            new.starts
                .extend(old.starts[i + 1..=e].iter().map(|s| s.wrapping_add(shift)));
            new.data
                .extend_from_slice(&old.data[old.starts[i] as usize..old.starts[e] as usize]);
            for (k, m) in old_to_new[i..e].iter_mut().enumerate() {
                *m = (j0 + k) as u32;
            }
            if i > first_removed {
                // Every item after a removed one moved.
                for (k, &key) in keys.iter().enumerate() {
                    new.index.set(key, j0 + k);
                }
            }
            i = e;
        }
    }

    let mut items = delta.items();
    let mut hint = 0usize;
    let r = (|| {
        for item in &mut items {
            let item = item?;
            let key = item.key;
            let size = item.data.len();
            // DDNet emits item deltas in new-snapshot order, which is
            // mostly old order: try the item after the last one found first.
            let at_old = if old.keys.get(hint) == Some(&key) {
                Some(hint)
            } else {
                old.index_of(key)
            };
            let old_data = match at_old {
                Some(i) => {
                    hint = i + 1;
                    let d = old.item_data(i);
                    if d.len() != size {
                        return Err(Error::new(ErrorKind::SizeMismatch, item.offset));
                    }
                    Some(d)
                }
                None => None,
            };
            let kept = match at_old {
                Some(i) if all_kept => Some(i),
                Some(i) if old_to_new[i] != REMOVED => Some(old_to_new[i] as usize),
                _ => None,
            };
            let j = match kept {
                Some(j) => j,
                None => match new.index.find(key) {
                    Some(j) => {
                        warnings.warn(Warning {
                            kind: WarningKind::DuplicateItemDelta,
                            offset: item.offset,
                        });
                        if new.item_data(j).len() != size {
                            return Err(Error::new(ErrorKind::SizeMismatch, item.offset));
                        }
                        j
                    }
                    None => new.append_zeroed(key, size, item.offset)?,
                },
            };
            let (s, e) = (new.starts[j] as usize, new.starts[j + 1] as usize);
            let dst = &mut new.data[s..e];
            match old_data {
                Some(od) => add(od, item.data, dst),
                None => dst.copy_from_slice(item.data),
            }
        }
        Ok(())
    })();
    new.scratch = old_to_new;
    r?;
    if items.position() < ints.len() {
        warnings.warn(Warning {
            kind: WarningKind::TrailingData,
            offset: items.position(),
        });
    }
    Ok(())
}

/// Writes into `out` the delta that turns `old` into `new` (see the module
/// docs for its order). Errors, with the offending item's position in `new`
/// as offset: [`ErrorKind::TypeOutOfRange`] for a type above
/// [`MAX_TYPE`], [`ErrorKind::SizeMismatch`] when an item's size differs
/// from the old item's (a delta cannot express that) or from the
/// protocol's pre-agreed size.
pub fn create_delta(
    old: &Snapshot,
    new: &Snapshot,
    protocol: Protocol,
    out: &mut Vec<i32>,
) -> Result<(), Error> {
    out.clear();
    out.extend_from_slice(&[0, 0, 0]);
    let mut num_removed = 0;
    for &k in old.keys() {
        if new.index_of(k).is_none() {
            out.push(k as i32);
            num_removed += 1;
        }
    }
    let mut num_items = 0;
    let mut hint = 0usize;
    for (j, (key, data)) in new.iter().enumerate() {
        let t = (key >> 16) as i32;
        if t as u32 > MAX_TYPE {
            return Err(Error::new(ErrorKind::TypeOutOfRange, j));
        }
        let explicit = match protocol.static_size(t as u32) {
            Some(s) if s != data.len() => return Err(Error::new(ErrorKind::SizeMismatch, j)),
            Some(_) => false,
            None => true,
        };
        let at_old = if old.keys().get(hint) == Some(&key) {
            Some(hint)
        } else {
            old.index_of(key)
        };
        let start = out.len();
        out.push(t);
        out.push(item_id(key) as i32);
        if explicit {
            out.push(data.len() as i32);
        }
        match at_old {
            Some(i) => {
                hint = i + 1;
                let od = old.item_data(i);
                if od.len() != data.len() {
                    return Err(Error::new(ErrorKind::SizeMismatch, j));
                }
                let mut changed = 0;
                out.extend(data.iter().zip(od).map(|(&n, &o)| {
                    let d = n.wrapping_sub(o);
                    changed |= d;
                    d
                }));
                if changed == 0 {
                    out.truncate(start);
                    continue;
                }
            }
            None => out.extend_from_slice(data),
        }
        num_items += 1;
    }
    out[0] = num_removed;
    out[1] = num_items;
    Ok(())
}
