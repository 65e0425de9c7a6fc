//! The workers and the one writer of an export: units of work through
//! bounded channels, written in input order (see the module docs of
//! [`super`]).

use super::demo::{export_input_tables, ReadBuf};
use super::{plan_units, DemoDone, ExportKind, ExportOptions, ExportTotals};
use crate::batch::record::{ErrorRecord, Stage};
use crate::batch::tables::{BatchEncoder, TableWriter};
use crate::batch::Input;
use crate::demo::export::{Table, TableSet, TablesSink};
use crate::demo::stream::Decoder;
use arrow_array::RecordBatch;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Condvar, Mutex};

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

/// Adds a demo's outcome (all its segments) to the totals and hands it to
/// `on_demo` (which counts the file: see [`super::run_tables`]).
fn report(totals: &mut ExportTotals, d: Option<DemoDone>, on_demo: &mut impl FnMut(&DemoDone)) {
    let Some(d) = d else { return };
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
