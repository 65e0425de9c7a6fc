//! Tile skip (tilemap version 4): packed runs of 4-byte tiles expanded to
//! `width × height` tiles, bounded before anything is allocated.

/// Why tile skip data does not expand to `width × height` tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SkipErrorKind {
    /// The packed data is not a whole number of 4-byte tiles.
    Misaligned,
    /// A run goes past the last tile.
    Overrun,
    /// The runs end before the last tile.
    Short,
}

crate::kind::kind_names!(SkipErrorKind {
    Misaligned => "misaligned",
    Overrun => "overrun",
    Short => "short",
});

/// A tile skip error with the byte offset in the packed data (for `Short`:
/// its length).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SkipError {
    pub kind: SkipErrorKind,
    pub offset: usize,
}

/// The most tiles `packed_len` bytes of tile skip data can expand to.
pub fn max_skip_tiles(packed_len: usize) -> u64 {
    (packed_len / 4) as u64 * 256
}

/// Expands tile skip data to exactly `num_tiles` 4-byte tiles in `out`
/// (skip bytes set to 0). Nothing is allocated unless the packed data can
/// cover `num_tiles`.
pub fn expand_tile_skip(
    packed: &[u8],
    num_tiles: usize,
    out: &mut Vec<u8>,
) -> Result<(), SkipError> {
    out.clear();
    if !packed.len().is_multiple_of(4) {
        return Err(SkipError {
            kind: SkipErrorKind::Misaligned,
            offset: packed.len() / 4 * 4,
        });
    }
    if num_tiles as u64 > max_skip_tiles(packed.len()) {
        // Cannot be covered: find where it ends without expanding.
        return match skip_total(packed, num_tiles as u64) {
            Err(e) => Err(e),
            Ok(_) => Err(SkipError {
                kind: SkipErrorKind::Short,
                offset: packed.len(),
            }),
        };
    }
    out.resize(num_tiles * 4, 0);
    let mut pos = 0usize;
    for (i, t) in packed.chunks_exact(4).enumerate() {
        let run = t[2] as usize + 1;
        let end = pos + run;
        if end > num_tiles {
            out.clear();
            return Err(SkipError {
                kind: SkipErrorKind::Overrun,
                offset: 4 * i,
            });
        }
        let tile = [t[0], t[1], 0, t[3]];
        for dst in out[pos * 4..end * 4].chunks_exact_mut(4) {
            dst.copy_from_slice(&tile);
        }
        pos = end;
    }
    if pos != num_tiles {
        out.clear();
        return Err(SkipError {
            kind: SkipErrorKind::Short,
            offset: packed.len(),
        });
    }
    Ok(())
}

/// Checks that runs cover exactly `num_tiles`; returns the covered count.
fn skip_total(packed: &[u8], num_tiles: u64) -> Result<u64, SkipError> {
    let mut pos = 0u64;
    for (i, t) in packed.chunks_exact(4).enumerate() {
        pos += t[2] as u64 + 1;
        if pos > num_tiles {
            return Err(SkipError {
                kind: SkipErrorKind::Overrun,
                offset: 4 * i,
            });
        }
    }
    Ok(pos)
}
