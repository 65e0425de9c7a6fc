//! The `entities` style: the physics layers (game, front, tele, speedup,
//! switch, tune) drawn as DDNet's editor shows entities.
//!
//! Every layer indexes the same entities atlas (DDNet's
//! `editor/entities/DDNet.png`, 16 × 16 cells; tile id `i` is cell `i`):
//! game and front tiles by id with their flip/rotate flags, tele, switch and
//! tune tiles by their type byte, speedups by type turned by their angle.
//! Without the atlas, [`palette`] gives each kind of tile a flat colour
//! (the legend is [`LEGEND`]).
//!
//! Layers are drawn in the order game, front, tele, speedup, switch, tune,
//! each over the previous ones, on [`BACKGROUND`]. Tile id 0 (air) is never
//! drawn.

use super::raster::{Canvas, Cells, Transform};
use super::Geometry;
use crate::map::names::{palette_ids, TileSpace};
use crate::map::tiles::{PhysicsKind, SpeedupTile};
use crate::map::TileLayer;

/// The colour of air.
pub const BACKGROUND: [u8; 3] = [28, 30, 38];

/// One [`LEGEND`] row: label (the tiles' palette key in the tile id table,
/// `map::names::TILES`), layer, colour; the ids are the table's (`N` of
/// them, checked at compile time).
macro_rules! legend_row {
    ($key:literal, $kind:ident, $space:ident, $n:literal, $colour:expr) => {
        (
            $key,
            PhysicsKind::$kind,
            &palette_ids::<$n>(TileSpace::$space, $key),
            $colour,
        )
    };
}

/// The flat colours used without the entities atlas: what, which layer and
/// tile ids, colour (RGB). Anything else non-empty is [`OTHER`]. The ids
/// are those the tile id table gives the label as palette key.
pub const LEGEND: &[(&str, PhysicsKind, &[u8], [u8; 3])] = &[
    legend_row!("hookable", Game, Game, 1, [150, 120, 90]),
    legend_row!("unhookable", Game, Game, 1, [80, 84, 96]),
    legend_row!("death", Game, Game, 1, [200, 30, 30]),
    legend_row!("freeze", Game, Game, 1, [90, 140, 230]),
    legend_row!("deep freeze", Game, Game, 1, [30, 40, 140]),
    legend_row!("deep unfreeze", Game, Game, 1, [170, 200, 240]),
    legend_row!("unfreeze", Game, Game, 1, [235, 235, 235]),
    legend_row!("start", Game, Game, 1, [0, 200, 0]),
    legend_row!("finish", Game, Game, 1, [255, 140, 0]),
    legend_row!("time checkpoint", Game, Game, 25, [200, 255, 200]),
    legend_row!("stopper", Game, Game, 3, [180, 180, 180]),
    legend_row!("spawn", Game, Game, 3, [255, 255, 0]),
    legend_row!("red flag", Game, Game, 1, [255, 60, 160]),
    legend_row!("blue flag", Game, Game, 1, [60, 60, 255]),
    legend_row!("armor, health", Game, Game, 2, [255, 120, 120]),
    legend_row!("weapons, ninja", Game, Game, 4, [230, 180, 80]),
    legend_row!("door", Game, Game, 1, [0, 110, 80]),
    legend_row!("teleporter in", Tele, Tele, 4, [160, 0, 200]),
    legend_row!("teleporter out", Tele, Tele, 1, [220, 120, 255]),
    legend_row!("tele checkpoint", Tele, Tele, 4, [120, 60, 160]),
    legend_row!("speedup", Speedup, Speedup, 1, [0, 220, 220]),
    legend_row!("switch", Switch, Switch, 4, [0, 170, 110]),
    legend_row!("tune zone", Tune, Tune, 1, [130, 90, 200]),
];

/// The arrow drawn on speedups (pointing in the speedup's direction).
pub const ARROW: [u8; 3] = [0, 70, 70];

/// Any other non-empty tile without the atlas.
pub const OTHER: [u8; 3] = [128, 128, 128];

/// The flat palette as the markdown table of docs/pictures.md (a test
/// compares the page): one row per [`LEGEND`] row with its layer, tile ids,
/// their names ([`crate::map::names`]) and colour, then the arrow, other
/// tiles and air.
pub fn palette_markdown() -> String {
    use std::fmt::Write;
    let hex = |c: [u8; 3]| format!("`#{:02x}{:02x}{:02x}`", c[0], c[1], c[2]);
    let mut s = String::from("| tiles | layer | ids | names | colour |\n|---|---|---|---|---|\n");
    for (label, kind, ids, colour) in LEGEND {
        let layer = match kind {
            PhysicsKind::Game => "game, front, switch",
            k => k.name(),
        };
        // Runs of consecutive ids as `first–last`.
        let mut runs: Vec<(u8, u8)> = Vec::new();
        for &i in *ids {
            match runs.last_mut() {
                Some((_, last)) if last.checked_add(1) == Some(i) => *last = i,
                _ => runs.push((i, i)),
            }
        }
        let ids = runs
            .iter()
            .map(|&(a, b)| {
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}–{b}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let names: Vec<String> = ids_names(*kind, label);
        let names = if names.len() > 4 {
            format!("{} … {}", names[0], names[names.len() - 1])
        } else {
            names.join(", ")
        };
        let _ = writeln!(
            s,
            "| {label} | {layer} | {ids} | {names} | {} |",
            hex(*colour)
        );
    }
    let _ = writeln!(
        s,
        "| speedup arrow (in the speedup's direction) | speedup | | | {} |",
        hex(ARROW)
    );
    let _ = writeln!(s, "| anything else | | | | {} |", hex(OTHER));
    let _ = writeln!(s, "| air | | 0 | `AIR` | {} |", hex(BACKGROUND));
    s
}

/// The names of the tiles of legend row `label` of layer `kind`.
fn ids_names(kind: PhysicsKind, label: &str) -> Vec<String> {
    let row = LEGEND.iter().find(|r| r.0 == label).expect("a legend row");
    row.2
        .iter()
        .filter_map(|&i| crate::map::names::tile_name(kind, i))
        .map(|n| format!("`{n}`"))
        .collect()
}

/// The flat colour (straight RGBA) of every tile id of layer `kind` without
/// the atlas. Front uses the game colours; the switch layer's non-switch
/// tiles (doors, freeze, ...) too.
pub fn palette(kind: PhysicsKind) -> [[u8; 4]; 256] {
    let mut p = [[OTHER[0], OTHER[1], OTHER[2], 255]; 256];
    p[0] = [0, 0, 0, 0];
    let mut fill = |k: PhysicsKind| {
        for (_, lk, ids, c) in LEGEND {
            if *lk == k {
                for &i in *ids {
                    p[i as usize] = [c[0], c[1], c[2], 255];
                }
            }
        }
    };
    match kind {
        PhysicsKind::Game | PhysicsKind::Front | PhysicsKind::Tiles => fill(PhysicsKind::Game),
        PhysicsKind::Switch => {
            fill(PhysicsKind::Game);
            fill(PhysicsKind::Switch);
        }
        k => fill(k),
    }
    p
}

/// The legend of the flat palette for `layers`: the [`LEGEND`] rows whose
/// tiles occur in a layer drawn with them (in [`LEGEND`] order), then
/// `other` if any tile has no row.
pub fn legend_entries(layers: &[&TileLayer]) -> Vec<super::legend::Entry> {
    let mut used = vec![false; LEGEND.len()];
    let mut other = false;
    for l in layers {
        let mut seen = [false; 256];
        let ts = l.kind.tile_size();
        for t in l.bytes.chunks_exact(ts) {
            seen[id_and_transform(l.kind, t).0 as usize] = true;
        }
        let kinds: &[PhysicsKind] = match l.kind {
            PhysicsKind::Game | PhysicsKind::Front | PhysicsKind::Tiles => &[PhysicsKind::Game],
            PhysicsKind::Switch => &[PhysicsKind::Game, PhysicsKind::Switch],
            PhysicsKind::Tele => &[PhysicsKind::Tele],
            PhysicsKind::Speedup => &[PhysicsKind::Speedup],
            PhysicsKind::Tune => &[PhysicsKind::Tune],
        };
        let mut covered = [false; 256];
        covered[0] = true;
        for (row, (_, lk, ids, _)) in LEGEND.iter().enumerate() {
            if !kinds.contains(lk) {
                continue;
            }
            for &i in *ids {
                covered[i as usize] = true;
                used[row] |= seen[i as usize];
            }
        }
        other |= (0..256).any(|i| seen[i] && !covered[i]);
    }
    let mut out: Vec<super::legend::Entry> = LEGEND
        .iter()
        .zip(&used)
        .filter(|(_, &u)| u)
        .map(|((label, _, _, colour), _)| super::legend::Entry {
            colour: *colour,
            label: (*label).to_owned(),
        })
        .collect();
    if other {
        out.push(super::legend::Entry {
            colour: OTHER,
            label: "other".into(),
        });
    }
    out
}

/// The id byte and the transform of tile `t` (bytes of one tile of `kind`).
#[inline]
fn id_and_transform(kind: PhysicsKind, t: &[u8]) -> (u8, Transform) {
    match kind {
        PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front => {
            (t[0], Transform::Flags(t[1]))
        }
        PhysicsKind::Speedup => {
            let s = SpeedupTile::from_bytes([t[0], t[1], t[2], t[3], t[4], t[5]]);
            (s.id, Transform::Degrees(s.angle))
        }
        k => (t[k.id_offset()], Transform::None),
    }
}

/// Draws `layers` (physics layers in drawing order, each with its cells at
/// `geo.cell` pixels, or 1 when shrinking) on a new canvas of `geo`'s size.
pub fn draw(layers: &[(&TileLayer, &Cells)], geo: &Geometry) -> Canvas {
    let mut canvas = Canvas::new(geo.width, geo.height, BACKGROUND);
    if geo.shrink > 1 {
        draw_shrunk(&mut canvas, layers, geo);
        return canvas;
    }
    let n = geo.cell;
    for &(l, set) in layers {
        let ts = l.kind.tile_size();
        for y in 0..l.height.min(geo.tiles_h as usize) {
            let row = &l.bytes[y * l.width * ts..][..l.width * ts];
            for (x, t) in row.chunks_exact(ts).enumerate().take(geo.tiles_w as usize) {
                let (id, tr) = id_and_transform(l.kind, t);
                if id == 0 {
                    continue;
                }
                canvas.draw_cell(x as u32 * n, y as u32 * n, n, set.cell(id), tr);
            }
        }
    }
    canvas
}

/// Several tiles per pixel: each pixel is the mean of the composited
/// one-pixel colours of the `shrink × shrink` tiles it covers.
fn draw_shrunk(canvas: &mut Canvas, layers: &[(&TileLayer, &Cells)], geo: &Geometry) {
    let k = geo.shrink as usize;
    let (tw, th) = (geo.tiles_w as usize, geo.tiles_h as usize);
    let mut acc = vec![[0u32; 3]; geo.width as usize];
    for py in 0..geo.height as usize {
        acc.iter_mut().for_each(|a| *a = [0; 3]);
        let (y0, y1) = (py * k, ((py + 1) * k).min(th));
        for y in y0..y1 {
            for x in 0..tw {
                let mut px = BACKGROUND;
                for &(l, set) in layers {
                    if x >= l.width || y >= l.height {
                        continue;
                    }
                    let ts = l.kind.tile_size();
                    let i = (y * l.width + x) * ts;
                    let (id, _) = id_and_transform(l.kind, &l.bytes[i..i + ts]);
                    if id != 0 {
                        super::raster::over(&mut px, set.color(id));
                    }
                }
                let a = &mut acc[x / k];
                for c in 0..3 {
                    a[c] += u32::from(px[c]);
                }
            }
        }
        let rows = (y1 - y0) as u32;
        for (px, a) in acc.iter().enumerate() {
            let cols = (((px + 1) * k).min(tw) - px * k) as u32;
            let n = rows * cols;
            let out: [u8; 3] = std::array::from_fn(|c| ((a[c] + n / 2) / n) as u8);
            let i = (py * geo.width as usize + px) * 3;
            canvas.rgb[i..i + 3].copy_from_slice(&out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::names::TILES;

    /// The legend's labels are unique, and they are exactly the palette
    /// keys of the tile id table: every tile with a key is drawn in its
    /// row's colour, and every row has tiles.
    #[test]
    fn legend_labels_are_the_table_keys() {
        let mut labels: Vec<&str> = LEGEND.iter().map(|r| r.0).collect();
        labels.sort_unstable();
        labels.dedup();
        assert_eq!(labels.len(), LEGEND.len());
        let mut keys: Vec<&str> = TILES.iter().filter_map(|r| r.palette).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(labels, keys);
        for (label, kind, ids, colour) in LEGEND {
            assert!(!ids.is_empty(), "{label}");
            let p = palette(*kind);
            for &i in *ids {
                assert_ne!(i, 0, "{label}");
                assert_eq!(p[i as usize], [colour[0], colour[1], colour[2], 255]);
            }
        }
    }

    /// The legend as it was written by tile number before the tile id
    /// table (golden).
    #[test]
    fn legend_matches_the_former_numbers() {
        use PhysicsKind::{Game, Speedup, Switch, Tele, Tune};
        let old: &[(&str, PhysicsKind, &[u8], [u8; 3])] = &[
            ("hookable", Game, &[1], [150, 120, 90]),
            ("unhookable", Game, &[3], [80, 84, 96]),
            ("death", Game, &[2], [200, 30, 30]),
            ("freeze", Game, &[9], [90, 140, 230]),
            ("deep freeze", Game, &[12], [30, 40, 140]),
            ("deep unfreeze", Game, &[13], [170, 200, 240]),
            ("unfreeze", Game, &[11], [235, 235, 235]),
            ("start", Game, &[33], [0, 200, 0]),
            ("finish", Game, &[34], [255, 140, 0]),
            (
                "time checkpoint",
                Game,
                &[
                    35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54,
                    55, 56, 57, 58, 59,
                ],
                [200, 255, 200],
            ),
            ("stopper", Game, &[60, 61, 62], [180, 180, 180]),
            ("spawn", Game, &[192, 193, 194], [255, 255, 0]),
            ("red flag", Game, &[195], [255, 60, 160]),
            ("blue flag", Game, &[196], [60, 60, 255]),
            ("armor, health", Game, &[197, 198], [255, 120, 120]),
            (
                "weapons, ninja",
                Game,
                &[199, 200, 201, 202],
                [230, 180, 80],
            ),
            ("door", Game, &[240], [0, 110, 80]),
            ("teleporter in", Tele, &[10, 14, 15, 26], [160, 0, 200]),
            ("teleporter out", Tele, &[27], [220, 120, 255]),
            ("tele checkpoint", Tele, &[29, 30, 31, 63], [120, 60, 160]),
            ("speedup", Speedup, &[28], [0, 220, 220]),
            ("switch", Switch, &[22, 23, 24, 25], [0, 170, 110]),
            ("tune zone", Tune, &[68], [130, 90, 200]),
        ];
        assert_eq!(LEGEND, old);
    }
}
