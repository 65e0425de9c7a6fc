//! The tile id table: every tile id this crate names, once ([`TILES`]),
//! with its constant, the name ddnet.org lists it by per map, and the key of
//! its colour in the renderer's flat palette (`render::entities::LEGEND`).
//! The constants, the name lookups and the palette's ids come from it.
//!
//! Facts from DDNet's `src/game/mapitems.h` (`TILE_*` and `ENTITY_*` enums).
//! The names are those of the enum before DDNet renamed some tiles (so
//! `EHOOK_START`, `HIT_END`, `JETPACK_START`, `BEGIN`, `END`, `PENALTY`,
//! `BONUS`, `CHECKPOINT_FIRST`), which is the vocabulary ddnet.org uses.
//! Grouping: the 25 time checkpoints 35..=59 are all `CHECKPOINT_FIRST`, the
//! eight credits tiles `CREDITS`, the six dragger entities `DRAGGER`, the
//! switch layer's four switch tiles `SWITCH`.
//!
//! What is *not* listed: air, hookable (`SOLID`) and unhookable (`NOHOOK`)
//! tiles and the vanilla entities (spawns, flags, pickups, weapons), which
//! every map has and which the statistics count separately; and ids with no
//! meaning in their layer.
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
    /// The name ddnet.org lists the tiles by.
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
    TILE_AIR: Game, 0, _, _;
    TILE_SOLID: Game, 1, _, "hookable";
    TILE_DEATH: Game, 2, "DEATH", "death";
    TILE_NOHOOK: Game, 3, _, "unhookable";
    _: Game, 4, "NOLASER", _;
    _: Game, 5, "THROUGH_CUT", _;
    TILE_THROUGH: Game, 6, "THROUGH", _;
    _: Game, 7, "JUMP", _;
    TILE_FREEZE: Game, 9, "FREEZE", "freeze";
    TILE_UNFREEZE: Game, 11, "UNFREEZE", "unfreeze";
    TILE_DFREEZE: Game, 12, "DFREEZE", "deep freeze";
    _: Game, 13, "DUNFREEZE", "deep unfreeze";
    _: Game, 16, "WALLJUMP", _;
    _: Game, 17, "EHOOK_START", _;
    _: Game, 18, "EHOOK_END", _;
    _: Game, 19, "HIT_START", _;
    _: Game, 20, "HIT_END", _;
    _: Game, 21, "SOLO_START", _;
    _: Game, 22, "SOLO_END", _;
    _: Game, 32, "REFILL_JUMPS", _;
    TILE_BEGIN: Game, 33, "BEGIN", "start";
    TILE_END: Game, 34, "END", "finish";
    _: Game, 35..=59, "CHECKPOINT_FIRST", "time checkpoint";
    TILE_STOP: Game, 60, "STOP", "stopper";
    _: Game, 61, "STOPS", "stopper";
    _: Game, 62, "STOPA", "stopper";
    _: Game, 64, "CP", _;
    _: Game, 65, "CP_F", _;
    _: Game, 66, "THROUGH_ALL", _;
    _: Game, 67, "THROUGH_DIR", _;
    _: Game, 71, "OLDLASER", _;
    _: Game, 72, "NPC", _;
    _: Game, 73, "EHOOK", _;
    _: Game, 74, "NOHIT", _;
    _: Game, 75, "NPH", _;
    _: Game, 76, "UNLOCK_TEAM", _;
    _: Game, 79, "PENALTY", _;
    _: Game, 88, "NPC_END", _;
    _: Game, 89, "SUPER_END", _;
    _: Game, 90, "JETPACK_END", _;
    _: Game, 91, "NPH_END", _;
    _: Game, 95, "BONUS", _;
    _: Game, 96, "TELE_GUN_ENABLE", _;
    _: Game, 97, "TELE_GUN_DISABLE", _;
    _: Game, 98, "ALLOW_TELE_GUN", _;
    _: Game, 99, "ALLOW_BLUE_TELE_GUN", _;
    _: Game, 104, "NPC_START", _;
    _: Game, 105, "SUPER_START", _;
    _: Game, 106, "JETPACK_START", _;
    _: Game, 107, "NPH_START", _;
    _: Game, 112, "TELE_GRENADE_ENABLE", _;
    _: Game, 113, "TELE_GRENADE_DISABLE", _;
    _: Game, 128, "TELE_LASER_ENABLE", _;
    _: Game, 129, "TELE_LASER_DISABLE", _;
    _: Game, 140..=143, "CREDITS", _;
    _: Game, 144, "LFREEZE", _;
    _: Game, 145, "LUNFREEZE", _;
    _: Game, 156..=159, "CREDITS", _;
    _: Game, 190, "ENTITIES_OFF_1", _;
    _: Game, 191, "ENTITIES_OFF_2", _;
    // Entities (`ENTITY_*`); the vanilla ones (1..=11) are counted, not
    // named.
    ENTITY_SPAWN: Entity, 1, _, "spawn";
    ENTITY_SPAWN_RED: Entity, 2, _, "spawn";
    ENTITY_SPAWN_BLUE: Entity, 3, _, "spawn";
    ENTITY_FLAGSTAND_RED: Entity, 4, _, "red flag";
    ENTITY_FLAGSTAND_BLUE: Entity, 5, _, "blue flag";
    ENTITY_ARMOR_1: Entity, 6, _, "armor, health";
    ENTITY_HEALTH_1: Entity, 7, _, "armor, health";
    ENTITY_WEAPON_SHOTGUN: Entity, 8, _, "weapons, ninja";
    ENTITY_WEAPON_GRENADE: Entity, 9, _, "weapons, ninja";
    ENTITY_POWERUP_NINJA: Entity, 10, _, "weapons, ninja";
    ENTITY_WEAPON_LASER: Entity, 11, _, "weapons, ninja";
    _: Entity, 12, "LASER_FAST_CCW", _;
    _: Entity, 13, "LASER_NORMAL_CCW", _;
    _: Entity, 14, "LASER_SLOW_CCW", _;
    _: Entity, 15, "LASER_STOP", _;
    _: Entity, 16, "LASER_SLOW_CW", _;
    _: Entity, 17, "LASER_NORMAL_CW", _;
    _: Entity, 18, "LASER_FAST_CW", _;
    _: Entity, 19, "LASER_SHORT", _;
    _: Entity, 20, "LASER_MEDIUM", _;
    _: Entity, 21, "LASER_LONG", _;
    _: Entity, 22, "LASER_C_SLOW", _;
    _: Entity, 23, "LASER_C_NORMAL", _;
    _: Entity, 24, "LASER_C_FAST", _;
    _: Entity, 25, "LASER_O_SLOW", _;
    _: Entity, 26, "LASER_O_NORMAL", _;
    _: Entity, 27, "LASER_O_FAST", _;
    _: Entity, 29, "PLASMAE", _;
    _: Entity, 30, "PLASMAF", _;
    _: Entity, 31, "PLASMA", _;
    _: Entity, 32, "PLASMAU", _;
    _: Entity, 33, "CRAZY_SHOTGUN_EX", _;
    _: Entity, 34, "CRAZY_SHOTGUN", _;
    _: Entity, 35, "ARMOR_SHOTGUN", _;
    _: Entity, 36, "ARMOR_GRENADE", _;
    _: Entity, 37, "ARMOR_NINJA", _;
    _: Entity, 38, "ARMOR_LASER", _;
    _: Entity, 42..=47, "DRAGGER", _;
    ENTITY_DOOR: Entity, 49, "DOOR", "door";
    // Tele layer types.
    _: Tele, 10, "TELEINEVIL", "teleporter in";
    _: Tele, 14, "TELEINWEAPON", "teleporter in";
    _: Tele, 15, "TELEINHOOK", "teleporter in";
    TILE_TELEIN: Tele, 26, "TELEIN", "teleporter in";
    TILE_TELEOUT: Tele, 27, "TELEOUT", "teleporter out";
    TILE_TELECHECK: Tele, 29, "TELECHECK", "tele checkpoint";
    _: Tele, 30, "TELECHECKOUT", "tele checkpoint";
    _: Tele, 31, "TELECHECKIN", "tele checkpoint";
    _: Tele, 63, "TELECHECKINEVIL", "tele checkpoint";
    // Speedup layer types.
    TILE_BOOST: Speedup, 28, "BOOST", "speedup";
    // Switch layer types: the four switch tiles; the other ids are game
    // tiles the switch layer places (doors, lasers, freeze, ...).
    _: Switch, 22..=23, "SWITCH", "switch";
    TILE_SWITCHOPEN: Switch, 24, "SWITCH", "switch";
    _: Switch, 25, "SWITCH", "switch";
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
pub fn game_tile_name(id: u8) -> Option<&'static str> {
    GAME_NAMES[id as usize]
}

/// Name of a tele layer tile (by its type byte).
pub fn tele_tile_name(id: u8) -> Option<&'static str> {
    TELE_NAMES[id as usize]
}

/// Name of a speedup layer tile.
pub fn speedup_tile_name(id: u8) -> Option<&'static str> {
    SPEEDUP_NAMES[id as usize]
}

/// Name of a switch layer tile: the switch triggers, or what the switch
/// layer places (doors, lasers, draggers, freeze, ...) as in the game layer.
pub fn switch_tile_name(id: u8) -> Option<&'static str> {
    SWITCH_NAMES[id as usize].or_else(|| game_tile_name(id))
}

/// Name of a tune layer tile.
pub fn tune_tile_name(id: u8) -> Option<&'static str> {
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
        assert_eq!(game_tile_name(ENTITY_OFFSET + 1), None);
        assert_eq!(game_tile_name(TILE_SOLID), None);
        assert_eq!(game_tile_name(TILE_DEATH), Some("DEATH"));
        assert_eq!(game_tile_name(40), Some("CHECKPOINT_FIRST"));
        assert_eq!(tele_tile_name(TILE_TELEIN), Some("TELEIN"));
        assert_eq!(switch_tile_name(TILE_SWITCHOPEN), Some("SWITCH"));
        assert_eq!(switch_tile_name(ENTITY_OFFSET + ENTITY_DOOR), Some("DOOR"));
    }

    /// The former hand-written name functions (golden): the table gives
    /// the same name for every id of every layer.
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
    fn table_names_match_the_former_functions() {
        for id in 0..=255u8 {
            assert_eq!(game_tile_name(id), old_game_tile_name(id), "game {id}");
            assert_eq!(tele_tile_name(id), old_tele_tile_name(id), "tele {id}");
            assert_eq!(
                speedup_tile_name(id),
                old_speedup_tile_name(id),
                "speedup {id}"
            );
            assert_eq!(
                switch_tile_name(id),
                old_switch_tile_name(id),
                "switch {id}"
            );
            assert_eq!(tune_tile_name(id), old_tune_tile_name(id), "tune {id}");
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
