//! `maps render` and the picture module: golden pixels on generated maps,
//! PNG round trips, the resample counter, every real map.

use crate::common::{datasets, files_with_ext, run_records, teebatch};
use std::collections::BTreeSet;
use teebatch::datafile::{Datafile, InflateLimits as Limits, Inflater};
use teebatch::map::tiles::PhysicsKind;
use teebatch::map::{LoadOptions, Map, TileLayer};
use teebatch::render::entities::{BACKGROUND, LEGEND, OTHER};
use teebatch::render::raster::{decode_png, Rgba};
use teebatch::render::{render_map, RenderOptions, Size, Style, Textures};
use teebatch::synth::map::{generate, SynthParams};

/// The physics layers of a map, loaded independently of the renderer.
fn physics_layers(bytes: &[u8]) -> Vec<TileLayer> {
    let df = Datafile::parse(bytes).unwrap();
    let mut inf = Inflater::new(Limits::default());
    let mut buf = Vec::new();
    let map = Map::parse_opts(&df, &mut inf, &mut buf, LoadOptions::FULL, &mut Vec::new())
        .unwrap()
        .unwrap();
    PhysicsKind::PHYSICS
        .iter()
        .filter_map(|&k| map.physics_layer(k))
        .map(|i| map.load_tiles(&df, i, &mut inf, &mut buf).unwrap().unwrap())
        .collect()
}

/// The id byte of tile `(x, y)`.
fn id_at(l: &TileLayer, x: usize, y: usize) -> u8 {
    l.tile(x, y).unwrap()[l.kind.id_offset()]
}

/// The legend colour of `id` in a layer of `kind` (the switch layer's
/// other tiles and the front layer use the game colours).
fn legend_colour(kind: PhysicsKind, id: u8) -> [u8; 3] {
    let kinds: &[PhysicsKind] = match kind {
        PhysicsKind::Front | PhysicsKind::Game => &[PhysicsKind::Game],
        PhysicsKind::Switch => &[PhysicsKind::Switch, PhysicsKind::Game],
        k => std::slice::from_ref(match k {
            PhysicsKind::Tele => &PhysicsKind::Tele,
            PhysicsKind::Speedup => &PhysicsKind::Speedup,
            _ => &PhysicsKind::Tune,
        }),
    };
    for k in kinds {
        for (_, lk, ids, c) in LEGEND {
            if lk == k && ids.contains(&id) {
                return *c;
            }
        }
    }
    OTHER
}

fn render_palette(bytes: &[u8], size: Size) -> (Rgba, Vec<u8>) {
    let textures = Textures::palette();
    let mut inf = Inflater::new(Limits::default());
    let opts = RenderOptions {
        style: Style::Entities,
        size,
    };
    let pic = render_map(bytes, &opts, &textures, &mut inf, &mut Vec::new()).unwrap();
    let png = pic.canvas.encode_png().unwrap();
    (decode_png(&png).unwrap(), png)
}

fn rgb_at(img: &Rgba, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * img.width + x) * 4) as usize;
    [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]]
}

/// The colour a corner pixel of tile `(x, y)` must have with the palette:
/// the last layer with a tile there, else the background.
fn expected_corner(layers: &[TileLayer], x: usize, y: usize) -> [u8; 3] {
    layers
        .iter()
        .rev()
        .find(|l| id_at(l, x, y) != 0)
        .map_or(BACKGROUND, |l| legend_colour(l.kind, id_at(l, x, y)))
}

#[test]
fn render_synth_game_layer_golden_pixels() {
    let bytes = generate(&SynthParams::new(7, 40, 30));
    let layers = physics_layers(&bytes);
    let (img, _) = render_palette(&bytes, Size::Scale(4));
    assert_eq!((img.width, img.height), (160, 120));
    let mut seen = BTreeSet::new();
    for y in 0..30 {
        for x in 0..40 {
            let id = id_at(&layers[0], x, y);
            seen.insert(id);
            let want = expected_corner(&layers, x, y);
            for (dx, dy) in [(0, 0), (3, 3), (1, 2)] {
                assert_eq!(
                    rgb_at(&img, x as u32 * 4 + dx, y as u32 * 4 + dy),
                    want,
                    "tile ({x}, {y}) id {id}"
                );
            }
        }
    }
    // The map has air, solid, death, freeze and a spawn (192), all checked.
    for id in [0, 1, 2, 9, 192] {
        assert!(seen.contains(&id), "{seen:?}");
    }
    assert_eq!(legend_colour(PhysicsKind::Game, 192), [255, 255, 0]);
}

#[test]
fn render_synth_ddnet_layers_golden_pixels() {
    let bytes = generate(&SynthParams::new(11, 60, 40).with_all_layers());
    let layers = physics_layers(&bytes);
    assert_eq!(layers.len(), 6);
    let (img, _) = render_palette(&bytes, Size::Scale(8));
    assert_eq!((img.width, img.height), (480, 320));
    let mut kinds_seen = BTreeSet::new();
    for y in 0..40 {
        for x in 0..60 {
            let top = layers.iter().rev().find(|l| id_at(l, x, y) != 0);
            if let Some(l) = top {
                kinds_seen.insert(l.kind);
            }
            // The corner is never covered by a speedup's arrow.
            assert_eq!(
                rgb_at(&img, x as u32 * 8, y as u32 * 8),
                expected_corner(&layers, x, y),
                "tile ({x}, {y})"
            );
        }
    }
    for k in [
        PhysicsKind::Tele,
        PhysicsKind::Speedup,
        PhysicsKind::Switch,
        PhysicsKind::Tune,
    ] {
        assert!(kinds_seen.contains(&k), "{k:?} not on top anywhere");
    }
}

#[test]
fn render_speedup_arrow_turns_with_angle() {
    // The arrow is a triangle wide at its back: beside the axis, a point
    // behind the centre is on it and the point as far ahead is not, at
    // whatever angle the speedup points (y down, clockwise degrees).
    let bytes = generate(&SynthParams::new(11, 60, 40).with_all_layers());
    let layers = physics_layers(&bytes);
    let (img, _) = render_palette(&bytes, Size::Scale(32));
    let speed = layers
        .iter()
        .find(|l| l.kind == PhysicsKind::Speedup)
        .unwrap();
    let arrow = teebatch::render::entities::ARROW;
    let mut checked = 0;
    for y in 0..40 {
        for x in 0..60 {
            let t = speed.tile(x, y).unwrap();
            if t[2] == 0 || layers[4..].iter().any(|l| id_at(l, x, y) != 0) {
                continue;
            }
            let a = f64::from(i16::from_le_bytes([t[4], t[5]])).to_radians();
            let (dx, dy) = (a.cos(), a.sin());
            let (cx, cy) = (x as f64 * 32.0 + 16.0, y as f64 * 32.0 + 16.0);
            let at = |along: f64, across: f64| {
                let px = cx + 32.0 * (along * dx - across * dy);
                let py = cy + 32.0 * (along * dy + across * dx);
                rgb_at(&img, px.floor() as u32, py.floor() as u32)
            };
            for side in [0.18, -0.18] {
                assert_eq!(at(-0.1, side), arrow, "({x}, {y}) behind");
                assert_ne!(at(0.1, side), arrow, "({x}, {y}) ahead");
            }
            assert_eq!(at(0.1, 0.0), arrow, "({x}, {y}) axis");
            checked += 1;
        }
    }
    assert!(checked > 0, "no uncovered speedup");
}

#[test]
fn render_shrinks_large_maps_and_resamples_once_per_size() {
    let textures = Textures::palette();
    let mut inf = Inflater::new(Limits::default());
    let opts = RenderOptions {
        style: Style::Entities,
        size: Size::MaxSide(100),
    };
    let mut sizes = BTreeSet::new();
    for i in 0..12 {
        let p = SynthParams::collection(3, i);
        let bytes = generate(&p);
        let pic = render_map(&bytes, &opts, &textures, &mut inf, &mut Vec::new()).unwrap();
        let g = pic.geometry;
        let longest = p.width.max(p.height);
        assert!(g.width.max(g.height) <= 100, "{g:?}");
        assert_eq!(g.shrink, longest.div_ceil(100));
        assert_eq!(g.width, p.width.div_ceil(g.shrink));
        let back = decode_png(&pic.canvas.encode_png().unwrap()).unwrap();
        assert_eq!((back.width, back.height), (g.width, g.height));
        // Layer groups × cell size actually used.
        let groups = if i % 2 == 1 { 5 } else { 1 };
        for k in 0..groups {
            sizes.insert((k, 1u32));
        }
    }
    // One cell set per layer group and size, whatever the number of maps.
    assert_eq!(textures.resamples(), sizes.len() as u64);
}

#[test]
fn render_cli_writes_deterministic_pngs() {
    let dir = tempfile::tempdir().unwrap();
    let maps = dir.path().join("m");
    let out = teebatch(&[
        "synth",
        "maps",
        "--out",
        maps.to_str().unwrap(),
        "--count",
        "4",
    ]);
    assert!(out.status.success());
    let mut outputs = Vec::new();
    for jobs in ["1", "2"] {
        let o = dir.path().join(format!("out{jobs}"));
        let recs = run_records(
            &[
                "maps",
                "render",
                maps.to_str().unwrap(),
                "--out",
                o.to_str().unwrap(),
                "--max-side",
                "200",
                "--jobs",
                jobs,
                "--mapres",
                dir.path().to_str().unwrap(),
                "-q",
            ],
            0,
        );
        assert_eq!(recs.len(), 4);
        let mut files = Vec::new();
        for r in &recs {
            let path = r["output"].as_str().unwrap();
            let bytes = std::fs::read(path).unwrap();
            let img = decode_png(&bytes).unwrap();
            assert_eq!(img.width as u64, r["width"].as_u64().unwrap());
            assert_eq!(img.height as u64, r["height"].as_u64().unwrap());
            assert!(img.width.max(img.height) <= 200);
            files.push(bytes);
        }
        outputs.push(files);
    }
    assert_eq!(outputs[0], outputs[1]);
}

#[test]
fn render_cli_bad_file_is_a_record() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.map"), b"DATA\x04\0\0\0 truncated").unwrap();
    let good = dir.path().join("good.map");
    std::fs::write(&good, generate(&SynthParams::new(1, 20, 10))).unwrap();
    let o = dir.path().join("out");
    let recs = run_records(
        &[
            "maps",
            "render",
            dir.path().to_str().unwrap(),
            "--out",
            o.to_str().unwrap(),
            "--scale",
            "2",
            "-q",
        ],
        1,
    );
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0]["name"], "bad");
    assert_eq!(recs[0]["error"]["stage"], "datafile");
    assert!(recs[0].get("output").is_none());
    assert_eq!(recs[1]["width"], 40);
    // The picture is named by the map's name and its file's SHA-256.
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(
        std::fs::read(&good).unwrap(),
    ));
    let name = format!("good-{sha}.png");
    assert_eq!(recs[1]["picture"], name);
    assert!(o.join(&name).is_file());
    assert!(recs[0].get("picture").is_none());
    assert_eq!(std::fs::read_dir(&o).unwrap().count(), 1);
}

/// Every real map with a map part renders, with the atlas when present
/// (else the palette); the rest are `no_map` records.
#[test]
fn render_every_real_map() {
    let Some(ds) = datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = teebatch(&[
        "maps",
        "render",
        ds.join("maps").to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
        "--max-side",
        "64",
        "-q",
    ]);
    let recs = crate::common::records(&out);
    assert_eq!(recs.len(), files_with_ext(&ds.join("maps"), "map").len());
    let mut ok = 0;
    for r in &recs {
        match r.get("error") {
            None => {
                ok += 1;
                let img =
                    decode_png(&std::fs::read(r["output"].as_str().unwrap()).unwrap()).unwrap();
                assert_eq!(img.width as u64, r["width"].as_u64().unwrap());
            }
            Some(e) => assert_eq!(e["kind"], "no_map", "{r}"),
        }
    }
    assert!(ok >= 230, "{ok} maps rendered");
}

/// Spawn and flag tiles of a real map are drawn in their colours: the
/// palette's, and with the atlas (when present) the mean of the atlas
/// cell's 2 × 2 pixel blocks over the background at 32 pixels per tile.
#[test]
fn render_real_map_spawn_pixel() {
    let Some(ds) = datasets() else { return };
    let bytes = std::fs::read(ds.join("maps/ddnet/ctf2.map")).unwrap();
    let layers = physics_layers(&bytes);
    let (img, _) = render_palette(&bytes, Size::Scale(2));
    let game = &layers[0];
    let mut entities = Vec::new();
    for y in 0..game.height {
        for x in 0..game.width {
            let id = id_at(game, x, y);
            if (192..=196).contains(&id) && layers[1..].iter().all(|l| id_at(l, x, y) == 0) {
                assert_eq!(
                    rgb_at(&img, x as u32 * 2, y as u32 * 2),
                    legend_colour(PhysicsKind::Game, id)
                );
                entities.push((x, y, id));
            }
        }
    }
    let ids: BTreeSet<u8> = entities.iter().map(|e| e.2).collect();
    assert!(
        ids.contains(&193) && ids.contains(&194) && ids.contains(&195),
        "{ids:?}"
    );

    let atlas_dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/ddnet-mapres");
    if !atlas_dir.join("entities/DDNet.png").is_file() {
        crate::common::skip("../shared/reference/ddnet-mapres not found");
        return;
    }
    let atlas = decode_png(&std::fs::read(atlas_dir.join("entities/DDNet.png")).unwrap()).unwrap();
    let textures = Textures::locate(Some(&atlas_dir)).unwrap();
    assert!(textures.has_atlas());
    let opts = RenderOptions {
        style: Style::Entities,
        size: Size::Scale(32),
    };
    let mut inf = Inflater::new(Limits::default());
    let pic = render_map(&bytes, &opts, &textures, &mut inf, &mut Vec::new()).unwrap();
    for &(x, y, id) in &entities {
        for (dx, dy) in [(16u32, 16u32), (5, 25)] {
            // Premultiplied mean of the 2 × 2 atlas pixels under (dx, dy).
            let mut sum = [0f64; 4];
            for (ox, oy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let ax = u32::from(id % 16) * 64 + 2 * dx + ox;
                let ay = u32::from(id / 16) * 64 + 2 * dy + oy;
                let p = &atlas.pixels[((ay * atlas.width + ax) * 4) as usize..][..4];
                let a = f64::from(p[3]) / 255.0;
                for c in 0..3 {
                    sum[c] += f64::from(p[c]) * a / 4.0;
                }
                sum[3] += a / 4.0;
            }
            let want: [f64; 3] =
                std::array::from_fn(|c| sum[c] + f64::from(BACKGROUND[c]) * (1.0 - sum[3]));
            let got = pic
                .canvas
                .pixel(x as u32 * 32 + dx, y as u32 * 32 + dy)
                .unwrap();
            for c in 0..3 {
                assert!(
                    (f64::from(got[c]) - want[c]).abs() <= 2.0,
                    "tile {id}: {got:?} vs {want:?}"
                );
            }
        }
    }
}

/// `maps index --thumbnails` writes the pictures of `maps render
/// --max-side 256` and the same records as without it.
#[test]
fn index_thumbnails_match_render() {
    let dir = tempfile::tempdir().unwrap();
    let maps = dir.path().join("m");
    std::fs::create_dir_all(&maps).unwrap();
    for i in 0..3 {
        let p = SynthParams::collection(5, i);
        std::fs::write(maps.join(format!("s{i}.map")), generate(&p)).unwrap();
    }
    std::fs::write(maps.join("empty.map"), b"").unwrap();
    let m = maps.to_str().unwrap();
    let thumbs = dir.path().join("thumbs");
    let rendered = dir.path().join("rendered");
    let nomapres = dir.path().to_str().unwrap();
    let plain = run_records(&["maps", "index", m, "-q"], 1);
    let with = run_records(
        &[
            "maps",
            "index",
            m,
            "-q",
            "--thumbnails",
            thumbs.to_str().unwrap(),
            "--mapres",
            nomapres,
        ],
        1,
    );
    // The records are those of the index, and each names its thumbnail.
    let names: Vec<Option<String>> = with
        .iter()
        .map(|r| r.get("thumbnail").map(|t| t.as_str().unwrap().to_owned()))
        .collect();
    let stripped: Vec<serde_json::Value> = with
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("thumbnail");
            r
        })
        .collect();
    assert_eq!(plain, stripped);
    let rendered_recs = run_records(
        &[
            "maps",
            "render",
            m,
            "--out",
            rendered.to_str().unwrap(),
            "--max-side",
            "256",
            "--mapres",
            nomapres,
            "-q",
        ],
        1,
    );
    for (i, r) in with.iter().enumerate() {
        let Some(name) = &names[i] else {
            assert_eq!(r["name"], "empty");
            continue;
        };
        let sha = r["sha256"].as_str().unwrap();
        assert_eq!(*name, format!("{}-{sha}.png", r["name"].as_str().unwrap()));
        // `maps render` names the same picture the same.
        assert_eq!(rendered_recs[i]["picture"], name.as_str());
        let a = std::fs::read(thumbs.join(name)).unwrap();
        assert_eq!(a, std::fs::read(rendered.join(name)).unwrap());
        let img = decode_png(&a).unwrap();
        assert!(img.width.max(img.height) <= 256);
    }
    assert_eq!(names.iter().flatten().count(), 3);
    assert_eq!(std::fs::read_dir(&thumbs).unwrap().count(), 3);
}

/// The full style of a generated map: the Deco tile layer (external image
/// `grass_main`) in its cells, a warning naming the image when it is
/// missing (tiles then drawn in the layer colour, white), air where no
/// tile or quad is.
#[test]
fn render_full_style_synth() {
    let bytes = generate(&SynthParams::new(5, 50, 30));
    let df = Datafile::parse(&bytes).unwrap();
    let mut inf = Inflater::new(Limits::default());
    let mut buf = Vec::new();
    let map = Map::parse_opts(&df, &mut inf, &mut buf, LoadOptions::FULL, &mut Vec::new())
        .unwrap()
        .unwrap();
    let deco_i = map.layers.iter().position(|l| l.name == "Deco").unwrap();
    let deco = map
        .load_tiles(&df, deco_i, &mut inf, &mut buf)
        .unwrap()
        .unwrap();
    let opts = RenderOptions {
        style: Style::Full,
        size: Size::Scale(32),
    };
    let plain = Textures::palette();
    let pic = render_map(&bytes, &opts, &plain, &mut inf, &mut Vec::new()).unwrap();
    assert_eq!((pic.geometry.width, pic.geometry.height), (1600, 960));
    let w = &pic.warnings;
    assert!(
        w.iter()
            .any(|w| w.kind == "missing_external_image" && w.section == "image 0 (grass_main)"),
        "{w:?}"
    );
    let mut tiles = 0;
    for y in 0..30 {
        for x in 0..50 {
            let id = deco.tile(x, y).unwrap()[0];
            let p = pic
                .canvas
                .pixel(x as u32 * 32 + 16, y as u32 * 32 + 16)
                .unwrap();
            if id != 0 {
                assert_eq!(p, [255, 255, 255], "deco tile ({x}, {y})");
                tiles += 1;
            } else {
                // Air, or one of the two white quads.
                assert!(
                    p == teebatch::render::full::BACKGROUND || p == [255; 3],
                    "{p:?}"
                );
            }
        }
    }
    assert!(tiles > 0);

    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/ddnet-mapres");
    if !dir.join("mapres/grass_main.png").is_file() {
        crate::common::skip("../shared/reference/ddnet-mapres not found");
        return;
    }
    let grass = decode_png(&std::fs::read(dir.join("mapres/grass_main.png")).unwrap()).unwrap();
    let textures = Textures::locate(Some(&dir)).unwrap();
    let pic = render_map(&bytes, &opts, &textures, &mut inf, &mut Vec::new()).unwrap();
    assert!(pic
        .warnings
        .iter()
        .all(|w| w.kind != "missing_external_image"));
    let mut checked = 0;
    for y in 0..30 {
        for x in 0..50 {
            let id = deco.tile(x, y).unwrap()[0];
            if id == 0 {
                continue;
            }
            let (dx, dy) = (12u32, 20u32);
            let got = pic
                .canvas
                .pixel(x as u32 * 32 + dx, y as u32 * 32 + dy)
                .unwrap();
            if got == [255; 3] {
                continue; // under a quad
            }
            let mut sum = [0f64; 4];
            for (ox, oy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let ax = u32::from(id % 16) * 64 + 2 * dx + ox;
                let ay = u32::from(id / 16) * 64 + 2 * dy + oy;
                let p = &grass.pixels[((ay * grass.width + ax) * 4) as usize..][..4];
                let a = f64::from(p[3]) / 255.0;
                for c in 0..3 {
                    sum[c] += f64::from(p[c]) * a / 4.0;
                }
                sum[3] += a / 4.0;
            }
            let bg = teebatch::render::full::BACKGROUND;
            for c in 0..3 {
                let want = sum[c] + f64::from(bg[c]) * (1.0 - sum[3]);
                assert!(
                    (f64::from(got[c]) - want).abs() <= 2.0,
                    "({x}, {y}) id {id}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0);
}

/// `datasets/pictures/` is what the documented commands draw.
#[test]
fn example_pictures_are_reproducible() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("no-textures");
    std::fs::create_dir_all(&none).unwrap();
    let (none, out) = (none.to_str().unwrap(), dir.path().to_str().unwrap());
    let d = |rel: &str| root.join(rel).to_str().unwrap().to_owned();
    let heat = dir.path().join("heatmap-synth-s1-0005.png");
    let trails = dir.path().join("trails-synth-s1-0002.png");
    let map = d("datasets/maps/synth-s1-0001.map");
    let rendered = run_records(
        &[
            "maps", "render", &map, "--out", out, "--scale", "4", "--mapres", none, "-q",
        ],
        0,
    );
    // The picture file is named by content: copied to the dataset's name.
    std::fs::copy(
        dir.path().join(rendered[0]["picture"].as_str().unwrap()),
        dir.path().join("synth-s1-0001.png"),
    )
    .unwrap();
    let demo5 = d("datasets/demos/synth-s1-0005.demo");
    let demo2 = d("datasets/demos/synth-s1-0002.demo");
    let heat_s = heat.to_str().unwrap();
    let trails_s = trails.to_str().unwrap();
    run_records(
        &[
            "demos", "heatmap", &demo5, "-o", heat_s, "--scale", "4", "--mapres", none, "-q",
        ],
        0,
    );
    run_records(
        &[
            "demos", "heatmap", &demo2, "-o", trails_s, "--scale", "8", "--trails", "--mapres",
            none, "-q",
        ],
        0,
    );
    for name in [
        "synth-s1-0001.png",
        "heatmap-synth-s1-0005.png",
        "trails-synth-s1-0002.png",
    ] {
        assert_eq!(
            std::fs::read(dir.path().join(name)).unwrap(),
            std::fs::read(root.join("datasets/pictures").join(name)).unwrap(),
            "{name}"
        );
    }
}
