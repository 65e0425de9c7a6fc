//! One map inside out, for `teebatch maps info`: the item types and their
//! counts, the groups with their layers, images, envelopes, sounds and the
//! server settings, as read by [`Map::parse`] (every reference checked).
//!
//! Nothing here inflates: the names and settings are those the map view
//! read, the envelope points are read from the points item's ints, and the
//! image and sound sizes are those of the datafile's size table.

use super::items::view::EnvPoint;
use super::{
    Info, LayerKind, Map, MapVersionKind, UuidType, ITEM_ENVELOPE, ITEM_ENVPOINTS, ITEM_GROUP,
    ITEM_IMAGE, ITEM_INFO, ITEM_LAYER, ITEM_SOUND, ITEM_UUID_INDEX, ITEM_VERSION,
};
use crate::datafile::Datafile;
use crate::map::ImageVariant;
use serde::Serialize;
use std::collections::BTreeMap;

/// The items of one type id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ItemTypeCount {
    pub type_id: u16,
    /// `version`, `info`, `image`, `envelope`, `group`, `layer`,
    /// `envpoints`, `sound`, `uuid_index`; for a type declared by UUID,
    /// DDNet's name of the UUID (else the UUID); `unknown` otherwise.
    pub name: String,
    pub items: usize,
}

/// The item types of `df` in the order of its type table, named with the
/// map's UUID declarations `uuid_types` (empty when the map part was not
/// read).
pub fn item_types(df: &Datafile<'_>, uuid_types: &[UuidType]) -> Vec<ItemTypeCount> {
    df.item_types()
        .iter()
        .map(|t| {
            let name = match t.type_id {
                ITEM_VERSION => "version".to_owned(),
                ITEM_INFO => "info".to_owned(),
                ITEM_IMAGE => "image".to_owned(),
                ITEM_ENVELOPE => "envelope".to_owned(),
                ITEM_GROUP => "group".to_owned(),
                ITEM_LAYER => "layer".to_owned(),
                ITEM_ENVPOINTS => "envpoints".to_owned(),
                ITEM_SOUND => "sound".to_owned(),
                ITEM_UUID_INDEX => "uuid_index".to_owned(),
                id => match uuid_types.iter().find(|u| u.type_id == id) {
                    Some(u) => u.name.map_or_else(|| u.uuid.clone(), str::to_owned),
                    None => "unknown".to_owned(),
                },
            };
            ItemTypeCount {
                type_id: t.type_id,
                name,
                items: t.num,
            }
        })
        .collect()
}

/// What `maps info` shows of a map part.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inspection {
    /// `ddnet06` or `teeworlds07` (see [`MapVersionKind`]).
    pub version_kind: MapVersionKind,
    /// The info item (author, version, credits, license, settings).
    pub info: Option<Info>,
    pub groups: Vec<GroupInfo>,
    /// Layers outside every group's layer range (DDNet never draws them).
    pub ungrouped_layers: Vec<LayerInfo>,
    pub images: Vec<ImageInfo>,
    pub envelopes: Vec<EnvelopeInfo>,
    /// Points in the envelope points item.
    pub envelope_points: usize,
    pub sounds: Vec<SoundInfo>,
}

/// A group and its layers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GroupInfo {
    pub index: usize,
    pub name: String,
    pub version: i32,
    /// Offset x, y (pixels).
    pub offset: [i32; 2],
    /// Parallax x, y (percent; 100 moves with the game layer, 0 follows
    /// the camera).
    pub parallax: [i32; 2],
    /// The clipping rectangle (group version 2 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<ClipInfo>,
    pub layers: Vec<LayerInfo>,
}

/// A group's clipping rectangle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClipInfo {
    pub enabled: bool,
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

/// A layer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LayerInfo {
    /// Its position among the layer items.
    pub index: usize,
    pub name: String,
    /// `tiles`, `game`, `front`, `tele`, `speedup`, `switch`, `tune`,
    /// `quads`, `sounds`, `sounds_deprecated` or `unknown`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Layer flag bit 0: a detail layer (hidden at low detail).
    pub detail: bool,
    /// The layer item's version (of its type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<i32>,
    /// Tile layers: size in tiles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<i32>,
    /// Tile layers: the tilemap flags (1 game, 2 tele, 4 speedup, 8 front,
    /// 16 switch, 32 tune).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<i32>,
    /// Tile layers: the colour, RGBA 0–255.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<[i32; 4]>,
    /// Tile layers: the colour envelope and its time offset (ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color_envelope: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color_envelope_offset: Option<i32>,
    /// Tile and quads layers: the image (index and name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_name: Option<String>,
    /// Quads layers: the quads claimed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quads: Option<i32>,
    /// Sounds layers: the sound sources claimed and the sound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sources: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sound: Option<usize>,
    /// A layer of an unknown type: its type value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_type: Option<i32>,
}

/// An image.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ImageInfo {
    pub index: usize,
    pub name: Option<String>,
    /// A mapres image the game loads by name (no pixels in the map).
    pub external: bool,
    pub width: i32,
    pub height: i32,
    pub version: i32,
    /// `rgba`, `rgb` (0.7 image variant 0) or `other(N)`.
    pub format: String,
    /// Embedded images: bytes of the pixel data (size table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_bytes: Option<usize>,
}

/// An envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EnvelopeInfo {
    pub index: usize,
    pub name: String,
    pub version: i32,
    /// 1 sound (volume), 3 position (x, y, rotation), 4 colour (RGBA).
    pub channels: i32,
    /// `sound`, `position`, `color` or `unknown`, from `channels`.
    pub kind: &'static str,
    pub synchronized: bool,
    pub start_point: i32,
    pub points: i32,
    /// Time of the last point (ms), when the points are in the points item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<i32>,
    /// Points per curve type (`step`, `linear`, `slow`, `fast`, `smooth`,
    /// `bezier`, `other(N)`).
    pub curve_types: BTreeMap<String, usize>,
}

/// A sound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SoundInfo {
    pub index: usize,
    pub name: Option<String>,
    pub external: bool,
    /// Bytes of the (opus) data.
    pub bytes: usize,
}

/// DDNet's name of an envelope point's curve type (`CURVETYPE_*`).
pub(crate) fn curve_type_name(curve: i32) -> String {
    match curve {
        0 => "step".to_owned(),
        1 => "linear".to_owned(),
        2 => "slow".to_owned(),
        3 => "fast".to_owned(),
        4 => "smooth".to_owned(),
        5 => "bezier".to_owned(),
        n => format!("other({n})"),
    }
}

/// The layer type name of `kind` (see [`LayerInfo::kind`]).
pub(crate) fn layer_type_name(kind: &LayerKind) -> &'static str {
    use crate::map::PhysicsKind as P;
    match kind {
        LayerKind::Tilemap(t) => match t.kind {
            P::Tiles => "tiles",
            P::Game => "game",
            P::Front => "front",
            P::Tele => "tele",
            P::Speedup => "speedup",
            P::Switch => "switch",
            P::Tune => "tune",
        },
        LayerKind::Quads(_) => "quads",
        LayerKind::Sounds(s) if s.deprecated => "sounds_deprecated",
        LayerKind::Sounds(_) => "sounds",
        LayerKind::Unknown(_) => "unknown",
    }
}

/// The inspection of `map`, read from `df`.
pub fn inspect(df: &Datafile<'_>, map: &Map) -> Inspection {
    let image_name = |i: Option<usize>| {
        i.and_then(|i| map.images.get(i))
            .and_then(|im| im.name.clone())
    };
    let mut groups: Vec<GroupInfo> = map
        .groups
        .iter()
        .enumerate()
        .map(|(index, g)| GroupInfo {
            index,
            name: g.name.clone(),
            version: g.version,
            offset: [g.offset.0, g.offset.1],
            parallax: [g.parallax.0, g.parallax.1],
            clip: g.clip.map(|c| ClipInfo {
                enabled: c.enabled,
                x: c.x,
                y: c.y,
                width: c.width,
                height: c.height,
            }),
            layers: Vec::new(),
        })
        .collect();
    let mut ungrouped = Vec::new();
    for (index, l) in map.layers.iter().enumerate() {
        let mut info = LayerInfo {
            index,
            name: l.name.clone(),
            kind: layer_type_name(&l.kind),
            detail: l.detail,
            ..LayerInfo::default()
        };
        match &l.kind {
            LayerKind::Tilemap(t) => {
                info.version = Some(t.version);
                info.width = Some(t.width);
                info.height = Some(t.height);
                info.flags = Some(t.flags);
                info.color = Some(t.color);
                info.color_envelope = t.color_env;
                info.color_envelope_offset = t.color_env.map(|_| t.color_env_offset);
                info.image = t.image;
                info.image_name = image_name(t.image);
            }
            LayerKind::Quads(q) => {
                info.version = Some(q.version);
                info.quads = Some(q.num_quads);
                info.image = q.image;
                info.image_name = image_name(q.image);
            }
            LayerKind::Sounds(s) => {
                info.version = Some(s.version);
                info.sources = Some(s.num_sources);
                info.sound = s.sound;
            }
            LayerKind::Unknown(t) => info.unknown_type = Some(*t),
        }
        match l.group.and_then(|g| groups.get_mut(g)) {
            Some(g) => g.layers.push(info),
            None => ungrouped.push(info),
        }
    }
    let images = map
        .images
        .iter()
        .enumerate()
        .map(|(index, im)| ImageInfo {
            index,
            name: im.name.clone(),
            external: im.external,
            width: im.width,
            height: im.height,
            version: im.version,
            format: match im.variant {
                ImageVariant::Rgba => "rgba".to_owned(),
                ImageVariant::Rgb => "rgb".to_owned(),
                ImageVariant::Other(n) => format!("other({n})"),
            },
            data_bytes: im.data.and_then(|d| df.data_size(d)),
        })
        .collect();
    let points = df.items_of_type(ITEM_ENVPOINTS).next();
    let envelopes = map
        .envelopes
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let mut curve_types = BTreeMap::new();
            let mut duration_ms = None;
            if let (Some(it), Ok(start), Ok(n)) = (
                &points,
                usize::try_from(e.start_point),
                usize::try_from(e.num_points),
            ) {
                let per = map.env_points.ints_per_point;
                // Only points that lie wholly inside the item (the map
                // warned `env_point_range` otherwise); at most the item's.
                let n = n.min(map.env_points.count.saturating_sub(start));
                for p in (start..start + n)
                    .map_while(|p| EnvPoint::nth(it.data, it.data_offset(), per, p))
                {
                    *curve_types
                        .entry(curve_type_name(p.curve_type()))
                        .or_default() += 1;
                    duration_ms = Some(p.time());
                }
            }
            EnvelopeInfo {
                index,
                name: e.name.clone(),
                version: e.version,
                channels: e.channels,
                kind: match e.channels {
                    1 => "sound",
                    3 => "position",
                    4 => "color",
                    _ => "unknown",
                },
                synchronized: e.synchronized,
                start_point: e.start_point,
                points: e.num_points,
                duration_ms,
                curve_types,
            }
        })
        .collect();
    let sounds = map
        .sounds
        .iter()
        .enumerate()
        .map(|(index, s)| SoundInfo {
            index,
            name: s.name.clone(),
            external: s.external,
            bytes: s.size,
        })
        .collect();
    Inspection {
        version_kind: map.kind,
        info: map.info.clone(),
        groups,
        ungrouped_layers: ungrouped,
        images,
        envelopes,
        envelope_points: map.env_points.count,
        sounds,
    }
}
