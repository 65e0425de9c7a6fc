//! Layer items (type 5): tilemaps, quads and sounds layers.

use super::reader::{too_short, Reader};
use super::view::{self, LayerItem, QuadsItem, TilemapItem};
use super::{
    Layer, LayerKind, QuadsLayer, SoundsLayer, Tilemap, LAYER_QUADS, LAYER_SOUNDS,
    LAYER_SOUNDS_DEPRECATED, LAYER_TILEMAP,
};
use crate::datafile::Item;
use crate::map::error::{MapError, MapSection, MapWarningKind as W};
use crate::map::tiles::PhysicsKind;

/// The item counts a layer's references are checked against.
pub(super) struct RefCounts {
    pub images: usize,
    pub envelopes: usize,
    pub sounds: usize,
}

/// Layer `i` (its group is set later, from the groups' layer ranges).
pub(super) fn read_layer(
    r: &mut Reader<'_, '_>,
    i: usize,
    it: &Item<'_>,
    counts: &RefCounts,
) -> Result<Layer, MapError> {
    let s = MapSection::Layer(i as u32);
    let v = view::of(it, LayerItem::new);
    if v.len() < LayerItem::LAYER_FLAGS + 1 {
        return Err(too_short(s, it));
    }
    let layer_type = v.layer_type();
    let detail = v.layer_flags() & 1 != 0;
    let (kind, name) = match layer_type {
        LAYER_TILEMAP => {
            let (tm, name) = read_tilemap(r, s, it, counts)?;
            (LayerKind::Tilemap(tm), name)
        }
        LAYER_QUADS => {
            let q = view::of(it, QuadsItem::new);
            if q.len() < QuadsItem::MIN_LEN {
                return Err(too_short(s, it));
            }
            let version = q.version();
            // 7: v1; 10: v2 with its name.
            if ![7, 10].contains(&q.len()) {
                r.warn(W::OddItemSize, s, it.offset);
            }
            let name = if version >= 2 {
                r.item_name(it, QuadsItem::NAME, QuadsItem::NAME_LEN, s)
            } else {
                String::new()
            };
            let num_quads = q.count();
            if num_quads < 0 {
                r.warn(W::OddItemSize, s, q.offset_of(QuadsItem::COUNT));
            }
            if num_quads > 0 {
                r.opt_data(q.data(), s, q.offset_of(QuadsItem::DATA));
            }
            let image = r.opt_ref(q.source(), counts.images, s, q.offset_of(QuadsItem::SOURCE));
            let layer = QuadsLayer {
                version,
                num_quads,
                data: q.data(),
                image,
            };
            (LayerKind::Quads(layer), name)
        }
        LAYER_SOUNDS | LAYER_SOUNDS_DEPRECATED => {
            let q = view::of(it, QuadsItem::new);
            if q.len() < QuadsItem::MIN_LEN {
                return Err(too_short(s, it));
            }
            if q.len() != 10 {
                r.warn(W::OddItemSize, s, it.offset);
            }
            let name = r.item_name(it, QuadsItem::NAME, QuadsItem::NAME_LEN, s);
            let num_sources = q.count();
            if num_sources > 0 {
                r.opt_data(q.data(), s, q.offset_of(QuadsItem::DATA));
            }
            let sound = r.opt_ref(q.source(), counts.sounds, s, q.offset_of(QuadsItem::SOURCE));
            let layer = SoundsLayer {
                deprecated: layer_type == LAYER_SOUNDS_DEPRECATED,
                version: q.version(),
                num_sources,
                data: q.data(),
                sound,
            };
            (LayerKind::Sounds(layer), name)
        }
        other => {
            r.warn(W::UnknownLayerType, s, v.offset_of(LayerItem::LAYER_TYPE));
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

/// A tilemap layer and its name.
fn read_tilemap(
    r: &mut Reader<'_, '_>,
    s: MapSection,
    it: &Item<'_>,
    counts: &RefCounts,
) -> Result<(Tilemap, String), MapError> {
    let v = view::of(it, TilemapItem::new);
    if v.len() < TilemapItem::MIN_LEN {
        return Err(too_short(s, it));
    }
    let version = v.version();
    let flags = v.flags();
    let (kind, odd) = PhysicsKind::from_flags(flags);
    if odd {
        r.warn(W::OddLayerFlags, s, v.offset_of(TilemapItem::FLAGS));
    }
    let name = if version >= 3 {
        r.item_name(it, TilemapItem::NAME, TilemapItem::NAME_LEN, s)
    } else {
        String::new()
    };
    let ext = if version <= 2 {
        TilemapItem::EXT_V2
    } else {
        TilemapItem::EXT_V3
    };
    let special_slot = match kind {
        PhysicsKind::Tiles | PhysicsKind::Game => None,
        PhysicsKind::Tele => Some(ext),
        PhysicsKind::Speedup => Some(ext + 1),
        PhysicsKind::Front => Some(ext + 2),
        PhysicsKind::Switch => Some(ext + 3),
        PhysicsKind::Tune => Some(ext + 4),
    };
    let special_data = match special_slot {
        Some(k) => Some(v.get(k).ok_or_else(|| too_short(s, it))?),
        None => None,
    };
    // 15/18: vanilla v2/v3; 17, 19, 20: old DDRace v2 with 2, 4
    // or 5 extension ints; 22/23: DDNet v3 with 4 or 5.
    let known_len = [15, 17, 18, 19, 20, 22, 23];
    if !known_len.contains(&v.len()) {
        r.warn(W::OddItemSize, s, it.offset);
    }
    let color_env = r.opt_ref(
        v.color_env(),
        counts.envelopes,
        s,
        v.offset_of(TilemapItem::COLOR_ENV),
    );
    let image = r.opt_ref(v.image(), counts.images, s, v.offset_of(TilemapItem::IMAGE));
    let tm = Tilemap {
        version,
        width: v.width(),
        height: v.height(),
        flags,
        kind,
        color: v.rgba(),
        color_env,
        color_env_offset: v.color_env_offset(),
        image,
        data: v.data(),
        special_data,
    };
    // The main data of special layers is a zeroed vanilla copy:
    // only its reference is checked.
    if special_data.is_some() {
        r.opt_data(tm.data, s, v.offset_of(TilemapItem::DATA));
    }
    // The tile data itself must exist: a layer pointing past the
    // data blocks has no tiles (its statistics fail if it is read).
    let tile_field = v.offset_of(special_slot.unwrap_or(TilemapItem::DATA));
    if tm.tile_block(r.df).is_none() {
        r.warn(W::TileDataOutOfRange, s, tile_field);
    }
    Ok((tm, name))
}
