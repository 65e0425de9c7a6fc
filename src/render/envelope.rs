//! Envelopes evaluated at time 0, as the game does (DDNet's
//! `CRenderTools::RenderEvalEnvelope`).
//!
//! A layer or quad refers to an envelope and a time offset in
//! milliseconds; at time 0 the envelope is read at `offset`, wrapped into
//! `0 .. time of the last point` (rem_euclid; an envelope whose last
//! point is at time ≤ 0 is read at 0). Between two points the value moves
//! from the first to the second by the first point's curve: step (0: stays
//! at the first value), linear (1), slow (2: t³), fast (3: 1 − (1 − t)³),
//! smooth (4: 3t² − 2t³); bezier (5, Teeworlds 0.7) is read as linear.
//! Before the first point the first value holds, after the last the last.
//!
//! Values are fixed point, 1024 = 1.0: colour channels (r, g, b, a in
//! 0..1, multiplied with the layer or quad colour), or position offset
//! x, y in world units and rotation in degrees (quads).
//!
//! An envelope without points, or whose points are outside the points
//! item (the map parser warns `env_point_range`), has no effect.

use crate::datafile::Datafile;
use crate::map::Map;
use crate::map::{EnvPoint, ITEM_ENVPOINTS};

/// The envelope points of a map, read once per map.
pub struct Envelopes<'a> {
    points: Option<crate::bytes::LeI32s<'a>>,
    /// Byte offset of the points item's first int in the file.
    base: usize,
    ints_per_point: usize,
    count: usize,
    /// Points read so far (the drawing's work counts them).
    reads: std::cell::Cell<u64>,
}

impl<'a> Envelopes<'a> {
    pub fn new(df: &Datafile<'a>, map: &Map) -> Envelopes<'a> {
        let item = df.items_of_type(ITEM_ENVPOINTS).next();
        Envelopes {
            points: item.as_ref().map(|it| it.data),
            base: item.as_ref().map_or(0, |it| it.data_offset()),
            ints_per_point: map.env_points.ints_per_point.max(EnvPoint::INTS),
            count: map.env_points.count,
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
        // The segment whose end is the first point at or after `t`, found
        // by bisection: the cost per read is logarithmic in the points
        // (many quads may read one long envelope). For points in time
        // order (as editors write them) this is the first segment that
        // holds `t`, the one DDNet's scan finds.
        let (mut lo, mut hi) = (0, n - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.point(start + mid + 1)?.0 < t {
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
            return Some(interpolate(a, b, t));
        }
        Some(last.2)
    }
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

    /// The reference: DDNet's scan for the first segment holding `t`.
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
            if t >= a.0 && t <= b.0 {
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
            reads: Default::default(),
        };
        assert_eq!(env.point(0), Some((100, 4, [1.0, -0.5, 0.0, 2.0])));
        assert_eq!(env.point(1), None);
        assert_eq!(env.take_reads(), 2);
    }
}
