//! The high-level map view on top of a [`crate::datafile::Datafile`].
//!
//! References: libtw2 `map.md` / `map_v4.ksy`, DDNet `src/game/mapitems.h`,
//! `src/game/layers.cpp`, `src/game/mapitems_ex_types.h` (facts only).
//!
//! A map is a datafile whose items are typed by their type id (0 version,
//! 1 info, 2 image, 3 envelope, 4 group, 5 layer, 6 envelope points, 7 sound,
//! 0xFFFF UUID index) and whose data blocks hold strings, pixels, sounds and
//! tiles. [`items`](Map) gives typed views of every item with every index
//! checked; [`tiles`] the tile structs, tile skip expansion and histograms;
//! [`names`] DDNet's special tile names; [`summarize`] the fast path of the
//! archive index ([`crate::synth::map`] generates test maps).
//!
//! Two entry points:
//!
//! - [`Map::parse`] / [`Map::parse_opts`]: the items, inflating only strings
//!   (and, with [`LoadOptions::FULL`], quads data for its checks); tiles on
//!   demand with [`Map::load_tiles`] (expanded) or [`Map::tile_histogram`].
//! - [`summarize`]: the index record ([`MapSummary`]), inflating only the info
//!   strings and the six physics layers' tiles, never images or sounds.
//!
//! Quirks handled (each with a test):
//!
//! - Datafiles without a version item (2007 prototypes, type ids 0x8001+) or
//!   without layers have no map part: [`absent_reason`], not an error.
//! - DDNet's tilemap extension (tele, speedup, front, switch, tune data) is at
//!   int 18 for tilemap version ≥ 3 but at int 15 for version ≤ 2 (old DDRace
//!   maps); early DDRace maps also store 4-byte speedup and 2-byte switch
//!   tiles, read as such with a [`MapWarningKind::LegacyTileFormat`] warning.
//! - Tilemap version 4 (Teeworlds 0.7) packs tiles with skip runs; the
//!   expansion is bounded by the packed size before anything is allocated.
//! - UUID index items hold their UUID as 4 big-endian ints; duplicates (an
//!   old tool bug) are tolerated with a warning. Names are matched by
//!   computing DDNet's v3 UUIDs ([`uuids`]).
//! - The map dialect ([`MapVersionKind`]) is Teeworlds 0.7 exactly when a
//!   tilemap uses tile skip (image variants and bezier envelopes also appear
//!   in pre-0.7 development maps).
//!
//! Errors ([`MapError`]) concern only the map part: the datafile stays
//! usable. Warnings ([`MapWarning`]) go to the caller's sink
//! ([`crate::warn::Warn`]); [`summarize`] keeps them in the [`MapSummary`].

pub mod check;
mod error;
pub mod inspect;
mod items;
pub mod legacy;
pub mod names;
mod stats;
pub mod strings;
pub mod tiles;
pub mod uuids;

pub use error::{MapError, MapErrorKind, MapSection, MapWarning, MapWarningKind};

/// Most warnings kept per map view (as for datafiles, see
/// [`crate::datafile::MAX_WARNINGS`]); the next is kept as
/// [`MapWarningKind::TooManyWarnings`] and the rest are dropped.
pub const MAX_WARNINGS: usize = crate::datafile::MAX_WARNINGS;
/// The envelope point view, for the renderer.
#[cfg(feature = "render")]
pub(crate) use items::view::EnvPoint;
pub use items::{
    absent_reason, AbsentReason, Clip, EnvPoints, Envelope, Group, Image, ImageVariant, Info,
    Layer, LayerKind, LoadOptions, Map, MapVersionKind, QuadsLayer, Sound, SoundsLayer, TileLayer,
    Tilemap, UuidType, ITEM_ENVELOPE, ITEM_ENVPOINTS, ITEM_GROUP, ITEM_IMAGE, ITEM_INFO,
    ITEM_LAYER, ITEM_SOUND, ITEM_UUID_INDEX, ITEM_VERSION, LAYER_QUADS, LAYER_SOUNDS,
    LAYER_SOUNDS_DEPRECATED, LAYER_TILEMAP, QUAD_SIZE, STREAM_TILES_BYTES,
    TILEMAP_VERSION_TILESKIP,
};
pub use stats::{
    map_stats, summarize, summarize_observed, EntityCounts, LayerTileCounts, MapCounts, MapStats,
    MapSummary, TileCount,
};
pub use tiles::{PhysicsKind, TileFormat, TileHistogram};
