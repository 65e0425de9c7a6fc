//! The demo container: header, embedded map and chunk framing (libtw2-doc
//! `demo.md`; DDNet `src/engine/shared/demo.cpp`).
//!
//! A demo file is laid out as follows (integers big-endian, strings
//! NUL-terminated inside fixed-size fields):
//!
//! ```text
//! offset  size  field
//!      0     7  magic "TWDEMO\0"
//!      7     1  version (3..=6)
//!      8    64  net_version      "0.6 626fce9a778df4d4" / "0.7 802f1be60a05665f"
//!     72    64  map_name
//!    136     4  map_size         bytes of embedded map (may be 0)
//!    140     4  map_crc          CRC-32 of the map file
//!    144     8  type             "client" / "server"
//!    152     4  length           seconds
//!    156    20  timestamp        "YYYY-MM-DD_HH-MM-SS"
//!    176     4  num_timeline_markers   (version >= 4)
//!    180   256  64 timeline markers (ticks), the first `num` valid
//!    436    16  UUID 6be6da4a-cebd-380c-9b5b-1289c842d780   (version 6, optional)
//!    452    32  SHA-256 of the map                          (only after that UUID)
//!      …  map_size  the map (a datafile)
//!      …     …  chunks, to the end of the file
//! ```
//!
//! In version 6 the UUID is optional: if the 16 bytes differ, the demo has no
//! SHA-256 and the map starts right there (DDNet's reading rule).
//!
//! Chunks are framed by a one-byte header (bits from the most significant):
//!
//! ```text
//! data chunk        0ttS SSSS   t: 1 snapshot, 2 message, 3 snapshot delta
//!                               S: payload size; 30 = one size byte follows,
//!                                  31 = a little-endian u16 size follows
//! tick, version 3/4 1kDD DDDD   k: keyframe; D: tick delta, or 0 = a
//!                                  big-endian i32 absolute tick follows
//! tick, version 5/6 1kiD DDDD   i: D is the tick delta; else D is padding
//!                                  and a big-endian i32 absolute tick follows
//! ```
//!
//! Data chunk payloads are still Huffman-compressed varint streams (see
//! [`crate::codec`]). [`Demo::chunks`] walks the chunks lazily and borrows
//! every payload from the input; [`Demo::chunks_at`] restarts at a known
//! chunk (e.g. a keyframe) to split one demo across threads.
//!
//! Errors are [`DemoError`]: a kind, the [`Section`] (header, timeline
//! markers, map, chunk N) and the byte offset in the file. Oddities that do
//! not stop reading are [`DemoWarning`]s, pushed to a caller's sink by
//! [`Demo::parse_with_warnings`] and [`Chunks::next_with_warnings`] (the
//! plain [`Demo::parse`] and `Iterator::next` drop them). They follow the
//! checks libtw2's demo reader makes.

pub mod analysis;
mod chunk;
pub mod dump;
#[cfg(feature = "parquet")]
pub mod export;
pub mod finishes;
mod header;
pub mod message;
pub mod players;
pub mod slice;
pub mod stream;
pub mod write;

pub use chunk::{Chunk, ChunkKind, Chunks};

/// Server ticks per second (DDNet `SERVER_TICK_SPEED`): the rate of demo
/// ticks, the one place it is written.
pub const TICKS_PER_SECOND: i32 = 50;

pub use header::{Demo, DEMO_MAGIC, SHA256_UUID};

/// What went wrong in a demo file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum DemoErrorKind {
    /// The file does not start with `TWDEMO\0`.
    #[error("not a demo (bad magic)")]
    BadMagic,
    /// The version byte is not 3..=6.
    #[error("unsupported demo version")]
    UnsupportedVersion,
    /// The file ends inside a fixed-size field, the map or a chunk.
    #[error("unexpected end of file")]
    UnexpectedEnd,
    /// `map_size` is negative.
    #[error("negative map size")]
    NegativeMapSize,
    /// `num_timeline_markers` is negative or above 64.
    #[error("timeline marker count out of 0..=64")]
    TimelineMarkerCount,
}

crate::kind::kind_names!(DemoErrorKind {
    BadMagic => "bad_magic",
    UnsupportedVersion => "unsupported_version",
    UnexpectedEnd => "unexpected_end",
    NegativeMapSize => "negative_map_size",
    TimelineMarkerCount => "timeline_marker_count",
});

/// The part of the file an error is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Section {
    /// Magic, version and the fixed header.
    Header,
    /// Count and slots of the timeline markers (version >= 4).
    TimelineMarkers,
    /// The version-6 SHA-256 extension.
    Sha256,
    /// The embedded map.
    Map,
    /// The chunk with this index (counting every chunk, tick markers too).
    Chunk(usize),
}

impl std::fmt::Display for Section {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Section::Header => f.write_str("header"),
            Section::TimelineMarkers => f.write_str("timeline markers"),
            Section::Sha256 => f.write_str("sha256 extension"),
            Section::Map => f.write_str("map"),
            Section::Chunk(i) => write!(f, "chunk {i}"),
        }
    }
}

/// A non-fatal oddity in a demo file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DemoWarningKind {
    /// Non-zero bytes after the NUL of `net_version`.
    NetVersionPadding,
    /// Non-zero bytes after the NUL of `map_name`.
    MapNamePadding,
    /// Non-zero bytes after the NUL of `timestamp`.
    TimestampPadding,
    /// `type` is not `client` or `server` (NUL-padded).
    UnknownType,
    /// Non-zero unused timeline marker slots.
    TimelineMarkerPadding,
    /// Timeline markers that do not strictly increase.
    TimelineMarkersNotIncreasing,
    /// Version 5+ absolute tick marker with non-zero padding bits.
    TickPadding,
    /// A keyframe tick marker given as a delta.
    KeyframeDeltaTick,
    /// A delta tick marker before any absolute one.
    DeltaTickFirst,
    /// An absolute tick not greater than the previous tick.
    TickNotIncreasing,
    /// A tick delta that overflows `i32` (the tick wraps).
    TickOverflow,
    /// A tick delta of 0 (version 5+: the inline flag with no delta bits):
    /// the marker repeats the previous tick.
    ZeroTickDelta,
    /// A data chunk of type 0.
    UnknownChunkType,
    /// A chunk size escape (30 or 31) used for a size that fits the
    /// shorter form.
    OverlongChunkSize,
    /// A capped sink ([`crate::warn::Warnings`]) reached its limit: this is
    /// the position of the first warning left out; later ones are dropped.
    TooManyWarnings,
}

crate::kind::kind_names!(DemoWarningKind {
    NetVersionPadding => "net_version_padding",
    MapNamePadding => "map_name_padding",
    TimestampPadding => "timestamp_padding",
    UnknownType => "unknown_type",
    TimelineMarkerPadding => "timeline_marker_padding",
    TimelineMarkersNotIncreasing => "timeline_markers_not_increasing",
    TickPadding => "tick_padding",
    KeyframeDeltaTick => "keyframe_delta_tick",
    DeltaTickFirst => "delta_tick_first",
    TickNotIncreasing => "tick_not_increasing",
    TickOverflow => "tick_overflow",
    ZeroTickDelta => "zero_tick_delta",
    UnknownChunkType => "unknown_chunk_type",
    OverlongChunkSize => "overlong_chunk_size",
    TooManyWarnings => crate::kind::TOO_MANY_WARNINGS,
});

/// A warning with the section and byte offset it concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DemoWarning {
    pub kind: DemoWarningKind,
    pub section: Section,
    pub offset: usize,
}

impl crate::warn::TooMany for DemoWarning {
    fn too_many(self) -> Self {
        DemoWarning {
            kind: DemoWarningKind::TooManyWarnings,
            ..self
        }
    }
}

/// An error in a demo file: kind, section and byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("demo: {kind} in {section} at byte {offset}")]
pub struct DemoError {
    pub kind: DemoErrorKind,
    pub section: Section,
    pub offset: usize,
}
