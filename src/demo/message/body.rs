//! The decoded fields of the messages this crate reads ([`Body`]), and the
//! decoder of each, chosen by [`NetMsg`].

use std::borrow::Cow;

use super::{MessageError, NetMsg, Sanitize, Unpacker};
use crate::codec::snapshot::Protocol;

/// How a chat line is addressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChatMode {
    /// To everyone (0.6 team 0, 0.7 mode 1).
    All,
    /// To the sender's team (0.6 team 1, 0.7 mode 2).
    Team,
    /// A whisper (0.7 mode 3; `target_id` says to whom).
    Whisper,
    /// DDNet 0.6: a whisper this client sent (team 2).
    WhisperSent,
    /// DDNet 0.6: a whisper this client received (team 3).
    WhisperReceived,
    /// Any other value.
    Other(i32),
}

impl ChatMode {
    /// The mode of a 0.6 `m_Team` or 0.7 `m_Mode` value.
    pub(crate) fn from_raw(protocol: Protocol, raw: i32) -> ChatMode {
        match (protocol, raw) {
            (Protocol::V06, 0) | (Protocol::V07, 1) => ChatMode::All,
            (Protocol::V06, 1) | (Protocol::V07, 2) => ChatMode::Team,
            (Protocol::V06, 2) => ChatMode::WhisperSent,
            (Protocol::V06, 3) => ChatMode::WhisperReceived,
            (Protocol::V07, 3) => ChatMode::Whisper,
            (_, v) => ChatMode::Other(v),
        }
    }
}

/// `Sv_Chat`: 0.6 (team, client id, text) or 0.7 (mode, client id, target
/// id, text). `client_id` is -1 for server messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chat<'a> {
    pub mode: ChatMode,
    /// The 0.6 `m_Team` / 0.7 `m_Mode` value as sent.
    pub raw_mode: i32,
    pub client_id: i32,
    /// 0.7 only: the whisper target (-1 otherwise).
    pub target_id: Option<i32>,
    pub text: Cow<'a, str>,
}

/// `Sv_KillMsg` (same fields in 0.6 and 0.7; 0.7 allows killer -2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KillMsg {
    pub killer: i32,
    pub victim: i32,
    /// Weapon index, or -1 world, -2 self, -3 game.
    pub weapon: i32,
    pub mode_special: i32,
}

/// 0.7 `Sv_ClientInfo`: the player's name and looks (0.7 servers send
/// names by message, not in snapshots).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientInfo<'a> {
    pub client_id: i32,
    pub local: bool,
    pub team: i32,
    pub name: Cow<'a, str>,
    pub clan: Cow<'a, str>,
    pub country: i32,
    /// body, marking, decoration, hands, feet, eyes.
    pub skin_parts: [Cow<'a, str>; 6],
    pub use_custom_colors: [bool; 6],
    pub skin_part_colors: [i32; 6],
    pub silent: bool,
}

/// `MAP_CHANGE` (system): 0.6 has name, CRC and size; 0.7 adds the
/// download window, chunk size and the map's SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapChange<'a> {
    pub name: Cow<'a, str>,
    pub crc: u32,
    pub size: i32,
    pub chunk_num: Option<i32>,
    pub chunk_size: Option<i32>,
    pub sha256: Option<[u8; 32]>,
}

/// DDNet `MAP_DETAILS` (system, extended): name, SHA-256, CRC, size and,
/// since DDNet 16, a download URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapDetails<'a> {
    pub name: Cow<'a, str>,
    pub sha256: [u8; 32],
    pub crc: u32,
    pub size: i32,
    pub url: Option<Cow<'a, str>>,
}

/// The decoded fields of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    /// `Sv_Chat`.
    Chat(Chat<'a>),
    /// `Sv_Broadcast`.
    Broadcast { text: Cow<'a, str> },
    /// `Sv_Motd`.
    Motd { text: Cow<'a, str> },
    /// `Sv_KillMsg`.
    KillMsg(KillMsg),
    /// `Sv_Emoticon`.
    Emoticon { client_id: i32, emoticon: i32 },
    /// `Sv_SoundGlobal` (0.6).
    SoundGlobal { sound_id: i32 },
    /// `Sv_WeaponPickup`.
    WeaponPickup { weapon: i32 },
    /// `Sv_VoteStatus`.
    VoteStatus {
        yes: i32,
        no: i32,
        pass: i32,
        total: i32,
    },
    /// 0.7 `Sv_Team`: a player moved to a team.
    Team {
        client_id: i32,
        team: i32,
        silent: bool,
        cooldown_tick: i32,
    },
    /// 0.7 `Sv_ServerSettings`.
    ServerSettings {
        kick_vote: bool,
        kick_min: i32,
        spec_vote: bool,
        team_lock: bool,
        team_balance: bool,
        player_slots: i32,
    },
    /// 0.7 `Sv_ClientInfo`.
    ClientInfo(Box<ClientInfo<'a>>),
    /// 0.7 `Sv_GameInfo`.
    GameInfo {
        game_flags: i32,
        score_limit: i32,
        time_limit: i32,
        match_num: i32,
        match_current: i32,
    },
    /// 0.7 `Sv_ClientDrop`: a player left.
    ClientDrop {
        client_id: i32,
        reason: Cow<'a, str>,
        silent: bool,
    },
    /// 0.7 `Sv_GameMsg`: a game message id; its parameters (0 to 3 ints,
    /// depending on the id) stay packed in `params`.
    GameMsg { game_msg_id: i32, params: &'a [u8] },
    /// 0.7 `De_ClientEnter` (written into demos by the 0.7 client).
    ClientEnter {
        name: Cow<'a, str>,
        client_id: i32,
        team: i32,
    },
    /// 0.7 `De_ClientLeave`.
    ClientLeave {
        name: Cow<'a, str>,
        client_id: i32,
        reason: Cow<'a, str>,
    },
    /// `Sv_RaceFinish` (DDNet extended, 0.7 ordinal 35).
    RaceFinish {
        client_id: i32,
        /// Milliseconds.
        time: i32,
        diff: i32,
        record_personal: bool,
        /// Absent in older senders.
        record_server: Option<bool>,
    },
    /// 0.7 `Sv_Checkpoint`.
    Checkpoint { diff: i32 },
    /// DDNet `Sv_DDRaceTime` (extended) and `Sv_DDRaceTimeLegacy`.
    DdraceTime { time: i32, check: i32, finish: i32 },
    /// DDNet `Sv_Record` (extended) and `Sv_RecordLegacy`.
    Record {
        server_time_best: i32,
        player_time_best: i32,
    },
    /// DDNet `Sv_KillMsgTeam` (extended): a whole DDRace team died.
    KillMsgTeam { team: i32, first: i32 },
    /// `MAP_CHANGE` (system).
    MapChange(MapChange<'a>),
    /// DDNet `MAP_DETAILS` (system, extended).
    MapDetails(MapDetails<'a>),
    /// Fields not decoded here (or an unknown id): the bytes after the
    /// header (and UUID), padding included.
    Raw(&'a [u8]),
}

/// The messages whose body [`decode_body`] reads (any other message's
/// body is [`Body::Raw`]).
pub(super) const BODIES: [NetMsg; 25] = [
    NetMsg::Sv_Chat,
    NetMsg::Sv_Broadcast,
    NetMsg::Sv_Motd,
    NetMsg::Sv_KillMsg,
    NetMsg::Sv_Emoticon,
    NetMsg::Sv_SoundGlobal,
    NetMsg::Sv_WeaponPickup,
    NetMsg::Sv_VoteStatus,
    NetMsg::Sv_Team,
    NetMsg::Sv_ServerSettings,
    NetMsg::Sv_ClientInfo,
    NetMsg::Sv_GameInfo,
    NetMsg::Sv_ClientDrop,
    NetMsg::Sv_GameMsg,
    NetMsg::De_ClientEnter,
    NetMsg::De_ClientLeave,
    NetMsg::Sv_RaceFinish,
    NetMsg::Sv_Checkpoint,
    NetMsg::Sv_DDRaceTime,
    NetMsg::Sv_DDRaceTimeLegacy,
    NetMsg::Sv_Record,
    NetMsg::Sv_RecordLegacy,
    NetMsg::Sv_KillMsgTeam,
    NetMsg::MAP_CHANGE,
    NetMsg::MAP_DETAILS,
];

/// [`BODIES`] by [`NetMsg`] discriminant, built once at compile time
/// (most messages, such as the `Sv_TuneParams` of every tick, have no
/// body read here, and are told apart in one load).
const HAS_BODY: [bool; NetMsg::ALL.len()] = {
    let mut has = [false; NetMsg::ALL.len()];
    let mut i = 0;
    while i < BODIES.len() {
        has[BODIES[i] as usize] = true;
        i += 1;
    }
    has
};

/// Whether [`decode_body`] reads the body of `msg`.
#[inline]
pub(super) fn has_body(msg: NetMsg) -> bool {
    HAS_BODY[msg as usize]
}

pub(super) fn decode_body<'a>(
    msg: NetMsg,
    protocol: Protocol,
    u: &mut Unpacker<'a, '_>,
) -> Result<Body<'a>, MessageError> {
    Ok(match msg {
        NetMsg::Sv_Chat => {
            let raw_mode = u.int()?;
            let client_id = u.int()?;
            let target_id = match protocol {
                Protocol::V06 => None,
                Protocol::V07 => Some(u.int()?),
            };
            Body::Chat(Chat {
                mode: ChatMode::from_raw(protocol, raw_mode),
                raw_mode,
                client_id,
                target_id,
                text: u.string()?,
            })
        }
        NetMsg::Sv_Broadcast => Body::Broadcast {
            text: u.string_opts(Sanitize::KeepWhitespace)?,
        },
        NetMsg::Sv_Motd => Body::Motd {
            text: u.string_opts(Sanitize::KeepWhitespace)?,
        },
        NetMsg::Sv_KillMsg => {
            let [killer, victim, weapon, mode_special] = u.ints()?;
            Body::KillMsg(KillMsg {
                killer,
                victim,
                weapon,
                mode_special,
            })
        }
        NetMsg::Sv_Emoticon => {
            let [client_id, emoticon] = u.ints()?;
            Body::Emoticon {
                client_id,
                emoticon,
            }
        }
        NetMsg::Sv_SoundGlobal => Body::SoundGlobal { sound_id: u.int()? },
        NetMsg::Sv_WeaponPickup => Body::WeaponPickup { weapon: u.int()? },
        NetMsg::Sv_VoteStatus => {
            let [yes, no, pass, total] = u.ints()?;
            Body::VoteStatus {
                yes,
                no,
                pass,
                total,
            }
        }
        NetMsg::Sv_Team => Body::Team {
            client_id: u.int()?,
            team: u.int()?,
            silent: u.bool()?,
            cooldown_tick: u.int()?,
        },
        NetMsg::Sv_ServerSettings => Body::ServerSettings {
            kick_vote: u.bool()?,
            kick_min: u.int()?,
            spec_vote: u.bool()?,
            team_lock: u.bool()?,
            team_balance: u.bool()?,
            player_slots: u.int()?,
        },
        NetMsg::Sv_ClientInfo => {
            let client_id = u.int()?;
            let local = u.bool()?;
            let team = u.int()?;
            let name = u.string()?;
            let clan = u.string()?;
            let country = u.int()?;
            let skin_parts = [
                u.string()?,
                u.string()?,
                u.string()?,
                u.string()?,
                u.string()?,
                u.string()?,
            ];
            let use_custom_colors = u.ints::<6>()?.map(|v| v != 0);
            let skin_part_colors = u.ints()?;
            let silent = u.bool()?;
            Body::ClientInfo(Box::new(ClientInfo {
                client_id,
                local,
                team,
                name,
                clan,
                country,
                skin_parts,
                use_custom_colors,
                skin_part_colors,
                silent,
            }))
        }
        NetMsg::Sv_GameInfo => {
            let [game_flags, score_limit, time_limit, match_num, match_current] = u.ints()?;
            Body::GameInfo {
                game_flags,
                score_limit,
                time_limit,
                match_num,
                match_current,
            }
        }
        NetMsg::Sv_ClientDrop => Body::ClientDrop {
            client_id: u.int()?,
            reason: u.string()?,
            silent: u.bool()?,
        },
        NetMsg::Sv_GameMsg => {
            let game_msg_id = u.int()?;
            Body::GameMsg {
                game_msg_id,
                params: u.rest(),
            }
        }
        NetMsg::De_ClientEnter => Body::ClientEnter {
            name: u.string()?,
            client_id: u.int()?,
            team: u.int()?,
        },
        NetMsg::De_ClientLeave => Body::ClientLeave {
            name: u.string()?,
            client_id: u.int()?,
            reason: u.string()?,
        },
        NetMsg::Sv_RaceFinish => {
            let [client_id, time, diff, record_personal] = u.ints()?;
            Body::RaceFinish {
                client_id,
                time,
                diff,
                record_personal: record_personal != 0,
                record_server: u.optional_int()?.map(|v| v != 0),
            }
        }
        NetMsg::Sv_Checkpoint => Body::Checkpoint { diff: u.int()? },
        NetMsg::Sv_DDRaceTime | NetMsg::Sv_DDRaceTimeLegacy => {
            let [time, check, finish] = u.ints()?;
            Body::DdraceTime {
                time,
                check,
                finish,
            }
        }
        NetMsg::Sv_Record | NetMsg::Sv_RecordLegacy => {
            let [server_time_best, player_time_best] = u.ints()?;
            Body::Record {
                server_time_best,
                player_time_best,
            }
        }
        NetMsg::Sv_KillMsgTeam => {
            let [team, first] = u.ints()?;
            Body::KillMsgTeam { team, first }
        }
        NetMsg::MAP_CHANGE => {
            let name = u.string()?;
            let crc = u.int()? as u32;
            let size = u.int()?;
            let (chunk_num, chunk_size, sha256) = match protocol {
                Protocol::V06 => (None, None, None),
                Protocol::V07 => (
                    u.optional_int()?,
                    u.optional_int()?,
                    if u.rest().len() >= 32 {
                        Some(u.raw::<32>()?)
                    } else {
                        None
                    },
                ),
            };
            Body::MapChange(MapChange {
                name,
                crc,
                size,
                chunk_num,
                chunk_size,
                sha256,
            })
        }
        NetMsg::MAP_DETAILS => {
            let name = u.string()?;
            let sha256 = u.raw::<32>()?;
            let crc = u.int()? as u32;
            let size = u.int()?;
            // The URL is a later addition; demo padding (zeros) reads as "".
            let url = if u.is_empty() {
                None
            } else {
                Some(u.string()?)
            };
            Body::MapDetails(MapDetails {
                name,
                sha256,
                crc,
                size,
                url,
            })
        }
        _ => Body::Raw(u.rest()),
    })
}
