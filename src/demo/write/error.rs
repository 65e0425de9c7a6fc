//! What can go wrong while writing a demo.

use std::io;

use crate::codec::snapshot;

/// A header string field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderField {
    MapName,
    DemoType,
    Timestamp,
}

/// What went wrong while writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum WriteErrorKind {
    /// The output failed.
    #[error("i/o error: {0}")]
    Io(io::ErrorKind),
    /// A header string does not fit its field (with its NUL).
    #[error("{0:?} too long for its header field")]
    FieldTooLong(HeaderField),
    /// The map is larger than `i32::MAX` bytes.
    #[error("map too large")]
    MapTooLarge,
    /// A tick is negative.
    #[error("negative tick")]
    NegativeTick,
    /// A tick is before the previous tick marker.
    #[error("tick goes backwards")]
    TickBackwards,
    /// A snapshot breaks a snapshot limit or a delta cannot be made.
    #[error("snapshot: {0}")]
    Snapshot(snapshot::ErrorKind),
    /// The data of a chunk exceeds 64 KiB before compression.
    #[error("chunk data over 64 KiB")]
    DataTooLarge,
    /// The packed or compressed payload does not fit a chunk.
    #[error("compressed chunk payload too large")]
    PayloadTooLarge,
    /// More than 64 timeline markers.
    #[error("too many timeline markers")]
    TooManyTimelineMarkers,
    /// A timeline marker less than a second after the previous one.
    #[error("timeline marker too close to the previous one")]
    TimelineMarkerTooClose,
    /// Version 3 has no timeline markers.
    #[error("this demo version has no timeline markers")]
    NoTimelineMarkers,
}

impl WriteErrorKind {
    /// Every kind (one `io` and one `field_too_long` standing for all
    /// their values).
    pub fn all() -> Vec<WriteErrorKind> {
        use WriteErrorKind as K;
        let mut all = vec![
            K::Io(io::ErrorKind::Other),
            K::FieldTooLong(HeaderField::MapName),
            K::MapTooLarge,
            K::NegativeTick,
            K::TickBackwards,
        ];
        all.extend(snapshot::ErrorKind::ALL.iter().map(|&k| K::Snapshot(k)));
        all.extend([
            K::DataTooLarge,
            K::PayloadTooLarge,
            K::TooManyTimelineMarkers,
            K::TimelineMarkerTooClose,
            K::NoTimelineMarkers,
        ]);
        all
    }
}

crate::kind::kind_names!(WriteErrorKind {
    Io(_) => "io",
    FieldTooLong(_) => "field_too_long",
    MapTooLarge => "map_too_large",
    NegativeTick => "negative_tick",
    TickBackwards => "tick_backwards",
    Snapshot(snapshot::ErrorKind) => "snapshot.",
    DataTooLarge => "data_too_large",
    PayloadTooLarge => "payload_too_large",
    TooManyTimelineMarkers => "too_many_timeline_markers",
    TimelineMarkerTooClose => "timeline_marker_too_close",
    NoTimelineMarkers => "no_timeline_markers",
});

/// A writing error and the output offset (bytes from the demo's start) of
/// the chunk or field being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[error("demo writer: {kind} at byte {offset}")]
pub struct WriteError {
    pub kind: WriteErrorKind,
    pub offset: u64,
}
