//! The protocol facts the item tables read: for each item type of each
//! protocol (or DDNet extended type), the column each data int goes to
//! ([`ItemLayout`]), and the names of code columns (weapons, emotes,
//! teams).

use super::Table;
use crate::codec::snapshot::Protocol;

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

impl ItemLayout {
    pub(crate) fn kind_name(&self) -> &'static str {
        match self.ty {
            TypeRef::Ex(name) => name,
            TypeRef::Ordinal(..) => self.kind,
        }
    }
}

impl Table {
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
}
