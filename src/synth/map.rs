//! A deterministic generator of small, realistic maps.
//!
//! [`build`] writes a version 4 datafile with [`DatafileWriter`]: version and
//! info items (with server settings), an external image, a color envelope
//! with its points, a game group holding the game layer, the DDNet layers
//! asked for (front, tele, speedup, switch, tune) and a plain tiles layer, a
//! background group with a quads layer, and a DDNet auto mapper item declared
//! through a UUID index item. With [`SynthParams::tile_skip`] the tiles and
//! game layers are written as tilemap version 4 with tile skip runs (as
//! Teeworlds 0.7 does).
//!
//! The generator keeps its own tally of every tile it places (overwrites
//! included) and returns the statistics the map view must derive
//! ([`SynthMap::stats`]), so tests can compare the two. Randomness is a
//! seeded SplitMix64: the same parameters give the same bytes.

use super::rng::Rng;

use super::items;
use crate::datafile::DatafileWriter;
use crate::map::names::{self, ENTITY_OFFSET};
use crate::map::uuids;
use crate::map::PhysicsKind;
use crate::map::{
    EntityCounts, LayerTileCounts, MapCounts, MapStats, ITEM_ENVELOPE, ITEM_ENVPOINTS, ITEM_GROUP,
    ITEM_IMAGE, ITEM_INFO, ITEM_LAYER, ITEM_VERSION,
};
use std::collections::BTreeSet;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SynthParams {
    pub seed: u64,
    /// Game layer size in tiles (at least 3 × 3 is used).
    pub width: u32,
    pub height: u32,
    pub front: bool,
    pub tele: bool,
    pub speedup: bool,
    pub switch: bool,
    pub tune: bool,
    /// Write tiles and game layers as tilemap version 4 with tile skip.
    pub tile_skip: bool,
}

impl SynthParams {
    /// A map with only the game layer (and the plain layers).
    pub fn new(seed: u64, width: u32, height: u32) -> Self {
        SynthParams {
            seed,
            width,
            height,
            front: false,
            tele: false,
            speedup: false,
            switch: false,
            tune: false,
            tile_skip: false,
        }
    }

    /// The parameters of map `index` of a generated collection: sizes from
    /// 64 × 32 to 447 × 159 tiles, every other map with all DDNet layers,
    /// every fourth in 0.7 tile-skip form. Deterministic in `(seed, index)`.
    pub fn collection(seed: u64, index: u32) -> Self {
        let mix = seed
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(u64::from(index).wrapping_mul(0xbf58_476d_1ce4_e5b9));
        let mix = mix ^ (mix >> 31);
        let mut p = SynthParams::new(
            mix,
            64 + (mix % 384) as u32,
            32 + ((mix >> 16) % 128) as u32,
        );
        if index % 2 == 1 {
            p = p.with_all_layers();
        }
        p.tile_skip = index % 4 == 3;
        p
    }

    /// Every DDNet layer.
    pub fn with_all_layers(mut self) -> Self {
        self.front = true;
        self.tele = true;
        self.speedup = true;
        self.switch = true;
        self.tune = true;
        self
    }
}

/// A generated map and what it contains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthMap {
    pub bytes: Vec<u8>,
    /// The statistics the map view must report.
    pub stats: MapStats,
    /// The item counts the map view must report.
    pub counts: MapCounts,
    pub author: String,
    pub settings: Vec<String>,
}

/// Tile ids placed ([`crate::map::names`]).
const SOLID: u8 = names::TILE_SOLID;
const DEATH: u8 = names::TILE_DEATH;
const NOHOOK: u8 = names::TILE_NOHOOK;
const THROUGH: u8 = names::TILE_THROUGH;
const FREEZE: u8 = names::TILE_FREEZE;
const UNFREEZE: u8 = names::TILE_UNFREEZE;
const DFREEZE: u8 = names::TILE_DFREEZE;
const SWITCHOPEN: u8 = names::TILE_SWITCHOPEN;
const TELEIN: u8 = names::TILE_TELEIN;
const TELEOUT: u8 = names::TILE_TELEOUT;
const BOOST: u8 = names::TILE_BOOST;
const TELECHECK: u8 = names::TILE_TELECHECK;
const TUNE: u8 = names::TILE_TUNE;
const DOOR: u8 = ENTITY_OFFSET + names::ENTITY_DOOR;

/// A tile grid of one layer with the generator's tally of its ids.
struct Grid {
    w: usize,
    h: usize,
    /// Tile bytes per cell.
    size: usize,
    id_offset: usize,
    bytes: Vec<u8>,
    tally: [u64; 256],
}

impl Grid {
    fn new(w: usize, h: usize, size: usize, id_offset: usize) -> Self {
        let mut tally = [0u64; 256];
        tally[0] = (w * h) as u64;
        Grid {
            w,
            h,
            size,
            id_offset,
            bytes: vec![0; w * h * size],
            tally,
        }
    }
    /// Sets cell `i` to `tile` (whose id is at `id_offset`).
    fn set(&mut self, i: usize, tile: &[u8]) {
        let old = self.bytes[i * self.size + self.id_offset];
        self.tally[old as usize] -= 1;
        self.tally[tile[self.id_offset] as usize] += 1;
        self.bytes[i * self.size..(i + 1) * self.size].copy_from_slice(tile);
    }
    fn id(&self, i: usize) -> u8 {
        self.bytes[i * self.size + self.id_offset]
    }
    fn non_empty(&self) -> u64 {
        (self.w * self.h) as u64 - self.tally[0]
    }
    fn interior_cell(&self, rng: &mut Rng) -> usize {
        let x = 1 + rng.modulo(self.w as u64 - 2) as usize;
        let y = 1 + rng.modulo(self.h as u64 - 2) as usize;
        y * self.w + x
    }
}

/// Packs 4-byte tiles with tile skip runs (at most 256 tiles per run).
pub(crate) fn pack_tile_skip(tiles: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let mut last: Option<[u8; 4]> = None;
    for t in tiles.chunks_exact(4) {
        let t = [t[0], t[1], 0, t[3]];
        let n = out.len();
        match last {
            Some(l) if l == t && out[n - 2] < 255 => out[n - 2] += 1,
            _ => {
                out.extend_from_slice(&t);
                last = Some(t);
            }
        }
    }
    out
}

fn entity_counts(g: &Grid) -> EntityCounts {
    let c = |e: u8| g.tally[(ENTITY_OFFSET + e) as usize];
    EntityCounts {
        spawn: c(1),
        spawn_red: c(2),
        spawn_blue: c(3),
        flag_red: c(4),
        flag_blue: c(5),
        armor: c(6),
        health: c(7),
        shotgun: c(8),
        grenade: c(9),
        ninja: c(10),
        laser: c(11),
    }
}

fn cstring(s: &str) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.push(0);
    v
}

/// Generates the map bytes.
pub fn generate(params: &SynthParams) -> Vec<u8> {
    build(params).bytes
}

/// Generates a map and the statistics it must yield.
pub fn build(p: &SynthParams) -> SynthMap {
    let mut rng = Rng::new(p.seed ^ 0x7465_6562_6174_6368);
    let (w, h) = (p.width.max(3) as usize, p.height.max(3) as usize);
    let n = w * h;
    let mut names: BTreeSet<&'static str> = BTreeSet::new();

    // Game layer: solid border, random terrain, then entities.
    let mut game = Grid::new(w, h, 4, 0);
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            let id = if border {
                SOLID
            } else {
                match rng.modulo(100) {
                    0..=7 => SOLID,
                    8..=9 => NOHOOK,
                    10..=11 => DEATH,
                    12..=14 => FREEZE,
                    15 => UNFREEZE,
                    _ => 0,
                }
            };
            if id != 0 {
                // Flags of solid tiles vary (rotation bits), as mappers do.
                let flags = if id == SOLID { rng.modulo(16) as u8 } else { 0 };
                game.set(i, &[id, flags, 0, 0]);
            }
        }
    }
    let entity_plan: [(u8, u64); 11] = [
        (1, 1 + rng.modulo(4)),
        (2, rng.modulo(3)),
        (3, rng.modulo(3)),
        (4, rng.modulo(2)),
        (5, rng.modulo(2)),
        (6, rng.modulo(4)),
        (7, rng.modulo(4)),
        (8, rng.modulo(3)),
        (9, rng.modulo(3)),
        (10, rng.modulo(2)),
        (11, rng.modulo(3)),
    ];
    for (e, count) in entity_plan {
        for _ in 0..count {
            let i = game.interior_cell(&mut rng);
            game.set(i, &[ENTITY_OFFSET + e, 0, 0, 0]);
        }
    }
    for (id, name) in [(DEATH, "DEATH"), (FREEZE, "FREEZE"), (UNFREEZE, "UNFREEZE")] {
        if game.tally[id as usize] > 0 {
            names.insert(name);
        }
    }

    let mut stats = MapStats {
        game_width: Some(w as u32),
        game_height: Some(h as u32),
        game_entities: entity_counts(&game),
        front_entities: EntityCounts::default(),
        non_empty_tiles: LayerTileCounts {
            game: Some(game.non_empty()),
            ..LayerTileCounts::default()
        },
        special_tiles: Vec::new(),
        tiles: Vec::new(),
    };
    stats.add_tile_counts(PhysicsKind::Game, &game.tally);

    let mut df = DatafileWriter::new();
    df.add_item(ITEM_VERSION, 0, &[1]);

    // Info with settings.
    let author = format!("synth{}", p.seed % 1000);
    let settings = vec![
        format!("sv_team {}", p.seed % 2),
        "tune gravity 0.5".to_string(),
        "sv_deepfly 0".to_string(),
    ];
    let d_author = df.add_data(&cstring(&author)) as i32;
    let d_version = df.add_data(&cstring("1.0")) as i32;
    let d_credits = df.add_data(&cstring("teebatch synth")) as i32;
    let d_license = df.add_data(&cstring("MIT")) as i32;
    let mut settings_block = Vec::new();
    for s in &settings {
        settings_block.extend_from_slice(&cstring(s));
    }
    let d_settings = df.add_data(&settings_block) as i32;
    df.add_item(
        ITEM_INFO,
        0,
        &[1, d_author, d_version, d_credits, d_license, d_settings],
    );

    // An external image.
    let d_img_name = df.add_data(&cstring("grass_main")) as i32;
    df.add_item(
        ITEM_IMAGE,
        0,
        &items::image(1024, 1024, true, d_img_name, -1),
    );

    // A color envelope with two points.
    df.add_item(
        ITEM_ENVELOPE,
        0,
        &items::envelope(2, 4, 0, 2, "pulse", true),
    );
    df.add_item(
        ITEM_ENVPOINTS,
        0,
        &[0, 1, 1024, 1024, 1024, 1024, 1000, 1, 0, 0, 0, 1024],
    );

    // Tile layers.
    struct TileLayerSpec {
        flags: i32,
        name: &'static str,
        main: Vec<u8>,
        special: Option<Vec<u8>>,
        skip: bool,
        image: i32,
    }
    let zeros = vec![0u8; n * 4];
    let mut layers: Vec<TileLayerSpec> = vec![TileLayerSpec {
        flags: 1,
        name: "Game",
        main: game.bytes.clone(),
        special: None,
        skip: p.tile_skip,
        image: -1,
    }];

    if p.front {
        let mut front = Grid::new(w, h, 4, 0);
        for i in 0..n {
            match rng.modulo(100) {
                0..=2 => front.set(i, &[DFREEZE, 0, 0, 0]),
                3..=4 => front.set(i, &[THROUGH, 0, 0, 0]),
                _ => {}
            }
        }
        for _ in 0..1 + rng.modulo(3) {
            let i = front.interior_cell(&mut rng);
            front.set(i, &[ENTITY_OFFSET + 7, 0, 0, 0]); // health
        }
        for (id, name) in [(DFREEZE, "DFREEZE"), (THROUGH, "THROUGH")] {
            if front.tally[id as usize] > 0 {
                names.insert(name);
            }
        }
        stats.front_entities = entity_counts(&front);
        stats.non_empty_tiles.front = Some(front.non_empty());
        stats.add_tile_counts(PhysicsKind::Front, &front.tally);
        layers.push(TileLayerSpec {
            flags: 8,
            name: "Front",
            main: zeros.clone(),
            special: Some(front.bytes),
            skip: false,
            image: -1,
        });
    }
    if p.tele {
        let mut tele = Grid::new(w, h, 2, 1);
        for number in 1..=1 + rng.modulo(3) as u8 {
            let a = tele.interior_cell(&mut rng);
            tele.set(a, &[number, TELEIN]);
            let b = tele.interior_cell(&mut rng);
            tele.set(b, &[number, TELEOUT]);
        }
        if rng.modulo(2) == 0 {
            let c = tele.interior_cell(&mut rng);
            tele.set(c, &[9, TELECHECK]);
        }
        for (id, name) in [
            (TELEIN, "TELEIN"),
            (TELEOUT, "TELEOUT"),
            (TELECHECK, "TELECHECK"),
        ] {
            if tele.tally[id as usize] > 0 {
                names.insert(name);
            }
        }
        stats.non_empty_tiles.tele = Some(tele.non_empty());
        stats.add_tile_counts(PhysicsKind::Tele, &tele.tally);
        layers.push(TileLayerSpec {
            flags: 2,
            name: "Tele",
            main: zeros.clone(),
            special: Some(tele.bytes),
            skip: false,
            image: -1,
        });
    }
    if p.speedup {
        let mut sp = Grid::new(w, h, 6, 2);
        for _ in 0..1 + rng.modulo(5) {
            let i = sp.interior_cell(&mut rng);
            let angle = (rng.modulo(360) as i16).to_le_bytes();
            sp.set(i, &[30, 0, BOOST, 0, angle[0], angle[1]]);
        }
        names.insert("BOOST");
        stats.non_empty_tiles.speedup = Some(sp.non_empty());
        stats.add_tile_counts(PhysicsKind::Speedup, &sp.tally);
        layers.push(TileLayerSpec {
            flags: 4,
            name: "Speedup",
            main: zeros.clone(),
            special: Some(sp.bytes),
            skip: false,
            image: -1,
        });
    }
    if p.switch {
        let mut sw = Grid::new(w, h, 4, 1);
        let s = sw.interior_cell(&mut rng);
        sw.set(s, &[1, SWITCHOPEN, 0, 0]);
        for _ in 0..1 + rng.modulo(3) {
            let i = sw.interior_cell(&mut rng);
            sw.set(i, &[1, DOOR, 0, 0]);
        }
        for (id, name) in [(SWITCHOPEN, "SWITCHOPEN"), (DOOR, "DOOR")] {
            if sw.tally[id as usize] > 0 {
                names.insert(name);
            }
        }
        stats.non_empty_tiles.switch = Some(sw.non_empty());
        stats.add_tile_counts(PhysicsKind::Switch, &sw.tally);
        layers.push(TileLayerSpec {
            flags: 16,
            name: "Switch",
            main: zeros.clone(),
            special: Some(sw.bytes),
            skip: false,
            image: -1,
        });
    }
    if p.tune {
        let mut tu = Grid::new(w, h, 2, 1);
        for _ in 0..1 + rng.modulo(4) {
            let i = tu.interior_cell(&mut rng);
            tu.set(i, &[1, TUNE]);
        }
        names.insert("TUNE");
        stats.non_empty_tiles.tune = Some(tu.non_empty());
        stats.add_tile_counts(PhysicsKind::Tune, &tu.tally);
        layers.push(TileLayerSpec {
            flags: 32,
            name: "Tune",
            main: zeros.clone(),
            special: Some(tu.bytes),
            skip: false,
            image: -1,
        });
    }
    // A plain tiles layer drawing the solid tiles with the image.
    let mut deco = vec![0u8; n * 4];
    for i in 0..n {
        if game.id(i) == SOLID {
            deco[i * 4] = 1 + rng.modulo(16) as u8;
        }
    }
    layers.push(TileLayerSpec {
        flags: 0,
        name: "Deco",
        main: deco,
        special: None,
        skip: p.tile_skip,
        image: 0,
    });

    let num_tile_layers = layers.len();
    for (k, l) in layers.iter().enumerate() {
        let main = if l.skip {
            pack_tile_skip(&l.main)
        } else {
            l.main.clone()
        };
        let d_main = df.add_data(&main) as i32;
        let d_special = l.special.as_ref().map_or(-1, |s| df.add_data(s) as i32);
        let mut specials = [-1; 5];
        if let Some(slot) = items::special_slot(l.flags) {
            specials[slot] = d_special;
        }
        let item = items::TileLayer {
            version: if l.skip { 4 } else { 3 },
            flags: l.flags,
            image: l.image,
            specials,
            ..items::TileLayer::plain(w as i32, h as i32, d_main, l.name)
        };
        df.add_item(ITEM_LAYER, k as u16, &item.item());
    }

    // Quads layer with two quads, the second colored by the envelope.
    let num_quads = 2;
    let mut quads = Vec::new();
    for q in 0..num_quads {
        let (x, y) = (
            rng.modulo(w as u64 * 32) as i32 * 512,
            rng.modulo(h as u64 * 32) as i32 * 512,
        );
        let at = |dx: i32, dy: i32| (x + dx * 64 * 512, y + dy * 64 * 512);
        items::Quad {
            corners: [at(0, 0), at(1, 0), at(0, 1), at(1, 1)],
            pivot: at(0, 0),
            colours: [[255; 4]; 4],
            uv: [(0, 0); 4],
            pos_env: (-1, 0),
            colour_env: (if q == 1 { 0 } else { -1 }, 0),
        }
        .write(&mut quads);
    }
    let d_quads = df.add_data(&quads) as i32;
    let item = items::quads_layer(num_quads, d_quads, -1, "Quads");
    df.add_item(ITEM_LAYER, num_tile_layers as u16, &item);

    // Groups: game group, then a background group with the quads.
    let n = num_tile_layers as i32;
    let g = items::group((0, 0), (100, 100), 0, n, None, "Game");
    df.add_item(ITEM_GROUP, 0, &g);
    let g = items::group((0, 0), (50, 50), n, 1, None, "Background");
    df.add_item(ITEM_GROUP, 1, &g);

    // An auto mapper config for the plain tiles layer, declared by UUID.
    let am_type: u16 = 0x7fff;
    let uuid = uuids::uuid_of_name("mapitemtype-automapper-config@ddnet.tw");
    df.add_item(
        crate::datafile::ITEMTYPE_EX,
        am_type,
        &uuids::uuid_to_ints(&uuid),
    );
    df.add_item(
        am_type,
        0,
        &[1, 0, num_tile_layers as i32 - 1, 0, p.seed as i32, 1],
    );

    stats.special_tiles = names.into_iter().collect();
    let physics = [p.front, p.tele, p.speedup, p.switch, p.tune];
    let counts = MapCounts {
        images_external: 1,
        envelopes: 1,
        env_points: 2,
        groups: 2,
        layers: num_tile_layers + 1,
        layers_tiles: 1,
        layers_game: 1,
        layers_front: p.front as usize,
        layers_tele: p.tele as usize,
        layers_speedup: p.speedup as usize,
        layers_switch: p.switch as usize,
        layers_tune: p.tune as usize,
        layers_quads: 1,
        quads: num_quads as u64,
        ..MapCounts::default()
    };
    debug_assert_eq!(num_tile_layers, 2 + physics.iter().filter(|&&b| b).count());
    SynthMap {
        bytes: df.write(),
        stats,
        counts,
        author,
        settings,
    }
}

/// The map of the generated demos ([`super::demo`]): a `width` × `height`
/// game layer with a solid border,
/// a two-tile floor and a few platforms placed by `seed`.
pub fn deathmatch_map(width: usize, height: usize, seed: u64) -> Vec<u8> {
    let (w, h) = (width.max(4), height.max(4));
    let mut rng = Rng::new(seed ^ 0x006d_6170);
    let mut tiles = vec![0u8; w * h * 4];
    let mut set = |x: usize, y: usize, id: u8| tiles[(y * w + x) * 4] = id;
    for x in 0..w {
        set(x, 0, SOLID);
        set(x, h - 1, SOLID);
        set(x, h - 2, SOLID);
    }
    for y in 0..h {
        set(0, y, SOLID);
        set(w - 1, y, SOLID);
    }
    for _ in 0..(w / 10) {
        let (x, y, len) = (
            rng.below(w as u32 - 8) as usize + 2,
            rng.below(h as u32 / 2) as usize + h / 3,
            rng.range(3, 8) as usize,
        );
        for i in 0..len {
            set(
                (x + i).min(w - 2),
                y.min(h - 3),
                if i % 5 == 4 { NOHOOK } else { SOLID },
            );
        }
    }
    let mut df = DatafileWriter::new();
    df.add_item(ITEM_VERSION, 0, &[1]);
    df.add_item(ITEM_INFO, 0, &[1, -1, -1, -1, -1]);
    let group = items::group((0, 0), (100, 100), 0, 1, None, "Game");
    df.add_item(ITEM_GROUP, 0, &group);
    let data = df.add_data(&tiles) as i32;
    let layer = items::TileLayer {
        flags: 1,
        ..items::TileLayer::plain(w as i32, h as i32, data, "Game")
    };
    df.add_item(ITEM_LAYER, 0, &layer.item());
    df.write()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::tiles::expand_tile_skip;

    #[test]
    fn pack_round_trip() {
        let mut tiles = vec![0u8; 4 * 600];
        tiles[4 * 10] = 1;
        tiles[4 * 11] = 1;
        let packed = pack_tile_skip(&tiles);
        let mut out = Vec::new();
        expand_tile_skip(&packed, 600, &mut out).unwrap();
        assert_eq!(out, tiles);
        // 10 zeros, 2 ones, 588 zeros = 256 + 256 + 76 → 1 + 1 + 3 runs.
        assert_eq!(packed.len(), 4 * 5);
    }
}
