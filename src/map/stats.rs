//! Derived statistics and the index summary of a map.
//!
//! [`summarize`] is the fast path of `maps index`: it reads the item tables,
//! inflates the info strings and the tile data of the six physics layers (the
//! last layer of each kind, as DDNet uses) and nothing else: no image pixels,
//! no sounds, no quads, no plain tile layers. Each physics layer becomes a
//! 256-entry histogram of its tile id byte ([`super::tiles::histogram`]);
//! counts and special tile names come from the histograms. Tile skip data is
//! counted run by run without expanding it.

use super::error::{MapError, MapWarning};
use super::items::{absent_reason, AbsentReason, Info, LayerKind, LoadOptions, Map, UuidType};
use super::names::{self, ENTITY_OFFSET};
use super::tiles::{PhysicsKind, TileHistogram};
use crate::datafile::{Datafile, Inflater};
use crate::warn::{Warn, Warnings};
use serde::Serialize;
use std::collections::BTreeSet;

/// Vanilla entity tiles of a game or front layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EntityCounts {
    pub spawn: u64,
    pub spawn_red: u64,
    pub spawn_blue: u64,
    pub flag_red: u64,
    pub flag_blue: u64,
    pub armor: u64,
    pub health: u64,
    pub shotgun: u64,
    pub grenade: u64,
    pub ninja: u64,
    pub laser: u64,
}

impl EntityCounts {
    /// Spawn tiles of every team.
    pub fn spawns(&self) -> u64 {
        self.spawn + self.spawn_red + self.spawn_blue
    }
}

impl EntityCounts {
    /// The counts of a layer's id histogram.
    pub fn from_histogram(h: &TileHistogram) -> Self {
        let c = |e: u8| h.counts[(ENTITY_OFFSET + e) as usize];
        EntityCounts {
            spawn: c(names::ENTITY_SPAWN),
            spawn_red: c(names::ENTITY_SPAWN_RED),
            spawn_blue: c(names::ENTITY_SPAWN_BLUE),
            flag_red: c(names::ENTITY_FLAGSTAND_RED),
            flag_blue: c(names::ENTITY_FLAGSTAND_BLUE),
            armor: c(names::ENTITY_ARMOR_1),
            health: c(names::ENTITY_HEALTH_1),
            shotgun: c(names::ENTITY_WEAPON_SHOTGUN),
            grenade: c(names::ENTITY_WEAPON_GRENADE),
            ninja: c(names::ENTITY_POWERUP_NINJA),
            laser: c(names::ENTITY_WEAPON_LASER),
        }
    }
}

/// Non-empty tiles (id ≠ 0) per physics layer; `None` where the map has no
/// such layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LayerTileCounts {
    pub game: Option<u64>,
    pub front: Option<u64>,
    pub tele: Option<u64>,
    pub speedup: Option<u64>,
    pub switch: Option<u64>,
    pub tune: Option<u64>,
}

impl LayerTileCounts {
    fn slot(&mut self, kind: PhysicsKind) -> Option<&mut Option<u64>> {
        Some(match kind {
            PhysicsKind::Tiles => return None,
            PhysicsKind::Game => &mut self.game,
            PhysicsKind::Front => &mut self.front,
            PhysicsKind::Tele => &mut self.tele,
            PhysicsKind::Speedup => &mut self.speedup,
            PhysicsKind::Switch => &mut self.switch,
            PhysicsKind::Tune => &mut self.tune,
        })
    }
}

/// Statistics derived from the physics layers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MapStats {
    pub game_width: Option<u32>,
    pub game_height: Option<u32>,
    pub game_entities: EntityCounts,
    pub front_entities: EntityCounts,
    pub non_empty_tiles: LayerTileCounts,
    /// The DDNet special tiles present (every named tile but air, `SOLID`,
    /// `NOHOOK` and the vanilla entities: [`super::names::is_special`]),
    /// sorted and deduplicated.
    pub special_tiles: Vec<&'static str>,
    /// Tiles per physics layer and tile id (ids other than 0 that occur),
    /// by layer in [`PhysicsKind::PHYSICS`] order, then id.
    pub tiles: Vec<TileCount>,
}

/// How many tiles of one id one physics layer has.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TileCount {
    /// `game`, `front`, `tele`, `speedup`, `switch` or `tune`.
    pub layer: &'static str,
    /// The tile id byte.
    pub id: u8,
    /// The DDNet name of the id in this layer, if it has one.
    pub name: Option<&'static str>,
    pub count: u64,
}

impl MapStats {
    /// Spawn tiles of every team in the game and front layers.
    pub fn spawns(&self) -> u64 {
        self.game_entities.spawns() + self.front_entities.spawns()
    }
}

impl MapStats {
    /// Folds one physics layer's histogram into the statistics (names are
    /// collected into `names`).
    pub(crate) fn add_layer(
        &mut self,
        kind: PhysicsKind,
        h: &TileHistogram,
        names: &mut BTreeSet<&'static str>,
    ) {
        if let Some(slot) = self.non_empty_tiles.slot(kind) {
            *slot = Some(h.non_empty());
        }
        match kind {
            PhysicsKind::Game => self.game_entities = EntityCounts::from_histogram(h),
            PhysicsKind::Front => self.front_entities = EntityCounts::from_histogram(h),
            _ => {}
        }
        for (id, &n) in h.counts.iter().enumerate() {
            if n > 0 && names::is_special(kind, id as u8) {
                names.extend(names::tile_name(kind, id as u8));
            }
        }
        self.add_tile_counts(kind, &h.counts);
    }

    /// Appends the [`TileCount`]s of one physics layer's id counts.
    pub fn add_tile_counts(&mut self, kind: PhysicsKind, counts: &[u64; 256]) {
        for (id, &count) in counts.iter().enumerate().skip(1) {
            if count > 0 {
                self.tiles.push(TileCount {
                    layer: kind.name(),
                    id: id as u8,
                    name: names::tile_name(kind, id as u8),
                    count,
                });
            }
        }
    }
}

/// Computes the statistics of `map`: inflates the last layer of each physics
/// kind into `scratch`. Non-zero padding goes to `warnings`.
pub fn map_stats(
    map: &Map,
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    scratch: &mut Vec<u8>,
    warnings: &mut impl Warn<MapWarning>,
) -> Result<MapStats, MapError> {
    let mut stats = MapStats::default();
    let mut names = BTreeSet::new();
    for kind in PhysicsKind::PHYSICS {
        let Some(li) = map.physics_layer(kind) else {
            continue;
        };
        if let Some(h) = map.tile_histogram(df, li, inflater, scratch, warnings)? {
            stats.add_layer(kind, &h, &mut names);
        }
    }
    if let Some(g) = map.game_layer() {
        stats.game_width = u32::try_from(g.width).ok();
        stats.game_height = u32::try_from(g.height).ok();
    }
    stats.special_tiles = names.into_iter().collect();
    Ok(stats)
}

/// Item counts of a map.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MapCounts {
    pub images_embedded: usize,
    pub images_external: usize,
    pub envelopes: usize,
    pub env_points: usize,
    pub groups: usize,
    pub layers: usize,
    pub layers_tiles: usize,
    pub layers_game: usize,
    pub layers_front: usize,
    pub layers_tele: usize,
    pub layers_speedup: usize,
    pub layers_switch: usize,
    pub layers_tune: usize,
    pub layers_quads: usize,
    pub layers_sounds: usize,
    pub layers_unknown: usize,
    pub quads: u64,
    pub sound_sources: u64,
    pub sounds: usize,
}

impl MapCounts {
    pub fn of(map: &Map) -> Self {
        let mut c = MapCounts {
            images_external: map.images.iter().filter(|i| i.external).count(),
            images_embedded: map.images.iter().filter(|i| !i.external).count(),
            envelopes: map.envelopes.len(),
            env_points: map.env_points.count,
            groups: map.groups.len(),
            layers: map.layers.len(),
            sounds: map.sounds.len(),
            ..MapCounts::default()
        };
        for l in &map.layers {
            match &l.kind {
                LayerKind::Tilemap(t) => {
                    *match t.kind {
                        PhysicsKind::Tiles => &mut c.layers_tiles,
                        PhysicsKind::Game => &mut c.layers_game,
                        PhysicsKind::Front => &mut c.layers_front,
                        PhysicsKind::Tele => &mut c.layers_tele,
                        PhysicsKind::Speedup => &mut c.layers_speedup,
                        PhysicsKind::Switch => &mut c.layers_switch,
                        PhysicsKind::Tune => &mut c.layers_tune,
                    } += 1
                }
                LayerKind::Quads(q) => {
                    c.layers_quads += 1;
                    c.quads += q.num_quads.max(0) as u64;
                }
                LayerKind::Sounds(s) => {
                    c.layers_sounds += 1;
                    c.sound_sources += s.num_sources.max(0) as u64;
                }
                LayerKind::Unknown(_) => c.layers_unknown += 1,
            }
        }
        c
    }
}

/// The index record of one map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MapSummary {
    /// `ddnet06`, `teeworlds07`, `teeworlds03` (the `MAPRES_*` items of
    /// Teeworlds 0.3 and before: [`super::legacy`]) or `absent`.
    pub version_kind: &'static str,
    /// Why the map part is absent (`no_version_item`, `no_layers`).
    pub absent_reason: Option<&'static str>,
    pub info: Option<Info>,
    pub counts: Option<MapCounts>,
    pub uuid_types: Vec<UuidType>,
    pub stats: Option<MapStats>,
    /// The warnings the caller's sink kept ([`summarize`]: at most
    /// [`super::MAX_WARNINGS`], then one `too_many_warnings`); empty from
    /// [`summarize_observed`], which hands them to its sink instead.
    #[serde(skip_serializing_if = "<[MapWarning]>::is_empty")]
    pub warnings: Vec<MapWarning>,
    /// The names of the external images (mapres), in item order, `<missing>`
    /// for one without a name: for the collection summary, not part of the
    /// record.
    #[serde(skip)]
    pub external_images: Vec<String>,
}

/// Reads the summary of a map: the map view without image, sound or quad
/// data, plus [`MapStats`].
///
/// `inflater` is not reset: call [`Inflater::start_file`] per file. `scratch`
/// is reused for every block. A datafile without a map part gives a summary
/// with `version_kind = "absent"`; an `Err` concerns the map part only (the
/// datafile stays usable). The warnings are kept in the summary, at most
/// [`super::MAX_WARNINGS`] then one `too_many_warnings`.
pub fn summarize(
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    scratch: &mut Vec<u8>,
) -> Result<MapSummary, MapError> {
    let mut warnings = Warnings::new(super::MAX_WARNINGS);
    let mut summary = summarize_observed(df, inflater, scratch, &mut warnings)?;
    summary.warnings = warnings.into_vec();
    Ok(summary)
}

/// [`summarize`] with the warnings (of the map view, then of the
/// statistics) going to `warn` as they are found.
pub fn summarize_observed(
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    scratch: &mut Vec<u8>,
    warn: &mut impl Warn<MapWarning>,
) -> Result<MapSummary, MapError> {
    let absent = |reason: AbsentReason| MapSummary {
        version_kind: "absent",
        absent_reason: Some(reason.name()),
        info: None,
        counts: None,
        uuid_types: Vec::new(),
        stats: None,
        warnings: Vec::new(),
        external_images: Vec::new(),
    };
    if let Some(game) = super::legacy::game_layer(df, inflater, scratch, warn)? {
        return Ok(legacy_summary(df, &game));
    }
    if let Some(reason) = absent_reason(df) {
        return Ok(absent(reason));
    }
    let Some(mut map) = Map::parse_opts(df, inflater, scratch, LoadOptions::SUMMARY, warn)? else {
        return Ok(absent(AbsentReason::NoVersionItem));
    };
    let stats = map_stats(&map, df, inflater, scratch, warn)?;
    let mut counts = MapCounts::of(&map);
    // Counted as their data blocks hold them (loading the map warned
    // `quads_data_size` about a layer claiming others).
    counts.quads = map
        .layers
        .iter()
        .filter_map(|l| match &l.kind {
            LayerKind::Quads(q) => Some(q.held(df)),
            _ => None,
        })
        .sum();
    Ok(MapSummary {
        version_kind: map.kind.name(),
        absent_reason: None,
        counts: Some(counts),
        info: map.info.take(),
        uuid_types: std::mem::take(&mut map.uuid_types),
        stats: Some(stats),
        warnings: Vec::new(),
        external_images: map
            .images
            .iter()
            .filter(|i| i.external)
            .map(|i| i.name.clone().unwrap_or_else(|| "<missing>".to_owned()))
            .collect(),
    })
}

/// The summary of a Teeworlds 0.3 map ([`super::legacy`]) from its game
/// layer: the statistics of that layer; counts of its images (embedded),
/// its tilemaps (as tile layers) and the collision map (as the game layer);
/// no info, groups, envelopes or sounds (the format has none).
fn legacy_summary(df: &Datafile<'_>, game: &super::TileLayer) -> MapSummary {
    let n = super::legacy::counts(df);
    let h = super::tiles::histogram(&game.bytes, PhysicsKind::Game.format());
    let mut stats = MapStats::default();
    let mut names = BTreeSet::new();
    stats.add_layer(PhysicsKind::Game, &h, &mut names);
    stats.special_tiles = names.into_iter().collect();
    stats.game_width = u32::try_from(game.width).ok();
    stats.game_height = u32::try_from(game.height).ok();
    MapSummary {
        version_kind: super::legacy::VERSION_KIND,
        absent_reason: None,
        info: None,
        counts: Some(MapCounts {
            images_embedded: n.images,
            layers: n.tilemaps + 1,
            layers_tiles: n.tilemaps,
            layers_game: 1,
            ..MapCounts::default()
        }),
        uuid_types: Vec::new(),
        stats: Some(stats),
        warnings: Vec::new(),
        external_images: Vec::new(),
    }
}
