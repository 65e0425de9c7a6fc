//! The inputs of a batch: one [`Input`] per thing to process, and the
//! path every record shows for it ([`encode_path`]).

use super::{archive, SpecialFilesystem};
use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What the record path of an embedded input starts with.
pub const EMBEDDED_PREFIX: &str = "embedded:";

/// One thing to process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// A file on disk (`size` as seen when the collection was listed).
    File { path: PathBuf, size: u64 },
    /// A file compiled into the binary (the default dataset).
    Embedded {
        name: &'static str,
        bytes: &'static [u8],
    },
    /// Something the directory walk could not list (permission denied,
    /// symlink loop, vanished entry): reported, never dropped.
    Unlistable { path: PathBuf, message: String },
    /// A member of a `.zip`, `.tar` or `.tar.gz` archive (see [`archive`]).
    Member(Box<archive::Member>),
    /// An archive that cannot be listed (not an archive, truncated central
    /// directory, a tar that ends in the middle): one error record for it.
    BadArchive {
        path: PathBuf,
        error: archive::ArchiveError,
    },
    /// A directory the walk does not enter because it lies on one of the
    /// kernel's filesystems (`/proc`, `/sys`, `/dev`, ...; see
    /// [`SpecialFilesystem`]): one error record for it.
    Special {
        path: PathBuf,
        error: SpecialFilesystem,
    },
}

impl Input {
    /// The path as shown in reports: [`encode_path`], which gives
    /// different strings for different paths; an embedded file is
    /// `embedded:` and its path in the crate (`embedded:datasets/maps/...`),
    /// which names no file where teebatch runs.
    pub fn display_path(&self) -> String {
        match self {
            Input::File { path, .. }
            | Input::Unlistable { path, .. }
            | Input::BadArchive { path, .. }
            | Input::Special { path, .. } => encode_path(path),
            Input::Member(m) => encode_path(&m.combined),
            Input::Embedded { name, .. } => format!("{EMBEDDED_PREFIX}{name}"),
        }
    }

    /// The path's bytes, unescaped (what `--list -0` prints): a file's path
    /// as given or walked, an archive member's `ARCHIVE!/MEMBER`, an
    /// embedded input's `embedded:NAME`.
    pub(crate) fn raw_path(&self) -> Vec<u8> {
        match self {
            Input::File { path, .. }
            | Input::Unlistable { path, .. }
            | Input::BadArchive { path, .. }
            | Input::Special { path, .. } => path.as_os_str().as_encoded_bytes().to_vec(),
            Input::Member(m) => m.combined.as_os_str().as_encoded_bytes().to_vec(),
            Input::Embedded { name, .. } => format!("{EMBEDDED_PREFIX}{name}").into_bytes(),
        }
    }

    /// The file name without extension.
    pub fn stem(&self) -> String {
        match self {
            Input::Member(m) => m.stem(),
            Input::File { path, .. }
            | Input::Unlistable { path, .. }
            | Input::BadArchive { path, .. }
            | Input::Special { path, .. } => path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Input::Embedded { name, .. } => Path::new(name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    /// Says the input will not be loaded: a command that refuses an input
    /// without reading it (over its file limit) calls this, so a `.tar.gz`
    /// member's bytes are not kept for it ([`archive::Member::release`]).
    pub fn release(&self) {
        if let Input::Member(m) = self {
            m.release();
        }
    }

    /// Size in bytes as listed (0 for unlistable entries and for archive
    /// members found bad when listing).
    pub fn listed_size(&self) -> u64 {
        match self {
            Input::File { size, .. } => *size,
            Input::Embedded { bytes, .. } => bytes.len() as u64,
            // A member found bad when listing is not read: its error is
            // reported, not its declared size.
            Input::Member(m) => {
                if m.problem.is_some() {
                    0
                } else {
                    m.size
                }
            }
            Input::Unlistable { .. } | Input::BadArchive { .. } | Input::Special { .. } => 0,
        }
    }

    /// The path as listed (for a member: archive path, separator, member).
    pub fn sort_key(&self) -> &OsStr {
        match self {
            Input::File { path, .. }
            | Input::Unlistable { path, .. }
            | Input::BadArchive { path, .. }
            | Input::Special { path, .. } => path.as_os_str(),
            Input::Member(m) => m.combined.as_os_str(),
            Input::Embedded { name, .. } => OsStr::new(name),
        }
    }
}

/// A path as the `path` field of a record, unambiguously.
///
/// A path that is valid UTF-8 and has no backslash is written as is. Any
/// other path (bytes that are not UTF-8, which Unix file names may hold, or
/// a backslash) is escaped: a backslash becomes `\\`, each byte that is not
/// part of valid UTF-8 becomes `\xHH` (two uppercase hex digits), the rest is
/// kept. Paths written as is contain no backslash and escaped ones always
/// do, and escaping can be undone, so two different paths never give the
/// same string. (The file name as `name` is lossy: invalid bytes become
/// U+FFFD.)
pub fn encode_path(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.contains('\\') => return s.to_owned(),
        _ => {}
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// Writes the inputs' display paths, one per line, to `out` (flushed at the
/// end); with `raw`, each input's path bytes as given to or found by the
/// walk, ended by a NUL (archive members as `ARCHIVE!/MEMBER`). What
/// `--list` prints.
pub fn write_list(inputs: &[Input], raw: bool, out: &mut impl Write) -> io::Result<()> {
    for i in inputs {
        if raw {
            out.write_all(&i.raw_path())?;
            out.write_all(b"\0")?;
        } else {
            out.write_all(i.display_path().as_bytes())?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()
}
