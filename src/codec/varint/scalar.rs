//! The fast scalar tier: 8-byte words.
//!
//! A word whose 8 extend bits are all clear is 8 one-byte ints; otherwise
//! the one-byte ints before the first extend bit are stored (all 8 lanes are
//! computed and stored, the count decides how many stay), and the multi-byte
//! int that follows is decoded from a single 8-byte load without per-byte
//! branches. The last < 8 bytes go through the byte-by-byte reader.

use super::{one_byte, read_int, VarintError, VarintErrorKind, VarintWarning, VarintWarningKind};
use crate::warn::Warn;

const EXTEND_BITS: u64 = 0x8080_8080_8080_8080;

#[inline(always)]
pub(crate) fn load_u64(input: &[u8], pos: usize) -> Option<u64> {
    let bytes: [u8; 8] = input.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(bytes))
}

/// Decodes the int starting at byte 0 of `word` (8 input bytes, LE).
///
/// Same value, length and warning as [`super::read_int`] on those bytes.
#[inline(always)]
pub(crate) fn int_from_word(word: u64) -> (i32, usize, Option<VarintWarningKind>) {
    // The first byte among 0..4 without the extend bit ends the int; the 5th
    // byte always does.
    let ends = !word & 0x0000_0000_8080_8080;
    let len = if ends == 0 {
        5
    } else {
        (ends.trailing_zeros() / 8 + 1) as usize
    };
    let all = (word & 0x3f)
        | (word >> 8 & 0x7f) << 6
        | (word >> 16 & 0x7f) << 13
        | (word >> 24 & 0x7f) << 20
        | (word >> 32 & 0x7f) << 27;
    let bits = 6 + 7 * (len as u32 - 1);
    let value = (all & ((1u64 << bits) - 1)) as u32 as i32;
    let sign = -((word >> 6 & 1) as i32);
    let last = (word >> (8 * (len - 1))) as u8;
    let warning = if len == 5 && last & 0xf0 != 0 {
        Some(VarintWarningKind::NonZeroPadding)
    } else if len > 1 && last == 0 {
        Some(VarintWarningKind::Overlong)
    } else {
        None
    };
    (value ^ sign, len, warning)
}

/// Decodes the int at `pos` into `slot`, reporting its warning; returns its
/// length in bytes. The slow path of the scalar and SIMD tiers.
#[inline(always)]
pub(crate) fn store_int_at(
    input: &[u8],
    pos: usize,
    slot: &mut i32,
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    let Some((value, len, warning)) = int_at(input, pos) else {
        return Err(VarintError {
            kind: VarintErrorKind::UnexpectedEnd,
            offset: pos,
        });
    };
    if let Some(kind) = warning {
        warnings.warn(VarintWarning { kind, offset: pos });
    }
    *slot = value;
    Ok(len)
}

/// The int at `pos`: from one load where 8 bytes remain, else byte by byte.
#[inline(always)]
pub(crate) fn int_at(input: &[u8], pos: usize) -> Option<(i32, usize, Option<VarintWarningKind>)> {
    match load_u64(input, pos) {
        Some(word) => Some(int_from_word(word)),
        None => read_int(input.get(pos..)?),
    }
}

/// Unpacks `input` into `out`; see [`super::unpack`] for the contract.
pub fn unpack(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    unpack_from(input, out, warnings, 0, 0)
}

/// Continues unpacking at input byte `pos` and output index `n`.
#[inline(always)]
pub(crate) fn unpack_from(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
    mut pos: usize,
    mut n: usize,
) -> Result<usize, VarintError> {
    while n + 8 <= out.len() {
        let Some(word) = load_u64(input, pos) else {
            break;
        };
        let dst = &mut out[n..n + 8];
        for (i, d) in dst.iter_mut().enumerate() {
            *d = one_byte((word >> (8 * i)) as u8);
        }
        let extend = word & EXTEND_BITS;
        if extend == 0 {
            pos += 8;
            n += 8;
            continue;
        }
        let singles = (extend.trailing_zeros() / 8) as usize;
        pos += singles;
        n += singles;
        // `n < out.len()` still: at most 7 singles were added.
        pos += store_int_at(input, pos, &mut out[n], warnings)?;
        n += 1;
    }
    tail(input, out, warnings, pos, n)
}

/// One int at a time to the end.
pub(crate) fn tail(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
    mut pos: usize,
    mut n: usize,
) -> Result<usize, VarintError> {
    while pos < input.len() {
        let Some(slot) = out.get_mut(n) else {
            return Err(VarintError {
                kind: VarintErrorKind::OutputFull,
                offset: pos,
            });
        };
        pos += store_int_at(input, pos, slot, warnings)?;
        n += 1;
    }
    Ok(n)
}
