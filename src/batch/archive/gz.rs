//! `.tar.gz` streams: listed once, then read forward by one decompressor
//! shared by the workers ([`GzStream`]).

#[cfg(feature = "archive")]
use super::checks::check_members;
#[cfg(feature = "archive")]
use super::tar::list_tar_entries;
use super::ArchiveKind;
#[cfg(feature = "archive")]
use super::Listed;
use super::{ArchiveError, Input, Member, Source};
#[cfg(feature = "archive")]
use crate::limits::Limits;
use flate2::read::MultiGzDecoder;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

type GzReader = MultiGzDecoder<BufReader<File>>;

fn open_gz(path: &Path) -> io::Result<GzReader> {
    Ok(MultiGzDecoder::new(BufReader::with_capacity(
        1 << 16,
        File::open(path)?,
    )))
}

/// Counts the bytes read through it (the decompressed tar's length).
#[cfg(feature = "archive")]
struct Counting<R> {
    inner: R,
    n: u64,
}

#[cfg(feature = "archive")]
impl<R: Read> Read for Counting<R> {
    fn read(&mut self, b: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(b)?;
        self.n += n as u64;
        Ok(n)
    }
}

#[allow(clippy::type_complexity)]
#[cfg(feature = "archive")]
pub(super) fn list_tar_gz(
    path: &Path,
    ext: &str,
    limits: &Limits,
) -> Result<(Vec<Listed>, GzStream, Vec<ArchiveError>), ArchiveError> {
    let reader = open_gz(path).map_err(|e| {
        ArchiveError::new(
            ArchiveKind::BadArchive,
            "archive",
            0,
            format!("cannot open: {e}"),
        )
    })?;
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
        drained.err().map(|e| {
            ArchiveError::new(
                ArchiveKind::BadArchive,
                "archive",
                len,
                format!("gzip stream: {e}"),
            )
        })
    }));
    check_members(&mut listed, len, limits);
    let entries: Vec<StreamEntry> = listed
        .iter()
        .map(|l| StreamEntry {
            offset: l.data_offset,
            size: l.size,
            taken: false,
            takes: 1,
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
    pub(super) path: PathBuf,
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
    /// Taken as often as it will be (or released).
    taken: bool,
    /// Takes still to come (1 unless set by [`GzStream::set_takes`]):
    /// while more than one, a take keeps the bytes for the next.
    takes: u32,
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

impl StreamState {
    /// Keeps a copy of entry `j`'s bytes `b` (taken again later): in
    /// memory within the budget, else at the end of the spool file; if
    /// the spool cannot be written the entry is read from the stream
    /// again when asked for.
    fn hold(&mut self, j: usize, b: &[u8]) {
        let size = b.len() as u64;
        if self.memory_bytes.saturating_add(size) <= self.memory_budget {
            self.memory_bytes += size;
            self.entries[j].held = Held::Memory(b.to_vec());
            return;
        }
        if self.spool.is_none() {
            self.spool = tempfile::tempfile().ok();
            self.spool_len = 0;
        }
        let at = self.spool_len;
        let Some(f) = &mut self.spool else { return };
        if f.seek(io::SeekFrom::Start(at))
            .and_then(|_| f.write_all(b))
            .is_ok()
        {
            self.spool_len += size;
            self.ops.spooled_bytes += size;
            self.entries[j].held = Held::Spool(at);
        } else {
            self.spool = None;
            for e in &mut self.entries {
                if matches!(e.held, Held::Spool(_)) {
                    e.held = Held::No;
                }
            }
        }
    }
}

impl GzStream {
    /// Member `m` will be taken `n` more times (at least 1): until the
    /// last, each take keeps its bytes (in memory within the budget, else
    /// in the spool file), so the stream is not decompressed again for it.
    /// `demos export` sets it for a demo it splits into segments.
    pub(super) fn set_takes(&self, m: &Member, n: u32) {
        let mut st = self.lock();
        let e = &mut st.entries[m.stream_index];
        if !e.taken {
            e.takes = n.max(1);
        }
    }

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
    pub(super) fn take(&self, m: &Member, buf: &mut Vec<u8>) -> io::Result<()> {
        let mut guard = self.lock();
        let st = &mut *guard;
        let i = m.stream_index;
        // Another take will follow (a split demo's segments): the bytes
        // stay kept.
        let again = !st.entries[i].taken && st.entries[i].takes > 1;
        if again {
            st.entries[i].takes -= 1;
        } else if !st.entries[i].taken {
            st.entries[i].taken = true;
            if st.entries[i].readable {
                st.left = st.left.saturating_sub(1);
            }
        }
        let got = match std::mem::replace(&mut st.entries[i].held, Held::No) {
            Held::Memory(b) if again => {
                buf.clear();
                buf.extend_from_slice(&b);
                st.entries[i].held = Held::Memory(b);
                Ok(())
            }
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
            Held::No => {
                let r = self.read_to(st, i, buf);
                if again && r.is_ok() {
                    st.hold(i, buf);
                }
                r
            }
        };
        if got.is_err() {
            st.reader = None;
        }
        if st.left == 0 {
            st.close();
        }
        got.map_err(|e| {
            io::Error::other(ArchiveError::new(
                ArchiveKind::BadArchive,
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
    pub(super) fn release(&self, m: &Member) {
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
