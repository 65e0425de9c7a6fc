//! Teeworlds Huffman coding (libtw2-doc `huffman.md`; DDNet
//! `src/engine/shared/huffman.cpp`).
//!
//! Network messages and demo chunk payloads are Huffman-coded bytes. The
//! code is fixed: it is built from a frequency table shipped with the game
//! (see [`tree`]), over 257 symbols, the 256 byte values plus EOF. A stream
//! is the codes of the bytes, then the code of EOF, packed LSB-first:
//!
//! ```text
//! bits in stream order   0123 4567 89ab cdef ...
//! bytes in the file      7654 3210 fedc ba98 ...
//!                        first byte  second byte
//! ```
//!
//! Quirks kept from the reference:
//! - The encoder always writes one final byte for the bits left over, so a
//!   stream whose bits end exactly on a byte boundary carries an extra `0x00`
//!   byte ([`compress`] reproduces it byte for byte).
//! - The decoder treats the input as followed by endless zero bits and stops
//!   only at EOF; bytes after EOF are ignored. Zero bits decode to `0x80`
//!   forever and never to EOF, so a stream that reaches the end of its bytes
//!   without EOF is an error ([`HuffmanErrorKind::MissingEof`]) — the
//!   reference reports it once its output buffer is full, we report it at the
//!   first symbol that starts past the end. A code that straddles the end is
//!   completed with zero bits, as in the reference.
//! - A decoded byte that does not fit in the caller's buffer is an error
//!   ([`HuffmanErrorKind::OutputFull`]); nothing is written past `out.len()`.
//!
//! (One more reference quirk is *not* reproduced: DDNet's decoder errs when
//! its unsigned bit count reaches exactly zero while walking a code longer
//! than its 10-bit lookup, which depends on how the end of input aligns
//! with its table; we always complete with zero bits.)
//!
//! Tiers: [`oracle::decompress`] walks the tree bit by bit;
//! [`fast::decompress`] uses a 64-bit bit reader and a multi-symbol table.
//! The fast tier is compiled twice: portable, and for BMI2 ([`Tier::Bmi2`],
//! shifts by a register without flags, which the bit reader does at every
//! table entry). [`decompress`] runs the fast tier chosen once per process
//! ([`Tier::chosen`]: BMI2 where
//! [`X86Level::active`](crate::backend::X86Level::active) is AVX2 or
//! higher); [`decompress_on`] forces a [`Tier`]. There is no SIMD tier:
//! [`Tier::for_backend`] maps a [`Backend`] to a tier.
//!
//! [`decompress_batch`] decodes several independent streams (consecutive
//! demo chunk payloads) at once, interleaving their table lookups so that
//! their dependency chains overlap; each result is exactly
//! [`fast::decompress`]'s. See [`batch`].

pub mod batch;
pub mod encode;
pub mod fast;
pub mod oracle;
pub mod tree;

use crate::backend::Backend;

pub use batch::{decompress_batch, decompress_batch_on};
pub use encode::{compress, compressed_len};

/// What went wrong while decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum HuffmanErrorKind {
    /// The input ended (and only zero padding followed) before EOF.
    #[error("input ended before the EOF symbol")]
    MissingEof,
    /// A decoded byte did not fit in the output buffer.
    #[error("decoded data does not fit in the output buffer")]
    OutputFull,
}

crate::kind::kind_names!(HuffmanErrorKind {
    MissingEof => "missing_eof",
    OutputFull => "output_full",
});

/// A decoding error with the input byte offset where it happened.
///
/// `offset` is the byte holding the first bit of the symbol that failed
/// ([`HuffmanErrorKind::OutputFull`]), or the input length
/// ([`HuffmanErrorKind::MissingEof`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("huffman: {kind} (input byte {offset})")]
pub struct HuffmanError {
    pub kind: HuffmanErrorKind,
    pub offset: usize,
}

crate::backend::kernel_family! {
    /// The Huffman decoder's tiers.
    pub enum Tier: "Huffman tier" {
        /// [`oracle::decompress`]: the tree, bit by bit.
        Oracle = ("oracle", Sse2, never),
        /// [`fast::decompress`]: the table decoder, portable.
        Portable = ("portable", Sse2, chosen),
        /// The table decoder compiled for BMI1 + BMI2 (x86-64 only).
        Bmi2 = ("bmi2", Avx2, chosen),
    }
}

/// A Huffman decoder: [`decompress`]'s contract.
pub type DecompressFn = fn(&[u8], &mut [u8]) -> Result<usize, HuffmanError>;

impl Tier {
    /// The tier a [`Backend`] means: the oracle, the portable table
    /// decoder for `Scalar`, the chosen fast tier for `Simd`.
    pub fn for_backend(backend: Backend) -> Tier {
        match backend {
            Backend::Oracle => Tier::Oracle,
            Backend::Scalar => Tier::Portable,
            Backend::Simd => Tier::chosen(),
        }
    }

    /// The tier's entry point. Only [`Tier::available`] tiers may be asked
    /// for (see [`Tier::forced`]).
    pub(crate) fn entry(self) -> DecompressFn {
        match self {
            Tier::Oracle => oracle::decompress,
            #[cfg(target_arch = "x86_64")]
            Tier::Bmi2 => decompress_bmi2,
            _ => fast::decompress,
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn decompress_bmi2(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    // SAFETY: this entry is only handed out for `Tier::Bmi2`, which
    // `Tier::chosen` and `Tier::forced` give only where the CPU has BMI1/2.
    unsafe { fast::decompress_bmi2(input, out) }
}

/// Decompresses `input` into `out` with the fast tier chosen for this
/// process and returns the number of bytes written.
///
/// Decoding stops at the EOF symbol; later bytes are ignored. Bytes of `out`
/// after the returned length are unspecified (the fast tier stores 8 bytes
/// at a time). Never writes past `out.len()`, never reads past `input`.
#[inline]
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    (Tier::chosen().entry())(input, out)
}

/// [`decompress`] with the tier `tier`, whatever was chosen.
///
/// # Panics
///
/// Where this CPU cannot run `tier` (see [`Tier::available`]).
pub fn decompress_on(tier: Tier, input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    (tier.forced().entry())(input, out)
}

#[cfg(test)]
mod tests {
    use super::tree::{Tree, MAX_CODE_LEN};
    use super::*;

    /// Compresses `plain` followed by enough filler for the fast loops to
    /// run at all, and checks that the oracle, the fast tier and the batch
    /// tier all decode it.
    fn decodes_in_every_tier(mut plain: Vec<u8>) {
        plain.extend(std::iter::repeat_n(0x42, 40));
        let mut input = Vec::new();
        encode::compress(&plain, &mut input);
        let mut out = vec![0; 256];
        let expected = Ok(plain.len());
        assert_eq!(oracle::decompress(&input, &mut out), expected);
        let mut out = vec![0; 256];
        assert_eq!(fast::decompress(&input, &mut out), expected);
        assert_eq!(out[..plain.len()], plain);
        let mut arena = vec![0; 3 * 256];
        let mut results = [Ok(0); 3];
        let inputs = [&input[..], &input[..], &input[..]];
        batch::decompress_batch(&inputs, &[256; 3], &mut arena, &mut results);
        assert_eq!(results, [expected; 3]);
        for out in arena.chunks(256) {
            assert_eq!(out[..plain.len()], plain);
        }
    }

    /// Two symbols whose codes together are exactly [`fast::LUT_BITS`]
    /// long (one table entry using every index bit), and a symbol with a
    /// code of [`MAX_CODE_LEN`] bits (a long code).
    fn full_pair_and_long_symbol() -> ([u8; 2], u8) {
        let codes = &Tree::reference().codes;
        let len = |s: usize| codes[s].len;
        let (a, b) = (1..256)
            .flat_map(|a| (1..256).map(move |b| (a, b)))
            .find(|&(a, b)| len(a) + len(b) == fast::LUT_BITS)
            .expect("two symbols fill an entry");
        let long = (0..256)
            .rev()
            .find(|&s| len(s) == MAX_CODE_LEN)
            .expect("a longest code");
        ([a as u8, b as u8], long as u8)
    }

    /// The first refill of a stream leaves exactly 56 valid bits; three
    /// entries of exactly [`fast::LUT_BITS`] bits leave fewer than a long
    /// code needs for the fourth entry, which must wait for the next
    /// refill.
    #[test]
    fn long_code_after_three_full_entries() {
        let (pair, long) = full_pair_and_long_symbol();
        let mut plain = pair.repeat(3);
        plain.push(long);
        decodes_in_every_tier(plain);
    }

    /// Three long codes after the first refill leave fewer than
    /// [`fast::LUT_BITS`] valid bits: no fourth entry in that iteration.
    #[test]
    fn full_entry_after_three_long_codes() {
        let (pair, long) = full_pair_and_long_symbol();
        let mut plain = vec![long; 3];
        plain.extend(pair.repeat(4));
        decodes_in_every_tier(plain);
    }

    #[test]
    fn every_table_entry_agrees_with_the_oracle() {
        // Each table index (a LUT_BITS-bit pattern) followed by EOF-free
        // bits: decode a little.
        for i in 0u32..1 << fast::LUT_BITS {
            let input = [(i & 0xff) as u8, (i >> 8) as u8, 0x5a, 0x3c];
            for limit in [0, 1, 3, 40] {
                let mut a = vec![0; limit];
                let mut b = vec![0; limit];
                let ra = oracle::decompress(&input, &mut a);
                let rb = fast::decompress(&input, &mut b);
                assert_eq!(ra, rb, "pattern {i:#x}, limit {limit}");
                if let Ok(n) = ra {
                    assert_eq!(a[..n], b[..n]);
                }
            }
        }
    }
}
