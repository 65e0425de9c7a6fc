//! Quads of the `full` style: each quad's two triangles filled row by row,
//! corner colours interpolated, times the texture (see [`super`] for the
//! cost rule).

use super::{Clip, Meter, Over};
use crate::render::raster::{mul255, premultiply, Canvas, Rgba};

pub(super) fn int(q: &[u8], i: usize) -> i32 {
    i32::from_le_bytes([q[4 * i], q[4 * i + 1], q[4 * i + 2], q[4 * i + 3]])
}

/// Where and how a quad is drawn: pixels per world unit of its group (x,
/// y), the pixel of the group's point (0, 0), and the values of its
/// position and colour envelopes.
pub(super) struct QuadAt {
    pub(super) scale: (f64, f64),
    pub(super) shift: (f64, f64),
    pub(super) pos: Option<[f64; 4]>,
    pub(super) colour: Option<[f64; 4]>,
}

/// Fills one quad (152 bytes: corners top left, top right, bottom left,
/// bottom right, then the pivot; corner colours; texture coordinates;
/// position envelope and offset; colour envelope and offset) inside `clip`.
///
/// Each triangle is covered row by row: [`span`] bounds the pixels of a
/// row that may be inside (with a margin), and each of them gets the
/// exact test, so the pixels drawn are those of testing the whole
/// bounding box; a row costs 1 and each pixel tested 1.
pub(super) fn draw_quad(
    canvas: &mut Canvas,
    clip: &Clip,
    q: &[u8],
    at: &QuadAt,
    tex: Option<&Rgba>,
    meter: &mut Meter,
) -> Result<(), Over> {
    let (scale, shift) = (at.scale, at.shift);
    // Position envelope: offset (world units) and rotation (degrees).
    let [ox, oy, rot, _] = at.pos.unwrap_or([0.0; 4]);
    let (sin, cos) = rot.to_radians().sin_cos();
    let world = |k: usize| {
        (
            f64::from(int(q, 2 * k)) / 1024.0,
            f64::from(int(q, 2 * k + 1)) / 1024.0,
        )
    };
    let pivot = world(4);
    // Corners in pixels (points are fixed point, 1024 per world unit).
    let pt = |k: usize| {
        let (mut x, mut y) = world(k);
        if rot != 0.0 {
            let (dx, dy) = (x - pivot.0, y - pivot.1);
            x = dx * cos - dy * sin + pivot.0;
            y = dx * sin + dy * cos + pivot.1;
        }
        ((x + ox) * scale.0 + shift.0, (y + oy) * scale.1 + shift.1)
    };
    let p = [pt(0), pt(1), pt(2), pt(3)];
    let env = at.colour.map_or([1.0; 4], |e| e.map(|v| v.clamp(0.0, 1.0)));
    let col = |k: usize| -> [f64; 4] {
        std::array::from_fn(|c| f64::from(int(q, 10 + 4 * k + c).clamp(0, 255)) * env[c])
    };
    let cols = [col(0), col(1), col(2), col(3)];
    let uv = |k: usize| {
        (
            f64::from(int(q, 26 + 2 * k)) / 1024.0,
            f64::from(int(q, 26 + 2 * k + 1)) / 1024.0,
        )
    };
    let uvs = [uv(0), uv(1), uv(2), uv(3)];
    let (w, h) = (clip.x1 as f64, clip.y1 as f64);
    let min_x = p
        .iter()
        .map(|v| v.0)
        .fold(f64::INFINITY, f64::min)
        .max(clip.x0 as f64);
    let max_x = p
        .iter()
        .map(|v| v.0)
        .fold(f64::NEG_INFINITY, f64::max)
        .min(w);
    let min_y = p
        .iter()
        .map(|v| v.1)
        .fold(f64::INFINITY, f64::min)
        .max(clip.y0 as f64);
    let max_y = p
        .iter()
        .map(|v| v.1)
        .fold(f64::NEG_INFINITY, f64::max)
        .min(h);
    if !(min_x < max_x && min_y < max_y) {
        return Ok(());
    }
    // The pixels tested: those of the bounding box inside the clip.
    let (bx0, bx1) = (min_x.floor() as i64, max_x.ceil() as i64);
    let (by0, by1) = (min_y.floor() as i64, max_y.ceil() as i64);
    // Two triangles: (0, 1, 2) and (1, 3, 2).
    for tri in [[0usize, 1, 2], [1, 3, 2]] {
        let [a, b, c] = tri.map(|k| p[k]);
        let det = (b.1 - c.1) * (a.0 - c.0) + (c.0 - b.0) * (a.1 - c.1);
        if det.abs() < 1e-9 {
            continue;
        }
        // The triangle's rows (two of margin), inside the bounding box.
        let top = (a.1.min(b.1).min(c.1).floor() as i64).saturating_sub(2);
        let bottom = (a.1.max(b.1).max(c.1).ceil() as i64).saturating_add(2);
        for y in top.max(by0)..bottom.min(by1) {
            let py = y as f64 + 0.5;
            let Some((sx0, sx1)) = span(a, b, c, det, py) else {
                meter.charge(1)?;
                continue;
            };
            let (x0, x1) = (sx0.max(bx0), sx1.min(bx1));
            meter.charge(1 + x1.saturating_sub(x0).max(0) as u64)?;
            for x in x0..x1 {
                let Some(l) = barycentric(a, b, c, det, tri[0] == 1, x, y) else {
                    continue;
                };
                let mut rgba = [0f64; 4];
                let (mut u, mut v) = (0.0, 0.0);
                for (k, &wgt) in tri.iter().zip(&l) {
                    for ch in 0..4 {
                        rgba[ch] += cols[*k][ch] * wgt;
                    }
                    u += uvs[*k].0 * wgt;
                    v += uvs[*k].1 * wgt;
                }
                let mut c = rgba.map(|f| f.round().clamp(0.0, 255.0) as u8);
                if let Some(t) = tex {
                    let tx = ((u.rem_euclid(1.0)) * f64::from(t.width)) as usize;
                    let ty = ((v.rem_euclid(1.0)) * f64::from(t.height)) as usize;
                    let i = (ty.min(t.height as usize - 1) * t.width as usize
                        + tx.min(t.width as usize - 1))
                        * 4;
                    let s = &t.pixels[i..i + 4];
                    c = std::array::from_fn(|ch| mul255(u32::from(c[ch]), u32::from(s[ch])) as u8);
                }
                if c[3] != 0 {
                    canvas.blend(x, y, premultiply(c));
                }
            }
        }
    }
    Ok(())
}

/// The barycentric coordinates of pixel `(x, y)`'s centre in triangle
/// `a, b, c` (whose determinant is `det`), or `None` when it is outside.
/// Edges are half-open: in the second triangle of a quad (`second`) a
/// pixel on the shared diagonal is left to the first, so it is drawn once.
pub(super) fn barycentric(
    a: (f64, f64),
    b: (f64, f64),
    c: (f64, f64),
    det: f64,
    second: bool,
    x: i64,
    y: i64,
) -> Option<[f64; 3]> {
    let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
    let l0 = ((b.1 - c.1) * (px - c.0) + (c.0 - b.0) * (py - c.1)) / det;
    let l1 = ((c.1 - a.1) * (px - c.0) + (a.0 - c.0) * (py - c.1)) / det;
    let l2 = 1.0 - l0 - l1;
    let outside = l0 < 0.0 || l1 < 0.0 || l2 < 0.0 || (second && l1 == 0.0);
    (!outside).then_some([l0, l1, l2])
}

/// Pixels (two of margin each side) of the row whose centres are at `py`
/// that may be inside triangle `a b c` (`det` its barycentric
/// denominator, not 0): where each barycentric coordinate, linear in the
/// pixel's centre `px`, is at least 0; `None` when an edge parallel to the
/// row leaves none. The margin covers rounding: the caller tests each
/// pixel exactly.
pub(super) fn span(
    a: (f64, f64),
    b: (f64, f64),
    c: (f64, f64),
    det: f64,
    py: f64,
) -> Option<(i64, i64)> {
    let s = det.signum();
    // l0 · det = k0 · (px − c.x) + m0, likewise l1; l2 · det = det − both.
    let (k0, m0) = (b.1 - c.1, (c.0 - b.0) * (py - c.1));
    let (k1, m1) = (c.1 - a.1, (a.0 - c.0) * (py - c.1));
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for (k, m, exact) in [
        (k0, m0, true),
        (k1, m1, true),
        (-(k0 + k1), det - m0 - m1, false),
    ] {
        if k == 0.0 {
            // `l0 = m0 / det` exactly on this row (as the caller computes
            // it; likewise l1): negative everywhere, or no bound.
            if exact && m / det < 0.0 {
                return None;
            }
            continue;
        }
        let (k, m) = (s * k, s * m);
        if k > 0.0 {
            lo = lo.max(c.0 - m / k);
        } else {
            hi = hi.min(c.0 - m / k);
        }
    }
    // Pixel `x` has its centre at `x + 0.5`.
    let x0 = (lo - 0.5).floor() as i64;
    let x1 = (hi - 0.5).ceil() as i64;
    Some((x0.saturating_sub(2), x1.saturating_add(3)))
}
