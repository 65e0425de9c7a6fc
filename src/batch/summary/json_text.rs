//! [`JsonText`]: a JSON value of a summary kept as its canonical compact
//! text instead of a tree, so that `merge` holds a file's `run` in about
//! the bytes it takes (a `serde_json::Value` costs up to 33 times the
//! text of small values).

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// A JSON value as compact text written the way `serde_json` writes a
/// `serde_json::Value` parsed from the same input: object keys sorted
/// (bytewise), a repeated key's last value kept, numbers and strings as
/// `serde_json` formats them. [`JsonText::write_pretty`] gives what
/// `serde_json::to_vec_pretty` gives for that value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonText(Vec<u8>);

impl Default for JsonText {
    /// `null`.
    fn default() -> Self {
        JsonText(b"null".to_vec())
    }
}

impl JsonText {
    /// Text already canonical (as this type writes it), taken as it is.
    pub(crate) fn from_canonical(text: Vec<u8>) -> Self {
        JsonText(text)
    }

    /// The compact text.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Appends the value pretty-printed as `serde_json`'s pretty formatter
    /// does (two spaces per level) at nesting `depth` (0 at the top of a
    /// document): a newline and the indentation before each member and
    /// before the closing bracket of a non-empty container, `": "` after
    /// each key.
    pub fn write_pretty(&self, out: &mut Vec<u8>, depth: usize) {
        let text = &self.0;
        let mut depth = depth;
        let newline = |out: &mut Vec<u8>, depth: usize| {
            out.push(b'\n');
            out.resize(out.len() + 2 * depth, b' ');
        };
        let (mut in_str, mut escaped) = (false, false);
        let mut i = 0;
        while i < text.len() {
            let c = text[i];
            i += 1;
            if in_str {
                out.push(c);
                if escaped {
                    escaped = false;
                } else if c == b'\\' {
                    escaped = true;
                } else if c == b'"' {
                    in_str = false;
                }
                continue;
            }
            match c {
                b'"' => {
                    in_str = true;
                    out.push(c);
                }
                b'{' | b'[' => {
                    out.push(c);
                    if matches!(text.get(i), Some(b'}' | b']')) {
                        out.push(text[i]);
                        i += 1;
                    } else {
                        depth += 1;
                        newline(out, depth);
                    }
                }
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    newline(out, depth);
                    out.push(c);
                }
                b',' => {
                    out.push(c);
                    newline(out, depth);
                }
                b':' => out.extend_from_slice(b": "),
                _ => out.push(c),
            }
        }
    }
}

impl<'de> Deserialize<'de> for JsonText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut out = Vec::new();
        Canonical(&mut out).deserialize(d)?;
        Ok(JsonText(out))
    }
}

/// Writes the value it reads, canonically, at the end of a buffer.
struct Canonical<'a>(&'a mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for Canonical<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// Writes `v` as `serde_json` does (a string escaped, a float by ryu).
fn write_json<E: serde::de::Error>(out: &mut Vec<u8>, v: &impl serde::Serialize) -> Result<(), E> {
    serde_json::to_writer(out, v).map_err(E::custom)
}

/// Appends the (unescaped) key it reads to a string.
struct Key<'a>(&'a mut String);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v);
        Ok(())
    }
}

impl<'de> Visitor<'de> for Canonical<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.0.extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<(), E> {
        write_json(self.0, &v)
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<(), E> {
        write_json(self.0, &v)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<(), E> {
        // As a Value: a non-finite float is `null`.
        write_json(self.0, &serde_json::Number::from_f64(v))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        write_json(self.0, &v)
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.extend_from_slice(b"null");
        Ok(())
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<(), S::Error> {
        let out = self.0;
        out.push(b'[');
        let mut first = true;
        loop {
            let mark = out.len();
            if !first {
                out.push(b',');
            }
            if s.next_element_seed(Canonical(out))?.is_none() {
                out.truncate(mark);
                break;
            }
            first = false;
        }
        out.push(b']');
        Ok(())
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<(), M::Error> {
        // Keys and values go to two arenas, indexed by their ends; then
        // the entries are written sorted by key, the last of equal keys
        // kept (a stable sort keeps them in input order).
        let mut keys = String::new();
        let mut values = Vec::new();
        let mut ends: Vec<(u32, u32)> = Vec::new();
        let pos =
            |n: usize| u32::try_from(n).map_err(|_| serde::de::Error::custom("value too large"));
        while m.next_key_seed(Key(&mut keys))?.is_some() {
            m.next_value_seed(Canonical(&mut values))?;
            ends.push((pos(keys.len())?, pos(values.len())?));
        }
        let mut entries: Vec<(u32, u32, u32, u32)> = Vec::with_capacity(ends.len());
        let mut start = (0, 0);
        for &(k, v) in &ends {
            entries.push((start.0, k, start.1, v));
            start = (k, v);
        }
        drop(ends);
        let key = |e: &(u32, u32, u32, u32)| &keys.as_bytes()[e.0 as usize..e.1 as usize];
        entries.sort_by(|a, b| key(a).cmp(key(b)));
        let out = self.0;
        out.push(b'{');
        let mut first = true;
        for (i, e) in entries.iter().enumerate() {
            if entries.get(i + 1).is_some_and(|n| key(n) == key(e)) {
                continue;
            }
            if !first {
                out.push(b',');
            }
            first = false;
            write_json(out, &&keys[e.0 as usize..e.1 as usize])?;
            out.push(b':');
            out.extend_from_slice(&values[e.2 as usize..e.3 as usize]);
        }
        out.push(b'}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(doc: &str) {
        let v: serde_json::Value = serde_json::from_str(doc).unwrap();
        let t: JsonText = serde_json::from_str(doc).unwrap();
        assert_eq!(
            String::from_utf8(t.0.clone()).unwrap(),
            serde_json::to_string(&v).unwrap(),
            "{doc}"
        );
        for depth in [0, 1, 3] {
            let mut pretty = Vec::new();
            t.write_pretty(&mut pretty, depth);
            // Pretty at depth d: as inside d nested arrays, less their lines.
            let mut nested = v.clone();
            for _ in 0..depth {
                nested = serde_json::Value::Array(vec![nested]);
            }
            let full = serde_json::to_string_pretty(&nested).unwrap();
            let inner: String = full
                .lines()
                .skip(depth)
                .take(full.lines().count() - 2 * depth)
                .collect::<Vec<_>>()
                .join("\n");
            let expected = inner.trim_start();
            assert_eq!(
                String::from_utf8(pretty).unwrap(),
                expected,
                "{doc} at depth {depth}"
            );
        }
    }

    /// The text and its pretty form equal what serde_json writes for the
    /// same document as a `Value`: key order, repeated keys, escapes,
    /// numbers, empty containers, nesting.
    #[test]
    fn writes_what_a_value_writes() {
        for doc in [
            "null",
            "true",
            "-12",
            "18446744073709551615",
            "1.5e300",
            "-0.0",
            "0.1",
            "\"a\\\"b\\\\c\\n\\u0001\\u00e9,:{}[]\"",
            "[]",
            "{}",
            "[[],{},[[]],{\"a\":{}}]",
            "{\"b\":1,\"a\":2,\"b\":3,\"\":[1,2,{\"z\":null,\"y\":[true,false]}]}",
            "{\"\\u00e9\":1,\"e\":2,\"E\":3,\"a,b\":\"c:d\",\"k\\\"\":{\"x\":[]}}",
            "{\"teebatch_version\":\"0.1\",\"merged\":[{\"run\":{\"jobs\":2},\"file\":\"a\"}]}",
            "[1, 2 ,\n 3]",
        ] {
            check(doc);
        }
    }
}
