//! Snapshot checksum: the wrapping `i32` sum of all item data ints (item keys
//! and offsets excluded), as DDNet's `CSnapshot::Crc` and snapshot.md define
//! it. Demos and the network protocol compare it against the sender's value
//! after every delta.
//!
//! Wrapping addition is associative and commutative, so any lane split gives
//! the oracle's result bit for bit.

use crate::backend::Backend;
use wide::i32x8;

/// Reference: one int at a time.
pub fn checksum_oracle(data: &[i32]) -> i32 {
    let mut sum = 0i32;
    for &x in data {
        sum = sum.wrapping_add(x);
    }
    sum
}

/// Scalar: 32 independent accumulators in four rows of eight (short
/// dependency chains; the compiler may vectorise each row).
pub fn checksum_scalar(data: &[i32]) -> i32 {
    let mut acc = [[0i32; 8]; 4];
    let blocks = data.chunks_exact(32);
    let tail = blocks.remainder();
    for b in blocks {
        for (row, c) in acc.iter_mut().zip(b.chunks_exact(8)) {
            for (a, &x) in row.iter_mut().zip(c) {
                *a = a.wrapping_add(x);
            }
        }
    }
    let mut sum = tail.iter().fold(0i32, |s, &x| s.wrapping_add(x));
    for row in acc {
        for a in row {
            sum = sum.wrapping_add(a);
        }
    }
    sum
}

#[inline(always)]
fn load8(c: &[i32]) -> i32x8 {
    match c.first_chunk::<8>() {
        Some(a) => i32x8::new(*a),
        None => i32x8::ZERO,
    }
}

/// `wide` SIMD: four `i32x8` accumulators over 32-int blocks, then 8-int
/// blocks, then the scalar tail.
pub fn checksum_simd(data: &[i32]) -> i32 {
    let mut a0 = i32x8::ZERO;
    let mut a1 = i32x8::ZERO;
    let mut a2 = i32x8::ZERO;
    let mut a3 = i32x8::ZERO;
    let blocks = data.chunks_exact(32);
    let rest = blocks.remainder();
    for b in blocks {
        a0 += load8(&b[0..8]);
        a1 += load8(&b[8..16]);
        a2 += load8(&b[16..24]);
        a3 += load8(&b[24..32]);
    }
    let chunks = rest.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        a0 += load8(c);
    }
    let acc = (a0 + a1) + (a2 + a3);
    tail.iter()
        .fold(acc.reduce_add(), |s, &x| s.wrapping_add(x))
}

/// The checksum of `data` computed by the tier `backend` selects.
#[inline]
pub fn checksum_with(backend: Backend, data: &[i32]) -> i32 {
    match backend {
        Backend::Oracle => checksum_oracle(data),
        Backend::Scalar => checksum_scalar(data),
        Backend::Simd => checksum_simd(data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps() {
        for f in [checksum_oracle, checksum_scalar, checksum_simd] {
            assert_eq!(f(&[]), 0);
            assert_eq!(f(&[i32::MAX, 1]), i32::MIN);
            assert_eq!(f(&[i32::MIN, -1]), i32::MAX);
            let v: Vec<i32> = (0..100).map(|i| i32::MAX - i).collect();
            assert_eq!(f(&v), checksum_oracle(&v));
        }
    }
}
