//! Envelopes evaluated at time 0, as the game does (DDNet's
//! `CRenderTools::RenderEvalEnvelope`).
//!
//! A layer or quad refers to an envelope and a time offset in
//! milliseconds; at time 0 the envelope is read at `offset`, wrapped into
//! `0 .. time of the last point` (rem_euclid; an envelope whose last
//! point is at time ≤ 0 is read at 0). The segment read is the first
//! whose points hold `a.time ≤ t < b.time` (so at a point's own time its
//! value holds, whatever the curve before it); past the last segment the
//! last value holds, before the first point the first value. Between two
//! points the value moves from the first to the second by the first
//! point's curve, with `x = (t − a.time) / (b.time − a.time)`:
//!
//! | curve | id | value |
//! |---|---|---|
//! | step | 0 | `a` |
//! | linear | 1 | `a + (b − a)·x` |
//! | slow | 2 | `a + (b − a)·x³` |
//! | fast | 3 | `a + (b − a)·(1 − (1 − x)³)` |
//! | smooth | 4 | `a + (b − a)·(3x² − 2x³)` |
//! | bezier | 5 | per channel, the cubic Bézier curve of [`bezier`] |
//! | other | | linear |
//!
//! A bezier point's tangents are 16 ints: in-tangent Δtime (ms) of the 4
//! channels, in-tangent Δvalue (fixed point), out-tangent Δtime,
//! out-tangent Δvalue. They come from DDNet's `envpoints-bezier` item
//! (UUID type `mapitemtype-envpoints-bezier@ddnet.tw`, one 16-int record
//! per point, used only when it has as many records as there are points),
//! or, in a map with an envelope of version 3 (Teeworlds 0.7), from the
//! 22-int points themselves (6 + 16). Without them a bezier segment is
//! linear, as in DDNet.
//!
//! Values are fixed point, 1024 = 1.0: colour channels (r, g, b, a in
//! 0..1, multiplied with the layer or quad colour), or position offset
//! x, y in world units and rotation in degrees (quads). Arithmetic is in
//! `f64` (DDNet uses `float`).
//!
//! An envelope without points, or whose points are outside the points
//! item (the map parser warns `env_point_range`), has no effect.

use crate::bytes::LeI32s;
use crate::datafile::Datafile;
use crate::map::Map;
use crate::map::{EnvPoint, ITEM_ENVPOINTS};

pub use crate::map::uuids::BEZIER_ITEM;

const TANGENT_INTS: usize = EnvPoint::TANGENT_INTS;

/// Where the points' bezier tangents are: point `i`'s 16 ints start at
/// int `i × stride + first` of `ints`.
#[derive(Clone, Copy)]
struct Tangents<'a> {
    ints: LeI32s<'a>,
    stride: usize,
    first: usize,
}

/// The envelope points of a map, read once per map.
pub struct Envelopes<'a> {
    points: Option<LeI32s<'a>>,
    /// Byte offset of the points item's first int in the file.
    base: usize,
    ints_per_point: usize,
    count: usize,
    tangents: Option<Tangents<'a>>,
    /// Points read so far (the drawing's work counts them).
    reads: std::cell::Cell<u64>,
}

impl<'a> Envelopes<'a> {
    pub fn new(df: &Datafile<'a>, map: &Map) -> Envelopes<'a> {
        let item = df.items_of_type(ITEM_ENVPOINTS).next();
        let points = item.as_ref().map(|it| it.data);
        let ints_per_point = map.env_points.ints_per_point.max(EnvPoint::INTS);
        let count = map.env_points.count;
        let tangents = if ints_per_point >= EnvPoint::INTS + TANGENT_INTS {
            points.map(|ints| Tangents {
                ints,
                stride: ints_per_point,
                first: EnvPoint::INTS,
            })
        } else {
            map.uuid_types
                .iter()
                .find(|t| t.name == Some(BEZIER_ITEM))
                .and_then(|t| df.items_of_type(t.type_id).next())
                .filter(|it| it.data.len() / TANGENT_INTS == count)
                .map(|it| Tangents {
                    ints: it.data,
                    stride: TANGENT_INTS,
                    first: 0,
                })
        };
        Envelopes {
            points,
            base: item.as_ref().map_or(0, |it| it.data_offset()),
            ints_per_point,
            count,
            tangents,
            reads: std::cell::Cell::new(0),
        }
    }

    /// The points read since the last call.
    pub fn take_reads(&self) -> u64 {
        self.reads.take()
    }

    fn point(&self, i: usize) -> Option<Point> {
        self.reads.set(self.reads.get() + 1);
        let p = EnvPoint::nth(self.points?, self.base, self.ints_per_point, i)?;
        let v = p.values().map(|x| f64::from(x) / 1024.0);
        Some((i64::from(p.time()), p.curve_type(), v))
    }

    /// Point `i`'s tangents: in Δtime, in Δvalue, out Δtime, out Δvalue
    /// (4 channels each, values as fractions); `None` without them.
    fn tangents(&self, i: usize) -> Option<[[f64; 4]; 4]> {
        let t = self.tangents?;
        self.reads.set(self.reads.get() + 1);
        let at = i.checked_mul(t.stride)?.checked_add(t.first)?;
        let int = |k: usize| t.ints.get(at + k).map(f64::from);
        let mut out = [[0.0; 4]; 4];
        for (part, row) in out.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = int(part * 4 + c)?;
                if part % 2 == 1 {
                    *v /= 1024.0;
                }
            }
        }
        Some(out)
    }

    /// The value of envelope `env` of `map` read at time `offset`
    /// milliseconds (see the module documentation); `None`: no effect.
    pub fn eval(&self, map: &Map, env: usize, offset: i32) -> Option<[f64; 4]> {
        let e = map.envelopes.get(env)?;
        let start = usize::try_from(e.start_point).ok()?;
        let n = usize::try_from(e.num_points).ok()?;
        self.eval_points(start, n, offset)
    }

    /// [`Envelopes::eval`] on the `n` points from `start`.
    fn eval_points(&self, start: usize, n: usize, offset: i32) -> Option<[f64; 4]> {
        if n == 0 || start.checked_add(n)? > self.count {
            return None;
        }
        let first = self.point(start)?;
        if n == 1 {
            return Some(first.2);
        }
        let last = self.point(start + n - 1)?;
        let t = if last.0 > 0 {
            i64::from(offset).rem_euclid(last.0)
        } else {
            0
        };
        if t < first.0 {
            return Some(first.2);
        }
        // The segment whose end is the first point after `t`, found by
        // bisection: the cost per read is logarithmic in the points (many
        // quads may read one long envelope). For points in time order (as
        // editors write them) this is the first segment with
        // `a.time ≤ t < b.time`, the one DDNet's scan finds.
        let (mut lo, mut hi) = (0, n - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.point(start + mid + 1)?.0 <= t {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo < n - 1 {
            let a = self.point(start + lo)?;
            let b = self.point(start + lo + 1)?;
            if t < a.0 {
                return Some(a.2);
            }
            if a.1 == CURVE_BEZIER {
                if let (Some(ta), Some(tb)) =
                    (self.tangents(start + lo), self.tangents(start + lo + 1))
                {
                    return Some(std::array::from_fn(|c| {
                        bezier(
                            (a.0 as f64, a.2[c]),
                            (ta[2][c], ta[3][c]),
                            (tb[0][c], tb[1][c]),
                            (b.0 as f64, b.2[c]),
                            t as f64,
                        )
                    }));
                }
            }
            return Some(interpolate(a, b, t));
        }
        Some(last.2)
    }
}

/// The curve id of bezier segments.
pub(crate) const CURVE_BEZIER: i32 = 5;

/// The value at time `t` of a bezier segment from point `p0` (time,
/// value) to `p3`, with `p0`'s out-tangent `out` and `p3`'s in-tangent
/// `inn` (Δtime, Δvalue), as DDNet evaluates it: the control points are
/// `p1 = p0 + out` and `p2 = p3 + inn`, their times clamped into
/// `p0.time ..= p3.time` (which makes the time of the curve monotonic);
/// the curve's parameter `u` in `0 ..= 1` whose time is `t` is solved for
/// (bisection to `f64` precision: the root is unique), and the value is
/// `(1 − u)³·y0 + 3(1 − u)²u·y1 + 3(1 − u)u²·y2 + u³·y3`.
pub fn bezier(p0: (f64, f64), out: (f64, f64), inn: (f64, f64), p3: (f64, f64), t: f64) -> f64 {
    let x1 = (p0.0 + out.0).clamp(p0.0, p3.0);
    let x2 = (p3.0 + inn.0).clamp(p0.0, p3.0);
    let (y1, y2) = (p0.1 + out.1, p3.1 + inn.1);
    let cubic = |a: f64, b: f64, c: f64, d: f64, u: f64| {
        let v = 1.0 - u;
        v * v * v * a + 3.0 * v * v * u * b + 3.0 * v * u * u * c + u * u * u * d
    };
    // x(u) is non-decreasing on 0..=1: bisect for the first u with x ≥ t.
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if cubic(p0.0, x1, x2, p3.0, mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    cubic(p0.1, y1, y2, p3.1, 0.5 * (lo + hi))
}

/// A point: time in ms, curve, four fixed-point values as fractions.
type Point = (i64, i32, [f64; 4]);

/// The value at `t` between points `a` and `b` (`a.0 <= t <= b.0`), by
/// `a`'s curve.
fn interpolate(a: Point, b: Point, t: i64) -> [f64; 4] {
    let span = (b.0 - a.0) as f64;
    let x = if span > 0.0 {
        (t - a.0) as f64 / span
    } else {
        0.0
    };
    let k = match a.1 {
        0 => 0.0,
        2 => x * x * x,
        3 => 1.0 - (1.0 - x).powi(3),
        4 => x * x * (3.0 - 2.0 * x),
        _ => x,
    };
    std::array::from_fn(|c| a.2[c] + (b.2[c] - a.2[c]) * k)
}

#[cfg(all(test, feature = "synth"))]
mod tests {
    use super::*;
    use crate::synth::Rng;

    /// The reference: DDNet's scan for the first segment with
    /// `a.time ≤ t < b.time`.
    fn scan(env: &Envelopes<'_>, start: usize, n: usize, offset: i32) -> Option<[f64; 4]> {
        let first = env.point(start)?;
        if n == 1 {
            return Some(first.2);
        }
        let last = env.point(start + n - 1)?;
        let t = if last.0 > 0 {
            i64::from(offset).rem_euclid(last.0)
        } else {
            0
        };
        if t < first.0 {
            return Some(first.2);
        }
        for i in start..start + n - 1 {
            let (a, b) = (env.point(i)?, env.point(i + 1)?);
            if t >= a.0 && t < b.0 {
                return Some(interpolate(a, b, t));
            }
        }
        Some(last.2)
    }

    /// Bisection equals the scan on envelopes in time order (repeated
    /// times and every curve included), at offsets inside, on and past
    /// the points, negative ones too.
    #[test]
    fn bisection_equals_the_scan_on_ordered_points() {
        let mut rng = Rng::new(7);
        for _ in 0..300 {
            let n = 1 + rng.below(12) as usize;
            let mut time = rng.range(0, 3);
            let mut ints = Vec::new();
            for _ in 0..n {
                ints.extend([time, rng.range(0, 6)]);
                ints.extend((0..4).map(|_| rng.range(-2048, 2048)));
                time += rng.range(0, 400);
            }
            let bytes: Vec<u8> = ints.iter().flat_map(|v| v.to_le_bytes()).collect();
            let env = Envelopes {
                points: Some(crate::bytes::LeI32s::new(&bytes)),
                base: 0,
                ints_per_point: 6,
                count: n,
                tangents: None,
                reads: Default::default(),
            };
            for _ in 0..40 {
                let offset = rng.range(-5000, 5000);
                assert_eq!(
                    env.eval_points(0, n, offset),
                    scan(&env, 0, n, offset),
                    "{ints:?} at {offset}"
                );
            }
            for p in 0..n {
                let at = ints[p * 6];
                assert_eq!(env.eval_points(0, n, at), scan(&env, 0, n, at));
            }
        }
    }

    /// A point is read through the envelope point view: time, curve and
    /// the four values as fractions; a point past the item is none.
    #[test]
    fn points_are_read_through_the_view() {
        let ints = [100, 4, 1024, -512, 0, 2048, 7, 7];
        let bytes: Vec<u8> = ints.iter().flat_map(|v: &i32| v.to_le_bytes()).collect();
        let env = Envelopes {
            points: Some(crate::bytes::LeI32s::new(&bytes)),
            base: 0,
            ints_per_point: 6,
            count: 1,
            tangents: None,
            reads: Default::default(),
        };
        assert_eq!(env.point(0), Some((100, 4, [1.0, -0.5, 0.0, 2.0])));
        assert_eq!(env.point(1), None);
        assert_eq!(env.take_reads(), 2);
    }
}
