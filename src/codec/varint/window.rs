//! What the x86 window kernels (`avx2.rs`, `avx512.rs`) share: a
//! window's byte classes, the ends that need the exact reader, and the
//! exact reader for a range of ints.

use super::scalar::store_int_at;
use super::{VarintError, VarintErrorKind, VarintWarning};
use crate::warn::Warn;

/// A window's byte classes (bit `i` = byte `i`): extend bit set, zero, any
/// of the top four bits set.
#[derive(Clone, Copy)]
pub(super) struct Classes {
    pub extend: u64,
    pub zero: u64,
    pub high: u64,
}

/// Bytes of a window that may end an int the exact reader must take: a
/// zero after an extend byte (overlong), or a byte after four extend bytes
/// with any of its top four bits set (padding bits, or a 5th byte with an
/// extend bit, which the extend bits alone would misread). `before` are
/// the extend bits of the window before.
#[inline(always)]
pub(super) fn bad_ends(c: Classes, before: u64) -> u64 {
    let x = c.extend;
    let p1 = x << 1 | before >> 63;
    let p2 = x << 2 | before >> 62;
    let p3 = x << 3 | before >> 61;
    let p4 = x << 4 | before >> 60;
    (c.zero & p1) | (p1 & p2 & p3 & p4 & c.high)
}

/// The exact reader for the ints starting in `at..stop`; returns where the
/// next one starts. `n` counts the ints written.
#[cold]
#[inline(never)]
pub(super) fn exact(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
    mut at: usize,
    stop: usize,
    n: &mut usize,
) -> Result<usize, VarintError> {
    while at < stop {
        // The window loop leaves room for 64 ints, so this never fails for
        // the ints of one window.
        let Some(slot) = out.get_mut(*n) else {
            return Err(VarintError {
                kind: VarintErrorKind::OutputFull,
                offset: at,
            });
        };
        at += store_int_at(input, at, slot, warnings)?;
        *n += 1;
    }
    Ok(at)
}
