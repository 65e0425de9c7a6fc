//! `teebatch._native`: the extension module under the Python package
//! `teebatch` (`python/teebatch/`). It converts arguments and hands over
//! results; the runs, records and tables are the library's
//! (`teebatch::batch`), the same the command line calls.
//!
//! A collection run ([`Run`]) goes on a thread of its own and hands its
//! Arrow record batches through a bounded channel to whoever reads the
//! run's Arrow C stream (`__arrow_c_stream__`: pyarrow, polars, DuckDB).
//! Memory is thus bounded by the library's own bounds plus
//! [`QUEUE_BATCHES`] batches, however large the collection; the reader
//! waits without the GIL and looks for a pending signal (Ctrl-C) every
//! [`POLL`], and stops the run when one arrives.

use arrow_array::ffi::FFI_ArrowSchema;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use teebatch::batch::export::{ExportOptions, DEFAULT_SPLIT_BYTES};
use teebatch::batch::parquet::{demos_schema, maps_schema, RecordBatcher};
use teebatch::batch::range::TickBound;
use teebatch::batch::run::{Observer, Selection};
use teebatch::batch::select::SelectOptions;
use teebatch::batch::sink::RecordSink;
use teebatch::batch::tables::TableWriter;
use teebatch::batch::{demos, embedded, maps, Input, WalkOptions};
use teebatch::datafile::Datafile;
use teebatch::demo::export::{Table, TableSet};
use teebatch::limits::Limits;
use teebatch::map::{absent_reason, LayerKind, LoadOptions, Map, PhysicsKind, TileLayer};
use teebatch::render::{render_map, RenderOptions, Size, Style, Textures};
use teebatch::report::ErrorRecord;
use teebatch::warn::Discard;

/// Batches a run may have waiting for its reader.
pub const QUEUE_BATCHES: usize = 4;
/// How often a waiting reader looks for a pending signal.
pub const POLL: Duration = Duration::from_millis(50);

create_exception!(
    _native,
    FormatError,
    pyo3::exceptions::PyValueError,
    "A file that is not a valid map or demo: `.path`, `.stage`, `.kind`, `.section`, `.offset` say where."
);

/// What a run tells its Python side besides the batches.
#[derive(Default)]
struct Shared {
    /// Messages for a person (an unreadable PATH, nothing found, a demo
    /// that failed): the Python side turns them into warnings.
    notes: Vec<String>,
    /// The inputs that failed, as `{"path": ..., "stage": ..., ...}`.
    errors: Vec<serde_json::Value>,
    /// What the command line's stderr line says, as JSON.
    outcome: Option<serde_json::Value>,
    /// The summary document (`--summary`), as JSON text.
    summary: Option<String>,
    /// The run's own failure (not a file's).
    error: Option<String>,
    /// A signal that arrived while the reader waited.
    interrupt: Option<PyErr>,
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// The run's observer: notes and failed inputs into [`Shared`].
struct Notes(Arc<Mutex<Shared>>);

impl Observer for Notes {
    fn note(&mut self, message: &str, _warning: bool) {
        lock(&self.0).notes.push(message.to_owned());
    }

    fn failed(&mut self, path: &str, error: &ErrorRecord) {
        let mut v = serde_json::to_value(error).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("path".into(), path.into());
        }
        lock(&self.0).errors.push(v);
    }
}

/// The sending end of a run's batches.
#[derive(Clone)]
struct Batches(SyncSender<RecordBatch>);

impl Batches {
    fn send(&self, b: RecordBatch) -> io::Result<()> {
        self.0.send(b).map_err(|_| {
            io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the reader of the batches went away",
            )
        })
    }
}

/// `demos export`'s writer: each batch to the channel.
impl TableWriter for Batches {
    fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()> {
        self.send(batch.clone())
    }

    fn write_encoded(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Err(io::Error::other("record batches have no row encoder"))
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An index run's sink: records into batches of the record schema.
struct RecordBatches {
    batcher: RecordBatcher,
    out: Batches,
}

impl RecordBatches {
    fn flush(&mut self) -> io::Result<()> {
        match self.batcher.flush()? {
            Some(b) => self.out.send(b),
            None => Ok(()),
        }
    }
}

impl<R: serde::Serialize> RecordSink<R> for RecordBatches {
    fn write(&mut self, record: &R) -> io::Result<()> {
        match self.batcher.push(record)? {
            Some(b) => self.out.send(b),
            None => Ok(()),
        }
    }
}

/// The reading end: an Arrow record batch reader over the channel.
struct Reader {
    schema: SchemaRef,
    rx: Option<Receiver<RecordBatch>>,
    shared: Arc<Mutex<Shared>>,
    thread: Option<JoinHandle<()>>,
    /// When signals were last looked for.
    last_check: Instant,
    /// The thread that started the run (Python's, usually the main
    /// thread): only there are signals looked for. A reader's own threads
    /// (DuckDB scans on its workers) never take the GIL, which the thread
    /// waiting for them may hold.
    owner: std::thread::ThreadId,
}

impl Reader {
    /// Stops the run (its next send fails) and waits for its thread.
    fn stop(&mut self) {
        self.rx = None;
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                lock(&self.shared)
                    .error
                    .get_or_insert_with(|| "internal error: the run panicked".into());
            }
        }
    }
}

impl Reader {
    /// Whether a signal's handler raised (Ctrl-C): then the run is stopped
    /// and the exception kept for [`Run::raise_pending`].
    fn interrupted(&mut self) -> bool {
        self.last_check = Instant::now();
        match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                lock(&self.shared).interrupt = Some(e);
                self.stop();
                true
            }
        }
    }
}

impl Iterator for Reader {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            // Signals are looked for every POLL, also while batches flow.
            if self.last_check.elapsed() >= POLL
                && std::thread::current().id() == self.owner
                && self.interrupted()
            {
                return Some(Err(ArrowError::ExternalError(Box::new(io::Error::new(
                    io::ErrorKind::Interrupted,
                    "interrupted",
                )))));
            }
            let rx = self.rx.as_ref()?;
            match rx.recv_timeout(POLL) {
                Ok(b) => return Some(Ok(b)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.stop();
                    let e = lock(&self.shared).error.clone();
                    return e
                        .map(|e| Err(ArrowError::ExternalError(Box::new(io::Error::other(e)))));
                }
            }
        }
    }
}

impl RecordBatchReader for Reader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One collection run: an Arrow C stream of its table (read it once), and
/// after the stream's end its outcome, errors and summary.
#[pyclass(module = "teebatch._native")]
struct Run {
    schema: SchemaRef,
    reader: Mutex<Option<Box<dyn RecordBatchReader + Send>>>,
    shared: Arc<Mutex<Shared>>,
}

impl Run {
    /// Starts `work` on a thread of its own; it sends batches of `schema`
    /// to the channel and returns its outcome and summary (JSON).
    fn start(
        schema: SchemaRef,
        shared: Arc<Mutex<Shared>>,
        work: impl FnOnce(Batches, &mut Notes) -> io::Result<(serde_json::Value, Option<String>)>
            + Send
            + 'static,
    ) -> PyResult<Run> {
        let (tx, rx) = sync_channel(QUEUE_BATCHES);
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("teebatch-run".into())
            .spawn(move || {
                let mut notes = Notes(s.clone());
                let r = work(Batches(tx), &mut notes);
                let mut s = lock(&s);
                match r {
                    Ok((outcome, summary)) => {
                        s.outcome = Some(outcome);
                        s.summary = summary;
                    }
                    Err(e) => s.error = Some(e.to_string()),
                }
            })
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        Ok(Run {
            schema: schema.clone(),
            reader: Mutex::new(Some(Box::new(Reader {
                schema,
                rx: Some(rx),
                shared: shared.clone(),
                thread: Some(thread),
                last_check: Instant::now(),
                owner: std::thread::current().id(),
            }))),
            shared,
        })
    }

    /// A finished run of `batches` (one file's table).
    fn of_batches(schema: SchemaRef, batches: Vec<RecordBatch>) -> Run {
        let reader =
            arrow_array::RecordBatchIterator::new(batches.into_iter().map(Ok), schema.clone());
        Run {
            schema,
            reader: Mutex::new(Some(Box::new(reader))),
            shared: Arc::default(),
        }
    }
}

#[pymethods]
impl Run {
    /// The Arrow PyCapsule stream interface: the run's record batches, in
    /// input order. Can be taken once.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is the table's; a requested one is a hint (the
        // interface allows ignoring it).
        let _ = requested_schema;
        let reader = self
            .reader
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the batches of this run were already taken"))?;
        let stream = FFI_ArrowArrayStream::new(reader);
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The Arrow PyCapsule schema interface: the table's schema (readers
    /// such as DuckDB ask for it before they take the stream).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    /// Stops the run if it is still going (its batches were not taken or
    /// not read to the end).
    fn close(&self, py: Python<'_>) {
        let reader = self.reader.lock().unwrap_or_else(|e| e.into_inner()).take();
        py.detach(move || drop(reader));
    }

    /// Messages for a person, in the order they came.
    #[getter]
    fn notes(&self) -> Vec<String> {
        lock(&self.shared).notes.clone()
    }

    /// The inputs that failed (JSON text of a list of objects).
    #[getter]
    fn errors_json(&self) -> String {
        serde_json::Value::from(lock(&self.shared).errors.clone()).to_string()
    }

    /// The outcome (JSON text), once the run has ended.
    #[getter]
    fn outcome_json(&self) -> Option<String> {
        lock(&self.shared).outcome.as_ref().map(|v| v.to_string())
    }

    /// The summary document (JSON text, as `--summary` writes it), once an
    /// index run has ended.
    #[getter]
    fn summary_json(&self) -> Option<String> {
        lock(&self.shared).summary.clone()
    }

    /// The run's own failure, if it had one.
    #[getter]
    fn error(&self) -> Option<String> {
        lock(&self.shared).error.clone()
    }

    /// Raises the signal's exception (KeyboardInterrupt) that stopped the
    /// run, if one did.
    fn raise_pending(&self) -> PyResult<()> {
        match lock(&self.shared).interrupt.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// How the inputs of a run are chosen (the command line's selection
/// options).
#[derive(FromPyObject, Default)]
#[pyo3(from_item_all)]
struct Select {
    paths: Vec<PathBuf>,
    files_from: Vec<PathBuf>,
    null: bool,
    globs: Vec<String>,
    max_depth: Option<usize>,
    follow_links: bool,
    hidden: bool,
    shard: Option<String>,
}

/// The inputs of a run over `s` (`ext`: `map` or `demo`; no paths and no
/// lists: the embedded dataset), its notes into `shared`.
fn select(
    s: Select,
    ext: &str,
    embedded: fn() -> Vec<Input>,
    shared: &Mutex<Shared>,
) -> PyResult<Selection> {
    let shard = s
        .shard
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: String| PyValueError::new_err(format!("shard: {e}")))?;
    let opts = SelectOptions {
        files_from: s.files_from,
        null: s.null,
        shard,
        walk: WalkOptions {
            globs: s.globs,
            max_depth: s.max_depth,
            follow_links: s.follow_links,
            hidden: s.hidden,
            ..WalkOptions::default()
        },
    };
    teebatch::batch::select::select(&s.paths, ext, embedded, &opts, &mut |m| {
        lock(shared).notes.push(m.to_owned())
    })
    .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A run's outcome as JSON: the counts of the command line's stderr line,
/// the line itself and whether the command line would exit 1.
fn outcome_value(o: &teebatch::batch::run::RunOutcome) -> serde_json::Value {
    serde_json::json!({
        "command": o.command,
        "files": o.files,
        "ok": o.ok,
        "failed": o.failed,
        "bytes": o.bytes,
        "jobs": o.jobs,
        "elapsed_s": o.elapsed_s,
        "nothing_found": o.nothing_found,
        "failure": o.is_failure(),
        "line": o.line(),
    })
}

fn table(name: &str) -> PyResult<Table> {
    Table::ALL
        .into_iter()
        .find(|t| t.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = Table::ALL.iter().map(|t| t.name()).collect();
            PyValueError::new_err(format!(
                "no table {name:?}; the tables are {}",
                names.join(", ")
            ))
        })
}

/// `demos export` over a collection: the rows of `table` as a [`Run`].
#[pyfunction]
#[pyo3(signature = (select, table, from_tick=None, to_tick=None, jobs=None, split_bytes=None, every_tick=false))]
#[allow(clippy::too_many_arguments)]
fn demos_export(
    py: Python<'_>,
    select: Select,
    table: &str,
    from_tick: Option<TickArg>,
    to_tick: Option<TickArg>,
    jobs: Option<usize>,
    split_bytes: Option<u64>,
    every_tick: bool,
) -> PyResult<Run> {
    let t = self::table(table)?;
    let (from, to) = tick_range(from_tick, to_tick)?;
    let shared = Arc::new(Mutex::new(Shared::default()));
    let sel = py.detach(|| self::select(select, "demo", embedded::demo_inputs, &shared))?;
    let mut opts = ExportOptions::new(t);
    opts.from = from;
    opts.to = to;
    opts.split_bytes = split_bytes.unwrap_or(DEFAULT_SPLIT_BYTES);
    opts.every_tick = every_tick;
    let jobs = jobs.filter(|&j| j > 0).unwrap_or_else(rayon_threads);
    Run::start(t.schema(), shared, move |mut out, notes| {
        let (outcome, totals) = teebatch::batch::export::run(&sel, jobs, &opts, &mut out, notes)?;
        let mut v = outcome_value(&outcome);
        v["rows"] = totals.rows.into();
        v["chunk_bytes"] = totals.chunk_bytes.into();
        Ok((v, None))
    })
}

/// One table's batches of a several-table run, gathered in memory; the
/// run stops at its next batch once `stop` is set (Ctrl-C).
struct Collect {
    batches: Vec<RecordBatch>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl TableWriter for Collect {
    fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()> {
        if self.stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
        }
        self.batches.push(batch.clone());
        Ok(())
    }

    fn write_encoded(&mut self, _bytes: &[u8]) -> io::Result<()> {
        Err(io::Error::other("record batches have no row encoder"))
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `demos export --tables`: one decode of every demo feeds every table of
/// `tables`; returns `(name, run)` per table, in the command line's table
/// order, each run a finished stream of its table (all of them share the
/// outcome, notes and errors). The rows are gathered in memory (the caller
/// makes tables of them); Ctrl-C stops the run at its next batch.
#[pyfunction]
#[pyo3(signature = (select, tables, from_tick=None, to_tick=None, jobs=None, split_bytes=None, every_tick=false))]
#[allow(clippy::too_many_arguments)]
fn demos_export_tables(
    py: Python<'_>,
    select: Select,
    tables: Vec<String>,
    from_tick: Option<TickArg>,
    to_tick: Option<TickArg>,
    jobs: Option<usize>,
    split_bytes: Option<u64>,
    every_tick: bool,
) -> PyResult<Vec<(String, Run)>> {
    let mut set = TableSet::default();
    for name in &tables {
        set.insert(self::table(name)?);
    }
    if set.is_empty() {
        return Err(PyValueError::new_err("no table asked"));
    }
    let (from, to) = tick_range(from_tick, to_tick)?;
    let shared = Arc::new(Mutex::new(Shared::default()));
    let sel = py.detach(|| self::select(select, "demo", embedded::demo_inputs, &shared))?;
    let mut opts = ExportOptions::for_tables(set);
    opts.from = from;
    opts.to = to;
    opts.split_bytes = split_bytes.unwrap_or(DEFAULT_SPLIT_BYTES);
    opts.every_tick = every_tick;
    let jobs = jobs.filter(|&j| j > 0).unwrap_or_else(rayon_threads);
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (tx, rx) = sync_channel(1);
    let (s, stop2) = (shared.clone(), stop.clone());
    std::thread::Builder::new()
        .name("teebatch-run".into())
        .spawn(move || {
            let mut writers: Vec<Collect> = set
                .iter()
                .map(|_| Collect {
                    batches: Vec::new(),
                    stop: stop2.clone(),
                })
                .collect();
            let mut refs: Vec<&mut dyn TableWriter> = writers
                .iter_mut()
                .map(|w| w as &mut dyn TableWriter)
                .collect();
            let mut notes = Notes(s.clone());
            let r = teebatch::batch::export::run_tables(&sel, jobs, &opts, &mut refs, &mut notes);
            drop(refs);
            let mut sh = lock(&s);
            match r {
                Ok((outcome, totals)) => {
                    let mut v = outcome_value(&outcome);
                    v["rows"] = totals.rows.into();
                    v["chunk_bytes"] = totals.chunk_bytes.into();
                    sh.outcome = Some(v);
                }
                Err(e) => sh.error = Some(e.to_string()),
            }
            drop(sh);
            let _ = tx.send(writers);
        })
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    // Behind a lock: waiting without the GIL needs a receiver that can be
    // shared with the detached closure.
    let rx = Mutex::new(rx);
    let recv = |timeout: Option<Duration>| {
        let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
        match timeout {
            Some(t) => rx.recv_timeout(t),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        }
    };
    let writers = loop {
        match py.detach(|| recv(Some(POLL))) {
            Ok(w) => break w,
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                    let _ = py.detach(|| recv(None));
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("internal error: the run panicked"));
            }
        }
    };
    Ok(set
        .iter()
        .zip(writers)
        .map(|(t, w)| {
            let mut run = Run::of_batches(t.schema(), w.batches);
            run.shared = shared.clone();
            (t.name().to_owned(), run)
        })
        .collect())
}

/// A bound of a tick range as Python gives it: an int is an absolute
/// server tick; a string is any form of `--from`/`--to` (`"+4500"`,
/// `"90s"`, `"1:30"`, or an absolute tick).
#[derive(FromPyObject)]
enum TickArg {
    Tick(i32),
    Text(String),
}

/// The bounds of `from_tick`/`to_tick` (none: the whole demo), refused
/// when both are of one kind and out of order.
fn tick_range(from: Option<TickArg>, to: Option<TickArg>) -> PyResult<(TickBound, TickBound)> {
    let bound = |b: Option<TickArg>, none: TickBound, name: &str| match b {
        None => Ok(none),
        Some(TickArg::Tick(t)) => Ok(TickBound::Absolute(t)),
        Some(TickArg::Text(s)) => {
            TickBound::parse(&s).map_err(|e| PyValueError::new_err(format!("{name}: {e}")))
        }
    };
    let from = bound(from, TickBound::START, "from_tick")?;
    let to = bound(to, TickBound::END, "to_tick")?;
    teebatch::batch::range::check_order(from, to).map_err(PyValueError::new_err)?;
    Ok((from, to))
}

/// All cores, as the command line's default `--jobs`.
fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `maps index` over a collection: one record per map as a [`Run`].
#[pyfunction]
#[pyo3(signature = (select, verify=None, jobs=None))]
fn maps_index(
    py: Python<'_>,
    select: Select,
    verify: Option<&str>,
    jobs: Option<usize>,
) -> PyResult<Run> {
    let verify = match verify {
        None => maps::Verify::default(),
        Some(v) => v
            .parse::<maps::Verify>()
            .map_err(|e| PyValueError::new_err(format!("verify: {e}")))?,
    };
    let shared = Arc::new(Mutex::new(Shared::default()));
    let sel = py.detach(|| self::select(select, "map", embedded::map_inputs, &shared))?;
    let schema = maps_schema();
    let opts = maps::RunOptions {
        index: maps::IndexOptions {
            verify,
            ..maps::IndexOptions::default()
        },
        jobs: jobs.filter(|&j| j > 0),
        thumbnails: None,
    };
    Run::start(schema.clone(), shared, move |out, notes| {
        let mut sink = RecordBatches {
            batcher: RecordBatcher::new(schema)?,
            out,
        };
        let run = maps::run(&sel, &opts, &mut sink, notes)?;
        sink.flush()?;
        summary_of(&run.index)
    })
}

/// `demos index` over a collection: one record per demo as a [`Run`].
#[pyfunction]
#[pyo3(signature = (select, jobs=None))]
fn demos_index(py: Python<'_>, select: Select, jobs: Option<usize>) -> PyResult<Run> {
    let shared = Arc::new(Mutex::new(Shared::default()));
    let sel = py.detach(|| self::select(select, "demo", embedded::demo_inputs, &shared))?;
    let schema = demos_schema();
    let opts = demos::RunOptions {
        index: demos::IndexOptions::default(),
        jobs: jobs.filter(|&j| j > 0),
    };
    Run::start(schema.clone(), shared, move |out, notes| {
        let mut sink = RecordBatches {
            batcher: RecordBatcher::new(schema)?,
            out,
        };
        let run = demos::run(&sel, &opts, &mut sink, notes)?;
        sink.flush()?;
        summary_of(&run)
    })
}

/// An index run's outcome and its summary document (the bytes `--summary`
/// writes, without the final newline).
fn summary_of<A: teebatch::batch::summary::Aggregate>(
    run: &teebatch::batch::run::IndexRun<A>,
) -> io::Result<(serde_json::Value, Option<String>)> {
    let text = serde_json::to_string_pretty(&run.summary).map_err(io::Error::from)?;
    Ok((outcome_value(&run.outcome), Some(text)))
}

/// The names of the tables of `demos export`, in the command line's order.
#[pyfunction]
fn tables() -> Vec<&'static str> {
    Table::ALL.iter().map(|t| t.name()).collect()
}

/// The `FormatError` of `e` in the file at `path`.
fn format_error(py: Python<'_>, path: &str, e: &ErrorRecord) -> PyErr {
    let err = FormatError::new_err(format!(
        "{path}: {} ({} error {} in {} at byte {})",
        e.message,
        e.stage.name(),
        e.kind,
        e.section,
        e.offset
    ));
    let v = err.value(py);
    let set = || -> PyResult<()> {
        v.setattr("path", path)?;
        v.setattr("stage", e.stage.name())?;
        v.setattr("kind", e.kind)?;
        v.setattr("section", &e.section)?;
        v.setattr("offset", e.offset)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// One demo held in memory: its index record and its tables.
#[pyclass(module = "teebatch._native")]
struct DemoFile {
    path: String,
    bytes: Vec<u8>,
}

#[pymethods]
impl DemoFile {
    #[new]
    fn new(path: String, bytes: Vec<u8>) -> Self {
        DemoFile { path, bytes }
    }

    /// The `demos index` record (JSON text); raises `FormatError` when the
    /// demo cannot be read to its end.
    fn record_json(&self, py: Python<'_>) -> PyResult<String> {
        let rec = py.detach(|| {
            let opts = demos::IndexOptions::default();
            let mut w = demos::Worker::new(&opts);
            let mut rec = demos::DemoRecord {
                path: self.path.clone(),
                name: stem(&self.path),
                ..demos::DemoRecord::default()
            };
            demos::index_bytes(&mut rec, &self.bytes, &mut w.decoder, w.max_warnings);
            rec
        });
        if let Some(e) = &rec.error {
            return Err(format_error(py, &self.path, e));
        }
        serde_json::to_string(&rec).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The rows of `table` (a finished [`Run`]); raises
    /// `FormatError` when the demo cannot be read to its end.
    #[pyo3(signature = (table, from_tick=None, to_tick=None))]
    fn table(
        &self,
        py: Python<'_>,
        table: &str,
        from_tick: Option<TickArg>,
        to_tick: Option<TickArg>,
    ) -> PyResult<Run> {
        let t = self::table(table)?;
        let mut opts = ExportOptions::new(t);
        (opts.from, opts.to) = tick_range(from_tick, to_tick)?;
        let (batches, done) = py.detach(|| {
            let mut decoder = teebatch::demo::stream::Decoder::new(opts.backend);
            decoder.set_max_ticks(opts.limits.max_ticks);
            let mut batches = Vec::new();
            let done = teebatch::batch::export::export_bytes(
                &mut decoder,
                &self.bytes,
                self.path.clone(),
                None,
                &opts,
                &mut |b: RecordBatch| {
                    batches.push(b);
                    true
                },
            );
            (batches, done)
        });
        if let Some(e) = &done.error {
            return Err(format_error(py, &self.path, e));
        }
        Ok(Run::of_batches(t.schema(), batches))
    }
}

/// One map held in memory: its index record.
#[pyclass(module = "teebatch._native")]
struct MapFile {
    path: String,
    bytes: Vec<u8>,
}

#[pymethods]
impl MapFile {
    #[new]
    fn new(path: String, bytes: Vec<u8>) -> Self {
        MapFile { path, bytes }
    }

    /// The `maps index` record (JSON text, `verify` as `--verify`); raises
    /// `FormatError` when the map cannot be read.
    #[pyo3(signature = (verify=None))]
    fn record_json(&self, py: Python<'_>, verify: Option<&str>) -> PyResult<String> {
        let verify = match verify {
            None => maps::Verify::default(),
            Some(v) => v
                .parse::<maps::Verify>()
                .map_err(|e| PyValueError::new_err(format!("verify: {e}")))?,
        };
        let rec = py.detach(|| {
            let opts = maps::IndexOptions {
                verify,
                ..maps::IndexOptions::default()
            };
            let mut w = maps::Worker::new(opts.limits);
            let mut rec = maps::MapRecord {
                path: self.path.clone(),
                name: stem(&self.path),
                ..maps::MapRecord::default()
            };
            maps::index_bytes(
                &mut rec,
                &self.bytes,
                &opts,
                &mut w.inflater,
                &mut w.data_buf,
            );
            rec
        });
        if let Some(e) = &rec.error {
            return Err(format_error(py, &self.path, e));
        }
        serde_json::to_string(&rec).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// The layers (JSON text of a list): index, group, name, type
    /// (`tiles`, `game`, `front`, `tele`, `speedup`, `switch`, `tune`,
    /// `quads`, `sounds`, `unknown`), detail, and a tilemap's width and
    /// height.
    fn layers_json(&self, py: Python<'_>) -> PyResult<String> {
        let layers = py.detach(|| -> Result<Vec<serde_json::Value>, Failure> {
            let (map, _, _) = self.parsed()?;
            Ok(map
                .layers
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let mut v = serde_json::json!({
                        "index": i,
                        "group": l.group,
                        "name": l.name,
                        "detail": l.detail,
                    });
                    let (kind, size) = match &l.kind {
                        LayerKind::Tilemap(t) => (t.kind.name(), Some((t.width, t.height))),
                        LayerKind::Quads(_) => ("quads", None),
                        LayerKind::Sounds(_) => ("sounds", None),
                        LayerKind::Unknown(_) => ("unknown", None),
                    };
                    v["type"] = kind.into();
                    if let Some((w, h)) = size {
                        v["width"] = w.into();
                        v["height"] = h.into();
                    }
                    v
                })
                .collect())
        });
        let layers = layers.map_err(|e| e.into_py(py, &self.path))?;
        Ok(serde_json::Value::from(layers).to_string())
    }

    /// The tiles of tilemap layer `layer`: `(type, width, height,
    /// tile_size, id_offset, flags_offset, bytes)`, the row-major tiles as
    /// stored (expanded).
    #[allow(clippy::type_complexity)]
    fn tiles(
        &self,
        py: Python<'_>,
        layer: usize,
    ) -> PyResult<(
        &'static str,
        usize,
        usize,
        usize,
        usize,
        Option<usize>,
        Vec<u8>,
    )> {
        let r = py.detach(|| -> Result<Option<TileLayer>, Failure> {
            let (map, df, mut w) = self.parsed()?;
            let mut scratch = Vec::new();
            Ok(map
                .load_tiles(&df, layer, &mut w.inflater, &mut scratch)
                .map_err(|e| ErrorRecord::map(&e))?)
        });
        let t = r
            .map_err(|e| e.into_py(py, &self.path))?
            .ok_or_else(|| PyValueError::new_err(format!("layer {layer} is not a tile layer")))?;
        let flags = match t.kind {
            PhysicsKind::Tiles | PhysicsKind::Game | PhysicsKind::Front => Some(1),
            PhysicsKind::Switch => Some(2),
            _ => None,
        };
        Ok((
            t.kind.name(),
            t.width,
            t.height,
            t.kind.tile_size(),
            t.kind.id_offset(),
            flags,
            t.bytes,
        ))
    }

    /// The picture `maps render` draws: `(width, height, rgb)`.
    #[pyo3(signature = (style, max_side=None, scale=None, mapres=None))]
    fn render(
        &self,
        py: Python<'_>,
        style: &str,
        max_side: Option<u32>,
        scale: Option<u32>,
        mapres: Option<PathBuf>,
    ) -> PyResult<(u32, u32, Vec<u8>)> {
        let style = match style {
            "entities" => Style::Entities,
            "full" => Style::Full,
            s => {
                return Err(PyValueError::new_err(format!(
                    "style must be \"entities\" or \"full\", not {s:?}"
                )))
            }
        };
        let size = match (scale, max_side) {
            (Some(s), _) => Size::Scale(s),
            (None, m) => Size::MaxSide(m.unwrap_or(1024)),
        };
        let r = py.detach(|| {
            let textures = Textures::locate(mapres.as_deref()).map_err(io::Error::other)?;
            let mut w = maps::Worker::new(Limits::default());
            w.inflater.start_file();
            let opts = RenderOptions { style, size };
            Ok::<_, io::Error>(
                render_map(
                    &self.bytes,
                    &opts,
                    &textures,
                    &mut w.inflater,
                    &mut w.data_buf,
                )
                .map(|mut p| {
                    let _ = p.draw_legend(&[]);
                    p.canvas
                }),
            )
        });
        let canvas = r
            .map_err(|e| PyValueError::new_err(format!("mapres: {e}")))?
            .map_err(|f| format_error(py, &self.path, &f.error))?;
        Ok((canvas.width, canvas.height, canvas.rgb))
    }
}

impl MapFile {
    /// The map part (items, no tiles), and a worker to read more with.
    fn parsed(&self) -> Result<(Map, Datafile<'_>, maps::Worker), Failure> {
        let mut w = maps::Worker::new(Limits::default());
        w.inflater.start_file();
        let df = Datafile::parse(&self.bytes).map_err(|e| ErrorRecord::datafile(&e))?;
        let map = Map::parse_opts(
            &df,
            &mut w.inflater,
            &mut w.data_buf,
            LoadOptions::SUMMARY,
            &mut Discard,
        )
        .map_err(|e| ErrorRecord::map(&e))?;
        match map {
            Some(m) => Ok((m, df, w)),
            None => Err(Failure::NoMap(format!(
                "the datafile has no map part ({})",
                absent_reason(&df).map_or("no version item", |r| r.name())
            ))),
        }
    }
}

/// Why a one-file call failed.
enum Failure {
    /// The file is not valid.
    Format(ErrorRecord),
    /// A valid datafile without a map part.
    NoMap(String),
}

impl From<ErrorRecord> for Failure {
    fn from(e: ErrorRecord) -> Self {
        Failure::Format(e)
    }
}

impl Failure {
    fn into_py(self, py: Python<'_>, path: &str) -> PyErr {
        match self {
            Failure::Format(e) => format_error(py, path, &e),
            Failure::NoMap(m) => PyValueError::new_err(format!("{path}: {m}")),
        }
    }
}

/// The file name of `path` without its extension (the records' `name`).
fn stem(path: &str) -> String {
    std::path::Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Run>()?;
    m.add_class::<DemoFile>()?;
    m.add_class::<MapFile>()?;
    m.add_function(wrap_pyfunction!(demos_export, m)?)?;
    m.add_function(wrap_pyfunction!(demos_export_tables, m)?)?;
    m.add_function(wrap_pyfunction!(demos_index, m)?)?;
    m.add_function(wrap_pyfunction!(maps_index, m)?)?;
    m.add_function(wrap_pyfunction!(tables, m)?)?;
    m.add("FormatError", m.py().get_type::<FormatError>())?;
    m.add("QUEUE_BATCHES", QUEUE_BATCHES)?;
    Ok(())
}
