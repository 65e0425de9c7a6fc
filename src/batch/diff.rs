//! `maps diff`: what changed in a collection between two runs of `maps
//! index`, from their records (JSON lines) or their summaries.
//!
//! Each side is a list of maps by record path, with the SHA-256 of the file
//! (`sha256`) and, where `--verify` computed it, of its decompressed data
//! (`data_sha256`). A summary gives paths and file hashes only
//! (`paths_by_sha256`). Then:
//!
//! - **added** / **removed**: a path on one side only, not part of a rename;
//! - **changed**: the same path with another file hash; `same_content` says
//!   whether the data hashes are equal (recompressed, content unchanged),
//!   `null` where a side lacks them;
//! - **renamed**: a removed path and an added path with the same file hash
//!   (`by: "file"`), or else the same data hash (`by: "content"`); paired
//!   in path order when a hash has several;
//! - **unchanged**: the same path and file hash (or neither side has one).
//!
//! Everything is found with hash maps: linear in the number of maps.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::io::{self, BufRead, Write};
use std::path::Path;

/// One map of a side.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Entry {
    pub path: String,
    #[serde(default)]
    pub sha256: Option<String>,
    #[serde(default)]
    pub data_sha256: Option<String>,
}

/// What a side was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SideKind {
    /// `maps index` records, JSON lines.
    Records,
    /// A `maps index --summary` document.
    Summary,
}

/// One side of a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    pub kind: SideKind,
    pub entries: Vec<Entry>,
}

/// The part of a summary document a diff reads.
#[derive(Deserialize)]
struct SummaryPaths {
    format: String,
    command: String,
    paths_by_sha256: BTreeMap<String, Vec<String>>,
}

/// Reads one side: `maps index` records (JSON lines; only `path`,
/// `sha256` and `data_sha256` are kept) or a `maps index` summary. Errors
/// name the file and, for records, the line.
pub fn read_side(path: &Path) -> io::Result<Side> {
    let file = std::fs::File::open(path).map_err(|e| super::output::with_path(path, e))?;
    read_side_from(io::BufReader::new(file), &path.display().to_string())
}

/// [`read_side`] from a reader, `name` naming it in errors.
pub(crate) fn read_side_from(mut r: impl BufRead, name: &str) -> io::Result<Side> {
    let bad = |msg: String| io::Error::new(io::ErrorKind::InvalidData, format!("{name}: {msg}"));
    let mut entries = Vec::new();
    let mut line = String::new();
    let mut n = 0usize;
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            break;
        }
        n += 1;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        match serde_json::from_str::<Entry>(text) {
            Ok(e) => entries.push(e),
            Err(e) if entries.is_empty() && text.starts_with('{') => {
                // Not one record per line: a summary document (pretty
                // printed, or on one line without `path`).
                let mut rest = String::new();
                r.read_to_string(&mut rest)?;
                let whole = format!("{line}{rest}");
                let doc: SummaryPaths = serde_json::from_str(&whole).map_err(|s| {
                    bad(format!(
                        "neither `maps index` records (line {n}: {e}) nor a `maps index` summary ({s})"
                    ))
                })?;
                if doc.format != "teebatch-summary" || doc.command != "maps index" {
                    return Err(bad(format!(
                        "a summary of `{}` ({}), not of `maps index`",
                        doc.command, doc.format
                    )));
                }
                let mut entries = Vec::new();
                for (sha, paths) in doc.paths_by_sha256 {
                    for path in paths {
                        entries.push(Entry {
                            path,
                            sha256: Some(sha.clone()),
                            data_sha256: None,
                        });
                    }
                }
                return Ok(Side {
                    kind: SideKind::Summary,
                    entries,
                });
            }
            Err(e) => return Err(bad(format!("line {n}: not a `maps index` record: {e}"))),
        }
    }
    Ok(Side {
        kind: SideKind::Records,
        entries,
    })
}

/// A map with another file under the same path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Changed {
    pub path: String,
    pub old_sha256: Option<String>,
    pub new_sha256: Option<String>,
    /// Whether the decompressed data is the same (`None`: a side has no
    /// `data_sha256`).
    pub same_content: Option<bool>,
}

/// A map that moved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Renamed {
    pub old_path: String,
    pub new_path: String,
    /// The hash both share (file, or data when `by` is `content`).
    pub sha256: String,
    /// `file` (same bytes) or `content` (same decompressed data).
    pub by: &'static str,
}

/// A map on one side only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OneSide {
    pub path: String,
    pub sha256: Option<String>,
}

/// The counts of a diff.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DiffCounts {
    pub old: usize,
    pub new: usize,
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub renamed: usize,
    pub unchanged: usize,
}

/// What changed from OLD to NEW; every list sorted by path.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Diff {
    pub counts: DiffCounts,
    pub added: Vec<OneSide>,
    pub removed: Vec<OneSide>,
    pub changed: Vec<Changed>,
    pub renamed: Vec<Renamed>,
}

/// The entries of a side by path; a path listed twice is an error (the
/// side names it, with `label`).
fn by_path<'a>(entries: &'a [Entry], label: &str) -> io::Result<HashMap<&'a str, &'a Entry>> {
    let mut m = HashMap::with_capacity(entries.len());
    for e in entries {
        if m.insert(e.path.as_str(), e).is_some() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{label}: the path {} is listed twice", e.path),
            ));
        }
    }
    Ok(m)
}

/// Compares two sides (see the module docs).
pub fn diff(old: &[Entry], new: &[Entry]) -> io::Result<Diff> {
    let old_by = by_path(old, "OLD")?;
    let new_by = by_path(new, "NEW")?;
    let mut d = Diff::default();
    d.counts.old = old.len();
    d.counts.new = new.len();
    let mut removed: Vec<&Entry> = Vec::new();
    for e in old {
        match new_by.get(e.path.as_str()) {
            None => removed.push(e),
            Some(n) if n.sha256 == e.sha256 => d.counts.unchanged += 1,
            Some(n) => d.changed.push(Changed {
                path: e.path.clone(),
                old_sha256: e.sha256.clone(),
                new_sha256: n.sha256.clone(),
                same_content: match (&e.data_sha256, &n.data_sha256) {
                    (Some(a), Some(b)) => Some(a == b),
                    _ => None,
                },
            }),
        }
    }
    let mut added: Vec<&Entry> = new
        .iter()
        .filter(|e| !old_by.contains_key(e.path.as_str()))
        .collect();
    removed.sort_by(|a, b| a.path.cmp(&b.path));
    added.sort_by(|a, b| a.path.cmp(&b.path));
    // Pair removed with added maps by file hash, then by data hash.
    let mut paired_old = vec![false; removed.len()];
    let mut paired_new = vec![false; added.len()];
    type Key<'a> = fn(&'a Entry) -> Option<&'a String>;
    let keys: [(&'static str, Key<'_>); 2] = [
        ("file", |e: &Entry| e.sha256.as_ref()),
        ("content", |e: &Entry| e.data_sha256.as_ref()),
    ];
    for (by, key) in keys {
        let mut waiting: HashMap<&str, VecDeque<usize>> = HashMap::new();
        for (i, e) in added.iter().enumerate() {
            if let (false, Some(k)) = (paired_new[i], key(e)) {
                waiting.entry(k.as_str()).or_default().push_back(i);
            }
        }
        for (i, e) in removed.iter().enumerate() {
            if paired_old[i] {
                continue;
            }
            let Some(k) = key(e) else { continue };
            if let Some(j) = waiting.get_mut(k.as_str()).and_then(VecDeque::pop_front) {
                paired_old[i] = true;
                paired_new[j] = true;
                d.renamed.push(Renamed {
                    old_path: e.path.clone(),
                    new_path: added[j].path.clone(),
                    sha256: k.clone(),
                    by,
                });
            }
        }
    }
    let one = |e: &Entry| OneSide {
        path: e.path.clone(),
        sha256: e.sha256.clone(),
    };
    d.removed = removed
        .iter()
        .zip(&paired_old)
        .filter(|(_, p)| !**p)
        .map(|(e, _)| one(e))
        .collect();
    d.added = added
        .iter()
        .zip(&paired_new)
        .filter(|(_, p)| !**p)
        .map(|(e, _)| one(e))
        .collect();
    d.changed.sort_by(|a, b| a.path.cmp(&b.path));
    d.renamed.sort_by(|a, b| a.old_path.cmp(&b.old_path));
    d.counts.added = d.added.len();
    d.counts.removed = d.removed.len();
    d.counts.changed = d.changed.len();
    d.counts.renamed = d.renamed.len();
    Ok(d)
}

impl Diff {
    /// Whether anything differs (`maps diff` exits 1, as diff(1) does).
    pub fn differs(&self) -> bool {
        let c = &self.counts;
        c.added + c.removed + c.changed + c.renamed > 0
    }

    /// The one-line summary.
    pub fn line(&self) -> String {
        let c = &self.counts;
        format!(
            "maps diff: {} maps in OLD, {} in NEW: {} added, {} removed, {} changed, {} renamed, {} unchanged",
            c.old, c.new, c.added, c.removed, c.changed, c.renamed, c.unchanged
        )
    }

    /// The diff as text: the summary line, then one line per difference.
    pub fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "{}", self.line())?;
        for a in &self.added {
            writeln!(out, "added: {}", a.path)?;
        }
        for r in &self.removed {
            writeln!(out, "removed: {}", r.path)?;
        }
        for c in &self.changed {
            let content = match c.same_content {
                Some(true) => " (same content)",
                Some(false) => " (content changed)",
                None => "",
            };
            writeln!(out, "changed: {}{content}", c.path)?;
        }
        for r in &self.renamed {
            let by = if r.by == "content" {
                " (same content)"
            } else {
                ""
            };
            writeln!(out, "renamed: {} -> {}{by}", r.old_path, r.new_path)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(path: &str, sha: &str, data: Option<&str>) -> Entry {
        Entry {
            path: path.into(),
            sha256: Some(sha.into()),
            data_sha256: data.map(Into::into),
        }
    }

    #[test]
    fn added_removed_changed_renamed() {
        let old = [
            e("a.map", "1", Some("x1")),
            e("b.map", "2", Some("x2")),
            e("c.map", "3", Some("x3")),
            e("d.map", "4", Some("x4")),
            e("e.map", "5", Some("x5")),
        ];
        let new = [
            e("a.map", "1", Some("x1")),
            e("b.map", "9", Some("x2")),
            e("c.map", "8", Some("x8")),
            e("moved/d.map", "4", Some("x4")),
            e("e2.map", "7", Some("x5")),
            e("f.map", "6", None),
        ];
        let d = diff(&old, &new).unwrap();
        assert_eq!(
            d.counts,
            DiffCounts {
                old: 5,
                new: 6,
                added: 1,
                removed: 0,
                changed: 2,
                renamed: 2,
                unchanged: 1,
            }
        );
        assert_eq!(d.added[0].path, "f.map");
        assert_eq!(d.changed[0].same_content, Some(true));
        assert_eq!(d.changed[1].same_content, Some(false));
        assert_eq!(d.renamed[0].new_path, "moved/d.map");
        assert_eq!(d.renamed[0].by, "file");
        assert_eq!(d.renamed[1].new_path, "e2.map");
        assert_eq!(d.renamed[1].by, "content");
        assert!(d.differs());
        assert!(!diff(&old, &old).unwrap().differs());
    }

    #[test]
    fn copies_pair_in_path_order_and_extras_stay() {
        let old = [e("a", "1", None), e("b", "1", None), e("c", "1", None)];
        let new = [e("y", "1", None), e("z", "1", None)];
        let d = diff(&old, &new).unwrap();
        let pairs: Vec<(&str, &str)> = d
            .renamed
            .iter()
            .map(|r| (r.old_path.as_str(), r.new_path.as_str()))
            .collect();
        assert_eq!(pairs, [("a", "y"), ("b", "z")]);
        assert_eq!(d.removed.len(), 1);
        assert_eq!(d.removed[0].path, "c");
    }

    #[test]
    fn a_path_twice_is_an_error() {
        let old = [e("a", "1", None), e("a", "2", None)];
        let err = diff(&old, &[]).unwrap_err();
        assert_eq!(err.to_string(), "OLD: the path a is listed twice");
    }

    #[test]
    fn sides_are_read_from_records_and_summaries() {
        let records = "{\"path\":\"a\",\"sha256\":\"1\",\"map\":{\"x\":[1,2]}}\n\n{\"path\":\"b\",\"error\":{}}\n";
        let s = read_side_from(records.as_bytes(), "r").unwrap();
        assert_eq!(s.kind, SideKind::Records);
        assert_eq!(s.entries.len(), 2);
        assert_eq!(s.entries[1].sha256, None);
        let summary = "{\n  \"format\": \"teebatch-summary\",\n  \"command\": \"maps index\",\n  \"paths_by_sha256\": {\"1\": [\"a\", \"c\"]}\n}\n";
        let s = read_side_from(summary.as_bytes(), "s").unwrap();
        assert_eq!(s.kind, SideKind::Summary);
        assert_eq!(s.entries.len(), 2);
        assert_eq!(s.entries[1].path, "c");
        let demos = summary.replace("maps index", "demos index");
        let err = read_side_from(demos.as_bytes(), "d").unwrap_err();
        assert!(err.to_string().contains("not of `maps index`"), "{err}");
        let err = read_side_from("{\"path\":\"a\"}\nnope\n".as_bytes(), "r").unwrap_err();
        assert!(err.to_string().starts_with("r: line 2: "), "{err}");
    }
}
