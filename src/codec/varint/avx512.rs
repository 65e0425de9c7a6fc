//! The AVX-512 kernel of the SIMD tier (x86-64 with AVX-512 F, BW, VBMI,
//! VBMI2 and BMI1/2, e.g. AMD Zen 4/5, Intel Ice Lake and later), chosen
//! once per process by [`super::simd::Kernel::chosen`].
//!
//! The input is read in 64-byte windows at fixed offsets (0, 64, ...), so
//! no load waits for the previous window's bytes. A window decodes the ints
//! that start in it; its extend bits `x` (`vpmovb2m`) give the starts
//! (`!x << 1`, plus where the last window's last int ended) as long as no
//! int has a 5th byte with the extend bit set:
//!
//! - No extend bit and no int reaching in: 64 one-byte ints, sign-extended
//!   by `vpmovsxbd` and stored.
//! - Else the start offsets are packed by `vpcompressb`, and each group of
//!   16 ints gathers its first four bytes into one 32-bit lane and its 5th
//!   into another (`vpermi2b` over this window and the next: an int may end
//!   up to 4 bytes into the next). In each lane the bytes after the first
//!   end byte are masked off (`e ^ (e - 1)` with `e` the end bits), the 6
//!   and 7-bit fields are joined by `vpmaddubsw` + `vpmaddwd`, the 5th
//!   byte's low bits are or-ed in at bit 27 for ints with four extend bytes,
//!   and the sign bit flips the lane. Groups past the window's int count
//!   are skipped.
//! - Where a window's ints may need a warning or the exact 5-byte rule (a
//!   zero after an extend byte, or a byte after four extend bytes with any
//!   of its top four bits set), the window is read by the exact reader.
//!
//! The last windows read zeros past the end: they decode as one-byte ints
//! after the last real int and are not counted, and an int cut off by the
//! end gets a zero after an extend byte, so the exact reader reports it.
//! Inputs under 64 bytes go to the scalar tier.

use super::scalar::unpack_from;
use super::window::{bad_ends, exact, Classes};
use super::{VarintError, VarintWarning};
use crate::warn::Warn;
use core::arch::x86_64::*;

/// Bytes per window (one `zmm` register).
const WINDOW: usize = 64;

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
#[inline]
fn load(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: 64 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
#[inline]
fn store(dst: &mut [i32; 16], v: __m512i) {
    // SAFETY: 64 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), v) }
}

/// Byte `i` is `i`.
const fn iota() -> [u8; 64] {
    let mut a = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        a[i] = i as u8;
        i += 1;
    }
    a
}
static IOTA: [u8; 64] = iota();

/// Byte `j` of group `g`'s spread is `16 g + j / 4`: lane `j / 4` takes the
/// start of int `16 g + j / 4` into all four bytes.
const fn spread(g: usize) -> [u8; 64] {
    let mut a = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        a[j] = (16 * g + j / 4) as u8;
        j += 1;
    }
    a
}
static SPREAD: [[u8; 64]; 4] = [spread(0), spread(1), spread(2), spread(3)];

/// Byte `j` is `j % 4`: the byte of the 32-bit lane.
const fn byte_in_lane() -> [u8; 64] {
    let mut a = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        a[j] = (j % 4) as u8;
        j += 1;
    }
    a
}
static BYTE_IN_LANE: [u8; 64] = byte_in_lane();

/// The 16 ints whose start offsets are bytes `16 g .. 16 g + 16` of
/// `starts` (`spread` is `SPREAD[g]`), decoded from the window `d` and the
/// one after it, `next`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
#[inline]
fn group(d: __m512i, next: __m512i, starts: __m512i, spread: __m512i, offsets: __m512i) -> __m512i {
    let idx = _mm512_add_epi8(_mm512_permutexvar_epi8(spread, starts), offsets);
    let b = _mm512_permutex2var_epi8(d, idx, next);
    let b5 = _mm512_permutex2var_epi8(d, _mm512_add_epi8(idx, _mm512_set1_epi8(4)), next);
    // End bytes among the first four, and the bytes up to the first one
    // (all four if none).
    let e = _mm512_andnot_si512(b, _mm512_set1_epi32(0x8080_8080u32 as i32));
    let keep = _mm512_xor_si512(e, _mm512_sub_epi32(e, _mm512_set1_epi32(1)));
    let w = _mm512_ternarylogic_epi32::<0x80>(b, keep, _mm512_set1_epi32(0x7f7f_7f3f));
    let pairs = _mm512_maddubs_epi16(_mm512_set1_epi32(0x8001_4001u32 as i32), w);
    let v = _mm512_madd_epi16(pairs, _mm512_set1_epi32(0x2000_0001));
    let fifth = _mm512_testn_epi32_mask(e, e);
    let v = _mm512_mask_or_epi32(v, fifth, v, _mm512_slli_epi32::<27>(b5));
    let neg = _mm512_test_epi32_mask(b, _mm512_set1_epi32(0x40));
    _mm512_mask_xor_epi32(v, neg, v, _mm512_set1_epi32(-1))
}

/// The 64 bytes of `d` as one-byte ints.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
#[inline]
fn singles(d: __m512i, dst: &mut [i32; 64]) {
    // (b & 0x3f) ^ (b & 0x40 ? -1 : 0) is b ^ 0xbf where bit 6 is set.
    let neg = _mm512_test_epi8_mask(d, _mm512_set1_epi8(0x40));
    let v = _mm512_mask_mov_epi8(d, neg, _mm512_xor_si512(d, _mm512_set1_epi8(0xbfu8 as i8)));
    let (d4, _) = dst.as_chunks_mut::<16>();
    store(&mut d4[0], _mm512_cvtepi8_epi32(_mm512_castsi512_si128(v)));
    store(
        &mut d4[1],
        _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32::<1>(v)),
    );
    store(
        &mut d4[2],
        _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32::<2>(v)),
    );
    store(
        &mut d4[3],
        _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32::<3>(v)),
    );
}

#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn classes(d: __m512i) -> Classes {
    Classes {
        extend: _mm512_movepi8_mask(d),
        zero: _mm512_testn_epi8_mask(d, d),
        high: _mm512_test_epi8_mask(d, _mm512_set1_epi8(0xf0u8 as i8)),
    }
}

/// The bytes of `input` from `at`, up to 64, zero-padded to 64; `iota`
/// is [`IOTA`]. Needs at least 64 bytes of input.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
#[inline]
fn load_from(input: &[u8], at: usize, iota: __m512i) -> __m512i {
    if let Some(whole) = input.get(at..).and_then(|s| s.first_chunk::<64>()) {
        return load(whole);
    }
    // The last 64 bytes, moved down to `at` (a masked load would do, but
    // is slow on AMD Zen).
    let Some(last) = input.last_chunk::<64>() else {
        return _mm512_setzero_si512();
    };
    let have = input.len().saturating_sub(at);
    let shift = _mm512_set1_epi8((64 - have) as i8);
    let mask = (1u64 << have) - 1;
    _mm512_maskz_permutexvar_epi8(mask, _mm512_add_epi8(iota, shift), load(last))
}

/// Unpacks `input` into `out`; see [`super::unpack`] for the contract.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi1,bmi2,popcnt")]
pub(super) fn unpack(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    if input.len() < WINDOW {
        return super::scalar::unpack(input, out, warnings);
    }
    let iota = load(&IOTA);
    let offsets = load(&BYTE_IN_LANE);
    let spread = [
        load(&SPREAD[0]),
        load(&SPREAD[1]),
        load(&SPREAD[2]),
        load(&SPREAD[3]),
    ];
    let end = input.len();
    let mut pos = 0;
    let mut n = 0;
    // The window at `pos`: bytes `d`, classes `c`, bad end bytes `c_bad`;
    // its first int starts at `next_start` (pos..=pos + 4).
    let mut d = load_from(input, 0, iota);
    let mut c = classes(d);
    let mut c_bad = bad_ends(c, 0);
    let mut next_start = 0;
    while pos < end {
        let Some(dst) = out.get_mut(n..).and_then(|s| s.first_chunk_mut::<WINDOW>()) else {
            break;
        };
        let dn = load_from(input, pos + WINDOW, iota);
        let cn = classes(dn);
        let cn_bad = bad_ends(cn, c.extend);
        let x = c.extend;
        let lead = next_start - pos;
        if x | lead as u64 | c_bad == 0 {
            // 64 one-byte ints.
            singles(d, dst);
            n += 64;
            next_start = pos + WINDOW;
        } else if c_bad | (cn_bad & 0xf) != 0 {
            // Bytes of this window's ints need the exact reader.
            next_start = exact(
                input,
                out,
                warnings,
                next_start,
                (pos + WINDOW).min(end),
                &mut n,
            )?;
        } else {
            let ends = !x;
            // The first start is `lead` even when the byte before it has
            // an extend bit (a 5th byte the exact reader took).
            let starts = (ends << 1) & (u64::MAX << lead) | 1 << lead;
            let count = starts.count_ones() as usize;
            let s = _mm512_maskz_compress_epi8(starts, iota);
            let (d4, _) = dst.as_chunks_mut::<16>();
            store(&mut d4[0], group(d, dn, s, spread[0], offsets));
            if count > 16 {
                store(&mut d4[1], group(d, dn, s, spread[1], offsets));
                if count > 32 {
                    store(&mut d4[2], group(d, dn, s, spread[2], offsets));
                    store(&mut d4[3], group(d, dn, s, spread[3], offsets));
                }
            }
            n += count;
            // The int holding the last byte ends at the first end byte of
            // the next window unless it ends here.
            next_start = pos + WINDOW;
            if ends >> 63 == 0 {
                next_start += (!cn.extend).trailing_zeros() as usize + 1;
            }
        }
        pos += WINDOW;
        d = dn;
        c = cn;
        c_bad = cn_bad;
    }
    if next_start >= end {
        // Ints past the end are the padding's one-byte zeros.
        return Ok(n - (next_start - end));
    }
    unpack_from(input, out, warnings, next_start, n)
}
