//! The columns of the tables: their Arrow schemas (names, types,
//! nullability), units and meanings, and the reference page generated
//! from them (`docs/tables.md`).

use super::CodeNames;
use super::{Table, CODE_NAMES, DDNET_CHARACTER, LEADING_COLUMNS, POSITION_FIELDS};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::sync::{Arc, OnceLock};

impl Table {
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
                    for f in l.columns() {
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
}

/// The Arrow type of repeated text: keys into a per-batch dictionary.
pub fn dictionary() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
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
