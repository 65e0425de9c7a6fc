//! Hostile input: crafted files that try to make the parsers allocate
//! without bound, loop forever or crash, each checked for the exact error
//! (kind, section or chunk, byte offset) it must produce; a batch run over
//! every real file plus hundreds of corrupted copies; files that shrink
//! between listing and loading.
//!
//! How the crafted files are made:
//!
//! - **Datafiles** are hand-assembled ([`RawDatafile`]): the crate's
//!   `DatafileWriter` only writes valid tables.
//! - **Demos** start with the crate's `DemoWriter` (header, valid tick
//!   markers, snapshots it accepts); what it refuses is appended by hand
//!   after `finish_vec`: tick markers that go backwards or out of range
//!   (`TickBackwards` / `NegativeTick`), raw Huffman payloads (it only
//!   compresses what it varint-packed itself), overlong varints (it packs
//!   minimal forms), deltas that would make a snapshot of more than 1024
//!   items (`Snapshot::push` refuses them before the writer is reached).
//!   Header fields it never writes (`map_size` 2^31 - 1 or negative, 65
//!   timeline markers) are patched into its output.

use std::io::{Cursor, Write};
use std::path::{Path, PathBuf};

use crate::common::{records, teebatch};
use serde_json::Value;
use teebatch::backend::Backend;
use teebatch::batch::{self, MmapMode};
use teebatch::codec::huffman::{self, HuffmanErrorKind};
use teebatch::codec::kernels::Kernels;
use teebatch::codec::snapshot::{self, item_key, Protocol, Snapshot};
use teebatch::codec::varint::{self, VarintErrorKind, VarintWarningKind};
use teebatch::datafile::{self, Datafile, ErrorKind, Inflater, Section};
use teebatch::demo::stream::{
    segments, Decoder, Event, StreamError, StreamErrorKind, StreamWarningKind,
};
use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter, WriteErrorKind};
use teebatch::demo::{self, Demo, DemoErrorKind};
use teebatch::limits::Limits;
use teebatch::synth::Rng;
use teebatch::warn::{Discard, Warnings};

use crate::common;

// ---------------------------------------------------------------------------
// Datafiles
// ---------------------------------------------------------------------------

/// A version-4 datafile assembled field by field; `counts` overrides the
/// five header counts (item types, items, data, item bytes, data bytes).
#[derive(Clone, Debug)]
struct RawDatafile {
    types: Vec<[i32; 3]>,
    item_offsets: Vec<i32>,
    data_offsets: Vec<i32>,
    data_sizes: Vec<i32>,
    items: Vec<u8>,
    data: Vec<u8>,
    counts: Option<[i32; 5]>,
}

/// Byte offsets of the tables of a [`RawDatafile`] with these counts.
#[derive(Clone, Copy, Debug)]
struct Layout {
    types: usize,
    item_offsets: usize,
    data_offsets: usize,
    data_sizes: usize,
    items: usize,
    data: usize,
}

fn item_bytes(type_id: u16, id: u16, data: &[i32]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&((i32::from(type_id) << 16) | i32::from(id)).to_le_bytes());
    v.extend_from_slice(&(4 * data.len() as i32).to_le_bytes());
    for d in data {
        v.extend_from_slice(&d.to_le_bytes());
    }
    v
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

impl RawDatafile {
    /// Type 1 with two items (ids 0 and 1, one int each) and one data block
    /// holding `block` (zlib) that claims `claimed` uncompressed bytes.
    fn with_block(block: Vec<u8>, claimed: i32) -> RawDatafile {
        let mut items = item_bytes(1, 0, &[7]);
        items.extend(item_bytes(1, 1, &[8]));
        RawDatafile {
            types: vec![[1, 0, 2]],
            item_offsets: vec![0, 12],
            data_offsets: vec![0],
            data_sizes: vec![claimed],
            items,
            data: block,
            counts: None,
        }
    }

    fn base() -> RawDatafile {
        RawDatafile::with_block(zlib(b"hello, world"), 12)
    }

    fn layout(&self) -> Layout {
        let types = 36;
        let item_offsets = types + 12 * self.types.len();
        let data_offsets = item_offsets + 4 * self.item_offsets.len();
        let data_sizes = data_offsets + 4 * self.data_offsets.len();
        let items = data_sizes + 4 * self.data_sizes.len();
        let data = items + self.items.len();
        Layout {
            types,
            item_offsets,
            data_offsets,
            data_sizes,
            items,
            data,
        }
    }

    fn encode(&self) -> Vec<u8> {
        let counts = self.counts.unwrap_or([
            self.types.len() as i32,
            self.item_offsets.len() as i32,
            self.data_offsets.len() as i32,
            self.items.len() as i32,
            self.data.len() as i32,
        ]);
        let l = self.layout();
        let end = l.data + self.data.len();
        let mut v = b"DATA".to_vec();
        for x in [4, (end - 16) as i32, (l.data - 16) as i32] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        for x in counts {
            v.extend_from_slice(&x.to_le_bytes());
        }
        for t in &self.types {
            for x in t {
                v.extend_from_slice(&x.to_le_bytes());
            }
        }
        for x in self
            .item_offsets
            .iter()
            .chain(&self.data_offsets)
            .chain(&self.data_sizes)
        {
            v.extend_from_slice(&x.to_le_bytes());
        }
        v.extend_from_slice(&self.items);
        v.extend_from_slice(&self.data);
        assert_eq!(v.len(), end);
        v
    }
}

fn parse_err(bytes: &[u8]) -> (ErrorKind, Section, u64) {
    let e = Datafile::parse(bytes).expect_err("must not parse");
    (e.kind, e.section, e.offset)
}

/// Decompresses block 0 under `limit`; the error and the capacity the output
/// buffer reached (0: nothing was allocated).
fn decompress_err(bytes: &[u8], limit: u64) -> (ErrorKind, Section, u64, usize) {
    let df = Datafile::parse(bytes).expect("tables are valid");
    let mut inflater = Inflater::new(datafile::InflateLimits {
        max_decompressed_bytes: limit,
    });
    let mut out = Vec::new();
    let e = df
        .decompress(0, &mut inflater, &mut out)
        .expect_err("must not decompress");
    (e.kind, e.section, e.offset, out.capacity())
}

#[test]
fn datafile_base_is_valid() {
    let raw = RawDatafile::base();
    let bytes = raw.encode();
    let mut warnings = Vec::new();
    let df = Datafile::parse_observed(&bytes, &mut warnings).unwrap();
    assert_eq!((df.num_items(), df.num_data()), (2, 1));
    assert!(warnings.is_empty(), "{:?}", warnings);
    let mut inf = Inflater::default();
    assert_eq!(df.data(0, &mut inf).unwrap(), b"hello, world");
    assert_eq!(raw.layout().data, 88);
}

/// A ~1 KB zlib block claiming 4 GiB: the size field is an `i32`, so 4 GiB
/// itself can only be written as 0 (2^32 mod 2^32) or read back negative
/// (0xffff_ffff); the largest positive claim is 2^31 - 1. None allocates.
#[test]
fn datafile_size_claims_beyond_zlib_ratio() {
    // 1 KB of incompressible bytes: the block is ~1 KB.
    let mut rng = Rng::new(0x1234_5678);
    let noise: Vec<u8> = (0..1024).map(|_| rng.next_u64() as u8).collect();
    let block = zlib(&noise);
    assert!((1024..1100).contains(&block.len()), "{}", block.len());

    // 0xffff_ffff: refused by the table check.
    let raw = RawDatafile::with_block(block.clone(), -1);
    let at = raw.layout().data_sizes as u64;
    assert_eq!(
        parse_err(&raw.encode()),
        (ErrorKind::BadDataSize, Section::DataSizes, at)
    );

    // 2^31 - 1: more than 1032:1 from ~1 KB, refused before the budget is
    // even consulted (no limit at all here) and before allocating.
    let raw = RawDatafile::with_block(block.clone(), i32::MAX);
    let at = raw.layout().data as u64;
    assert_eq!(
        decompress_err(&raw.encode(), u64::MAX),
        (ErrorKind::BadDataSize, Section::Data(0), at, 0)
    );
    // The same under the default limit (1 GiB).
    assert_eq!(
        decompress_err(&raw.encode(), Limits::default().max_decompressed_bytes),
        (ErrorKind::BadDataSize, Section::Data(0), at, 0)
    );

    // 4 GiB written as 0: the block inflates to more than 0 bytes.
    let raw = RawDatafile::with_block(block.clone(), 0);
    let (kind, section, off, _) = decompress_err(&raw.encode(), u64::MAX);
    assert_eq!(
        (kind, section, off),
        (ErrorKind::DataSizeMismatch, Section::Data(0), at)
    );

    // A claim zlib could meet (1 MiB from 1 KB) but over a 64 KiB budget:
    // the budget refuses it, still before allocating.
    let raw = RawDatafile::with_block(block, 1 << 20);
    assert_eq!(
        decompress_err(&raw.encode(), 64 << 10),
        (ErrorKind::LimitExceeded, Section::Data(0), at, 0)
    );
}

/// A real bomb: 64 MiB of zeros in ~64 KB of zlib.
#[test]
fn datafile_zlib_bomb_under_limit() {
    let bomb = zlib(&vec![0u8; 64 << 20]);
    assert!(bomb.len() < 100_000, "{}", bomb.len());
    let raw = RawDatafile::with_block(bomb, 64 << 20);
    let bytes = raw.encode();
    let at = raw.layout().data as u64;
    assert_eq!(
        decompress_err(&bytes, 16 << 20),
        (ErrorKind::LimitExceeded, Section::Data(0), at, 0)
    );
    // It is a real bomb: under the default limit it inflates in full.
    let df = Datafile::parse(&bytes).unwrap();
    let mut inf = Inflater::new(Limits::default().datafile());
    let out = df.data(0, &mut inf).unwrap();
    assert_eq!(out.len(), 64 << 20);
    assert!(out.iter().all(|&b| b == 0));
    // The budget is per file and cumulative: a second pass over the same
    // block without `start_file` is refused.
    let mut inf = Inflater::new(datafile::InflateLimits {
        max_decompressed_bytes: 100 << 20,
    });
    df.data(0, &mut inf).unwrap();
    let e = df.data(0, &mut inf).unwrap_err();
    assert_eq!(
        (e.kind, e.section, e.offset),
        (ErrorKind::LimitExceeded, Section::Data(0), at)
    );
    inf.start_file();
    df.data(0, &mut inf).unwrap();
}

#[test]
fn datafile_counts_out_of_range() {
    let base = RawDatafile::base();
    let len = base.encode().len() as u64;
    let with_count = |i: usize, v: i32| {
        let mut r = base.clone();
        let mut c = [1, 2, 1, 24, r.data.len() as i32];
        c[i] = v;
        r.counts = Some(c);
        r.encode()
    };
    // 2^31 - 1 of anything: the tables cannot fit in the file. A huge item
    // section ends in the last item's slot (item 1 of 2); a huge data
    // section in the only block's.
    let huge = [
        Section::ItemTypes,
        Section::ItemOffsets,
        Section::DataOffsets,
        Section::Item(1),
        Section::Data(0),
    ];
    for (i, section) in huge.into_iter().enumerate() {
        assert_eq!(
            parse_err(&with_count(i, i32::MAX)),
            (ErrorKind::Truncated, section, len),
            "count {i}"
        );
        assert_eq!(
            parse_err(&with_count(i, -1)),
            (ErrorKind::NegativeCount, Section::Header, 16 + 4 * i as u64),
            "count {i}"
        );
        assert_eq!(
            parse_err(&with_count(i, i32::MIN)),
            (ErrorKind::NegativeCount, Section::Header, 16 + 4 * i as u64),
            "count {i}"
        );
    }
    // An item type claiming 2^31 - 1 items, or a negative number.
    for num in [i32::MAX, -1] {
        let mut r = base.clone();
        r.types[0][2] = num;
        assert_eq!(
            parse_err(&r.encode()),
            (ErrorKind::BadItemType, Section::ItemTypes, 36)
        );
    }
    // A start so large that start + num overflows i32.
    let mut r = base.clone();
    r.types[0] = [1, i32::MAX, 2];
    assert_eq!(
        parse_err(&r.encode()),
        (ErrorKind::BadItemType, Section::ItemTypes, 36)
    );
}

#[test]
fn datafile_offsets_outside_or_backwards() {
    let base = RawDatafile::base();
    let l = base.layout();
    let (io, dof) = (l.item_offsets as u64, l.data_offsets as u64);
    // Item offsets: past the item section, negative, backwards, overlapping
    // the previous item; each names the offending table entry.
    for (offsets, at) in [
        ([0, 1000], io + 4),
        ([0, -12], io + 4),
        ([0, 4], io + 4),
        ([12, 0], io + 4),
        ([1000, 1012], io),
        ([-1, 12], io),
        ([i32::MAX, 12], io),
    ] {
        let mut r = base.clone();
        r.item_offsets = offsets.to_vec();
        assert_eq!(
            parse_err(&r.encode()),
            (ErrorKind::BadItemOffset, Section::ItemOffsets, at),
            "{offsets:?}"
        );
    }
    // An item whose size runs past its slot (into the next item).
    let mut r = base.clone();
    r.items[4..8].copy_from_slice(&8i32.to_le_bytes());
    assert_eq!(
        parse_err(&r.encode()),
        (ErrorKind::BadItemSize, Section::Item(0), l.items as u64 + 4)
    );
    // Data offsets: past the data section, negative.
    for off in [1000, -1, i32::MAX] {
        let mut r = base.clone();
        r.data_offsets = vec![off];
        assert_eq!(
            parse_err(&r.encode()),
            (ErrorKind::BadDataOffset, Section::DataOffsets, dof),
            "{off}"
        );
    }
    // Backwards: two blocks, the second before the first.
    let mut r = base.clone();
    let first = r.data.clone();
    r.data.extend(zlib(b"second"));
    r.data_offsets = vec![first.len() as i32, 0];
    r.data_sizes = vec![12, 6];
    let l2 = r.layout();
    assert_eq!(
        parse_err(&r.encode()),
        (
            ErrorKind::BadDataOffset,
            Section::DataOffsets,
            l2.data_offsets as u64 + 4
        )
    );
}

#[test]
fn datafile_item_types_overlapping() {
    let mut base = RawDatafile::base();
    base.items = item_bytes(1, 0, &[7]);
    base.items.extend(item_bytes(2, 0, &[8]));
    base.types = vec![[1, 0, 1], [2, 1, 1]];
    let bytes = base.encode();
    assert_eq!(Datafile::parse(&bytes).unwrap().item_types().len(), 2);
    let t0 = base.layout().types as u64;
    let t1 = t0 + 12;
    for (types, at) in [
        // The second range starts inside the first.
        (vec![[1, 0, 2], [2, 1, 1]], t1),
        // Same range twice.
        (vec![[1, 0, 2], [2, 0, 2]], t1),
        // The same type id twice.
        (vec![[1, 0, 1], [1, 1, 1]], t1),
        // Type ids outside 0..=0xffff.
        (vec![[0x1_0000, 0, 1], [2, 1, 1]], t0),
        (vec![[-1, 0, 1], [2, 1, 1]], t0),
    ] {
        let mut r = base.clone();
        r.types = types.clone();
        assert_eq!(
            parse_err(&r.encode()),
            (ErrorKind::BadItemType, Section::ItemTypes, at),
            "{types:?}"
        );
    }
    // Ranges that do not overlap but disagree with the items' own types.
    let mut r = base.clone();
    r.types = vec![[2, 0, 1], [1, 1, 1]];
    let items = r.layout().items as u64;
    assert_eq!(
        parse_err(&r.encode()),
        (ErrorKind::ItemTypeMismatch, Section::Item(0), items)
    );
}

/// 5000 items each followed by 4 unused bytes: one `item_gap` warning per
/// item without a limit; a sink capped at `MAX_WARNINGS` keeps those plus
/// one marker and counts them all.
#[test]
fn datafile_warnings_are_bounded() {
    let n = 5000;
    let mut r = RawDatafile::base();
    r.types = vec![[1, 0, n]];
    r.items.clear();
    r.item_offsets.clear();
    for id in 0..n {
        r.item_offsets.push(r.items.len() as i32);
        r.items.extend(item_bytes(1, id as u16, &[id]));
        r.items.extend([0; 4]);
    }
    let bytes = r.encode();
    let mut w = Warnings::new(datafile::MAX_WARNINGS);
    let df = Datafile::parse_observed(&bytes, &mut w).unwrap();
    assert_eq!(df.num_items(), n as usize);
    assert_eq!(w.len(), datafile::MAX_WARNINGS + 1);
    assert_eq!(w.total(), n as u64);
    assert!(w[..1024]
        .iter()
        .all(|w| w.kind == datafile::WarningKind::ItemGap));
    let items = r.layout().items as u64;
    assert_eq!(
        (w[1024].kind, w[1024].section, w[1024].offset),
        (
            datafile::WarningKind::TooManyWarnings,
            Section::Item(1024),
            items + 1024 * 16 + 12
        )
    );
}

/// A map of 3000 images without names: one `missing_name` warning each,
/// kept by a sink capped at `map::MAX_WARNINGS` plus one marker.
#[test]
fn map_warnings_are_bounded() {
    use teebatch::datafile::DatafileWriter;
    use teebatch::map::{self, Map, MapSection, MapWarningKind};
    let n = 3000;
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_item(1, 0, &[1, -1, -1, -1, -1]);
    // One group with a 4 x 4 game layer; names are empty strings.
    let empty_name = [
        0x8080_8080u32 as i32,
        0x8080_8080u32 as i32,
        0x8080_8000u32 as i32,
    ];
    let mut group = vec![3, 0, 0, 100, 100, 0, 1, 0, 0, 0, 0, 0];
    group.extend(empty_name);
    w.add_item(4, 0, &group);
    let tiles = w.add_data(&[0; 4 * 4 * 4]) as i32;
    let mut layer = vec![0, 2, 0, 3, 4, 4, 1, 255, 255, 255, 255, -1, 0, -1, tiles];
    layer.extend(empty_name);
    layer.extend([-1; 5]);
    w.add_item(5, 0, &layer);
    for id in 0..n {
        // Version 1, 1 x 1, external, no name, no data.
        w.add_item(2, id, &[1, 1, 1, 1, -1, -1]);
    }
    let bytes = w.write();
    let df = Datafile::parse(&bytes).unwrap();
    let mut warnings = Warnings::new(map::MAX_WARNINGS);
    let map = Map::parse(
        &df,
        &mut Inflater::default(),
        &mut Vec::new(),
        &mut warnings,
    )
    .unwrap()
    .unwrap();
    assert_eq!(map.images.len(), n as usize);
    assert_eq!(warnings.total(), n as u64);
    assert_eq!(warnings.len(), map::MAX_WARNINGS + 1);
    assert!(warnings[..map::MAX_WARNINGS]
        .iter()
        .all(|w| w.kind == MapWarningKind::MissingName));
    let last = warnings[map::MAX_WARNINGS];
    assert_eq!(last.kind, MapWarningKind::TooManyWarnings);
    // It stands for image 1024's warning (the 1025th).
    assert_eq!(last.section, MapSection::Image(1024));
    assert_eq!(
        last.offset,
        df.items_of_type(2).nth(1024).unwrap().offset as u64 + 8 + 16
    );
}

// ---------------------------------------------------------------------------
// Demos
// ---------------------------------------------------------------------------

const DATA_SNAPSHOT: u8 = 1;
const DATA_MESSAGE: u8 = 2;
const DATA_DELTA: u8 = 3;
/// An item type with no pre-agreed size in 0.6: deltas carry its size.
const FREE_TYPE: u16 = 100;

/// A version-6, protocol-0.6 demo written by `DemoWriter`: `f` writes the
/// chunks it accepts; hand-made chunks are appended to the result.
fn writer_demo(f: impl FnOnce(&mut DemoWriter<Cursor<Vec<u8>>>)) -> Vec<u8> {
    let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "hostile", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    f(&mut w);
    w.finish_vec().unwrap()
}

/// Tick 100 (keyframe) with an empty full snapshot.
fn keyframe_100(w: &mut DemoWriter<Cursor<Vec<u8>>>) {
    w.tick(100, true).unwrap();
    w.full_snapshot(&Snapshot::new()).unwrap();
}

/// Appends a data chunk with this raw (already Huffman-coded) payload.
fn raw_chunk(d: &mut Vec<u8>, chunk_type: u8, payload: &[u8]) -> usize {
    let at = d.len();
    let head = chunk_type << 5;
    match payload.len() {
        n @ 0..=29 => d.push(head | n as u8),
        n @ 30..=255 => d.extend_from_slice(&[head | 30, n as u8]),
        n => {
            d.push(head | 31);
            d.extend_from_slice(&u16::try_from(n).unwrap().to_le_bytes());
        }
    }
    d.extend_from_slice(payload);
    at
}

/// Appends a data chunk of `ints`, varint-packed and Huffman-coded.
fn ints_chunk(d: &mut Vec<u8>, chunk_type: u8, ints: &[i32]) -> usize {
    let mut packed = Vec::new();
    varint::pack(ints, &mut packed);
    let mut payload = Vec::new();
    huffman::compress(&packed, &mut payload);
    raw_chunk(d, chunk_type, &payload)
}

/// Appends an absolute tick marker (versions 5/6 layout).
fn raw_tick(d: &mut Vec<u8>, tick: i32, keyframe: bool) -> usize {
    let at = d.len();
    d.push(0x80 | if keyframe { 0x40 } else { 0 });
    d.extend_from_slice(&tick.to_be_bytes());
    at
}

/// Decodes `bytes` with a fresh decoder (limit `max_ticks` if given): the
/// events in short form and the error.
fn stream(bytes: &[u8], max_ticks: Option<u64>) -> (Vec<String>, Option<StreamError>) {
    let demo = Demo::parse(bytes).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    if let Some(m) = max_ticks {
        dec.set_max_ticks(m);
    }
    let mut s = dec.stream(&demo, Discard);
    let mut events = Vec::new();
    let err = loop {
        match s.next_event() {
            None => break None,
            Some(Err(e)) => break Some(e),
            Some(Ok(ev)) => events.push(match ev {
                Event::Tick(t) => format!("T{}", t.tick),
                Event::Snapshot(e) => {
                    format!("{}{} n{}", e.kind.letter(), e.tick, e.snapshot.len())
                }
                Event::Message(m) => format!("M{} {}", m.tick, m.bytes.len()),
                Event::Unknown(u) => format!("U{}", u.tick),
            }),
        }
    };
    assert!(s.next_event().is_none(), "events after the end");
    (events, err)
}

fn err_of(e: Option<StreamError>) -> (StreamErrorKind, usize, usize, usize) {
    let e = e.expect("stream must fail");
    (e.kind, e.chunk, e.offset, e.inner_offset)
}

/// A crafted demo and the record error `demos index` must give it: (file
/// name, bytes, stage, kind, section, offset).
type CraftedDemo = (&'static str, Vec<u8>, &'static str, String, String, u64);

/// Every crafted demo of this file.
fn crafted_demos() -> Vec<CraftedDemo> {
    let mut v = Vec::new();
    for (name, byte) in [("huffman_zeros", 0x00u8), ("huffman_ones", 0xff)] {
        let (d, at, _) = huffman_no_eof(byte, 1000);
        v.push((
            name,
            d,
            "stream",
            "huffman.missing_eof".to_string(),
            "chunk 2".to_string(),
            at as u64,
        ));
    }
    let (d, at) = varint_payload(65536);
    v.push((
        "varint_continuation",
        d,
        "stream",
        "varint.unexpected_end".into(),
        "chunk 2".into(),
        at as u64,
    ));
    let (d, at) = delta_1024_items_per_tick();
    v.push((
        "delta_bomb",
        d,
        "stream",
        "snapshot.too_many_items".into(),
        "chunk 5".into(),
        at as u64,
    ));
    let (d, at) = tick_demo(50);
    v.push((
        "tick_backwards",
        d,
        "stream",
        "tick_not_increasing".into(),
        "chunk 2".into(),
        at as u64,
    ));
    let (d, at) = tick_demo(i32::MAX);
    v.push((
        "tick_jump",
        d,
        "stream",
        "tick_out_of_range".into(),
        "chunk 2".into(),
        at as u64,
    ));
    let plain = writer_demo(keyframe_100);
    for (name, value, kind, section, offset) in [
        (
            "map_size_max",
            i32::MAX,
            "unexpected_end",
            "map",
            plain.len(),
        ),
        ("map_size_negative", -1, "negative_map_size", "header", 136),
    ] {
        let mut d = plain.clone();
        d[136..140].copy_from_slice(&value.to_be_bytes());
        v.push((name, d, "demo", kind.into(), section.into(), offset as u64));
    }
    for (name, value) in [("markers_65", 65), ("markers_negative", -1)] {
        let mut d = plain.clone();
        d[176..180].copy_from_slice(&i32::to_be_bytes(value));
        v.push((
            name,
            d,
            "demo",
            "timeline_marker_count".into(),
            "timeline markers".into(),
            176,
        ));
    }
    v
}

/// A message chunk whose Huffman payload is `len` bytes of `byte`, after a
/// keyframe: (demo, offset of that chunk, the Huffman error on its own).
fn huffman_no_eof(byte: u8, len: usize) -> (Vec<u8>, usize, huffman::HuffmanError) {
    let mut d = writer_demo(keyframe_100);
    let payload = vec![byte; len];
    let at = raw_chunk(&mut d, DATA_MESSAGE, &payload);
    let mut out = vec![0; Limits::MAX_CHUNK_PAYLOAD];
    let e = huffman::decompress(&payload, &mut out).unwrap_err();
    (d, at, e)
}

#[test]
fn huffman_payload_without_eof() {
    for byte in [0x00u8, 0xff] {
        // 1000 bytes: the decoder runs to the end of the input, never to
        // EOF, and stops there.
        let (d, at, e) = huffman_no_eof(byte, 1000);
        assert_eq!((e.kind, e.offset), (HuffmanErrorKind::MissingEof, 1000));
        for backend in huffman::Tier::ALL.into_iter().filter(|t| t.available()) {
            let mut out = vec![0; Limits::MAX_CHUNK_PAYLOAD];
            let payload = &d[at + 3..];
            let eb = huffman::decompress_tier(backend, payload, &mut out).unwrap_err();
            assert_eq!(eb, e, "{backend:?}");
        }
        let (events, err) = stream(&d, None);
        // The snapshot stays reported; the tick it was in is unfinished.
        assert_eq!(events, ["S100 n0"], "{byte:#x}");
        assert_eq!(
            err_of(err),
            (
                StreamErrorKind::Huffman(HuffmanErrorKind::MissingEof),
                2,
                at,
                1000
            )
        );
    }
    // The longest payload a chunk can carry: 65535 zero bytes decode to
    // 0x80s until the 64 KiB buffer is full, then stop (output bounded).
    let (d, at, e) = huffman_no_eof(0x00, u16::MAX as usize);
    assert_eq!(e.kind, HuffmanErrorKind::OutputFull);
    let (_, err) = stream(&d, None);
    assert_eq!(
        err_of(err),
        (StreamErrorKind::PayloadTooLarge, 2, at, e.offset)
    );
}

/// A message chunk whose decoded payload is `n` continuation bytes.
fn varint_payload(n: usize) -> (Vec<u8>, usize) {
    let mut d = writer_demo(keyframe_100);
    let mut payload = Vec::new();
    huffman::compress(&vec![0x80; n], &mut payload);
    assert!(payload.len() <= u16::MAX as usize, "{}", payload.len());
    let at = raw_chunk(&mut d, DATA_MESSAGE, &payload);
    (d, at)
}

#[test]
fn varint_continuation_bytes() {
    // 10 MB of 0x80: every 5 bytes are one (overlong, padded) int, so the
    // output fills up long before the input ends; the error names the first
    // int that does not fit, and warnings stop there too.
    let input = vec![0x80u8; 10_000_000];
    for backend in [Backend::Oracle, Backend::Scalar, Backend::Simd] {
        let mut out = vec![0i32; Limits::MAX_CHUNK_PAYLOAD / 4];
        let mut warnings = Vec::new();
        let e = Kernels::new(backend)
            .unpack(&input, &mut out, &mut warnings)
            .unwrap_err();
        assert_eq!(
            (e.kind, e.offset),
            (VarintErrorKind::OutputFull, 5 * 16384),
            "{backend:?}"
        );
        assert_eq!(warnings.len(), 16384, "{backend:?}");
        assert!(warnings
            .iter()
            .all(|w| w.kind == VarintWarningKind::NonZeroPadding));
        assert!(out.iter().all(|&v| v == 0), "{backend:?}");
    }
    // Cut inside the last int: the error is at its first byte.
    let input = vec![0x80u8; 1003];
    let mut out = vec![0i32; 1000];
    let e = varint::unpack(&input, &mut out, &mut Vec::new()).unwrap_err();
    assert_eq!((e.kind, e.offset), (VarintErrorKind::UnexpectedEnd, 1000));

    // As a demo chunk: 64 KiB of 0x80 is 13107 ints and one byte, cut.
    let (d, at) = varint_payload(65536);
    let (events, err) = stream(&d, None);
    assert_eq!(events, ["S100 n0"]);
    assert_eq!(
        err_of(err),
        (
            StreamErrorKind::Varint(VarintErrorKind::UnexpectedEnd),
            2,
            at,
            65535
        )
    );
    // One byte more does not fit the 64 KiB chunk buffer: the Huffman stage
    // stops at the byte that would overflow it.
    let (d, at) = varint_payload(65537);
    let e = err_of(stream(&d, None).1);
    assert_eq!((e.0, e.1, e.2), (StreamErrorKind::PayloadTooLarge, 2, at));
}

/// Keyframe 100 with an empty snapshot; tick 101: a delta (by the writer)
/// adding 1024 items; tick 102: a hand-made delta adding 1024 more. Returns
/// the demo and the offset of the second delta chunk.
fn delta_1024_items_per_tick() -> (Vec<u8>, usize) {
    assert_eq!(Protocol::V06.static_size(u32::from(FREE_TYPE)), None);
    let mut snap = Snapshot::new();
    for id in 0..1024u16 {
        snap.push(item_key(FREE_TYPE, id), &[i32::from(id)])
            .unwrap();
    }
    // The snapshot cannot grow past the protocol limit even in memory.
    assert_eq!(
        snap.push(item_key(FREE_TYPE, 1024), &[0]).unwrap_err().kind,
        snapshot::ErrorKind::TooManyItems
    );
    let mut d = writer_demo(|w| {
        keyframe_100(w);
        w.tick(101, false).unwrap();
        w.delta_snapshot(&snap, false).unwrap();
    });
    raw_tick(&mut d, 102, false);
    let mut ints = vec![0, 1024, 0];
    for id in 1024..2048 {
        ints.extend_from_slice(&[i32::from(FREE_TYPE), id, 1, id]);
    }
    let at = ints_chunk(&mut d, DATA_DELTA, &ints);
    (d, at)
}

#[test]
fn delta_adding_1024_items_every_tick() {
    let (d, at) = delta_1024_items_per_tick();
    let (events, err) = stream(&d, None);
    // What came before stays: the first 1024 items were reconstructed.
    assert_eq!(events, ["S100 n0", "T100", "D101 n1024", "T101"]);
    // The first item delta (int 3) is the 1025th item.
    assert_eq!(
        err_of(err),
        (
            StreamErrorKind::Snapshot(snapshot::ErrorKind::TooManyItems),
            5,
            at,
            3
        )
    );
    // A full snapshot claiming 1025 items is refused the same way.
    let mut d = writer_demo(|w| w.tick(100, true).unwrap());
    let mut ints = vec![4 * 1025, 1025];
    ints.extend((0..1025).map(|i| 4 * i));
    ints.extend((0..1025).map(|i| item_key(FREE_TYPE, i as u16) as i32));
    let at = ints_chunk(&mut d, DATA_SNAPSHOT, &ints);
    assert_eq!(
        err_of(stream(&d, None).1),
        (
            StreamErrorKind::Snapshot(snapshot::ErrorKind::TooManyItems),
            1,
            at,
            1
        )
    );
}

/// Keyframe 100 then an absolute tick marker `next` (by hand: the writer
/// refuses ticks that go backwards or are negative).
fn tick_demo(next: i32) -> (Vec<u8>, usize) {
    let mut d = writer_demo(keyframe_100);
    let at = raw_tick(&mut d, next, false);
    (d, at)
}

#[test]
fn ticks_backwards_and_far_jumps() {
    let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "hostile", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    w.tick(100, true).unwrap();
    assert_eq!(
        w.tick(50, false).unwrap_err().kind,
        WriteErrorKind::TickBackwards
    );
    assert_eq!(
        w.tick(100i32.wrapping_add(i32::MIN), false)
            .unwrap_err()
            .kind,
        WriteErrorKind::NegativeTick
    );

    for (next, kind) in [
        (50, StreamErrorKind::TickNotIncreasing),
        (100, StreamErrorKind::TickNotIncreasing),
        // +2^31 wraps to a negative tick: it goes backwards.
        (
            100i32.wrapping_add(i32::MIN),
            StreamErrorKind::TickNotIncreasing,
        ),
        // +2^31 - 101: past DDNet's MAX_TICK.
        (i32::MAX, StreamErrorKind::TickOutOfRange),
        (0x6fff_ffff, StreamErrorKind::TickOutOfRange),
    ] {
        let (d, at) = tick_demo(next);
        let (events, err) = stream(&d, None);
        // The refused marker still completes tick 100.
        assert_eq!(events, ["S100 n0", "T100"], "{next}");
        assert_eq!(err_of(err), (kind, 2, at, 0), "{next}");
    }
    // The last valid tick, then an inline delta of 31 past the range.
    let mut d = writer_demo(|w| w.tick(0x6fff_fff0, true).unwrap());
    let at = d.len();
    d.push(0xa0 | 31);
    let (events, err) = stream(&d, None);
    assert_eq!(events, ["T1879048176"]);
    assert_eq!(err_of(err), (StreamErrorKind::TickOutOfRange, 1, at, 0));
}

#[test]
fn tick_limit() {
    // 20 tick markers; a limit of 10 stops at the 11th (chunk 10).
    let mut offsets = Vec::new();
    let d = writer_demo(|w| {
        for i in 0..20 {
            offsets.push(w.position() as usize);
            w.tick(100 + i, i == 0).unwrap();
        }
    });
    let (events, err) = stream(&d, Some(10));
    // Ten ticks complete: the 11th marker is refused, but it ends the
    // tenth tick (all of its chunks were read) before the error.
    assert_eq!(events.len(), 10);
    assert_eq!(events[9], "T109");
    assert_eq!(
        err_of(err),
        (StreamErrorKind::TooManyTicks, 10, offsets[10], 0)
    );
    // Exactly at the limit: no error.
    let (events, err) = stream(&d, Some(20));
    assert_eq!((events.len(), err), (20, None));
    // The default accepts a week of ticks.
    assert_eq!(Decoder::default().max_ticks(), 50 * 3600 * 24 * 7);

    // Segments count the tick markers before them: a demo with a keyframe
    // every 5 ticks, split at every keyframe, hits the limit at the same
    // chunk as the sequential pass, inside the segment that holds it.
    let d = writer_demo(|w| {
        for i in 0..40 {
            w.tick(100 + i, i % 5 == 0).unwrap();
            if i % 5 == 0 {
                w.full_snapshot(&Snapshot::new()).unwrap();
            }
        }
    });
    let demo = Demo::parse(&d).unwrap();
    let (_, seq) = stream(&d, Some(23));
    let seq = seq.unwrap();
    assert_eq!(seq.kind, StreamErrorKind::TooManyTicks);
    let segs = segments(&demo, 100);
    assert_eq!(segs.len(), 8);
    let mut dec = Decoder::new(Backend::Simd);
    dec.set_max_ticks(23);
    let mut errors = Vec::new();
    for (i, seg) in segs.iter().enumerate() {
        let mut s = dec.stream_segment(&demo, seg, Discard);
        while let Some(r) = s.next_event() {
            if let Err(e) = r {
                errors.push((i, e));
            }
        }
    }
    // Segment 4 (ticks 120..=124) holds the 24th marker; the later ones
    // start past the limit (a parallel pass keeps only the first failing
    // segment).
    assert_eq!(errors[0], (4, seq));
    assert_eq!(errors.len(), 4);
    assert!(errors[1..]
        .iter()
        .all(|(_, e)| e.kind == StreamErrorKind::TooManyTicks));
}

#[test]
fn header_counts_out_of_range() {
    for (name, bytes, stage, kind, section, offset) in crafted_demos() {
        if stage != "demo" {
            continue;
        }
        let e = Demo::parse(&bytes).unwrap_err();
        let want_kind = match kind.as_str() {
            "unexpected_end" => DemoErrorKind::UnexpectedEnd,
            "negative_map_size" => DemoErrorKind::NegativeMapSize,
            "timeline_marker_count" => DemoErrorKind::TimelineMarkerCount,
            k => panic!("{k}"),
        };
        assert_eq!(e.kind, want_kind, "{name}");
        assert_eq!(e.section.to_string(), section, "{name}");
        assert_eq!(e.offset as u64, offset, "{name}");
    }
    // map_size 2^31 - 1 with the file cut: the header is still readable.
    let mut d = writer_demo(keyframe_100);
    d[136..140].copy_from_slice(&i32::MAX.to_be_bytes());
    let partial = Demo::parse_truncated_map(&d).unwrap();
    assert_eq!(partial.map_size(), i32::MAX as u32);
    assert_eq!(partial.chunks_offset(), d.len());
    assert_eq!(Demo::parse(&d).unwrap_err().section, demo::Section::Map);
}

/// `demos index` keeps the chunk framing warnings as its stream reads the
/// chunks (one pass over the headers), then walks on from where the stream
/// stopped. Its demo-stage warnings must be the header warnings and those
/// of a walk over every chunk, in file order: also where a payload that
/// does not decode stops the stream more than a read-ahead queue (512
/// chunks) before the framing oddities after it, and under every cap.
#[test]
fn framing_warnings_in_one_pass_equal_a_walk_over_every_chunk() {
    let mut d = writer_demo(keyframe_100);
    let mut empty_message = Vec::new();
    huffman::compress(&[0], &mut empty_message);
    // Framing oddities: a size escape for a small size, a type-0 chunk.
    let overlong = |d: &mut Vec<u8>| {
        d.extend_from_slice(&[(DATA_MESSAGE << 5) | 30, empty_message.len() as u8]);
        d.extend_from_slice(&empty_message);
    };
    overlong(&mut d);
    // A payload with no EOF: the stream stops here with an error.
    let bad = raw_chunk(&mut d, DATA_MESSAGE, &[0xff; 40]);
    for tick in 0..600 {
        raw_tick(&mut d, 101 + tick, false);
    }
    let late = d.len();
    overlong(&mut d);
    raw_chunk(&mut d, 0, &empty_message);
    overlong(&mut d);
    let walk = |max: usize| {
        let mut w = Warnings::new(max);
        let demo = Demo::parse_with_warnings(&d, &mut w).unwrap();
        let mut chunks = demo.chunks();
        while let Some(Ok(_)) = chunks.next_with_warnings(&mut w) {}
        w.iter()
            .map(|w| (w.kind.kind(), w.section.to_string(), w.offset as u64))
            .collect::<Vec<_>>()
    };
    let all = walk(100);
    assert_eq!(all.len(), 4, "{all:?}");
    assert_eq!(
        all[1],
        ("overlong_chunk_size", "chunk 604".to_string(), late as u64)
    );
    let mut dec = Decoder::new(Backend::Simd);
    for max in [0, 1, 2, 3, 4, 5, 100] {
        let mut rec = batch::demos::DemoRecord::default();
        batch::demos::index_bytes(&mut rec, &d, &mut dec, max);
        let error = rec
            .error
            .as_ref()
            .expect("the bad payload stops the stream");
        assert_eq!(error.offset, bad as u64);
        let got: Vec<_> = rec
            .warnings
            .iter()
            .filter(|w| w.stage == batch::record::Stage::Demo)
            .map(|w| (w.kind, w.section.clone(), w.offset))
            .collect();
        assert_eq!(got, walk(max), "max {max}");
    }
}

/// Every crafted demo through `demos index`: one record each, with the
/// error the library reports.
/// Container warnings (chunk framing) reach the index record: a message
/// chunk whose small size is written with the one-byte escape (30, n).
#[test]
fn container_warnings_through_demos_index() {
    let mut bytes = writer_demo(keyframe_100);
    let at = bytes.len();
    // An empty message: the header int 0.
    let mut payload = Vec::new();
    huffman::compress(&[0], &mut payload);
    assert!(payload.len() < 30);
    bytes.extend_from_slice(&[(DATA_MESSAGE << 5) | 30, payload.len() as u8]);
    bytes.extend_from_slice(&payload);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("overlong.demo"), &bytes).unwrap();
    let out = teebatch(&["demos", "index", "-q", dir.path().to_str().unwrap()]);
    let recs = records(&out);
    let w = &recs[0]["warnings"];
    assert_eq!(w.as_array().map(Vec::len), Some(2), "{w}");
    assert_eq!(w[0]["stage"], "demo");
    assert_eq!(w[0]["kind"], "overlong_chunk_size");
    assert_eq!(w[0]["section"], "chunk 2");
    assert_eq!(w[0]["offset"], at as u64);
    // The message itself (header int 0: an extended message without its
    // UUID) does not decode: a message warning names the chunk and why.
    assert_eq!(w[1]["stage"], "message");
    assert_eq!(w[1]["kind"], "undecodable.unexpected_end");
    assert_eq!(w[1]["section"], "chunk 2");
    assert_eq!(w[1]["offset"], at as u64);
    assert_eq!(recs[0]["messages"]["undecodable"], 1);
}

#[test]
fn crafted_demos_through_demos_index() {
    let dir = tempfile::tempdir().unwrap();
    let crafted = crafted_demos();
    for (name, bytes, ..) in &crafted {
        std::fs::write(dir.path().join(format!("{name}.demo")), bytes).unwrap();
    }
    let out = teebatch(&["demos", "index", "-q", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let recs = records(&out);
    assert_eq!(recs.len(), crafted.len());
    for (name, _, stage, kind, section, offset) in &crafted {
        let r = recs
            .iter()
            .find(|r| r["name"] == *name)
            .unwrap_or_else(|| panic!("no record for {name}"));
        let e = &r["error"];
        assert_eq!(e["stage"], *stage, "{name}: {e}");
        assert_eq!(e["kind"], kind.as_str(), "{name}: {e}");
        assert_eq!(e["section"], section.as_str(), "{name}: {e}");
        assert_eq!(e["offset"], *offset, "{name}: {e}");
        if *stage == "stream" {
            // Decoded up to the fault: the keyframe's snapshot chunk is
            // counted; `snapshots_reconstructed` only counts complete ticks.
            let c = &r["chunks"];
            let chunks = c["snapshot"].as_u64().unwrap() + c["snapshot_delta"].as_u64().unwrap();
            assert!(chunks >= 1, "{name}");
            let s = r["snapshots_reconstructed"].as_u64().unwrap();
            assert!(s <= chunks, "{name}");
            assert_eq!(s == 0, r["ticks"] == 0, "{name}: {r}");
        } else if *name == "map_size_max" {
            // The header survives a map cut off by the end of the file.
            assert_eq!(r["header"]["map_size"], i32::MAX as u32, "{name}");
        }
    }
}

#[test]
fn crafted_maps_through_maps_index() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = RawDatafile::with_block(zlib(&vec![0u8; 64 << 20]), 64 << 20);
    std::fs::write(dir.path().join("bomb.map"), bomb.encode()).unwrap();
    let mut claim = RawDatafile::base();
    claim.data_sizes = vec![i32::MAX];
    std::fs::write(dir.path().join("claim.map"), claim.encode()).unwrap();
    let out = teebatch(&[
        "maps",
        "index",
        "-q",
        "--verify",
        "--max-decompressed-bytes",
        "16777216",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    let at = bomb.layout().data;
    for (r, kind) in recs.iter().zip(["limit_exceeded", "bad_data_size"]) {
        assert_eq!(r["error"]["stage"], "datafile", "{r}");
        assert_eq!(r["error"]["kind"], kind, "{r}");
        assert_eq!(r["error"]["section"], "data 0", "{r}");
        assert_eq!(r["error"]["offset"], at, "{r}");
        // The tables were read before the fault.
        assert_eq!(r["num_data"], 1, "{r}");
    }
}

// ---------------------------------------------------------------------------
// A batch of real files and corrupted copies
// ---------------------------------------------------------------------------

/// Corrupted variants of `bytes`: (suffix, bytes). Truncations at each of
/// `cuts` (when shorter than the file), at half the file and one byte short,
/// then `flips` copies with random bit flips (1, 1, 8, 64, 1, 1, 8, 64, ...
/// bits; every fifth one within the first 200 bytes, where the tables are).
fn corruptions(
    bytes: &[u8],
    rng: &mut Rng,
    cuts: &[usize],
    flips: usize,
) -> Vec<(String, Vec<u8>)> {
    let n = bytes.len();
    let mut v = Vec::new();
    for &c in cuts {
        if c < n {
            v.push((format!("cut{c}"), bytes[..c].to_vec()));
        }
    }
    v.push(("cut_half".into(), bytes[..n / 2].to_vec()));
    v.push(("cut_last".into(), bytes[..n.saturating_sub(1)].to_vec()));
    for k in 0..flips {
        let mut b = bytes.to_vec();
        let count = [1, 1, 8, 64][k % 4];
        let span = if k % 5 == 4 { n.min(200) } else { n };
        for _ in 0..count {
            let i = rng.modulo(span as u64) as usize;
            b[i] ^= 1 << rng.below(8);
        }
        v.push((format!("flip{count}_{k}"), b));
    }
    v
}

fn copy_tree(src: &Path, dst: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in common::files_with_ext(src, ext) {
        let rel = f.strip_prefix(src).unwrap();
        let to = dst.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, &to).unwrap();
        out.push(rel.to_path_buf());
    }
    out
}

/// Records by path relative to `root`, with `path` removed.
fn by_rel_path(recs: &[Value], root: &Path) -> std::collections::BTreeMap<String, Value> {
    recs.iter()
        .map(|r| {
            let p = r["path"].as_str().unwrap();
            let rel = Path::new(p)
                .strip_prefix(root)
                .unwrap_or_else(|_| panic!("{p} not under {}", root.display()))
                .to_string_lossy()
                .into_owned();
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("path");
            (rel, r)
        })
        .collect()
}

/// Builds good/ (copies of every real file) and bad/ (corrupted copies,
/// empty files, foreign files, a symlink loop) under `root`; returns the
/// relative paths of the good files and the number of bad files.
fn build_collection(src: &Path, root: &Path, ext: &str, seed: u64) -> (Vec<PathBuf>, usize) {
    let good = copy_tree(src, &root.join("good"), ext);
    let bad_dir = root.join("bad");
    std::fs::create_dir_all(&bad_dir).unwrap();
    let mut rng = Rng::new(seed);
    let mut bad = 0;
    let mut write = |name: String, bytes: &[u8]| {
        std::fs::write(bad_dir.join(format!("{name}.{ext}")), bytes).unwrap();
        bad += 1;
    };
    // Maps: many variants of every 16th map, two of the others. Demos (only
    // ten): many of each, fewer of the large ones (over 512 KiB).
    const CUTS: &[usize] = &[0, 7, 8, 35, 36, 100, 180, 400, 1000];
    for (i, rel) in good.iter().enumerate() {
        let bytes = std::fs::read(root.join("good").join(rel)).unwrap();
        let stem = rel.to_string_lossy().replace(['/', '.'], "_");
        let large = bytes.len() > 512 << 10;
        let variants = match (ext, i % 16 == 0, large) {
            ("map", true, _) => corruptions(&bytes, &mut rng, CUTS, 6),
            ("map", false, _) => corruptions(&bytes, &mut rng, &[], 1)[1..].to_vec(),
            (_, _, false) => corruptions(&bytes, &mut rng, CUTS, 20),
            (_, _, true) => corruptions(&bytes, &mut rng, &[180], 9),
        };
        for (suffix, b) in variants {
            write(format!("{stem}__{suffix}"), &b);
        }
    }
    write("empty".into(), b"");
    write("text".into(), b"this is not a teeworlds file\n");
    write("png".into(), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    write(
        "other_magic".into(),
        if ext == "map" {
            b"TWDEMO\0\x06"
        } else {
            b"DATA\x04\0\0\0"
        },
    );
    let noise: Vec<u8> = (0..4096).map(|_| rng.next_u64() as u8).collect();
    write("noise".into(), &noise);
    // A directory symlink loop: reported once as an unlistable entry.
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", bad_dir.join("loop")).unwrap();
    (good, bad)
}

fn check_batch(kind: &str, ext: &str, extra: &[&str], seed: u64) {
    let Some(ds) = common::datasets() else { return };
    let src = ds.join(format!("{kind}s"));
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (good, bad) = build_collection(&src, &root, ext, seed);
    assert!(bad >= 200, "{bad} corrupted {kind}s");

    let command = format!("{kind}s");
    let run = |path: &Path, jobs: &str| {
        let (out, peak_kib) = common::output_with_peak_rss(
            std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
                .args([command.as_str(), "index", "-q", "--jobs", jobs])
                .args(extra)
                .arg(path),
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(kib) = peak_kib {
            eprintln!("{kind}s index --jobs {jobs}: peak RSS {} MiB", kib >> 10);
            assert!(
                kib <= peak_rss_bound_kib(kind, jobs),
                "{kind}s index --jobs {jobs}: peak RSS {kib} KiB"
            );
        }
        out
    };
    let clean = run(&src, "2");
    let clean = by_rel_path(&records(&clean), &src);
    assert_eq!(clean.len(), good.len());

    let out1 = run(&root, "1");
    let out2 = run(&root, "2");
    assert_eq!(out1.status.code(), Some(1));
    assert_eq!(out2.status.code(), Some(1));
    assert!(out1.stdout == out2.stdout, "--jobs 1 and 2 differ");
    let recs = by_rel_path(&records(&out1), &root);
    // One record per file, plus one for the symlink loop.
    assert_eq!(recs.len(), good.len() + bad + usize::from(cfg!(unix)));

    for rel in &good {
        let key = Path::new("good").join(rel).to_string_lossy().into_owned();
        let want = &clean[&rel.to_string_lossy().into_owned()];
        assert_eq!(&recs[&key], want, "{key}");
    }
    let mut errors = 0;
    let mut harmless = 0;
    for (rel, r) in recs.iter().filter(|(rel, _)| rel.starts_with("bad/")) {
        if rel == "bad/loop" {
            assert_eq!(r["error"]["stage"], "io", "{rel}: {r}");
            continue;
        }
        match r.get("error") {
            Some(e) => {
                errors += 1;
                for k in ["stage", "kind", "section", "message"] {
                    assert!(e[k].is_string(), "{rel}: {k} in {e}");
                }
                // Every offset is inside the file (the end for a cut).
                let size = r["size"].as_u64().unwrap();
                assert!(e["offset"].as_u64().unwrap() <= size, "{rel}: {e}");
            }
            None => {
                // A harmless corruption (e.g. a flipped bit in item data or
                // in a message): the file still parses all the way.
                harmless += 1;
                if kind == "map" {
                    assert!(r["data_crc32"].is_string(), "{rel}: {r}");
                    assert!(r["map"].is_object(), "{rel}: {r}");
                } else {
                    assert!(r["header"].is_object(), "{rel}: {r}");
                    assert!(r["chunks"].is_object(), "{rel}: {r}");
                }
            }
        }
    }
    assert_eq!(errors + harmless, bad);
    assert!(errors > bad / 2, "{errors} errors, {harmless} harmless");
    eprintln!(
        "{kind}s: {} good, {bad} bad ({errors} errors, {harmless} harmless)",
        good.len()
    );
}

/// Peak resident memory allowed for a batch over the real files plus
/// hundreds of corrupted ones: a base for the process plus, per worker,
/// about 1.5× (maps) or 3× (demos) what the largest real file needs
/// (measured with the test binary on 2026-11-26: maps 132 MiB with one job
/// and 255 MiB with two, where BlmapChill's data blocks inflate to 626 MB
/// in all, one block at a time; demos 13 MiB with one job, 17 MiB with
/// two). Nothing may grow with the
/// number of files.
fn peak_rss_bound_kib(kind: &str, jobs: &str) -> u64 {
    let jobs: u64 = jobs.parse().unwrap();
    let (base_mib, per_worker_mib) = if kind == "map" { (64, 192) } else { (32, 16) };
    (base_mib + per_worker_mib * jobs) << 10
}

#[test]
fn batch_of_real_and_corrupted_maps() {
    check_batch("map", "map", &["--verify"], 0x5eed_0001);
}

#[test]
fn batch_of_real_and_corrupted_demos() {
    check_batch("demo", "demo", &[], 0x5eed_0002);
}

// ---------------------------------------------------------------------------
// Files that change between listing and loading
// ---------------------------------------------------------------------------

/// A file listed at its full size, then truncated before it is loaded:
/// every mode gives either an error or the short file, which then fails to
/// parse as a short file; nothing crashes.
#[test]
fn file_truncated_between_listing_and_loading() {
    let Some(ds) = common::datasets() else { return };
    let src = common::files_with_ext(&ds.join("maps"), "map")
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let original = std::fs::read(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinking.map");
    for mode in [MmapMode::Never, MmapMode::Auto, MmapMode::Always] {
        for keep in [0usize, 20, 1000, original.len() / 2] {
            std::fs::write(&path, &original).unwrap();
            let inputs = batch::collect_inputs(std::slice::from_ref(&path), "map");
            assert_eq!(inputs.len(), 1);
            assert_eq!(inputs[0].listed_size(), original.len() as u64);
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(keep as u64)
                .unwrap();
            let mut buf = Vec::new();
            let loaded = batch::load(&inputs[0], mode, &mut buf).unwrap();
            assert_eq!(&loaded[..], &original[..keep], "{mode:?} {keep}");
            drop(loaded);

            let opts = batch::maps::IndexOptions {
                verify: teebatch::batch::maps::Verify::Full,
                mmap: mode,
                ..Default::default()
            };
            let mut w = batch::maps::Worker::new(opts.limits);
            let rec = batch::maps::index_input(&mut w, &inputs[0], &opts);
            let e = rec.error.expect("a short map fails");
            assert_eq!(
                (e.stage.name(), e.kind),
                ("datafile", "truncated"),
                "{mode:?} {keep}"
            );
            assert_eq!(rec.size, keep as u64);
        }
        // Removed altogether: an I/O error.
        std::fs::write(&path, &original).unwrap();
        let inputs = batch::collect_inputs(std::slice::from_ref(&path), "map");
        std::fs::remove_file(&path).unwrap();
        let mut buf = Vec::new();
        let e = batch::load(&inputs[0], mode, &mut buf).err().unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }
}

/// A file that grows between listing and loading is read no further than
/// twice its listed size (so the listing's size check bounds memory); more
/// is an I/O error, never a silent cut.
#[test]
fn file_grown_between_listing_and_loading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.map");
    std::fs::write(&path, vec![1u8; 1000]).unwrap();
    let inputs = batch::collect_inputs(std::slice::from_ref(&path), "map");
    for (grown, ok) in [(1500, true), (2000, true), (2001, false), (100_000, false)] {
        std::fs::write(&path, vec![2u8; grown]).unwrap();
        for mode in [MmapMode::Never, MmapMode::Auto] {
            let mut buf = Vec::new();
            match batch::load(&inputs[0], mode, &mut buf) {
                Ok(b) => {
                    assert!(ok, "{grown} {mode:?}");
                    assert_eq!(b.len(), grown);
                }
                Err(e) => {
                    assert!(!ok, "{grown} {mode:?}");
                    assert_eq!(e.kind(), std::io::ErrorKind::Other);
                    assert!(buf.capacity() < 10_000, "{}", buf.capacity());
                }
            }
        }
    }
    // Through `maps index`: a record with an io error.
    let opts = batch::maps::IndexOptions::default();
    let mut w = batch::maps::Worker::new(opts.limits);
    let rec = batch::maps::index_input(&mut w, &inputs[0], &opts);
    let e = rec.error.unwrap();
    assert_eq!((e.stage.name(), e.kind), ("io", "io"));
    assert!(e.message.contains("grew"), "{}", e.message);
}

/// 1000 message chunks of 16 384 overlong varints each (12 MB): every int
/// is a warning, 16.4 million of them (655 MB of `StreamWarning`s before the
/// limit existed). The caller's sink keeps `max_warnings` and one
/// `TooManyWarnings` at the first one left out, and counts them all.
#[test]
fn warnings_are_bounded() {
    let mut d = writer_demo(keyframe_100);
    let packed: Vec<u8> = std::iter::repeat_n([0x80u8, 0x00], 16384)
        .flatten()
        .collect();
    let mut payload = Vec::new();
    huffman::compress(&packed, &mut payload);
    assert!(payload.len() < 13_000, "{}", payload.len());
    let first = raw_chunk(&mut d, DATA_MESSAGE, &payload);
    for _ in 1..1000 {
        raw_chunk(&mut d, DATA_MESSAGE, &payload);
    }
    let demo = Demo::parse(&d).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    let out = teebatch::demo::stream::visit(&demo, &mut dec, NoVisit);
    assert_eq!(out.error, None);
    let w = &out.warnings;
    assert_eq!(w.len(), 1025);
    assert!(w[..1024]
        .iter()
        .all(|w| w.kind == StreamWarningKind::Varint(VarintWarningKind::Overlong)));
    assert_eq!(
        (
            w[1024].kind,
            w[1024].chunk,
            w[1024].offset,
            w[1024].inner_offset
        ),
        (StreamWarningKind::TooManyWarnings, Some(2), first, 2 * 1024)
    );
    // A smaller limit, as `demos index` builds it: the same cut.
    let mut w = Warnings::new(3);
    let (_, error) = teebatch::demo::stream::visit_observed(&demo, &mut dec, NoVisit, &mut w);
    assert_eq!(error, None);
    assert_eq!(w.len(), 4);
    assert_eq!(w[3].kind, StreamWarningKind::TooManyWarnings);
    assert_eq!(w.total(), 1000 * 16384);
}

struct NoVisit;

impl teebatch::demo::stream::Visitor for NoVisit {
    fn visit(&mut self, _: &Event<'_>) {}
}
