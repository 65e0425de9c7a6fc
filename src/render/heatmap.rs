//! Density grids of character positions and trails, drawn over the
//! entities render of the demo's map.
//!
//! A [`HeatGrid`] counts positions per tile (a world position `(x, y)` is
//! tile `(x / 32, y / 32)`; positions outside the map are counted apart).
//! Grids of the same map add up cell by cell ([`HeatGrid::merge`]), so
//! each demo is folded into its own grid, which is added to one shared
//! grid per map as soon as the demo is read: memory is one grid per
//! distinct map in all plus one per worker, whatever the number of demos.
//!
//! Colour scale ([`heat_colour`]): a cell with `c` counts out of the
//! picture's largest `m` is drawn at `t = ln(1 + c) / ln(1 + m)` on the ramp
//! blue (t = 0) → cyan (1/3) → yellow (2/3) → red (1), with opacity from
//! 40 % to 100 %; cells with no count are not drawn. The hottest cells are
//! pure red. With a percentile clip ([`HeatGrid::scale_max`]) `m` is that
//! percentile of the cells' counts instead, and every cell with `m` or more
//! is pure red. [`scale_legend`] gives the scale's legend rows.

use super::legend::Entry;
use super::raster::{premultiply, Canvas};
use super::Geometry;

/// World units per tile.
pub const TILE: i32 = 32;

/// Position counts per tile of one map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeatGrid {
    pub width: u32,
    pub height: u32,
    /// Row-major counts.
    pub counts: Vec<u64>,
    /// Positions outside the map's game layer.
    pub outside: u64,
}

impl HeatGrid {
    pub fn new(width: u32, height: u32) -> HeatGrid {
        HeatGrid {
            width,
            height,
            counts: vec![0; width as usize * height as usize],
            outside: 0,
        }
    }

    /// Counts the world position `(x, y)`.
    pub fn add(&mut self, x: i32, y: i32) {
        let (tx, ty) = (x.div_euclid(TILE), y.div_euclid(TILE));
        if tx < 0 || ty < 0 || tx as u32 >= self.width || ty as u32 >= self.height {
            self.outside += 1;
            return;
        }
        self.counts[ty as usize * self.width as usize + tx as usize] += 1;
    }

    /// Adds `other` (a grid of the same map) cell by cell.
    pub fn merge(&mut self, other: &HeatGrid) {
        assert_eq!((self.width, self.height), (other.width, other.height));
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.outside += other.outside;
    }

    /// All positions counted inside the map.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The cell with the most counts (the first in row order on ties) and
    /// its count; `None` when nothing was counted.
    pub fn hottest(&self) -> Option<(u32, u32, u64)> {
        let mut best: Option<(usize, u64)> = None;
        for (i, &c) in self.counts.iter().enumerate() {
            if c > 0 && best.is_none_or(|(_, b)| c > b) {
                best = Some((i, c));
            }
        }
        best.map(|(i, c)| {
            (
                (i % self.width as usize) as u32,
                (i / self.width as usize) as u32,
                c,
            )
        })
    }

    /// The counts summed per picture pixel block of `geo` (one cell per
    /// tile, or per `shrink × shrink` tiles).
    fn binned(&self, geo: &Geometry) -> (u32, u32, Vec<u64>) {
        let k = geo.shrink.max(1);
        let (bw, bh) = (self.width.div_ceil(k), self.height.div_ceil(k));
        if k == 1 {
            return (bw, bh, self.counts.clone());
        }
        let mut out = vec![0u64; bw as usize * bh as usize];
        for y in 0..self.height {
            for x in 0..self.width {
                out[(y / k * bw + x / k) as usize] += self.counts[(y * self.width + x) as usize];
            }
        }
        (bw, bh, out)
    }

    /// The count at the top of the colour scale of a picture made with
    /// `geo`: the largest count of a picture cell (a tile, or a block of
    /// `shrink × shrink` tiles), or with `clip` = `p` the `p`-th percentile
    /// of the counts of the cells that have any, by nearest rank (the
    /// `ceil(p / 100 × n)`-th smallest of the `n` non-empty cells; at least
    /// the smallest). 0 when nothing was counted.
    pub fn scale_max(&self, geo: &Geometry, clip: Option<f64>) -> u64 {
        let (_, _, bins) = self.binned(geo);
        let mut full: Vec<u64> = bins.into_iter().filter(|&c| c > 0).collect();
        let Some(p) = clip else {
            return full.into_iter().max().unwrap_or(0);
        };
        if full.is_empty() {
            return 0;
        }
        full.sort_unstable();
        let n = full.len();
        let rank = (p / 100.0 * n as f64).ceil() as usize;
        full[rank.clamp(1, n) - 1]
    }

    /// Draws the density over `canvas` (a picture of this map made with
    /// `geo`).
    pub fn draw(&self, canvas: &mut Canvas, geo: &Geometry) {
        self.draw_scaled(canvas, geo, None);
    }

    /// [`HeatGrid::draw`] with the top of the colour scale at `max` (cells
    /// with more are drawn as `max`; `None`: the largest cell).
    pub fn draw_scaled(&self, canvas: &mut Canvas, geo: &Geometry, max: Option<u64>) {
        let (bw, bh, bins) = self.binned(geo);
        let max = max.unwrap_or_else(|| bins.iter().copied().max().unwrap_or(0));
        if max == 0 {
            return;
        }
        let cell = if geo.shrink > 1 { 1 } else { geo.cell };
        for by in 0..bh {
            for bx in 0..bw {
                let c = bins[(by * bw + bx) as usize];
                if c == 0 {
                    continue;
                }
                let colour = premultiply(heat_colour(c, max));
                for dy in 0..cell {
                    for dx in 0..cell {
                        canvas.blend(i64::from(bx * cell + dx), i64::from(by * cell + dy), colour);
                    }
                }
            }
        }
    }
}

/// The colour (straight RGBA) of `c` counts out of a largest `max`.
pub fn heat_colour(c: u64, max: u64) -> [u8; 4] {
    if c == 0 || max == 0 {
        return [0, 0, 0, 0];
    }
    if c >= max {
        return [255, 0, 0, 255];
    }
    let t = ((1 + c) as f64).ln() / ((1 + max) as f64).ln();
    let stops: [[f64; 3]; 4] = [
        [0.0, 0.0, 255.0],
        [0.0, 255.0, 255.0],
        [255.0, 255.0, 0.0],
        [255.0, 0.0, 0.0],
    ];
    let s = (t * 3.0).min(3.0);
    let i = (s.floor() as usize).min(2);
    let f = s - i as f64;
    let rgb: [u8; 3] =
        std::array::from_fn(|k| (stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f).round() as u8);
    let alpha = (102.0 + 153.0 * t).round() as u8;
    [rgb[0], rgb[1], rgb[2], alpha]
}

/// The legend rows of the colour scale topped at `max` counts: the colour
/// of `max`, of the counts at 2/3 and 1/3 of the scale
/// (`round(e^(t ln(1 + max)) - 1)`) and of 1 count, hottest first, each
/// labelled with its count and `unit` (`"12 ticks"`); the top row reads
/// `"12+ ticks"` when `clipped` (cells with more have that colour too).
/// Empty when `max` is 0.
pub fn scale_legend(max: u64, clipped: bool, unit: &str) -> Vec<Entry> {
    if max == 0 {
        return Vec::new();
    }
    let top = ((1 + max) as f64).ln();
    let mut counts = vec![max];
    for t in [2.0 / 3.0, 1.0 / 3.0] {
        counts.push(((t * top).exp() - 1.0).round() as u64);
    }
    counts.push(1);
    counts.retain(|&c| c >= 1);
    counts.dedup();
    counts
        .iter()
        .map(|&c| {
            let [r, g, b, _] = heat_colour(c, max);
            let plus = if clipped && c == max { "+" } else { "" };
            Entry {
                colour: [r, g, b],
                label: format!("{c}{plus} {unit}"),
            }
        })
        .collect()
}

/// Distinct colours for trails, by player order.
pub const TRAIL_COLOURS: [[u8; 3]; 12] = [
    [255, 80, 80],
    [80, 200, 255],
    [255, 220, 60],
    [120, 255, 120],
    [255, 120, 255],
    [255, 160, 60],
    [160, 120, 255],
    [60, 255, 220],
    [255, 255, 255],
    [200, 120, 80],
    [140, 200, 60],
    [255, 100, 170],
];

/// Draws a one-pixel line from `(x0, y0)` to `(x1, y1)` (picture pixels,
/// Bresenham).
pub fn line(canvas: &mut Canvas, from: (i64, i64), to: (i64, i64), colour: [u8; 3]) {
    let c = [colour[0], colour[1], colour[2], 255];
    let (mut x, mut y) = from;
    let (dx, dy) = ((to.0 - x).abs(), -(to.1 - y).abs());
    let (sx, sy) = (if x < to.0 { 1 } else { -1 }, if y < to.1 { 1 } else { -1 });
    let mut err = dx + dy;
    // Bounded by the longer side of the picture (points are clamped).
    loop {
        canvas.blend(x, y, c);
        if (x, y) == to {
            break;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
}

/// A trail: one player's positions in order, as world coordinates.
///
/// Memory is bounded per player: [`Trail::push`] keeps a position only
/// when it is at least `min_step` world units (half a picture pixel) away
/// from the last kept one along x or y, and a trail holds at most
/// [`MAX_TRAIL_POINTS`]: when full, every other kept point (the first and
/// the last kept) is dropped and `min_step` doubles, so a long demo is
/// drawn with coarser but whole paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trail {
    pub name: String,
    pub points: Vec<(i32, i32)>,
    /// Positions offered to [`Trail::push`].
    pub seen: u64,
    /// The current least move kept (world units; 0 until the first push).
    pub min_step: i64,
}

/// Most points kept per trail (8 bytes each: 512 KiB).
pub const MAX_TRAIL_POINTS: usize = 1 << 16;

/// World units of half a picture pixel of `geo` (at least 1).
pub fn half_pixel(geo: &Geometry) -> i64 {
    if geo.shrink > 1 {
        16 * i64::from(geo.shrink)
    } else {
        (16 / i64::from(geo.cell.max(1))).max(1)
    }
}

impl Trail {
    /// Offers position `p`; `min_step` is [`half_pixel`] of the picture.
    pub fn push(&mut self, p: (i32, i32), min_step: i64) {
        self.seen += 1;
        self.min_step = self.min_step.max(min_step).max(1);
        if let Some(&(x, y)) = self.points.last() {
            let d = (i64::from(p.0) - i64::from(x))
                .abs()
                .max((i64::from(p.1) - i64::from(y)).abs());
            if d < self.min_step {
                return;
            }
        }
        if self.points.len() == MAX_TRAIL_POINTS {
            let mut i = 0;
            self.points.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.min_step *= 2;
        }
        self.points.push(p);
    }
}

/// World distance beyond which two successive positions are not joined
/// (a teleport, a respawn): 8 tiles.
pub(crate) const TRAIL_JUMP: i64 = 8 * TILE as i64;

/// Draws `trails` over `canvas`, trail `i` in colour `TRAIL_COLOURS[i % 12]`.
pub fn draw_trails(canvas: &mut Canvas, geo: &Geometry, trails: &[Trail]) {
    let (w, h) = (i64::from(canvas.width), i64::from(canvas.height));
    let to_px = |(x, y): (i32, i32)| {
        let (px, py) = geo.to_pixel(f64::from(x) / 32.0, f64::from(y) / 32.0);
        (
            (px.floor() as i64).clamp(-1, w),
            (py.floor() as i64).clamp(-1, h),
        )
    };
    for (i, t) in trails.iter().enumerate() {
        let colour = TRAIL_COLOURS[i % TRAIL_COLOURS.len()];
        for pair in t.points.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let d = (i64::from(a.0) - i64::from(b.0))
                .abs()
                .max((i64::from(a.1) - i64::from(b.1)).abs());
            if d > TRAIL_JUMP {
                continue;
            }
            line(canvas, to_px(a), to_px(b), colour);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_counts_merge_and_hottest() {
        let mut a = HeatGrid::new(4, 3);
        a.add(5, 5);
        a.add(40, 70);
        a.add(40, 70);
        a.add(-1, 0);
        a.add(4 * 32, 0);
        let mut b = HeatGrid::new(4, 3);
        b.add(31, 31);
        b.add(31, 31);
        a.merge(&b);
        assert_eq!(a.counts[0], 3);
        assert_eq!(a.counts[2 * 4 + 1], 2);
        assert_eq!(a.outside, 2);
        assert_eq!(a.hottest(), Some((0, 0, 3)));
        assert_eq!(a.total(), 5);
    }

    #[test]
    fn trails_decimate_and_stay_bounded() {
        let mut t = Trail::default();
        for x in 0..100 {
            t.push((x, 0), 8);
        }
        // Moves of 1 unit, kept every 8.
        assert_eq!(t.points.len(), 13);
        assert!(t.points.windows(2).all(|w| w[1].0 - w[0].0 == 8));
        let mut t = Trail::default();
        // Back and forth over 10,000 units, 1,000,000 positions.
        for i in 0..1_000_000i64 {
            let x = (i % 20_000 - 10_000).abs() as i32;
            t.push((x, (i / 20_000) as i32 * 64), 1);
        }
        assert_eq!(t.seen, 1_000_000);
        assert!(t.points.len() <= MAX_TRAIL_POINTS, "{}", t.points.len());
        assert!(t.points.len() > MAX_TRAIL_POINTS / 2);
        assert!(t.min_step > 1);
        assert_eq!(t.points[0], (10_000, 0));
    }

    #[test]
    fn percentile_clip_and_scale_legend() {
        let geo = Geometry::new(10, 1, crate::render::Size::Scale(1)).unwrap();
        let mut g = HeatGrid::new(10, 1);
        // Tile x has x + 1 counts (1..=10); tile 9 has 100.
        for x in 0..9 {
            for _ in 0..=x {
                g.add(x * TILE, 0);
            }
        }
        for _ in 0..100 {
            g.add(9 * TILE, 0);
        }
        assert_eq!(g.scale_max(&geo, None), 100);
        assert_eq!(g.scale_max(&geo, Some(100.0)), 100);
        // 10 non-empty cells: the 90th percentile is the 9th smallest.
        assert_eq!(g.scale_max(&geo, Some(90.0)), 9);
        assert_eq!(g.scale_max(&geo, Some(85.0)), 9);
        assert_eq!(g.scale_max(&geo, Some(0.1)), 1);
        assert_eq!(HeatGrid::new(2, 2).scale_max(&geo, Some(50.0)), 0);
        // Drawn with the clip, cells 9 and 10 (counts 9 and 100) are red.
        let mut c = Canvas::new(10, 1, [0, 0, 0]);
        g.draw_scaled(&mut c, &geo, Some(9));
        let red = (0..10)
            .filter(|&x| c.pixel(x, 0) == Some([255, 0, 0]))
            .count();
        assert_eq!(red, 2);
        let l = scale_legend(210, false, "ticks");
        let labels: Vec<&str> = l.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["210 ticks", "34 ticks", "5 ticks", "1 ticks"]);
        assert_eq!(l[0].colour, [255, 0, 0]);
        assert_eq!(l[3].colour, [0, 99, 255]);
        let l = scale_legend(2, true, "snaps");
        let labels: Vec<&str> = l.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["2+ snaps", "1 snaps"]);
        assert!(scale_legend(0, false, "x").is_empty());
    }

    #[test]
    fn colour_scale_ends() {
        assert_eq!(heat_colour(0, 10), [0, 0, 0, 0]);
        assert_eq!(heat_colour(10, 10), [255, 0, 0, 255]);
        let low = heat_colour(1, 1_000_000);
        assert_eq!(low[2], 255);
        assert!(low[3] < 140);
    }
}
