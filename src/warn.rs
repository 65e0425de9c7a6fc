//! Where warnings go: the one place that caps them.
//!
//! Every layer (datafile, map, demo stream, analysis) reports non-fatal
//! oddities through [`Warn`], in the spirit of libtw2's `Warn` trait: the
//! layer says what it saw and where, the caller decides what to keep. The
//! caller's sink is usually a [`Warnings`], which counts every warning,
//! keeps the first `max` with their locations and, in place of the first
//! one left out, a `too_many_warnings` marker ([`TooMany`]) at that
//! warning's location. A crafted file cannot grow a warning list without
//! bound, and a report still says that (and how many) warnings were left
//! out.
//!
//! [`Wrap`] adapts a sink of one layer's warnings to an inner layer's
//! (for example varint warnings into stream warnings, with the chunk's
//! position added), so the cap is applied once, by the outermost sink.

use std::ops::Deref;

/// Warnings a layer's sink keeps by default before its `too_many_warnings`
/// marker (real demos have no stream warnings, real maps at most 13).
pub const DEFAULT_MAX_WARNINGS: usize = 1024;

/// A receiver of warnings of type `W`.
pub trait Warn<W> {
    /// Reports one warning.
    fn warn(&mut self, w: W);
}

/// Unbounded: keeps every warning. For scratch lists that are emptied per
/// message or snapshot, and for tests.
impl<W> Warn<W> for Vec<W> {
    #[inline]
    fn warn(&mut self, w: W) {
        self.push(w);
    }
}

impl<W, S: Warn<W> + ?Sized> Warn<W> for &mut S {
    #[inline]
    fn warn(&mut self, w: W) {
        (**self).warn(w);
    }
}

/// Drops every warning (for callers that only want the value).
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl<W> Warn<W> for Discard {
    #[inline(always)]
    fn warn(&mut self, _: W) {}
}

/// A warning type with a `too_many_warnings` kind.
pub trait TooMany {
    /// This warning's location with the kind `too_many_warnings`: what a
    /// [`Warnings`] keeps in place of the first warning over its cap.
    fn too_many(self) -> Self;
}

/// A capped sink: counts every warning, keeps the first [`Warnings::max`]
/// and then one `too_many_warnings` marker at the position of the first
/// warning left out; later ones are only counted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Warnings<W> {
    kept: Vec<W>,
    max: usize,
    total: u64,
}

impl<W> Warnings<W> {
    /// An empty sink keeping at most `max` warnings (plus the marker).
    pub const fn new(max: usize) -> Self {
        Warnings {
            kept: Vec::new(),
            max,
            total: 0,
        }
    }

    /// Most warnings kept before the marker.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Warnings reported, kept or not.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Warnings reported but not kept (the one the marker stands for
    /// included).
    pub fn dropped(&self) -> u64 {
        self.total - self.kept.len().min(self.max) as u64
    }

    /// Whether the cap was reached (the last kept warning is the marker).
    pub fn overflowed(&self) -> bool {
        self.kept.len() > self.max
    }

    /// The kept warnings, the marker (if any) last.
    pub fn as_slice(&self) -> &[W] {
        &self.kept
    }

    /// The kept warnings, the marker (if any) last.
    pub fn into_vec(self) -> Vec<W> {
        self.kept
    }

    /// Forgets every warning (the capacity and the cap stay).
    pub fn clear(&mut self) {
        self.kept.clear();
        self.total = 0;
    }

    /// Forgets every warning and sets a new cap.
    pub fn reset(&mut self, max: usize) {
        self.clear();
        self.max = max;
    }

    /// Moves the warnings out, leaving an empty sink with the same cap.
    pub fn take(&mut self) -> Warnings<W> {
        Warnings {
            kept: std::mem::take(&mut self.kept),
            max: self.max,
            total: std::mem::take(&mut self.total),
        }
    }
}

impl<W: TooMany> Warn<W> for Warnings<W> {
    #[inline]
    fn warn(&mut self, w: W) {
        self.total += 1;
        match self.kept.len().cmp(&self.max) {
            std::cmp::Ordering::Less => self.kept.push(w),
            std::cmp::Ordering::Equal => self.kept.push(w.too_many()),
            std::cmp::Ordering::Greater => {}
        }
    }
}

impl<W> Deref for Warnings<W> {
    type Target = [W];
    fn deref(&self) -> &[W] {
        &self.kept
    }
}

impl<'a, W> IntoIterator for &'a Warnings<W> {
    type Item = &'a W;
    type IntoIter = std::slice::Iter<'a, W>;
    fn into_iter(self) -> Self::IntoIter {
        self.kept.iter()
    }
}

impl<W> IntoIterator for Warnings<W> {
    type Item = W;
    type IntoIter = std::vec::IntoIter<W>;
    fn into_iter(self) -> Self::IntoIter {
        self.kept.into_iter()
    }
}

impl<W: serde::Serialize> serde::Serialize for Warnings<W> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.kept.serialize(s)
    }
}

/// A sink that counts the warnings it passes on to `inner`, for a layer
/// that needs to know whether a step warned whatever the caller's sink
/// keeps.
pub struct Counting<S> {
    pub inner: S,
    /// Warnings passed on so far.
    pub count: u64,
}

impl<S> Counting<S> {
    pub fn new(inner: S) -> Self {
        Counting { inner, count: 0 }
    }
}

impl<W, S: Warn<W>> Warn<W> for Counting<S> {
    #[inline]
    fn warn(&mut self, w: W) {
        self.count += 1;
        self.inner.warn(w);
    }
}

/// A sink of inner warnings `V` that converts each with `F` and passes it
/// to the outer sink `S`.
pub struct Wrap<S, F> {
    pub outer: S,
    pub convert: F,
}

/// Wraps `outer` so that it accepts warnings `convert` turns into its own.
pub fn wrap<S, F>(outer: S, convert: F) -> Wrap<S, F> {
    Wrap { outer, convert }
}

impl<V, W, S: Warn<W>, F: FnMut(V) -> W> Warn<V> for Wrap<S, F> {
    #[inline]
    fn warn(&mut self, v: V) {
        let w = (self.convert)(v);
        self.outer.warn(w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct W(i32);
    impl TooMany for W {
        fn too_many(self) -> Self {
            W(-self.0 - 100)
        }
    }

    #[test]
    fn keeps_max_then_one_marker_and_counts_all() {
        let mut w = Warnings::new(3);
        for i in 0..10 {
            w.warn(W(i));
        }
        assert_eq!(w.as_slice(), [W(0), W(1), W(2), W(-103)]);
        assert_eq!((w.total(), w.dropped(), w.overflowed()), (10, 7, true));
        let mut none = Warnings::new(0);
        none.warn(W(7));
        none.warn(W(8));
        assert_eq!(none.as_slice(), [W(-107)]);
        assert_eq!((none.total(), none.dropped()), (2, 2));
        let mut under = Warnings::new(5);
        under.warn(W(1));
        assert_eq!(
            (under.total(), under.dropped(), under.overflowed()),
            (1, 0, false)
        );
    }

    #[test]
    fn wrapped_sinks_convert_into_the_outer_cap() {
        let mut outer = Warnings::new(2);
        {
            let mut inner = wrap(&mut outer, |v: u8| W(i32::from(v) * 10));
            for v in 1..=4u8 {
                inner.warn(v);
            }
        }
        assert_eq!(outer.as_slice(), [W(10), W(20), W(-130)]);
        assert_eq!(outer.total(), 4);
        let taken = outer.take();
        assert_eq!((taken.len(), outer.len(), outer.total()), (3, 0, 0));
        assert_eq!(outer.max(), 2);
    }
}
