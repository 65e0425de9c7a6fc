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

mod resources;
mod settings;
mod tiles;

use super::tiles::PhysicsKind;
use super::{Map, MapError};
use crate::datafile::{Datafile, Inflater};
use resources::check_unused;
pub use resources::STANDARD_MAPRES;
use serde::Serialize;
use settings::check_settings;
pub use settings::ALLOWED_SETTINGS;
use tiles::{
    check_game_like, check_hookthrough, check_ids, check_switch, check_tele, Loaded, VALID_FRONT,
    VALID_GAME, VALID_SPEEDUP, VALID_TUNE,
};

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
}
