//! What a batch reports per file, and statistics merged across workers.

use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::AddAssign;

/// A failure, as reported in a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorRecord {
    /// Which layer failed: `io`, `archive`, `datafile` or `map`.
    pub stage: &'static str,
    /// A stable snake_case kind, e.g. `truncated`, `inflate`.
    pub kind: String,
    /// Where: `header`, `item 12`, `data 3`, ... (`file` for I/O).
    pub section: String,
    /// Byte offset in the file.
    pub offset: u64,
    pub message: String,
}

impl ErrorRecord {
    /// A file over the size limit (not read).
    pub fn too_large(limit: u64) -> Self {
        ErrorRecord {
            stage: "io",
            kind: "too_large".into(),
            section: "file".into(),
            offset: limit,
            message: format!("file is larger than the {limit} byte limit"),
        }
    }

    /// An I/O failure; kind `not_regular_file` for a FIFO, socket or
    /// device (never opened), else `io`.
    ///
    /// An [`crate::batch::archive::ArchiveError`] gives stage `archive` with
    /// its kind, section and offset in the archive.
    pub fn io(err: &std::io::Error) -> Self {
        if let Some(a) = err
            .get_ref()
            .and_then(|e| e.downcast_ref::<crate::batch::archive::ArchiveError>())
        {
            return ErrorRecord {
                stage: "archive",
                kind: a.kind.into(),
                section: a.section.into(),
                offset: a.offset,
                message: a.to_string(),
            };
        }
        let not_regular = err
            .get_ref()
            .is_some_and(|e| e.is::<crate::batch::NotRegularFile>());
        ErrorRecord {
            stage: "io",
            kind: if not_regular {
                "not_regular_file"
            } else {
                "io"
            }
            .into(),
            section: "file".into(),
            offset: 0,
            message: err.to_string(),
        }
    }

    pub fn datafile(e: &crate::datafile::Error) -> Self {
        ErrorRecord {
            stage: "datafile",
            kind: e.kind.name().into(),
            section: e.section.name(),
            offset: e.offset,
            message: e.to_string(),
        }
    }
}

/// A warning, as reported in a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WarningRecord {
    pub stage: &'static str,
    pub kind: String,
    pub section: String,
    pub offset: u64,
}

/// Per-worker statistics, merged by addition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BatchStats {
    pub files: u64,
    pub ok: u64,
    pub failed: u64,
    pub bytes: u64,
    pub errors_by_kind: BTreeMap<String, u64>,
    pub warnings_by_kind: BTreeMap<String, u64>,
}

impl BatchStats {
    /// Counts one file: its size, its error (if any) and its warnings.
    pub fn record(&mut self, size: u64, error: Option<&ErrorRecord>, warnings: &[WarningRecord]) {
        self.files += 1;
        self.bytes += size;
        if let Some(e) = error {
            self.failed += 1;
            *self
                .errors_by_kind
                .entry(format!("{}.{}", e.stage, e.kind))
                .or_default() += 1;
        } else {
            self.ok += 1;
        }
        for w in warnings {
            *self
                .warnings_by_kind
                .entry(format!("{}.{}", w.stage, w.kind))
                .or_default() += 1;
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
