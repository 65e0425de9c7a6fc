//! `--shard K/N` and `--files-from FILE`.
//!
//! A shard keeps the inputs whose path, as listed, hashes to `K - 1` modulo
//! `N` with 64-bit FNV-1a (offset basis `0xcbf29ce484222325`, prime
//! `0x100000001b3`, from the `fnv` crate) over the path's bytes: on Unix
//! the raw bytes of the path, elsewhere its WTF-8 encoding (UTF-8 for
//! valid Unicode). The hash is the same on every machine and does not
//! depend on the order of the listing, so the N shards are disjoint and
//! cover the inputs.

use crate::batch::Input;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::hash::Hasher;
use std::io::{self, BufRead, Read};
use std::path::PathBuf;
use std::str::FromStr;

/// Shard `k` of `n` (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shard {
    pub k: u32,
    pub n: u32,
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("shard {s:?} is not K/N with 1 <= K <= N");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: u32 = k.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }
}

impl TryFrom<String> for Shard {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<Shard> for String {
    fn from(s: Shard) -> String {
        s.to_string()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// FNV-1a 64 of `bytes`.
pub(crate) fn path_hash(bytes: &[u8]) -> u64 {
    let mut h = fnv::FnvHasher::default();
    h.write(bytes);
    h.finish()
}

/// The bytes of an input's path as listed.
pub fn path_bytes(input: &Input) -> &[u8] {
    match input {
        Input::Embedded { name, .. } => name.as_bytes(),
        other => other.sort_key().as_encoded_bytes(),
    }
}

impl Shard {
    /// Whether `input` belongs to this shard.
    pub fn contains(&self, input: &Input) -> bool {
        path_hash(path_bytes(input)) % u64::from(self.n) == u64::from(self.k - 1)
    }
}

/// The longest entry a path list may hold (64 KiB; Linux allows paths
/// of 4 KiB).
pub const MAX_LISTED_PATH_BYTES: usize = 64 << 10;

/// The most entries the `--files-from` lists of one run may hold
/// together: 2^24 = 16,777,216 (paths; an empty entry counts towards the
/// limit of its own list). A listed path is held as its
/// bytes plus about 56 bytes until the inputs are built, so the lists of
/// short paths cost at most about 1.3 GB (with the list's growth slack);
/// an endless list (`yes`) ends at the limit.
pub const MAX_LISTED_PATHS: usize = 1 << 24;

/// Reads a path list: entries separated by `\n` (or by NUL bytes when
/// `nul`); empty entries are skipped. Names are taken byte for byte (no
/// trimming; with `\n` separators a name cannot contain a newline, with
/// NUL separators any name works).
///
/// Read entry by entry: an entry longer than [`MAX_LISTED_PATH_BYTES`] is
/// an error (naming its number and byte offset) as soon as its first
/// bytes past the limit are read, so an endless one (`/dev/zero` without
/// `-0`) ends too. So is an entry past the first `max_entries` (empty
/// ones counted: an endless list of empty lines ends as well).
pub fn read_path_list(
    reader: impl Read,
    nul: bool,
    max_entries: usize,
) -> io::Result<Vec<PathBuf>> {
    let sep = if nul { 0 } else { b'\n' };
    let mut reader = io::BufReader::new(reader);
    let mut out = Vec::new();
    let mut entry = Vec::new();
    let mut offset = 0u64;
    for number in 1u64.. {
        entry.clear();
        let n = (&mut reader)
            .take(MAX_LISTED_PATH_BYTES as u64 + 1)
            .read_until(sep, &mut entry)?;
        if n == 0 {
            break;
        }
        if number > max_entries as u64 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "entry {number} (at byte {offset}) is past the limit of \
                     {MAX_LISTED_PATHS} entries in the --files-from lists of a run"
                ),
            ));
        }
        if entry.last() == Some(&sep) {
            entry.pop();
        } else if entry.len() > MAX_LISTED_PATH_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "entry {number} (at byte {offset}) is longer than the \
                     {MAX_LISTED_PATH_BYTES} byte limit of a listed path"
                ),
            ));
        }
        offset += n as u64;
        if !entry.is_empty() {
            out.push(path_from_bytes(&entry));
        }
    }
    Ok(out)
}

/// [`read_path_list`] of the file at `path` (`--files-from FILE`): a
/// regular file, a pipe or a socket; a device (`/dev/zero`, a terminal:
/// use `-` for stdin) or a directory is refused without reading.
pub fn read_path_list_file(
    path: &std::path::Path,
    nul: bool,
    max_entries: usize,
) -> io::Result<Vec<PathBuf>> {
    let ty = std::fs::metadata(path)?.file_type();
    if ty.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ty.is_char_device() || ty.is_block_device() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a device, not a file list (`-` reads the list from stdin)",
            ));
        }
    }
    read_path_list(std::fs::File::open(path)?, nul, max_entries)
}

#[cfg(unix)]
fn path_from_bytes(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

#[cfg(not(unix))]
fn path_from_bytes(b: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_64_test_vectors() {
        // From the FNV reference test suite.
        assert_eq!(path_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(path_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(path_hash(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn shard_specs() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, n: 3 }));
        for bad in ["0/3", "4/3", "1", "a/b", "1/0", "-1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(Shard { k: 1, n: 1 }.to_string(), "1/1");
    }

    #[test]
    fn path_lists() {
        let l = read_path_list(&b"a b\n\nc\r\n"[..], false, MAX_LISTED_PATHS).unwrap();
        assert_eq!(l, [PathBuf::from("a b"), PathBuf::from("c\r")]);
        let l = read_path_list(&b"x\ny\0z\0"[..], true, MAX_LISTED_PATHS).unwrap();
        assert_eq!(l, [PathBuf::from("x\ny"), PathBuf::from("z")]);
    }

    /// A list holds at most `max_entries` entries, empty ones counted; the
    /// error names the first entry past the limit and its byte offset, and
    /// an endless list ends there.
    #[test]
    fn path_lists_have_an_entry_limit() {
        let l = read_path_list(&b"a\n\nb\n"[..], false, 3).unwrap();
        assert_eq!(l, [PathBuf::from("a"), PathBuf::from("b")]);
        let l = read_path_list(&b"a\n\nb"[..], false, 3).unwrap();
        assert_eq!(l.len(), 2);
        let e = read_path_list(&b"a\n\nb\nc\n"[..], false, 3).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            e.to_string(),
            format!(
                "entry 4 (at byte 5) is past the limit of {MAX_LISTED_PATHS} entries in the --files-from lists of a run"
            )
        );
        let e = read_path_list(io::repeat(b'\n'), false, 1000).unwrap_err();
        assert!(
            e.to_string().starts_with("entry 1001 (at byte 1000) "),
            "{e}"
        );
        let e = read_path_list(io::repeat(0), true, 0).unwrap_err();
        assert!(e.to_string().starts_with("entry 1 (at byte 0) "), "{e}");
    }
}
