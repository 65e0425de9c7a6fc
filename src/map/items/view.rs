//! Typed views of the map items' ints: every field is read by name (see the
//! layout table in [`super`]). Fields a short item lacks read as 0, or as
//! the default written after `or`.

use crate::bytes::int_view;
use crate::datafile::Item;

/// The view `V` of item `it`'s data.
pub(crate) fn of<'a, V>(it: &Item<'a>, new: fn(crate::bytes::LeI32s<'a>, usize) -> V) -> V {
    new(it.data, it.data_offset())
}

int_view! {
    /// Version item (type 0).
    pub(crate) struct VersionItem {
        version: VERSION = 0,
    }
}

int_view! {
    /// Info item (type 1): data indices of its strings, -1 when absent.
    pub(crate) struct InfoItem {
        version: VERSION = 0,
        author: AUTHOR = 1 or -1,
        map_version: MAP_VERSION = 2 or -1,
        credits: CREDITS = 3 or -1,
        license: LICENSE = 4 or -1,
        /// DDNet: server settings, one command per line.
        settings: SETTINGS = 5 or -1,
    }
}

int_view! {
    /// Image item (type 2).
    pub(crate) struct ImageItem {
        version: VERSION = 0,
        width: WIDTH = 1,
        height: HEIGHT = 2,
        external: EXTERNAL = 3,
        name: NAME = 4 or -1,
        data: DATA = 5,
        /// Version 2 (0.7): 0 RGB, 1 RGBA.
        variant: VARIANT = 6 or 1,
    }
}

int_view! {
    /// Envelope item (type 3); the name is an I32String of
    /// [`EnvelopeItem::NAME_LEN`] ints.
    pub(crate) struct EnvelopeItem {
        version: VERSION = 0,
        channels: CHANNELS = 1,
        start_point: START_POINT = 2,
        num_points: NUM_POINTS = 3,
        name: NAME = 4,
        /// Version 2 and later.
        synchronized: SYNCHRONIZED = 12,
    }
}

impl EnvelopeItem<'_> {
    pub const NAME_LEN: usize = 8;
}

int_view! {
    /// Group item (type 4); clipping from version 2, the name (an
    /// I32String of [`GroupItem::NAME_LEN`] ints) from version 3.
    pub(crate) struct GroupItem {
        version: VERSION = 0,
        offset_x: OFFSET_X = 1,
        offset_y: OFFSET_Y = 2,
        parallax_x: PARALLAX_X = 3,
        parallax_y: PARALLAX_Y = 4,
        start_layer: START_LAYER = 5,
        num_layers: NUM_LAYERS = 6,
        clipping: CLIPPING = 7,
        clip_x: CLIP_X = 8,
        clip_y: CLIP_Y = 9,
        clip_w: CLIP_W = 10,
        clip_h: CLIP_H = 11,
        name: NAME = 12,
    }
}

impl GroupItem<'_> {
    pub const NAME_LEN: usize = 3;
}

int_view! {
    /// The ints every layer item (type 5) starts with.
    pub(crate) struct LayerItem {
        layer_version: LAYER_VERSION = 0,
        layer_type: LAYER_TYPE = 1,
        /// Bit 0: detail layer.
        layer_flags: LAYER_FLAGS = 2,
    }
}

int_view! {
    /// Tilemap layer item. The DDNet extension (data indices of the tele,
    /// speedup, front, switch and tune tiles, in that order) starts at
    /// [`TilemapItem::EXT_V3`] after the version 3 name, but at
    /// [`TilemapItem::EXT_V2`] in version ≤ 2 tilemaps (old DDRace maps).
    pub(crate) struct TilemapItem {
        version: VERSION = 3,
        width: WIDTH = 4,
        height: HEIGHT = 5,
        flags: FLAGS = 6,
        /// Red; green, blue and alpha follow.
        color: COLOR = 7,
        color_env: COLOR_ENV = 11,
        color_env_offset: COLOR_ENV_OFFSET = 12,
        image: IMAGE = 13,
        data: DATA = 14,
        /// Version 3 and later: an I32String of [`TilemapItem::NAME_LEN`] ints.
        name: NAME = 15,
    }
}

impl TilemapItem<'_> {
    pub const NAME_LEN: usize = 3;
    /// Fewest ints of a tilemap item (version ≤ 2, no extension).
    pub const MIN_LEN: usize = 15;
    pub const EXT_V2: usize = 15;
    pub const EXT_V3: usize = 18;

    /// The color, RGBA.
    pub fn rgba(&self) -> [i32; 4] {
        let c = Self::COLOR;
        [0, 1, 2, 3].map(|k| self.get(c + k).unwrap_or(0))
    }
}

int_view! {
    /// Quads layer item, and sounds layer item (the same layout: count,
    /// data, image or sound, then a name of [`QuadsItem::NAME_LEN`] ints from
    /// version 2 for quads, always for sounds).
    pub(crate) struct QuadsItem {
        version: VERSION = 3,
        count: COUNT = 4,
        data: DATA = 5,
        /// The image (quads) or the sound (sounds layers).
        source: SOURCE = 6,
        name: NAME = 7,
    }
}

impl QuadsItem<'_> {
    pub const NAME_LEN: usize = 3;
    /// Fewest ints of a quads or sounds layer item.
    pub const MIN_LEN: usize = 7;
}

int_view! {
    /// Sound item (type 7).
    pub(crate) struct SoundItem {
        version: VERSION = 0,
        external: EXTERNAL = 1,
        name: NAME = 2,
        data: DATA = 3,
        data_size: DATA_SIZE = 4,
    }
}

int_view! {
    /// UUID index item (0xFFFF): the UUID as 4 big-endian ints.
    pub(crate) struct UuidIndexItem {
        uuid0: UUID0 = 0,
        uuid1: UUID1 = 1,
        uuid2: UUID2 = 2,
        uuid3: UUID3 = 3,
    }
}

int_view! {
    /// One envelope point (6 ints, or 22 with bezier tangents): time in
    /// milliseconds, curve type, four channel values in fixed point
    /// (1024 = 1.0; r, g, b, a, or x, y, rotation), then the tangents.
    pub(crate) struct EnvPoint {
        time: TIME = 0,
        curve_type: CURVE_TYPE = 1,
        value_0: VALUE_0 = 2,
        value_1: VALUE_1 = 3,
        value_2: VALUE_2 = 4,
        value_3: VALUE_3 = 5,
    }
}

impl<'a> EnvPoint<'a> {
    /// Ints per point without bezier tangents.
    pub const INTS: usize = 6;
    /// Ints of one point's bezier tangents (in-tangent Δtime and Δvalue,
    /// out-tangent Δtime and Δvalue, each for the 4 channels), after its
    /// [`EnvPoint::INTS`] in a version 3 points item, or one record of
    /// DDNet's separate bezier item.
    pub const TANGENT_INTS: usize = 16;
    /// Ints per point with bezier tangents (any envelope of version 3).
    pub const BEZIER_INTS: usize = Self::INTS + Self::TANGENT_INTS;

    /// Point `i` of the envelope points item's ints `points` (whose first
    /// int is at byte `base` of the file), `ints_per_point` ints each; `None`
    /// when it does not lie wholly inside.
    pub fn nth(
        points: crate::bytes::LeI32s<'a>,
        base: usize,
        ints_per_point: usize,
        i: usize,
    ) -> Option<Self> {
        let start = i.checked_mul(ints_per_point)?.checked_mul(4)?;
        let end = start.checked_add(ints_per_point.checked_mul(4)?)?;
        let bytes = points.as_bytes().get(start..end)?;
        Some(EnvPoint::new(
            crate::bytes::LeI32s::new(bytes),
            base + start,
        ))
    }

    /// The four channel values (fixed point).
    #[cfg(feature = "render")]
    pub fn values(&self) -> [i32; 4] {
        [
            self.value_0(),
            self.value_1(),
            self.value_2(),
            self.value_3(),
        ]
    }
}

int_view! {
    /// One quad of a quads layer's data ([`super::QUAD_SIZE`] bytes):
    /// 5 points, 4 colors, 4 texture coordinates (2, 4, 2 ints each), then
    /// the envelope references (-1 for none).
    pub(crate) struct QuadData {
        pos_env: POS_ENV = 34 or -1,
        pos_env_offset: POS_ENV_OFFSET = 35,
        color_env: COLOR_ENV = 36 or -1,
        color_env_offset: COLOR_ENV_OFFSET = 37,
    }
}
