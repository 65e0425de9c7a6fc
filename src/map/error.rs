//! Errors and warnings of the map view.
//!
//! Like the datafile layer's, both are small `Copy + Eq + Hash` values (a
//! kind, the [`MapSection`] they arose in and a byte offset in the file) so a
//! batch run can count them by kind across an archive.

use crate::datafile;
use serde::{Serialize, Serializer};
use std::fmt;

/// Where in a map something happened.
///
/// Item-level sections are numbered by the item's position among the items
/// of its type (the index other items use to refer to it); `Item` and `Data`
/// are numbered by the datafile's item and data tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MapSection {
    /// The map as a whole (e.g. "no game layer").
    Map,
    /// The datafile item with this table index.
    Item(u32),
    /// The datafile data block with this index.
    Data(u32),
    Info,
    Image(u32),
    Envelope(u32),
    EnvPoints,
    Group(u32),
    Layer(u32),
    Sound(u32),
    /// A UUID index item (type 0xFFFF) by its table index.
    UuidIndex(u32),
}

impl fmt::Display for MapSection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapSection::Map => f.write_str("map"),
            MapSection::Item(i) => write!(f, "item {i}"),
            MapSection::Data(i) => write!(f, "data {i}"),
            MapSection::Info => f.write_str("info"),
            MapSection::Image(i) => write!(f, "image {i}"),
            MapSection::Envelope(i) => write!(f, "envelope {i}"),
            MapSection::EnvPoints => f.write_str("envelope points"),
            MapSection::Group(i) => write!(f, "group {i}"),
            MapSection::Layer(i) => write!(f, "layer {i}"),
            MapSection::Sound(i) => write!(f, "sound {i}"),
            MapSection::UuidIndex(i) => write!(f, "uuid index {i}"),
        }
    }
}

impl Serialize for MapSection {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What made the map part of a file unreadable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum MapErrorKind {
    /// A data block the view needs failed at the datafile layer (inflate,
    /// size mismatch, limit).
    Datafile(datafile::ErrorKind),
    /// The version item does not hold version 1.
    UnsupportedVersion,
    /// An item is too short for the fields its type always has.
    ItemTooShort,
    /// A data index the view needs (tile data) is negative or out of range.
    BadDataRef,
    /// A tile layer's width or height is not positive, or width × height
    /// overflows.
    BadLayerSize,
    /// A tile layer's (inflated) data is not width × height tiles.
    TileDataSize,
    /// A tile skip run goes past width × height.
    TileSkipOverrun,
    /// Tile skip runs end before width × height tiles.
    TileSkipShort,
    /// Expanding tiles would exceed the per-file decompression limit.
    LimitExceeded,
}

impl MapErrorKind {
    /// Every kind (those of the datafile layer included).
    pub fn all() -> Vec<MapErrorKind> {
        let mut all: Vec<_> = datafile::ErrorKind::ALL
            .iter()
            .map(|&k| MapErrorKind::Datafile(k))
            .collect();
        all.extend([
            MapErrorKind::UnsupportedVersion,
            MapErrorKind::ItemTooShort,
            MapErrorKind::BadDataRef,
            MapErrorKind::BadLayerSize,
            MapErrorKind::TileDataSize,
            MapErrorKind::TileSkipOverrun,
            MapErrorKind::TileSkipShort,
            MapErrorKind::LimitExceeded,
        ]);
        all
    }
}

// (A datafile kind keeps its datafile name.)
crate::kind::kind_names!(MapErrorKind {
    Datafile(datafile::ErrorKind),
    UnsupportedVersion => "unsupported_map_version",
    ItemTooShort => "item_too_short",
    BadDataRef => "bad_data_ref",
    BadLayerSize => "bad_layer_size",
    TileDataSize => "tile_data_size",
    TileSkipOverrun => "tile_skip_overrun",
    TileSkipShort => "tile_skip_short",
    LimitExceeded => "limit_exceeded",
});

impl MapErrorKind {
    /// What went wrong, in words (the start of the error's message).
    pub fn describe(self) -> &'static str {
        match self {
            MapErrorKind::Datafile(k) => k.describe(),
            MapErrorKind::UnsupportedVersion => "the map's version item is not version 1",
            MapErrorKind::ItemTooShort => "item too short for the fields its type always has",
            MapErrorKind::BadDataRef => "data index negative or past the last data block",
            MapErrorKind::BadLayerSize => "tile layer width or height not positive",
            MapErrorKind::TileDataSize => "tile data is not width × height tiles",
            MapErrorKind::TileSkipOverrun => "a tile skip run goes past width × height tiles",
            MapErrorKind::TileSkipShort => "tile skip runs end before width × height tiles",
            MapErrorKind::LimitExceeded => {
                "the expanded tiles would exceed the decompressed size limit"
            }
        }
    }
}

impl fmt::Display for MapErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())
    }
}

impl Serialize for MapErrorKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.kind())
    }
}

/// A fatal problem of the map view: the kind, the section and the byte
/// offset in the file (of the item, or of the data block's stored bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, thiserror::Error)]
#[error("{} in {section} at byte {offset}", kind.describe())]
pub struct MapError {
    pub kind: MapErrorKind,
    pub section: MapSection,
    pub offset: u64,
}

impl MapError {
    pub(crate) fn new(kind: MapErrorKind, section: MapSection, offset: usize) -> Self {
        MapError {
            kind,
            section,
            offset: offset as u64,
        }
    }
}

impl From<datafile::Error> for MapError {
    fn from(e: datafile::Error) -> Self {
        let section = match e.section {
            datafile::Section::Item(i) => MapSection::Item(i),
            datafile::Section::Data(i) => MapSection::Data(i),
            _ => MapSection::Map,
        };
        MapError {
            kind: MapErrorKind::Datafile(e.kind),
            section,
            offset: e.offset,
        }
    }
}

/// A non-fatal oddity of the map view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum MapWarningKind {
    /// Two UUID index items declare the same type id or the same UUID (an
    /// old tool bug; many maps have them).
    DuplicateUuidIndex,
    /// A UUID index item is not 4 ints long.
    BadUuidIndex,
    /// An item has fewer or more ints than its version implies.
    OddItemSize,
    /// An optional reference (image, envelope, sound, data block) is
    /// neither -1 nor in range; it is treated as absent.
    RefOutOfRange,
    /// Unused tile bytes (skip, reserved, padding) are not zero.
    NonZeroTilePadding,
    /// A string has no NUL terminator.
    StringUnterminated,
    /// A string is longer than the view keeps; it was cut.
    StringTruncated,
    /// A group's layer range is outside the layer list or overlaps another.
    GroupLayerRange,
    /// No game layer.
    MissingGameLayer,
    /// More than one physics layer of a kind (the last one counts).
    DuplicatePhysicsLayer,
    /// A layer type other than tiles, quads and sounds.
    UnknownLayerType,
    /// Tile layer flags with several or unknown physics bits.
    OddLayerFlags,
    /// An envelope's point range is outside the envelope points.
    EnvPointRange,
    /// An envelope point has an unknown curve type.
    BadCurveType,
    /// An embedded image has no data, or data of another size than
    /// width × height × bytes per pixel.
    ImageDataSize,
    /// A sound marked external (no client can load those).
    ExternalSound,
    /// More than one version or info item.
    DuplicateItem,
    /// Speedup or switch tiles in the early DDRace layout (4-byte speedup,
    /// 2-byte switch tiles), read as such.
    LegacyTileFormat,
    /// An image or sound without a name.
    MissingName,
    /// A quads layer's data is not `num_quads` × 152 bytes (the summary
    /// then counts the quads the data holds).
    QuadsDataSize,
    /// A tile layer's tile data index is not a data block.
    TileDataOutOfRange,
    /// An item lies outside every range of the item type table: no view
    /// reads it.
    ItemNotInTypeTable,
    /// An entity item of a Teeworlds 0.3 map that makes no tile (a gun,
    /// sniper or hammer pickup, an unknown pickup, or outside the collision
    /// map), as the 0.4 editor's importer dropped it.
    LegacyEntityDropped,
    /// The map already has [`super::MAX_WARNINGS`] warnings: this one stands
    /// for the first left out; later ones are dropped.
    TooManyWarnings,
}

crate::kind::kind_names!(MapWarningKind {
    DuplicateUuidIndex => "duplicate_uuid_index",
    TileDataOutOfRange => "tile_data_out_of_range",
    ItemNotInTypeTable => "item_not_in_type_table",
    BadUuidIndex => "bad_uuid_index",
    OddItemSize => "odd_item_size",
    RefOutOfRange => "ref_out_of_range",
    NonZeroTilePadding => "non_zero_tile_padding",
    StringUnterminated => "string_unterminated",
    StringTruncated => "string_truncated",
    GroupLayerRange => "group_layer_range",
    MissingGameLayer => "missing_game_layer",
    DuplicatePhysicsLayer => "duplicate_physics_layer",
    UnknownLayerType => "unknown_layer_type",
    OddLayerFlags => "odd_layer_flags",
    EnvPointRange => "env_point_range",
    BadCurveType => "bad_curve_type",
    ImageDataSize => "image_data_size",
    ExternalSound => "external_sound",
    DuplicateItem => "duplicate_item",
    LegacyTileFormat => "legacy_tile_format",
    MissingName => "missing_name",
    QuadsDataSize => "quads_data_size",
    LegacyEntityDropped => "legacy_entity_dropped",
    TooManyWarnings => crate::kind::TOO_MANY_WARNINGS,
});

impl fmt::Display for MapWarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())
    }
}

impl Serialize for MapWarningKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.kind())
    }
}

/// A warning: the kind, the section and the byte offset in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct MapWarning {
    pub kind: MapWarningKind,
    pub section: MapSection,
    pub offset: u64,
}

impl MapWarning {
    pub(crate) fn new(kind: MapWarningKind, section: MapSection, offset: usize) -> Self {
        MapWarning {
            kind,
            section,
            offset: offset as u64,
        }
    }
}

impl crate::warn::TooMany for MapWarning {
    fn too_many(self) -> Self {
        MapWarning {
            kind: MapWarningKind::TooManyWarnings,
            ..self
        }
    }
}

impl fmt::Display for MapWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} in {} at byte {}",
            self.kind, self.section, self.offset
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every error kind has words of its own (not its snake_case code),
    /// and the message is those words, the section and the offset.
    #[test]
    fn messages_describe_the_kind() {
        let all = MapErrorKind::all();
        let words: std::collections::HashSet<_> = all.iter().map(|k| k.describe()).collect();
        assert_eq!(words.len(), all.len(), "two kinds share their words");
        for k in all {
            assert_ne!(k.describe(), k.kind(), "{k:?}");
        }
        let e = MapError::new(MapErrorKind::TileDataSize, MapSection::Layer(8), 5198);
        assert_eq!(
            e.to_string(),
            "tile data is not width × height tiles in layer 8 at byte 5198"
        );
        let e = MapError::from(datafile::Error::new(
            datafile::ErrorKind::Inflate,
            datafile::Section::Data(4),
            1008,
        ));
        assert_eq!(
            e.to_string(),
            "zlib stream is corrupt in data 4 at byte 1008"
        );
    }
}
