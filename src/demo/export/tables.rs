//! The tables of `demos export`: their Arrow schemas and the item layouts
//! the item tables read.
//!
//! Item tables (`positions`, `projectiles`, `lasers`, `pickups`, `flags`,
//! `game`, `events`) take their fields from [`ItemLayout`]s: for each item
//! type of each protocol (or DDNet extended type, by its UUID's name), the
//! column each data int goes to. Message tables (`chat`, `kills`,
//! `broadcasts`, `finishes`) come from the decoded messages, with names
//! resolved by the player tracker at that tick; `players` compares each
//! snapshot's players with the previous snapshot's (see
//! [`super::TableBuilder`]).

use crate::codec::snapshot::Protocol;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, OnceLock};

/// The columns every table starts with: the demo's path (as the records
/// of `demos index` write it), the SHA-256 of the demo file (lowercase hex,
/// the `sha256` of `demos index`), the absolute server tick, the ticks
/// since the demo's first tick marker (`tick - first_tick`, Int32) and the
/// same as seconds (`demo_tick / 50`, Float64); see
/// [`super::builder::time_of`].
pub const LEADING_COLUMNS: [&str; 5] = ["demo", "demo_sha256", "tick", "demo_tick", "time_s"];

/// The tables `demos export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Table {
    Positions,
    Players,
    Projectiles,
    Lasers,
    Pickups,
    Flags,
    Game,
    Events,
    Chat,
    Kills,
    Broadcasts,
    Finishes,
    /// One row per demo: its header, embedded map and tick span.
    Demos,
}

impl Table {
    pub const ALL: [Table; 13] = [
        Table::Positions,
        Table::Players,
        Table::Projectiles,
        Table::Lasers,
        Table::Pickups,
        Table::Flags,
        Table::Game,
        Table::Events,
        Table::Chat,
        Table::Kills,
        Table::Broadcasts,
        Table::Finishes,
        Table::Demos,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Table::Positions => "positions",
            Table::Players => "players",
            Table::Projectiles => "projectiles",
            Table::Lasers => "lasers",
            Table::Pickups => "pickups",
            Table::Flags => "flags",
            Table::Game => "game",
            Table::Events => "events",
            Table::Chat => "chat",
            Table::Kills => "kills",
            Table::Broadcasts => "broadcasts",
            Table::Finishes => "finishes",
            Table::Demos => "demos",
        }
    }

    /// The columns of this table: its one definition (names, types,
    /// nullability), the schema of every batch the builder makes and of
    /// every file written. Repeated text (the demo path, names, kinds) is
    /// dictionary-encoded (`Dictionary(Int32, Utf8)`): readers that take the
    /// Parquet or CSV files see plain strings; free text (`text`) is `Utf8`.
    pub fn schema(self) -> SchemaRef {
        static SCHEMAS: [OnceLock<SchemaRef>; Table::ALL.len()] =
            [const { OnceLock::new() }; Table::ALL.len()];
        SCHEMAS[self as usize]
            .get_or_init(|| Arc::new(self.make_schema()))
            .clone()
    }

    /// The position of column `name`.
    pub fn column_index(self, name: &str) -> Option<usize> {
        self.schema().index_of(name).ok()
    }

    fn make_schema(self) -> Schema {
        let int = |name: &str, nullable| Field::new(name, DataType::Int32, nullable);
        let float = |name: &str, nullable| Field::new(name, DataType::Float64, nullable);
        let text = |name: &str, nullable| Field::new(name, dictionary(), nullable);
        let free_text = |name: &str, nullable| Field::new(name, DataType::Utf8, nullable);
        let boolean = |name: &str, nullable| Field::new(name, DataType::Boolean, nullable);
        let mut columns = vec![
            text("demo", false),
            text("demo_sha256", false),
            int("tick", false),
            int("demo_tick", false),
            float("time_s", false),
        ];
        debug_assert_eq!(columns.len(), LEADING_COLUMNS.len());
        match self {
            Table::Positions => {
                columns.push(int("client_id", false));
                for f in POSITION_FIELDS {
                    columns.push(int(f, true));
                    if let Some(&(name, _, _)) = CODE_NAMES.iter().find(|c| c.1 == f) {
                        columns.push(text(name, true));
                    }
                }
                columns.push(text("name", true));
                columns.push(int("team", true));
                columns.push(text("team_name", true));
                for f in DDNET_CHARACTER {
                    columns.push(int(f, true));
                }
            }
            Table::Players => {
                columns.extend([
                    int("client_id", false),
                    text("change", false),
                    text("name", true),
                    text("clan", true),
                    int("country", true),
                    text("skin", true),
                    int("team", true),
                    text("team_name", true),
                    int("score", true),
                    boolean("local", false),
                ]);
            }
            Table::Chat => columns.extend([
                int("client_id", false),
                text("name", true),
                text("mode", false),
                int("raw_mode", false),
                int("target_id", true),
                free_text("text", false),
            ]),
            Table::Kills => columns.extend([
                text("kind", false),
                int("killer", true),
                text("killer_name", true),
                int("victim", true),
                text("victim_name", true),
                int("weapon", true),
                text("weapon_name", true),
                int("mode_special", true),
                int("ddrace_team", true),
                int("first", true),
            ]),
            Table::Broadcasts => columns.push(free_text("text", false)),
            // What `demos index` reads from the header and the framing.
            Table::Demos => columns.extend([
                int("version", false),
                text("net_version", false),
                text("protocol", true),
                text("demo_type", false),
                text("timestamp", true),
                int("length_s", false),
                text("map_name", false),
                int("map_size", false),
                text("map_crc", false),
                text("map_sha256", true),
                int("first_tick", true),
                int("last_tick", true),
                int("ticks", false),
                float("duration_s", true),
            ]),
            Table::Finishes => columns.extend([
                text("kind", false),
                int("client_id", true),
                text("name", true),
                int("time", true),
                int("diff", true),
                boolean("record_personal", true),
                boolean("record_server", true),
                int("server_time_best", true),
                int("player_time_best", true),
            ]),
            item => {
                columns.push(text("kind", false));
                columns.push(int("id", false));
                for l in item.layouts() {
                    for f in l.fields {
                        if !columns.iter().any(|col| col.name() == f) {
                            columns.push(int(f, true));
                            if let Some((name, _)) = item.code_name_of(f) {
                                columns.push(text(name, true));
                            }
                        }
                    }
                }
            }
        }
        Schema::new(columns)
    }

    /// The name column of item column `code` of this table, and how codes
    /// are named: `weapon_name` beside `positions`' `weapon` and
    /// `projectiles`' `type`, `emote_name` beside `emote`, `team_name`
    /// beside `flags`' `team` ([`CODE_NAMES`]).
    pub fn code_name_of(self, code: &str) -> Option<(&'static str, CodeNames)> {
        let code = match (self, code) {
            (Table::Projectiles, "type") => "weapon",
            (Table::Positions, c @ ("weapon" | "emote")) => c,
            (Table::Flags, "team") => "team",
            _ => return None,
        };
        CODE_NAMES
            .iter()
            .find(|c| c.1 == code)
            .map(|&(name, _, f)| (name, f))
    }

    /// The item layouts an item table reads (empty for the others).
    pub fn layouts(self) -> &'static [ItemLayout] {
        match self {
            Table::Positions => CHARACTER_LAYOUTS,
            Table::Projectiles => PROJECTILES,
            Table::Lasers => LASERS,
            Table::Pickups => PICKUPS,
            Table::Flags => FLAGS,
            Table::Game => GAME,
            Table::Events => EVENTS,
            _ => &[],
        }
    }

    /// Whether a demo's rows of this table can be made segment by
    /// segment, each segment starting at a keyframe (full snapshot) with
    /// fresh state: the item tables, whose rows come from one snapshot
    /// each, and 0.6 `positions`, whose names and teams come from the same
    /// snapshot's client and player infos. The message tables, `players`
    /// and 0.7 `positions` (names by message) carry state through the
    /// whole demo.
    /// `demos` is made from the header and framing by the demo's first
    /// unit, whatever the split.
    pub fn splittable(self, protocol: Protocol) -> bool {
        match self {
            Table::Positions => protocol == Protocol::V06,
            Table::Demos => true,
            t => !t.layouts().is_empty(),
        }
    }

    /// The table named `name` on the command line.
    pub fn from_name(name: &str) -> Option<Table> {
        Table::ALL.into_iter().find(|t| t.name() == name)
    }

    pub(crate) fn needs_tracker(self) -> bool {
        matches!(
            self,
            Table::Positions | Table::Players | Table::Chat | Table::Kills | Table::Finishes
        )
    }

    pub(crate) fn needs_messages(self) -> bool {
        matches!(
            self,
            Table::Positions
                | Table::Players
                | Table::Chat
                | Table::Kills
                | Table::Broadcasts
                | Table::Finishes
        )
    }
}

/// A set of tables (`--tables`), iterated in [`Table::ALL`] order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TableSet(u32);

impl TableSet {
    /// Every table.
    pub fn all() -> TableSet {
        TableSet::from_iter(Table::ALL)
    }

    /// The set of one table.
    pub fn one(t: Table) -> TableSet {
        TableSet(1 << t as u32)
    }

    pub fn insert(&mut self, t: Table) {
        self.0 |= 1 << t as u32;
    }

    pub fn contains(self, t: Table) -> bool {
        self.0 & (1 << t as u32) != 0
    }

    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The tables, in [`Table::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Table> {
        Table::ALL.into_iter().filter(move |&t| self.contains(t))
    }

    /// The position of `t` in [`TableSet::iter`]'s order.
    pub fn position(self, t: Table) -> Option<usize> {
        self.iter().position(|u| u == t)
    }

    /// Whether a demo of `protocol` can be split for every table of the
    /// set ([`Table::splittable`]), and is worth splitting: `demos` alone
    /// reads no stream.
    pub fn splittable(self, protocol: Protocol) -> bool {
        self.iter().all(|t| t.splittable(protocol)) && self.iter().any(|t| t != Table::Demos)
    }

    /// Parses `--tables`: `all`, or table names separated by commas (each
    /// at most once).
    pub fn parse(s: &str) -> Result<TableSet, String> {
        if s.trim() == "all" {
            return Ok(TableSet::all());
        }
        let mut set = TableSet::default();
        for name in s.split(',').map(str::trim) {
            let t = Table::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
                format!(
                    "no table {name:?}; the tables are {} (or `all`)",
                    names.join(", ")
                )
            })?;
            if set.contains(t) {
                return Err(format!("table {name} is named twice"));
            }
            set.insert(t);
        }
        Ok(set)
    }
}

impl FromIterator<Table> for TableSet {
    fn from_iter<I: IntoIterator<Item = Table>>(iter: I) -> TableSet {
        let mut s = TableSet::default();
        for t in iter {
            s.insert(t);
        }
        s
    }
}

impl std::str::FromStr for TableSet {
    type Err = String;
    fn from_str(s: &str) -> Result<TableSet, String> {
        TableSet::parse(s)
    }
}

/// The names of the codes of a column (`None`: a code without a name).
pub type CodeNames = fn(i32) -> Option<&'static str>;

/// The name columns of code columns: (name column, code column, names).
/// Dictionary text; a code without a name gives null (the code stays).
pub const CODE_NAMES: [(&str, &str, CodeNames); 3] = [
    ("weapon_name", "weapon", weapon_name),
    ("emote_name", "emote", emote_name),
    ("team_name", "team", team_name),
];

/// The name of a weapon code: Teeworlds' and DDNet's `WEAPON_*` (0
/// `hammer` to 5 `ninja`; 0.6 calls laser `RIFLE`), and the kill
/// message's special values `WEAPON_GAME` (-3, team switching and the
/// like), `WEAPON_SELF` (-2, the kill command) and `WEAPON_WORLD` (-1,
/// kill tiles, falling out of the world).
pub fn weapon_name(code: i32) -> Option<&'static str> {
    Some(match code {
        -3 => "game",
        -2 => "self",
        -1 => "world",
        0 => "hammer",
        1 => "gun",
        2 => "shotgun",
        3 => "grenade",
        4 => "laser",
        5 => "ninja",
        _ => return None,
    })
}

/// The name of a team code, the same in 0.6 and 0.7: `TEAM_SPECTATORS`
/// (-1), `TEAM_RED` (0), `TEAM_BLUE` (1). In games without teams (DM,
/// DDNet race) every player in the game is in team 0 (`red`).
pub fn team_name(code: i32) -> Option<&'static str> {
    Some(match code {
        -1 => "spectators",
        0 => "red",
        1 => "blue",
        _ => return None,
    })
}

/// The name of an emote code (`EMOTE_*`, the same in 0.6 and 0.7).
pub fn emote_name(code: i32) -> Option<&'static str> {
    Some(match code {
        0 => "normal",
        1 => "pain",
        2 => "happy",
        3 => "surprise",
        4 => "angry",
        5 => "blink",
        _ => return None,
    })
}

/// Which item type a layout reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeRef {
    /// An ordinal type of one protocol.
    Ordinal(Protocol, u16),
    /// A DDNet extended type, by its netobject name (`DDNetCharacter`).
    Ex(&'static str),
}

/// Where the data ints of one item type go: `fields[i]` names the column
/// of int `i` (ints past the list are not exported).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemLayout {
    pub ty: TypeRef,
    /// The `kind` column of the row (item tables other than `positions`).
    pub kind: &'static str,
    pub fields: &'static [&'static str],
}

const fn ord(
    p: Protocol,
    t: u16,
    kind: &'static str,
    fields: &'static [&'static str],
) -> ItemLayout {
    ItemLayout {
        ty: TypeRef::Ordinal(p, t),
        kind,
        fields,
    }
}

const fn ex(name: &'static str, kind: &'static str, fields: &'static [&'static str]) -> ItemLayout {
    ItemLayout {
        ty: TypeRef::Ex(name),
        kind,
        fields,
    }
}

use Protocol::{V06, V07};

/// The character columns of `positions`, in order: the character core
/// (its `tick` field as `core_tick`), then the rest of the 0.6 and 0.7
/// character items.
pub const POSITION_FIELDS: [&str; 23] = [
    "core_tick",
    "x",
    "y",
    "vel_x",
    "vel_y",
    "angle",
    "direction",
    "jumped",
    "hooked_player",
    "hook_state",
    "hook_tick",
    "hook_x",
    "hook_y",
    "hook_dx",
    "hook_dy",
    "player_flags",
    "health",
    "armor",
    "ammo_count",
    "weapon",
    "emote",
    "attack_tick",
    "triggered_events",
];

/// 0.6 `obj_character` (22 ints).
const CHARACTER_06: [&str; 22] = [
    "core_tick",
    "x",
    "y",
    "vel_x",
    "vel_y",
    "angle",
    "direction",
    "jumped",
    "hooked_player",
    "hook_state",
    "hook_tick",
    "hook_x",
    "hook_y",
    "hook_dx",
    "hook_dy",
    "player_flags",
    "health",
    "armor",
    "ammo_count",
    "weapon",
    "emote",
    "attack_tick",
];

/// 0.7 `obj_character` (22 ints): no `player_flags`, `triggered_events`
/// at the end.
const CHARACTER_07: [&str; 22] = [
    "core_tick",
    "x",
    "y",
    "vel_x",
    "vel_y",
    "angle",
    "direction",
    "jumped",
    "hooked_player",
    "hook_state",
    "hook_tick",
    "hook_x",
    "hook_y",
    "hook_dx",
    "hook_dy",
    "health",
    "armor",
    "ammo_count",
    "weapon",
    "emote",
    "attack_tick",
    "triggered_events",
];

/// DDNet's `DDNetCharacter` (`character@netobj.ddnet.tw`), joined to the
/// character with the same id; older servers send fewer ints.
pub const DDNET_CHARACTER: [&str; 11] = [
    "ddnet_flags",
    "freeze_end",
    "jumps",
    "tele_checkpoint",
    "strong_weak_id",
    "jumped_total",
    "ninja_activation_tick",
    "freeze_start",
    "target_x",
    "target_y",
    "tune_zone_override",
];

const CHARACTER_LAYOUTS: &[ItemLayout] = &[
    ord(V06, 9, "character", &CHARACTER_06),
    ord(V07, 10, "character", &CHARACTER_07),
];

pub(crate) const DDNET_CHARACTER_LAYOUT: ItemLayout =
    ex("DDNetCharacter", "ddnet_character", &DDNET_CHARACTER);

const PROJECTILE: &[&str] = &["x", "y", "vel_x", "vel_y", "type", "start_tick"];
const PROJECTILES: &[ItemLayout] = &[
    ord(V06, 2, "projectile", PROJECTILE),
    ord(V07, 2, "projectile", PROJECTILE),
    ex(
        "DDNetProjectile",
        "ddnet_projectile",
        &[
            "x",
            "y",
            "vel_x",
            "vel_y",
            "type",
            "start_tick",
            "owner",
            "switch_number",
            "tune_zone",
            "flags",
        ],
    ),
    ex(
        "DDRaceProjectile",
        "ddrace_projectile",
        &["x", "y", "angle", "data", "type", "start_tick"],
    ),
];

const LASER: &[&str] = &["x", "y", "from_x", "from_y", "start_tick"];
const LASERS: &[ItemLayout] = &[
    ord(V06, 3, "laser", LASER),
    ord(V07, 3, "laser", LASER),
    // DDNet's `to_x`/`to_y` are the laser's end, `x`/`y` of the others.
    ex(
        "DDNetLaser",
        "ddnet_laser",
        &[
            "x",
            "y",
            "from_x",
            "from_y",
            "start_tick",
            "owner",
            "type",
            "switch_number",
            "subtype",
            "flags",
        ],
    ),
];

const PICKUPS: &[ItemLayout] = &[
    ord(V06, 4, "pickup", &["x", "y", "type", "subtype"]),
    ord(V07, 4, "pickup", &["x", "y", "type"]),
    ex(
        "DDNetPickup",
        "ddnet_pickup",
        &["x", "y", "type", "subtype", "switch_number", "flags"],
    ),
];

const FLAGS: &[ItemLayout] = &[
    ord(V06, 5, "flag", &["x", "y", "team"]),
    ord(V07, 5, "flag", &["x", "y", "team"]),
];

const GAME: &[ItemLayout] = &[
    ord(
        V06,
        6,
        "game_info",
        &[
            "game_flags",
            "game_state_flags",
            "round_start_tick",
            "warmup_timer",
            "score_limit",
            "time_limit",
            "round_num",
            "round_current",
        ],
    ),
    ord(
        V06,
        7,
        "game_data",
        &[
            "teamscore_red",
            "teamscore_blue",
            "flag_carrier_red",
            "flag_carrier_blue",
        ],
    ),
    ord(
        V07,
        6,
        "game_data",
        &["game_start_tick", "game_state_flags", "game_state_end_tick"],
    ),
    ord(
        V07,
        7,
        "game_data_team",
        &["teamscore_red", "teamscore_blue"],
    ),
    ord(
        V07,
        8,
        "game_data_flag",
        &[
            "flag_carrier_red",
            "flag_carrier_blue",
            "flag_drop_tick_red",
            "flag_drop_tick_blue",
        ],
    ),
    ord(
        V07,
        14,
        "de_game_info",
        &[
            "game_flags",
            "score_limit",
            "time_limit",
            "match_num",
            "match_current",
        ],
    ),
    ord(
        V07,
        24,
        "game_data_race",
        &["best_time", "precision", "race_flags"],
    ),
    ex(
        "GameInfoEx",
        "game_info_ex",
        &["ex_flags", "ex_version", "ex_flags2"],
    ),
];

const XY: &[&str] = &["x", "y"];
const EVENTS: &[ItemLayout] = &[
    ord(V06, 14, "explosion", XY),
    ord(V06, 15, "spawn", XY),
    ord(V06, 16, "hammer_hit", XY),
    ord(V06, 17, "death", &["x", "y", "client_id"]),
    ord(V06, 18, "sound_global", &["x", "y", "sound_id"]),
    ord(V06, 19, "sound_world", &["x", "y", "sound_id"]),
    ord(V06, 20, "damage_indicator", &["x", "y", "angle"]),
    ord(V07, 17, "explosion", XY),
    ord(V07, 18, "spawn", XY),
    ord(V07, 19, "hammer_hit", XY),
    ord(V07, 20, "death", &["x", "y", "client_id"]),
    ord(V07, 21, "sound_world", &["x", "y", "sound_id"]),
    ord(
        V07,
        22,
        "damage",
        &[
            "x",
            "y",
            "client_id",
            "angle",
            "health_amount",
            "armor_amount",
            "self",
        ],
    ),
    ex("Birthday", "birthday", XY),
    ex("Finish", "finish", XY),
    ex("MapSoundWorld", "map_sound_world", &["x", "y", "sound_id"]),
];

/// The Arrow type of repeated text: keys into a per-batch dictionary.
pub fn dictionary() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

impl ItemLayout {
    pub(crate) fn kind_name(&self) -> &'static str {
        match self.ty {
            TypeRef::Ex(name) => name,
            TypeRef::Ordinal(..) => self.kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_sets_parse() {
        assert_eq!(TableSet::parse("all").unwrap().len(), Table::ALL.len());
        let s = TableSet::parse("chat,positions").unwrap();
        let v: Vec<Table> = s.iter().collect();
        assert_eq!(v, [Table::Positions, Table::Chat]);
        assert_eq!(s.position(Table::Chat), Some(1));
        assert!(TableSet::parse("chat,chat").is_err());
        assert!(TableSet::parse("chat,nope")
            .unwrap_err()
            .contains("positions"));
        assert!(TableSet::parse("").is_err());
        for t in Table::ALL {
            assert_eq!(Table::from_name(t.name()), Some(t));
            assert_eq!(TableSet::one(t).iter().collect::<Vec<_>>(), [t]);
        }
        assert!(!TableSet::parse("positions,players")
            .unwrap()
            .splittable(V06));
        assert!(TableSet::parse("positions,lasers").unwrap().splittable(V06));
        assert!(!TableSet::parse("positions,lasers").unwrap().splittable(V07));
        assert!(TableSet::parse("lasers,demos").unwrap().splittable(V07));
        assert!(!TableSet::one(Table::Demos).splittable(V06));
    }

    #[test]
    fn schemas_are_well_formed() {
        for t in Table::ALL {
            let s = t.schema();
            let mut names: Vec<_> = s.fields().iter().map(|c| c.name().as_str()).collect();
            assert_eq!(names[..LEADING_COLUMNS.len()], LEADING_COLUMNS);
            assert_eq!(
                s.field_with_name("time_s").unwrap().data_type(),
                &DataType::Float64
            );
            names.sort_unstable();
            let n = names.len();
            names.dedup();
            assert_eq!(names.len(), n, "{} has duplicate columns", t.name());
            for l in t.layouts() {
                for f in l.fields {
                    assert!(t.column_index(f).is_some(), "{}: {f}", t.name());
                }
            }
        }
        let p = Table::Positions;
        let first = p.column_index("core_tick").unwrap();
        assert_eq!(p.column_index("client_id"), Some(LEADING_COLUMNS.len()));
        assert_eq!(p.column_index("name"), Some(first + POSITION_FIELDS.len()));
        assert_eq!(p.column_index("demo_sha256"), Some(1));
    }
}
