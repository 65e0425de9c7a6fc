//! Reading a summary document for `teebatch merge`: the file, bounded in
//! size; its header (format, version, command), checked; the typed summary,
//! parsed without a JSON tree.

use super::{
    Aggregate, CountingOptions, Inputs, JsonText, Summary, DEMOS_INDEX, FORMAT, MAPS_INDEX, VERSION,
};
use serde::Deserialize;
use std::fmt;
use std::path::Path;

/// Why a file could not be merged.
#[derive(Debug)]
pub enum LoadError {
    /// Not readable, not JSON, not a summary, or a summary with bad fields.
    BadFile(String),
    /// A summary that cannot be merged with the others: another command or
    /// another format version.
    Incompatible(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::BadFile(m) | LoadError::Incompatible(m) => f.write_str(m),
        }
    }
}

/// The largest summary document `teebatch merge` reads (256 MiB; a
/// summary of a million maps is about 150 MB, nearly all of it
/// `paths_by_sha256`).
pub const MAX_SUMMARY_BYTES: u64 = 256 << 20;

/// The bytes of the summary file at `path`: a regular file of at most
/// [`MAX_SUMMARY_BYTES`] (checked before reading), or a pipe (`<(...)`)
/// read up to that limit. A device (`/dev/zero`), a socket or a directory
/// is refused without reading.
fn read_summary_file(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    let meta = std::fs::metadata(path)?;
    let too_large = || {
        Error::new(
            ErrorKind::InvalidData,
            format!("larger than the {MAX_SUMMARY_BYTES} byte limit of a summary"),
        )
    };
    let ty = meta.file_type();
    #[cfg(unix)]
    let is_pipe = std::os::unix::fs::FileTypeExt::is_fifo(&ty);
    #[cfg(not(unix))]
    let is_pipe = false;
    if ty.is_dir() {
        return Err(Error::new(ErrorKind::IsADirectory, "is a directory"));
    }
    if !ty.is_file() && !is_pipe {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not a summary file: neither a regular file nor a pipe",
        ));
    }
    if meta.len() > MAX_SUMMARY_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(if ty.is_file() { meta.len() as usize } else { 0 });
    read_at_most(std::fs::File::open(path)?, MAX_SUMMARY_BYTES, &mut bytes)?;
    if bytes.len() as u64 > MAX_SUMMARY_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Appends what `reader` gives to `out`, stopping one byte past `limit`
/// (so a longer input is seen as longer; an endless one ends).
pub(crate) fn read_at_most(
    reader: impl std::io::Read,
    limit: u64,
    out: &mut Vec<u8>,
) -> std::io::Result<usize> {
    use std::io::Read;
    reader.take(limit.saturating_add(1)).read_to_end(out)
}

/// A header field as [`read_header`] looks at it: a string, an unsigned
/// integer, or anything else (skipped without being kept).
#[derive(Default)]
enum HeaderField {
    Str(String),
    U64(u64),
    #[default]
    Other,
}

impl<'de> Deserialize<'de> for HeaderField {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = HeaderField;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, v: &str) -> Result<HeaderField, E> {
                Ok(HeaderField::Str(v.to_owned()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<HeaderField, E> {
                Ok(HeaderField::U64(v))
            }
            fn visit_i64<E>(self, _: i64) -> Result<HeaderField, E> {
                Ok(HeaderField::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<HeaderField, E> {
                Ok(HeaderField::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<HeaderField, E> {
                Ok(HeaderField::Other)
            }
            fn visit_unit<E>(self) -> Result<HeaderField, E> {
                Ok(HeaderField::Other)
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                s: S,
            ) -> Result<HeaderField, S::Error> {
                serde::de::IgnoredAny.visit_seq(s)?;
                Ok(HeaderField::Other)
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                m: M,
            ) -> Result<HeaderField, M::Error> {
                serde::de::IgnoredAny.visit_map(m)?;
                Ok(HeaderField::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// The header of a summary document (`format`, `version`, `command`; the
/// last of repeated keys, as a JSON value keeps), read in one pass that
/// keeps nothing else: every other field is skipped unbuilt.
#[derive(Default)]
struct Header {
    format: HeaderField,
    version: HeaderField,
    command: HeaderField,
}

impl<'de> Deserialize<'de> for Header {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Header;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON document")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(self, mut m: M) -> Result<Header, M::Error> {
                let mut h = Header::default();
                while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*k {
                        "format" => h.format = m.next_value()?,
                        "version" => h.version = m.next_value()?,
                        "command" => h.command = m.next_value()?,
                        _ => {
                            m.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(h)
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(self, s: S) -> Result<Header, S::Error> {
                serde::de::IgnoredAny.visit_seq(s)?;
                Ok(Header::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Header, E> {
                Ok(Header::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Header, E> {
                Ok(Header::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Header, E> {
                Ok(Header::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Header, E> {
                Ok(Header::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Header, E> {
                Ok(Header::default())
            }
            fn visit_unit<E>(self) -> Result<Header, E> {
                Ok(Header::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// Reads a summary document and checks its header; returns the command
/// and the document's bytes. The document is parsed in full (so bad JSON
/// is found here) but only the header is kept: no tree of the document
/// is built.
pub fn read_header(path: &Path) -> Result<(String, Vec<u8>), LoadError> {
    let name = path.display();
    let bytes = read_summary_file(path).map_err(|e| LoadError::BadFile(format!("{name}: {e}")))?;
    let h: Header = serde_json::from_slice(&bytes)
        .map_err(|e| LoadError::BadFile(format!("{name}: not a teebatch summary: {e}")))?;
    if !matches!(&h.format, HeaderField::Str(f) if f == FORMAT) {
        return Err(LoadError::BadFile(format!(
            "{name}: not a teebatch summary (no \"format\": \"{FORMAT}\")"
        )));
    }
    match h.version {
        HeaderField::U64(n) if n == u64::from(VERSION) => {}
        HeaderField::U64(n) => {
            return Err(LoadError::Incompatible(format!(
                "{name}: summary format version {n}; this teebatch reads version {VERSION}"
            )))
        }
        _ => {
            return Err(LoadError::BadFile(format!(
                "{name}: summary without a numeric \"version\""
            )))
        }
    }
    let command = match h.command {
        HeaderField::Str(c) if c == MAPS_INDEX || c == DEMOS_INDEX => c,
        HeaderField::Str(c) => {
            return Err(LoadError::BadFile(format!(
                "{name}: summary of an unknown command {:?}",
                Some(c)
            )))
        }
        _ => {
            return Err(LoadError::BadFile(format!(
                "{name}: summary of an unknown command {:?}",
                None::<&str>
            )))
        }
    };
    Ok((command, bytes))
}

/// The typed summary of the document `bytes` read by [`read_header`],
/// with `run` as its canonical text ([`JsonText`]). Parsed straight from
/// the bytes in two passes (the aggregate, then inputs and `run`), each
/// skipping what the other keeps, so no JSON tree of the document is
/// built: memory is what the typed summary holds.
pub fn from_bytes<A: Aggregate>(
    path: &Path,
    bytes: &[u8],
) -> Result<(Summary<A>, JsonText), LoadError> {
    #[derive(Deserialize)]
    struct Rest {
        inputs: Inputs,
        #[serde(default)]
        options: CountingOptions,
        #[serde(default)]
        run: JsonText,
    }
    let bad =
        |e: serde_json::Error| LoadError::BadFile(format!("{}: bad summary: {e}", path.display()));
    let aggregate: A = serde_json::from_slice(bytes).map_err(bad)?;
    let rest: Rest = serde_json::from_slice(bytes).map_err(bad)?;
    Ok((
        Summary {
            format: FORMAT.to_owned(),
            version: VERSION,
            command: A::COMMAND.to_owned(),
            inputs: rest.inputs,
            options: rest.options,
            aggregate,
            run: serde_json::Value::Null,
        },
        rest.run,
    ))
}
