//! Elementwise wrapping `i32` addition: how a snapshot delta updates an item
//! (`new = old + diff`, DDNet's `UndiffItem`, which adds as unsigned).
//!
//! Every tier processes `min(old.len(), diff.len(), out.len())` ints; the
//! delta applier always passes three slices of one item's size.
//!
//! The `wrapping_add_assign` tiers update an item in place (`data += diff`)
//! and return the wrapping sum of the diff ints they used: by how much the
//! snapshot checksum (the wrapping sum of all data) changes. They process
//! `min(data.len(), diff.len())` ints.

use wide::{i32x4, i32x8};

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

/// The first 8 ints of `c` as a vector (zeros when `c` is shorter; the
/// kernels pass whole 8-int chunks). Shared with the checksum kernel.
#[inline(always)]
pub(super) fn load8(c: &[i32]) -> i32x8 {
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

/// Reference: `data += diff` one int at a time; returns the wrapping sum of
/// the diff ints used.
pub fn wrapping_add_assign_oracle(data: &mut [i32], diff: &[i32]) -> i32 {
    let mut sum = 0i32;
    for (o, &d) in data.iter_mut().zip(diff) {
        *o = o.wrapping_add(d);
        sum = sum.wrapping_add(d);
    }
    sum
}

/// Scalar: fixed 8-int blocks with eight sum lanes, then the tail.
#[inline]
pub fn wrapping_add_assign_scalar(data: &mut [i32], diff: &[i32]) -> i32 {
    let n = data.len().min(diff.len());
    let (blocks, data_tail) = data[..n].as_chunks_mut::<8>();
    let (diff_blocks, diff_tail) = diff[..n].as_chunks::<8>();
    let mut lanes = [0i32; 8];
    for (o, d) in blocks.iter_mut().zip(diff_blocks) {
        for i in 0..8 {
            o[i] = o[i].wrapping_add(d[i]);
            lanes[i] = lanes[i].wrapping_add(d[i]);
        }
    }
    let tail = wrapping_add_assign_oracle(data_tail, diff_tail);
    lanes.iter().fold(tail, |s, &l| s.wrapping_add(l))
}

/// `TAIL_MASKS[k..k + w]`: a `w`-lane mask whose lanes `j >= 8 - k` are
/// set, for the last block of an item when it overlaps the blocks before.
const TAIL_MASKS: [i32; 16] = [0, 0, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1];

#[inline(always)]
fn load4(c: &[i32]) -> i32x4 {
    match c.first_chunk::<4>() {
        Some(a) => i32x4::new(*a),
        None => i32x4::ZERO,
    }
}

/// `wide` SIMD, no scalar tail: `i32x8` blocks, then one last block ending
/// at the end of the item that may overlap the blocks before (items of 4 to
/// 7 ints: two `i32x4` blocks the same way; below 4: one int at a time).
/// The last block is loaded before any store, so where it overlaps both
/// compute the same `old + diff`; its overlapping lanes are masked out of
/// the sum. Real items are mostly characters of 22 ints (2 blocks + 1),
/// which get their own copy of the code with the size a constant.
#[inline]
pub fn wrapping_add_assign_simd(data: &mut [i32], diff: &[i32]) -> i32 {
    wrapping_add_assign_simd_lanes(data, diff).reduce_add()
}

/// Ints of the item most deltas update: a character (0.6, DDNet and 0.7).
const CHARACTER_INTS: usize = 22;

/// [`wrapping_add_assign_simd`] without the last step: the sum of the diff
/// ints used, in 8 lanes (a caller adding up many items reduces once).
#[inline(always)]
pub fn wrapping_add_assign_simd_lanes(data: &mut [i32], diff: &[i32]) -> i32x8 {
    let n = data.len().min(diff.len());
    if n == CHARACTER_INTS {
        // The same code, unrolled for the constant size.
        blocks_of_8(&mut data[..CHARACTER_INTS], &diff[..CHARACTER_INTS])
    } else if n >= 8 {
        blocks_of_8(&mut data[..n], &diff[..n])
    } else if n >= 4 {
        let (data, diff) = (&mut data[..n], &diff[..n]);
        let last_diff = load4(&diff[n - 4..]);
        let last = load4(&data[n - 4..]) + last_diff;
        let first_diff = load4(diff);
        let first = load4(data) + first_diff;
        let acc = first_diff + (last_diff & load4(&TAIL_MASKS[n..]));
        data[..4].copy_from_slice(first.as_array());
        data[n - 4..].copy_from_slice(last.as_array());
        let [a, b, c, d] = acc.to_array();
        i32x8::new([a, b, c, d, 0, 0, 0, 0])
    } else {
        let sum = wrapping_add_assign_oracle(data, diff);
        i32x8::new([sum, 0, 0, 0, 0, 0, 0, 0])
    }
}

/// The `n >= 8` case of [`wrapping_add_assign_simd_lanes`], for `data` and
/// `diff` of one length.
#[inline(always)]
fn blocks_of_8(data: &mut [i32], diff: &[i32]) -> i32x8 {
    let n = data.len();
    if n < 8 || diff.len() != n {
        return i32x8::ZERO;
    }
    let last_diff = load8(&diff[n - 8..]);
    let last = load8(&data[n - 8..]) + last_diff;
    let mut acc = last_diff & load8(&TAIL_MASKS[n % 8..]);
    let (blocks, _) = data.as_chunks_mut::<8>();
    for (o, d) in blocks.iter_mut().zip(diff.as_chunks::<8>().0) {
        let d = i32x8::new(*d);
        acc += d;
        *o = (i32x8::new(*o) + d).to_array();
    }
    data[n - 8..].copy_from_slice(last.as_array());
    acc
}

/// AVX2 (`ymm`): [`wrapping_add_assign_simd_lanes`]'s blocks and
/// overlapping last block in 256-bit registers (items of 4 to 7 ints: two
/// 128-bit blocks the same way; below 4: one int at a time). Returns the
/// sum of the diff ints used in 8 lanes.
///
/// A `target_feature` function: the in-place applier calls it from its
/// item loop compiled for AVX2 ([`AddKernel::Avx2`]), where it inlines.
///
/// # Safety
///
/// The CPU must have AVX2 (code not compiled for AVX2 calls it in
/// `unsafe`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn wrapping_add_assign_avx2_lanes(
    data: &mut [i32],
    diff: &[i32],
) -> core::arch::x86_64::__m256i {
    use core::arch::x86_64::*;
    let n = data.len().min(diff.len());
    let (data, diff) = (&mut data[..n], &diff[..n]);
    if n == CHARACTER_INTS {
        // The same code, unrolled for the constant size.
        // SAFETY: this function runs only where the CPU has AVX2.
        unsafe { avx2_blocks_of_8(&mut data[..CHARACTER_INTS], &diff[..CHARACTER_INTS]) }
    } else if n >= 8 {
        // SAFETY: as above.
        unsafe { avx2_blocks_of_8(data, diff) }
    } else if n >= 4 {
        #[inline(always)]
        fn load(c: &[i32]) -> __m128i {
            match c.first_chunk::<4>() {
                // SAFETY: 4 readable ints; no alignment requirement.
                Some(c) => unsafe { _mm_loadu_si128(c.as_ptr().cast()) },
                // SAFETY: SSE2 is part of x86-64.
                None => unsafe { _mm_setzero_si128() },
            }
        }
        #[inline(always)]
        fn store(c: &mut [i32], v: __m128i) {
            if let Some(c) = c.first_chunk_mut::<4>() {
                // SAFETY: 4 writable ints; no alignment requirement.
                unsafe { _mm_storeu_si128(c.as_mut_ptr().cast(), v) }
            }
        }
        let last_diff = load(&diff[n - 4..]);
        let last = _mm_add_epi32(load(&data[n - 4..]), last_diff);
        let first_diff = load(diff);
        let first = _mm_add_epi32(load(data), first_diff);
        let acc = _mm_add_epi32(first_diff, _mm_and_si128(last_diff, load(&TAIL_MASKS[n..])));
        store(data, first);
        store(&mut data[n - 4..], last);
        _mm256_zextsi128_si256(acc)
    } else {
        let sum = wrapping_add_assign_oracle(data, diff);
        _mm256_setr_epi32(sum, 0, 0, 0, 0, 0, 0, 0)
    }
}

/// The `n >= 8` case of [`wrapping_add_assign_avx2_lanes`], for `data`
/// and `diff` of one length. Not a `target_feature` function itself (it
/// could not be `inline(always)`): it inlines into its AVX2 caller.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn avx2_blocks_of_8(data: &mut [i32], diff: &[i32]) -> core::arch::x86_64::__m256i {
    use core::arch::x86_64::*;
    #[inline(always)]
    fn load(c: &[i32; 8]) -> __m256i {
        // SAFETY: 8 readable ints; `loadu` has no alignment requirement.
        // AVX2: as for the enclosing function.
        unsafe { _mm256_loadu_si256(c.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(c: &mut [i32; 8], v: __m256i) {
        // SAFETY: 8 writable ints; `storeu` has no alignment requirement.
        // AVX2: as for the enclosing function.
        unsafe { _mm256_storeu_si256(c.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    fn add(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2, as for the enclosing function.
        unsafe { _mm256_add_epi32(a, b) }
    }
    let n = data.len();
    // SAFETY: AVX2, as the caller guarantees.
    let zero = unsafe { _mm256_setzero_si256() };
    if n < 8 || diff.len() != n {
        return zero;
    }
    let tail = n - 8;
    let (Some(last_diff), Some(last_old), Some(mask)) = (
        diff[tail..].first_chunk::<8>(),
        data[tail..].first_chunk::<8>(),
        TAIL_MASKS[n % 8..].first_chunk::<8>(),
    ) else {
        return zero;
    };
    let last_diff = load(last_diff);
    let last = add(load(last_old), last_diff);
    // SAFETY: AVX2, as the caller guarantees.
    let mut acc = unsafe { _mm256_and_si256(last_diff, load(mask)) };
    let (blocks, _) = data.as_chunks_mut::<8>();
    for (o, d) in blocks.iter_mut().zip(diff.as_chunks::<8>().0) {
        let d = load(d);
        acc = add(acc, d);
        store(o, add(load(o), d));
    }
    if let Some(o) = data[tail..].first_chunk_mut::<8>() {
        store(o, last);
    }
    acc
}

/// The wrapping sum of the 8 lanes of `v`.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub fn reduce_add_avx2(v: core::arch::x86_64::__m256i) -> i32 {
    use core::arch::x86_64::*;
    let half = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let pair = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
    let one = _mm_add_epi32(pair, _mm_shuffle_epi32::<0b10_11_00_01>(pair));
    _mm_cvtsi128_si32(one)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn wrapping_add_assign_avx2_inner(data: &mut [i32], diff: &[i32]) -> i32 {
    reduce_add_avx2(wrapping_add_assign_avx2_lanes(data, diff))
}

crate::backend::kernel_family! {
    /// The SIMD tier's kernels of `data += diff` in the in-place delta
    /// applier (its item loop is compiled once per kernel).
    pub enum AddKernel: "add kernel" {
        /// 256-bit AVX2 adds ([`wrapping_add_assign_avx2_lanes`]).
        Avx2 = ("avx2", Avx2, chosen),
        /// [`wrapping_add_assign_simd_lanes`] (`wide`, SSE2 on x86-64).
        Wide = ("wide", Sse2, chosen),
    }
}

/// `data += diff` (wrapping) with the kernel `kernel`, whatever was chosen
/// (for tests and benchmarks); returns the wrapping sum of the diff ints
/// used.
///
/// # Panics
///
/// Where this CPU cannot run `kernel` (see [`AddKernel::available`]).
pub fn wrapping_add_assign_on(kernel: AddKernel, data: &mut [i32], diff: &[i32]) -> i32 {
    match kernel.forced() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `forced` checked that the CPU has AVX2.
        AddKernel::Avx2 => unsafe { wrapping_add_assign_avx2_inner(data, diff) },
        _ => wrapping_add_assign_simd(data, diff),
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

    /// Every available kernel against the oracle on every length up to 70
    /// and every start alignment up to 8, with unequal lengths too.
    #[test]
    fn add_kernels_match_the_oracle_on_every_tail() {
        let v: Vec<i32> = (0..80u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9) as i32)
            .collect();
        let w: Vec<i32> = v.iter().rev().map(|x| x.rotate_left(7)).collect();
        for k in AddKernel::ALL.into_iter().filter(|k| k.available()) {
            for n in 0..=70 {
                for start in 0..8 {
                    for m in [n, n / 2, n + 3] {
                        let (d, w) = (&v[start..start + n], &w[start..start + m.min(70)]);
                        let mut want = d.to_vec();
                        let want_sum = wrapping_add_assign_oracle(&mut want, w);
                        let mut got = d.to_vec();
                        let sum = wrapping_add_assign_on(k, &mut got, w);
                        assert_eq!((sum, &got), (want_sum, &want), "{k:?} len {n} diff {m}");
                    }
                }
            }
        }
    }

    #[test]
    fn assign_wraps_and_sums() {
        for f in [
            wrapping_add_assign_oracle,
            wrapping_add_assign_scalar,
            wrapping_add_assign_simd,
        ] {
            let mut data: Vec<i32> = (0..19).map(|i| i32::MAX - i).collect();
            let diff = vec![1; 19];
            assert_eq!(f(&mut data, &diff), 19);
            assert_eq!(data[0], i32::MIN);
            assert_eq!(data[18], i32::MAX - 17);
            let mut data = vec![0; 17];
            assert_eq!(f(&mut data, &[i32::MAX; 17]), i32::MAX.wrapping_mul(17));
            // Only the common length is used.
            let mut short = vec![7; 3];
            assert_eq!(
                f(&mut short, &[i32::MAX, 1, 2, 100]),
                i32::MAX.wrapping_add(3)
            );
            assert_eq!(short, [7i32.wrapping_add(i32::MAX), 8, 9]);
        }
    }
}
