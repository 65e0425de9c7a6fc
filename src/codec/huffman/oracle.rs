//! The reference tier: one bit at a time through the tree.
//!
//! Slow and obviously correct; the fast tier is tested against it.

use super::tree::{Tree, EOF};
use super::{HuffmanError, HuffmanErrorKind};

/// Bit `pos` of the LSB-first stream, zero past the end of `input`.
fn bit_at(input: &[u8], pos: usize) -> usize {
    input
        .get(pos / 8)
        .map_or(0, |b| usize::from(b >> (pos % 8) & 1))
}

/// Decompresses `input` into `out`, returning the number of bytes written.
///
/// Same contract as [`super::decompress`].
pub fn decompress(input: &[u8], out: &mut [u8]) -> Result<usize, HuffmanError> {
    let tree = Tree::reference();
    let total_bits = input.len() * 8;
    let mut pos = 0;
    let mut written = 0;
    loop {
        // Past the end only zero bits remain; they decode to 0x80 forever and
        // never to EOF, so the stream cannot end well.
        if pos >= total_bits {
            return Err(HuffmanError {
                kind: HuffmanErrorKind::MissingEof,
                offset: input.len(),
            });
        }
        let start = pos;
        let mut node = tree.root;
        while !Tree::is_leaf(node) {
            node = tree.children[node as usize][bit_at(input, pos)];
            pos += 1;
        }
        if node == EOF {
            return Ok(written);
        }
        match out.get_mut(written) {
            Some(slot) => *slot = node as u8,
            None => {
                return Err(HuffmanError {
                    kind: HuffmanErrorKind::OutputFull,
                    offset: start / 8,
                })
            }
        }
        written += 1;
    }
}
