//! The two string encodings of maps.
//!
//! - **I32String** (names of groups, layers, envelopes): the bytes of
//!   consecutive ints taken big-endian, each plus 128 (mod 256); the last
//!   byte of the array is the terminator and is ignored; the string ends at
//!   the first zero.
//! - **CString** (info fields, image and sound names, settings): a data block
//!   holding NUL-terminated bytes.
//!
//! Both are decoded as lossy UTF-8 (old maps hold Latin-1 names) and bounded
//! to [`MAX_STRING_LEN`] bytes.

use crate::bytes::LeI32s;
use std::borrow::Cow;

/// Longest string kept, in bytes; longer ones are cut (with a warning).
pub const MAX_STRING_LEN: usize = 4096;

/// Most settings lines kept from the info item's settings block.
pub(crate) const MAX_SETTINGS: usize = 4096;

/// Unpacks I32String ints (DDNet's `IntsToStr`) into `buf`, at most
/// `buf.len() / 4` of them: each int's bytes big-endian, each minus 128; the
/// last byte is the terminator slot and is ignored. Returns the bytes up to
/// the first zero.
pub fn unpack_i32_string<'b>(ints: &[i32], buf: &'b mut [u8]) -> &'b [u8] {
    let n = 4 * ints.len().min(buf.len() / 4);
    for (chunk, v) in buf[..n].chunks_exact_mut(4).zip(ints) {
        chunk.copy_from_slice(&v.to_be_bytes().map(|b| b.wrapping_sub(128)));
    }
    let bytes = &buf[..n.saturating_sub(1)];
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &buf[..end]
}

/// Decodes an I32String from `ints` (all of them; pass the field's slice)
/// as lossy UTF-8.
pub fn i32_string(ints: impl Iterator<Item = i32>) -> String {
    let ints: Vec<i32> = ints.collect();
    let mut buf = vec![0u8; 4 * ints.len()];
    String::from_utf8_lossy(unpack_i32_string(&ints, &mut buf)).into_owned()
}

/// Encodes `s` as an I32String of `num_ints` ints (cut to fit), the inverse
/// of [`i32_string`].
pub fn to_i32_string(s: &str, num_ints: usize) -> Vec<i32> {
    let mut bytes = vec![0u8; num_ints * 4];
    let room = bytes.len().saturating_sub(1);
    for (dst, &b) in bytes.iter_mut().zip(s.as_bytes().iter().take(room)) {
        *dst = b;
    }
    let bytes: Vec<u8> = bytes
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if i + 1 == num_ints * 4 {
                0
            } else {
                b.wrapping_add(128)
            }
        })
        .collect();
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The I32String in ints `start..start + len` of an item, if present, and
/// whether its terminator byte (the last byte, stored as a plain 0) is there.
pub fn item_i32_string(data: LeI32s<'_>, start: usize, len: usize) -> Option<(String, bool)> {
    if len == 0 || data.len() < start + len {
        return None;
    }
    let terminated = data.get(start + len - 1).is_some_and(|v| v & 0xff == 0);
    Some((
        i32_string((start..start + len).filter_map(|i| data.get(i))),
        terminated,
    ))
}

/// How a CString ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CStrEnd {
    /// At a NUL within the bound.
    Terminated,
    /// The block ended without a NUL.
    Unterminated,
    /// Cut at [`MAX_STRING_LEN`].
    Truncated,
}

/// Decodes the CString at the start of `block`.
pub fn c_string(block: &[u8]) -> (String, CStrEnd) {
    let (s, end) = c_str_bytes(block);
    (String::from_utf8_lossy(s).into_owned(), end)
}

fn c_str_bytes(block: &[u8]) -> (&[u8], CStrEnd) {
    match block.iter().position(|&b| b == 0) {
        Some(n) if n <= MAX_STRING_LEN => (&block[..n], CStrEnd::Terminated),
        Some(_) => (&block[..MAX_STRING_LEN], CStrEnd::Truncated),
        None if block.len() > MAX_STRING_LEN => (&block[..MAX_STRING_LEN], CStrEnd::Truncated),
        None => (block, CStrEnd::Unterminated),
    }
}

/// Splits a settings block (NUL-separated strings, NUL at the end) into
/// lines. Returns the lines and whether any were cut or unterminated.
pub fn settings_lines(block: &[u8]) -> (Vec<String>, CStrEnd) {
    let mut lines = Vec::new();
    let mut worst = CStrEnd::Terminated;
    let mut rest = block;
    while !rest.is_empty() {
        if lines.len() == MAX_SETTINGS {
            worst = CStrEnd::Truncated;
            break;
        }
        let n = rest.iter().position(|&b| b == 0);
        let (line, next) = match n {
            Some(n) => (&rest[..n], &rest[n + 1..]),
            None => {
                if worst == CStrEnd::Terminated {
                    worst = CStrEnd::Unterminated;
                }
                (rest, &rest[rest.len()..])
            }
        };
        let line = if line.len() > MAX_STRING_LEN {
            worst = CStrEnd::Truncated;
            &line[..MAX_STRING_LEN]
        } else {
            line
        };
        lines.push(lossy(line).into_owned());
        rest = next;
    }
    (lines, worst)
}

fn lossy(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn i32_string_round_trip() {
        for s in ["", "Game", "Front", "abcdefghijk", "x"] {
            let ints = to_i32_string(s, 3);
            assert_eq!(i32_string(ints.iter().copied()), s);
        }
        // Cut to 11 bytes in 3 ints.
        let ints = to_i32_string("abcdefghijklmno", 3);
        assert_eq!(i32_string(ints.iter().copied()), "abcdefghijk");
        // Known bytes: "Game" + zeros → 0xC7E1EDE5, then 0x80808080, last 0x80808000.
        assert_eq!(
            to_i32_string("Game", 3),
            vec![
                0xC7E1_EDE5u32 as i32,
                0x8080_8080u32 as i32,
                0x8080_8000u32 as i32
            ]
        );
    }

    #[test]
    fn c_strings() {
        assert_eq!(c_string(b"abc\0def"), ("abc".into(), CStrEnd::Terminated));
        assert_eq!(c_string(b"abc"), ("abc".into(), CStrEnd::Unterminated));
        assert_eq!(c_string(b"\xe9t\xe9\0").0, "\u{fffd}t\u{fffd}");
        let long = vec![b'a'; MAX_STRING_LEN + 10];
        let (s, end) = c_string(&long);
        assert_eq!((s.len(), end), (MAX_STRING_LEN, CStrEnd::Truncated));
    }

    #[test]
    fn settings() {
        let (l, e) = settings_lines(b"sv_a 1\0tune gravity 0.5\0");
        assert_eq!(l, vec!["sv_a 1", "tune gravity 0.5"]);
        assert_eq!(e, CStrEnd::Terminated);
        let (l, e) = settings_lines(b"x\0y");
        assert_eq!(l, vec!["x", "y"]);
        assert_eq!(e, CStrEnd::Unterminated);
        assert_eq!(settings_lines(b"").0, Vec::<String>::new());
    }
}
