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
use crate::map::ITEM_ENVPOINTS;

/// The envelope points of a map, read once per map.
pub struct Envelopes<'a> {
    points: Option<crate::bytes::LeI32s<'a>>,
    ints_per_point: usize,
    count: usize,
}

impl<'a> Envelopes<'a> {
    pub fn new(df: &Datafile<'a>, map: &Map) -> Envelopes<'a> {
        Envelopes {
            points: df.items_of_type(ITEM_ENVPOINTS).next().map(|it| it.data),
            ints_per_point: map.env_points.ints_per_point.max(6),
            count: map.env_points.count,
        }
    }

    fn point(&self, i: usize) -> Option<(i64, i32, [f64; 4])> {
        let d = self.points.as_ref()?;
        let base = i.checked_mul(self.ints_per_point)?;
        let g = |k: usize| d.get(base + k);
        let time = i64::from(g(0)?);
        let curve = g(1)?;
        let v = [g(2)?, g(3)?, g(4)?, g(5)?].map(|x| f64::from(x) / 1024.0);
        Some((time, curve, v))
    }

    /// The value of envelope `env` of `map` read at time `offset`
    /// milliseconds (see the module documentation); `None`: no effect.
    pub fn eval(&self, map: &Map, env: usize, offset: i32) -> Option<[f64; 4]> {
        let e = map.envelopes.get(env)?;
        let start = usize::try_from(e.start_point).ok()?;
        let n = usize::try_from(e.num_points).ok()?;
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
        for i in start..start + n - 1 {
            let a = self.point(i)?;
            let b = self.point(i + 1)?;
            if t >= a.0 && t <= b.0 {
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
                return Some(std::array::from_fn(|c| a.2[c] + (b.2[c] - a.2[c]) * k));
            }
        }
        Some(last.2)
    }
}
