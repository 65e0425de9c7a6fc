//! Typed views of the map items and the [`Map`] read from a datafile.
//!
//! Item layouts (ints, `mapitems.h`; libtw2 `map.md`):
//!
//! ```text
//! type  item       fields
//! 0     version    version (= 1)
//! 1     info       version, &author, &map_version, &credits, &license, [&settings]
//! 2     image      version, width, height, external, &name, opt &data, [variant (v2, 0.7)]
//! 3     envelope   version, channels, start_point, num_points, name[8], [synchronized (v2)]
//! 4     group      version, offset x/y, parallax x/y, start_layer, num_layers,
//!                  [clipping, clip x/y/w/h (v2)], [name[3] (v3)]
//! 5     layer      _, type, flags, then per type:
//!       tilemap    version, width, height, flags, color[4], opt *color_env, env_offset,
//!                  opt *image, &data, [name[3] (v3)], DDNet: &tele, &speedup, &front,
//!                  &switch, &tune
//!       quads      version, num_quads, &data, opt *image, [name[3] (v2)]
//!       sounds     version, num_sources, &data, opt *sound, name[3]
//! 6     envpoints  all points: 6 ints each (22 if any envelope has version 3)
//! 7     sound      version, external, &name, &data, data_size
//! 0xFFFF uuid idx  id = map-internal type id; 4 ints = UUID bytes (big-endian)
//! ```
//!
//! Quirks: the DDNet tilemap extension starts at int 18 (after the v3 name),
//! but tilemaps of version ≤ 2 (old DDRace maps, no name) have it at int 15,
//! which DDNet's `CLayers::Init` reads there too. Items are referred to by
//! their position among the items of their type. Maps without a version item
//! (2007 prototypes with type ids 0x8001+) or without layers have no map part:
//! see [`absent_reason`].

use super::error::{MapError, MapErrorKind as E, MapSection, MapWarning, MapWarningKind as W};
use super::strings::{c_string, item_i32_string, settings_lines, CStrEnd, MAX_STRING_LEN};
use super::tiles::{self, PhysicsKind, SkipErrorKind, TileFormat, TileHistogram};
use super::uuids;
use crate::bytes::le_i32;
use crate::datafile::{Datafile, Inflater, Item};
use crate::warn::{Warn, Warnings};
use serde::Serialize;

/// Map item type ids.
pub const ITEM_VERSION: u16 = 0;
pub const ITEM_INFO: u16 = 1;
pub const ITEM_IMAGE: u16 = 2;
pub const ITEM_ENVELOPE: u16 = 3;
pub const ITEM_GROUP: u16 = 4;
pub const ITEM_LAYER: u16 = 5;
pub const ITEM_ENVPOINTS: u16 = 6;
pub const ITEM_SOUND: u16 = 7;
pub const ITEM_UUID_INDEX: u16 = crate::datafile::ITEMTYPE_EX;

/// Layer types.
pub const LAYER_TILEMAP: i32 = 2;
pub const LAYER_QUADS: i32 = 3;
pub const LAYER_SOUNDS_DEPRECATED: i32 = 9;
pub const LAYER_SOUNDS: i32 = 10;

/// Tilemap version from which the main tile data uses tile skip.
pub const TILEMAP_VERSION_TILESKIP: i32 = 4;

/// Which dialect the map is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum MapVersionKind {
    /// Teeworlds 0.6 and DDNet.
    #[serde(rename = "ddnet06")]
    DDNet06,
    /// Teeworlds 0.7 (tile skip, image variants or bezier envelopes).
    #[serde(rename = "teeworlds07")]
    Teeworlds07,
}

impl MapVersionKind {
    pub fn name(self) -> &'static str {
        match self {
            MapVersionKind::DDNet06 => "ddnet06",
            MapVersionKind::Teeworlds07 => "teeworlds07",
        }
    }
}

/// Why a datafile has no map part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AbsentReason {
    /// No version item (2007 prototype maps use other item type ids).
    NoVersionItem,
    /// A version item but no layers (e.g. an empty stub).
    NoLayers,
}

impl AbsentReason {
    pub fn name(self) -> &'static str {
        match self {
            AbsentReason::NoVersionItem => "no_version_item",
            AbsentReason::NoLayers => "no_layers",
        }
    }
}

/// Why `df` has no map part, or `None` if it has one.
pub fn absent_reason(df: &Datafile<'_>) -> Option<AbsentReason> {
    if df.items_of_type(ITEM_VERSION).len() == 0 {
        Some(AbsentReason::NoVersionItem)
    } else if df.items_of_type(ITEM_LAYER).len() == 0 {
        Some(AbsentReason::NoLayers)
    } else {
        None
    }
}

/// What [`Map::parse_with`] inflates besides the item tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// The info item's strings and settings.
    pub info: bool,
    /// Image and sound names.
    pub names: bool,
    /// The envelope points item's curve types (no inflating needed).
    pub check_env_points: bool,
    /// Inflate quads data to check its size and envelope references.
    pub check_quads: bool,
}

impl LoadOptions {
    /// Everything.
    pub const FULL: LoadOptions = LoadOptions {
        info: true,
        names: true,
        check_env_points: true,
        check_quads: true,
    };
    /// What the index summary needs: info strings only.
    pub const SUMMARY: LoadOptions = LoadOptions {
        info: true,
        names: false,
        check_env_points: false,
        check_quads: false,
    };
}

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
    /// The name (loaded with [`LoadOptions::names`]).
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
    /// At most [`super::MAX_WARNINGS`], then one `too_many_warnings`.
    pub warnings: Warnings<MapWarning>,
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

/// Shared state while reading one map.
struct Reader<'r, 'a> {
    df: &'r Datafile<'a>,
    inflater: &'r mut Inflater,
    scratch: &'r mut Vec<u8>,
    warnings: Warnings<MapWarning>,
}

impl Reader<'_, '_> {
    fn warn(&mut self, kind: W, section: MapSection, offset: usize) {
        self.warnings.warn(MapWarning::new(kind, section, offset));
    }

    /// An optional data index: -1 is none; out of range warns.
    fn opt_data(&mut self, v: i32, section: MapSection, offset: usize) -> Option<usize> {
        if v == -1 {
            return None;
        }
        match usize::try_from(v) {
            Ok(i) if i < self.df.num_data() => Some(i),
            _ => {
                self.warn(W::RefOutOfRange, section, offset);
                None
            }
        }
    }

    /// An optional reference to the `n` items of some type.
    fn opt_ref(&mut self, v: i32, n: usize, section: MapSection, offset: usize) -> Option<usize> {
        if v == -1 {
            return None;
        }
        match usize::try_from(v) {
            Ok(i) if i < n => Some(i),
            _ => {
                self.warn(W::RefOutOfRange, section, offset);
                None
            }
        }
    }

    fn data_offset(&self, index: usize) -> usize {
        self.df.data_range(index).map_or(0, |r| r.start)
    }

    /// Inflates data block `index` into the scratch buffer.
    fn inflate(&mut self, index: usize) -> Result<(), MapError> {
        self.df
            .decompress(index, self.inflater, self.scratch)
            .map_err(MapError::from)
    }

    fn note_end(&mut self, end: CStrEnd, section: MapSection, offset: usize) {
        match end {
            CStrEnd::Terminated => {}
            CStrEnd::Unterminated => self.warn(W::StringUnterminated, section, offset),
            CStrEnd::Truncated => self.warn(W::StringTruncated, section, offset),
        }
    }

    /// The CString in data block `index`: only the bytes a string can use
    /// are inflated ([`MAX_STRING_LEN`] and one more, to see a cut).
    fn data_string(&mut self, index: usize, section: MapSection) -> Result<String, MapError> {
        self.df
            .decompress_prefix(index, MAX_STRING_LEN + 1, self.inflater, self.scratch)
            .map_err(MapError::from)?;
        let (s, end) = c_string(self.scratch);
        let off = self.data_offset(index);
        self.note_end(end, section, off);
        Ok(s)
    }

    fn opt_string(
        &mut self,
        v: i32,
        section: MapSection,
        offset: usize,
    ) -> Result<Option<String>, MapError> {
        match self.opt_data(v, section, offset) {
            Some(i) => self.data_string(i, section).map(Some),
            None => Ok(None),
        }
    }
}

/// The I32String name at ints `start..start + len`, warning when it lacks
/// its terminator; empty when the item is too short for it.
fn item_name(
    r: &mut Reader<'_, '_>,
    it: &Item<'_>,
    start: usize,
    len: usize,
    s: MapSection,
) -> String {
    match item_i32_string(it.data, start, len) {
        Some((name, terminated)) => {
            if !terminated {
                r.warn(W::StringUnterminated, s, it.offset + 8 + 4 * start);
            }
            name
        }
        None => String::new(),
    }
}

fn get(data: &crate::bytes::LeI32s<'_>, i: usize) -> i32 {
    data.get(i).unwrap_or(0)
}

fn too_short(section: MapSection, item: &Item<'_>) -> MapError {
    MapError::new(E::ItemTooShort, section, item.offset)
}

impl Map {
    /// Reads the map part with everything ([`LoadOptions::FULL`]).
    ///
    /// Returns `Ok(None)` when the datafile has no map part
    /// ([`absent_reason`] says why).
    pub fn parse(
        df: &Datafile<'_>,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<Map>, MapError> {
        Map::parse_with(df, inflater, scratch, LoadOptions::FULL)
    }

    /// Reads the map part, inflating only what `opts` asks for (no image
    /// pixels, sound data or tiles ever: see [`Map::load_tiles`]).
    pub fn parse_with(
        df: &Datafile<'_>,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
        opts: LoadOptions,
    ) -> Result<Option<Map>, MapError> {
        if absent_reason(df).is_some() {
            return Ok(None);
        }
        let mut r = Reader {
            df,
            inflater,
            scratch,
            warnings: Warnings::new(super::MAX_WARNINGS),
        };

        // Version.
        let mut versions = df.items_of_type(ITEM_VERSION);
        let Some(version_item) = versions.next() else {
            return Ok(None);
        };
        let version = version_item
            .data
            .get(0)
            .ok_or_else(|| too_short(MapSection::Item(version_item.index as u32), &version_item))?;
        if version != 1 {
            return Err(MapError::new(
                E::UnsupportedVersion,
                MapSection::Item(version_item.index as u32),
                version_item.offset + 8,
            ));
        }
        if let Some(extra) = versions.next() {
            r.warn(
                W::DuplicateItem,
                MapSection::Item(extra.index as u32),
                extra.offset,
            );
        }

        let uuid_types = read_uuid_types(&mut r);
        warn_uncovered_items(&mut r);

        // Counts first: references are checked against them.
        let num_images = df.items_of_type(ITEM_IMAGE).len();
        let num_envelopes = df.items_of_type(ITEM_ENVELOPE).len();
        let num_sounds = df.items_of_type(ITEM_SOUND).len();

        let info = if opts.info { read_info(&mut r)? } else { None };

        let mut images = Vec::with_capacity(num_images);
        for (i, it) in df.items_of_type(ITEM_IMAGE).enumerate() {
            images.push(read_image(&mut r, i, &it, opts.names)?);
        }

        let mut envelopes = Vec::with_capacity(num_envelopes);
        let mut bezier = false;
        for (i, it) in df.items_of_type(ITEM_ENVELOPE).enumerate() {
            let s = MapSection::Envelope(i as u32);
            let d = it.data;
            if d.len() < 4 {
                return Err(too_short(s, &it));
            }
            let version = get(&d, 0);
            bezier |= version >= 3;
            let name = item_name(&mut r, &it, 4, 8, s);
            let synchronized = version >= 2 && get(&d, 12) != 0;
            // 4/5: 2007-era; 12: v1; 13: v2 and v3.
            if ![4, 5, 12, 13].contains(&d.len()) {
                r.warn(W::OddItemSize, s, it.offset);
            }
            envelopes.push(Envelope {
                version,
                channels: get(&d, 1),
                start_point: get(&d, 2),
                num_points: get(&d, 3),
                name,
                synchronized,
                item_offset: it.offset,
            });
        }

        let env_points = read_env_points(&mut r, &envelopes, bezier, opts.check_env_points);

        let num_layers = df.items_of_type(ITEM_LAYER).len();
        let mut groups = Vec::new();
        for (i, it) in df.items_of_type(ITEM_GROUP).enumerate() {
            let s = MapSection::Group(i as u32);
            let d = it.data;
            if d.len() < 7 {
                return Err(too_short(s, &it));
            }
            let version = get(&d, 0);
            // 7: v1; 12: v2; 15: v3 (DDNet and 0.7).
            if ![7, 12, 15].contains(&d.len()) {
                r.warn(W::OddItemSize, s, it.offset);
            }
            let clip = (version >= 2 && d.len() >= 12).then(|| Clip {
                enabled: get(&d, 7) != 0,
                x: get(&d, 8),
                y: get(&d, 9),
                width: get(&d, 10),
                height: get(&d, 11),
            });
            let name = if version >= 3 {
                item_name(&mut r, &it, 12, 3, s)
            } else {
                String::new()
            };
            groups.push(Group {
                version,
                offset: (get(&d, 1), get(&d, 2)),
                parallax: (get(&d, 3), get(&d, 4)),
                start_layer: get(&d, 5),
                num_layers: get(&d, 6),
                clip,
                name,
                item_offset: it.offset,
            });
        }

        let mut layers = Vec::with_capacity(num_layers);
        for (i, it) in df.items_of_type(ITEM_LAYER).enumerate() {
            layers.push(read_layer(
                &mut r,
                i,
                &it,
                num_images,
                num_envelopes,
                num_sounds,
            )?);
        }

        if opts.check_quads {
            for (li, l) in layers.iter().enumerate() {
                if let LayerKind::Quads(q) = &l.kind {
                    check_quads(&mut r, li, l, q, num_envelopes)?;
                }
            }
        }

        // Group → layer ranges.
        for (gi, g) in groups.iter().enumerate() {
            let range = usize::try_from(g.start_layer)
                .ok()
                .zip(usize::try_from(g.num_layers).ok())
                .and_then(|(s, n)| Some(s..s.checked_add(n)?))
                .filter(|rg| rg.end <= layers.len());
            match range {
                Some(rg) => {
                    let mut overlap = false;
                    for l in &mut layers[rg] {
                        overlap |= l.group.is_some();
                        l.group.get_or_insert(gi);
                    }
                    if overlap {
                        r.warn(
                            W::GroupLayerRange,
                            MapSection::Group(gi as u32),
                            g.item_offset,
                        );
                    }
                }
                None => r.warn(
                    W::GroupLayerRange,
                    MapSection::Group(gi as u32),
                    g.item_offset,
                ),
            }
        }

        // Physics layers: one game layer, at most one of each kind.
        let mut seen = [0usize; 7];
        for (li, l) in layers.iter().enumerate() {
            if let LayerKind::Tilemap(tm) = &l.kind {
                let k = tm.kind as usize;
                seen[k] += 1;
                if tm.kind != PhysicsKind::Tiles && seen[k] == 2 {
                    r.warn(
                        W::DuplicatePhysicsLayer,
                        MapSection::Layer(li as u32),
                        l.item_offset,
                    );
                }
            }
        }
        if seen[PhysicsKind::Game as usize] == 0 {
            r.warn(W::MissingGameLayer, MapSection::Map, 0);
        }

        let mut sounds = Vec::with_capacity(num_sounds);
        for (i, it) in df.items_of_type(ITEM_SOUND).enumerate() {
            let s = MapSection::Sound(i as u32);
            let d = it.data;
            if d.len() < 4 {
                return Err(too_short(s, &it));
            }
            if d.len() != 5 {
                r.warn(W::OddItemSize, s, it.offset);
            }
            let external = get(&d, 1) != 0;
            if external {
                r.warn(W::ExternalSound, s, it.offset);
            }
            let name = if opts.names {
                r.opt_string(get(&d, 2), s, it.offset)?
            } else {
                r.opt_data(get(&d, 2), s, it.offset);
                None
            };
            let data = r.opt_data(get(&d, 3), s, it.offset);
            let size = data.and_then(|i| df.data_size(i)).unwrap_or(0);
            sounds.push(Sound {
                version: get(&d, 0),
                external,
                name,
                data,
                size,
                item_offset: it.offset,
            });
        }

        // Tile skip is what only 0.7 writes; image variants and bezier
        // envelopes also occur in development versions before it.
        let teeworlds07 = layers.iter().any(
            |l| matches!(&l.kind, LayerKind::Tilemap(t) if t.version >= TILEMAP_VERSION_TILESKIP),
        );
        let kind = if teeworlds07 {
            MapVersionKind::Teeworlds07
        } else {
            MapVersionKind::DDNet06
        };

        let warnings = r.warnings;
        Ok(Some(Map {
            kind,
            info,
            images,
            envelopes,
            env_points,
            groups,
            layers,
            sounds,
            uuid_types,
            warnings,
        }))
    }

    /// The index of the layer DDNet uses for physics kind `kind` (the last
    /// one of that kind).
    pub fn physics_layer(&self, kind: PhysicsKind) -> Option<usize> {
        self.layers
            .iter()
            .rposition(|l| matches!(&l.kind, LayerKind::Tilemap(t) if t.kind == kind))
    }

    /// The game layer's tilemap.
    pub fn game_layer(&self) -> Option<&Tilemap> {
        let i = self.physics_layer(PhysicsKind::Game)?;
        match &self.layers[i].kind {
            LayerKind::Tilemap(t) => Some(t),
            _ => None,
        }
    }

    /// Layer `layer` if it is a tilemap, with its checked tile source and its
    /// stored tile data inflated into `scratch`.
    fn stored_tiles(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<(&Layer, &Tilemap, TileSource)>, MapError> {
        let Some(l) = self.layers.get(layer) else {
            return Ok(None);
        };
        let LayerKind::Tilemap(tm) = &l.kind else {
            return Ok(None);
        };
        let src = locate_tiles(df, layer, l, tm, inflater)?;
        df.decompress(src.data, inflater, scratch)?;
        Ok(Some((l, tm, src)))
    }

    /// Loads and expands the tiles of layer `layer` (a tilemap) to
    /// `width × height` tiles. `scratch` receives the stored data.
    pub fn load_tiles(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
    ) -> Result<Option<TileLayer>, MapError> {
        let Some((_, tm, src)) = self.stored_tiles(df, layer, inflater, scratch)? else {
            return Ok(None);
        };
        let section = MapSection::Layer(layer as u32);
        let (w, h) = (src.width, src.height);
        let bytes = if src.skip {
            let mut out = Vec::new();
            tiles::expand_tile_skip(scratch, w * h, &mut out)
                .map_err(|e| skip_error(e.kind, section, src.data_offset))?;
            out
        } else {
            tiles::upgrade_legacy(scratch, tm.kind, src.format)
        };
        Ok(Some(TileLayer {
            kind: tm.kind,
            width: w,
            height: h,
            bytes,
        }))
    }

    /// The id histogram of layer `layer`'s tiles without expanding them;
    /// `Ok(None)` if it is not a tilemap. Non-zero padding is reported as a
    /// warning in `warnings`.
    pub fn tile_histogram(
        &self,
        df: &Datafile<'_>,
        layer: usize,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
        warnings: &mut impl Warn<MapWarning>,
    ) -> Result<Option<TileHistogram>, MapError> {
        let Some(l) = self.layers.get(layer) else {
            return Ok(None);
        };
        let LayerKind::Tilemap(tm) = &l.kind else {
            return Ok(None);
        };
        let src = locate_tiles(df, layer, l, tm, inflater)?;
        let section = MapSection::Layer(layer as u32);
        let stored = df.data_size(src.data).unwrap_or(0);
        let h = if !src.skip && stored > STREAM_TILES_BYTES {
            // Counted piece by piece (whole groups of 4 tiles per piece, as
            // `histogram` reads them): the worker's buffer does not grow to
            // the size of a huge layer.
            let piece = 4 * src.format.size * (1 << 14);
            let mut h = TileHistogram::default();
            df.decompress_pieces(src.data, piece, inflater, |p| {
                let part = tiles::histogram(p, src.format);
                for (c, n) in h.counts.iter_mut().zip(part.counts) {
                    *c += n;
                }
                h.padding_nonzero |= part.padding_nonzero;
            })?;
            h
        } else {
            df.decompress(src.data, inflater, scratch)?;
            if src.skip {
                tiles::histogram_skip(scratch, (src.width * src.height) as u64)
                    .map_err(|e| skip_error(e.kind, section, src.data_offset))?
            } else {
                tiles::histogram(scratch, src.format)
            }
        };
        if src.format != tm.kind.format() {
            warnings.warn(MapWarning::new(W::LegacyTileFormat, section, l.item_offset));
        }
        if h.padding_nonzero {
            warnings.warn(MapWarning::new(
                W::NonZeroTilePadding,
                section,
                l.item_offset,
            ));
        }
        Ok(Some(h))
    }
}

fn skip_error(kind: SkipErrorKind, section: MapSection, offset: usize) -> MapError {
    let kind = match kind {
        SkipErrorKind::Misaligned => E::TileDataSize,
        SkipErrorKind::Overrun => E::TileSkipOverrun,
        SkipErrorKind::Short => E::TileSkipShort,
    };
    MapError::new(kind, section, offset)
}

/// A validated tile data block.
struct TileSource {
    format: TileFormat,
    data: usize,
    data_offset: usize,
    width: usize,
    height: usize,
    skip: bool,
}

/// Checks a tilemap's size and data index against the datafile and the
/// limits before anything is inflated.
fn locate_tiles(
    df: &Datafile<'_>,
    layer: usize,
    l: &Layer,
    tm: &Tilemap,
    inflater: &Inflater,
) -> Result<TileSource, MapError> {
    let section = MapSection::Layer(layer as u32);
    let err = |k, off| Err(MapError::new(k, section, off));
    let (Ok(width), Ok(height)) = (usize::try_from(tm.width), usize::try_from(tm.height)) else {
        return err(E::BadLayerSize, l.item_offset);
    };
    if width == 0 || height == 0 {
        return err(E::BadLayerSize, l.item_offset);
    }
    // Both are below 2^31, so neither product overflows u64.
    let num_tiles = width as u64 * height as u64;
    let bytes = num_tiles * tm.kind.tile_size() as u64;
    let data = match usize::try_from(tm.tile_data()) {
        Ok(i) if i < df.num_data() => i,
        _ => return err(E::BadDataRef, l.item_offset),
    };
    let data_offset = df.data_range(data).map_or(0, |r| r.start);
    if bytes > inflater.limits().max_decompressed_bytes || bytes > usize::MAX as u64 / 2 {
        return err(E::LimitExceeded, data_offset);
    }
    let stored = df.data_size(data).unwrap_or(0) as u64;
    let skip = tm.tile_skip();
    let format = if skip {
        if !stored.is_multiple_of(4) {
            return err(E::TileDataSize, data_offset);
        }
        if num_tiles > tiles::max_skip_tiles(stored as usize) {
            return err(E::TileSkipShort, data_offset);
        }
        tm.kind.format()
    } else {
        match tm.kind.format_for_size(num_tiles, stored) {
            Some(f) => f,
            None => return err(E::TileDataSize, data_offset),
        }
    };
    Ok(TileSource {
        format,
        data,
        data_offset,
        width,
        height,
        skip,
    })
}

/// Vanilla tile data larger than this is counted by
/// [`Map::tile_histogram`] as it is inflated, piece by piece, instead of
/// inflated whole into the caller's buffer.
pub const STREAM_TILES_BYTES: usize = 16 << 20;

/// Bytes per quad: 5 points, 4 colors, 4 texture coordinates (2, 4, 2 ints
/// each), then position envelope, offset, color envelope, offset.
pub const QUAD_SIZE: usize = 152;

fn check_quads(
    r: &mut Reader<'_, '_>,
    li: usize,
    l: &Layer,
    q: &QuadsLayer,
    num_envelopes: usize,
) -> Result<(), MapError> {
    let s = MapSection::Layer(li as u32);
    let Ok(n) = usize::try_from(q.num_quads) else {
        return Ok(());
    };
    if n == 0 {
        return Ok(());
    }
    let Some(data) = usize::try_from(q.data)
        .ok()
        .filter(|&d| d < r.df.num_data())
    else {
        return Ok(()); // already warned
    };
    let want = n as u64 * QUAD_SIZE as u64;
    if r.df.data_size(data).map(|x| x as u64) != Some(want) {
        r.warn(W::QuadsDataSize, s, l.item_offset);
        return Ok(());
    }
    r.inflate(data)?;
    let off = r.data_offset(data);
    for quad in 0..n {
        for field in [34usize, 36] {
            let v = le_i32(r.scratch, quad * QUAD_SIZE + 4 * field).unwrap_or(-1);
            if v != -1 && usize::try_from(v).map_or(true, |e| e >= num_envelopes) {
                r.warn(W::RefOutOfRange, s, off);
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Warns about every item outside the ranges of the item type table: no
/// view can see those, so counts would silently leave them out.
fn warn_uncovered_items(r: &mut Reader<'_, '_>) {
    let mut covered = vec![false; r.df.num_items()];
    for t in r.df.item_types() {
        for c in covered.iter_mut().skip(t.start).take(t.num) {
            *c = true;
        }
    }
    for (i, c) in covered.iter().enumerate() {
        if !c {
            let offset = r.df.item(i).map_or(0, |it| it.offset);
            r.warn(W::ItemNotInTypeTable, MapSection::Item(i as u32), offset);
        }
    }
}

fn read_uuid_types(r: &mut Reader<'_, '_>) -> Vec<UuidType> {
    let mut out: Vec<UuidType> = Vec::new();
    // Type ids and UUIDs seen, and the item count of every type: one pass
    // each, so the UUID index costs O(items) however long it is.
    let mut seen_ids = std::collections::HashSet::new();
    let mut seen_uuids = std::collections::HashSet::new();
    let counts: std::collections::HashMap<u16, usize> =
        r.df.item_types()
            .iter()
            .map(|t| (t.type_id, t.num))
            .collect();
    for it in r.df.items_of_type(ITEM_UUID_INDEX) {
        let s = MapSection::UuidIndex(it.index as u32);
        let d = it.data;
        if d.len() != 4 {
            r.warn(W::BadUuidIndex, s, it.offset);
            if d.len() < 4 {
                continue;
            }
        }
        let uuid = uuids::uuid_from_ints([get(&d, 0), get(&d, 1), get(&d, 2), get(&d, 3)]);
        let uuid_s = uuid.to_string();
        if seen_ids.contains(&it.id) || seen_uuids.contains(&uuid) {
            r.warn(W::DuplicateUuidIndex, s, it.offset);
            continue;
        }
        seen_ids.insert(it.id);
        seen_uuids.insert(uuid);
        out.push(UuidType {
            type_id: it.id,
            name: uuids::name_of_uuid(&uuid),
            uuid: uuid_s,
            items: counts.get(&it.id).copied().unwrap_or(0),
        });
    }
    out
}

fn read_info(r: &mut Reader<'_, '_>) -> Result<Option<Info>, MapError> {
    let mut items = r.df.items_of_type(ITEM_INFO);
    let Some(it) = items.next() else {
        return Ok(None);
    };
    if let Some(extra) = items.next() {
        r.warn(W::DuplicateItem, MapSection::Info, extra.offset);
    }
    let s = MapSection::Info;
    let d = it.data;
    if d.len() != 5 && d.len() != 6 {
        r.warn(W::OddItemSize, s, it.offset);
    }
    let field = |i: usize| d.get(i).unwrap_or(-1);
    let mut info = Info {
        author: r.opt_string(field(1), s, it.offset + 8 + 4)?,
        map_version: r.opt_string(field(2), s, it.offset + 8 + 8)?,
        credits: r.opt_string(field(3), s, it.offset + 8 + 12)?,
        license: r.opt_string(field(4), s, it.offset + 8 + 16)?,
        settings: Vec::new(),
    };
    if let Some(i) = r.opt_data(field(5), s, it.offset + 8 + 20) {
        r.inflate(i)?;
        let (lines, end) = settings_lines(r.scratch);
        let off = r.data_offset(i);
        r.note_end(end, s, off);
        info.settings = lines;
    }
    Ok(Some(info))
}

fn read_image(
    r: &mut Reader<'_, '_>,
    i: usize,
    it: &Item<'_>,
    names: bool,
) -> Result<Image, MapError> {
    let s = MapSection::Image(i as u32);
    let d = it.data;
    if d.len() < 6 {
        return Err(too_short(s, it));
    }
    let version = get(&d, 0);
    let expected = if version >= 2 { 7 } else { 6 };
    if d.len() != expected {
        r.warn(W::OddItemSize, s, it.offset);
    }
    let (width, height) = (get(&d, 1), get(&d, 2));
    let external = get(&d, 3) != 0;
    let name_data = r.opt_data(get(&d, 4), s, it.offset + 8 + 16);
    if get(&d, 4) == -1 {
        r.warn(W::MissingName, s, it.offset + 8 + 16);
    }
    let name = match (names, name_data) {
        (true, Some(n)) => Some(r.data_string(n, s)?),
        _ => None,
    };
    let variant = if version >= 2 {
        match d.get(6) {
            Some(0) => ImageVariant::Rgb,
            Some(1) | None => ImageVariant::Rgba,
            Some(v) => ImageVariant::Other(v),
        }
    } else {
        ImageVariant::Rgba
    };
    let data = if external {
        // External images should have -1; a stray index is harmless.
        None
    } else {
        let data = r.opt_data(get(&d, 5), s, it.offset + 8 + 20);
        let bpp = match variant {
            ImageVariant::Rgb => 3u64,
            _ => 4,
        };
        let want = (width.max(0) as u64) * (height.max(0) as u64) * bpp;
        let ok = data
            .and_then(|k| r.df.data_size(k))
            .is_some_and(|n| n as u64 == want);
        if !ok {
            r.warn(W::ImageDataSize, s, it.offset);
        }
        data
    };
    Ok(Image {
        version,
        width,
        height,
        external,
        name,
        name_data,
        data,
        variant,
        item_offset: it.offset,
    })
}

fn read_env_points(
    r: &mut Reader<'_, '_>,
    envelopes: &[Envelope],
    bezier: bool,
    check: bool,
) -> EnvPoints {
    let ints_per_point = if bezier { 22 } else { 6 };
    let mut items = r.df.items_of_type(ITEM_ENVPOINTS);
    let item = items.next();
    if let Some(extra) = items.next() {
        r.warn(W::DuplicateItem, MapSection::EnvPoints, extra.offset);
    }
    let count = item.map_or(0, |it| it.data.len() / ints_per_point);
    if let Some(it) = &item {
        if it.data.len() % ints_per_point != 0 {
            r.warn(W::OddItemSize, MapSection::EnvPoints, it.offset);
        }
        if check {
            let bad = (0..count).find(|p| {
                let c = get(&it.data, p * ints_per_point + 1);
                !(0..=5).contains(&c)
            });
            if let Some(p) = bad {
                r.warn(
                    W::BadCurveType,
                    MapSection::EnvPoints,
                    it.offset + 8 + 4 * (p * ints_per_point + 1),
                );
            }
        }
    }
    for (i, e) in envelopes.iter().enumerate() {
        let ok = usize::try_from(e.start_point)
            .ok()
            .zip(usize::try_from(e.num_points).ok())
            .and_then(|(s, n)| s.checked_add(n))
            .is_some_and(|end| end <= count);
        if !ok {
            r.warn(
                W::EnvPointRange,
                MapSection::Envelope(i as u32),
                e.item_offset,
            );
        }
    }
    EnvPoints {
        count,
        ints_per_point,
    }
}

fn read_layer(
    r: &mut Reader<'_, '_>,
    i: usize,
    it: &Item<'_>,
    num_images: usize,
    num_envelopes: usize,
    num_sounds: usize,
) -> Result<Layer, MapError> {
    let s = MapSection::Layer(i as u32);
    let d = it.data;
    if d.len() < 3 {
        return Err(too_short(s, it));
    }
    let field_off = |k: usize| it.offset + 8 + 4 * k;
    let layer_type = get(&d, 1);
    let detail = get(&d, 2) & 1 != 0;
    let (kind, name) = match layer_type {
        LAYER_TILEMAP => {
            if d.len() < 15 {
                return Err(too_short(s, it));
            }
            let version = get(&d, 3);
            let flags = get(&d, 6);
            let (kind, odd) = PhysicsKind::from_flags(flags);
            if odd {
                r.warn(W::OddLayerFlags, s, field_off(6));
            }
            let name = if version >= 3 {
                item_name(r, it, 15, 3, s)
            } else {
                String::new()
            };
            let ext = if version <= 2 { 15 } else { 18 };
            let special_slot = match kind {
                PhysicsKind::Tiles | PhysicsKind::Game => None,
                PhysicsKind::Tele => Some(ext),
                PhysicsKind::Speedup => Some(ext + 1),
                PhysicsKind::Front => Some(ext + 2),
                PhysicsKind::Switch => Some(ext + 3),
                PhysicsKind::Tune => Some(ext + 4),
            };
            let special_data = match special_slot {
                Some(k) => Some(d.get(k).ok_or_else(|| too_short(s, it))?),
                None => None,
            };
            // 15/18: vanilla v2/v3; 17, 19, 20: old DDRace v2 with 2, 4
            // or 5 extension ints; 22/23: DDNet v3 with 4 or 5.
            let known_len = [15, 17, 18, 19, 20, 22, 23];
            if !known_len.contains(&d.len()) {
                r.warn(W::OddItemSize, s, it.offset);
            }
            let color_env = r.opt_ref(get(&d, 11), num_envelopes, s, field_off(11));
            let image = r.opt_ref(get(&d, 13), num_images, s, field_off(13));
            let tm = Tilemap {
                version,
                width: get(&d, 4),
                height: get(&d, 5),
                flags,
                kind,
                color: [get(&d, 7), get(&d, 8), get(&d, 9), get(&d, 10)],
                color_env,
                color_env_offset: get(&d, 12),
                image,
                data: get(&d, 14),
                special_data,
            };
            // The main data of special layers is a zeroed vanilla copy:
            // only its reference is checked.
            if special_data.is_some() {
                r.opt_data(tm.data, s, field_off(14));
            }
            // The tile data itself must exist: a layer pointing past the
            // data blocks has no tiles (its statistics fail if it is read).
            let tile_field = match special_slot {
                Some(k) => field_off(k),
                None => field_off(14),
            };
            if usize::try_from(tm.tile_data()).map_or(true, |i| i >= r.df.num_data()) {
                r.warn(W::TileDataOutOfRange, s, tile_field);
            }
            (LayerKind::Tilemap(tm), name)
        }
        LAYER_QUADS => {
            if d.len() < 7 {
                return Err(too_short(s, it));
            }
            let version = get(&d, 3);
            // 7: v1; 10: v2 with its name.
            if ![7, 10].contains(&d.len()) {
                r.warn(W::OddItemSize, s, it.offset);
            }
            let name = if version >= 2 {
                item_name(r, it, 7, 3, s)
            } else {
                String::new()
            };
            let num_quads = get(&d, 4);
            if num_quads < 0 {
                r.warn(W::OddItemSize, s, field_off(4));
            }
            if num_quads > 0 {
                r.opt_data(get(&d, 5), s, field_off(5));
            }
            let image = r.opt_ref(get(&d, 6), num_images, s, field_off(6));
            let q = QuadsLayer {
                version,
                num_quads,
                data: get(&d, 5),
                image,
            };
            (LayerKind::Quads(q), name)
        }
        LAYER_SOUNDS | LAYER_SOUNDS_DEPRECATED => {
            if d.len() < 7 {
                return Err(too_short(s, it));
            }
            if d.len() != 10 {
                r.warn(W::OddItemSize, s, it.offset);
            }
            let name = item_name(r, it, 7, 3, s);
            let num_sources = get(&d, 4);
            if num_sources > 0 {
                r.opt_data(get(&d, 5), s, field_off(5));
            }
            let sound = r.opt_ref(get(&d, 6), num_sounds, s, field_off(6));
            let sl = SoundsLayer {
                deprecated: layer_type == LAYER_SOUNDS_DEPRECATED,
                version: get(&d, 3),
                num_sources,
                data: get(&d, 5),
                sound,
            };
            (LayerKind::Sounds(sl), name)
        }
        other => {
            r.warn(W::UnknownLayerType, s, field_off(1));
            (LayerKind::Unknown(other), String::new())
        }
    };
    Ok(Layer {
        group: None,
        detail,
        name,
        kind,
        item_offset: it.offset,
    })
}
