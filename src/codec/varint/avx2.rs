//! The AVX2 shuffle kernel of the SIMD tier (x86-64 with AVX2, BMI1/2 and
//! POPCNT: Intel Haswell, AMD Zen 1 and later), Masked-VByte style.
//!
//! The input is read in 64-byte windows at fixed offsets (0, 64, ...), as
//! the AVX-512 kernel does (`avx512.rs`), with the same rules for where the
//! ints start and which windows go to the exact reader. A window's extend
//! bits `x` (`vpmovmskb`) give the int starts (`!x << 1`, plus where the
//! last window's last int ended) as long as no int has a 5th byte with the
//! extend bit set:
//!
//! - No extend bit and no int reaching in: 64 one-byte ints, sign-flipped
//!   as bytes and widened by `vpmovsxbd`.
//! - Else the window is read as eight 8-byte halves: the 8 start bits of a
//!   half index [`PATTERNS`], a `vpshufb` pattern that puts the first four
//!   bytes of each int starting there in a 32-bit lane (up to 8 ints, from
//!   the 16 bytes at the half: an int may run 4 bytes past it). In each
//!   lane the bytes after the first end byte are masked off (`e ^ (e - 1)`
//!   with `e` the end bits), the 6- and 7-bit fields are joined by
//!   `vpmaddubsw` + `vpmaddwd`, and the sign bit flips the lane. All 8
//!   lanes are stored; the half's start count (`popcnt`) says how many
//!   stay. Halves of one-byte ints go the same way: which halves those are
//!   is data, and a branch on it is mispredicted often (see the module docs
//!   of `simd` for the counts).
//! - Only in a window with a run of four extend bytes (about a fifth of the
//!   real windows with extend bytes) can an int have a 5th byte: there the
//!   same pattern plus 4 gives each int's 5th byte, or-ed in at bit 27 for
//!   ints with four extend bytes, and the top four bits of the bytes are
//!   classified for the check below; other windows skip both.
//! - Where a window's ints may need a warning or the exact 5-byte rule (a
//!   zero after an extend byte, or a byte after four extend bytes with any
//!   of its top four bits set), the window is read by the exact reader.
//!
//! A window reads its 64 bytes and the 16 after them. The last windows
//! (under 80 bytes left) are read from a zero-padded copy: the zeros decode
//! as one-byte ints after the last real int and are not counted, and an int
//! cut off by the end gets a zero after an extend byte, so the exact reader
//! (which reads the real input) reports it. Inputs under 64 bytes go to the
//! scalar tier.

use super::scalar::unpack_from;
use super::window::{bad_ends, exact, Classes};
use super::{VarintError, VarintWarning};
use crate::warn::Warn;
use core::arch::x86_64::*;

/// Bytes per window.
const WINDOW: usize = 64;
/// Bytes a window reads: its own and the 16 after them.
const SPAN: usize = WINDOW + 16;

/// A `vpshufb` pattern per 8-bit mask of int starts in 8 bytes.
#[repr(C, align(32))]
struct Patterns([[u8; 32]; 256]);

/// Pattern `m`: 32-bit lane `i` (lanes 0-3 in the low 16 bytes, 4-7 in the
/// high 16) holds `p, p + 1, p + 2, p + 3`, where `p` is the position of
/// the `i`-th set bit of `m`; lanes past the bit count hold 0.
const fn patterns() -> Patterns {
    let mut t = [[0u8; 32]; 256];
    let mut m = 0;
    while m < 256 {
        let mut lane = 0;
        let mut p = 0;
        while p < 8 {
            if m >> p & 1 != 0 {
                let mut j = 0;
                while j < 4 {
                    t[m][4 * lane + j] = (p + j) as u8;
                    j += 1;
                }
                lane += 1;
            }
            p += 1;
        }
        m += 1;
    }
    Patterns(t)
}
static PATTERNS: Patterns = patterns();

#[target_feature(enable = "avx2")]
#[inline]
fn load16(bytes: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn load32(bytes: &[u8; 32]) -> __m256i {
    // SAFETY: 32 readable bytes; `loadu` has no alignment requirement.
    unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
}

#[target_feature(enable = "avx2")]
#[inline]
fn store8(dst: &mut [i32; 8], v: __m256i) {
    // SAFETY: 32 writable bytes; `storeu` has no alignment requirement.
    unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), v) }
}

/// The 16 bytes of `bytes` as one-byte ints, into `dst`.
#[target_feature(enable = "avx2")]
#[inline]
fn singles(bytes: &[u8; 16], dst: &mut [i32; 16]) {
    let d = load16(bytes);
    // Bit 6 moved to the sign bit (bit 7 is clear in a one-byte int):
    // (b & 0x3f) ^ (b & 0x40 ? -1 : 0).
    let neg = _mm_cmpgt_epi8(_mm_setzero_si128(), _mm_add_epi8(d, d));
    let v = _mm_xor_si128(_mm_and_si128(d, _mm_set1_epi8(0x3f)), neg);
    let (halves, _) = dst.as_chunks_mut::<8>();
    store8(&mut halves[0], _mm256_cvtepi8_epi32(v));
    store8(
        &mut halves[1],
        _mm256_cvtepi8_epi32(_mm_unpackhi_epi64(v, v)),
    );
}

/// The ints starting at the set bits of `starts` (bit `i` = byte `i` of
/// `src`), decoded into the first `starts.count_ones()` lanes of `dst`
/// (the other lanes get garbage). Each int's bytes are in `src`. Without
/// `FIFTH` the ints must have at most three extend bytes (no 5th byte is
/// read).
#[target_feature(enable = "avx2")]
#[inline]
fn eight<const FIFTH: bool>(src: &[u8; 16], starts: u8, dst: &mut [i32; 8]) {
    let s = _mm256_broadcastsi128_si256(load16(src));
    let pattern = load32(&PATTERNS.0[usize::from(starts)]);
    let b = _mm256_shuffle_epi8(s, pattern);
    // End bytes among the first four, and the bytes up to the first one
    // (all four if none).
    let e = _mm256_andnot_si256(b, _mm256_set1_epi32(0x8080_8080u32 as i32));
    let keep = _mm256_xor_si256(e, _mm256_sub_epi32(e, _mm256_set1_epi32(1)));
    let w = _mm256_and_si256(_mm256_and_si256(b, keep), _mm256_set1_epi32(0x7f7f_7f3f));
    let pairs = _mm256_maddubs_epi16(_mm256_set1_epi32(0x8001_4001u32 as i32), w);
    let mut v = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x2000_0001));
    if FIFTH {
        let b5 = _mm256_shuffle_epi8(s, _mm256_add_epi8(pattern, _mm256_set1_epi8(4)));
        let fifth = _mm256_and_si256(
            _mm256_cmpeq_epi32(e, _mm256_setzero_si256()),
            _mm256_slli_epi32::<27>(b5),
        );
        v = _mm256_or_si256(v, fifth);
    }
    let sign = _mm256_srai_epi32::<31>(_mm256_slli_epi32::<25>(b));
    store8(dst, _mm256_xor_si256(v, sign));
}

/// A window's 64 bytes and the 16 after them, as registers.
#[derive(Clone, Copy)]
struct Span {
    a: __m256i,
    b: __m256i,
    c: __m128i,
}

#[target_feature(enable = "avx2")]
#[inline]
fn span(win: &[u8; SPAN]) -> Span {
    let (halves, rest) = win.as_chunks::<32>();
    let (Some(a), Some(b), Some(c)) = (halves.first(), halves.get(1), rest.first_chunk::<16>())
    else {
        unreachable!("a span holds 2 × 32 + 16 bytes");
    };
    Span {
        a: load32(a),
        b: load32(b),
        c: load16(c),
    }
}

/// Extend bits of the window's 64 bytes and of the 16 after them.
#[target_feature(enable = "avx2")]
#[inline]
fn extend_bits(s: Span) -> (u64, u64) {
    let a = u64::from(_mm256_movemask_epi8(s.a) as u32);
    let b = u64::from(_mm256_movemask_epi8(s.b) as u32);
    let c = u64::from(_mm_movemask_epi8(s.c) as u16);
    (a | b << 32, c)
}

/// Bits of the bytes that are zero, and of those with any of the top four
/// bits set.
#[target_feature(enable = "avx2")]
#[inline]
fn zero_high32(d: __m256i) -> (u64, u64) {
    let zero = _mm256_setzero_si256();
    let low = _mm256_cmpeq_epi8(_mm256_and_si256(d, _mm256_set1_epi8(0xf0u8 as i8)), zero);
    (
        u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(d, zero)) as u32),
        u64::from(!(_mm256_movemask_epi8(low) as u32)),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
fn zero_high16(d: __m128i) -> (u64, u64) {
    let zero = _mm_setzero_si128();
    let low = _mm_cmpeq_epi8(_mm_and_si128(d, _mm_set1_epi8(0xf0u8 as i8)), zero);
    (
        u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(d, zero)) as u16),
        u64::from(!(_mm_movemask_epi8(low) as u16)),
    )
}

/// Classes of the window's 64 bytes and of the 16 after them, whose extend
/// bits are `x` and `xn`.
#[target_feature(enable = "avx2")]
#[inline]
fn classes(s: Span, x: u64, xn: u64) -> (Classes, Classes) {
    let (za, ha) = zero_high32(s.a);
    let (zb, hb) = zero_high32(s.b);
    let (zc, hc) = zero_high16(s.c);
    (
        Classes {
            extend: x,
            zero: za | zb << 32,
            high: ha | hb << 32,
        },
        Classes {
            extend: xn,
            zero: zc,
            high: hc,
        },
    )
}

/// Where the window loop is: the window at input offset `pos`, `n` ints
/// written, the next int at `next_start` (`pos..=pos + 4`), `before` the
/// extend bits of the window before.
struct State {
    pos: usize,
    n: usize,
    next_start: usize,
    before: u64,
}

/// Bit `i` set where bits `i..i + 4` of `x` are all set.
#[inline(always)]
fn runs_of_four(x: u64) -> u64 {
    let pairs = x & x >> 1;
    pairs & pairs >> 2
}

/// Bits of the zero bytes of the window's 64 bytes and of the 16 after
/// them.
#[target_feature(enable = "avx2")]
#[inline]
fn zero_bits(s: Span) -> (u64, u64) {
    let zero = _mm256_setzero_si256();
    let za = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(s.a, zero)) as u32);
    let zb = u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(s.b, zero)) as u32);
    let zc = u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(s.c, _mm_setzero_si128())) as u16);
    (za | zb << 32, zc)
}

/// Decodes the ints starting at the set bits of `starts` in the window
/// `win` into `dst`; returns how many. Without `FIFTH` no int may have
/// four extend bytes.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
fn decode<const FIFTH: bool>(win: &[u8; SPAN], starts: u64, dst: &mut [i32; WINDOW]) -> usize {
    // Every half, also where a block is 16 one-byte ints: which blocks
    // those are is data, and a branch on it is mispredicted often.
    let mut k = 0;
    for half in 0..8 {
        let at = 8 * half;
        let m = (starts >> at) as u8;
        let (Some(src), Some(d)) = (
            win.get(at..).and_then(|w| w.first_chunk::<16>()),
            dst.get_mut(k..).and_then(|d| d.first_chunk_mut::<8>()),
        ) else {
            unreachable!("a span has 16 bytes after each half and room for 8 ints");
        };
        eight::<FIFTH>(src, m, d);
        k += m.count_ones() as usize;
    }
    k
}

/// Decodes the ints starting in the window at `st.pos`, whose bytes (and
/// the 16 after them) are `win`, and moves `st` to the next window.
/// Returns `false`, leaving `st` as it was, where `out` has no room for 64
/// more ints.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
#[inline]
fn step(
    win: &[u8; SPAN],
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
    st: &mut State,
) -> Result<bool, VarintError> {
    let Some(dst) = out
        .get_mut(st.n..)
        .and_then(|s| s.first_chunk_mut::<WINDOW>())
    else {
        return Ok(false);
    };
    let bytes = span(win);
    let (x, xn) = extend_bits(bytes);
    let lead = st.next_start - st.pos;
    let (blocks, _) = win.as_chunks::<16>();
    let (d16, _) = dst.as_chunks_mut::<16>();
    if x | lead as u64 | st.before >> 63 == 0 {
        // 64 one-byte ints (no extend byte here or just before: nothing
        // for the exact reader).
        for (b, d) in blocks.iter().zip(d16.iter_mut()) {
            singles(b, d);
        }
        st.n += WINDOW;
        st.next_start = st.pos + WINDOW;
        st.pos += WINDOW;
        st.before = x;
        return Ok(true);
    }
    // Only a window with a run of four extend bits among its bytes, the
    // last four of the window before and the first three of the next (any
    // byte that may be a 5th byte, here or among the first four of the
    // next window) needs the top-four-bit classes and the 5th-byte
    // decoding.
    let before = st.before;
    let fifths = runs_of_four(x)
        | runs_of_four(x << 4 | before >> 60) & 0xf
        | runs_of_four(x >> 60 | xn << 4) & 0xe;
    let bad = if fifths == 0 {
        let (z, zn) = zero_bits(bytes);
        (z & (x << 1 | before >> 63)) | (zn & (xn << 1 | x >> 63) & 0xf)
    } else {
        let (c, cn) = classes(bytes, x, xn);
        bad_ends(c, before) | (bad_ends(cn, x) & 0xf)
    };
    if bad != 0 {
        // Bytes of this window's ints need the exact reader.
        st.next_start = exact(
            input,
            out,
            warnings,
            st.next_start,
            (st.pos + WINDOW).min(input.len()),
            &mut st.n,
        )?;
    } else {
        let ends = !x;
        // The first start is `lead` even when the byte before it has an
        // extend bit (a 5th byte the exact reader took).
        let starts = (ends << 1) & (u64::MAX << lead) | 1 << lead;
        st.n += if fifths == 0 {
            decode::<false>(win, starts, dst)
        } else {
            decode::<true>(win, starts, dst)
        };
        // The int holding the last byte ends at the first end byte of the
        // next window unless it ends here.
        st.next_start = st.pos + WINDOW;
        if ends >> 63 == 0 {
            st.next_start += (!xn).trailing_zeros() as usize + 1;
        }
    }
    st.pos += WINDOW;
    st.before = x;
    Ok(true)
}

/// Unpacks `input` into `out`; see [`super::unpack`] for the contract.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
pub(super) fn unpack(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    if input.len() < WINDOW {
        return super::scalar::unpack(input, out, warnings);
    }
    let end = input.len();
    let mut st = State {
        pos: 0,
        n: 0,
        next_start: 0,
        before: 0,
    };
    // Under 80 bytes left, windows read a zero-padded copy of the rest,
    // made once; `tail` is the input offset it starts at.
    let mut padded = [0u8; WINDOW + SPAN];
    let mut tail = None;
    while st.pos < end {
        let win = match input.get(st.pos..).and_then(|s| s.first_chunk::<SPAN>()) {
            Some(win) => win,
            None => {
                let base = *tail.get_or_insert_with(|| {
                    let rest = input.get(st.pos..).unwrap_or_default();
                    if let Some(head) = padded.get_mut(..rest.len()) {
                        head.copy_from_slice(rest);
                    }
                    st.pos
                });
                let Some(win) = padded
                    .get(st.pos - base..)
                    .and_then(|s| s.first_chunk::<SPAN>())
                else {
                    break;
                };
                win
            }
        };
        if !step(win, input, out, warnings, &mut st)? {
            break;
        }
    }
    if st.next_start >= end {
        // Ints past the end are the padding's one-byte zeros.
        return Ok(st.n - (st.next_start - end));
    }
    unpack_from(input, out, warnings, st.next_start, st.n)
}
