//! What a picture costs: the full style's work (pixel visits, rows,
//! tiles, quads and envelope points read) is linear in what it draws and
//! reads, capped per picture (`render.work_limit`), and a physics layer is
//! held once (its inflated bytes), not copied.
//!
//! Work is counted by the renderer ([`Picture::work`]) and memory by the
//! capacities it holds ([`Picture::held_bytes`]); wall time and RSS are
//! never measured. The maps are crafted with the crate's `DatafileWriter`.

use proptest::prelude::*;
use teebatch::datafile::{DatafileWriter, InflateLimits, Inflater};
use teebatch::limits::Limits;
use teebatch::map::strings::to_i32_string;
use teebatch::map::{ITEM_ENVELOPE, ITEM_ENVPOINTS, ITEM_GROUP, ITEM_LAYER, ITEM_VERSION};
use teebatch::render::{render_map, Textures};
use teebatch::render::{render_map_limited, Picture, RenderFailure, RenderOptions, Size, Style};

use crate::common::run_records;

/// One quad: corners (top left, top right, bottom left, bottom right) in
/// world units, RGBA, position and colour envelope (−1: none).
#[derive(Clone, Debug)]
struct Quad {
    corners: [(i32, i32); 4],
    colour: [i32; 4],
    pos_env: i32,
    colour_env: i32,
    env_offset: i32,
}

impl Quad {
    fn plain(corners: [(i32, i32); 4]) -> Quad {
        Quad {
            corners,
            colour: [255, 255, 255, 128],
            pos_env: -1,
            colour_env: -1,
            env_offset: 0,
        }
    }

    fn ints(&self) -> [i32; 38] {
        let mut q = [0i32; 38];
        for (k, (x, y)) in self.corners.iter().enumerate() {
            q[2 * k] = x.saturating_mul(1024);
            q[2 * k + 1] = y.saturating_mul(1024);
        }
        q[8] = q[0];
        q[9] = q[1];
        for c in 0..4 {
            q[10 + 4 * c..14 + 4 * c].copy_from_slice(&self.colour);
        }
        q[34] = self.pos_env;
        q[35] = self.env_offset;
        q[36] = self.colour_env;
        q[37] = self.env_offset;
        q
    }
}

/// A crafted map: a `w × h` game layer (air) in group 0, then in group 1
/// a design tile layer (`design`: its tiles' ids, row-major, `w × h`) and
/// a quads layer named `Heavy`; envelopes as (channels, points of six
/// ints).
#[derive(Clone, Debug, Default)]
struct Crafted {
    w: usize,
    h: usize,
    design: Option<Vec<u8>>,
    quads: Vec<Quad>,
    envelopes: Vec<(i32, Vec<[i32; 6]>)>,
}

/// The index of the quads layer in every crafted map (game, design, quads).
const QUADS_LAYER: usize = 2;

fn tile_layer(df: &mut DatafileWriter, id: u16, w: usize, h: usize, flags: i32, ids: &[u8]) {
    let mut t = vec![0u8; w * h * 4];
    for (i, &v) in ids.iter().enumerate().take(w * h) {
        t[i * 4] = v;
    }
    let d = df.add_data(&t) as i32;
    let mut item = vec![0, 2, 0, 3, w as i32, h as i32, flags];
    item.extend([255, 255, 255, 200]);
    item.extend([-1, 0, -1, d]);
    item.extend(to_i32_string(if flags == 1 { "Game" } else { "Design" }, 3));
    item.extend([-1; 5]);
    df.add_item(ITEM_LAYER, id, &item);
}

fn crafted(c: &Crafted) -> Vec<u8> {
    let mut df = DatafileWriter::new();
    df.add_item(ITEM_VERSION, 0, &[1]);
    let mut start = 0;
    let mut points = Vec::new();
    for (i, (channels, pts)) in c.envelopes.iter().enumerate() {
        let mut env = vec![2, *channels, start, pts.len() as i32];
        env.extend(to_i32_string("env", 8));
        env.push(0);
        df.add_item(ITEM_ENVELOPE, i as u16, &env);
        start += pts.len() as i32;
        points.extend(pts.iter().flatten());
    }
    if !points.is_empty() {
        df.add_item(ITEM_ENVPOINTS, 0, &points);
    }
    tile_layer(&mut df, 0, c.w, c.h, 1, &[]);
    tile_layer(&mut df, 1, c.w, c.h, 0, c.design.as_deref().unwrap_or(&[]));
    let quads: Vec<u8> = c
        .quads
        .iter()
        .flat_map(|q| q.ints())
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let d = df.add_data(&quads) as i32;
    let mut item = vec![0, 3, 0, 2, c.quads.len() as i32, d, -1];
    item.extend(to_i32_string("Heavy", 3));
    df.add_item(ITEM_LAYER, QUADS_LAYER as u16, &item);
    for (i, (start, n)) in [(0, 1), (1, 2)].into_iter().enumerate() {
        let mut g = vec![3, 0, 0, 100, 100, start, n];
        g.extend([0; 5]);
        g.extend(to_i32_string("g", 3));
        df.add_item(ITEM_GROUP, i as u16, &g);
    }
    df.write()
}

fn render(
    bytes: &[u8],
    style: Style,
    size: Size,
    max_work: Option<u64>,
) -> Result<Picture, RenderFailure> {
    let opts = RenderOptions { style, size };
    let mut inf = Inflater::new(InflateLimits::default());
    render_map_limited(
        bytes,
        &opts,
        &Textures::palette(),
        &mut inf,
        &mut Vec::new(),
        max_work,
    )
}

/// The full style's work on `c` at `px` pixels per tile.
fn work(c: &Crafted, px: u32) -> u64 {
    render(&crafted(c), Style::Full, Size::Scale(px), None)
        .map_err(|f| f.error)
        .unwrap()
        .work
}

/// `ops(2n) / ops(n)` must stay near 2 (quadratic work gives 4).
fn assert_linear(what: &str, small: u64, large: u64) {
    assert!(small > 0, "{what}: no work counted");
    let ratio = large as f64 / small as f64;
    assert!(
        (1.8..=2.3).contains(&ratio),
        "{what}: {small} -> {large} work when the input doubled (x{ratio:.2})"
    );
}

/// A 64 × 64 tile map (2048 world units a side) with `n` thin quads along
/// its diagonal, each about one pixel wide.
fn slivers(n: usize) -> Crafted {
    let q = Quad::plain([(0, 0), (8, 0), (2040, 2048), (2048, 2048)]);
    Crafted {
        w: 64,
        h: 64,
        quads: vec![q; n],
        ..Crafted::default()
    }
}

/// A quad costs its rows and the pixels it covers, not its bounding box:
/// `n` diagonal slivers over a 256 × 256 drawing (each covering 2 or 3
/// pixels of each of its 256 rows) cost at most 12 per row and triangle
/// (testing the bounding box would cost 2 × 65 536 per quad), and the
/// work doubles with the quads.
#[test]
fn quad_work_is_rows_plus_pixels_not_the_bounding_box() {
    let small = work(&slivers(100), 4);
    let large = work(&slivers(200), 4);
    assert_linear("diagonal slivers", small, large);
    let per_quad = large / 200;
    assert!(
        per_quad <= 2 * 260 * 12,
        "{per_quad} per quad (its bounding box is 65 536 pixels)"
    );
    // Each quad covers its pixels: at least 2 per row of one triangle.
    assert!(per_quad >= 2 * 256, "{per_quad}");
}

/// `n` and `2n` quads over the whole picture: the work doubles, and each
/// quad costs its pixels plus its rows (the two triangles share the
/// picture's pixels once).
#[test]
fn quad_work_is_linear_in_quads() {
    let full = |n| Crafted {
        w: 32,
        h: 32,
        quads: vec![Quad::plain([(0, 0), (1024, 0), (0, 1024), (1024, 1024)]); n],
        ..Crafted::default()
    };
    let (small, large) = (work(&full(50), 4), work(&full(100), 4));
    assert_linear("full-picture quads", small, large);
    let pixels = 128 * 128;
    let per_quad = large / 100;
    assert!(
        per_quad >= pixels && per_quad <= pixels + 2 * 134 * 8,
        "{per_quad} per quad for {pixels} pixels"
    );
}

/// `points` envelope points (a colour envelope, times 0, 10, 20, ...) read
/// by `quads` one-pixel quads at an offset past the middle.
fn enveloped(quads: usize, points: usize) -> Crafted {
    let pts = (0..points as i32)
        .map(|i| [10 * i, 1, 1024, 512, 1024, 1024])
        .collect();
    let q = Quad {
        colour_env: 0,
        env_offset: 7 * points as i32 + 3,
        ..Quad::plain([(0, 0), (8, 0), (0, 8), (8, 8)])
    };
    Crafted {
        w: 16,
        h: 16,
        quads: vec![q; quads],
        envelopes: vec![(4, pts)],
        ..Crafted::default()
    }
}

/// An envelope is read by bisection once per quad: doubling its points
/// adds about one read per quad, doubling the quads doubles the work.
#[test]
fn envelope_points_cost_a_bisection_per_quad() {
    let base = work(&enveloped(0, 20_000), 1);
    let small = work(&enveloped(500, 20_000), 1) - base;
    let large = work(&enveloped(500, 40_000), 1) - base;
    assert!(small > 500, "{small}");
    assert!(
        (large as f64) < 1.1 * small as f64,
        "{small} -> {large} work when the points doubled"
    );
    assert!(small / 500 <= 1 + 2 * 17 + 4 + 16, "{}", small / 500);
    let q1 = work(&enveloped(500, 20_000), 1) - base;
    let q2 = work(&enveloped(1000, 20_000), 1) - base;
    assert_linear("quads on one envelope", q1, q2);
}

/// Past its work limit a picture fails with `render.work_limit`, naming
/// the layer (section and the layer item's offset) and the limit; the
/// default limit is `Limits::picture_work` of the drawing's pixels.
#[test]
fn work_limit_names_the_layer() {
    let c = Crafted {
        w: 16,
        h: 16,
        quads: vec![Quad::plain([(0, 0), (512, 0), (0, 512), (512, 512)]); 300],
        ..Crafted::default()
    };
    let bytes = crafted(&c);
    let ok = render(&bytes, Style::Full, Size::Scale(4), None).unwrap();
    assert_eq!(ok.work, work(&c, 4));
    let err = render(&bytes, Style::Full, Size::Scale(4), Some(ok.work - 1))
        .expect_err("over the limit")
        .error;
    assert_eq!(
        (err.stage.name(), err.kind, err.section.as_str()),
        ("render", "work_limit", "layer 2 (Heavy)")
    );
    let df = teebatch::datafile::Datafile::parse(&bytes).unwrap();
    let layer = df
        .items_of_type(ITEM_LAYER)
        .find(|it| it.id == QUADS_LAYER as u16)
        .unwrap();
    assert_eq!(err.offset, layer.offset as u64);
    assert!(
        err.message.contains("group 1 layer 2 (Heavy)"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains(&format!("{}", ok.work - 1)),
        "{}",
        err.message
    );
    // Exactly at the limit it is drawn.
    assert!(render(&bytes, Style::Full, Size::Scale(4), Some(ok.work)).is_ok());

    // The default: a 16 × 16 drawing may do 256 × 256 + 2^24 work; 300
    // quads of it do less, 70 000 more.
    assert_eq!(Limits::picture_work(256), 256 * 256 + (1 << 24));
    let mut many = c.clone();
    many.quads = vec![c.quads[0].clone(); 70_000];
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("heavy.map");
    std::fs::write(&map, crafted(&many)).unwrap();
    let out = dir.path().join("out");
    let heavy_png = out.join(crate::common::picture_name("heavy", &crafted(&many)));
    let recs = run_records(
        &[
            "maps",
            "render",
            "--style",
            "full",
            "--scale",
            "1",
            map.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ],
        1,
    );
    let e = &recs[0]["error"];
    assert_eq!(e["stage"], "render", "{e}");
    assert_eq!(e["kind"], "work_limit", "{e}");
    assert_eq!(e["section"], "layer 2 (Heavy)", "{e}");
    assert!(recs[0]["path"].as_str().unwrap().ends_with("heavy.map"));
    assert!(!heavy_png.exists());
}

/// A physics layer is held once: its inflated bytes (the worker's buffer,
/// not a copy) plus the picture. A 2000 × 2000 game layer is 16 MB
/// inflated; a copy would hold 32 MB.
#[test]
fn a_physics_layer_is_held_once() {
    let (w, h) = (2000, 2000);
    let c = Crafted {
        w,
        h,
        ..Crafted::default()
    };
    let bytes = crafted(&c);
    let tiles = (w * h) as u64;
    let slack = 1 << 20;
    let pic = render(&bytes, Style::Entities, Size::MaxSide(1024), None).unwrap();
    let picture = 3 * u64::from(pic.geometry.width) * u64::from(pic.geometry.height);
    assert_eq!(picture, 3 * 1000 * 1000);
    assert!(
        pic.held_bytes >= 4 * tiles && pic.held_bytes <= 4 * tiles + picture + slack,
        "entities: {} bytes held for {} tile bytes and a {} byte picture",
        pic.held_bytes,
        4 * tiles,
        picture
    );
    // The full style draws on one pixel per tile (3 bytes) and shrinks;
    // its design layer (as large as the game layer) is held once too.
    let pic = render(&bytes, Style::Full, Size::MaxSide(1024), None).unwrap();
    assert!(
        pic.held_bytes <= 3 * tiles + 4 * tiles + picture + slack,
        "full: {} bytes held",
        pic.held_bytes
    );
}

/// A random crafted map: a small game layer, a design layer, quads with
/// any corners (huge ones too) and envelope references (missing ones
/// too), envelopes of random points.
fn arb_map() -> impl Strategy<Value = (Crafted, Size)> {
    let coord = prop_oneof![
        -200i32..1200,
        -2_000_000i32..2_000_000,
        Just(i32::MAX / 1024),
        Just(i32::MIN / 1024),
    ];
    let quad = (
        prop::array::uniform4((coord.clone(), coord)),
        prop::array::uniform4(-10i32..300),
        -2i32..4,
        -2i32..4,
        any::<i32>(),
    )
        .prop_map(|(corners, colour, pos_env, colour_env, env_offset)| Quad {
            corners,
            colour,
            pos_env,
            colour_env,
            env_offset,
        });
    let point = (
        -100i32..5000,
        0i32..7,
        prop::array::uniform4(-200_000i32..200_000),
    )
        .prop_map(|(t, curve, v)| [t, curve, v[0], v[1], v[2], v[3]]);
    let envelope = (
        prop_oneof![Just(1), Just(3), Just(4)],
        prop::collection::vec(point, 0..40),
    );
    (
        (1usize..32, 1usize..32),
        prop::option::of(prop::collection::vec(any::<u8>(), 0..400)),
        prop::collection::vec(quad, 0..40),
        prop::collection::vec(envelope, 0..4),
        prop_oneof![
            (1u32..8).prop_map(Size::Scale),
            (1u32..300).prop_map(Size::MaxSide)
        ],
    )
        .prop_map(|((w, h), design, quads, envelopes, size)| {
            (
                Crafted {
                    w,
                    h,
                    design,
                    quads,
                    envelopes,
                },
                size,
            )
        })
}

/// The work budget of a full picture of `c` on a `w × h` drawing: each
/// tile read once and drawn over `px` pixels, each quad's two triangles
/// at most the drawing's pixels plus 8 per row (and 6 rows of margin),
/// each envelope read a bisection.
fn budget(c: &Crafted, w: u64, h: u64, px: u64) -> u64 {
    let points: u64 = c.envelopes.iter().map(|e| e.1.len() as u64).sum();
    let bisection = 2 * (4 + u64::from(64 - points.leading_zeros()));
    let tiles = (c.w * c.h) as u64 * (1 + px * px);
    let per_quad = 1 + 2 * bisection + 2 * (w * h + 8 * (h + 6));
    tiles + bisection + c.quads.len() as u64 * per_quad
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Random crafted maps: the full style never panics, stays within the
    /// work budget of its drawing's size, and with a random small limit
    /// either draws within it or fails with `work_limit` and the quads
    /// layer or the design layer named.
    #[test]
    fn full_style_stays_within_its_budget((c, size) in arb_map(), cap in 0u64..200_000) {
        let bytes = crafted(&c);
        let pic = render(&bytes, Style::Full, size, None).map_err(|f| f.error).unwrap();
        let g = pic.geometry;
        let (w, h, px) = if g.shrink > 1 {
            (u64::from(g.tiles_w), u64::from(g.tiles_h), 1)
        } else {
            (u64::from(g.width), u64::from(g.height), u64::from(g.cell))
        };
        prop_assert!(pic.work <= budget(&c, w, h, px), "{} > {}", pic.work, budget(&c, w, h, px));
        match render(&bytes, Style::Full, size, Some(cap)) {
            Ok(p) => {
                prop_assert!(p.work <= cap);
                prop_assert_eq!(p.canvas, pic.canvas);
            }
            Err(f) => {
                prop_assert!(pic.work > cap);
                prop_assert_eq!(f.error.kind, "work_limit");
                let s = f.error.section;
                prop_assert!(s == "layer 1 (Design)" || s == "layer 2 (Heavy)", "{}", s);
            }
        }
        // The entities style of the same map is drawn too.
        let e = render_map(
            &bytes,
            &RenderOptions { style: Style::Entities, size },
            &Textures::palette(),
            &mut Inflater::new(InflateLimits::default()),
            &mut Vec::new(),
        );
        prop_assert!(e.is_ok());
    }
}

/// Writes the maps of the README's render cost figures to
/// `$TEEBATCH_COST_MAPS` (run by hand: `cargo test --release --test tests
/// write_cost_maps -- --ignored`): `quads-N.map` (a 64 × 64 tile map with
/// N quads over the whole picture), `envelope-N.map` (1000 one-pixel quads
/// reading a colour envelope of N points), `game-8000.map` (an 8000 × 8000
/// game layer of air).
#[test]
#[ignore]
fn write_cost_maps() {
    let Some(dir) = std::env::var_os("TEEBATCH_COST_MAPS") else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir).unwrap();
    for n in [100, 1000, 100_000] {
        let c = Crafted {
            w: 64,
            h: 64,
            quads: vec![Quad::plain([(0, 0), (2048, 0), (0, 2048), (2048, 2048)]); n],
            ..Crafted::default()
        };
        std::fs::write(dir.join(format!("quads-{n}.map")), crafted(&c)).unwrap();
    }
    for n in [100_000, 200_000] {
        let mut c = enveloped(1000, n);
        c.w = 64;
        c.h = 64;
        std::fs::write(dir.join(format!("envelope-{n}.map")), crafted(&c)).unwrap();
    }
    let c = Crafted {
        w: 8000,
        h: 8000,
        ..Crafted::default()
    };
    std::fs::write(dir.join("game-8000.map"), crafted(&c)).unwrap();
}

/// `maps render --max-render-work N` caps each `full` picture's work at N
/// (through `batch::render::RunOptions::max_work`): a tiny cap makes the
/// picture fail with `render.work_limit` naming the layer and the cap
/// (exit 1, no picture), the exact work it needs draws it, and without
/// the flag the default limit applies; the entities style is not capped.
#[test]
fn max_render_work_flag_caps_a_full_picture() {
    let c = Crafted {
        w: 16,
        h: 16,
        quads: vec![Quad::plain([(0, 0), (512, 0), (0, 512), (512, 512)]); 300],
        ..Crafted::default()
    };
    let needed = work(&c, 1);
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("heavy.map");
    std::fs::write(&map, crafted(&c)).unwrap();
    let out = dir.path().join("out");
    let heavy_png = out.join(crate::common::picture_name("heavy", &crafted(&c)));
    let render = |extra: &[&str], style: &str, code: i32| {
        let mut args = vec![
            "maps",
            "render",
            "--style",
            style,
            "--scale",
            "1",
            map.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
        ];
        args.extend(extra);
        let _ = std::fs::remove_file(&heavy_png);
        run_records(&args, code).remove(0)
    };
    let cap = (needed - 1).to_string();
    // A cap of 1 stops at the first layer, one less than needed at the
    // quads.
    for (tiny, layer) in [("1", "layer 1 (Design)"), (cap.as_str(), "layer 2 (Heavy)")] {
        let r = render(&["--max-render-work", tiny], "full", 1);
        let e = &r["error"];
        assert_eq!(
            (&e["stage"], &e["kind"], &e["section"]),
            (&"render".into(), &"work_limit".into(), &layer.into()),
            "{r}"
        );
        let message = e["message"].as_str().unwrap();
        assert!(
            message.contains(&format!(", {tiny} pixel visits")),
            "{message}"
        );
        assert!(!heavy_png.exists());
    }
    let r = render(&["--max-render-work", &needed.to_string()], "full", 0);
    assert!(r["error"].is_null(), "{r}");
    assert!(heavy_png.exists());
    let r = render(&[], "full", 0);
    assert!(r["error"].is_null(), "{r}");
    let r = render(&["--max-render-work", "1"], "entities", 0);
    assert!(r["error"].is_null(), "{r}");
    let bad = crate::common::teebatch(&["maps", "render", "--max-render-work", "0", "--out", "x"]);
    assert_eq!(bad.status.code(), Some(2));
}
