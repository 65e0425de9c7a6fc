//! The map's item types, as read (with references checked).

use super::{MapVersionKind, QUAD_SIZE, TILEMAP_VERSION_TILESKIP};
use crate::datafile::Datafile;
use crate::map::tiles::PhysicsKind;
use serde::Serialize;

/// The info item.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Info {
    pub author: Option<String>,
    pub map_version: Option<String>,
    pub credits: Option<String>,
    pub license: Option<String>,
    /// Server settings (DDNet): one command per line.
    pub settings: Vec<String>,
}

/// Pixel format of an embedded image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImageVariant {
    Rgb,
    Rgba,
    /// A variant value other than 0 (RGB) and 1 (RGBA).
    Other(i32),
}

/// An image item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub version: i32,
    pub width: i32,
    pub height: i32,
    pub external: bool,
    /// The name (loaded with [`LoadOptions::names`](crate::map::LoadOptions::names)).
    pub name: Option<String>,
    pub name_data: Option<usize>,
    /// The pixel data block (embedded images).
    pub data: Option<usize>,
    pub variant: ImageVariant,
    pub item_offset: usize,
}

/// An envelope item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    pub version: i32,
    /// 1 sound, 3 position, 4 color.
    pub channels: i32,
    pub start_point: i32,
    pub num_points: i32,
    pub name: String,
    pub synchronized: bool,
    pub item_offset: usize,
}

/// The envelope points item.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EnvPoints {
    pub count: usize,
    /// 6, or 22 when points carry bezier tangents (0.7).
    pub ints_per_point: usize,
}

/// Clipping rectangle of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clip {
    pub enabled: bool,
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

/// A group item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub version: i32,
    pub offset: (i32, i32),
    pub parallax: (i32, i32),
    pub start_layer: i32,
    pub num_layers: i32,
    pub clip: Option<Clip>,
    pub name: String,
    pub item_offset: usize,
}

/// A tilemap layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tilemap {
    pub version: i32,
    pub width: i32,
    pub height: i32,
    pub flags: i32,
    pub kind: PhysicsKind,
    pub color: [i32; 4],
    pub color_env: Option<usize>,
    pub color_env_offset: i32,
    pub image: Option<usize>,
    /// The main (`Tile`) data index as written.
    pub data: i32,
    /// The DDNet special data index for tele/speedup/front/switch/tune
    /// layers, as written.
    pub special_data: Option<i32>,
}

impl Tilemap {
    /// The data index holding this layer's own tiles (main data for tiles
    /// and game layers, the DDNet field for the others).
    pub fn tile_data(&self) -> i32 {
        self.special_data.unwrap_or(self.data)
    }
    /// [`Tilemap::tile_data`] as a data block of `df`; `None` when it is
    /// not one (reading the map warned `tile_data_out_of_range`).
    pub fn tile_block(&self, df: &Datafile<'_>) -> Option<usize> {
        usize::try_from(self.tile_data())
            .ok()
            .filter(|&i| i < df.num_data())
    }
    /// Whether the tile data is tile skip packed.
    pub fn tile_skip(&self) -> bool {
        self.version >= TILEMAP_VERSION_TILESKIP && self.special_data.is_none()
    }
}

/// A quads layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuadsLayer {
    pub version: i32,
    pub num_quads: i32,
    pub data: i32,
    pub image: Option<usize>,
}

impl QuadsLayer {
    /// The quads the layer claims (a negative count claims none) and the
    /// bytes its data block holds by the size table (0 without such a
    /// block): nothing inflated.
    pub fn claimed_and_stored(&self, df: &Datafile<'_>) -> (u64, u64) {
        let stored = usize::try_from(self.data)
            .ok()
            .and_then(|d| df.data_size(d))
            .map_or(0, |b| b as u64);
        (self.num_quads.max(0) as u64, stored)
    }

    /// The quads its data block holds: at most the claimed ones.
    pub fn held(&self, df: &Datafile<'_>) -> u64 {
        let (claimed, stored) = self.claimed_and_stored(df);
        claimed.min(stored / QUAD_SIZE as u64)
    }
}

/// A sounds layer (new or deprecated).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoundsLayer {
    pub deprecated: bool,
    pub version: i32,
    pub num_sources: i32,
    pub data: i32,
    pub sound: Option<usize>,
}

/// What a layer holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayerKind {
    Tilemap(Tilemap),
    Quads(QuadsLayer),
    Sounds(SoundsLayer),
    /// Another layer type value.
    Unknown(i32),
}

/// A layer item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    /// The group whose layer range holds this layer.
    pub group: Option<usize>,
    pub detail: bool,
    pub name: String,
    pub kind: LayerKind,
    pub item_offset: usize,
}

/// A sound item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sound {
    pub version: i32,
    pub external: bool,
    pub name: Option<String>,
    pub data: Option<usize>,
    /// Size of the (opus) data in bytes.
    pub size: usize,
    pub item_offset: usize,
}

/// An item type declared by UUID.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UuidType {
    /// The map-internal type id.
    pub type_id: u16,
    pub uuid: String,
    /// DDNet's name for the UUID, if known.
    pub name: Option<&'static str>,
    /// Items of that type in the map.
    pub items: usize,
}

/// The map part of a datafile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    pub kind: MapVersionKind,
    pub info: Option<Info>,
    pub images: Vec<Image>,
    pub envelopes: Vec<Envelope>,
    pub env_points: EnvPoints,
    pub groups: Vec<Group>,
    pub layers: Vec<Layer>,
    pub sounds: Vec<Sound>,
    pub uuid_types: Vec<UuidType>,
}

/// Tiles of one layer, expanded to `width × height`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileLayer {
    pub kind: PhysicsKind,
    pub width: usize,
    pub height: usize,
    /// Row-major tiles of `kind.tile_size()` bytes.
    pub bytes: Vec<u8>,
}

impl TileLayer {
    /// The bytes of the tile at `(x, y)`.
    pub fn tile(&self, x: usize, y: usize) -> Option<&[u8]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let ts = self.kind.tile_size();
        let i = (y * self.width + x) * ts;
        self.bytes.get(i..i + ts)
    }
    /// The id byte of every tile, in order.
    pub fn ids(&self) -> impl Iterator<Item = u8> + '_ {
        let ts = self.kind.tile_size();
        let id = self.kind.id_offset();
        self.bytes.chunks_exact(ts).map(move |t| t[id])
    }
}
