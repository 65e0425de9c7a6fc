//! The `wide` SIMD tier: 16-byte blocks of one-byte ints.
//!
//! A block is loaded as `i8x16`; its extend bits are the lane sign bits
//! (`to_bitmask`). All 16 lanes are decoded as one-byte ints
//! (`(b & 0x3f) ^ (b & 0x40 == 0x40 ? -1 : 0)`), widened to `i32x16` and
//! stored; if no extend bit is set the block is done, else the lanes before
//! the first extend bit stay and the multi-byte int there is decoded by the
//! scalar word decoder. The rest (fewer than 16 bytes or output slots) is
//! the scalar tier's.
//!
//! Measured (x86-64 SSE2 baseline, shared 2-core AMD EPYC, `perf stat`
//! user cycles over all demo payloads): simd 2.43 cycles/byte, scalar 2.58,
//! oracle 5.32; on the generated 16 MiB set (15 % multi-byte ints) simd
//! also led in criterion. So `Simd` is [`super::DEFAULT_BACKEND`].
//! A branch-free variant of both fast tiers (always decoding the int after
//! the singles, kept only if there was one) was faster on the generated set
//! but about a third slower on real demo payloads, and was dropped.

use wide::{i16x16, i32x16, i8x16};

use super::scalar::{store_int_at, unpack_from};
use super::{VarintError, VarintWarning};

#[inline(always)]
fn load_block(input: &[u8], pos: usize) -> Option<i8x16> {
    let bytes: [u8; 16] = input.get(pos..pos.checked_add(16)?)?.try_into().ok()?;
    Some(i8x16::new(bytes.map(|b| b as i8)))
}

/// Unpacks `input` into `out`; see [`super::unpack`] for the contract.
pub fn unpack(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut Vec<VarintWarning>,
) -> Result<usize, VarintError> {
    let mut pos = 0;
    let mut n = 0;
    let low6 = i8x16::splat(0x3f);
    let sign_bit = i8x16::splat(0x40);
    while n + 16 <= out.len() {
        let Some(block) = load_block(input, pos) else {
            break;
        };
        let flip = (block & sign_bit).simd_eq(sign_bit);
        let values = (block & low6) ^ flip;
        let wide = i32x16::from_i16x16(i16x16::from_i8x16(values));
        out[n..n + 16].copy_from_slice(&wide.to_array());
        let extend = block.to_bitmask();
        if extend == 0 {
            pos += 16;
            n += 16;
            continue;
        }
        let singles = extend.trailing_zeros() as usize;
        pos += singles;
        n += singles;
        pos += store_int_at(input, pos, &mut out[n], warnings)?;
        n += 1;
    }
    unpack_from(input, out, warnings, pos, n)
}
