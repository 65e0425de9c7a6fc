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

mod body;
mod names;
mod unpack;

use uuid::Uuid;

use crate::codec::huffman::{self, HuffmanError};
use crate::codec::snapshot::Protocol;
use crate::codec::varint::{self, VarintError};
use crate::warn::Warn;

pub use body::{Body, Chat, ChatMode, ClientInfo, KillMsg, MapChange, MapDetails};
pub use names::{
    ex_messages, game_message_name, lookup_ex, system_message_name, ExMessage, NetMsg,
};
pub use unpack::{Sanitize, Unpacker, MAX_STRING_LEN};

/// What went wrong while decoding a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
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
#[non_exhaustive]
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
pub(crate) fn decode_header(
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
    known_message(protocol, system, id).map(NetMsg::name)
}

/// The known message with id `id` in space `system` of `protocol` (see
/// [`message_name`]).
pub fn known_message(protocol: Protocol, system: bool, id: MessageId) -> Option<NetMsg> {
    match id {
        MessageId::Ex(uuid) => lookup_ex(&uuid)
            .filter(|m| m.system == system)
            .map(|m| m.msg),
        MessageId::Ordinal(id) => NetMsg::of_ordinal(protocol, system, id),
    }
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
    let msg = known_message(protocol, header.system, header.id);
    let name = msg.map(NetMsg::name);
    let mut u = Unpacker::new(bytes, header.body_offset, warnings);
    let body = match msg {
        Some(msg) if body::has_body(msg) => body::decode_body(msg, protocol, &mut u)?,
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

/// Why a message chunk's payload could not be turned into message bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum PayloadError {
    #[error(transparent)]
    Huffman(#[from] HuffmanError),
    #[error(transparent)]
    Varint(#[from] VarintError),
}

/// The largest decoded chunk payload (the stream's).
use crate::demo::stream::MAX_PAYLOAD;

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
