//! Maps and demos inside `.zip`, `.tar` and `.tar.gz`/`.tgz` archives.
//!
//! An archive named as an input (or found by a directory walk) is listed
//! once, when the collection is listed: every member whose name ends in the
//! command's extension becomes one [`Member`] input, shown as the archive
//! path, [`SEPARATOR`] and the member name (`pack.zip!/maps/Kobra.map`).
//! Members are then spread over the workers like files.
//!
//! - `.zip` and `.tar` are memory-mapped once and shared by every member
//!   (`Arc`). The container is parsed by the `zip` and `tar` crates, which
//!   only list entries here: stored members are slices of the mapping (no
//!   copy), deflated zip members are inflated (flate2) into the worker's
//!   reused buffer, which grows as output is produced (the declared size
//!   only caps it: a member declaring 1000 times its bytes allocates what
//!   it really inflates to, see `inflate_into`). Encrypted members are
//!   refused (`encrypted`). Every member is
//!   checked against its CRC-32 (zip) before it is parsed.
//! - `.tar.gz` is a stream: listing reads it once to learn the members and
//!   where their bytes are in the decompressed stream; processing reads it
//!   once more, forward only, with one decompressor shared by the workers
//!   ([`GzStream`]), which hands each member to the worker that asked for
//!   it. Workers ask in name order, which need not be the stream's: the
//!   members passed on the way that a worker will ask for are kept until
//!   taken, up to [`READ_AHEAD_BYTES`] in memory and the rest in an
//!   unlinked temporary file (the spool). Every member is thus decompressed
//!   once whatever the order (cost linear in the archive), memory is the
//!   members in flight plus that read-ahead, and the spool holds at most
//!   the selected members of the archive being read (it is closed, with the
//!   stream, once every selected member was taken).
//!
//! Hostile archives never end a batch: what cannot be listed at all (not an
//! archive, truncated central directory) is one error record for the
//! archive; what is wrong with one member (lying sizes, a compression ratio
//! or a total over [`crate::limits::Limits`], overlapping members, `../` or
//! absolute names, CRC mismatch, an archive inside the archive) is an error
//! record for that member, and the other members get their records. Member
//! names are only ever shown, never used to open or write anything.

// Without the cargo feature `archive` (the `zip` and `tar` crates) every
// archive input is one `not_built` error record ([`list`], [`list_stdin`]);
// the readers are stand-ins that are never called, so the member types stay
// whole but are never made.
#![cfg_attr(not(feature = "archive"), allow(dead_code))]

mod checks;
mod gz;
#[cfg(not(feature = "archive"))]
mod not_built;
#[cfg(feature = "archive")]
mod tar;
#[cfg(all(test, feature = "archive"))]
mod tests;
#[cfg(feature = "archive")]
mod zip;

#[cfg(not(feature = "archive"))]
use self::not_built::{inflate_into, list_tar, list_tar_gz, list_zip};
#[cfg(feature = "archive")]
use self::tar::list_tar;
#[cfg(feature = "archive")]
pub use self::tar::{MAX_NAME_BYTES, MAX_PAX_BYTES};
#[cfg(feature = "archive")]
use self::zip::{inflate_into, list_zip};
use super::Input;
use crate::limits::Limits;
use checks::check_members;
use flate2::read::MultiGzDecoder;
#[cfg(feature = "archive")]
use gz::list_tar_gz;
pub use gz::{mark_selected, GzStream, StreamOps, READ_AHEAD_BYTES};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Between the archive path and the member name in a record's `path`.
pub const SEPARATOR: &str = "!/";

/// What kind of archive a path names (by its extension, case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Zip,
    Tar,
    TarGz,
}

impl Kind {
    /// The name endings of archives (any case), each with its kind: the
    /// one list of them (`teebatch --version` prints it for scripts, such
    /// as `spark/`, that must tell archives from other files).
    pub const SUFFIXES: [(&'static str, Kind); 4] = [
        (".zip", Kind::Zip),
        (".tar", Kind::Tar),
        (".tar.gz", Kind::TarGz),
        (".tgz", Kind::TarGz),
    ];

    /// The archive kind of a file or member name, if any.
    pub fn of_name(name: &[u8]) -> Option<Kind> {
        Kind::SUFFIXES.iter().find_map(|&(suffix, kind)| {
            let s = name.len().checked_sub(suffix.len())?;
            name[s..]
                .eq_ignore_ascii_case(suffix.as_bytes())
                .then_some(kind)
        })
    }

    pub fn of_path(path: &Path) -> Option<Kind> {
        Kind::of_name(path.as_os_str().as_encoded_bytes())
    }
}

/// Why an archive or one of its members gives no input bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{section} at byte {offset}: {message}")]
pub struct ArchiveError {
    /// A stable snake_case kind: `bad_archive`, `lying_size`, `zip_bomb`,
    /// `total_limit`, `overlapping`, `unsafe_name`, `crc_mismatch`,
    /// `size_mismatch`, `nested_archive`, `unsupported`, `inflate`,
    /// `duplicate_name`, `name_too_long`, `encrypted`, `no_members`,
    /// `not_built` (an archive input to a build without the cargo feature
    /// `archive`).
    pub kind: &'static str,
    /// `archive`, `central_directory`, or `member` (the member is in the path).
    pub section: &'static str,
    /// Byte offset in the archive (for `.tar.gz`, in the decompressed tar).
    pub offset: u64,
    pub message: String,
}

/// The kinds of the `archive` stage's errors: every [`ArchiveError::kind`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArchiveKind {
    BadArchive,
    LyingSize,
    ZipBomb,
    TotalLimit,
    Overlapping,
    UnsafeName,
    CrcMismatch,
    SizeMismatch,
    NestedArchive,
    Unsupported,
    Inflate,
    DuplicateName,
    NameTooLong,
    Encrypted,
    NoMembers,
    /// An archive input to a build without the cargo feature `archive`.
    NotBuilt,
}

crate::kind::kind_names!(ArchiveKind {
    BadArchive => "bad_archive",
    LyingSize => "lying_size",
    ZipBomb => "zip_bomb",
    TotalLimit => "total_limit",
    Overlapping => "overlapping",
    UnsafeName => "unsafe_name",
    CrcMismatch => "crc_mismatch",
    SizeMismatch => "size_mismatch",
    NestedArchive => "nested_archive",
    Unsupported => "unsupported",
    Inflate => "inflate",
    DuplicateName => "duplicate_name",
    NameTooLong => "name_too_long",
    Encrypted => "encrypted",
    NoMembers => "no_members",
    NotBuilt => "not_built",
});

impl ArchiveError {
    fn new(kind: ArchiveKind, section: &'static str, offset: u64, message: String) -> Self {
        ArchiveError {
            kind: kind.kind(),
            section,
            offset,
            message,
        }
    }
}

/// An archive's bytes, mapped once and shared by its members.
pub struct Mapped {
    path: PathBuf,
    bytes: memmap2::Mmap,
}

impl fmt::Debug for Mapped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Mapped({})", self.path.display())
    }
}

/// How a member's bytes are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Stored,
    Deflated,
}

/// Where a member's bytes come from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A `.zip` or `.tar` mapped in memory.
    Mapped(Arc<Mapped>),
    /// A `.tar.gz` read as a stream.
    Stream(Arc<GzStream>),
}

impl Source {
    /// The archive's path as named or walked (`-` for stdin).
    pub fn path(&self) -> &Path {
        match self {
            Source::Mapped(m) => &m.path,
            Source::Stream(s) => &s.path,
        }
    }
}

/// One member of an archive: one input.
#[derive(Clone, Debug)]
pub struct Member {
    pub source: Source,
    /// Archive path, [`SEPARATOR`], member name.
    pub combined: PathBuf,
    /// The member name as stored (lossily decoded if not UTF-8).
    pub name: String,
    /// Offset of the member's header in the archive.
    pub header_offset: u64,
    /// Offset of the member's bytes (in the decompressed stream for
    /// `.tar.gz`).
    pub data_offset: u64,
    /// Bytes as stored in the archive.
    pub stored_size: u64,
    /// Bytes once decompressed, as the archive declares.
    pub size: u64,
    pub method: Method,
    /// The CRC-32 the archive declares (zip only).
    pub crc32: Option<u32>,
    /// Index in the stream's member table (`.tar.gz` only).
    pub stream_index: usize,
    /// Found wrong when listing: loading gives this error.
    pub problem: Option<ArchiveError>,
}

/// The same member of the same archive (an archive named twice), not two
/// members that share a name.
impl PartialEq for Member {
    fn eq(&self, o: &Member) -> bool {
        self.combined == o.combined && self.header_offset == o.header_offset
    }
}
impl Eq for Member {}

impl Member {
    /// The file name without directories and extension.
    pub fn stem(&self) -> String {
        let base = self.name.rsplit('/').next().unwrap_or_default();
        Path::new(base)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Says the member will not be loaded (the command refused it before
    /// reading, e.g. as larger than its file limit), so a `.tar.gz` stream
    /// does not keep its bytes for it.
    pub fn release(&self) {
        if let Source::Stream(s) = &self.source {
            s.release(self);
        }
    }

    /// Says the member will be loaded `n` more times (at least 1; `demos
    /// export` of a demo split into segments): a `.tar.gz` stream keeps
    /// its bytes between the loads instead of decompressing the archive
    /// again for each. No effect on other archives, whose members are
    /// read again from the mapping.
    pub fn set_loads(&self, n: u32) {
        if let Source::Stream(s) = &self.source {
            s.set_takes(self, n);
        }
    }

    /// The member's bytes: a slice of the mapping (stored), inflated into
    /// `buf` (deflated), or read from the stream into `buf` (`.tar.gz`).
    pub fn load<'b>(&'b self, buf: &'b mut Vec<u8>) -> io::Result<&'b [u8]> {
        if let Some(p) = &self.problem {
            return Err(io::Error::other(p.clone()));
        }
        let err = |kind, message: String| {
            io::Error::other(ArchiveError::new(
                kind,
                "member",
                self.header_offset,
                message,
            ))
        };
        let bytes: &[u8] = match &self.source {
            Source::Mapped(m) => {
                let start = self.data_offset as usize;
                let stored = &m.bytes[start..start + self.stored_size as usize];
                match self.method {
                    Method::Stored => stored,
                    Method::Deflated => {
                        inflate_into(stored, self.size, buf).map_err(|e| {
                            err(
                                ArchiveKind::Inflate,
                                format!(
                                    "member does not inflate to its declared {} bytes: {e}",
                                    self.size
                                ),
                            )
                        })?;
                        let n = buf.len() as u64;
                        if n != self.size {
                            return Err(err(
                                ArchiveKind::SizeMismatch,
                                if n > self.size {
                                    format!(
                                        "member inflates to more than the declared {} bytes",
                                        self.size
                                    )
                                } else {
                                    format!(
                                        "member inflates to {n} bytes, not the declared {}",
                                        self.size
                                    )
                                },
                            ));
                        }
                        buf
                    }
                }
            }
            Source::Stream(s) => {
                s.take(self, buf)?;
                buf
            }
        };
        if let Some(want) = self.crc32 {
            let got = crc32fast::hash(bytes);
            if got != want {
                return Err(err(
                    ArchiveKind::CrcMismatch,
                    format!("member CRC-32 is {got:08x}, the archive says {want:08x}"),
                ));
            }
        }
        Ok(bytes)
    }
}

fn combined(archive: &Path, raw: &[u8]) -> PathBuf {
    let mut s = archive.as_os_str().to_owned();
    s.push(SEPARATOR);
    s.push(os_name(raw));
    PathBuf::from(s)
}

/// A stored member name as an OS string, byte for byte where the platform
/// allows it.
fn os_name(raw: &[u8]) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(raw).to_owned()
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(raw).into_owned().into()
    }
}

/// The PATH that names a tar stream on stdin.
pub const STDIN: &str = "-";

/// The inputs of a tar stream read from stdin (the PATH `-`): its members
/// named `*.ext`, each shown by its member name alone (a stream has no path
/// of its own), or one error for the stream.
///
/// The stream is copied once into an unlinked temporary file (in `TMPDIR`)
/// and mapped, so it is listed and read as a `.tar` file is and memory
/// stays bounded by the members in flight. A stream longer than
/// [`Limits::max_archive_total_bytes`] is refused as a whole.
pub fn list_stdin(ext: &str, limits: &Limits, out: &mut Vec<Input>) {
    let path = Path::new(STDIN);
    if !cfg!(feature = "archive") {
        out.push(not_built(path));
        return;
    }
    let bad = |kind, offset, message: String| Input::BadArchive {
        path: path.to_path_buf(),
        error: ArchiveError::new(kind, "archive", offset, message),
    };
    let cap = limits.max_archive_total_bytes;
    // A gzip stream (magic 1f 8b) is decompressed on the way: the spool
    // holds the tar, and offsets are in it, as for a `.tar.gz`.
    let mut stdin = io::stdin().lock();
    let mut head = [0u8; 2];
    let mut got = 0;
    let peeked = loop {
        match stdin.read(&mut head[got..]) {
            Ok(0) => break Ok(()),
            Ok(n) => {
                got += n;
                if got == head.len() {
                    break Ok(());
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    let gzipped = head[..got] == [0x1f, 0x8b];
    let what = if gzipped {
        "the gzip stream on stdin"
    } else {
        "the tar stream on stdin"
    };
    let input = io::Cursor::new(head[..got].to_vec()).chain(stdin);
    let mut input: Box<dyn Read> = if gzipped {
        Box::new(MultiGzDecoder::new(input))
    } else {
        Box::new(input)
    };
    let spooled = peeked
        .and_then(|()| tempfile::tempfile())
        .and_then(|mut f| {
            let n = io::copy(&mut (&mut input).take(cap.saturating_add(1)), &mut f)?;
            Ok((f, n))
        });
    let file = match spooled {
        Ok((_, n)) if n > cap => {
            out.push(bad(
                ArchiveKind::TotalLimit,
                cap,
                format!("{what} is longer than the {cap} byte limit (decompressed)"),
            ));
            return;
        }
        Ok((f, _)) => f,
        Err(e) => {
            out.push(bad(
                ArchiveKind::BadArchive,
                0,
                format!("reading {what}: {}", printable(&e.to_string())),
            ));
            return;
        }
    };
    // SAFETY: a read-only mapping of an unlinked temporary file only this
    // process holds and no longer writes, kept for the whole batch; every
    // slice taken from it is bounds-checked against its fixed length.
    let bytes = match unsafe { memmap2::Mmap::map(&file) } {
        Ok(b) => b,
        Err(e) => {
            out.push(bad(
                ArchiveKind::BadArchive,
                0,
                format!("mapping the tar stream on stdin: {e}"),
            ));
            return;
        }
    };
    let mapped = Arc::new(Mapped {
        path: path.to_path_buf(),
        bytes,
    });
    let before = out.len();
    let (mut listed, err) = list_tar(&mapped.bytes, ext);
    check_members(&mut listed, mapped.bytes.len() as u64, limits);
    for l in listed {
        let name = PathBuf::from(os_name(&l.raw));
        if let Input::Member(mut m) = member(path, Source::Mapped(mapped.clone()), l, 0) {
            m.combined = name;
            out.push(Input::Member(m));
        }
    }
    out.extend(err.into_iter().map(|error| Input::BadArchive {
        path: path.to_path_buf(),
        error,
    }));
    if out.len() == before {
        out.push(no_members(path, ext));
    }
}

/// The record of an archive input to a build without the cargo feature
/// `archive`: the archive is not read.
fn not_built(path: &Path) -> Input {
    Input::BadArchive {
        path: path.to_path_buf(),
        error: ArchiveError::new(
            ArchiveKind::NotBuilt,
            "archive",
            0,
            "this build of teebatch reads no archives (built without the cargo feature `archive`)"
                .into(),
        ),
    }
}

/// The record of an archive named as an input that gives none.
fn no_members(path: &Path, ext: &str) -> Input {
    Input::BadArchive {
        path: path.to_path_buf(),
        error: ArchiveError::new(
            ArchiveKind::NoMembers,
            "archive",
            0,
            format!("the archive holds no member named *.{ext}"),
        ),
    }
}

/// [`list`] for an archive named as an input (a PATH or a `--files-from`
/// line), not found by a directory walk: one that gives no input at all
/// (no member named `*.ext`, e.g. a zip whose end record says 0 entries)
/// is one `no_members` error record, so every archive named gets a record.
pub fn list_named(path: &Path, kind: Kind, ext: &str, limits: &Limits, out: &mut Vec<Input>) {
    let before = out.len();
    list(path, kind, ext, limits, out);
    if out.len() == before {
        out.push(no_members(path, ext));
    }
}

/// The archive and member of a record path `ARCHIVE!/MEMBER` (what
/// `--list` prints) that names no file: the first `!/` whose left side is
/// an archive file.
pub fn split_member_path(path: &Path) -> Option<(PathBuf, Kind)> {
    let bytes = path.as_os_str().as_encoded_bytes();
    let sep = SEPARATOR.as_bytes();
    (0..bytes.len().saturating_sub(sep.len() - 1))
        .filter(|&i| bytes[i..].starts_with(sep))
        .find_map(|i| {
            let kind = Kind::of_name(&bytes[..i])?;
            let archive = PathBuf::from(os_name(&bytes[..i]));
            std::fs::metadata(&archive)
                .is_ok_and(|m| m.is_file())
                .then_some((archive, kind))
        })
}

/// One entry as listed, before it becomes a [`Member`].
struct Listed {
    /// The member's name as stored: what its record path is built from
    /// (escaped there like a file name, so different names stay different)
    /// and what duplicate names are found by.
    raw: Vec<u8>,
    header_offset: u64,
    data_offset: u64,
    stored_size: u64,
    size: u64,
    method: Method,
    crc32: Option<u32>,
    problem: Option<ArchiveError>,
}

impl Listed {
    /// The member's name for display (invalid UTF-8 shown as U+FFFD).
    fn name(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.raw)
    }
}

/// The inputs of the archive at `path`: its members named `*.ext`, the
/// archives inside it (as `nested_archive` errors), or one error for the
/// whole archive.
pub fn list(path: &Path, kind: Kind, ext: &str, limits: &Limits, out: &mut Vec<Input>) {
    if !cfg!(feature = "archive") {
        out.push(not_built(path));
        return;
    }
    let bad = |e: ArchiveError| Input::BadArchive {
        path: path.to_path_buf(),
        error: e,
    };
    if kind == Kind::TarGz {
        match list_tar_gz(path, ext, limits) {
            Ok((listed, stream, err)) => {
                let stream = Arc::new(stream);
                for (i, l) in listed.into_iter().enumerate() {
                    out.push(member(path, Source::Stream(stream.clone()), l, i));
                }
                out.extend(err.into_iter().map(bad));
            }
            Err(e) => out.push(bad(e)),
        }
        return;
    }
    let mapped = match map(path) {
        Ok(m) => Arc::new(m),
        Err(e) => {
            out.push(Input::Unlistable {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
            return;
        }
    };
    let (mut listed, err) = match kind {
        Kind::Zip => match list_zip(&mapped.bytes, ext) {
            Ok((l, e)) => (l, e.into_iter().collect()),
            Err(e) => (Vec::new(), vec![e]),
        },
        _ => list_tar(&mapped.bytes, ext),
    };
    check_members(&mut listed, mapped.bytes.len() as u64, limits);
    for l in listed {
        out.push(member(path, Source::Mapped(mapped.clone()), l, 0));
    }
    out.extend(err.into_iter().map(bad));
}

fn member(path: &Path, source: Source, l: Listed, stream_index: usize) -> Input {
    Input::Member(Box::new(Member {
        source,
        combined: combined(path, &l.raw),
        name: l.name().into_owned(),
        header_offset: l.header_offset,
        data_offset: l.data_offset,
        stored_size: l.stored_size,
        size: l.size,
        method: l.method,
        crc32: l.crc32,
        stream_index,
        problem: l.problem,
    }))
}

fn map(path: &Path) -> io::Result<Mapped> {
    let file = File::open(path)?;
    // SAFETY: a read-only MAP_SHARED mapping of an archive, kept for the
    // whole batch so members are parsed in place. As with `--mmap always`
    // (see `batch::load`), another process truncating the archive while it
    // is mapped makes reads past the new end raise SIGBUS, and one writing
    // to it changes bytes under the parser; every slice taken from it is
    // bounds-checked against the mapping's fixed length. An empty file maps
    // to an empty slice.
    let bytes = unsafe { memmap2::Mmap::map(&file)? };
    Ok(Mapped {
        path: path.to_path_buf(),
        bytes,
    })
}

/// `message` with its control characters escaped (`\u{1b}`), so that bytes
/// of a file quoted in an error (the `tar` crate quotes header fields) are
/// never printed raw.
pub fn printable(message: &str) -> String {
    message
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod not_built_tests {
    use super::{not_built, ArchiveKind, Input};
    use std::path::Path;

    /// The record of an archive input to a build without the cargo
    /// feature `archive`: the archive stage's `not_built`, naming the
    /// feature.
    #[test]
    fn a_not_built_record_names_the_feature() {
        let Input::BadArchive { path, error } = not_built(Path::new("pack.zip")) else {
            panic!("not an archive error");
        };
        assert_eq!(path, Path::new("pack.zip"));
        assert_eq!(error.kind, ArchiveKind::NotBuilt.kind());
        assert_eq!(error.kind, "not_built");
        assert_eq!((error.section, error.offset), ("archive", 0));
        assert_eq!(
            error.to_string(),
            "archive at byte 0: this build of teebatch reads no archives (built without the cargo feature `archive`)"
        );
    }

    /// Without the feature, every archive kind named as an input, found by
    /// a walk or on stdin is that one record (and nothing is read).
    #[cfg(not(feature = "archive"))]
    #[test]
    fn without_the_feature_an_archive_input_is_one_not_built_record() {
        use super::{list, list_named, list_stdin, Kind, STDIN};
        use crate::limits::Limits;
        let limits = Limits::default();
        for (name, kind) in [
            ("missing.zip", Kind::Zip),
            ("missing.tar", Kind::Tar),
            ("missing.tar.gz", Kind::TarGz),
        ] {
            for named in [false, true] {
                let mut out = Vec::new();
                if named {
                    list_named(Path::new(name), kind, "map", &limits, &mut out);
                } else {
                    list(Path::new(name), kind, "map", &limits, &mut out);
                }
                assert_eq!(out, vec![not_built(Path::new(name))], "{name}");
            }
        }
        let mut out = Vec::new();
        list_stdin("demo", &limits, &mut out);
        assert_eq!(out, vec![not_built(Path::new(STDIN))]);
    }
}
