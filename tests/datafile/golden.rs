//! The datafile layer against the real maps of ../shared/datasets and their
//! golden values (golden/maps.tsv, from an independent decoder).

use crate::common;
use sha2::{Digest, Sha256};
use teebatch::datafile::{Datafile, DatafileWriter, ErrorKind, InflateLimits, Inflater, Section};

struct Golden {
    path: String,
    size: u64,
    version: String,
    num_item_types: usize,
    num_items: usize,
    num_data: usize,
    crc32: String,
    sha256: String,
    data_crc32: String,
}

fn golden() -> Option<(std::path::PathBuf, Vec<Golden>)> {
    let ds = common::datasets()?;
    let text = std::fs::read_to_string(ds.join("golden/maps.tsv")).expect("golden/maps.tsv");
    let rows = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 9, "golden line {l:?}");
            Golden {
                path: f[0].to_string(),
                size: f[1].parse().unwrap(),
                version: f[2].to_string(),
                num_item_types: f[3].parse().unwrap(),
                num_items: f[4].parse().unwrap(),
                num_data: f[5].parse().unwrap(),
                crc32: f[6].to_string(),
                sha256: f[7].to_string(),
                data_crc32: f[8].to_string(),
            }
        })
        .collect();
    Some((ds.join("maps"), rows))
}

fn data_crc32(
    df: &Datafile<'_>,
    inflater: &mut Inflater,
) -> Result<String, teebatch::datafile::Error> {
    let mut h = crc32fast::Hasher::new();
    let mut buf = Vec::new();
    for i in 0..df.num_data() {
        df.decompress(i, inflater, &mut buf)?;
        h.update(&buf);
    }
    Ok(format!("{:08x}", h.finalize()))
}

#[test]
fn every_real_map_matches_golden() {
    let Some((dir, rows)) = golden() else { return };
    assert!(
        rows.len() >= 249,
        "expected the whole corpus, got {}",
        rows.len()
    );
    let mut inflater = Inflater::default();
    for g in &rows {
        let bytes = std::fs::read(dir.join(&g.path)).unwrap();
        assert_eq!(bytes.len() as u64, g.size, "{}", g.path);
        assert_eq!(
            format!("{:08x}", crc32fast::hash(&bytes)),
            g.crc32,
            "{}",
            g.path
        );
        assert_eq!(hex::encode(Sha256::digest(&bytes)), g.sha256, "{}", g.path);
        let mut warnings = Vec::new();
        let df = Datafile::parse_observed(&bytes, &mut warnings)
            .unwrap_or_else(|e| panic!("{}: {e}", g.path));
        assert_eq!(df.version().name(), g.version, "{}", g.path);
        assert_eq!(df.item_types().len(), g.num_item_types, "{}", g.path);
        assert_eq!(df.num_items(), g.num_items, "{}", g.path);
        assert_eq!(df.num_data(), g.num_data, "{}", g.path);
        inflater.start_file();
        let crc = data_crc32(&df, &mut inflater).unwrap_or_else(|e| panic!("{}: {e}", g.path));
        assert_eq!(crc, g.data_crc32, "{}", g.path);
        assert!(warnings.is_empty(), "{}: {:?}", g.path, warnings);
    }
}

/// Every real map inflating to at most 64 MiB, and one of the larger ones
/// (picked with a fixed seed), round-trips through the writer: deflating
/// the few huge maps again took most of this test's time and exercises
/// nothing the others do not.
#[test]
fn real_maps_round_trip_through_the_writer() {
    let Some((dir, rows)) = golden() else { return };
    let mut inflater = Inflater::default();
    let mut large = Vec::new();
    let mut tested = 0;
    for g in &rows {
        let bytes = std::fs::read(dir.join(&g.path)).unwrap();
        let df = Datafile::parse(&bytes).unwrap();
        if df.data_size_total() > 64 << 20 {
            large.push(&g.path);
        } else {
            round_trip(&df, &mut inflater, &g.path);
            tested += 1;
        }
    }
    assert!(tested > rows.len() / 2, "{tested} of {}", rows.len());
    if !large.is_empty() {
        let mut rng = teebatch::synth::Rng::new(13);
        let path = large[rng.below(large.len() as u32) as usize];
        let bytes = std::fs::read(dir.join(path)).unwrap();
        round_trip(&Datafile::parse(&bytes).unwrap(), &mut inflater, path);
    }
}

/// Writes `df` again and checks the copy: version 4, no warnings, the same
/// item types, items and inflated data.
fn round_trip(df: &Datafile<'_>, inflater: &mut Inflater, path: &str) {
    inflater.start_file();
    let written = DatafileWriter::from_datafile(df, inflater).unwrap().write();
    let mut warnings = Vec::new();
    let again =
        Datafile::parse_observed(&written, &mut warnings).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(again.version().name(), "4", "{path}");
    assert!(warnings.is_empty(), "{path}: {:?}", warnings);
    assert_eq!(df.item_types(), again.item_types(), "{path}");
    assert!(
        df.items()
            .map(|i| (i.type_id, i.id, i.data))
            .eq(again.items().map(|i| (i.type_id, i.id, i.data))),
        "{path}"
    );
    assert_eq!(df.num_data(), again.num_data(), "{path}");
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..df.num_data() {
        inflater.start_file();
        df.decompress(i, inflater, &mut a).unwrap();
        again.decompress(i, inflater, &mut b).unwrap();
        assert!(a == b, "{path}: data {i}");
    }
}

/// The section a file cut to `cut` bytes must be reported truncated in,
/// from the whole file's parse: the item or data block whose slot holds
/// byte `cut` (the last of those starting there: an empty block holds no
/// byte), `None` for a cut in the header or the tables before the items.
fn section_holding(df: &Datafile<'_>, cut: usize) -> Option<Section> {
    let data_start = df.data_range(0).map_or(usize::MAX, |r| r.start);
    if cut >= data_start {
        let i = (0..df.num_data()).rfind(|&i| df.data_range(i).unwrap().start <= cut)?;
        return Some(Section::Data(i as u32));
    }
    let i = (0..df.num_items()).rfind(|&i| df.item(i).unwrap().offset <= cut)?;
    Some(Section::Item(i as u32))
}

/// Checks the error of `bytes` cut to `cut` bytes (`full` is the parse of
/// all of them): `truncated` at `cut`, in the item or data block that holds
/// that byte, and the layout read from the cut file is the whole file's.
fn check_cut(full: &Datafile<'_>, bytes: &[u8], cut: usize, what: &str) {
    let part = &bytes[..cut];
    let e = Datafile::parse(part).expect_err(what);
    assert_eq!(
        (e.kind, e.offset),
        (ErrorKind::Truncated, cut as u64),
        "{what} cut {cut}: {e}"
    );
    match section_holding(full, cut) {
        Some(section) => assert_eq!(e.section, section, "{what} cut {cut}"),
        None => assert!(
            !matches!(e.section, Section::Item(_) | Section::Data(_)),
            "{what} cut {cut}: {e}"
        ),
    }
    if cut >= 36 {
        assert_eq!(
            Datafile::layout(part).unwrap(),
            Datafile::layout(bytes).unwrap(),
            "{what} cut {cut}"
        );
    }
}

/// Every real map cut at 64 evenly spaced points and inside every item and
/// data block: never a panic; each cut is `truncated` at the cut, naming the
/// item or data block that holds it, with the header's layout still
/// readable (or, for cuts in trailing padding, a valid file).
#[test]
fn truncated_real_maps_fail_cleanly() {
    let Some((dir, rows)) = golden() else { return };
    let mut inflater = Inflater::default();
    let mut errors = 0;
    for g in &rows {
        let bytes = std::fs::read(dir.join(&g.path)).unwrap();
        let full = Datafile::parse(&bytes).unwrap();
        let layout = Datafile::layout(&bytes).unwrap();
        assert_eq!(
            (layout.version.name(), layout.num_items, layout.num_data),
            (g.version.as_str(), g.num_items, g.num_data),
            "{}",
            g.path
        );
        assert_eq!(
            layout.data_size_total(&bytes),
            Some(full.data_size_total()),
            "{}",
            g.path
        );
        let end = full
            .data_range(full.num_data().saturating_sub(1))
            .map_or(0, |r| r.end);
        let inside = (0..full.num_items())
            .map(|i| full.item(i).unwrap().offset + 4)
            .chain((0..full.num_data()).map(|i| {
                let r = full.data_range(i).unwrap();
                r.start + r.len() / 2
            }));
        for cut in (0..64).map(|k| bytes.len() * k / 64).chain(inside) {
            if cut < end {
                check_cut(&full, &bytes, cut, &g.path);
                errors += 1;
            } else if let Ok(df) = Datafile::parse(&bytes[..cut]) {
                inflater.start_file();
                let _ = data_crc32(&df, &mut inflater);
            }
        }
    }
    assert!(errors > 0);
}

/// A written file with items and data blocks of several sizes (one of
/// them an empty item and the zlib stream of no bytes), cut at every
/// length: each cut past the header is `truncated` at the cut in the item
/// or block that holds it.
#[test]
fn every_cut_names_the_item_or_block_it_falls_in() {
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_item(1, 0, &[]);
    w.add_item(1, 1, &[1, 2, 3, 4, 5]);
    w.add_data(b"a block of text, compressed");
    w.add_data(b"");
    w.add_data(&[7u8; 3000]);
    w.add_data(b"last");
    let bytes = w.write();
    let full = Datafile::parse(&bytes).unwrap();
    assert_eq!((full.num_items(), full.num_data()), (3, 4));
    let mut sections = std::collections::BTreeSet::new();
    for cut in 36..bytes.len() {
        check_cut(&full, &bytes, cut, "written file");
        sections.insert(Datafile::parse(&bytes[..cut]).unwrap_err().section.name());
    }
    // Every item and every block was named.
    for s in [
        "item 0", "item 1", "item 2", "data 0", "data 1", "data 2", "data 3",
    ] {
        assert!(sections.contains(s), "{s} in {sections:?}");
    }
}

fn header(version: i32, counts: [i32; 5]) -> Vec<u8> {
    let mut v = b"DATA".to_vec();
    v.extend_from_slice(&version.to_le_bytes());
    v.extend_from_slice(&0i32.to_le_bytes());
    v.extend_from_slice(&0i32.to_le_bytes());
    for c in counts {
        v.extend_from_slice(&c.to_le_bytes());
    }
    v
}

#[test]
fn hostile_headers_are_rejected_without_allocating() {
    // 2^31 - 1 items in a 36-byte file.
    let e = Datafile::parse(&header(4, [0, i32::MAX, 0, 0, 0])).unwrap_err();
    assert_eq!(
        (e.kind, e.section),
        (ErrorKind::Truncated, Section::ItemOffsets)
    );
    let e = Datafile::parse(&header(
        4,
        [i32::MAX, i32::MAX, i32::MAX, i32::MAX, i32::MAX],
    ))
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated);
    let e = Datafile::parse(&header(4, [0, -1, 0, 0, 0])).unwrap_err();
    assert_eq!(
        (e.kind, e.section, e.offset),
        (ErrorKind::NegativeCount, Section::Header, 20)
    );
    let e = Datafile::parse(&header(5, [0; 5])).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::UnsupportedVersion, 4));
    let e = Datafile::parse(b"MAPX\x04\0\0\0").unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadMagic);
    assert_eq!(
        Datafile::parse(b"DAT").unwrap_err().kind,
        ErrorKind::Truncated
    );
}

/// A v4 file with one data block whose size table claims 4 GiB - 1 (as i32:
/// 2^31 - 1) behind 16 bytes of zlib: rejected before any allocation.
#[test]
fn claimed_huge_data_block_is_rejected() {
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_data(b"hello world, hello world");
    let mut bytes = w.write();
    let df = Datafile::parse(&bytes).unwrap();
    let range = df.data_range(0).unwrap();
    // The size table sits right before the items: 36 + 12 + 4 + 4.
    let sizes_at = 36 + 12 + 4 + 4;
    bytes[sizes_at..sizes_at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    let df = Datafile::parse(&bytes).unwrap();
    let mut inflater = Inflater::default();
    let e = df.data(0, &mut inflater).unwrap_err();
    assert_eq!(
        (e.kind, e.section, e.offset as usize),
        (ErrorKind::BadDataSize, Section::Data(0), range.start)
    );

    // A real bomb: 64 MiB of zeros compresses to ~65 KB; a 16 MiB limit stops it.
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_data(&vec![0u8; 64 << 20]);
    let bytes = w.write();
    assert!(bytes.len() < 100_000, "{}", bytes.len());
    let df = Datafile::parse(&bytes).unwrap();
    let mut small = Inflater::new(InflateLimits {
        max_decompressed_bytes: 16 << 20,
    });
    assert_eq!(
        df.data(0, &mut small).unwrap_err().kind,
        ErrorKind::LimitExceeded
    );
    assert_eq!(
        df.data(0, &mut Inflater::default()).unwrap().len(),
        64 << 20
    );
}

#[test]
fn corrupt_zlib_and_wrong_sizes_are_errors() {
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_data(&[7u8; 1000]);
    let bytes = w.write();
    let df = Datafile::parse(&bytes).unwrap();
    let range = df.data_range(0).unwrap();
    // Size table says 999: the stream does not fit.
    let mut b = bytes.clone();
    let sizes_at = 36 + 12 + 4 + 4;
    b[sizes_at..sizes_at + 4].copy_from_slice(&999i32.to_le_bytes());
    let e = Datafile::parse(&b)
        .unwrap()
        .data(0, &mut Inflater::default())
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::DataSizeMismatch);
    // Garbage instead of the zlib stream.
    let mut b = bytes.clone();
    for x in &mut b[range.clone()] {
        *x ^= 0x5a;
    }
    let e = Datafile::parse(&b)
        .unwrap()
        .data(0, &mut Inflater::default())
        .unwrap_err();
    assert_eq!((e.kind, e.section), (ErrorKind::Inflate, Section::Data(0)));
}

#[test]
fn reversed_magic_and_version_3_are_read() {
    let mut w = DatafileWriter::new();
    w.add_item(2, 0, &[1, 2, 3]);
    w.add_item(2, 1, &[4]);
    w.add_item(0, 0, &[]);
    let mut bytes = w.write();
    bytes[0..4].copy_from_slice(b"ATAD");
    let df = Datafile::parse(&bytes).unwrap();
    assert!(df.magic_reversed());
    assert_eq!(df.find_item(2, 1).unwrap().data.to_vec(), vec![4]);
    assert_eq!(df.items_of_type(2).len(), 2);
    assert_eq!(df.items_of_type(7).len(), 0);

    // Hand-made v3: one item type, one item, one raw data block "abc".
    let v = crate::common::hand_made_v3();
    let mut warnings = Vec::new();
    let df = Datafile::parse_observed(&v, &mut warnings).unwrap();
    assert_eq!(df.version().name(), "3");
    assert!(warnings.is_empty(), "{:?}", warnings);
    let it = df.item(0).unwrap();
    assert_eq!((it.type_id, it.id, it.data.to_vec()), (5, 9, vec![-7]));
    assert_eq!(df.data(0, &mut Inflater::default()).unwrap(), b"abc");
}

mod flips {
    use super::*;
    use proptest::prelude::*;

    fn sample_maps() -> Vec<Vec<u8>> {
        let Some(ds) = common::datasets() else {
            return Vec::new();
        };
        [
            "ddnet/coverage.map",
            "ddnet7/Tutorial.map",
            "teeworlds-history/data_maps__dm2_old__65ea2ce9.map",
        ]
        .iter()
        .map(|p| std::fs::read(ds.join("maps").join(p)).unwrap())
        .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

        /// Random byte flips anywhere in real maps: parse and decompress
        /// never panic; every error carries an offset inside the file.
        #[test]
        fn random_flips_never_panic(which in 0usize..3, flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..16)) {
            let maps = sample_maps();
            if maps.is_empty() { return Ok(()); }
            let mut bytes = maps[which].clone();
            for (at, x) in flips {
                let i = at.index(bytes.len());
                bytes[i] ^= x;
            }
            let mut inflater = Inflater::new(InflateLimits { max_decompressed_bytes: 256 << 20 });
            match Datafile::parse(&bytes) {
                Err(e) => prop_assert!((e.offset as usize) <= bytes.len()),
                Ok(df) => {
                    let mut buf = Vec::new();
                    for i in 0..df.num_data() {
                        if let Err(e) = df.decompress(i, &mut inflater, &mut buf) {
                            prop_assert!((e.offset as usize) <= bytes.len());
                            prop_assert_eq!(e.section, Section::Data(i as u32));
                        }
                    }
                    for it in df.items() {
                        prop_assert!(it.offset + 8 + it.data.as_bytes().len() <= bytes.len());
                    }
                }
            }
        }

        /// Flips in the header and tables specifically (the first 4 KiB).
        #[test]
        fn header_flips_never_panic(which in 0usize..3, at in 0usize..4096, x in 1u8..=255) {
            let maps = sample_maps();
            if maps.is_empty() { return Ok(()); }
            let mut bytes = maps[which].clone();
            let i = at % bytes.len();
            bytes[i] ^= x;
            if let Ok(df) = Datafile::parse(&bytes) {
                let mut inflater = Inflater::new(InflateLimits { max_decompressed_bytes: 256 << 20 });
                let _ = data_crc32(&df, &mut inflater);
            }
        }
    }
}
