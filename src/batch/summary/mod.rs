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

mod counts;
pub mod demos;
mod inputs;
mod json_text;
mod kinds;
pub mod maps;
pub mod merge;
mod read;
pub mod shard;

pub use json_text::JsonText;

pub use demos::DemosAggregate;
pub use maps::MapsAggregate;
pub use shard::Shard;

pub(crate) use counts::sums;
pub use counts::{bump, list_top, merge_counts, one_line, sum, top};
pub use inputs::{InputPart, Inputs, InputsMerger, MissingShards, Walk};
pub use kinds::{add_outcome, digest_kinds, merge_kinds, ByKind, Examples, KindStats, Kinds};
pub use read::{from_bytes, read_header, LoadError, MAX_SUMMARY_BYTES};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
