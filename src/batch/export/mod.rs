//! `demos export` over a collection: one demo per worker, its rows streamed
//! through a bounded channel to the one writer, demo after demo in input
//! order.
//!
//! Each demo gets its own channel of at most
//! [`ExportOptions::queue_batches`] batches of about
//! [`ExportOptions::batch_rows`] rows. The writer drains demo 0's channel to
//! its end, then demo 1's, and so on; a worker that runs ahead blocks when
//! its channel is full. Memory is thus bounded by one demo's decoding state
//! and a few batches per worker, whatever the collection size, and the
//! output is the same for any number of workers. Workers take demos in
//! input order, so the demo the writer waits for is always being decoded
//! (or done): no deadlock.
//!
//! Keyframe splitting: a demo of at least [`ExportOptions::split_bytes`]
//! whose table allows it ([`Table::splittable`]) is cut at keyframes into
//! about `size / split_bytes` segments ([`plan_units`]), and each segment
//! is a unit of work of its own, with its own channel, in file order. The
//! writer writes the units in order, so the rows are those of the whole
//! demo whatever the number of workers; the demo's outcome is reported once,
//! after its last segment, with the rows of all segments up to the first
//! one that failed (the rows of later segments are dropped, as a whole
//! pass would never have made them). A worker reads a demo's file once for
//! all the segments it takes in a row ([`ReadBuf`]), so the bytes read stay
//! linear in the demo's size, and shrinks its buffer after a demo's last
//! segment.

mod demo;
mod files;
mod parallel;
mod units;

pub use demo::{export_bytes, export_input, ReadBuf};
pub use files::{TableFiles, TableOutputs};
pub use parallel::run_export;
use parallel::run_export_tables;
pub use units::{plan_units, Unit};

use super::range::TickBound;
use super::record::{ErrorRecord, Stage};
use super::tables::TableWriter;
use super::MmapMode;
use crate::backend::Backend;
use crate::demo::export::{Table, TableSet};
use crate::limits::Limits;
use std::io;

/// Options of one `demos export` run.
#[derive(Clone, Copy, Debug)]
pub struct ExportOptions {
    /// The tables made: one ([`ExportOptions::new`], `--table`) or several
    /// from one decode of each demo ([`ExportOptions::for_tables`],
    /// `--tables`), each to its own writer ([`run_tables`]).
    pub tables: TableSet,
    /// Ticks `from..=to` give rows: absolute ticks, or ticks since each
    /// demo's first tick, resolved per demo
    /// ([`resolve_range`](super::range::resolve_range)).
    pub from: TickBound,
    pub to: TickBound,
    pub mmap: MmapMode,
    pub backend: Backend,
    /// Demo file size, tick and warning limits.
    pub limits: Limits,
    /// Rows per batch (a snapshot's rows are never split).
    pub batch_rows: usize,
    /// Batches a worker may have waiting for the writer.
    pub queue_batches: usize,
    /// Demos of at least this many bytes are split at keyframes (see the
    /// module docs).
    pub split_bytes: u64,
    /// `--every-tick`: the item tables and `positions` also give rows at
    /// the tick markers without a snapshot chunk, carried from the
    /// snapshot in effect (`filled` true; see
    /// [`TableBuilder::set_every_tick`](crate::demo::export::TableBuilder::set_every_tick)).
    /// The other tables ignore it.
    pub every_tick: bool,
}

/// The kinds of the `export` stage's errors.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportKind {
    /// The tick range holds no tick of this demo: `--from` resolves after
    /// `--to` (bounds of different kinds, [`TickBound`]).
    EmptyRange,
    /// An internal error: the export of a demo panicked (the run goes on).
    Panic,
}

crate::kind::kind_names!(ExportKind {
    EmptyRange => "empty_range",
    Panic => "panic",
});

impl ErrorRecord {
    /// A tick range that holds no tick of the demo (see
    /// [`ExportKind::EmptyRange`]); `message` says why.
    pub fn empty_range(message: String) -> Self {
        ErrorRecord {
            stage: Stage::Export,
            kind: ExportKind::EmptyRange.kind(),
            section: "file".into(),
            offset: 0,
            message,
        }
    }
}

/// Default [`ExportOptions::split_bytes`].
pub const DEFAULT_SPLIT_BYTES: u64 = 64 << 20;

impl ExportOptions {
    /// The options of a run of one table.
    pub fn new(table: Table) -> ExportOptions {
        ExportOptions::for_tables(TableSet::one(table))
    }

    /// The options of a run of the tables of `tables`, in one decode of
    /// each demo.
    pub fn for_tables(tables: TableSet) -> ExportOptions {
        ExportOptions {
            tables,
            from: TickBound::START,
            to: TickBound::END,
            mmap: MmapMode::Auto,
            backend: Backend::default(),
            limits: Limits::default(),
            batch_rows: 8192,
            queue_batches: 4,
            split_bytes: DEFAULT_SPLIT_BYTES,
            every_tick: false,
        }
    }
}

/// One demo's outcome.
#[derive(Clone, Debug, Default)]
pub struct DemoDone {
    pub path: String,
    pub size: u64,
    pub rows: u64,
    /// Huffman-decoded bytes of the snapshot and message chunks read.
    pub chunk_bytes: u64,
    /// Snapshot items the item tables looked at.
    pub items_seen: u64,
    /// Rows of each table of [`ExportOptions::tables`], in its order (of
    /// which `rows` is the sum).
    pub table_rows: Vec<u64>,
    /// Why the demo ended early (its rows before the fault were written).
    pub error: Option<ErrorRecord>,
}

/// Totals of a run beyond its files (which the run's
/// [`RunOutcome`](super::run::RunOutcome) counts).
#[derive(Clone, Debug, Default)]
pub struct ExportTotals {
    pub rows: u64,
    pub chunk_bytes: u64,
    pub items_seen: u64,
    /// Rows of each table of [`ExportOptions::tables`], in its order.
    pub table_rows: Vec<u64>,
    /// Workers that ran.
    pub jobs: usize,
    /// Units of work: demos, or segments of split demos.
    pub units: usize,
}

impl ExportTotals {
    /// The second line of the stderr summary: rows (per table when there
    /// are several), rows/s, MB of chunk data and MB/s over `elapsed_s`.
    pub fn rows_line(&self, tables: TableSet, elapsed_s: f64) -> String {
        let of = if tables.len() == 1 {
            tables.iter().map(Table::name).collect::<String>()
        } else {
            let per: Vec<String> = tables
                .iter()
                .zip(&self.table_rows)
                .map(|(t, n)| format!("{} {n}", t.name()))
                .collect();
            format!("{} tables ({})", tables.len(), per.join(", "))
        };
        format!(
            "  {} rows of {of}: {:.0} rows/s, {:.1} MB of chunk data at {:.1} MB/s",
            self.rows,
            super::run::per_s(self.rows as f64, elapsed_s),
            self.chunk_bytes as f64 / 1e6,
            super::run::mb_per_s(self.chunk_bytes, elapsed_s)
        )
    }
}

/// `demos export` over a selection, as the command line runs it: every
/// input's rows to `writer` (finished at the end), each demo's end and
/// error to `observer`; returns the run's outcome (its stderr line and
/// exit rule, as for the other runs) with the export's totals.
pub fn run(
    sel: &super::run::Selection,
    jobs: usize,
    opts: &ExportOptions,
    writer: &mut dyn TableWriter,
    observer: &mut dyn super::run::Observer,
) -> io::Result<(super::run::RunOutcome, ExportTotals)> {
    run_tables(sel, jobs, opts, &mut [writer], observer)
}

/// [`run`] for several tables (`--tables`): `writers[k]` takes the rows of
/// the `k`-th table of `opts.tables` (in [`TableSet::iter`] order) and is
/// finished at the end; one decode of each demo feeds them all, and each
/// demo is counted (and its error reported) once.
pub fn run_tables(
    sel: &super::run::Selection,
    jobs: usize,
    opts: &ExportOptions,
    writers: &mut [&mut dyn TableWriter],
    observer: &mut dyn super::run::Observer,
) -> io::Result<(super::run::RunOutcome, ExportTotals)> {
    let start = std::time::Instant::now();
    let mut outcome = super::run::RunOutcome::start("demos export", sel, jobs);
    let totals = run_export_tables(&sel.inputs, jobs, opts, writers, |d| {
        outcome.count_file(d.size, d.error.is_some());
        observer.file_done(d.size, &|| d.path.clone());
        if let Some(e) = &d.error {
            observer.note(&format!("{}: {}", d.path, e.message), false);
            observer.failed(&d.path, e);
        }
    })?;
    for w in writers.iter_mut() {
        w.finish()?;
    }
    outcome.jobs = totals.jobs;
    outcome.elapsed_s = start.elapsed().as_secs_f64();
    Ok((outcome, totals))
}
