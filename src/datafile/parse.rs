//! Parsing and validating the datafile tables.

use super::error::{Error, ErrorKind, Section, Warning, WarningKind};
use super::inflate::Inflater;
use crate::bytes::{int_view, le_i32, LeI32s};
use crate::warn::{Discard, Warn};

/// Size of the version header plus header.
const HEADER_LEN: usize = 36;
/// Most warnings kept per file (real maps have at most 13).
pub const MAX_WARNINGS: usize = crate::warn::DEFAULT_MAX_WARNINGS;

/// The datafile version as written in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Version {
    /// Version 3: data blocks are stored raw, no size table.
    V3,
    /// Version 4 with correct `size`/`swaplen` header fields.
    V4,
    /// Version 4 whose `size`/`swaplen` were computed the old wrong way
    /// (without the data size table).
    V4Crude,
}

impl Version {
    /// The version number in the file.
    pub fn number(self) -> u32 {
        match self {
            Version::V3 => 3,
            Version::V4 | Version::V4Crude => 4,
        }
    }

    /// The name used in reports and the golden files: `3`, `4`, `4crude`.
    pub fn name(self) -> &'static str {
        match self {
            Version::V3 => "3",
            Version::V4 => "4",
            Version::V4Crude => "4crude",
        }
    }
}

/// A 16-bit item type id.
pub type ItemTypeId = u16;

/// One entry of the item type table: the items `start..start + num` have
/// type `type_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ItemType {
    pub type_id: ItemTypeId,
    pub start: usize,
    pub num: usize,
}

/// An item: type, id and its `i32` data, borrowed from the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Item<'a> {
    /// The item's index in the item table.
    pub index: usize,
    pub type_id: ItemTypeId,
    pub id: u16,
    pub data: LeI32s<'a>,
    /// Byte offset of the item header in the file.
    pub offset: usize,
}

impl Item<'_> {
    /// Byte offset of the item's first data int in the file (after its
    /// 8-byte header).
    pub fn data_offset(&self) -> usize {
        self.offset + 8
    }
}

/// A parsed, validated datafile borrowing its bytes.
#[derive(Clone, Debug)]
pub struct Datafile<'a> {
    bytes: &'a [u8],
    /// Version, counts and where each section starts.
    layout: Layout,
    item_types: Vec<ItemType>,
    /// Per item: (type_id, id, data start in file, data len in bytes).
    items: Vec<ItemSlot>,
    data_offsets: LeI32s<'a>,
    data_sizes: Option<LeI32s<'a>>,
}

#[derive(Clone, Copy, Debug)]
struct ItemSlot {
    type_id: u16,
    id: u16,
    start: u32,
    len: u32,
}

int_view! {
    /// The header after the version header: 7 ints from byte 8.
    struct Header {
        size: SIZE = 0,
        swaplen: SWAPLEN = 1,
        num_item_types: NUM_ITEM_TYPES = 2,
        num_items: NUM_ITEMS = 3,
        num_data: NUM_DATA = 4,
        item_size: ITEM_SIZE = 5,
        data_size: DATA_SIZE = 6,
    }
}

int_view! {
    /// An entry of the item type table (3 ints).
    struct ItemTypeEntry {
        type_id: TYPE_ID = 0,
        start: START = 1,
        num: NUM = 2,
    }
}

int_view! {
    /// The header of an item: type id and id packed in one int, then the
    /// size of its data in bytes.
    struct ItemHeader {
        key: KEY = 0,
        size: SIZE = 1,
    }
}

fn count(v: i32, section: Section, offset: usize) -> Result<usize, Error> {
    usize::try_from(v).map_err(|_| Error::new(ErrorKind::NegativeCount, section, offset))
}

/// What a datafile's header says, before its tables are read: the
/// version, the counts, the section sizes and where each table would be.
/// [`Datafile::layout`] reads it also from a file too short to hold the
/// tables, so that a report on a truncated file keeps these fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// As [`Datafile::version`] would say (`size`/`swaplen` decide
    /// between [`Version::V4`] and [`Version::V4Crude`]).
    pub version: Version,
    pub magic_reversed: bool,
    pub num_item_types: usize,
    pub num_items: usize,
    pub num_data: usize,
    /// Bytes of the item section.
    pub item_size: usize,
    /// Bytes of the data section, as [`Datafile::data_section_len`].
    pub data_size: usize,
    /// `size` / `swaplen` differ from what the layout gives (a
    /// [`Version::V4Crude`] file's match its crude rule instead).
    size_mismatch: bool,
    swaplen_mismatch: bool,
    item_offsets_start: usize,
    data_offsets_start: usize,
    data_sizes_start: usize,
    items_start: usize,
    data_start: usize,
    file_end: usize,
}

impl Layout {
    /// Reads the version header and the header (the first 36 bytes).
    fn read(bytes: &[u8]) -> Result<Layout, Error> {
        let truncated = |section, offset| Error::new(ErrorKind::Truncated, section, offset);
        if bytes.len() < 8 {
            return Err(truncated(Section::VersionHeader, bytes.len()));
        }
        let magic_reversed = match &bytes[0..4] {
            b"DATA" => false,
            b"ATAD" => true,
            _ => return Err(Error::new(ErrorKind::BadMagic, Section::VersionHeader, 0)),
        };
        let version_number = le_i32(bytes, 4).unwrap_or_default();
        if version_number != 3 && version_number != 4 {
            return Err(Error::new(
                ErrorKind::UnsupportedVersion,
                Section::VersionHeader,
                4,
            ));
        }
        if bytes.len() < HEADER_LEN {
            return Err(truncated(Section::Header, bytes.len()));
        }
        let h = Header::new(LeI32s::new(&bytes[8..HEADER_LEN]), 8);
        let field = |v, i| count(v, Section::Header, h.offset_of(i));
        let (size, swaplen) = (h.size(), h.swaplen());
        let num_item_types = field(h.num_item_types(), Header::NUM_ITEM_TYPES)?;
        let num_items = field(h.num_items(), Header::NUM_ITEMS)?;
        let num_data = field(h.num_data(), Header::NUM_DATA)?;
        let item_size = field(h.item_size(), Header::ITEM_SIZE)?;
        let data_size = field(h.data_size(), Header::DATA_SIZE)?;

        // Table layout: counts are up to 2^31 each, and usize is 64-bit on
        // every supported target, so none of these overflow (each term is
        // below 12 × 2^31).
        let v4 = version_number == 4;
        let item_offsets_start = HEADER_LEN + 12 * num_item_types;
        let data_offsets_start = item_offsets_start + 4 * num_items;
        let data_sizes_start = data_offsets_start + 4 * num_data;
        let items_start = data_sizes_start + if v4 { 4 * num_data } else { 0 };
        let data_start = items_start + item_size;
        let file_end = data_start + data_size;

        // `size` and `swaplen`: correct, crude (v3-style on a v4 file) or
        // neither.
        let good_size = (file_end - 16) as i64;
        let good_swaplen = (data_start - 16) as i64;
        let crude_delta = if v4 { 4 * num_data as i64 } else { 0 };
        let version = if !v4 {
            Version::V3
        } else if num_data > 0
            && size as i64 == good_size - crude_delta
            && swaplen as i64 == good_swaplen - crude_delta
        {
            Version::V4Crude
        } else {
            Version::V4
        };
        let crude = version == Version::V4Crude;
        Ok(Layout {
            version,
            magic_reversed,
            num_item_types,
            num_items,
            num_data,
            item_size,
            data_size,
            size_mismatch: !crude && size as i64 != good_size,
            swaplen_mismatch: !crude && swaplen as i64 != good_swaplen,
            item_offsets_start,
            data_offsets_start,
            data_sizes_start,
            items_start,
            data_start,
            file_end,
        })
    }

    /// The section holding the first byte past the end of `bytes`, where
    /// `bytes` ends before the layout does. In the item or data section
    /// that is the item or block whose slot holds it, found from the offset
    /// table (complete there, as it comes before).
    fn cut_section(&self, bytes: &[u8]) -> Option<Section> {
        let len = bytes.len();
        let tables = [
            (self.item_offsets_start, Section::ItemTypes),
            (self.data_offsets_start, Section::ItemOffsets),
            (self.data_sizes_start, Section::DataOffsets),
            (self.items_start, Section::DataSizes),
        ];
        if let Some(&(_, section)) = tables.iter().find(|&&(end, _)| len < end) {
            return Some(section);
        }
        if len < self.data_start {
            let table = &bytes[self.item_offsets_start..self.data_offsets_start];
            return Some(Section::Item(slot_holding(table, len - self.items_start)));
        }
        if len < self.file_end {
            let table = &bytes[self.data_offsets_start..self.data_sizes_start];
            return Some(Section::Data(slot_holding(table, len - self.data_start)));
        }
        None
    }

    /// Total uncompressed bytes of all data blocks, as the tables claim
    /// ([`Datafile::data_size_total`]): the data section for version 3
    /// (stored raw), the size table for version 4 where `bytes` holds it
    /// and no size in it is negative.
    pub fn data_size_total(&self, bytes: &[u8]) -> Option<u64> {
        if self.version == Version::V3 {
            return Some(self.data_size as u64);
        }
        let table = bytes.get(self.data_sizes_start..self.items_start)?;
        LeI32s::new(table)
            .iter()
            .try_fold(0u64, |sum, s| Some(sum + u64::try_from(s).ok()?))
    }
}

/// The index of the slot of an offset table (`table`, little-endian ints)
/// that holds relative byte `at`: of the entries at or before `at`, the
/// last with the greatest offset (an empty slot holds no byte); 0 where
/// none is (a corrupt table).
fn slot_holding(table: &[u8], at: usize) -> u32 {
    let mut best: Option<(usize, u32)> = None;
    for (i, o) in LeI32s::new(table).iter().enumerate() {
        let Ok(o) = usize::try_from(o) else { continue };
        if o <= at && best.is_none_or(|(b, _)| o >= b) {
            best = Some((o, i as u32));
        }
    }
    best.map_or(0, |(_, i)| i)
}

impl<'a> Datafile<'a> {
    /// [`Datafile::parse_observed`] for callers that only want the value: the
    /// warnings are dropped.
    pub fn parse(bytes: &'a [u8]) -> Result<Datafile<'a>, Error> {
        Datafile::parse_observed(bytes, &mut Discard)
    }

    /// The header's version, counts and section sizes, also where the file
    /// is too short for the tables it declares (where [`Datafile::parse`]
    /// reports `truncated`). Errors are those of the first 36 bytes.
    pub fn layout(bytes: &[u8]) -> Result<Layout, Error> {
        Layout::read(bytes)
    }

    /// Parses and validates the header and all tables; data blocks are only
    /// located, not decompressed (see [`Datafile::decompress`]). Warnings
    /// go to `warn` as they are found (also those found before an error).
    pub fn parse_observed(
        bytes: &'a [u8],
        warn: &mut impl Warn<Warning>,
    ) -> Result<Datafile<'a>, Error> {
        let l = Layout::read(bytes)?;
        let (num_item_types, num_items, num_data) = (l.num_item_types, l.num_items, l.num_data);
        let (item_size, data_size, v4) = (l.item_size, l.data_size, l.version != Version::V3);
        let (types_start, item_offsets_start, data_offsets_start) =
            (HEADER_LEN, l.item_offsets_start, l.data_offsets_start);
        let (data_sizes_start, items_start) = (l.data_sizes_start, l.items_start);
        if let Some(section) = l.cut_section(bytes) {
            return Err(Error::new(ErrorKind::Truncated, section, bytes.len()));
        }

        // A crafted file of tiny items with gaps gets one warning per item:
        // the caller's sink caps them.
        let mut warn = |kind, section, offset: usize| {
            warn.warn(Warning {
                kind,
                section,
                offset: offset as u64,
            })
        };

        // The header's fields, for the warnings' offsets.
        let h = Header::new(LeI32s::new(&bytes[8..HEADER_LEN]), 8);
        if l.size_mismatch {
            warn(
                WarningKind::HeaderSizeMismatch,
                Section::Header,
                h.offset_of(Header::SIZE),
            );
        }
        if l.swaplen_mismatch {
            warn(
                WarningKind::SwaplenMismatch,
                Section::Header,
                h.offset_of(Header::SWAPLEN),
            );
        }
        if l.file_end < bytes.len() {
            warn(
                WarningKind::TrailingBytes,
                Section::Data(num_data as u32),
                l.file_end,
            );
        }

        // Item types: ids fit in 16 bits, ranges inside the item table, unique.
        let mut item_types = Vec::with_capacity(num_item_types);
        for i in 0..num_item_types {
            let off = types_start + 12 * i;
            let e = ItemTypeEntry::new(LeI32s::new(&bytes[off..off + 12]), off);
            let bad = || Error::new(ErrorKind::BadItemType, Section::ItemTypes, off);
            let type_id = u16::try_from(e.type_id()).map_err(|_| bad())?;
            let start = usize::try_from(e.start()).map_err(|_| bad())?;
            let num = usize::try_from(e.num()).map_err(|_| bad())?;
            if start.checked_add(num).is_none_or(|end| end > num_items) {
                return Err(bad());
            }
            item_types.push(ItemType {
                type_id,
                start,
                num,
            });
        }
        {
            let mut by_start: Vec<&ItemType> = item_types.iter().collect();
            by_start.sort_by_key(|t| (t.start, t.type_id));
            let mut seen = std::collections::HashSet::with_capacity(item_types.len());
            let mut next_free = 0;
            for t in by_start {
                if t.start < next_free || !seen.insert(t.type_id) {
                    let idx = item_types.iter().position(|x| x == t).unwrap_or(0);
                    return Err(Error::new(
                        ErrorKind::BadItemType,
                        Section::ItemTypes,
                        types_start + 12 * idx,
                    ));
                }
                next_free = t.start + t.num;
            }
        }

        // Items: offsets increasing and inside the item section; each item's
        // header and data inside its slot.
        let item_offsets = LeI32s::new(&bytes[item_offsets_start..data_offsets_start]);
        let mut items = Vec::with_capacity(num_items);
        let mut prev_end = 0usize;
        for i in 0..num_items {
            let table_off = item_offsets_start + 4 * i;
            let bad_off = || Error::new(ErrorKind::BadItemOffset, Section::ItemOffsets, table_off);
            let rel = usize::try_from(item_offsets.get(i).unwrap_or(-1)).map_err(|_| bad_off())?;
            if rel < prev_end || rel.checked_add(8).is_none_or(|e| e > item_size) {
                return Err(bad_off());
            }
            if rel > prev_end && i > 0 {
                warn(
                    WarningKind::ItemGap,
                    Section::Item(i as u32 - 1),
                    items_start + prev_end,
                );
            }
            let slot_end = if i + 1 < num_items {
                usize::try_from(item_offsets.get(i + 1).unwrap_or(-1))
                    .ok()
                    .filter(|&n| n >= rel + 8 && n <= item_size)
                    .ok_or_else(|| {
                        Error::new(
                            ErrorKind::BadItemOffset,
                            Section::ItemOffsets,
                            table_off + 4,
                        )
                    })?
            } else {
                item_size
            };
            let abs = items_start + rel;
            let header = ItemHeader::new(LeI32s::new(&bytes[abs..abs + 8]), abs);
            let key = header.key() as u32;
            let len = usize::try_from(header.size())
                .ok()
                .filter(|&l| l % 4 == 0 && rel + 8 + l <= slot_end)
                .ok_or_else(|| {
                    Error::new(
                        ErrorKind::BadItemSize,
                        Section::Item(i as u32),
                        header.offset_of(ItemHeader::SIZE),
                    )
                })?;
            prev_end = rel + 8 + len;
            items.push(ItemSlot {
                type_id: (key >> 16) as u16,
                id: key as u16,
                start: (abs + 8) as u32,
                len: len as u32,
            });
        }
        if prev_end < item_size && num_items > 0 {
            warn(
                WarningKind::ItemGap,
                Section::Item(num_items as u32 - 1),
                items_start + prev_end,
            );
        }
        for t in &item_types {
            for (k, slot) in items[t.start..t.start + t.num].iter().enumerate() {
                if slot.type_id != t.type_id {
                    let idx = t.start + k;
                    return Err(Error::new(
                        ErrorKind::ItemTypeMismatch,
                        Section::Item(idx as u32),
                        slot.start as usize - 8,
                    ));
                }
            }
        }

        // Data offsets: non-decreasing, inside the data section.
        let data_offsets = LeI32s::new(&bytes[data_offsets_start..data_sizes_start]);
        let mut prev = 0usize;
        for i in 0..num_data {
            let off = data_offsets.get(i).and_then(|v| usize::try_from(v).ok());
            match off {
                Some(o) if o >= prev && o <= data_size => prev = o,
                _ => {
                    return Err(Error::new(
                        ErrorKind::BadDataOffset,
                        Section::DataOffsets,
                        data_offsets_start + 4 * i,
                    ))
                }
            }
        }
        let data_sizes = v4.then(|| LeI32s::new(&bytes[data_sizes_start..items_start]));
        if let Some(sizes) = data_sizes {
            for (i, s) in sizes.iter().enumerate() {
                if s < 0 {
                    return Err(Error::new(
                        ErrorKind::BadDataSize,
                        Section::DataSizes,
                        data_sizes_start + 4 * i,
                    ));
                }
            }
        }

        Ok(Datafile {
            bytes,
            layout: l,
            item_types,
            items,
            data_offsets,
            data_sizes,
        })
    }

    /// The whole file.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// What the header declares (as [`Datafile::layout`] reads it).
    pub fn header(&self) -> &Layout {
        &self.layout
    }
    pub fn version(&self) -> Version {
        self.layout.version
    }
    /// Whether the magic was the byte-reversed `ATAD`.
    pub fn magic_reversed(&self) -> bool {
        self.layout.magic_reversed
    }
    pub fn item_types(&self) -> &[ItemType] {
        &self.item_types
    }
    pub fn num_items(&self) -> usize {
        self.items.len()
    }
    pub fn num_data(&self) -> usize {
        self.data_offsets.len()
    }
    /// Total compressed (as stored) bytes of the data section.
    pub fn data_section_len(&self) -> usize {
        self.layout.data_size
    }

    /// The item with index `index`.
    pub fn item(&self, index: usize) -> Option<Item<'a>> {
        let s = self.items.get(index)?;
        let start = s.start as usize;
        Some(Item {
            index,
            type_id: s.type_id,
            id: s.id,
            data: LeI32s::new(&self.bytes[start..start + s.len as usize]),
            offset: start - 8,
        })
    }

    /// All items in table order.
    pub fn items(&self) -> impl ExactSizeIterator<Item = Item<'a>> + '_ {
        (0..self.items.len()).map(move |i| self.item(i).expect("index in range"))
    }

    /// The items of type `type_id`, in table order (empty if the type is absent).
    pub fn items_of_type(
        &self,
        type_id: ItemTypeId,
    ) -> impl ExactSizeIterator<Item = Item<'a>> + '_ {
        let range = self
            .item_types
            .iter()
            .find(|t| t.type_id == type_id)
            .map_or(0..0, |t| t.start..t.start + t.num);
        range.map(move |i| self.item(i).expect("validated range"))
    }

    /// The item of type `type_id` with id `id`.
    pub fn find_item(&self, type_id: ItemTypeId, id: u16) -> Option<Item<'a>> {
        self.items_of_type(type_id).find(|it| it.id == id)
    }

    /// Byte range of data block `index` in the file (compressed for v4).
    pub fn data_range(&self, index: usize) -> Option<std::ops::Range<usize>> {
        let start = self.data_offsets.get(index)? as usize;
        let end = match self.data_offsets.get(index + 1) {
            Some(e) => e as usize,
            None => self.layout.data_size,
        };
        let data_start = self.layout.data_start;
        Some(data_start + start..data_start + end)
    }

    /// The stored bytes of data block `index` (zlib for v4, raw for v3).
    pub fn data_raw(&self, index: usize) -> Option<&'a [u8]> {
        self.data_range(index).map(|r| &self.bytes[r])
    }

    /// The uncompressed size of block `index`: the v4 size table, or the
    /// stored size for v3.
    pub fn data_size(&self, index: usize) -> Option<usize> {
        match self.data_sizes {
            Some(sizes) => sizes.get(index).map(|s| s as usize),
            None => self.data_range(index).map(|r| r.len()),
        }
    }

    /// Total uncompressed bytes of all data blocks, as the tables claim.
    pub fn data_size_total(&self) -> u64 {
        (0..self.num_data())
            .map(|i| self.data_size(i).unwrap_or(0) as u64)
            .sum()
    }

    /// The stored bytes of data block `index`, its section and its file
    /// offset (`no_such_data` for an index past the table).
    fn stored_block(&self, index: usize) -> Result<(&'a [u8], Section, usize), Error> {
        let section = Section::Data(index as u32);
        let range = self
            .data_range(index)
            .ok_or_else(|| Error::new(ErrorKind::NoSuchData, section, self.layout.data_start))?;
        let at = range.start;
        Ok((&self.bytes[range], section, at))
    }

    /// Decompresses data block `index` into `out` (cleared first).
    ///
    /// v4 blocks inflate into a buffer sized exactly from the size table
    /// (after checking it against the limit and against the most zlib can
    /// produce from the stored bytes); v3 blocks are copied.
    pub fn decompress(
        &self,
        index: usize,
        inflater: &mut Inflater,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (raw, section, at) = self.stored_block(index)?;
        match self.layout.version {
            Version::V3 => inflater.copy_raw(raw, out, section, at)?,
            Version::V4 | Version::V4Crude => {
                let expected = self.data_size(index).unwrap_or(0);
                inflater.inflate_exact(raw, expected, out, section, at)?
            }
        }
        Ok(())
    }

    /// Decompresses data block `index` and returns its bytes, checked and
    /// charged as by [`Datafile::decompress`]: a v3 block in place, a v4
    /// block inflated into the inflater's own buffer (see
    /// [`Inflater::inflate_block`]), valid until its next use. For passes
    /// over every block.
    pub fn decompress_block<'s>(
        &'s self,
        index: usize,
        inflater: &'s mut Inflater,
    ) -> Result<&'s [u8], Error> {
        let (raw, section, at) = self.stored_block(index)?;
        match self.layout.version {
            Version::V3 => {
                inflater.charge_stored(raw.len(), section, at)?;
                Ok(raw)
            }
            Version::V4 | Version::V4Crude => {
                let expected = self.data_size(index).unwrap_or(0);
                inflater.inflate_block(raw, expected, section, at)
            }
        }
    }

    /// Decompresses at most the first `max` bytes of data block `index`
    /// into `out` (all of a block of at most `max` bytes, checked as by
    /// [`Datafile::decompress`]); only those bytes count against the budget.
    pub fn decompress_prefix(
        &self,
        index: usize,
        max: usize,
        inflater: &mut Inflater,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (raw, section, at) = self.stored_block(index)?;
        match self.layout.version {
            Version::V3 => {
                let raw = &raw[..raw.len().min(max)];
                inflater.copy_raw(raw, out, section, at)
            }
            Version::V4 | Version::V4Crude => {
                let expected = self.data_size(index).unwrap_or(0);
                inflater.inflate_prefix(raw, expected, max, out, section, at)
            }
        }
    }

    /// Decompresses data block `index` piece by piece (pieces of `piece`
    /// bytes, the last one shorter) into `f`, allocating only one piece:
    /// for statistics that read a large block once. Checked and charged as
    /// by [`Datafile::decompress`].
    pub fn decompress_pieces(
        &self,
        index: usize,
        piece: usize,
        inflater: &mut Inflater,
        mut f: impl FnMut(&[u8]),
    ) -> Result<(), Error> {
        let (raw, section, at) = self.stored_block(index)?;
        match self.layout.version {
            Version::V3 => {
                inflater.charge_stored(raw.len(), section, at)?;
                for p in raw.chunks(piece.max(1)) {
                    f(p);
                }
            }
            Version::V4 | Version::V4Crude => {
                let expected = self.data_size(index).unwrap_or(0);
                inflater.inflate_pieces(raw, expected, piece, section, at, &mut f)?;
            }
        }
        Ok(())
    }

    /// Decompresses data block `index` into a new buffer.
    pub fn data(&self, index: usize, inflater: &mut Inflater) -> Result<Vec<u8>, Error> {
        let mut v = Vec::new();
        self.decompress(index, inflater, &mut v)?;
        Ok(v)
    }
}
