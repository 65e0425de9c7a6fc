//! Legends inside the PNGs: the palette legend of `maps render` and the
//! player names of `--trails`.

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
