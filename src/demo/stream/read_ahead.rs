//! Read-ahead: the stream reads chunks ahead of its position in batches
//! and Huffman-decodes their payloads together, so that the batch decoder
//! works on several independent streams at once; the file bytes ahead are
//! touched first so that their cache misses overlap.

use super::{Stream, StreamWarning, MAX_PAYLOAD};
use crate::backend::Backend;
use crate::codec::huffman::HuffmanError;
use crate::demo::{Chunk, DemoError, DemoWarning};
use crate::warn::Warn;

/// How far ahead of the chunk reader [`Stream::touch_ahead`] loads the
/// file (about one read-ahead batch of real chunks; 8 KiB to 128 KiB
/// measured alike).
pub(super) const TOUCH_AHEAD: usize = 32 << 10;
/// Data chunks whose payloads are Huffman-decoded together (see
/// [`Stream`]'s look-ahead).
///
/// The batch decoder's lanes run out one by one at the end of a batch, the
/// last one alone at a third of the speed, so bigger batches spend less of
/// their time there; past 128 chunks a pass over the shared demos costs
/// under 1 % fewer user cycles (`perf stat`). Ordering a batch longest
/// payload first does not help.
pub(super) const BATCH_CHUNKS: usize = 128;
/// A batch stops taking data chunks once their output room reaches this
/// many bytes (the arena holds this plus one largest payload).
pub(super) const BATCH_BUDGET: usize = 512 * 1024;
/// Most chunks (tick markers included) read ahead at once.
pub(super) const QUEUE_CHUNKS: usize = 512;

/// Output room the decoder gives a payload of `len` compressed bytes: every
/// code is at least one bit, so no stream decodes to more than `8 * len`
/// bytes; the 64 spare bytes let the Huffman decoder's fast loop run to the
/// end. Capped at [`MAX_PAYLOAD`]. Benchmarks and tests of the batch
/// decoder use it to pass the same caps as the stream.
pub fn huffman_room(len: usize) -> usize {
    MAX_PAYLOAD.min(len.saturating_mul(8).saturating_add(64))
}

/// A chunk read ahead of the stream's position, or what ended the read.
#[derive(Clone, Copy, Debug)]
pub(super) enum Queued<'a> {
    /// A chunk; for a data chunk with a payload, its Huffman output starts
    /// at `start` in the arena and `huffman` is the decoder's result.
    Chunk {
        chunk: Chunk<'a>,
        start: usize,
        huffman: Result<usize, HuffmanError>,
    },
    /// Chunk framing failed here.
    Error(DemoError),
    /// The end of the data.
    End,
    /// The end of the segment (the next chunk is not read ahead).
    SegmentEnd,
}

impl<W: Warn<StreamWarning>, F: Warn<DemoWarning>> Stream<'_, '_, W, F> {
    /// Reads the next chunks (up to [`QUEUE_CHUNKS`], [`BATCH_CHUNKS`] data
    /// chunks or [`BATCH_BUDGET`] bytes of Huffman output room) and
    /// Huffman-decodes their payloads as one batch, so that the decoder can
    /// work on several independent streams at once. Everything else (tick
    /// checks, varints, snapshots, warnings, errors) happens as the queue is
    /// handed out, in file order, so the events are those of a chunk-by-chunk
    /// pass. The queue ends with what stopped the read when that was not a
    /// limit: a framing error, the end of the data or of the segment.
    pub(super) fn read_ahead(&mut self) {
        self.queue.clear();
        self.head = 0;
        let mut inputs: [&[u8]; BATCH_CHUNKS] = [&[]; BATCH_CHUNKS];
        let mut rooms = [0usize; BATCH_CHUNKS];
        let mut slots = [0usize; BATCH_CHUNKS];
        // The oracle tier reads no further than the next data chunk: the
        // plain chunk-by-chunk pass the look-ahead is tested against.
        let max_batch = match self.dec.kernels.backend() {
            Backend::Oracle => 1,
            _ => BATCH_CHUNKS,
        };
        self.touch_ahead();
        let mut batch = 0;
        let mut used = 0;
        while self.queue.len() < QUEUE_CHUNKS && batch < max_batch && used < BATCH_BUDGET {
            if self.chunks.offset() >= self.end {
                self.queue.push(Queued::SegmentEnd);
                break;
            }
            let chunk = match self.next_chunk() {
                None => {
                    self.queue.push(Queued::End);
                    break;
                }
                Some(Err(e)) => {
                    self.queue.push(Queued::Error(e));
                    break;
                }
                Some(Ok(c)) => c,
            };
            let payload = chunk.kind.payload().unwrap_or(&[]);
            if !payload.is_empty() {
                inputs[batch] = payload;
                rooms[batch] = huffman_room(payload.len());
                slots[batch] = self.queue.len();
                batch += 1;
            }
            self.queue.push(Queued::Chunk {
                chunk,
                start: used,
                huffman: Ok(0),
            });
            if !payload.is_empty() {
                used += rooms[batch - 1];
            }
        }
        let mut results = [Ok(0); BATCH_CHUNKS];
        self.dec.kernels.decompress_batch(
            &inputs[..batch],
            &rooms[..batch],
            &mut self.dec.arena,
            &mut results[..batch],
        );
        for (&slot, &result) in slots[..batch].iter().zip(&results[..batch]) {
            if let Queued::Chunk { huffman, .. } = &mut self.queue[slot] {
                *huffman = result;
            }
        }
    }

    /// Loads one byte of every cache line of the next [`TOUCH_AHEAD`]
    /// bytes of the file not touched yet. The loads do not depend on each
    /// other, so their cache misses overlap; otherwise each chunk header is
    /// a miss that the next header's address waits for (chunk sizes are in
    /// the headers), and the Huffman decoder then misses on the payloads.
    /// With the loads a pass over 200 generated demos takes 8–15 % fewer
    /// user cycles (`perf stat`); `_mm_prefetch` (an `unsafe` intrinsic)
    /// instead, with any hint from 8 to 128 KiB ahead, does no better.
    fn touch_ahead(&mut self) {
        let bytes = &self.bytes[..self.end.min(self.bytes.len())];
        let to = (self.chunks.offset() + TOUCH_AHEAD).min(bytes.len());
        let mut at = self.touched.max(self.chunks.offset() & !63);
        while at < to {
            std::hint::black_box(bytes[at]);
            at += 64;
        }
        self.touched = at;
    }
}
