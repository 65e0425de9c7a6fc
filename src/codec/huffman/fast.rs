//! The fast tier: a 64-bit bit reader and a multi-symbol lookup table.
//!
//! The bit reader is the libdeflate design: `bitbuf` holds `bitcount` valid
//! bits (LSB = next bit); a refill ORs in the next 8 input bytes at once and
//! advances the input by as many whole bytes as fit, leaving 56..=63 valid
//! bits. Bits above `bitcount` are either zero or the true next bits, so
//! re-ORing them later is harmless. Only the last < 8 input bytes go through
//! a byte-at-a-time refill, which then supplies zero bytes past the end.
//!
//! The table is indexed by the next [`LUT_BITS`] bits. An entry (a `u64`,
//! little-endian bytes) holds up to [`MAX_RUN`] whole symbols that those bits
//! begin with, so a run of short codes (0x00 is the 1-bit code and dominates
//! snapshot deltas) costs one lookup and one unconditional 8-byte store:
//!
//! ```text
//! byte 0..6   the symbols (unused bytes zero)
//! byte 6      count of symbols (0 = see below)
//! byte 7      low nibble: bits used by all symbols, high nibble: bits of the first
//! ```
//!
//! A count of 0 means the first code is longer than [`LUT_BITS`] or is EOF:
//! bytes 0..2 then hold the tree node reached after the bits used, and the
//! decoder walks the tree from there bit by bit (at most 4 more steps).
//! EOF never joins a run, so a run never needs an end-of-stream check.

use std::sync::OnceLock;

use super::tree::{Tree, EOF, MAX_CODE_LEN};
use super::{HuffmanError, HuffmanErrorKind};

/// Bits per table index.
pub const LUT_BITS: u32 = 11;
const LUT_SIZE: usize = 1 << LUT_BITS;
const LUT_MASK: u64 = LUT_SIZE as u64 - 1;
/// Most symbols one entry decodes.
pub const MAX_RUN: usize = 6;
/// Entries decoded per refill: each uses at most `MAX_CODE_LEN` bits and a
/// refill leaves at least 56.
const ENTRIES_PER_REFILL: usize = 3;
/// Output room the fast loop needs for [`ENTRIES_PER_REFILL`] unchecked
/// 8-byte stores, each advancing by at most [`MAX_RUN`].
const FAST_OUT_ROOM: usize = (ENTRIES_PER_REFILL - 1) * MAX_RUN + 8;

const _: () = assert!(LUT_BITS <= 15 && MAX_CODE_LEN <= 15);
const _: () = assert!(ENTRIES_PER_REFILL as u32 * MAX_CODE_LEN <= 56);

struct Tables {
    lut: Box<[u64; LUT_SIZE]>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables::build(Tree::reference()))
}

impl Tables {
    fn build(tree: &Tree) -> Tables {
        let lut: Vec<u64> = (0..LUT_SIZE as u64).map(|i| entry(tree, i)).collect();
        let lut = match lut.into_boxed_slice().try_into() {
            Ok(lut) => lut,
            Err(_) => unreachable!("the table has LUT_SIZE entries"),
        };
        Tables { lut }
    }
}

/// The table entry for the bit pattern `index` (LSB = first bit).
fn entry(tree: &Tree, index: u64) -> u64 {
    let mut symbols = [0u8; MAX_RUN];
    let mut count = 0;
    let mut used = 0; // bits of complete symbols
    let mut first_len = 0;
    let mut pos = 0;
    while count < MAX_RUN {
        let mut node = tree.root;
        while !Tree::is_leaf(node) {
            if pos == LUT_BITS {
                if count == 0 {
                    return long_entry(node, pos);
                }
                return run_entry(&symbols, count, used, first_len);
            }
            node = tree.children[node as usize][(index >> pos & 1) as usize];
            pos += 1;
        }
        if node == EOF {
            if count == 0 {
                return long_entry(node, pos);
            }
            break;
        }
        symbols[count] = node as u8;
        count += 1;
        used = pos;
        if count == 1 {
            first_len = pos;
        }
    }
    run_entry(&symbols, count, used, first_len)
}

fn run_entry(symbols: &[u8; MAX_RUN], count: usize, used: u32, first_len: u32) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..MAX_RUN].copy_from_slice(symbols);
    bytes[6] = count as u8;
    bytes[7] = (used | first_len << 4) as u8;
    u64::from_le_bytes(bytes)
}

fn long_entry(node: u16, used: u32) -> u64 {
    u64::from(node) | u64::from(used) << 56
}

#[inline(always)]
fn run_count(e: u64) -> usize {
    (e >> 48) as u8 as usize
}

#[inline(always)]
fn run_bits(e: u64) -> u32 {
    (e >> 56) as u32 & 0xf
}

#[inline(always)]
fn first_bits(e: u64) -> u32 {
    (e >> 60) as u32
}

#[inline(always)]
fn load_u64(input: &[u8], pos: usize) -> Option<u64> {
    let bytes: [u8; 8] = input.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(bytes))
}

/// Walks the tree from `node` with the bits in `bitbuf`, consuming them.
#[inline(always)]
fn walk(tree: &Tree, mut node: u16, bitbuf: &mut u64, bitcount: &mut u32) -> u16 {
    while !Tree::is_leaf(node) {
        node = tree.children[node as usize][(*bitbuf & 1) as usize];
        *bitbuf >>= 1;
        *bitcount -= 1;
    }
    node
}

/// Decompresses `input` into `out`; see [`super::decompress`] for the contract.
///
/// Bytes of `out` after the returned length may have been overwritten.
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    let tables = tables();
    let lut = &*tables.lut;
    let tree = Tree::reference();
    let mut bitbuf: u64 = 0;
    let mut bitcount: u32 = 0;
    // Input bytes loaded into `bitbuf`, counting zero bytes past the end.
    let mut pos = 0usize;
    let mut n = 0usize;

    // Fast loop: every bit in the buffer is a real input bit, and there is
    // room for unchecked stores.
    while n + FAST_OUT_ROOM <= out.len() {
        let Some(word) = load_u64(input, pos) else {
            break;
        };
        bitbuf |= word << bitcount;
        pos += ((63 - bitcount) >> 3) as usize;
        bitcount |= 56;
        for _ in 0..ENTRIES_PER_REFILL {
            let e = lut[(bitbuf & LUT_MASK) as usize];
            let count = run_count(e);
            let used = run_bits(e);
            bitbuf >>= used;
            bitcount -= used;
            if count != 0 {
                out[n..n + 8].copy_from_slice(&e.to_le_bytes());
                n += count;
            } else {
                let node = walk(tree, e as u16, &mut bitbuf, &mut bitcount);
                if node == EOF {
                    return Ok(n);
                }
                out[n] = node as u8;
                n += 1;
            }
        }
    }

    // Tail: one symbol at a time, zero bytes past the end of the input.
    let total_bits = input.len() * 8;
    loop {
        while bitcount <= 56 {
            let byte = input.get(pos).copied().unwrap_or(0);
            bitbuf |= u64::from(byte) << bitcount;
            pos += 1;
            bitcount += 8;
        }
        let start = pos * 8 - bitcount as usize;
        if start >= total_bits {
            return Err(HuffmanError {
                kind: HuffmanErrorKind::MissingEof,
                offset: input.len(),
            });
        }
        let e = lut[(bitbuf & LUT_MASK) as usize];
        let symbol = if run_count(e) != 0 {
            let used = first_bits(e);
            bitbuf >>= used;
            bitcount -= used;
            e as u8
        } else {
            let used = run_bits(e);
            bitbuf >>= used;
            bitcount -= used;
            let node = walk(tree, e as u16, &mut bitbuf, &mut bitcount);
            if node == EOF {
                return Ok(n);
            }
            node as u8
        };
        match out.get_mut(n) {
            Some(slot) => *slot = symbol,
            None => {
                return Err(HuffmanError {
                    kind: HuffmanErrorKind::OutputFull,
                    offset: start / 8,
                })
            }
        }
        n += 1;
    }
}
