//! The tile id table: every tile id DDNet names, once ([`TILES`]), with
//! its constant, its name and the key of its colour in the renderer's flat
//! palette (`render::entities::LEGEND`). The constants, the name lookups,
//! the palette's ids and the reference page `docs/tile-names.md`
//! ([`reference_markdown`], checked by a test) come from it.
//!
//! Facts from DDNet's `src/game/mapitems.h` (`TILE_*` and `ENTITY_*`
//! enums) as DDNet names them today: a name is the enum constant without
//! its `TILE_` or `ENTITY_` prefix (`START`, `FINISH`, `SOLO_ENABLE`,
//! `ADD_TIME`, `SPAWN`, `DRAGGER_WEAK`, ...). Where DDNet names a range by
//! its ends only, each id gets its own name: the 25 time checkpoints
//! 35..=59 are `TIME_CHECKPOINT_0`..`TIME_CHECKPOINT_24` (the number is
//! `id - TILE_TIME_CHECKPOINT_FIRST`, the checkpoint index the game uses),
//! the eight credits tiles `CREDITS_1`..`CREDITS_8` as DDNet numbers them.
//!
//! The names this crate used before (DDNet's former enum: `BEGIN`, `END`,
//! `SOLO_START`, `PENALTY`, `BONUS`, `CHECKPOINT_FIRST` for all 25 time
//! checkpoints, `SWITCH` for the four switch tiles, ...) are [`ALIASES`]:
//! [`current_names`] and [`lookup`] accept them, the records carry the
//! current names only.
//!
//! [`is_special`] tells the DDNet special tiles (the `special_tiles` of
//! the statistics) from the tiles every map has: air, `SOLID`, `NOHOOK`
//! and the vanilla entities (spawns, flags, pickups, weapons; counted
//! separately), which are named but not special.
//!
//! Entity tiles are `ENTITY_OFFSET + entity` with `ENTITY_OFFSET = 255 - 16 × 4
//! = 191`, so `ENTITY_SPAWN` (1) is tile 192.

/// Where a tile id of the table lives: a layer's id space, or an entity
/// (`ENTITY_*`, tile id `ENTITY_OFFSET + entity` in the game, front and
/// switch layers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TileSpace {
    /// Game and front layer tiles (the switch layer places them too).
    Game,
    /// Entities, by entity number.
    Entity,
    /// Tele layer tiles, by type byte.
    Tele,
    /// Speedup layer tiles, by type byte.
    Speedup,
    /// Switch layer tiles, by type byte (beyond the game tiles it places).
    Switch,
    /// Tune layer tiles, by type byte.
    Tune,
}

/// One row of the tile id table: the ids `first..=last` of `space`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRow {
    /// The constant naming `first`, if there is one.
    pub constant: Option<&'static str>,
    pub space: TileSpace,
    pub first: u8,
    pub last: u8,
    /// The tile's name (DDNet's constant without its prefix).
    pub name: Option<&'static str>,
    /// The key of their colour in the renderer's flat palette.
    pub palette: Option<&'static str>,
}

/// Declares the tile constants and [`TILES`] from one row per tile (or
/// range of tiles): `CONSTANT: space, id (or first..=last), name, palette
/// key;` (`_` where none).
macro_rules! tile_table {
    (@opt _) => { None };
    (@opt $v:literal) => { Some($v) };
    (@const _, $space:ident, $id:literal) => {};
    (@const $c:ident, $space:ident, $id:literal) => {
        #[doc = concat!("`", stringify!($c), "` (", stringify!($space), " ", stringify!($id), ").")]
        pub const $c: u8 = $id;
    };
    (@last $f:literal) => { $f };
    (@last $f:literal, $l:literal) => { $l };
    (@cname _) => { None };
    (@cname $c:ident) => { Some(stringify!($c)) };
    ($($c:tt: $space:ident, $first:literal $(..= $last:literal)?, $name:tt, $key:tt;)*) => {
        $(tile_table!(@const $c, $space, $first);)*

        /// The tile id table (see the module docs), by space and id.
        pub const TILES: &[TileRow] = &[$(
            TileRow {
                constant: tile_table!(@cname $c),
                space: TileSpace::$space,
                first: $first,
                last: tile_table!(@last $first $(, $last)?),
                name: tile_table!(@opt $name),
                palette: tile_table!(@opt $key),
            },
        )*];
    };
}

tile_table! {
    // Game and front layer tiles (`TILE_*`).
    TILE_AIR: Game, 0, "AIR", _;
    TILE_SOLID: Game, 1, "SOLID", "hookable";
    TILE_DEATH: Game, 2, "DEATH", "death";
    TILE_NOHOOK: Game, 3, "NOHOOK", "unhookable";
    TILE_NOLASER: Game, 4, "NOLASER", _;
    TILE_THROUGH_CUT: Game, 5, "THROUGH_CUT", _;
    TILE_THROUGH: Game, 6, "THROUGH", _;
    TILE_JUMP: Game, 7, "JUMP", _;
    TILE_FREEZE: Game, 9, "FREEZE", "freeze";
    TILE_UNFREEZE: Game, 11, "UNFREEZE", "unfreeze";
    TILE_DFREEZE: Game, 12, "DFREEZE", "deep freeze";
    TILE_DUNFREEZE: Game, 13, "DUNFREEZE", "deep unfreeze";
    TILE_WALLJUMP: Game, 16, "WALLJUMP", _;
    _: Game, 17, "EHOOK_ENABLE", _;
    _: Game, 18, "EHOOK_DISABLE", _;
    TILE_HIT_ENABLE: Game, 19, "HIT_ENABLE", _;
    TILE_HIT_DISABLE: Game, 20, "HIT_DISABLE", _;
    _: Game, 21, "SOLO_ENABLE", _;
    TILE_SOLO_DISABLE: Game, 22, "SOLO_DISABLE", _;
    TILE_REFILL_JUMPS: Game, 32, "REFILL_JUMPS", _;
    TILE_START: Game, 33, "START", "start";
    TILE_FINISH: Game, 34, "FINISH", "finish";
    TILE_TIME_CHECKPOINT_FIRST: Game, 35, "TIME_CHECKPOINT_0", "time checkpoint";
    _: Game, 36, "TIME_CHECKPOINT_1", "time checkpoint";
    _: Game, 37, "TIME_CHECKPOINT_2", "time checkpoint";
    _: Game, 38, "TIME_CHECKPOINT_3", "time checkpoint";
    _: Game, 39, "TIME_CHECKPOINT_4", "time checkpoint";
    _: Game, 40, "TIME_CHECKPOINT_5", "time checkpoint";
    _: Game, 41, "TIME_CHECKPOINT_6", "time checkpoint";
    _: Game, 42, "TIME_CHECKPOINT_7", "time checkpoint";
    _: Game, 43, "TIME_CHECKPOINT_8", "time checkpoint";
    _: Game, 44, "TIME_CHECKPOINT_9", "time checkpoint";
    _: Game, 45, "TIME_CHECKPOINT_10", "time checkpoint";
    _: Game, 46, "TIME_CHECKPOINT_11", "time checkpoint";
    _: Game, 47, "TIME_CHECKPOINT_12", "time checkpoint";
    _: Game, 48, "TIME_CHECKPOINT_13", "time checkpoint";
    _: Game, 49, "TIME_CHECKPOINT_14", "time checkpoint";
    _: Game, 50, "TIME_CHECKPOINT_15", "time checkpoint";
    _: Game, 51, "TIME_CHECKPOINT_16", "time checkpoint";
    _: Game, 52, "TIME_CHECKPOINT_17", "time checkpoint";
    _: Game, 53, "TIME_CHECKPOINT_18", "time checkpoint";
    _: Game, 54, "TIME_CHECKPOINT_19", "time checkpoint";
    _: Game, 55, "TIME_CHECKPOINT_20", "time checkpoint";
    _: Game, 56, "TIME_CHECKPOINT_21", "time checkpoint";
    _: Game, 57, "TIME_CHECKPOINT_22", "time checkpoint";
    _: Game, 58, "TIME_CHECKPOINT_23", "time checkpoint";
    TILE_TIME_CHECKPOINT_LAST: Game, 59, "TIME_CHECKPOINT_24", "time checkpoint";
    TILE_STOP: Game, 60, "STOP", "stopper";
    TILE_STOPS: Game, 61, "STOPS", "stopper";
    TILE_STOPA: Game, 62, "STOPA", "stopper";
    TILE_CP: Game, 64, "CP", _;
    TILE_CP_F: Game, 65, "CP_F", _;
    _: Game, 66, "THROUGH_ALL", _;
    TILE_THROUGH_DIR: Game, 67, "THROUGH_DIR", _;
    TILE_OLDLASER: Game, 71, "OLDLASER", _;
    _: Game, 72, "NPC", _;
    _: Game, 73, "EHOOK", _;
    _: Game, 74, "NOHIT", _;
    _: Game, 75, "NPH", _;
    TILE_UNLOCK_TEAM: Game, 76, "UNLOCK_TEAM", _;
    TILE_ADD_TIME: Game, 79, "ADD_TIME", _;
    TILE_NPC_DISABLE: Game, 88, "NPC_DISABLE", _;
    _: Game, 89, "UNLIMITED_JUMPS_DISABLE", _;
    _: Game, 90, "JETPACK_DISABLE", _;
    TILE_NPH_DISABLE: Game, 91, "NPH_DISABLE", _;
    TILE_SUBTRACT_TIME: Game, 95, "SUBTRACT_TIME", _;
    TILE_TELE_GUN_ENABLE: Game, 96, "TELE_GUN_ENABLE", _;
    TILE_TELE_GUN_DISABLE: Game, 97, "TELE_GUN_DISABLE", _;
    TILE_ALLOW_TELE_GUN: Game, 98, "ALLOW_TELE_GUN", _;
    TILE_ALLOW_BLUE_TELE_GUN: Game, 99, "ALLOW_BLUE_TELE_GUN", _;
    TILE_NPC_ENABLE: Game, 104, "NPC_ENABLE", _;
    _: Game, 105, "UNLIMITED_JUMPS_ENABLE", _;
    _: Game, 106, "JETPACK_ENABLE", _;
    TILE_NPH_ENABLE: Game, 107, "NPH_ENABLE", _;
    TILE_TELE_GRENADE_ENABLE: Game, 112, "TELE_GRENADE_ENABLE", _;
    TILE_TELE_GRENADE_DISABLE: Game, 113, "TELE_GRENADE_DISABLE", _;
    TILE_TELE_LASER_ENABLE: Game, 128, "TELE_LASER_ENABLE", _;
    TILE_TELE_LASER_DISABLE: Game, 129, "TELE_LASER_DISABLE", _;
    _: Game, 140, "CREDITS_1", _;
    _: Game, 141, "CREDITS_2", _;
    _: Game, 142, "CREDITS_3", _;
    _: Game, 143, "CREDITS_4", _;
    TILE_LFREEZE: Game, 144, "LFREEZE", _;
    TILE_LUNFREEZE: Game, 145, "LUNFREEZE", _;
    _: Game, 156, "CREDITS_5", _;
    _: Game, 157, "CREDITS_6", _;
    _: Game, 158, "CREDITS_7", _;
    _: Game, 159, "CREDITS_8", _;
    TILE_ENTITIES_OFF_1: Game, 190, "ENTITIES_OFF_1", _;
    TILE_ENTITIES_OFF_2: Game, 191, "ENTITIES_OFF_2", _;
    // Entities (`ENTITY_*`), tile id `ENTITY_OFFSET + entity`.
    ENTITY_SPAWN: Entity, 1, "SPAWN", "spawn";
    ENTITY_SPAWN_RED: Entity, 2, "SPAWN_RED", "spawn";
    ENTITY_SPAWN_BLUE: Entity, 3, "SPAWN_BLUE", "spawn";
    ENTITY_FLAGSTAND_RED: Entity, 4, "FLAGSTAND_RED", "red flag";
    ENTITY_FLAGSTAND_BLUE: Entity, 5, "FLAGSTAND_BLUE", "blue flag";
    ENTITY_ARMOR_1: Entity, 6, "ARMOR_1", "armor, health";
    ENTITY_HEALTH_1: Entity, 7, "HEALTH_1", "armor, health";
    ENTITY_WEAPON_SHOTGUN: Entity, 8, "WEAPON_SHOTGUN", "weapons, ninja";
    ENTITY_WEAPON_GRENADE: Entity, 9, "WEAPON_GRENADE", "weapons, ninja";
    ENTITY_POWERUP_NINJA: Entity, 10, "POWERUP_NINJA", "weapons, ninja";
    ENTITY_WEAPON_LASER: Entity, 11, "WEAPON_LASER", "weapons, ninja";
    ENTITY_LASER_FAST_CCW: Entity, 12, "LASER_FAST_CCW", _;
    _: Entity, 13, "LASER_NORMAL_CCW", _;
    _: Entity, 14, "LASER_SLOW_CCW", _;
    _: Entity, 15, "LASER_STOP", _;
    _: Entity, 16, "LASER_SLOW_CW", _;
    _: Entity, 17, "LASER_NORMAL_CW", _;
    ENTITY_LASER_FAST_CW: Entity, 18, "LASER_FAST_CW", _;
    _: Entity, 19, "LASER_SHORT", _;
    _: Entity, 20, "LASER_MEDIUM", _;
    _: Entity, 21, "LASER_LONG", _;
    _: Entity, 22, "LASER_C_SLOW", _;
    _: Entity, 23, "LASER_C_NORMAL", _;
    _: Entity, 24, "LASER_C_FAST", _;
    _: Entity, 25, "LASER_O_SLOW", _;
    _: Entity, 26, "LASER_O_NORMAL", _;
    ENTITY_LASER_O_FAST: Entity, 27, "LASER_O_FAST", _;
    ENTITY_PLASMAE: Entity, 29, "PLASMAE", _;
    _: Entity, 30, "PLASMAF", _;
    _: Entity, 31, "PLASMA", _;
    _: Entity, 32, "PLASMAU", _;
    ENTITY_CRAZY_SHOTGUN_EX: Entity, 33, "CRAZY_SHOTGUN_EX", _;
    ENTITY_CRAZY_SHOTGUN: Entity, 34, "CRAZY_SHOTGUN", _;
    _: Entity, 35, "ARMOR_SHOTGUN", _;
    _: Entity, 36, "ARMOR_GRENADE", _;
    _: Entity, 37, "ARMOR_NINJA", _;
    ENTITY_ARMOR_LASER: Entity, 38, "ARMOR_LASER", _;
    ENTITY_DRAGGER_WEAK: Entity, 42, "DRAGGER_WEAK", _;
    _: Entity, 43, "DRAGGER_NORMAL", _;
    _: Entity, 44, "DRAGGER_STRONG", _;
    _: Entity, 45, "DRAGGER_WEAK_NW", _;
    _: Entity, 46, "DRAGGER_NORMAL_NW", _;
    ENTITY_DRAGGER_STRONG_NW: Entity, 47, "DRAGGER_STRONG_NW", _;
    ENTITY_DOOR: Entity, 49, "DOOR", "door";
    // Tele layer types.
    TILE_TELEINEVIL: Tele, 10, "TELEINEVIL", "teleporter in";
    TILE_TELEINWEAPON: Tele, 14, "TELEINWEAPON", "teleporter in";
    TILE_TELEINHOOK: Tele, 15, "TELEINHOOK", "teleporter in";
    TILE_TELEIN: Tele, 26, "TELEIN", "teleporter in";
    TILE_TELEOUT: Tele, 27, "TELEOUT", "teleporter out";
    TILE_TELECHECK: Tele, 29, "TELECHECK", "tele checkpoint";
    TILE_TELECHECKOUT: Tele, 30, "TELECHECKOUT", "tele checkpoint";
    TILE_TELECHECKIN: Tele, 31, "TELECHECKIN", "tele checkpoint";
    TILE_TELECHECKINEVIL: Tele, 63, "TELECHECKINEVIL", "tele checkpoint";
    // Speedup layer types.
    TILE_BOOST: Speedup, 28, "BOOST", "speedup";
    // Switch layer types: the four switch tiles; the other ids are game
    // tiles the switch layer places (doors, lasers, freeze, ...).
    TILE_SWITCHTIMEDOPEN: Switch, 22, "SWITCHTIMEDOPEN", "switch";
    _: Switch, 23, "SWITCHTIMEDCLOSE", "switch";
    TILE_SWITCHOPEN: Switch, 24, "SWITCHOPEN", "switch";
    TILE_SWITCHCLOSE: Switch, 25, "SWITCHCLOSE", "switch";
    // Tune layer types.
    TILE_TUNE: Tune, 68, "TUNE", "tune zone";
}

/// `ENTITY_OFFSET` of `mapitems.h`.
pub const ENTITY_OFFSET: u8 = 255 - 16 * 4;

/// The entity of tile `id`, if `id` is an entity tile.
pub fn entity_of(id: u8) -> Option<u8> {
    id.checked_sub(ENTITY_OFFSET).filter(|&e| e > 0)
}

/// Whether `row` holds ids of a layer drawn or named as `space` (entities
/// are game layer ids).
const fn in_space(row: &TileRow, space: TileSpace) -> bool {
    row.space as u8 == space as u8
        || (space as u8 == TileSpace::Game as u8 && row.space as u8 == TileSpace::Entity as u8)
}

/// The tile id of id `i` of `row` (entities are offset).
const fn tile_id(row: &TileRow, i: u8) -> u8 {
    if row.space as u8 == TileSpace::Entity as u8 {
        ENTITY_OFFSET + i
    } else {
        i
    }
}

/// The names of the tile ids of `space` (entities in the game space),
/// built from [`TILES`] at compile time.
const fn names_of(space: TileSpace) -> [Option<&'static str>; 256] {
    let mut names = [None; 256];
    let mut r = 0;
    while r < TILES.len() {
        let row = &TILES[r];
        if in_space(row, space) {
            let mut i = row.first;
            loop {
                names[tile_id(row, i) as usize] = row.name;
                if i == row.last {
                    break;
                }
                i += 1;
            }
        }
        r += 1;
    }
    names
}

/// Which tile ids have a row of `space` in [`TILES`] (entities in the
/// game space), at compile time.
pub const fn ids_of(space: TileSpace) -> [bool; 256] {
    let mut ids = [false; 256];
    let mut r = 0;
    while r < TILES.len() {
        let row = &TILES[r];
        if in_space(row, space) {
            let mut i = row.first;
            loop {
                ids[tile_id(row, i) as usize] = true;
                if i == row.last {
                    break;
                }
                i += 1;
            }
        }
        r += 1;
    }
    ids
}

/// The ids of the game space (game tiles and entities) and of `space`
/// whose palette key is `key`, in table order; `N` must be their count
/// (checked at compile time where used in a constant).
pub const fn palette_ids<const N: usize>(space: TileSpace, key: &str) -> [u8; N] {
    let mut ids = [0u8; N];
    let mut n = 0;
    let mut r = 0;
    while r < TILES.len() {
        let row = &TILES[r];
        let keyed = match row.palette {
            Some(k) => same(k, key),
            None => false,
        };
        if keyed && in_space(row, space) {
            let mut i = row.first;
            loop {
                assert!(n < N, "more ids have this palette key");
                ids[n] = tile_id(row, i);
                n += 1;
                if i == row.last {
                    break;
                }
                i += 1;
            }
        }
        r += 1;
    }
    assert!(n == N, "fewer ids have this palette key");
    ids
}

/// `a == b` in a constant.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

static GAME_NAMES: [Option<&str>; 256] = names_of(TileSpace::Game);
static TELE_NAMES: [Option<&str>; 256] = names_of(TileSpace::Tele);
static SPEEDUP_NAMES: [Option<&str>; 256] = names_of(TileSpace::Speedup);
static SWITCH_NAMES: [Option<&str>; 256] = names_of(TileSpace::Switch);
static TUNE_NAMES: [Option<&str>; 256] = names_of(TileSpace::Tune);

/// Name of a tile in the game or front layer.
pub(crate) fn game_tile_name(id: u8) -> Option<&'static str> {
    GAME_NAMES[id as usize]
}

/// Name of a tele layer tile (by its type byte).
pub(crate) fn tele_tile_name(id: u8) -> Option<&'static str> {
    TELE_NAMES[id as usize]
}

/// Name of a speedup layer tile.
pub(crate) fn speedup_tile_name(id: u8) -> Option<&'static str> {
    SPEEDUP_NAMES[id as usize]
}

/// Name of a switch layer tile: the switch triggers, or what the switch
/// layer places (doors, lasers, draggers, freeze, ...) as in the game
/// layer; the common tiles (air, `SOLID`, `NOHOOK`, vanilla entities) are
/// not switch tiles and have no name there.
pub(crate) fn switch_tile_name(id: u8) -> Option<&'static str> {
    SWITCH_NAMES[id as usize].or_else(|| {
        is_special(super::PhysicsKind::Game, id)
            .then(|| game_tile_name(id))
            .flatten()
    })
}

/// Name of a tune layer tile.
pub(crate) fn tune_tile_name(id: u8) -> Option<&'static str> {
    TUNE_NAMES[id as usize]
}

/// The naming function for a physics layer kind.
pub fn tile_name(kind: super::PhysicsKind, id: u8) -> Option<&'static str> {
    use super::PhysicsKind as K;
    match kind {
        K::Tiles => None,
        K::Game | K::Front => game_tile_name(id),
        K::Tele => tele_tile_name(id),
        K::Speedup => speedup_tile_name(id),
        K::Switch => switch_tile_name(id),
        K::Tune => tune_tile_name(id),
    }
}

/// Whether tile `id` of a physics layer of `kind` is one of DDNet's special
/// tiles: named, and not air, `SOLID`, `NOHOOK` or a vanilla entity (spawn,
/// flag stand, armor, health, weapon, ninja), which every map has and the
/// statistics count separately.
pub fn is_special(kind: super::PhysicsKind, id: u8) -> bool {
    use super::PhysicsKind as K;
    match kind {
        K::Tiles => false,
        K::Game | K::Front => {
            let common = id == TILE_AIR
                || id == TILE_SOLID
                || id == TILE_NOHOOK
                || entity_of(id).is_some_and(|e| e <= ENTITY_WEAPON_LASER);
            !common && game_tile_name(id).is_some()
        }
        _ => id != 0 && tile_name(kind, id).is_some(),
    }
}

/// A former name of tiles `first..=last` of `space` (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Alias {
    /// The former name.
    pub name: &'static str,
    pub space: TileSpace,
    pub first: u8,
    pub last: u8,
}

const fn alias(name: &'static str, space: TileSpace, first: u8, last: u8) -> Alias {
    Alias {
        name,
        space,
        first,
        last,
    }
}

/// The names this crate gave tiles before it used DDNet's current names
/// (DDNet's former `mapitems.h` names, as ddnet.org listed them), with the
/// ids they named; one name may cover several ids (and rows).
pub const ALIASES: &[Alias] = &[
    alias("EHOOK_START", TileSpace::Game, 17, 17),
    alias("EHOOK_END", TileSpace::Game, 18, 18),
    alias("HIT_START", TileSpace::Game, 19, 19),
    alias("HIT_END", TileSpace::Game, 20, 20),
    alias("SOLO_START", TileSpace::Game, 21, 21),
    alias("SOLO_END", TileSpace::Game, 22, 22),
    alias("BEGIN", TileSpace::Game, 33, 33),
    alias("END", TileSpace::Game, 34, 34),
    alias("CHECKPOINT_FIRST", TileSpace::Game, 35, 59),
    alias("PENALTY", TileSpace::Game, 79, 79),
    alias("NPC_END", TileSpace::Game, 88, 88),
    alias("SUPER_END", TileSpace::Game, 89, 89),
    alias("JETPACK_END", TileSpace::Game, 90, 90),
    alias("NPH_END", TileSpace::Game, 91, 91),
    alias("BONUS", TileSpace::Game, 95, 95),
    alias("NPC_START", TileSpace::Game, 104, 104),
    alias("SUPER_START", TileSpace::Game, 105, 105),
    alias("JETPACK_START", TileSpace::Game, 106, 106),
    alias("NPH_START", TileSpace::Game, 107, 107),
    alias("CREDITS", TileSpace::Game, 140, 143),
    alias("CREDITS", TileSpace::Game, 156, 159),
    alias("DRAGGER", TileSpace::Entity, 42, 47),
    alias("SWITCH", TileSpace::Switch, 22, 25),
];

/// The name of id `i` of a row of `space` (entities by entity number).
fn name_in(space: TileSpace, i: u8) -> Option<&'static str> {
    match space {
        TileSpace::Game => game_tile_name(i),
        TileSpace::Entity => game_tile_name(ENTITY_OFFSET.checked_add(i)?),
        TileSpace::Tele => tele_tile_name(i),
        TileSpace::Speedup => speedup_tile_name(i),
        TileSpace::Switch => SWITCH_NAMES[i as usize],
        TileSpace::Tune => tune_tile_name(i),
    }
}

/// The current names `name` stands for, in table order: itself if it is a
/// current name, the names of the ids of an [`ALIASES`] entry, ASCII case
/// ignored and a `TILE_` or `ENTITY_` prefix allowed (`"begin"`,
/// `"TILE_START"` and `"START"` all give `["START"]`; `"SWITCH"` the four
/// switch tiles). Empty for a name nobody used.
pub fn current_names(name: &str) -> Vec<&'static str> {
    let upper = name.to_ascii_uppercase();
    let bare = upper
        .strip_prefix("TILE_")
        .or_else(|| upper.strip_prefix("ENTITY_"))
        .unwrap_or(&upper);
    let mut out: Vec<&'static str> = Vec::new();
    let mut push = |n: &'static str| {
        if !out.contains(&n) {
            out.push(n);
        }
    };
    for row in TILES {
        if let Some(n) = row.name.filter(|n| *n == bare || *n == upper) {
            push(n);
        }
    }
    for a in ALIASES.iter().filter(|a| a.name == bare || a.name == upper) {
        for i in a.first..=a.last {
            if let Some(n) = name_in(a.space, i) {
                push(n);
            }
        }
    }
    out
}

/// The (layer, id) pairs whose tiles the records name by one of
/// [`current_names`]`(name)`: what a query for `name` (or its former
/// name) matches in the records' `tiles` lists. Layer by layer in
/// [`PhysicsKind::PHYSICS`](super::PhysicsKind::PHYSICS) order, then id.
pub fn lookup(name: &str) -> Vec<(super::PhysicsKind, u8)> {
    let names = current_names(name);
    let mut out = Vec::new();
    for kind in super::PhysicsKind::PHYSICS {
        for id in 1..=255u8 {
            if tile_name(kind, id).is_some_and(|n| names.contains(&n)) {
                out.push((kind, id));
            }
        }
    }
    out
}

/// `docs/tile-names.md`: the tile id table and the former names, as
/// markdown (a test compares the file).
pub fn reference_markdown() -> String {
    use std::fmt::Write;
    let space_name = |s: TileSpace| match s {
        TileSpace::Game | TileSpace::Entity => "game, front",
        TileSpace::Tele => "tele",
        TileSpace::Speedup => "speedup",
        TileSpace::Switch => "switch",
        TileSpace::Tune => "tune",
    };
    let constant = |r: &TileRow, i: u8| -> String {
        let name = name_in(r.space, i).unwrap_or("");
        match r.space {
            TileSpace::Entity => format!("ENTITY_{name}"),
            _ if name.starts_with("TIME_CHECKPOINT_") => match i {
                TILE_TIME_CHECKPOINT_FIRST => "TILE_TIME_CHECKPOINT_FIRST".into(),
                TILE_TIME_CHECKPOINT_LAST => "TILE_TIME_CHECKPOINT_LAST".into(),
                _ => format!(
                    "TILE_TIME_CHECKPOINT_FIRST + {}",
                    i - TILE_TIME_CHECKPOINT_FIRST
                ),
            },
            _ => format!("TILE_{name}"),
        }
    };
    let mut s = String::new();
    s.push_str(
        "# Tile names\n\n\
         <!-- Generated from src/map/names.rs (`tile_table!`, `ALIASES`) by \
         `TEEBATCH_BLESS=1 cargo test --test tests tile_names_reference`; do not edit. -->\n\n\
         The names the `maps index` records give tiles (`stats.tiles[].name`, \
         `stats.special_tiles`): DDNet's names in `src/game/mapitems.h`, the \
         constant without its `TILE_` or `ENTITY_` prefix. Entity tiles are \
         `ENTITY_OFFSET + entity` = 191 + entity. The switch layer also places \
         the special game tiles by their game id (doors, lasers, freeze, ...) \
         and names them as the game layer does. *Special* tiles are listed in \
         `special_tiles`; the others (air, solid, unhookable, vanilla entities) \
         are counted in every map. The palette key is the legend row of the \
         flat palette (`maps render`, docs/pictures.md).\n\n\
         | layer | id | name | DDNet constant | special | palette |\n|---|---|---|---|---|---|\n",
    );
    for r in TILES {
        let mut i = r.first;
        loop {
            let id = tile_id(r, i);
            let kind = match r.space {
                TileSpace::Game | TileSpace::Entity => super::PhysicsKind::Game,
                TileSpace::Tele => super::PhysicsKind::Tele,
                TileSpace::Speedup => super::PhysicsKind::Speedup,
                TileSpace::Switch => super::PhysicsKind::Switch,
                TileSpace::Tune => super::PhysicsKind::Tune,
            };
            let _ = writeln!(
                s,
                "| {} | {} | `{}` | `{}` | {} | {} |",
                space_name(r.space),
                id,
                name_in(r.space, i).unwrap_or(""),
                constant(r, i),
                if is_special(kind, id) { "yes" } else { "" },
                r.palette.unwrap_or(""),
            );
            if i == r.last {
                break;
            }
            i += 1;
        }
    }
    s.push_str(
        "\n## Former names\n\n\
         teebatch named tiles by DDNet's former constants until 2026-11; a \
         query by a former name (`teebatch::map::names::lookup`, \
         `current_names`) finds the tiles of its current names. In SQL over \
         the records, use the current names of this table.\n\n\
         | former name | layer | ids | current names |\n|---|---|---|---|\n",
    );
    for a in ALIASES {
        let (first, last) = match a.space {
            TileSpace::Entity => (ENTITY_OFFSET + a.first, ENTITY_OFFSET + a.last),
            _ => (a.first, a.last),
        };
        let ids = if first == last {
            first.to_string()
        } else {
            format!("{first}–{last}")
        };
        let names: Vec<&str> = (a.first..=a.last)
            .filter_map(|i| name_in(a.space, i))
            .collect();
        let names = if names.len() > 4 {
            format!("`{}` … `{}`", names[0], names[names.len() - 1])
        } else {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            s,
            "| `{}` | {} | {} | {} |",
            a.name,
            space_name(a.space),
            ids,
            names
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entity_numbering() {
        assert_eq!(ENTITY_OFFSET, 191);
        assert_eq!(entity_of(192), Some(ENTITY_SPAWN));
        assert_eq!(entity_of(191), None);
        assert_eq!(entity_of(192 + 9), Some(ENTITY_POWERUP_NINJA));
        assert_eq!(game_tile_name(ENTITY_OFFSET + 15), Some("LASER_STOP"));
        assert_eq!(game_tile_name(ENTITY_OFFSET + 49), Some("DOOR"));
        assert_eq!(game_tile_name(ENTITY_OFFSET + 1), Some("SPAWN"));
        assert_eq!(game_tile_name(ENTITY_OFFSET + 42), Some("DRAGGER_WEAK"));
        assert_eq!(game_tile_name(TILE_SOLID), Some("SOLID"));
        assert_eq!(game_tile_name(TILE_NOHOOK), Some("NOHOOK"));
        assert_eq!(game_tile_name(TILE_DEATH), Some("DEATH"));
        assert_eq!(game_tile_name(TILE_START), Some("START"));
        assert_eq!(game_tile_name(TILE_FINISH), Some("FINISH"));
        assert_eq!(game_tile_name(21), Some("SOLO_ENABLE"));
        assert_eq!(game_tile_name(79), Some("ADD_TIME"));
        assert_eq!(game_tile_name(95), Some("SUBTRACT_TIME"));
        assert_eq!(game_tile_name(35), Some("TIME_CHECKPOINT_0"));
        assert_eq!(game_tile_name(40), Some("TIME_CHECKPOINT_5"));
        assert_eq!(game_tile_name(59), Some("TIME_CHECKPOINT_24"));
        assert_eq!(game_tile_name(141), Some("CREDITS_2"));
        assert_eq!(game_tile_name(156), Some("CREDITS_5"));
        assert_eq!(game_tile_name(8), None);
        assert_eq!(tele_tile_name(TILE_TELEIN), Some("TELEIN"));
        assert_eq!(switch_tile_name(TILE_SWITCHOPEN), Some("SWITCHOPEN"));
        assert_eq!(switch_tile_name(22), Some("SWITCHTIMEDOPEN"));
        assert_eq!(switch_tile_name(TILE_SOLID), None);
        assert_eq!(switch_tile_name(ENTITY_OFFSET + 1), None);
        assert_eq!(switch_tile_name(TILE_FREEZE), Some("FREEZE"));
        assert_eq!(switch_tile_name(ENTITY_OFFSET + ENTITY_DOOR), Some("DOOR"));
    }

    /// The former hand-written name functions (golden): every former
    /// name resolves, through [`ALIASES`] or as a name kept, to the ids it
    /// named.
    /// Name of a DDRace entity (`ENTITY_*` beyond the vanilla ones).
    fn old_entity_name(entity: u8) -> Option<&'static str> {
        Some(match entity {
            12 => "LASER_FAST_CCW",
            13 => "LASER_NORMAL_CCW",
            14 => "LASER_SLOW_CCW",
            15 => "LASER_STOP",
            16 => "LASER_SLOW_CW",
            17 => "LASER_NORMAL_CW",
            18 => "LASER_FAST_CW",
            19 => "LASER_SHORT",
            20 => "LASER_MEDIUM",
            21 => "LASER_LONG",
            22 => "LASER_C_SLOW",
            23 => "LASER_C_NORMAL",
            24 => "LASER_C_FAST",
            25 => "LASER_O_SLOW",
            26 => "LASER_O_NORMAL",
            27 => "LASER_O_FAST",
            29 => "PLASMAE",
            30 => "PLASMAF",
            31 => "PLASMA",
            32 => "PLASMAU",
            33 => "CRAZY_SHOTGUN_EX",
            34 => "CRAZY_SHOTGUN",
            35 => "ARMOR_SHOTGUN",
            36 => "ARMOR_GRENADE",
            37 => "ARMOR_NINJA",
            38 => "ARMOR_LASER",
            42..=47 => "DRAGGER",
            49 => "DOOR",
            _ => return None,
        })
    }

    /// Name of a tile in the game or front layer.
    fn old_game_tile_name(id: u8) -> Option<&'static str> {
        if let Some(e) = entity_of(id) {
            return old_entity_name(e);
        }
        Some(match id {
            2 => "DEATH",
            4 => "NOLASER",
            5 => "THROUGH_CUT",
            6 => "THROUGH",
            7 => "JUMP",
            9 => "FREEZE",
            11 => "UNFREEZE",
            12 => "DFREEZE",
            13 => "DUNFREEZE",
            16 => "WALLJUMP",
            17 => "EHOOK_START",
            18 => "EHOOK_END",
            19 => "HIT_START",
            20 => "HIT_END",
            21 => "SOLO_START",
            22 => "SOLO_END",
            32 => "REFILL_JUMPS",
            33 => "BEGIN",
            34 => "END",
            35..=59 => "CHECKPOINT_FIRST",
            60 => "STOP",
            61 => "STOPS",
            62 => "STOPA",
            64 => "CP",
            65 => "CP_F",
            66 => "THROUGH_ALL",
            67 => "THROUGH_DIR",
            71 => "OLDLASER",
            72 => "NPC",
            73 => "EHOOK",
            74 => "NOHIT",
            75 => "NPH",
            76 => "UNLOCK_TEAM",
            79 => "PENALTY",
            88 => "NPC_END",
            89 => "SUPER_END",
            90 => "JETPACK_END",
            91 => "NPH_END",
            95 => "BONUS",
            96 => "TELE_GUN_ENABLE",
            97 => "TELE_GUN_DISABLE",
            98 => "ALLOW_TELE_GUN",
            99 => "ALLOW_BLUE_TELE_GUN",
            104 => "NPC_START",
            105 => "SUPER_START",
            106 => "JETPACK_START",
            107 => "NPH_START",
            112 => "TELE_GRENADE_ENABLE",
            113 => "TELE_GRENADE_DISABLE",
            128 => "TELE_LASER_ENABLE",
            129 => "TELE_LASER_DISABLE",
            140..=143 | 156..=159 => "CREDITS",
            144 => "LFREEZE",
            145 => "LUNFREEZE",
            190 => "ENTITIES_OFF_1",
            191 => "ENTITIES_OFF_2",
            _ => return None,
        })
    }

    /// Name of a tele layer tile (by its type byte).
    fn old_tele_tile_name(id: u8) -> Option<&'static str> {
        Some(match id {
            10 => "TELEINEVIL",
            14 => "TELEINWEAPON",
            15 => "TELEINHOOK",
            26 => "TELEIN",
            27 => "TELEOUT",
            29 => "TELECHECK",
            30 => "TELECHECKOUT",
            31 => "TELECHECKIN",
            63 => "TELECHECKINEVIL",
            _ => return None,
        })
    }

    /// Name of a speedup layer tile.
    fn old_speedup_tile_name(id: u8) -> Option<&'static str> {
        (id == TILE_BOOST).then_some("BOOST")
    }

    /// Name of a switch layer tile: the switch triggers, or what the switch
    /// layer places (doors, lasers, draggers, freeze, ...) as in the game layer.
    fn old_switch_tile_name(id: u8) -> Option<&'static str> {
        match id {
            22..=25 => Some("SWITCH"),
            _ => old_game_tile_name(id),
        }
    }

    /// Name of a tune layer tile.
    fn old_tune_tile_name(id: u8) -> Option<&'static str> {
        (id == TILE_TUNE).then_some("TUNE")
    }

    #[test]
    fn former_names_are_aliases_of_the_same_ids() {
        use crate::map::PhysicsKind as K;
        let old = |kind: K, id: u8| match kind {
            K::Game | K::Front => old_game_tile_name(id),
            K::Tele => old_tele_tile_name(id),
            K::Speedup => old_speedup_tile_name(id),
            K::Switch => old_switch_tile_name(id),
            K::Tune => old_tune_tile_name(id),
            K::Tiles => None,
        };
        for kind in K::PHYSICS {
            for id in 0..=255u8 {
                let Some(former) = old(kind, id) else {
                    continue;
                };
                // The id keeps a name, and is special as before.
                let now = tile_name(kind, id).unwrap_or_else(|| panic!("{kind:?} {id}"));
                assert!(is_special(kind, id), "{kind:?} {id}");
                // A query by the former name finds this id ...
                assert!(
                    lookup(former).contains(&(kind, id)),
                    "{former} {kind:?} {id}"
                );
                // ... and only ids the former name named in this layer.
                for (k, i) in lookup(former) {
                    if k == kind {
                        assert_eq!(old(k, i), Some(former), "{former} {k:?} {i}");
                    }
                }
                assert!(current_names(former).contains(&now), "{former}");
            }
        }
        // Ids that had no name then are the common ones, not special.
        for id in [TILE_SOLID, TILE_NOHOOK, ENTITY_OFFSET + ENTITY_SPAWN] {
            assert!(old(K::Game, id).is_none() && !is_special(K::Game, id));
            assert!(tile_name(K::Game, id).is_some());
        }
    }

    #[test]
    fn lookups_by_current_former_and_constant_names() {
        use crate::map::PhysicsKind as K;
        assert_eq!(current_names("START"), ["START"]);
        assert_eq!(current_names("begin"), ["START"]);
        assert_eq!(current_names("TILE_START"), ["START"]);
        assert_eq!(current_names("ENTITY_SPAWN"), ["SPAWN"]);
        assert_eq!(current_names("PENALTY"), ["ADD_TIME"]);
        assert_eq!(current_names("BONUS"), ["SUBTRACT_TIME"]);
        assert_eq!(current_names("SOLO_START"), ["SOLO_ENABLE"]);
        assert_eq!(
            current_names("SWITCH"),
            [
                "SWITCHTIMEDOPEN",
                "SWITCHTIMEDCLOSE",
                "SWITCHOPEN",
                "SWITCHCLOSE"
            ]
        );
        assert_eq!(current_names("CHECKPOINT_FIRST").len(), 25);
        assert_eq!(current_names("CREDITS").len(), 8);
        assert_eq!(current_names("DRAGGER").len(), 6);
        assert!(current_names("NO_SUCH_TILE").is_empty());
        assert_eq!(
            lookup("START"),
            [(K::Game, 33), (K::Front, 33), (K::Switch, 33)]
        );
        assert_eq!(lookup("BEGIN"), lookup("START"));
        assert_eq!(lookup("TELEIN"), [(K::Tele, 26)]);
        assert_eq!(lookup("SOLID"), [(K::Game, 1), (K::Front, 1)]);
        assert_eq!(
            lookup("DOOR"),
            [(K::Game, 240), (K::Front, 240), (K::Switch, 240)]
        );
    }

    /// Every game layer id `mapitems.h` names (its `TILE_*` constants but
    /// the tele, speedup, switch and tune ones, and its entities), listed
    /// here by hand, has a name.
    #[test]
    fn every_valid_game_tile_has_a_name() {
        let valid = (0u8..=7)
            .chain([9])
            .chain(11..=13)
            .chain(16..=22)
            .chain(32..=62)
            .chain(64..=67)
            .chain(71..=76)
            .chain([79, 88, 89, 90, 91, 95, 96, 97, 98, 99, 104, 105, 106, 107])
            .chain([112, 113, 128, 129])
            .chain(140..=145)
            .chain(156..=159)
            .chain(190..=191)
            .chain(
                (1u8..=27)
                    .chain(29..=38)
                    .chain(42..=47)
                    .chain([49])
                    .map(|e| ENTITY_OFFSET + e),
            );
        for id in valid {
            assert!(game_tile_name(id).is_some(), "{id}");
        }
    }

    /// No id is in two rows of one space (so every id has at most one
    /// name and one palette key), every row is a range, entity tiles stay
    /// in a byte, and every constant names its row's first id.
    #[test]
    fn table_rows_are_disjoint() {
        for (i, a) in TILES.iter().enumerate() {
            assert!(a.first <= a.last, "{a:?}");
            if a.space == TileSpace::Entity {
                assert!(a.first > 0 && a.last <= 255 - ENTITY_OFFSET, "{a:?}");
            }
            for b in &TILES[i + 1..] {
                let game = |r: &TileRow| {
                    let (f, l) = (tile_id(r, r.first), tile_id(r, r.last));
                    (r.space == TileSpace::Game || r.space == TileSpace::Entity).then_some((f, l))
                };
                let overlap = |(f1, l1): (u8, u8), (f2, l2): (u8, u8)| f1 <= l2 && f2 <= l1;
                if a.space == b.space {
                    assert!(
                        !overlap((a.first, a.last), (b.first, b.last)),
                        "{a:?} {b:?}"
                    );
                }
                if let (Some(x), Some(y)) = (game(a), game(b)) {
                    assert!(!overlap(x, y), "{a:?} {b:?}");
                }
            }
        }
        let consts = [
            (TILE_AIR, "TILE_AIR"),
            (TILE_SOLID, "TILE_SOLID"),
            (TILE_BOOST, "TILE_BOOST"),
            (ENTITY_SPAWN, "ENTITY_SPAWN"),
            (ENTITY_DOOR, "ENTITY_DOOR"),
            (TILE_SWITCHOPEN, "TILE_SWITCHOPEN"),
        ];
        for (value, name) in consts {
            let row = TILES.iter().find(|r| r.constant == Some(name)).unwrap();
            assert_eq!(row.first, value, "{name}");
        }
    }

    #[test]
    fn palette_ids_follow_the_keys() {
        assert_eq!(palette_ids::<3>(TileSpace::Game, "spawn"), [192, 193, 194]);
        assert_eq!(palette_ids::<3>(TileSpace::Game, "stopper"), [60, 61, 62]);
        assert_eq!(
            palette_ids::<4>(TileSpace::Switch, "switch"),
            [22, 23, 24, 25]
        );
        assert_eq!(palette_ids::<1>(TileSpace::Game, "door"), [240]);
    }
}
