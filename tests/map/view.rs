//! The map view against the real maps of ../shared/datasets, an independent
//! map library's verdicts (golden/maps_othermaplib.tsv, twmap), values
//! recomputed here by a second simple path (flate2 + plain loops), hostile
//! inputs and generated maps.

use crate::common;
use proptest::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use teebatch::datafile::{Datafile, DatafileWriter, Inflater};
use teebatch::map::names::current_names;
use teebatch::map::{
    absent_reason, summarize, AbsentReason, ImageVariant, LayerKind, Map, MapCounts, MapErrorKind,
    MapSection, MapVersionKind, MapWarning, MapWarningKind, PhysicsKind,
};
use teebatch::synth::map::{self as synth, SynthParams};

fn read(dir: &Path, rel: &str) -> Vec<u8> {
    std::fs::read(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn maps_dir() -> Option<PathBuf> {
    Some(common::datasets()?.join("maps"))
}

type Parsed<'a> = (
    Datafile<'a>,
    Result<Option<Map>, teebatch::map::MapError>,
    Vec<MapWarning>,
);

fn parse_full(bytes: &[u8]) -> Parsed<'_> {
    let df = Datafile::parse(bytes).expect("datafile");
    let mut warnings = Vec::new();
    let r = Map::parse(
        &df,
        &mut Inflater::default(),
        &mut Vec::new(),
        &mut warnings,
    );
    (df, r, warnings)
}

fn has_warning(warnings: &[MapWarning], kind: MapWarningKind, section: MapSection) -> bool {
    warnings
        .iter()
        .any(|w| w.kind == kind && w.section == section)
}

/// Golden rows of the other map library: path → (status, fields).
fn othermaplib(ds: &Path) -> HashMap<String, (String, String)> {
    let text = std::fs::read_to_string(ds.join("golden/maps_othermaplib.tsv")).expect("golden");
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[1] != "datafile_crosscheck")
                .then(|| (f[0].to_string(), (f[1].to_string(), f[2..].join("\t"))))
        })
        .collect()
}

#[test]
fn every_real_map_against_othermaplib() {
    let Some(ds) = common::datasets() else { return };
    let golden = othermaplib(&ds);
    let dir = ds.join("maps");
    let files = common::files_with_ext(&dir, "map");
    assert_eq!(files.len(), 249);
    let mut inflater = Inflater::default();
    let mut scratch = Vec::new();
    let (mut ok_rows, mut error_rows, mut summaries) = (0, 0, 0);
    for path in &files {
        let rel = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = std::fs::read(path).unwrap();
        let Ok(df) = Datafile::parse(&bytes) else {
            continue;
        };
        inflater.start_file();
        let summary = summarize(&df, &mut inflater, &mut scratch);
        inflater.start_file();
        let mut full_warnings = Vec::new();
        let full = Map::parse(&df, &mut inflater, &mut scratch, &mut full_warnings);
        // Every real map gives a summary; the map part never fails.
        let summary = summary.unwrap_or_else(|e| panic!("{rel}: summary {e}"));
        let full = full.unwrap_or_else(|e| panic!("{rel}: map {e}"));
        summaries += 1;
        let (status, fields) = golden
            .get(&rel)
            .unwrap_or_else(|| panic!("{rel} not in golden"));
        if status == "ok" {
            ok_rows += 1;
            let map = full.unwrap_or_else(|| panic!("{rel}: absent"));
            let kind = match map.kind {
                MapVersionKind::DDNet06 => "DDNet06",
                MapVersionKind::Teeworlds07 => "Teeworlds07",
            };
            let mut layers = map.layers.len();
            if rel == "teeworlds-history/data_maps__Frats_2_Kinetik__61821468.map" {
                // Four duplicate physics layers the other library drops; we
                // keep every layer item and warn.
                let dups = full_warnings
                    .iter()
                    .filter(|w| w.kind == MapWarningKind::DuplicatePhysicsLayer)
                    .count();
                assert_eq!((layers, dups), (15, 4));
                layers -= dups;
            }
            let mine = format!(
                "version={kind}\tgroups={}\tlayers={layers}\timages={}\tenvelopes={}\tsounds={}",
                map.groups.len(),
                map.images.len(),
                map.envelopes.len(),
                map.sounds.len()
            );
            assert_eq!(&mine, fields, "{rel}");
            assert_eq!(summary.version_kind, kind.to_ascii_lowercase());
            let c = summary.counts.unwrap();
            assert_eq!((c.groups, c.layers), (map.groups.len(), map.layers.len()));
        } else {
            error_rows += 1;
            check_rejected_case(&rel, fields, &df, full.as_ref(), &full_warnings);
        }
    }
    assert_eq!((summaries, ok_rows, error_rows), (249, 201, 48));
}

/// What the view does with each map the other library rejects.
fn check_rejected_case(
    rel: &str,
    message: &str,
    df: &Datafile<'_>,
    map: Option<&Map>,
    warnings: &[MapWarning],
) {
    let present = || map.unwrap_or_else(|| panic!("{rel}: absent"));
    // The warnings of a map that is there.
    let present_w = || {
        present();
        warnings
    };
    if message.contains("is not a valid external image") {
        // Policy of the other library (a list of known mapres names): not
        // copied. The map reads fine and its external image is there.
        let m = present();
        assert!(m.images.iter().any(|i| i.external), "{rel}");
    } else if message.contains("External sounds are not supported") {
        assert!(
            has_warning(
                present_w(),
                MapWarningKind::ExternalSound,
                MapSection::Sound(0)
            ),
            "{rel}"
        );
    } else if message.contains("Expected a single item, got 0") {
        // 2007 prototype maps: a datafile, no map part.
        assert_eq!(
            absent_reason(df),
            Some(AbsentReason::NoVersionItem),
            "{rel}"
        );
        assert!(df.item_types().iter().any(|t| t.type_id >= 0x8001), "{rel}");
        assert!(map.is_none());
    } else if message.contains("Not a single tilemap layer") {
        // The 64-byte stub: a version item and nothing else.
        assert_eq!(absent_reason(df), Some(AbsentReason::NoLayers), "{rel}");
        assert_eq!(df.bytes().len(), 64);
    } else if message.contains("String was missing a nul byte") {
        assert!(
            has_warning(
                present_w(),
                MapWarningKind::StringUnterminated,
                MapSection::Group(0)
            ),
            "{rel}"
        );
    } else if message.contains("Invalid curve kind") {
        assert!(
            has_warning(
                present_w(),
                MapWarningKind::BadCurveType,
                MapSection::EnvPoints
            ),
            "{rel}"
        );
    } else if message.contains("Optional index 'position envelope' (-2)") {
        assert!(
            has_warning(
                present_w(),
                MapWarningKind::RefOutOfRange,
                MapSection::Layer(0)
            ),
            "{rel}"
        );
    } else if message.contains("Variant is set to another one than RGBA") {
        // A 0.7 RGB image: read as such.
        assert_eq!(present().images[12].variant, ImageVariant::Rgb, "{rel}");
    } else if message.contains("The data index is negative (-1)") {
        // Its images have no name (name index -1).
        assert!(
            has_warning(
                present_w(),
                MapWarningKind::MissingName,
                MapSection::Image(0)
            ),
            "{rel}"
        );
    } else {
        panic!("{rel}: unhandled golden error {message}");
    }
}

/// Second path: the game (or any physics) layer located by reading the raw
/// item ints, its data inflated with flate2, ids counted with a plain loop.
struct RawLayer {
    width: usize,
    height: usize,
    tiles: Vec<u8>,
}

fn raw_physics_layer(df: &Datafile<'_>, flag: i32, slot: Option<usize>) -> Option<RawLayer> {
    let item = df
        .items_of_type(5)
        .filter(|it| it.data.get(1) == Some(2) && it.data.get(6) == Some(flag))
        .last()?;
    let d = item.data.to_vec();
    let data_index = match slot {
        None => d[14],
        Some(k) => d[if d[3] <= 2 { 15 } else { 18 } + k],
    } as usize;
    let mut tiles = Vec::new();
    flate2::read::ZlibDecoder::new(df.data_raw(data_index)?)
        .read_to_end(&mut tiles)
        .ok()?;
    Some(RawLayer {
        width: d[4] as usize,
        height: d[5] as usize,
        tiles,
    })
}

#[test]
fn spot_checks_against_a_second_path() {
    let Some(dir) = maps_dir() else { return };
    for rel in [
        "ddnet/Tutorial.map",
        "ddnet/coverage.map",
        "DDNetPP/maps__BlmapChill__1a467009.map",
    ] {
        let bytes = read(&dir, rel);
        let df = Datafile::parse(&bytes).unwrap();
        let s = summarize(&df, &mut Inflater::default(), &mut Vec::new()).unwrap();
        let stats = s.stats.unwrap();
        let game = raw_physics_layer(&df, 1, None).unwrap();
        assert_eq!(game.tiles.len(), game.width * game.height * 4);
        let count = |id: u8| game.tiles.chunks(4).filter(|t| t[0] == id).count() as u64;
        assert_eq!(stats.game_width, Some(game.width as u32), "{rel}");
        assert_eq!(stats.game_height, Some(game.height as u32), "{rel}");
        let e = stats.game_entities;
        assert_eq!(
            [
                e.spawn,
                e.spawn_red,
                e.spawn_blue,
                e.armor,
                e.health,
                e.shotgun,
                e.grenade,
                e.laser
            ],
            [192u8, 193, 194, 197, 198, 199, 200, 202].map(count),
            "{rel}"
        );
        assert_eq!(
            stats.non_empty_tiles.game,
            Some((game.width * game.height) as u64 - count(0))
        );
        // Tele: type byte at offset 1 of 2-byte tiles.
        if let Some(tele) = raw_physics_layer(&df, 2, Some(0)) {
            let telein = tele.tiles.chunks(2).filter(|t| t[1] == 26).count();
            assert_eq!(stats.special_tiles.contains(&"TELEIN"), telein > 0, "{rel}");
            let non_empty = tele.tiles.chunks(2).filter(|t| t[1] != 0).count() as u64;
            assert_eq!(stats.non_empty_tiles.tele, Some(non_empty), "{rel}");
        }
        // Speedup: type byte at offset 2 of 6-byte tiles.
        if let Some(sp) = raw_physics_layer(&df, 4, Some(1)) {
            let boosts = sp.tiles.chunks(6).filter(|t| t[2] == 28).count();
            assert_eq!(stats.special_tiles.contains(&"BOOST"), boosts > 0, "{rel}");
        }
    }

    // Facts of these maps.
    let bytes = read(&dir, "ddnet/Tutorial.map");
    let df = Datafile::parse(&bytes).unwrap();
    let s = summarize(&df, &mut Inflater::default(), &mut Vec::new()).unwrap();
    let st = s.stats.as_ref().unwrap();
    assert_eq!((st.game_width, st.game_height), (Some(2210), Some(110)));
    assert_eq!(st.game_entities.spawn, 1);
    let info = s.info.as_ref().unwrap();
    assert_eq!(info.author.as_deref(), Some("unique2, Alisa"));
    assert_eq!(info.license.as_deref(), Some("CC-BY-SA"));
    assert_eq!(info.settings, vec!["sv_show_others_default 1", "sv_team 0"]);
    assert_eq!(s.uuid_types.len(), 1);
    assert_eq!(s.uuid_types[0].type_id, 0xfffe);
    assert_eq!(
        s.uuid_types[0].name,
        Some("mapitemtype-automapper-config@ddnet.tw")
    );
    assert_eq!(s.uuid_types[0].items, 25);

    // coverage.map: every DDNet layer, 50 × 50, one spawn in game and front.
    let bytes = read(&dir, "ddnet/coverage.map");
    let df = Datafile::parse(&bytes).unwrap();
    let s = summarize(&df, &mut Inflater::default(), &mut Vec::new()).unwrap();
    let st = s.stats.as_ref().unwrap();
    assert_eq!((st.game_width, st.game_height), (Some(50), Some(50)));
    assert_eq!((st.game_entities.spawn, st.front_entities.spawn), (1, 1));
    let c = s.counts.unwrap();
    assert_eq!(
        [
            c.layers_game,
            c.layers_front,
            c.layers_tele,
            c.layers_speedup,
            c.layers_switch,
            c.layers_tune
        ],
        [1; 6]
    );
    assert_eq!(
        s.info.as_ref().unwrap().settings,
        vec!["tune_zone 1 gravity 2", "tune_zone_enter 1 gravity 2"]
    );
    for name in [
        "BOOST",
        "DOOR",
        "SWITCH",
        "TUNE",
        "TELEIN",
        "DFREEZE",
        "EHOOK_START",
        "HIT_END",
    ] {
        // Former names (SWITCH, EHOOK_START, HIT_END) find their tiles by
        // their current names.
        assert!(
            current_names(name)
                .iter()
                .any(|n| st.special_tiles.contains(n)),
            "coverage lacks {name}: {:?}",
            st.special_tiles
        );
    }
    assert!(st.special_tiles.contains(&"EHOOK_ENABLE"));
    assert!(st.special_tiles.contains(&"HIT_DISABLE"));
    assert!(!st.special_tiles.contains(&"SOLID"));
    let mut sorted = st.special_tiles.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted, st.special_tiles);

    // A DDNetPP block map with tele, speedup and switch layers.
    let bytes = read(&dir, "DDNetPP/maps__BlmapChill__1a467009.map");
    let df = Datafile::parse(&bytes).unwrap();
    let s = summarize(&df, &mut Inflater::default(), &mut Vec::new()).unwrap();
    let st = s.stats.unwrap();
    assert!(st.non_empty_tiles.tele.unwrap() > 0 && st.non_empty_tiles.speedup.unwrap() > 0);
    assert!(st.non_empty_tiles.switch.unwrap() > 0);
    for name in [
        "TELEIN",
        "TELEOUT",
        "BOOST",
        "SWITCH",
        "DOOR",
        "LASER_STOP",
        "DRAGGER",
    ] {
        assert!(
            current_names(name)
                .iter()
                .any(|n| st.special_tiles.contains(n)),
            "BlmapChill lacks {name}"
        );
    }
}

#[test]
fn old_ddrace_layouts() {
    let Some(dir) = maps_dir() else { return };
    // Tilemap version 2 with the DDRace fields at int 15 and early 4-byte
    // speedup / 2-byte switch tiles.
    let bytes = read(&dir, "teeworlds-history/data_maps__Test__a87798d4.map");
    let df = Datafile::parse(&bytes).unwrap();
    let s = summarize(&df, &mut Inflater::default(), &mut Vec::new()).unwrap();
    let mut legacy: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == MapWarningKind::LegacyTileFormat)
        .map(|w| w.section)
        .collect();
    legacy.sort();
    assert_eq!(legacy, vec![MapSection::Layer(2), MapSection::Layer(5)]);
    let (df, map, _) = parse_full(&bytes);
    let map = map.unwrap().unwrap();
    let LayerKind::Tilemap(tm) = &map.layers[5].kind else {
        panic!()
    };
    assert_eq!(
        (tm.version, tm.kind, tm.special_data),
        (2, PhysicsKind::Speedup, Some(12))
    );
    let tiles = map
        .load_tiles(&df, 5, &mut Inflater::default(), &mut Vec::new())
        .unwrap()
        .unwrap();
    assert_eq!(tiles.bytes.len(), 110 * 117 * 6);
}

#[test]
fn tile_skip_maps_expand_to_width_times_height() {
    let Some(dir) = maps_dir() else { return };
    let mut checked = 0;
    for rel in [
        "teeworlds-history/bin_maps__dm2__d92cfa9a.map",
        "teeworlds-history/bin_maps__ctf5__faa0f01c.map",
        "tw-themes/winter_day.map",
    ] {
        let bytes = read(&dir, rel);
        let (df, map, _) = parse_full(&bytes);
        let map = map.unwrap().unwrap();
        assert_eq!(map.kind, MapVersionKind::Teeworlds07, "{rel}");
        let mut inflater = Inflater::default();
        let mut scratch = Vec::new();
        for (i, l) in map.layers.iter().enumerate() {
            let LayerKind::Tilemap(tm) = &l.kind else {
                continue;
            };
            assert!(tm.tile_skip(), "{rel} layer {i}");
            let t = map
                .load_tiles(&df, i, &mut inflater, &mut scratch)
                .unwrap()
                .unwrap();
            assert_eq!((t.width, t.height), (tm.width as usize, tm.height as usize));
            assert_eq!(t.bytes.len(), t.width * t.height * 4, "{rel} layer {i}");
            // Packed data really is shorter, and skip bytes are cleared.
            assert!(scratch.len() < t.bytes.len());
            assert!(t.bytes.chunks(4).all(|c| c[2] == 0));
            // The run-weighted histogram equals counting the expansion.
            let mut w = Vec::new();
            let h = map
                .tile_histogram(&df, i, &mut inflater, &mut scratch, &mut w)
                .unwrap()
                .unwrap();
            let mut counts = [0u64; 256];
            for id in t.ids() {
                counts[id as usize] += 1;
            }
            assert_eq!(h.counts, counts);
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked}");
}

/// A minimal map: version item, one game group, the given layer items and
/// data blocks.
fn tiny_map(layers: &[Vec<i32>], data: &[Vec<u8>]) -> Vec<u8> {
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_item(
        4,
        0,
        &[
            3,
            0,
            0,
            100,
            100,
            0,
            layers.len() as i32,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
        ],
    );
    for (i, l) in layers.iter().enumerate() {
        w.add_item(5, i as u16, l);
    }
    for d in data {
        w.add_data(d);
    }
    w.write()
}

fn game_layer(version: i32, width: i32, height: i32, data: i32) -> Vec<i32> {
    let mut v = vec![
        0, 2, 0, version, width, height, 1, 255, 255, 255, 255, -1, 0, -1, data,
    ];
    v.extend([0, 0, 0]);
    v
}

fn summary_of(bytes: &[u8]) -> Result<teebatch::map::MapSummary, teebatch::map::MapError> {
    let df = Datafile::parse(bytes).unwrap();
    summarize(&df, &mut Inflater::default(), &mut Vec::new())
}

#[test]
fn hostile_layers() {
    let ok = tiny_map(&[game_layer(3, 2, 2, 0)], &[vec![0; 16]]);
    assert_eq!(summary_of(&ok).unwrap().stats.unwrap().game_width, Some(2));

    // 2^30 × 2^30 tiles: refused against the limit before any allocation.
    let huge = tiny_map(&[game_layer(3, 1 << 30, 1 << 30, 0)], &[vec![0; 16]]);
    let e = summary_of(&huge).unwrap_err();
    assert_eq!(
        (e.kind, e.section),
        (MapErrorKind::LimitExceeded, MapSection::Layer(0))
    );
    // Within the limit but not what the data holds.
    let big = tiny_map(&[game_layer(3, 1 << 12, 1 << 12, 0)], &[vec![0; 16]]);
    assert_eq!(
        summary_of(&big).unwrap_err().kind,
        MapErrorKind::TileDataSize
    );
    // The same with tile skip: 16 bytes cannot cover 2^24 tiles.
    let big = tiny_map(&[game_layer(4, 1 << 12, 1 << 12, 0)], &[vec![0; 16]]);
    assert_eq!(
        summary_of(&big).unwrap_err().kind,
        MapErrorKind::TileSkipShort
    );
    // Negative and zero sizes.
    for (w, h) in [(-1, 2), (2, -5), (0, 3), (i32::MIN, i32::MIN)] {
        let m = tiny_map(&[game_layer(3, w, h, 0)], &[vec![0; 16]]);
        assert_eq!(
            summary_of(&m).unwrap_err().kind,
            MapErrorKind::BadLayerSize,
            "{w}×{h}"
        );
    }
    // Tile data index out of range or negative.
    for d in [1, -1, i32::MAX] {
        let m = tiny_map(&[game_layer(3, 2, 2, d)], &[vec![0; 16]]);
        let e = summary_of(&m).unwrap_err();
        assert_eq!(
            (e.kind, e.section),
            (MapErrorKind::BadDataRef, MapSection::Layer(0))
        );
    }
    // Skip runs past the end, and runs ending short.
    let m = tiny_map(&[game_layer(4, 2, 2, 0)], &[vec![1, 0, 3, 0, 1, 0, 0, 0]]);
    let e = summary_of(&m).unwrap_err();
    assert_eq!(
        (e.kind, e.section),
        (MapErrorKind::TileSkipOverrun, MapSection::Layer(0))
    );
    let m = tiny_map(&[game_layer(4, 2, 2, 0)], &[vec![1, 0, 2, 0]]);
    assert_eq!(
        summary_of(&m).unwrap_err().kind,
        MapErrorKind::TileSkipShort
    );
    let m = tiny_map(&[game_layer(4, 2, 2, 0)], &[vec![1, 0, 3, 0]]);
    assert_eq!(
        summary_of(&m).unwrap().stats.unwrap().non_empty_tiles.game,
        Some(4)
    );

    // Out-of-range image and envelope refs are warnings.
    let mut l = game_layer(3, 2, 2, 0);
    l[11] = 7; // color envelope
    l[13] = -2; // image
    let m = tiny_map(&[l], &[vec![0; 16]]);
    let s = summary_of(&m).unwrap();
    let refs: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == MapWarningKind::RefOutOfRange)
        .map(|w| w.section)
        .collect();
    assert_eq!(refs, vec![MapSection::Layer(0); 2]);
    // Non-zero skip/reserved bytes in uncompressed tiles are a warning.
    let m = tiny_map(
        &[game_layer(3, 2, 2, 0)],
        &[vec![0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
    );
    let s = summary_of(&m).unwrap();
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == MapWarningKind::NonZeroTilePadding));
    // A group whose layer range is out of bounds.
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_item(4, 0, &[3, 0, 0, 100, 100, 5, i32::MAX, 0, 0, 0, 0, 0]);
    w.add_item(5, 0, &game_layer(3, 2, 2, 0));
    w.add_data(&[0; 16]);
    let s = summary_of(&w.write()).unwrap();
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == MapWarningKind::GroupLayerRange));
    // A group item of an unknown length.
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    w.add_item(4, 0, &[3, 0, 0, 100, 100, 0, 1, 0, 0]);
    w.add_item(5, 0, &game_layer(3, 2, 2, 0));
    w.add_data(&[0; 16]);
    let s = summary_of(&w.write()).unwrap();
    let odd: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.kind == MapWarningKind::OddItemSize)
        .map(|w| w.section)
        .collect();
    assert_eq!(odd, vec![MapSection::Group(0)]);
    // Truncated items are errors, not panics.
    let m = tiny_map(&[vec![0, 2, 0, 3, 2]], &[]);
    assert_eq!(summary_of(&m).unwrap_err().kind, MapErrorKind::ItemTooShort);
    // An unsupported map version.
    let mut w = DatafileWriter::new();
    w.add_item(0, 0, &[7]);
    w.add_item(5, 0, &game_layer(3, 2, 2, 0));
    assert_eq!(
        summary_of(&w.write()).unwrap_err().kind,
        MapErrorKind::UnsupportedVersion
    );
}

#[test]
fn summary_json_field_names() {
    let mut l = game_layer(3, 2, 2, 0);
    l[13] = 5; // image out of range
    let m = tiny_map(
        &[l],
        &[vec![0, 0, 0, 0, 192, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0]],
    );
    let v = serde_json::to_value(summary_of(&m).unwrap()).unwrap();
    assert_eq!(v["version_kind"], "ddnet06");
    assert_eq!(v["absent_reason"], serde_json::Value::Null);
    assert_eq!(v["counts"]["layers_game"], 1);
    assert_eq!(v["stats"]["game_width"], 2);
    assert_eq!(v["stats"]["game_entities"]["spawn"], 1);
    assert_eq!(v["stats"]["non_empty_tiles"]["game"], 2);
    assert_eq!(
        v["stats"]["non_empty_tiles"]["tele"],
        serde_json::Value::Null
    );
    assert_eq!(v["stats"]["special_tiles"], serde_json::json!(["DEATH"]));
    // The offset is that of the image field (int 13) of the layer item.
    let df = Datafile::parse(&m).unwrap();
    let field = df.items_of_type(5).next().unwrap().offset + 8 + 4 * 13;
    assert_eq!(field, 232);
    assert_eq!(
        v["warnings"],
        serde_json::json!([{"kind": "ref_out_of_range", "section": "layer 0", "offset": field}])
    );
    let stub = {
        let mut w = DatafileWriter::new();
        w.add_item(0, 0, &[1]);
        w.write()
    };
    let v = serde_json::to_value(summary_of(&stub).unwrap()).unwrap();
    assert_eq!(
        (v["version_kind"].as_str(), v["absent_reason"].as_str()),
        (Some("absent"), Some("no_layers"))
    );
}

#[test]
fn duplicate_uuid_index_items_are_tolerated() {
    let Some(dir) = maps_dir() else { return };
    let bytes = read(&dir, "Teero888-ddnet_physics/f2f67a5d__run_antibuguse.map");
    let df = Datafile::parse(&bytes).unwrap();
    let s = summarize(&df, &mut Inflater::default(), &mut Vec::new()).unwrap();
    assert!(s
        .warnings
        .iter()
        .any(|w| w.kind == MapWarningKind::DuplicateUuidIndex));
    assert_eq!(s.uuid_types.len(), 1);
}

#[test]
fn synth_maps_yield_what_was_placed() {
    for seed in 0..12u64 {
        let mut p = SynthParams::new(
            seed,
            20 + (seed as u32 * 7) % 90,
            15 + (seed as u32 * 13) % 70,
        );
        if seed % 2 == 0 {
            p = p.with_all_layers();
        } else {
            p.tele = seed % 3 == 0;
            p.switch = seed % 4 == 1;
        }
        p.tile_skip = seed % 3 == 1;
        let m = synth::build(&p);
        assert_eq!(
            synth::generate(&p),
            m.bytes,
            "seed {seed}: not deterministic"
        );
        let df = Datafile::parse(&m.bytes).unwrap();
        let s = summarize(&df, &mut Inflater::default(), &mut Vec::new()).unwrap();
        assert!(s.warnings.is_empty(), "seed {seed}: {:?}", s.warnings);
        assert_eq!(s.stats.as_ref(), Some(&m.stats), "seed {seed}");
        assert_eq!(s.counts, Some(m.counts), "seed {seed}");
        let info = s.info.unwrap();
        assert_eq!(info.author.as_deref(), Some(m.author.as_str()));
        assert_eq!(info.settings, m.settings);
        assert_eq!(
            s.uuid_types[0].name,
            Some("mapitemtype-automapper-config@ddnet.tw")
        );
        assert_eq!(
            s.version_kind,
            if p.tile_skip {
                "teeworlds07"
            } else {
                "ddnet06"
            }
        );
        // The full view agrees and every layer's tiles load.
        let (df, map, warnings) = parse_full(&m.bytes);
        let map = map.unwrap().unwrap();
        assert!(warnings.is_empty(), "seed {seed}: {:?}", warnings);
        assert_eq!(MapCounts::of(&map), m.counts);
        assert_eq!(map.images[0].name.as_deref(), Some("grass_main"));
        assert_eq!(map.groups[0].name, "Game");
        for i in 0..map.layers.len() {
            if let Some(t) = map
                .load_tiles(&df, i, &mut Inflater::default(), &mut Vec::new())
                .unwrap()
            {
                assert_eq!(t.bytes.len(), t.width * t.height * t.kind.tile_size());
            }
        }
    }
    // Different seeds give different maps.
    assert_ne!(
        synth::generate(&SynthParams::new(1, 30, 30)),
        synth::generate(&SynthParams::new(2, 30, 30))
    );
}

fn flip_targets() -> Option<Vec<Vec<u8>>> {
    let dir = maps_dir()?;
    Some(
        [
            "ddnet/coverage.map",
            "Teero888-ddnet_physics/2c9be3e3__ctf0.map",
            "teeworlds-history/bin_maps__dm2__d92cfa9a.map",
            "teeworlds-history/data_maps__Test__a87798d4.map",
        ]
        .iter()
        .map(|r| read(&dir, r))
        .collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Random byte flips inside item data never make the view panic.
    #[test]
    fn item_byte_flips_never_panic(which in 0usize..4, picks in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 1u8..=255), 1..6)) {
        let Some(maps) = flip_targets() else { return Ok(()) };
        let mut bytes = maps[which].clone();
        let ranges: Vec<(usize, usize)> = {
            let df = Datafile::parse(&maps[which]).unwrap();
            df.items().map(|it| (it.offset + 8, it.data.len() * 4)).filter(|r| r.1 > 0).collect()
        };
        for (item, byte, x) in picks {
            let (start, len) = ranges[item.index(ranges.len())];
            bytes[start + byte.index(len)] ^= x;
        }
        if let Ok(df) = Datafile::parse(&bytes) {
            let mut inflater = Inflater::default();
            let mut scratch = Vec::new();
            let _ = summarize(&df, &mut inflater, &mut scratch);
            inflater.start_file();
            if let Ok(Some(map)) = Map::parse(&df, &mut inflater, &mut scratch, &mut Vec::new()) {
                for i in 0..map.layers.len() {
                    let _ = map.load_tiles(&df, i, &mut inflater, &mut scratch);
                }
            }
        }
    }
}

/// `maps index --max-warnings N` caps the datafile's warnings: a map with
/// trailing bytes and a wrong `swaplen` has two; one is kept with N = 1,
/// then `too_many_warnings` at the second one's place.
#[test]
fn max_warnings_caps_the_datafile_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.map");
    let mut bytes = synth::generate(&SynthParams::new(3, 20, 20));
    bytes.extend_from_slice(b"trailing");
    // The header's `swaplen` (bytes 12..16, after magic, version and size)
    // one too small.
    let swaplen = i32::from_le_bytes(bytes[12..16].try_into().unwrap());
    bytes[12..16].copy_from_slice(&(swaplen - 1).to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let p = path.to_str().unwrap();
    let kinds = |recs: &[serde_json::Value]| -> Vec<(String, String)> {
        recs[0]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                (
                    w["stage"].as_str().unwrap().to_owned(),
                    w["kind"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let all = kinds(&common::run_records(&["maps", "index", "-q", p], 0));
    let df = |k: &str| ("datafile".to_owned(), k.to_owned());
    assert_eq!(
        all,
        [df("swaplen_mismatch"), df("trailing_bytes")],
        "{all:?}"
    );
    let one = kinds(&common::run_records(
        &["maps", "index", "-q", "--max-warnings", "1", p],
        0,
    ));
    assert_eq!(one, [df("swaplen_mismatch"), df("too_many_warnings")]);
    let none = kinds(&common::run_records(
        &["maps", "index", "-q", "--max-warnings", "0", p],
        0,
    ));
    assert_eq!(none, [df("too_many_warnings")]);
}
