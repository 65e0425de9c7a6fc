//! Writing demos: the header, the embedded map and a stream of chunks, laid
//! out as [`super::Demo::parse`] reads them (see the module docs of
//! [`super`] for the header and of `chunk` for the chunk bytes).
//!
//! The choices follow DDNet's `CDemoRecorder` (`src/engine/shared/demo.cpp`):
//!
//! - **Header.** Written at once with `length` 0 and no timeline markers;
//!   [`DemoWriter::finish`] seeks back and patches `length` =
//!   `(last tick marker - first tick marker) / 50` and the markers. Version 6
//!   always carries the SHA-256 extension (UUID + digest of the map), even
//!   when the map itself is not embedded.
//! - **Tick markers** ([`DemoWriter::tick`]). Versions 5/6: the one-byte
//!   inline form `101D DDDD` when the tick advances by 0..=31 since the last
//!   marker and it is not a keyframe; otherwise `1k00 0000` followed by the
//!   big-endian absolute tick (the first marker and every keyframe are
//!   absolute). Versions 3/4 have no inline flag: a delta of 1..=63 goes in
//!   the low 6 bits, anything else (0 included, which would read as "absolute
//!   follows") is written absolute.
//! - **Snapshots** ([`DemoWriter::record_snapshot`], DDNet's
//!   `RecordSnapshot`): a keyframe (keyframe tick marker + full snapshot) on
//!   the first snapshot and whenever more than 250 ticks passed since the
//!   last keyframe, else a plain tick marker + a delta against the last
//!   snapshot written; a delta with nothing in it is not written (the tick
//!   marker is) and the last snapshot stays as it was.
//! - **Data chunks** (DDNet's `Write`): the payload bytes (a snapshot or
//!   delta as little-endian ints, or message bytes zero-padded to a multiple
//!   of 4) are read as little-endian `i32`s, varint-packed, Huffman-coded,
//!   and framed by `0ttS SSSS`: sizes below 30 inline, below 256 as escape 30
//!   plus one byte, else escape 31 plus a little-endian `u16`.
//!
//! Where DDNet silently drops a chunk (data over 64 KiB, a packed or
//! compressed payload that does not fit its 64 KiB buffers) this writer
//! returns an error and writes nothing; the writer stays usable. Everything
//! a chunk needs is encoded in memory first, so an error never leaves half a
//! chunk in the output.
//!
//! Ticks must not go backwards and must not be negative (DDNet's player
//! rejects both); the writer checks that instead of writing a demo no player
//! can read.

mod error;

use std::io::{self, Cursor, Seek, SeekFrom, Write};

use sha2::{Digest, Sha256};

use super::chunk::{
    CHUNK_DELTA, CHUNK_MESSAGE, CHUNK_SNAPSHOT, INLINE_TICK, KEYFRAME, TICK_MARKER,
};
use super::header::{DEMO_MAGIC, SHA256_UUID};
use crate::codec::huffman;
use crate::codec::snapshot::{self, create_delta, Protocol, Snapshot};
use crate::codec::varint;

pub use super::TICKS_PER_SECOND;
pub use error::{HeaderField, WriteError, WriteErrorKind};
/// A keyframe is written when more than this many ticks passed since the
/// last one (DDNet: `SERVER_TICK_SPEED * 5`).
pub const KEYFRAME_INTERVAL: i32 = 5 * TICKS_PER_SECOND;
/// Most timeline markers a demo holds.
pub const MAX_TIMELINE_MARKERS: usize = 64;
/// Largest uncompressed chunk payload in bytes (DDNet's 64 KiB buffers).
pub const MAX_DATA_SIZE: usize = 64 * 1024;
/// Largest compressed payload a chunk header can describe.
pub(crate) const MAX_PAYLOAD_SIZE: usize = u16::MAX as usize;

const HEADER_LEN: u64 = 8 + 168;
const LENGTH_OFFSET: u64 = 152;
const MARKERS_OFFSET: u64 = HEADER_LEN;

/// The demo format version to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DemoVersion {
    /// No timeline markers, 6-bit tick deltas.
    V3,
    /// Timeline markers, 6-bit tick deltas (Teeworlds 0.7 before 0.7.5).
    V4,
    /// Timeline markers, inline-tick flag (Teeworlds 0.7.5).
    V5,
    /// Version 5 plus the map's SHA-256 (DDNet).
    V6,
}

impl DemoVersion {
    /// The version byte.
    pub fn number(self) -> u8 {
        match self {
            DemoVersion::V3 => 3,
            DemoVersion::V4 => 4,
            DemoVersion::V5 => 5,
            DemoVersion::V6 => 6,
        }
    }

    /// The version of byte `n`, if writable.
    pub fn from_number(n: u8) -> Option<DemoVersion> {
        match n {
            3 => Some(DemoVersion::V3),
            4 => Some(DemoVersion::V4),
            5 => Some(DemoVersion::V5),
            6 => Some(DemoVersion::V6),
            _ => None,
        }
    }

    fn has_timeline_markers(self) -> bool {
        self != DemoVersion::V3
    }

    fn has_inline_tick_flag(self) -> bool {
        matches!(self, DemoVersion::V5 | DemoVersion::V6)
    }
}

/// What goes into the header.
#[derive(Clone, Copy, Debug)]
pub struct DemoHeader<'a> {
    pub version: DemoVersion,
    /// Decides `net_version` and the pre-agreed item sizes of deltas.
    pub protocol: Protocol,
    /// At most 63 bytes.
    pub map_name: &'a str,
    /// The map file; its CRC-32 and SHA-256 are computed from it.
    pub map: &'a [u8],
    /// Embed `map` (else `map_size` is 0 but CRC and SHA-256 still name it,
    /// like DDNet's recorder without map data).
    pub embed_map: bool,
    /// `client` or `server` (at most 7 bytes).
    pub demo_type: &'a str,
    /// `YYYY-MM-DD_HH-MM-SS` (at most 19 bytes).
    pub timestamp: &'a str,
}

impl<'a> DemoHeader<'a> {
    /// A client demo of `map` with timestamp `1970-01-01_00-00-00`.
    pub fn new(version: DemoVersion, protocol: Protocol, map_name: &'a str, map: &'a [u8]) -> Self {
        DemoHeader {
            version,
            protocol,
            map_name,
            map,
            embed_map: true,
            demo_type: "client",
            timestamp: "1970-01-01_00-00-00",
        }
    }
}

/// How a snapshot was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SnapshotChunk {
    /// As a full snapshot.
    Full,
    /// As a delta against the previous snapshot.
    Delta,
    /// Not at all: identical to the previous snapshot (an empty delta).
    Unchanged,
}

/// Counts of what was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WriteStats {
    pub tick_markers: usize,
    pub keyframes: usize,
    pub snapshots: usize,
    pub deltas: usize,
    pub unchanged: usize,
    pub messages: usize,
    /// Bytes of chunk payloads before compression (after padding).
    pub data_bytes: u64,
}

/// Writes one demo to `W`; see the module docs.
pub struct DemoWriter<W: Write + Seek> {
    out: W,
    /// Stream position of the magic.
    base: u64,
    /// Bytes written since `base`.
    pos: u64,
    version: DemoVersion,
    protocol: Protocol,
    first_tick: Option<i32>,
    last_tick: Option<i32>,
    last_keyframe: Option<i32>,
    /// The last tick marker was a keyframe and no snapshot followed yet.
    keyframe_pending: bool,
    /// The last snapshot written (deltas are made against it).
    prev: Option<Snapshot>,
    markers: Vec<i32>,
    stats: WriteStats,
    ints: Vec<i32>,
    packed: Vec<u8>,
    chunk: Vec<u8>,
}

fn io_err(offset: u64) -> impl Fn(io::Error) -> WriteError {
    move |e| WriteError {
        kind: WriteErrorKind::Io(e.kind()),
        offset,
    }
}

/// Copies `s` into a NUL-padded field of `len` bytes.
fn put_str(
    out: &mut Vec<u8>,
    s: &str,
    len: usize,
    field: HeaderField,
    offset: u64,
) -> Result<(), WriteError> {
    if s.len() >= len {
        return Err(WriteError {
            kind: WriteErrorKind::FieldTooLong(field),
            offset,
        });
    }
    out.extend_from_slice(s.as_bytes());
    out.resize(out.len() + len - s.len(), 0);
    Ok(())
}

impl DemoWriter<Cursor<Vec<u8>>> {
    /// A writer into memory; [`DemoWriter::finish_vec`] returns the bytes.
    pub fn new_vec(header: &DemoHeader<'_>) -> Result<Self, WriteError> {
        DemoWriter::new(Cursor::new(Vec::new()), header)
    }

    /// Finishes and returns the demo bytes.
    pub fn finish_vec(self) -> Result<Vec<u8>, WriteError> {
        Ok(self.finish()?.into_inner())
    }
}

impl<W: Write + Seek> DemoWriter<W> {
    /// Writes the header, timeline marker slots, SHA-256 extension (version
    /// 6) and map at the current position of `out`.
    pub fn new(mut out: W, header: &DemoHeader<'_>) -> Result<Self, WriteError> {
        let base = out.stream_position().map_err(io_err(0))?;
        let map_size = if header.embed_map {
            header.map.len()
        } else {
            0
        };
        let map_size = i32::try_from(map_size).map_err(|_| WriteError {
            kind: WriteErrorKind::MapTooLarge,
            offset: 136,
        })?;
        let mut h = Vec::with_capacity(512);
        h.extend_from_slice(DEMO_MAGIC);
        h.push(header.version.number());
        h.extend_from_slice(header.protocol.net_version().as_bytes());
        h.resize(8 + 64, 0);
        put_str(&mut h, header.map_name, 64, HeaderField::MapName, 72)?;
        h.extend_from_slice(&map_size.to_be_bytes());
        h.extend_from_slice(&crc32fast::hash(header.map).to_be_bytes());
        put_str(&mut h, header.demo_type, 8, HeaderField::DemoType, 144)?;
        h.extend_from_slice(&0i32.to_be_bytes()); // length, patched by finish
        put_str(&mut h, header.timestamp, 20, HeaderField::Timestamp, 156)?;
        if header.version.has_timeline_markers() {
            h.resize(h.len() + 4 + 4 * MAX_TIMELINE_MARKERS, 0);
        }
        if header.version == DemoVersion::V6 {
            h.extend_from_slice(&SHA256_UUID);
            h.extend_from_slice(&Sha256::digest(header.map));
        }
        out.write_all(&h).map_err(io_err(0))?;
        let mut pos = h.len() as u64;
        if header.embed_map {
            out.write_all(header.map).map_err(io_err(pos))?;
            pos += header.map.len() as u64;
        }
        Ok(DemoWriter {
            out,
            base,
            pos,
            version: header.version,
            protocol: header.protocol,
            first_tick: None,
            last_tick: None,
            last_keyframe: None,
            keyframe_pending: false,
            prev: None,
            markers: Vec::new(),
            stats: WriteStats::default(),
            ints: Vec::new(),
            packed: Vec::new(),
            chunk: Vec::new(),
        })
    }

    /// Bytes written so far (from the demo's first byte).
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// What was written so far.
    pub fn stats(&self) -> WriteStats {
        self.stats
    }

    /// The tick of the last tick marker.
    pub fn last_tick(&self) -> Option<i32> {
        self.last_tick
    }

    /// The last snapshot written, which the next delta is made against.
    pub fn last_snapshot(&self) -> Option<&Snapshot> {
        self.prev.as_ref()
    }

    fn err(&self, kind: WriteErrorKind) -> WriteError {
        WriteError {
            kind,
            offset: self.pos,
        }
    }

    /// Writes the encoded chunk in `self.chunk`.
    fn emit(&mut self) -> Result<(), WriteError> {
        self.out.write_all(&self.chunk).map_err(io_err(self.pos))?;
        self.pos += self.chunk.len() as u64;
        Ok(())
    }

    /// Writes a tick marker (see the module docs for when it is inline).
    pub fn tick(&mut self, tick: i32, keyframe: bool) -> Result<(), WriteError> {
        self.check_tick(tick)?;
        self.write_tick(tick, keyframe)
    }

    fn check_tick(&self, tick: i32) -> Result<(), WriteError> {
        if tick < 0 {
            return Err(self.err(WriteErrorKind::NegativeTick));
        }
        if self.last_tick.is_some_and(|last| tick < last) {
            return Err(self.err(WriteErrorKind::TickBackwards));
        }
        Ok(())
    }

    fn write_tick(&mut self, tick: i32, keyframe: bool) -> Result<(), WriteError> {
        let delta = self.last_tick.map(|last| tick - last);
        let inline = match (keyframe, delta) {
            (false, Some(d)) if self.version.has_inline_tick_flag() => {
                (0..=0x1f).contains(&d).then_some(INLINE_TICK | d as u8)
            }
            (false, Some(d)) => (1..=0x3f).contains(&d).then_some(d as u8),
            _ => None,
        };
        let flags = TICK_MARKER | if keyframe { KEYFRAME } else { 0 };
        let mut marker = [flags, 0, 0, 0, 0];
        let len = match inline {
            Some(bits) => {
                marker[0] |= bits;
                1
            }
            None => {
                marker[1..].copy_from_slice(&tick.to_be_bytes());
                5
            }
        };
        self.out
            .write_all(&marker[..len])
            .map_err(io_err(self.pos))?;
        self.pos += len as u64;
        self.last_tick = Some(tick);
        self.first_tick.get_or_insert(tick);
        self.keyframe_pending = keyframe;
        self.stats.tick_markers += 1;
        if keyframe {
            self.stats.keyframes += 1;
            self.last_keyframe = Some(tick);
        }
        Ok(())
    }

    /// Encodes `self.ints` as a data chunk of `chunk_type` into `self.chunk`.
    fn encode_ints(&mut self, chunk_type: u8) -> Result<(), WriteError> {
        if self.ints.len() * 4 > MAX_DATA_SIZE {
            return Err(self.err(WriteErrorKind::DataTooLarge));
        }
        self.packed.clear();
        varint::pack(&self.ints, &mut self.packed);
        if self.packed.len() > MAX_DATA_SIZE {
            return Err(self.err(WriteErrorKind::PayloadTooLarge));
        }
        let size = huffman::compressed_len(&self.packed);
        if size > MAX_PAYLOAD_SIZE {
            return Err(self.err(WriteErrorKind::PayloadTooLarge));
        }
        self.chunk.clear();
        let head = chunk_type << 5;
        match size {
            0..=29 => self.chunk.push(head | size as u8),
            30..=255 => self.chunk.extend_from_slice(&[head | 30, size as u8]),
            _ => {
                self.chunk.push(head | 31);
                self.chunk.extend_from_slice(&(size as u16).to_le_bytes());
            }
        }
        huffman::compress(&self.packed, &mut self.chunk);
        self.stats.data_bytes += 4 * self.ints.len() as u64;
        Ok(())
    }

    fn check_limits(&self, snap: &Snapshot) -> Result<(), WriteError> {
        let kind = if snap.len() > snapshot::MAX_ITEMS {
            snapshot::ErrorKind::TooManyItems
        } else if snap.total_size_bytes() > snapshot::MAX_SIZE {
            snapshot::ErrorKind::TooLarge
        } else {
            return Ok(());
        };
        Err(self.err(WriteErrorKind::Snapshot(kind)))
    }

    /// Encodes `snap` as a full snapshot chunk into `self.chunk`.
    fn encode_full(&mut self, snap: &Snapshot) -> Result<(), WriteError> {
        self.check_limits(snap)?;
        self.ints.clear();
        snap.write_ints(&mut self.ints);
        self.encode_ints(CHUNK_SNAPSHOT)
    }

    /// Encodes the delta from the last snapshot to `snap` into `self.chunk`;
    /// `false` if the delta is empty (then nothing is encoded).
    fn encode_delta(&mut self, snap: &Snapshot, write_empty: bool) -> Result<bool, WriteError> {
        self.check_limits(snap)?;
        let empty = Snapshot::new();
        let old = self.prev.as_ref().unwrap_or(&empty);
        let mut ints = std::mem::take(&mut self.ints);
        let r = create_delta(old, snap, self.protocol, &mut ints);
        self.ints = ints;
        r.map_err(|e| self.err(WriteErrorKind::Snapshot(e.kind)))?;
        if self.ints[0] == 0 && self.ints[1] == 0 && !write_empty {
            return Ok(false);
        }
        self.encode_ints(CHUNK_DELTA)?;
        Ok(true)
    }

    /// Emits the encoded snapshot chunk and makes `snap` the delta base.
    fn emit_snapshot(&mut self, snap: &Snapshot, chunk: SnapshotChunk) -> Result<(), WriteError> {
        self.keyframe_pending = false;
        match chunk {
            SnapshotChunk::Unchanged => {
                self.stats.unchanged += 1;
                return Ok(());
            }
            SnapshotChunk::Full => self.stats.snapshots += 1,
            SnapshotChunk::Delta => self.stats.deltas += 1,
        }
        self.emit()?;
        match &mut self.prev {
            Some(p) => p.clone_from(snap),
            None => self.prev = Some(snap.clone()),
        }
        Ok(())
    }

    /// Writes `snap` as a full snapshot chunk.
    pub fn full_snapshot(&mut self, snap: &Snapshot) -> Result<(), WriteError> {
        self.encode_full(snap)?;
        self.emit_snapshot(snap, SnapshotChunk::Full)
    }

    /// Writes `snap` as a delta against the last snapshot written (an empty
    /// snapshot if there was none). An empty delta is skipped
    /// ([`SnapshotChunk::Unchanged`]) unless `write_empty`.
    pub fn delta_snapshot(
        &mut self,
        snap: &Snapshot,
        write_empty: bool,
    ) -> Result<SnapshotChunk, WriteError> {
        let chunk = if self.encode_delta(snap, write_empty)? {
            SnapshotChunk::Delta
        } else {
            SnapshotChunk::Unchanged
        };
        self.emit_snapshot(snap, chunk)?;
        Ok(chunk)
    }

    /// Writes `snap` after a tick marker: in full if that marker was a
    /// keyframe or nothing was written before, else as a delta (skipped when
    /// empty).
    pub fn snapshot(&mut self, snap: &Snapshot) -> Result<SnapshotChunk, WriteError> {
        if self.keyframe_pending || self.prev.is_none() {
            self.full_snapshot(snap)?;
            Ok(SnapshotChunk::Full)
        } else {
            self.delta_snapshot(snap, false)
        }
    }

    /// DDNet's `RecordSnapshot`: a keyframe tick marker and full snapshot on
    /// the first call and when more than [`KEYFRAME_INTERVAL`] ticks passed
    /// since the last keyframe, else a tick marker and a delta (only the
    /// marker when the delta is empty). On error nothing is written.
    pub fn record_snapshot(
        &mut self,
        tick: i32,
        snap: &Snapshot,
    ) -> Result<SnapshotChunk, WriteError> {
        self.check_tick(tick)?;
        let keyframe = self.prev.is_none()
            || self
                .last_keyframe
                .is_none_or(|k| tick.saturating_sub(k) > KEYFRAME_INTERVAL);
        let chunk = if keyframe {
            self.encode_full(snap)?;
            SnapshotChunk::Full
        } else if self.encode_delta(snap, false)? {
            SnapshotChunk::Delta
        } else {
            SnapshotChunk::Unchanged
        };
        self.write_tick(tick, keyframe)?;
        self.emit_snapshot(snap, chunk)?;
        Ok(chunk)
    }

    /// Writes a message chunk: `bytes` zero-padded to a multiple of 4, read
    /// as little-endian ints.
    pub fn message(&mut self, bytes: &[u8]) -> Result<(), WriteError> {
        if bytes.len() > MAX_DATA_SIZE {
            return Err(self.err(WriteErrorKind::DataTooLarge));
        }
        self.ints.clear();
        self.ints.extend(bytes.chunks(4).map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            i32::from_le_bytes(b)
        }));
        self.encode_ints(CHUNK_MESSAGE)?;
        self.emit()?;
        self.stats.messages += 1;
        Ok(())
    }

    /// Adds a timeline marker at `tick`, with DDNet's rules: at most 64, each
    /// at least a second after the previous one.
    pub fn timeline_marker(&mut self, tick: i32) -> Result<(), WriteError> {
        let err = |kind| WriteError { kind, offset: 0 };
        if !self.version.has_timeline_markers() {
            return Err(err(WriteErrorKind::NoTimelineMarkers));
        }
        if self.markers.len() >= MAX_TIMELINE_MARKERS {
            return Err(err(WriteErrorKind::TooManyTimelineMarkers));
        }
        if let Some(&last) = self.markers.last() {
            if tick.saturating_sub(last) < TICKS_PER_SECOND {
                return Err(err(WriteErrorKind::TimelineMarkerTooClose));
            }
        }
        self.markers.push(tick);
        Ok(())
    }

    /// Length in seconds as `finish` will write it.
    pub(crate) fn length_seconds(&self) -> i32 {
        match (self.first_tick, self.last_tick) {
            (Some(f), Some(l)) => (l - f) / TICKS_PER_SECOND,
            _ => 0,
        }
    }

    /// Patches `length` and the timeline markers into the header, leaves the
    /// output positioned at the end of the demo, flushes, and returns it.
    pub fn finish(mut self) -> Result<W, WriteError> {
        let end = self.base + self.pos;
        let e = io_err(LENGTH_OFFSET);
        self.out
            .seek(SeekFrom::Start(self.base + LENGTH_OFFSET))
            .map_err(&e)?;
        self.out
            .write_all(&self.length_seconds().to_be_bytes())
            .map_err(&e)?;
        if self.version.has_timeline_markers() {
            let mut m = Vec::with_capacity(4 + 4 * self.markers.len());
            m.extend_from_slice(&(self.markers.len() as i32).to_be_bytes());
            for t in &self.markers {
                m.extend_from_slice(&t.to_be_bytes());
            }
            let e = io_err(MARKERS_OFFSET);
            self.out
                .seek(SeekFrom::Start(self.base + MARKERS_OFFSET))
                .map_err(&e)?;
            self.out.write_all(&m).map_err(&e)?;
        }
        let e = io_err(self.pos);
        self.out.seek(SeekFrom::Start(end)).map_err(&e)?;
        self.out.flush().map_err(&e)?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests;
