//! The message table: every known message once ([`NetMsg`]), with its
//! space (system or game), its ordinal id in protocol 0.6/DDNet and in 0.7,
//! and, for DDNet's extended messages, the name its UUID is made from.
//! The by-id tables and the extended message list are built from it.
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

/// Declares [`NetMsg`] from one row per message:
/// `NAME: space, 0.6 id, 0.7 id, extended UUID name;` (`_` where none).
/// The variant's identifier is the protocol's name (`NETMSG_*` without the
/// prefix for system messages, `network.py` names for game messages).
macro_rules! net_msgs {
    (@opt _) => { None };
    (@opt $v:literal) => { Some($v) };
    (@system system) => { true };
    (@system game) => { false };
    ($($name:ident: $space:ident, $v06:tt, $v07:tt, $ex:tt;)*) => {
        /// A known message of protocol 0.6/DDNet, 0.7 or the DDNet
        /// extensions: one row of the message table. Id 0 (DDNet
        /// `NETMSG_EX`, 0.7 `NETMSG_NULL`) is no message.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum NetMsg {
            $(
                #[doc = concat!("`", stringify!($name), "`.")]
                $name,
            )*
        }

        impl NetMsg {
            /// Every known message, in table order.
            pub const ALL: &'static [NetMsg] = &[$(NetMsg::$name,)*];

            /// The message's name (`MAP_CHANGE`, `Sv_Chat`, `MAP_DETAILS`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(NetMsg::$name => stringify!($name),)*
                }
            }

            /// Sent as a system message rather than a game message.
            pub const fn system(self) -> bool {
                match self {
                    $(NetMsg::$name => net_msgs!(@system $space),)*
                }
            }

            /// The message's ordinal id in `protocol`, if it has one.
            pub const fn ordinal(self, protocol: Protocol) -> Option<u32> {
                match protocol {
                    Protocol::V06 => match self {
                        $(NetMsg::$name => net_msgs!(@opt $v06),)*
                    },
                    Protocol::V07 => match self {
                        $(NetMsg::$name => net_msgs!(@opt $v07),)*
                    },
                }
            }

            /// The name the UUID of a DDNet extended message is made from
            /// (`racefinish@netmsg.ddnet.org`).
            pub const fn uuid_name(self) -> Option<&'static str> {
                match self {
                    $(NetMsg::$name => net_msgs!(@opt $ex),)*
                }
            }
        }
    };
}

// Sources as in the module docs; system ids from `protocol.h` /
// `protocol7.h`, game ids from `network.py`, extended messages from
// `protocol_ex_msgs.h` (system) and `network.py` (game).
net_msgs! {
    INFO: system, 1, 1, _;
    MAP_CHANGE: system, 2, 2, _;
    MAP_DATA: system, 3, 3, _;
    CON_READY: system, 4, 5, _;
    SNAP: system, 5, 6, _;
    SNAPEMPTY: system, 6, 7, _;
    SNAPSINGLE: system, 7, 8, _;
    SNAPSMALL: system, 8, 9, _;
    INPUTTIMING: system, 9, 10, _;
    RCON_AUTH_STATUS: system, 10, _, _;
    RCON_LINE: system, 11, 13, _;
    AUTH_CHALLENGE: system, 12, 16, _;
    AUTH_RESULT: system, 13, 17, _;
    READY: system, 14, 18, _;
    ENTERGAME: system, 15, 19, _;
    INPUT: system, 16, 20, _;
    RCON_CMD: system, 17, 21, _;
    RCON_AUTH: system, 18, 22, _;
    REQUEST_MAP_DATA: system, 19, 23, _;
    AUTH_START: system, 20, 24, _;
    AUTH_RESPONSE: system, 21, 25, _;
    PING: system, 22, 26, _;
    PING_REPLY: system, 23, 27, _;
    ERROR: system, 24, 28, _;
    RCON_CMD_ADD: system, 25, 14, _;
    RCON_CMD_REM: system, 26, 15, _;
    SERVERINFO: system, _, 4, _;
    RCON_AUTH_ON: system, _, 11, _;
    RCON_AUTH_OFF: system, _, 12, _;
    MAPLIST_ENTRY_ADD: system, _, 29, _;
    MAPLIST_ENTRY_REM: system, _, 30, _;
    Sv_Motd: game, 1, 1, _;
    Sv_Broadcast: game, 2, 2, _;
    Sv_Chat: game, 3, 3, _;
    Sv_KillMsg: game, 4, 5, _;
    Sv_SoundGlobal: game, 5, _, _;
    Sv_TuneParams: game, 6, 6, _;
    Sv_ExtraProjectile: game, 7, 7, _;
    Sv_ReadyToEnter: game, 8, 8, _;
    Sv_WeaponPickup: game, 9, 9, _;
    Sv_Emoticon: game, 10, 10, _;
    Sv_VoteClearOptions: game, 11, 11, _;
    Sv_VoteOptionListAdd: game, 12, 12, _;
    Sv_VoteOptionAdd: game, 13, 13, _;
    Sv_VoteOptionRemove: game, 14, 14, _;
    Sv_VoteSet: game, 15, 15, _;
    Sv_VoteStatus: game, 16, 16, _;
    Cl_Say: game, 17, 24, _;
    Cl_SetTeam: game, 18, 25, _;
    Cl_SetSpectatorMode: game, 19, 26, _;
    Cl_StartInfo: game, 20, 27, _;
    Cl_ChangeInfo: game, 21, _, _;
    Cl_Kill: game, 22, 28, _;
    Cl_Emoticon: game, 23, 30, _;
    Cl_Vote: game, 24, 31, _;
    Cl_CallVote: game, 25, 32, _;
    Cl_IsDDNetLegacy: game, 26, _, _;
    Sv_DDRaceTimeLegacy: game, 27, _, _;
    Sv_RecordLegacy: game, 28, _, _;
    Unused2: game, 29, _, _;
    Sv_TeamsStateLegacy: game, 30, _, _;
    Cl_ShowOthersLegacy: game, 31, _, _;
    Sv_Team: game, _, 4, _;
    Sv_ServerSettings: game, _, 17, _;
    Sv_ClientInfo: game, _, 18, _;
    Sv_GameInfo: game, _, 19, _;
    Sv_ClientDrop: game, _, 20, _;
    Sv_GameMsg: game, _, 21, _;
    De_ClientEnter: game, _, 22, _;
    De_ClientLeave: game, _, 23, _;
    Cl_ReadyChange: game, _, 29, _;
    Sv_SkinChange: game, _, 33, _;
    Cl_SkinChange: game, _, 34, _;
    Sv_RaceFinish: game, _, 35, "racefinish@netmsg.ddnet.org";
    Sv_Checkpoint: game, _, 36, _;
    Sv_CommandInfo: game, _, 37, "commandinfo@netmsg.ddnet.org";
    Sv_CommandInfoRemove: game, _, 38, "commandinfo-remove@netmsg.ddnet.org";
    Cl_Command: game, _, 39, _;
    WHATIS: system, _, _, "what-is@ddnet.tw";
    ITIS: system, _, _, "it-is@ddnet.tw";
    IDONTKNOW: system, _, _, "i-dont-know@ddnet.tw";
    RCONTYPE: system, _, _, "rcon-type@ddnet.tw";
    MAP_DETAILS: system, _, _, "map-details@ddnet.tw";
    CAPABILITIES: system, _, _, "capabilities@ddnet.tw";
    IAMTATER: system, _, _, "iamtater@sjrc6.github.io";
    CLIENTVER: system, _, _, "clientver@ddnet.tw";
    PINGEX: system, _, _, "ping@ddnet.tw";
    PONGEX: system, _, _, "pong@ddnet.tw";
    CHECKSUM_REQUEST: system, _, _, "checksum-request@ddnet.tw";
    CHECKSUM_RESPONSE: system, _, _, "checksum-response@ddnet.tw";
    CHECKSUM_ERROR: system, _, _, "checksum-error@ddnet.tw";
    REDIRECT: system, _, _, "redirect@ddnet.org";
    RCON_CMD_GROUP_START: system, _, _, "rcon-cmd-group-start@ddnet.org";
    RCON_CMD_GROUP_END: system, _, _, "rcon-cmd-group-end@ddnet.org";
    MAP_RELOAD: system, _, _, "map-reload@ddnet.org";
    RECONNECT: system, _, _, "reconnect@ddnet.org";
    MAPLIST_ADD: system, _, _, "sv-maplist-add@ddnet.org";
    MAPLIST_GROUP_START: system, _, _, "sv-maplist-start@ddnet.org";
    MAPLIST_GROUP_END: system, _, _, "sv-maplist-end@ddnet.org";
    Sv_MyOwnMessage: game, _, _, "my-own-message@heinrich5991.de";
    Cl_ShowDistance: game, _, _, "show-distance@netmsg.ddnet.tw";
    Cl_ShowOthers: game, _, _, "showothers@netmsg.ddnet.tw";
    Cl_CameraInfo: game, _, _, "camera-info@netmsg.ddnet.org";
    Sv_TeamsState: game, _, _, "teamsstate@netmsg.ddnet.tw";
    Sv_DDRaceTime: game, _, _, "ddrace-time@netmsg.ddnet.tw";
    Sv_Record: game, _, _, "record@netmsg.ddnet.tw";
    Sv_KillMsgTeam: game, _, _, "killmsgteam@netmsg.ddnet.tw";
    Sv_YourVote: game, _, _, "yourvote@netmsg.ddnet.org";
    Sv_VoteOptionGroupStart: game, _, _, "sv-vote-option-group-start@netmsg.ddnet.org";
    Sv_VoteOptionGroupEnd: game, _, _, "sv-vote-option-group-end@netmsg.ddnet.org";
    Sv_CommandInfoGroupStart: game, _, _, "sv-commandinfo-group-start@netmsg.ddnet.org";
    Sv_CommandInfoGroupEnd: game, _, _, "sv-commandinfo-group-end@netmsg.ddnet.org";
    Sv_ChangeInfoCooldown: game, _, _, "change-info-cooldown@netmsg.ddnet.org";
    Sv_MapSoundGlobal: game, _, _, "map-sound-global@netmsg.ddnet.org";
    Sv_PreInput: game, _, _, "preinput@netmsg.ddnet.org";
    Sv_SaveCode: game, _, _, "save-code@netmsg.ddnet.org";
    Sv_ServerAlert: game, _, _, "server-alert@netmsg.ddnet.org";
    Sv_ModeratorAlert: game, _, _, "moderator-alert@netmsg.ddnet.org";
    Cl_EnableSpectatorCount: game, _, _, "enable-spectator-count@netmsg.ddnet.org";
    Sv_MapInfo: game, _, _, "map-info@netmsg.ddnet.org";
}

impl NetMsg {
    /// The message named `name`, if known.
    pub fn from_name(name: &str) -> Option<NetMsg> {
        NetMsg::ALL.iter().copied().find(|m| m.name() == name)
    }

    /// The ordinal message `id` (`id >= 1`) of space `system` in
    /// `protocol`.
    pub fn of_ordinal(protocol: Protocol, system: bool, id: u32) -> Option<NetMsg> {
        let table: &[Option<NetMsg>] = match (protocol, system) {
            (Protocol::V06, true) => &SYSTEM_06,
            (Protocol::V07, true) => &SYSTEM_07,
            (Protocol::V06, false) => &GAME_06,
            (Protocol::V07, false) => &GAME_07,
        };
        *table.get(usize::try_from(id).ok()?)?
    }
}

/// The ordinal messages of one space of `protocol` by id (index 0, the
/// extended message marker, is none). An id past `N` fails to compile.
const fn by_ordinal<const N: usize>(protocol: Protocol, system: bool) -> [Option<NetMsg>; N] {
    let mut table = [None; N];
    let mut i = 0;
    while i < NetMsg::ALL.len() {
        let m = NetMsg::ALL[i];
        if m.system() == system {
            if let Some(id) = m.ordinal(protocol) {
                table[id as usize] = Some(m);
            }
        }
        i += 1;
    }
    table
}

/// 0.6/DDNet system messages by id.
static SYSTEM_06: [Option<NetMsg>; 27] = by_ordinal(Protocol::V06, true);
/// 0.7 system messages by id.
static SYSTEM_07: [Option<NetMsg>; 31] = by_ordinal(Protocol::V07, true);
/// 0.6/DDNet game messages by id.
static GAME_06: [Option<NetMsg>; 32] = by_ordinal(Protocol::V06, false);
/// 0.7 game messages by id.
static GAME_07: [Option<NetMsg>; 40] = by_ordinal(Protocol::V07, false);

/// A DDNet extended message: UUID name, code name, UUID.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExMessage {
    /// The message's row in the table.
    pub msg: NetMsg,
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
        NetMsg::ALL
            .iter()
            .filter_map(|&msg| {
                let uuid_name = msg.uuid_name()?;
                Some(ExMessage {
                    msg,
                    uuid_name,
                    name: msg.name(),
                    system: msg.system(),
                    uuid: uuid_from_name(uuid_name),
                })
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
    NetMsg::of_ordinal(protocol, true, id).map(NetMsg::name)
}

/// The name of ordinal game message `id` (`id >= 1`) in `protocol`.
pub fn game_message_name(protocol: Protocol, id: u32) -> Option<&'static str> {
    NetMsg::of_ordinal(protocol, false, id).map(NetMsg::name)
}
