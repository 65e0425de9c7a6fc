//! The files a run writes: checked against its inputs and against each
//! other before any input is read, written under a temporary name beside
//! the target and renamed into place only when complete.
//!
//! - **No input is overwritten.** [`check_outputs`] refuses an output that
//!   is, or is the same file as (same device and inode: through symbolic
//!   or hard links, or another spelling of the path), one of the inputs,
//!   one of the lists of inputs, or another output. Pictures named during
//!   the run are checked against the inputs one by one ([`InputFiles`]).
//! - **Whole or not at all.** [`create`] opens a new file
//!   `.NAME.XXXXXX.teebatch-tmp` in the target's folder (created
//!   exclusively, so never through a link) and [`PendingOutput::commit`]
//!   renames it over the target. A run that fails (a write error, a full
//!   disk) removes it and leaves the target as it was. A run killed by a
//!   signal leaves the temporary file, which holds every record finished.
//! - **A link at the target is replaced, not followed**: rename(2) replaces
//!   the directory entry, so the file a symbolic link points to is never
//!   written through it.
//! - **Devices and pipes are written directly**: an existing target that
//!   is not a regular file (`/dev/null`, a FIFO) or that lives in `/dev`,
//!   `/proc` or `/sys` (`/dev/stdout`) is opened as it is, with no
//!   temporary file.

use super::Input;
use std::collections::HashSet;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The suffix of the temporary files that become outputs.
pub(crate) const TEMP_SUFFIX: &str = ".teebatch-tmp";

/// Which file a path names: its device and inode on Unix (so links and
/// other spellings of the path compare equal), its canonical path
/// elsewhere.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileId(Id);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Id {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

impl FileId {
    /// The file `path` names (following links), if it exists.
    pub fn of(path: &Path) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            Some(FileId(Id::Inode(m.dev(), m.ino())))
        }
        #[cfg(not(unix))]
        {
            path.canonicalize().ok().map(|p| FileId(Id::Path(p)))
        }
    }
}

/// Whether `path` is written directly rather than through a temporary
/// file: an existing non-regular file (device, FIFO, socket), or a path in
/// a pseudo file system (`/dev/stdout` is a link into `/proc`).
fn is_direct(path: &Path) -> bool {
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() && !m.is_dir() {
            return true;
        }
    }
    let parent = parent_of(path);
    match parent.canonicalize() {
        Ok(p) => ["/dev", "/proc", "/sys"].iter().any(|d| p.starts_with(d)),
        Err(_) => false,
    }
}

/// The folder `path` is in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The path with its folder canonical: two spellings of one output that
/// does not exist yet compare equal.
fn spelled(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    Some(parent_of(path).canonicalize().ok()?.join(name))
}

/// An output named on the command line: the flag that names it (`-o`,
/// `--summary`) and its path.
#[derive(Clone, Copy, Debug)]
pub struct Named<'a> {
    pub flag: &'a str,
    pub path: &'a Path,
}

/// Refuses outputs that would destroy an input or another output: an
/// output that is one of `lists` (the `--files-from` lists, the summaries
/// `merge` reads; each `flag` says what it is, e.g. "the --files-from
/// list"), one of the files among `inputs` (an archive member's
/// archive), or the same file as another output. Devices and pipes
/// (`/dev/null` twice) are not files that can be lost and are not
/// compared. The message names both paths.
pub fn check_outputs(
    outputs: &[Named<'_>],
    lists: &[Named<'_>],
    inputs: &[Input],
) -> Result<(), String> {
    let outputs: Vec<_> = outputs.iter().filter(|o| !is_direct(o.path)).collect();
    for (i, a) in outputs.iter().enumerate() {
        for b in &outputs[..i] {
            let same_id =
                matches!((FileId::of(a.path), FileId::of(b.path)), (Some(x), Some(y)) if x == y);
            let same_name =
                matches!((spelled(a.path), spelled(b.path)), (Some(x), Some(y)) if x == y);
            if same_id || same_name {
                return Err(format!(
                    "{} {} is also {} {}: two outputs cannot share a file",
                    a.flag,
                    a.path.display(),
                    b.flag,
                    b.path.display()
                ));
            }
        }
    }
    // Only an output that exists already can be an input.
    let existing: Vec<(FileId, &Named<'_>)> = outputs
        .iter()
        .filter_map(|o| FileId::of(o.path).map(|id| (id, *o)))
        .collect();
    if existing.is_empty() {
        return Ok(());
    }
    for l in lists {
        if let Some(id) = FileId::of(l.path) {
            if let Some((_, o)) = existing.iter().find(|(e, _)| *e == id) {
                return Err(format!(
                    "{} {} is {} {}: refusing to overwrite it",
                    o.flag,
                    o.path.display(),
                    l.flag,
                    l.path.display()
                ));
            }
        }
    }
    let files = InputFiles::of(inputs);
    for (id, o) in &existing {
        if let Some(input) = files.path_of(id) {
            return Err(format!(
                "{} {} is the input file {}: refusing to overwrite it",
                o.flag,
                o.path.display(),
                input.display()
            ));
        }
    }
    Ok(())
}

/// The files that a run's inputs are read from (an archive member's
/// archive), by [`FileId`]: whether an output file would be one of them.
/// Built once per run (one `stat` per input file); each look-up is a hash.
#[derive(Debug, Default)]
pub struct InputFiles {
    ids: std::collections::HashMap<FileId, PathBuf>,
}

impl InputFiles {
    /// The files of `inputs`.
    pub fn of(inputs: &[Input]) -> InputFiles {
        let mut seen: HashSet<&Path> = HashSet::new();
        let mut ids = std::collections::HashMap::new();
        for i in inputs {
            let path = match i {
                Input::File { path, .. } | Input::BadArchive { path, .. } => path.as_path(),
                Input::Member(m) => m.source.path(),
                Input::Embedded { .. } | Input::Unlistable { .. } | Input::Special { .. } => {
                    continue
                }
            };
            if seen.insert(path) {
                if let Some(id) = FileId::of(path) {
                    ids.entry(id).or_insert_with(|| path.to_path_buf());
                }
            }
        }
        InputFiles { ids }
    }

    fn path_of(&self, id: &FileId) -> Option<&Path> {
        self.ids.get(id).map(PathBuf::as_path)
    }

    /// Refuses `target` if it exists and is one of the input files.
    pub fn check(&self, target: &Path) -> io::Result<()> {
        if self.ids.is_empty() {
            return Ok(());
        }
        match FileId::of(target).and_then(|id| self.path_of(&id)) {
            Some(input) => Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} is the input file {}: refusing to overwrite it",
                    target.display(),
                    input.display()
                ),
            )),
            None => Ok(()),
        }
    }
}

/// An output being written: renamed into place by
/// [`PendingOutput::commit`]; dropped without it, its temporary file is
/// removed and the target is left as it was.
#[derive(Debug)]
pub struct PendingOutput {
    target: PathBuf,
    temp: Option<tempfile::TempPath>,
}

impl PendingOutput {
    /// The path the output is for.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the finished file into place (the caller has flushed and
    /// closed its writer). The error names the target.
    pub fn commit(self) -> io::Result<()> {
        match self.temp {
            None => Ok(()),
            Some(t) => t
                .persist(&self.target)
                .map_err(|e| with_path(&self.target, e.error)),
        }
    }
}

/// A file being written for an output: every error it gives names the
/// output's path (with the error's kind kept).
#[derive(Debug)]
pub struct OutputFile {
    file: File,
    target: PathBuf,
}

impl OutputFile {
    /// Whether the file is a terminal (a binary format refuses one).
    pub fn is_terminal(&self) -> bool {
        io::IsTerminal::is_terminal(&self.file)
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf).map_err(|e| with_path(&self.target, e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.file
            .write_all(buf)
            .map_err(|e| with_path(&self.target, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush().map_err(|e| with_path(&self.target, e))
    }
}

impl io::Seek for OutputFile {
    fn seek(&mut self, pos: io::SeekFrom) -> io::Result<u64> {
        self.file.seek(pos).map_err(|e| with_path(&self.target, e))
    }
}

/// `e` with `path: ` in front of its message (same kind, so a closed pipe
/// is still recognised).
pub fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Opens the output `target` (see the module documentation): a new
/// temporary file beside it, or the target itself for a device or pipe.
/// Fails, naming the path, if its folder does not exist or it is a folder.
pub fn create(target: &Path) -> io::Result<(OutputFile, PendingOutput)> {
    let file_of = |file| OutputFile {
        file,
        target: target.to_path_buf(),
    };
    if std::fs::metadata(target).is_ok_and(|m| m.is_dir()) {
        return Err(with_path(target, io::ErrorKind::IsADirectory.into()));
    }
    if is_direct(target) {
        let file = File::create(target).map_err(|e| with_path(target, e))?;
        let pending = PendingOutput {
            target: target.to_path_buf(),
            temp: None,
        };
        return Ok((file_of(file), pending));
    }
    let Some(name) = target.file_name() else {
        return Err(with_path(target, io::ErrorKind::InvalidInput.into()));
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(TEMP_SUFFIX);
    // The mode a new file gets from `File::create` (0666 less the umask,
    // which the system applies), not the 0600 of a temporary file.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let temp = builder
        .tempfile_in(parent_of(target))
        .map_err(|e| with_path(target, e))?;
    let (file, temp) = temp.into_parts();
    Ok((
        file_of(file),
        PendingOutput {
            target: target.to_path_buf(),
            temp: Some(temp),
        },
    ))
}

/// The sink of an output: stdout, or a file written whole or not at all.
pub enum Sink {
    Stdout(io::Stdout),
    File(OutputFile),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(o) => o.write(buf),
            Sink::File(f) => f.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(o) => o.write_all(buf),
            Sink::File(f) => f.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(o) => o.flush(),
            Sink::File(f) => f.flush(),
        }
    }
}

/// Records on their way to stdout or an output file.
pub type RecordOut = io::BufWriter<Sink>;

/// What makes a finished output visible: [`Commit::commit`] after its
/// writer is flushed and dropped. Dropped instead (an error ended the
/// run), the partial file is removed and the target left as it was.
#[derive(Debug, Default)]
#[must_use = "an output is renamed into place only when committed"]
pub struct Commit(Option<PendingOutput>);

impl Commit {
    pub fn commit(self) -> io::Result<()> {
        self.0.map_or(Ok(()), PendingOutput::commit)
    }
}

/// Whether an output path means stdout (`-`, or none given).
pub fn is_stdout(path: Option<&Path>) -> bool {
    path.is_none_or(|p| p.as_os_str() == "-")
}

/// Where records go: stdout (no path, or `-`) or the file `path`, through
/// a temporary file that [`Commit::commit`] renames into place.
pub fn open(path: Option<&Path>) -> io::Result<(RecordOut, Commit)> {
    let (sink, commit) = match path {
        Some(p) if !is_stdout(Some(p)) => {
            let (file, pending) = create(p)?;
            (Sink::File(file), Commit(Some(pending)))
        }
        _ => (Sink::Stdout(io::stdout()), Commit(None)),
    };
    Ok((io::BufWriter::with_capacity(1 << 16, sink), commit))
}

/// [`open`] for a binary format (`what`, e.g. `--format parquet`): a path
/// is required, and `-` is stdout only when it is not a terminal.
pub fn open_binary(path: Option<&Path>, what: &str) -> io::Result<(RecordOut, Commit)> {
    let usage = |msg: String| io::Error::new(io::ErrorKind::InvalidInput, msg);
    let Some(path) = path else {
        return Err(usage(format!(
            "{what} writes a binary file: name it with -o FILE (or -o - for stdout)"
        )));
    };
    let (out, commit) = open(Some(path))?;
    let terminal = match out.get_ref() {
        Sink::Stdout(o) => io::IsTerminal::is_terminal(o),
        Sink::File(f) => f.is_terminal(),
    };
    if terminal {
        return Err(usage(format!(
            "{}: {what} writes a binary file, not to a terminal",
            path.display()
        )));
    }
    Ok((out, commit))
}

/// Writes `bytes` to `path` (`-`: stdout), whole or not at all.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if is_stdout(Some(path)) {
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        return out.flush();
    }
    write_atomic(path, bytes)
}

/// Checks, before the inputs are listed, the output files named on the
/// command line (see [`check_output_path`]); stdout (`-`) is always fine.
pub fn check_folders<'a>(paths: impl IntoIterator<Item = Option<&'a Path>>) -> io::Result<()> {
    for p in paths.into_iter().flatten() {
        if !is_stdout(Some(p)) {
            check_output_path(p)?;
        }
    }
    Ok(())
}

/// [`check_outputs`] for a run's outputs named on the command line, as
/// flags and paths with the records' first (where `None` is stdout), and
/// its `--files-from` `lists`; also refuses two outputs on stdout. An
/// error of kind `InvalidInput` (a usage error).
pub fn check_run_outputs(
    outputs: &[(&str, Option<&Path>)],
    lists: &[PathBuf],
    inputs: &[Input],
) -> io::Result<()> {
    let usage = |msg: String| io::Error::new(io::ErrorKind::InvalidInput, msg);
    let on_stdout: Vec<&str> = outputs
        .iter()
        .enumerate()
        .filter(|(i, (_, p))| (*i == 0 && p.is_none()) || p.is_some_and(|p| is_stdout(Some(p))))
        .map(|(_, (flag, _))| *flag)
        .collect();
    if let [a, b, ..] = on_stdout[..] {
        return Err(usage(format!(
            "{a} and {b} would both write to stdout: name a file for one of them"
        )));
    }
    let outputs: Vec<Named<'_>> = outputs
        .iter()
        .filter_map(|&(flag, p)| p.map(|path| Named { flag, path }))
        .filter(|o| !is_stdout(Some(o.path)))
        .collect();
    let lists: Vec<Named<'_>> = lists
        .iter()
        .filter(|p| !is_stdout(Some(p)))
        .map(|path| Named {
            flag: "the --files-from list",
            path,
        })
        .collect();
    check_outputs(&outputs, &lists, inputs).map_err(usage)
}

/// Checks the output of `teebatch merge` (`-o`, where `None` or `-` is
/// stdout) before anything is read: its folder exists, and it is none of
/// the `summaries` merged (a usage error naming both).
pub fn check_merge_output(output: Option<&Path>, summaries: &[PathBuf]) -> io::Result<()> {
    check_output_of("-o", output, "the summary", summaries)
}

/// Checks the output `flag output` (`None` or `-`: stdout) of a command
/// that reads the named `files` (each described as `what`, e.g. "the
/// input file"), before anything is read: its folder exists, and it is
/// none of `files`, also through links (a usage error naming both).
pub fn check_output_of(
    flag: &str,
    output: Option<&Path>,
    what: &str,
    files: &[PathBuf],
) -> io::Result<()> {
    let Some(path) = output.filter(|p| !is_stdout(Some(p))) else {
        return Ok(());
    };
    check_output_path(path)?;
    let lists: Vec<Named<'_>> = files
        .iter()
        .map(|path| Named { flag: what, path })
        .collect();
    check_outputs(&[Named { flag, path }], &lists, &[])
        .map_err(|msg| io::Error::new(io::ErrorKind::InvalidInput, msg))
}

/// Writes `bytes` to `target` whole or not at all (see [`create`]).
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let (mut file, pending) = create(target)?;
    file.write_all(bytes)?;
    drop(file);
    pending.commit()
}

/// Checks, before any work starts, an output file that is created later:
/// its folder must exist and the path must not be a folder. The error
/// names the path.
pub fn check_output_path(path: &Path) -> io::Result<()> {
    match std::fs::metadata(parent_of(path)) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(with_path(path, io::ErrorKind::NotADirectory.into())),
        Err(e) => return Err(with_path(path, e)),
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(with_path(path, io::ErrorKind::IsADirectory.into())),
        _ => Ok(()),
    }
}

/// Creates the output folder `dir` (and its parents); an existing file of
/// that name is "not a directory", not "file exists".
pub fn create_dir(dir: &Path) -> io::Result<()> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(with_path(dir, io::ErrorKind::NotADirectory.into()));
    }
    std::fs::create_dir_all(dir).map_err(|e| with_path(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_output_leaves_the_target_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.jsonl");
        std::fs::write(&target, b"old").unwrap();
        let (mut f, pending) = create(&target).unwrap();
        f.write_all(b"new, half written").unwrap();
        drop(f);
        drop(pending);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "the temporary file is removed");
    }

    #[test]
    fn a_committed_output_replaces_a_link_not_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let link = dir.path().join("out.png");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        #[cfg(not(unix))]
        return;
        write_atomic(&link, b"picture").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&link).unwrap(), b"picture");
        assert!(!std::fs::symlink_metadata(&link).unwrap().is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn new_outputs_get_the_usual_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        write_atomic(&a, b"x").unwrap();
        File::create(&b).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&a), mode(&b));
    }

    #[cfg(unix)]
    #[test]
    fn devices_are_written_directly() {
        use std::os::unix::fs::FileTypeExt;
        let (mut f, pending) = create(Path::new("/dev/null")).unwrap();
        f.write_all(b"x").unwrap();
        assert!(pending.temp.is_none());
        pending.commit().unwrap();
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }

    #[test]
    fn write_errors_name_the_output() {
        #[cfg(target_os = "linux")]
        {
            let (mut f, _p) = create(Path::new("/dev/full")).unwrap();
            let e = f.write_all(&[0; 1 << 16]).and_then(|()| f.flush());
            let e = e.unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::StorageFull);
            assert!(e.to_string().starts_with("/dev/full: "), "{e}");
        }
    }
}
