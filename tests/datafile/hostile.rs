//! Hostile datafiles: crafted files that try to make the datafile parser
//! allocate without bound, loop forever or crash, each checked for the exact
//! error (kind, section, byte offset) it must produce, on their own and
//! through `maps index`.
//!
//! The datafiles are hand-assembled ([`RawDatafile`]): the crate's
//! `DatafileWriter` only writes valid tables.

use std::io::Write;

use crate::common::{records, teebatch};
use teebatch::datafile::{self, Datafile, ErrorKind, Inflater, Section};
use teebatch::limits::Limits;
use teebatch::synth::Rng;
use teebatch::warn::Warnings;

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

// ---------------------------------------------------------------------------
// Through `maps index`
// ---------------------------------------------------------------------------

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
