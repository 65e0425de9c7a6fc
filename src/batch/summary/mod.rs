//! Collection aggregates: the `--summary` document of `maps index` and
//! `demos index`, and `teebatch merge`.
//!
//! An aggregate is folded per worker from each finished record
//! ([`Aggregate::add`], no lock on the hot path) and the workers' aggregates
//! are combined by [`Aggregate::merge`], which is associative and
//! commutative: every field is a sum, a count, a min/max, a union of sets or
//! a bounded set of the smallest example paths. So a collection split in
//! any way (workers, `--shard K/N` runs on several machines) and merged back
//! gives the same aggregate as one run over all of it.
//!
//! The document ([`Summary`]) is versioned (`format`, `version`, `command`),
//! has sorted keys and integers only. What differs between two runs over the
//! same files (elapsed time, rates, jobs, host, start time, teebatch
//! version) is in the top-level `run` object; [`Inputs`] records which
//! inputs (PATH arguments, `--files-from` sources, shard) were covered, so
//! that merging a part twice or overlapping shards is refused.

pub mod demos;
mod json_text;
pub mod maps;
pub mod merge;
pub mod shard;

pub use json_text::JsonText;

pub use demos::DemosAggregate;
pub use maps::MapsAggregate;
pub use shard::Shard;

use crate::kind::KindKey;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

/// The `format` field of every summary document.
pub(crate) const FORMAT: &str = "teebatch-summary";
/// The document version this teebatch reads and writes.
pub const VERSION: u32 = 1;
/// Example paths kept per error or warning kind (the smallest ones).
pub const MAX_EXAMPLES: usize = 10;
/// The `command` of a `maps index` summary.
pub const MAPS_INDEX: &str = "maps index";
/// The `command` of a `demos index` summary.
pub const DEMOS_INDEX: &str = "demos index";

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

/// A collection aggregate of one batch command.
pub trait Aggregate: Default + Serialize + DeserializeOwned + Send {
    /// `maps index` or `demos index`.
    const COMMAND: &'static str;
    /// What one file gives.
    type Record;
    /// Folds one finished record in.
    fn add(&mut self, rec: &Self::Record);
    /// Adds `other` (associative and commutative). An error says the two
    /// cover the same file (where the aggregate can tell; `self` is then
    /// unchanged) or names a count whose sum overflows 64 bits (`self` is
    /// then partly merged: drop it).
    fn merge(&mut self, other: Self) -> Result<(), String>;
    /// Computes the derived fields (duplicates, ...) before writing.
    fn finish(&mut self);
    /// A few human-readable lines.
    fn digest(&self) -> Vec<String>;
    /// Files, ok, failed.
    fn file_counts(&self) -> (u64, u64, u64);
    /// Bytes of all files (as read, else as listed).
    fn bytes(&self) -> u64;
}

/// Which inputs one run (one part) covered.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InputPart {
    /// PATH arguments as given (as records show paths: [`crate::batch::encode_path`],
    /// so different paths stay different), sorted. With no paths and no `files_from`,
    /// the embedded default dataset.
    pub paths: Vec<String>,
    /// `--files-from` sources as given (`-` for stdin), encoded as `paths`.
    pub files_from: Vec<String>,
    /// `K/N` when the run kept one shard.
    pub shard: Option<Shard>,
    /// How directory PATHs were walked, when not by default. Left out of
    /// the document when default.
    #[serde(default, skip_serializing_if = "Walk::is_default")]
    pub walk: Walk,
}

/// The walk options that choose which files below a directory PATH are
/// taken (`--glob` and `--exclude` as `!GLOB`, in order, `--max-depth`,
/// `--no-follow`, `--hidden`): two runs over the same PATHs with
/// different walks are different inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Walk {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub globs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<usize>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_follow: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

impl Walk {
    pub(crate) fn is_default(&self) -> bool {
        *self == Walk::default()
    }
}

impl fmt::Display for Walk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for g in &self.globs {
            write!(f, " --glob {g}")?;
        }
        if let Some(d) = self.max_depth {
            write!(f, " --max-depth {d}")?;
        }
        if self.no_follow {
            write!(f, " --no-follow")?;
        }
        if self.hidden {
            write!(f, " --hidden")?;
        }
        Ok(())
    }
}

impl InputPart {
    pub fn new(
        paths: &[impl AsRef<Path>],
        files_from: &[impl AsRef<Path>],
        shard: Option<Shard>,
    ) -> Self {
        let s = |p: &dyn AsRef<Path>| crate::batch::encode_path(p.as_ref());
        let mut paths: Vec<String> = paths.iter().map(|p| s(p)).collect();
        paths.sort();
        paths.dedup();
        InputPart {
            paths,
            files_from: files_from.iter().map(|p| s(p)).collect(),
            shard,
            walk: Walk::default(),
        }
    }

    /// This part with directory PATHs walked as `walk` says.
    pub fn with_walk(mut self, walk: Walk) -> Self {
        self.walk = walk;
        self
    }
}

impl fmt::Display for InputPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.paths.is_empty() && self.files_from.is_empty() {
            write!(f, "the embedded dataset")?;
        } else {
            let mut first = true;
            for p in &self.paths {
                write!(f, "{}{p}", if first { "" } else { " " })?;
                first = false;
            }
            for p in &self.files_from {
                write!(f, "{}--files-from {p}", if first { "" } else { " " })?;
                first = false;
            }
            write!(f, "{}", self.walk)?;
        }
        match &self.shard {
            Some(s) => write!(f, " (shard {s})"),
            None => write!(f, " (all files)"),
        }
    }
}

/// The inputs a summary covers: one part per run merged in, sorted. All N
/// shards of the same inputs collapse into one part without a shard.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    pub parts: Vec<InputPart>,
}

impl Inputs {
    pub fn one(part: InputPart) -> Self {
        Inputs { parts: vec![part] }
    }

    /// Adds the parts of `other`, refusing any part that covers files
    /// already covered: the same inputs twice, the same shard twice, all
    /// files and a shard of the same inputs, or shards of different N.
    /// Costs O((P + Q) log P) for P parts here and Q in `other`; to add
    /// many, use one [`InputsMerger`].
    pub fn merge(&mut self, other: Inputs) -> Result<(), String> {
        let mut m = InputsMerger::default();
        m.add_unchecked(std::mem::take(self));
        let r = m.add(other);
        *self = m.finish();
        r
    }
}

/// The inputs a part covers, without its shard.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Source {
    paths: Vec<String>,
    files_from: Vec<String>,
    walk: Walk,
}

#[cfg(test)]
thread_local! {
    /// Comparisons of two [`Source`]s on this thread (the work of merging
    /// inputs, counted by the scaling test).
    static SOURCE_COMPARISONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl Ord for Source {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        #[cfg(test)]
        SOURCE_COMPARISONS.with(|c| c.set(c.get() + 1));
        (&self.paths, &self.files_from, &self.walk).cmp(&(&o.paths, &o.files_from, &o.walk))
    }
}

impl PartialOrd for Source {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// The shards covering one [`Source`] (`None`: all its files), with how
/// many there are per shard count N.
#[derive(Default)]
struct Covered {
    shards: BTreeSet<Option<Shard>>,
    per_n: BTreeMap<u32, usize>,
}

/// Merges the [`Inputs`] of many summaries in time O(P log P) for P parts
/// in all (adding them one by one with [`Inputs::merge`] costs O(P^2)):
/// the parts are kept grouped by their inputs, so a part is checked
/// against the parts of the same inputs only, and a group whose N shards
/// are all present becomes one part without a shard when it is complete.
/// The result and the refusals (each naming the smallest part already
/// covered that a new part conflicts with) are those of [`Inputs::merge`]
/// applied in the same order.
#[derive(Default)]
pub struct InputsMerger {
    groups: BTreeMap<Source, Covered>,
}

impl InputsMerger {
    /// Adds the parts of `inputs` (one summary's), refusing any that
    /// covers files already covered (see [`Inputs::merge`]); nothing is
    /// added when one is refused.
    pub fn add(&mut self, inputs: Inputs) -> Result<(), String> {
        let part = |src: &Source, shard: Option<Shard>| InputPart {
            paths: src.paths.clone(),
            files_from: src.files_from.clone(),
            shard,
            walk: src.walk.clone(),
        };
        let mut sources = Vec::with_capacity(inputs.parts.len());
        // The conflict with the smallest part already here (then the
        // first new part), as a pairwise scan in that order finds it.
        let mut worst: Option<(InputPart, String)> = None;
        for b in inputs.parts {
            let src = Source {
                paths: b.paths,
                files_from: b.files_from,
                walk: b.walk,
            };
            if let Some(c) = self.groups.get(&src) {
                let y = b.shard;
                // Shards of the same N other than y are the only parts y
                // does not overlap.
                let clear = match y {
                    None => c.shards.is_empty(),
                    Some(y) => {
                        !c.shards.contains(&None)
                            && !c.shards.contains(&Some(y))
                            && c.per_n.keys().all(|&n| n == y.n)
                    }
                };
                if !clear {
                    let conflicts = |x: &Option<Shard>| match (x, y) {
                        (Some(x), Some(y)) => !(x.n == y.n && x.k != y.k),
                        _ => true,
                    };
                    let x = *c.shards.iter().find(|x| conflicts(x)).expect("a conflict");
                    let a = part(&src, x);
                    let b = part(&src, y);
                    let msg = match (x, y) {
                        (Some(x), Some(y)) if x == y => format!("{a} is already merged in"),
                        (Some(_), Some(_)) => format!(
                            "{a} and {b} split the same inputs in different numbers of shards, which overlap"
                        ),
                        _ => format!("{a} and {b} overlap (the same inputs)"),
                    };
                    if worst.as_ref().is_none_or(|(w, _)| a < *w) {
                        worst = Some((a, msg));
                    }
                }
            }
            sources.push((src, b.shard));
        }
        if let Some((_, msg)) = worst {
            return Err(msg);
        }
        for (src, shard) in sources {
            self.insert(src, shard);
        }
        Ok(())
    }

    /// Adds the parts of `inputs` unchecked (the first summary's: its
    /// parts are not checked against each other, as by [`Inputs::merge`]).
    pub fn add_unchecked(&mut self, inputs: Inputs) {
        for p in inputs.parts {
            let src = Source {
                paths: p.paths,
                files_from: p.files_from,
                walk: p.walk,
            };
            self.insert(src, p.shard);
        }
    }

    /// Adds one part, unchecked.
    fn insert(&mut self, src: Source, shard: Option<Shard>) {
        {
            let c = self.groups.entry(src).or_default();
            if c.shards.insert(shard) {
                if let Some(s) = shard {
                    *c.per_n.entry(s.n).or_default() += 1;
                }
            }
            // All N shards of N: one part without a shard.
            let complete = match (c.shards.first(), c.shards.last(), c.per_n.first_key_value()) {
                (Some(Some(first)), Some(Some(last)), Some((&n, &count))) => {
                    c.per_n.len() == 1
                        && count == c.shards.len()
                        && n as usize == count
                        && first.k == 1
                        && last.k == n
                }
                _ => false,
            };
            if complete {
                c.shards = BTreeSet::from([None]);
                c.per_n.clear();
            }
        }
    }

    /// The merged inputs, parts sorted.
    pub fn finish(self) -> Inputs {
        let mut parts = Vec::new();
        for (src, c) in self.groups {
            for shard in c.shards {
                parts.push(InputPart {
                    paths: src.paths.clone(),
                    files_from: src.files_from.clone(),
                    shard,
                    walk: src.walk.clone(),
                });
            }
        }
        parts.sort();
        Inputs { parts }
    }
}

/// The summary document: header, inputs, the aggregate's fields, `run`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Summary<A> {
    pub format: String,
    pub version: u32,
    pub command: String,
    pub inputs: Inputs,
    /// The options of the runs that change their counts (`--verify`,
    /// `--thumbnails`, the limits: see [`CountingOptions`]); summaries
    /// merge only when theirs are equal. Empty (left out) in documents of
    /// teebatch before 0.1.0's options were recorded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: CountingOptions,
    #[serde(flatten)]
    pub aggregate: A,
    /// Everything run-dependent; `null` where unknown.
    #[serde(default)]
    pub run: serde_json::Value,
}

impl<A: Aggregate> Summary<A> {
    /// The summary of one run over `part` (derived fields computed).
    pub fn new(part: InputPart, mut aggregate: A, run: serde_json::Value) -> Self {
        aggregate.finish();
        Summary {
            format: FORMAT.to_owned(),
            version: VERSION,
            command: A::COMMAND.to_owned(),
            inputs: Inputs::one(part),
            options: CountingOptions::new(),
            aggregate,
            run,
        }
    }

    /// This summary with `options` recorded.
    pub fn with_options(mut self, options: CountingOptions) -> Self {
        self.options = options;
        self
    }

    /// Adds `other` (inputs and aggregate; `run` is left to the caller).
    /// Unchanged when refused for its inputs; partly merged when a count
    /// overflows (see [`Aggregate::merge`]).
    pub fn merge(&mut self, other: Summary<A>) -> Result<(), String> {
        same_options(&self.options, &other.options)?;
        let mut inputs = self.inputs.clone();
        inputs.merge(other.inputs)?;
        self.aggregate.merge(other.aggregate)?;
        self.inputs = inputs;
        self.aggregate.finish();
        Ok(())
    }

    /// The document as a JSON value without `run` (for comparisons).
    pub fn without_run(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("summary serialises");
        if let Some(o) = v.as_object_mut() {
            o.remove("run");
        }
        v
    }
}

/// The options of a run that change what its summary counts, by name
/// (`verify`, `thumbnails`, `max_warnings`, ...), as text.
pub type CountingOptions = BTreeMap<String, String>;

/// [`CountingOptions`] of `(name, value)` pairs.
pub fn counting_options<'a>(pairs: impl IntoIterator<Item = (&'a str, String)>) -> CountingOptions {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// Refuses to merge summaries whose runs counted differently: the first
/// option that differs, with both values.
pub fn same_options(a: &CountingOptions, b: &CountingOptions) -> Result<(), String> {
    if a == b {
        return Ok(());
    }
    let shown = |o: &CountingOptions, k: &str| match o.get(k) {
        Some(v) => format!("{k}={v}"),
        None if o.is_empty() => "none recorded (a summary of an older teebatch)".to_owned(),
        None => format!("no {k}"),
    };
    let key = a
        .keys()
        .chain(b.keys())
        .find(|k| a.get(*k) != b.get(*k))
        .map_or("", String::as_str);
    Err(format!(
        "the runs were made with options that change the counts: {} against {}",
        shown(a, key),
        shown(b, key)
    ))
}

/// Shards missing from a set of inputs a summary has some shards of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingShards {
    /// The inputs, as a part shows them (`maps --glob *.map`).
    pub inputs: String,
    pub shards: Vec<Shard>,
}

impl fmt::Display for MissingShards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.shards.iter().map(ToString::to_string).collect();
        write!(
            f,
            "shard{} {} of {} missing: the merged summary covers part of those inputs",
            if self.shards.len() == 1 { "" } else { "s" },
            list.join(", "),
            self.inputs
        )
    }
}

impl Inputs {
    /// The shards missing from each set of inputs this summary has some
    /// but not all shards of, sorted.
    pub fn missing_shards(&self) -> Vec<MissingShards> {
        let mut groups: BTreeMap<(Source, u32), BTreeSet<u32>> = BTreeMap::new();
        for p in &self.parts {
            if let Some(s) = p.shard {
                let src = Source {
                    paths: p.paths.clone(),
                    files_from: p.files_from.clone(),
                    walk: p.walk.clone(),
                };
                groups.entry((src, s.n)).or_default().insert(s.k);
            }
        }
        groups
            .into_iter()
            .map(|((src, n), have)| {
                let part = InputPart {
                    paths: src.paths,
                    files_from: src.files_from,
                    shard: None,
                    walk: src.walk,
                };
                let shown = part.to_string();
                let shown = shown.trim_end_matches(" (all files)").to_owned();
                let shards = (1..=n)
                    .filter(|k| !have.contains(k))
                    .map(|k| Shard { k, n })
                    .collect();
                MissingShards {
                    inputs: shown,
                    shards,
                }
            })
            .collect()
    }
}

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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn paths_that_differ_only_in_invalid_utf8_stay_different() {
        let a = Path::new(OsStr::from_bytes(b"/runs/\xff"));
        let b = Path::new(OsStr::from_bytes(b"/runs/\xfe"));
        let part = InputPart::new(&[a, b, a], &[b], None);
        assert_eq!(part.paths.len(), 2, "{:?}", part.paths);
        assert_ne!(part.paths[0], part.paths[1]);
        assert_eq!(
            part.paths,
            vec![crate::batch::encode_path(b), crate::batch::encode_path(a)]
        );
        assert_eq!(part.files_from, vec![crate::batch::encode_path(b)]);
        // UTF-8 paths are kept as given.
        let part = InputPart::new(&["maps/b", "maps/a"], &["-"], None);
        assert_eq!(part.paths, ["maps/a", "maps/b"]);
        assert_eq!(part.files_from, ["-"]);
    }
}

#[cfg(test)]
mod scaling_tests {
    use super::*;

    /// Comparisons of inputs to merge `n` summaries of different inputs
    /// and then the `n` shards of one more, as `merge` does.
    fn merge_work(n: u32, one_by_one: bool) -> u64 {
        let before = SOURCE_COMPARISONS.with(|c| c.get());
        let none: &[&str] = &[];
        let parts = (0..n)
            .map(|i| InputPart::new(&[format!("maps/{i}")], none, None))
            .chain((1..=n).map(|k| InputPart::new(&["all"], none, Some(Shard { k, n }))));
        let merged = if one_by_one {
            let mut m = Inputs::default();
            for p in parts {
                m.merge(Inputs::one(p)).unwrap();
            }
            m
        } else {
            let mut m = InputsMerger::default();
            for p in parts {
                m.add(Inputs::one(p)).unwrap();
            }
            m.finish()
        };
        assert_eq!(merged.parts.len(), n as usize + 1);
        assert_eq!(merged.parts[0].paths, ["all"]);
        assert_eq!(merged.parts[0].shard, None);
        SOURCE_COMPARISONS.with(|c| c.get()) - before
    }

    /// Merging the inputs of 2n summaries costs at most 2.5 times the
    /// comparisons of n (O(P log P)); adding them one by one to an
    /// [`Inputs`] is quadratic (4 times), as `merge` did.
    #[test]
    fn merging_inputs_is_linear_in_the_parts() {
        let (small, large) = (merge_work(2000, false), merge_work(4000, false));
        assert!(
            large * 10 <= small * 25,
            "{small} comparisons for 2 x 2000 parts, {large} for 2 x 4000"
        );
        let (small, large) = (merge_work(500, true), merge_work(1000, true));
        assert!(large > small * 3, "one by one: {small}, {large}");
    }
}
