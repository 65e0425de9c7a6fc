//! Getting the bytes of one input: read into a reused buffer or mapped
//! ([`MmapMode`]), with the checks against files that change meanwhile.

use super::Input;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// How file bytes are obtained.
///
/// The default, [`MmapMode::Never`], reads every file into a reused buffer:
/// another process changing a file while teebatch reads it can only give
/// teebatch wrong bytes (reported as a bad file), never end the process.
/// Mapping is opt-in and unsafe for files that can change (see
/// [`load`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum MmapMode {
    /// Map files of at least [`MMAP_AUTO_THRESHOLD`] bytes whose size is as
    /// listed; read the others. Unsafe for files that can change: see
    /// [`MmapMode::Always`].
    #[cfg_attr(
        feature = "cli",
        value(help = "Map files of 16 MiB or more (unsafe if files can change), read the others")
    )]
    Auto,
    /// Map every non-empty file. Unsafe for files that can change: a file
    /// truncated by another process while mapped raises SIGBUS on access
    /// (the process dies), and a file modified while mapped changes under
    /// the parser.
    #[cfg_attr(
        feature = "cli",
        value(help = "Map every file (unsafe if files can change)")
    )]
    Always,
    /// Read every file (the default; safe when files may change under us).
    #[default]
    #[cfg_attr(
        feature = "cli",
        value(help = "Read every file (the default; safe when files may change)")
    )]
    Never,
}

/// Why a path named as an input is not read: it is not a regular file (a
/// FIFO, a socket, a device, a directory given where a file is expected).
/// Opening a FIFO would block until a writer appears.
#[derive(Debug, thiserror::Error)]
#[error("not a regular file")]
pub struct NotRegularFile;

/// Checks that `path` is a regular file (following symlinks) without
/// opening it. There is a window between this check and the `open` that
/// follows: a file replaced by a FIFO in between would still block the
/// `open`; teebatch does not guard against that race.
pub fn check_regular_file(path: &Path) -> io::Result<std::fs::Metadata> {
    let m = std::fs::metadata(path)?;
    if m.is_file() {
        Ok(m)
    } else {
        Err(io::Error::other(NotRegularFile))
    }
}

/// Reads a whole file named on the command line: a regular file is
/// required (checked before opening, see [`check_regular_file`]), and any
/// error names the path.
pub fn read_named_file(path: &Path) -> io::Result<Vec<u8>> {
    let with_path = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(with_path(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            )))
        }
        Ok(m) if !m.is_file() => return Err(with_path(io::Error::other(NotRegularFile))),
        Ok(_) => {}
        Err(e) => return Err(with_path(e)),
    }
    std::fs::read(path).map_err(with_path)
}

/// Files at least this large are memory-mapped in [`MmapMode::Auto`].
///
/// With a warm page cache, files of about 1 MB and more cost 3–7% less CPU
/// time mapped than read, but with the guest's cache evicted maps of 1–1.6
/// MB took 5–12% longer mapped; a 30 MB demo was faster mapped either way.
/// The README's `--mmap` section has the figures per size (`cargo bench
/// --bench mmap`).
pub const MMAP_AUTO_THRESHOLD: u64 = 16 << 20;

/// The bytes of one input for the duration of its processing.
pub enum Loaded<'b> {
    Mapped(memmap2::Mmap),
    Borrowed(&'b [u8]),
}

impl std::ops::Deref for Loaded<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Loaded::Mapped(m) => m,
            Loaded::Borrowed(b) => b,
        }
    }
}

/// Loads `input` per `mode`, reading into `buf` (reused across files) when
/// not mapping.
///
/// Files that change between listing and loading are handled without
/// crashing and without unbounded memory:
///
/// - A file whose size differs from its listed size is being written to:
///   [`MmapMode::Auto`] reads it instead of mapping it.
/// - After mapping, the length is checked again; a file truncated between
///   opening and mapping is read instead.
/// - Reading stops at twice the listed size; a file that grew beyond that
///   since it was listed is an error (so the caller's check of the listed
///   size against its limit also bounds what is read). A file that shrank
///   yields its shorter contents, which then fail to parse as a short file.
///
/// - A path that is not a regular file (a FIFO, a socket, a device) is not
///   opened: the error is [`NotRegularFile`] (see [`check_regular_file`]).
///
/// What no check can prevent when mapping (`auto`, `always`): a mapped file
/// truncated by another process *while it is being processed* makes reads
/// past its new end raise SIGBUS, which ends the process. That is why
/// [`MmapMode::Never`], the default, reads.
pub fn load<'b>(input: &'b Input, mode: MmapMode, buf: &'b mut Vec<u8>) -> io::Result<Loaded<'b>> {
    match input {
        Input::Embedded { bytes, .. } => Ok(Loaded::Borrowed(bytes)),
        Input::Unlistable { message, .. } => Err(io::Error::other(message.clone())),
        Input::BadArchive { error, .. } => Err(io::Error::other(error.clone())),
        Input::Special { error, .. } => Err(io::Error::other(error.clone())),
        Input::Member(m) => m.load(buf).map(Loaded::Borrowed),
        Input::File { path, size: listed } => {
            check_regular_file(path)?;
            let mut file = File::open(path)?;
            let len = file.metadata()?.len();
            let map = match mode {
                MmapMode::Always => len > 0,
                MmapMode::Auto => len >= MMAP_AUTO_THRESHOLD && len == *listed,
                MmapMode::Never => false,
            };
            if map {
                // SAFETY: opt-in only (`--mmap auto|always`, documented as
                // unsafe for files that can change). `Mmap::map` is a
                // read-only MAP_SHARED mapping: the slice aliases the page
                // cache, not a private copy. Two hazards remain that no
                // check here can exclude: another process truncating the
                // file while it is mapped makes reads past the new end raise
                // SIGBUS (the process dies), and another process writing to
                // it changes bytes under a `&[u8]` that Rust assumes
                // immutable (the parser may see inconsistent bytes; every
                // read stays within the mapping's fixed length). The length
                // is checked again below to catch a truncation between
                // `open` and the mapping.
                let m = unsafe { memmap2::Mmap::map(&file)? };
                if file.metadata()?.len() == m.len() as u64 {
                    return Ok(Loaded::Mapped(m));
                }
                // Truncated (or grown) between the size check and the
                // mapping: read what is there instead.
            }
            let limit = (*listed).max(1).saturating_mul(2);
            buf.clear();
            buf.reserve(len.min(limit) as usize);
            (&mut file).take(limit.saturating_add(1)).read_to_end(buf)?;
            if buf.len() as u64 > limit {
                buf.clear();
                return Err(io::Error::other(format!(
                    "file grew from {listed} bytes to more than {limit} since it was listed"
                )));
            }
            Ok(Loaded::Borrowed(buf))
        }
    }
}
