//! Tile data: the per-layer tile structs, tile skip expansion and the tile
//! histograms the statistics are derived from.
//!
//! Tile data is a row-major `width × height` array of fixed-size tiles
//! (`mapitems.h`; libtw2 `map.md`):
//!
//! ```text
//! layer            bytes  fields
//! tiles/game/front 4      id, flags, skip, reserved
//! tele             2      number, id
//! speedup          6      force, max_speed, id, (padding), angle: i16 LE
//! switch           4      number, id, flags, delay
//! tune             2      number, id
//! ```
//!
//! **Tile skip** (tilemap version ≥ 4, Teeworlds 0.7): the main tile data is
//! a list of 4-byte tiles where `skip` says how many copies of the tile
//! follow it. Expanding it must give exactly `width × height` tiles (with
//! `skip` reset to 0). Each packed tile covers at most 256 tiles, which bounds
//! the expansion before anything is allocated.
//!
//! Counting works on histograms of the id byte: one tight pass over the bytes
//! (four sub-histograms to keep increments independent), or over the packed
//! runs weighted by `skip + 1` without expanding at all. [`oracle`] holds the
//! plain one-tile-at-a-time versions the tests compare against.

use crate::backend::Backend;
use serde::Serialize;

/// Which physics (or plain tiles) layer a tile layer is, from its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhysicsKind {
    Tiles,
    Game,
    Front,
    Tele,
    Speedup,
    Switch,
    Tune,
}

/// Tile layer flag bits (`TILESLAYERFLAG_*`).
pub const FLAG_GAME: i32 = 1;
pub const FLAG_TELE: i32 = 2;
pub const FLAG_SPEEDUP: i32 = 4;
pub const FLAG_FRONT: i32 = 8;
pub const FLAG_SWITCH: i32 = 16;
pub const FLAG_TUNE: i32 = 32;

impl PhysicsKind {
    /// The special (non-plain) kinds in a fixed order.
    pub const PHYSICS: [PhysicsKind; 6] = [
        PhysicsKind::Game,
        PhysicsKind::Front,
        PhysicsKind::Tele,
        PhysicsKind::Speedup,
        PhysicsKind::Switch,
        PhysicsKind::Tune,
    ];

    /// Bytes per tile.
    pub fn tile_size(self) -> usize {
        match self {
            PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front | PhysicsKind::Switch => 4,
            PhysicsKind::Tele | PhysicsKind::Tune => 2,
            PhysicsKind::Speedup => 6,
        }
    }

    /// Offset of the tile id ("type") byte within a tile.
    pub fn id_offset(self) -> usize {
        match self {
            PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front => 0,
            PhysicsKind::Tele | PhysicsKind::Tune | PhysicsKind::Switch => 1,
            PhysicsKind::Speedup => 2,
        }
    }

    /// Offsets of the bytes that must be zero in uncompressed data (skip and
    /// reserved of 4-byte tiles, the speedup padding byte).
    pub fn padding_offsets(self) -> &'static [usize] {
        match self {
            PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front => &[2, 3],
            PhysicsKind::Speedup => &[3],
            PhysicsKind::Tele | PhysicsKind::Tune | PhysicsKind::Switch => &[],
        }
    }

    /// The flag bit of this kind (0 for plain tiles).
    pub fn flag(self) -> i32 {
        match self {
            PhysicsKind::Tiles => 0,
            PhysicsKind::Game => FLAG_GAME,
            PhysicsKind::Front => FLAG_FRONT,
            PhysicsKind::Tele => FLAG_TELE,
            PhysicsKind::Speedup => FLAG_SPEEDUP,
            PhysicsKind::Switch => FLAG_SWITCH,
            PhysicsKind::Tune => FLAG_TUNE,
        }
    }

    /// The kind for tile layer `flags`, and whether the flags are odd (more
    /// than one physics bit, or unknown bits). With several bits the first in
    /// DDNet's check order (game, tele, speedup, front, switch, tune) wins.
    pub fn from_flags(flags: i32) -> (PhysicsKind, bool) {
        const ORDER: [PhysicsKind; 6] = [
            PhysicsKind::Game,
            PhysicsKind::Tele,
            PhysicsKind::Speedup,
            PhysicsKind::Front,
            PhysicsKind::Switch,
            PhysicsKind::Tune,
        ];
        let known = 0x3f;
        let odd = flags & !known != 0 || (flags & known).count_ones() > 1;
        let kind = ORDER
            .iter()
            .copied()
            .find(|k| flags & k.flag() != 0)
            .unwrap_or(PhysicsKind::Tiles);
        (kind, odd)
    }

    pub fn name(self) -> &'static str {
        match self {
            PhysicsKind::Tiles => "tiles",
            PhysicsKind::Game => "game",
            PhysicsKind::Front => "front",
            PhysicsKind::Tele => "tele",
            PhysicsKind::Speedup => "speedup",
            PhysicsKind::Switch => "switch",
            PhysicsKind::Tune => "tune",
        }
    }
}

/// The byte layout of one layer's tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileFormat {
    /// Bytes per tile.
    pub size: usize,
    /// Offset of the id ("type") byte.
    pub id_offset: usize,
    /// Offsets of bytes that must be zero.
    pub padding: &'static [usize],
}

impl TileFormat {
    /// Early DDRace speedup tiles (before `max_speed`): force, id, angle: i16.
    pub const LEGACY_SPEEDUP: TileFormat = TileFormat {
        size: 4,
        id_offset: 1,
        padding: &[],
    };
    /// Early DDRace switch tiles (before flags and delay): number, id.
    pub const LEGACY_SWITCH: TileFormat = TileFormat {
        size: 2,
        id_offset: 1,
        padding: &[],
    };
}

impl PhysicsKind {
    /// The current tile layout of this kind.
    pub fn format(self) -> TileFormat {
        TileFormat {
            size: self.tile_size(),
            id_offset: self.id_offset(),
            padding: self.padding_offsets(),
        }
    }

    /// The layout of tile data of `stored_bytes` for `num_tiles` tiles:
    /// the current one, or the early DDRace speedup/switch layouts.
    pub fn format_for_size(self, num_tiles: u64, stored_bytes: u64) -> Option<TileFormat> {
        let fits = |f: TileFormat| num_tiles.checked_mul(f.size as u64) == Some(stored_bytes);
        [self.format()]
            .into_iter()
            .chain(match self {
                PhysicsKind::Speedup => Some(TileFormat::LEGACY_SPEEDUP),
                PhysicsKind::Switch => Some(TileFormat::LEGACY_SWITCH),
                _ => None,
            })
            .find(|&f| fits(f))
    }
}

/// Converts tiles of `kind` stored in format `from` to the current layout
/// (a copy when `from` already is it).
pub fn upgrade_legacy(bytes: &[u8], kind: PhysicsKind, from: TileFormat) -> Vec<u8> {
    if from == kind.format() {
        bytes.to_vec()
    } else if kind == PhysicsKind::Speedup && from == TileFormat::LEGACY_SPEEDUP {
        bytes
            .chunks_exact(4)
            .flat_map(|t| [t[0], 0, t[1], 0, t[2], t[3]])
            .collect()
    } else if kind == PhysicsKind::Switch && from == TileFormat::LEGACY_SWITCH {
        bytes
            .chunks_exact(2)
            .flat_map(|t| [t[0], t[1], 0, 0])
            .collect()
    } else {
        bytes.to_vec()
    }
}

/// A 4-byte tile of tiles, game and front layers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tile {
    pub id: u8,
    pub flags: u8,
    pub skip: u8,
    pub reserved: u8,
}

/// A tele layer tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TeleTile {
    pub number: u8,
    pub id: u8,
}

/// A speedup layer tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpeedupTile {
    pub force: u8,
    pub max_speed: u8,
    pub id: u8,
    pub padding: u8,
    pub angle: i16,
}

/// A switch layer tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SwitchTile {
    pub number: u8,
    pub id: u8,
    pub flags: u8,
    pub delay: u8,
}

/// A tune layer tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TuneTile {
    pub number: u8,
    pub id: u8,
}

impl Tile {
    pub fn from_bytes(b: [u8; 4]) -> Self {
        Tile {
            id: b[0],
            flags: b[1],
            skip: b[2],
            reserved: b[3],
        }
    }
    pub fn to_bytes(self) -> [u8; 4] {
        [self.id, self.flags, self.skip, self.reserved]
    }
}
impl TeleTile {
    pub fn from_bytes(b: [u8; 2]) -> Self {
        TeleTile {
            number: b[0],
            id: b[1],
        }
    }
    pub fn to_bytes(self) -> [u8; 2] {
        [self.number, self.id]
    }
}
impl SpeedupTile {
    pub fn from_bytes(b: [u8; 6]) -> Self {
        SpeedupTile {
            force: b[0],
            max_speed: b[1],
            id: b[2],
            padding: b[3],
            angle: i16::from_le_bytes([b[4], b[5]]),
        }
    }
    pub fn to_bytes(self) -> [u8; 6] {
        let a = self.angle.to_le_bytes();
        [
            self.force,
            self.max_speed,
            self.id,
            self.padding,
            a[0],
            a[1],
        ]
    }
}
impl SwitchTile {
    pub fn from_bytes(b: [u8; 4]) -> Self {
        SwitchTile {
            number: b[0],
            id: b[1],
            flags: b[2],
            delay: b[3],
        }
    }
    pub fn to_bytes(self) -> [u8; 4] {
        [self.number, self.id, self.flags, self.delay]
    }
}
impl TuneTile {
    pub fn from_bytes(b: [u8; 2]) -> Self {
        TuneTile {
            number: b[0],
            id: b[1],
        }
    }
    pub fn to_bytes(self) -> [u8; 2] {
        [self.number, self.id]
    }
}

/// Why tile skip data does not expand to `width × height` tiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// [`histogram`] of the chosen tier. There is no SIMD tier: a histogram's
/// scattered increments do not vectorise, and inflating dominates anyway.
pub fn histogram_with(backend: Backend, data: &[u8], fmt: TileFormat) -> TileHistogram {
    match backend {
        Backend::Oracle => oracle::histogram(data, fmt),
        Backend::Scalar | Backend::Simd => histogram(data, fmt),
    }
}

/// [`expand_tile_skip`] of the chosen tier.
pub fn expand_tile_skip_with(
    backend: Backend,
    packed: &[u8],
    num_tiles: usize,
    out: &mut Vec<u8>,
) -> Result<(), SkipError> {
    match backend {
        Backend::Oracle => {
            *out = oracle::expand_tile_skip(packed, num_tiles)?;
            Ok(())
        }
        Backend::Scalar | Backend::Simd => expand_tile_skip(packed, num_tiles, out),
    }
}

/// Plain reference versions: one tile at a time.
pub mod oracle {
    use super::*;

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn skip_literals() {
        let mut out = Vec::new();
        // Tile 5 (flags 1) repeated 3 times, then tile 0 once.
        let packed = [5, 1, 2, 0, 0, 0, 0, 0];
        expand_tile_skip(&packed, 4, &mut out).unwrap();
        assert_eq!(out, [5, 1, 0, 0, 5, 1, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            expand_tile_skip(&packed, 3, &mut out),
            Err(SkipError {
                kind: SkipErrorKind::Overrun,
                offset: 4
            })
        );
        assert_eq!(
            expand_tile_skip(&packed, 5, &mut out),
            Err(SkipError {
                kind: SkipErrorKind::Short,
                offset: 8
            })
        );
        assert_eq!(
            expand_tile_skip(&packed[..7], 4, &mut out)
                .unwrap_err()
                .kind,
            SkipErrorKind::Misaligned
        );
        // Skip 255 covers 256 tiles.
        expand_tile_skip(&[1, 0, 255, 0], 256, &mut out).unwrap();
        assert_eq!(out.len(), 1024);
        assert!(out.chunks(4).all(|t| t == [1, 0, 0, 0]));
        // A hostile tile count is refused before allocating.
        let e = expand_tile_skip(&[1, 0, 255, 0], 1 << 40, &mut Vec::new()).unwrap_err();
        assert_eq!(e.kind, SkipErrorKind::Short);
        let h = histogram_skip(&packed, 4).unwrap();
        assert_eq!((h.counts[5], h.counts[0], h.total()), (3, 1, 4));
    }

    #[test]
    fn kinds_from_flags() {
        assert_eq!(PhysicsKind::from_flags(0), (PhysicsKind::Tiles, false));
        assert_eq!(PhysicsKind::from_flags(1), (PhysicsKind::Game, false));
        assert_eq!(PhysicsKind::from_flags(8), (PhysicsKind::Front, false));
        assert_eq!(PhysicsKind::from_flags(32), (PhysicsKind::Tune, false));
        assert_eq!(PhysicsKind::from_flags(9), (PhysicsKind::Game, true));
        assert_eq!(PhysicsKind::from_flags(64), (PhysicsKind::Tiles, true));
    }

    #[test]
    fn legacy_formats() {
        let f = PhysicsKind::Speedup.format_for_size(10, 40);
        assert_eq!(f, Some(TileFormat::LEGACY_SPEEDUP));
        assert_eq!(
            PhysicsKind::Speedup.format_for_size(10, 60),
            Some(PhysicsKind::Speedup.format())
        );
        assert_eq!(
            PhysicsKind::Switch.format_for_size(10, 20),
            Some(TileFormat::LEGACY_SWITCH)
        );
        assert_eq!(PhysicsKind::Game.format_for_size(10, 20), None);
        assert_eq!(PhysicsKind::Game.format_for_size(u64::MAX, 20), None);
        assert_eq!(
            upgrade_legacy(
                &[5, 28, 0x10, 0x00],
                PhysicsKind::Speedup,
                TileFormat::LEGACY_SPEEDUP
            ),
            vec![5, 0, 28, 0, 0x10, 0x00]
        );
        assert_eq!(
            upgrade_legacy(&[3, 24], PhysicsKind::Switch, TileFormat::LEGACY_SWITCH),
            vec![3, 24, 0, 0]
        );
        // Tele tiles share the legacy switch layout but stay as they are.
        let tele = PhysicsKind::Tele.format();
        assert_eq!(
            upgrade_legacy(&[3, 26], PhysicsKind::Tele, tele),
            vec![3, 26]
        );
    }

    #[test]
    fn speedup_tile_bytes() {
        let t = SpeedupTile::from_bytes([10, 20, 28, 0, 0x5a, 0xff]);
        assert_eq!((t.force, t.max_speed, t.id, t.angle), (10, 20, 28, -166));
        assert_eq!(t.to_bytes(), [10, 20, 28, 0, 0x5a, 0xff]);
    }

    fn kind_strategy() -> impl Strategy<Value = TileFormat> {
        prop::sample::select(vec![
            PhysicsKind::Tiles.format(),
            PhysicsKind::Tele.format(),
            PhysicsKind::Speedup.format(),
            PhysicsKind::Switch.format(),
            TileFormat::LEGACY_SPEEDUP,
            TileFormat::LEGACY_SWITCH,
        ])
    }

    proptest! {
        #[test]
        fn histogram_matches_oracle(data in prop::collection::vec(prop_oneof![Just(0u8), any::<u8>()], 0..600), kind in kind_strategy()) {
            prop_assert_eq!(histogram(&data, kind), oracle::histogram(&data, kind));
            for b in Backend::ALL {
                prop_assert_eq!(histogram_with(b, &data, kind), oracle::histogram(&data, kind));
            }
        }

        /// Layers as real ones are: long runs of empty tiles (id and
        /// padding zero, any flags) between a few others, so the 16-tile
        /// empty check sees both outcomes and every offset of a non-empty
        /// tile or padding byte.
        #[test]
        fn histogram_of_mostly_empty_layers_matches_oracle(
            len in 0usize..700,
            set in prop::collection::vec((0usize..700, any::<u8>()), 0..6),
            flags in any::<u8>(),
            kind in kind_strategy(),
        ) {
            let mut data: Vec<u8> = (0..len).map(|i| if i % 4 == 1 { flags } else { 0 }).collect();
            for (at, v) in set {
                if at < len {
                    data[at] = v;
                }
            }
            prop_assert_eq!(histogram(&data, kind), oracle::histogram(&data, kind));
        }

        #[test]
        fn histogram_every_tail(kind in kind_strategy(), seed in any::<u8>()) {
            for len in 0..=64usize {
                let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(seed) & 0x7).collect();
                prop_assert_eq!(histogram(&data, kind), oracle::histogram(&data, kind));
            }
        }

        #[test]
        fn skip_every_tail(seed in any::<u8>(), delta in -2i64..2) {
            for len in 0..=64usize {
                let bytes: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(seed) % 5).collect();
                let total: i64 = bytes.chunks_exact(4).map(|t| t[2] as i64 + 1).sum();
                let n = (total + delta).max(0) as usize;
                let mut out = Vec::new();
                let fast = expand_tile_skip(&bytes, n, &mut out).map(|_| out.clone());
                prop_assert_eq!(fast, oracle::expand_tile_skip(&bytes, n), "len {}", len);
            }
        }

        #[test]
        fn skip_matches_oracle(packed in prop::collection::vec((0u8..4, any::<u8>(), prop_oneof![Just(0u8), 0u8..4, any::<u8>()], prop_oneof![Just(0u8), any::<u8>()]), 0..40), extra in 0usize..3, delta in -3i64..3) {
            let bytes: Vec<u8> = packed.iter().flat_map(|&(a, b, c, d)| [a, b, c, d]).collect();
            let bytes = &bytes[..bytes.len().saturating_sub(extra % 4)];
            let total: i64 = bytes.chunks_exact(4).map(|t| t[2] as i64 + 1).sum();
            let n = (total + delta).max(0) as usize;
            let mut out = Vec::new();
            let fast = expand_tile_skip(bytes, n, &mut out).map(|_| out.clone());
            let slow = oracle::expand_tile_skip(bytes, n);
            prop_assert_eq!(&fast, &slow);
            for b in Backend::ALL {
                let mut o = Vec::new();
                let r = expand_tile_skip_with(b, bytes, n, &mut o).map(|_| o);
                prop_assert_eq!(&r, &slow);
            }
            let h = histogram_skip(bytes, n as u64);
            match (&slow, h) {
                (Ok(expanded), Ok(h)) => {
                    let mut o = oracle::histogram(expanded, PhysicsKind::Game.format());
                    // Skip bytes are reset by expansion; only reserved bytes count.
                    o.padding_nonzero = expanded.chunks(4).any(|t| t[3] != 0);
                    prop_assert_eq!(h, o);
                }
                (Err(e), Err(f)) => prop_assert_eq!(*e, f),
                (a, b) => prop_assert!(false, "{:?} vs {:?}", a, b),
            }
        }
    }
}
