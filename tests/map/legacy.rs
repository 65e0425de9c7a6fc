//! Teeworlds 0.3 maps (`MAPRES_*` items, no version item): the 11 historic
//! maps of the shared datasets get the statistics and the entities picture
//! of what the game read of them (`src/map/legacy.rs`).
//!
//! The expected tile counts were computed by a separate reading of the
//! files (a Python script over the raw datafile: item table, zlib blocks,
//! the collision map's bytes, entities at `(x / 32, y / 32)`), and are
//! checked again here by [`independent_counts`], which reads the items
//! through the datafile layer only and inflates with flate2.

use crate::common::{datasets, run_records};
use std::collections::BTreeMap;
use std::io::Read;
use teebatch::datafile::{Datafile, InflateLimits, Inflater};
use teebatch::map::legacy;
use teebatch::render::entities::{BACKGROUND, LEGEND};
use teebatch::render::{render_map, RenderOptions, Size, Style, Textures};

/// (file, width, height, air, solid, tilemaps): every one has 2 images.
const MAPS: &[(&str, u64, u64, u64, u64, usize)] = &[
    ("data_maps__ctf1_old__c48d84ac.map", 70, 50, 1487, 1975, 6),
    ("data_maps__ctf2__07ff79e9.map", 220, 90, 7699, 12012, 3),
    ("data_maps__ctf2__0984d42d.map", 220, 90, 7699, 12012, 3),
    ("data_maps__ctf2__243712ee.map", 220, 90, 7699, 12012, 3),
    ("data_maps__ctf2__272ac8b8.map", 220, 90, 7709, 12002, 5),
    ("data_maps__ctf2__4e733dfd.map", 220, 90, 7709, 12002, 5),
    ("data_maps__ctf2__69e2a368.map", 220, 90, 7705, 12006, 3),
    ("data_maps__ctf2__75105b20.map", 220, 90, 7705, 12006, 3),
    ("data_maps__ctf2__7c92e360.map", 220, 90, 7713, 11998, 5),
    ("data_maps__dm2_old__65ea2ce9.map", 130, 90, 5581, 6070, 7),
    ("data_maps__dm6_old__b7868279.map", 90, 70, 2558, 3697, 7),
];

/// Entity tiles (id → count) of each map family.
fn entities(file: &str) -> BTreeMap<u64, u64> {
    let v: &[(u64, u64)] = if file.contains("ctf1_old") {
        &[
            (193, 4),
            (194, 4),
            (195, 1),
            (196, 1),
            (197, 14),
            (198, 8),
            (199, 2),
            (200, 4),
        ]
    } else if file.contains("ctf2") {
        &[
            (193, 7),
            (194, 7),
            (195, 1),
            (196, 1),
            (197, 34),
            (198, 26),
            (199, 4),
            (200, 8),
            (201, 1),
        ]
    } else if file.contains("dm2_old") {
        &[(192, 7), (197, 12), (198, 21), (199, 4), (200, 4), (201, 1)]
    } else {
        &[
            (192, 10),
            (197, 16),
            (198, 12),
            (199, 3),
            (200, 3),
            (201, 1),
        ]
    };
    v.iter().copied().collect()
}

/// The game layer's id counts read without the map view: the collision
/// map item (0x8003: width, height, data) inflated with flate2, entity items
/// 1..=6 placed as the importer placed them.
fn independent_counts(bytes: &[u8]) -> (u64, u64, BTreeMap<u64, u64>) {
    let df = Datafile::parse(bytes).unwrap();
    let col = df.items_of_type(0x8003).next().unwrap();
    let (w, h, d) = (
        col.data.get(0).unwrap(),
        col.data.get(1).unwrap(),
        col.data.get(2).unwrap(),
    );
    let mut grid = Vec::new();
    flate2::read::ZlibDecoder::new(df.data_raw(d as usize).unwrap())
        .read_to_end(&mut grid)
        .unwrap();
    assert_eq!(grid.len() as i32, w * h);
    for t in 1..=6u16 {
        for e in df.items_of_type(t) {
            let (x, y) = (e.data.get(0).unwrap() / 32, e.data.get(1).unwrap() / 32);
            let entity = match (t, e.data.get(2)) {
                (1, _) => 1,
                (3, _) => 2,
                (4, _) => 3,
                (5, _) => 4,
                (6, _) => 5,
                (2, Some(0x10002)) => 8,
                (2, Some(0x10003)) => 9,
                (2, Some(0x40001)) => 10,
                (2, Some(0x30001)) => 6,
                (2, Some(0x20001)) => 7,
                other => panic!("unexpected entity {other:?}"),
            };
            assert!(x >= 0 && y >= 0 && x < w && y < h);
            grid[(y * w + x) as usize] = 191 + entity;
        }
    }
    let mut counts = BTreeMap::new();
    for id in grid {
        *counts.entry(u64::from(id)).or_insert(0) += 1;
    }
    (w as u64, h as u64, counts)
}

#[test]
fn teeworlds03_maps_get_stats() {
    let Some(ds) = datasets() else {
        return;
    };
    let dir = ds.join("maps/teeworlds-history");
    let paths: Vec<String> = MAPS
        .iter()
        .map(|m| dir.join(m.0).to_str().unwrap().to_owned())
        .collect();
    let mut args = vec!["maps", "index", "-q"];
    args.extend(paths.iter().map(String::as_str));
    let recs = run_records(&args, 0);
    assert_eq!(recs.len(), MAPS.len());
    for (r, &(file, w, h, air, solid, tilemaps)) in recs.iter().zip(MAPS) {
        let m = &r["map"];
        assert_eq!(m["version_kind"], "teeworlds03", "{file}");
        assert!(m["absent_reason"].is_null(), "{file}");
        assert!(m["info"].is_null(), "{file}");
        let st = &m["stats"];
        assert_eq!(
            (st["game_width"].as_u64(), st["game_height"].as_u64()),
            (Some(w), Some(h))
        );
        let mut want = entities(file);
        want.insert(1, solid);
        let got: BTreeMap<u64, u64> = st["tiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                assert_eq!(t["layer"], "game");
                (t["id"].as_u64().unwrap(), t["count"].as_u64().unwrap())
            })
            .collect();
        assert_eq!(got, want, "{file}");
        assert_eq!(
            st["non_empty_tiles"]["game"].as_u64(),
            Some(w * h - air),
            "{file}"
        );
        // Every tile is named (solid and vanilla entities), none special.
        assert!(st["tiles"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"].is_string()));
        assert_eq!(st["special_tiles"], serde_json::json!([]));
        let e = &st["game_entities"];
        assert_eq!(e["armor"].as_u64(), want.get(&197).copied().or(Some(0)));
        assert_eq!(e["health"].as_u64(), want.get(&198).copied().or(Some(0)));
        assert_eq!(e["flag_red"].as_u64(), want.get(&195).copied().or(Some(0)));
        let c = &m["counts"];
        assert_eq!(c["images_embedded"], 2, "{file}");
        assert_eq!(c["layers_tiles"].as_u64(), Some(tilemaps as u64), "{file}");
        assert_eq!(c["layers_game"], 1);
        assert!(r
            .get("warnings")
            .is_none_or(|w| w.as_array().unwrap().is_empty()));

        // The same figures from the raw items.
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let (iw, ih, mut counts) = independent_counts(&bytes);
        assert_eq!((iw, ih), (w, h));
        assert_eq!(counts.remove(&0), Some(air), "{file}");
        assert_eq!(counts, want, "{file}");
    }
}

/// dm6_old in the entities style: its size, a spawn and a solid tile in
/// their palette colours; the full style says why it does not draw it.
#[test]
fn teeworlds03_map_pictures() {
    let Some(ds) = datasets() else {
        return;
    };
    let bytes =
        std::fs::read(ds.join("maps/teeworlds-history/data_maps__dm6_old__b7868279.map")).unwrap();
    let df = Datafile::parse(&bytes).unwrap();
    assert!(legacy::is_legacy(&df));
    let textures = Textures::palette();
    let mut inf = Inflater::new(InflateLimits::default());
    let opts = RenderOptions {
        style: Style::Entities,
        size: Size::Scale(4),
    };
    let pic = render_map(&bytes, &opts, &textures, &mut inf, &mut Vec::new()).unwrap();
    assert_eq!((pic.canvas.width, pic.canvas.height), (90 * 4, 70 * 4));
    let colour = |label: &str| LEGEND.iter().find(|r| r.0 == label).unwrap().3;
    let at = |tx: u32, ty: u32| {
        let i = ((ty * 4 * pic.canvas.width + tx * 4) * 3) as usize;
        [
            pic.canvas.rgb[i],
            pic.canvas.rgb[i + 1],
            pic.canvas.rgb[i + 2],
        ]
    };
    // The first spawn item is at (752, 368): tile (23, 11).
    assert_eq!(at(23, 11), colour("spawn"));
    // Row 0 is solid in the collision map (the map's border).
    assert_eq!(at(0, 0), colour("hookable"));
    assert!((0..90).any(|x| (0..70).any(|y| at(x, y) == BACKGROUND)));
    let labels: Vec<&str> = pic.legend.iter().map(|e| e.label.as_str()).collect();
    assert!(
        labels.contains(&"spawn") && labels.contains(&"hookable"),
        "{labels:?}"
    );

    let full = RenderOptions {
        style: Style::Full,
        size: Size::Scale(4),
    };
    let err = render_map(&bytes, &full, &textures, &mut inf, &mut Vec::new()).unwrap_err();
    assert_eq!(err.error.kind, "no_map");
    assert!(
        err.error.message.contains("Teeworlds 0.3"),
        "{}",
        err.error.message
    );
}

/// A collision map whose data block is not width × height bytes is an
/// error naming the block; an entity outside the map is a warning.
#[test]
fn teeworlds03_bad_collision_and_dropped_entities() {
    use teebatch::datafile::DatafileWriter;
    let write = |w: i32, h: i32, cells: usize, x: i32| {
        let mut df = DatafileWriter::new();
        let d = df.add_data(&vec![1u8; cells]) as i32;
        df.add_item(0x8003, 0, &[w, h, d]);
        df.add_item(1, 0, &[x, 40]);
        df.add_item(2, 0, &[40, 40, 0x10001]);
        df.write()
    };
    let summary = |bytes: &[u8]| {
        let df = Datafile::parse(bytes).unwrap();
        teebatch::map::summarize(&df, &mut Inflater::default(), &mut Vec::new())
    };
    let err = summary(&write(4, 3, 11, 40)).unwrap_err();
    assert_eq!(err.kind.kind(), "tile_data_size");
    assert_eq!(err.section.to_string(), "data 0");
    let err = summary(&write(0, 3, 0, 40)).unwrap_err();
    assert_eq!(err.kind.kind(), "bad_layer_size");

    let s = summary(&write(4, 3, 12, 4 * 32)).unwrap();
    assert_eq!(s.version_kind, "teeworlds03");
    let kinds: Vec<String> = s
        .warnings
        .iter()
        .map(|w| format!("{} {}", w.kind, w.section))
        .collect();
    // The spawn at x = 128 (tile 4 of a 4-wide map) and the gun pickup.
    assert_eq!(
        kinds,
        [
            "legacy_entity_dropped item 1",
            "legacy_entity_dropped item 2"
        ]
    );
    let st = s.stats.unwrap();
    assert_eq!(st.non_empty_tiles.game, Some(12));
    assert_eq!(st.game_entities.spawn, 0);
}
