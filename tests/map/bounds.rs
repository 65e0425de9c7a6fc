//! Bounded memory and honest counts of map summaries on generated maps:
//! strings inflate a bounded prefix, a budget error names the block that
//! used the budget, worker buffers shrink after a huge file, and what a
//! summary cannot count (tile data out of range, quads beyond their data,
//! items outside the type table) is a warning.

use teebatch::batch::maps::{self, IndexOptions, Worker};
use teebatch::batch::Input;
use teebatch::datafile::{self, Datafile, DatafileWriter, ErrorKind, Inflater, Section};
use teebatch::limits::Limits;
use teebatch::map::{self, MapSection, MapSummary, MapWarningKind};

/// A map: version, info (author in data block 0: `author` bytes), a 2×2
/// game layer (block 1), a tiles layer pointing at data block 99, a quads
/// layer claiming 1000 quads with the data of 1 (block 2).
fn crafted_map(author: &[u8]) -> Vec<u8> {
    let mut w = DatafileWriter::new();
    w.add_item(map::ITEM_VERSION, 0, &[1]);
    let author = w.add_data(author) as i32;
    w.add_item(map::ITEM_INFO, 0, &[1, author, -1, -1, -1]);
    let game = w.add_data(&[0; 16]) as i32;
    let quads = w.add_data(&[0; map::QUAD_SIZE]) as i32;
    let name = [-2139062144, -2139062144, -2139062272];
    let tilemap = |flags: i32, data: i32| {
        let mut v = vec![0, map::LAYER_TILEMAP, 0, 3, 2, 2, flags, 255, 255, 255, 255];
        v.extend([-1, 0, -1, data]);
        v.extend(name);
        v
    };
    w.add_item(map::ITEM_LAYER, 0, &tilemap(1, game));
    w.add_item(map::ITEM_LAYER, 1, &tilemap(0, 99));
    let mut q = vec![0, map::LAYER_QUADS, 0, 2, 1000, quads, -1];
    q.extend(name);
    w.add_item(map::ITEM_LAYER, 2, &q);
    w.add_item(
        map::ITEM_GROUP,
        0,
        &[3, 0, 0, 100, 100, 0, 3, 0, 0, 0, 0, 0],
    );
    w.write()
}

fn summary(bytes: &[u8], limit: u64) -> (MapSummary, Inflater) {
    let df = Datafile::parse(bytes).unwrap();
    let mut inflater = Inflater::new(datafile::InflateLimits {
        max_decompressed_bytes: limit,
    });
    let mut scratch = Vec::new();
    let s = map::summarize(&df, &mut inflater, &mut scratch).unwrap();
    (s, inflater)
}

/// The warnings of a summary as (kind, section, offset), without those of
/// `kinds` it does not ask about.
fn warnings_of(s: &MapSummary, kinds: &[MapWarningKind]) -> Vec<(MapWarningKind, MapSection, u64)> {
    s.warnings
        .iter()
        .filter(|w| kinds.contains(&w.kind))
        .map(|w| (w.kind, w.section, w.offset))
        .collect()
}

/// A 16 MiB author string under a 1 MiB budget: only the bytes a string can
/// use are inflated; the string is cut with a warning.
#[test]
fn strings_inflate_a_bounded_prefix() {
    let bytes = crafted_map(&vec![b'a'; 16 << 20]);
    let (s, inflater) = summary(&bytes, 1 << 20);
    let author = s.info.as_ref().unwrap().author.as_deref().unwrap();
    assert_eq!(author.len(), map::strings::MAX_STRING_LEN);
    // The string prefix, the 16-byte game layer.
    assert_eq!(
        inflater.used(),
        map::strings::MAX_STRING_LEN as u64 + 1 + 16
    );
    let df = Datafile::parse(&bytes).unwrap();
    let at = df.data_range(0).unwrap().start as u64;
    assert_eq!(
        warnings_of(&s, &[MapWarningKind::StringTruncated]),
        [(MapWarningKind::StringTruncated, MapSection::Info, at)]
    );
    // A short string is read (and its block checked) whole.
    let (s, _) = summary(&crafted_map(b"someone\0"), 1 << 20);
    assert_eq!(s.info.unwrap().author.as_deref(), Some("someone"));
}

/// Tile data out of range and quads beyond their data are warnings, and the
/// quads count is what the data holds.
#[test]
fn uncountable_layers_are_warnings() {
    let bytes = crafted_map(b"x\0");
    let df = Datafile::parse(&bytes).unwrap();
    let layer_offset = |id: u16| df.find_item(map::ITEM_LAYER, id).unwrap().offset as u64;
    let (s, _) = summary(&bytes, 1 << 20);
    assert_eq!(
        warnings_of(
            &s,
            &[
                MapWarningKind::TileDataOutOfRange,
                MapWarningKind::QuadsDataSize
            ]
        ),
        [
            (
                MapWarningKind::TileDataOutOfRange,
                MapSection::Layer(1),
                layer_offset(1) + 8 + 4 * 14
            ),
            (
                MapWarningKind::QuadsDataSize,
                MapSection::Layer(2),
                layer_offset(2)
            ),
        ]
    );
    let counts = s.counts.unwrap();
    assert_eq!((counts.layers_tiles, counts.layers_quads), (1, 1));
    assert_eq!(counts.quads, 1);
}

/// An item left out of the item type table (its type's count shortened by
/// one) is a warning naming it, not a silently smaller count.
#[test]
fn items_outside_the_type_table_are_warnings() {
    let mut bytes = crafted_map(b"x\0");
    let df = Datafile::parse(&bytes).unwrap();
    let (t, ty) = df
        .item_types()
        .iter()
        .enumerate()
        .find(|(_, t)| t.type_id == map::ITEM_LAYER)
        .map(|(i, t)| (i, *t))
        .unwrap();
    let last = ty.start + ty.num - 1;
    let last_offset = df.item(last).unwrap().offset as u64;
    // Item type entry `t`: type id, start, num (from byte 36).
    let num_at = 36 + 12 * t + 8;
    bytes[num_at..num_at + 4].copy_from_slice(&(ty.num as i32 - 1).to_le_bytes());
    let (s, _) = summary(&bytes, 1 << 20);
    assert_eq!(
        warnings_of(&s, &[MapWarningKind::ItemNotInTypeTable]),
        [(
            MapWarningKind::ItemNotInTypeTable,
            MapSection::Item(last as u32),
            last_offset
        )]
    );
    assert_eq!(s.counts.unwrap().layers, 2);
}

/// Block 0 inflates to 600 000 bytes, block 1 to 10, under a 600 005-byte
/// budget: the error names block 0, which used the budget.
#[test]
fn budget_error_names_the_block_that_used_it() {
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_data(&vec![0; 600_000]);
    w.add_data(&[1; 10]);
    let bytes = w.write();
    let df = Datafile::parse(&bytes).unwrap();
    let mut inflater = Inflater::new(datafile::InflateLimits {
        max_decompressed_bytes: 600_005,
    });
    let mut out = Vec::new();
    df.decompress(0, &mut inflater, &mut out).unwrap();
    let e = df.decompress(1, &mut inflater, &mut out).unwrap_err();
    assert_eq!(
        (e.kind, e.section, e.offset),
        (
            ErrorKind::LimitExceeded,
            Section::Data(0),
            df.data_range(0).unwrap().start as u64
        )
    );
    // A new file starts afresh; a block larger than the rest names itself.
    inflater.start_file();
    df.decompress(1, &mut inflater, &mut out).unwrap();
    let mut small = Inflater::new(datafile::InflateLimits {
        max_decompressed_bytes: 100,
    });
    let e = df.decompress(0, &mut small, &mut out).unwrap_err();
    assert_eq!(
        (e.kind, e.section),
        (ErrorKind::LimitExceeded, Section::Data(0))
    );
}

/// A map with a 100 MiB block through `maps index --verify`: the worker's
/// inflate buffer is shrunk to the limit afterwards.
#[test]
fn worker_buffers_shrink_after_a_huge_map() {
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_data(&vec![0; 100 << 20]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.map");
    std::fs::write(&path, w.write()).unwrap();
    let opts = IndexOptions {
        verify: teebatch::batch::maps::Verify::Full,
        ..IndexOptions::default()
    };
    let mut worker = Worker::new(opts.limits);
    let input = Input::File {
        size: std::fs::metadata(&path).unwrap().len(),
        path,
    };
    let rec = maps::index_input(&mut worker, &input, &opts);
    assert!(rec.error.is_none(), "{:?}", rec.error);
    assert!(rec.body.data_crc32.is_some());
    assert!(worker.data_buf.capacity() <= Limits::KEEP_WORKER_BUFFER_BYTES);
    assert!(worker.read_buf.capacity() <= Limits::KEEP_WORKER_BUFFER_BYTES);
    assert!(worker.inflater.held_bytes() <= Limits::KEEP_WORKER_BUFFER_BYTES);
}

/// Every strength of `--verify` inflates every block: a corrupted block
/// that the map summary never reads is the same error with each (and none
/// without); only the hashes reported differ.
#[test]
fn every_verify_strength_finds_a_corrupted_block_the_summary_skips() {
    use teebatch::batch::maps::{index_bytes, MapRecord, Verify};
    let mut w = DatafileWriter::new();
    w.add_item(map::ITEM_VERSION, 0, &[1]);
    let noise: Vec<u8> = (0..50_000u32).map(|i| (i * i % 251) as u8).collect();
    w.add_data(&noise);
    let good = w.write();
    let range = Datafile::parse(&good).unwrap().data_range(0).unwrap();
    let mut bad = good.clone();
    bad[range.start + range.len() / 2] ^= 0x5a;
    let index = |bytes: &[u8], verify| {
        let mut rec = MapRecord::default();
        let opts = IndexOptions {
            verify,
            ..IndexOptions::default()
        };
        index_bytes(
            &mut rec,
            bytes,
            &opts,
            &mut Inflater::default(),
            &mut Vec::new(),
        );
        rec
    };
    let crc = format!("{:08x}", crc32fast::hash(&noise));
    for (verify, want_crc, want_sha) in [
        (Verify::Off, false, false),
        (Verify::Inflate, false, false),
        (Verify::Crc, true, false),
        (Verify::Full, true, true),
    ] {
        let rec = index(&good, verify);
        assert!(rec.error.is_none(), "{verify:?}: {:?}", rec.error);
        assert_eq!(
            rec.body.data_crc32,
            want_crc.then(|| crc.clone()),
            "{verify:?}"
        );
        assert_eq!(rec.body.data_sha256.is_some(), want_sha, "{verify:?}");
        let rec = index(&bad, verify);
        assert_eq!(rec.body.data_crc32, None, "{verify:?}");
        match verify {
            Verify::Off => assert!(rec.error.is_none(), "{:?}", rec.error),
            _ => {
                let e = rec.error.expect("a corrupted block is an error");
                assert_eq!(
                    (e.stage.name(), e.kind, e.section.as_str(), e.offset),
                    ("datafile", "inflate", "data 0", range.start as u64),
                    "{verify:?}"
                );
            }
        }
    }
}

/// A 2100 × 2100 game layer (17.6 MB of tiles, past
/// `map::STREAM_TILES_BYTES`) is counted piece by piece: the same counts as
/// a histogram of the whole data, and the caller's buffer stays small.
#[test]
fn huge_tile_layers_are_counted_without_their_buffer() {
    let (w, h) = (2100usize, 2100usize);
    let mut tiles = vec![0u8; w * h * 4];
    for k in (0..w * h).step_by(997) {
        tiles[4 * k] = (k % 7) as u8 + 1;
    }
    tiles[4 * (w * h - 1) + 2] = 5; // padding of the very last tile
    assert!(tiles.len() > map::STREAM_TILES_BYTES);
    let mut dw = DatafileWriter::new();
    dw.add_item(map::ITEM_VERSION, 0, &[1]);
    let data = dw.add_data(&tiles) as i32;
    let mut layer = vec![
        0,
        map::LAYER_TILEMAP,
        0,
        3,
        w as i32,
        h as i32,
        1,
        255,
        255,
        255,
        255,
    ];
    layer.extend([-1, 0, -1, data, -2139062144, -2139062144, -2139062272]);
    dw.add_item(map::ITEM_LAYER, 0, &layer);
    dw.add_item(
        map::ITEM_GROUP,
        0,
        &[3, 0, 0, 100, 100, 0, 1, 0, 0, 0, 0, 0],
    );
    let bytes = dw.write();
    let df = Datafile::parse(&bytes).unwrap();
    let mut inflater = Inflater::default();
    let mut scratch = Vec::new();
    let s = map::summarize(&df, &mut inflater, &mut scratch).unwrap();
    assert!(scratch.capacity() < map::STREAM_TILES_BYTES);
    assert_eq!(inflater.used(), tiles.len() as u64);
    let expect = map::tiles::histogram(&tiles, map::PhysicsKind::Game.format());
    let stats = s.stats.clone().unwrap();
    assert_eq!(stats.non_empty_tiles.game, Some(expect.non_empty()));
    assert_eq!(expect.non_empty(), (w * h).div_ceil(997) as u64);
    assert_eq!(
        stats.game_entities,
        map::EntityCounts::from_histogram(&expect)
    );
    assert!(expect.padding_nonzero);
    assert_eq!(
        warnings_of(&s, &[MapWarningKind::NonZeroTilePadding]),
        [(
            MapWarningKind::NonZeroTilePadding,
            MapSection::Layer(0),
            df.find_item(map::ITEM_LAYER, 0).unwrap().offset as u64
        )]
    );
    // The same counts as the whole-buffer path of a smaller budget layer.
    let mut whole = Vec::new();
    df.decompress(0, &mut Inflater::default(), &mut whole)
        .unwrap();
    assert_eq!(whole, tiles);
}

/// `Datafile::decompress_block` (the `--verify` pass: the inflater's buffer
/// that only grows, v3 blocks in place) gives the bytes and the errors of
/// `Datafile::decompress`: on every block of the embedded maps, of a v3 map
/// and of copies with one byte of a block's stream changed, and under a
/// budget that runs out part way.
#[test]
fn decompress_block_equals_decompress() {
    let mut files: Vec<Vec<u8>> = teebatch::batch::embedded::MAPS
        .iter()
        .map(|(_, b)| b.to_vec())
        .collect();
    let v3 = crate::common::hand_made_v3();
    assert_eq!(Datafile::parse(&v3).unwrap().version().name(), "3");
    files.push(v3);
    let mut corrupted = Vec::new();
    for bytes in &files[..2] {
        let df = Datafile::parse(bytes).unwrap();
        for i in 0..df.num_data() {
            let range = df.data_range(i).unwrap();
            for at in [range.start, range.start + range.len() / 2, range.end - 1] {
                let mut b = bytes.clone();
                b[at] ^= 0x5a;
                corrupted.push(b);
            }
        }
    }
    let (mut errors, mut blocks) = (0, 0);
    for bytes in files.iter().chain(&corrupted) {
        let Ok(df) = Datafile::parse(bytes) else {
            continue;
        };
        for limit in [u64::MAX, 1000, 2] {
            let limits = datafile::InflateLimits {
                max_decompressed_bytes: limit,
            };
            let (mut a, mut b) = (Inflater::new(limits), Inflater::new(limits));
            let mut buf = Vec::new();
            for i in 0..df.num_data() {
                let plain = df.decompress(i, &mut a, &mut buf).map(|()| buf.clone());
                let grown = df.decompress_block(i, &mut b).map(<[u8]>::to_vec);
                assert_eq!(plain, grown, "block {i}");
                errors += usize::from(plain.is_err());
                blocks += 1;
            }
        }
    }
    assert!(
        errors > 20 && blocks > errors,
        "{errors} errors in {blocks} blocks"
    );
}

/// A map of 3000 images without names: one `missing_name` warning each,
/// kept by a sink capped at `map::MAX_WARNINGS` plus one marker.
#[test]
fn map_warnings_are_bounded() {
    use teebatch::map::Map;
    use teebatch::warn::Warnings;
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
