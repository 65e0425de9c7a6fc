//! Elementwise wrapping `i32` addition: how a snapshot delta updates an item
//! (`new = old + diff`, DDNet's `UndiffItem`, which adds as unsigned).
//!
//! Every tier processes `min(old.len(), diff.len(), out.len())` ints; the
//! delta applier always passes three slices of one item's size.

use crate::backend::Backend;
use wide::i32x8;

/// Reference: one int at a time.
pub fn wrapping_add_oracle(old: &[i32], diff: &[i32], out: &mut [i32]) {
    for ((o, &a), &d) in out.iter_mut().zip(old).zip(diff) {
        *o = a.wrapping_add(d);
    }
}

/// Scalar: fixed 8-int blocks the compiler can unroll, then the tail.
#[inline]
pub fn wrapping_add_scalar(old: &[i32], diff: &[i32], out: &mut [i32]) {
    let n = old.len().min(diff.len()).min(out.len());
    let (old, diff, out) = (&old[..n], &diff[..n], &mut out[..n]);
    let mut oc = out.chunks_exact_mut(8);
    let mut ac = old.chunks_exact(8);
    let mut dc = diff.chunks_exact(8);
    for ((o, a), d) in (&mut oc).zip(&mut ac).zip(&mut dc) {
        for i in 0..8 {
            o[i] = a[i].wrapping_add(d[i]);
        }
    }
    wrapping_add_oracle(ac.remainder(), dc.remainder(), oc.into_remainder());
}

#[inline(always)]
fn load8(c: &[i32]) -> i32x8 {
    match c.first_chunk::<8>() {
        Some(a) => i32x8::new(*a),
        None => i32x8::ZERO,
    }
}

/// `wide` SIMD: `i32x8` blocks (adds wrap), then the scalar tail.
#[inline]
pub fn wrapping_add_simd(old: &[i32], diff: &[i32], out: &mut [i32]) {
    let n = old.len().min(diff.len()).min(out.len());
    let (old, diff, out) = (&old[..n], &diff[..n], &mut out[..n]);
    let mut oc = out.chunks_exact_mut(8);
    let mut ac = old.chunks_exact(8);
    let mut dc = diff.chunks_exact(8);
    for ((o, a), d) in (&mut oc).zip(&mut ac).zip(&mut dc) {
        let s = load8(a) + load8(d);
        o.copy_from_slice(s.as_array());
    }
    wrapping_add_oracle(ac.remainder(), dc.remainder(), oc.into_remainder());
}

/// `out = old + diff` (wrapping) by the tier `backend` selects.
#[inline]
pub fn wrapping_add_with(backend: Backend, old: &[i32], diff: &[i32], out: &mut [i32]) {
    match backend {
        Backend::Oracle => wrapping_add_oracle(old, diff, out),
        Backend::Scalar => wrapping_add_scalar(old, diff, out),
        Backend::Simd => wrapping_add_simd(old, diff, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps() {
        for f in [wrapping_add_oracle, wrapping_add_scalar, wrapping_add_simd] {
            let old: Vec<i32> = (0..19).map(|i| i32::MAX - i).collect();
            let diff = vec![1; 19];
            let mut out = vec![0; 19];
            f(&old, &diff, &mut out);
            assert_eq!(out[0], i32::MIN);
            assert_eq!(out[18], i32::MAX - 17);
            let mut short = vec![7; 3];
            f(&old, &diff, &mut short);
            assert_eq!(short, [i32::MIN, i32::MAX, i32::MAX - 1]);
        }
    }
}
