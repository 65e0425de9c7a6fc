//! Picture options of `maps render` and `maps index --thumbnails`
//! (`--crop content`, `--no-legend`, `--style` of thumbnails), stable
//! picture names across shards, the failure digests and where the
//! textures come from.

use crate::common::{self, records, run_records, teebatch};
use std::path::Path;
use teebatch::datafile::DatafileWriter;
use teebatch::map::strings::to_i32_string;
use teebatch::map::{ITEM_GROUP, ITEM_LAYER, ITEM_VERSION};
use teebatch::render::raster::{decode_png, Rgba};

/// A map of one group (parallax 100): a `w × h` game layer of `ids` and a
/// design tile layer (no image: drawn in its colour) of the same tiles.
fn map_of(w: usize, h: usize, ids: &[u8]) -> Vec<u8> {
    let mut df = DatafileWriter::new();
    df.add_item(ITEM_VERSION, 0, &[1]);
    for (i, flags) in [(0u16, 1), (1u16, 0)] {
        let mut t = vec![0u8; w * h * 4];
        for (k, &v) in ids.iter().enumerate() {
            t[k * 4] = v;
        }
        let d = df.add_data(&t) as i32;
        let mut item = vec![0, 2, 0, 3, w as i32, h as i32, flags];
        item.extend([200, 120, 60, 255]);
        item.extend([-1, 0, -1, d]);
        item.extend(to_i32_string(if flags == 1 { "Game" } else { "Design" }, 3));
        item.extend([-1; 5]);
        df.add_item(ITEM_LAYER, i, &item);
    }
    let mut g = vec![3, 0, 0, 100, 100, 0, 2];
    g.extend([0; 5]);
    g.extend(to_i32_string("g", 3));
    df.add_item(ITEM_GROUP, 0, &g);
    df.write()
}

/// ChillBlock5-like: a 200 × 100 mass of solid (1) and unhookable (3)
/// rock with one room of air (x 50..70, y 30..40) holding a spawn; the
/// content is the room and its walls: x 49..=70, y 29..=40.
fn rock_with_a_room() -> Vec<u8> {
    let (w, h) = (200, 100);
    let mut ids = vec![1u8; w * h];
    for (i, t) in ids.iter_mut().enumerate() {
        if (i / w + i % w) % 7 == 0 {
            *t = 3;
        }
    }
    for y in 30..40 {
        for x in 50..70 {
            ids[y * w + x] = 0;
        }
    }
    ids[35 * w + 55] = 192;
    map_of(w, h, &ids)
}

/// The `w × h` pixels of `img` from `(x, y)`.
fn part(img: &Rgba, x: u32, y: u32, w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for row in y..y + h {
        let i = ((row * img.width + x) * 4) as usize;
        out.extend_from_slice(&img.pixels[i..i + (w * 4) as usize]);
    }
    out
}

/// `maps render --crop content` draws the room and its walls only: a 22 ×
/// 12 tile picture, the same pixels as that part of the whole picture, in
/// both styles; the size options apply to the part (`--max-side 44`: 2
/// pixels per tile, where the whole map would get a fifth of a pixel).
#[test]
fn crop_content_draws_the_played_area() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("rock.map");
    std::fs::write(&map, rock_with_a_room()).unwrap();
    let m = map.to_str().unwrap();
    let none = dir.path().join("none");
    std::fs::create_dir_all(&none).unwrap();
    for style in ["entities", "full"] {
        let render = |extra: &[&str]| {
            let out = dir.path().join(format!("{style}-{}", extra.join("")));
            let mut args = vec![
                "maps",
                "render",
                m,
                "--style",
                style,
                "--no-legend",
                "--mapres",
                none.to_str().unwrap(),
                "-q",
                "--out",
                out.to_str().unwrap(),
            ];
            args.extend(extra);
            let r = run_records(&args, 0).remove(0);
            let png = std::fs::read(out.join(r["picture"].as_str().unwrap())).unwrap();
            (r, decode_png(&png).unwrap())
        };
        let (whole_rec, whole) = render(&["--scale", "4"]);
        assert_eq!((whole.width, whole.height), (800, 400), "{style}");
        assert_eq!(whole_rec["warnings"], serde_json::json!([]), "{style}");
        let (rec, cropped) = render(&["--scale", "4", "--crop", "content"]);
        assert_eq!((cropped.width, cropped.height), (88, 48), "{style}");
        assert_eq!(
            (rec["width"].as_u64(), rec["height"].as_u64()),
            (Some(88), Some(48))
        );
        assert_eq!(
            cropped.pixels,
            part(&whole, 49 * 4, 29 * 4, 88, 48),
            "{style}: the crop is that part of the whole picture"
        );
        let (rec, small) = render(&["--max-side", "44", "--crop", "content"]);
        assert_eq!((small.width, small.height), (44, 24), "{style}");
        assert_eq!(rec["px_per_tile"], 2);
    }
}

/// The palette's legend is drawn unless `--no-legend`: the corner it takes
/// differs, the rest of the picture not.
#[test]
fn no_legend_leaves_the_drawing_alone() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("rock.map");
    std::fs::write(&map, rock_with_a_room()).unwrap();
    let none = dir.path().join("none");
    std::fs::create_dir_all(&none).unwrap();
    let render = |legend: bool| {
        let out = dir.path().join(format!("out{legend}"));
        let mut args = vec![
            "maps",
            "render",
            map.to_str().unwrap(),
            "--scale",
            "4",
            "--mapres",
            none.to_str().unwrap(),
            "-q",
            "--out",
            out.to_str().unwrap(),
        ];
        if !legend {
            args.push("--no-legend");
        }
        let r = run_records(&args, 0).remove(0);
        decode_png(&std::fs::read(out.join(r["picture"].as_str().unwrap())).unwrap()).unwrap()
    };
    let (with, without) = (render(true), render(false));
    assert_ne!(with.pixels, without.pixels);
    let differ = with
        .pixels
        .chunks(4)
        .zip(without.pixels.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    // The legend covers at most a quarter of the picture.
    assert!(differ > 0 && differ <= (800 * 400) / 4, "{differ}");
}

/// Thumbnails take `--style full`, `--crop content` and `--no-legend`: the
/// pictures of `maps render --max-side 256` with the same options; without
/// `--thumbnails` these options are a usage error.
#[test]
fn thumbnail_options_are_those_of_render() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("rock.map");
    std::fs::write(&map, rock_with_a_room()).unwrap();
    let m = map.to_str().unwrap();
    let none = dir.path().join("none");
    std::fs::create_dir_all(&none).unwrap();
    let n = none.to_str().unwrap();
    let opts = ["--style", "full", "--crop", "content", "--no-legend"];
    let thumbs = dir.path().join("thumbs");
    let mut args = vec!["maps", "index", m, "-q", "--mapres", n];
    args.extend(["--thumbnails", thumbs.to_str().unwrap()]);
    args.extend(opts);
    let rec = run_records(&args, 0).remove(0);
    let name = rec["thumbnail"].as_str().unwrap();
    let out = dir.path().join("out");
    let mut args = vec![
        "maps",
        "render",
        m,
        "-q",
        "--mapres",
        n,
        "--max-side",
        "256",
    ];
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(opts);
    let r = run_records(&args, 0).remove(0);
    assert_eq!(r["picture"], name);
    let a = std::fs::read(thumbs.join(name)).unwrap();
    assert_eq!(a, std::fs::read(out.join(name)).unwrap());
    let img = decode_png(&a).unwrap();
    // 22 × 12 tiles at 11 pixels per tile.
    assert_eq!((img.width, img.height), (242, 132));
    for bad in [&["--crop", "content"][..], &["--no-legend"]] {
        let mut args = vec!["maps", "index", m, "-q"];
        args.extend(bad);
        let o = teebatch(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    let o = teebatch(&["maps", "index", m, "-q", "--style", "full"]);
    assert_eq!(o.status.code(), Some(2));
}

/// ChillBlock5 (943 × 1075 tiles): its played parts (an air band across
/// the whole top, rooms at the left and bottom right) span the layer, so
/// the bounding box only drops the three rows of rock at the bottom.
#[test]
fn chillblock5_crop_is_its_bounding_box() {
    let Some(ds) = common::datasets() else { return };
    let map = ds.join("maps/DDNetPP/data_maps__ChillBlock5__e7ca1204.map");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let m = map.to_str().unwrap();
    let size = |extra: &[&str]| {
        let mut args = vec!["maps", "render", m, "-q", "--scale", "1", "--out", out];
        args.extend(extra);
        let r = run_records(&args, 0).remove(0);
        (r["width"].as_u64().unwrap(), r["height"].as_u64().unwrap())
    };
    assert_eq!(size(&[]), (943, 1075));
    assert_eq!(size(&["--crop", "content"]), (943, 1072));
}

#[test]
fn thumbnails_of_shards_equal_one_run() {
    let Some(ds) = common::datasets() else { return };
    let root = ds.join("maps");
    let root = root.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one");
    let shards = dir.path().join("shards");
    let thumbs_of = |recs: &[serde_json::Value]| {
        let mut v: Vec<(String, Option<String>)> = recs
            .iter()
            .map(|r| {
                (
                    r["path"].as_str().unwrap().to_owned(),
                    r.get("thumbnail").map(|t| t.as_str().unwrap().to_owned()),
                )
            })
            .collect();
        v.sort();
        v
    };
    let o = teebatch(&[
        "maps",
        "index",
        root,
        "-q",
        "-j",
        "2",
        "--thumbnails",
        one.to_str().unwrap(),
    ]);
    // The 12 shared files without a map part get a warning, no thumbnail.
    assert_eq!(o.status.code(), Some(0));
    let one_recs = thumbs_of(&records(&o));
    let mut shard_recs = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let o = teebatch(&[
            "maps",
            "index",
            root,
            "-q",
            "-j",
            "1",
            "--shard",
            &shard,
            "--thumbnails",
            shards.to_str().unwrap(),
        ]);
        shard_recs.extend(records(&o));
    }
    assert_eq!(thumbs_of(&shard_recs), one_recs);
    let files = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (a, b) = (files(&one), files(&shards));
    assert_eq!(a.len(), b.len());
    assert!(a == b, "the folders differ");
    // One picture per distinct (name, content): no map lost its picture.
    let named: std::collections::BTreeSet<&String> =
        one_recs.iter().filter_map(|r| r.1.as_ref()).collect();
    assert_eq!(a.len(), named.len());
    // 249 maps: 237 of the later format and the 11 Teeworlds 0.3 maps
    // (entities style) have a picture; one datafile has no map in it.
    assert_eq!(one_recs.iter().filter(|r| r.1.is_some()).count(), 248);
}

/// `maps render` and `demos heatmap` end with a digest of their failures
/// by kind, with an example path, in the lines `maps index` prints.
#[test]
fn render_and_heatmap_print_failure_digests() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.map");
    std::fs::write(&bad, b"DATA\x04\0\0\0 truncated").unwrap();
    let good = dir.path().join("good.map");
    std::fs::write(&good, rock_with_a_room()).unwrap();
    let out = dir.path().join("out");
    let o = teebatch(&[
        "maps",
        "render",
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let recs = records(&o);
    let kind = format!(
        "{}.{}",
        recs[0]["error"]["stage"].as_str().unwrap(),
        recs[0]["error"]["kind"].as_str().unwrap()
    );
    let line = format!("  error {kind}: 1 (e.g. {})", bad.to_str().unwrap());
    assert!(
        stderr.lines().any(|l| l == line),
        "{line:?} not in {stderr}"
    );
    assert!(stderr.contains("2 files (1 ok, 1 failed)"), "{stderr}");

    // A demo that is not a demo, beside a good one.
    let demos = dir.path().join("demos");
    std::fs::create_dir_all(&demos).unwrap();
    std::fs::write(demos.join("a.demo"), teebatch::batch::embedded::DEMOS[0].1).unwrap();
    std::fs::write(demos.join("junk.demo"), b"not a demo").unwrap();
    let o = teebatch(&[
        "demos",
        "heatmap",
        demos.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let recs = records(&o);
    let junk = recs
        .iter()
        .find(|r| r["path"].as_str().is_some_and(|p| p.ends_with("junk.demo")))
        .unwrap();
    let kind = format!(
        "{}.{}",
        junk["error"]["stage"].as_str().unwrap(),
        junk["error"]["kind"].as_str().unwrap()
    );
    let line = format!(
        "  error {kind}: 1 (e.g. {})",
        junk["path"].as_str().unwrap()
    );
    assert!(
        stderr.lines().any(|l| l == line),
        "{line:?} not in {stderr}"
    );
    assert!(stderr.contains("demos heatmap"), "{stderr}");
}

/// Textures come from `--mapres`, else `$TEEBATCH_MAPRES`, else an
/// installed DDNet's data folder (said on stderr by the CLI), else none.
#[test]
fn textures_are_found_in_order() {
    use teebatch::render::{Textures, TexturesFrom};
    let dir = tempfile::tempdir().unwrap();
    let (flag, env, installed) = (
        dir.path().join("flag"),
        dir.path().join("env"),
        dir.path().join("usr/share/ddnet/data"),
    );
    for d in [&flag, &env] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::create_dir_all(installed.join("mapres")).unwrap();
    let empty = dir.path().join("usr/local/share/ddnet/data");
    let dirs = vec![empty.clone(), installed.clone()];
    let t = Textures::locate_in(Some(&flag), Some(&env), &dirs).unwrap();
    assert_eq!(
        (t.dir.as_deref(), &t.from),
        (Some(flag.as_path()), &TexturesFrom::Flag)
    );
    let t = Textures::locate_in(None, Some(&env), &dirs).unwrap();
    assert_eq!(
        (t.dir.as_deref(), &t.from),
        (Some(env.as_path()), &TexturesFrom::Env)
    );
    let t = Textures::locate_in(None, None, &dirs).unwrap();
    assert_eq!(
        (t.dir.as_deref(), &t.from),
        (Some(installed.as_path()), &TexturesFrom::Installed)
    );
    let t = Textures::locate_in(None, None, &[empty]).unwrap();
    assert_eq!((&t.dir, &t.from), (&None, &TexturesFrom::Nowhere));
    assert!(!t.has_atlas());
    // A named folder that does not exist is an error, whatever is installed.
    assert!(Textures::locate_in(None, Some(&dir.path().join("no")), &dirs).is_err());
    // The DDNet folders searched include the system ones DDNet's storage uses.
    #[cfg(target_os = "linux")]
    {
        let all = teebatch::render::ddnet_data_dirs();
        assert_eq!(all[0], Path::new("/usr/share/ddnet/data"));
        assert!(all.contains(&"/usr/local/share/ddnet/data".into()));
    }
}
