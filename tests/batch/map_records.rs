//! Record fields for data users: `data_sha256` finds maps with the same
//! content stored with other compression.

use crate::common::{run_records, teebatch};
use teebatch::datafile::{Datafile, DatafileWriter, Inflater};
use teebatch::map::PhysicsKind;

/// Each embedded map and its rewrite by teebatch's writer (same items and
/// data, recompressed): the same `data_sha256` and `data_crc32`, another
/// file `sha256` where the compressed bytes differ; no `data_sha256`
/// without `--verify`.
#[test]
fn data_sha256_ignores_compression() {
    let dir = tempfile::tempdir().unwrap();
    let mut inflater = Inflater::default();
    let mut differ = 0;
    for (i, (_, bytes)) in teebatch::batch::embedded::MAPS.iter().enumerate() {
        let df = Datafile::parse(bytes).unwrap();
        inflater.start_file();
        let mut w = DatafileWriter::from_datafile(&df, &mut inflater).unwrap();
        // One more item changes nothing in the data blocks.
        w.add_item(0x7000, 1, &[7]);
        let rewritten = w.write();
        std::fs::write(dir.path().join(format!("{i}a.map")), bytes).unwrap();
        std::fs::write(dir.path().join(format!("{i}b.map")), &rewritten).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let recs = run_records(&["maps", "index", "-q", "--verify", d], 0);
    assert_eq!(recs.len(), 2 * teebatch::batch::embedded::MAPS.len());
    for pair in recs.chunks(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let sha = a["data_sha256"].as_str().unwrap();
        assert_eq!(sha.len(), 64);
        assert_eq!(a["data_sha256"], b["data_sha256"], "{a}\n{b}");
        assert_eq!(a["data_crc32"], b["data_crc32"]);
        differ += usize::from(a["sha256"] != b["sha256"]);
    }
    assert_eq!(differ, recs.len() / 2, "every rewrite is another file");
    let o = teebatch(&["maps", "index", "-q", d]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("data_sha256"));
}

/// `map.stats.tiles`: per physics layer the counts add up to the layer's
/// non-empty tiles, and the names are the special tiles; the embedded maps'
/// tiles are the generator's own tally (see `tests/cli/maps_index.rs`), here the real
/// maps'.
#[test]
fn tile_counts_add_up() {
    let Some(ds) = crate::common::datasets() else {
        return;
    };
    let recs = run_records(
        &["maps", "index", "-q", ds.join("maps").to_str().unwrap()],
        0,
    );
    let mut freeze_maps = 0;
    let mut start_maps = 0;
    for r in &recs {
        let Some(stats) = r["map"].get("stats").filter(|s| !s.is_null()) else {
            continue;
        };
        let tiles = stats["tiles"].as_array().unwrap();
        for (layer, n) in stats["non_empty_tiles"].as_object().unwrap() {
            let sum: u64 = tiles
                .iter()
                .filter(|t| t["layer"] == layer.as_str())
                .map(|t| t["count"].as_u64().unwrap())
                .sum();
            assert_eq!(sum, n.as_u64().unwrap_or(0), "{}: {layer}", r["path"]);
        }
        // special_tiles: the named tiles but the common ones (air, solid,
        // unhookable, vanilla entities), as names::is_special says.
        let mut names: Vec<&str> = tiles
            .iter()
            .filter(|t| {
                let kind = PhysicsKind::PHYSICS
                    .into_iter()
                    .find(|k| t["layer"] == k.name())
                    .unwrap();
                teebatch::map::names::is_special(kind, t["id"].as_u64().unwrap() as u8)
            })
            .filter_map(|t| t["name"].as_str())
            .collect();
        names.sort();
        names.dedup();
        assert_eq!(
            serde_json::json!(names),
            stats["special_tiles"],
            "{}",
            r["path"]
        );
        assert!(tiles.iter().all(|t| t["id"] != 0 && t["count"] != 0));
        freeze_maps += usize::from(tiles.iter().any(|t| t["name"] == "FREEZE"));
        start_maps += usize::from(tiles.iter().any(|t| t["name"] == "START"));
        // Solid and unhookable tiles and spawns are named (not special).
        for t in tiles {
            let (layer, id) = (t["layer"].as_str().unwrap(), t["id"].as_u64().unwrap());
            if (layer == "game" && [1, 3, 192].contains(&id)) || (layer == "tele" && id == 26) {
                assert!(t["name"].is_string(), "{}: {t}", r["path"]);
            }
        }
    }
    assert!(freeze_maps > 0, "the real maps have freeze tiles");
    // A query for START finds the race maps (they were `BEGIN` before).
    assert!(start_maps > 0, "the real maps have start tiles");
}
