//! Strings packed into snapshot ints (names, clans, skins): DDNet's
//! `IntsToStr`, and decoding into reused buffers.

use super::{PlayerWarning, PlayerWarningKind};

/// Unpacks a string packed into ints the DDNet way (see the module docs).
///
/// Returns `None` if the bytes are not UTF-8 (DDNet then uses "").
pub fn ints_to_str(ints: &[i32]) -> Option<String> {
    let mut bytes: Vec<u8> = ints
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .map(|b| b.wrapping_sub(128))
        .collect();
    if let Some(last) = bytes.last_mut() {
        *last = 0;
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    bytes.truncate(end);
    String::from_utf8(bytes).ok()
}

/// Sets `slot` to `text`, reusing its buffer or one from `pool`.
pub(super) fn set_str(slot: &mut Option<String>, text: &str, pool: &mut Vec<String>) {
    let s = slot.get_or_insert_with(|| pool.pop().unwrap_or_default());
    if s != text {
        s.clear();
        s.push_str(text);
    }
}

/// Decodes the string packed in `data[range]` (see [`ints_to_str`]) into
/// `slot` without allocating once warm; an invalid string becomes empty
/// with a warning.
pub(super) fn read_str_into(
    data: &[i32],
    range: std::ops::Range<usize>,
    key: u32,
    slot: &mut Option<String>,
    pool: &mut Vec<String>,
    warnings: &mut Vec<PlayerWarning>,
) {
    let Some(ints) = data.get(range) else {
        return;
    };
    // Names, clans and skins are at most 6 ints (24 bytes).
    let mut buf = [0u8; 64];
    let n = 4 * ints.len().min(buf.len() / 4);
    for (chunk, v) in buf[..n].chunks_exact_mut(4).zip(ints) {
        chunk.copy_from_slice(&v.to_be_bytes());
    }
    for b in &mut buf[..n] {
        *b = b.wrapping_sub(128);
    }
    if n > 0 {
        buf[n - 1] = 0;
    }
    let end = buf[..n].iter().position(|&b| b == 0).unwrap_or(n);
    match std::str::from_utf8(&buf[..end]) {
        Ok(text) => set_str(slot, text, pool),
        Err(_) => {
            warnings.push(PlayerWarning {
                kind: PlayerWarningKind::InvalidString,
                key,
            });
            set_str(slot, "", pool);
        }
    }
}

/// Sets `slot` to `text` (or `None`), reusing buffers as [`set_str`] does.
pub(super) fn set_opt_str(slot: &mut Option<String>, text: Option<&str>, pool: &mut Vec<String>) {
    match text {
        Some(t) => set_str(slot, t, pool),
        None => pool.extend(slot.take()),
    }
}
