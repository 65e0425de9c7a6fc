//! Message id → name tables of protocol 0.6/DDNet and 0.7, and the DDNet
//! extended messages.
//!
//! Sources: DDNet `src/engine/shared/protocol.h` (0.6 system ids; the ids
//! DDNet now calls `UNUSED*` carry their Teeworlds 0.6 names),
//! `protocol7.h` (0.7 system ids), `datasrc/network.py` of DDNet (0.6 game
//! ids and extended game messages) and of Teeworlds 0.7.5 (0.7 game ids),
//! `protocol_ex_msgs.h` (extended system messages).

use std::sync::OnceLock;

use uuid::Uuid;

use crate::codec::snapshot::uuid::uuid_from_name;
use crate::codec::snapshot::Protocol;

/// 0.6/DDNet system messages by id (0 is `NETMSG_EX`).
const SYSTEM_06: [&str; 27] = [
    "EX",
    "INFO",
    "MAP_CHANGE",
    "MAP_DATA",
    "CON_READY",
    "SNAP",
    "SNAPEMPTY",
    "SNAPSINGLE",
    "SNAPSMALL",
    "INPUTTIMING",
    "RCON_AUTH_STATUS",
    "RCON_LINE",
    "AUTH_CHALLENGE",
    "AUTH_RESULT",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "AUTH_START",
    "AUTH_RESPONSE",
    "PING",
    "PING_REPLY",
    "ERROR",
    "RCON_CMD_ADD",
    "RCON_CMD_REM",
];

/// 0.7 system messages by id (0 is `NETMSG_NULL`).
const SYSTEM_07: [&str; 31] = [
    "NULL",
    "INFO",
    "MAP_CHANGE",
    "MAP_DATA",
    "SERVERINFO",
    "CON_READY",
    "SNAP",
    "SNAPEMPTY",
    "SNAPSINGLE",
    "SNAPSMALL",
    "INPUTTIMING",
    "RCON_AUTH_ON",
    "RCON_AUTH_OFF",
    "RCON_LINE",
    "RCON_CMD_ADD",
    "RCON_CMD_REM",
    "AUTH_CHALLENGE",
    "AUTH_RESULT",
    "READY",
    "ENTERGAME",
    "INPUT",
    "RCON_CMD",
    "RCON_AUTH",
    "REQUEST_MAP_DATA",
    "AUTH_START",
    "AUTH_RESPONSE",
    "PING",
    "PING_REPLY",
    "ERROR",
    "MAPLIST_ENTRY_ADD",
    "MAPLIST_ENTRY_REM",
];

/// 0.6/DDNet game messages by id (0 is invalid / `NETMSG_EX`).
const GAME_06: [&str; 32] = [
    "",
    "Sv_Motd",
    "Sv_Broadcast",
    "Sv_Chat",
    "Sv_KillMsg",
    "Sv_SoundGlobal",
    "Sv_TuneParams",
    "Sv_ExtraProjectile",
    "Sv_ReadyToEnter",
    "Sv_WeaponPickup",
    "Sv_Emoticon",
    "Sv_VoteClearOptions",
    "Sv_VoteOptionListAdd",
    "Sv_VoteOptionAdd",
    "Sv_VoteOptionRemove",
    "Sv_VoteSet",
    "Sv_VoteStatus",
    "Cl_Say",
    "Cl_SetTeam",
    "Cl_SetSpectatorMode",
    "Cl_StartInfo",
    "Cl_ChangeInfo",
    "Cl_Kill",
    "Cl_Emoticon",
    "Cl_Vote",
    "Cl_CallVote",
    "Cl_IsDDNetLegacy",
    "Sv_DDRaceTimeLegacy",
    "Sv_RecordLegacy",
    "Unused2",
    "Sv_TeamsStateLegacy",
    "Cl_ShowOthersLegacy",
];

/// 0.7 game messages by id (0 is invalid).
const GAME_07: [&str; 40] = [
    "",
    "Sv_Motd",
    "Sv_Broadcast",
    "Sv_Chat",
    "Sv_Team",
    "Sv_KillMsg",
    "Sv_TuneParams",
    "Sv_ExtraProjectile",
    "Sv_ReadyToEnter",
    "Sv_WeaponPickup",
    "Sv_Emoticon",
    "Sv_VoteClearOptions",
    "Sv_VoteOptionListAdd",
    "Sv_VoteOptionAdd",
    "Sv_VoteOptionRemove",
    "Sv_VoteSet",
    "Sv_VoteStatus",
    "Sv_ServerSettings",
    "Sv_ClientInfo",
    "Sv_GameInfo",
    "Sv_ClientDrop",
    "Sv_GameMsg",
    "De_ClientEnter",
    "De_ClientLeave",
    "Cl_Say",
    "Cl_SetTeam",
    "Cl_SetSpectatorMode",
    "Cl_StartInfo",
    "Cl_Kill",
    "Cl_ReadyChange",
    "Cl_Emoticon",
    "Cl_Vote",
    "Cl_CallVote",
    "Sv_SkinChange",
    "Cl_SkinChange",
    "Sv_RaceFinish",
    "Sv_Checkpoint",
    "Sv_CommandInfo",
    "Sv_CommandInfoRemove",
    "Cl_Command",
];

/// (UUID name, code name, system) of DDNet's extended messages.
const EX_NAMES: [(&str, &str, bool); 45] = [
    // protocol_ex_msgs.h (system)
    ("what-is@ddnet.tw", "WHATIS", true),
    ("it-is@ddnet.tw", "ITIS", true),
    ("i-dont-know@ddnet.tw", "IDONTKNOW", true),
    ("rcon-type@ddnet.tw", "RCONTYPE", true),
    ("map-details@ddnet.tw", "MAP_DETAILS", true),
    ("capabilities@ddnet.tw", "CAPABILITIES", true),
    ("iamtater@sjrc6.github.io", "IAMTATER", true),
    ("clientver@ddnet.tw", "CLIENTVER", true),
    ("ping@ddnet.tw", "PINGEX", true),
    ("pong@ddnet.tw", "PONGEX", true),
    ("checksum-request@ddnet.tw", "CHECKSUM_REQUEST", true),
    ("checksum-response@ddnet.tw", "CHECKSUM_RESPONSE", true),
    ("checksum-error@ddnet.tw", "CHECKSUM_ERROR", true),
    ("redirect@ddnet.org", "REDIRECT", true),
    (
        "rcon-cmd-group-start@ddnet.org",
        "RCON_CMD_GROUP_START",
        true,
    ),
    ("rcon-cmd-group-end@ddnet.org", "RCON_CMD_GROUP_END", true),
    ("map-reload@ddnet.org", "MAP_RELOAD", true),
    ("reconnect@ddnet.org", "RECONNECT", true),
    ("sv-maplist-add@ddnet.org", "MAPLIST_ADD", true),
    ("sv-maplist-start@ddnet.org", "MAPLIST_GROUP_START", true),
    ("sv-maplist-end@ddnet.org", "MAPLIST_GROUP_END", true),
    // datasrc/network.py (game)
    ("my-own-message@heinrich5991.de", "Sv_MyOwnMessage", false),
    ("show-distance@netmsg.ddnet.tw", "Cl_ShowDistance", false),
    ("showothers@netmsg.ddnet.tw", "Cl_ShowOthers", false),
    ("camera-info@netmsg.ddnet.org", "Cl_CameraInfo", false),
    ("teamsstate@netmsg.ddnet.tw", "Sv_TeamsState", false),
    ("ddrace-time@netmsg.ddnet.tw", "Sv_DDRaceTime", false),
    ("record@netmsg.ddnet.tw", "Sv_Record", false),
    ("killmsgteam@netmsg.ddnet.tw", "Sv_KillMsgTeam", false),
    ("yourvote@netmsg.ddnet.org", "Sv_YourVote", false),
    ("racefinish@netmsg.ddnet.org", "Sv_RaceFinish", false),
    ("commandinfo@netmsg.ddnet.org", "Sv_CommandInfo", false),
    (
        "commandinfo-remove@netmsg.ddnet.org",
        "Sv_CommandInfoRemove",
        false,
    ),
    (
        "sv-vote-option-group-start@netmsg.ddnet.org",
        "Sv_VoteOptionGroupStart",
        false,
    ),
    (
        "sv-vote-option-group-end@netmsg.ddnet.org",
        "Sv_VoteOptionGroupEnd",
        false,
    ),
    (
        "sv-commandinfo-group-start@netmsg.ddnet.org",
        "Sv_CommandInfoGroupStart",
        false,
    ),
    (
        "sv-commandinfo-group-end@netmsg.ddnet.org",
        "Sv_CommandInfoGroupEnd",
        false,
    ),
    (
        "change-info-cooldown@netmsg.ddnet.org",
        "Sv_ChangeInfoCooldown",
        false,
    ),
    (
        "map-sound-global@netmsg.ddnet.org",
        "Sv_MapSoundGlobal",
        false,
    ),
    ("preinput@netmsg.ddnet.org", "Sv_PreInput", false),
    ("save-code@netmsg.ddnet.org", "Sv_SaveCode", false),
    ("server-alert@netmsg.ddnet.org", "Sv_ServerAlert", false),
    (
        "moderator-alert@netmsg.ddnet.org",
        "Sv_ModeratorAlert",
        false,
    ),
    (
        "enable-spectator-count@netmsg.ddnet.org",
        "Cl_EnableSpectatorCount",
        false,
    ),
    ("map-info@netmsg.ddnet.org", "Sv_MapInfo", false),
];

/// A DDNet extended message: UUID name, code name, UUID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExMessage {
    /// The name the UUID is made from, e.g. `racefinish@netmsg.ddnet.org`.
    pub uuid_name: &'static str,
    /// DDNet's name in code, e.g. `Sv_RaceFinish` or `MAP_DETAILS`.
    pub name: &'static str,
    /// Sent as a system message (`protocol_ex_msgs.h`) rather than a game
    /// message (`network.py`).
    pub system: bool,
    pub uuid: Uuid,
}

/// All known extended messages, UUIDs computed from their names on first
/// use.
pub fn ex_messages() -> &'static [ExMessage] {
    static TABLE: OnceLock<Vec<ExMessage>> = OnceLock::new();
    TABLE.get_or_init(|| {
        EX_NAMES
            .iter()
            .map(|&(uuid_name, name, system)| ExMessage {
                uuid_name,
                name,
                system,
                uuid: uuid_from_name(uuid_name),
            })
            .collect()
    })
}

/// The known extended message with this UUID.
pub fn lookup_ex(uuid: &Uuid) -> Option<&'static ExMessage> {
    ex_messages().iter().find(|m| m.uuid == *uuid)
}

/// The name of ordinal system message `id` (`id >= 1`) in `protocol`.
pub fn system_message_name(protocol: Protocol, id: u32) -> Option<&'static str> {
    let table: &[&str] = match protocol {
        Protocol::V06 => &SYSTEM_06,
        Protocol::V07 => &SYSTEM_07,
    };
    table
        .get(usize::try_from(id).ok()?)
        .copied()
        .filter(|_| id != 0)
}

/// The name of ordinal game message `id` (`id >= 1`) in `protocol`.
pub fn game_message_name(protocol: Protocol, id: u32) -> Option<&'static str> {
    let table: &[&str] = match protocol {
        Protocol::V06 => &GAME_06,
        Protocol::V07 => &GAME_07,
    };
    table
        .get(usize::try_from(id).ok()?)
        .copied()
        .filter(|_| id != 0)
}
