//! What ends a demo stream ([`StreamError`]) and what it warns about
//! ([`StreamWarning`]), with their stable names.

use super::ChunkPos;
use crate::codec::huffman::HuffmanErrorKind;
use crate::codec::snapshot;
use crate::codec::varint::{VarintErrorKind, VarintWarningKind};
use crate::demo::{DemoError, DemoErrorKind};

/// What ended a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum StreamErrorKind {
    /// Chunk framing (a chunk cut off by the end of the file).
    #[error("{0}")]
    Container(DemoErrorKind),
    /// Huffman decompression of a payload.
    #[error("huffman: {0}")]
    Huffman(HuffmanErrorKind),
    /// Varint unpacking of a payload.
    #[error("varint: {0}")]
    Varint(VarintErrorKind),
    /// Parsing a full snapshot or applying a delta.
    #[error("snapshot: {0}")]
    Snapshot(snapshot::ErrorKind),
    /// A payload decompresses to more than [`MAX_PAYLOAD`](super::MAX_PAYLOAD) bytes or unpacks
    /// to more than [`MAX_INTS`](super::MAX_INTS) ints.
    #[error("payload larger than 64 KiB once decoded")]
    PayloadTooLarge,
    /// A snapshot delta before any full snapshot.
    #[error("snapshot delta before any full snapshot")]
    DeltaBeforeSnapshot,
    /// The first tick marker is a tick delta (DDNet and libtw2 refuse it).
    #[error("tick delta before any absolute tick")]
    TickDeltaBeforeStart,
    /// An absolute tick not above the previous tick (libtw2's rule).
    #[error("tick does not increase")]
    TickNotIncreasing,
    /// A tick outside `MIN_TICK..MAX_TICK` (DDNet's rule).
    #[error("tick out of range")]
    TickOutOfRange,
    /// More tick markers than the decoder's limit
    /// ([`Decoder::set_max_ticks`](super::Decoder::set_max_ticks); by default
    /// [`DEFAULT_MAX_TICKS`](super::DEFAULT_MAX_TICKS), one week of ticks): the
    /// error names the first tick marker over the limit.
    #[error("more tick markers than the limit")]
    TooManyTicks,
}

/// A stream error: kind, chunk index (counting every chunk, tick markers
/// included), file offset of that chunk's header byte, and the offset inside
/// the layer that failed (Huffman input byte in the payload, byte in the
/// decompressed payload for varints, int for snapshots; 0 otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("demo stream: {kind} in chunk {chunk} at byte {offset} (inner offset {inner_offset})")]
pub struct StreamError {
    pub kind: StreamErrorKind,
    pub chunk: usize,
    pub offset: usize,
    pub inner_offset: usize,
}

impl StreamError {
    pub(super) fn new(kind: StreamErrorKind, pos: ChunkPos, inner_offset: usize) -> StreamError {
        StreamError {
            kind,
            chunk: pos.index,
            offset: pos.offset,
            inner_offset,
        }
    }

    pub(super) fn container(e: DemoError) -> StreamError {
        let chunk = match e.section {
            crate::demo::Section::Chunk(i) => i,
            _ => 0,
        };
        StreamError {
            kind: StreamErrorKind::Container(e.kind),
            chunk,
            offset: e.offset,
            inner_offset: 0,
        }
    }
}

/// A non-fatal oddity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamWarningKind {
    /// From varint unpacking (overlong form, non-zero padding).
    Varint(VarintWarningKind),
    /// From delta application (see [`snapshot::WarningKind`]).
    Snapshot(snapshot::WarningKind),
    /// A data chunk of type 0.
    UnknownChunk,
    /// The header's `net_version` is neither 0.6 nor 0.7; DDNet's fallback
    /// was used.
    UnknownNetVersion,
    /// A keyframe tick marker written as a tick delta.
    KeyframeTickDelta,
    /// A data chunk before the first tick marker.
    DataBeforeTick,
    /// The stream reached the cap of the caller's sink
    /// ([`crate::warn::Warnings`]): this is the position of the first
    /// warning left out; later ones are dropped.
    TooManyWarnings,
}

impl StreamErrorKind {
    /// Every kind (those of the inner layers included).
    pub fn all() -> Vec<StreamErrorKind> {
        use StreamErrorKind as K;
        let mut all: Vec<_> = DemoErrorKind::ALL
            .iter()
            .map(|&k| K::Container(k))
            .collect();
        all.extend(HuffmanErrorKind::ALL.iter().map(|&k| K::Huffman(k)));
        all.extend(VarintErrorKind::ALL.iter().map(|&k| K::Varint(k)));
        all.extend(snapshot::ErrorKind::ALL.iter().map(|&k| K::Snapshot(k)));
        all.extend([
            K::PayloadTooLarge,
            K::DeltaBeforeSnapshot,
            K::TickDeltaBeforeStart,
            K::TickNotIncreasing,
            K::TickOutOfRange,
            K::TooManyTicks,
        ]);
        all
    }
}

crate::kind::kind_names!(StreamErrorKind {
    Container(DemoErrorKind) => "container.",
    Huffman(HuffmanErrorKind) => "huffman.",
    Varint(VarintErrorKind) => "varint.",
    Snapshot(snapshot::ErrorKind) => "snapshot.",
    PayloadTooLarge => "payload_too_large",
    DeltaBeforeSnapshot => "delta_before_snapshot",
    TickDeltaBeforeStart => "tick_delta_before_start",
    TickNotIncreasing => "tick_not_increasing",
    TickOutOfRange => "tick_out_of_range",
    TooManyTicks => "too_many_ticks",
});

impl StreamWarningKind {
    /// Every kind (those of the inner layers included).
    pub fn all() -> Vec<StreamWarningKind> {
        use StreamWarningKind as K;
        let mut all: Vec<_> = VarintWarningKind::ALL
            .iter()
            .map(|&k| K::Varint(k))
            .collect();
        all.extend(snapshot::WarningKind::ALL.iter().map(|&k| K::Snapshot(k)));
        all.extend([
            K::UnknownChunk,
            K::UnknownNetVersion,
            K::KeyframeTickDelta,
            K::DataBeforeTick,
            K::TooManyWarnings,
        ]);
        all
    }
}

crate::kind::kind_names!(StreamWarningKind {
    Varint(VarintWarningKind) => "varint.",
    Snapshot(snapshot::WarningKind) => "snapshot.",
    UnknownChunk => "unknown_chunk",
    UnknownNetVersion => "unknown_net_version",
    KeyframeTickDelta => "keyframe_tick_delta",
    DataBeforeTick => "data_before_tick",
    TooManyWarnings => crate::kind::TOO_MANY_WARNINGS,
});

impl crate::warn::TooMany for StreamWarning {
    fn too_many(self) -> Self {
        StreamWarning {
            kind: StreamWarningKind::TooManyWarnings,
            ..self
        }
    }
}

/// A warning with its position: chunk index (`None` for the header), file
/// offset of the chunk (or header field) and the offset inside the layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamWarning {
    pub kind: StreamWarningKind,
    pub chunk: Option<usize>,
    pub offset: usize,
    pub inner_offset: usize,
}
