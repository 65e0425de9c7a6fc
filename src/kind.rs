//! The names of errors and warnings in reports.
//!
//! Every error and warning kind of every layer has one stable snake_case
//! name, returned by its `kind()` method (`truncated`, `tick_not_increasing`,
//! `snapshot.too_many_items` for a kind nested in another); a record pairs
//! it with the [`Stage`] that reported it. The names are public keys (record
//! fields, summary counts, Parquet columns): the test at the bottom holds
//! the full list, so renaming one is a visible change.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// Which layer reported an error or warning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Reading the file (too large, not a regular file, I/O).
    Io,
    /// Listing or extracting an archive member.
    Archive,
    /// The datafile container ([`crate::datafile`]).
    Datafile,
    /// The map view ([`crate::map`]).
    Map,
    /// The demo container: header and chunk framing ([`crate::demo`]).
    Demo,
    /// The demo stream: payloads, snapshots, ticks ([`crate::demo::stream`]).
    Stream,
    /// Message decoding in the demo analysis.
    Message,
    /// Player tracking in the demo analysis.
    Players,
    /// `demos export` itself.
    Export,
    /// Drawing a picture (`maps render`, thumbnails, `demos heatmap`).
    Render,
}

impl Stage {
    /// Every stage.
    pub const ALL: &'static [Stage] = &[
        Stage::Io,
        Stage::Archive,
        Stage::Datafile,
        Stage::Map,
        Stage::Demo,
        Stage::Stream,
        Stage::Message,
        Stage::Players,
        Stage::Export,
        Stage::Render,
    ];

    /// The stage's name in records: `io`, `archive`, `datafile`, `map`,
    /// `demo`, `stream`, `message`, `players`, `export`, `render`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Io => "io",
            Stage::Archive => "archive",
            Stage::Datafile => "datafile",
            Stage::Map => "map",
            Stage::Demo => "demo",
            Stage::Stream => "stream",
            Stage::Message => "message",
            Stage::Players => "players",
            Stage::Export => "export",
            Stage::Render => "render",
        }
    }
}

/// Stages order by name, so a map keyed by `(Stage, kind)` lists its keys
/// in the order of their `stage.kind` strings.
impl Ord for Stage {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for Stage {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Stage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Every `stage.kind` a record can carry, one per line (the golden list;
/// lines starting with `(` are kinds that only reach records nested in
/// another).
const KIND_NAMES: &str = include_str!("kind_names.txt");

/// An error or warning kind as counted in summaries: the stage that
/// reported it and its name. Written `stage.kind`; ordered as those strings
/// are (stage names, then kind names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KindKey {
    pub stage: Stage,
    pub kind: &'static str,
}

impl KindKey {
    pub fn new(stage: Stage, kind: &'static str) -> KindKey {
        KindKey { stage, kind }
    }

    /// The key written `stage.kind`, if it is one a record can carry.
    pub fn parse(s: &str) -> Option<KindKey> {
        static KNOWN: OnceLock<HashMap<&'static str, KindKey>> = OnceLock::new();
        let known = KNOWN.get_or_init(|| {
            KIND_NAMES
                .lines()
                .filter_map(|line| {
                    let (stage, kind) = line.split_once('.')?;
                    let stage = *Stage::ALL.iter().find(|s| s.name() == stage)?;
                    Some((line, KindKey { stage, kind }))
                })
                .collect()
        });
        known.get(s).copied()
    }
}

impl fmt::Display for KindKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.stage, self.kind)
    }
}

impl Serialize for KindKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for KindKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KindKey, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
        KindKey::parse(&s)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error or warning kind {s:?}")))
    }
}

/// The kind every layer's capped warning list ends with, in place of the
/// first warning left out ([`crate::warn::Warnings`]): the one name of
/// each layer's `TooManyWarnings` kind and of a [`crate::report::WarningRecord`]'s.
pub const TOO_MANY_WARNINGS: &str = "too_many_warnings";

/// The name of `k`, a kind of an inner layer's enum, behind `prefix`
/// (`"snapshot."` and `truncated`: `snapshot.truncated`), as a
/// `&'static str`: the names of all of `all` are made once, into `table`
/// (a `static` of the `kind_names!` arm that wraps the inner enum).
pub(crate) fn prefixed_kind<K: Copy + PartialEq + Send + Sync + 'static>(
    table: &'static OnceLock<Vec<(K, String)>>,
    prefix: &str,
    all: &[K],
    name: fn(K) -> &'static str,
    k: K,
) -> &'static str {
    let table = table.get_or_init(|| {
        all.iter()
            .map(|&k| (k, format!("{prefix}{}", name(k))))
            .collect()
    });
    table
        .iter()
        .find(|(inner, _)| *inner == k)
        .map(|(_, name)| name.as_str())
        .expect("kind_names! lists every kind in ALL")
}

/// Defines `kind()`, the stable name of each kind, for an enum of kinds.
/// The `match` is exhaustive, so a new variant does not compile until it
/// has a name. An arm is one of:
///
/// - `Variant => "name"`: a unit variant (the name may also be a constant,
///   such as [`TOO_MANY_WARNINGS`]);
/// - `Variant(_) => "name"`: a variant whose field is not a kind (one name
///   for all its values);
/// - `Variant(Inner)`: a variant wrapping another layer's kind enum (one
///   defined through `kind_names!`), named as that kind is;
/// - `Variant(Inner) => "prefix."`: the same, named by the prefix and that
///   kind's name (`snapshot.truncated`).
///
/// An enum of unit variants only also gets `ALL` (every variant); one that
/// wraps other kinds lists them in a hand-written `all()`.
macro_rules! kind_names {
    // The arms are read one at a time into `[...]`, the `match` arms.
    (@arms $ty:ty [$($done:tt)*]) => {
        impl $ty {
            /// The stable snake_case name of this kind in reports; an
            /// inner layer's kind is named as in that layer, or prefixed
            /// with the layer (`snapshot.truncated`).
            pub fn kind(self) -> &'static str {
                match self {
                    $($done)*
                }
            }
        }
    };
    (@arms $ty:ty [$($done:tt)*] $variant:ident => $name:expr $(, $($rest:tt)*)?) => {
        $crate::kind::kind_names!(@arms $ty [$($done)* Self::$variant => $name,] $($($rest)*)?);
    };
    (@arms $ty:ty [$($done:tt)*] $variant:ident(_) => $name:expr $(, $($rest:tt)*)?) => {
        $crate::kind::kind_names!(@arms $ty [$($done)* Self::$variant(_) => $name,] $($($rest)*)?);
    };
    (@arms $ty:ty [$($done:tt)*] $variant:ident($inner:ty) => $prefix:literal $(, $($rest:tt)*)?) => {
        $crate::kind::kind_names!(@arms $ty [$($done)* Self::$variant(k) => {
            static NAMES: ::std::sync::OnceLock<::std::vec::Vec<($inner, ::std::string::String)>> =
                ::std::sync::OnceLock::new();
            $crate::kind::prefixed_kind(&NAMES, $prefix, <$inner>::ALL, <$inner>::kind, k)
        }] $($($rest)*)?);
    };
    (@arms $ty:ty [$($done:tt)*] $variant:ident($inner:ty) $(, $($rest:tt)*)?) => {
        $crate::kind::kind_names!(@arms $ty [$($done)* Self::$variant(k) => <$inner>::kind(k),] $($($rest)*)?);
    };
    ($ty:ty { $($variant:ident => $name:expr),* $(,)? }) => {
        impl $ty {
            /// Every kind.
            pub const ALL: &'static [$ty] = &[$(<$ty>::$variant),*];
        }
        $crate::kind::kind_names!(@arms $ty [] $($variant => $name),*);
    };
    ($ty:ty { $($arms:tt)* }) => {
        $crate::kind::kind_names!(@arms $ty [] $($arms)*);
    };
}
pub(crate) use kind_names;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (stage, kind) a record can carry, as `stage.kind`, sorted.
    #[cfg(all(feature = "parquet", feature = "render"))]
    fn all_names() -> Vec<String> {
        use crate::codec::{huffman, snapshot, varint};
        use crate::demo::{self, message, stream};
        use crate::{datafile, map};
        let mut names = Vec::new();
        let mut add = |stage: Stage, kinds: Vec<&'static str>| {
            names.extend(kinds.into_iter().map(|k| format!("{stage}.{k}")));
        };
        add(
            Stage::Io,
            crate::report::IoKind::ALL
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        add(
            Stage::Archive,
            crate::batch::archive::ArchiveKind::ALL
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        #[cfg(feature = "parquet")]
        add(
            Stage::Export,
            crate::batch::export::ExportKind::ALL
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        #[cfg(feature = "render")]
        add(
            Stage::Render,
            crate::render::RenderKind::ALL
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        let df_errors: Vec<_> = datafile::ErrorKind::ALL.iter().map(|k| k.kind()).collect();
        add(Stage::Datafile, df_errors.clone());
        add(
            Stage::Datafile,
            datafile::WarningKind::ALL
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        let map_errors = map::MapErrorKind::all();
        add(Stage::Map, map_errors.iter().map(|k| k.kind()).collect());
        add(
            Stage::Map,
            map::MapWarningKind::ALL.iter().map(|k| k.kind()).collect(),
        );
        add(
            Stage::Demo,
            demo::DemoErrorKind::ALL.iter().map(|k| k.kind()).collect(),
        );
        add(
            Stage::Demo,
            demo::DemoWarningKind::ALL
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        add(
            Stage::Stream,
            stream::StreamErrorKind::all()
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        add(
            Stage::Stream,
            stream::StreamWarningKind::all()
                .iter()
                .map(|k| k.kind())
                .collect(),
        );
        let analysis = demo::analysis::AnalysisWarningKind::all();
        let (players, messages): (Vec<demo::analysis::AnalysisWarningKind>, Vec<_>) = analysis
            .into_iter()
            .partition(|k| matches!(k, demo::analysis::AnalysisWarningKind::Player(_)));
        add(Stage::Message, messages.iter().map(|k| k.kind()).collect());
        add(Stage::Players, players.iter().map(|k| k.kind()).collect());
        add(Stage::Players, vec![TOO_MANY_WARNINGS]);
        // Kinds that are not record kinds of their own but have names.
        let inner = [
            (
                "codec.huffman",
                huffman::HuffmanErrorKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect::<Vec<_>>(),
            ),
            (
                "codec.varint",
                varint::VarintErrorKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
            (
                "codec.varint_warning",
                varint::VarintWarningKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
            (
                "codec.snapshot",
                snapshot::ErrorKind::ALL.iter().map(|k| k.kind()).collect(),
            ),
            (
                "codec.snapshot_warning",
                snapshot::WarningKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
            (
                "message",
                message::MessageErrorKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
            (
                "message_warning",
                message::MessageWarningKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
            (
                "players",
                demo::players::PlayerWarningKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
            (
                "write",
                demo::write::WriteErrorKind::all()
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
            (
                "tiles",
                map::tiles::SkipErrorKind::ALL
                    .iter()
                    .map(|k| k.kind())
                    .collect(),
            ),
        ];
        for (what, kinds) in inner {
            names.extend(kinds.into_iter().map(|k| format!("({what}).{k}")));
        }
        // `map.limit_exceeded` is both the datafile's and the map's own.
        names.sort();
        names.dedup();
        names
    }

    /// (The export and render kinds are in the list: with their features.)
    #[cfg(all(feature = "parquet", feature = "render"))]
    #[test]
    fn kind_names_are_the_golden_list() {
        let got = all_names();
        let want: Vec<String> = GOLDEN.lines().map(str::to_owned).collect();
        assert_eq!(
            got,
            want,
            "kind names changed; the new list:\n{}",
            got.join("\n")
        );
    }

    #[test]
    fn stage_names_are_distinct_and_ordered_by_name() {
        let mut by_name: Vec<_> = Stage::ALL.iter().map(|s| s.name()).collect();
        by_name.sort();
        let mut by_ord = Stage::ALL.to_vec();
        by_ord.sort();
        let by_ord: Vec<_> = by_ord.iter().map(|s| s.name()).collect();
        assert_eq!(by_name, by_ord);
        by_name.dedup();
        assert_eq!(by_name.len(), Stage::ALL.len());
        assert_eq!(
            serde_json::to_string(&Stage::Players).unwrap(),
            "\"players\""
        );
    }

    /// One `stage.kind` per line; `(layer).kind` for kinds that reach a
    /// record only inside another (`stream.huffman.missing_eof`) or not at
    /// all (the demo writer's).
    const GOLDEN: &str = KIND_NAMES;

    #[test]
    fn kind_keys_order_and_read_back_as_their_strings() {
        let mut keys: Vec<KindKey> = GOLDEN.lines().filter_map(KindKey::parse).collect();
        assert_eq!(
            keys.len(),
            GOLDEN.lines().filter(|l| !l.starts_with('(')).count()
        );
        keys.sort();
        let strings: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        let mut sorted = strings.clone();
        sorted.sort();
        assert_eq!(strings, sorted);
        for k in &keys {
            let json = serde_json::to_string(k).unwrap();
            assert_eq!(serde_json::from_str::<KindKey>(&json).unwrap(), *k);
        }
        assert_eq!(KindKey::parse("map.no_such_kind"), None);
        assert_eq!(
            KindKey::parse("stream.huffman.missing_eof"),
            Some(KindKey::new(Stage::Stream, "huffman.missing_eof"))
        );
    }
}
