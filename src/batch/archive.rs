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

use super::Input;
use crate::limits::Limits;
use flate2::read::MultiGzDecoder;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, Write};
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
    /// `duplicate_name`, `name_too_long`, `encrypted`, `no_members`.
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
    "name_too_long",
    "encrypted",
    "no_members",
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
                        inflate_into(stored, self.size, buf).map_err(|e| {
                            err(
                                "inflate",
                                format!(
                                    "member does not inflate to its declared {} bytes: {e}",
                                    self.size
                                ),
                            )
                        })?;
                        let n = buf.len() as u64;
                        if n != self.size {
                            return Err(err(
                                "size_mismatch",
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
                    "crc_mismatch",
                    format!("member CRC-32 is {got:08x}, the archive says {want:08x}"),
                ));
            }
        }
        Ok(bytes)
    }
}

/// Inflates the raw deflate stream `stored` into `buf` (cleared first),
/// growing it as output is produced: by what it holds (at least 64 KiB),
/// never past `declared + 1` bytes, so the capacity stays within twice
/// what was produced plus 64 KiB whatever the archive declares. Output past
/// the declared size stops at one byte more (the caller sees the mismatch).
fn inflate_into(stored: &[u8], declared: u64, buf: &mut Vec<u8>) -> Result<(), String> {
    use flate2::{Decompress, FlushDecompress, Status};
    buf.clear();
    let cap = declared.saturating_add(1);
    let mut d = Decompress::new(false);
    loop {
        if buf.len() == buf.capacity() {
            let len = buf.len() as u64;
            if len >= cap {
                return Ok(());
            }
            let more = len.max(64 << 10).min(cap - len);
            buf.reserve_exact(more as usize);
        }
        let (in_before, out_before) = (d.total_in(), d.total_out());
        let status = d
            .decompress_vec(&stored[in_before as usize..], buf, FlushDecompress::Finish)
            .map_err(|e| e.to_string())?;
        if status == Status::StreamEnd {
            return Ok(());
        }
        let stalled = d.total_in() == in_before && d.total_out() == out_before;
        if stalled && buf.len() < buf.capacity() {
            return Err("the deflate stream ends early".into());
        }
    }
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
                "total_limit",
                cap,
                format!("{what} is longer than the {cap} byte limit (decompressed)"),
            ));
            return;
        }
        Ok((f, _)) => f,
        Err(e) => {
            out.push(bad(
                "bad_archive",
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

/// The record of an archive named as an input that gives none.
fn no_members(path: &Path, ext: &str) -> Input {
    Input::BadArchive {
        path: path.to_path_buf(),
        error: ArchiveError::new(
            "no_members",
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
            format!("not a readable zip archive: {}", printable(&e.to_string())),
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
        if meta.encrypted() {
            // ZipCrypto or AES (whose method is 99): never inflated, never
            // checked against a CRC it cannot match.
            l.problem.get_or_insert(ArchiveError::new(
                "encrypted",
                "member",
                header_offset,
                "member is encrypted (not supported)".into(),
            ));
        }
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
fn list_tar(bytes: &[u8], ext: &str) -> (Vec<Listed>, Vec<ArchiveError>) {
    let mut out = Vec::new();
    // Seeking over member bytes instead of reading them.
    let mut a = tar::Archive::new(io::Cursor::new(bytes));
    let (mut errors, fatal) = list_tar_entries(a.entries_with_seek(), ext, &mut out);
    errors.extend(fatal);
    (out, errors)
}

fn tar_error(offset: u64, e: io::Error) -> Option<ArchiveError> {
    Some(ArchiveError::new(
        "bad_archive",
        "archive",
        offset,
        format!("not a readable tar archive: {}", printable(&e.to_string())),
    ))
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

/// Longest member name taken from a GNU long-name entry or a PAX `path`
/// record; a longer one is refused (`name_too_long`) without being read.
pub const MAX_NAME_BYTES: u64 = 4096;

/// Largest PAX extended header read (its records describe one member; a
/// larger one is refused as `name_too_long` without being read).
pub const MAX_PAX_BYTES: u64 = 64 << 10;

/// Lists the entries of a tar: the members named `*.ext` into `out`, then
/// the members refused as a whole (`name_too_long`, records for the
/// archive) and the error that ended the listing, if any.
///
/// The entries are read raw: the GNU long-name and PAX headers, which the
/// `tar` crate would read whole whatever their size, are read here only
/// up to [`MAX_NAME_BYTES`] / [`MAX_PAX_BYTES`]; a GNU long link name (a
/// link's target) is never read.
fn list_tar_entries<R: Read>(
    entries: io::Result<tar::Entries<'_, R>>,
    ext: &str,
    out: &mut Vec<Listed>,
) -> (Vec<ArchiveError>, Option<ArchiveError>) {
    let bad = tar_error;
    let mut refusals = Vec::new();
    let entries = match entries {
        Ok(e) => e.raw(true),
        Err(e) => return (refusals, bad(0, e)),
    };
    let fatal = |offset, message: String| {
        Some(ArchiveError::new("bad_archive", "archive", offset, message))
    };
    let mut last_end = 0u64;
    // What the extension entries before the next member say about it.
    let mut long_name: Option<Vec<u8>> = None;
    let mut pax: Option<Vec<u8>> = None;
    let mut ext_start: Option<u64> = None;
    let mut refused: Option<ArchiveError> = None;
    for entry in entries {
        let mut entry = match entry {
            Ok(e) => e,
            Err(e) => return (refusals, bad(last_end, e)),
        };
        let header_offset = entry.raw_header_position();
        let data_offset = entry.raw_file_position();
        let size = entry.size();
        last_end = data_offset.saturating_add(size);
        let h = entry.header();
        let t = h.entry_type();
        let recognized = h.as_gnu().is_some() || h.as_ustar().is_some();
        if recognized && (t.is_gnu_longname() || t.is_gnu_longlink() || t.is_pax_local_extensions())
        {
            ext_start.get_or_insert(header_offset);
            if t.is_gnu_longlink() {
                // A link's target: never needed.
                continue;
            }
            let (what, cap, slot) = if t.is_pax_local_extensions() {
                ("PAX extended header", MAX_PAX_BYTES, &mut pax)
            } else {
                ("GNU long name", MAX_NAME_BYTES, &mut long_name)
            };
            if slot.is_some() {
                return (
                    refusals,
                    fatal(header_offset, format!("a second {what} for one member")),
                );
            }
            if size > cap {
                refused.get_or_insert(ArchiveError::new(
                    "name_too_long",
                    "member",
                    header_offset,
                    format!(
                        "a {what} of {size} bytes is over the {cap}-byte limit: the member it describes is not read"
                    ),
                ));
                *slot = Some(Vec::new());
                continue;
            }
            let mut v = Vec::with_capacity(size as usize);
            if let Err(e) = (&mut entry).take(cap).read_to_end(&mut v) {
                return (refusals, bad(header_offset, e));
            }
            *slot = Some(v);
            continue;
        }
        // A member: the extension entries before it describe it.
        let start = ext_start.take().unwrap_or(header_offset);
        let mut name = long_name.take().map(|mut n| {
            if n.last() == Some(&0) {
                n.pop();
            }
            n
        });
        let mut refusal = refused.take();
        if let Some(p) = pax.take() {
            for x in tar::PaxExtensions::new(&p).flatten() {
                match x.key_bytes() {
                    b"path" if name.is_none() && refusal.is_none() => {
                        let v = x.value_bytes();
                        if v.len() as u64 > MAX_NAME_BYTES {
                            refusal = Some(ArchiveError::new(
                                "name_too_long",
                                "member",
                                start,
                                format!(
                                    "a PAX path of {} bytes is over the {MAX_NAME_BYTES}-byte limit: the member is not read",
                                    v.len()
                                ),
                            ));
                        } else {
                            name = Some(v.to_vec());
                        }
                    }
                    b"size" => {
                        let pax_size = x.value().ok().and_then(|v| v.parse::<u64>().ok());
                        if pax_size.is_some_and(|p| p != size) {
                            // The next header is where the PAX size puts
                            // it, which the raw listing does not follow.
                            return (
                                refusals,
                                fatal(
                                    start,
                                    format!(
                                        "a PAX size ({}) that differs from the header's ({size}) is not supported",
                                        pax_size.unwrap_or_default()
                                    ),
                                ),
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
        if t.is_gnu_sparse() && h.as_gnu().is_some_and(|g| g.is_extended()) {
            return (
                refusals,
                fatal(
                    header_offset,
                    "a GNU sparse member with extension headers is not supported".into(),
                ),
            );
        }
        if let Some(r) = refusal {
            refusals.push(r);
            continue;
        }
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
        let raw = match name {
            Some(n) => n,
            None => entry.path_bytes().into_owned(),
        };
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
            raw,
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
    if let Some(r) = refused {
        refusals.push(r);
    } else if let Some(at) = ext_start {
        return (
            refusals,
            fatal(at, "an extension header with no member after it".into()),
        );
    }
    (refusals, None)
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
) -> Result<(Vec<Listed>, GzStream, Vec<ArchiveError>), ArchiveError> {
    let reader = open_gz(path)
        .map_err(|e| ArchiveError::new("bad_archive", "archive", 0, format!("cannot open: {e}")))?;
    let mut a = tar::Archive::new(Counting {
        inner: reader,
        n: 0,
    });
    let mut listed = Vec::new();
    let (mut errors, fatal) = list_tar_entries(a.entries(), ext, &mut listed);
    // Drain what the tar reader left so the length is the stream's.
    let mut c = a.into_inner();
    let drained = io::copy(&mut c, &mut io::sink());
    let len = c.n;
    errors.extend(fatal.or_else(|| {
        drained
            .err()
            .map(|e| ArchiveError::new("bad_archive", "archive", len, format!("gzip stream: {e}")))
    }));
    check_members(&mut listed, len, limits);
    let entries: Vec<StreamEntry> = listed
        .iter()
        .map(|l| StreamEntry {
            offset: l.data_offset,
            size: l.size,
            taken: false,
            readable: l.problem.is_none(),
            held: Held::No,
        })
        .collect();
    let left = entries.iter().filter(|e| e.readable).count();
    Ok((
        listed,
        GzStream {
            path: path.to_path_buf(),
            state: Mutex::new(StreamState {
                reader: None,
                opened: false,
                pos: 0,
                next: 0,
                entries,
                memory_bytes: 0,
                memory_budget: READ_AHEAD_BYTES,
                spool: None,
                spool_len: 0,
                left,
                ops: StreamOps {
                    listed_bytes: len,
                    ..StreamOps::default()
                },
                max_member: if ext.eq_ignore_ascii_case("map") {
                    limits.max_map_file_bytes
                } else {
                    limits.max_demo_file_bytes
                },
            }),
        },
        errors,
    ))
}

/// Tells each `.tar.gz` stream which of its members the batch will ask
/// for (after sorting, de-duplication and `--shard`): only those are ever
/// kept for a worker. Linear in the inputs and the streams' members.
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
    let mut seen = std::collections::HashMap::new();
    for (_, s) in streams() {
        seen.entry(Arc::as_ptr(s)).or_insert_with(|| {
            let mut st = s.lock();
            st.ops.entry_visits += st.entries.len() as u64;
            st.entries.iter_mut().for_each(|e| e.readable = false);
            s.clone()
        });
    }
    for (m, s) in streams() {
        let mut st = s.lock();
        st.ops.entry_visits += 1;
        let max = st.max_member;
        st.entries[m.stream_index].readable = m.problem.is_none() && m.size <= max;
    }
    for s in seen.values() {
        let mut st = s.lock();
        st.ops.entry_visits += st.entries.len() as u64;
        st.left = st.entries.iter().filter(|e| e.readable && !e.taken).count();
        let spooled = st.entries.iter().any(|e| matches!(e.held, Held::Spool(_)));
        if st.left == 0 && !spooled {
            st.close();
        }
    }
}

/// Bytes of passed members that a `.tar.gz` stream keeps in memory for the
/// workers that will ask for them; the passed members beyond it are
/// written to the stream's spool file (an unlinked temporary file), so
/// that the stream is decompressed once whatever the order of its members.
pub const READ_AHEAD_BYTES: u64 = 64 << 20;

/// What reading a `.tar.gz` stream cost, counted (see
/// [`GzStream::ops`]): the proof that it is linear in the archive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamOps {
    /// Decompressed bytes read to list the archive.
    pub listed_bytes: u64,
    /// Decompressed bytes read to hand members to workers.
    pub decompressed_bytes: u64,
    /// Member-table entries visited (marking the selected members,
    /// passing members on the way to another).
    pub entry_visits: u64,
    /// Times the stream was decompressed again from its start.
    pub restarts: u64,
    /// Bytes written to the spool file.
    pub spooled_bytes: u64,
}

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

/// Where the bytes of a member passed by the stream are kept until taken.
enum Held {
    No,
    Memory(Vec<u8>),
    /// At this offset of the spool file.
    Spool(u64),
}

struct StreamEntry {
    offset: u64,
    size: u64,
    taken: bool,
    readable: bool,
    held: Held,
}

struct StreamState {
    reader: Option<GzReader>,
    /// The stream was opened before (opening it again is a restart).
    opened: bool,
    /// Decompressed bytes consumed.
    pos: u64,
    /// The first entry the stream has not passed yet.
    next: usize,
    /// In stream order.
    entries: Vec<StreamEntry>,
    /// Bytes held in memory ([`Held::Memory`]).
    memory_bytes: u64,
    memory_budget: u64,
    spool: Option<File>,
    spool_len: u64,
    /// Readable entries not taken yet: at 0 the reader and the spool are
    /// closed (a collection of many archives keeps no file open).
    left: usize,
    ops: StreamOps,
    /// Members larger than this are never kept for another worker (the
    /// command refuses them before asking).
    max_member: u64,
}

impl StreamState {
    /// Closes the reader and the spool file and drops what was kept.
    fn close(&mut self) {
        self.reader = None;
        self.spool = None;
        self.spool_len = 0;
        self.memory_bytes = 0;
        for e in &mut self.entries {
            e.held = Held::No;
        }
    }

    /// Keeps entry `j`'s bytes, which are next in the stream: in memory
    /// within the budget, else in the spool file. A spool that cannot be
    /// written (disk full) is given up: the entry is then read again from
    /// the stream's start if asked for.
    fn keep(&mut self, j: usize) -> io::Result<()> {
        let size = self.entries[j].size;
        let r = self.reader.as_mut().expect("reader is open");
        if self.memory_bytes.saturating_add(size) <= self.memory_budget {
            let mut b = Vec::new();
            read_exact_into(r, size, &mut b)?;
            self.ops.decompressed_bytes += size;
            self.memory_bytes += size;
            self.entries[j].held = Held::Memory(b);
            return Ok(());
        }
        if self.spool.is_none() {
            self.spool = tempfile::tempfile().ok();
            self.spool_len = 0;
        }
        let at = self.spool_len;
        // Reads from the spool moved its position.
        if let Some(f) = &mut self.spool {
            if f.seek(io::SeekFrom::Start(at)).is_err() {
                self.spool = None;
            }
        }
        let mut written = 0u64;
        let mut chunk = vec![0u8; (1 << 20).min(size as usize)];
        while written < size {
            let n = chunk.len().min((size - written) as usize);
            r.read_exact(&mut chunk[..n])?;
            written += n as u64;
            self.ops.decompressed_bytes += n as u64;
            if let Some(f) = &mut self.spool {
                if f.write_all(&chunk[..n]).is_err() {
                    self.spool = None;
                }
            }
        }
        if self.spool.is_some() {
            self.spool_len += size;
            self.ops.spooled_bytes += size;
            self.entries[j].held = Held::Spool(at);
        } else {
            // Spooled entries went with the file.
            for e in &mut self.entries {
                if matches!(e.held, Held::Spool(_)) {
                    e.held = Held::No;
                }
            }
        }
        Ok(())
    }
}

impl GzStream {
    fn lock(&self) -> std::sync::MutexGuard<'_, StreamState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Times the stream was read again from its start (a member was asked
    /// for after the stream had passed it without keeping it: after a
    /// failed read, or read a second time).
    pub fn restarts(&self) -> u64 {
        self.lock().ops.restarts
    }

    /// What reading the stream has cost so far.
    pub fn ops(&self) -> StreamOps {
        self.lock().ops
    }

    /// Sets the bytes of passed members kept in memory (default
    /// [`READ_AHEAD_BYTES`]; the rest goes to the spool file). For tests.
    #[doc(hidden)]
    pub fn set_memory_budget(&self, bytes: u64) {
        self.lock().memory_budget = bytes;
    }

    /// Reads member `m` into `buf`.
    ///
    /// Workers take members in name order, which need not be stream order.
    /// The stream is read forward only: the members passed on the way to
    /// `m` that a worker will ask for are kept (in memory up to
    /// [`READ_AHEAD_BYTES`], beyond that in the spool file) and handed out
    /// from there, so every member is decompressed once.
    ///
    /// A read that fails (the file changed or was removed since it was
    /// listed) is a `bad_archive` error for `m`, and the stream is closed so
    /// the next member reads it again from the start.
    fn take(&self, m: &Member, buf: &mut Vec<u8>) -> io::Result<()> {
        let mut guard = self.lock();
        let st = &mut *guard;
        let i = m.stream_index;
        if !st.entries[i].taken {
            st.entries[i].taken = true;
            if st.entries[i].readable {
                st.left = st.left.saturating_sub(1);
            }
        }
        let got = match std::mem::replace(&mut st.entries[i].held, Held::No) {
            Held::Memory(b) => {
                st.memory_bytes -= b.len() as u64;
                *buf = b;
                Ok(())
            }
            Held::Spool(at) => {
                // Kept there: a member read twice (`demos export` of a
                // split demo) is read from the spool again.
                st.entries[i].held = Held::Spool(at);
                let f = st.spool.as_mut().expect("spool is open");
                buf.clear();
                f.seek(io::SeekFrom::Start(at))
                    .and_then(|_| read_exact_into(f, st.entries[i].size, buf))
            }
            Held::No => self.read_to(st, i, buf),
        };
        if got.is_err() {
            st.reader = None;
        }
        if st.left == 0 {
            st.close();
        }
        got.map_err(|e| {
            io::Error::other(ArchiveError::new(
                "bad_archive",
                "member",
                m.header_offset,
                format!("reading the gzip stream: {e}"),
            ))
        })
    }

    /// Reads the stream up to entry `i` (keeping the members on the way
    /// that workers will ask for) and `i`'s bytes into `buf`.
    fn read_to(&self, st: &mut StreamState, i: usize, buf: &mut Vec<u8>) -> io::Result<()> {
        let target = st.entries[i].offset;
        if st.reader.is_none() || st.pos > target {
            if st.opened {
                st.ops.restarts += 1;
            }
            st.reader = Some(open_gz(&self.path)?);
            st.opened = true;
            st.pos = 0;
            st.next = 0;
        }
        while st.next < st.entries.len() && st.entries[st.next].offset < target {
            let j = st.next;
            st.next += 1;
            st.ops.entry_visits += 1;
            let e = &st.entries[j];
            if e.taken || !e.readable || !matches!(e.held, Held::No) || e.offset < st.pos {
                continue;
            }
            let off = e.offset;
            let r = st.reader.as_mut().expect("reader is open");
            skip(r, off - st.pos)?;
            st.ops.decompressed_bytes += off - st.pos;
            st.pos = off;
            st.keep(j)?;
            st.pos = off + st.entries[j].size;
        }
        let r = st.reader.as_mut().expect("reader is open");
        skip(r, target - st.pos)?;
        st.ops.decompressed_bytes += target - st.pos;
        buf.clear();
        read_exact_into(r, st.entries[i].size, buf)?;
        st.ops.decompressed_bytes += st.entries[i].size;
        st.pos = target + st.entries[i].size;
        st.next = st.next.max(i + 1);
        Ok(())
    }

    /// Bytes of members read from the stream and kept in memory for a
    /// worker that has not taken them yet.
    pub fn held_bytes(&self) -> u64 {
        self.lock().memory_bytes
    }

    /// Bytes of members written to the spool file so far.
    pub fn spooled_bytes(&self) -> u64 {
        self.lock().ops.spooled_bytes
    }

    /// Member `m` will not be taken (the command refused it, e.g. as too
    /// large): its bytes are not kept for it, and dropped if they were.
    fn release(&self, m: &Member) {
        let mut st = self.lock();
        let e = &mut st.entries[m.stream_index];
        let was_left = !e.taken && e.readable;
        e.taken = true;
        let held = std::mem::replace(&mut e.held, Held::No);
        if let Held::Memory(b) = held {
            st.memory_bytes -= b.len() as u64;
        }
        if was_left {
            st.left = st.left.saturating_sub(1);
            if st.left == 0 {
                st.close();
            }
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

/// Reads `n` bytes into `buf`. `n` is a member size checked against the
/// stream's length when it was listed.
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
