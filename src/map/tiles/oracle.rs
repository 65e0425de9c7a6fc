//! Plain reference versions: one tile at a time.

use super::{SkipError, SkipErrorKind, TileFormat, TileHistogram};

/// Expands tile skip data by pushing one tile per copy.
pub fn expand_tile_skip(packed: &[u8], num_tiles: usize) -> Result<Vec<u8>, SkipError> {
    if !packed.len().is_multiple_of(4) {
        return Err(SkipError {
            kind: SkipErrorKind::Misaligned,
            offset: packed.len() / 4 * 4,
        });
    }
    let mut out = Vec::new();
    let mut tiles = 0usize;
    for (i, t) in packed.chunks_exact(4).enumerate() {
        for _ in 0..=t[2] {
            if tiles == num_tiles {
                return Err(SkipError {
                    kind: SkipErrorKind::Overrun,
                    offset: 4 * i,
                });
            }
            out.extend_from_slice(&[t[0], t[1], 0, t[3]]);
            tiles += 1;
        }
    }
    if tiles != num_tiles {
        return Err(SkipError {
            kind: SkipErrorKind::Short,
            offset: packed.len(),
        });
    }
    Ok(out)
}

/// Counts ids tile by tile.
pub fn histogram(data: &[u8], fmt: TileFormat) -> TileHistogram {
    let mut h = TileHistogram::default();
    for t in data.chunks_exact(fmt.size) {
        h.counts[t[fmt.id_offset] as usize] += 1;
        if fmt.padding.iter().any(|&p| t[p] != 0) {
            h.padding_nonzero = true;
        }
    }
    h
}
