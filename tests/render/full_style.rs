//! The full style of `maps render`: envelopes and clip rectangles, shared
//! tileset cells resampled once per size, capped image warnings, and a
//! broken physics layer refused by both styles.

use teebatch::datafile::{InflateLimits as Limits, Inflater};
use teebatch::render::{render_map, RenderOptions, Size, Style, Textures};
use teebatch::synth::map::{generate, SynthParams};

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
pub(super) fn coverage_map() -> Option<(Vec<u8>, teebatch::map::Map)> {
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
pub(super) fn layer_size_at<'m>(
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
