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

use super::record::{BatchStats, ErrorRecord, Stage};
use super::{load, Input, MmapMode};
use crate::backend::Backend;
use crate::demo::export::table::BatchEncoder;
use crate::demo::export::{export_demo, RowBatch, RowSink, Table, TableBuilder, TableWriter};
use crate::demo::stream::Decoder;
use crate::demo::Demo;
use crate::limits::Limits;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Condvar, Mutex};

/// Options of one `demos export` run.
#[derive(Clone, Copy, Debug)]
pub struct ExportOptions {
    pub table: Table,
    /// Ticks `from..=to` give rows.
    pub from: i32,
    pub to: i32,
    pub mmap: MmapMode,
    pub backend: Backend,
    /// Demo file size, tick and warning limits.
    pub limits: Limits,
    /// Rows per batch (a snapshot's rows are never split).
    pub batch_rows: usize,
    /// Batches a worker may have waiting for the writer.
    pub queue_batches: usize,
}

impl ExportOptions {
    pub fn new(table: Table) -> ExportOptions {
        ExportOptions {
            table,
            from: i32::MIN,
            to: i32::MAX,
            mmap: MmapMode::Auto,
            backend: Backend::default(),
            limits: Limits::default(),
            batch_rows: 1024,
            queue_batches: 4,
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
    /// Why the demo ended early (its rows before the fault were written).
    pub error: Option<ErrorRecord>,
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct ExportTotals {
    pub stats: BatchStats,
    pub rows: u64,
    pub chunk_bytes: u64,
    pub items_seen: u64,
}

enum Msg {
    Rows(RowBatch),
    /// A batch already encoded by the writer's encoder.
    Bytes(Vec<u8>),
    Done(DemoDone),
}

/// Exports every input's rows of `opts.table` to `writer`, in input order,
/// on `jobs` workers; `on_demo` sees each demo's outcome once its rows are
/// written. Returns the writer's first error, if any (the run then stops).
pub fn run_export(
    inputs: &[Input],
    jobs: usize,
    opts: &ExportOptions,
    writer: &mut dyn TableWriter,
    mut on_demo: impl FnMut(&DemoDone),
) -> io::Result<ExportTotals> {
    let n = inputs.len();
    let slots: Mutex<Vec<Option<Receiver<Msg>>>> = Mutex::new((0..n).map(|_| None).collect());
    let posted = Condvar::new();
    let next = AtomicUsize::new(0);
    let cancel = AtomicBool::new(false);
    // Batches the writer is done with, for the workers to fill again
    // (fresh ones would cost page faults batch after batch).
    let spares: Mutex<Vec<RowBatch>> = Mutex::new(Vec::new());
    let max_spares = jobs.max(1) * (opts.queue_batches.max(1) + 1);
    let byte_spares: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let mut totals = ExportTotals::default();
    let mut result = Ok(());
    std::thread::scope(|scope| {
        for w in 0..jobs.clamp(1, n.max(1)) {
            let (slots, posted, next, cancel, spares) = (&slots, &posted, &next, &cancel, &spares);
            let byte_spares = &byte_spares;
            // Row formats are encoded on the workers, in parallel.
            let mut encoder = writer.encoder();
            std::thread::Builder::new()
                .name(format!("teebatch-export-{w}"))
                .spawn_scoped(scope, move || {
                    let new_decoder = || {
                        let mut d = Decoder::new(opts.backend);
                        d.set_max_ticks(opts.limits.max_ticks);
                        d.set_max_warnings(opts.limits.max_warnings);
                        d
                    };
                    let mut decoder = new_decoder();
                    let mut buf = Vec::new();
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
                        let input = &inputs[i];
                        let mut sink = ChannelSink {
                            tx: &tx,
                            spares,
                            byte_spares,
                            encoder: encoder.as_mut(),
                            own_spare: None,
                        };
                        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            export_input(&mut decoder, &mut buf, input, opts, &mut sink)
                        }))
                        .unwrap_or_else(|_| {
                            decoder = new_decoder();
                            DemoDone {
                                path: input.display_path(),
                                size: input.listed_size(),
                                error: Some(ErrorRecord {
                                    stage: Stage::Export,
                                    kind: "panic",
                                    section: "file".into(),
                                    offset: 0,
                                    message: "internal error (panic) while exporting".into(),
                                }),
                                ..DemoDone::default()
                            }
                        });
                        let _ = tx.send(Msg::Done(done));
                    }
                })
                .expect("spawn export worker");
        }
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
            if result.is_err() {
                // Dropping the receiver makes the worker's next send fail.
                continue;
            }
            for msg in rx.iter() {
                match msg {
                    Msg::Rows(b) => {
                        if let Err(e) = writer.write_batch(&b) {
                            result = Err(e);
                            cancel.store(true, Ordering::Relaxed);
                            break;
                        }
                        let mut pool = spares.lock().expect("spares");
                        if pool.len() < max_spares {
                            pool.push(b);
                        }
                    }
                    Msg::Bytes(b) => {
                        if let Err(e) = writer.write_encoded(&b) {
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
                        totals.stats.record(d.size, d.error.as_ref(), &[]);
                        totals.rows += d.rows;
                        totals.chunk_bytes += d.chunk_bytes;
                        totals.items_seen += d.items_seen;
                        on_demo(&d);
                    }
                }
            }
        }
    });
    result.map(|()| totals)
}

/// Sends batches down a worker's channel and takes spare batches from the
/// writer's pool.
struct ChannelSink<'a> {
    tx: &'a std::sync::mpsc::SyncSender<Msg>,
    spares: &'a Mutex<Vec<RowBatch>>,
    byte_spares: &'a Mutex<Vec<Vec<u8>>>,
    /// With an encoder, batches go down the channel as bytes and the
    /// worker keeps the batch for its next rows.
    encoder: Option<&'a mut Box<dyn BatchEncoder + Send>>,
    own_spare: Option<RowBatch>,
}

impl RowSink for ChannelSink<'_> {
    fn emit(&mut self, batch: RowBatch) -> bool {
        if let Some(enc) = self.encoder.as_deref_mut() {
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
                self.own_spare = Some(batch);
                return self.tx.send(Msg::Bytes(buf)).is_ok();
            }
        }
        self.tx.send(Msg::Rows(batch)).is_ok()
    }

    fn spare(&mut self) -> Option<RowBatch> {
        self.own_spare
            .take()
            .or_else(|| self.spares.lock().expect("spares").pop())
    }
}

/// Exports one input, handing row batches to `sink`.
pub fn export_input(
    decoder: &mut Decoder,
    buf: &mut Vec<u8>,
    input: &Input,
    opts: &ExportOptions,
    sink: &mut dyn RowSink,
) -> DemoDone {
    let mut done = DemoDone {
        path: input.display_path(),
        size: input.listed_size(),
        ..DemoDone::default()
    };
    if input.listed_size() > opts.limits.max_demo_file_bytes {
        done.error = Some(ErrorRecord::too_large(opts.limits.max_demo_file_bytes));
        return done;
    }
    let bytes = match load(input, opts.mmap, buf) {
        Ok(b) => b,
        Err(e) => {
            done.error = Some(ErrorRecord::io(&e));
            return done;
        }
    };
    done.size = bytes.len() as u64;
    let demo = match Demo::parse(&bytes) {
        Ok(d) => d,
        Err(e) => {
            done.error = Some(ErrorRecord {
                stage: Stage::Demo,
                kind: e.kind.kind(),
                section: e.section.to_string(),
                offset: e.offset as u64,
                message: e.to_string(),
            });
            return done;
        }
    };
    let mut builder = TableBuilder::new(
        opts.table,
        demo.decode_protocol(),
        &done.path,
        opts.from,
        opts.to,
    );
    let r = export_demo(&demo, decoder, &mut builder, opts.to, opts.batch_rows, sink);
    done.rows = r.rows;
    done.chunk_bytes = r.chunk_bytes;
    done.items_seen = r.items_seen;
    if let Some(e) = r.error {
        done.error = Some(ErrorRecord {
            stage: Stage::Stream,
            kind: e.kind.kind(),
            section: format!("chunk {}", e.chunk),
            offset: e.offset as u64,
            message: e.to_string(),
        });
    }
    done
}
