//! The SIMD tier: 64-byte windows read through their extend bits.
//!
//! [`unpack`] runs the kernel chosen for this CPU ([`Kernel::chosen`],
//! from [`X86Level::active`](crate::backend::X86Level::active)): the
//! AVX-512 kernel (x86-64 with AVX-512 VBMI2, see `avx512.rs`), else the AVX2 shuffle kernel (AVX2 + BMI2,
//! `vpshufb` patterns from a table, see `avx2.rs`), else
//! [`unpack_baseline`], which uses only what the build target guarantees
//! (`wide`, so SSE2 on x86-64, NEON on aarch64). All give exactly the
//! oracle's ints, warnings and errors; [`unpack_on`] forces one (also
//! the baseline kernel compiled for AVX2 + BMI2, [`Kernel::Avx2Wide`],
//! which is never chosen).
//!
//! # The baseline kernel
//!
//! A window is the 64 input bytes from an int boundary; its extend bits
//! (one `pmovmskb` per 16 bytes) make a `u64` `x`, and while no int has a
//! 5th byte with the extend bit set, the int ends are exactly `!x`:
//!
//! ```text
//! bytes   05 81 02 07 c3 84 01 00 ..
//! x        0  1  0  0  1  1  0  0 ..   (bit i = byte i >= 0x80)
//! ints    [05][81 02][07][c3 84 01][00] ..
//! ```
//!
//! - No extend bit in the first 16 bytes: a run of one-byte ints. The
//!   16-byte blocks before the first extend bit are decoded as one-byte
//!   ints (`(b & 0x3f) ^ (b & 0x40 ? -1 : 0)`, widened to `i32`) and stored.
//! - Else the first block is stored the same way (right up to the first
//!   multi-byte int), then each multi-byte int starting in the first 44
//!   bytes is found from the bits (`x & (!x << 1 | 1)`, lowest first) and
//!   decoded from one 8-byte load, its length from the bits too; if a
//!   one-byte int follows, the 16 bytes after it are stored as one-byte
//!   ints (later stores overwrite the lanes past the run). A run of 16 or
//!   more one-byte ints, or the end of the 44 bytes, starts a new window.
//! - An int whose last byte is zero (overlong) or has padding bits, or that
//!   would be longer than 5 bytes by the bits, is read by the exact
//!   byte-by-byte reader, which also gives its warning.
//!
//! The last bytes (less than a window) and a nearly full output go to the
//! scalar tier.
//!
//! # Measured
//!
//! `perf stat -e cycles:u` user cycles per input byte over the 6463 chunk
//! payloads of the 10 real demos (3.57 MB; 13 % of bytes, 7 % of ints
//! multi-byte, in clusters), on the shared 2-core AMD EPYC (Zen 5):
//! AVX-512 kernel 0.55, baseline 1.74, scalar tier 2.44, oracle 5.1 (a
//! design over 16-byte blocks measured 1.99). In the full demo decode the
//! varint unpacking is about 9 % of the cycles.
//!
//! The AVX2 shuffle kernel (`avx2.rs`) over the same payloads: 15.0 M
//! instructions per pass (4.2 per input byte) against 21.7 M (6.1) for the
//! baseline kernel compiled for AVX2 + BMI2 (valgrind callgrind), and
//! 1.15–1.4× its throughput in the same `bench codecs` runs at the AVX2
//! cap (loaded machine); the AVX-512 kernel is still 1.5–1.7× faster.
//! Those figures are from a kernel that took 16-byte blocks of one-byte
//! ints apart with a branch; shuffling every half instead runs 15.2 M
//! instructions per pass, but 28 k simulated branch misses instead of
//! 160 k (callgrind's branch simulator); its user time against the
//! branching kernel moved between −16 % and +16 % from run to run on the
//! loaded shared machine (not shown to be faster).
//!
//! Tried and dropped: a 16-bit-lane AVX-512 path for windows of one- and
//! two-byte ints (13 % fewer instructions, no measurable change in
//! cycles); the baseline kernel compiled for AVX2 + BMI2 (9 % fewer
//! instructions, same cycles); AVX-512 masked loads for the last, partial
//! window (about 0.6 cycles per byte slower on Zen 5 than moving the last
//! 64 bytes down with `vpermb`).

use crate::warn::Warn;
use wide::{i16x16, i32x16, i8x16};

use super::scalar::{store_int_at, unpack_from};
use super::{UnpackFn, VarintError, VarintWarning};

/// Input bytes one window covers: their extend bits form one `u64`.
const WINDOW: usize = 64;
/// Output slots a window may write: stores of one-byte ints run up to 16
/// slots past the last int they decode.
const OUT_WINDOW: usize = 64;
/// The last window offset at which a multi-byte int is decoded inside the
/// window: it ends by byte 47, so the 16 bytes after it are in the window.
const LAST_MULTI: usize = WINDOW - 16 - 5;

crate::backend::kernel_family! {
    /// The kernels of the SIMD tier, widest first.
    pub enum Kernel: "varint kernel" {
        /// The AVX-512 (VBMI2) kernel (`avx512.rs`).
        Avx512 = ("avx512", Avx512, chosen),
        /// The AVX2 shuffle kernel (`avx2.rs`): `vpshufb` patterns from a
        /// table indexed by the int starts of 8 bytes.
        Avx2 = ("avx2", Avx2, chosen),
        /// The baseline kernel compiled for AVX2 + BMI2 (`vpmovsxbd`
        /// widening, `tzcnt`/`blsr` bit scans, VEX encodings); never chosen
        /// (the shuffle kernel is faster), kept to be forced for comparison.
        Avx2Wide = ("avx2-wide", Avx2, never),
        /// The baseline kernel, [`unpack_baseline`]: what the build target
        /// guarantees (`wide`, SSE2 on x86-64).
        Wide = ("wide", Sse2, chosen),
    }
}

impl Kernel {
    /// The kernel's entry point. Only [`Kernel::available`] kernels may be
    /// asked for (see [`Kernel::forced`]): the x86 ones run instructions
    /// the CPU may not have.
    pub(crate) fn entry(self) -> UnpackFn {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => unpack_avx512,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => unpack_avx2,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2Wide => unpack_avx2_wide,
            _ => unpack_baseline,
        }
    }
}

/// The kernel [`unpack`] runs in this process (see [`Kernel::chosen`]).
pub fn kernel_name() -> &'static str {
    Kernel::chosen().name()
}

/// Unpacks `input` into `out`; see [`super::unpack`] for the contract.
///
/// Runs the kernel chosen once per process ([`Kernel::chosen`]).
#[inline]
pub fn unpack(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    (Kernel::chosen().entry())(input, out, warnings)
}

/// [`unpack`] with the kernel `kernel`, whatever was chosen (for tests and
/// benchmarks).
///
/// # Panics
///
/// Where this CPU cannot run `kernel` (see [`Kernel::available`]).
pub fn unpack_on(
    kernel: Kernel,
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    (kernel.forced().entry())(input, out, warnings)
}

#[cfg(target_arch = "x86_64")]
fn unpack_avx512(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    // SAFETY: this entry is only handed out for `Kernel::Avx512`, whose
    // level (checked by `Kernel::chosen` and `Kernel::forced`) includes every
    // feature `avx512::unpack` is compiled for.
    unsafe { super::avx512::unpack(input, out, warnings) }
}

#[cfg(target_arch = "x86_64")]
fn unpack_avx2(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    // SAFETY: this entry is only handed out for `Kernel::Avx2`,
    // whose level (checked by `Kernel::chosen` and `Kernel::forced`) has AVX2,
    // BMI1/2 and POPCNT, every feature `avx2::unpack` is compiled for.
    unsafe { super::avx2::unpack(input, out, warnings) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
fn unpack_avx2_wide_inner(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    let (pos, n) = windows(input, out, warnings)?;
    unpack_from(input, out, warnings, pos, n)
}

#[cfg(target_arch = "x86_64")]
fn unpack_avx2_wide(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    // SAFETY: this entry is only handed out for `Kernel::Avx2Wide`, whose
    // level (checked by `Kernel::chosen` and `Kernel::forced`) has AVX2, BMI1/2,
    // POPCNT.
    unsafe { unpack_avx2_wide_inner(input, out, warnings) }
}

/// [`unpack`] with the baseline kernel, whatever the CPU.
pub fn unpack_baseline(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    let (pos, n) = windows(input, out, warnings)?;
    unpack_from(input, out, warnings, pos, n)
}

#[inline(always)]
fn block(bytes: &[u8; 16]) -> i8x16 {
    i8x16::new(bytes.map(|b| b as i8))
}

/// The 16 bytes as one-byte ints (right for the lanes before the first
/// extend bit).
#[inline(always)]
fn singles(block: i8x16) -> [i32; 16] {
    let sign_bit = i8x16::splat(0x40);
    let flip = (block & sign_bit).simd_eq(sign_bit);
    let values = (block & i8x16::splat(0x3f)) ^ flip;
    i32x16::from_i16x16(i16x16::from_i8x16(values)).to_array()
}

#[inline(always)]
fn block_at(win: &[u8; WINDOW], at: usize) -> Option<i8x16> {
    Some(block(win.get(at..)?.first_chunk::<16>()?))
}

/// The window's four blocks.
#[inline(always)]
fn blocks(win: &[u8; WINDOW]) -> [i8x16; 4] {
    let (b, _) = win.as_chunks::<16>();
    [block(&b[0]), block(&b[1]), block(&b[2]), block(&b[3])]
}

/// Extend bits of the four blocks (bit i = byte i).
#[inline(always)]
fn extend_bits(b: &[i8x16; 4]) -> u64 {
    let m = b.map(|b| b.to_bitmask() as u16 as u64);
    m[0] | m[1] << 16 | m[2] << 32 | m[3] << 48
}

/// Per int length minus one (`tail`, 0..=4): the mask of its bytes in a
/// little-endian word, and the range `LOWEST..LOWEST + SPAN` the masked
/// word must be in to need no warning: last byte non-zero (not overlong)
/// and, for a 5th byte, no padding bits.
const BYTES: [u64; 5] = [0xff, 0xffff, 0xff_ffff, 0xffff_ffff, 0xff_ffff_ffff];
const LOWEST: [u64; 5] = [0, 1 << 8, 1 << 16, 1 << 24, 1 << 32];
const SPAN: [u64; 5] = [
    u64::MAX,
    u64::MAX - (1 << 8),
    u64::MAX - (1 << 16),
    u64::MAX - (1 << 24),
    (1 << 36) - (1 << 32),
];

/// A multi-byte int of `tail + 1` (2..=5) bytes at the start of `word`:
/// its value, or `None` if it needs the exact reader (overlong, padding,
/// longer than 5 bytes by the extend bits).
#[inline(always)]
fn multi_value(word: u64, tail: usize) -> Option<i32> {
    let (Some(&bytes), Some(&lowest), Some(&span)) =
        (BYTES.get(tail), LOWEST.get(tail), SPAN.get(tail))
    else {
        return None;
    };
    let w = word & bytes;
    if w.wrapping_sub(lowest) >= span {
        return None;
    }
    let bits = (w & 0x3f)
        | (w >> 2 & 0x7f << 6)
        | (w >> 3 & 0x7f << 13)
        | (w >> 4 & 0x7f << 20)
        | (w >> 5 & 0x7f << 27);
    Some((bits as u32 as i32) ^ -((w >> 6 & 1) as i32))
}

/// Where a window stopped: input offset and ints written, both relative to
/// the window; `exact` if the int at `pos` needs the exact reader.
struct Stop {
    pos: usize,
    ints: usize,
    exact: bool,
}

/// Decodes the ints of a window that starts on an int boundary and whose
/// first block has an extend bit; `x` are the extend bits, the first 16
/// one-byte lanes are already in `dst`.
#[inline(always)]
fn window(win: &[u8; WINDOW], x: u64, dst: &mut [i32; OUT_WINDOW]) -> Stop {
    let ends = !x;
    // Multi-byte int starts: extend bytes after an end byte (or at 0).
    let mut starts = x & (ends << 1 | 1) & ((2 << LAST_MULTI) - 1);
    let mut k = starts.trailing_zeros() as usize;
    let mut q = k;
    while starts != 0 {
        let p = starts.trailing_zeros() as usize;
        starts &= starts - 1;
        let exact = Stop {
            pos: p,
            ints: k,
            exact: true,
        };
        let Some(word) = win.get(p..).and_then(|w| w.first_chunk::<8>()) else {
            return exact;
        };
        let tail = (ends >> p).trailing_zeros() as usize;
        let (Some(value), Some(slot)) =
            (multi_value(u64::from_le_bytes(*word), tail), dst.get_mut(k))
        else {
            return exact;
        };
        *slot = value;
        k += 1;
        q = p + tail + 1;
        if x >> q & 1 != 0 {
            // Another multi-byte int follows.
            continue;
        }
        let (Some(b), Some(d)) = (block_at(win, q), dst.get_mut(k..k + 16)) else {
            return Stop {
                pos: q,
                ints: k,
                exact: false,
            };
        };
        d.copy_from_slice(&singles(b));
        let run = (x >> q).trailing_zeros() as usize;
        if run >= 16 {
            return Stop {
                pos: q + 16,
                ints: k + 16,
                exact: false,
            };
        }
        k += run;
        q += run;
        if starts == 0 {
            break;
        }
    }
    // The next int starts after LAST_MULTI (and is multi-byte).
    Stop {
        pos: q,
        ints: k,
        exact: false,
    }
}

/// Decodes whole windows while 64 input bytes and output slots remain;
/// returns the input offset and output count reached.
#[inline(always)]
fn windows(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<(usize, usize), VarintError> {
    let mut pos = 0;
    let mut n = 0;
    loop {
        let (Some(win), Some(dst)) = (
            input.get(pos..).and_then(|s| s.first_chunk::<WINDOW>()),
            out.get_mut(n..)
                .and_then(|s| s.first_chunk_mut::<OUT_WINDOW>()),
        ) else {
            return Ok((pos, n));
        };
        let b = blocks(win);
        let x = extend_bits(&b);
        dst[..16].copy_from_slice(&singles(b[0]));
        if x & 0xffff == 0 {
            // A run of one-byte ints: store the blocks before the first
            // extend bit, then look again from the block that has it.
            let clean = (x.trailing_zeros() / 16) as usize;
            let (d, _) = dst.as_chunks_mut::<16>();
            if clean > 1 {
                d[1].copy_from_slice(&singles(b[1]));
            }
            if clean > 2 {
                d[2].copy_from_slice(&singles(b[2]));
            }
            if clean > 3 {
                d[3].copy_from_slice(&singles(b[3]));
            }
            pos += 16 * clean;
            n += 16 * clean;
            continue;
        }
        let stop = window(win, x, dst);
        pos += stop.pos;
        n += stop.ints;
        if stop.exact {
            let Some(slot) = dst.get_mut(stop.ints) else {
                return Ok((pos, n));
            };
            pos += store_int_at(input, pos, slot, warnings)?;
            n += 1;
        }
    }
}
