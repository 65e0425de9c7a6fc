//! The tile rules, one loaded physics layer at a time: tile ids valid
//! per layer, mirrored direction-sensitive tiles, the old hookthrough over
//! nothing, tele pairs and switch numbers (tables of 256 entries).

use super::{Location, MapCheck, RuleSet, R};
use crate::map::names;
use crate::map::TileLayer;

// Tile ids (DDNet `mapitems.h`). Through the table's constants where it
// has them (one place to follow a rename).
const SOLID: u8 = names::TILE_SOLID;
const NOHOOK: u8 = names::TILE_NOHOOK;
const START: u8 = names::TILE_START;
const FINISH: u8 = names::TILE_FINISH;
const TELE_IN: u8 = names::TILE_TELEIN;
const TELE_OUT: u8 = names::TILE_TELEOUT;
const TELE_CHECKPOINT: u8 = names::TILE_TELECHECK;
const FREEZE: u8 = names::TILE_FREEZE;
const DEEP_FREEZE: u8 = names::TILE_DFREEZE;
/// The old hookthrough ("THROUGH_CUT").
const THROUGH_CUT: u8 = 5;
const TELE_IN_EVIL: u8 = 10;
const TELE_IN_WEAPON: u8 = 14;
const TELE_IN_HOOK: u8 = 15;
const TELE_CHECKPOINT_OUT: u8 = 30;
const TELE_CHECKPOINT_IN: u8 = 31;
const TELE_CHECKPOINT_IN_EVIL: u8 = 63;
const DEEP_UNFREEZE: u8 = 13;
const LIVE_FREEZE: u8 = 144;
const LIVE_UNFREEZE: u8 = 145;
/// Time checkpoints 35..=59.
const TIME_CHECKPOINT_FIRST: u8 = 35;
const TIME_CHECKPOINT_LAST: u8 = 59;
/// Switch tiles of the switch layer: timed open, timed close, open, close.
const SWITCH_FIRST: u8 = 22;
const SWITCH_LAST: u8 = 25;

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
/// Entity tiles DDNet places (spawns to the laser and dragger entities).
const ENTITIES: [(u8, u8); 4] = [
    (E + 1, E + 27),
    (E + 29, E + 38),
    (E + 42, E + 47),
    (E + 49, E + 49),
];
/// Tiles valid in the game and in the front layer alike.
const GAME_OR_FRONT: [(u8, u8); 15] = [
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

pub(super) static VALID_GAME: [bool; 256] =
    table(&concat::<21>(&[(1, 1), (3, 3)], &GAME_OR_FRONT, &ENTITIES));
pub(super) static VALID_FRONT: [bool; 256] =
    table(&concat::<20>(&[(98, 99)], &GAME_OR_FRONT, &ENTITIES));
static VALID_TELE: [bool; 256] = table(&[(10, 10), (14, 15), (26, 27), (29, 31), (63, 63)]);
pub(super) static VALID_SPEEDUP: [bool; 256] = table(&[(names::TILE_BOOST, names::TILE_BOOST)]);
/// Switch layer: the game tiles it switches and the switchable entities
/// (doors, lasers, draggers, turrets: entity 6 and on).
static VALID_SWITCH: [bool; 256] = table(&concat::<13>(
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
    &[(E + 6, E + 27), (E + 29, E + 38)],
    &[(E + 42, E + 47), (E + 49, E + 49)],
));
pub(super) static VALID_TUNE: [bool; 256] = table(&[(names::TILE_TUNE, names::TILE_TUNE)]);

/// Direction-sensitive tiles: stoppers, speeders, directional hookthrough,
/// rotating lasers, turret bullets.
static DIRECTIONAL: [bool; 256] = table(&[
    (60, 61),
    (64, 65),
    (67, 67),
    (E + 12, E + 18),
    (E + 33, E + 34),
]);

/// Whether a switch-layer tile of this id takes its number as a switch
/// number (rather than a count, a time or a weapon).
fn switchable(id: u8) -> bool {
    matches!(
        id,
        FREEZE | DEEP_FREEZE | DEEP_UNFREEZE | LIVE_FREEZE | LIVE_UNFREEZE
    ) || names::entity_of(id).is_some_and(|e| e >= 6)
}

/// Tile flags: mirrored in x, mirrored in y.
const FLAG_XFLIP: u8 = 1;
const FLAG_YFLIP: u8 = 2;

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
            c.add(
                R::TileIdInvalid,
                format!(
                    "tile id {id} is not valid in the {} layer",
                    l.tiles.kind.name()
                ),
                l.at(x, y),
            );
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
    (flags & FLAG_XFLIP != 0) != (flags & FLAG_YFLIP != 0)
}

/// Ids of a tele, speedup or tune layer.
pub(super) fn check_ids(c: &mut MapCheck, l: &Loaded, valid: &[bool; 256]) {
    let id_at = l.tiles.kind.id_offset();
    for (x, y, t) in l.tiles() {
        let id = t[id_at];
        if id != 0 && !valid[id as usize] {
            c.add(
                R::TileIdInvalid,
                format!(
                    "tile id {id} is not valid in the {} layer",
                    l.tiles.kind.name()
                ),
                l.at(x, y),
            );
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
        assert!(is_mirrored(FLAG_XFLIP) && !is_mirrored(FLAG_XFLIP | FLAG_YFLIP));
        assert!(switchable(names::ENTITY_OFFSET + names::ENTITY_DOOR) && !switchable(7));
    }
}
