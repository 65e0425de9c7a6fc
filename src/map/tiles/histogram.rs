//! Tile histograms: counts of each id byte in a layer's tiles, over the
//! bytes or over the packed runs of tile skip data.

use super::skip::{SkipError, SkipErrorKind};
use super::TileFormat;

/// Counts of each id byte in a layer's tiles, and whether any padding byte
/// that should be zero is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileHistogram {
    pub counts: [u64; 256],
    pub padding_nonzero: bool,
}

impl Default for TileHistogram {
    fn default() -> Self {
        TileHistogram {
            counts: [0; 256],
            padding_nonzero: false,
        }
    }
}

impl TileHistogram {
    /// Total tiles counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
    /// Tiles whose id is not 0.
    pub fn non_empty(&self) -> u64 {
        self.total() - self.counts[0]
    }
}

/// Histogram of the id bytes of uncompressed tile data in format `fmt`
/// (trailing bytes short of a whole tile are ignored).
///
/// Most tiles of a layer are empty (id and padding zero), so the tiles go
/// in blocks of 16, each first checked for that with whole masked words
/// and then counted at once; a block with a non-empty tile is counted tile
/// by tile.
pub fn histogram(data: &[u8], fmt: TileFormat) -> TileHistogram {
    let ts = fmt.size;
    // u64 counters: a caller may raise the limits past 2^32 tiles.
    let mut sub = [[0u64; 256]; 4];
    let mut pad_or = 0u8;
    let mut rest = data;
    if let Some(mask) = empty_mask(fmt) {
        let mut blocks = data.chunks_exact(EMPTY_BLOCK_TILES * ts);
        for b in &mut blocks {
            let (words, _) = b.as_chunks::<8>();
            let any = words
                .iter()
                .zip(&mask)
                .fold(0, |acc, (&w, m)| acc | u64::from_le_bytes(w) & m);
            if any == 0 {
                sub[0][0] += EMPTY_BLOCK_TILES as u64;
            } else {
                count_tiles(b, fmt, &mut sub, &mut pad_or);
            }
        }
        rest = blocks.remainder();
    }
    count_tiles(rest, fmt, &mut sub, &mut pad_or);
    let mut h = TileHistogram::default();
    for (i, c) in h.counts.iter_mut().enumerate() {
        *c = sub.iter().map(|s| s[i]).sum();
    }
    h.padding_nonzero = pad_or != 0;
    h
}

/// Tiles per block of [`histogram`]'s empty check: a whole number of
/// 8-byte words for every tile size up to 8 bytes.
const EMPTY_BLOCK_TILES: usize = 16;

/// The masks of one block of [`EMPTY_BLOCK_TILES`] tiles in format `fmt`,
/// word by word (the first `2 * fmt.size` words): the id and padding bytes
/// of each tile set. `None` for a format whose tiles are empty or larger
/// than 8 bytes.
fn empty_mask(fmt: TileFormat) -> Option<[u64; 2 * 8]> {
    if fmt.size == 0 || fmt.size > 8 || fmt.id_offset >= fmt.size {
        return None;
    }
    let mut mask = [0u64; 2 * 8];
    for i in 0..EMPTY_BLOCK_TILES * fmt.size {
        let at = i % fmt.size;
        if at == fmt.id_offset || fmt.padding.contains(&at) {
            mask[i / 8] |= 0xff << (8 * (i % 8));
        }
    }
    Some(mask)
}

/// Counts the ids of the tiles of `data` into the four partial histograms
/// (one per tile of each group of four, so that runs of one id do not wait
/// on one counter), ORing the padding bytes into `pad_or`.
fn count_tiles(data: &[u8], fmt: TileFormat, sub: &mut [[u64; 256]; 4], pad_or: &mut u8) {
    let ts = fmt.size;
    let id = fmt.id_offset;
    let pads = fmt.padding;
    let mut chunks = data.chunks_exact(4 * ts);
    if ts == 4 && id == 0 && pads == [2, 3] {
        // Tiles/game/front: the hot case.
        for c in &mut chunks {
            sub[0][c[0] as usize] += 1;
            sub[1][c[4] as usize] += 1;
            sub[2][c[8] as usize] += 1;
            sub[3][c[12] as usize] += 1;
            *pad_or |= c[2] | c[3] | c[6] | c[7] | c[10] | c[11] | c[14] | c[15];
        }
    } else {
        for c in &mut chunks {
            for (k, h) in sub.iter_mut().enumerate() {
                h[c[k * ts + id] as usize] += 1;
                for &p in pads {
                    *pad_or |= c[k * ts + p];
                }
            }
        }
    }
    for t in chunks.remainder().chunks_exact(ts) {
        sub[0][t[id] as usize] += 1;
        for &p in pads {
            *pad_or |= t[p];
        }
    }
}

/// Histogram of tile skip data (4-byte tiles), each tile weighted by its
/// run length, checked to cover exactly `num_tiles`. Only the reserved byte
/// counts as padding.
pub fn histogram_skip(packed: &[u8], num_tiles: u64) -> Result<TileHistogram, SkipError> {
    if !packed.len().is_multiple_of(4) {
        return Err(SkipError {
            kind: SkipErrorKind::Misaligned,
            offset: packed.len() / 4 * 4,
        });
    }
    let mut h = TileHistogram::default();
    let mut pos = 0u64;
    let mut pad_or = 0u8;
    for (i, t) in packed.chunks_exact(4).enumerate() {
        let run = t[2] as u64 + 1;
        pos += run;
        if pos > num_tiles {
            return Err(SkipError {
                kind: SkipErrorKind::Overrun,
                offset: 4 * i,
            });
        }
        h.counts[t[0] as usize] += run;
        pad_or |= t[3];
    }
    if pos != num_tiles {
        return Err(SkipError {
            kind: SkipErrorKind::Short,
            offset: packed.len(),
        });
    }
    h.padding_nonzero = pad_or != 0;
    Ok(h)
}
