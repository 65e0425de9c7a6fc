//! `maps check`: the rules of [`crate::map::check`] over a collection.
//!
//! Per map, in input order: one [`CheckRecord::Finding`] per finding (by
//! rule, in [`RULES`] order), then one [`CheckRecord::Map`] with the map's
//! counts (and its error, if it could not be read). The run's
//! [`CheckSummary`] counts findings per rule and severity.
//!
//! Exit status (as a linter's): the run fails when a map has a finding of
//! severity `error`, when a map could not be read, or when nothing was
//! found ([`CheckRun::is_failure`]).

use super::load;
use super::maps::Worker;
use super::record::ErrorRecord;
use super::run::{Observer, RunOutcome, Selection};
use super::sink::RecordSink;
use super::{run_ordered, Input};
use crate::datafile::Datafile;
use crate::limits::Limits;
use crate::map::check::{check_map, Finding, RuleSet, Severity, RULES};
use crate::map::{absent_reason, LoadOptions, Map};
use crate::warn::Discard;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io;
use std::time::Instant;

/// Options of a `maps check` run.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The rules to apply.
    pub rules: RuleSet,
    pub mmap: super::MmapMode,
    pub limits: Limits,
    /// Worker threads (`None` or 0: all cores; capped at the inputs).
    pub jobs: Option<usize>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            rules: RuleSet::ALL,
            mmap: super::MmapMode::default(),
            limits: Limits::default(),
            jobs: None,
        }
    }
}

/// One finding of one map (`"record": "finding"`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FindingRecord {
    pub record: &'static str,
    pub path: String,
    #[serde(flatten)]
    pub finding: Finding,
}

/// The end of one map's findings (`"record": "map"`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MapCheckRecord {
    pub record: &'static str,
    pub path: String,
    pub name: String,
    pub size: u64,
    /// Findings, all severities (kept or not).
    pub findings: u64,
    pub errors: u64,
    pub warnings: u64,
    pub infos: u64,
    /// Findings counted but not written (over
    /// [`crate::map::check::MAX_FINDINGS_PER_RULE`] for a rule).
    pub dropped: u64,
    /// Findings per rule id (rules with findings only).
    pub rules: BTreeMap<&'static str, u64>,
    /// Why the file has no map part (`no_version_item`, `no_layers`):
    /// nothing to check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub absent: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
}

/// A record of a `maps check` run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum CheckRecord {
    Finding(FindingRecord),
    Map(MapCheckRecord),
}

impl CheckRecord {
    /// The record as one line of text (`--format text`):
    /// `PATH:LOCATION: SEVERITY[RULE]: MESSAGE` for a finding,
    /// `PATH: N findings (E errors, W warnings, I info)` for a map.
    pub(crate) fn text_line(&self) -> String {
        match self {
            CheckRecord::Finding(f) => {
                let l = &f.finding.location;
                let mut at = String::new();
                if let Some(i) = l.layer {
                    at.push_str(&format!(
                        " layer {i} {:?} ({})",
                        l.layer_name.as_deref().unwrap_or(""),
                        l.layer_kind.unwrap_or("")
                    ));
                }
                if let (Some(x), Some(y)) = (l.x, l.y) {
                    at.push_str(&format!(" x {x} y {y}"));
                }
                for (what, v) in [
                    ("image", l.image),
                    ("envelope", l.envelope),
                    ("sound", l.sound),
                    ("setting", l.setting),
                ] {
                    if let Some(v) = v {
                        at.push_str(&format!(" {what} {v}"));
                    }
                }
                format!(
                    "{}:{}: {}[{}]: {}",
                    f.path,
                    if at.is_empty() { " map".into() } else { at },
                    f.finding.severity.name(),
                    f.finding.rule,
                    f.finding.message
                )
            }
            CheckRecord::Map(m) => {
                if let Some(e) = &m.error {
                    format!(
                        "{}: failed: {} {}: {}",
                        m.path,
                        e.stage.name(),
                        e.kind,
                        e.message
                    )
                } else if let Some(a) = m.absent {
                    format!("{}: no map part ({a}): not checked", m.path)
                } else {
                    format!(
                        "{}: {} findings ({} errors, {} warnings, {} info{})",
                        m.path,
                        m.findings,
                        m.errors,
                        m.warnings,
                        m.infos,
                        if m.dropped > 0 {
                            format!("; {} not listed", m.dropped)
                        } else {
                            String::new()
                        }
                    )
                }
            }
        }
    }
}

/// One rule's line of the summary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    pub id: &'static str,
    pub severity: Severity,
    pub findings: u64,
    /// Maps with at least one finding of the rule.
    pub maps: u64,
}

/// The summary of a run (`maps check --summary FILE`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CheckSummary {
    pub command: &'static str,
    pub files: u64,
    /// Maps checked (read, with or without findings).
    pub ok: u64,
    /// Maps that could not be read.
    pub failed: u64,
    /// Files without a map part (not checked).
    pub absent: u64,
    /// Maps with at least one error finding.
    pub maps_with_errors: u64,
    /// Findings per severity (`error`, `warning`, `info`).
    pub findings: BTreeMap<&'static str, u64>,
    /// Every rule applied, in rule order.
    pub rules: Vec<RuleCount>,
}

/// A finished `maps check` run.
#[derive(Debug)]
pub struct CheckRun {
    pub summary: CheckSummary,
    pub outcome: RunOutcome,
}

impl CheckRun {
    /// Writes the summary document (pretty JSON) to `path`, whole.
    pub fn write_summary(&self, path: &std::path::Path) -> io::Result<()> {
        let mut text = serde_json::to_vec_pretty(&self.summary).map_err(io::Error::from)?;
        text.push(b'\n');
        super::output::write_whole(path, &text)
    }

    /// Failed: an error finding, a map that could not be read, or nothing
    /// found.
    pub fn is_failure(&self) -> bool {
        self.outcome.is_failure() || self.summary.maps_with_errors > 0
    }

    /// The findings line on stderr.
    pub fn findings_line(&self) -> String {
        let s = &self.summary;
        let get = |k| s.findings.get(k).copied().unwrap_or(0);
        format!(
            "maps check: {} findings ({} errors, {} warnings, {} info); {} maps with errors",
            get("error") + get("warning") + get("info"),
            get("error"),
            get("warning"),
            get("info"),
            s.maps_with_errors
        )
    }
}

/// Checks one input: its findings and its map record.
pub(crate) fn check_input(w: &mut Worker, input: &Input, opts: &CheckOptions) -> Vec<CheckRecord> {
    let path = input.display_path();
    let mut rec = MapCheckRecord {
        record: "map",
        path: path.clone(),
        name: input.stem(),
        size: input.listed_size(),
        ..MapCheckRecord::default()
    };
    let mut out = Vec::new();
    if input.listed_size() > opts.limits.max_map_file_bytes {
        rec.error = Some(ErrorRecord::too_large(opts.limits.max_map_file_bytes));
        input.release();
        return vec![CheckRecord::Map(rec)];
    }
    let Worker {
        read_buf,
        data_buf,
        inflater,
    } = w;
    match load(input, opts.mmap, read_buf) {
        Ok(bytes) => {
            rec.size = bytes.len() as u64;
            inflater.start_file();
            match check_bytes(&bytes, opts.rules, inflater, data_buf) {
                Ok(Checked::Absent(a)) => rec.absent = Some(a),
                Ok(Checked::Map(c)) => {
                    rec.findings = c.counts.iter().sum();
                    rec.errors = c.of_severity(Severity::Error);
                    rec.warnings = c.of_severity(Severity::Warning);
                    rec.infos = c.of_severity(Severity::Info);
                    rec.dropped = c.dropped;
                    rec.rules = RULES
                        .iter()
                        .zip(&c.counts)
                        .filter(|(_, n)| **n > 0)
                        .map(|(r, n)| (r.id, *n))
                        .collect();
                    out.extend(c.findings.into_iter().map(|finding| {
                        CheckRecord::Finding(FindingRecord {
                            record: "finding",
                            path: path.clone(),
                            finding,
                        })
                    }));
                }
                Err(e) => rec.error = Some(e),
            }
        }
        Err(e) => rec.error = Some(ErrorRecord::io(&e)),
    }
    crate::limits::shrink_buffer(data_buf);
    crate::limits::shrink_buffer(read_buf);
    inflater.shrink_block_buffer(Limits::KEEP_WORKER_BUFFER_BYTES);
    out.push(CheckRecord::Map(rec));
    out
}

/// What [`check_bytes`] found.
pub enum Checked {
    /// No map part, and why.
    Absent(&'static str),
    Map(crate::map::check::MapCheck),
}

/// Checks the map in `bytes` (datafile and map errors as the error).
pub fn check_bytes(
    bytes: &[u8],
    rules: RuleSet,
    inflater: &mut crate::datafile::Inflater,
    scratch: &mut Vec<u8>,
) -> Result<Checked, ErrorRecord> {
    let df = Datafile::parse(bytes).map_err(|e| ErrorRecord::datafile(&e))?;
    if let Some(a) = absent_reason(&df) {
        return Ok(Checked::Absent(a.name()));
    }
    let map = match Map::parse_opts(&df, inflater, scratch, LoadOptions::FULL, &mut Discard) {
        Ok(Some(m)) => m,
        Ok(None) => return Ok(Checked::Absent("no_version_item")),
        Err(e) => return Err(ErrorRecord::map(&e)),
    };
    check_map(&df, &map, rules, inflater, scratch)
        .map(Checked::Map)
        .map_err(|e| ErrorRecord::map(&e))
}

/// How `maps check` writes its records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum CheckFormat {
    /// One JSON object per line (`json` is the same).
    #[cfg_attr(feature = "cli", value(name = "jsonl", alias = "json"))]
    Jsonl,
    /// `PATH: LOCATION: SEVERITY[RULE]: MESSAGE`.
    Text,
}

/// [`run`] with the records written to `out` in `format`, flushed at the
/// end.
pub fn write(
    sel: &Selection,
    opts: &CheckOptions,
    format: CheckFormat,
    out: &mut dyn io::Write,
    observer: &mut dyn Observer,
) -> io::Result<CheckRun> {
    let run = run(
        sel,
        opts,
        &mut |r: &CheckRecord| match format {
            CheckFormat::Text => writeln!(out, "{}", r.text_line()),
            CheckFormat::Jsonl => super::sink::write_json_line(out, r),
        },
        observer,
    )?;
    out.flush()?;
    Ok(run)
}

/// Checks every map of `sel`; the records reach `sink` in input order
/// (each map's findings, then its map record), `observer` after each map.
/// A write error of the sink stops the run and is returned.
pub fn run(
    sel: &Selection,
    opts: &CheckOptions,
    sink: &mut dyn RecordSink<CheckRecord>,
    observer: &mut dyn Observer,
) -> io::Result<CheckRun> {
    let jobs = Limits::cap_jobs(opts.jobs, sel.inputs.len());
    let mut write_err = None;
    let mut outcome = RunOutcome::start("maps check", sel, jobs);
    let mut summary = CheckSummary {
        command: "maps check",
        ..CheckSummary::default()
    };
    let mut per_rule = vec![(0u64, 0u64); RULES.len()];
    let start = Instant::now();
    run_ordered(
        &sel.inputs,
        jobs,
        || Worker::new(opts.limits),
        |w, _, input| check_input(w, input, opts),
        |_, recs: Vec<CheckRecord>| {
            for r in &recs {
                if let CheckRecord::Map(m) = r {
                    outcome.count_file(m.size, m.error.is_some());
                    summary.absent += m.absent.is_some() as u64;
                    summary.maps_with_errors += (m.errors > 0) as u64;
                    for (i, r) in RULES.iter().enumerate() {
                        if let Some(&n) = m.rules.get(r.id) {
                            per_rule[i].0 += n;
                            per_rule[i].1 += 1;
                        }
                    }
                    observer.file_done(m.size, &|| m.path.clone());
                }
                if super::run::written(sink.write(r), &mut write_err).is_break() {
                    return std::ops::ControlFlow::Break(());
                }
            }
            std::ops::ControlFlow::Continue(())
        },
    );
    if let Some(e) = write_err {
        return Err(e);
    }
    outcome.elapsed_s = start.elapsed().as_secs_f64();
    // The maps are counted once, in the outcome.
    (summary.files, summary.ok, summary.failed) = (outcome.files, outcome.ok, outcome.failed);
    for (i, r) in RULES.iter().enumerate() {
        if !opts.rules.contains(i) {
            continue;
        }
        let (findings, maps) = per_rule[i];
        *summary.findings.entry(r.severity.name()).or_default() += findings;
        summary.rules.push(RuleCount {
            id: r.id,
            severity: r.severity,
            findings,
            maps,
        });
    }
    Ok(CheckRun { summary, outcome })
}
