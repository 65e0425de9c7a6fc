//! Listing a collection: files named, directory trees walked
//! ([`WalkOptions`]), archives listed for their members.

use super::{archive, Input};
use crate::limits::Limits;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
/// (see [`collect_inputs_opts`]). The PATH `-` is a tar stream on stdin
/// whose members are shown by their names alone ([`archive::list_stdin`]).
pub fn collect_inputs(paths: &[PathBuf], ext: &str) -> Vec<Input> {
    collect_inputs_opts(paths, ext, &WalkOptions::default()).expect("the default walk has no globs")
}

/// Lists the inputs named by `paths`: files as given, directories walked
/// as `walk` says for files whose extension is `ext` (case-insensitive).
/// Archives (`.zip`, `.tar`, `.tar.gz`, `.tgz`), named or found by the
/// walk, are listed for members named `*.ext` (see [`archive`]). Sorted by
/// path bytes (members by archive path, separator, member name). The error
/// is a glob that does not compile.
pub fn collect_inputs_opts(
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

/// Walks the directory `root` (see [`collect_inputs_opts`]).
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
