//! The tables of `demos export`: their Arrow schemas and the item layouts
//! the item tables read.
//!
//! Item tables (`positions`, `projectiles`, `lasers`, `pickups`, `flags`,
//! `game`, `events`) take their fields from [`ItemLayout`]s: for each item
//! type of each protocol (or DDNet extended type, by its UUID's name), the
//! column each data int goes to. Message tables (`chat`, `kills`,
//! `broadcasts`, `finishes`, `records`) come from the decoded messages,
//! with names resolved by the player tracker at that tick;
//! `player_changes` compares each snapshot's players with the previous
//! snapshot's and `players` has one row per session (see
//! [`super::TableBuilder`]). Every per-player table has a `session` column
//! ([`crate::demo::players::sessions`]).

use crate::codec::snapshot::Protocol;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, OnceLock};

/// The columns every table starts with: the demo's path (as the records
/// of `demos index` write it), the SHA-256 of the demo file (lowercase hex,
/// the `sha256` of `demos index`), the absolute server tick, the ticks
/// since the demo's first tick marker (`tick - first_tick`, Int32) and the
/// same as seconds (`demo_tick / 50`, Float64); see
/// [`super::builder::time_of`].
pub(crate) const LEADING_COLUMNS: [&str; 5] =
    ["demo", "demo_sha256", "tick", "demo_tick", "time_s"];

/// The tables `demos export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Table {
    Positions,
    Players,
    #[cfg_attr(feature = "cli", value(name = "player_changes"))]
    PlayerChanges,
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
    Records,
    /// One row per demo: its header, embedded map and tick span.
    Demos,
}

impl Table {
    pub const ALL: [Table; 15] = [
        Table::Positions,
        Table::Players,
        Table::PlayerChanges,
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
        Table::Records,
        Table::Demos,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Table::Positions => "positions",
            Table::Players => "players",
            Table::PlayerChanges => "player_changes",
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
            Table::Records => "records",
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
                columns.push(int("session", true));
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
            Table::Players => columns.extend([
                int("client_id", false),
                int("session", false),
                int("first_tick", false),
                int("last_tick", false),
                text("name", true),
                free_text("names", true),
                text("clan", true),
                int("country", true),
                text("skin", true),
                int("team", true),
                text("team_name", true),
                free_text("teams", true),
                int("team_changes", false),
                int("score", true),
                boolean("local", false),
            ]),
            Table::PlayerChanges => {
                columns.extend([
                    int("client_id", false),
                    int("session", true),
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
                int("session", true),
                text("name", true),
                text("mode", false),
                int("raw_mode", false),
                int("target_id", true),
                free_text("text", false),
            ]),
            Table::Kills => columns.extend([
                text("kind", false),
                int("killer", true),
                int("killer_session", true),
                text("killer_name", true),
                int("victim", true),
                int("victim_session", true),
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
            // One row per race finish (see `crate::demo::finishes`).
            Table::Finishes => columns.extend([
                int("client_id", true),
                int("session", true),
                text("name", true),
                float("finish_time_s", false),
                text("source", false),
                text("kind", false),
                float("diff_s", true),
                boolean("record_personal", true),
                boolean("record_server", true),
            ]),
            // DDNet's record notices (`Sv_Record`, `Sv_RecordLegacy`):
            // hundredths of a second as seconds, 0 for none.
            Table::Records => columns.extend([
                text("source", false),
                float("server_best_s", false),
                float("player_best_s", false),
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
        if !self.layouts().is_empty() {
            // Last, whatever other columns the tables gain.
            columns.push(boolean("filled", false));
        }
        // Units in each field's metadata (`unit`).
        let columns: Vec<Field> = columns
            .into_iter()
            .map(|f| match self.unit(f.name()) {
                Some(u) => f.with_metadata([("unit", u)]),
                None => f,
            })
            .collect();
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
    /// each. The message tables, `players`, `player_changes` and
    /// `positions` carry state through the whole demo: `positions`' (like
    /// the others') `session` numbers the sessions from the demo's start
    /// (see [`crate::demo::players::sessions`]), which a segment starting
    /// at a keyframe cannot know (0.7 `positions` also takes names from
    /// messages). `demos` is made from the header and framing by the
    /// demo's first unit, whatever the split. The protocol no longer
    /// matters; it is kept for callers.
    pub fn splittable(self, _protocol: Protocol) -> bool {
        match self {
            Table::Positions => false,
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
            Table::Positions
                | Table::Players
                | Table::PlayerChanges
                | Table::Chat
                | Table::Kills
                | Table::Finishes
        )
    }

    pub(crate) fn needs_messages(self) -> bool {
        matches!(
            self,
            Table::Positions
                | Table::Players
                | Table::PlayerChanges
                | Table::Chat
                | Table::Kills
                | Table::Broadcasts
                | Table::Finishes
                | Table::Records
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

/// The units of columns, by column name (and table where it matters),
/// stored in each Arrow field's metadata under `unit` ([`Table::unit`]):
/// the batches carry them; the Parquet files, written without the Arrow
/// schema, do not. World units: 32 per tile; ticks: 50 per second.
impl Table {
    /// The unit of column `name` of this table, if it has one.
    pub fn unit(self, name: &str) -> Option<&'static str> {
        const WORLD: &str = "world unit (1/32 tile)";
        const TICK: &str = "server tick (50 per second)";
        Some(match (self, name) {
            (_, "tick" | "first_tick" | "last_tick") => TICK,
            (_, "demo_tick" | "ticks") => "ticks",
            (_, "time_s" | "duration_s" | "length_s") => "seconds",
            (_, "finish_time_s" | "diff_s" | "server_best_s" | "player_best_s") => "seconds",
            (Table::Demos, "map_size") => "bytes",
            (Table::Positions, "vel_x" | "vel_y") => "1/256 world unit per tick",
            (Table::Projectiles, "vel_x" | "vel_y") => {
                "1/100 of the unit direction (projectile; DDNet items: see flags)"
            }
            (Table::Positions | Table::Events, "angle") => "1/256 radian",
            (Table::Positions, "hook_dx" | "hook_dy") => "1/256 of the unit direction",
            (Table::Positions, "hook_tick") => "ticks",
            (Table::Players, "score") => {
                "points; DDNet race servers: minus the best time in seconds, -9999 for none"
            }
            (
                _,
                "core_tick"
                | "attack_tick"
                | "start_tick"
                | "freeze_end"
                | "freeze_start"
                | "ninja_activation_tick"
                | "round_start_tick"
                | "game_start_tick"
                | "game_state_end_tick"
                | "flag_drop_tick_red"
                | "flag_drop_tick_blue",
            ) => TICK,
            (
                Table::Positions
                | Table::Projectiles
                | Table::Lasers
                | Table::Pickups
                | Table::Flags
                | Table::Events,
                "x" | "y" | "hook_x" | "hook_y" | "from_x" | "from_y" | "target_x" | "target_y",
            ) => WORLD,
            _ => return None,
        })
    }

    /// What column `name` of this table holds (`docs/tables.md`).
    pub fn meaning(self, name: &str) -> &'static str {
        match (self, name) {
            (_, "demo") => "the demo's path, as `demos index` records write it (as given or walked)",
            (_, "demo_sha256") => "SHA-256 of the demo file, lowercase hex (the `sha256` of `demos index`)",
            (Table::Demos, "tick") => "the demo's first tick (the row's time is its start)",
            (Table::Players, "tick") => "the session's start (its first snapshot tick)",
            (_, "tick") => "absolute server tick of the snapshot or message",
            (_, "demo_tick") => "ticks since the demo's first tick marker",
            (_, "time_s") => "seconds since the demo's first tick marker (`demo_tick / 50`)",
            (_, "client_id") => "client id (reused after a player leaves)",
            (Table::Positions, "name") => "the client's name at that tick",
            (_, "name") => "the player's name",
            (Table::Flags, "team") => "the flag's team code",
            (_, "team") => "team code (-1 spectators, 0 red or the game in modes without teams, 1 blue)",
            (_, "team_name") => "`spectators`, `red`, `blue`; null for other codes",
            (_, "weapon_name") => "`hammer`, `gun`, `shotgun`, `grenade`, `laser`, `ninja`; kills also `game` (-3), `self` (-2), `world` (-1); null for other codes",
            (_, "emote_name") => "`normal`, `pain`, `happy`, `surprise`, `angry`, `blink`; null for other codes",
            (Table::Kills, "weapon") => "weapon code of the kill (-3 game, -2 self kill, -1 world, 0 hammer ... 5 ninja)",
            (Table::Projectiles, "type") => "weapon code of the projectile (1 gun, 2 shotgun, 3 grenade)",
            (_, "weapon") => "active weapon code (0 hammer ... 5 ninja)",
            (_, "emote") => "emote code (0 normal ... 5 blink)",
            (Table::Finishes, "kind") => "`player`, `team_member`, `own_team` or `practice`",
            (_, "kind") => "the kind of row (item type, or message kind)",
            (_, "id") => "the item's id",
            (_, "x" | "y") => "position",
            (_, "vel_x" | "vel_y") => "velocity",
            (_, "angle") => "aim (or damage) angle",
            (_, "core_tick") => "tick of the character core (its `tick` field)",
            (_, "direction") => "walking direction (-1 left, 0 none, 1 right)",
            (_, "jumped") => "jump state bits",
            (_, "hooked_player") => "client id of the hooked player, -1 none",
            (_, "hook_state") => "hook state (-1 retracted, 0 idle, 1+ flying or grabbed)",
            (_, "hook_tick") => "ticks since the hook started",
            (_, "hook_x" | "hook_y") => "hook position",
            (_, "hook_dx" | "hook_dy") => "hook direction",
            (_, "player_flags") => "player flags (0.6: playing, in menu, chatting, scoreboard, aim)",
            (_, "health") => "health points",
            (_, "armor") => "armor points",
            (_, "ammo_count") => "ammo of the active weapon",
            (_, "attack_tick") => "tick of the last attack",
            (_, "triggered_events") => "0.7 core events of the tick (bits)",
            (_, "ddnet_flags") => "DDNet character flags (bits)",
            (_, "freeze_end") => "tick the freeze ends (0 not frozen, -1 deep freeze)",
            (_, "freeze_start") => "tick the freeze started",
            (_, "jumps") => "jumps the character has",
            (_, "tele_checkpoint") => "last teleporter checkpoint",
            (_, "strong_weak_id") => "DDNet strong/weak hook order",
            (_, "jumped_total") => "jumps used since touching ground",
            (_, "ninja_activation_tick") => "tick ninja was picked up",
            (_, "target_x" | "target_y") => "aim target relative to the character",
            (_, "tune_zone_override") => "tune zone in effect",
            (_, "change") => "`join`, `update` or `leave`",
            (_, "clan") => "clan",
            (_, "country") => "country code (ISO 3166-1 numeric, -1 none)",
            (_, "skin") => "skin name",
            (_, "score") => "score",
            (_, "local") => "whether this is the recording client's own player",
            (_, "mode") => "chat mode (`all`, `team`, `whisper`, ...)",
            (_, "raw_mode") => "chat mode code as sent",
            (_, "target_id") => "whisper target client id",
            (_, "text") => "the text",
            (_, "killer") => "client id of the killer",
            (_, "killer_name") => "the killer's name at that tick",
            (_, "victim") => "client id of the victim",
            (_, "victim_name") => "the victim's name at that tick",
            (_, "mode_special") => "kill flags (0.6 flag carriers ...)",
            (_, "ddrace_team") => "DDRace team of a team kill",
            (_, "first") => "first client of a team kill",
            (_, "time") => "race time as the message sends it",
            (_, "diff") => "difference to the best time, as sent",
            (_, "record_personal") => "whether the finish is a personal record",
            (_, "record_server") => "whether the finish is a server record",
            (_, "server_time_best") => "server's best time, as the record message sends it",
            (_, "player_time_best") => "player's best time, as the record message sends it",
            (_, "version") => "demo format version",
            (_, "net_version") => "the network version string of the header",
            (_, "protocol") => "`0.6` or `0.7` (null if unknown)",
            (_, "demo_type") => "`client` or `server`",
            (_, "timestamp") => "recording time, ISO 8601 (local time of the recorder)",
            (_, "length_s") => "length the header states",
            (_, "map_name") => "the map's name",
            (_, "map_size") => "size of the map the header states",
            (_, "map_crc") => "CRC-32 of the map the header states, hex",
            (_, "map_sha256") => "SHA-256 of the embedded map (else the header's), hex: the `sha256` of `maps index`",
            (Table::Players, "first_tick") => "first snapshot tick with the session's player",
            (Table::Players, "last_tick") => "last snapshot tick with the session's player",
            (_, "first_tick") => "tick of the first tick marker",
            (_, "last_tick") => "tick of the last tick marker",
            (_, "session") => "the player's session in this demo (1, 2, ... by start): a client id's connection, kept through renames (`players` has one row per session)",
            (_, "killer_session") => "the killer's session (as `players`)",
            (_, "victim_session") => "the victim's session (as `players`)",
            (_, "names") => "every name of the session in order, joined by ` / `",
            (_, "teams") => "every team code of the session in order, joined by ` / `",
            (_, "team_changes") => "team changes in the session",
            (_, "finish_time_s") => "race time, exact as the source writes it (chat M:SS.hh, `Sv_DDRaceTime` hundredths, `Sv_RaceFinish` ms)",
            (Table::Finishes, "source") => "`chat`, `message:Sv_DDRaceTime`, `message:Sv_DDRaceTimeLegacy` or `message:Sv_RaceFinish`",
            (Table::Records, "source") => "`message:Sv_Record` or `message:Sv_RecordLegacy`",
            (_, "diff_s") => "time minus the previous personal best (messages only; negative: better)",
            (_, "server_best_s") => "the server's best time (0: none known)",
            (_, "player_best_s") => "the player's best time (0: none known)",
            (_, "filled") => "`false`: the row's snapshot arrived at this tick; `true`: carried from the last snapshot before (`--every-tick` only)",
            (_, "ticks") => "tick markers",
            (_, "duration_s") => "`(last_tick - first_tick) / 50`",
            _ => "an int of the item (see the protocol's `datasrc/network.py`)",
        }
    }

    /// `docs/tables.md`: every table and column (name, type, nullable,
    /// unit, meaning), from the schemas.
    pub fn reference_markdown() -> String {
        use std::fmt::Write;
        let mut s = String::from(
            "# Table reference\n\n\
             Generated from `Table::schema` (`teebatch::demo::export`): do not edit; \
             `TEEBATCH_BLESS=1 cargo test --test tests tables_reference` rewrites it. \
             Units are also in each Arrow field's metadata (`unit`) of the record batches \
             the library and the Python package hand out; the Parquet files are written \
             without the Arrow schema (so that every reader sees plain strings) and do not \
             carry them.\n\n\
             Text columns marked `dictionary` are `Dictionary(Int32, Utf8)`: plain strings \
             to every reader of the CSV, JSON lines and Parquet files.\n\n\
             Nullable `int32` columns load as `float64` in pandas (NaN for null) unless the \
             reader is told otherwise: `pd.read_parquet(path, dtype_backend=\"pyarrow\")`, or \
             `pyarrow.parquet.read_table(path).to_pandas(types_mapper=pd.ArrowDtype)`.\n",
        );
        for t in Table::ALL {
            let _ = write!(
                s,
                "\n## `{}`\n\n| column | type | nullable | unit | meaning |\n|---|---|---|---|---|\n",
                t.name()
            );
            for f in t.schema().fields() {
                let ty = match f.data_type() {
                    DataType::Int32 => "int32",
                    DataType::Float64 => "float64",
                    DataType::Boolean => "bool",
                    DataType::Utf8 => "string",
                    DataType::Dictionary(..) => "string (dictionary)",
                    _ => "other",
                };
                let unit = f.metadata().get("unit").map_or("", String::as_str);
                let _ = writeln!(
                    s,
                    "| `{}` | {ty} | {} | {unit} | {} |",
                    f.name(),
                    if f.is_nullable() { "yes" } else { "no" },
                    t.meaning(f.name())
                );
            }
        }
        s
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
        // `positions` is never split (its sessions count from the start).
        assert!(!TableSet::parse("positions,lasers").unwrap().splittable(V06));
        assert!(!TableSet::parse("positions,lasers").unwrap().splittable(V07));
        assert!(TableSet::parse("game,lasers").unwrap().splittable(V06));
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
        // The character fields, each code with its name beside it, then
        // the player's name.
        let names = CODE_NAMES
            .iter()
            .filter(|c| POSITION_FIELDS.contains(&c.1))
            .count();
        assert_eq!(names, 2);
        assert_eq!(
            p.column_index("name"),
            Some(first + POSITION_FIELDS.len() + names)
        );
        assert_eq!(
            p.column_index("weapon_name"),
            p.column_index("weapon").map(|c| c + 1)
        );
        assert_eq!(p.column_index("demo_sha256"), Some(1));
        assert_eq!(
            p.column_index("session"),
            p.column_index("client_id").map(|c| c + 1)
        );
        // `filled` is in every item table and `positions`, whatever the
        // options (the schema does not depend on `--every-tick`), and only
        // there.
        for t in Table::ALL {
            let filled = t.column_index("filled");
            assert_eq!(filled.is_some(), !t.layouts().is_empty(), "{}", t.name());
            if let Some(c) = filled {
                let f = t.schema().field(c).clone();
                assert_eq!(f.data_type(), &DataType::Boolean);
                assert!(!f.is_nullable());
            }
        }
    }
}
