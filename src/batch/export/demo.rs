//! One demo's export: its file loaded (or reused for its next segment),
//! decoded once, and its rows of every table of the run handed to a sink.

use super::{DemoDone, ExportOptions};
use crate::batch::range::resolve_range;
use crate::batch::record::ErrorRecord;
use crate::batch::{load, Input, Loaded};
use crate::demo::export::{export_segment_tables, BatchSink, Table, TableBuilder, TablesSink};
use crate::demo::stream::{Decoder, Segment};
use crate::demo::Demo;
use arrow_array::RecordBatch;

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
        .str(crate::batch::demos::iso_timestamp(&timestamp).as_deref())
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
