//! `demos export`: a demo's snapshot items and game messages as typed
//! tables (see [`tables::Table`] and the README for the columns).
//!
//! The [`TableBuilder`] appends each decoded item and message straight
//! into the table's column buffers ([`columns::Columns`]) and hands them
//! on as Arrow record batches of the table's schema; the writers
//! (`crate::batch::tables`), the heat maps and the library's callers all
//! take those batches.

pub mod builder;
pub mod columns;
pub mod readback;
pub mod tables;

pub use builder::TableBuilder;
pub use readback::Value;
pub use tables::{Table, TableSet};

use arrow_array::RecordBatch;

use crate::demo::stream::{Decoder, Event, Segment, StreamError};
use crate::demo::Demo;

/// Where [`export_demo`] hands its rows.
pub trait BatchSink {
    /// Takes a batch of rows; `false` stops the export.
    fn emit(&mut self, batch: RecordBatch) -> bool;
}

impl<F: FnMut(RecordBatch) -> bool> BatchSink for F {
    fn emit(&mut self, batch: RecordBatch) -> bool {
        self(batch)
    }
}

/// Where [`export_segment_tables`] hands its rows: batches of several
/// tables, each with its table.
pub trait TablesSink {
    /// Takes a batch of rows of `table`; `false` stops the export.
    fn emit(&mut self, table: Table, batch: RecordBatch) -> bool;
}

impl<F: FnMut(Table, RecordBatch) -> bool> TablesSink for F {
    fn emit(&mut self, table: Table, batch: RecordBatch) -> bool {
        self(table, batch)
    }
}

/// What [`export_demo`] did.
#[derive(Debug, Default)]
pub struct DemoExport {
    pub rows: u64,
    /// Snapshot items the item tables looked at.
    pub items_seen: u64,
    /// Bytes of snapshot and message chunk data decoded (Huffman output).
    pub chunk_bytes: u64,
    /// The error that ended the demo early; the rows before it were emitted.
    pub error: Option<StreamError>,
    /// Whether the sink asked to stop.
    pub stopped: bool,
    /// Rows made by each builder ([`export_segment_tables`]), in order.
    pub table_rows: Vec<u64>,
}

/// Decodes `demo` and hands its rows of `table`, `batch_rows` or so at a
/// time, to `sink` (which returns `false` to stop). Ticks in `from..=to`
/// give rows; decoding stops at the first tick after `to`.
pub fn export_demo(
    demo: &Demo<'_>,
    decoder: &mut Decoder,
    builder: &mut TableBuilder,
    to: i32,
    batch_rows: usize,
    sink: &mut dyn BatchSink,
) -> DemoExport {
    let whole = Segment::whole(demo);
    export_segment(demo, &whole, decoder, builder, to, batch_rows, sink)
}

/// [`export_demo`] for one [`Segment`] of `demo` (a run of chunks from a
/// keyframe, see [`crate::demo::stream::parallel`]): the rows a whole pass
/// makes from those chunks, for the tables whose rows need no state from
/// before the keyframe ([`Table::splittable`]).
pub fn export_segment(
    demo: &Demo<'_>,
    segment: &Segment,
    decoder: &mut Decoder,
    builder: &mut TableBuilder,
    to: i32,
    batch_rows: usize,
    sink: &mut dyn BatchSink,
) -> DemoExport {
    let builders = std::slice::from_mut(builder);
    let mut sink = |_: Table, b: RecordBatch| sink.emit(b);
    export_segment_tables(demo, segment, decoder, builders, to, batch_rows, &mut sink)
}

/// [`export_segment`] for several tables at once: one decode of the
/// segment feeds every builder, and each builder hands its batches on as
/// it would alone (after the same events, so the batches, and the files
/// written from them, are those of one table's run).
pub fn export_segment_tables(
    demo: &Demo<'_>,
    segment: &Segment,
    decoder: &mut Decoder,
    builders: &mut [TableBuilder],
    to: i32,
    batch_rows: usize,
    sink: &mut dyn TablesSink,
) -> DemoExport {
    let mut out = DemoExport::default();
    // An export's output is rows and the error; stream warnings are not
    // part of it.
    let mut stream = decoder.stream_segment(demo, segment, crate::warn::Discard);
    'events: while let Some(ev) = stream.next_event() {
        match ev {
            Ok(Event::Snapshot(s)) => {
                if s.tick > to {
                    break;
                }
                out.chunk_bytes += s.payload.decompressed.len() as u64;
                for b in builders.iter_mut() {
                    b.snapshot_changed(s.tick, s.snapshot, s.changes);
                }
            }
            Ok(Event::Message(m)) => {
                if m.tick > to {
                    break;
                }
                out.chunk_bytes += m.payload.decompressed.len() as u64;
                for b in builders.iter_mut() {
                    b.message(m.tick, m.bytes);
                }
            }
            Ok(Event::Tick(t)) if t.tick > to => break,
            Ok(Event::Tick(t)) => {
                for b in builders.iter_mut() {
                    b.tick(t.tick, t.had_snapshot_chunk, t.snapshot);
                }
            }
            Ok(_) => {}
            Err(e) => {
                out.error = Some(e);
                break;
            }
        }
        for b in builders.iter_mut() {
            if b.len() >= batch_rows && !sink.emit(b.table(), b.take_batch()) {
                out.stopped = true;
                break 'events;
            }
        }
    }
    for b in builders.iter_mut() {
        if out.stopped {
            break;
        }
        b.finish();
        if !b.is_empty() {
            out.stopped = !sink.emit(b.table(), b.take_batch());
        }
    }
    out.table_rows = builders.iter().map(|b| b.rows_made).collect();
    out.rows = out.table_rows.iter().sum();
    out.items_seen = builders.iter().map(|b| b.items_seen).sum();
    out
}
