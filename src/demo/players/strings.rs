//! Strings packed into snapshot ints (names, clans, skins): DDNet's
//! `IntsToStr` ([`crate::map::strings::unpack_i32_string`], the same packing
//! as map names), and decoding into reused buffers.

use super::{PlayerWarning, PlayerWarningKind};
use crate::map::strings::unpack_i32_string;
use crate::warn::Warn;

/// Unpacks a string packed into ints the DDNet way (see the module docs).
///
/// Returns `None` if the bytes are not UTF-8 (DDNet then uses "").
pub fn ints_to_str(ints: &[i32]) -> Option<String> {
    let mut buf = vec![0u8; 4 * ints.len()];
    let bytes = unpack_i32_string(ints, &mut buf);
    std::str::from_utf8(bytes).ok().map(str::to_owned)
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
    warnings: &mut dyn Warn<PlayerWarning>,
) {
    let Some(ints) = data.get(range) else {
        return;
    };
    // Names, clans and skins are at most 6 ints (24 bytes).
    let mut buf = [0u8; 64];
    let bytes = unpack_i32_string(ints, &mut buf);
    match std::str::from_utf8(bytes) {
        Ok(text) => set_str(slot, text, pool),
        Err(_) => {
            warnings.warn(PlayerWarning {
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
