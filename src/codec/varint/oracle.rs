//! The reference tier: one int at a time, one byte at a time.

use super::{read_int, VarintError, VarintErrorKind, VarintWarning};
use crate::warn::Warn;

/// Unpacks `input` into `out`; see [`super::unpack`] for the contract.
pub fn unpack(
    input: &[u8],
    out: &mut [i32],
    warnings: &mut dyn Warn<VarintWarning>,
) -> Result<usize, VarintError> {
    let mut pos = 0;
    let mut n = 0;
    while pos < input.len() {
        let error = |kind| VarintError { kind, offset: pos };
        let Some(slot) = out.get_mut(n) else {
            return Err(error(VarintErrorKind::OutputFull));
        };
        let Some((value, len, warning)) = read_int(&input[pos..]) else {
            return Err(error(VarintErrorKind::UnexpectedEnd));
        };
        if let Some(kind) = warning {
            warnings.warn(VarintWarning { kind, offset: pos });
        }
        *slot = value;
        n += 1;
        pos += len;
    }
    Ok(n)
}
