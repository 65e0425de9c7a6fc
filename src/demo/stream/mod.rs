//! The snapshot stream: every chunk of a demo decoded, every snapshot
//! reconstructed, in file order.
//!
//! A demo's chunk data (see [`super::Chunks`]) is a run of tick markers, each
//! followed by the data chunks of that tick, typically:
//!
//! ```text
//! tick 2176 (keyframe)  snapshot  message message …
//! tick 2178             delta     message …
//! tick 2180                       message …        (no snapshot chunk)
//! ```
//!
//! Every data payload goes through Huffman decompression (at most 64 KiB of
//! output) and varint unpacking (at most 16 384 ints, what fits in DDNet's
//! 64 KiB chunk buffer); a full snapshot is parsed from its ints, a delta is
//! applied to the previous reconstructed snapshot with the item sizes of the
//! demo's protocol. This follows DDNet's `CDemoPlayer::DoTick`
//! (`src/engine/shared/demo.cpp`) and libtw2's demo reader, which made the
//! golden files:
//!
//! - `tick` of a data chunk is that of the latest tick marker (`-1` before
//!   any, with a [`StreamWarningKind::DataBeforeTick`] warning).
//! - A delta applies to the previous reconstructed snapshot; a delta before
//!   any full snapshot is an error ([`StreamErrorKind::DeltaBeforeSnapshot`]).
//! - The snapshot in effect at a tick marker is the one reconstructed from
//!   that tick's snapshot chunk, or else the previous one (DDNet's player
//!   replays the last snapshot for a tick without one). A [`TickEvent`] is
//!   therefore emitted when its tick is complete: at the next tick marker
//!   (also one the tick checks then refuse, whose error follows the event)
//!   or at the end of the data, after the data chunks of its tick. A tick
//!   whose chunks stop at an error is not complete and not emitted.
//! - Payloads of size 0 decode to nothing (DDNet skips decompression).
//! - Type-0 ("unknown") chunks are decompressed and unpacked like the others
//!   (DDNet does so too) and reported with a warning.
//!
//! The protocol (0.6 or 0.7 pre-agreed item sizes) comes from the header's
//! `net_version`, not the file version. An unknown `net_version` falls back
//! to DDNet's rule (`0.7…` means 0.7, anything else 0.6) with a
//! [`StreamWarningKind::UnknownNetVersion`] warning.
//!
//! Tick validation, from the two references: DDNet rejects a tick-delta
//! marker before any absolute tick and ticks outside `0..0x6fff_ffff`;
//! libtw2 rejects an absolute tick that does not increase. A keyframe marker
//! written as a delta is accepted (DDNet plays it; libtw2 refuses it) with a
//! [`StreamWarningKind::KeyframeTickDelta`] warning.
//!
//! Errors end the stream: everything decoded before stays reported, the
//! error carries the chunk index and the chunk's byte offset in the file
//! (plus the offset inside the failing layer). Warnings go to the caller's
//! sink ([`Warn`]) with the same positions, as they are found.
//!
//! [`Decoder`] owns every buffer (Huffman output, ints, message bytes, two
//! snapshots swapped old/new) and reuses them: once warm, decoding a chunk
//! allocates nothing. The stream reads chunks ahead in batches and
//! Huffman-decodes their payloads together (`read_ahead.rs`); [`parallel`]
//! splits one demo at keyframes and decodes the parts on rayon workers.

pub mod parallel;
pub mod stats;

pub use parallel::{segments, split_points, visit_parallel, Segment};
pub use stats::{demo_stats, ChunkCounts, DemoStats, ItemTypeStats, StatsVisitor};

mod error;
mod event;
mod read_ahead;

pub use error::{StreamError, StreamErrorKind, StreamWarning, StreamWarningKind};
pub use event::{
    ChunkPos, Event, MessageEvent, Payload, SnapshotEvent, SnapshotKind, TickEvent, UnknownEvent,
    Visitor,
};
pub use read_ahead::huffman_room;
use read_ahead::{Queued, BATCH_BUDGET, QUEUE_CHUNKS};

use super::{Chunk, ChunkKind, DemoError, DemoWarning};
use super::{Chunks, Demo};
use crate::backend::Backend;
use crate::codec::huffman::{HuffmanError, HuffmanErrorKind};
use crate::codec::kernels::Kernels;
use crate::codec::snapshot::{self, Changes, DeltaApplier, Protocol, Snapshot};
use crate::codec::varint::{VarintErrorKind, VarintWarning};
use crate::warn::{wrap, Discard, Warn, Warnings};

/// Largest Huffman-decompressed payload (DDNet's 64 KiB chunk buffers).
pub const MAX_PAYLOAD: usize = 64 * 1024;
/// Most ints one payload may unpack to (64 KiB of `i32`s, DDNet's
/// `m_aChunkData`).
pub const MAX_INTS: usize = MAX_PAYLOAD / 4;
/// Default [`Decoder::max_ticks`]: one week of ticks at 50 ticks per second
/// (50 × 3600 × 24 × 7 = 30 240 000).
pub const DEFAULT_MAX_TICKS: u64 = super::TICKS_PER_SECOND as u64 * 3600 * 24 * 7;

/// Smallest valid tick (DDNet `MIN_TICK`).
pub const MIN_TICK: i32 = 0;
/// Ticks must be below this (DDNet `MAX_TICK`).
pub const MAX_TICK: i32 = 0x6fff_ffff;

/// The reusable decoding state of one worker.
pub struct Decoder {
    /// The kernels of the decoder's backend, resolved once.
    kernels: Kernels,
    /// Applies the snapshot chunks (owns the spare snapshot).
    applier: DeltaApplier,
    /// Huffman output of the payloads read ahead, one after the other.
    arena: Vec<u8>,
    ints: Vec<i32>,
    message: Vec<u8>,
    current: Snapshot,
    /// What the latest snapshot chunk changed.
    changes: Changes,
    max_ticks: u64,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new(Backend::default())
    }
}

impl Decoder {
    /// A decoder whose kernels use `backend`.
    pub fn new(backend: Backend) -> Decoder {
        Decoder::with_kernels(Kernels::new(backend))
    }

    /// A decoder with the kernels `kernels`.
    pub fn with_kernels(kernels: Kernels) -> Decoder {
        Decoder {
            kernels,
            applier: DeltaApplier::with_kernels(kernels.snapshot()),
            arena: vec![0; BATCH_BUDGET + MAX_PAYLOAD],
            ints: vec![0; MAX_INTS],
            message: Vec::new(),
            current: Snapshot::new(),
            changes: Changes::default(),
            max_ticks: DEFAULT_MAX_TICKS,
        }
    }

    pub fn backend(&self) -> Backend {
        self.kernels.backend()
    }

    /// The kernels it decodes with.
    pub fn kernels(&self) -> Kernels {
        self.kernels
    }

    /// Most tick markers a stream decodes before it stops with
    /// [`StreamErrorKind::TooManyTicks`] (counted from the demo's first
    /// chunk, also for a [`Segment`] of it).
    pub fn max_ticks(&self) -> u64 {
        self.max_ticks
    }

    /// Sets [`Decoder::max_ticks`] for the streams started afterwards.
    pub fn set_max_ticks(&mut self, max_ticks: u64) {
        self.max_ticks = max_ticks;
    }

    /// Starts decoding `demo` from its first chunk; the warnings go to
    /// `warn` (usually a [`Warnings`], which caps them: a demo of nothing
    /// but oddities has e.g. 16 384 overlong varints per chunk).
    pub fn stream<'d, 'a, W: Warn<StreamWarning>>(
        &'d mut self,
        demo: &Demo<'a>,
        warn: W,
    ) -> Stream<'d, 'a, W> {
        self.stream_segment(demo, &Segment::whole(demo), warn)
    }

    /// [`Decoder::stream`] that also sends the framing warnings of the
    /// chunks it reads (tick padding, overlong size escapes, unknown chunk
    /// types: what [`Chunks::next_with_warnings`] reports) to `framing`;
    /// [`Stream::into_framing`] gives the sink back with the chunks not
    /// read. One pass over the chunk headers then does for both: a second
    /// walk from the first chunk waits on every header again (the next
    /// header's offset is in the one before).
    pub fn stream_with_framing<'d, 'a, W: Warn<StreamWarning>, F: Warn<DemoWarning>>(
        &'d mut self,
        demo: &Demo<'a>,
        warn: W,
        framing: F,
    ) -> Stream<'d, 'a, W, F> {
        self.start(demo, &Segment::whole(demo), warn, framing)
    }

    /// Starts decoding one [`Segment`] of `demo` (see [`parallel`]).
    pub fn stream_segment<'d, 'a, W: Warn<StreamWarning>>(
        &'d mut self,
        demo: &Demo<'a>,
        seg: &Segment,
        warn: W,
    ) -> Stream<'d, 'a, W> {
        self.start(demo, seg, warn, Discard)
    }

    fn start<'d, 'a, W: Warn<StreamWarning>, F>(
        &'d mut self,
        demo: &Demo<'a>,
        seg: &Segment,
        mut warn: W,
        framing: F,
    ) -> Stream<'d, 'a, W, F> {
        self.current.clear();
        if demo.protocol().is_none() && seg.index == 0 {
            let w = StreamWarning {
                kind: StreamWarningKind::UnknownNetVersion,
                chunk: None,
                offset: 8,
                inner_offset: 0,
            };
            warn.warn(w);
        }
        let protocol = demo.decode_protocol();
        Stream {
            chunks: demo.chunks_at(seg.offset, seg.index, seg.tick_before),
            bytes: demo.bytes(),
            inline_flag: demo.has_inline_tick_flag(),
            protocol,
            end: seg.end,
            touched: 0,
            last_tick: seg.last_tick,
            ticks: seg.ticks_before,
            max_ticks: self.max_ticks,
            data_index: seg.data_index,
            pending: None,
            refused: None,
            have_snapshot: false,
            checksum: 0,
            done: false,
            queue: Vec::with_capacity(QUEUE_CHUNKS + 1),
            head: 0,
            framing,
            dec: self,
            warn,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct PendingTick {
    tick: i32,
    keyframe: bool,
    had_snapshot_chunk: bool,
    pos: ChunkPos,
}

/// The kind of a data chunk.
#[derive(Clone, Copy, Debug)]
enum DataKind {
    Snapshot(SnapshotKind),
    Message,
    Unknown(u8),
}

/// What one step produced, before it is turned into a borrowing [`Event`].
enum Step<'a> {
    Tick(PendingTick),
    Data {
        kind: DataKind,
        pos: ChunkPos,
        compressed: &'a [u8],
        /// The decompressed payload's place in the arena.
        start: usize,
        bytes: usize,
        ints: usize,
    },
}

/// A decoding pass over a demo's chunks.
///
/// Events borrow the decoder's buffers, so this is a lending iterator:
///
/// ```no_run
/// # use teebatch::demo::{Demo, stream::{Decoder, Event}};
/// # let bytes = std::fs::read("x.demo").unwrap();
/// let demo = Demo::parse(&bytes)?;
/// let mut decoder = Decoder::default();
/// let mut warnings = teebatch::warn::Warnings::new(1024);
/// let mut stream = decoder.stream(&demo, &mut warnings);
/// while let Some(event) = stream.next_event() {
///     if let Event::Snapshot(s) = event? {
///         println!("{}\t{}\t{}", s.tick, s.snapshot.len(), s.checksum);
///     }
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Stream<'d, 'a, W, F = Discard> {
    dec: &'d mut Decoder,
    /// The caller's sink.
    warn: W,
    chunks: Chunks<'a>,
    bytes: &'a [u8],
    inline_flag: bool,
    protocol: Protocol,
    end: usize,
    /// File bytes below this offset were touched ([`Stream::touch_ahead`]).
    touched: usize,
    last_tick: Option<i32>,
    /// Tick markers seen, from the demo's first chunk.
    ticks: u64,
    max_ticks: u64,
    data_index: usize,
    pending: Option<PendingTick>,
    /// A tick marker's error, returned after the pending tick it completes.
    refused: Option<StreamError>,
    have_snapshot: bool,
    checksum: i32,
    done: bool,
    /// Chunks read ahead (their payloads already Huffman-decoded, as one
    /// batch) and the next one to hand out.
    queue: Vec<Queued<'a>>,
    head: usize,
    /// Where the chunk framing warnings go
    /// ([`Decoder::stream_with_framing`]; dropped otherwise).
    framing: F,
}

impl<'d, 'a, W: Warn<StreamWarning>, F: Warn<DemoWarning>> Stream<'d, 'a, W, F> {
    /// The protocol deltas are decoded with.
    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The sink the warnings go to.
    pub fn sink(&mut self) -> &mut W {
        &mut self.warn
    }

    /// The framing warnings' sink ([`Decoder::stream_with_framing`]) and
    /// the chunks after those this stream read (ahead of the events it handed
    /// out, where it stopped early).
    pub fn into_framing(self) -> (F, Chunks<'a>) {
        (self.framing, self.chunks)
    }

    /// The next chunk, its framing warnings to the framing sink.
    #[inline(always)]
    fn next_chunk(&mut self) -> Option<Result<Chunk<'a>, DemoError>> {
        self.chunks.next_with_warnings(&mut self.framing)
    }

    /// The next event; after `None` or an error, always `None`.
    #[allow(clippy::should_implement_trait)]
    pub fn next_event(&mut self) -> Option<Result<Event<'_>, StreamError>> {
        let step = match self.step() {
            Ok(Some(s)) => s,
            Ok(None) => return None,
            Err(e) => {
                self.done = true;
                return Some(Err(e));
            }
        };
        let dec = &*self.dec;
        let tick = self.last_tick.unwrap_or(-1);
        let event = match step {
            Step::Tick(p) => Event::Tick(TickEvent {
                tick: p.tick,
                keyframe: p.keyframe,
                had_snapshot_chunk: p.had_snapshot_chunk,
                pos: p.pos,
                snapshot: self.have_snapshot.then_some(&dec.current),
                checksum: self.checksum,
            }),
            Step::Data {
                kind,
                pos,
                compressed,
                start,
                bytes,
                ints,
            } => {
                let payload = Payload {
                    data_index: self.data_index - 1,
                    compressed,
                    decompressed: &dec.arena[start..start + bytes],
                    ints: &dec.ints[..ints],
                };
                match kind {
                    DataKind::Snapshot(kind) => Event::Snapshot(SnapshotEvent {
                        tick,
                        kind,
                        pos,
                        payload,
                        snapshot: &dec.current,
                        changes: &dec.changes,
                        checksum: self.checksum,
                    }),
                    DataKind::Message => Event::Message(MessageEvent {
                        tick,
                        pos,
                        payload,
                        bytes: message_bytes(&dec.ints[..ints], &dec.message),
                    }),
                    DataKind::Unknown(chunk_type) => Event::Unknown(UnknownEvent {
                        tick,
                        pos,
                        chunk_type,
                        payload,
                    }),
                }
            }
        };
        Some(Ok(event))
    }

    /// Runs the stream to its end, handing every event to `visitor`;
    /// returns the error that ended it, if any.
    pub fn run(&mut self, visitor: &mut impl Visitor) -> Option<StreamError> {
        loop {
            match self.next_event()? {
                Ok(ev) => visitor.visit(&ev),
                Err(e) => return Some(e),
            }
        }
    }

    fn warn(&mut self, kind: StreamWarningKind, pos: ChunkPos, inner_offset: usize) {
        let w = StreamWarning {
            kind,
            chunk: Some(pos.index),
            offset: pos.offset,
            inner_offset,
        };
        self.warn.warn(w);
    }

    fn finish(&mut self) -> Option<Step<'a>> {
        self.done = true;
        self.pending.take().map(Step::Tick)
    }

    fn step(&mut self) -> Result<Option<Step<'a>>, StreamError> {
        if let Some(e) = self.refused.take() {
            return Err(e);
        }
        loop {
            if self.done {
                return Ok(None);
            }
            if self.head == self.queue.len() {
                self.read_ahead();
            }
            let queued = self.queue[self.head];
            self.head += 1;
            let (chunk, start, huffman) = match queued {
                Queued::Chunk {
                    chunk,
                    start,
                    huffman,
                } => (chunk, start, huffman),
                Queued::Error(e) => return Err(StreamError::container(e)),
                Queued::End => return Ok(self.finish()),
                Queued::SegmentEnd => return self.end_segment(),
            };
            let pos = ChunkPos {
                index: chunk.index,
                offset: chunk.offset,
            };
            let (kind, data) = match chunk.kind {
                ChunkKind::Tick { tick, keyframe } => {
                    let inline = match self.check_tick(tick, pos) {
                        Ok(inline) => inline,
                        Err(e) => return self.refuse_tick(e),
                    };
                    if keyframe && inline {
                        self.warn(StreamWarningKind::KeyframeTickDelta, pos, 0);
                    }
                    self.last_tick = Some(tick);
                    let next = PendingTick {
                        tick,
                        keyframe,
                        had_snapshot_chunk: false,
                        pos,
                    };
                    if let Some(prev) = self.pending.replace(next) {
                        return Ok(Some(Step::Tick(prev)));
                    }
                    continue;
                }
                ChunkKind::Snapshot(d) => (DataKind::Snapshot(SnapshotKind::Full), d),
                ChunkKind::Delta(d) => (DataKind::Snapshot(SnapshotKind::Delta), d),
                ChunkKind::Message(d) => (DataKind::Message, d),
                ChunkKind::Unknown { chunk_type, data } => (DataKind::Unknown(chunk_type), data),
            };
            return self.decode_data(kind, data, pos, start, huffman);
        }
    }

    /// Validates a tick marker against the previous one; returns whether
    /// it was written as a tick delta.
    fn check_tick(&mut self, tick: i32, pos: ChunkPos) -> Result<bool, StreamError> {
        let header = self.bytes.get(pos.offset).copied().unwrap_or(0);
        let inline = if self.inline_flag {
            header & 0x20 != 0
        } else {
            header & 0x3f != 0
        };
        let err = |kind| Err(StreamError::new(kind, pos, 0));
        if self.ticks >= self.max_ticks {
            return err(StreamErrorKind::TooManyTicks);
        }
        self.ticks += 1;
        match self.last_tick {
            None if inline => return err(StreamErrorKind::TickDeltaBeforeStart),
            Some(prev) if !inline && tick <= prev => {
                return err(StreamErrorKind::TickNotIncreasing)
            }
            _ => {}
        }
        if !(MIN_TICK..MAX_TICK).contains(&tick) {
            return err(StreamErrorKind::TickOutOfRange);
        }
        Ok(inline)
    }

    /// A tick marker failed its checks: the pending tick is complete (all
    /// its chunks were read), so it is emitted first and the error comes
    /// next.
    fn refuse_tick(&mut self, e: StreamError) -> Result<Option<Step<'a>>, StreamError> {
        match self.pending.take() {
            Some(prev) => {
                self.refused = Some(e);
                Ok(Some(Step::Tick(prev)))
            }
            None => Err(e),
        }
    }

    /// The end of a segment (the next segment's first chunk, a tick
    /// marker). A sequential pass emits the pending tick only once it has
    /// read that marker and found it valid, so do the same here: the next
    /// segment reports the same error again, but [`visit_parallel`] stops
    /// at the first one.
    fn end_segment(&mut self) -> Result<Option<Step<'a>>, StreamError> {
        match self.next_chunk() {
            Some(Err(e)) => return Err(StreamError::container(e)),
            Some(Ok(c)) => {
                if let ChunkKind::Tick { tick, .. } = c.kind {
                    let pos = ChunkPos {
                        index: c.index,
                        offset: c.offset,
                    };
                    if let Err(e) = self.check_tick(tick, pos) {
                        return self.refuse_tick(e);
                    }
                }
            }
            None => {}
        }
        Ok(self.finish())
    }

    fn decode_data(
        &mut self,
        kind: DataKind,
        compressed: &'a [u8],
        pos: ChunkPos,
        start: usize,
        huffman: Result<usize, HuffmanError>,
    ) -> Result<Option<Step<'a>>, StreamError> {
        if self.last_tick.is_none() {
            self.warn(StreamWarningKind::DataBeforeTick, pos, 0);
        }
        let (bytes, ints) = self.decode_payload(start, huffman, pos)?;
        let dec = &mut *self.dec;
        let ints_slice = &dec.ints[..ints];
        match kind {
            DataKind::Snapshot(SnapshotKind::Full) => {
                let checksum = dec
                    .applier
                    .replace(&mut dec.current, ints_slice)
                    .map_err(|e| {
                        StreamError::new(StreamErrorKind::Snapshot(e.kind), pos, e.offset)
                    })?;
                dec.changes.set_unknown();
                self.reconstructed(checksum);
            }
            DataKind::Snapshot(SnapshotKind::Delta) => {
                if !self.have_snapshot {
                    return Err(StreamError::new(
                        StreamErrorKind::DeltaBeforeSnapshot,
                        pos,
                        0,
                    ));
                }
                // The oracle tier builds a new snapshot and sums all its
                // data (the reference); the others update the current one
                // in place, the checksum by what changed, and note what
                // changed. On error the stream ends, so a half-updated
                // snapshot is never seen.
                let warn = &mut wrap(&mut self.warn, |w: snapshot::Warning| {
                    chunk_warning(pos, StreamWarningKind::Snapshot(w.kind), w.offset)
                });
                let r = match dec.kernels.backend() {
                    Backend::Oracle => {
                        dec.changes.set_unknown();
                        dec.applier
                            .apply_by_copy(&mut dec.current, ints_slice, self.protocol, warn)
                    }
                    _ => dec.applier.apply_in_place_tracked(
                        &mut dec.current,
                        ints_slice,
                        self.protocol,
                        warn,
                        self.checksum,
                        &mut dec.changes,
                    ),
                };
                let checksum = r.map_err(|e| {
                    StreamError::new(StreamErrorKind::Snapshot(e.kind), pos, e.offset)
                })?;
                self.reconstructed(checksum);
            }
            DataKind::Message => {
                if cfg!(target_endian = "big") {
                    dec.message.clear();
                    dec.message
                        .extend(ints_slice.iter().flat_map(|v| v.to_le_bytes()));
                }
            }
            DataKind::Unknown(_) => {
                self.warn(StreamWarningKind::UnknownChunk, pos, 0);
            }
        }
        self.data_index += 1;
        Ok(Some(Step::Data {
            kind,
            pos,
            compressed,
            start,
            bytes,
            ints,
        }))
    }

    /// The current snapshot is a new valid one, with this checksum.
    fn reconstructed(&mut self, checksum: i32) {
        self.checksum = checksum;
        self.have_snapshot = true;
        if let Some(p) = &mut self.pending {
            p.had_snapshot_chunk = true;
        }
    }

    /// The Huffman result of a payload read ahead, then varints into the
    /// decoder's buffer; returns both lengths (bytes, ints).
    fn decode_payload(
        &mut self,
        start: usize,
        huffman: Result<usize, HuffmanError>,
        pos: ChunkPos,
    ) -> Result<(usize, usize), StreamError> {
        let bytes = huffman.map_err(|e| {
            let kind = match e.kind {
                HuffmanErrorKind::OutputFull => StreamErrorKind::PayloadTooLarge,
                k => StreamErrorKind::Huffman(k),
            };
            StreamError::new(kind, pos, e.offset)
        })?;
        if bytes == 0 {
            return Ok((0, 0));
        }
        let dec = &mut *self.dec;
        let r = dec.kernels.unpack(
            &dec.arena[start..start + bytes],
            &mut dec.ints,
            &mut wrap(&mut self.warn, |w: VarintWarning| {
                chunk_warning(pos, StreamWarningKind::Varint(w.kind), w.offset)
            }),
        );
        let ints = r.map_err(|e| {
            let kind = match e.kind {
                VarintErrorKind::OutputFull => StreamErrorKind::PayloadTooLarge,
                k => StreamErrorKind::Varint(k),
            };
            StreamError::new(kind, pos, e.offset)
        })?;
        Ok((bytes, ints))
    }
}

/// A message's ints as little-endian bytes: the ints' own memory on a
/// little-endian target, else `converted` (filled by the decoder).
fn message_bytes<'b>(ints: &'b [i32], converted: &'b [u8]) -> &'b [u8] {
    if cfg!(target_endian = "little") {
        bytemuck::cast_slice(ints)
    } else {
        converted
    }
}

/// A warning of one chunk's decoding layer (kind, offset inside the layer)
/// with the chunk's position.
#[inline]
fn chunk_warning(pos: ChunkPos, kind: StreamWarningKind, inner_offset: usize) -> StreamWarning {
    StreamWarning {
        kind,
        chunk: Some(pos.index),
        offset: pos.offset,
        inner_offset,
    }
}

/// The result of running a visitor over a demo.
#[derive(Debug)]
pub struct Outcome<V> {
    pub visitor: V,
    pub warnings: Vec<StreamWarning>,
    /// The error that ended the stream early, if any.
    pub error: Option<StreamError>,
}

/// Decodes all of `demo` sequentially with `decoder`, handing every event to
/// `visitor`; the warnings are those a [`Warnings`] of
/// [`crate::warn::DEFAULT_MAX_WARNINGS`] keeps (see [`visit_observed`]).
pub fn visit<V: Visitor>(demo: &Demo<'_>, decoder: &mut Decoder, visitor: V) -> Outcome<V> {
    let mut warnings = Warnings::new(crate::warn::DEFAULT_MAX_WARNINGS);
    let (visitor, error) = visit_observed(demo, decoder, visitor, &mut warnings);
    Outcome {
        visitor,
        warnings: warnings.into_vec(),
        error,
    }
}

/// Decodes all of `demo` sequentially with `decoder`, handing every event to
/// `visitor` and every warning to `warn`; returns the visitor and the error
/// that ended the stream early, if any.
pub fn visit_observed<V: Visitor>(
    demo: &Demo<'_>,
    decoder: &mut Decoder,
    mut visitor: V,
    warn: &mut impl Warn<StreamWarning>,
) -> (V, Option<StreamError>) {
    let error = decoder.stream(demo, warn).run(&mut visitor);
    (visitor, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Decoder {
        /// Addresses of every buffer the decoder reuses.
        fn buffers(&self) -> Vec<usize> {
            let mut v = vec![
                self.arena.as_ptr() as usize,
                self.ints.as_ptr() as usize,
                self.current.keys().as_ptr() as usize,
                self.current.data().as_ptr() as usize,
                self.applier.spare().keys().as_ptr() as usize,
                self.applier.spare().data().as_ptr() as usize,
            ];
            v.sort_unstable();
            v
        }
    }

    #[test]
    fn warm_decoder_does_not_reallocate() {
        let Some(dir) = crate::test_support::test_datasets() else {
            return;
        };
        let path = dir.join("demos/ddnet__Multeasymap_bench.demo");
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let demo = Demo::parse(&bytes).unwrap();
        let mut dec = Decoder::new(Backend::Simd);
        // Warm up on the whole demo, then every buffer must stay in place
        // through a second pass (the two snapshots swap, so compare sets).
        let mut n = 0;
        let mut s = dec.stream(&demo, crate::warn::Discard);
        while let Some(ev) = s.next_event() {
            ev.unwrap();
            n += 1;
        }
        let warm = dec.buffers();
        let mut s = dec.stream(&demo, crate::warn::Discard);
        while let Some(ev) = s.next_event() {
            ev.unwrap();
            n -= 1;
        }
        assert_eq!(n, 0);
        assert_eq!(dec.buffers(), warm);
    }
}
