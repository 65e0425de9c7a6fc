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

use super::output::{self, Commit};
use super::range::{resolve_range, TickBound};
use super::record::{BatchStats, ErrorRecord, Stage};
use super::tables::{BatchEncoder, Format, TableWriter};
use super::{load, Input, Loaded, MmapMode};
use crate::backend::Backend;
use crate::demo::export::{
    export_segment_tables, BatchSink, Table, TableBuilder, TableSet, TablesSink,
};
use crate::demo::stream::{segments, Decoder, Segment};
use crate::demo::Demo;
use crate::limits::Limits;
use arrow_array::RecordBatch;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Condvar, Mutex};

/// Options of one `demos export` run.
#[derive(Clone, Copy, Debug)]
pub struct ExportOptions {
    /// The tables made: one ([`ExportOptions::new`], `--table`) or several
    /// from one decode of each demo ([`ExportOptions::for_tables`],
    /// `--tables`), each to its own writer ([`run_tables`]).
    pub tables: TableSet,
    /// Ticks `from..=to` give rows: absolute ticks, or ticks since each
    /// demo's first tick, resolved per demo ([`resolve_range`]).
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
    /// [`TableBuilder::set_every_tick`]). The other tables ignore it.
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
/// Most segments one demo is split into.
pub(crate) const MAX_SEGMENTS: u64 = 256;

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

/// A worker's read buffer, and which input's whole file it holds.
///
/// The segments of a split demo are consecutive units of work, so a worker
/// that takes several of them reads the demo once, not once per segment:
/// with the default `--mmap never`, reading the whole file again for each
/// segment would make the bytes read grow with the square of the demo's
/// size (the number of segments grows with it).
#[doc(hidden)]
#[derive(Debug, Default)]
pub struct ReadBuf {
    bytes: Vec<u8>,
    /// The input (position in the inputs) whose whole file `bytes` holds.
    holds: Option<usize>,
}

impl ReadBuf {
    /// Forgets the file held and shrinks the buffer back to
    /// [`Limits::KEEP_WORKER_BUFFER_BYTES`] (after a demo's last unit).
    pub fn release(&mut self) {
        self.holds = None;
        crate::limits::shrink_buffer(&mut self.bytes);
    }

    /// Bytes of capacity the buffer keeps.
    pub fn capacity(&self) -> usize {
        self.bytes.capacity()
    }
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct ExportTotals {
    pub stats: BatchStats,
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

/// Where each table of `tables` goes: `DIR/<table>.<ext>` in `out_dir`
/// (`--tables ... --out DIR`), else the one `output` (`-o`; `None`:
/// stdout). In [`TableSet::iter`] order.
pub fn table_files(
    tables: TableSet,
    format: Format,
    out_dir: Option<&Path>,
    output: Option<&Path>,
) -> Vec<Option<PathBuf>> {
    match out_dir {
        Some(dir) => tables
            .iter()
            .map(|t| Some(dir.join(format!("{}.{}", t.name(), format.extension()))))
            .collect(),
        None => vec![output.map(Path::to_path_buf)],
    }
}

/// One table's writer and what makes its file visible.
pub type TableOutput = (Box<dyn TableWriter>, Commit);

/// A writer of `format` for each table of `tables`, to its file of
/// `files` ([`table_files`]; `None`: stdout), each written whole when its
/// [`Commit`] is committed. Parquet refuses a terminal.
pub fn open_table_writers(
    tables: TableSet,
    format: Format,
    files: &[Option<PathBuf>],
) -> io::Result<Vec<TableOutput>> {
    tables
        .iter()
        .zip(files)
        .map(|(t, file)| {
            let (out, commit) = match format {
                Format::Parquet => output::open_binary(file.as_deref(), "--format parquet")?,
                _ => output::open(file.as_deref())?,
            };
            Ok((
                super::tables::writer(format, &t.schema(), Box::new(out))?,
                commit,
            ))
        })
        .collect()
}

/// A unit of work: a whole demo, or one segment of a split one.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Position in the inputs.
    pub input: usize,
    /// The segment, for a split demo.
    pub segment: Option<Segment>,
    /// The demo's first and last unit.
    pub first: bool,
    pub last: bool,
    /// The SHA-256 of the whole demo file, for the segments of a split
    /// demo (hashed once, when it is split); a whole demo is hashed by the
    /// worker that exports it.
    pub sha256: Option<[u8; 32]>,
}

/// The units of work of `inputs`, in output order: one per demo, or one
/// per segment for the demos split at keyframes (see the module docs).
/// Reads each demo of at least [`ExportOptions::split_bytes`] once for its
/// framing (no decoding).
#[doc(hidden)]
pub fn plan_units(inputs: &[Input], opts: &ExportOptions) -> Vec<Unit> {
    let mut units = Vec::with_capacity(inputs.len());
    let mut buf = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let size = input.listed_size();
        let segs = if size >= opts.split_bytes.max(1) && size <= opts.limits.max_demo_file_bytes {
            split_input(input, opts, size, &mut buf)
        } else {
            (Vec::new(), None)
        };
        let (segs, sha256) = segs;
        if segs.len() <= 1 {
            units.push(Unit {
                input: i,
                segment: None,
                first: true,
                last: true,
                sha256: None,
            });
            continue;
        }
        let n = segs.len();
        units.extend(segs.into_iter().enumerate().map(|(k, s)| Unit {
            input: i,
            segment: Some(s),
            first: k == 0,
            last: k + 1 == n,
            sha256,
        }));
    }
    units
}

/// The segments of a demo to split (none when it cannot be read or its
/// table needs the whole demo), and the SHA-256 of the demo when it is
/// split.
/// An archive member is loaded here and again by each of its units: a
/// `.tar.gz` stream is told so, and keeps its bytes meanwhile
/// ([`crate::batch::archive::Member::set_loads`]).
fn split_input(
    input: &Input,
    opts: &ExportOptions,
    size: u64,
    buf: &mut Vec<u8>,
) -> (Vec<Segment>, Option<[u8; 32]>) {
    let member = match input {
        Input::Member(m) => Some(m),
        _ => None,
    };
    if let Some(m) = member {
        m.set_loads(2);
    }
    let segs = split_loaded(input, opts, size, buf);
    if let Some(m) = member {
        // One load per unit: the segments, or the whole demo.
        m.set_loads(segs.0.len().max(1) as u32);
    }
    segs
}

fn split_loaded(
    input: &Input,
    opts: &ExportOptions,
    size: u64,
    buf: &mut Vec<u8>,
) -> (Vec<Segment>, Option<[u8; 32]>) {
    let none = (Vec::new(), None);
    let Ok(bytes) = load(input, opts.mmap, buf) else {
        return none;
    };
    let Ok(demo) = Demo::parse(&bytes) else {
        return none;
    };
    if !opts.tables.splittable(demo.decode_protocol()) {
        return none;
    }
    let count = size
        .div_ceil(opts.split_bytes.max(1))
        .clamp(1, MAX_SEGMENTS);
    let segs = segments(&demo, count as usize);
    if segs.len() <= 1 {
        return none;
    }
    use sha2::{Digest, Sha256};
    (segs, Some(Sha256::digest(&bytes[..]).into()))
}

/// A worker's message to the writer; the `usize` is the table's position
/// in [`ExportOptions::tables`] (and in the writers).
enum Msg {
    Rows(usize, RecordBatch),
    /// A batch already encoded by the table writer's encoder.
    Bytes(usize, Vec<u8>),
    Done(DemoDone),
}

/// Exports every input's rows of the one table of `opts.tables` to
/// `writer`, in input order, on at most `jobs` workers (one per unit of
/// work at most); `on_demo` sees each demo's outcome once its rows are
/// written. Returns the writer's first error, if any (the run then stops).
pub fn run_export(
    inputs: &[Input],
    jobs: usize,
    opts: &ExportOptions,
    writer: &mut dyn TableWriter,
    on_demo: impl FnMut(&DemoDone),
) -> io::Result<ExportTotals> {
    run_export_tables(inputs, jobs, opts, &mut [writer], on_demo)
}

/// [`run_export`] for several tables: `writers[k]` takes the rows of the
/// `k`-th table of `opts.tables` (in [`TableSet::iter`] order). Each demo
/// is decoded once for all of them; each demo's outcome (error, rows of
/// all tables) is reported once.
///
/// # Panics
///
/// When there are not as many writers as tables.
pub(crate) fn run_export_tables(
    inputs: &[Input],
    jobs: usize,
    opts: &ExportOptions,
    writers: &mut [&mut dyn TableWriter],
    mut on_demo: impl FnMut(&DemoDone),
) -> io::Result<ExportTotals> {
    assert_eq!(
        writers.len(),
        opts.tables.len(),
        "one writer per table of the run"
    );
    let units = plan_units(inputs, opts);
    let units = &units[..];
    let n = units.len();
    let slots: Mutex<Vec<Option<Receiver<Msg>>>> = Mutex::new((0..n).map(|_| None).collect());
    let posted = Condvar::new();
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    // Byte buffers the writer is done with, for the workers to fill again
    // (fresh ones would cost page faults batch after batch).
    let max_spares = jobs.max(1) * (opts.queue_batches.max(1) + 1);
    let byte_spares: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let mut totals = ExportTotals {
        jobs: jobs.clamp(1, n.max(1)),
        units: n,
        table_rows: vec![0; opts.tables.len()],
        ..ExportTotals::default()
    };
    let mut result = Ok(());
    std::thread::scope(|scope| {
        for w in 0..totals.jobs {
            let (slots, posted, next, cancel) = (&slots, &posted, &next, &cancel);
            let byte_spares = &byte_spares;
            // Row formats are encoded on the workers, in parallel.
            let mut encoders: Vec<_> = writers.iter().map(|w| w.encoder()).collect();
            std::thread::Builder::new()
                .name(format!("teebatch-export-{w}"))
                .spawn_scoped(scope, move || {
                    let new_decoder = || {
                        let mut d = Decoder::new(opts.backend);
                        d.set_max_ticks(opts.limits.max_ticks);
                        d
                    };
                    let mut decoder = new_decoder();
                    let mut buf = ReadBuf::default();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        let (tx, rx) = sync_channel(opts.queue_batches.max(1));
                        slots.lock().expect("slots")[i] = Some(rx);
                        posted.notify_all();
                        if cancel.load(Ordering::Relaxed) {
                            continue;
                        }
                        let unit = units[i];
                        let input = &inputs[unit.input];
                        let mut sink = ChannelSink {
                            tx: &tx,
                            byte_spares,
                            tables: opts.tables,
                            encoders: &mut encoders,
                        };
                        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            let seg = unit.segment.as_ref();
                            let index = unit.input;
                            export_input_tables(
                                &mut decoder,
                                &mut buf,
                                index,
                                input,
                                seg,
                                unit.sha256.as_ref(),
                                opts,
                                &mut sink,
                            )
                        }))
                        .unwrap_or_else(|_| {
                            decoder = new_decoder();
                            DemoDone {
                                path: input.display_path(),
                                size: input.listed_size(),
                                error: Some(ErrorRecord {
                                    stage: Stage::Export,
                                    kind: ExportKind::Panic.kind(),
                                    section: "file".into(),
                                    offset: 0,
                                    message: "internal error (panic) while exporting".into(),
                                }),
                                ..DemoDone::default()
                            }
                        });
                        if unit.last {
                            buf.release();
                        }
                        let _ = tx.send(Msg::Done(done));
                    }
                })
                .expect("spawn export worker");
        }
        // The demo being written: its outcome so far, and whether one of
        // its segments failed (the later ones are then dropped).
        let mut demo: Option<DemoDone> = None;
        let mut failed = false;
        for i in 0..n {
            let rx = {
                let mut g = slots.lock().expect("slots");
                loop {
                    if let Some(rx) = g[i].take() {
                        break rx;
                    }
                    g = posted.wait(g).expect("slots");
                }
            };
            let unit = units[i];
            if unit.first {
                demo = None;
                failed = false;
            }
            if result.is_err() || failed {
                // Dropping the receiver makes the worker's next send fail.
                drop(rx);
                if result.is_ok() && unit.last {
                    report(&mut totals, demo.take(), &mut on_demo);
                }
                continue;
            }
            for msg in rx.iter() {
                match msg {
                    Msg::Rows(k, b) => {
                        if let Err(e) = writers[k].write_batch(&b) {
                            result = Err(e);
                            cancel.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                    Msg::Bytes(k, b) => {
                        if let Err(e) = writers[k].write_encoded(&b) {
                            result = Err(e);
                            cancel.store(true, Ordering::Relaxed);
                            break;
                        }
                        let mut pool = byte_spares.lock().expect("spares");
                        if pool.len() < max_spares {
                            pool.push(b);
                        }
                    }
                    Msg::Done(d) => {
                        failed = d.error.is_some();
                        match &mut demo {
                            None => demo = Some(d),
                            Some(acc) => {
                                acc.rows += d.rows;
                                acc.chunk_bytes += d.chunk_bytes;
                                acc.items_seen += d.items_seen;
                                add_rows(&mut acc.table_rows, &d.table_rows);
                                acc.error = d.error;
                            }
                        }
                        if unit.last {
                            report(&mut totals, demo.take(), &mut on_demo);
                        }
                    }
                }
            }
        }
    });
    result.map(|()| totals)
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
    let totals = run_export_tables(&sel.inputs, jobs, opts, writers, |d| {
        observer.file_done(d.size, &|| d.path.clone());
        if let Some(e) = &d.error {
            observer.note(&format!("{}: {}", d.path, e.message), false);
            observer.failed(&d.path, e);
        }
    })?;
    for w in writers.iter_mut() {
        w.finish()?;
    }
    let st = &totals.stats;
    let outcome = super::run::RunOutcome {
        command: "demos export",
        files: st.files,
        ok: st.ok,
        failed: st.failed,
        bytes: st.bytes,
        jobs: totals.jobs,
        elapsed_s: start.elapsed().as_secs_f64(),
        embedded: sel.embedded,
        nothing_found: sel.nothing_found,
    };
    Ok((outcome, totals))
}

/// Counts a demo's outcome (all its segments) in the totals and hands it to
/// `on_demo`.
fn report(totals: &mut ExportTotals, d: Option<DemoDone>, on_demo: &mut impl FnMut(&DemoDone)) {
    let Some(d) = d else { return };
    totals.stats.record(d.size, d.error.as_ref(), &[]);
    totals.rows += d.rows;
    totals.chunk_bytes += d.chunk_bytes;
    totals.items_seen += d.items_seen;
    add_rows(&mut totals.table_rows, &d.table_rows);
    on_demo(&d);
}

/// Adds `more` to `acc`, table by table.
fn add_rows(acc: &mut Vec<u64>, more: &[u64]) {
    if acc.len() < more.len() {
        acc.resize(more.len(), 0);
    }
    for (a, m) in acc.iter_mut().zip(more) {
        *a += m;
    }
}

/// Sends batches down a worker's channel, encoded by the worker when the
/// table's writer has an encoder (row formats).
struct ChannelSink<'a> {
    tx: &'a std::sync::mpsc::SyncSender<Msg>,
    byte_spares: &'a Mutex<Vec<Vec<u8>>>,
    tables: TableSet,
    /// By position in `tables`.
    encoders: &'a mut [Option<Box<dyn BatchEncoder + Send>>],
}

impl TablesSink for ChannelSink<'_> {
    fn emit(&mut self, table: Table, batch: RecordBatch) -> bool {
        let k = self.tables.position(table).expect("a table of the run");
        if let Some(enc) = self.encoders[k].as_deref_mut() {
            let mut buf = self
                .byte_spares
                .lock()
                .expect("spares")
                .pop()
                .unwrap_or_default();
            buf.clear();
            // Encoding into memory only fails on a value the format cannot
            // hold: the writer then meets it in the batch and reports it.
            if enc.encode(&batch, &mut buf).is_ok() {
                return self.tx.send(Msg::Bytes(k, buf)).is_ok();
            }
        }
        self.tx.send(Msg::Rows(k, batch)).is_ok()
    }
}

/// Exports one input (or one segment of it), handing row batches to
/// `sink` (of every table of `opts.tables`, one after the other: a run of
/// one table is meant).
pub fn export_input(
    decoder: &mut Decoder,
    buf: &mut ReadBuf,
    index: usize,
    input: &Input,
    segment: Option<&Segment>,
    opts: &ExportOptions,
    sink: &mut dyn BatchSink,
) -> DemoDone {
    let mut sink = |_: Table, b: RecordBatch| sink.emit(b);
    export_input_tables(decoder, buf, index, input, segment, None, opts, &mut sink)
}

/// [`export_input`] with each batch handed on with its table; `sha256`
/// is the demo file's SHA-256 when the caller has it (else the loaded
/// file is hashed).
#[allow(clippy::too_many_arguments)]
pub(crate) fn export_input_tables(
    decoder: &mut Decoder,
    buf: &mut ReadBuf,
    index: usize,
    input: &Input,
    segment: Option<&Segment>,
    sha256: Option<&[u8; 32]>,
    opts: &ExportOptions,
    sink: &mut dyn TablesSink,
) -> DemoDone {
    let mut done = DemoDone {
        path: input.display_path(),
        size: input.listed_size(),
        ..DemoDone::default()
    };
    if input.listed_size() > opts.limits.max_demo_file_bytes {
        done.error = Some(ErrorRecord::too_large(opts.limits.max_demo_file_bytes));
        input.release();
        return done;
    }
    let reuse = segment.is_some() && buf.holds == Some(index);
    buf.holds = None;
    let bytes = if reuse {
        Loaded::Borrowed(&buf.bytes[..])
    } else {
        match load(input, opts.mmap, &mut buf.bytes) {
            Ok(b) => b,
            Err(e) => {
                done.error = Some(ErrorRecord::io(&e));
                return done;
            }
        }
    };
    // A file that was read (not mapped) is whole in the buffer.
    if matches!((&bytes, input), (Loaded::Borrowed(_), Input::File { .. })) {
        buf.holds = Some(index);
    }
    export_bytes_tables(decoder, &bytes, done.path, segment, sha256, opts, sink)
}

/// Exports the rows of the table of `opts.tables` of one demo held in
/// memory (of a `segment` of it, or all of it), `path` in its `demo`
/// column: what [`export_input`] does once the file is loaded (and the
/// Python package's one-demo tables).
pub fn export_bytes(
    decoder: &mut Decoder,
    bytes: &[u8],
    path: String,
    segment: Option<&Segment>,
    opts: &ExportOptions,
    sink: &mut dyn BatchSink,
) -> DemoDone {
    let mut sink = |_: Table, b: RecordBatch| sink.emit(b);
    export_bytes_tables(decoder, bytes, path, segment, None, opts, &mut sink)
}

/// [`export_bytes`] for every table of `opts.tables`, from one decode,
/// each batch handed on with its table. `bytes` is the whole demo file;
/// `sha256` its SHA-256 when the caller has it (else `bytes` are hashed).
/// The `demos` row is made by the demo's first segment (or the whole
/// demo), from the header and the framing; the other tables from the
/// stream.
pub(crate) fn export_bytes_tables(
    decoder: &mut Decoder,
    bytes: &[u8],
    path: String,
    segment: Option<&Segment>,
    sha256: Option<&[u8; 32]>,
    opts: &ExportOptions,
    sink: &mut dyn TablesSink,
) -> DemoDone {
    let mut done = DemoDone {
        path,
        size: bytes.len() as u64,
        ..DemoDone::default()
    };
    let demo = match Demo::parse(bytes) {
        Ok(d) => d,
        Err(e) => {
            done.error = Some(ErrorRecord::demo(&e));
            return done;
        }
    };
    let first_tick = crate::demo::export::builder::first_tick(&demo);
    let sha = match sha256 {
        Some(h) => hex::encode(h),
        None => crate::demo::export::builder::sha256_hex(bytes),
    };
    done.table_rows = vec![0; opts.tables.len()];
    if opts.tables.contains(Table::Demos) && segment.is_none_or(|s| s.index == 0) {
        let k = opts.tables.position(Table::Demos).expect("contains");
        done.table_rows[k] = 1;
        done.rows = 1;
        if !sink.emit(Table::Demos, demos_batch(&demo, &done.path, &sha)) {
            return done;
        }
    }
    let (from, to) = match resolve_range(opts.from, opts.to, first_tick) {
        Ok(r) => r,
        Err(message) => {
            done.error = Some(ErrorRecord::empty_range(message));
            return done;
        }
    };
    let made: Vec<Table> = opts.tables.iter().filter(|&t| t != Table::Demos).collect();
    if made.is_empty() {
        return done;
    }
    let mut builders: Vec<TableBuilder> = made
        .iter()
        .map(|&t| {
            let mut b = TableBuilder::for_demo_keyed(t, &demo, &done.path, &sha, from, to);
            b.set_every_tick(opts.every_tick);
            b
        })
        .collect();
    let whole = Segment::whole(&demo);
    let seg = segment.unwrap_or(&whole);
    let r = export_segment_tables(
        &demo,
        seg,
        decoder,
        &mut builders,
        to,
        opts.batch_rows,
        sink,
    );
    done.rows += r.rows;
    for (t, n) in made.iter().zip(&r.table_rows) {
        let k = opts.tables.position(*t).expect("a table of the run");
        done.table_rows[k] = *n;
    }
    done.chunk_bytes = r.chunk_bytes;
    done.items_seen = r.items_seen;
    if let Some(e) = r.error {
        done.error = Some(ErrorRecord::stream(&e));
    }
    done
}

/// The one row of the `demos` table of `demo`: what `demos index` reads
/// from its header, its embedded map and its chunk framing (tick markers
/// counted without decoding: the index's `first_tick`, `last_tick` and
/// `ticks` for a demo that decodes to its end).
fn demos_batch(demo: &Demo<'_>, path: &str, sha: &str) -> RecordBatch {
    use crate::demo::export::columns::Columns;
    use sha2::{Digest, Sha256};
    let t = Table::Demos;
    let mut columns = Columns::new(t.schema(), 0, path);
    columns.set_const(t.column_index("demo_sha256").expect("column"), sha);
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let (mut first, mut last, mut ticks) = (None, None, 0i64);
    for c in demo.chunks() {
        match c {
            Ok(crate::demo::Chunk {
                kind: crate::demo::ChunkKind::Tick { tick, .. },
                ..
            }) => {
                first = first.or(Some(tick));
                last = Some(tick);
                ticks += 1;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    let first_tick = crate::demo::export::builder::first_tick(demo);
    let (demo_tick, time_s) = crate::demo::export::builder::time_of(first_tick, first_tick);
    let map = demo.map();
    let map_sha = if map.is_empty() {
        demo.map_sha256().map(hex::encode)
    } else {
        Some(hex::encode(Sha256::digest(map)))
    };
    let duration = match (first, last) {
        (Some(a), Some(b)) => {
            Some(f64::from(b.saturating_sub(a)) / f64::from(crate::demo::TICKS_PER_SECOND))
        }
        _ => None,
    };
    let timestamp = lossy(demo.timestamp());
    columns
        .row()
        .i32(Some(first_tick))
        .i32(Some(demo_tick))
        .f64(Some(time_s))
        .i32(Some(i32::from(demo.version())))
        .str(Some(&lossy(demo.net_version())))
        .str(demo.protocol().map(|p| match p {
            crate::codec::snapshot::Protocol::V06 => "0.6",
            crate::codec::snapshot::Protocol::V07 => "0.7",
        }))
        .str(Some(&lossy(demo.demo_type())))
        .str(super::demos::iso_timestamp(&timestamp).as_deref())
        .i32(Some(demo.length()))
        .str(Some(&lossy(demo.map_name())))
        .i32(Some(i32::try_from(demo.map_size()).unwrap_or(i32::MAX)))
        .str(Some(&format!("{:08x}", demo.map_crc())))
        .str(map_sha.as_deref())
        .i32(first)
        .i32(last)
        .i32(Some(i32::try_from(ticks).unwrap_or(i32::MAX)))
        .f64(duration)
        .end();
    columns.take_batch()
}
