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
//! snapshot deltas) costs one lookup and unconditional 8-byte stores:
//!
//! ```text
//! byte 0      bits used by all symbols (the shift amount, as in libdeflate:
//!             `bitbuf >>= entry & 63` is a single shift)
//! bytes 1..=6 the symbols (unused bytes zero); stored as `entry >> 8`
//! byte 7      low nibble: count of symbols (0 = see below),
//!             high nibble: bits of the first symbol
//! ```
//!
//! A run may go on past the 6 stored symbols with 0x00 symbols only (up to
//! [`MAX_COUNT`]): a second 8-byte store of zeros at offset 6 writes them
//! (and clears the byte-7 metadata that the first store left there).
//!
//! A count of 0 means the first code is longer than [`LUT_BITS`] (or is
//! EOF): bytes 1..3 then hold the start of a second-level table of
//! 2^[`SUB_BITS`] `u16` entries indexed by the next bits, each holding a
//! symbol (low 9 bits, EOF = 256) and how many more bits it uses (bits
//! 12..16). No code needs a bit-by-bit walk. EOF never joins a run, so a run
//! never needs an end-of-stream check.
//!
//! Tried and dropped (slower): keeping the refill off the lookup chain by
//! taking the next index before ORing in new bytes (needs a larger bit
//! reserve, so fewer entries per refill).
//!
//! The last input bytes (fewer than 8 left to load) are decoded by the same
//! tables, taking a whole run only when all its bits are real input bits and
//! the output has room for the 8-byte store, else one symbol.

use std::sync::OnceLock;

use super::tree::{Tree, EOF, MAX_CODE_LEN};
use super::{HuffmanError, HuffmanErrorKind};

/// Bits per table index (13 bits = a 64 KiB table).
///
/// Measured as user cycles per output byte (`perf stat`, x86-64 baseline,
/// shared 2-core AMD EPYC), all demo payloads / 16 MiB generated stream:
/// 11 bits 4.6 / –, 12 bits 3.7–4.1 / 7.5, 13 bits 3.6–4.0 / 6.3,
/// 14 bits 3.6–4.1 / – (noisy). Real payloads do not care between 12 and
/// 13; higher-entropy data gains from fewer long codes.
pub const LUT_BITS: u32 = 13;
const LUT_SIZE: usize = 1 << LUT_BITS;
const LUT_MASK: u64 = LUT_SIZE as u64 - 1;
/// Most arbitrary symbols one entry decodes.
pub const MAX_RUN: usize = 6;
/// Most symbols one entry decodes: [`MAX_RUN`] arbitrary ones, then only
/// 0x00 (written by a second, all-zero 8-byte store).
pub const MAX_COUNT: usize = MAX_RUN + 8;
/// Entries always decoded per refill: each uses at most `MAX_CODE_LEN` bits
/// and a refill leaves at least 56. A fourth follows if its bits are there.
const ENTRIES_PER_REFILL: usize = 3;
/// Output window of one fast-loop iteration: [`ENTRIES_PER_REFILL`] + 1
/// entries, each advancing by at most 15 (the count nibble) and storing
/// `MAX_COUNT` bytes (two overlapping 8-byte stores).
const WINDOW: usize = (ENTRIES_PER_REFILL + 1) * 15 + MAX_COUNT;

const _: () = assert!(LUT_BITS <= 15 && MAX_CODE_LEN <= 15 && MAX_COUNT <= 15);
const _: () = assert!(ENTRIES_PER_REFILL as u32 * MAX_CODE_LEN <= 56);

/// Bits per second-level index: enough for the longest code.
pub const SUB_BITS: u32 = MAX_CODE_LEN - LUT_BITS;
const SUB_SIZE: usize = 1 << SUB_BITS;
const SUB_MASK: u64 = SUB_SIZE as u64 - 1;

struct Tables {
    lut: Box<[u64; LUT_SIZE]>,
    sub: Vec<u16>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables::build(Tree::reference()))
}

impl Tables {
    fn build(tree: &Tree) -> Tables {
        let mut sub = Vec::new();
        let lut: Vec<u64> = (0..LUT_SIZE as u64)
            .map(|i| match entry(tree, i) {
                Entry::Run(e) => e,
                Entry::Long { node, used } => {
                    let base = sub.len();
                    sub.extend((0..SUB_SIZE as u64).map(|j| sub_entry(tree, node, j)));
                    u64::from(base as u16) << 8 | u64::from(used)
                }
            })
            .collect();
        let lut = match lut.into_boxed_slice().try_into() {
            Ok(lut) => lut,
            Err(_) => unreachable!("the table has LUT_SIZE entries"),
        };
        Tables { lut, sub }
    }
}

/// Finishes the code at `node` with the bits of `index`: symbol | extra << 12.
fn sub_entry(tree: &Tree, mut node: u16, index: u64) -> u16 {
    let mut extra = 0;
    while !Tree::is_leaf(node) {
        node = tree.children[node as usize][(index >> extra & 1) as usize];
        extra += 1;
    }
    node | extra << 12
}

enum Entry {
    Run(u64),
    Long { node: u16, used: u32 },
}

/// The table entry for the bit pattern `index` (LSB = first bit).
fn entry(tree: &Tree, index: u64) -> Entry {
    let mut symbols = [0u8; MAX_RUN];
    let mut count = 0;
    let mut used = 0; // bits of complete symbols
    let mut first_len = 0;
    let mut pos = 0;
    while count < MAX_COUNT {
        let mut node = tree.root;
        while !Tree::is_leaf(node) {
            if pos == LUT_BITS {
                if count == 0 {
                    return Entry::Long { node, used: pos };
                }
                return Entry::Run(run_entry(&symbols, count, used, first_len));
            }
            node = tree.children[node as usize][(index >> pos & 1) as usize];
            pos += 1;
        }
        if node == EOF {
            if count == 0 {
                return Entry::Long { node, used: pos };
            }
            break;
        }
        if count < MAX_RUN {
            symbols[count] = node as u8;
        } else if node != 0 {
            // Past the stored symbols only 0x00 can follow (the zero store).
            break;
        }
        count += 1;
        used = pos;
        if count == 1 {
            first_len = pos;
        }
    }
    Entry::Run(run_entry(&symbols, count, used, first_len))
}

fn run_entry(symbols: &[u8; MAX_RUN], count: usize, used: u32, first_len: u32) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[0] = used as u8;
    bytes[1..=MAX_RUN].copy_from_slice(symbols);
    bytes[7] = (count as u32 | first_len << 4) as u8;
    u64::from_le_bytes(bytes)
}

#[inline(always)]
fn run_count(e: u64) -> usize {
    (e >> 56) as usize & 0xf
}

#[inline(always)]
fn run_bits(e: u64) -> u32 {
    e as u32 & 63
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

/// Finishes a long code through the second-level table (its first
/// `run_bits(e)` bits are already consumed), consuming the rest.
#[inline(always)]
fn long_symbol(sub: &[u16], e: u64, bitbuf: &mut u64, bitcount: &mut u32) -> u16 {
    let s = sub[((e >> 8) as u16) as usize + (*bitbuf & SUB_MASK) as usize];
    let extra = u32::from(s >> 12);
    *bitbuf >>= extra;
    *bitcount -= extra;
    s & 0x1ff
}

/// Decompresses `input` into `out`; see [`super::decompress`] for the contract.
///
/// Bytes of `out` after the returned length may have been overwritten.
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    let tables = tables();
    let lut = &*tables.lut;
    let sub = &tables.sub[..];
    let mut bitbuf: u64 = 0;
    let mut bitcount: u32 = 0;
    // Input bytes loaded into `bitbuf`, counting zero bytes past the end.
    let mut pos = 0usize;
    let mut n = 0usize;

    // Fast loop: every bit in the buffer is a real input bit, and each
    // iteration writes into a fixed-size window of the output, so the
    // stores need no bounds checks (run counts are at most 15, so 4 entries
    // stay below `4 * 15 + MAX_COUNT`).
    while let Some(word) = load_u64(input, pos) {
        let Some(Ok(window)) = out
            .get_mut(n..n + WINDOW)
            .map(<&mut [u8; WINDOW]>::try_from)
        else {
            break;
        };
        bitbuf |= word << bitcount;
        pos += ((63 - bitcount) >> 3) as usize;
        bitcount |= 56;
        let mut k = 0usize;
        // One table entry: a run of symbols, or a long code (maybe EOF).
        macro_rules! step {
            () => {{
                let e = lut[(bitbuf & LUT_MASK) as usize];
                let count = run_count(e);
                let used = run_bits(e);
                bitbuf >>= used;
                bitcount -= used;
                if count != 0 {
                    window[k..k + 8].copy_from_slice(&(e >> 8).to_le_bytes());
                    window[k + MAX_RUN..k + MAX_COUNT].copy_from_slice(&[0; 8]);
                    k += count;
                } else {
                    let node = long_symbol(sub, e, &mut bitbuf, &mut bitcount);
                    if node == EOF {
                        return Ok(n + k);
                    }
                    window[k] = node as u8;
                    k += 1;
                }
            }};
        }
        for _ in 0..ENTRIES_PER_REFILL {
            step!();
        }
        // Usually the bits for one more entry are left.
        if bitcount >= MAX_CODE_LEN {
            step!();
        }
        n += k;
    }

    // Tail: byte-wise refills, zero bytes past the end of the input; a run
    // only where all its bits are real and the 8-byte store fits.
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
        let count = run_count(e);
        let used = run_bits(e);
        if count != 0 && used as usize <= total_bits - start && n + MAX_COUNT <= out.len() {
            out[n..n + 8].copy_from_slice(&(e >> 8).to_le_bytes());
            out[n + MAX_RUN..n + MAX_COUNT].copy_from_slice(&[0; 8]);
            n += count;
            bitbuf >>= used;
            bitcount -= used;
            continue;
        }
        let symbol = if count != 0 {
            let used = first_bits(e);
            bitbuf >>= used;
            bitcount -= used;
            (e >> 8) as u8
        } else {
            bitbuf >>= used;
            bitcount -= used;
            let node = long_symbol(sub, e, &mut bitbuf, &mut bitcount);
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
