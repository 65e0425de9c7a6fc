//! Demo messages: system and game messages, DDNet extended messages.
//!
//! # Bytes
//!
//! A message chunk of a demo is Huffman-compressed and varint-packed like
//! every chunk, but what the ints hold is itself a packed message: DDNet's
//! `CDemoRecorder::Write` pads the message bytes with zeros to a multiple of
//! 4, reads them as native (little-endian) `i32`s and packs those. So:
//!
//! ```text
//! chunk payload --huffman--> varints --unpack--> i32s --to_le_bytes--> message
//!
//! message:  header int   (id << 1) | system     varint
//!           [16 bytes]   UUID, only when id == 0 (DDNet NETMSG_EX)
//!           fields       varint ints, NUL-terminated strings, raw bytes
//!           0..=3 zeros  padding added by the demo writer
//! ```
//!
//! [`MessageBuffer`] does the first three steps; [`decode`] the last.
//!
//! # Ids
//!
//! System messages (engine: map change, snapshots, rcon…) and game messages
//! (chat, kills, client info…) have separate id spaces, and both differ
//! between protocol 0.6 (Teeworlds 0.6, DDNet; DDNet `protocol.h`,
//! `datasrc/network.py`) and 0.7 (Teeworlds 0.7 `protocol.h`,
//! `datasrc/network.py`): e.g. game id 4 is `Sv_KillMsg` in 0.6 and `Sv_Team`
//! in 0.7. Id 0 introduces a DDNet extended message in either space: a
//! 16-byte name-based UUID (version 3, same namespace as the extended
//! snapshot types) follows the header, and the fields follow the UUID.
//! DDNet clients connected to 0.7 servers record extended messages too, so
//! they are recognised under both protocols. Names of extended messages are
//! turned into UUIDs at first use ([`names::ex_messages`]), never written
//! down.
//!
//! # Quirks
//!
//! - Layouts drift: DDNet added trailing fields over time (`Sv_RaceFinish`
//!   got `m_RecordServer`, `MAP_DETAILS` a URL), 0.7 `MAP_CHANGE` carries
//!   chunk sizes and a SHA-256. Optional trailing fields are read when
//!   present (DDNet `GetIntOrDefault`); bytes after the last known field are
//!   kept in [`Message::extra`] with a [`MessageWarningKind::TrailingBytes`]
//!   warning, never dropped. Up to 3 trailing zero bytes are the demo
//!   writer's padding and not reported.
//! - Strings are sanitised like DDNet's `CUnpacker`: bytes below 32 become
//!   spaces (MOTD and broadcasts keep tab, CR and LF, DDNet's `SANITIZE`);
//!   invalid UTF-8 becomes U+FFFD. Both warn.
//! - Messages whose ids are known but whose fields are not decoded here
//!   (tune parameters, vote lists, snapshots…) and unknown ids keep their
//!   field bytes as [`Body::Raw`].

mod names;
mod unpack;

use std::borrow::Cow;
use std::sync::OnceLock;

use uuid::Uuid;

use crate::codec::huffman::{self, HuffmanError};
use crate::codec::snapshot::Protocol;
use crate::codec::varint::{self, VarintError};
use crate::warn::Warn;

pub use names::{ex_messages, game_message_name, lookup_ex, system_message_name, ExMessage};
pub use unpack::{Sanitize, Unpacker, MAX_STRING_LEN};

/// What went wrong while decoding a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum MessageErrorKind {
    /// The message has no bytes at all.
    #[error("empty message")]
    Empty,
    /// The header int is negative.
    #[error("negative message header")]
    NegativeHeader,
    /// The message ends inside (or before) a field it must have.
    #[error("message ends inside a field")]
    UnexpectedEnd,
    /// A string runs to the end of the message without a NUL.
    #[error("string without NUL terminator")]
    UnterminatedString,
    /// A string has more than [`MAX_STRING_LEN`] bytes before its NUL.
    #[error("string longer than the limit")]
    StringTooLong,
}

crate::kind::kind_names!(MessageErrorKind {
    Empty => "empty",
    NegativeHeader => "negative_header",
    UnexpectedEnd => "unexpected_end",
    UnterminatedString => "unterminated_string",
    StringTooLong => "string_too_long",
});

/// A decoding error: kind and byte offset inside the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("message: {kind} at byte {offset}")]
pub struct MessageError {
    pub kind: MessageErrorKind,
    pub offset: usize,
}

/// A non-fatal oddity in a message that still decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageWarningKind {
    /// Bytes remain after the last field this decoder knows (layout drift).
    TrailingBytes,
    /// A string held bytes below 32; they were replaced by spaces.
    ControlCharacters,
    /// A string was not UTF-8; invalid sequences became U+FFFD.
    InvalidUtf8,
    /// An int used more bytes than its value needs.
    OverlongInt,
    /// The unused high bits of an int's 5th byte were set.
    IntPaddingBits,
}

crate::kind::kind_names!(MessageWarningKind {
    TrailingBytes => "trailing_bytes",
    ControlCharacters => "control_characters",
    InvalidUtf8 => "invalid_utf8",
    OverlongInt => "overlong_int",
    IntPaddingBits => "int_padding_bits",
});

/// A warning with the byte offset inside the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MessageWarning {
    pub kind: MessageWarningKind,
    pub offset: usize,
}

/// Which id a message has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageId {
    /// An ordinal id (`header >> 1`, never 0).
    Ordinal(u32),
    /// A DDNet extended message (id 0 and a UUID).
    Ex(Uuid),
}

/// The header of a message: system flag, id, where the fields start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Header {
    pub system: bool,
    pub id: MessageId,
    /// Byte offset of the first field (after the header int and UUID).
    pub body_offset: usize,
}

/// Reads the header int and, for id 0, the UUID.
pub fn decode_header(
    bytes: &[u8],
    warnings: &mut dyn Warn<MessageWarning>,
) -> Result<Header, MessageError> {
    if bytes.is_empty() {
        return Err(MessageError {
            kind: MessageErrorKind::Empty,
            offset: 0,
        });
    }
    let mut u = Unpacker::new(bytes, 0, warnings);
    let header = u.int()?;
    if header < 0 {
        return Err(MessageError {
            kind: MessageErrorKind::NegativeHeader,
            offset: 0,
        });
    }
    let system = header & 1 != 0;
    let id = (header >> 1) as u32;
    let id = if id == 0 {
        MessageId::Ex(Uuid::from_bytes(u.raw::<16>()?))
    } else {
        MessageId::Ordinal(id)
    };
    Ok(Header {
        system,
        id,
        body_offset: u.pos(),
    })
}

/// The name of a message id in `protocol`, if known: `NETMSG_*` names
/// without the prefix for system messages (`MAP_CHANGE`), `network.py`
/// names for game messages (`Sv_Chat`), and the code names of extended
/// messages (`Sv_RaceFinish`, `MAP_DETAILS`). Like DDNet, an extended
/// message is only known in its own space (system or game).
pub fn message_name(protocol: Protocol, system: bool, id: MessageId) -> Option<&'static str> {
    match id {
        MessageId::Ex(uuid) => lookup_ex(&uuid)
            .filter(|m| m.system == system)
            .map(|m| m.name),
        MessageId::Ordinal(id) if system => system_message_name(protocol, id),
        MessageId::Ordinal(id) => game_message_name(protocol, id),
    }
}

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
    pub fn from_raw(protocol: Protocol, raw: i32) -> ChatMode {
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

/// One decoded message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    pub system: bool,
    pub id: MessageId,
    /// The id's name in the demo's protocol, if known.
    pub name: Option<&'static str>,
    pub body: Body<'a>,
    /// Byte offset of the first field.
    pub body_offset: usize,
    /// Bytes after the last decoded field, except demo padding (up to 3
    /// zeros). Empty for [`Body::Raw`].
    pub extra: &'a [u8],
}

impl Message<'_> {
    /// `system` or `game`.
    pub fn space(&self) -> &'static str {
        space_name(self.system)
    }
}

/// The name of a message space: `system` or `game`.
pub fn space_name(system: bool) -> &'static str {
    if system {
        "system"
    } else {
        "game"
    }
}

/// Decodes the bytes of one message (see the module docs).
///
/// A message whose header cannot be read, or whose known fields are cut
/// short, is an error with the offset of the failing field; warnings go to
/// `warnings`. Never panics.
pub fn decode<'a>(
    bytes: &'a [u8],
    protocol: Protocol,
    warnings: &mut dyn Warn<MessageWarning>,
) -> Result<Message<'a>, MessageError> {
    let header = decode_header(bytes, warnings)?;
    let name = message_name(protocol, header.system, header.id);
    let mut u = Unpacker::new(bytes, header.body_offset, warnings);
    let body = match name {
        Some(name) if has_body(protocol, header.system, header.id, name) => {
            decode_body(name, protocol, &mut u)?
        }
        _ => Body::Raw(u.rest()),
    };
    let extra = match body {
        Body::Raw(_) | Body::GameMsg { .. } => &[][..],
        _ => {
            let rest = u.rest();
            if rest.len() <= 3 && rest.iter().all(|&b| b == 0) {
                &[][..]
            } else {
                let at = u.pos();
                warnings.warn(MessageWarning {
                    kind: MessageWarningKind::TrailingBytes,
                    offset: at,
                });
                rest
            }
        }
    };
    Ok(Message {
        system: header.system,
        id: header.id,
        name,
        body,
        body_offset: header.body_offset,
        extra,
    })
}

/// The names whose body [`decode_body`] reads (any other message's body
/// is [`Body::Raw`]).
const BODY_NAMES: [&str; 25] = [
    "Sv_Chat",
    "Sv_Broadcast",
    "Sv_Motd",
    "Sv_KillMsg",
    "Sv_Emoticon",
    "Sv_SoundGlobal",
    "Sv_WeaponPickup",
    "Sv_VoteStatus",
    "Sv_Team",
    "Sv_ServerSettings",
    "Sv_ClientInfo",
    "Sv_GameInfo",
    "Sv_ClientDrop",
    "Sv_GameMsg",
    "De_ClientEnter",
    "De_ClientLeave",
    "Sv_RaceFinish",
    "Sv_Checkpoint",
    "Sv_DDRaceTime",
    "Sv_DDRaceTimeLegacy",
    "Sv_Record",
    "Sv_RecordLegacy",
    "Sv_KillMsgTeam",
    "MAP_CHANGE",
    "MAP_DETAILS",
];

/// Whether the message `id` of `protocol` and space `system`, named
/// `name`, has a body [`decode_body`] reads: for ordinal ids a bit in a
/// table built once from the name tables (most messages, such as the
/// `Sv_TuneParams` of every tick, have none, and the names are then not
/// compared one by one), else by name.
#[inline]
fn has_body(protocol: Protocol, system: bool, id: MessageId, name: &str) -> bool {
    /// Bits by ordinal id (the named ones are below 64), for 0.6 game,
    /// 0.6 system, 0.7 game, 0.7 system.
    static BODIES: OnceLock<[u64; 4]> = OnceLock::new();
    match id {
        MessageId::Ordinal(i) if i < 64 => {
            let bodies = BODIES.get_or_init(|| {
                let mut bodies = [0u64; 4];
                for (at, bits) in bodies.iter_mut().enumerate() {
                    let protocol = if at < 2 { Protocol::V06 } else { Protocol::V07 };
                    let system = at % 2 == 1;
                    for i in 1..64 {
                        let name = message_name(protocol, system, MessageId::Ordinal(i));
                        if name.is_some_and(|n| BODY_NAMES.contains(&n)) {
                            *bits |= 1 << i;
                        }
                    }
                }
                bodies
            });
            let at = usize::from(protocol == Protocol::V07) * 2 + usize::from(system);
            bodies[at] >> i & 1 != 0
        }
        _ => BODY_NAMES.contains(&name),
    }
}

fn decode_body<'a>(
    name: &'static str,
    protocol: Protocol,
    u: &mut Unpacker<'a, '_>,
) -> Result<Body<'a>, MessageError> {
    Ok(match name {
        "Sv_Chat" => {
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
        "Sv_Broadcast" => Body::Broadcast {
            text: u.string_with(Sanitize::KeepWhitespace)?,
        },
        "Sv_Motd" => Body::Motd {
            text: u.string_with(Sanitize::KeepWhitespace)?,
        },
        "Sv_KillMsg" => {
            let [killer, victim, weapon, mode_special] = u.ints()?;
            Body::KillMsg(KillMsg {
                killer,
                victim,
                weapon,
                mode_special,
            })
        }
        "Sv_Emoticon" => {
            let [client_id, emoticon] = u.ints()?;
            Body::Emoticon {
                client_id,
                emoticon,
            }
        }
        "Sv_SoundGlobal" => Body::SoundGlobal { sound_id: u.int()? },
        "Sv_WeaponPickup" => Body::WeaponPickup { weapon: u.int()? },
        "Sv_VoteStatus" => {
            let [yes, no, pass, total] = u.ints()?;
            Body::VoteStatus {
                yes,
                no,
                pass,
                total,
            }
        }
        "Sv_Team" => Body::Team {
            client_id: u.int()?,
            team: u.int()?,
            silent: u.bool()?,
            cooldown_tick: u.int()?,
        },
        "Sv_ServerSettings" => Body::ServerSettings {
            kick_vote: u.bool()?,
            kick_min: u.int()?,
            spec_vote: u.bool()?,
            team_lock: u.bool()?,
            team_balance: u.bool()?,
            player_slots: u.int()?,
        },
        "Sv_ClientInfo" => {
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
        "Sv_GameInfo" => {
            let [game_flags, score_limit, time_limit, match_num, match_current] = u.ints()?;
            Body::GameInfo {
                game_flags,
                score_limit,
                time_limit,
                match_num,
                match_current,
            }
        }
        "Sv_ClientDrop" => Body::ClientDrop {
            client_id: u.int()?,
            reason: u.string()?,
            silent: u.bool()?,
        },
        "Sv_GameMsg" => {
            let game_msg_id = u.int()?;
            Body::GameMsg {
                game_msg_id,
                params: u.rest(),
            }
        }
        "De_ClientEnter" => Body::ClientEnter {
            name: u.string()?,
            client_id: u.int()?,
            team: u.int()?,
        },
        "De_ClientLeave" => Body::ClientLeave {
            name: u.string()?,
            client_id: u.int()?,
            reason: u.string()?,
        },
        "Sv_RaceFinish" => {
            let [client_id, time, diff, record_personal] = u.ints()?;
            Body::RaceFinish {
                client_id,
                time,
                diff,
                record_personal: record_personal != 0,
                record_server: u.optional_int()?.map(|v| v != 0),
            }
        }
        "Sv_Checkpoint" => Body::Checkpoint { diff: u.int()? },
        "Sv_DDRaceTime" | "Sv_DDRaceTimeLegacy" => {
            let [time, check, finish] = u.ints()?;
            Body::DdraceTime {
                time,
                check,
                finish,
            }
        }
        "Sv_Record" | "Sv_RecordLegacy" => {
            let [server_time_best, player_time_best] = u.ints()?;
            Body::Record {
                server_time_best,
                player_time_best,
            }
        }
        "Sv_KillMsgTeam" => {
            let [team, first] = u.ints()?;
            Body::KillMsgTeam { team, first }
        }
        "MAP_CHANGE" => {
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
        "MAP_DETAILS" => {
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

/// Why a message chunk's payload could not be turned into message bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum PayloadError {
    #[error(transparent)]
    Huffman(#[from] HuffmanError),
    #[error(transparent)]
    Varint(#[from] VarintError),
}

/// The largest decoded chunk payload in the reference (64 KiB).
const MAX_PAYLOAD: usize = 1 << 16;

/// Reusable buffers that turn a compressed message chunk payload into the
/// bytes of its message (Huffman, varint unpack, ints to little-endian
/// bytes).
#[derive(Debug)]
pub struct MessageBuffer {
    decompressed: Vec<u8>,
    ints: Vec<i32>,
    bytes: Vec<u8>,
}

impl Default for MessageBuffer {
    fn default() -> Self {
        MessageBuffer::new()
    }
}

impl MessageBuffer {
    /// Buffers sized for the largest payload.
    pub fn new() -> MessageBuffer {
        MessageBuffer {
            decompressed: vec![0; MAX_PAYLOAD],
            ints: vec![0; MAX_PAYLOAD],
            bytes: Vec::with_capacity(MAX_PAYLOAD),
        }
    }

    /// The message bytes of a compressed message chunk payload.
    pub fn unpack(&mut self, payload: &[u8]) -> Result<&[u8], PayloadError> {
        let n = huffman::decompress(payload, &mut self.decompressed)?;
        let count = varint::unpack(&self.decompressed[..n], &mut self.ints, &mut Vec::new())?;
        self.bytes.clear();
        message_bytes(&self.ints[..count], &mut self.bytes);
        Ok(&self.bytes)
    }
}

/// Appends the message bytes held by the unpacked ints of a message chunk
/// (each int is 4 bytes little-endian, as DDNet's recorder read them).
pub fn message_bytes(ints: &[i32], out: &mut Vec<u8>) {
    out.reserve(ints.len() * 4);
    for v in ints {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests;
