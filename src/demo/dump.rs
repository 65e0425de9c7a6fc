//! Text dumps of a demo's snapshot stream, byte for byte in the formats of
//! the golden files (see the datasets README, "Golden formats"):
//!
//! ```text
//! snapshots       (no header)  tick  num_items  checksum
//! snapshots_full  #tick kind num_items checksum num_items_excl_uuid_type_items data_size_bytes canonical_crc32
//! ticks           #tick num_items checksum had_snapshot_chunk
//! chunks          #index kind compressed_len decompressed_len decompressed_crc32 num_ints ints_crc32
//! chat            #tick client_id name mode text   (dump_chat; not a golden format)
//! ```
//!
//! Columns are tab-separated, lines end in `\n`, integers are decimal
//! (checksums signed), CRC-32s 8 lowercase hex digits. A tick before the
//! first snapshot prints 0 items and checksum 0.
//!
//! On a stream error every line before the fault is written, then the error
//! is returned.

use std::io::{self, Write};

use super::analysis::{AnalysisVisitor, TrackerConfig};
use super::stream::{
    self, visit_parallel, Decoder, Event, Segment, StreamError, StreamWarning, Visitor,
};
use super::Demo;
use crate::backend::Backend;
use crate::warn::Warnings;

/// Which dump.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DumpKind {
    /// One line per snapshot or delta chunk: tick, items, checksum.
    Snapshots,
    /// Snapshots with kind, items without type declarations, data size and
    /// canonical CRC-32.
    SnapshotsFull,
    /// One line per tick marker with the snapshot in effect.
    Ticks,
    /// One line per data chunk with sizes and CRC-32s of each stage.
    Chunks,
}

impl DumpKind {
    pub const ALL: [DumpKind; 4] = [
        DumpKind::Snapshots,
        DumpKind::SnapshotsFull,
        DumpKind::Ticks,
        DumpKind::Chunks,
    ];

    /// The header line (with its `\n`), if the format has one.
    pub fn header(self) -> Option<&'static str> {
        match self {
            DumpKind::Snapshots => None,
            DumpKind::SnapshotsFull => Some(
                "#tick\tkind\tnum_items\tchecksum\tnum_items_excl_uuid_type_items\t\
                 data_size_bytes\tcanonical_crc32\n",
            ),
            DumpKind::Ticks => Some("#tick\tnum_items\tchecksum\thad_snapshot_chunk\n"),
            DumpKind::Chunks => Some(
                "#index\tkind\tcompressed_len\tdecompressed_len\tdecompressed_crc32\t\
                 num_ints\tints_crc32\n",
            ),
        }
    }

    /// The golden file suffix: `snapshots.tsv`, `snapshots_full.tsv`, ….
    pub fn file_suffix(self) -> &'static str {
        match self {
            DumpKind::Snapshots => "snapshots.tsv",
            DumpKind::SnapshotsFull => "snapshots_full.tsv",
            DumpKind::Ticks => "ticks.tsv",
            DumpKind::Chunks => "chunks.tsv",
        }
    }
}

/// Why a dump stopped.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The demo is broken here; the lines before were written.
    #[error(transparent)]
    Stream(#[from] StreamError),
}

/// The header line of [`dump_chat`].
pub(crate) const CHAT_HEADER: &str = "#tick\tclient_id\tname\tmode\ttext\n";

/// The chat log of `demo`: one line per chat message (tick, client id,
/// sender name, mode, text with tabs and newlines as spaces), written as it
/// is decoded (nothing is collected).
pub fn dump_chat(backend: Backend, demo: &Demo<'_>, out: &mut impl Write) -> Result<(), DumpError> {
    let mut decoder = Decoder::new(backend);
    // The chat log is the lines; warnings are not part of it.
    let mut visitor = AnalysisVisitor::with_config(
        demo.decode_protocol(),
        TrackerConfig::default(),
        crate::warn::Discard,
    );
    let mut stream = decoder.stream(demo, crate::warn::Discard);
    out.write_all(CHAT_HEADER.as_bytes())?;
    loop {
        match stream.next_event() {
            None => return Ok(()),
            Some(Err(e)) => return Err(DumpError::Stream(e)),
            Some(Ok(event)) => visitor.visit(&event),
        }
        for line in visitor.drain_chat() {
            writeln!(
                out,
                "{}\t{}\t{}\t{:?}\t{}",
                line.tick,
                line.client_id,
                line.name.as_deref().unwrap_or(""),
                line.mode,
                line.text.replace(['\t', '\n'], " ")
            )?;
        }
    }
}

/// A [`Visitor`] formatting the lines of one dump (no header) into a buffer.
#[derive(Debug)]
pub struct DumpVisitor {
    kind: DumpKind,
    /// The lines so far.
    pub out: Vec<u8>,
    scratch: Vec<u8>,
}

impl DumpVisitor {
    pub fn new(kind: DumpKind) -> DumpVisitor {
        DumpVisitor {
            kind,
            out: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

fn ints_crc32(ints: &[i32], scratch: &mut Vec<u8>) -> u32 {
    scratch.clear();
    scratch.extend(ints.iter().flat_map(|v| v.to_le_bytes()));
    crc32fast::hash(scratch)
}

impl Visitor for DumpVisitor {
    fn visit(&mut self, event: &Event<'_>) {
        // Writing to a Vec cannot fail.
        let out = &mut self.out;
        let _ = match (self.kind, event) {
            (DumpKind::Snapshots, Event::Snapshot(s)) => {
                writeln!(out, "{}\t{}\t{}", s.tick, s.snapshot.len(), s.checksum)
            }
            (DumpKind::SnapshotsFull, Event::Snapshot(s)) => writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}\t{}\t{:08x}",
                s.tick,
                s.kind.letter(),
                s.snapshot.len(),
                s.checksum,
                s.snapshot.len_without_type_declarations(),
                s.snapshot.data_size_bytes(),
                s.snapshot.canonical_crc32()
            ),
            (DumpKind::Ticks, Event::Tick(t)) => writeln!(
                out,
                "{}\t{}\t{}\t{}",
                t.tick,
                t.snapshot.map_or(0, |s| s.len()),
                t.checksum,
                u8::from(t.had_snapshot_chunk)
            ),
            (DumpKind::Chunks, Event::Snapshot(_) | Event::Message(_) | Event::Unknown(_)) => {
                let (name, p) = match event {
                    Event::Snapshot(s) => match s.kind {
                        stream::SnapshotKind::Full => ("Snapshot", s.payload),
                        stream::SnapshotKind::Delta => ("Delta", s.payload),
                    },
                    Event::Message(m) => ("Message", m.payload),
                    Event::Unknown(u) => ("Unknown", u.payload),
                    Event::Tick(_) => return,
                };
                writeln!(
                    out,
                    "{}\t{name}\t{}\t{}\t{:08x}\t{}\t{:08x}",
                    p.data_index,
                    p.compressed.len(),
                    p.decompressed.len(),
                    crc32fast::hash(p.decompressed),
                    p.ints.len(),
                    ints_crc32(p.ints, &mut self.scratch)
                )
            }
            _ => Ok(()),
        };
    }
}

/// Flushes the visitor's buffer to `out` once it holds this much.
const FLUSH_AT: usize = 64 * 1024;

/// Writes the `kind` dump of `demo` to `out`, decoding sequentially with
/// `backend`. Returns the stream warnings (at most
/// [`crate::warn::DEFAULT_MAX_WARNINGS`], then one `too_many_warnings`).
pub fn dump_on(
    backend: Backend,
    demo: &Demo<'_>,
    kind: DumpKind,
    out: &mut impl Write,
) -> Result<Vec<StreamWarning>, DumpError> {
    if let Some(h) = kind.header() {
        out.write_all(h.as_bytes())?;
    }
    let mut decoder = Decoder::new(backend);
    let mut warnings = Warnings::new(crate::warn::DEFAULT_MAX_WARNINGS);
    let mut stream = decoder.stream(demo, &mut warnings);
    let mut v = DumpVisitor::new(kind);
    let error = loop {
        match stream.next_event() {
            None => break None,
            Some(Ok(ev)) => v.visit(&ev),
            Some(Err(e)) => break Some(e),
        }
        if v.out.len() >= FLUSH_AT {
            out.write_all(&v.out)?;
            v.out.clear();
        }
    };
    out.write_all(&v.out)?;
    match error {
        Some(e) => Err(e.into()),
        None => Ok(warnings.into_vec()),
    }
}

/// [`dump_on`] decoding `segments` (see [`stream::segments`]) in parallel
/// on the rayon pool; same output.
pub fn dump_parallel(
    backend: Backend,
    demo: &Demo<'_>,
    kind: DumpKind,
    segments: &[Segment],
    out: &mut impl Write,
) -> Result<Vec<StreamWarning>, DumpError> {
    if let Some(h) = kind.header() {
        out.write_all(h.as_bytes())?;
    }
    let r = visit_parallel(demo, backend, segments, || DumpVisitor::new(kind));
    for v in &r.visitor {
        out.write_all(&v.out)?;
    }
    match r.error {
        Some(e) => Err(e.into()),
        None => Ok(r.warnings),
    }
}

/// `--snapshots`: golden `<demo>.snapshots.tsv`.
pub fn dump_snapshots(demo: &Demo<'_>, out: &mut impl Write) -> Result<(), DumpError> {
    dump_on(Backend::default(), demo, DumpKind::Snapshots, out).map(drop)
}

/// snapshots_full: golden `<demo>.snapshots_full.tsv`.
pub fn dump_snapshots_full(demo: &Demo<'_>, out: &mut impl Write) -> Result<(), DumpError> {
    dump_on(Backend::default(), demo, DumpKind::SnapshotsFull, out).map(drop)
}

/// `--ticks`: golden `<demo>.ticks.tsv`.
pub fn dump_ticks(demo: &Demo<'_>, out: &mut impl Write) -> Result<(), DumpError> {
    dump_on(Backend::default(), demo, DumpKind::Ticks, out).map(drop)
}

/// `--chunks`: golden `<demo>.chunks.tsv`.
pub fn dump_chunks(demo: &Demo<'_>, out: &mut impl Write) -> Result<(), DumpError> {
    dump_on(Backend::default(), demo, DumpKind::Chunks, out).map(drop)
}
