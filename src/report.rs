//! What a run reports about one file: its error ([`ErrorRecord`]) and its
//! warnings ([`WarningRecord`]), each a [`Stage`], a kind name, a section
//! and an offset. On the ground floor, so that every layer that reports
//! (the pictures of [`crate::render`], the runs of [`crate::batch`]) uses
//! the same records; the conversions of each format layer's errors are in
//! [`crate::batch::record`]. The kinds of the `io` stage are [`IoKind`].

pub use crate::kind::Stage;
use serde::Serialize;

/// The kinds of errors of the [`Stage::Io`] stage.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoKind {
    /// A file over its size limit (not read).
    TooLarge,
    /// A FIFO, socket or device (never opened).
    NotRegularFile,
    /// A directory on one of the kernel's filesystems (not walked).
    SpecialFilesystem,
    /// Any other I/O failure.
    Io,
}

crate::kind::kind_names!(IoKind {
    TooLarge => "too_large",
    NotRegularFile => "not_regular_file",
    SpecialFilesystem => "special_filesystem",
    Io => "io",
});

/// A failure, as reported in a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorRecord {
    /// Which layer failed.
    pub stage: Stage,
    /// A stable snake_case kind (the kind's `kind()`), e.g. `truncated`,
    /// `inflate`.
    pub kind: &'static str,
    /// Where: `header`, `item 12`, `data 3`, ... (`file` for I/O).
    pub section: String,
    /// Byte offset in the file.
    pub offset: u64,
    pub message: String,
}

impl ErrorRecord {
    /// This error of a demo's embedded map, which starts at byte
    /// `map_offset` of the demo file `demo` (`None`: of the record's own
    /// file), moved to the demo file: `offset` counts in the demo, and the
    /// message (whose offset counts in the map) says where the map starts.
    pub fn in_embedded_map(mut self, map_offset: usize, demo: Option<&str>) -> Self {
        self.offset += map_offset as u64;
        let of = demo.map(|d| format!(" of {d}")).unwrap_or_default();
        self.message = format!(
            "{} (of the embedded map, which starts at byte {map_offset}{of})",
            self.message
        );
        self
    }

    /// A file over the size limit (not read).
    pub fn too_large(limit: u64) -> Self {
        ErrorRecord {
            stage: Stage::Io,
            kind: IoKind::TooLarge.kind(),
            section: "file".into(),
            offset: limit,
            message: format!("file is larger than the {limit} byte limit"),
        }
    }
}

/// A warning, as reported in a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WarningRecord {
    pub stage: Stage,
    pub kind: &'static str,
    pub section: String,
    pub offset: u64,
}

impl crate::warn::TooMany for WarningRecord {
    fn too_many(self) -> Self {
        WarningRecord {
            kind: crate::kind::TOO_MANY_WARNINGS,
            ..self
        }
    }
}
