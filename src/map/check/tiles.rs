//! The tile rules, one loaded physics layer at a time: tile ids valid
//! per layer, mirrored direction-sensitive tiles, the old hookthrough over
//! nothing, tele pairs and switch numbers (tables of 256 entries).

use super::{Location, MapCheck, RuleSet, R};
use crate::map::names::{self, TileSpace};
use crate::map::tiles::{TILEFLAG_XFLIP, TILEFLAG_YFLIP};
use crate::map::TileLayer;

// Tile ids (DDNet `mapitems.h`), all through the tile id table's
// constants (`map::names`): one place to follow a rename.
use names::{
    ENTITY_ARMOR_1, ENTITY_ARMOR_LASER, ENTITY_CRAZY_SHOTGUN, ENTITY_CRAZY_SHOTGUN_EX, ENTITY_DOOR,
    ENTITY_DRAGGER_STRONG_NW, ENTITY_DRAGGER_WEAK, ENTITY_LASER_FAST_CCW, ENTITY_LASER_FAST_CW,
    ENTITY_LASER_O_FAST, ENTITY_PLASMAE, ENTITY_SPAWN, TILE_ADD_TIME, TILE_ALLOW_BLUE_TELE_GUN,
    TILE_ALLOW_TELE_GUN, TILE_CP, TILE_CP_F, TILE_DEATH, TILE_DFREEZE as DEEP_FREEZE,
    TILE_DUNFREEZE as DEEP_UNFREEZE, TILE_ENTITIES_OFF_1, TILE_ENTITIES_OFF_2,
    TILE_FINISH as FINISH, TILE_FREEZE as FREEZE, TILE_HIT_DISABLE, TILE_HIT_ENABLE, TILE_JUMP,
    TILE_LFREEZE as LIVE_FREEZE, TILE_LUNFREEZE as LIVE_UNFREEZE, TILE_NOHOOK as NOHOOK,
    TILE_NOLASER, TILE_NPC_DISABLE, TILE_NPC_ENABLE, TILE_NPH_DISABLE, TILE_NPH_ENABLE,
    TILE_OLDLASER, TILE_REFILL_JUMPS, TILE_SOLID as SOLID, TILE_SOLO_DISABLE, TILE_START as START,
    TILE_STOP, TILE_STOPA, TILE_STOPS, TILE_SUBTRACT_TIME, TILE_SWITCHCLOSE as SWITCH_LAST,
    TILE_SWITCHTIMEDOPEN as SWITCH_FIRST, TILE_TELECHECK as TELE_CHECKPOINT,
    TILE_TELECHECKIN as TELE_CHECKPOINT_IN, TILE_TELECHECKINEVIL as TELE_CHECKPOINT_IN_EVIL,
    TILE_TELECHECKOUT as TELE_CHECKPOINT_OUT, TILE_TELEIN as TELE_IN,
    TILE_TELEINEVIL as TELE_IN_EVIL, TILE_TELEINHOOK as TELE_IN_HOOK,
    TILE_TELEINWEAPON as TELE_IN_WEAPON, TILE_TELEOUT as TELE_OUT, TILE_TELE_GRENADE_DISABLE,
    TILE_TELE_GRENADE_ENABLE, TILE_TELE_GUN_DISABLE, TILE_TELE_GUN_ENABLE, TILE_TELE_LASER_DISABLE,
    TILE_TELE_LASER_ENABLE, TILE_THROUGH, TILE_THROUGH_CUT as THROUGH_CUT, TILE_THROUGH_DIR,
    TILE_TIME_CHECKPOINT_FIRST as TIME_CHECKPOINT_FIRST,
    TILE_TIME_CHECKPOINT_LAST as TIME_CHECKPOINT_LAST, TILE_UNFREEZE, TILE_UNLOCK_TEAM,
    TILE_WALLJUMP,
};

/// A table of 256 flags from inclusive ranges, at compile time.
const fn table(ranges: &[(u8, u8)]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut r = 0;
    while r < ranges.len() {
        let (a, b) = ranges[r];
        let mut i = a as usize;
        while i <= b as usize {
            t[i] = true;
            i += 1;
        }
        r += 1;
    }
    t
}

const E: u8 = names::ENTITY_OFFSET;
/// Entity tiles DDNet places (its `IsValidEntity`: spawns to the laser,
/// plasma, shotgun, armor, dragger and door entities).
const ENTITIES: [(u8, u8); 4] = [
    (E + ENTITY_SPAWN, E + ENTITY_LASER_O_FAST),
    (E + ENTITY_PLASMAE, E + ENTITY_ARMOR_LASER),
    (E + ENTITY_DRAGGER_WEAK, E + ENTITY_DRAGGER_STRONG_NW),
    (E + ENTITY_DOOR, E + ENTITY_DOOR),
];
/// Tiles valid in the game and in the front layer alike.
///
/// The validity sets of the game, front and switch layers are DDNet's
/// `IsValidGameTile`, `IsValidFrontTile` and `IsValidSwitchTile`, a fact
/// of their own beside the table's names: the table names every id any
/// of these layers places (`JUMP` and the time bonus tiles only in the
/// switch layer, the tele gun permissions only in the front and switch
/// layers, `SOLID` and `NOHOOK` only in the game layer), and the credits
/// tiles, which no layer accepts. So they are written by ranges of the
/// table's constants, not built from its rows (a test checks that every
/// valid id is named in its layer).
const GAME_OR_FRONT: [(u8, u8); 15] = [
    (TILE_DEATH, TILE_DEATH),
    (TILE_NOLASER, TILE_THROUGH),
    (FREEZE, FREEZE),
    (TILE_UNFREEZE, DEEP_UNFREEZE),
    (TILE_WALLJUMP, TILE_SOLO_DISABLE),
    (TILE_REFILL_JUMPS, TILE_STOPA),
    (TILE_CP, TILE_THROUGH_DIR),
    (TILE_OLDLASER, TILE_UNLOCK_TEAM),
    (TILE_NPC_DISABLE, TILE_NPH_DISABLE),
    (TILE_TELE_GUN_ENABLE, TILE_TELE_GUN_DISABLE),
    (TILE_NPC_ENABLE, TILE_NPH_ENABLE),
    (TILE_TELE_GRENADE_ENABLE, TILE_TELE_GRENADE_DISABLE),
    (TILE_TELE_LASER_ENABLE, TILE_TELE_LASER_DISABLE),
    (LIVE_FREEZE, LIVE_UNFREEZE),
    (TILE_ENTITIES_OFF_1, TILE_ENTITIES_OFF_2),
];

const fn concat<const N: usize>(a: &[(u8, u8)], b: &[(u8, u8)], c: &[(u8, u8)]) -> [(u8, u8); N] {
    let mut out = [(0u8, 0u8); N];
    let mut n = 0;
    let mut i = 0;
    while i < a.len() {
        out[n] = a[i];
        n += 1;
        i += 1;
    }
    i = 0;
    while i < b.len() {
        out[n] = b[i];
        n += 1;
        i += 1;
    }
    i = 0;
    while i < c.len() {
        out[n] = c[i];
        n += 1;
        i += 1;
    }
    assert!(n == N);
    out
}

/// Game layer: also the hookable and unhookable blocks.
pub(super) static VALID_GAME: [bool; 256] = table(&concat::<21>(
    &[(SOLID, SOLID), (NOHOOK, NOHOOK)],
    &GAME_OR_FRONT,
    &ENTITIES,
));
/// Front layer: also the tele gun permissions.
pub(super) static VALID_FRONT: [bool; 256] = table(&concat::<20>(
    &[(TILE_ALLOW_TELE_GUN, TILE_ALLOW_BLUE_TELE_GUN)],
    &GAME_OR_FRONT,
    &ENTITIES,
));
/// The tele, speedup and tune layers place exactly the table's rows of
/// their space.
static VALID_TELE: [bool; 256] = names::ids_of(TileSpace::Tele);
pub(super) static VALID_SPEEDUP: [bool; 256] = names::ids_of(TileSpace::Speedup);
/// Switch layer: its switch tiles (the table's switch rows), the game
/// tiles it switches and the switchable entities (doors, lasers,
/// draggers, turrets: `ENTITY_ARMOR_1` and on), as DDNet's
/// `IsValidSwitchTile` (see [`GAME_OR_FRONT`] for why by ranges).
static VALID_SWITCH: [bool; 256] = table(&concat::<13>(
    &[
        (TILE_JUMP, TILE_JUMP),
        (FREEZE, FREEZE),
        (DEEP_FREEZE, DEEP_UNFREEZE),
        (TILE_HIT_ENABLE, TILE_HIT_DISABLE),
        (SWITCH_FIRST, SWITCH_LAST),
        (TILE_ADD_TIME, TILE_ADD_TIME),
        (TILE_SUBTRACT_TIME, TILE_SUBTRACT_TIME),
        (TILE_ALLOW_TELE_GUN, TILE_ALLOW_BLUE_TELE_GUN),
        (LIVE_FREEZE, LIVE_UNFREEZE),
    ],
    &[
        (E + ENTITY_ARMOR_1, E + ENTITY_LASER_O_FAST),
        (E + ENTITY_PLASMAE, E + ENTITY_ARMOR_LASER),
    ],
    &[
        (E + ENTITY_DRAGGER_WEAK, E + ENTITY_DRAGGER_STRONG_NW),
        (E + ENTITY_DOOR, E + ENTITY_DOOR),
    ],
));
pub(super) static VALID_TUNE: [bool; 256] = names::ids_of(TileSpace::Tune);

/// Direction-sensitive tiles: stoppers, speeders, directional hookthrough,
/// rotating lasers, turret bullets. This check's own set, deliberately
/// not DDNet's `IsRotatableTile` (the tiles its editor turns: that one
/// also has `ENTITIES_OFF_1`/`_2` and not the rotating lasers).
static DIRECTIONAL: [bool; 256] = table(&[
    (TILE_STOP, TILE_STOPS),
    (TILE_CP, TILE_CP_F),
    (TILE_THROUGH_DIR, TILE_THROUGH_DIR),
    (E + ENTITY_LASER_FAST_CCW, E + ENTITY_LASER_FAST_CW),
    (E + ENTITY_CRAZY_SHOTGUN_EX, E + ENTITY_CRAZY_SHOTGUN),
]);

/// Whether a switch-layer tile of this id takes its number as a switch
/// number (rather than a count, a time or a weapon).
fn switchable(id: u8) -> bool {
    matches!(
        id,
        FREEZE | DEEP_FREEZE | DEEP_UNFREEZE | LIVE_FREEZE | LIVE_UNFREEZE
    ) || names::entity_of(id).is_some_and(|e| e >= ENTITY_ARMOR_1)
}

/// A loaded physics layer and where it is.
pub(super) struct Loaded {
    pub(super) index: usize,
    pub(super) name: String,
    pub(super) tiles: TileLayer,
}

impl Loaded {
    fn at(&self, x: usize, y: usize) -> Location {
        Location {
            layer: Some(self.index as u32),
            layer_name: Some(self.name.clone()),
            layer_kind: Some(self.tiles.kind.name()),
            x: Some(x as u32),
            y: Some(y as u32),
            ..Location::default()
        }
    }

    /// `(x, y, tile bytes)` of every tile, row by row.
    fn tiles(&self) -> impl Iterator<Item = (usize, usize, &[u8])> + '_ {
        let w = self.tiles.width.max(1);
        let ts = self.tiles.kind.tile_size();
        self.tiles
            .bytes
            .chunks_exact(ts)
            .enumerate()
            .map(move |(i, t)| (i % w, i / w, t))
    }
}

/// Ids, mirrored directional tiles and race tiles of a game or front layer.
pub(super) fn check_game_like(
    c: &mut MapCheck,
    rules: RuleSet,
    l: &Loaded,
    valid: &[bool; 256],
    race: &mut [bool; 3],
) {
    let ids = rules.has(R::TileIdInvalid);
    let mirrored = rules.has(R::TileMirrored);
    for (x, y, t) in l.tiles() {
        let (id, flags) = (t[0], t[1]);
        if id == 0 {
            continue;
        }
        race[0] |= id == START;
        race[1] |= id == FINISH;
        race[2] |= (TIME_CHECKPOINT_FIRST..=TIME_CHECKPOINT_LAST).contains(&id);
        if ids && !valid[id as usize] {
            invalid_id(c, l, x, y, id);
        }
        if mirrored && DIRECTIONAL[id as usize] && is_mirrored(flags) {
            c.add(
                R::TileMirrored,
                format!("direction-sensitive tile {id} is mirrored (flags {flags})"),
                l.at(x, y),
            );
        }
    }
}

fn is_mirrored(flags: u8) -> bool {
    (flags & TILEFLAG_XFLIP != 0) != (flags & TILEFLAG_YFLIP != 0)
}

/// The finding of a tile id its layer does not take.
fn invalid_id(c: &mut MapCheck, l: &Loaded, x: usize, y: usize, id: u8) {
    c.add(
        R::TileIdInvalid,
        format!(
            "tile id {id} is not valid in the {} layer",
            l.tiles.kind.name()
        ),
        l.at(x, y),
    );
}

/// Ids of a tele, speedup or tune layer.
pub(super) fn check_ids(c: &mut MapCheck, l: &Loaded, valid: &[bool; 256]) {
    let id_at = l.tiles.kind.id_offset();
    for (x, y, t) in l.tiles() {
        let id = t[id_at];
        if id != 0 && !valid[id as usize] {
            invalid_id(c, l, x, y, id);
        }
    }
}

/// The old hookthrough over nothing to hook through.
pub(super) fn check_hookthrough(c: &mut MapCheck, game: &Loaded, front: &Loaded) {
    if game.tiles.width != front.tiles.width || game.tiles.height != front.tiles.height {
        return;
    }
    for ((x, y, f), (_, _, g)) in front.tiles().zip(game.tiles()) {
        if f[0] == THROUGH_CUT && g[0] != SOLID && g[0] != NOHOOK {
            c.add(
                R::HookthroughWithoutSolid,
                format!(
                    "old hookthrough over game tile {}, not a hookable or unhookable block",
                    g[0]
                ),
                front.at(x, y),
            );
        }
    }
}

/// Tele numbers and their pairs: one pass to mark the numbers used, one
/// to report.
pub(super) fn check_tele(c: &mut MapCheck, rules: RuleSet, l: &Loaded) {
    if rules.has(R::TileIdInvalid) {
        check_ids(c, l, &VALID_TELE);
    }
    let mut ins = [false; 256];
    let mut outs = [false; 256];
    let mut cps = [false; 256];
    let mut cp_outs = [false; 256];
    let mut any_cp_in = false;
    for (_, _, t) in l.tiles() {
        let (n, id) = (t[0] as usize, t[1]);
        match id {
            TELE_IN | TELE_IN_EVIL | TELE_IN_WEAPON | TELE_IN_HOOK => ins[n] = true,
            TELE_OUT => outs[n] = true,
            TELE_CHECKPOINT => cps[n] = true,
            TELE_CHECKPOINT_OUT => cp_outs[n] = true,
            TELE_CHECKPOINT_IN | TELE_CHECKPOINT_IN_EVIL => any_cp_in = true,
            _ => {}
        }
    }
    for (x, y, t) in l.tiles() {
        let (n, id) = (t[0], t[1]);
        if id == 0 || !VALID_TELE[id as usize] {
            continue;
        }
        let numbered = !matches!(id, TELE_CHECKPOINT_IN | TELE_CHECKPOINT_IN_EVIL);
        if n == 0 && numbered {
            if rules.has(R::TeleNumberZero) {
                c.add(
                    R::TeleNumberZero,
                    format!("tele tile {id} has number 0"),
                    l.at(x, y),
                );
            }
            continue;
        }
        let (rule, message) = match id {
            TELE_IN | TELE_IN_EVIL if !outs[n as usize] => (
                R::TeleInWithoutOut,
                format!("teleporter in {id} number {n} has no teleporter out"),
            ),
            TELE_OUT if !ins[n as usize] => (
                R::TeleOutWithoutIn,
                format!("teleporter out number {n} has no teleporter in"),
            ),
            TELE_CHECKPOINT if !cp_outs[n as usize] => (
                R::TeleCheckpointWithoutOut,
                format!("tele checkpoint number {n} has no checkpoint teleporter out"),
            ),
            TELE_CHECKPOINT_OUT if !any_cp_in => (
                R::TeleCheckpointOutUnused,
                "checkpoint teleporter out but no checkpoint teleporter in on the map".into(),
            ),
            TELE_CHECKPOINT_OUT if !cps[n as usize] => (
                R::TeleCheckpointOutUnused,
                format!("checkpoint teleporter out number {n} has no tele checkpoint"),
            ),
            _ => continue,
        };
        if rules.has(rule) {
            c.add(rule, message, l.at(x, y));
        }
    }
}

/// Switch layer: ids, mirrored tiles, and switch numbers with their
/// switch tiles.
pub(super) fn check_switch(c: &mut MapCheck, rules: RuleSet, l: &Loaded) {
    let mut triggers = [false; 256];
    let mut switched = [false; 256];
    for (_, _, t) in l.tiles() {
        let (n, id) = (t[0] as usize, t[1]);
        if (SWITCH_FIRST..=SWITCH_LAST).contains(&id) {
            triggers[n] = true;
        } else if switchable(id) {
            switched[n] = true;
        }
    }
    for (x, y, t) in l.tiles() {
        let (n, id, flags) = (t[0], t[1], t[2]);
        if id == 0 {
            continue;
        }
        if rules.has(R::TileIdInvalid) && !VALID_SWITCH[id as usize] {
            c.add(
                R::TileIdInvalid,
                format!("tile id {id} is not valid in the switch layer"),
                l.at(x, y),
            );
        }
        if rules.has(R::TileMirrored) && DIRECTIONAL[id as usize] && is_mirrored(flags) {
            c.add(
                R::TileMirrored,
                format!("direction-sensitive tile {id} is mirrored (flags {flags})"),
                l.at(x, y),
            );
        }
        if n == 0 {
            continue;
        }
        if (SWITCH_FIRST..=SWITCH_LAST).contains(&id) {
            if rules.has(R::SwitchTriggerUnused) && !switched[n as usize] {
                c.add(
                    R::SwitchTriggerUnused,
                    format!("switch tile {id} number {n} switches nothing"),
                    l.at(x, y),
                );
            }
        } else if switchable(id) && rules.has(R::SwitchWithoutTrigger) && !triggers[n as usize] {
            c.add(
                R::SwitchWithoutTrigger,
                format!("switchable tile {id} number {n} has no switch tile"),
                l.at(x, y),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_tables() {
        assert!(VALID_GAME[SOLID as usize] && !VALID_FRONT[SOLID as usize]);
        assert!(VALID_FRONT[98] && !VALID_GAME[98]);
        assert!(VALID_GAME[(E + 1) as usize] && !VALID_GAME[(E + 28) as usize]);
        assert!(VALID_SWITCH[(E + 49) as usize] && !VALID_SWITCH[(E + 1) as usize]);
        assert!(DIRECTIONAL[60] && DIRECTIONAL[(E + 12) as usize] && !DIRECTIONAL[62]);
        assert!(is_mirrored(TILEFLAG_XFLIP) && !is_mirrored(TILEFLAG_XFLIP | TILEFLAG_YFLIP));
        assert!(switchable(names::ENTITY_OFFSET + names::ENTITY_DOOR) && !switchable(7));
    }

    fn ids(t: &[bool; 256]) -> Vec<u8> {
        (0..=255u8).filter(|&i| t[i as usize]).collect()
    }

    /// The sets as they were written by number before they were spelled
    /// through the table (golden: the check's findings stay the same).
    #[test]
    fn tile_sets_are_the_former_numbers() {
        let e = |a: u8, b: u8| (E + a, E + b);
        let entities = [e(1, 27), e(29, 38), e(42, 47), e(49, 49)];
        let both = [
            (2, 2),
            (4, 6),
            (9, 9),
            (11, 13),
            (16, 22),
            (32, 62),
            (64, 67),
            (71, 76),
            (88, 91),
            (96, 97),
            (104, 107),
            (112, 113),
            (128, 129),
            (144, 145),
            (190, 191),
        ];
        let game = table(&concat::<21>(&[(1, 1), (3, 3)], &both, &entities));
        let front = table(&concat::<20>(&[(98, 99)], &both, &entities));
        let switch = table(&concat::<13>(
            &[
                (7, 7),
                (9, 9),
                (12, 13),
                (19, 20),
                (22, 25),
                (79, 79),
                (95, 95),
                (98, 99),
                (144, 145),
            ],
            &[e(6, 27), e(29, 38)],
            &[e(42, 47), e(49, 49)],
        ));
        assert_eq!(ids(&VALID_GAME), ids(&game));
        assert_eq!(ids(&VALID_FRONT), ids(&front));
        assert_eq!(ids(&VALID_SWITCH), ids(&switch));
        assert_eq!(ids(&VALID_TELE), [10, 14, 15, 26, 27, 29, 30, 31, 63]);
        assert_eq!(ids(&VALID_SPEEDUP), [28]);
        assert_eq!(ids(&VALID_TUNE), [68]);
        let directional = table(&[(60, 61), (64, 65), (67, 67), e(12, 18), e(33, 34)]);
        assert_eq!(ids(&DIRECTIONAL), ids(&directional));
        assert_eq!(
            [THROUGH_CUT, TIME_CHECKPOINT_FIRST, TIME_CHECKPOINT_LAST],
            [5, 35, 59]
        );
        assert_eq!((SWITCH_FIRST, SWITCH_LAST), (22, 25));
        assert_eq!(
            [
                TELE_IN_EVIL,
                TELE_IN_WEAPON,
                TELE_IN_HOOK,
                TELE_CHECKPOINT_OUT
            ],
            [10, 14, 15, 30]
        );
        assert_eq!([TELE_CHECKPOINT_IN, TELE_CHECKPOINT_IN_EVIL], [31, 63]);
        assert_eq!([DEEP_UNFREEZE, LIVE_FREEZE, LIVE_UNFREEZE], [13, 144, 145]);
        for id in 0..=255u8 {
            let former = matches!(id, 9 | 12 | 13 | 144 | 145) || id >= E + 6;
            assert_eq!(switchable(id), former, "{id}");
        }
    }

    /// The check's sets agree with the tile id table: the tele, speedup
    /// and tune sets are its rows of those layers; every id valid in the
    /// game, front or switch layer is named (in the switch layer but the
    /// vanilla pickups); the ids the table
    /// names in the game space but neither the game nor the front layer
    /// accepts are the switch-only tiles and the credits; the switch
    /// tiles and the time checkpoints are the table's rows.
    #[test]
    fn tile_sets_agree_with_the_table() {
        use crate::map::PhysicsKind as K;
        for id in 1..=255u8 {
            let i = id as usize;
            assert_eq!(VALID_TELE[i], names::tile_name(K::Tele, id).is_some());
            assert_eq!(VALID_SPEEDUP[i], names::tile_name(K::Speedup, id).is_some());
            assert_eq!(VALID_TUNE[i], names::tile_name(K::Tune, id).is_some());
            if VALID_GAME[i] || VALID_FRONT[i] {
                assert!(names::game_tile_name(id).is_some(), "{id}");
            }
            if VALID_SWITCH[i] {
                let named = names::switch_tile_name(id).or(names::game_tile_name(id));
                assert!(named.is_some(), "{id}");
            }
            if DIRECTIONAL[i] {
                assert!(names::game_tile_name(id).is_some(), "{id}");
            }
        }
        // The switch layer places the vanilla pickups (armor, health,
        // weapons, ninja) as DDNet's `IsValidSwitchTile` says, but the
        // names give the common tiles no switch layer name (the
        // statistics count them in the game layer).
        let unnamed_in_switch: Vec<u8> = (1..=255u8)
            .filter(|&id| VALID_SWITCH[id as usize] && names::switch_tile_name(id).is_none())
            .collect();
        assert_eq!(
            unnamed_in_switch,
            (E + names::ENTITY_ARMOR_1..=E + names::ENTITY_WEAPON_LASER).collect::<Vec<_>>()
        );
        let named_not_placed: Vec<u8> = (1..=255u8)
            .filter(|&id| names::game_tile_name(id).is_some())
            .filter(|&id| !VALID_GAME[id as usize] && !VALID_FRONT[id as usize])
            .collect();
        assert_eq!(
            named_not_placed,
            [7, 79, 95, 140, 141, 142, 143, 156, 157, 158, 159]
        );
        assert!(named_not_placed.iter().all(|&id| VALID_SWITCH[id as usize]
            || names::game_tile_name(id).is_some_and(|n| n.starts_with("CREDITS_"))));
        assert_eq!(
            ids(&names::ids_of(TileSpace::Switch)),
            (SWITCH_FIRST..=SWITCH_LAST).collect::<Vec<_>>()
        );
        let checkpoints: Vec<u8> = (0..=255u8)
            .filter(|&id| {
                names::game_tile_name(id).is_some_and(|n| n.starts_with("TIME_CHECKPOINT_"))
            })
            .collect();
        assert_eq!(
            checkpoints,
            (TIME_CHECKPOINT_FIRST..=TIME_CHECKPOINT_LAST).collect::<Vec<_>>()
        );
        assert_eq!(names::game_tile_name(THROUGH_CUT), Some("THROUGH_CUT"));
        for (id, name) in [
            (TELE_IN_EVIL, "TELEINEVIL"),
            (TELE_IN_WEAPON, "TELEINWEAPON"),
            (TELE_IN_HOOK, "TELEINHOOK"),
            (TELE_CHECKPOINT_OUT, "TELECHECKOUT"),
            (TELE_CHECKPOINT_IN, "TELECHECKIN"),
            (TELE_CHECKPOINT_IN_EVIL, "TELECHECKINEVIL"),
        ] {
            assert_eq!(names::tile_name(K::Tele, id), Some(name));
        }
    }
}
