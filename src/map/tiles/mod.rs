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
//! plain one-tile-at-a-time versions the tests compare against;
//! [`TileKernels`] resolves a [`crate::backend::Backend`] once to either.

mod histogram;
mod kernels;
pub mod oracle;
mod skip;

pub use histogram::{histogram, histogram_skip, TileHistogram};
pub use kernels::TileKernels;
use serde::Serialize;
pub use skip::{expand_tile_skip, max_skip_tiles, SkipError, SkipErrorKind};

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
pub(crate) const FLAG_GAME: i32 = 1;
pub(crate) const FLAG_TELE: i32 = 2;
pub(crate) const FLAG_SPEEDUP: i32 = 4;
pub(crate) const FLAG_FRONT: i32 = 8;
pub(crate) const FLAG_SWITCH: i32 = 16;
pub(crate) const FLAG_TUNE: i32 = 32;

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
    pub(crate) fn padding_offsets(self) -> &'static [usize] {
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

/// Tile flag bits (`TILEFLAG_*` of `mapitems.h`): byte 1 of a tiles, game
/// or front tile, byte 2 of a switch tile. Mirrored in x (`TILEFLAG_XFLIP`,
/// 1), in y (`TILEFLAG_YFLIP`, 2), rotated 90° clockwise before the flips
/// (`TILEFLAG_ROTATE`, 8); bit 4 is `TILEFLAG_OPAQUE`, an editor hint.
pub const TILEFLAG_XFLIP: u8 = 1;
/// See [`TILEFLAG_XFLIP`].
pub const TILEFLAG_YFLIP: u8 = 2;
/// See [`TILEFLAG_XFLIP`].
pub const TILEFLAG_ROTATE: u8 = 8;

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

#[cfg(test)]
mod tests;
