//! Pictures, continued: legends inside the PNGs, envelopes and clip
//! rectangles of the full style, shared tileset cells, trail and heatmap
//! memory bounds.

use crate::common::run_records;
use teebatch::datafile::{InflateLimits as Limits, Inflater};
use teebatch::render::entities::{BACKGROUND, LEGEND};
use teebatch::render::legend::{self, Outcome, PAD, ROW, SWATCH};
use teebatch::render::raster::{decode_png, Rgba};
use teebatch::render::{render_map, RenderOptions, Size, Style, Textures};
use teebatch::synth::map::{generate, SynthParams};

fn rgb_at(img: &Rgba, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * img.width + x) * 4) as usize;
    [img.pixels[i], img.pixels[i + 1], img.pixels[i + 2]]
}

/// Whether `img` has an 8 × 8 block of exactly `c` anywhere.
fn has_swatch(img: &Rgba, c: [u8; 3]) -> bool {
    (0..img.height.saturating_sub(7)).any(|y| {
        (0..img.width.saturating_sub(7))
            .any(|x| (0..8).all(|dy| (0..8).all(|dx| rgb_at(img, x + dx, y + dy) == c)))
    })
}

/// The palette legend of `maps render`: one row per kind of tile present,
/// each swatch in its palette colour, in the least busy corner; the rest
/// of the picture is the render without a legend.
#[test]
fn palette_legend_is_drawn_inside_the_png() {
    let bytes = generate(&SynthParams::new(11, 60, 40).with_all_layers());
    let opts = RenderOptions {
        style: Style::Entities,
        size: Size::Scale(16),
    };
    let textures = Textures::palette();
    let mut inf = Inflater::new(Limits::default());
    let plain = render_map(&bytes, &opts, &textures, &mut inf, &mut Vec::new()).unwrap();
    let labels: Vec<&str> = plain.legend.iter().map(|e| e.label.as_str()).collect();
    for want in [
        "death",
        "freeze",
        "spawn",
        "teleporter in",
        "speedup",
        "switch",
        "tune zone",
    ] {
        assert!(labels.contains(&want), "{labels:?}");
    }
    for e in &plain.legend {
        if e.label != "other" {
            let row = LEGEND.iter().find(|r| r.0 == e.label).unwrap();
            assert_eq!(row.3, e.colour, "{}", e.label);
        }
    }
    let mut expected = plain.canvas.clone();
    let Outcome::Drawn(rect) = legend::draw(&mut expected, &plain.legend, BACKGROUND) else {
        panic!("960 × 640 has room for the legend")
    };
    assert!(rect.w <= 480 && rect.h <= 320, "{rect:?}");
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("m.map");
    std::fs::write(&map, &bytes).unwrap();
    let none = dir.path().join("none");
    std::fs::create_dir_all(&none).unwrap();
    let out = dir.path().join("out");
    let recs = run_records(
        &[
            "maps",
            "render",
            map.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--scale",
            "16",
            "--mapres",
            none.to_str().unwrap(),
            "-q",
        ],
        0,
    );
    assert_eq!(recs[0]["warnings"], serde_json::json!([]));
    let img = decode_png(&std::fs::read(out.join(recs[0]["picture"].as_str().unwrap())).unwrap())
        .unwrap();
    // Swatches: their palette colour.
    for (i, e) in plain.legend.iter().enumerate() {
        let y0 = rect.y + PAD + i as u32 * ROW;
        for (dx, dy) in [(0, 0), (SWATCH - 1, SWATCH - 1), (3, 4)] {
            assert_eq!(
                rgb_at(&img, rect.x + PAD + dx, y0 + dy),
                e.colour,
                "{}",
                e.label
            );
        }
    }
    // Inside the panel the picture differs from the plain render; outside
    // it is the same.
    let mut inside_diff = 0;
    for y in 0..img.height {
        for x in 0..img.width {
            let p = rgb_at(&img, x, y);
            let q = plain.canvas.pixel(x, y).unwrap();
            let inside =
                (rect.x..rect.x + rect.w).contains(&x) && (rect.y..rect.y + rect.h).contains(&y);
            if inside {
                inside_diff += usize::from(p != q);
            } else {
                assert_eq!(p, q, "({x}, {y})");
            }
            assert_eq!(Some(p), expected.pixel(x, y));
        }
    }
    assert!(inside_diff as u32 > rect.w * rect.h / 2, "{inside_diff}");

    // A tiny picture: no legend, and a warning says so.
    let recs = run_records(
        &[
            "maps",
            "render",
            map.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--max-side",
            "60",
            "--mapres",
            none.to_str().unwrap(),
            "-q",
        ],
        0,
    );
    assert_eq!(recs[0]["warnings"][0]["kind"], "legend_skipped");
    let small = decode_png(&std::fs::read(out.join(recs[0]["picture"].as_str().unwrap())).unwrap())
        .unwrap();
    let plain_small = render_map(
        &bytes,
        &RenderOptions {
            style: Style::Entities,
            size: Size::MaxSide(60),
        },
        &textures,
        &mut inf,
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(
        small
            .pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect::<Vec<_>>(),
        plain_small.canvas.rgb
    );
}

/// `--trails` draws a legend row per player, in the player's colour; the
/// record's legend names the same colours.
#[test]
fn trails_legend_names_players_inside_the_png() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let demo = root.join("datasets/demos/synth-s1-0002.demo");
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none");
    std::fs::create_dir_all(&none).unwrap();
    let png = dir.path().join("t.png");
    let heat = dir.path().join("h.png");
    let args = |o: &std::path::Path, trails: bool| {
        let mut a = vec![
            "demos".to_owned(),
            "heatmap".into(),
            demo.to_str().unwrap().into(),
            "-o".into(),
            o.to_str().unwrap().into(),
            "--scale".into(),
            "12".into(),
            "--mapres".into(),
            none.to_str().unwrap().into(),
            "-q".into(),
        ];
        if trails {
            a.push("--trails".into());
        }
        a
    };
    let a = args(&png, true);
    let recs = run_records(&a.iter().map(String::as_str).collect::<Vec<_>>(), 0);
    let legend = recs.last().unwrap()["legend"].as_array().unwrap().clone();
    assert!(!legend.is_empty());
    let img = decode_png(&std::fs::read(&png).unwrap()).unwrap();
    for l in &legend {
        let c = hex::decode(&l["colour"].as_str().unwrap()[1..]).unwrap();
        assert!(has_swatch(&img, [c[0], c[1], c[2]]), "{l}");
    }
    // The density picture has no trail rows.
    let a = args(&heat, false);
    run_records(&a.iter().map(String::as_str).collect::<Vec<_>>(), 0);
    let img = decode_png(&std::fs::read(&heat).unwrap()).unwrap();
    let c = hex::decode(&legend[0]["colour"].as_str().unwrap()[1..]).unwrap();
    assert!(!has_swatch(&img, [c[0], c[1], c[2]]));
}

/// A 8 × 4 tile map (256 × 128 world units) for the full style:
///
/// - group 0 (game): the game layer (air);
/// - group 1: a tile layer without image, white, colour envelope 0 read
///   at 500 ms (linear from white at 0 ms to black at 1000 ms: grey 50 %),
///   tiles on row 3, columns 0–3; a quads layer with a red 64 × 32 quad at
///   (0, 0) moved by position envelope 1 (x + 64, turned 90° about its
///   pivot (32, 16)), and a green 32 × 32 quad at (0, 40) coloured by
///   envelope 2 (r, g, b × 0.5);
/// - group 2: clipping to x 160, y 0, 64 × 64; a blue tile layer covering
///   the whole map.
fn envelope_clip_map() -> Vec<u8> {
    use teebatch::datafile::DatafileWriter;
    use teebatch::map::strings::to_i32_string;
    use teebatch::map::{ITEM_ENVELOPE, ITEM_ENVPOINTS, ITEM_GROUP, ITEM_LAYER, ITEM_VERSION};
    let (w, h) = (8usize, 4usize);
    let mut df = DatafileWriter::new();
    df.add_item(ITEM_VERSION, 0, &[1]);
    for (i, (channels, start, n)) in [(4, 0, 2), (3, 2, 1), (4, 3, 1)].into_iter().enumerate() {
        let mut env = vec![2, channels, start, n];
        env.extend(to_i32_string("env", 8));
        env.push(0);
        df.add_item(ITEM_ENVELOPE, i as u16, &env);
    }
    #[rustfmt::skip]
    let points = [
        0, 1, 1024, 1024, 1024, 1024,
        1000, 1, 0, 0, 0, 1024,
        0, 1, 64 * 1024, 0, 90 * 1024, 0,
        0, 1, 512, 512, 512, 1024,
    ];
    df.add_item(ITEM_ENVPOINTS, 0, &points);
    type Fill<'a> = &'a dyn Fn(usize, usize) -> bool;
    let tiles = |df: &mut DatafileWriter,
                 id: u16,
                 flags: i32,
                 colour: [i32; 4],
                 env: i32,
                 offset: i32,
                 fill: Fill| {
        let mut t = vec![0u8; w * h * 4];
        for y in 0..h {
            for x in 0..w {
                if fill(x, y) {
                    t[(y * w + x) * 4] = 1;
                }
            }
        }
        let d = df.add_data(&t) as i32;
        let mut item = vec![0, 2, 0, 3, w as i32, h as i32, flags];
        item.extend(colour);
        item.extend([env, offset, -1, d]);
        item.extend(to_i32_string("t", 3));
        item.extend([-1; 5]);
        df.add_item(ITEM_LAYER, id, &item);
    };
    tiles(&mut df, 0, 1, [255; 4], -1, 0, &|_, _| false);
    tiles(&mut df, 1, 0, [255; 4], 0, 500, &|x, y| y == 3 && x < 4);
    let quad = |p: [(i32, i32); 5], colour: [i32; 4], pos_env: i32, colour_env: i32| {
        let mut q = [0i32; 38];
        for (k, (x, y)) in p.iter().enumerate() {
            q[2 * k] = x * 1024;
            q[2 * k + 1] = y * 1024;
        }
        for c in 0..4 {
            q[10 + 4 * c..14 + 4 * c].copy_from_slice(&colour);
        }
        q[34] = pos_env;
        q[36] = colour_env;
        q
    };
    let quads: Vec<u8> = [
        quad(
            [(0, 0), (64, 0), (0, 32), (64, 32), (32, 16)],
            [255, 0, 0, 255],
            1,
            -1,
        ),
        quad(
            [(0, 40), (32, 40), (0, 72), (32, 72), (16, 56)],
            [0, 255, 0, 255],
            -1,
            2,
        ),
    ]
    .iter()
    .flatten()
    .flat_map(|v| v.to_le_bytes())
    .collect();
    let d = df.add_data(&quads) as i32;
    let mut item = vec![0, 3, 0, 2, 2, d, -1];
    item.extend(to_i32_string("q", 3));
    df.add_item(ITEM_LAYER, 2, &item);
    tiles(&mut df, 3, 0, [0, 0, 255, 255], -1, 0, &|_, _| true);
    for (i, (start, n, clip)) in [(0, 1, [0; 5]), (1, 2, [0; 5]), (3, 1, [1, 160, 0, 64, 64])]
        .into_iter()
        .enumerate()
    {
        let mut g = vec![3, 0, 0, 100, 100, start, n];
        g.extend(clip);
        g.extend(to_i32_string("g", 3));
        df.add_item(ITEM_GROUP, i as u16, &g);
    }
    df.write()
}

/// Envelopes at time 0 and group clip rectangles in the full style.
#[test]
fn full_style_envelopes_and_clipping() {
    let bytes = envelope_clip_map();
    let opts = RenderOptions {
        style: Style::Full,
        size: Size::Scale(32),
    };
    let mut inf = Inflater::new(Limits::default());
    let pic = render_map(
        &bytes,
        &opts,
        &Textures::palette(),
        &mut inf,
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!((pic.geometry.width, pic.geometry.height), (256, 128));
    let px = |x, y| pic.canvas.pixel(x, y).unwrap();
    let bg = teebatch::render::full::BACKGROUND;
    let blue = [0, 0, 255];
    // Colour envelope of the tile layer: half way from white to black.
    assert_eq!(px(10, 110), [128, 128, 128]);
    assert_eq!(px(127, 100), [128, 128, 128]);
    // The red quad turned 90° about (32, 16) covers x 16..48, y -16..48,
    // then moved 64 right: x 80..112, y 0..48.
    for (x, y) in [(81, 1), (110, 46), (96, 24)] {
        assert_eq!(px(x, y), [255, 0, 0], "({x}, {y})");
    }
    for (x, y) in [(10, 10), (60, 10), (78, 24), (114, 24), (96, 50)] {
        assert_ne!(px(x, y), [255, 0, 0], "({x}, {y})");
    }
    // The green quad times its colour envelope (0.5).
    assert_eq!(px(16, 56), [0, 128, 0]);
    // The clipped blue layer: inside the rectangle only.
    for (x, y) in [(160, 0), (223, 63), (190, 30)] {
        assert_eq!(px(x, y), blue, "({x}, {y})");
    }
    for (x, y) in [(159, 30), (224, 30), (190, 64), (250, 120)] {
        assert_eq!(px(x, y), bg, "({x}, {y})");
    }
    assert_eq!(px(100, 100), [128, 128, 128]);
}

/// An external tileset is resampled once per run and cell size, whatever
/// the number of maps using it.
#[test]
fn external_tileset_resampled_once_per_size() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("mapres")).unwrap();
    // A 64 × 64 `grass_main` (the synth maps' external image).
    let mut img = teebatch::render::raster::Canvas::new(64, 64, [10, 200, 30]);
    img.blend(5, 5, [255, 255, 255, 255]);
    std::fs::write(
        dir.path().join("mapres/grass_main.png"),
        img.encode_png().unwrap(),
    )
    .unwrap();
    let textures = Textures::locate(Some(dir.path())).unwrap();
    let mut inf = Inflater::new(Limits::default());
    let maps: Vec<Vec<u8>> = (0..6)
        .map(|i| generate(&SynthParams::new(i, 20 + 3 * i as u32, 12)))
        .collect();
    for (k, scale) in [4u32, 8, 4].into_iter().enumerate() {
        let opts = RenderOptions {
            style: Style::Full,
            size: Size::Scale(scale),
        };
        for m in &maps {
            let pic = render_map(m, &opts, &textures, &mut inf, &mut Vec::new()).unwrap();
            assert!(pic
                .warnings
                .iter()
                .all(|w| w.kind != "missing_external_image"));
        }
        // 6 maps at 4, 6 at 8, 6 at 4 again: one resample per size.
        assert_eq!(textures.tileset_resamples(), [1, 2, 2][k]);
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

/// The full style's warnings (one per image it cannot use) go through the
/// one capping rule: a map with more missing external images than the cap
/// gives the cap's worth, then one `too_many_warnings`.
#[test]
fn full_style_image_warnings_are_capped() {
    use teebatch::datafile::DatafileWriter;
    use teebatch::map::strings::to_i32_string;
    use teebatch::map::{ITEM_GROUP, ITEM_IMAGE, ITEM_LAYER, ITEM_VERSION};
    use teebatch::warn::DEFAULT_MAX_WARNINGS;
    let n = DEFAULT_MAX_WARNINGS + 50;
    let (w, h) = (4i32, 4i32);
    let mut df = DatafileWriter::new();
    df.add_item(ITEM_VERSION, 0, &[1]);
    let tiles = df.add_data(&[1u8, 0, 0, 0].repeat((w * h) as usize)) as i32;
    let layer = |df: &mut DatafileWriter, id: u16, flags: i32, image: i32| {
        let mut item = vec![
            0, 2, 0, 3, w, h, flags, 255, 255, 255, 255, -1, 0, image, tiles,
        ];
        item.extend(to_i32_string("t", 3));
        item.extend([-1; 5]);
        df.add_item(ITEM_LAYER, id, &item);
    };
    layer(&mut df, 0, 1, -1);
    for i in 0..n {
        let name = df.add_data(format!("missing_{i}\0").as_bytes()) as i32;
        df.add_item(ITEM_IMAGE, i as u16, &[1, 64, 64, 1, name, -1]);
        layer(&mut df, i as u16 + 1, 0, i as i32);
    }
    let mut g = vec![3, 0, 0, 100, 100, 0, n as i32 + 1, 0, 0, 0, 0, 0];
    g.extend(to_i32_string("g", 3));
    df.add_item(ITEM_GROUP, 0, &g);
    let bytes = df.write();
    let opts = RenderOptions {
        style: Style::Full,
        size: Size::Scale(4),
    };
    let mut inf = Inflater::new(Limits::default());
    let pic = render_map(
        &bytes,
        &opts,
        &Textures::palette(),
        &mut inf,
        &mut Vec::new(),
    )
    .unwrap();
    let render: Vec<_> = pic
        .warnings
        .iter()
        .filter(|w| w.stage == teebatch::kind::Stage::Render)
        .collect();
    assert_eq!(render.len(), DEFAULT_MAX_WARNINGS + 1, "{:?}", &render[..3]);
    assert!(render[..DEFAULT_MAX_WARNINGS]
        .iter()
        .all(|w| w.kind == "missing_external_image"));
    assert_eq!(render[0].section, "image 0 (missing_0)");
    assert_eq!(render[DEFAULT_MAX_WARNINGS].kind, "too_many_warnings");
}

/// The real map `maps/ddnet/coverage.map` (all six physics layers) and its
/// map view; `None` without the datasets.
fn coverage_map() -> Option<(Vec<u8>, teebatch::map::Map)> {
    let ds = crate::common::datasets()?;
    let bytes = std::fs::read(ds.join("maps/ddnet/coverage.map")).unwrap();
    let df = teebatch::datafile::Datafile::parse(&bytes).unwrap();
    let mut inf = Inflater::new(Limits::default());
    let map =
        teebatch::map::Map::parse(&df, &mut inf, &mut Vec::new(), &mut teebatch::warn::Discard)
            .unwrap()
            .unwrap();
    Some((bytes, map))
}

/// The byte offset of tile layer `i`'s width in `bytes` (its height
/// follows), found in the layer item, and the layer.
fn layer_size_at<'m>(
    bytes: &[u8],
    map: &'m teebatch::map::Map,
    i: usize,
) -> (usize, &'m teebatch::map::Tilemap) {
    let teebatch::map::LayerKind::Tilemap(tm) = &map.layers[i].kind else {
        panic!("layer {i} is not a tilemap");
    };
    // Width and height follow each other in the layer item, after it.
    let pair: Vec<u8> = [tm.width, tm.height]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let from = map.layers[i].item_offset;
    let at = from
        + bytes[from..from + 64]
            .windows(8)
            .position(|w| w == pair)
            .expect("width and height in the layer item");
    (at, tm)
}

/// A map with a broken physics layer is refused by both styles with the
/// error `maps index` gives for it (the full style draws no physics layer,
/// but sizes the picture by the game layer): on a real map with all six
/// physics layers, width 0 is `bad_layer_size` and a width one larger than
/// the layer's tile data holds is `tile_data_size`, in that layer.
#[test]
fn both_styles_refuse_a_broken_physics_layer() {
    use teebatch::map::tiles::PhysicsKind;
    let Some((bytes, map)) = coverage_map() else {
        return;
    };
    let mut inf = Inflater::new(Limits::default());
    let textures = Textures::palette();
    let mut checked = 0;
    for kind in PhysicsKind::PHYSICS {
        let Some(i) = map.physics_layer(kind) else {
            continue;
        };
        let (at, tm) = layer_size_at(&bytes, &map, i);
        for (width, want) in [(0, "bad_layer_size"), (tm.width + 1, "tile_data_size")] {
            let mut b = bytes.clone();
            b[at..at + 4].copy_from_slice(&width.to_le_bytes());
            for style in [Style::Entities, Style::Full] {
                let opts = RenderOptions {
                    style,
                    size: Size::Scale(2),
                };
                let e = render_map(&b, &opts, &textures, &mut inf, &mut Vec::new())
                    .err()
                    .unwrap_or_else(|| panic!("{kind:?} width {width} {style:?}: drawn"))
                    .error;
                assert_eq!(
                    (e.stage.name(), e.kind, e.section.as_str()),
                    ("map", want, format!("layer {i}").as_str()),
                    "{kind:?} width {width} {style:?}: {}",
                    e.message
                );
                if width == 0 {
                    assert_eq!(
                        e.message,
                        format!(
                            "tile layer width or height not positive in layer {i} at byte {}",
                            e.offset
                        )
                    );
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 6, "coverage.map has all six physics layers");
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

/// A map with three warnings: its embedded image's name has no NUL (at
/// byte `.1`), its quads layer 1 claims quads its data does not hold (its
/// item at byte `.2`), and its design tile layer 2 names data block 99
/// (the field at byte `.3`); the game layer is `side` × `side` tiles.
fn warned_map(side: i32) -> (Vec<u8>, u64, u64, u64) {
    use teebatch::datafile::{Datafile, DatafileWriter};
    use teebatch::map;
    let mut w = DatafileWriter::new();
    w.add_item(map::ITEM_VERSION, 0, &[1]);
    let name = w.add_data(b"no terminator") as i32;
    let pixels = w.add_data(&[255; 4]) as i32;
    // Version 1: width, height, external, name, data.
    w.add_item(map::ITEM_IMAGE, 0, &[1, 1, 1, 0, name, pixels]);
    let game = w.add_data(&vec![0; 4 * (side * side) as usize]) as i32;
    let quads = w.add_data(&[0; map::QUAD_SIZE]) as i32;
    let layer_name = [-2139062144, -2139062144, -2139062272];
    let tilemap = |flags: i32, data: i32| {
        let mut v = vec![
            0,
            map::LAYER_TILEMAP,
            0,
            3,
            side,
            side,
            flags,
            255,
            255,
            255,
            255,
        ];
        v.extend([-1, 0, -1, data]);
        v.extend(layer_name);
        v
    };
    w.add_item(map::ITEM_LAYER, 0, &tilemap(1, game));
    // Three quads claimed, the data of one; drawn with image 0.
    let mut quads_layer = vec![0, map::LAYER_QUADS, 0, 2, 3, quads, 0];
    quads_layer.extend(layer_name);
    w.add_item(map::ITEM_LAYER, 1, &quads_layer);
    w.add_item(map::ITEM_LAYER, 2, &tilemap(0, 99));
    w.add_item(
        map::ITEM_GROUP,
        0,
        &[3, 0, 0, 100, 100, 0, 3, 0, 0, 0, 0, 0],
    );
    let bytes = w.write();
    let df = Datafile::parse(&bytes).unwrap();
    let name_at = df.data_range(name as usize).unwrap().start as u64;
    let quads_at = df.find_item(map::ITEM_LAYER, 1).unwrap().offset as u64;
    // The data field: after the item's 8-byte header, int 14.
    let design_at = df.find_item(map::ITEM_LAYER, 2).unwrap().offset as u64 + 8 + 4 * 14;
    (bytes, name_at, quads_at, design_at)
}

/// The map-stage warnings (kind, section, offset) of the one record that
/// `teebatch args` prints, exiting with `code`.
fn map_warnings(args: &[&str], code: i32) -> Vec<(String, String, u64)> {
    let recs = run_records(args, code);
    assert_eq!(recs.len(), 1, "{args:?}");
    recs[0]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["stage"] == "map")
        .map(|w| {
            let s = |k: &str| w[k].as_str().unwrap().to_owned();
            (s("kind"), s("section"), w["offset"].as_u64().unwrap())
        })
        .collect()
}

/// The three warnings of [`warned_map`] as [`map_warnings`] gives them, in
/// the order the map is read: the name, the design layer, the quads.
fn warned(name_at: u64, quads_at: u64, design_at: u64) -> [(String, String, u64); 3] {
    let w = |kind: &str, section: &str, at: u64| (kind.to_owned(), section.to_owned(), at);
    [
        w("string_unterminated", "image 0", name_at),
        w("tile_data_out_of_range", "layer 2", design_at),
        w("quads_data_size", "layer 1", quads_at),
    ]
}

/// Every command warns alike about the part of a map it reads: `maps
/// index` reads all that either picture style reads, so a map whose
/// embedded image's name has no NUL, whose quads layer claims quads its
/// data does not hold and whose design tile layer names a missing data
/// block gets the three warnings at the same offsets from `maps index` and
/// from `maps render --style full` (which reads names, draws quads and
/// leaves the design layer out, as the index does not count it), and all
/// but the name's from the entities style (which reads no names: layer
/// sizes and data references are checked wherever the map is loaded). No
/// command fails.
#[test]
fn every_command_warns_alike_about_what_it_reads() {
    let (bytes, name_at, quads_at, design_at) = warned_map(2);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("warned.map");
    std::fs::write(&path, &bytes).unwrap();
    let (path, out) = (path.to_str().unwrap(), dir.path().to_str().unwrap());
    let all = warned(name_at, quads_at, design_at);
    assert_eq!(map_warnings(&["maps", "index", path], 0), all);
    let full = ["maps", "render", "--style", "full", "--out", out, path];
    assert_eq!(map_warnings(&full, 0), all);
    let entities = ["maps", "render", "--out", out, path];
    assert_eq!(map_warnings(&entities, 0), all[1..]);
}

/// A picture that fails after its map was read keeps the warnings found
/// before its error: a 200 × 200 tile map asked for at 64 pixels per tile
/// (a 12,800-pixel square, over the pixel limit) is `too_large` with the
/// map's warnings in both styles' records (found by fuzzing: they were
/// dropped).
#[test]
fn a_failed_picture_keeps_the_warnings_found_before() {
    let (bytes, name_at, quads_at, design_at) = warned_map(200);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.map");
    std::fs::write(&path, &bytes).unwrap();
    let (path, out) = (path.to_str().unwrap(), dir.path().to_str().unwrap());
    let all = warned(name_at, quads_at, design_at);
    for (style, want) in [("full", &all[..]), ("entities", &all[1..])] {
        let args = [
            "maps", "render", "--style", style, "--scale", "64", "--out", out, path,
        ];
        assert_eq!(map_warnings(&args, 1), want, "{style}");
        let recs = run_records(&args, 1);
        assert_eq!(recs[0]["error"]["kind"], "too_large", "{style}");
    }
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
