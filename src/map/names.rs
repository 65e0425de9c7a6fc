//! Names of DDNet's special tiles, as ddnet.org lists them per map.
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

/// `ENTITY_OFFSET` of `mapitems.h`.
pub const ENTITY_OFFSET: u8 = 255 - 16 * 4;

/// Vanilla entities (`ENTITY_*` 1..=11): counted, not named.
pub const ENTITY_SPAWN: u8 = 1;
pub const ENTITY_SPAWN_RED: u8 = 2;
pub const ENTITY_SPAWN_BLUE: u8 = 3;
pub const ENTITY_FLAGSTAND_RED: u8 = 4;
pub const ENTITY_FLAGSTAND_BLUE: u8 = 5;
pub const ENTITY_ARMOR_1: u8 = 6;
pub const ENTITY_HEALTH_1: u8 = 7;
pub const ENTITY_WEAPON_SHOTGUN: u8 = 8;
pub const ENTITY_WEAPON_GRENADE: u8 = 9;
pub const ENTITY_POWERUP_NINJA: u8 = 10;
pub const ENTITY_WEAPON_LASER: u8 = 11;

/// Game layer tile ids used by the generator and tests.
pub const TILE_AIR: u8 = 0;
pub const TILE_SOLID: u8 = 1;
pub const TILE_DEATH: u8 = 2;
pub const TILE_NOHOOK: u8 = 3;
pub const TILE_THROUGH: u8 = 6;
pub const TILE_FREEZE: u8 = 9;
pub const TILE_UNFREEZE: u8 = 11;
pub const TILE_DFREEZE: u8 = 12;
pub const TILE_SWITCHOPEN: u8 = 24;
pub const TILE_TELEIN: u8 = 26;
pub const TILE_TELEOUT: u8 = 27;
pub const TILE_BOOST: u8 = 28;
pub const TILE_TELECHECK: u8 = 29;
pub const TILE_BEGIN: u8 = 33;
pub const TILE_END: u8 = 34;
pub const TILE_STOP: u8 = 60;
pub const TILE_TUNE: u8 = 68;
pub const ENTITY_DOOR: u8 = 49;

/// The entity of tile `id`, if `id` is an entity tile.
pub fn entity_of(id: u8) -> Option<u8> {
    id.checked_sub(ENTITY_OFFSET).filter(|&e| e > 0)
}

/// Name of a DDRace entity (`ENTITY_*` beyond the vanilla ones).
fn entity_name(entity: u8) -> Option<&'static str> {
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
pub fn game_tile_name(id: u8) -> Option<&'static str> {
    if let Some(e) = entity_of(id) {
        return entity_name(e);
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
pub fn tele_tile_name(id: u8) -> Option<&'static str> {
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
pub fn speedup_tile_name(id: u8) -> Option<&'static str> {
    (id == TILE_BOOST).then_some("BOOST")
}

/// Name of a switch layer tile: the switch triggers, or what the switch
/// layer places (doors, lasers, draggers, freeze, ...) as in the game layer.
pub fn switch_tile_name(id: u8) -> Option<&'static str> {
    match id {
        22..=25 => Some("SWITCH"),
        _ => game_tile_name(id),
    }
}

/// Name of a tune layer tile.
pub fn tune_tile_name(id: u8) -> Option<&'static str> {
    (id == TILE_TUNE).then_some("TUNE")
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
}
