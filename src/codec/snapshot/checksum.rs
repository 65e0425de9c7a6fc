//! Snapshot checksum: the wrapping `i32` sum of all item data ints (item keys
//! and offsets excluded), as DDNet's `CSnapshot::Crc` and snapshot.md define
//! it. Demos and the network protocol compare it against the sender's value
//! after every delta.
//!
//! Wrapping addition is associative and commutative, so any lane split gives
//! the oracle's result bit for bit.

use super::add::load8;
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

/// AVX2: four `ymm` accumulators over 32-int blocks, then 8-int blocks,
/// then the last 1 to 7 ints as one masked block (`vpmaskmovd` reads only
/// the masked lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn checksum_avx2_inner(data: &[i32]) -> i32 {
    use core::arch::x86_64::*;
    #[inline(always)]
    fn load(c: &[i32; 8]) -> __m256i {
        // SAFETY: 8 readable ints; `loadu` has no alignment requirement.
        unsafe { _mm256_loadu_si256(c.as_ptr().cast()) }
    }
    let zero = _mm256_setzero_si256();
    let (mut a0, mut a1, mut a2, mut a3) = (zero, zero, zero, zero);
    let (blocks, rest) = data.as_chunks::<32>();
    for b in blocks {
        let (c, _) = b.as_chunks::<8>();
        a0 = _mm256_add_epi32(a0, load(&c[0]));
        a1 = _mm256_add_epi32(a1, load(&c[1]));
        a2 = _mm256_add_epi32(a2, load(&c[2]));
        a3 = _mm256_add_epi32(a3, load(&c[3]));
    }
    let (chunks, tail) = rest.as_chunks::<8>();
    for c in chunks {
        a0 = _mm256_add_epi32(a0, load(c));
    }
    if !tail.is_empty() {
        // Lane j is read where j < tail.len().
        let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(tail.len() as i32), lanes);
        // SAFETY: the mask selects the `tail.len()` readable ints; masked
        // lanes are not accessed.
        let t = unsafe { _mm256_maskload_epi32(tail.as_ptr(), mask) };
        a1 = _mm256_add_epi32(a1, t);
    }
    let acc = _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3));
    let half = _mm_add_epi32(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256::<1>(acc),
    );
    let pair = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
    let one = _mm_add_epi32(pair, _mm_shuffle_epi32::<0b10_11_00_01>(pair));
    _mm_cvtsi128_si32(one)
}

#[cfg(target_arch = "x86_64")]
fn checksum_avx2(data: &[i32]) -> i32 {
    // SAFETY: this entry is only handed out for `Kernel::Avx2`, which
    // `Kernel::chosen` and `Kernel::forced` give only where the CPU has
    // AVX2.
    unsafe { checksum_avx2_inner(data) }
}

crate::backend::kernel_family! {
    /// The SIMD tier's kernels.
    pub enum Kernel: "checksum kernel" {
        /// 256-bit AVX2 adds.
        Avx2 = ("avx2", Avx2, chosen),
        /// [`checksum_simd`] (`wide`, SSE2 on x86-64).
        Wide = ("wide", Sse2, chosen),
    }
}

/// A checksum kernel.
pub type ChecksumFn = fn(&[i32]) -> i32;

impl Kernel {
    /// The kernel's entry point. Only [`Kernel::available`] kernels may be
    /// asked for (see [`Kernel::forced`]).
    pub(crate) fn entry(self) -> ChecksumFn {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => checksum_avx2,
            _ => checksum_simd,
        }
    }
}

/// The checksum with the kernel `kernel`, whatever was chosen (for tests
/// and benchmarks).
///
/// # Panics
///
/// Where this CPU cannot run `kernel` (see [`Kernel::available`]).
pub fn checksum_on(kernel: Kernel, data: &[i32]) -> i32 {
    (kernel.forced().entry())(data)
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

    /// Every available kernel against the oracle on every length up to 100
    /// (every tail of the 32- and 8-int blocks).
    #[test]
    fn kernels_match_the_oracle_on_every_tail() {
        let v: Vec<i32> = (0..100u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9) as i32)
            .collect();
        for k in Kernel::ALL.into_iter().filter(|k| k.available()) {
            for n in 0..=v.len() {
                for start in 0..3.min(v.len() - n + 1) {
                    let d = &v[start..start + n];
                    assert_eq!(checksum_on(k, d), checksum_oracle(d), "{k:?} len {n}");
                }
            }
        }
    }
}
