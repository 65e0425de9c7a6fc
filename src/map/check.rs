//! Rules a DDNet map tester applies (`teebatch maps check`): each rule has
//! an id, a severity and a location (layer, x, y; or the image, envelope,
//! sound or settings line).
//!
//! Facts from twmap's `twmap-check-ddnet` (twmap-tools 0.3.2: faulty
//! hookthrough, mirrored directional tiles, tele pairs, valid tile ids per
//! layer, irregular map settings, missing time checkpoints), DDNet's server
//! (`LoadMapSettings` executes only commands registered with
//! `CFGFLAG_GAME`, see [`ALLOWED_SETTINGS`]) and DDNet's `data/mapres`
//! ([`STANDARD_MAPRES`]). No code is shared with either.
//!
//! Every rule reads what it needs once: the physics layers DDNet uses
//! (the last one of each kind) are expanded one at a time (the game layer
//! stays while the front layer is read, for the hookthrough rule), quads
//! and sound sources are inflated for their envelope references. Pairs
//! (tele numbers, switch numbers) are found with tables of 256 entries: a
//! pass over the tiles and one over the table, linear in the tiles.
//!
//! Findings of one rule in one map beyond [`MAX_FINDINGS_PER_RULE`] are
//! counted ([`MapCheck::counts`]) but not kept ([`MapCheck::dropped`]).

use super::items::view::QuadData;
use super::names;
use super::tiles::PhysicsKind;
use super::{LayerKind, Map, MapError, TileLayer, QUAD_SIZE};
use crate::bytes::LeI32s;
use crate::datafile::{Datafile, Inflater};
use serde::Serialize;

/// How serious a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The map misbehaves in DDNet or a tester would reject it.
    Error,
    /// Probably a mistake, harmless to the game.
    Warning,
    /// Worth a look.
    Info,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One rule: its id, severity and what it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    /// What it finds, one sentence (the docs' rule table).
    pub summary: &'static str,
}

macro_rules! rules {
    ($($c:ident = $id:literal, $sev:ident, $summary:literal;)*) => {
        /// Indices of the rules in [`RULES`].
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        enum R { $($c,)* }
        /// Every rule, in the order they are checked and reported.
        pub const RULES: &[Rule] = &[$(Rule {
            id: $id,
            severity: Severity::$sev,
            summary: $summary,
        },)*];
    };
}

rules! {
    TileIdInvalid = "tile-id-invalid", Error,
        "A tile id DDNet does not use in this physics layer (unknown, or a tile of another layer, e.g. hookable in the front layer).";
    TileMirrored = "tile-mirrored", Error,
        "A direction-sensitive tile (stopper, speeder, directional hookthrough, rotating laser, turret bullet) mirrored in one axis only: DDNet reads its direction from rotation alone.";
    HookthroughWithoutSolid = "hookthrough-without-solid", Error,
        "The old hookthrough (front id 5) over a game tile that is neither hookable nor unhookable: it does nothing there.";
    TeleNumberZero = "tele-number-zero", Error,
        "A tele layer tile with number 0, which disables it.";
    TeleInWithoutOut = "tele-in-without-out", Error,
        "A teleporter in (26, or the red 10) whose number has no teleporter out (27).";
    TeleOutWithoutIn = "tele-out-without-in", Warning,
        "A teleporter out (27) whose number no teleporter in (10, 14, 15, 26) leads to.";
    TeleCheckpointWithoutOut = "tele-checkpoint-without-out", Error,
        "A tele checkpoint (29) whose number has no checkpoint teleporter out (30).";
    TeleCheckpointOutUnused = "tele-checkpoint-out-unused", Warning,
        "A checkpoint teleporter out (30) whose number has no tele checkpoint (29), or a map with no checkpoint teleporter in (31, 63) at all.";
    SwitchWithoutTrigger = "switch-without-trigger", Warning,
        "A switchable tile (door, laser, dragger, turret, freeze, deep freeze, live freeze) of a number that no switch tile (22 to 25) of the switch layer toggles.";
    SwitchTriggerUnused = "switch-trigger-unused", Info,
        "A switch tile (22 to 25) of a number that no switchable tile has.";
    StartWithoutFinish = "start-without-finish", Error,
        "A start line in the game or front layer but no finish line.";
    FinishWithoutStart = "finish-without-start", Error,
        "A finish line in the game or front layer but no start line.";
    TimeCheckpointsMissing = "time-checkpoints-missing", Info,
        "A race map (start and finish) without time checkpoints (35 to 59).";
    SettingNotAllowed = "setting-not-allowed", Error,
        "A server setting that DDNet does not run from a map (a command not registered for map settings): the server ignores it.";
    SettingIrregular = "setting-irregular", Warning,
        "A map setting DDNet's testers question: deprecated behaviour, replaced by a tile, or unusual.";
    ImageUnused = "image-unused", Warning,
        "An image no tile or quads layer uses.";
    EnvelopeUnused = "envelope-unused", Warning,
        "An envelope no tile layer, quad or sound source uses.";
    SoundUnused = "sound-unused", Warning,
        "A sound no sounds layer uses.";
    ImageExternalNotStandard = "image-external-not-standard", Error,
        "An external image whose name is not one of DDNet's data/mapres images: clients cannot load it.";
}

/// The rule with id `id`.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The rule table of docs/map-check.md (Markdown): id, severity, what it
/// finds, one row per rule in [`RULES`] order.
pub fn rules_markdown() -> String {
    let mut s = String::from("| rule | severity | finds |\n|---|---|---|\n");
    for r in RULES {
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            r.id,
            r.severity.name(),
            r.summary
        ));
    }
    s
}

/// A set of rules (by their position in [`RULES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleSet(u64);

impl RuleSet {
    /// Every rule.
    pub const ALL: RuleSet = RuleSet((1u64 << RULES.len()) - 1);

    /// The rules named in `ids` (`all` is every rule); an unknown id is an
    /// error naming it and the known ones.
    pub fn parse(ids: &[impl AsRef<str>]) -> Result<RuleSet, String> {
        let mut set = 0u64;
        for id in ids {
            let id = id.as_ref().trim();
            if id == "all" {
                set = Self::ALL.0;
                continue;
            }
            match RULES.iter().position(|r| r.id == id) {
                Some(i) => set |= 1 << i,
                None => {
                    let known: Vec<&str> = RULES.iter().map(|r| r.id).collect();
                    return Err(format!(
                        "unknown rule {id:?} (known: all, {})",
                        known.join(", ")
                    ));
                }
            }
        }
        Ok(RuleSet(set))
    }

    fn has(self, r: R) -> bool {
        self.0 & (1 << r as u8) != 0
    }

    /// Whether the rule at `index` of [`RULES`] is in the set.
    pub fn contains(self, index: usize) -> bool {
        index < RULES.len() && self.0 & (1 << index) != 0
    }
}

impl Default for RuleSet {
    fn default() -> Self {
        RuleSet::ALL
    }
}

/// Most findings kept per rule and map (the rest are counted).
pub const MAX_FINDINGS_PER_RULE: u64 = 1000;

/// Where a finding is: a tile of a layer, an item, or a settings line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Layer index (among all layer items).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_name: Option<String>,
    /// The layer's physics kind (`game`, `front`, `tele`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_kind: Option<&'static str>,
    /// Tile column and row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub x: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub y: Option<u32>,
    /// Image, envelope or sound index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub envelope: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sound: Option<u32>,
    /// Line of the server settings (0-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setting: Option<u32>,
}

/// One finding of one rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub message: String,
    #[serde(flatten)]
    pub location: Location,
}

/// What [`check_map`] found in one map.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapCheck {
    /// The findings kept, by rule (in [`RULES`] order), then as found.
    pub findings: Vec<Finding>,
    /// Findings per rule (index of [`RULES`]), kept or not.
    pub counts: Vec<u64>,
    /// Findings counted but not kept (over [`MAX_FINDINGS_PER_RULE`]).
    pub dropped: u64,
}

impl MapCheck {
    /// Findings of `severity`.
    pub fn of_severity(&self, severity: Severity) -> u64 {
        RULES
            .iter()
            .zip(&self.counts)
            .filter(|(r, _)| r.severity == severity)
            .map(|(_, n)| n)
            .sum()
    }

    fn add(&mut self, r: R, message: String, location: Location) {
        let n = &mut self.counts[r as usize];
        *n += 1;
        if *n > MAX_FINDINGS_PER_RULE {
            self.dropped += 1;
            return;
        }
        let rule = &RULES[r as usize];
        self.findings.push(Finding {
            rule: rule.id,
            severity: rule.severity,
            message,
            location,
        });
    }
}

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

static VALID_GAME: [bool; 256] = table(&concat::<21>(&[(1, 1), (3, 3)], &GAME_OR_FRONT, &ENTITIES));
static VALID_FRONT: [bool; 256] = table(&concat::<20>(&[(98, 99)], &GAME_OR_FRONT, &ENTITIES));
static VALID_TELE: [bool; 256] = table(&[(10, 10), (14, 15), (26, 27), (29, 31), (63, 63)]);
static VALID_SPEEDUP: [bool; 256] = table(&[(names::TILE_BOOST, names::TILE_BOOST)]);
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
static VALID_TUNE: [bool; 256] = table(&[(names::TILE_TUNE, names::TILE_TUNE)]);

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

/// Commands DDNet runs from a map's settings (registered with
/// `CFGFLAG_GAME`): its tuning and switch commands and the `sv_` settings
/// a map may set.
pub const ALLOWED_SETTINGS: &[&str] = &[
    "tune",
    "toggle_tune",
    "tune_zone",
    "tune_zone_enter",
    "tune_zone_leave",
    "mapbug",
    "switch_open",
    "sv_deepfly",
    "sv_destroy_bullets_on_death",
    "sv_destroy_lasers_on_death",
    "sv_dragger_range",
    "sv_endless_drag",
    "sv_freeze_delay",
    "sv_hit",
    "sv_max_team_size",
    "sv_min_team_size",
    "sv_no_weak_hook",
    "sv_old_laser",
    "sv_old_teleport_hook",
    "sv_old_teleport_weapons",
    "sv_pauseable",
    "sv_plasma_per_sec",
    "sv_plasma_range",
    "sv_reset_pickups",
    "sv_save_worse_scores",
    "sv_show_others_default",
    "sv_solo_server",
    "sv_team",
    "sv_teleport_hold_hook",
    "sv_teleport_lose_weapons",
];

/// Settings DDNet runs but its testers question (twmap's list), and why.
pub(crate) const IRREGULAR_SETTINGS: &[(&str, &str)] = &[
    (
        "sv_no_weak_hook",
        "undecided whether DDNet maps should use it",
    ),
    ("sv_old_laser", "enables deprecated behaviour"),
    ("sv_old_teleport_weapons", "enables deprecated behaviour"),
    ("sv_old_teleport_hook", "enables deprecated behaviour"),
    ("mapbug", "enables deprecated buggy behaviour"),
    ("sv_reset_pickups", "enables deprecated behaviour"),
    ("sv_save_worse_scores", "unusual"),
    ("sv_show_others_default", "unusual"),
    ("sv_teleport_lose_weapons", "unusual"),
    ("sv_teleport_hold_hook", "unusual"),
    ("sv_destroy_bullets_on_death", "unusual"),
    ("sv_destroy_lasers_on_death", "unusual"),
    ("sv_plasma_range", "unusual"),
    ("sv_plasma_per_sec", "unusual"),
    ("sv_dragger_range", "unusual"),
    ("sv_endless_drag", "replaced by a tile"),
    ("sv_hit", "replaced by a tile"),
];

/// The images of DDNet's `data/mapres` (names without `.png`), which a map
/// may name as external images.
pub const STANDARD_MAPRES: &[&str] = &[
    "basic_freeze",
    "bg_cloud1",
    "bg_cloud2",
    "bg_cloud3",
    "ddmax_freeze",
    "ddnet_grass",
    "ddnet_start",
    "ddnet_tiles",
    "ddnet_walls",
    "desert_background",
    "desert_doodads",
    "desert_main",
    "desert_mountains",
    "desert_mountains2",
    "desert_mountains_new_background",
    "desert_mountains_new_foreground",
    "desert_sun",
    "easter_0.7",
    "entities",
    "fadeout",
    "font_teeworlds",
    "font_teeworlds_alt",
    "generic_clear",
    "generic_deathtiles",
    "generic_lamps",
    "generic_shadows_0.7",
    "generic_unhookable",
    "generic_unhookable_0.7",
    "grass_doodads",
    "grass_doodads_0.7",
    "grass_main",
    "grass_main_0.7",
    "jungle_background",
    "jungle_deathtiles",
    "jungle_doodads",
    "jungle_main",
    "jungle_midground",
    "jungle_unhookables",
    "light",
    "mixed_tiles",
    "moon",
    "mountains",
    "round_tiles",
    "snow",
    "snow_mountain",
    "stars",
    "sun",
    "water",
    "winter_doodads",
    "winter_main",
    "winter_main_0.7",
    "winter_mountains",
    "winter_mountains2",
    "winter_mountains3",
];

/// A loaded physics layer and where it is.
struct Loaded {
    index: usize,
    name: String,
    tiles: TileLayer,
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

/// Checks the map `map` of `df` against the rules in `rules`. Tile data is
/// inflated into `scratch` one layer at a time (within the inflater's
/// limits); an error reading a layer the rules need is the map's error.
pub fn check_map(
    df: &Datafile<'_>,
    map: &Map,
    rules: RuleSet,
    inflater: &mut Inflater,
    scratch: &mut Vec<u8>,
) -> Result<MapCheck, MapError> {
    let mut c = MapCheck {
        counts: vec![0; RULES.len()],
        ..MapCheck::default()
    };
    let load = |kind: PhysicsKind,
                inflater: &mut Inflater,
                scratch: &mut Vec<u8>|
     -> Result<Option<Loaded>, MapError> {
        let Some(index) = map.physics_layer(kind) else {
            return Ok(None);
        };
        Ok(map
            .load_tiles(df, index, inflater, scratch)?
            .map(|tiles| Loaded {
                index,
                name: map.layers[index].name.clone(),
                tiles,
            }))
    };
    let tile_rules = [
        R::TileIdInvalid,
        R::TileMirrored,
        R::HookthroughWithoutSolid,
        R::StartWithoutFinish,
        R::FinishWithoutStart,
        R::TimeCheckpointsMissing,
    ];
    // Start, finish and time checkpoint tiles seen in the game and front
    // layers.
    let mut race = [false; 3];
    if tile_rules.iter().any(|&r| rules.has(r)) {
        let game = load(PhysicsKind::Game, inflater, scratch)?;
        if let Some(g) = &game {
            check_game_like(&mut c, rules, g, &VALID_GAME, &mut race);
        }
        if let Some(f) = load(PhysicsKind::Front, inflater, scratch)? {
            check_game_like(&mut c, rules, &f, &VALID_FRONT, &mut race);
            if let (Some(g), true) = (&game, rules.has(R::HookthroughWithoutSolid)) {
                check_hookthrough(&mut c, g, &f);
            }
        }
        drop(game);
        if rules.has(R::TileIdInvalid) {
            for (kind, valid) in [
                (PhysicsKind::Speedup, &VALID_SPEEDUP),
                (PhysicsKind::Tune, &VALID_TUNE),
            ] {
                if let Some(l) = load(kind, inflater, scratch)? {
                    check_ids(&mut c, &l, valid);
                }
            }
        }
        let [start, finish, cps] = race;
        if start && !finish && rules.has(R::StartWithoutFinish) {
            c.add(
                R::StartWithoutFinish,
                "the map has a start line but no finish line".into(),
                Location::default(),
            );
        }
        if finish && !start && rules.has(R::FinishWithoutStart) {
            c.add(
                R::FinishWithoutStart,
                "the map has a finish line but no start line".into(),
                Location::default(),
            );
        }
        if start && finish && !cps && rules.has(R::TimeCheckpointsMissing) {
            c.add(
                R::TimeCheckpointsMissing,
                "the race has no time checkpoints".into(),
                Location::default(),
            );
        }
    }
    let tele_rules = [
        R::TeleNumberZero,
        R::TeleInWithoutOut,
        R::TeleOutWithoutIn,
        R::TeleCheckpointWithoutOut,
        R::TeleCheckpointOutUnused,
    ];
    if tele_rules.iter().any(|&r| rules.has(r)) {
        if let Some(t) = load(PhysicsKind::Tele, inflater, scratch)? {
            check_tele(&mut c, rules, &t);
        }
    }
    let switch_rules = [
        R::TileIdInvalid,
        R::TileMirrored,
        R::SwitchWithoutTrigger,
        R::SwitchTriggerUnused,
    ];
    if switch_rules.iter().any(|&r| rules.has(r)) {
        if let Some(s) = load(PhysicsKind::Switch, inflater, scratch)? {
            check_switch(&mut c, rules, &s);
        }
    }
    check_settings(&mut c, rules, map);
    check_unused(&mut c, rules, df, map, inflater, scratch)?;
    if rules.has(R::ImageExternalNotStandard) {
        for (i, img) in map.images.iter().enumerate() {
            if !img.external {
                continue;
            }
            let name = img.name.as_deref().unwrap_or("");
            if !STANDARD_MAPRES.contains(&name) {
                c.add(
                    R::ImageExternalNotStandard,
                    format!("external image {name:?} is not in DDNet's data/mapres"),
                    Location {
                        image: Some(i as u32),
                        ..Location::default()
                    },
                );
            }
        }
    }
    // Findings by rule, each rule's in the order found.
    c.findings
        .sort_by_key(|f| RULES.iter().position(|r| r.id == f.rule));
    Ok(c)
}

/// Ids, mirrored directional tiles and race tiles of a game or front layer.
fn check_game_like(
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
fn check_ids(c: &mut MapCheck, l: &Loaded, valid: &[bool; 256]) {
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
fn check_hookthrough(c: &mut MapCheck, game: &Loaded, front: &Loaded) {
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
fn check_tele(c: &mut MapCheck, rules: RuleSet, l: &Loaded) {
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
fn check_switch(c: &mut MapCheck, rules: RuleSet, l: &Loaded) {
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

/// The commands of a settings line: `;`-separated, comments (`#`) and
/// empty commands left out.
fn commands(line: &str) -> impl Iterator<Item = &str> {
    line.split(';')
        .map(str::trim)
        .take_while(|s| !s.starts_with('#'))
        .filter_map(|s| s.split_whitespace().next())
}

fn check_settings(c: &mut MapCheck, rules: RuleSet, map: &Map) {
    let Some(info) = &map.info else { return };
    for (i, line) in info.settings.iter().enumerate() {
        let at = || Location {
            setting: Some(i as u32),
            ..Location::default()
        };
        for cmd in commands(line) {
            if !ALLOWED_SETTINGS.contains(&cmd) {
                if rules.has(R::SettingNotAllowed) {
                    c.add(
                        R::SettingNotAllowed,
                        format!("{cmd:?} is not a command DDNet runs from map settings"),
                        at(),
                    );
                }
            } else if let Some((_, why)) = IRREGULAR_SETTINGS.iter().find(|(s, _)| *s == cmd) {
                if rules.has(R::SettingIrregular) {
                    c.add(R::SettingIrregular, format!("{cmd:?}: {why}"), at());
                }
            }
        }
    }
}

/// Envelope references of quads and sound sources (inflated), image and
/// sound references of layers.
fn check_unused(
    c: &mut MapCheck,
    rules: RuleSet,
    df: &Datafile<'_>,
    map: &Map,
    inflater: &mut Inflater,
    scratch: &mut Vec<u8>,
) -> Result<(), MapError> {
    let want = [R::ImageUnused, R::EnvelopeUnused, R::SoundUnused];
    if !want.iter().any(|&r| rules.has(r)) {
        return Ok(());
    }
    let mut images = vec![false; map.images.len()];
    let mut envelopes = vec![false; map.envelopes.len()];
    let mut sounds = vec![false; map.sounds.len()];
    let mark = |v: &mut Vec<bool>, i: i32| {
        if let Some(u) = usize::try_from(i).ok().and_then(|i| v.get_mut(i)) {
            *u = true;
        }
    };
    for l in &map.layers {
        match &l.kind {
            LayerKind::Tilemap(t) => {
                if let Some(i) = t.image {
                    mark(&mut images, i as i32);
                }
                if let Some(e) = t.color_env {
                    mark(&mut envelopes, e as i32);
                }
            }
            LayerKind::Quads(q) => {
                if let Some(i) = q.image {
                    mark(&mut images, i as i32);
                }
                let n = usize::try_from(q.num_quads).unwrap_or(0);
                if let (true, Ok(d)) = (
                    n > 0 && rules.has(R::EnvelopeUnused),
                    usize::try_from(q.data),
                ) {
                    df.decompress(d, inflater, scratch)?;
                    for b in scratch.chunks_exact(QUAD_SIZE).take(n) {
                        let quad = QuadData::new(LeI32s::new(b), 0);
                        mark(&mut envelopes, quad.pos_env());
                        mark(&mut envelopes, quad.color_env());
                    }
                }
            }
            LayerKind::Sounds(s) => {
                if let Some(i) = s.sound {
                    mark(&mut sounds, i as i32);
                }
                // Sound sources: 13 ints (9 in the deprecated layer), the
                // position envelope at int 6 (5), the sound envelope at 8 (7).
                let (ints, pos, snd) = if s.deprecated { (9, 5, 7) } else { (13, 6, 8) };
                let n = usize::try_from(s.num_sources).unwrap_or(0);
                if let (true, Ok(d)) = (
                    n > 0 && rules.has(R::EnvelopeUnused),
                    usize::try_from(s.data),
                ) {
                    df.decompress(d, inflater, scratch)?;
                    for b in scratch.chunks_exact(ints * 4).take(n) {
                        let v = LeI32s::new(b);
                        mark(&mut envelopes, v.get(pos).unwrap_or(-1));
                        mark(&mut envelopes, v.get(snd).unwrap_or(-1));
                    }
                }
            }
            LayerKind::Unknown(_) => {}
        }
    }
    let unused = |used: &[bool]| {
        used.iter()
            .enumerate()
            .filter(|(_, u)| !**u)
            .map(|(i, _)| i)
            .collect::<Vec<_>>()
    };
    // Images, envelopes and sounds no layer uses: the rule, what is used,
    // the finding's noun, the item's name and where it is.
    let image_name = |i: usize| map.images[i].name.as_deref().unwrap_or("");
    let envelope_name = |i: usize| map.envelopes[i].name.as_str();
    let sound_name = |i: usize| map.sounds[i].name.as_deref().unwrap_or("");
    type Unused<'a> = (
        R,
        &'a [bool],
        &'a str,
        &'a dyn Fn(usize) -> &'a str,
        fn(u32) -> Location,
    );
    let kinds: [Unused<'_>; 3] = [
        (R::ImageUnused, &images, "image", &image_name, |i| {
            Location {
                image: Some(i),
                ..Location::default()
            }
        }),
        (
            R::EnvelopeUnused,
            &envelopes,
            "envelope",
            &envelope_name,
            |i| Location {
                envelope: Some(i),
                ..Location::default()
            },
        ),
        (R::SoundUnused, &sounds, "sound", &sound_name, |i| {
            Location {
                sound: Some(i),
                ..Location::default()
            }
        }),
    ];
    for (rule, used, noun, name, at) in kinds {
        if rules.has(rule) {
            for i in unused(used) {
                let name = name(i);
                c.add(
                    rule,
                    format!("{noun} {i} {name:?} is not used"),
                    at(i as u32),
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_sets_parse_ids_and_all() {
        assert_eq!(RuleSet::parse(&["all"]).unwrap(), RuleSet::ALL);
        let s = RuleSet::parse(&["tele-in-without-out", "image-unused"]).unwrap();
        assert!(s.has(R::TeleInWithoutOut) && s.has(R::ImageUnused));
        assert!(!s.has(R::SoundUnused));
        let e = RuleSet::parse(&["nope"]).unwrap_err();
        assert!(
            e.starts_with("unknown rule \"nope\" (known: all, tile-id-invalid,"),
            "{e}"
        );
        // Ids are unique and kebab-case.
        for (i, r) in RULES.iter().enumerate() {
            assert!(
                r.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                r.id
            );
            assert!(RULES[i + 1..].iter().all(|o| o.id != r.id), "{}", r.id);
        }
        assert!(RULES.len() < 64);
    }

    #[test]
    fn setting_commands() {
        let got: Vec<&str> = commands("tune gravity 0.5; sv_hit 0 # x").collect();
        assert_eq!(got, ["tune", "sv_hit"]);
        assert_eq!(commands("# comment").count(), 0);
        assert_eq!(commands("  ").count(), 0);
    }

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
