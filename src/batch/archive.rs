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
//!   copy), deflated zip members are inflated by libdeflater into the
//!   worker's reused buffer, sized by the central directory. Every member is
//!   checked against its CRC-32 (zip) before it is parsed.
//! - `.tar.gz` is a stream: listing reads it once to learn the members and
//!   where their bytes are in the decompressed stream; processing reads it
//!   again with one decompressor shared by the workers ([`GzStream`]), which
//!   hands each member to the worker that asked for it. Members other
//!   workers are waiting for are kept until taken, later ones up to
//!   [`READ_AHEAD_BYTES`]; others are skipped (and the stream restarted if
//!   one is asked for later), so memory is bounded by the members in flight
//!   and that read-ahead, not by the archive.
//!
//! Hostile archives never end a batch: what cannot be listed at all (not an
//! archive, truncated central directory) is one error record for the
//! archive; what is wrong with one member (lying sizes, a compression ratio
//! or a total over [`crate::limits::Limits`], overlapping members, `../` or
//! absolute names, CRC mismatch, an archive inside the archive) is an error
//! record for that member, and the other members get their records. Member
//! names are only ever shown, never used to open or write anything.

use super::Input;
use crate::limits::Limits;
use flate2::read::MultiGzDecoder;
use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    /// The archive kind of a file or member name, if any.
    pub fn of_name(name: &[u8]) -> Option<Kind> {
        let lower = |n: usize| {
            name.len()
                .checked_sub(n)
                .map(|s| name[s..].to_ascii_lowercase())
        };
        if lower(7).is_some_and(|s| s == b".tar.gz") || lower(4).is_some_and(|s| s == b".tgz") {
            Some(Kind::TarGz)
        } else if lower(4).is_some_and(|s| s == b".zip") {
            Some(Kind::Zip)
        } else if lower(4).is_some_and(|s| s == b".tar") {
            Some(Kind::Tar)
        } else {
            None
        }
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
    /// `duplicate_name`.
    pub kind: &'static str,
    /// `archive`, `central_directory`, or `member` (the member is in the path).
    pub section: &'static str,
    /// Byte offset in the archive (for `.tar.gz`, in the decompressed tar).
    pub offset: u64,
    pub message: String,
}

/// Every [`ArchiveError::kind`].
pub const KINDS: &[&str] = &[
    "bad_archive",
    "lying_size",
    "zip_bomb",
    "total_limit",
    "overlapping",
    "unsafe_name",
    "crc_mismatch",
    "size_mismatch",
    "nested_archive",
    "unsupported",
    "inflate",
    "duplicate_name",
];

impl ArchiveError {
    fn new(kind: &'static str, section: &'static str, offset: u64, message: String) -> Self {
        debug_assert!(KINDS.contains(&kind), "archive kind {kind} is not in KINDS");
        ArchiveError {
            kind,
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
                        buf.clear();
                        buf.resize(self.size as usize, 0);
                        let n = INFLATER
                            .with_borrow_mut(|d| d.deflate_decompress(stored, buf))
                            .map_err(|e| {
                                err(
                                    "inflate",
                                    format!(
                                        "member does not inflate to its declared {} bytes: {e}",
                                        self.size
                                    ),
                                )
                            })?;
                        if n != buf.len() {
                            return Err(err(
                                "size_mismatch",
                                format!(
                                    "member inflates to {n} bytes, not the declared {}",
                                    self.size
                                ),
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
                    "crc_mismatch",
                    format!("member CRC-32 is {got:08x}, the archive says {want:08x}"),
                ));
            }
        }
        Ok(bytes)
    }
}

thread_local! {
    /// Each worker's inflater for deflated zip members.
    static INFLATER: std::cell::RefCell<libdeflater::Decompressor> =
        std::cell::RefCell::new(libdeflater::Decompressor::new());
}

/// Whether a member name ends in `.ext` (case-insensitive) and names a file.
fn has_ext(name: &[u8], ext: &str) -> bool {
    let e = ext.as_bytes();
    name.len() > e.len() + 1
        && name[name.len() - e.len() - 1] == b'.'
        && name[name.len() - e.len()..].eq_ignore_ascii_case(e)
        && name[name.len() - e.len() - 2] != b'/'
}

/// Whether a member name could escape a destination directory if it were
/// ever extracted: absolute, a drive letter, or a `..` component.
fn unsafe_name(name: &str) -> bool {
    name.starts_with('/')
        || name.starts_with('\\')
        || name.as_bytes().get(1) == Some(&b':')
        || name.split(['/', '\\']).any(|c| c == "..")
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
    let bad = |kind, offset, message: String| Input::BadArchive {
        path: path.to_path_buf(),
        error: ArchiveError::new(kind, "archive", offset, message),
    };
    let cap = limits.max_archive_total_bytes;
    let spooled = tempfile::tempfile().and_then(|mut f| {
        let n = io::copy(&mut io::stdin().lock().take(cap.saturating_add(1)), &mut f)?;
        Ok((f, n))
    });
    let file = match spooled {
        Ok((_, n)) if n > cap => {
            out.push(bad(
                "total_limit",
                cap,
                format!("the tar stream on stdin is longer than the {cap} byte limit"),
            ));
            return;
        }
        Ok((f, _)) => f,
        Err(e) => {
            out.push(bad(
                "bad_archive",
                0,
                format!("reading the tar stream on stdin: {e}"),
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
                "bad_archive",
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
    let (mut listed, err) = list_tar(&mapped.bytes, ext);
    check_members(&mut listed, mapped.bytes.len() as u64, limits);
    for l in listed {
        let name = PathBuf::from(os_name(&l.raw));
        if let Input::Member(mut m) = member(path, Source::Mapped(mapped.clone()), l, 0) {
            m.combined = name;
            out.push(Input::Member(m));
        }
    }
    out.extend(err.map(|error| Input::BadArchive {
        path: path.to_path_buf(),
        error,
    }));
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
                out.extend(err.map(bad));
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
            Ok(l) => l,
            Err(e) => (Vec::new(), Some(e)),
        },
        _ => list_tar(&mapped.bytes, ext),
    };
    check_members(&mut listed, mapped.bytes.len() as u64, limits);
    for l in listed {
        out.push(member(path, Source::Mapped(mapped.clone()), l, 0));
    }
    out.extend(err.map(bad));
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

/// Checks what listing alone can tell: names, nested archives, sizes
/// against the archive and the limits, overlaps.
fn check_members(listed: &mut [Listed], archive_len: u64, limits: &Limits) {
    let mut total = 0u64;
    for l in listed.iter_mut() {
        if l.problem.is_some() {
            continue;
        }
        let e = |kind, message| Some(ArchiveError::new(kind, "member", l.header_offset, message));
        l.problem = if unsafe_name(&l.name()) {
            e(
                "unsafe_name",
                "member name is absolute or has a `..` component".into(),
            )
        } else if l
            .data_offset
            .checked_add(l.stored_size)
            .is_none_or(|end| end > archive_len)
        {
            e(
                "lying_size",
                format!(
                    "member claims {} bytes at byte {}, past the archive's end ({archive_len} bytes)",
                    l.stored_size, l.data_offset
                ),
            )
        } else if l.method == Method::Stored && l.size != l.stored_size {
            e(
                "lying_size",
                format!(
                    "stored member declares {} bytes but holds {}",
                    l.size, l.stored_size
                ),
            )
        } else if l.size
            > l.stored_size
                .max(1)
                .saturating_mul(limits.max_archive_ratio)
        {
            e(
                "zip_bomb",
                format!(
                    "member declares {} bytes from {} stored, over the {}:1 ratio limit",
                    l.size, l.stored_size, limits.max_archive_ratio
                ),
            )
        } else {
            total = total.saturating_add(l.size);
            (total > limits.max_archive_total_bytes).then(|| {
                ArchiveError::new(
                    "total_limit",
                    "member",
                    l.header_offset,
                    format!(
                        "members up to this one declare more than the {} byte limit per archive",
                        limits.max_archive_total_bytes
                    ),
                )
            })
        };
    }
    // A name given to more than one member: the first keeps it, the later
    // ones are errors (extracting the archive would overwrite the first).
    let mut first: std::collections::HashMap<&[u8], u64> = std::collections::HashMap::new();
    let mut repeats = Vec::new();
    for (i, l) in listed.iter().enumerate() {
        match first.entry(l.raw.as_slice()) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(l.header_offset);
            }
            std::collections::hash_map::Entry::Occupied(o) => repeats.push((i, *o.get())),
        }
    }
    for (i, at) in repeats {
        listed[i].problem.get_or_insert(ArchiveError::new(
            "duplicate_name",
            "member",
            listed[i].header_offset,
            format!("member name repeats the member at byte {at}"),
        ));
    }
    // Overlaps: members' [header, data end) ranges, sorted by start
    // (members already refused, e.g. for a lying size, are not read and
    // take no part).
    let mut order: Vec<usize> = (0..listed.len())
        .filter(|&i| listed[i].problem.is_none())
        .collect();
    order.sort_by_key(|&i| listed[i].header_offset);
    let mut prev: Option<(usize, u64)> = None;
    for &i in &order {
        let end = listed[i].data_offset.saturating_add(listed[i].stored_size);
        if let Some((p, pend)) = prev {
            if listed[i].header_offset < pend {
                let msg = |other: &Listed| {
                    format!(
                        "member overlaps `{}` (bytes {}..{})",
                        other.name(),
                        other.header_offset,
                        pend
                    )
                };
                let m = msg(&listed[p]);
                if listed[i].problem.is_none() {
                    listed[i].problem = Some(ArchiveError::new(
                        "overlapping",
                        "member",
                        listed[i].header_offset,
                        m,
                    ));
                }
                let m = format!(
                    "member overlaps `{}` (bytes {}..{end})",
                    listed[i].name(),
                    listed[i].header_offset
                );
                if listed[p].problem.is_none() {
                    listed[p].problem = Some(ArchiveError::new(
                        "overlapping",
                        "member",
                        listed[p].header_offset,
                        m,
                    ));
                }
            }
        }
        if prev.is_none_or(|(_, pend)| end > pend) {
            prev = Some((i, end));
        }
    }
}

/// A listed entry is kept when it is a member to process or an archive
/// inside the archive (reported, not opened).
fn wanted(name: &[u8], ext: &str) -> Option<Option<ArchiveError>> {
    if has_ext(name, ext) {
        Some(None)
    } else if Kind::of_name(name).is_some() {
        Some(Some(ArchiveError::new(
            "nested_archive",
            "member",
            0,
            "an archive inside an archive is not opened".into(),
        )))
    } else {
        None
    }
}

/// Lists a zip archive. The `zip` crate keeps one entry per name, so a
/// central directory that names a member more than once is also an error
/// for the archive (the entries it hides are not read).
fn list_zip(bytes: &[u8], ext: &str) -> Result<(Vec<Listed>, Option<ArchiveError>), ArchiveError> {
    let zerr = |e: zip::result::ZipError| {
        ArchiveError::new(
            "bad_archive",
            "central_directory",
            bytes.len() as u64,
            format!("not a readable zip archive: {e}"),
        )
    };
    let mut z = zip::ZipArchive::new(io::Cursor::new(bytes)).map_err(zerr)?;
    let mut out = Vec::new();
    for i in 0..z.len() {
        let Ok(meta) = z.by_index_data(i) else {
            continue;
        };
        let raw = meta.name_raw();
        let Some(nested) = wanted(raw, ext) else {
            continue;
        };
        let header_offset = meta.header_start();
        let (stored_size, size, crc) = (meta.compressed_size(), meta.size(), meta.crc32());
        let method = meta.compression();
        let mut l = Listed {
            raw: raw.to_vec(),
            header_offset,
            data_offset: header_offset,
            stored_size,
            size,
            method: Method::Stored,
            crc32: Some(crc),
            problem: nested.map(|mut e| {
                e.offset = header_offset;
                e
            }),
        };
        match method {
            zip::CompressionMethod::Stored => {}
            m if m == zip::CompressionMethod::DEFLATE => l.method = Method::Deflated,
            m => {
                l.problem.get_or_insert(ArchiveError::new(
                    "unsupported",
                    "member",
                    header_offset,
                    format!("compression method {m} is not supported (only stored and deflate)"),
                ));
            }
        }
        match z.by_index_raw(i) {
            Ok(f) => match f.data_start() {
                Some(d) => l.data_offset = d,
                None => {
                    l.problem.get_or_insert(ArchiveError::new(
                        "bad_archive",
                        "member",
                        header_offset,
                        "member's local header not found".into(),
                    ));
                }
            },
            Err(e) => {
                l.problem.get_or_insert(ArchiveError::new(
                    "lying_size",
                    "member",
                    header_offset,
                    format!("member's local header is unreadable: {e}"),
                ));
            }
        }
        out.push(l);
    }
    let hidden = z.has_duplicate_names().then(|| {
        ArchiveError::new(
            "duplicate_name",
            "central_directory",
            z.central_directory_start(),
            "the central directory names a member more than once; only the last entry of each name is read".into(),
        )
    });
    Ok((out, hidden))
}

/// Lists a tar archive; an error part-way keeps the members before it.
fn list_tar(bytes: &[u8], ext: &str) -> (Vec<Listed>, Option<ArchiveError>) {
    let mut out = Vec::new();
    // Seeking over member bytes instead of reading them.
    let mut a = tar::Archive::new(io::Cursor::new(bytes));
    let err = list_tar_entries(a.entries_with_seek(), ext, &mut out);
    (out, err)
}

fn tar_error(offset: u64, e: io::Error) -> Option<ArchiveError> {
    Some(ArchiveError::new(
        "bad_archive",
        "archive",
        offset,
        format!("not a readable tar archive: {e}"),
    ))
}

fn list_tar_entries<R: Read>(
    entries: io::Result<tar::Entries<'_, R>>,
    ext: &str,
    out: &mut Vec<Listed>,
) -> Option<ArchiveError> {
    let bad = tar_error;
    let entries = match entries {
        Ok(e) => e,
        Err(e) => return bad(0, e),
    };
    let mut last_end = 0u64;
    for entry in entries {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => return bad(last_end, e),
        };
        let header_offset = entry.raw_header_position();
        let data_offset = entry.raw_file_position();
        let size = entry.size();
        last_end = data_offset.saturating_add(size);
        let t = entry.header().entry_type();
        let regular = t.is_file() || t == tar::EntryType::Continuous;
        // Directories and the tar's own metadata entries are not inputs;
        // a link, device or FIFO named like an input is one that cannot
        // be read, and gets its record rather than vanishing.
        if !regular
            && !matches!(
                t,
                tar::EntryType::Link
                    | tar::EntryType::Symlink
                    | tar::EntryType::Char
                    | tar::EntryType::Block
                    | tar::EntryType::Fifo
                    | tar::EntryType::GNUSparse
            )
        {
            continue;
        }
        let raw = entry.path_bytes();
        let Some(nested) = wanted(&raw, ext) else {
            continue;
        };
        let nested = if regular {
            nested
        } else {
            Some(ArchiveError::new(
                "unsupported",
                "member",
                0,
                format!("a tar member of type {t:?} is not read (only regular files are)"),
            ))
        };
        out.push(Listed {
            raw: raw.to_vec(),
            header_offset,
            data_offset,
            stored_size: size,
            size,
            method: Method::Stored,
            crc32: None,
            problem: nested.map(|mut e| {
                e.offset = header_offset;
                e
            }),
        });
    }
    None
}

type GzReader = MultiGzDecoder<BufReader<File>>;

fn open_gz(path: &Path) -> io::Result<GzReader> {
    Ok(MultiGzDecoder::new(BufReader::with_capacity(
        1 << 16,
        File::open(path)?,
    )))
}

/// Counts the bytes read through it (the decompressed tar's length).
struct Counting<R> {
    inner: R,
    n: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(b)?;
        self.n += n as u64;
        Ok(n)
    }
}

#[allow(clippy::type_complexity)]
fn list_tar_gz(
    path: &Path,
    ext: &str,
    limits: &Limits,
) -> Result<(Vec<Listed>, GzStream, Option<ArchiveError>), ArchiveError> {
    let reader = open_gz(path)
        .map_err(|e| ArchiveError::new("bad_archive", "archive", 0, format!("cannot open: {e}")))?;
    let mut a = tar::Archive::new(Counting {
        inner: reader,
        n: 0,
    });
    let mut listed = Vec::new();
    let err = list_tar_entries(a.entries(), ext, &mut listed);
    // Drain what the tar reader left so the length is the stream's.
    let mut c = a.into_inner();
    let drained = io::copy(&mut c, &mut io::sink());
    let len = c.n;
    let err = err.or_else(|| {
        drained
            .err()
            .map(|e| ArchiveError::new("bad_archive", "archive", len, format!("gzip stream: {e}")))
    });
    check_members(&mut listed, len, limits);
    // Ranks: members in name order, which is the order inputs are taken.
    let mut by_name: Vec<usize> = (0..listed.len()).collect();
    by_name.sort_by(|&a, &b| listed[a].raw.cmp(&listed[b].raw));
    let mut rank = vec![0; listed.len()];
    for (r, &i) in by_name.iter().enumerate() {
        rank[i] = r;
    }
    let entries = listed
        .iter()
        .zip(rank)
        .map(|(l, rank)| StreamEntry {
            offset: l.data_offset,
            size: l.size,
            rank,
            taken: false,
            readable: l.problem.is_none(),
        })
        .collect();
    Ok((
        listed,
        GzStream {
            path: path.to_path_buf(),
            state: Mutex::new(StreamState {
                reader: None,
                pos: 0,
                entries,
                ready: BTreeMap::new(),
                ready_bytes: 0,
                restarts: 0,
                max_member: if ext.eq_ignore_ascii_case("map") {
                    limits.max_map_file_bytes
                } else {
                    limits.max_demo_file_bytes
                },
            }),
        },
        err,
    ))
}

/// Tells each `.tar.gz` stream which of its members the batch will ask
/// for (after sorting, de-duplication and `--shard`): only those are ever
/// kept for a worker.
pub fn mark_selected(inputs: &[Input]) {
    let streams = || {
        inputs.iter().filter_map(|i| match i {
            Input::Member(m) => match &m.source {
                Source::Stream(s) => Some((m, s)),
                Source::Mapped(_) => None,
            },
            _ => None,
        })
    };
    for (_, s) in streams() {
        let mut st = s.state.lock().unwrap_or_else(|p| p.into_inner());
        st.entries.iter_mut().for_each(|e| e.readable = false);
    }
    for (m, s) in streams() {
        let mut st = s.state.lock().unwrap_or_else(|p| p.into_inner());
        st.entries[m.stream_index].readable = m.problem.is_none() && m.size <= st.max_member;
    }
}

/// Bytes of members asked for later that a `.tar.gz` stream keeps when it
/// passes them (beyond those other workers are waiting for), so that an
/// archive not stored in name order is not decompressed again for each
/// member.
pub const READ_AHEAD_BYTES: u64 = 64 << 20;

/// A `.tar.gz` read by one decompressor on behalf of every worker.
pub struct GzStream {
    path: PathBuf,
    state: Mutex<StreamState>,
}

impl fmt::Debug for GzStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GzStream({})", self.path.display())
    }
}

struct StreamEntry {
    offset: u64,
    size: u64,
    /// Position among this archive's members in name order.
    rank: usize,
    taken: bool,
    readable: bool,
}

struct StreamState {
    reader: Option<GzReader>,
    /// Decompressed bytes consumed.
    pos: u64,
    /// In stream order.
    entries: Vec<StreamEntry>,
    /// Members read on behalf of a worker that has not taken them yet.
    ready: BTreeMap<usize, Vec<u8>>,
    /// Bytes held in `ready`.
    ready_bytes: u64,
    restarts: u64,
    /// Members larger than this are never kept for another worker (the
    /// command refuses them before asking).
    max_member: u64,
}

impl GzStream {
    /// Times the stream was read again from its start (a member was asked
    /// for after the stream had passed it).
    pub fn restarts(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.restarts)
    }

    /// Reads member `m` into `buf`.
    ///
    /// Workers take members in name order. Passing a member on the way to
    /// `m`: one earlier in name order (another worker has it and is waiting
    /// for this lock) is kept for it; a later one is kept while the kept
    /// later ones total at most [`READ_AHEAD_BYTES`], else skipped (and, if
    /// asked for, costs a restart of the stream).
    ///
    /// A read that fails (the file changed or was removed since it was
    /// listed) is a `bad_archive` error for `m`, and the stream is closed so
    /// the next member reads it again from the start.
    fn take(&self, m: &Member, buf: &mut Vec<u8>) -> io::Result<()> {
        let mut guard = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let st = &mut *guard;
        let i = m.stream_index;
        st.entries[i].taken = true;
        if let Some(b) = st.ready.remove(&i) {
            st.ready_bytes -= b.len() as u64;
            *buf = b;
            return Ok(());
        }
        self.read_to(st, i, buf).map_err(|e| {
            st.reader = None;
            io::Error::other(ArchiveError::new(
                "bad_archive",
                "member",
                m.header_offset,
                format!("reading the gzip stream: {e}"),
            ))
        })
    }

    /// Reads the stream up to entry `i` (keeping what [`GzStream::take`]
    /// says on the way) and `i`'s bytes into `buf`.
    fn read_to(&self, st: &mut StreamState, i: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        let target = st.entries[i].offset;
        if st.reader.is_none() || st.pos > target {
            if st.reader.is_some() {
                st.restarts += 1;
            }
            st.reader = Some(open_gz(&self.path)?);
            st.pos = 0;
        }
        let my_rank = st.entries[i].rank;
        // The first entry at or after the current position.
        let mut j = st.entries.partition_point(|e| e.offset < st.pos);
        while j < i {
            let e = &st.entries[j];
            let keep =
                e.rank < my_rank || st.ready_bytes.saturating_add(e.size) <= READ_AHEAD_BYTES;
            if !e.taken && e.readable && keep {
                let (off, size) = (e.offset, e.size);
                let r = st.reader.as_mut().expect("reader is open");
                skip(r, off - st.pos)?;
                let mut b = Vec::new();
                read_exact_into(r, size, &mut b)?;
                st.pos = off + size;
                st.ready_bytes += size;
                st.ready.insert(j, b);
            }
            j += 1;
        }
        let r = st.reader.as_mut().expect("reader is open");
        skip(r, target - st.pos)?;
        buf.clear();
        read_exact_into(r, st.entries[i].size, buf)?;
        st.pos = target + st.entries[i].size;
        Ok(())
    }

    /// Bytes of members read from the stream and kept for a worker that
    /// has not taken them yet.
    pub fn held_bytes(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.ready_bytes)
    }

    /// Member `m` will not be taken (the command refused it, e.g. as too
    /// large): its bytes are not kept for it, and dropped if they were.
    fn release(&self, m: &Member) {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        st.entries[m.stream_index].taken = true;
        if let Some(b) = st.ready.remove(&m.stream_index) {
            st.ready_bytes -= b.len() as u64;
        }
    }
}

fn skip(r: &mut impl Read, n: u64) -> io::Result<()> {
    let got = io::copy(&mut r.take(n), &mut io::sink())?;
    if got < n {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

fn read_exact_into(r: &mut impl Read, n: u64, buf: &mut Vec<u8>) -> io::Result<()> {
    buf.reserve(n as usize);
    let got = r.take(n).read_to_end(buf)?;
    if (got as u64) < n {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(name: &str, header_offset: u64, stored_size: u64, size: u64) -> Listed {
        Listed {
            raw: name.as_bytes().to_vec(),
            header_offset,
            data_offset: header_offset + 30,
            stored_size,
            size,
            method: Method::Deflated,
            crc32: Some(0),
            problem: None,
        }
    }

    #[test]
    fn ratio_and_total_limits_refuse_the_members_past_them() {
        let limits = Limits {
            max_archive_ratio: 10,
            max_archive_total_bytes: 250,
            ..Limits::default()
        };
        let mut l = vec![
            listed("a.map", 0, 10, 100),
            listed("b.map", 100, 10, 101),
            listed("c.map", 200, 10, 100),
            listed("d.map", 300, 10, 100),
        ];
        check_members(&mut l, 1000, &limits);
        let kinds: Vec<_> = l
            .iter()
            .map(|l| l.problem.as_ref().map(|p| (p.kind, p.offset)))
            .collect();
        assert_eq!(
            kinds,
            [
                None,
                Some(("zip_bomb", 100)),
                None,
                Some(("total_limit", 300)),
            ]
        );
    }

    /// A tar of `files` (`(name, bytes)`), in that order.
    fn tar_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        for (name, bytes) in files {
            let mut h = tar::Header::new_gnu();
            h.set_size(bytes.len() as u64);
            h.set_mode(0o644);
            h.set_cksum();
            b.append_data(&mut h, name, bytes.as_slice()).unwrap();
        }
        b.into_inner().unwrap()
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        g.write_all(bytes).unwrap();
        g.finish().unwrap()
    }

    fn members_of(path: &Path, kind: Kind) -> Vec<Member> {
        let mut out = Vec::new();
        list(path, kind, "map", &Limits::default(), &mut out);
        crate::batch::archive::mark_selected(&out);
        out.into_iter()
            .map(|i| match i {
                Input::Member(m) => *m,
                _ => panic!("not a member"),
            })
            .collect()
    }

    fn files() -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("a.map", vec![1; 1000]),
            ("b.map", vec![2; 3000]),
            ("c.map", vec![3; 5000]),
        ]
    }

    #[test]
    fn stored_tar_members_are_slices_of_the_mapping() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tar");
        std::fs::write(&path, tar_of(&files())).unwrap();
        let members = members_of(&path, Kind::Tar);
        assert_eq!(members.len(), 3);
        for (m, (_, want)) in members.iter().zip(files()) {
            let Source::Mapped(mapped) = &m.source else {
                panic!("a tar is mapped")
            };
            let range = mapped.bytes.as_ptr_range();
            let mut buf = Vec::new();
            let got = m.load(&mut buf).unwrap();
            assert_eq!(got, want.as_slice());
            assert!(range.contains(&got.as_ptr()), "{} was copied", m.name);
            assert_eq!(buf.capacity(), 0, "{} went through the buffer", m.name);
        }
    }

    #[test]
    fn a_gzip_stream_changed_after_listing_is_the_members_bad_archive() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tar.gz");
        let whole = gzip(&tar_of(&files()));
        std::fs::write(&path, &whole).unwrap();
        let members = members_of(&path, Kind::TarGz);
        assert_eq!(members.len(), 3);
        // Cut after a.map's bytes: b.map cannot be read any more.
        let tar = tar_of(&files());
        std::fs::write(&path, gzip(&tar[..2048])).unwrap();
        let mut buf = Vec::new();
        let e = members[1].load(&mut buf).unwrap_err();
        let e = e
            .get_ref()
            .and_then(|e| e.downcast_ref::<ArchiveError>())
            .unwrap();
        assert_eq!(
            (e.kind, e.section, e.offset),
            ("bad_archive", "member", members[1].header_offset)
        );
        // The failed read closed the stream: the next member reads it again
        // from its start, and gets its own bytes.
        std::fs::write(&path, &whole).unwrap();
        assert_eq!(members[2].load(&mut buf).unwrap(), &files()[2].1[..]);
        assert_eq!(members[0].load(&mut buf).unwrap(), &files()[0].1[..]);
    }

    #[test]
    fn a_released_stream_member_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.tgz");
        std::fs::write(&path, gzip(&tar_of(&files()))).unwrap();
        let members = members_of(&path, Kind::TarGz);
        let Source::Stream(stream) = &members[0].source else {
            panic!("a .tgz is a stream")
        };
        // A worker asking for c.map first passes a.map and b.map, which
        // come before it in name order: they are kept for their workers.
        let mut buf = Vec::new();
        assert_eq!(members[2].load(&mut buf).unwrap(), &files()[2].1[..]);
        assert_eq!(stream.held_bytes(), 4000);
        // a.map is refused by its command: its bytes go.
        members[0].release();
        assert_eq!(stream.held_bytes(), 3000);
        assert_eq!(members[1].load(&mut buf).unwrap(), &files()[1].1[..]);
        assert_eq!(stream.held_bytes(), 0);
        // Released before the stream passes it: never kept.
        let members = members_of(&path, Kind::TarGz);
        let Source::Stream(stream) = &members[0].source else {
            panic!("a .tgz is a stream")
        };
        members[0].release();
        assert_eq!(members[2].load(&mut buf).unwrap(), &files()[2].1[..]);
        assert_eq!(stream.held_bytes(), 3000);
        assert_eq!(stream.restarts(), 0);
    }

    #[test]
    fn kinds_and_names() {
        assert_eq!(Kind::of_name(b"a/B.TAR.GZ"), Some(Kind::TarGz));
        assert_eq!(Kind::of_name(b"x.tgz"), Some(Kind::TarGz));
        assert_eq!(Kind::of_name(b"x.Zip"), Some(Kind::Zip));
        assert_eq!(Kind::of_name(b"x.tar"), Some(Kind::Tar));
        assert_eq!(Kind::of_name(b"x.map"), None);
        assert!(has_ext(b"maps/A.MAP", "map"));
        assert!(!has_ext(b"maps/.map", "map"));
        assert!(!has_ext(b"amap", "map"));
        assert!(unsafe_name("../x.map"));
        assert!(unsafe_name("a/../../x.map"));
        assert!(unsafe_name("/etc/x.map"));
        assert!(unsafe_name("C:x.map"));
        assert!(!unsafe_name("a/..b/x.map"));
    }
}
