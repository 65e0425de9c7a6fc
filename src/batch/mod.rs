//! Batch processing of file collections.
//!
//! A batch is a sorted list of [`Input`]s (files named on the command line,
//! files found by walking directory trees, or the embedded default dataset).
//! [`run_ordered`] hands them to rayon workers in order; each worker keeps its
//! own state (reused read buffer, inflater, statistics) and sends one result
//! per input to the calling thread, which re-orders them and passes them to a
//! sink in input order. Workers pull inputs in order, so the re-order buffer
//! holds at most about one result per worker: memory stays flat however large
//! the collection, and output is identical for any number of jobs. With
//! one job there is no pool: the calling thread processes the inputs itself.
//!
//! Statistics are per-worker values merged by addition at the end (ripgrep's
//! `Stats` pattern): no lock on the hot path.

pub mod archive;
pub mod demos;
pub mod embedded;
pub mod export;
pub mod export_bench;
pub mod maps;
pub mod output;
pub mod parquet;
pub mod record;
pub mod summary;
pub mod tables;

use crate::limits::Limits;
use rayon::iter::{ParallelBridge, ParallelIterator};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

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
    pub fn raw_path(&self) -> Vec<u8> {
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

/// How directory inputs are walked (the command line's `--glob`,
/// `--exclude`, `--max-depth`, `--no-follow`, `--hidden`).
///
/// The default walks every directory tree to any depth, following
/// symbolic links (a link loop is reported as an unlistable entry), and
/// skips hidden entries (names starting with `.`) below the named
/// directories. `.gitignore` and `.ignore` files are not read. Files named
/// on the command line are always taken, whatever the options.
///
/// Whatever the options, the walk ends: it never enters a directory on one
/// of the kernel's filesystems (`/proc`, `/sys`, `/dev`, ...: an error
/// record of kind `special_filesystem` instead, see [`SpecialFilesystem`]),
/// a link back to a directory being walked is a loop (an unlistable entry:
/// directories are compared by device and inode), and a directory that
/// links lead to is walked once, through the first of them in walk order
/// (entries are walked sorted by name), so links cannot multiply the work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkOptions {
    /// Globs in ripgrep's `--glob` syntax, matched against paths relative
    /// to the walked directory (a glob without `/` matches the name at any
    /// depth). A glob starting with `!` excludes what it matches, a
    /// directory with everything below it; when at least one glob does not
    /// start with `!`, only files matching one of those are taken. A later
    /// glob wins over an earlier one.
    pub globs: Vec<String>,
    /// Descend at most this many directory levels below a named directory
    /// (1: only the files directly in it). `None`: no limit.
    pub max_depth: Option<usize>,
    /// Follow symbolic links to directories and files.
    pub follow_links: bool,
    /// Also walk hidden files and directories.
    pub hidden: bool,
    /// The limits archive listing applies ([`Limits::max_archive_ratio`],
    /// [`Limits::max_archive_total_bytes`]); the other fields are not used
    /// by the walk.
    pub limits: Limits,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            globs: Vec::new(),
            max_depth: None,
            follow_links: true,
            hidden: false,
            limits: Limits::default(),
        }
    }
}

impl WalkOptions {
    /// The compiled globs for a walk of `root`. The error names the glob.
    fn overrides(&self, root: &Path) -> Result<ignore::overrides::Override, String> {
        let mut b = ignore::overrides::OverrideBuilder::new(root);
        for g in &self.globs {
            b.add(g).map_err(|e| format!("--glob {g:?}: {e}"))?;
        }
        b.build().map_err(|e| format!("--glob: {e}"))
    }

    /// Checks that every glob compiles (before any walk): the error names
    /// the glob.
    pub fn check(&self) -> Result<(), String> {
        self.overrides(Path::new(".")).map(drop)
    }
}

/// The path an error of the directory walk is about, if it names one.
fn walk_error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        ignore::Error::Partial(errs) => errs.iter().find_map(walk_error_path),
        _ => None,
    }
}

/// The message of an error of the directory walk without the path (the
/// record carries the path).
fn walk_error_message(err: &ignore::Error) -> String {
    match err {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => walk_error_message(err),
        other => other.to_string(),
    }
}

/// Lists the inputs named by `paths` with the default [`WalkOptions`]
/// (see [`collect_inputs_with`]). The PATH `-` is a tar stream on stdin
/// whose members are shown by their names alone ([`archive::list_stdin`]).
pub fn collect_inputs(paths: &[PathBuf], ext: &str) -> Vec<Input> {
    collect_inputs_with(paths, ext, &WalkOptions::default()).expect("the default walk has no globs")
}

/// Lists the inputs named by `paths`: files as given, directories walked
/// as `walk` says for files whose extension is `ext` (case-insensitive).
/// Archives (`.zip`, `.tar`, `.tar.gz`, `.tgz`), named or found by the
/// walk, are listed for members named `*.ext` (see [`archive`]). Sorted by
/// path bytes (members by archive path, separator, member name). The error
/// is a glob that does not compile.
pub fn collect_inputs_with(
    paths: &[PathBuf],
    ext: &str,
    walk: &WalkOptions,
) -> Result<Vec<Input>, String> {
    walk.check()?;
    let mut out = Vec::new();
    // `ARCHIVE!/MEMBER` paths (as `--list` prints them), by archive: each
    // archive is listed once however many of its members are named.
    let mut by_archive: BTreeMap<PathBuf, (archive::Kind, Vec<&PathBuf>)> = BTreeMap::new();
    for p in paths {
        if p.as_os_str() == archive::STDIN {
            archive::list_stdin(ext, &walk.limits, &mut out);
            continue;
        }
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => match kernel_filesystem(p, &m) {
                Some(error) => out.push(Input::Special {
                    path: p.clone(),
                    error,
                }),
                None => walk_dir(p, ext, walk, &mut out)?,
            },
            Ok(m) => match archive::Kind::of_path(p) {
                Some(kind) if m.is_file() && !has_ext(p, ext) => {
                    archive::list_named(p, kind, ext, &walk.limits, &mut out)
                }
                _ => out.push(Input::File {
                    path: p.clone(),
                    size: if m.is_file() { m.len() } else { 0 },
                }),
            },
            Err(err) => match archive::split_member_path(p) {
                Some((a, kind)) => by_archive.entry(a).or_insert((kind, Vec::new())).1.push(p),
                None => out.push(Input::Unlistable {
                    path: p.clone(),
                    message: err.to_string(),
                }),
            },
        }
    }
    for (a, (kind, wanted)) in by_archive {
        let mut listed = Vec::new();
        archive::list(&a, kind, ext, &walk.limits, &mut listed);
        let wanted: std::collections::HashSet<&OsStr> =
            wanted.iter().map(|p| p.as_os_str()).collect();
        let mut found = std::collections::HashSet::new();
        for i in listed {
            match &i {
                Input::Member(m) if wanted.contains(m.combined.as_os_str()) => {
                    found.insert(m.combined.clone().into_os_string());
                    out.push(i);
                }
                Input::Member(_) => {}
                _ => out.push(i),
            }
        }
        for w in wanted {
            if !found.contains(w) {
                out.push(Input::Unlistable {
                    path: PathBuf::from(w),
                    message: format!("no member named so in {}", a.display()),
                });
            }
        }
    }
    // Members that share a name (in one archive) stay in archive order, and
    // an archive named twice gives each member twice, side by side, for
    // `dedup`.
    let offset = |i: &Input| match i {
        Input::Member(m) => m.header_offset,
        _ => 0,
    };
    out.sort_by(|a, b| {
        a.sort_key()
            .cmp(b.sort_key())
            .then_with(|| offset(a).cmp(&offset(b)))
    });
    out.dedup();
    // A file whose path is an archive member's record path (`x.zip!/y.map`
    // as a real file beside `x.zip`): two records would share a path.
    if let Some(w) = out.windows(2).find(|w| {
        w[0].sort_key() == w[1].sort_key()
            && matches!(w[0], Input::Member(_)) != matches!(w[1], Input::Member(_))
    }) {
        return Err(format!(
            "{}: names both a file and an archive member (their records would share this path); rename the file or the archive",
            w[0].display_path()
        ));
    }
    archive::mark_selected(&out);
    Ok(out)
}

/// Walks the directory `root` (see [`collect_inputs_with`]).
fn walk_dir(
    root: &Path,
    ext: &str,
    walk: &WalkOptions,
    out: &mut Vec<Input>,
) -> Result<(), String> {
    let hidden = walk.hidden;
    let dirs = Arc::new(Mutex::new(WalkedDirs::default()));
    let in_filter = Arc::clone(&dirs);
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(walk.follow_links)
        .max_depth(walk.max_depth)
        .overrides(walk.overrides(root)?)
        // Sorted, so that which of two links to one directory is walked
        // does not depend on the order the file system lists them in.
        .sort_by_file_name(|a, b| a.cmp(b))
        // Hidden entries are filtered here rather than by the walker's own
        // option, which a matching `--glob` would override.
        .filter_entry(move |e| {
            if !(hidden || e.depth() == 0 || !e.file_name().as_encoded_bytes().starts_with(b".")) {
                return false;
            }
            !e.file_type().is_some_and(|t| t.is_dir())
                || in_filter
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .enter(e.path(), e.path_is_symlink())
        })
        .build();
    for entry in walker {
        match entry {
            // Files, and anything else that is not a directory (a FIFO, a
            // socket, a device): [`load`] reports those as
            // `not_regular_file` instead of dropping them.
            Ok(e) if !e.file_type().is_some_and(|t| t.is_dir()) => {
                let matches = has_ext(e.path(), ext);
                let is_file = e.file_type().is_some_and(|t| t.is_file());
                let archive = archive::Kind::of_path(e.path());
                if let (false, Some(kind)) = (matches, archive) {
                    if is_file {
                        archive::list(e.path(), kind, ext, &walk.limits, out);
                    }
                } else if matches {
                    let size = e
                        .metadata()
                        .ok()
                        .filter(|m| m.is_file())
                        .map_or(0, |m| m.len());
                    out.push(Input::File {
                        path: e.into_path(),
                        size,
                    });
                }
            }
            Ok(_) => {}
            Err(err) => {
                let path = walk_error_path(&err).unwrap_or(root);
                let message = if is_dangling_link(path) {
                    // A link to nothing named as no input (`notes.txt`) is
                    // left out like a file of that name; one that may be
                    // an input (`x.map`, an archive, a folder: no
                    // extension) is reported.
                    if path.extension().is_some()
                        && !has_ext(path, ext)
                        && archive::Kind::of_path(path).is_none()
                    {
                        continue;
                    }
                    "symbolic link to a missing target".to_string()
                } else {
                    walk_error_message(&err)
                };
                out.push(Input::Unlistable {
                    path: path.to_path_buf(),
                    message,
                });
            }
        }
    }
    let mut dirs = dirs.lock().unwrap_or_else(|p| p.into_inner());
    out.append(&mut dirs.special);
    Ok(())
}

/// What the walk of one named directory remembers of the directories it
/// met (see [`WalkOptions`]).
#[derive(Default)]
struct WalkedDirs {
    /// Device and inode of every directory entered through a link.
    linked: std::collections::HashSet<(u64, u64)>,
    /// The directories not entered for their filesystem.
    special: Vec<Input>,
}

impl WalkedDirs {
    /// Whether the walk enters the directory at `path` (reached through a
    /// symbolic link when `via_link`): not if it lies on a kernel
    /// filesystem (remembered as an [`Input::Special`]) nor if a link led
    /// to it before. A directory whose metadata cannot be read is entered
    /// (the walk reports why it cannot be listed).
    #[cfg(unix)]
    fn enter(&mut self, path: &Path, via_link: bool) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Ok(meta) = std::fs::metadata(path) else {
            return true;
        };
        if let Some(error) = kernel_filesystem(path, &meta) {
            self.special.push(Input::Special {
                path: path.to_path_buf(),
                error,
            });
            return false;
        }
        !via_link || self.linked.insert((meta.dev(), meta.ino()))
    }

    #[cfg(not(unix))]
    fn enter(&mut self, _path: &Path, _via_link: bool) -> bool {
        true
    }
}

/// Why the walk does not enter a directory: it lies on one of the
/// kernel's filesystems (`proc`, `sysfs`, the one at `/dev`, ...), which
/// hold no collection of files and whose trees have no end through their
/// links (every `/proc/PID/root` leads back to `/`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "not walked: a directory on the kernel's {filesystem} filesystem, not a collection of files"
)]
pub struct SpecialFilesystem {
    /// The filesystem's type (`proc`, `sysfs`, `devpts`, ...) or where it
    /// is mounted (`/dev`, whose `devtmpfs` says it is a `tmpfs`).
    pub filesystem: &'static str,
}

/// Linux filesystem types (`statfs` magic numbers, from `linux/magic.h`)
/// that the walk does not enter.
#[cfg(target_os = "linux")]
const KERNEL_FILESYSTEMS: &[(u32, &str)] = &[
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x1cd1, "devpts"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x6165_676c, "pstore"),
    (0xde5e_81e4, "efivarfs"),
    (0x4249_4e4d, "binfmt_misc"),
    (0xcafe_4a11, "bpf"),
];

/// The kernel filesystem the directory `dir` (with metadata `meta`, links
/// followed) lies on, if any: by type on Linux ([`KERNEL_FILESYSTEMS`],
/// wherever it is mounted), and on any Unix by device: the filesystem
/// mounted at `/proc`, `/sys` or `/dev` where that is a mount of its own
/// (mounts below them, such as `/dev/shm`, are walked).
#[cfg(unix)]
fn kernel_filesystem(dir: &Path, meta: &std::fs::Metadata) -> Option<SpecialFilesystem> {
    use std::os::unix::fs::MetadataExt;
    #[cfg(target_os = "linux")]
    if let Ok(st) = rustix::fs::statfs(dir) {
        // `f_type` is a signed or unsigned word by architecture; every
        // magic number fits in 32 bits.
        let ty = st.f_type as u32;
        if let Some(&(_, filesystem)) = KERNEL_FILESYSTEMS.iter().find(|(m, _)| *m == ty) {
            return Some(SpecialFilesystem { filesystem });
        }
    }
    static MOUNTS: std::sync::OnceLock<Vec<(u64, &'static str)>> = std::sync::OnceLock::new();
    let mounts = MOUNTS.get_or_init(|| {
        let Ok(root) = std::fs::metadata("/") else {
            return Vec::new();
        };
        ["/proc", "/sys", "/dev"]
            .into_iter()
            .filter_map(|p| {
                let m = std::fs::metadata(p).ok()?;
                (m.dev() != root.dev()).then_some((m.dev(), p))
            })
            .collect()
    });
    let filesystem = mounts.iter().find(|(d, _)| *d == meta.dev())?.1;
    Some(SpecialFilesystem { filesystem })
}

#[cfg(not(unix))]
fn kernel_filesystem(_dir: &Path, _meta: &std::fs::Metadata) -> Option<SpecialFilesystem> {
    None
}

/// Whether `path` is a symbolic link whose target does not exist.
fn is_dangling_link(path: &Path) -> bool {
    path.symlink_metadata().is_ok_and(|m| m.is_symlink())
        && std::fs::metadata(path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
}

fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension().is_some_and(|x| x.eq_ignore_ascii_case(ext))
}

/// How file bytes are obtained.
///
/// The default, [`MmapMode::Never`], reads every file into a reused buffer:
/// another process changing a file while teebatch reads it can only give
/// teebatch wrong bytes (reported as a bad file), never end the process.
/// Mapping is opt-in and unsafe for files that can change (see
/// [`load`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MmapMode {
    /// Map files of at least [`MMAP_AUTO_THRESHOLD`] bytes whose size is as
    /// listed; read the others. Unsafe for files that can change: see
    /// [`MmapMode::Always`].
    #[value(help = "Map files of 16 MiB or more (unsafe if files can change), read the others")]
    Auto,
    /// Map every non-empty file. Unsafe for files that can change: a file
    /// truncated by another process while mapped raises SIGBUS on access
    /// (the process dies), and a file modified while mapped changes under
    /// the parser.
    #[value(help = "Map every file (unsafe if files can change)")]
    Always,
    /// Read every file (the default; safe when files may change under us).
    #[default]
    #[value(help = "Read every file (the default; safe when files may change)")]
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

/// Runs `process` over `inputs` on `jobs` threads (capped by
/// [`crate::limits::Limits::cap_jobs`]) and feeds the results to
/// `sink` in input order. Returns every worker state (merge their statistics).
///
/// `process(state, index, input)` is called once per input. `sink` may stop
/// the batch early by returning `ControlFlow::Break` (e.g. stdout closed).
/// With one job (after the cap) everything runs on the calling thread, one
/// input after the other (see `run_in_order`).
pub fn run_ordered<S, R, I, P, K>(
    inputs: &[Input],
    jobs: usize,
    init: I,
    process: P,
    mut sink: K,
) -> Vec<S>
where
    S: Send,
    R: Send,
    I: Fn() -> S + Sync + Send,
    P: Fn(&mut S, usize, &Input) -> R + Sync + Send,
    K: FnMut(usize, R) -> ControlFlow<()>,
{
    let jobs = crate::limits::Limits::cap_jobs(Some(jobs.max(1)), inputs.len());
    if jobs == 1 {
        return run_in_order(inputs, init, process, sink);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("teebatch-worker-{i}"))
        .build()
        .expect("thread pool");
    let cancel = AtomicBool::new(false);
    let (tx, rx) = mpsc::sync_channel::<(usize, R)>(jobs * 4);
    let (cancel, process, init, pool) = (&cancel, &process, &init, &pool);
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            pool.install(|| {
                inputs
                    .iter()
                    .enumerate()
                    .par_bridge()
                    .fold(
                        || (init(), tx.clone()),
                        move |(mut state, tx), (i, input)| {
                            if !cancel.load(Ordering::Relaxed) {
                                let r = process(&mut state, i, input);
                                if tx.send((i, r)).is_err() {
                                    cancel.store(true, Ordering::Relaxed);
                                }
                            }
                            (state, tx)
                        },
                    )
                    .map(|(state, _tx)| state)
                    .collect::<Vec<S>>()
            })
            // `tx` is dropped here, which ends the receiving loop below.
        });
        let mut pending: BTreeMap<usize, R> = BTreeMap::new();
        let mut next = 0;
        let mut stopped = false;
        for (i, r) in rx.iter() {
            if stopped {
                continue;
            }
            pending.insert(i, r);
            while let Some(r) = pending.remove(&next) {
                if sink(next, r).is_break() {
                    stopped = true;
                    cancel.store(true, Ordering::Relaxed);
                    break;
                }
                next += 1;
            }
        }
        worker.join().expect("worker thread panicked")
    })
}

/// [`run_ordered`] with one worker: the calling thread processes the inputs
/// in order and hands each result to `sink` as soon as it is made. No thread,
/// pool or channel is created (with `--jobs 1` they would only add thread
/// start-up, a second malloc arena and a hand-over per input). `process`
/// runs on the calling thread, outside any rayon pool.
fn run_in_order<S, R, I, P, K>(inputs: &[Input], init: I, process: P, mut sink: K) -> Vec<S>
where
    I: Fn() -> S,
    P: Fn(&mut S, usize, &Input) -> R,
    K: FnMut(usize, R) -> ControlFlow<()>,
{
    let mut state = init();
    for (i, input) in inputs.iter().enumerate() {
        let r = process(&mut state, i, input);
        if sink(i, r).is_break() {
            break;
        }
    }
    vec![state]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn inputs(n: usize) -> Vec<Input> {
        (0..n)
            .map(|i| Input::Unlistable {
                path: PathBuf::from(format!("in{i:02}")),
                message: String::new(),
            })
            .collect()
    }

    /// Every input reaches the sink once, in order, for any number of jobs;
    /// a sink that breaks stops the batch (later inputs are not passed on).
    #[test]
    fn results_reach_the_sink_in_input_order() {
        let inputs = inputs(23);
        for jobs in [1, 2, 5] {
            let seen_by_process = AtomicUsize::new(0);
            let mut sunk = Vec::new();
            let states = run_ordered(
                &inputs,
                jobs,
                || 0usize,
                |count, i, input| {
                    *count += 1;
                    seen_by_process.fetch_add(1, Ordering::Relaxed);
                    (i, input.display_path())
                },
                |i, r| {
                    assert_eq!(i, r.0);
                    sunk.push(r.1);
                    ControlFlow::Continue(())
                },
            );
            let expected: Vec<String> = (0..23).map(|i| format!("in{i:02}")).collect();
            assert_eq!(sunk, expected, "jobs {jobs}");
            assert_eq!(states.iter().sum::<usize>(), 23, "jobs {jobs}");
            assert_eq!(seen_by_process.load(Ordering::Relaxed), 23);

            let mut sunk = Vec::new();
            run_ordered(
                &inputs,
                jobs,
                || (),
                |_, i, _| i,
                |i, r| {
                    assert_eq!(i, r);
                    sunk.push(r);
                    if i == 6 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            );
            assert_eq!(sunk, (0..=6).collect::<Vec<_>>(), "jobs {jobs}");
        }
    }

    /// With one job the inputs are processed on the calling thread, by one
    /// worker state: no thread is started.
    #[test]
    fn one_job_runs_on_the_calling_thread() {
        let inputs = inputs(4);
        let caller = std::thread::current().id();
        let inits = AtomicUsize::new(0);
        let states = run_ordered(
            &inputs,
            1,
            || {
                inits.fetch_add(1, Ordering::Relaxed);
                Vec::new()
            },
            |threads: &mut Vec<std::thread::ThreadId>, _, _| {
                threads.push(std::thread::current().id());
            },
            |_, ()| ControlFlow::Continue(()),
        );
        assert_eq!(inits.load(Ordering::Relaxed), 1);
        assert_eq!(states, vec![vec![caller; 4]]);
    }
}
