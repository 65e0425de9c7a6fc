//! Teeworlds variable-length ints (libtw2-doc `int.md`; Teeworlds
//! `CVariableInt`).
//!
//! An `i32` takes 1 to 5 bytes. Bits are numbered from the most significant
//! (E = extend: another byte follows, S = sign, P = padding):
//!
//! ```text
//! ES54 3210  Ecba 9876  Ejih gfed  Eqpo nmlk  PPPP utsr
//! first      next       next       next       last (5th)
//! ```
//!
//! The value bits are little-endian across bytes; if S is set every bit of
//! the result is flipped (so `-1` is `0100_0000`). The 5th byte never
//! extends: its top four bits are padding.
//!
//! Quirks kept from the reference (Teeworlds 0.6/0.7 and libtw2, which the
//! golden files were made with):
//! - Overlong forms (a last byte of zero after the first, e.g. `80 00` for 0
//!   or `c0 00` for -1) decode to their value, with a
//!   [`VarintWarningKind::Overlong`] warning.
//! - The 5th byte is masked with `0x7f`, not `0x0f`, and shifted by 27, so
//!   padding bit 4 lands in bit 31 of the result (`ff ff ff ff ff` is 0, not
//!   `i32::MIN`); non-zero padding gets a [`VarintWarningKind::NonZeroPadding`]
//!   warning. (Current DDNet masks with `0x0f`; only such malformed ints
//!   differ.)
//!
//! Errors: an int cut off by the end of the input, or a decoded int that
//! does not fit the caller's buffer; both carry the byte offset where that
//! int starts.
//!
//! Tiers: [`oracle::unpack`] (one int at a time, byte by byte),
//! [`scalar::unpack`] (8-byte words: runs of one-byte ints without per-byte
//! branches, multi-byte ints from one load), [`simd::unpack`] (64-byte
//! windows read through their extend bits: an AVX-512 or an AVX2 kernel
//! chosen at run time where the CPU has it, else [`simd::unpack_baseline`]
//! with `wide`).
//! [`unpack`] uses the [`DEFAULT_BACKEND`] tier.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub mod oracle;
pub mod scalar;
pub mod simd;
#[cfg(target_arch = "x86_64")]
mod window;

use crate::backend::Backend;
use crate::warn::Warn;

/// The most bytes one int takes.
pub(crate) const MAX_BYTES: usize = 5;

/// The tier [`unpack`] uses; chosen by measurement (see the module docs of
/// [`simd`]).
pub const DEFAULT_BACKEND: Backend = Backend::Simd;

/// Why unpacking stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum VarintErrorKind {
    /// The input ended inside an int (after a byte with the extend bit).
    #[error("input ends inside an int")]
    UnexpectedEnd,
    /// The output buffer is full but input remains.
    #[error("more ints than fit in the output buffer")]
    OutputFull,
}

crate::kind::kind_names!(VarintErrorKind {
    UnexpectedEnd => "unexpected_end",
    OutputFull => "output_full",
});

/// An unpacking error: what, and the input offset of the int concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("varint: {kind} (int at input byte {offset})")]
pub struct VarintError {
    pub kind: VarintErrorKind,
    pub offset: usize,
}

/// A non-fatal oddity in an int that still decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum VarintWarningKind {
    /// More bytes than the value needs (the last byte is zero).
    Overlong,
    /// The padding bits of a 5th byte are not zero.
    NonZeroPadding,
}

crate::kind::kind_names!(VarintWarningKind {
    Overlong => "overlong",
    NonZeroPadding => "non_zero_padding",
});

/// A warning with the input offset of the int concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VarintWarning {
    pub kind: VarintWarningKind,
    pub offset: usize,
}

/// Unpacks all ints of `input` into `out`, returning how many were written.
///
/// Warnings go to the caller's sink `warnings` in input order. On error the
/// ints and warnings before the failing int have been written/reported;
/// `out` beyond them is unspecified.
#[inline]
pub fn unpack(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    unpacker(DEFAULT_BACKEND)(input, out, warnings)
}

/// A varint unpacker: [`unpack`]'s contract.
pub type UnpackFn =
    fn(&[u8], &mut [i32], &mut dyn Warn<VarintWarning>) -> Result<usize, VarintError>;

/// The unpacker of the tier `backend` selects (`Simd`: the kernel chosen
/// for this CPU, [`simd::Kernel::chosen`]); resolved once by
/// [`crate::codec::kernels::Kernels`].
pub fn unpacker(backend: Backend) -> UnpackFn {
    match backend {
        Backend::Oracle => oracle::unpack,
        Backend::Scalar => scalar::unpack,
        Backend::Simd => simd::Kernel::chosen().entry(),
    }
}

/// Appends the minimal encoding of `value` to `out`.
pub fn pack_int(value: i32, out: &mut Vec<u8>) {
    let sign = if value < 0 { 0x40 } else { 0 };
    // Flip negative values so the magnitude bits are what we store.
    let mut rest = (value ^ (value >> 31)) as u32;
    let mut byte = sign | (rest & 0x3f) as u8;
    rest >>= 6;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
}

/// Appends the minimal encoding of every int of `values` to `out`.
pub fn pack(values: &[i32], out: &mut Vec<u8>) {
    out.reserve(values.len());
    for &v in values {
        pack_int(v, out);
    }
}

/// Decodes a one-byte int (extend bit clear).
#[inline(always)]
pub(crate) fn one_byte(b: u8) -> i32 {
    i32::from(b & 0x3f) ^ -i32::from(b >> 6 & 1)
}

/// Decodes the int at the start of `bytes` the reference way: value, length
/// and at most one warning kind; `None` if `bytes` ends inside it.
#[inline(always)]
pub(crate) fn read_int(bytes: &[u8]) -> Option<(i32, usize, Option<VarintWarningKind>)> {
    let first = *bytes.first()?;
    let sign = -i32::from(first >> 6 & 1);
    let mut value = i32::from(first & 0x3f);
    let mut last = first;
    let mut len = 1;
    while last & 0x80 != 0 && len < MAX_BYTES {
        last = *bytes.get(len)?;
        value |= i32::from(last & 0x7f).wrapping_shl(6 + 7 * (len as u32 - 1));
        len += 1;
    }
    let warning = if len == MAX_BYTES && last & 0xf0 != 0 {
        Some(VarintWarningKind::NonZeroPadding)
    } else if len > 1 && last == 0 {
        Some(VarintWarningKind::Overlong)
    } else {
        None
    };
    Some((value ^ sign, len, warning))
}
