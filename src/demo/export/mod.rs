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
pub use tables::Table;

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
    let mut out = DemoExport::default();
    // An export's output is rows and the error; stream warnings are not
    // part of it.
    let mut stream = decoder.stream_segment(demo, segment, crate::warn::Discard);
    while let Some(ev) = stream.next_event() {
        match ev {
            Ok(Event::Snapshot(s)) => {
                if s.tick > to {
                    break;
                }
                out.chunk_bytes += s.payload.decompressed.len() as u64;
                builder.snapshot_changed(s.tick, s.snapshot, s.changes);
            }
            Ok(Event::Message(m)) => {
                if m.tick > to {
                    break;
                }
                out.chunk_bytes += m.payload.decompressed.len() as u64;
                builder.message(m.tick, m.bytes);
            }
            Ok(Event::Tick(t)) if t.tick > to => break,
            Ok(Event::Tick(t)) => builder.tick(t.tick, t.had_snapshot_chunk, t.snapshot),
            Ok(_) => {}
            Err(e) => {
                out.error = Some(e);
                break;
            }
        }
        if builder.len() >= batch_rows && !sink.emit(builder.take_batch()) {
            out.stopped = true;
            break;
        }
    }
    if !out.stopped {
        builder.finish();
        if !builder.is_empty() {
            out.stopped = !sink.emit(builder.take_batch());
        }
    }
    out.rows = builder.rows_made;
    out.items_seen = builder.items_seen;
    out
}
