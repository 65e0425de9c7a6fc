//! What a batch reports per file: the records of [`crate::report`] made
//! from each layer's errors and warnings, and statistics merged across
//! workers (of `demos export`).

pub use crate::kind::Stage;
pub use crate::report::{ErrorRecord, IoKind, WarningRecord};
use serde::{Serialize, Serializer};
use std::collections::BTreeMap;
use std::ops::AddAssign;

impl ErrorRecord {
    /// An I/O failure; kind `not_regular_file` for a FIFO, socket or
    /// device (never opened), `special_filesystem` for a directory the
    /// walk did not enter ([`crate::batch::SpecialFilesystem`]), else `io`.
    ///
    /// An [`crate::batch::archive::ArchiveError`] gives stage `archive` with
    /// its kind, section and offset in the archive.
    pub fn io(err: &std::io::Error) -> Self {
        if let Some(a) = err
            .get_ref()
            .and_then(|e| e.downcast_ref::<crate::batch::archive::ArchiveError>())
        {
            return ErrorRecord {
                stage: Stage::Archive,
                kind: a.kind,
                section: a.section.into(),
                offset: a.offset,
                message: a.to_string(),
            };
        }
        let inner = err.get_ref();
        ErrorRecord {
            stage: Stage::Io,
            kind: if inner.is_some_and(|e| e.is::<crate::batch::NotRegularFile>()) {
                IoKind::NotRegularFile.kind()
            } else if inner.is_some_and(|e| e.is::<crate::batch::SpecialFilesystem>()) {
                IoKind::SpecialFilesystem.kind()
            } else {
                IoKind::Io.kind()
            },
            section: "file".into(),
            offset: 0,
            message: err.to_string(),
        }
    }

    pub fn datafile(e: &crate::datafile::Error) -> Self {
        ErrorRecord {
            stage: Stage::Datafile,
            kind: e.kind.kind(),
            section: e.section.name(),
            offset: e.offset,
            message: e.to_string(),
        }
    }

    pub fn map(e: &crate::map::MapError) -> Self {
        ErrorRecord {
            stage: Stage::Map,
            kind: e.kind.kind(),
            section: e.section.to_string(),
            offset: e.offset,
            message: e.to_string(),
        }
    }

    /// A demo container error (header, embedded map, chunk framing).
    pub fn demo(e: &crate::demo::DemoError) -> Self {
        ErrorRecord {
            stage: Stage::Demo,
            kind: e.kind.kind(),
            section: e.section.to_string(),
            offset: e.offset as u64,
            message: e.to_string(),
        }
    }

    /// The error that ended a demo stream, located by its chunk.
    pub fn stream(e: &crate::demo::stream::StreamError) -> Self {
        ErrorRecord {
            stage: Stage::Stream,
            kind: e.kind.kind(),
            section: format!("chunk {}", e.chunk),
            offset: e.offset as u64,
            message: e.to_string(),
        }
    }
}

impl WarningRecord {
    /// A warning of the datafile layer.
    pub fn datafile(w: &crate::datafile::Warning) -> Self {
        WarningRecord {
            stage: Stage::Datafile,
            kind: w.kind.kind(),
            section: w.section.name(),
            offset: w.offset,
        }
    }

    /// A warning of the map layer.
    pub fn map(w: &crate::map::MapWarning) -> Self {
        WarningRecord {
            stage: Stage::Map,
            kind: w.kind.kind(),
            section: w.section.to_string(),
            offset: w.offset,
        }
    }
}

/// Per-worker statistics, merged by addition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BatchStats {
    pub files: u64,
    pub ok: u64,
    pub failed: u64,
    pub bytes: u64,
    #[serde(serialize_with = "by_stage_kind")]
    pub errors_by_kind: BTreeMap<(Stage, &'static str), u64>,
    #[serde(serialize_with = "by_stage_kind")]
    pub warnings_by_kind: BTreeMap<(Stage, &'static str), u64>,
}

/// A map keyed by `(stage, kind)` as an object keyed by `stage.kind` (in
/// the same order: stages order by name).
fn by_stage_kind<S: Serializer>(
    map: &BTreeMap<(Stage, &'static str), u64>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_map(
        map.iter()
            .map(|((stage, kind), n)| (format!("{stage}.{kind}"), n)),
    )
}

impl BatchStats {
    /// Counts one file: its size, its error (if any) and its warnings.
    pub fn record(&mut self, size: u64, error: Option<&ErrorRecord>, warnings: &[WarningRecord]) {
        self.files += 1;
        self.bytes += size;
        if let Some(e) = error {
            self.failed += 1;
            *self.errors_by_kind.entry((e.stage, e.kind)).or_default() += 1;
        } else {
            self.ok += 1;
        }
        for w in warnings {
            *self.warnings_by_kind.entry((w.stage, w.kind)).or_default() += 1;
        }
    }
}

impl AddAssign for BatchStats {
    fn add_assign(&mut self, o: BatchStats) {
        self.files += o.files;
        self.ok += o.ok;
        self.failed += o.failed;
        self.bytes += o.bytes;
        for (k, v) in o.errors_by_kind {
            *self.errors_by_kind.entry(k).or_default() += v;
        }
        for (k, v) in o.warnings_by_kind {
            *self.warnings_by_kind.entry(k).or_default() += v;
        }
    }
}
