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
//! byte 7      bit 7: a long code (see below; a sign test), bits 3..=6:
//!             count of symbols (`entry >> 59` is a single shift)
//! ```
//!
//! A run may go on past the 6 stored symbols with 0x00 symbols only (up to
//! [`MAX_COUNT`]): a second 8-byte store of zeros at offset 6 writes them
//! (and clears the byte-7 metadata that the first store left there).
//!
//! A long entry (bit 63 set) means the first code is longer than
//! [`LUT_BITS`] (or is EOF): bytes 1..3 then hold the start of a
//! second-level table of 2^[`SUB_BITS`] entries indexed by the bits after
//! the first `entry & 63`. These are entries of the same layout for the
//! whole code: a one-symbol run, or EOF (bit 63 set). So after the rare
//! second lookup a long code goes down the same path as a run, and the
//! common path has no branch but the (not taken) long-code test. No code
//! needs a bit-by-bit walk. EOF never joins a run, so a run never needs an
//! end-of-stream check.
//!
//! Tried and dropped (slower): keeping the refill off the lookup chain by
//! taking the next index before ORing in new bytes (needs a larger bit
//! reserve, so fewer entries per refill).
//!
//! The last input bytes (fewer than 8 left to load) are decoded by the same
//! tables, taking a whole run only when all its bits are real input bits and
//! the output has room for the 8-byte store, else one symbol.
//!
//! The state between entries is a `Cursor`, from which either loop can
//! go on: the batch decoder (`super::batch`) runs the same entries for
//! several streams at once and finishes each with the same tail.

use std::sync::OnceLock;

use super::tree::{Tree, EOF, MAX_CODE_LEN};
use super::{HuffmanError, HuffmanErrorKind};

/// Bits per table index (14 bits = a 128 KiB table).
///
/// Of the widths the entry layout allows (`LUT_BITS <= 15`), 14 bits
/// decodes a demo with the fewest user cycles (`perf stat` over the shared
/// demos and 200 generated ones): fewer table lookups and long codes than
/// 12 or 13 bits, while 15 bits gains nothing and needs a check before
/// every fourth entry. Timed too (full decode of the real demos at the
/// AVX2 cap, Zen 4 EPYC, best of 200 passes, three interleaved runs): 13
/// bits (64 KiB) 1 % slower, 12 bits (32 KiB, the size of L1d) 12 %
/// slower: the extra lookups cost more than the L2 latency they save.
pub const LUT_BITS: u32 = 14;
pub(super) const LUT_SIZE: usize = 1 << LUT_BITS;
const LUT_MASK: u64 = LUT_SIZE as u64 - 1;
/// Most arbitrary symbols one entry decodes.
pub const MAX_RUN: usize = 6;
/// Most symbols one entry decodes: [`MAX_RUN`] arbitrary ones, then only
/// 0x00 (written by a second, all-zero 8-byte store).
pub const MAX_COUNT: usize = MAX_RUN + 8;
/// Entries always decoded per refill: each uses at most `MAX_CODE_LEN` bits
/// and a refill leaves at least 56. A fourth follows where at least
/// `LUT_BITS` bits are left (always after three runs, which use at most
/// `LUT_BITS` each); a long code there waits for the next refill where
/// fewer than `MAX_CODE_LEN` bits are left (see `long_entry_cold`).
pub(super) const ENTRIES_PER_REFILL: usize = 3;
/// Output window of one fast-loop iteration: [`ENTRIES_PER_REFILL`] + 1
/// entries, each advancing by at most 15 (the count nibble) and storing
/// `MAX_COUNT` bytes (two overlapping 8-byte stores).
pub(super) const WINDOW: usize = (ENTRIES_PER_REFILL + 1) * 15 + MAX_COUNT;

const _: () = assert!(LUT_BITS <= 15 && MAX_CODE_LEN <= 15 && MAX_COUNT <= 15);
const _: () = assert!(ENTRIES_PER_REFILL as u32 * MAX_CODE_LEN <= 56);
// The fourth entry after three runs: four runs of at most `LUT_BITS`.
const _: () = assert!((ENTRIES_PER_REFILL as u32 + 1) * LUT_BITS <= 56);

/// Bits per second-level index: enough for the longest code.
pub const SUB_BITS: u32 = MAX_CODE_LEN - LUT_BITS;
const SUB_SIZE: usize = 1 << SUB_BITS;
const SUB_MASK: u64 = SUB_SIZE as u64 - 1;

struct Tables {
    lut: Box<[u64; LUT_SIZE]>,
    sub: Vec<u64>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| Tables::build(Tree::reference()))
}

impl Tables {
    /// The tables of `tree`, walking each bit pattern's prefix once
    /// ([`Fill`]); [`Tables::build_by_entries`] is the plain reference.
    fn build(tree: &Tree) -> Tables {
        let mut fill = Fill {
            tree,
            entries: vec![Entry::Run(0); LUT_SIZE],
        };
        fill.walk(0, 0, tree.root, [0; MAX_RUN], 0, 0);
        Tables::assemble(tree, &fill.entries)
    }

    /// The tables of `tree`, each entry decoded on its own by [`entry`]
    /// (the reference for [`Tables::build`]).
    #[cfg(test)]
    fn build_by_entries(tree: &Tree) -> Tables {
        let entries: Vec<Entry> = (0..LUT_SIZE as u64).map(|i| entry(tree, i)).collect();
        Tables::assemble(tree, &entries)
    }

    /// The tables from one entry per bit pattern: a long code (a code still
    /// open after `LUT_BITS` bits, or EOF) gets a second-level block of its
    /// own, in index order.
    fn assemble(tree: &Tree, entries: &[Entry]) -> Tables {
        let mut sub = Vec::new();
        let lut: Vec<u64> = entries
            .iter()
            .map(|&e| match e {
                Entry::Run(e) => e,
                Entry::Long { node, used } => {
                    let base = sub.len();
                    sub.extend((0..SUB_SIZE as u64).map(|j| sub_entry(tree, node, used, j)));
                    LONG | u64::from(base as u16) << 8 | u64::from(used)
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

/// The first-level table filled by walking the tree along the bit
/// patterns: patterns that share their first bits share the decoding of
/// them, and an entry that does not depend on the bits after `pos` is
/// stored at every pattern with those bits. The same entries as [`entry`]
/// for each pattern, in about 2^15 steps instead of 2^14 × 14.
struct Fill<'t> {
    tree: &'t Tree,
    entries: Vec<Entry>,
}

impl Fill<'_> {
    /// Decodes on from `node` after the `pos` low bits `prefix`, with
    /// `count` symbols (`symbols`) complete after `used` bits.
    fn walk(
        &mut self,
        prefix: usize,
        pos: u32,
        mut node: u16,
        mut symbols: [u8; MAX_RUN],
        mut count: usize,
        mut used: u32,
    ) {
        loop {
            if !Tree::is_leaf(node) {
                if pos == LUT_BITS {
                    self.entries[prefix] = if count == 0 {
                        Entry::Long { node, used: pos }
                    } else {
                        Entry::Run(run_entry(&symbols, count, used))
                    };
                    return;
                }
                for bit in 0..2 {
                    let child = self.tree.children[node as usize][bit];
                    self.walk(prefix | bit << pos, pos + 1, child, symbols, count, used);
                }
                return;
            }
            if node == EOF {
                let e = if count == 0 {
                    Entry::Long { node, used: pos }
                } else {
                    Entry::Run(run_entry(&symbols, count, used))
                };
                self.set_all(prefix, pos, e);
                return;
            }
            if count < MAX_RUN {
                symbols[count] = node as u8;
            } else if node != 0 {
                // Past the stored symbols only 0x00 can follow.
                self.set_all(prefix, pos, Entry::Run(run_entry(&symbols, count, used)));
                return;
            }
            count += 1;
            used = pos;
            if count == MAX_COUNT {
                self.set_all(prefix, pos, Entry::Run(run_entry(&symbols, count, used)));
                return;
            }
            node = self.tree.root;
        }
    }

    /// Stores `e` at every pattern whose `pos` low bits are `prefix`.
    fn set_all(&mut self, prefix: usize, pos: u32, e: Entry) {
        for high in 0..1usize << (LUT_BITS - pos) {
            self.entries[prefix | high << pos] = e;
        }
    }
}

/// Finishes the code at `node`, reached after `used` bits, with the bits of
/// `index`: a one-symbol run entry for the whole code, or for EOF an entry
/// with a count of 0 and the code's length in byte 0.
fn sub_entry(tree: &Tree, mut node: u16, used: u32, index: u64) -> u64 {
    let mut extra = 0;
    while !Tree::is_leaf(node) {
        node = tree.children[node as usize][(index >> extra & 1) as usize];
        extra += 1;
    }
    let len = used + extra;
    if node == EOF {
        return LONG | u64::from(len);
    }
    let mut symbols = [0; MAX_RUN];
    symbols[0] = node as u8;
    run_entry(&symbols, 1, len)
}

/// A first-level table entry before the second-level blocks are laid out.
#[derive(Clone, Copy)]
enum Entry {
    Run(u64),
    Long { node: u16, used: u32 },
}

/// The table entry for the bit pattern `index` (LSB = first bit).
#[cfg(test)]
fn entry(tree: &Tree, index: u64) -> Entry {
    let mut symbols = [0u8; MAX_RUN];
    let mut count = 0;
    let mut used = 0; // bits of complete symbols
    let mut pos = 0;
    while count < MAX_COUNT {
        let mut node = tree.root;
        while !Tree::is_leaf(node) {
            if pos == LUT_BITS {
                if count == 0 {
                    return Entry::Long { node, used: pos };
                }
                return Entry::Run(run_entry(&symbols, count, used));
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
    }
    Entry::Run(run_entry(&symbols, count, used))
}

fn run_entry(symbols: &[u8; MAX_RUN], count: usize, used: u32) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[0] = used as u8;
    bytes[1..=MAX_RUN].copy_from_slice(symbols);
    bytes[7] = (count as u8) << 3;
    u64::from_le_bytes(bytes)
}

/// Bit 63 of an entry: a long code (or, in the second-level table, EOF).
const LONG: u64 = 1 << 63;

/// Whether `e` is a long code (or, in the second-level table, EOF): a sign
/// test.
#[inline(always)]
fn is_long(e: u64) -> bool {
    (e as i64) < 0
}

/// Symbols in the run entry `e` (not [`is_long`]).
#[inline(always)]
fn run_count(e: u64) -> usize {
    (e >> 59) as usize
}

#[inline(always)]
fn run_bits(e: u64) -> u32 {
    e as u32 & 63
}

/// The second-level entry for the long entry `e` (count 0) at the start of
/// `bitbuf`: a one-symbol run entry for the whole code, or, where the code
/// is EOF, an entry with a count of 0 (and the code length in byte 0).
#[inline(always)]
fn long_entry(sub: &[u64], e: u64, bitbuf: u64) -> u64 {
    sub[((e >> 8) as u16) as usize + (bitbuf >> run_bits(e) & SUB_MASK) as usize]
}

/// [`long_entry`] out of line for the fast loop, where `bitcount` (low
/// byte) bits are valid: long codes are rare (about 1 % of entries on real
/// demos), and keeping them off the hot path lets it fall through.
///
/// Only an iteration's fourth entry can have fewer valid bits than a long
/// code needs (after three runs of up to `LUT_BITS`); it then gets an
/// entry of no symbols and no bits, which leaves the code to the next
/// iteration.
#[cold]
#[inline(never)]
fn long_entry_cold(sub: &[u64], e: u64, bitbuf: u64, bitcount: u32) -> u64 {
    if (bitcount as u8) < MAX_CODE_LEN as u8 {
        return 0;
    }
    long_entry(sub, e, bitbuf)
}

/// One stream part-way through decoding: the bit reader and the output
/// position. Any state the fast loop leaves between entries is a valid
/// place to resume from, with [`Cursor::refill`] or [`Cursor::finish`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Cursor {
    /// Valid bits, LSB = next; bits above the valid ones are zero or the
    /// true next bits.
    pub(super) bitbuf: u64,
    /// The number of valid bits is the low byte. The fast loop subtracts
    /// whole table entries, whose low byte is the bits they use (as
    /// libdeflate does), which leaves garbage in the higher bits.
    pub(super) bitcount: u32,
    /// Input bytes loaded into `bitbuf`, counting zero bytes past the end.
    pub(super) pos: usize,
    /// Output bytes written.
    pub(super) n: usize,
}

impl Cursor {
    /// Starts one fast-loop iteration: ORs the next 8 input bytes into the
    /// bit buffer (at least 56 valid bits after) and returns the output
    /// window at `n`. `None`, with the cursor unchanged, where fewer than 8
    /// input bytes are left at `pos` or fewer than [`WINDOW`] output bytes
    /// at `n`: the stream then goes on with [`Cursor::finish`].
    #[inline(always)]
    pub(super) fn refill<'o>(
        &mut self,
        input: &[u8],
        out: &'o mut [u8],
    ) -> Option<&'o mut [u8; WINDOW]> {
        let word = u64::from_le_bytes(*input.get(self.pos..)?.first_chunk::<8>()?);
        let window = out.get_mut(self.n..)?.first_chunk_mut::<WINDOW>()?;
        let bitcount = u32::from(self.bitcount as u8);
        self.bitbuf |= word << bitcount;
        self.pos += ((63 - bitcount) >> 3) as usize;
        self.bitcount = bitcount | 56;
        Some(window)
    }

    /// Decodes the rest of the stream with the tail loop: byte-wise
    /// refills, zero bytes past the end of the input; a run only where all
    /// its bits are real and the 8-byte store fits.
    #[inline(never)]
    pub(super) fn finish(self, input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
        let tables = tables();
        let lut = &*tables.lut;
        let sub = &tables.sub[..];
        let codes = &Tree::reference().codes;
        let Cursor {
            mut bitbuf,
            bitcount,
            mut pos,
            mut n,
        } = self;
        let mut bitcount = u32::from(bitcount as u8);
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
            let used = run_bits(e);
            if !is_long(e) && used as usize <= total_bits - start && n + MAX_COUNT <= out.len() {
                out[n..n + 8].copy_from_slice(&(e >> 8).to_le_bytes());
                out[n + MAX_RUN..n + MAX_COUNT].copy_from_slice(&[0; 8]);
                n += run_count(e);
                bitbuf >>= used;
                bitcount -= used;
                continue;
            }
            // One symbol: the first of the run, or a long code.
            let (used, symbol) = if !is_long(e) {
                let symbol = (e >> 8) as u8;
                (codes[usize::from(symbol)].len, symbol)
            } else {
                let e = long_entry(sub, e, bitbuf);
                if is_long(e) {
                    return Ok(n); // EOF
                }
                (run_bits(e), (e >> 8) as u8)
            };
            bitbuf >>= used;
            bitcount -= used;
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
}

/// Decodes one table entry in the fast loop: a run of symbols stored at
/// `window[*k..]` (advancing `*k`). A long code goes through the
/// second-level table; where it is EOF, nothing is consumed and the result
/// is `true`. A long code with fewer than [`MAX_CODE_LEN`] valid bits is
/// left for the next refill (nothing is consumed or advanced, the result is
/// `false`).
///
/// The caller guarantees at least [`LUT_BITS`] valid bits and room for the
/// stores: `*k <= WINDOW - MAX_COUNT`.
#[inline(always)]
pub(super) fn fast_entry(
    lut: &[u64; LUT_SIZE],
    sub: &[u64],
    bitbuf: &mut u64,
    bitcount: &mut u32,
    window: &mut [u8; WINDOW],
    k: &mut usize,
) -> bool {
    let mut e = lut[(*bitbuf & LUT_MASK) as usize];
    if is_long(e) {
        e = long_entry_cold(sub, e, *bitbuf, *bitcount);
        if is_long(e) {
            return true;
        }
    }
    // Only the shift and the stores differ between entries: no branches
    // in the common path.
    *bitbuf >>= run_bits(e);
    *bitcount = bitcount.wrapping_sub(e as u32);
    window[*k..*k + 8].copy_from_slice(&(e >> 8).to_le_bytes());
    window[*k + MAX_RUN..*k + MAX_COUNT].copy_from_slice(&[0; 8]);
    *k += run_count(e);
    false
}

/// Decodes one fast-loop iteration's entries after [`Cursor::refill`]:
/// [`ENTRIES_PER_REFILL`], then one more where [`LUT_BITS`] valid bits are
/// left (long codes may have used them up). Returns `true` at EOF. `cur.n`
/// is advanced past the output in either case.
#[inline(always)]
pub(super) fn fast_iteration(
    lut: &[u64; LUT_SIZE],
    sub: &[u64],
    cur: &mut Cursor,
    window: &mut [u8; WINDOW],
) -> bool {
    let mut k = 0usize;
    let Cursor {
        bitbuf, bitcount, ..
    } = cur;
    let eof = 'entries: {
        for _ in 0..ENTRIES_PER_REFILL {
            if fast_entry(lut, sub, bitbuf, bitcount, window, &mut k) {
                break 'entries true;
            }
        }
        *bitcount as u8 >= LUT_BITS as u8 && fast_entry(lut, sub, bitbuf, bitcount, window, &mut k)
    };
    cur.n += k;
    eof
}

/// The shared tables.
#[inline]
pub(super) fn lut_and_sub() -> (&'static [u64; LUT_SIZE], &'static [u64]) {
    let tables = tables();
    (&tables.lut, &tables.sub)
}

/// Decompresses `input` into `out`; see [`super::decompress`] for the contract.
///
/// Bytes of `out` after the returned length may have been overwritten.
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    decompress_body(input, out)
}

/// [`decompress`] compiled for BMI2 (`shlx`/`shrx` shifts by a register,
/// no flags), the [`super::Tier::Bmi2`] kernel.
///
/// # Safety
///
/// The CPU must have BMI1 and BMI2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
pub(super) unsafe fn decompress_bmi2(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    decompress_body(input, out)
}

#[inline(always)]
fn decompress_body(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    let (lut, sub) = lut_and_sub();
    let mut cur = Cursor::default();
    // Fast loop: every bit in the buffer is a real input bit, and each
    // iteration writes into a fixed-size window of the output, so the
    // stores need no bounds checks (run counts are at most 15, so 4 entries
    // stay below `4 * 15 + MAX_COUNT`).
    while let Some(window) = cur.refill(input, out) {
        if fast_iteration(lut, sub, &mut cur, window) {
            return Ok(cur.n);
        }
    }
    cur.finish(input, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk fills the tables exactly as decoding each pattern alone.
    #[test]
    fn walked_tables_equal_the_entry_by_entry_tables() {
        let tree = Tree::reference();
        let (walked, reference) = (Tables::build(tree), Tables::build_by_entries(tree));
        assert_eq!(walked.lut[..], reference.lut[..]);
        assert_eq!(walked.sub, reference.sub);
        assert!(!walked.sub.is_empty());
    }
}
