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
/// of int `i` (ints past the list are not exported). Ordinal types take
/// their fields from the protocol's table
/// ([`OrdinalType::fields`](crate::codec::snapshot::OrdinalType::fields));
/// a field may go to a column of another name ([`ItemLayout::rename`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemLayout {
    pub ty: TypeRef,
    /// The `kind` column of the row (item tables other than `positions`).
    pub kind: &'static str,
    pub fields: &'static [&'static str],
    /// (field, column): the field that goes to a column of another name.
    pub rename: Option<(&'static str, &'static str)>,
}

/// The layout of ordinal type `t` of protocol `p`: all its ints, named as
/// the protocol's table names them (a type the table names no ints of
/// fails to compile).
const fn ord(p: Protocol, t: u16, kind: &'static str) -> ItemLayout {
    let fields = match p.item_type(t) {
        Some(ty) => ty.fields,
        None => panic!("no such item type"),
    };
    assert!(!fields.is_empty(), "the item type's ints have no names");
    ItemLayout {
        ty: TypeRef::Ordinal(p, t),
        kind,
        fields,
        rename: None,
    }
}

const fn ex(name: &'static str, kind: &'static str, fields: &'static [&'static str]) -> ItemLayout {
    ItemLayout {
        ty: TypeRef::Ex(name),
        kind,
        fields,
        rename: None,
    }
}

impl ItemLayout {
    /// The table column of each int, in order.
    pub fn columns(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.fields.iter().map(|&f| match self.rename {
            Some((from, to)) if f == from => to,
            _ => f,
        })
    }
}

use crate::codec::snapshot::{v06, v07};
use Protocol::{V06, V07};

/// The character columns of `positions`, in order: the character core
/// (its `tick` field as `core_tick`), then the rest of the 0.6 and 0.7
/// character items (the 0.6 order, then 0.7's `triggered_events`; checked
/// against the two layouts by a test).
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

/// A character item: its core's `tick` is the `core_tick` column (`tick`
/// is the row's).
const fn character(p: Protocol, t: u16) -> ItemLayout {
    ItemLayout {
        rename: Some(("tick", "core_tick")),
        ..ord(p, t, "character")
    }
}

const CHARACTER_LAYOUTS: &[ItemLayout] = &[
    character(V06, v06::CHARACTER),
    character(V07, v07::CHARACTER),
];

pub(crate) const DDNET_CHARACTER_LAYOUT: ItemLayout =
    ex("DDNetCharacter", "ddnet_character", &DDNET_CHARACTER);

const PROJECTILES: &[ItemLayout] = &[
    ord(V06, v06::PROJECTILE, "projectile"),
    ord(V07, v07::PROJECTILE, "projectile"),
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

const LASERS: &[ItemLayout] = &[
    ord(V06, v06::LASER, "laser"),
    ord(V07, v07::LASER, "laser"),
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
    ord(V06, v06::PICKUP, "pickup"),
    ord(V07, v07::PICKUP, "pickup"),
    ex(
        "DDNetPickup",
        "ddnet_pickup",
        &["x", "y", "type", "subtype", "switch_number", "flags"],
    ),
];

const FLAGS: &[ItemLayout] = &[ord(V06, v06::FLAG, "flag"), ord(V07, v07::FLAG, "flag")];

const GAME: &[ItemLayout] = &[
    ord(V06, v06::GAME_INFO, "game_info"),
    ord(V06, v06::GAME_DATA, "game_data"),
    ord(V07, v07::GAME_DATA, "game_data"),
    ord(V07, v07::GAME_DATA_TEAM, "game_data_team"),
    ord(V07, v07::GAME_DATA_FLAG, "game_data_flag"),
    ord(V07, v07::DE_GAME_INFO, "de_game_info"),
    ord(V07, v07::GAME_DATA_RACE, "game_data_race"),
    ex(
        "GameInfoEx",
        "game_info_ex",
        &["ex_flags", "ex_version", "ex_flags2"],
    ),
];

const XY: &[&str] = &["x", "y"];
const EVENTS: &[ItemLayout] = &[
    ord(V06, v06::EVENT_EXPLOSION, "explosion"),
    ord(V06, v06::EVENT_SPAWN, "spawn"),
    ord(V06, v06::EVENT_HAMMERHIT, "hammer_hit"),
    ord(V06, v06::EVENT_DEATH, "death"),
    ord(V06, v06::EVENT_SOUND_GLOBAL, "sound_global"),
    ord(V06, v06::EVENT_SOUND_WORLD, "sound_world"),
    ord(V06, v06::EVENT_DAMAGE_INDICATOR, "damage_indicator"),
    ord(V07, v07::EVENT_EXPLOSION, "explosion"),
    ord(V07, v07::EVENT_SPAWN, "spawn"),
    ord(V07, v07::EVENT_HAMMER_HIT, "hammer_hit"),
    ord(V07, v07::EVENT_DEATH, "death"),
    ord(V07, v07::EVENT_SOUND_WORLD, "sound_world"),
    ord(V07, v07::EVENT_DAMAGE, "damage"),
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
