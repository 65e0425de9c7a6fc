//! The counts of an aggregate: count maps, checked sums when merging,
//! and the helpers of the one-line digests.

use std::collections::BTreeMap;

/// Adds `n` to `key` (inserting it). Saturates: one run's counts come
/// from the files it read and cannot reach 2^64 (merging is checked, see
/// [`sum`]).
pub fn bump(map: &mut BTreeMap<String, u64>, key: &str, n: u64) {
    match map.get_mut(key) {
        Some(v) => *v = v.saturating_add(n),
        None => {
            map.insert(key.to_owned(), n);
        }
    }
}

/// Adds the counts of `other` (`field` names the map in the error on
/// overflow).
pub fn merge_counts(
    into: &mut BTreeMap<String, u64>,
    other: BTreeMap<String, u64>,
    field: &str,
) -> Result<(), String> {
    for (k, v) in other {
        match into.get_mut(&k) {
            Some(n) => sum(n, v, || format!("{field}[{k:?}]"))?,
            None => {
                into.insert(k, v);
            }
        }
    }
    Ok(())
}

/// `*into += n` when merging; the error names the field (`field()`, e.g.
/// `totals.chat_lines`) and says the sum does not fit the 64 bits of a
/// summary count.
pub fn sum(into: &mut u64, n: u64, field: impl FnOnce() -> String) -> Result<(), String> {
    match into.checked_add(n) {
        Some(v) => {
            *into = v;
            Ok(())
        }
        None => Err(format!(
            "{}: {} + {n} overflows a summary count (at most 2^64 - 1)",
            field(),
            *into
        )),
    }
}

/// [`sum`] of named fields: `sums!(self, o, "prefix.", a, b)` adds `o.a`
/// to `self.a`, `o.b` to `self.b`, each named `prefix.a`, ... on overflow.
macro_rules! sums {
    ($into:expr, $from:expr, $prefix:literal, $($f:ident),+ $(,)?) => {
        $(
            $crate::batch::summary::sum(&mut $into.$f, $from.$f, || {
                format!(concat!($prefix, stringify!($f)))
            })?;
        )+
    };
}
pub(crate) use sums;

/// The `n` largest entries of a count map (ties by key), for digests.
pub fn top<V>(map: &BTreeMap<String, V>, n: usize, key: impl Fn(&V) -> u64) -> Vec<(&str, u64)> {
    let mut v: Vec<(&str, u64)> = map.iter().map(|(k, x)| (k.as_str(), key(x))).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.truncate(n);
    v
}

/// `s` with control characters (newlines, escapes) replaced by spaces, for
/// one-line digests.
pub fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `(key (n), ...)` for digests.
pub fn list_top(v: &[(&str, u64)], unit: &str) -> String {
    v.iter()
        .map(|(k, n)| format!("{} ({n}{unit})", one_line(k)))
        .collect::<Vec<_>>()
        .join(", ")
}
