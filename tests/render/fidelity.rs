//! Fidelity rules of the full style, each proved on a generated map
//! ([`teebatch::synth::scene`]): translucent layers blend by their
//! colour's alpha, groups that follow the camera fill the picture, bezier
//! envelopes are evaluated as DDNet evaluates them.

use teebatch::datafile::{Datafile, InflateLimits, Inflater};
use teebatch::map::Map;
use teebatch::render::envelope::Envelopes;
use teebatch::render::full::{screen, BACKGROUND};
use teebatch::render::{render_map, Picture, RenderOptions, Size, Style, Textures};
use teebatch::synth::scene::{
    BezierLayout, Envelope, Group, Image, Layer, Point, Quad, Quads, Scene, Tiles,
};

fn full(bytes: &[u8], px: u32) -> Picture {
    let opts = RenderOptions {
        style: Style::Full,
        size: Size::Scale(px),
    };
    let mut inf = Inflater::new(InflateLimits::default());
    render_map(
        bytes,
        &opts,
        &Textures::palette(),
        &mut inf,
        &mut Vec::new(),
    )
    .unwrap()
}

/// `a × b / 255` rounded to nearest (never a tie: `2ab` is even, `255`
/// odd).
fn mul(a: u8, b: u8) -> u8 {
    (f64::from(a) * f64::from(b) / 255.0).round() as u8
}

/// Straight `colour` over `bg` in 8-bit steps: the colour premultiplied,
/// then `c + bg × (255 − α) / 255`.
fn over(colour: [u8; 4], bg: [u8; 3]) -> [u8; 3] {
    std::array::from_fn(|k| mul(colour[k], colour[3]) + mul(bg[k], 255 - colour[3]))
}

/// The same in real numbers.
fn over_exact(colour: [u8; 4], bg: [u8; 3]) -> [f64; 3] {
    let a = f64::from(colour[3]) / 255.0;
    std::array::from_fn(|k| f64::from(colour[k]) * a + f64::from(bg[k]) * (1.0 - a))
}

fn tiles(width: usize, height: usize, colour: [i32; 4], image: Option<usize>) -> Tiles {
    Tiles {
        width,
        height,
        colour,
        image,
        env: None,
        tiles: Vec::new(),
    }
}

fn row(y: usize, width: usize) -> Vec<(usize, usize, u8, u8)> {
    (0..width).map(|x| (x, y, 1, 0)).collect()
}

/// A tile layer at alpha 83 over an embedded white tileset (Gold Mine's
/// freeze layers) shows the background through, by exactly the blend of
/// the layer colour; likewise a plain layer of another colour at 183, a
/// layer whose colour envelope halves its alpha, and a quad at alpha 83.
/// Before the fix the first was pure white.
#[test]
fn translucent_tile_layers_and_quads_blend_by_their_alpha() {
    let (w, h) = (8, 5);
    let half = Envelope {
        channels: 4,
        points: vec![Point {
            time: 0,
            curve: 1,
            values: [1024, 1024, 1024, 512],
            tangents: None,
        }],
    };
    let mut white = tiles(w, h, [255, 255, 255, 83], Some(0));
    white.tiles = row(0, w);
    let mut orange = tiles(w, h, [200, 100, 50, 183], None);
    orange.tiles = row(1, w);
    let mut enveloped = tiles(w, h, [255, 255, 255, 255], Some(0));
    enveloped.tiles = row(2, w);
    enveloped.env = Some((0, 0));
    let quad = Quad::rect(0.0, 96.0, 256.0, 128.0, [255, 255, 255, 83]);
    let scene = Scene {
        width: w,
        height: h,
        images: vec![Image::filled("white", 2, [255, 255, 255, 255])],
        envelopes: vec![half],
        groups: vec![
            Group::new((100, 100), vec![Layer::Game]),
            Group::new(
                (100, 100),
                vec![
                    Layer::Tiles(white),
                    Layer::Tiles(orange),
                    Layer::Tiles(enveloped),
                    Layer::Quads(Quads {
                        image: None,
                        quads: vec![quad],
                    }),
                ],
            ),
        ],
        ..Scene::default()
    };
    let pic = full(&scene.write(), 4);
    let px = |x, y| pic.canvas.pixel(x, y).unwrap();
    let bg = BACKGROUND;
    let cases: [([u8; 4], u32); 4] = [
        ([255, 255, 255, 83], 0),
        ([200, 100, 50, 183], 1),
        // 255 × 0.5 = 127.5, rounded to 128.
        ([255, 255, 255, 128], 2),
        ([255, 255, 255, 83], 3),
    ];
    for (colour, r) in cases {
        let want = over(colour, bg);
        let exact = over_exact(colour, bg);
        for k in 0..3 {
            assert!(
                (f64::from(want[k]) - exact[k]).abs() <= 1.0,
                "{want:?} {exact:?}"
            );
        }
        for x in [0, 13, 31] {
            for y in [r * 4, r * 4 + 3] {
                assert_eq!(px(x, y), want, "row {r} at ({x}, {y})");
            }
        }
    }
    // Alpha 83 over the dark background: [102, 103, 109], far from white.
    assert_eq!(px(5, 1), [102, 103, 109]);
    assert_eq!(px(5, 17), bg);
}

/// A scene of `w × h` tiles whose group 0 has parallax `par` and holds
/// `layers`, group 1 the game layer.
fn parallax_scene(
    w: usize,
    h: usize,
    par: (i32, i32),
    offset: (i32, i32),
    layers: Vec<Layer>,
) -> Scene {
    let mut sky = Group::new(par, layers);
    sky.offset = offset;
    Scene {
        width: w,
        height: h,
        groups: vec![sky, Group::new((100, 100), vec![Layer::Game])],
        ..Scene::default()
    }
}

/// The documented rule on one axis: the pixel of group point `p` for a
/// group of parallax `par` % and offset `off` on a map of `tiles` tiles
/// drawn at `px` pixels per tile, the screen `scr` world units wide.
fn pixel_of(p: f64, par: f64, off: f64, tiles: f64, px: f64, scr: f64) -> f64 {
    let (pic, par) = (tiles * 32.0, par / 100.0);
    let c = pic / 2.0;
    let s = (par.abs() * (pic - scr) + scr) / pic;
    (c + (p - off - par * c) / s) * px / 32.0
}

/// A parallax-0 sky quad made to fill the game's screen (±800 × ±450
/// world units, blue at the top, white at the bottom) fills the whole
/// picture of a map much larger than the screen, its rows showing the
/// colours the screen shows from its top (y ≈ −402) to its bottom; with
/// the old rule it was a rectangle in the middle of the background.
#[test]
fn parallax_zero_sky_quad_fills_the_picture() {
    let (w, h) = (100, 50);
    let mut sky = Quad::rect(-800.0, -450.0, 800.0, 450.0, [0, 0, 255, 255]);
    sky.colours[2] = [255, 255, 255, 255];
    sky.colours[3] = [255, 255, 255, 255];
    let scene = parallax_scene(
        w,
        h,
        (0, 0),
        (0, 0),
        vec![Layer::Quads(Quads {
            image: None,
            quads: vec![sky],
        })],
    );
    let pic = full(&scene.write(), 2);
    assert_eq!((pic.canvas.width, pic.canvas.height), (200, 100));
    let scr = screen();
    assert!((scr.0 - 1429.84).abs() < 0.01 && (scr.1 - 804.28).abs() < 0.01);
    for y in 0..100 {
        // The group's y at the pixel row's centre, by the rule inverted.
        let (pic_h, s) = (50.0 * 32.0, scr.1 / (50.0 * 32.0));
        let gy = s * ((f64::from(y) + 0.5) * 32.0 / 2.0 - pic_h / 2.0);
        assert!((pixel_of(gy, 0.0, 0.0, 50.0, 2.0, scr.1) - (f64::from(y) + 0.5)).abs() < 1e-9);
        let t = (gy + 450.0) / 900.0;
        let want = (255.0 * t).round();
        for x in [0, 77, 199] {
            let p = pic.canvas.pixel(x, y).unwrap();
            assert_ne!(p, BACKGROUND, "({x}, {y})");
            assert!(
                (f64::from(p[0]) - want).abs() <= 1.0,
                "({x}, {y}): {p:?} want {want}"
            );
            assert_eq!(p[2], 255);
        }
    }
    // The screen's top (−402) and bottom (+402) reach the picture's edges.
    let top = pic.canvas.pixel(100, 0).unwrap()[0];
    let bottom = pic.canvas.pixel(100, 99).unwrap()[0];
    assert!(
        (14..=16).contains(&top) && (238..=241).contains(&bottom),
        "{top} {bottom}"
    );
}

/// A parallax-0 tile layer (two colours in stripes of one tile) is drawn
/// by the same rule: the group's x = 0 falls on the picture's centre
/// (offset 0, camera at the centre), each tile is `32 / s` map units
/// wide, and pixels left of the layer show the background. A group at 50
/// % on a map narrower than the screen keeps the old rule.
#[test]
fn parallax_zero_tile_layer_is_stretched_by_the_rule() {
    let (w, h) = (120, 40);
    let mut stripes = tiles(60, 40, [255, 0, 0, 255], None);
    stripes.tiles = (0..60)
        .step_by(2)
        .flat_map(|x| (0..40).map(move |y| (x, y, 1, 0)))
        .collect();
    let mut blue = tiles(60, 40, [0, 0, 255, 255], None);
    blue.tiles = (1..60)
        .step_by(2)
        .flat_map(|x| (0..40).map(move |y| (x, y, 1, 0)))
        .collect();
    let scene = parallax_scene(
        w,
        h,
        (0, 100),
        (0, 0),
        vec![Layer::Tiles(stripes), Layer::Tiles(blue)],
    );
    let px = 2.0;
    let pic = full(&scene.write(), 2);
    let scr = screen();
    let red = [255, 0, 0];
    let blue = [0, 0, 255];
    let at = |x: u32| pic.canvas.pixel(x, 0).unwrap();
    // Tile k of the layer starts at this pixel.
    let edge = |k: f64| pixel_of(32.0 * k, 0.0, 0.0, w as f64, px, scr.0);
    assert_eq!(edge(0.0), 120.0);
    for k in 0..8 {
        let (a, b) = (edge(k as f64), edge(k as f64 + 1.0));
        let want = if k % 2 == 0 { red } else { blue };
        // Pixels whose centres are inside tile k.
        for x in (a - 0.5).ceil() as u32..(b - 0.5).ceil() as u32 {
            assert_eq!(at(x), want, "tile {k} pixel {x}");
        }
    }
    assert_eq!(at(119), BACKGROUND);
    assert_eq!(at(0), BACKGROUND);
    // Each tile is 32 / s map units: about 5.4 pixels at 2 px per tile.
    let s = scr.0 / (w as f64 * 32.0);
    assert!((edge(1.0) - edge(0.0) - 2.0 / s).abs() < 1e-9);
    // Vertically the parallax is 100: one tile is 2 pixels, row 0 at 0.
    assert_eq!(pic.canvas.pixel(121, 79).unwrap(), red);
    // Its cost: the tiles read plus the pixels drawn, bounded by the
    // picture (each pixel drawn once per layer).
    assert!(pic.work <= 2 * 60 * 40 + 2 * 240 * 80, "{}", pic.work);

    // A map narrower than the screen: parallax 50 keeps the old rule
    // (the point p at p + C × (1 − par)), so a stripe starts at whole
    // pixels.
    let mut red_row = tiles(4, 4, [255, 0, 0, 255], None);
    red_row.tiles = vec![(0, 0, 1, 0)];
    let small = parallax_scene(20, 10, (50, 50), (0, 0), vec![Layer::Tiles(red_row)]);
    let pic = full(&small.write(), 4);
    // C = (320, 160) world: shift (160, 80) world = (20, 10) pixels.
    assert_eq!(pic.canvas.pixel(20, 10).unwrap(), red);
    assert_eq!(pic.canvas.pixel(23, 13).unwrap(), red);
    assert_eq!(pic.canvas.pixel(19, 10).unwrap(), BACKGROUND);
    assert_eq!(pic.canvas.pixel(24, 10).unwrap(), BACKGROUND);
}

/// The cubic Bézier curve at parameter `u`.
fn cubic(a: f64, b: f64, c: f64, d: f64, u: f64) -> f64 {
    let v = 1.0 - u;
    v * v * v * a + 3.0 * v * v * u * b + 3.0 * v * u * u * c + u * u * u * d
}

/// The real root in 0..=1 of `x(u) = t` by Cardano's formula (DDNet's
/// `SolveBezier` solves it so), for the expected values.
fn cardano(t: f64, x0: f64, x1: f64, x2: f64, x3: f64) -> f64 {
    // x(u) = a3 u³ + a2 u² + a1 u + a0.
    let a3 = -x0 + 3.0 * x1 - 3.0 * x2 + x3;
    let a2 = 3.0 * x0 - 6.0 * x1 + 3.0 * x2;
    let a1 = -3.0 * x0 + 3.0 * x1;
    let a0 = x0 - t;
    let roots: Vec<f64> = if a3.abs() < 1e-12 && a2.abs() < 1e-12 {
        vec![-a0 / a1]
    } else if a3.abs() < 1e-12 {
        let d = (a1 * a1 - 4.0 * a2 * a0).sqrt();
        vec![(-a1 + d) / (2.0 * a2), (-a1 - d) / (2.0 * a2)]
    } else {
        let (b, c, d) = (a2 / a3, a1 / a3, a0 / a3);
        let p = c - b * b / 3.0;
        let q = 2.0 * b * b * b / 27.0 - b * c / 3.0 + d;
        let disc = q * q / 4.0 + p * p * p / 27.0;
        if disc > 0.0 {
            let s = disc.sqrt();
            vec![(-q / 2.0 + s).cbrt() + (-q / 2.0 - s).cbrt() - b / 3.0]
        } else {
            let r = (-p / 3.0).sqrt();
            let phi = (-q / (2.0 * r * r * r)).clamp(-1.0, 1.0).acos();
            (0..3)
                .map(|k| {
                    2.0 * r * ((phi + 2.0 * std::f64::consts::PI * f64::from(k)) / 3.0).cos()
                        - b / 3.0
                })
                .collect()
        }
    };
    roots
        .into_iter()
        .find(|u| (-1e-9..=1.0 + 1e-9).contains(u))
        .unwrap()
        .clamp(0.0, 1.0)
}

/// A colour envelope of two points 3000 ms apart: r, g, b stay 1.0;
/// alpha goes from 0 to 1 along a bezier curve with the first point's
/// out-tangent `out` and the second's in-tangent `inn` (Δms, Δvalue in
/// fixed point); the second point's curve is linear.
fn bezier_envelope(out: (i32, i32), inn: (i32, i32)) -> Envelope {
    let tangents = |dx: i32, dy: i32, inner: bool| {
        let mut t = [[0; 4]; 4];
        let (x, y) = if inner { (0, 1) } else { (2, 3) };
        t[x] = [dx; 4];
        t[y][3] = dy;
        t
    };
    Envelope {
        channels: 4,
        points: vec![
            Point {
                time: 0,
                curve: 5,
                values: [1024, 1024, 1024, 0],
                tangents: Some(tangents(out.0, out.1, false)),
            },
            Point {
                time: 3000,
                curve: 1,
                values: [1024, 1024, 1024, 1024],
                tangents: Some(tangents(inn.0, inn.1, true)),
            },
        ],
    }
}

/// A scene with the envelopes and a white full-map quad coloured by
/// envelope 0 read at `offset` ms.
fn bezier_scene(envelopes: Vec<Envelope>, layout: BezierLayout, offset: i32) -> Scene {
    let mut quad = Quad::rect(0.0, 0.0, 256.0, 128.0, [255, 255, 255, 255]);
    quad.colour_env = Some((0, offset));
    Scene {
        width: 8,
        height: 4,
        envelopes,
        bezier: layout,
        groups: vec![
            Group::new((100, 100), vec![Layer::Game]),
            Group::new(
                (100, 100),
                vec![Layer::Quads(Quads {
                    image: None,
                    quads: vec![quad],
                })],
            ),
        ],
        ..Scene::default()
    }
}

/// The value of envelope 0 of `bytes` at `offset` ms.
fn eval(bytes: &[u8], offset: i32) -> [f64; 4] {
    let df = Datafile::parse(bytes).unwrap();
    let mut warnings = Vec::new();
    let map = Map::parse(
        &df,
        &mut Inflater::default(),
        &mut Vec::new(),
        &mut warnings,
    )
    .unwrap()
    .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    Envelopes::new(&df, &map).eval(&map, 0, offset).unwrap()
}

/// Bezier envelopes as DDNet evaluates them, in both layouts of the
/// tangents: with time tangents of a third of the segment the curve's
/// time is linear (u = t / 3000) and the value is the Bézier polynomial
/// at u; with other tangents u solves x(u) = t (Cardano, computed here),
/// control times outside the segment clamped into it. Without the
/// tangents item a bezier segment is linear. The picture shows the value
/// as the quad's alpha.
#[test]
fn bezier_envelopes_follow_ddnets_curve() {
    // Case 1: out (1000 ms, +1.0), in (−1000 ms, −0.5): y0 0, y1 1, y2 0.5, y3 1.
    let env = bezier_envelope((1000, 1024), (-1000, -512));
    for layout in [BezierLayout::Ddnet, BezierLayout::Upstream] {
        let bytes = bezier_scene(vec![env.clone()], layout, 750).write();
        for t in [0, 1, 750, 1500, 2999] {
            let u = f64::from(t) / 3000.0;
            let v = 1.0 - u;
            let want = 3.0 * v * v * u + 3.0 * v * u * u * 0.5 + u * u * u;
            let got = eval(&bytes, t);
            assert!(
                (got[3] - want).abs() < 1e-9,
                "{layout:?} t {t}: {got:?} vs {want}"
            );
            assert!((got[0] - 1.0).abs() < 1e-12);
        }
        // t = 750: u = 0.25, 0.421875 + 0.0703125 + 0.015625 = 0.5078125
        // (linear would give 0.25).
        assert!((eval(&bytes, 750)[3] - 0.5078125).abs() < 1e-12);
        // The quad's alpha: round(255 × 0.5078125) = 129.
        let pic = full(&bytes, 4);
        let want = over([255, 255, 255, 129], BACKGROUND);
        assert_eq!(pic.canvas.pixel(10, 10).unwrap(), want, "{layout:?}");
    }
    // Case 2: out (2000 ms, +0.25), in (−200 ms, +0.5): x(u) is cubic;
    // case 3: out 5000 ms (clamped to 3000), in +900 ms (clamped to 0).
    for (out, inn) in [((2000, 256), (-200, 512)), ((5000, -300), (900, 2048))] {
        let bytes = bezier_scene(vec![bezier_envelope(out, inn)], BezierLayout::Ddnet, 0).write();
        let x1 = f64::from(out.0).clamp(0.0, 3000.0);
        let x2 = (3000.0 + f64::from(inn.0)).clamp(0.0, 3000.0);
        let (y1, y2) = (f64::from(out.1) / 1024.0, 1.0 + f64::from(inn.1) / 1024.0);
        for t in [1, 100, 777, 1500, 2400, 2999] {
            let u = cardano(f64::from(t), 0.0, x1, x2, 3000.0);
            let want = cubic(0.0, y1, y2, 1.0, u);
            let got = eval(&bytes, t)[3];
            assert!(
                (got - want).abs() < 1e-6,
                "{out:?} {inn:?} t {t}: {got} vs {want}"
            );
        }
    }
    // Without the tangents item: linear, as DDNet falls back.
    let mut plain = bezier_envelope((1000, 1024), (-1000, -512));
    for p in &mut plain.points {
        p.tangents = None;
    }
    let bytes = bezier_scene(vec![plain], BezierLayout::Ddnet, 0).write();
    assert!((eval(&bytes, 750)[3] - 0.25).abs() < 1e-12);
}
