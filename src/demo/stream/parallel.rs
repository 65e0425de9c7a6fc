//! Decoding one demo on several threads.
//!
//! A keyframe tick marker followed (before any delta or other tick marker)
//! by a full snapshot chunk is a point where no earlier state is needed: the
//! snapshot is rebuilt from scratch, and the tick is known from the framing.
//! [`split_points`] finds them with a framing-only scan (no decompression);
//! [`segments`] groups the chunk data into byte-balanced runs between them;
//! [`visit_parallel`] decodes each run on a rayon worker (one reused
//! [`Decoder`] per worker) and returns the per-segment visitors in file
//! order, cut after the first segment that failed. Concatenating their
//! output gives exactly what a sequential pass gives.

use rayon::prelude::*;

use super::{Decoder, Outcome, StreamError, StreamWarning, Visitor};
use crate::backend::Backend;
use crate::demo::{ChunkKind, Demo};
use crate::warn::Warnings;

/// A run of chunks decodable on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// File offset of the first chunk.
    pub offset: usize,
    /// Index of the first chunk among all chunks.
    pub index: usize,
    /// Index among data chunks of the first data chunk.
    pub data_index: usize,
    /// The tick in effect before the first chunk (the base of a tick delta).
    pub tick_before: i32,
    /// The tick of the latest tick marker before the segment (`None` if
    /// there was none).
    pub last_tick: Option<i32>,
    /// Tick markers before the segment (for [`Decoder::max_ticks`]).
    pub ticks_before: u64,
    /// File offset where the segment ends (the next segment's first chunk),
    /// `usize::MAX` for the last one.
    pub end: usize,
}

impl Segment {
    /// The whole chunk data of `demo`.
    pub fn whole(demo: &Demo<'_>) -> Segment {
        Segment {
            offset: demo.chunks_offset(),
            index: 0,
            data_index: 0,
            tick_before: 0,
            last_tick: None,
            ticks_before: 0,
            end: usize::MAX,
        }
    }
}

/// Every keyframe tick marker whose tick holds a full snapshot before any
/// delta, as a segment start (`end` unset: `usize::MAX`). Framing only: the
/// scan stops silently at a framing error (decoding will report it).
pub fn split_points(demo: &Demo<'_>) -> Vec<Segment> {
    let mut points = Vec::new();
    let mut chunks = demo.chunks();
    let mut last_tick = None;
    let mut data_index = 0;
    let mut ticks = 0;
    let mut candidate: Option<Segment> = None;
    loop {
        let tick_before = chunks.tick();
        let Some(Ok(chunk)) = chunks.next() else {
            break;
        };
        match chunk.kind {
            ChunkKind::Tick { tick, keyframe } => {
                candidate = keyframe.then_some(Segment {
                    offset: chunk.offset,
                    index: chunk.index,
                    data_index,
                    tick_before,
                    last_tick,
                    ticks_before: ticks,
                    end: usize::MAX,
                });
                last_tick = Some(tick);
                ticks += 1;
            }
            kind => {
                data_index += 1;
                match kind {
                    ChunkKind::Snapshot(_) => points.extend(candidate.take()),
                    ChunkKind::Delta(_) => candidate = None,
                    _ => {}
                }
            }
        }
    }
    points
}

/// Up to `count` segments covering the whole chunk data, split at
/// [`split_points`] near equal byte shares (at every split point when
/// `count` exceeds their number). The first segment always starts at the
/// first chunk.
pub fn segments(demo: &Demo<'_>, count: usize) -> Vec<Segment> {
    let first = Segment::whole(demo);
    let points = split_points(demo);
    let start = first.offset;
    let len = demo.bytes().len().saturating_sub(start);
    let mut out = vec![first];
    let mut next = points.iter().filter(|p| p.index > 0).peekable();
    if count > points.len() {
        // Room for every split point.
        out.extend(next);
        for i in 1..out.len() {
            out[i - 1].end = out[i].offset;
        }
        return out;
    }
    for k in 1..count {
        let target = start + len / count * k;
        while next.peek().is_some_and(|p| p.offset < target) {
            next.next();
        }
        match next.next() {
            Some(p) => out.push(*p),
            None => break,
        }
    }
    for i in 1..out.len() {
        out[i - 1].end = out[i].offset;
    }
    out
}

/// Decodes `segments` of `demo` on the rayon thread pool, one fresh visitor
/// per segment from `make`. The visitors come back in file order, up to and
/// including the first segment that ended with an error; warnings (each
/// segment's capped at [`crate::warn::DEFAULT_MAX_WARNINGS`] and one
/// `too_many_warnings`) are concatenated the same way.
pub fn visit_parallel<V, F>(
    demo: &Demo<'_>,
    backend: Backend,
    segments: &[Segment],
    make: F,
) -> Outcome<Vec<V>>
where
    V: Visitor + Send,
    F: Fn() -> V + Sync,
{
    let results: Vec<(V, Vec<StreamWarning>, Option<StreamError>)> = segments
        .par_iter()
        .map_init(
            || Decoder::new(backend),
            |dec, seg| {
                let mut visitor = make();
                let mut warnings = Warnings::new(crate::warn::DEFAULT_MAX_WARNINGS);
                let error = dec
                    .stream_segment(demo, seg, &mut warnings)
                    .run(&mut visitor);
                (visitor, warnings.into_vec(), error)
            },
        )
        .collect();
    let mut out = Outcome {
        visitor: Vec::with_capacity(results.len()),
        warnings: Vec::new(),
        error: None,
    };
    for (v, w, e) in results {
        out.visitor.push(v);
        out.warnings.extend(w);
        if e.is_some() {
            out.error = e;
            break;
        }
    }
    out
}
