//! `demos dump`: one demo file's snapshots, ticks, chunks or chat log in
//! the golden TSV formats ([`crate::demo::dump`]), decoded on several
//! threads by splitting at keyframes; and `demos slice`, a tick range of
//! one demo file into a new one ([`slice_file`]).

use crate::backend::Backend;
use crate::demo::dump::{dump_chat, dump_on, dump_parallel, DumpError, DumpKind};
use crate::demo::slice::{slice, SliceOptions, SliceStats};
use crate::demo::stream::segments;
use crate::demo::Demo;
use std::io::{self, Write};
use std::path::Path;

/// What `demos dump` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpWhat {
    /// The chat log: tick, client id, sender name, mode, text.
    Chat,
    /// One of the TSV tables.
    Table(DumpKind),
}

/// Cuts ticks `from..=to` of the demo file at `input` into a new demo
/// written whole to `output` ([`crate::demo::slice::slice`]): its
/// statistics and size in bytes. The inner error, `input: error`, says the
/// demo could not be cut (not a demo, no tick in the range); the outer one
/// is an I/O error (`input` cannot be read or `output` written). The caller
/// checks first that `output` is not `input`
/// ([`super::output::check_output_of`]).
pub fn slice_file(
    input: &Path,
    output: &Path,
    from: i32,
    to: i32,
    opts: SliceOptions,
) -> io::Result<Result<(SliceStats, usize), String>> {
    let bytes = super::read_named_file(input)?;
    match slice(&bytes, from, to, opts) {
        Ok((out, stats)) => {
            super::output::write_whole(output, &out)?;
            Ok(Ok((stats, out.len())))
        }
        Err(e) => Ok(Err(format!("{}: {e}", input.display()))),
    }
}

/// Prints `what` of the demo file at `path` to `out` (flushed at the end)
/// on `jobs` threads (1 to [`crate::limits::Limits::MAX_JOBS`]; the
/// output is the same for any). The inner error, `path: error`, says the
/// file is not a demo or its stream ended with an error (after the lines
/// before it); the outer one is an I/O error (the file cannot be read, or
/// `out` failed).
pub fn dump_file(
    path: &Path,
    what: DumpWhat,
    backend: Backend,
    jobs: usize,
    out: &mut (impl Write + Send),
) -> io::Result<Result<(), String>> {
    let bytes = super::read_named_file(path)?;
    let demo = match Demo::parse(&bytes) {
        Ok(d) => d,
        Err(e) => return Ok(Err(format!("{}: {e}", path.display()))),
    };
    let jobs = jobs.clamp(1, crate::limits::Limits::MAX_JOBS);
    let result = match what {
        DumpWhat::Chat => dump_chat(backend, &demo, out),
        DumpWhat::Table(kind) if jobs > 1 => {
            let segs = segments(&demo, jobs * 4);
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(jobs.min(segs.len()))
                .build()
                .map_err(io::Error::other)?;
            pool.install(|| dump_parallel(backend, &demo, kind, &segs, out))
                .map(drop)
        }
        DumpWhat::Table(kind) => dump_on(backend, &demo, kind, out).map(drop),
    };
    out.flush()?;
    match result {
        Ok(()) => Ok(Ok(())),
        Err(DumpError::Io(e)) => Err(e),
        Err(DumpError::Stream(e)) => Ok(Err(format!("{}: {e}", path.display()))),
    }
}
