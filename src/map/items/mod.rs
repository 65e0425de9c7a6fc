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

mod checks;
mod envelope;
mod group;
mod image;
mod info;
mod layer;
mod load;
mod reader;
mod sound;
mod types;
mod uuid;
pub(crate) mod view;

pub use load::STREAM_TILES_BYTES;
pub use types::{
    Clip, EnvPoints, Envelope, Group, Image, ImageVariant, Info, Layer, LayerKind, Map, QuadsLayer,
    Sound, SoundsLayer, TileLayer, Tilemap, UuidType,
};

use super::error::{MapError, MapErrorKind as E, MapSection, MapWarning, MapWarningKind as W};
use crate::datafile::{Datafile, Inflater};
use crate::warn::Warn;
use layer::RefCounts;
use reader::{too_short, Reader};
use serde::Serialize;
use view::VersionItem;

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

/// What [`Map::parse_opts`] inflates besides the item tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// The info item's strings and settings.
    pub info: bool,
    /// Image and sound names.
    pub names: bool,
    /// The envelope points item's curve types (no inflating needed).
    pub check_env_points: bool,
    /// Inflate quads data to check its envelope references (its size is
    /// always checked, against the size table).
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
    /// What the index summary needs: info strings and names (the external
    /// images' for the collection summary; all of them so that the index
    /// warns about every string the full picture reads).
    pub const SUMMARY: LoadOptions = LoadOptions {
        info: true,
        names: true,
        check_env_points: false,
        check_quads: false,
    };
}

impl Map {
    /// Reads the map part with everything ([`LoadOptions::FULL`]); warnings
    /// go to `warn`.
    ///
    /// Returns `Ok(None)` when the datafile has no map part
    /// ([`absent_reason`] says why).
    pub fn parse(
        df: &Datafile<'_>,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
        warn: &mut impl Warn<MapWarning>,
    ) -> Result<Option<Map>, MapError> {
        Map::parse_opts(df, inflater, scratch, LoadOptions::FULL, warn)
    }

    /// Reads the map part, inflating only what `opts` asks for (no image
    /// pixels, sound data or tiles ever: see [`Map::load_tiles`]). Warnings
    /// go to `warn` as they are found (also those found before an error).
    pub fn parse_opts(
        df: &Datafile<'_>,
        inflater: &mut Inflater,
        scratch: &mut Vec<u8>,
        opts: LoadOptions,
        warn: &mut impl Warn<MapWarning>,
    ) -> Result<Option<Map>, MapError> {
        if absent_reason(df).is_some() {
            return Ok(None);
        }
        let mut r = Reader {
            df,
            inflater,
            scratch,
            warnings: warn,
        };

        // Version.
        let mut versions = df.items_of_type(ITEM_VERSION);
        let Some(version_item) = versions.next() else {
            return Ok(None);
        };
        let v = view::of(&version_item, VersionItem::new);
        let section = MapSection::Item(version_item.index as u32);
        if v.is_empty() {
            return Err(too_short(section, &version_item));
        }
        if v.version() != 1 {
            return Err(MapError::new(
                E::UnsupportedVersion,
                section,
                v.offset_of(VersionItem::VERSION),
            ));
        }
        if let Some(extra) = versions.next() {
            r.warn(
                W::DuplicateItem,
                MapSection::Item(extra.index as u32),
                extra.offset,
            );
        }

        let uuid_types = uuid::read_uuid_types(&mut r);
        checks::warn_uncovered_items(&mut r);

        // Counts first: references are checked against them.
        let counts = RefCounts {
            images: df.items_of_type(ITEM_IMAGE).len(),
            envelopes: df.items_of_type(ITEM_ENVELOPE).len(),
            sounds: df.items_of_type(ITEM_SOUND).len(),
        };

        let info = if opts.info {
            info::read_info(&mut r)?
        } else {
            None
        };

        let mut images = Vec::with_capacity(counts.images);
        for (i, it) in df.items_of_type(ITEM_IMAGE).enumerate() {
            images.push(image::read_image(&mut r, i, &it, opts.names)?);
        }

        let mut envelopes = Vec::with_capacity(counts.envelopes);
        for (i, it) in df.items_of_type(ITEM_ENVELOPE).enumerate() {
            envelopes.push(envelope::read_envelope(&mut r, i, &it)?);
        }
        let bezier = envelopes.iter().any(|e| e.version >= 3);
        let env_points =
            envelope::read_env_points(&mut r, &envelopes, bezier, opts.check_env_points);

        let mut groups = Vec::new();
        for (i, it) in df.items_of_type(ITEM_GROUP).enumerate() {
            groups.push(group::read_group(&mut r, i, &it)?);
        }

        let mut layers = Vec::with_capacity(df.items_of_type(ITEM_LAYER).len());
        for (i, it) in df.items_of_type(ITEM_LAYER).enumerate() {
            layers.push(layer::read_layer(&mut r, i, &it, &counts)?);
        }

        // Every reader of the map gets the same size warnings, whether it
        // reads the quads (the index counts them, the full picture draws
        // them) or not.
        for (li, l) in layers.iter().enumerate() {
            if let LayerKind::Quads(q) = &l.kind {
                if checks::quads_data_size(&mut r, li, l, q) && opts.check_quads {
                    checks::check_quads(&mut r, li, q, counts.envelopes)?;
                }
            }
        }
        checks::assign_groups(&mut r, &groups, &mut layers);
        checks::check_physics_layers(&mut r, &layers);

        let mut sounds = Vec::with_capacity(counts.sounds);
        for (i, it) in df.items_of_type(ITEM_SOUND).enumerate() {
            sounds.push(sound::read_sound(&mut r, i, &it, opts.names)?);
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
        }))
    }
}

/// Bytes per quad: 5 points, 4 colors, 4 texture coordinates (2, 4, 2 ints
/// each), then position envelope, offset, color envelope, offset.
pub const QUAD_SIZE: usize = 152;
