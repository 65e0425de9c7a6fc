//! Snapshots and snapshot deltas (see snapshot.md and uncompressed_snap.ksy).
//!
//! Everything here works on `i32` streams: what varint-unpacking a
//! Huffman-decompressed demo chunk yields. Offsets in errors and warnings are
//! int indices into that stream.
//!
//! A full snapshot (a demo keyframe) looks like this, sizes in ints:
//!
//! ```text
//! [1] data_size        bytes of the items segment (keys included)
//! [1] num_items
//! [num_items] offsets  byte offset of each item in the items segment;
//!                      the first is 0, they increase, each item >= 4 bytes
//! items: per item [1] key = type << 16 | id, then its data ints
//! ```
//!
//! A delta against the previous snapshot (see [`delta`]):
//!
//! ```text
//! [1] num_removed  [1] num_item_deltas  [1] _zero (ignored)
//! [num_removed] removed item keys
//! item deltas: [1] type  [1] id  ([1] size, unless the protocol pre-agrees it)
//!              [size] data: new data, or a wrapping diff against the old item
//! ```
//!
//! [`Snapshot`] owns its items in order as three flat buffers (keys, item
//! starts, one contiguous `Vec<i32>` of all item data, so checksums and
//! copies run over contiguous memory) plus a small open-addressing key index
//! for lookups. Workers reuse one `Snapshot` per slot: parsing and delta
//! application clear and refill the buffers without allocating once warm.
//!
//! Limits follow DDNet's `CSnapshot`: at most [`MAX_ITEMS`] items and
//! [`MAX_SIZE`] bytes in total (8 header bytes + 4 per offset + items), items
//! of at most [`MAX_ITEM_SIZE`] bytes, item deltas with types up to
//! [`MAX_TYPE`] and ids up to [`MAX_ID`]. Full snapshots are checked a little
//! more strictly than DDNet's `CSnapshot::IsValid`: the first offset must be
//! 0 (as snapshot.md says) and keys must be unique (DDNet checks neither).
//! Like DDNet, every item must hold its key and ints after the last item are
//! an error. Known quirks mirrored from DDNet's
//! `CSnapshotDelta::UnpackDelta` are documented in [`delta`].

pub mod add;
pub mod applier;
pub mod checksum;
pub mod delta;
pub mod in_place;
pub mod sizes;
pub mod uuid;

mod changes;
mod error;
mod index;

pub use add::{
    wrapping_add_assign_on, wrapping_add_assign_oracle, wrapping_add_assign_scalar,
    wrapping_add_assign_simd, wrapping_add_oracle, wrapping_add_scalar, wrapping_add_simd,
    AddKernel,
};
pub use applier::{AddTier, DeltaApplier, SnapshotKernels};
pub use changes::Changes;
pub use checksum::{checksum_oracle, checksum_scalar, checksum_simd};
pub use delta::{apply_delta, create_delta, Delta, ItemDelta, ItemDeltas};
pub use error::{Error, ErrorKind, Warning, WarningKind};
pub use sizes::{v06, v07, OrdinalType, Protocol};
pub use uuid::{extended_types, lookup_uuid, resolve_type, ExtendedType, ItemType, KnownType};

use index::KeyIndex;
use std::fmt;

/// Most items a snapshot may hold (DDNet `CSnapshot::MAX_ITEMS`).
pub const MAX_ITEMS: usize = 1024;
/// Largest serialized snapshot in bytes: header, offsets and items
/// (DDNet `CSnapshot::MAX_SIZE`, 64 KiB).
pub const MAX_SIZE: usize = 64 * 1024;
/// Largest item data in bytes (key excluded): what fits in [`MAX_SIZE`]
/// beside the header, one offset and the key (DDNet's `NewItemRaw` bound).
pub const MAX_ITEM_SIZE: usize = MAX_SIZE - 8 - 4 - 4;
/// Largest item type number (DDNet `CSnapshot::MAX_TYPE`).
pub const MAX_TYPE: u32 = 0x7fff;
/// Largest item id (DDNet `CSnapshot::MAX_ID`).
pub const MAX_ID: u32 = 0xffff;

/// The item key of `type_id` and `id`.
#[inline]
pub fn item_key(type_id: u16, id: u16) -> u32 {
    (type_id as u32) << 16 | id as u32
}

/// The type number of an item key (the upper 16 bits).
#[inline]
pub fn item_type(key: u32) -> u16 {
    (key >> 16) as u16
}

/// The id of an item key (the lower 16 bits).
#[inline]
pub fn item_id(key: u32) -> u16 {
    key as u16
}

/// The figures a golden `snapshots_full.tsv` row holds for one snapshot
/// (besides tick and kind): all items count, type-0 declarations included,
/// except in `num_items_excl_type_declarations`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SnapshotSummary {
    pub num_items: usize,
    /// Wrapping sum of all item data.
    pub checksum: i32,
    pub num_items_excl_type_declarations: usize,
    /// 4 × (key + data ints) over all items.
    pub data_size_bytes: usize,
    /// See [`Snapshot::canonical_crc32`].
    pub canonical_crc32: u32,
}

impl fmt::Display for SnapshotSummary {
    /// The five columns after `tick` and `kind` of a golden
    /// `snapshots_full.tsv` row, tab-separated: `num_items`, `checksum`,
    /// `num_items_excl_uuid_type_items`, `data_size_bytes`,
    /// `canonical_crc32` (8 lowercase hex digits).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\t{}\t{}\t{}\t{:08x}",
            self.num_items,
            self.checksum,
            self.num_items_excl_type_declarations,
            self.data_size_bytes,
            self.canonical_crc32
        )
    }
}
/// A snapshot: items (key + data ints) in order.
pub struct Snapshot {
    keys: Vec<u32>,
    /// Start of each item's data in `data`, plus the end: `len() + 1` entries.
    starts: Vec<u32>,
    data: Vec<i32>,
    index: KeyIndex,
    /// Delta application: old item index -> new item index.
    scratch: Vec<u32>,
    /// In-place delta application: per item position, `generation << 32 |
    /// offset` of the diff that last updated it (see [`in_place`]). May be
    /// shorter or longer than `keys`; values below the current generation
    /// mean "not touched by this delta".
    stamps: Vec<u64>,
    /// Counts in-place delta applications (never reset but on wrap-around).
    generation: u32,
}

impl Clone for Snapshot {
    fn clone(&self) -> Self {
        Snapshot {
            keys: self.keys.clone(),
            starts: self.starts.clone(),
            data: self.data.clone(),
            index: self.index.clone(),
            scratch: Vec::new(),
            stamps: Vec::new(),
            generation: 0,
        }
    }
    /// Reuses `self`'s buffers.
    fn clone_from(&mut self, source: &Self) {
        self.keys.clone_from(&source.keys);
        self.starts.clone_from(&source.starts);
        self.data.clone_from(&source.data);
        self.index.clone_from(&source.index);
    }
}

impl Default for Snapshot {
    fn default() -> Self {
        Snapshot::new()
    }
}

impl PartialEq for Snapshot {
    /// Same items in the same order.
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys && self.starts == other.starts && self.data == other.data
    }
}
impl Eq for Snapshot {}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.iter()
                    .map(|(k, d)| (format!("{}:{}", item_type(k), item_id(k)), d)),
            )
            .finish()
    }
}

/// Iterator over `(key, data)` of a snapshot's items, in order.
#[derive(Clone)]
pub struct Items<'a> {
    snap: &'a Snapshot,
    next: usize,
}

impl<'a> Iterator for Items<'a> {
    type Item = (u32, &'a [i32]);
    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let i = self.next;
        let key = *self.snap.keys.get(i)?;
        self.next += 1;
        Some((key, self.snap.item_data(i)))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.snap.len() - self.next;
        (n, Some(n))
    }
}
impl ExactSizeIterator for Items<'_> {}

impl Snapshot {
    /// An empty snapshot.
    pub fn new() -> Snapshot {
        let mut index = KeyIndex::default();
        index.reset(0);
        Snapshot {
            keys: Vec::new(),
            starts: vec![0],
            data: Vec::new(),
            index,
            scratch: Vec::new(),
            stamps: Vec::new(),
            generation: 0,
        }
    }

    /// Removes all items, keeping the buffers.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.starts.clear();
        self.starts.push(0);
        self.data.clear();
        self.index.reset(0);
    }

    /// Number of items.
    #[inline]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Item keys in order.
    #[inline]
    pub fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The data ints of all items, concatenated in item order (keys excluded).
    #[inline]
    pub fn data(&self) -> &[i32] {
        &self.data
    }

    /// The data of item `i` (by position).
    #[inline]
    fn item_data(&self, i: usize) -> &[i32] {
        let (s, e) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        &self.data[s..e]
    }

    /// Key and data of the item at position `i`.
    #[inline]
    pub fn item(&self, i: usize) -> Option<(u32, &[i32])> {
        let key = *self.keys.get(i)?;
        Some((key, self.item_data(i)))
    }

    /// `(key, data)` of every item, in order.
    #[inline]
    pub fn iter(&self) -> Items<'_> {
        Items {
            snap: self,
            next: 0,
        }
    }

    /// Position of the item with `key`.
    #[inline]
    pub fn index_of(&self, key: u32) -> Option<usize> {
        self.index.find(key)
    }

    /// Data of the item with `key`.
    #[inline]
    pub fn get(&self, key: u32) -> Option<&[i32]> {
        self.index_of(key).map(|i| self.item_data(i))
    }

    /// Wrapping sum of all item data (the snapshot checksum), SIMD tier.
    pub fn checksum(&self) -> i32 {
        checksum_simd(&self.data)
    }

    /// Bytes of the items segment: 4 × (key + data ints) over all items
    /// (the `data_size` header field).
    pub fn data_size_bytes(&self) -> usize {
        4 * (self.keys.len() + self.data.len())
    }

    /// Bytes of the whole serialized snapshot (header, offsets, items).
    pub fn total_size_bytes(&self) -> usize {
        8 + 4 * self.keys.len() + self.data_size_bytes()
    }

    /// CRC-32 over all items sorted by key (as `u32`), each written as key
    /// then data ints, little-endian: the golden files' `canonical_crc32`,
    /// independent of item order.
    pub fn canonical_crc32(&self) -> u32 {
        let mut order: Vec<usize> = (0..self.len()).collect();
        order.sort_unstable_by_key(|&i| self.keys[i]);
        let mut h = crc32fast::Hasher::new();
        for i in order {
            h.update(&self.keys[i].to_le_bytes());
            for v in self.item_data(i) {
                h.update(&v.to_le_bytes());
            }
        }
        h.finalize()
    }

    /// Appends an item. Errors (offset = the item's position):
    /// [`ErrorKind::DuplicateKey`], [`ErrorKind::TooManyItems`],
    /// [`ErrorKind::ItemTooLarge`], [`ErrorKind::TooLarge`].
    pub fn push(&mut self, key: u32, data: &[i32]) -> Result<(), Error> {
        let i = self.len();
        if data.len() > MAX_ITEM_SIZE / 4 {
            return Err(Error::new(ErrorKind::ItemTooLarge, i));
        }
        self.check_room(data.len(), i)?;
        if self.index.find(key).is_some() {
            return Err(Error::new(ErrorKind::DuplicateKey, i));
        }
        self.append_unchecked(key, |d| d.extend_from_slice(data));
        Ok(())
    }

    /// Appends an item without the checks of [`Snapshot::push`], for items
    /// the caller knows fit, with a key the snapshot does not hold: `grow`
    /// appends its data to the snapshot's data.
    #[inline(always)]
    fn append_unchecked(&mut self, key: u32, grow: impl FnOnce(&mut Vec<i32>)) {
        let _ = self.index.insert(key, self.len());
        grow(&mut self.data);
        self.keys.push(key);
        self.starts.push(self.data.len() as u32);
    }

    /// Whether one more item of `size` ints fits the limits: else
    /// [`ErrorKind::TooManyItems`] or [`ErrorKind::TooLarge`] at `offset`.
    #[inline]
    fn check_room(&self, size: usize, offset: usize) -> Result<(), Error> {
        if self.len() >= MAX_ITEMS {
            return Err(Error::new(ErrorKind::TooManyItems, offset));
        }
        if self.total_size_bytes() + 8 + 4 * size > MAX_SIZE {
            return Err(Error::new(ErrorKind::TooLarge, offset));
        }
        Ok(())
    }

    /// Appends an item of `size` zeros for `key`, which the snapshot does
    /// not hold, within the limits ([`Snapshot::check_room`], errors at
    /// `offset`): the delta appliers fill its data in place. Returns its
    /// position.
    #[inline]
    fn append_zeroed(&mut self, key: u32, size: usize, offset: usize) -> Result<usize, Error> {
        self.check_room(size, offset)?;
        let j = self.len();
        self.append_unchecked(key, |d| d.resize(d.len() + size, 0));
        Ok(j)
    }

    /// Parses a full snapshot from its ints.
    pub fn parse(ints: &[i32]) -> Result<Snapshot, Error> {
        let mut s = Snapshot::new();
        s.parse_into(ints)?;
        Ok(s)
    }

    /// Parses a full snapshot into `self`, reusing its buffers. On error,
    /// `self` is left empty.
    pub fn parse_into(&mut self, ints: &[i32]) -> Result<(), Error> {
        self.clear();
        let r = self.parse_inner(ints);
        if r.is_err() {
            self.clear();
        }
        r
    }

    fn parse_inner(&mut self, ints: &[i32]) -> Result<(), Error> {
        use ErrorKind::*;
        let err = Error::new;
        let data_size = *ints.first().ok_or(err(Truncated, 0))?;
        let num_items = *ints.get(1).ok_or(err(Truncated, 1))?;
        if data_size < 0 {
            return Err(err(NegativeSize, 0));
        }
        if data_size % 4 != 0 {
            return Err(err(UnalignedSize, 0));
        }
        if num_items < 0 {
            return Err(err(NegativeCount, 1));
        }
        let n = num_items as usize;
        if n > MAX_ITEMS {
            return Err(err(TooManyItems, 1));
        }
        let data_size = data_size as usize;
        if 8 + 4 * n + data_size > MAX_SIZE {
            return Err(err(TooLarge, 0));
        }
        let item_ints = data_size / 4;
        let items_at = 2 + n;
        let end = items_at + item_ints;
        let offsets = ints.get(2..items_at).ok_or(err(Truncated, ints.len()))?;
        let items = ints.get(items_at..end).ok_or(err(Truncated, ints.len()))?;
        if ints.len() > end {
            return Err(err(TrailingData, end));
        }
        if n == 0 && data_size != 0 {
            return Err(err(BadOffset, 0));
        }
        self.keys.reserve(n);
        self.starts.reserve(n);
        self.data.reserve(item_ints.saturating_sub(n));
        self.index.reset(n);
        // Validate every offset first; item i spans [offsets[i], next).
        let mut prev = 0usize;
        for (i, &off) in offsets.iter().enumerate() {
            let at = 2 + i;
            if off < 0 {
                return Err(err(BadOffset, at));
            }
            if off % 4 != 0 {
                return Err(err(UnalignedSize, at));
            }
            let off = off as usize / 4;
            let ok = if i == 0 { off == 0 } else { off > prev };
            if !ok || off >= item_ints {
                return Err(err(BadOffset, at));
            }
            prev = off;
        }
        for (i, &off) in offsets.iter().enumerate() {
            let start = off as usize / 4;
            let next = match offsets.get(i + 1) {
                Some(&o) => o as usize / 4,
                None => item_ints,
            };
            let key = items[start] as u32;
            if self.index.insert(key, i).is_err() {
                return Err(err(DuplicateKey, items_at + start));
            }
            self.keys.push(key);
            self.data.extend_from_slice(&items[start + 1..next]);
            self.starts.push(self.data.len() as u32);
        }
        Ok(())
    }

    /// Appends the serialized snapshot (header, offsets, items) to `out`.
    pub fn write_ints(&self, out: &mut Vec<i32>) {
        out.reserve(2 + 2 * self.len() + self.data.len());
        out.push(self.data_size_bytes() as i32);
        out.push(self.len() as i32);
        for (i, &s) in self.starts[..self.len()].iter().enumerate() {
            out.push(4 * (s as i32 + i as i32));
        }
        for (key, data) in self.iter() {
            out.push(key as i32);
            out.extend_from_slice(data);
        }
    }

    /// The serialized snapshot.
    pub fn to_ints(&self) -> Vec<i32> {
        let mut v = Vec::new();
        self.write_ints(&mut v);
        v
    }

    /// The per-snapshot figures of the golden `snapshots_full.tsv` files.
    pub fn summary(&self) -> SnapshotSummary {
        SnapshotSummary {
            num_items: self.len(),
            checksum: self.checksum(),
            num_items_excl_type_declarations: self.len_without_type_declarations(),
            data_size_bytes: self.data_size_bytes(),
            canonical_crc32: self.canonical_crc32(),
        }
    }

    /// Number of items that are not type-0 extended type declarations
    /// (the golden files' `num_items_excl_uuid_type_items`).
    pub fn len_without_type_declarations(&self) -> usize {
        self.keys.iter().filter(|&&k| item_type(k) != 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Buffer addresses of a snapshot: unchanged means nothing reallocated.
    fn buffers(s: &Snapshot) -> [usize; 5] {
        [
            s.keys.as_ptr() as usize,
            s.starts.as_ptr() as usize,
            s.data.as_ptr() as usize,
            s.index.slots.as_ptr() as usize,
            s.scratch.as_ptr() as usize,
        ]
    }

    #[test]
    fn warm_snapshots_do_not_reallocate() {
        // Two snapshots ping-pong through deltas that remove one item and
        // add one each tick (the slow path) or only update (the fast path).
        let mut a = Snapshot::new();
        for id in 0..200u16 {
            a.push(item_key(9, id), &[id as i32; 22]).unwrap();
        }
        let mut b = Snapshot::new();
        let mut w = Vec::new();
        let mut delta = Vec::new();
        let mut warm = None;
        for tick in 0..40u16 {
            delta.clear();
            if tick % 2 == 0 {
                // Remove the first item, add a new one.
                delta.extend_from_slice(&[1, 1, 0, a.keys()[0] as i32, 9, 1000 + tick as i32]);
            } else {
                // Update the first item.
                delta.extend_from_slice(&[0, 1, 0, 9, item_id(a.keys()[0]) as i32]);
            }
            delta.extend_from_slice(&[1; 22]);
            let r = delta::apply_delta(&a, &delta, Protocol::V06, &mut b, &mut w);
            r.unwrap();
            std::mem::swap(&mut a, &mut b);
            if tick == 10 {
                warm = Some((buffers(&a), buffers(&b)));
            }
            if tick > 10 && tick % 2 == 0 {
                let (wa, wb) = warm.unwrap();
                assert_eq!(buffers(&a), wa, "tick {tick}");
                assert_eq!(buffers(&b), wb, "tick {tick}");
            }
        }
        assert_eq!(a.len(), 200);
        assert!(w.is_empty());
    }

    #[test]
    fn key_index_grows_and_finds() {
        let mut s = Snapshot::new();
        for i in 0..1000u32 {
            s.push(i * 7919, &[i as i32]).unwrap();
        }
        for i in 0..1000u32 {
            assert_eq!(s.index_of(i * 7919), Some(i as usize));
            assert_eq!(s.get(i * 7919), Some(&[i as i32][..]));
        }
        assert_eq!(s.index_of(1), None);
        assert_eq!(
            s.push(7919, &[]),
            Err(Error::new(ErrorKind::DuplicateKey, 1000))
        );
    }
}
