//! `demos heatmap` options on the real demos: `--every-tick`, `--players`
//! by name and id, `--exclude-idle`, `--clip` and the colour-scale legend,
//! `--scale` clamped to the pixel limit, and several maps for one picture
//! refused before anything is decoded. Every count is checked against the
//! rows of `demos export --table positions`.

use crate::common::{datasets, run_records, teebatch};
use std::collections::HashMap;
use teebatch::render::raster::{decode_png, Rgba};

/// A positions row: (client id, name, x, y).
type Pos = (i32, String, i32, i32);

/// The positions rows of a demo, rows without x or y left out.
fn positions(demo: &str, extra: &[&str]) -> Vec<Pos> {
    let mut args = vec!["demos", "export", "-q", "--table", "positions", demo];
    args.extend_from_slice(extra);
    let out = teebatch(&args);
    assert!(out.status.success());
    let mut rd = csv::Reader::from_reader(out.stdout.as_slice());
    let head = rd.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).unwrap();
    let (ci, ni, xi, yi) = (col("client_id"), col("name"), col("x"), col("y"));
    rd.records()
        .filter_map(|r| {
            let r = r.unwrap();
            let (Ok(x), Ok(y)) = (r[xi].parse(), r[yi].parse()) else {
                return None;
            };
            Some((r[ci].parse().unwrap(), r[ni].to_string(), x, y))
        })
        .collect()
}

/// Runs `demos heatmap` on `demo` into a picture in `dir` with a flat
/// palette; returns the demo's and the picture's records and the picture.
fn heat(
    dir: &std::path::Path,
    demo: &str,
    extra: &[&str],
) -> (serde_json::Value, serde_json::Value, Rgba) {
    let png = dir.join("h.png");
    let none = dir.join("no-textures");
    std::fs::create_dir_all(&none).unwrap();
    let mut args = vec![
        "demos",
        "heatmap",
        "-q",
        demo,
        "-o",
        png.to_str().unwrap(),
        "--mapres",
        none.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let recs = run_records(&args, 0);
    assert_eq!(recs.len(), 2);
    let img = decode_png(&std::fs::read(&png).unwrap()).unwrap();
    (recs[0].clone(), recs[1].clone(), img)
}

fn n(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap()
}

fn rgb_at(img: &Rgba, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * img.width + x) * 4) as usize;
    [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]]
}

/// Whether `img` has an 8 × 8 block of exactly `c` (a legend swatch).
fn has_swatch(img: &Rgba, c: [u8; 3]) -> bool {
    (0..img.height.saturating_sub(7)).any(|y| {
        (0..img.width.saturating_sub(7))
            .any(|x| (0..8).all(|dy| (0..8).all(|dx| rgb_at(img, x + dx, y + dy) == c)))
    })
}

/// Positions per tile.
fn bins(rows: &[Pos]) -> HashMap<(i32, i32), u64> {
    let mut b = HashMap::new();
    for &(_, _, x, y) in rows {
        *b.entry((x.div_euclid(32), y.div_euclid(32))).or_default() += 1;
    }
    b
}

/// `--every-tick`: one position per tick marker, as the export: on
/// `bit3_noobfilter_with_touchpad.demo` 683 instead of 131, and the
/// hottest tile's count is that of the export's rows; the legend's
/// swatches are drawn.
#[test]
fn heatmap_every_tick_counts_tick_markers() {
    let Some(ds) = datasets() else { return };
    let demo = ds.join("demos/bit3_noobfilter_with_touchpad.demo");
    let demo = demo.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let every = positions(demo, &["--every-tick"]);
    let default = positions(demo, &[]);
    assert_eq!((every.len(), default.len()), (683, 131));
    for (flags, rows) in [(&["--every-tick"][..], &every), (&[][..], &default)] {
        let (d, p, img) = heat(dir.path(), demo, &[flags, &["--scale", "1"]].concat());
        assert_eq!(n(&d["positions"]), rows.len() as u64);
        assert_eq!(n(&p["positions"]) + n(&p["outside"]), rows.len() as u64);
        let max = *bins(rows).values().max().unwrap();
        assert_eq!(n(&p["hottest"][2]), max);
        let unit = if flags.is_empty() { "snaps" } else { "ticks" };
        let legend = teebatch::render::heatmap::scale_legend(max, false, unit);
        assert!(legend.len() >= 3);
        for e in &legend {
            assert!(has_swatch(&img, e.colour), "{}: no swatch", e.label);
        }
    }
}

/// `--players` by name, by id, both, and `name:` for a name of digits, on
/// Multeasymap: the counts of the export's rows with that name (at that
/// tick) or client id.
#[test]
fn heatmap_players_by_name_and_id() {
    let Some(ds) = datasets() else { return };
    let demo = ds.join("demos/ddnet__Multeasymap_bench.demo");
    let demo = demo.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = positions(demo, &[]);
    let count = |f: &dyn Fn(&Pos) -> bool| rows.iter().filter(|r| f(r)).count() as u64;
    let named = count(&|r| r.1 == "fakaskin");
    let id3 = count(&|r| r.0 == 3);
    let either = count(&|r| r.1 == "fakaskin" || r.0 == 3);
    let digits = count(&|r| r.1 == "2221");
    assert!(
        named > 0 && id3 > named && digits > 0,
        "{named} {id3} {digits}"
    );
    for (players, want) in [
        ("fakaskin", named),
        ("3", id3),
        ("fakaskin,3", either),
        ("name:2221", digits),
        ("2221", 0),
    ] {
        let (d, _, _) = heat(dir.path(), demo, &["--players", players]);
        assert_eq!(n(&d["positions"]), want, "--players {players}");
    }
    // `session:N`: client 3's two sessions (fakaskin, then FuckingFuck)
    // one by one, and together, against the export's session column.
    let out = teebatch(&["demos", "export", "-q", "--table", "positions", demo]);
    let mut rd = csv::Reader::from_reader(out.stdout.as_slice());
    let head = rd.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).unwrap();
    let (ci, si, ni, xi) = (col("client_id"), col("session"), col("name"), col("x"));
    let mut by_session: std::collections::BTreeMap<i32, (u64, String)> = Default::default();
    for r in rd.records() {
        let r = r.unwrap();
        if r[ci] != *"3" || r[xi].is_empty() {
            continue;
        }
        let e = by_session.entry(r[si].parse().unwrap()).or_default();
        e.0 += 1;
        e.1 = r[ni].to_string();
    }
    let sessions: Vec<(i32, (u64, String))> = by_session.into_iter().collect();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    assert_eq!(sessions[0].1 .1, "fakaskin");
    assert_eq!(sessions[1].1 .1, "FuckingFuck");
    assert_eq!(sessions[0].1 .0 + sessions[1].1 .0, id3);
    for (s, (want, _)) in &sessions {
        let arg = format!("session:{s}");
        let (d, _, _) = heat(dir.path(), demo, &["--players", &arg]);
        assert_eq!(n(&d["positions"]), *want, "--players {arg}");
    }
    let both = format!("session:{},session:{}", sessions[0].0, sessions[1].0);
    let (d, _, _) = heat(dir.path(), demo, &["--players", &both]);
    assert_eq!(n(&d["positions"]), id3);
    let bad = teebatch(&[
        "demos",
        "heatmap",
        "-q",
        demo,
        "--players",
        "session:x",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--players session:x"));
}

/// `--exclude-idle`: a position equal to its client's previous one is not
/// counted; carried rows are always such, so the count is the same with
/// and without `--every-tick`.
#[test]
fn heatmap_exclude_idle() {
    let Some(ds) = datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    for name in ["big_chungus.demo", "bit3_noobfilter_with_touchpad.demo"] {
        let demo = ds.join("demos").join(name);
        let demo = demo.to_str().unwrap();
        let rows = positions(demo, &["--every-tick"]);
        let mut last = HashMap::new();
        let moving = rows
            .iter()
            .filter(|&&(c, _, x, y)| last.insert(c, (x, y)) != Some((x, y)))
            .count() as u64;
        assert!(
            moving > 1 && moving < rows.len() as u64 / 2,
            "{name}: {moving}"
        );
        for flags in [&["--exclude-idle", "--every-tick"][..], &["--exclude-idle"]] {
            let (d, _, _) = heat(dir.path(), demo, flags);
            assert_eq!(n(&d["positions"]), moving, "{name} {flags:?}");
        }
    }
}

/// `--clip 99`: the scale tops out at the 99th percentile (nearest rank)
/// of the tiles' counts; a tile with that count is pure red with the clip
/// and not without it; the legend's top row is that count.
#[test]
fn heatmap_percentile_clip() {
    let Some(ds) = datasets() else { return };
    let demo = ds.join("demos/ddnet__Multeasymap_bench.demo");
    let demo = demo.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (_, plain, _) = heat(dir.path(), demo, &["--scale", "1"]);
    let (gw, gh) = (n(&plain["width"]) as i32, n(&plain["height"]) as i32);
    let rows = positions(demo, &[]);
    let mut counts: Vec<u64> = bins(&rows)
        .into_iter()
        .filter(|&((x, y), _)| x >= 0 && y >= 0 && x < gw && y < gh)
        .map(|(_, c)| c)
        .collect();
    counts.sort_unstable();
    let rank = (0.99 * counts.len() as f64).ceil() as usize;
    let p99 = counts[rank - 1];
    let max = *counts.last().unwrap();
    assert!(p99 < max, "{p99} {max}");
    let args = ["--scale", "2", "--clip", "99"];
    let (_, clipped, img) = heat(dir.path(), demo, &args);
    assert_eq!(n(&clipped["scale_max"]), p99);
    assert!(plain.get("scale_max").is_none());
    let (_, _, unclipped) = heat(dir.path(), demo, &["--scale", "2"]);
    // The tiles with the percentile's count: pure red with the clip (one
    // may lie under the legend), never without it.
    let at = |(x, y): (i32, i32)| (x as u32 * 2 + 1, y as u32 * 2);
    let p99_tiles: Vec<_> = bins(&rows)
        .into_iter()
        .filter(|&((x, y), c)| c == p99 && x >= 0 && y >= 0 && x < gw && y < gh)
        .map(|(t, _)| at(t))
        .collect();
    assert!(p99_tiles
        .iter()
        .any(|&(x, y)| rgb_at(&img, x, y) == [255, 0, 0]));
    assert!(p99_tiles
        .iter()
        .all(|&(x, y)| rgb_at(&unclipped, x, y) != [255, 0, 0]));
    let legend = teebatch::render::heatmap::scale_legend(p99, true, "snaps");
    assert_eq!(legend[0].label, format!("{p99}+ snaps"));
    for e in &legend {
        assert!(has_swatch(&img, e.colour), "{}", e.label);
    }
    // Not a percentile: a usage error.
    for bad in ["0", "101", "x"] {
        let out = teebatch(&["demos", "heatmap", demo, "-o", "/dev/null", "--clip", bad]);
        assert_eq!(out.status.code(), Some(2), "--clip {bad}");
    }
}

/// `--scale 64` over the pixel limit: drawn at the largest scale that
/// fits, with a warning, instead of failing.
#[test]
fn heatmap_scale_is_clamped_to_the_pixel_limit() {
    let Some(ds) = datasets() else { return };
    let demo = ds.join("demos/ddnet__Multeasymap_bench.demo");
    let demo = demo.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (_, one, _) = heat(dir.path(), demo, &["--scale", "1"]);
    let (gw, gh) = (n(&one["width"]), n(&one["height"]));
    let limit = teebatch::render::MAX_PICTURE_PIXELS;
    assert!(gw * gh * 64 * 64 > limit);
    let fits = (1..=64u64)
        .rev()
        .find(|s| gw * gh * s * s <= limit)
        .unwrap();
    let png = dir.path().join("big.png");
    let out = teebatch(&[
        "demos",
        "heatmap",
        demo,
        "-o",
        png.to_str().unwrap(),
        "--scale",
        "64",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // A run's note as every command prints it: `teebatch: ` once.
    let line = format!("teebatch: {}: warning: --scale 64 makes a", png.display());
    assert!(err.lines().any(|l| l.starts_with(&line)), "{err}");
    assert!(err.contains(&format!("drawn at --scale {fits} (")), "{err}");
    let recs = crate::common::records(&out);
    let pic = &recs[1];
    assert!(pic.get("error").is_none());
    assert_eq!(
        (n(&pic["width"]), n(&pic["height"])),
        (gw * fits, gh * fits)
    );
    // --quiet leaves the warning out, and nothing else is said.
    let out = teebatch(&[
        "demos",
        "heatmap",
        "-q",
        demo,
        "-o",
        png.to_str().unwrap(),
        "--scale",
        "64",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// Demos of several maps for one picture: refused from the headers before
/// any demo is decoded (no record printed, no picture), the maps listed.
#[test]
fn heatmap_several_maps_fail_before_decoding() {
    let Some(ds) = datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("x.png");
    let all = ds.join("demos");
    let out = teebatch(&[
        "demos",
        "heatmap",
        all.to_str().unwrap(),
        "-o",
        png.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "records were written");
    assert!(!png.exists());
    assert!(err.contains("different maps"), "{err}");
    assert!(err.contains("nothing was decoded"), "{err}");
    for map in ["Multeasymap", "tinycave", "(", "4 demos"] {
        assert!(err.contains(map), "{map}: {err}");
    }
}
