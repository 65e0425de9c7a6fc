//! Maps of Teeworlds 0.3 and before (2007): datafiles without a version
//! item, whose map is a set of `MAPRES_*` items instead of groups and
//! layers.
//!
//! The layout, from the Teeworlds 0.3 game (`game/mapres.h`,
//! `mapres_col.cpp`) and the importer the 0.4/0.5 editor kept for them
//! (`editor_load_old` in `ed_io.cpp`, commented out there):
//!
//! | item type | ints | meaning |
//! |---|---|---|
//! | 1 `MAPRES_SPAWNPOINT` | x, y | a spawn, world units (32 per tile) |
//! | 2 `MAPRES_ITEM` | x, y, type | a pickup: `0x10002` shotgun, `0x10003` rocket (grenade), `0x20001` health, `0x30001` armor, `0x40001` ninja; `0x10001` gun, `0x10004` sniper, `0x10005` hammer |
//! | 3, 4 `MAPRES_SPAWNPOINT_RED`/`_BLUE` | x, y | team spawns |
//! | 5, 6 `MAPRES_FLAGSTAND_RED`/`_BLUE` | x, y | flag stands |
//! | `0x8001` `MAPRES_IMAGE` | width, height, data | an embedded RGBA image |
//! | `0x8002` `MAPRES_TILEMAP` | image, width, height, x, y, scale, data, main | a drawn tile layer, 2 bytes (index, flags) per tile |
//! | `0x8003` `MAPRES_COLLISIONMAP` | width, height, data | the game's collision: one byte per tile, 0 free, 1 solid |
//! | `0x8fff` `MAPRES_TEMP_THEME` | | not read |
//!
//! What the game read of them is what this module reads: the collision
//! map (id 0) becomes a game layer of its size whose tile ids are the
//! collision bytes (0 air, 1 `SOLID`, the same ids in later maps), and each
//! entity item becomes the entity tile the importer made of it, at tile
//! `(x / 32, y / 32)` (C division): spawns, team spawns, flag stands, and of
//! the pickups shotgun, grenade, ninja, armor and health. The importer made
//! no tile of the gun, sniper and hammer pickups (later maps have none: every
//! tee holds gun and hammer), nor of an entity outside the collision map;
//! such an item is a warning `legacy_entity_dropped` here. A later item in
//! the same cell replaces an earlier one, as in the importer.

use super::error::{MapError, MapErrorKind as E, MapSection, MapWarning, MapWarningKind};
use super::names::{self, ENTITY_OFFSET};
use super::tiles::PhysicsKind;
use super::TileLayer;
use crate::datafile::{Datafile, Inflater};
use crate::warn::Warn;

/// The `version_kind` of these maps in the index records.
pub const VERSION_KIND: &str = "teeworlds03";

/// `MAPRES_IMAGE`.
pub const MAPRES_IMAGE: u16 = 0x8001;
/// `MAPRES_TILEMAP`.
pub const MAPRES_TILEMAP: u16 = 0x8002;
/// `MAPRES_COLLISIONMAP`.
pub const MAPRES_COLLISIONMAP: u16 = 0x8003;
/// `MAPRES_ITEM`: a pickup, whose third int is its type.
const MAPRES_ITEM: u16 = 2;

/// The entity of the entity item types 1..=6 (`MAPRES_ITEM` by its type).
fn entity_of(item_type: u16, pickup: Option<i32>) -> Option<u8> {
    Some(match item_type {
        1 => names::ENTITY_SPAWN,
        3 => names::ENTITY_SPAWN_RED,
        4 => names::ENTITY_SPAWN_BLUE,
        5 => names::ENTITY_FLAGSTAND_RED,
        6 => names::ENTITY_FLAGSTAND_BLUE,
        MAPRES_ITEM => match pickup? {
            0x0001_0002 => names::ENTITY_WEAPON_SHOTGUN,
            0x0001_0003 => names::ENTITY_WEAPON_GRENADE,
            0x0004_0001 => names::ENTITY_POWERUP_NINJA,
            0x0003_0001 => names::ENTITY_ARMOR_1,
            0x0002_0001 => names::ENTITY_HEALTH_1,
            _ => return None,
        },
        _ => return None,
    })
}

/// Whether `df` is a Teeworlds 0.3 map: no version item (type 0), and a
/// collision map item.
pub fn is_legacy(df: &Datafile<'_>) -> bool {
    df.items_of_type(0).next().is_none() && df.items_of_type(MAPRES_COLLISIONMAP).next().is_some()
}

/// What a Teeworlds 0.3 map holds besides its game layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LegacyCounts {
    /// `MAPRES_IMAGE` items (embedded images).
    pub images: usize,
    /// `MAPRES_TILEMAP` items (drawn tile layers).
    pub tilemaps: usize,
    /// Entity items (types 1..=6).
    pub entities: usize,
}

/// Counts the items of a Teeworlds 0.3 map.
pub fn counts(df: &Datafile<'_>) -> LegacyCounts {
    let n = |t: u16| df.items_of_type(t).len();
    LegacyCounts {
        images: n(MAPRES_IMAGE),
        tilemaps: n(MAPRES_TILEMAP),
        entities: (1..=6).map(n).sum(),
    }
}

/// The game layer of a Teeworlds 0.3 map (see the module docs), or `None`
/// if `df` is not one ([`is_legacy`]). The collision data is inflated into
/// `scratch`; entities that make no tile go to `warn`.
pub fn game_layer(
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    scratch: &mut Vec<u8>,
    warn: &mut impl Warn<MapWarning>,
) -> Result<Option<TileLayer>, MapError> {
    if !is_legacy(df) {
        return Ok(None);
    }
    let collision = MAPRES_COLLISIONMAP;
    let item = df
        .find_item(collision, 0)
        .or_else(|| df.items_of_type(collision).next())
        .expect("is_legacy found one");
    let section = MapSection::Item(item.index as u32);
    let at = item.offset;
    let (Some(w), Some(h), Some(data)) = (item.data.get(0), item.data.get(1), item.data.get(2))
    else {
        return Err(MapError::new(E::ItemTooShort, section, at));
    };
    let (Ok(width), Ok(height)) = (usize::try_from(w), usize::try_from(h)) else {
        return Err(MapError::new(E::BadLayerSize, section, at));
    };
    if width == 0 || height == 0 {
        return Err(MapError::new(E::BadLayerSize, section, at));
    }
    let Some(data) = usize::try_from(data).ok().filter(|&d| d < df.num_data()) else {
        return Err(MapError::new(E::BadDataRef, section, at));
    };
    // Both are below 2^31: no overflow in u64. The layer costs 4 bytes a
    // tile besides the collision bytes.
    let num_tiles = width as u64 * height as u64;
    let data_at = df.data_range(data).map_or(0, |r| r.start);
    let game_bytes = num_tiles * PhysicsKind::Game.tile_size() as u64;
    if game_bytes > inflater.limits().max_decompressed_bytes || game_bytes > usize::MAX as u64 / 2 {
        return Err(MapError::new(E::LimitExceeded, section, data_at));
    }
    if df.data_size(data).map(|s| s as u64) != Some(num_tiles) {
        return Err(MapError::new(
            E::TileDataSize,
            MapSection::Data(data as u32),
            data_at,
        ));
    }
    df.decompress(data, inflater, scratch)?;
    let ts = PhysicsKind::Game.tile_size();
    let mut bytes = vec![0u8; width * height * ts];
    for (tile, &id) in bytes.chunks_exact_mut(ts).zip(scratch.iter()) {
        tile[0] = id;
    }
    for t in 1..=6u16 {
        for e in df.items_of_type(t) {
            let need = if t == MAPRES_ITEM { 3 } else { 2 };
            if e.data.len() < need {
                return Err(MapError::new(
                    E::ItemTooShort,
                    MapSection::Item(e.index as u32),
                    e.offset,
                ));
            }
            let (x, y) = (e.data.get(0).unwrap_or(0), e.data.get(1).unwrap_or(0));
            let entity = entity_of(t, e.data.get(2));
            // C's division truncates toward zero, as Rust's does.
            let (tx, ty) = (x / 32, y / 32);
            let inside = tx >= 0 && ty >= 0 && (tx as usize) < width && (ty as usize) < height;
            let cell = if inside {
                Some(ty as usize * width + tx as usize)
            } else {
                None
            };
            match (entity, cell) {
                (Some(entity), Some(cell)) => bytes[cell * ts] = ENTITY_OFFSET + entity,
                _ => warn.warn(MapWarning::new(
                    MapWarningKind::LegacyEntityDropped,
                    MapSection::Item(e.index as u32),
                    e.offset,
                )),
            }
        }
    }
    Ok(Some(TileLayer {
        kind: PhysicsKind::Game,
        width,
        height,
        bytes,
    }))
}
