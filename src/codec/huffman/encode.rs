//! The encoder, byte-identical to the reference.
//!
//! Codes are appended LSB-first to a bit accumulator, EOF is appended, and
//! the remaining bits are flushed. Like the reference (`CHuffman::Compress`),
//! the final byte is always written, even when it holds no bits: a stream
//! whose bits end on a byte boundary gets an extra `0x00` byte.

use super::tree::{Tree, EOF};

/// Appends the compressed form of `input` to `out`.
pub fn compress(input: &[u8], out: &mut Vec<u8>) {
    let codes = &Tree::reference().codes;
    out.reserve(input.len() + input.len() / 2 + 4);
    let mut acc: u64 = 0;
    let mut count: u32 = 0;
    let symbols = input.iter().map(|&b| usize::from(b)).chain([EOF as usize]);
    for symbol in symbols {
        let code = codes[symbol];
        acc |= u64::from(code.bits) << count;
        count += code.len;
        if count >= 32 {
            out.extend_from_slice(&(acc as u32).to_le_bytes());
            acc >>= 32;
            count -= 32;
        }
    }
    while count >= 8 {
        out.push(acc as u8);
        acc >>= 8;
        count -= 8;
    }
    // The reference writes this byte unconditionally.
    out.push(acc as u8);
}

/// The number of bytes [`compress`] produces for `input`.
pub fn compressed_len(input: &[u8]) -> usize {
    let codes = &Tree::reference().codes;
    let bits: usize = input
        .iter()
        .map(|&b| codes[usize::from(b)].len as usize)
        .sum::<usize>()
        + codes[EOF as usize].len as usize;
    bits / 8 + 1
}
