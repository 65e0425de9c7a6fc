//! `demos heatmap` pictures: the hottest tile against the positions table,
//! one picture per map, the same pictures whatever `--jobs`, errors of
//! embedded maps naming the demo, the game layer checked before its grid.

use super::full_style::{coverage_map, layer_size_at};
use crate::common::{datasets, files_with_ext, run_records, teebatch};
use std::collections::BTreeSet;
use teebatch::render::raster::{decode_png, Rgba};

fn rgb_at(img: &Rgba, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * img.width + x) * 4) as usize;
    [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]]
}

/// The heatmap's hottest tile is where the `positions` rows (exported by
/// `demos export`, binned here) are densest, and is drawn pure red.
#[test]
fn heatmap_hottest_tile_matches_positions() {
    let Some(ds) = datasets() else { return };
    let demo = ds.join("demos/ddnet__Multeasymap_bench.demo");
    let demo = demo.to_str().unwrap();
    let csv = teebatch(&["demos", "export", "--table", "positions", demo, "-q"]);
    assert!(csv.status.success());
    let mut rd = csv::Reader::from_reader(csv.stdout.as_slice());
    let head = rd.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).unwrap();
    let (xi, yi) = (col("x"), col("y"));
    let mut bins: std::collections::HashMap<(i64, i64), u64> = Default::default();
    let mut rows = 0;
    for r in rd.records() {
        let r = r.unwrap();
        let (Ok(x), Ok(y)) = (r[xi].parse::<i64>(), r[yi].parse::<i64>()) else {
            continue;
        };
        *bins
            .entry((x.div_euclid(32), y.div_euclid(32)))
            .or_default() += 1;
        rows += 1;
    }
    let max = *bins.values().max().unwrap();
    let hottest: Vec<(i64, i64)> = bins
        .iter()
        .filter(|(_, &c)| c == max)
        .map(|(&k, _)| k)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("heat.png");
    let recs = run_records(
        &[
            "demos",
            "heatmap",
            demo,
            "-o",
            png.to_str().unwrap(),
            "--scale",
            "2",
            "--mapres",
            dir.path().to_str().unwrap(),
            "-q",
        ],
        0,
    );
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0]["positions"], rows);
    let pic = &recs[1];
    assert_eq!(
        pic["positions"].as_u64().unwrap() + pic["outside"].as_u64().unwrap(),
        rows
    );
    let h = pic["hottest"].as_array().unwrap();
    let (hx, hy) = (h[0].as_i64().unwrap(), h[1].as_i64().unwrap());
    assert_eq!(h[2].as_u64().unwrap(), max);
    assert!(hottest.contains(&(hx, hy)), "{hottest:?} vs ({hx}, {hy})");
    let img = decode_png(&std::fs::read(&png).unwrap()).unwrap();
    for (x, y) in &hottest {
        assert_eq!(rgb_at(&img, *x as u32 * 2 + 1, *y as u32 * 2), [255, 0, 0]);
    }
    // A tile with fewer positions is not pure red.
    let (&(cx, cy), _) = bins.iter().find(|(_, &c)| c < max).unwrap();
    assert_ne!(rgb_at(&img, cx as u32 * 2, cy as u32 * 2), [255, 0, 0]);
}

/// Demos of one map aggregate into one picture; demos of different maps
/// need --out DIR.
#[test]
fn heatmap_aggregates_per_map() {
    let Some(ds) = datasets() else { return };
    let demos = ds.join("demos");
    let tiny: Vec<String> = files_with_ext(&demos, "demo")
        .into_iter()
        .filter(|p| p.to_str().unwrap().contains("tinycave"))
        .map(|p| p.to_str().unwrap().to_owned())
        .collect();
    assert_eq!(tiny.len(), 4);
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("t.png");
    let mut args = vec!["demos", "heatmap", "-o", png.to_str().unwrap(), "-q"];
    args.extend(tiny.iter().map(String::as_str));
    let recs = run_records(&args, 0);
    assert_eq!(recs.len(), 5);
    let sum: u64 = recs[..4]
        .iter()
        .map(|r| r["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(recs[4]["demos"], 4);
    assert_eq!(
        recs[4]["positions"].as_u64().unwrap() + recs[4]["outside"].as_u64().unwrap(),
        sum
    );
    // Jobs do not change the picture.
    let png1 = dir.path().join("t1.png");
    let mut args1 = vec![
        "demos",
        "heatmap",
        "-o",
        png1.to_str().unwrap(),
        "-q",
        "-j",
        "1",
    ];
    args1.extend(tiny.iter().map(String::as_str));
    run_records(&args1, 0);
    assert_eq!(std::fs::read(&png).unwrap(), std::fs::read(&png1).unwrap());

    let all = demos.to_str().unwrap();
    let out = teebatch(&["demos", "heatmap", all, "-o", png.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("different maps"));
    let per_map = dir.path().join("per-map");
    let out = teebatch(&[
        "demos",
        "heatmap",
        all,
        "--out",
        per_map.to_str().unwrap(),
        "--max-side",
        "128",
        "-q",
    ]);
    let recs = crate::common::records(&out);
    let pictures: Vec<_> = recs.iter().filter(|r| r.get("picture").is_some()).collect();
    let shas: BTreeSet<&str> = recs
        .iter()
        .filter_map(|r| r.get("map_sha256").and_then(|v| v.as_str()))
        .collect();
    assert_eq!(pictures.len(), shas.len());
    for p in pictures {
        assert!(std::path::Path::new(p["picture"].as_str().unwrap()).is_file());
    }
}

/// `demos heatmap --out DIR`: the shared per-map grids give the same
/// pictures and picture records whatever `--jobs`, one per distinct map,
/// with every demo of the map counted once.
#[test]
fn heatmap_per_map_pictures_do_not_depend_on_jobs() {
    let Some(ds) = crate::common::datasets() else {
        return;
    };
    let demos = ds.join("demos");
    let dir = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for (jobs, trails) in [("1", false), ("2", false), ("1", true), ("2", true)] {
        let out = dir.path().join(format!("j{jobs}-{trails}"));
        let mut args = vec![
            "demos",
            "heatmap",
            demos.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--max-side",
            "128",
            "-j",
            jobs,
            "-q",
        ];
        if trails {
            args.push("--trails");
        }
        let o = crate::common::teebatch(&args);
        let recs = crate::common::records(&o);
        let per_demo: Vec<_> = recs.iter().filter(|r| r.get("picture").is_none()).collect();
        let mut pictures: Vec<(String, Vec<u8>, serde_json::Value)> = recs
            .iter()
            .filter(|r| r.get("picture").is_some())
            .map(|r| {
                let p = std::path::PathBuf::from(r["picture"].as_str().unwrap());
                let mut r = r.clone();
                r["picture"] = p.file_name().unwrap().to_str().unwrap().into();
                if let Some(l) = r["legend"].as_array_mut() {
                    l.iter_mut().for_each(|e| e["demo"] = "".into());
                }
                (
                    p.file_name().unwrap().to_str().unwrap().to_owned(),
                    std::fs::read(&p).unwrap(),
                    r,
                )
            })
            .collect();
        pictures.sort_by(|a, b| a.0.cmp(&b.0));
        let shas: std::collections::BTreeSet<&str> = per_demo
            .iter()
            .filter(|r| r.get("error").is_none())
            .filter_map(|r| r["map_sha256"].as_str())
            .collect();
        assert_eq!(pictures.len(), shas.len());
        let demos_counted: u64 = pictures
            .iter()
            .map(|p| p.2["demos"].as_u64().unwrap())
            .sum();
        assert_eq!(
            demos_counted,
            per_demo
                .iter()
                .filter(|r| r.get("map_sha256").is_some())
                .count() as u64
        );
        runs.push(pictures);
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[2], runs[3]);
}

/// Writes `dir/name`, a demo of no ticks recorded on `map` (embedded when
/// `embed`); returns its path and the byte where its map starts.
fn write_demo_on(
    dir: &std::path::Path,
    name: &str,
    map: &[u8],
    embed: bool,
) -> (std::path::PathBuf, u64) {
    use teebatch::codec::snapshot::Protocol;
    use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter};
    let mut header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "coverage", map);
    header.embed_map = embed;
    let bytes = DemoWriter::new_vec(&header).unwrap().finish_vec().unwrap();
    let path = dir.join(name);
    std::fs::write(&path, &bytes).unwrap();
    let at = teebatch::demo::Demo::parse(&bytes).unwrap().map_offset() as u64;
    (path, at)
}

/// `demos heatmap` on a demo written without its map, and on one whose
/// embedded map has a corrupt game layer (the tables parse, the tiles do
/// not inflate): the first demo's record says there is no map to draw on;
/// the second map's picture record has the error at its offset in the demo
/// file and names the demo; both fail the run (exit 1), and a good demo
/// beside them is drawn.
#[test]
fn heatmap_errors_of_embedded_maps_name_the_demo() {
    use teebatch::datafile::Datafile;
    let (Some(ds), Some((map, parsed))) = (crate::common::datasets(), coverage_map()) else {
        return;
    };
    let df = Datafile::parse(&map).unwrap();
    let block = parsed.game_layer().unwrap().data as usize;
    let range = df.data_range(block).unwrap();
    let mut corrupt = map.clone();
    corrupt[range.start + range.len() / 2] ^= 0x55;

    let dir = tempfile::tempdir().unwrap();
    let (_, no_map_at) = write_demo_on(dir.path(), "a-no-map.demo", &map, false);
    let (corrupt_path, corrupt_at) = write_demo_on(dir.path(), "b-corrupt.demo", &corrupt, true);
    std::fs::copy(
        ds.join("demos/big_chungus.demo"),
        dir.path().join("c-good.demo"),
    )
    .unwrap();

    let out = dir.path().join("pictures");
    let recs = run_records(
        &[
            "demos",
            "heatmap",
            dir.path().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--max-side",
            "64",
            "-q",
        ],
        1,
    );
    let by = |key: &str, suffix: &str| {
        recs.iter()
            .find(|r| r[key].as_str().is_some_and(|p| p.ends_with(suffix)))
            .unwrap_or_else(|| panic!("no {key} ending {suffix}: {recs:#?}"))
            .clone()
    };
    let e = &by("path", "a-no-map.demo")["error"];
    assert_eq!(
        (
            e["stage"].as_str(),
            e["kind"].as_str(),
            e["offset"].as_u64()
        ),
        (Some("render"), Some("no_embedded_map"), Some(no_map_at)),
        "{e}"
    );
    assert!(by("path", "b-corrupt.demo").get("error").is_none());
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&corrupt));
    let pic = recs
        .iter()
        .find(|r| r["map_sha256"] == sha.as_str() && r.get("picture").is_some())
        .unwrap_or_else(|| panic!("no picture record of the corrupt map: {recs:#?}"));
    let e = &pic["error"];
    assert_eq!(
        (e["stage"].as_str(), e["section"].as_str()),
        (Some("map"), Some(format!("data {block}").as_str())),
        "{pic}"
    );
    // The flipped byte stops zlib or changes the inflated size.
    assert!(
        ["inflate", "data_size_mismatch"].contains(&e["kind"].as_str().unwrap()),
        "{pic}"
    );
    assert_eq!(e["offset"], corrupt_at + range.start as u64, "{pic}");
    assert_eq!(pic["map_from"], corrupt_path.to_str().unwrap(), "{pic}");
    assert!(!out.join(format!("coverage-{}.png", &sha[..8])).exists());
    // The good demo's picture is drawn.
    let good_pic = recs
        .iter()
        .find(|r| r.get("picture").is_some() && r.get("error").is_none())
        .unwrap_or_else(|| panic!("no good picture: {recs:#?}"));
    assert!(std::path::Path::new(good_pic["picture"].as_str().unwrap()).exists());
}

/// `demos heatmap` allocates its grid of counts by the embedded map's game
/// layer size only after checking that size as the picture does: a demo
/// whose embedded game layer claims 100,000 × 100,000 tiles (an 80 GB grid)
/// is the demo's `map` error in that layer, at its offset in the demo file,
/// and the run goes on (exit 1), where it used to abort on the allocation
/// (found by fuzzing).
#[test]
fn heatmap_checks_the_game_layer_before_its_grid() {
    use teebatch::map::tiles::PhysicsKind;
    let Some((mut map, parsed)) = coverage_map() else {
        return;
    };
    let i = parsed.physics_layer(PhysicsKind::Game).unwrap();
    let (at, _) = layer_size_at(&map, &parsed, i);
    map[at..at + 4].copy_from_slice(&100_000i32.to_le_bytes());
    map[at + 4..at + 8].copy_from_slice(&100_000i32.to_le_bytes());

    let dir = tempfile::tempdir().unwrap();
    let (path, map_at) = write_demo_on(dir.path(), "huge-game-layer.demo", &map, true);
    let out = dir.path().join("pictures");
    let recs = run_records(
        &[
            "demos",
            "heatmap",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        1,
    );
    let e = &recs[0]["error"];
    assert_eq!(
        (e["stage"].as_str(), e["section"].as_str()),
        (Some("map"), Some(format!("layer {i}").as_str())),
        "{e}"
    );
    assert!(e["offset"].as_u64().unwrap() >= map_at, "{e}");
    assert!(
        e["message"].as_str().unwrap().ends_with(&format!(
            "(of the embedded map, which starts at byte {map_at})"
        )),
        "{e}"
    );
}
