//! The tables of `demos export` and the builder that turns one demo's
//! decoded stream into their rows.
//!
//! Item tables (`positions`, `projectiles`, `lasers`, `pickups`, `flags`,
//! `game`, `events`) take their fields from [`ItemLayout`]s: for each item
//! type of each protocol (or DDNet extended type, by its UUID's name), the
//! column each data int goes to. Message tables (`chat`, `kills`,
//! `broadcasts`, `finishes`) come from the decoded messages, with names
//! resolved by the [`PlayerTracker`] at that tick; `players` compares each
//! snapshot's players with the previous snapshot's.

use super::table::{Column, ColumnType, RowBatch, Schema, Value};
use crate::codec::snapshot::uuid::{lookup_uuid, uuid_from_ints, OFFSET_UUID_TYPE};
use crate::codec::snapshot::{item_id, item_key, item_type, Changes, Protocol, Snapshot};
use crate::demo::message::{self, Body, ChatMode};
use crate::demo::players::{PlayerChanges, PlayerTracker, PlayerView, TrackerConfig};
use crate::warn::Discard;
use std::collections::BTreeMap;
use std::sync::Arc;

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
}

impl Table {
    pub const ALL: [Table; 12] = [
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
        }
    }

    /// The columns of this table.
    pub fn schema(self) -> Schema {
        use ColumnType::*;
        let c = Column::new;
        let mut columns = vec![c("demo", Str, false), c("tick", I32, false)];
        match self {
            Table::Positions => {
                columns.push(c("client_id", I32, false));
                for f in POSITION_FIELDS {
                    columns.push(c(f, I32, true));
                }
                columns.push(c("name", Str, true));
                columns.push(c("team", I32, true));
                for f in DDNET_CHARACTER {
                    columns.push(c(f, I32, true));
                }
            }
            Table::Players => {
                columns.extend([
                    c("client_id", I32, false),
                    c("change", Str, false),
                    c("name", Str, true),
                    c("clan", Str, true),
                    c("country", I32, true),
                    c("skin", Str, true),
                    c("team", I32, true),
                    c("score", I32, true),
                    c("local", Bool, false),
                ]);
            }
            Table::Chat => columns.extend([
                c("client_id", I32, false),
                c("name", Str, true),
                c("mode", Str, false),
                c("raw_mode", I32, false),
                c("target_id", I32, true),
                c("text", Str, false),
            ]),
            Table::Kills => columns.extend([
                c("kind", Str, false),
                c("killer", I32, true),
                c("killer_name", Str, true),
                c("victim", I32, true),
                c("victim_name", Str, true),
                c("weapon", I32, true),
                c("mode_special", I32, true),
                c("ddrace_team", I32, true),
                c("first", I32, true),
            ]),
            Table::Broadcasts => columns.push(c("text", Str, false)),
            Table::Finishes => columns.extend([
                c("kind", Str, false),
                c("client_id", I32, true),
                c("name", Str, true),
                c("time", I32, true),
                c("diff", I32, true),
                c("record_personal", Bool, true),
                c("record_server", Bool, true),
                c("server_time_best", I32, true),
                c("player_time_best", I32, true),
            ]),
            item => {
                columns.push(c("kind", Str, false));
                columns.push(c("id", I32, false));
                for l in item.layouts() {
                    for f in l.fields {
                        if !columns.iter().any(|col| col.name == *f) {
                            columns.push(c(f, I32, true));
                        }
                    }
                }
            }
        }
        Schema {
            table: self.name(),
            columns,
        }
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
    pub fn splittable(self, protocol: Protocol) -> bool {
        match self {
            Table::Positions => protocol == Protocol::V06,
            t => !t.layouts().is_empty(),
        }
    }

    fn needs_tracker(self) -> bool {
        matches!(
            self,
            Table::Positions | Table::Players | Table::Chat | Table::Kills | Table::Finishes
        )
    }

    fn needs_messages(self) -> bool {
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

const DDNET_CHARACTER_LAYOUT: ItemLayout =
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

/// A layout with its column indices in the table's schema.
struct Resolved {
    kind: Value,
    columns: Vec<usize>,
}

impl Resolved {
    fn new(l: &ItemLayout, schema: &Schema) -> Resolved {
        Resolved {
            kind: Value::Str(l.kind.into()),
            columns: l
                .fields
                .iter()
                .map(|f| schema.index_of(f).expect("layout field in schema"))
                .collect(),
        }
    }

    /// Writes `data` into the row's columns; ints the item lacks stay null.
    fn fill(&self, row: &mut [Value], data: &[i32]) {
        for (&col, &v) in self.columns.iter().zip(data) {
            row[col] = Value::I32(v);
        }
    }
}

/// One player's state as the `players` table compares it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PlayerState {
    client_id: u16,
    name: Option<String>,
    clan: Option<String>,
    country: Option<i32>,
    skin: Option<String>,
    team: Option<i32>,
    score: Option<i32>,
    local: bool,
}

impl PlayerState {
    fn same_as(&self, v: &PlayerView) -> bool {
        self.name == v.name
            && self.clan == v.clan
            && self.country == v.country
            && self.skin == v.skin
            && self.team == v.team
            && self.score == v.score
            && self.local == v.local
    }

    fn set(&mut self, v: &PlayerView) {
        self.client_id = v.client_id;
        self.name.clone_from(&v.name);
        self.clan.clone_from(&v.clan);
        self.country = v.country;
        self.skin.clone_from(&v.skin);
        self.team = v.team;
        self.score = v.score;
        self.local = v.local;
    }

    fn from_view(v: &PlayerView) -> PlayerState {
        let mut s = PlayerState {
            client_id: 0,
            name: None,
            clan: None,
            country: None,
            skin: None,
            team: None,
            score: None,
            local: false,
        };
        s.set(v);
        s
    }
}

fn opt_str(s: Option<&str>) -> Value {
    s.map_or(Value::Null, |s| Value::Str(s.into()))
}

fn chat_mode(m: ChatMode) -> &'static str {
    match m {
        ChatMode::All => "all",
        ChatMode::Team => "team",
        ChatMode::Whisper => "whisper",
        ChatMode::WhisperSent => "whisper_sent",
        ChatMode::WhisperReceived => "whisper_received",
        ChatMode::Other(_) => "other",
    }
}

/// Where an item goes in an item table (or `positions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A row of its own, with this layout.
    Row(usize),
    /// `positions`: the DDNet character fields of the row of the character
    /// with the same id.
    Ddnet,
}

/// `positions`: one character's item ints and those of its DDNet
/// character item, as the current snapshot has them.
struct CharacterInts {
    /// The character's layout.
    layout: usize,
    data: Box<[i32]>,
    /// The DDNet character's ints (kept when it goes, for reuse).
    ddnet: Vec<i32>,
    has_ddnet: bool,
}

/// Builds one table's rows from one demo's events.
///
/// Feed it [`TableBuilder::snapshot_changed`] (or
/// [`TableBuilder::snapshot`]) and [`TableBuilder::message`] in stream
/// order; rows collect in [`TableBuilder::rows`], which the caller takes
/// ([`TableBuilder::take_rows`]) whenever it wants to pass them on. Rows
/// come by tick, then by id (client id, item id), then in stream order;
/// only ticks in `from..=to` give rows, but every event before them still
/// updates the players (names at the first exported tick are right).
///
/// Item tables and `positions` keep the rows of the previous snapshot's
/// items, by (id, type), and follow what each delta changed
/// ([`Changes`]): a removed item drops its row, an updated or added one is
/// (re)filled, and every other row is repeated as it was. So a delta that
/// touches 3 of 300 items costs 3 item fills
/// ([`TableBuilder::items_seen`]), whatever the snapshot holds. A full
/// snapshot, a change not described item by item, a change to a UUID
/// declaration or a snapshot after ticks out of range fills every row
/// anew.
pub struct TableBuilder {
    table: Table,
    protocol: Protocol,
    width: usize,
    demo: Value,
    from: i32,
    to: i32,
    layouts: Vec<Resolved>,
    /// By ordinal type id: the layout index, for this protocol.
    by_ordinal: Vec<Option<usize>>,
    /// Layouts of extended types, by netobject name.
    by_ex: Vec<(&'static str, usize)>,
    /// Extended types declared in the current snapshot: (type id, layout).
    ex_in_snap: Vec<(u16, usize)>,
    ddnet_character: Option<Resolved>,
    /// Keeps chat lines only for the `chat` table, which takes each as it
    /// comes ([`PlayerTracker::drain_chat`]): no table holds the chat of
    /// the whole demo.
    tracker: Option<PlayerTracker>,
    /// `chat`: the lines of the current message, taken from the tracker
    /// (reused).
    chat: Vec<crate::demo::players::ChatLine>,
    /// `players`: the previous snapshot's players, by client id (`None`
    /// before the first snapshot in range).
    players: Option<Vec<PlayerState>>,
    /// Item tables other than `positions`: the rows of the current
    /// snapshot's items by (id, type), in output order, `demo` and `tick`
    /// left to fill.
    cache: BTreeMap<(u16, u16), Box<[Value]>>,
    /// `positions`: the ints of the current snapshot's characters by id,
    /// in output order (each row is filled from them in place, as most
    /// characters change every tick).
    characters: BTreeMap<u16, CharacterInts>,
    /// Whether `cache` and `ex_in_snap` are those of the snapshot before
    /// (else the next snapshot is read whole).
    cache_valid: bool,
    /// What the current snapshot changed in the player items (fed to the
    /// tracker right away).
    player_changes: PlayerChanges,
    /// `positions`: the name each client id had in the previous row.
    names: Vec<Option<Arc<str>>>,
    rows: RowBatch,
    /// Rows made so far.
    pub rows_made: u64,
    /// Snapshot items read into rows by the item tables (work counter:
    /// item fills, not rows repeated).
    pub items_seen: u64,
}

impl TableBuilder {
    pub fn new(table: Table, protocol: Protocol, demo: &str, from: i32, to: i32) -> TableBuilder {
        let schema = table.schema();
        let mut layouts = Vec::new();
        let mut by_ordinal = Vec::new();
        let mut by_ex = Vec::new();
        for l in table.layouts() {
            match l.ty {
                TypeRef::Ordinal(p, t) if p == protocol => {
                    let t = usize::from(t);
                    if by_ordinal.len() <= t {
                        by_ordinal.resize(t + 1, None);
                    }
                    by_ordinal[t] = Some(layouts.len());
                }
                TypeRef::Ordinal(..) => continue,
                TypeRef::Ex(name) => by_ex.push((name, layouts.len())),
            }
            layouts.push(Resolved::new(l, &schema));
        }
        let ddnet_character =
            (table == Table::Positions).then(|| Resolved::new(&DDNET_CHARACTER_LAYOUT, &schema));
        TableBuilder {
            table,
            protocol,
            width: schema.columns.len(),
            demo: Value::Str(demo.into()),
            from,
            to,
            layouts,
            by_ordinal,
            by_ex,
            ex_in_snap: Vec::new(),
            ddnet_character,
            tracker: table.needs_tracker().then(|| {
                let config = TrackerConfig {
                    keep_chat: table == Table::Chat,
                    ..TrackerConfig::default()
                };
                PlayerTracker::new(protocol, config)
            }),
            chat: Vec::new(),
            players: None,
            cache: BTreeMap::new(),
            characters: BTreeMap::new(),
            cache_valid: false,
            player_changes: PlayerChanges::new(),
            names: Vec::new(),
            rows: RowBatch::new(schema.columns.len()),
            rows_made: 0,
            items_seen: 0,
        }
    }

    /// Chat lines held (kept by the player tracker or waiting to become
    /// rows), with the room reserved for them: what the chat of a demo
    /// costs the export, which does not grow with the demo's chat.
    pub fn chat_lines_held(&self) -> usize {
        let kept = self.tracker.as_ref().map_or(0, |t| t.chat().len());
        kept + self.chat.capacity()
    }

    /// The rows made since the last [`TableBuilder::take_rows`].
    pub fn rows(&self) -> &RowBatch {
        &self.rows
    }

    /// Takes the rows made so far.
    pub fn take_rows(&mut self) -> RowBatch {
        self.swap_rows(RowBatch::new(self.width))
    }

    /// Takes the rows made so far; the next rows go to `spare` (cleared),
    /// whose memory is reused.
    pub fn swap_rows(&mut self, mut spare: RowBatch) -> RowBatch {
        spare.clear(self.width);
        std::mem::replace(&mut self.rows, spare)
    }

    fn in_range(&self, tick: i32) -> bool {
        (self.from..=self.to).contains(&tick)
    }

    fn row(&mut self, tick: i32) -> &mut [Value] {
        self.rows_made += 1;
        let demo = self.demo.clone();
        let row = self.rows.push_row();
        row[0] = demo;
        row[1] = Value::I32(tick);
        row
    }

    /// A snapshot of tick `tick`, read whole (as after a full snapshot).
    pub fn snapshot(&mut self, tick: i32, snap: &Snapshot) {
        let mut whole = Changes::default();
        whole.set_unknown();
        self.snapshot_changed(tick, snap, &whole);
    }

    /// A snapshot of tick `tick` that `changes` made from the previous
    /// snapshot fed (see the type docs).
    pub fn snapshot_changed(&mut self, tick: i32, snap: &Snapshot, changes: &Changes) {
        if let Some(t) = &mut self.tracker {
            self.player_changes.note(t.protocol(), snap, changes);
            // Tables are rows: the players' warnings are not part of them.
            t.feed_snapshot_changed(tick, snap, &self.player_changes, &mut Discard);
            self.player_changes.clear();
        }
        if !self.in_range(tick) {
            self.cache_valid = false;
            return;
        }
        match self.table {
            Table::Players => self.players(tick),
            Table::Positions => {
                self.follow_items(snap, changes);
                self.emit_positions(tick);
            }
            t if !t.layouts().is_empty() => {
                self.follow_items(snap, changes);
                self.emit_items(tick);
            }
            _ => {}
        }
    }

    /// Brings the cached rows from the previous snapshot to `snap`.
    fn follow_items(&mut self, snap: &Snapshot, changes: &Changes) {
        let is_declaration = |k: u32| item_type(k) == 0 && item_id(k) >= OFFSET_UUID_TYPE;
        let whole = !self.cache_valid
            || (!(self.by_ex.is_empty() && self.ddnet_character.is_none())
                && changes.touches(snap, is_declaration))
            || !changes.is_known();
        if whole {
            self.declared_types(snap);
            self.cache.clear();
            self.characters.clear();
            for i in 0..snap.len() {
                self.add_item(snap, i, true);
            }
            self.cache_valid = true;
            return;
        }
        for &(key, _) in changes.removed() {
            self.remove_item(key);
        }
        for &i in changes.updated() {
            self.update_item(snap, i as usize);
        }
        for i in changes.added_from()..snap.len() {
            self.add_item(snap, i, false);
        }
    }

    /// Where an item of type `ty` goes in this table, if anywhere.
    fn slot(&self, ty: u16) -> Option<Slot> {
        if ty >= OFFSET_UUID_TYPE {
            let &(_, l) = self.ex_in_snap.iter().find(|&&(t, _)| t == ty)?;
            return Some(match l {
                usize::MAX => Slot::Ddnet,
                l => Slot::Row(l),
            });
        }
        self.by_ordinal
            .get(usize::from(ty))
            .copied()
            .flatten()
            .map(Slot::Row)
    }

    /// The DDNet character type declared in the current snapshot.
    fn ddnet_type(&self) -> Option<u16> {
        self.ex_in_snap
            .iter()
            .find(|&&(_, l)| l == usize::MAX)
            .map(|&(t, _)| t)
    }

    /// Adds the row of item `i` of `snap` (`whole`: the snapshot is read
    /// from scratch, so a character finds its DDNet fields itself and the
    /// DDNet items need no pass of their own).
    fn add_item(&mut self, snap: &Snapshot, i: usize, whole: bool) {
        let Some((key, data)) = snap.item(i) else {
            return;
        };
        let (ty, id) = (item_type(key), item_id(key));
        match self.slot(ty) {
            Some(Slot::Row(layout)) => {
                self.items_seen += 1;
                if self.table == Table::Positions {
                    let ddnet = self.ddnet_type().and_then(|t| snap.get(item_key(t, id)));
                    let c = CharacterInts {
                        layout,
                        data: data.into(),
                        ddnet: ddnet.unwrap_or_default().into(),
                        has_ddnet: ddnet.is_some(),
                    };
                    self.characters.insert(id, c);
                    return;
                }
                let mut row = vec![Value::Null; self.width].into_boxed_slice();
                let l = &self.layouts[layout];
                row[2] = l.kind.clone();
                row[3] = Value::I32(i32::from(id));
                l.fill(&mut row, data);
                self.cache.insert((id, ty), row);
            }
            Some(Slot::Ddnet) if !whole => self.set_ddnet(id, Some(data)),
            _ => {}
        }
    }

    /// Refills the row of the kept item `i` of `snap`, which the delta
    /// updated (same size: the same columns).
    fn update_item(&mut self, snap: &Snapshot, i: usize) {
        let Some((key, data)) = snap.item(i) else {
            return;
        };
        let (ty, id) = (item_type(key), item_id(key));
        match self.slot(ty) {
            Some(Slot::Row(_)) if self.table == Table::Positions => {
                if let Some(c) = self.characters.get_mut(&id) {
                    self.items_seen += 1;
                    if c.data.len() == data.len() {
                        c.data.copy_from_slice(data);
                    } else {
                        c.data = data.into();
                    }
                }
            }
            Some(Slot::Row(layout)) => {
                if let Some(row) = self.cache.get_mut(&(id, ty)) {
                    self.items_seen += 1;
                    self.layouts[layout].fill(row, data);
                }
            }
            Some(Slot::Ddnet) => self.set_ddnet(id, Some(data)),
            None => {}
        }
    }

    /// Drops the row of the removed item `key`.
    fn remove_item(&mut self, key: u32) {
        let (ty, id) = (item_type(key), item_id(key));
        match self.slot(ty) {
            Some(Slot::Row(_)) if self.table == Table::Positions => {
                self.characters.remove(&id);
            }
            Some(Slot::Row(_)) => {
                self.cache.remove(&(id, ty));
            }
            Some(Slot::Ddnet) => self.set_ddnet(id, None),
            None => {}
        }
    }

    /// Sets (or with `None` clears) the DDNet fields of character `id`'s
    /// row, if it has one.
    fn set_ddnet(&mut self, id: u16, data: Option<&[i32]>) {
        if self.ddnet_character.is_none() {
            return;
        }
        let Some(c) = self.characters.get_mut(&id) else {
            return;
        };
        self.items_seen += 1;
        c.ddnet.clear();
        c.has_ddnet = data.is_some();
        if let Some(d) = data {
            c.ddnet.extend_from_slice(d);
        }
    }

    /// Finds the extended types of this table declared in `snap`.
    fn declared_types(&mut self, snap: &Snapshot) {
        self.ex_in_snap.clear();
        if self.by_ex.is_empty() && self.ddnet_character.is_none() {
            return;
        }
        for (key, data) in snap.iter() {
            if item_type(key) != 0 || item_id(key) < OFFSET_UUID_TYPE {
                continue;
            }
            let Some(known) = uuid_from_ints(data).and_then(|u| lookup_uuid(&u)) else {
                continue;
            };
            let layout = if self.ddnet_character.is_some()
                && known.name == DDNET_CHARACTER_LAYOUT.kind_name()
            {
                usize::MAX
            } else if let Some(&(_, l)) = self.by_ex.iter().find(|(n, _)| *n == known.name) {
                l
            } else {
                continue;
            };
            self.ex_in_snap.push((item_id(key), layout));
        }
    }

    /// One row per character, filled in place from its ints, with the
    /// current name and team of its client.
    fn emit_positions(&mut self, tick: i32) {
        let characters = std::mem::take(&mut self.characters);
        let name_col = POSITION_FIELDS.len() + 3;
        for (&id, c) in &characters {
            let (name, team) = self.name_and_team(id);
            self.rows_made += 1;
            let demo = self.demo.clone();
            let row = self.rows.push_row();
            row[0] = demo;
            row[1] = Value::I32(tick);
            row[2] = Value::I32(i32::from(id));
            self.layouts[c.layout].fill(row, &c.data);
            row[name_col] = name.map_or(Value::Null, Value::Str);
            row[name_col + 1] = team.into();
            if let (true, Some(l)) = (c.has_ddnet, &self.ddnet_character) {
                l.fill(row, &c.ddnet);
            }
        }
        self.characters = characters;
    }

    /// One row per item of the table, repeated from the cache.
    fn emit_items(&mut self, tick: i32) {
        for cached in self.cache.values() {
            self.rows_made += 1;
            let row = self.rows.push_row();
            row.clone_from_slice(cached);
            row[0] = self.demo.clone();
            row[1] = Value::I32(tick);
        }
    }

    /// The current name (shared with the previous row of the same client
    /// id while it does not change) and team of client `id`.
    fn name_and_team(&mut self, id: u16) -> (Option<Arc<str>>, Option<i32>) {
        let Some(t) = &self.tracker else {
            return (None, None);
        };
        let views = t.current_view();
        let Ok(at) = views.binary_search_by_key(&id, |v| v.client_id) else {
            return (None, None);
        };
        let v = &views[at];
        let slot = usize::from(id);
        if self.names.len() <= slot {
            self.names.resize(slot + 1, None);
        }
        let cached = &mut self.names[slot];
        let name = match (&v.name, cached.as_ref()) {
            (None, _) => None,
            (Some(n), Some(c)) if **c == **n => Some(c.clone()),
            (Some(n), _) => {
                let a: Arc<str> = n.as_str().into();
                *cached = Some(a.clone());
                Some(a)
            }
        };
        (name, v.team)
    }

    fn players(&mut self, tick: i32) {
        let Some(t) = &self.tracker else { return };
        let views = t.current_view();
        let prev = self.players.get_or_insert_with(Vec::new);
        let mut next: Vec<PlayerState> = Vec::with_capacity(views.len());
        let mut out: Vec<(&'static str, PlayerState)> = Vec::new();
        let (mut i, mut j) = (0, 0);
        // Both lists are sorted by client id: a merge.
        while i < prev.len() || j < views.len() {
            let p = prev.get(i);
            let v = views.get(j);
            match (p, v) {
                (Some(p), Some(v)) if p.client_id == v.client_id => {
                    if !p.same_as(v) {
                        out.push(("update", PlayerState::from_view(v)));
                        let mut s = p.clone();
                        s.set(v);
                        next.push(s);
                    } else {
                        next.push(p.clone());
                    }
                    i += 1;
                    j += 1;
                }
                (Some(p), v) if v.is_none_or(|v| p.client_id < v.client_id) => {
                    out.push(("leave", p.clone()));
                    i += 1;
                }
                (_, Some(v)) => {
                    let s = PlayerState::from_view(v);
                    out.push(("join", s.clone()));
                    next.push(s);
                    j += 1;
                }
                _ => break,
            }
        }
        *prev = next;
        for (change, s) in out {
            let row = self.row(tick);
            row[2] = Value::I32(i32::from(s.client_id));
            row[3] = Value::Str(change.into());
            row[4] = opt_str(s.name.as_deref());
            row[5] = opt_str(s.clan.as_deref());
            row[6] = s.country.into();
            row[7] = opt_str(s.skin.as_deref());
            row[8] = s.team.into();
            row[9] = s.score.into();
            row[10] = Value::Bool(s.local);
        }
    }

    /// A message chunk's bytes at tick `tick`.
    pub fn message(&mut self, tick: i32, bytes: &[u8]) {
        if !self.table.needs_messages() {
            return;
        }
        // As for players, message warnings are not part of the tables.
        let Ok(msg) = message::decode(bytes, self.protocol, &mut Discard) else {
            return;
        };
        if let Some(t) = &mut self.tracker {
            t.feed_message(tick, &msg);
        }
        let in_range = self.in_range(tick);
        match (self.table, &msg.body) {
            (Table::Chat, _) => {
                let Some(t) = &mut self.tracker else { return };
                let mut lines = std::mem::take(&mut self.chat);
                lines.extend(t.drain_chat());
                if !in_range {
                    lines.clear();
                }
                for l in lines.drain(..) {
                    let row = self.row(tick);
                    row[1] = Value::I32(l.tick);
                    row[2] = Value::I32(l.client_id);
                    row[3] = opt_str(l.name.as_deref());
                    row[4] = Value::Str(chat_mode(l.mode).into());
                    row[5] = Value::I32(l.raw_mode);
                    row[6] = l.target_id.into();
                    row[7] = Value::Str(l.text.into());
                }
                self.chat = lines;
            }
            (Table::Kills, Body::KillMsg(k)) if in_range => {
                let killer = self.name_of(k.killer);
                let victim = self.name_of(k.victim);
                let row = self.row(tick);
                row[2] = Value::Str("kill".into());
                row[3] = Value::I32(k.killer);
                row[4] = killer;
                row[5] = Value::I32(k.victim);
                row[6] = victim;
                row[7] = Value::I32(k.weapon);
                row[8] = Value::I32(k.mode_special);
            }
            (Table::Kills, Body::KillMsgTeam { team, first }) if in_range => {
                let (team, first) = (*team, *first);
                let row = self.row(tick);
                row[2] = Value::Str("team_kill".into());
                row[9] = Value::I32(team);
                row[10] = Value::I32(first);
            }
            (Table::Broadcasts, Body::Broadcast { text }) if in_range => {
                let text = Value::Str(text.as_ref().into());
                self.row(tick)[2] = text;
            }
            (
                Table::Finishes,
                Body::RaceFinish {
                    client_id,
                    time,
                    diff,
                    record_personal,
                    record_server,
                },
            ) if in_range => {
                let name = self.name_of(*client_id);
                let (client_id, time, diff, personal, server) =
                    (*client_id, *time, *diff, *record_personal, *record_server);
                let row = self.row(tick);
                row[2] = Value::Str("race_finish".into());
                row[3] = Value::I32(client_id);
                row[4] = name;
                row[5] = Value::I32(time);
                row[6] = Value::I32(diff);
                row[7] = Value::Bool(personal);
                row[8] = server.map_or(Value::Null, Value::Bool);
            }
            (
                Table::Finishes,
                Body::Record {
                    server_time_best,
                    player_time_best,
                },
            ) if in_range => {
                let (s, p) = (*server_time_best, *player_time_best);
                let row = self.row(tick);
                row[2] = Value::Str("record".into());
                row[9] = Value::I32(s);
                row[10] = Value::I32(p);
            }
            _ => {}
        }
    }

    /// The current name of client `id`, or null.
    fn name_of(&self, id: i32) -> Value {
        let name = u16::try_from(id)
            .ok()
            .and_then(|id| self.tracker.as_ref()?.current_name(id));
        opt_str(name)
    }
}

impl ItemLayout {
    fn kind_name(&self) -> &'static str {
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
    fn schemas_are_well_formed() {
        for t in Table::ALL {
            let s = t.schema();
            let mut names: Vec<_> = s.columns.iter().map(|c| c.name).collect();
            names.sort_unstable();
            let n = names.len();
            names.dedup();
            assert_eq!(names.len(), n, "{} has duplicate columns", t.name());
            assert_eq!((s.columns[0].name, s.columns[1].name), ("demo", "tick"));
            for l in t.layouts() {
                for f in l.fields {
                    assert!(s.index_of(f).is_some(), "{}: {f}", t.name());
                }
            }
        }
        let p = Table::Positions.schema();
        assert_eq!(p.index_of("name"), Some(POSITION_FIELDS.len() + 3));
        assert_eq!(p.index_of("team"), Some(POSITION_FIELDS.len() + 4));
        assert_eq!(p.columns.len(), 3 + 23 + 2 + 11);
    }

    /// Lasers and flags (none in the real demos): ordinal and DDNet
    /// extended items in one table, by id, then type; the extended type
    /// found through its declaration; ints a short item lacks are null.
    #[test]
    fn lasers_and_flags_from_a_snapshot() {
        use crate::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints};
        let mut s = Snapshot::new();
        s.push(item_key(3, 7), &[1, 2, 3, 4, 5]).unwrap();
        s.push(
            item_key(0, 0x7ffe),
            &uuid_to_ints(&uuid_from_name("laser@netobj.ddnet.tw")),
        )
        .unwrap();
        s.push(item_key(0x7ffe, 2), &[10, 20, 30, 40, 50, 1, 0, 0, 0, 0])
            .unwrap();
        s.push(item_key(3, 2), &[6, 7]).unwrap();
        s.push(item_key(5, 1), &[100, 200, 1]).unwrap();
        let mut b = TableBuilder::new(Table::Lasers, V06, "d", i32::MIN, i32::MAX);
        b.snapshot(9, &s);
        let rows = b.take_rows();
        let schema = Table::Lasers.schema();
        let got: Vec<(String, i32, Value, Value)> = rows
            .rows()
            .map(|r| {
                let Value::Str(k) = &r[2] else { panic!() };
                let Value::I32(id) = r[3] else { panic!() };
                (
                    k.to_string(),
                    id,
                    r[schema.index_of("x").unwrap()].clone(),
                    r[schema.index_of("owner").unwrap()].clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("laser".into(), 2, Value::I32(6), Value::Null),
                ("ddnet_laser".into(), 2, Value::I32(10), Value::I32(1)),
                ("laser".into(), 7, Value::I32(1), Value::Null),
            ]
        );
        assert_eq!(rows.row(0)[schema.index_of("from_x").unwrap()], Value::Null);
        let mut b = TableBuilder::new(Table::Flags, V06, "d", i32::MIN, i32::MAX);
        b.snapshot(9, &s);
        let rows = b.take_rows();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            rows.row(0)[2..],
            [
                Value::Str("flag".into()),
                Value::I32(1),
                Value::I32(100),
                Value::I32(200),
                Value::I32(1)
            ]
        );
    }

    /// Message tables: a 0.6 broadcast and kill, each in its table only,
    /// and only in the tick range.
    #[test]
    fn message_rows() {
        let broadcast = [0x04, b'h', b'i', 0];
        let kill = [0x08, 1, 2, 3, 0];
        let mut rows = Vec::new();
        for table in [Table::Broadcasts, Table::Kills, Table::Chat] {
            let mut b = TableBuilder::new(table, V06, "d", 10, 20);
            for tick in [5, 10, 21] {
                b.message(tick, &broadcast);
                b.message(tick, &kill);
            }
            rows.push(b.take_rows());
        }
        assert_eq!(rows[0].len(), 1);
        assert_eq!(
            rows[0].row(0)[1..],
            [Value::I32(10), Value::Str("hi".into())]
        );
        assert_eq!(rows[1].len(), 1);
        assert_eq!(
            rows[1].row(0)[1..9],
            [
                Value::I32(10),
                Value::Str("kill".into()),
                Value::I32(1),
                Value::Null,
                Value::I32(2),
                Value::Null,
                Value::I32(3),
                Value::I32(0),
            ]
        );
        assert!(rows[2].is_empty());
    }

    #[test]
    fn positions_rows_from_a_snapshot() {
        let mut s = Snapshot::new();
        let mut ch = [0i32; 22];
        for (i, v) in ch.iter_mut().enumerate() {
            *v = i as i32 * 10;
        }
        s.push(item_key(9, 4), &ch).unwrap();
        s.push(item_key(9, 2), &ch[..3]).unwrap();
        let mut b = TableBuilder::new(Table::Positions, V06, "d.demo", 0, 100);
        b.snapshot(5, &s);
        b.snapshot(101, &s);
        let rows = b.take_rows();
        assert_eq!(rows.len(), 2);
        let schema = Table::Positions.schema();
        let r = rows.row(1);
        assert_eq!(r[2], Value::I32(4));
        assert_eq!(r[schema.index_of("x").unwrap()], Value::I32(10));
        assert_eq!(r[schema.index_of("attack_tick").unwrap()], Value::I32(210));
        assert_eq!(r[schema.index_of("triggered_events").unwrap()], Value::Null);
        // A short item: the ints it has, null for the rest.
        let r = rows.row(0);
        assert_eq!(r[2], Value::I32(2));
        assert_eq!(r[schema.index_of("y").unwrap()], Value::I32(20));
        assert_eq!(r[schema.index_of("vel_x").unwrap()], Value::Null);
        for (i, v) in r.iter().enumerate() {
            assert!(schema.accepts(i, v), "{i} {v:?}");
        }
    }
}
