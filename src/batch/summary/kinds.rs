//! Error and warning kinds (`stage.kind`) with their counts and the
//! smallest example paths, as a summary and a run's failure digest keep them.

use super::{one_line, sum, MAX_EXAMPLES};
use crate::kind::KindKey;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The smallest [`MAX_EXAMPLES`] paths seen (byte order): which paths are
/// kept does not depend on the order they come in, so merging is exact.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(into = "BTreeSet<String>")]
pub struct Examples(BTreeSet<String>);

/// Read as a list of paths, keeping the smallest [`MAX_EXAMPLES`] as they
/// come: a long list in a file costs no more than its ten.
impl<'de> Deserialize<'de> for Examples {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Examples;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of paths")
            }
            fn visit_seq<S: serde::de::SeqAccess<'de>>(
                self,
                mut s: S,
            ) -> Result<Examples, S::Error> {
                let mut e = Examples::default();
                while let Some(p) = s.next_element::<std::borrow::Cow<'de, str>>()? {
                    e.insert(&p);
                }
                Ok(e)
            }
        }
        d.deserialize_seq(V)
    }
}

impl From<Examples> for BTreeSet<String> {
    fn from(e: Examples) -> Self {
        e.0
    }
}

impl Examples {
    pub fn insert(&mut self, path: &str) {
        if self.0.len() >= MAX_EXAMPLES {
            match self.0.last() {
                Some(last) if path < last.as_str() => {}
                _ => return,
            }
        }
        if self.0.insert(path.to_owned()) && self.0.len() > MAX_EXAMPLES {
            self.0.pop_last();
        }
    }

    pub fn merge(&mut self, other: Examples) {
        for p in other.0 {
            self.insert(&p);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }
}

/// How often an error or warning kind occurred, with example paths.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindStats {
    pub count: u64,
    pub examples: Examples,
}

/// Error or warning kinds, written `stage.kind`.
pub type ByKind = BTreeMap<KindKey, KindStats>;

/// Counts one occurrence of `kind` in the file at `path`.
/// Counts one record's outcome: its error (one file under `stage.kind`) and
/// its warnings (occurrences per `stage.kind`), each with `path` as an
/// example. Returns whether the file failed.
pub fn add_outcome(
    errors: &mut ByKind,
    warnings: &mut ByKind,
    path: &str,
    error: Option<&crate::batch::record::ErrorRecord>,
    warning_records: &[crate::batch::record::WarningRecord],
) -> bool {
    if let Some(e) = error {
        add_kind(errors, KindKey::new(e.stage, e.kind), path);
    }
    for w in warning_records {
        add_kind(warnings, KindKey::new(w.stage, w.kind), path);
    }
    error.is_some()
}

pub(crate) fn add_kind(map: &mut ByKind, kind: KindKey, path: &str) {
    let k = map.entry(kind).or_default();
    k.count = k.count.saturating_add(1);
    k.examples.insert(path);
}

/// Adds the kinds of `other` (`field`: `errors` or `warnings`, for the
/// error on overflow).
pub fn merge_kinds(into: &mut ByKind, other: ByKind, field: &str) -> Result<(), String> {
    for (k, v) in other {
        let e = into.entry(k).or_default();
        sum(&mut e.count, v.count, || format!("{field}[\"{k}\"].count"))?;
        e.examples.merge(v.examples);
    }
    Ok(())
}

/// One line per error and warning kind: count and the first example.
pub fn digest_kinds(out: &mut Vec<String>, what: &str, kinds: &ByKind) {
    for (k, v) in kinds {
        let ex = v.examples.iter().next().unwrap_or("");
        out.push(format!("{what} {k}: {} (e.g. {})", v.count, one_line(ex)));
    }
}

/// The errors and warnings of a run's records by kind, with example
/// paths: the failure digest of `maps render` and `demos heatmap`, in the
/// lines `maps index` prints ([`digest_kinds`]). Bounded by the kinds
/// (each keeps [`MAX_EXAMPLES`] paths), whatever the number of files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kinds {
    pub errors: ByKind,
    pub warnings: ByKind,
}

impl Kinds {
    /// Counts one record's error and warnings, with `path` as example.
    pub fn add(
        &mut self,
        path: &str,
        error: Option<&crate::batch::record::ErrorRecord>,
        warnings: &[crate::batch::record::WarningRecord],
    ) {
        add_outcome(&mut self.errors, &mut self.warnings, path, error, warnings);
    }

    /// Counts one record's error and warnings, with its path as example.
    pub fn add_record<B>(&mut self, rec: &crate::batch::record::Record<B>) {
        self.add(&rec.path, rec.error.as_ref(), &rec.warnings);
    }

    /// One line per error kind, then per warning kind: count and the
    /// first example path.
    pub fn digest(&self) -> Vec<String> {
        let mut out = Vec::new();
        digest_kinds(&mut out, "error", &self.errors);
        digest_kinds(&mut out, "warning", &self.warnings);
        out
    }
}
