//! The pre-agreed item sizes and ordinal item type names of each protocol.
//!
//! A snapshot delta leaves out the `size` field of an item delta when both
//! ends agree on the size of items of that type. Which types are pre-agreed
//! depends on the protocol, which a demo names in its `net_version` header
//! string:
//!
//! - **0.6** (`0.6 626fce9a778df4d4`, Teeworlds 0.6 and DDNet): types 1..=20,
//!   the table in the appendix of snapshot.md. DDNet uses the same table; its
//!   extended (UUID) types and type 0 always carry an explicit size.
//! - **0.7** (`0.7 802f1be60a05665f`): types 1..=24 of Teeworlds 0.7's
//!   generated netobjects, including the `de_*` objects written into demos
//!   and the race objects added in 0.7.5. Note: the 0.7 table in snapshot.md
//!   gives `event_damage` 5 ints, but the generated protocol (and libtw2's
//!   `teeworlds-0.7` crate, against which the golden files were made) has 7:
//!   `x, y, client_id, angle, health_amount, armor_amount, self`.
//!
//! Sizes are in ints (4 bytes each), without the item key.

/// The snapshot protocol: decides the pre-agreed item size table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Teeworlds 0.6 / DDNet.
    V06,
    /// Teeworlds 0.7.
    V07,
}

/// `net_version` of Teeworlds 0.6 and DDNet demos.
pub(crate) const NET_VERSION_06: &str = "0.6 626fce9a778df4d4";
/// `net_version` of Teeworlds 0.7 demos.
pub(crate) const NET_VERSION_07: &str = "0.7 802f1be60a05665f";

/// Declares a protocol's ordinal item types once: the module of type id
/// constants (e.g. `v06::CHARACTER`) and the table of [`OrdinalType`]s
/// indexed by `type_id - 1`, which must number the types 1, 2, 3, … in
/// order, and name either none or all of a type's ints (both checked when
/// compiling).
macro_rules! item_types {
    (@fields) => { &[] };
    (@fields $fields:expr) => { &$fields };
    (
        $(#[$meta:meta])*
        $module:ident, $table:ident: [
            $($konst:ident = $id:literal: $size:literal, $name:literal $(, $fields:expr)?;)*
        ]
    ) => {
        $(#[$meta])*
        pub mod $module {
            $(
                #[doc = concat!("`", $name, "`")]
                pub const $konst: u16 = $id;
            )*
        }

        /// The item types by `type_id - 1`.
        const $table: &[OrdinalType] = &[$(OrdinalType {
            size: $size,
            name: $name,
            fields: item_types!(@fields $($fields)?),
        }),*];

        const _: () = {
            let ids: &[u16] = &[$($id),*];
            let mut i = 0;
            while i < ids.len() {
                assert!(ids[i] as usize == i + 1, "item types must be numbered 1, 2, 3, …");
                let t = &$table[i];
                assert!(
                    t.fields.is_empty() || t.fields.len() == t.size as usize,
                    "an item type names none or all of its ints"
                );
                i += 1;
            }
        };
    };
}

/// One ordinal item type of a protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrdinalType {
    /// The pre-agreed size in ints.
    pub size: u8,
    /// The protocol's name, e.g. `obj_character`.
    pub name: &'static str,
    /// The names of its ints, in order, as the protocol's generated
    /// netobjects name them (libtw2's and DDNet's `datasrc`), for the
    /// types teebatch's tables read; empty for the others.
    pub fields: &'static [&'static str],
}

/// The ints of `obj_character_core` (0.6 and 0.7 alike).
macro_rules! character_core {
    ($($more:literal),*) => {
        [
            "tick", "x", "y", "vel_x", "vel_y", "angle", "direction", "jumped",
            "hooked_player", "hook_state", "hook_tick", "hook_x", "hook_y", "hook_dx",
            "hook_dy", $($more),*
        ]
    };
}

// Ints several types share.
const XY: [&str; 2] = ["x", "y"];
const PROJECTILE_FIELDS: [&str; 6] = ["x", "y", "vel_x", "vel_y", "type", "start_tick"];
const LASER_FIELDS: [&str; 5] = ["x", "y", "from_x", "from_y", "start_tick"];
const FLAG_FIELDS: [&str; 3] = ["x", "y", "team"];

item_types! {
    /// The ordinal item type ids of 0.6 (types 1..=20).
    v06, TABLE_06: [
        PLAYER_INPUT = 1: 10, "obj_player_input";
        PROJECTILE = 2: 6, "obj_projectile", PROJECTILE_FIELDS;
        LASER = 3: 5, "obj_laser", LASER_FIELDS;
        PICKUP = 4: 4, "obj_pickup", ["x", "y", "type", "subtype"];
        FLAG = 5: 3, "obj_flag", FLAG_FIELDS;
        GAME_INFO = 6: 8, "obj_game_info", [
            "game_flags", "game_state_flags", "round_start_tick", "warmup_timer",
            "score_limit", "time_limit", "round_num", "round_current",
        ];
        GAME_DATA = 7: 4, "obj_game_data", [
            "teamscore_red", "teamscore_blue", "flag_carrier_red", "flag_carrier_blue",
        ];
        CHARACTER_CORE = 8: 15, "obj_character_core", character_core!();
        CHARACTER = 9: 22, "obj_character", character_core!(
            "player_flags", "health", "armor", "ammo_count", "weapon", "emote", "attack_tick"
        );
        PLAYER_INFO = 10: 5, "obj_player_info";
        CLIENT_INFO = 11: 17, "obj_client_info";
        SPECTATOR_INFO = 12: 3, "obj_spectator_info";
        EVENT_COMMON = 13: 2, "event_common", XY;
        EVENT_EXPLOSION = 14: 2, "event_explosion", XY;
        EVENT_SPAWN = 15: 2, "event_spawn", XY;
        EVENT_HAMMERHIT = 16: 2, "event_hammerhit", XY;
        EVENT_DEATH = 17: 3, "event_death", ["x", "y", "client_id"];
        EVENT_SOUND_GLOBAL = 18: 3, "event_sound_global", ["x", "y", "sound_id"];
        EVENT_SOUND_WORLD = 19: 3, "event_sound_world", ["x", "y", "sound_id"];
        EVENT_DAMAGE_INDICATOR = 20: 3, "event_damage_indicator", ["x", "y", "angle"];
    ]
}

item_types! {
    /// The ordinal item type ids of 0.7 (types 1..=24).
    v07, TABLE_07: [
        PLAYER_INPUT = 1: 10, "obj_player_input";
        PROJECTILE = 2: 6, "obj_projectile", PROJECTILE_FIELDS;
        LASER = 3: 5, "obj_laser", LASER_FIELDS;
        PICKUP = 4: 3, "obj_pickup", ["x", "y", "type"];
        FLAG = 5: 3, "obj_flag", FLAG_FIELDS;
        GAME_DATA = 6: 3, "obj_game_data", [
            "game_start_tick", "game_state_flags", "game_state_end_tick",
        ];
        GAME_DATA_TEAM = 7: 2, "obj_game_data_team", ["teamscore_red", "teamscore_blue"];
        GAME_DATA_FLAG = 8: 4, "obj_game_data_flag", [
            "flag_carrier_red", "flag_carrier_blue", "flag_drop_tick_red",
            "flag_drop_tick_blue",
        ];
        CHARACTER_CORE = 9: 15, "obj_character_core", character_core!();
        CHARACTER = 10: 22, "obj_character", character_core!(
            "health", "armor", "ammo_count", "weapon", "emote", "attack_tick",
            "triggered_events"
        );
        PLAYER_INFO = 11: 3, "obj_player_info";
        SPECTATOR_INFO = 12: 4, "obj_spectator_info";
        DE_CLIENT_INFO = 13: 58, "obj_de_client_info";
        DE_GAME_INFO = 14: 5, "obj_de_game_info", [
            "game_flags", "score_limit", "time_limit", "match_num", "match_current",
        ];
        DE_TUNE_PARAMS = 15: 32, "obj_de_tune_params";
        EVENT_COMMON = 16: 2, "event_common", XY;
        EVENT_EXPLOSION = 17: 2, "event_explosion", XY;
        EVENT_SPAWN = 18: 2, "event_spawn", XY;
        EVENT_HAMMER_HIT = 19: 2, "event_hammer_hit", XY;
        EVENT_DEATH = 20: 3, "event_death", ["x", "y", "client_id"];
        EVENT_SOUND_WORLD = 21: 3, "event_sound_world", ["x", "y", "sound_id"];
        EVENT_DAMAGE = 22: 7, "event_damage", [
            "x", "y", "client_id", "angle", "health_amount", "armor_amount", "self",
        ];
        PLAYER_INFO_RACE = 23: 1, "obj_player_info_race";
        GAME_DATA_RACE = 24: 3, "obj_game_data_race", ["best_time", "precision", "race_flags"];
    ]
}

/// Name of item type 0, which declares an extended (UUID) type (DDNet's
/// `NETOBJTYPE_EX`).
pub(crate) const TYPE_0_NAME: &str = "obj_ex";

impl Protocol {
    /// The protocol a demo's `net_version` header string names, if known.
    pub fn from_net_version(net_version: &str) -> Option<Protocol> {
        match net_version {
            NET_VERSION_06 => Some(Protocol::V06),
            NET_VERSION_07 => Some(Protocol::V07),
            _ => None,
        }
    }

    /// The `net_version` string of this protocol.
    pub fn net_version(self) -> &'static str {
        match self {
            Protocol::V06 => NET_VERSION_06,
            Protocol::V07 => NET_VERSION_07,
        }
    }

    const fn table(self) -> &'static [OrdinalType] {
        match self {
            Protocol::V06 => TABLE_06,
            Protocol::V07 => TABLE_07,
        }
    }

    /// The ordinal item type `type_id`, if the protocol has it.
    pub const fn item_type(self, type_id: u16) -> Option<&'static OrdinalType> {
        let t = self.table();
        if type_id == 0 || type_id as usize > t.len() {
            return None;
        }
        Some(&t[type_id as usize - 1])
    }

    /// The pre-agreed size in ints of items of `type_id`, or `None` when item
    /// deltas of that type carry an explicit size.
    #[inline]
    pub fn static_size(self, type_id: u32) -> Option<usize> {
        let i = (type_id as usize).checked_sub(1)?;
        self.table().get(i).map(|t| t.size as usize)
    }

    /// The name of ordinal (non-extended) item type `type_id` (e.g.
    /// `obj_character`), or `None` for unknown and extended types.
    pub fn item_name(self, type_id: u32) -> Option<&'static str> {
        if type_id == 0 {
            return Some(TYPE_0_NAME);
        }
        let i = (type_id as usize).checked_sub(1)?;
        self.table().get(i).map(|t| t.name)
    }

    /// All pre-agreed `(type_id, size in ints)` pairs, in type order.
    pub fn static_sizes(self) -> impl ExactSizeIterator<Item = (u32, usize)> {
        self.table()
            .iter()
            .enumerate()
            .map(|(i, t)| (i as u32 + 1, t.size as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables() {
        assert_eq!(
            Protocol::from_net_version("0.6 626fce9a778df4d4"),
            Some(Protocol::V06)
        );
        assert_eq!(
            Protocol::from_net_version("0.7 802f1be60a05665f"),
            Some(Protocol::V07)
        );
        assert_eq!(Protocol::from_net_version("0.6"), None);
        assert_eq!(Protocol::V06.static_size(0), None);
        assert_eq!(Protocol::V06.static_size(9), Some(22));
        assert_eq!(Protocol::V06.static_size(20), Some(3));
        assert_eq!(Protocol::V06.static_size(21), None);
        assert_eq!(Protocol::V07.static_size(4), Some(3));
        assert_eq!(Protocol::V07.static_size(13), Some(58));
        assert_eq!(Protocol::V07.static_size(22), Some(7));
        assert_eq!(Protocol::V07.static_size(24), Some(3));
        assert_eq!(Protocol::V07.static_size(25), None);
        assert_eq!(Protocol::V07.static_size(0x7fff), None);
        assert_eq!(Protocol::V06.item_name(9), Some("obj_character"));
        assert_eq!(Protocol::V07.item_name(14), Some("obj_de_game_info"));
        assert_eq!(Protocol::V07.item_name(0), Some("obj_ex"));
        assert_eq!(Protocol::V07.item_name(25), None);
        assert_eq!(Protocol::V06.static_sizes().len(), 20);
        let character = Protocol::V07.item_type(v07::CHARACTER).unwrap();
        assert_eq!(character.name, "obj_character");
        assert_eq!(character.fields[0], "tick");
        assert_eq!(character.fields[15], "health");
        assert_eq!(character.fields[21], "triggered_events");
        assert_eq!(
            Protocol::V06.item_type(v06::CHARACTER).unwrap().fields[15],
            "player_flags"
        );
        assert!(Protocol::V06
            .item_type(v06::CLIENT_INFO)
            .unwrap()
            .fields
            .is_empty());
        assert_eq!(Protocol::V06.item_type(0), None);
        assert_eq!(Protocol::V06.item_type(21), None);
    }
}
