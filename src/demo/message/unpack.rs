//! The message unpacker: varint ints, NUL-terminated strings and raw bytes
//! read from the bytes of one message (DDNet `CUnpacker`).
//!
//! Ints use the variable-length encoding of `codec::varint` (libtw2-doc
//! `int.md`). Strings run to the first NUL; DDNet's unpacker then replaces
//! control characters with spaces, as [`Unpacker::string`] does (with a
//! warning), in one of DDNet's two modes ([`Sanitize`]): `SANITIZE_CC`
//! (every byte below 32; names, chat) or `SANITIZE` (keeps tab, CR and LF;
//! MOTD and broadcasts). DDNet's `SKIP_START_WHITESPACES` is not applied:
//! the text is kept as sent. A string must end within [`MAX_STRING_LEN`]
//! bytes.
//!
//! Every error carries the byte offset, inside the message, of the field
//! that could not be read.

use std::borrow::Cow;

use super::{MessageError, MessageErrorKind, MessageWarning, MessageWarningKind};
use crate::codec::varint::{self, VarintWarningKind};
use crate::warn::Warn;

/// The longest string (in bytes, without its NUL) the unpacker accepts.
///
/// DDNet's longest strings (chat lines, MOTD) are bounded by its 1400-byte
/// packet payload; 2048 leaves room and stops a garbage message from
/// producing a string the size of the whole chunk.
pub const MAX_STRING_LEN: usize = 2048;

/// Which control characters a string keeps (DDNet's sanitise modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sanitize {
    /// `SANITIZE_CC`: every byte below 32 becomes a space.
    ControlCharacters,
    /// `SANITIZE`: like `SANITIZE_CC` but tab, LF and CR stay.
    KeepWhitespace,
}

/// A cursor over the bytes of one message.
pub struct Unpacker<'a, 'w> {
    bytes: &'a [u8],
    pos: usize,
    warnings: &'w mut dyn Warn<MessageWarning>,
}

impl std::fmt::Debug for Unpacker<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unpacker")
            .field("bytes", &self.bytes)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}

impl<'a, 'w> Unpacker<'a, 'w> {
    /// Starts at byte `pos` of `bytes`.
    pub fn new(bytes: &'a [u8], pos: usize, warnings: &'w mut dyn Warn<MessageWarning>) -> Self {
        Unpacker {
            bytes,
            pos,
            warnings,
        }
    }

    /// The offset of the next field.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or(&[])
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    fn error(&self, kind: MessageErrorKind, offset: usize) -> MessageError {
        MessageError { kind, offset }
    }

    fn warn(&mut self, kind: MessageWarningKind, offset: usize) {
        self.warnings.warn(MessageWarning { kind, offset });
    }

    /// Reads one int.
    pub fn int(&mut self) -> Result<i32, MessageError> {
        let start = self.pos;
        let Some((value, len, warning)) = varint::read_int(self.rest()) else {
            return Err(self.error(MessageErrorKind::UnexpectedEnd, start));
        };
        match warning {
            Some(VarintWarningKind::Overlong) => self.warn(MessageWarningKind::OverlongInt, start),
            Some(VarintWarningKind::NonZeroPadding) => {
                self.warn(MessageWarningKind::IntPaddingBits, start)
            }
            None => {}
        }
        self.pos += len;
        Ok(value)
    }

    /// Reads one int if any byte is left (DDNet `GetIntOrDefault`).
    pub fn optional_int(&mut self) -> Result<Option<i32>, MessageError> {
        if self.is_empty() {
            return Ok(None);
        }
        self.int().map(Some)
    }

    /// Reads an int and turns it into a bool (non-zero is true).
    pub fn bool(&mut self) -> Result<bool, MessageError> {
        self.int().map(|v| v != 0)
    }

    /// Reads a NUL-terminated string, every byte below 32 replaced by a
    /// space (`SANITIZE_CC`).
    pub fn string(&mut self) -> Result<Cow<'a, str>, MessageError> {
        self.string_opts(Sanitize::ControlCharacters)
    }

    /// Reads a NUL-terminated string sanitised in `mode`.
    pub fn string_opts(&mut self, mode: Sanitize) -> Result<Cow<'a, str>, MessageError> {
        let start = self.pos;
        let rest = self.rest();
        if rest.is_empty() {
            return Err(self.error(MessageErrorKind::UnexpectedEnd, start));
        }
        let window = &rest[..rest.len().min(MAX_STRING_LEN + 1)];
        let Some(len) = window.iter().position(|&b| b == 0) else {
            let kind = if rest.len() > MAX_STRING_LEN {
                MessageErrorKind::StringTooLong
            } else {
                MessageErrorKind::UnterminatedString
            };
            return Err(self.error(kind, start));
        };
        self.pos += len + 1;
        let raw = &rest[..len];
        Ok(self.sanitize(raw, start, mode))
    }

    /// DDNet's `str_sanitize_cc` / `str_sanitize` plus a UTF-8 check
    /// (invalid sequences become U+FFFD, with a warning).
    fn sanitize(&mut self, raw: &'a [u8], start: usize, mode: Sanitize) -> Cow<'a, str> {
        let keep = mode == Sanitize::KeepWhitespace;
        let bad = |b: u8| b < 32 && !(keep && matches!(b, b'\t' | b'\n' | b'\r'));
        let s: Cow<'a, [u8]> = match raw.iter().position(|&b| bad(b)) {
            None => Cow::Borrowed(raw),
            Some(first) => {
                self.warn(MessageWarningKind::ControlCharacters, start + first);
                Cow::Owned(raw.iter().map(|&b| if bad(b) { b' ' } else { b }).collect())
            }
        };
        match s {
            Cow::Borrowed(b) => match std::str::from_utf8(b) {
                Ok(s) => Cow::Borrowed(s),
                Err(e) => {
                    self.warn(MessageWarningKind::InvalidUtf8, start + e.valid_up_to());
                    Cow::Owned(String::from_utf8_lossy(b).into_owned())
                }
            },
            Cow::Owned(v) => match String::from_utf8(v) {
                Ok(s) => Cow::Owned(s),
                Err(e) => {
                    let at = start + e.utf8_error().valid_up_to();
                    self.warn(MessageWarningKind::InvalidUtf8, at);
                    Cow::Owned(String::from_utf8_lossy(e.as_bytes()).into_owned())
                }
            },
        }
    }

    /// Reads `N` raw bytes (a UUID, a SHA-256).
    pub fn raw<const N: usize>(&mut self) -> Result<[u8; N], MessageError> {
        let start = self.pos;
        let bytes: [u8; N] = self
            .rest()
            .first_chunk::<N>()
            .copied()
            .ok_or(self.error(MessageErrorKind::UnexpectedEnd, start))?;
        self.pos += N;
        Ok(bytes)
    }

    /// Reads `N` ints.
    pub fn ints<const N: usize>(&mut self) -> Result<[i32; N], MessageError> {
        let mut out = [0; N];
        for v in &mut out {
            *v = self.int()?;
        }
        Ok(out)
    }
}
