//! `maps info`, `maps extract` and `maps diff` on generated and real maps.
//!
//! The real-map values asserted here were read independently of teebatch:
//! the header fields from the dataset's golden `maps.tsv` (libtw2), the
//! groups, layers, images, sounds and settings with a separate reader of
//! the datafile format written from libtw2's `map.md` (Python, zlib).

use crate::common::{datasets, teebatch};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use teebatch::datafile::{Datafile, DatafileWriter, Inflater};
use teebatch::limits::Limits;
use teebatch::map::{ITEM_IMAGE, ITEM_SOUND};

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Every golden map: `maps info`'s header is the golden file's (size,
/// datafile version, item types, items, data blocks, crc32, sha256).
#[test]
fn info_headers_match_the_golden_file() {
    let Some(ds) = datasets() else { return };
    let golden = std::fs::read_to_string(ds.join("golden/maps.tsv")).unwrap();
    let limits = Limits::default();
    let mut checked = 0;
    for line in golden.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f[2].starts_with("ERROR") {
            continue;
        }
        let info = teebatch::batch::info::info_file(&ds.join("maps").join(f[0]), &limits).unwrap();
        let d = info.datafile.as_ref().unwrap_or_else(|| panic!("{}", f[0]));
        assert_eq!(info.size.to_string(), f[1], "{}", f[0]);
        assert_eq!(d.version, f[2], "{}", f[0]);
        assert_eq!(d.num_item_types.to_string(), f[3], "{}", f[0]);
        assert_eq!(d.num_items.to_string(), f[4], "{}", f[0]);
        assert_eq!(d.num_data.to_string(), f[5], "{}", f[0]);
        assert_eq!(info.crc32, f[6], "{}", f[0]);
        assert_eq!(info.sha256, f[7], "{}", f[0]);
        let items: usize = d.item_types.iter().map(|t| t.items).sum();
        assert_eq!(items, d.num_items, "{}", f[0]);
        checked += 1;
    }
    assert!(checked >= 240, "{checked}");
}

/// Gold Mine, as the independent reader sees it.
#[test]
fn info_of_gold_mine() {
    let Some(ds) = datasets() else { return };
    let path = ds.join("maps/ddnet/Gold Mine.map");
    let out = teebatch(&["maps", "info", "--format", "json", s(&path)]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(
        v["sha256"],
        "98f7a9f3b3f5268fd6ac8b168358500aa0bfeaba0fafc9f8f8f786fbf56b0f92"
    );
    let types: Vec<(u64, u64)> = v["datafile"]["item_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["type_id"].as_u64().unwrap(), t["items"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        types,
        [(0, 1), (1, 1), (2, 8), (3, 5), (4, 5), (5, 18), (6, 1)]
    );
    let m = &v["map"];
    assert_eq!(m["version_kind"], "ddnet06");
    let groups = m["groups"].as_array().unwrap();
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["zahnrad", "Game", "[-16|0]", "[0|-16]", "iMTG"]);
    let layers: Vec<usize> = groups
        .iter()
        .map(|g| g["layers"].as_array().unwrap().len())
        .collect();
    assert_eq!(layers, [2, 12, 1, 1, 2]);
    assert_eq!(groups[2]["offset"], serde_json::json!([16, 0]));
    assert_eq!(groups[3]["offset"], serde_json::json!([0, 16]));
    assert_eq!(groups[0]["parallax"], serde_json::json!([100, 100]));
    // The translucent freeze layers of the issue: alpha 83 and 183 over
    // the embedded round-tiles+.
    let game = &groups[1]["layers"];
    for (i, name, alpha) in [(6, "Unfreeze", 83), (7, "Freeze", 183)] {
        let l = &game[i];
        assert_eq!(l["name"], name);
        assert_eq!(l["type"], "tiles");
        assert_eq!(l["color"], serde_json::json!([255, 255, 255, alpha]));
        assert_eq!(l["image"], 5);
        assert_eq!(l["image_name"], "round-tiles+");
        assert_eq!(
            (l["width"].as_u64(), l["height"].as_u64()),
            (Some(211), Some(137))
        );
    }
    assert_eq!(game[1]["type"], "game");
    assert_eq!(game[1]["flags"], 1);
    assert_eq!(game[2]["type"], "front");
    // The layer name of 3 ints holds 11 characters.
    assert_eq!(groups[0]["layers"][1]["name"], "zahnrad gol");
    assert_eq!(groups[0]["layers"][1]["quads"], 8);
    let images: Vec<(String, bool, u64, u64)> = m["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["name"].as_str().unwrap().to_owned(),
                i["external"].as_bool().unwrap(),
                i["width"].as_u64().unwrap(),
                i["height"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: [(&str, bool, u64, u64); 8] = [
        ("Logo_8x4", false, 512, 256),
        ("ddnet-tiles", false, 1024, 1024),
        ("desert_main", true, 1024, 1024),
        ("generic_zahnrad_gold", false, 461, 461),
        ("jungle_unhookables", true, 1024, 1024),
        ("round-tiles+", false, 1024, 1024),
        ("thx1b - 5x4", false, 320, 256),
        ("thx2 - 5x2", false, 320, 128),
    ];
    let want: Vec<(String, bool, u64, u64)> = want
        .iter()
        .map(|&(n, e, w, h)| (n.to_owned(), e, w, h))
        .collect();
    assert_eq!(images, want);
    assert_eq!(m["images"][3]["data_bytes"], 461 * 461 * 4);
    let envs = m["envelopes"].as_array().unwrap();
    assert_eq!(envs.len(), 5);
    for (k, e) in envs.iter().enumerate() {
        assert_eq!(e["kind"], "position");
        assert_eq!(e["points"], 2);
        assert_eq!(e["start_point"], 2 * k as u64);
        assert_eq!(e["curve_types"], serde_json::json!({"linear": 2}));
    }
    assert_eq!(m["envelope_points"], 10);
    assert_eq!(m["sounds"], serde_json::json!([]));

    let text = teebatch(&["maps", "info", s(&path)]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(
        "    layer 9 \"Freeze\": tiles 211x137 flags 0 color 255,255,255,183 image 5 \"round-tiles+\"\n"
    ), "{text}");
    assert!(
        text.contains("datafile: version 4, 7 item types, 39 items"),
        "{text}"
    );
}

/// A map with a sound, a sounds layer and UUID item types; a map with
/// server settings.
#[test]
fn info_of_sounds_and_settings() {
    let Some(ds) = datasets() else { return };
    let out = teebatch(&[
        "maps",
        "info",
        "--format",
        "json",
        s(&ds.join("maps/ddnet/Sunny Side Up.map")),
    ]);
    let v = json(&out);
    assert_eq!(
        v["map"]["sounds"],
        serde_json::json!([{"index": 0, "name": "sunny", "external": false, "bytes": 767128}])
    );
    let types = v["datafile"]["item_types"].as_array().unwrap();
    let uuid = types.iter().find(|t| t["type_id"] == 65534).unwrap();
    assert_eq!(uuid["name"], "mapitemtype-automapper-config@ddnet.tw");
    assert_eq!(uuid["items"], 12);
    let layers: Vec<&Value> = v["map"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["layers"].as_array().unwrap())
        .collect();
    let sounds: Vec<&&Value> = layers.iter().filter(|l| l["type"] == "sounds").collect();
    assert_eq!(sounds.len(), 1);
    assert_eq!(
        (&sounds[0]["sources"], &sounds[0]["sound"]),
        (&1.into(), &0.into())
    );
    let kinds: Vec<&str> = v["map"]["envelopes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["color", "position", "position", "position"]);

    let out = teebatch(&[
        "maps",
        "info",
        "--format",
        "json",
        s(&ds.join("maps/ddnet/Tutorial.map")),
    ]);
    let v = json(&out);
    assert_eq!(
        v["map"]["info"]["settings"],
        serde_json::json!(["sv_show_others_default 1", "sv_team 0"])
    );
}

/// A file that is not a map: exit 1 with the error in the document; a
/// missing file: exit 2 naming it.
#[test]
fn info_of_bad_files() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.map");
    std::fs::write(&bad, b"DATA\x04\0\0\0 not a datafile").unwrap();
    let out = teebatch(&["maps", "info", "--format", "json", s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["error"]["stage"], "datafile");
    assert_eq!(v["size"], 23);
    let missing = dir.path().join("missing.map");
    let out = teebatch(&["maps", "info", s(&missing)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("missing.map"), "{err}");
}

/// A generated map with the given embedded images (width, height, RGB or
/// RGBA, pixels) and sounds added.
fn map_with_media(seed: u64, images: &[(i32, i32, bool, Vec<u8>)], sounds: &[&[u8]]) -> Vec<u8> {
    use teebatch::synth::map::{generate, SynthParams};
    let base = generate(&SynthParams::new(seed, 12, 9));
    let df = Datafile::parse(&base).unwrap();
    let mut inflater = Inflater::new(Limits::default().datafile());
    let mut w = DatafileWriter::from_datafile(&df, &mut inflater).unwrap();
    for (k, (wd, ht, rgb, px)) in images.iter().enumerate() {
        let name = w.add_data(format!("img{k}\0").as_bytes()) as i32;
        let data = w.add_data(px) as i32;
        let id = (k + 1) as u16;
        if *rgb {
            w.add_item(ITEM_IMAGE, id, &[2, *wd, *ht, 0, name, data, 0]);
        } else {
            w.add_item(ITEM_IMAGE, id, &[1, *wd, *ht, 0, name, data]);
        }
    }
    for (k, snd) in sounds.iter().enumerate() {
        let name = w.add_data(format!("snd{k}\0").as_bytes()) as i32;
        let data = w.add_data(snd) as i32;
        w.add_item(ITEM_SOUND, k as u16, &[1, 0, name, data, snd.len() as i32]);
    }
    w.write()
}

fn pixels(n: usize, bpp: usize, seed: u8) -> Vec<u8> {
    (0..n * bpp)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

fn manifest(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    assert_eq!(
        r.headers().unwrap().iter().collect::<Vec<_>>(),
        ["map", "index", "name", "kind", "width", "height", "sha256", "file"]
    );
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

/// Round trip on generated maps: every PNG decodes to the image's pixels
/// (an RGB image with alpha 255), sounds are their bytes, files are named
/// by the documented hashes, and the same image or sound in two maps is
/// one file.
#[test]
fn extract_round_trip_and_dedup() {
    let dir = tempfile::tempdir().unwrap();
    let maps = dir.path().join("maps");
    std::fs::create_dir(&maps).unwrap();
    let rgba = pixels(3 * 2, 4, 1);
    let rgb = pixels(2 * 2, 3, 2);
    let other = pixels(5, 4, 3);
    let sound: &[u8] = b"OggS not really opus";
    let a = map_with_media(
        1,
        &[(3, 2, false, rgba.clone()), (2, 2, true, rgb.clone())],
        &[sound],
    );
    let b = map_with_media(
        2,
        &[(1, 5, false, other.clone()), (3, 2, false, rgba.clone())],
        &[sound],
    );
    std::fs::write(maps.join("a.map"), &a).unwrap();
    std::fs::write(maps.join("b.map"), &b).unwrap();
    let out_dir = dir.path().join("out");
    let out = teebatch(&["maps", "extract", s(&maps), "--out", s(&out_dir), "-j", "2"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("maps extract: 2 maps (0 failed): 4 images and 2 sounds (0 failed, 2 external) in 4 files"),
        "{err}"
    );
    let rows = manifest(&out_dir.join("manifest.csv"));
    assert_eq!(rows.len(), 6);
    let hash = |w: u32, h: u32, px: &[u8]| {
        let mut s = Sha256::new();
        s.update(w.to_le_bytes());
        s.update(h.to_le_bytes());
        s.update(px);
        hex::encode(s.finalize())
    };
    let rgb_as_rgba: Vec<u8> = rgb
        .chunks(3)
        .flat_map(|p| [p[0], p[1], p[2], 255])
        .collect();
    let a_path = s(&maps.join("a.map")).to_owned();
    let b_path = s(&maps.join("b.map")).to_owned();
    // Images: the synth map's external image is index 0 (not extracted).
    let want = [
        (
            &a_path,
            "1",
            "img0",
            "image",
            "3",
            "2",
            hash(3, 2, &rgba),
            &rgba,
        ),
        (
            &a_path,
            "2",
            "img1",
            "image",
            "2",
            "2",
            hash(2, 2, &rgb_as_rgba),
            &rgb_as_rgba,
        ),
        (
            &b_path,
            "1",
            "img0",
            "image",
            "1",
            "5",
            hash(1, 5, &other),
            &other,
        ),
        (
            &b_path,
            "2",
            "img1",
            "image",
            "3",
            "2",
            hash(3, 2, &rgba),
            &rgba,
        ),
    ];
    let images: Vec<&Vec<String>> = rows.iter().filter(|r| r[3] == "image").collect();
    for (row, (map, index, name, kind, w, h, sha, px)) in images.iter().zip(&want) {
        assert_eq!(
            row[..7].to_vec(),
            [*map, *index, *name, *kind, *w, *h, sha.as_str()].map(str::to_owned)
        );
        assert_eq!(row[7], format!("{sha}.png"));
        let png = std::fs::read(out_dir.join(&row[7])).unwrap();
        let decoded = teebatch::render::raster::decode_png(&png).unwrap();
        assert_eq!(
            (decoded.width.to_string(), decoded.height.to_string()),
            (w.to_string(), h.to_string())
        );
        assert_eq!(&decoded.pixels, *px, "{}", row[7]);
    }
    assert_eq!(
        images[0][7], images[3][7],
        "the same image in two maps is one file"
    );
    let sounds: Vec<&Vec<String>> = rows.iter().filter(|r| r[3] == "sound").collect();
    let sound_sha = hex::encode(Sha256::digest(sound));
    for row in &sounds {
        assert_eq!(row[6], sound_sha);
        assert_eq!(row[7], format!("{sound_sha}.opus"));
        assert_eq!((row[4].as_str(), row[5].as_str()), ("", ""));
    }
    assert_eq!(std::fs::read(out_dir.join(&sounds[0][7])).unwrap(), sound);
    let mut files: Vec<String> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(files.len(), 5, "{files:?}"); // 3 images, 1 sound, the manifest

    // JSON lines manifest, to stdout: the same rows.
    let out = teebatch(&[
        "maps",
        "extract",
        s(&maps),
        "--out",
        s(&out_dir),
        "--manifest-format",
        "json",
        "--manifest",
        "-",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["sha256"], want[0].6);
    assert_eq!(lines[0]["width"], 3);
    assert_eq!(lines[2]["kind"], "sound");
    assert_eq!(lines[2]["width"], Value::Null);
}

/// A broken image (pixel data of the wrong size) is reported and fails the
/// run; the other images are still written. The manifest may not be an
/// input.
#[test]
fn extract_failures_and_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("bad.map");
    std::fs::write(
        &map,
        map_with_media(
            3,
            &[(4, 4, false, vec![7; 10]), (1, 1, false, vec![1, 2, 3, 4])],
            &[],
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let out = teebatch(&["maps", "extract", s(&map), "--out", s(&out_dir)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "bad.map: image 1 \"img0\": 10 bytes of pixels for 4x4 at 4 bytes per pixel (64)"
        ),
        "{err}"
    );
    assert_eq!(manifest(&out_dir.join("manifest.csv")).len(), 1);

    let out = teebatch(&[
        "maps",
        "extract",
        s(&map),
        "--out",
        s(&out_dir),
        "--manifest",
        s(&map),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing to overwrite it"), "{err}");
}

/// The shared maps: every extracted PNG decodes to its image's pixels as
/// the datafile stores them, -j does not change the output, and the two
/// Sunny Side Up maps (DDNet and its 0.7 version) share their sound file.
#[test]
fn extract_shared_maps() {
    let Some(ds) = datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let maps = ds.join("maps");
    let one = dir.path().join("one");
    let three = dir.path().join("three");
    for (out, jobs) in [(&one, "1"), (&three, "3")] {
        let o = teebatch(&[
            "maps",
            "extract",
            s(&maps),
            "--out",
            s(out),
            "-j",
            jobs,
            "-q",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let list = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().into_string().unwrap(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert!(list(&one) == list(&three), "-j 1 and -j 3 differ");
    let rows = manifest(&one.join("manifest.csv"));
    let images = rows.iter().filter(|r| r[3] == "image").count();
    let sounds = rows.iter().filter(|r| r[3] == "sound").count();
    let files: std::collections::HashSet<&str> = rows.iter().map(|r| r[7].as_str()).collect();
    assert_eq!((images, sounds, files.len()), (810, 7, 360));
    // Round trip against the datafile's own bytes of each image (RGBA, or
    // RGB with alpha 255).
    let mut inflater = Inflater::new(Limits::default().datafile());
    let mut last: Option<(PathBuf, Vec<u8>)> = None;
    for r in rows.iter().filter(|r| r[3] == "image") {
        let path = PathBuf::from(&r[0]);
        if last.as_ref().is_none_or(|(p, _)| *p != path) {
            last = Some((path.clone(), std::fs::read(&path).unwrap()));
        }
        let bytes = &last.as_ref().unwrap().1;
        let df = Datafile::parse(bytes).unwrap();
        let index: usize = r[1].parse().unwrap();
        let item = df.items_of_type(ITEM_IMAGE).nth(index).unwrap();
        let ints: Vec<i32> = item.data.iter().collect();
        inflater.start_file();
        let raw = df.data(ints[5] as usize, &mut inflater).unwrap();
        let rgb = ints[0] >= 2 && ints.get(6) == Some(&0);
        let want: Vec<u8> = if rgb {
            raw.chunks(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect()
        } else {
            raw
        };
        let png = std::fs::read(one.join(&r[7])).unwrap();
        let decoded = teebatch::render::raster::decode_png(&png).unwrap();
        assert_eq!(
            (decoded.width, decoded.height),
            (ints[1] as u32, ints[2] as u32)
        );
        assert!(decoded.pixels == want, "{} image {index}", r[0]);
    }
    let sunny: Vec<&Vec<String>> = rows
        .iter()
        .filter(|r| r[0].ends_with("/Sunny Side Up.map") && r[3] == "sound")
        .collect();
    assert_eq!(sunny.len(), 2);
    assert_eq!(sunny[0][7], sunny[1][7]);
    assert_eq!(
        sunny[0][6],
        "e9781c21c2f9b6ba0673f2703a490b284cca4440964c2060e8871e1cf485607e"
    );
}

fn write_lines(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Crafted records: every kind of difference, text and JSON, exit codes.
#[test]
fn diff_of_crafted_records() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.jsonl");
    let new = dir.path().join("new.jsonl");
    write_lines(
        &old,
        &[
            json!({"path": "a.map", "sha256": "1", "data_sha256": "d1", "name": "a"}),
            json!({"path": "b.map", "sha256": "2", "data_sha256": "d2"}),
            json!({"path": "c.map", "sha256": "3"}),
            json!({"path": "gone.map", "sha256": "4"}),
        ],
    );
    write_lines(
        &new,
        &[
            json!({"path": "a.map", "sha256": "1", "data_sha256": "d1"}),
            json!({"path": "b.map", "sha256": "5", "data_sha256": "d2"}),
            json!({"path": "moved/c.map", "sha256": "3"}),
            json!({"path": "new.map", "sha256": "6", "error": {"kind": "io"}}),
        ],
    );
    let out = teebatch(&["maps", "diff", s(&old), s(&new), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(
        v["counts"],
        json!({"old": 4, "new": 4, "added": 1, "removed": 1, "changed": 1, "renamed": 1, "unchanged": 1})
    );
    assert_eq!(v["added"], json!([{"path": "new.map", "sha256": "6"}]));
    assert_eq!(v["removed"], json!([{"path": "gone.map", "sha256": "4"}]));
    assert_eq!(
        v["changed"],
        json!([{"path": "b.map", "old_sha256": "2", "new_sha256": "5", "same_content": true}])
    );
    assert_eq!(
        v["renamed"],
        json!([{"old_path": "c.map", "new_path": "moved/c.map", "sha256": "3", "by": "file"}])
    );
    let out = teebatch(&["maps", "diff", s(&old), s(&new)]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "maps diff: 4 maps in OLD, 4 in NEW: 1 added, 1 removed, 1 changed, 1 renamed, 1 unchanged\n\
         added: new.map\nremoved: gone.map\nchanged: b.map (same content)\nrenamed: c.map -> moved/c.map\n"
    );
    let out = teebatch(&["maps", "diff", s(&old), s(&old)]);
    assert_eq!(out.status.code(), Some(0));
    std::fs::write(&new, "path,name\n").unwrap();
    let out = teebatch(&["maps", "diff", s(&old), s(&new)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("new.jsonl: line 1: not a `maps index` record"),
        "{err}"
    );
}

/// Real runs: `maps index` of a copy of the shared maps, then of the copy
/// with two maps removed, two renamed, one replaced by another map's bytes
/// and one recompressed (same content, other bytes); from the records and
/// from the summaries.
#[test]
fn diff_of_real_runs() {
    let Some(ds) = datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("maps");
    let src = ds.join("maps/ddnet");
    std::fs::create_dir(&copy).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".map"))
        .collect();
    names.sort();
    assert!(names.len() >= 10);
    for n in &names {
        std::fs::copy(src.join(n), copy.join(n)).unwrap();
    }
    let index = |tag: &str| {
        let recs = dir.path().join(format!("{tag}.jsonl"));
        let sum = dir.path().join(format!("{tag}.json"));
        let o = teebatch(&[
            "maps",
            "index",
            s(&copy),
            "--verify",
            "-q",
            "-o",
            s(&recs),
            "--summary",
            s(&sum),
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        (recs, sum)
    };
    let (old_r, old_s) = index("old");
    let p = |n: &str| s(&copy.join(n)).to_owned();
    std::fs::remove_file(copy.join(&names[0])).unwrap();
    std::fs::remove_file(copy.join(&names[1])).unwrap();
    std::fs::rename(copy.join(&names[2]), copy.join("renamed-a.map")).unwrap();
    std::fs::create_dir(copy.join("sub")).unwrap();
    std::fs::rename(copy.join(&names[3]), copy.join("sub/renamed-b.map")).unwrap();
    std::fs::copy(src.join(&names[5]), copy.join(&names[4])).unwrap();
    let bytes = std::fs::read(src.join(&names[6])).unwrap();
    let df = Datafile::parse(&bytes).unwrap();
    let mut inflater = Inflater::new(Limits::default().datafile());
    let rewritten = DatafileWriter::from_datafile(&df, &mut inflater)
        .unwrap()
        .write();
    assert_ne!(rewritten, bytes);
    std::fs::write(copy.join(&names[6]), rewritten).unwrap();
    let (new_r, new_s) = index("new");

    let out = teebatch(&["maps", "diff", s(&old_r), s(&new_r), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let n = names.len() as u64;
    assert_eq!(
        v["counts"],
        serde_json::json!({"old": n, "new": n - 2, "added": 0, "removed": 2, "changed": 2,
                           "renamed": 2, "unchanged": n - 6})
    );
    let removed: Vec<&str> = v["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert_eq!(removed, [p(&names[0]), p(&names[1])]);
    let renamed: Vec<(&str, &str)> = v["renamed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["old_path"].as_str().unwrap(),
                r["new_path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        renamed,
        [
            (p(&names[2]).as_str(), p("renamed-a.map").as_str()),
            (p(&names[3]).as_str(), p("sub/renamed-b.map").as_str())
        ]
    );
    let changed: Vec<(&str, &Value)> = v["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["path"].as_str().unwrap(), &c["same_content"]))
        .collect();
    assert_eq!(
        changed,
        [
            (p(&names[4]).as_str(), &Value::Bool(false)),
            (p(&names[6]).as_str(), &Value::Bool(true))
        ]
    );

    // Summaries know paths and file hashes only: the same, without
    // `same_content`.
    let out = teebatch(&["maps", "diff", s(&old_s), s(&new_s), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let w = json(&out);
    assert_eq!(w["counts"], v["counts"]);
    assert_eq!(w["renamed"], v["renamed"]);
    assert_eq!(w["changed"][0]["same_content"], Value::Null);
    // Records against a summary.
    let out = teebatch(&["maps", "diff", s(&old_r), s(&new_s), "--format", "json"]);
    assert_eq!(json(&out)["counts"], v["counts"]);
}
