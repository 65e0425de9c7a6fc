//! One run of a batch command over a selection of inputs: the shared
//! loop ([`run_records`]), what a run reports ([`RunOutcome`]: the stderr
//! line and the exit status, derived in one place) and how a caller follows
//! it ([`Observer`]).
//!
//! The runs of the commands ([`super::maps::run`], [`super::demos::run`],
//! [`super::render::run`], [`super::heat::run`]) take plain values: the
//! [`Selection`], an options struct, a [`RecordSink`] and an [`Observer`];
//! nothing in them needs the command line.

use super::record::Record;
use super::sink::RecordSink;
use super::summary::{Aggregate, InputPart, Summary};
use super::{run_ordered, Input};
use serde::Serialize;
use std::io;
use std::ops::ControlFlow;
use std::time::{Instant, SystemTime};

/// The inputs of one run and what is known about how they were chosen.
#[derive(Debug)]
pub struct Selection {
    /// The inputs to process, sorted, in shard.
    pub inputs: Vec<Input>,
    /// What the summary records about them.
    pub part: InputPart,
    /// No PATH and no `--files-from`: the embedded dataset.
    pub embedded: bool,
    /// Nothing was found to process at all (before `--shard`). A batch
    /// over nothing fails, as ripgrep does when it finds nothing; an empty
    /// shard of a non-empty collection is not an error.
    pub nothing_found: bool,
}

impl Selection {
    /// The given inputs, in the order given, as one part named by nothing
    /// (a caller's own list).
    pub fn of(inputs: Vec<Input>) -> Selection {
        let nothing_found = inputs.is_empty();
        Selection {
            inputs,
            part: InputPart::default(),
            embedded: false,
            nothing_found,
        }
    }
}

/// Follows a run as it goes; every method does nothing by default.
pub trait Observer {
    /// One more input finished, in input order: `bytes` of it, and its
    /// record path (built by `path()`, only if wanted).
    fn file_done(&mut self, _bytes: u64, _path: &dyn Fn() -> String) {}
    /// A message for a person (the command line prints it on stderr).
    /// `warning` messages are the ones `--quiet` leaves out.
    fn note(&mut self, _message: &str, _warning: bool) {}
    /// The input at `path` failed with `error` (runs whose records do not
    /// carry their errors, as `demos export`'s rows; after its `note`).
    fn failed(&mut self, _path: &str, _error: &crate::report::ErrorRecord) {}
}

/// An observer that ignores everything.
impl Observer for () {}

/// What a run says at its end: the counts of its stderr line and of its
/// exit status.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// `maps index`, `demos index`, `maps render`, ...
    pub command: &'static str,
    pub files: u64,
    pub ok: u64,
    pub failed: u64,
    /// Bytes of all files (as read, else as listed).
    pub bytes: u64,
    pub jobs: usize,
    pub elapsed_s: f64,
    /// The inputs are the embedded dataset (said in the line).
    pub embedded: bool,
    /// No input was found at all (see [`Selection::nothing_found`]).
    pub nothing_found: bool,
}

impl RunOutcome {
    /// The outcome of a run of `command` over `sel` on `jobs` workers
    /// before any file was read (the counts at 0).
    pub fn start(command: &'static str, sel: &Selection, jobs: usize) -> Self {
        RunOutcome {
            command,
            files: 0,
            ok: 0,
            failed: 0,
            bytes: 0,
            jobs,
            elapsed_s: 0.0,
            embedded: sel.embedded,
            nothing_found: sel.nothing_found,
        }
    }

    /// Counts one finished file: its bytes, and whether it failed.
    pub fn count<B>(&mut self, rec: &Record<B>) {
        self.count_file(rec.size, rec.is_failed());
    }

    /// Counts one finished file of `size` bytes that failed or not (runs
    /// whose outcome per file is not a [`Record`], as `demos export`'s
    /// demos).
    pub fn count_file(&mut self, size: u64, failed: bool) {
        self.files += 1;
        self.bytes += size;
        if failed {
            self.failed += 1;
        } else {
            self.ok += 1;
        }
    }

    /// The outcome of an index run, from its summary document.
    pub(crate) fn of_summary<A: Aggregate>(
        command: &'static str,
        summary: &Summary<A>,
        sel: &Selection,
        jobs: usize,
        elapsed_s: f64,
    ) -> Self {
        let (files, ok, failed) = summary.aggregate.file_counts();
        RunOutcome {
            command,
            files,
            ok,
            failed,
            bytes: summary.aggregate.bytes(),
            jobs,
            elapsed_s,
            embedded: sel.embedded,
            nothing_found: sel.nothing_found,
        }
    }

    /// Whether the run failed: some file failed, or no input was found
    /// (the command line's exit code 1).
    pub fn is_failure(&self) -> bool {
        self.failed > 0 || self.nothing_found
    }

    /// Files per second.
    pub(crate) fn files_per_s(&self) -> f64 {
        per_s(self.files as f64, self.elapsed_s)
    }

    /// Megabytes (10^6 bytes) per second.
    pub fn mb_per_s(&self) -> f64 {
        mb_per_s(self.bytes, self.elapsed_s)
    }

    /// The summary line (on stderr unless `--quiet`). `maps render` says
    /// maps per second; the others say bytes and both rates.
    pub fn line(&self) -> String {
        if self.command == "maps render" {
            return format!(
                "maps render: {} files ({} ok, {} failed) in {:.3} s on {} jobs: {:.1} maps/s",
                self.files,
                self.ok,
                self.failed,
                self.elapsed_s,
                self.jobs,
                self.files_per_s()
            );
        }
        format!(
            "{}{}: {} files ({} ok, {} failed), {:.1} MB in {:.3} s on {} jobs: {:.1} files/s, {:.1} MB/s",
            self.command,
            if self.embedded { " (embedded dataset)" } else { "" },
            self.files,
            self.ok,
            self.failed,
            self.bytes as f64 / 1e6,
            self.elapsed_s,
            self.jobs,
            self.files_per_s(),
            self.mb_per_s()
        )
    }
}

/// Goes on after a record was written; on a write error, keeps the error
/// in `slot` and stops the run (which then returns it).
pub(crate) fn written(r: io::Result<()>, slot: &mut Option<io::Error>) -> ControlFlow<()> {
    match r {
        Ok(()) => ControlFlow::Continue(()),
        Err(e) => {
            *slot = Some(e);
            ControlFlow::Break(())
        }
    }
}

/// `x` per second of `secs` (0 for no time).
pub fn per_s(x: f64, secs: f64) -> f64 {
    if secs > 0.0 {
        x / secs
    } else {
        0.0
    }
}

/// A byte rate in megabytes (10^6 bytes) per second.
pub fn mb_per_s(bytes: u64, secs: f64) -> f64 {
    per_s(bytes as f64 / 1e6, secs)
}

/// The run-dependent part of a summary document (its `run` object).
#[derive(Serialize)]
pub struct RunInfo {
    pub teebatch_version: &'static str,
    pub host: String,
    /// Seconds since 1970 when the batch started.
    pub started_at_unix_s: u64,
    pub jobs: usize,
    pub elapsed_s: f64,
    pub files_per_s: f64,
    pub mb_per_s: f64,
}

/// This machine's host name, where the system tells it.
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .unwrap_or_default()
}

/// A finished index run: its summary document and its outcome.
#[derive(Debug)]
pub struct IndexRun<A> {
    pub summary: Summary<A>,
    pub outcome: RunOutcome,
}

/// The loop of `maps index` and `demos index`: `process` makes one record
/// per input on a worker, which is folded into the worker's aggregate
/// (`aggregate` gives it); the records reach `sink` in input order (an
/// error, e.g. a closed pipe, stops the run and is returned) and
/// `observer` after each. Returns the summary of the run over `sel` and
/// the workers.
#[allow(clippy::too_many_arguments)]
pub fn run_records<W: Send, B: Send, A: Aggregate<Record = Record<B>>>(
    command: &'static str,
    sel: &Selection,
    jobs: Option<usize>,
    init: impl Fn() -> W + Sync + Send,
    process: impl Fn(&mut W, &Input) -> Record<B> + Sync + Send,
    sink: &mut dyn RecordSink<Record<B>>,
    observer: &mut dyn Observer,
    aggregate: impl Fn(&mut W) -> &mut A + Sync + Send,
) -> io::Result<(IndexRun<A>, Vec<W>)> {
    let inputs = &sel.inputs;
    let jobs = crate::limits::Limits::cap_jobs(jobs, inputs.len());
    let mut write_err = None;
    let started_at = SystemTime::now();
    let start = Instant::now();
    let mut workers = run_ordered(
        inputs,
        jobs,
        init,
        |w, _, input| {
            let rec = process(w, input);
            aggregate(w).add(&rec);
            rec
        },
        |i, rec: Record<B>| {
            observer.file_done(rec.size, &|| inputs[i].display_path());
            written(sink.write(&rec), &mut write_err)
        },
    );
    if let Some(e) = write_err {
        return Err(e);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let mut agg = A::default();
    for w in &mut workers {
        agg.merge(std::mem::take(aggregate(w)))
            .map_err(io::Error::other)?;
    }
    let (files, _, _) = agg.file_counts();
    let run = RunInfo {
        teebatch_version: env!("CARGO_PKG_VERSION"),
        host: host_name(),
        started_at_unix_s: started_at
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        jobs,
        elapsed_s: elapsed,
        files_per_s: per_s(files as f64, elapsed),
        mb_per_s: mb_per_s(agg.bytes(), elapsed),
    };
    let summary = Summary::new(
        sel.part.clone(),
        agg,
        serde_json::to_value(run).map_err(io::Error::other)?,
    );
    let outcome = RunOutcome::of_summary(command, &summary, sel, jobs, elapsed);
    Ok((IndexRun { summary, outcome }, workers))
}

/// Writes a summary document (pretty JSON) to `path`, whole or not at all
/// (`-`: stdout).
pub fn write_summary_file<A: Aggregate>(
    path: &std::path::Path,
    doc: &Summary<A>,
) -> io::Result<()> {
    let mut text = serde_json::to_vec_pretty(doc).map_err(io::Error::from)?;
    text.push(b'\n');
    super::output::write_whole(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(failed: u64, nothing_found: bool) -> RunOutcome {
        RunOutcome {
            command: "maps index",
            files: 3,
            ok: 3 - failed,
            failed,
            bytes: 2_500_000,
            jobs: 2,
            elapsed_s: 0.5,
            embedded: false,
            nothing_found,
        }
    }

    /// The exit rule: a failed file or nothing found fails the run.
    #[test]
    fn a_run_fails_for_a_failed_file_or_nothing_found() {
        assert!(!outcome(0, false).is_failure());
        assert!(outcome(1, false).is_failure());
        assert!(outcome(0, true).is_failure());
    }

    /// The stderr line of each kind of run.
    #[test]
    fn the_summary_lines() {
        let o = outcome(1, false);
        assert_eq!(
            o.line(),
            "maps index: 3 files (2 ok, 1 failed), 2.5 MB in 0.500 s on 2 jobs: 6.0 files/s, 5.0 MB/s"
        );
        let o = RunOutcome {
            embedded: true,
            command: "demos index",
            ..o
        };
        assert!(o
            .line()
            .starts_with("demos index (embedded dataset): 3 files"));
        let o = RunOutcome {
            command: "maps render",
            ..o
        };
        assert_eq!(
            o.line(),
            "maps render: 3 files (2 ok, 1 failed) in 0.500 s on 2 jobs: 6.0 maps/s"
        );
        assert_eq!(per_s(3.0, 0.0), 0.0);
    }
}
