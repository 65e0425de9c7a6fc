//! Which inputs a summary covers ([`Inputs`]: PATH arguments,
//! `--files-from` sources, walk options, shard), how the inputs of merged
//! summaries combine, and which shards are still missing.

use super::Shard;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

/// Which inputs one run (one part) covered.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct InputPart {
    /// PATH arguments as given (as records show paths: [`crate::batch::encode_path`],
    /// so different paths stay different), sorted. With no paths and no `files_from`,
    /// the embedded default dataset.
    pub paths: Vec<String>,
    /// `--files-from` sources as given (`-` for stdin), encoded as `paths`.
    pub files_from: Vec<String>,
    /// `K/N` when the run kept one shard.
    pub shard: Option<Shard>,
    /// How directory PATHs were walked, when not by default. Left out of
    /// the document when default.
    #[serde(default, skip_serializing_if = "Walk::is_default")]
    pub walk: Walk,
}

/// The walk options that choose which files below a directory PATH are
/// taken (`--glob` and `--exclude` as `!GLOB`, in order, `--max-depth`,
/// `--no-follow`, `--hidden`): two runs over the same PATHs with
/// different walks are different inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Walk {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub globs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<usize>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_follow: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

impl Walk {
    pub(crate) fn is_default(&self) -> bool {
        *self == Walk::default()
    }
}

impl fmt::Display for Walk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for g in &self.globs {
            write!(f, " --glob {g}")?;
        }
        if let Some(d) = self.max_depth {
            write!(f, " --max-depth {d}")?;
        }
        if self.no_follow {
            write!(f, " --no-follow")?;
        }
        if self.hidden {
            write!(f, " --hidden")?;
        }
        Ok(())
    }
}

impl InputPart {
    pub fn new(
        paths: &[impl AsRef<Path>],
        files_from: &[impl AsRef<Path>],
        shard: Option<Shard>,
    ) -> Self {
        let s = |p: &dyn AsRef<Path>| crate::batch::encode_path(p.as_ref());
        let mut paths: Vec<String> = paths.iter().map(|p| s(p)).collect();
        paths.sort();
        paths.dedup();
        InputPart {
            paths,
            files_from: files_from.iter().map(|p| s(p)).collect(),
            shard,
            walk: Walk::default(),
        }
    }

    /// This part with directory PATHs walked as `walk` says.
    pub fn with_walk(mut self, walk: Walk) -> Self {
        self.walk = walk;
        self
    }
}

impl fmt::Display for InputPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.paths.is_empty() && self.files_from.is_empty() {
            write!(f, "the embedded dataset")?;
        } else {
            let mut first = true;
            for p in &self.paths {
                write!(f, "{}{p}", if first { "" } else { " " })?;
                first = false;
            }
            for p in &self.files_from {
                write!(f, "{}--files-from {p}", if first { "" } else { " " })?;
                first = false;
            }
            write!(f, "{}", self.walk)?;
        }
        match &self.shard {
            Some(s) => write!(f, " (shard {s})"),
            None => write!(f, " (all files)"),
        }
    }
}

/// The inputs a summary covers: one part per run merged in, sorted. All N
/// shards of the same inputs collapse into one part without a shard.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    pub parts: Vec<InputPart>,
}

impl Inputs {
    pub fn one(part: InputPart) -> Self {
        Inputs { parts: vec![part] }
    }

    /// Adds the parts of `other`, refusing any part that covers files
    /// already covered: the same inputs twice, the same shard twice, all
    /// files and a shard of the same inputs, or shards of different N.
    /// Costs O((P + Q) log P) for P parts here and Q in `other`; to add
    /// many, use one [`InputsMerger`].
    pub fn merge(&mut self, other: Inputs) -> Result<(), String> {
        let mut m = InputsMerger::default();
        m.add_unchecked(std::mem::take(self));
        let r = m.add(other);
        *self = m.finish();
        r
    }
}

/// The inputs a part covers, without its shard.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Source {
    paths: Vec<String>,
    files_from: Vec<String>,
    walk: Walk,
}

#[cfg(test)]
thread_local! {
    /// Comparisons of two [`Source`]s on this thread (the work of merging
    /// inputs, counted by the scaling test).
    static SOURCE_COMPARISONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

impl Ord for Source {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        #[cfg(test)]
        SOURCE_COMPARISONS.with(|c| c.set(c.get() + 1));
        (&self.paths, &self.files_from, &self.walk).cmp(&(&o.paths, &o.files_from, &o.walk))
    }
}

impl PartialOrd for Source {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// The shards covering one [`Source`] (`None`: all its files), with how
/// many there are per shard count N.
#[derive(Default)]
struct Covered {
    shards: BTreeSet<Option<Shard>>,
    per_n: BTreeMap<u32, usize>,
}

/// Merges the [`Inputs`] of many summaries in time O(P log P) for P parts
/// in all (adding them one by one with [`Inputs::merge`] costs O(P^2)):
/// the parts are kept grouped by their inputs, so a part is checked
/// against the parts of the same inputs only, and a group whose N shards
/// are all present becomes one part without a shard when it is complete.
/// The result and the refusals (each naming the smallest part already
/// covered that a new part conflicts with) are those of [`Inputs::merge`]
/// applied in the same order.
#[derive(Default)]
pub struct InputsMerger {
    groups: BTreeMap<Source, Covered>,
}

impl InputsMerger {
    /// Adds the parts of `inputs` (one summary's), refusing any that
    /// covers files already covered (see [`Inputs::merge`]); nothing is
    /// added when one is refused.
    pub fn add(&mut self, inputs: Inputs) -> Result<(), String> {
        let part = |src: &Source, shard: Option<Shard>| InputPart {
            paths: src.paths.clone(),
            files_from: src.files_from.clone(),
            shard,
            walk: src.walk.clone(),
        };
        let mut sources = Vec::with_capacity(inputs.parts.len());
        // The conflict with the smallest part already here (then the
        // first new part), as a pairwise scan in that order finds it.
        let mut worst: Option<(InputPart, String)> = None;
        for b in inputs.parts {
            let src = Source {
                paths: b.paths,
                files_from: b.files_from,
                walk: b.walk,
            };
            if let Some(c) = self.groups.get(&src) {
                let y = b.shard;
                // Shards of the same N other than y are the only parts y
                // does not overlap.
                let clear = match y {
                    None => c.shards.is_empty(),
                    Some(y) => {
                        !c.shards.contains(&None)
                            && !c.shards.contains(&Some(y))
                            && c.per_n.keys().all(|&n| n == y.n)
                    }
                };
                if !clear {
                    let conflicts = |x: &Option<Shard>| match (x, y) {
                        (Some(x), Some(y)) => !(x.n == y.n && x.k != y.k),
                        _ => true,
                    };
                    let x = *c.shards.iter().find(|x| conflicts(x)).expect("a conflict");
                    let a = part(&src, x);
                    let b = part(&src, y);
                    let msg = match (x, y) {
                        (Some(x), Some(y)) if x == y => format!("{a} is already merged in"),
                        (Some(_), Some(_)) => format!(
                            "{a} and {b} split the same inputs in different numbers of shards, which overlap"
                        ),
                        _ => format!("{a} and {b} overlap (the same inputs)"),
                    };
                    if worst.as_ref().is_none_or(|(w, _)| a < *w) {
                        worst = Some((a, msg));
                    }
                }
            }
            sources.push((src, b.shard));
        }
        if let Some((_, msg)) = worst {
            return Err(msg);
        }
        for (src, shard) in sources {
            self.insert(src, shard);
        }
        Ok(())
    }

    /// Adds the parts of `inputs` unchecked (the first summary's: its
    /// parts are not checked against each other, as by [`Inputs::merge`]).
    pub fn add_unchecked(&mut self, inputs: Inputs) {
        for p in inputs.parts {
            let src = Source {
                paths: p.paths,
                files_from: p.files_from,
                walk: p.walk,
            };
            self.insert(src, p.shard);
        }
    }

    /// Adds one part, unchecked.
    fn insert(&mut self, src: Source, shard: Option<Shard>) {
        {
            let c = self.groups.entry(src).or_default();
            if c.shards.insert(shard) {
                if let Some(s) = shard {
                    *c.per_n.entry(s.n).or_default() += 1;
                }
            }
            // All N shards of N: one part without a shard.
            let complete = match (c.shards.first(), c.shards.last(), c.per_n.first_key_value()) {
                (Some(Some(first)), Some(Some(last)), Some((&n, &count))) => {
                    c.per_n.len() == 1
                        && count == c.shards.len()
                        && n as usize == count
                        && first.k == 1
                        && last.k == n
                }
                _ => false,
            };
            if complete {
                c.shards = BTreeSet::from([None]);
                c.per_n.clear();
            }
        }
    }

    /// The merged inputs, parts sorted.
    pub fn finish(self) -> Inputs {
        let mut parts = Vec::new();
        for (src, c) in self.groups {
            for shard in c.shards {
                parts.push(InputPart {
                    paths: src.paths.clone(),
                    files_from: src.files_from.clone(),
                    shard,
                    walk: src.walk.clone(),
                });
            }
        }
        parts.sort();
        Inputs { parts }
    }
}

/// Shards missing from a set of inputs a summary has some shards of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingShards {
    /// The inputs, as a part shows them (`maps --glob *.map`).
    pub inputs: String,
    pub shards: Vec<Shard>,
}

impl fmt::Display for MissingShards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.shards.iter().map(ToString::to_string).collect();
        write!(
            f,
            "shard{} {} of {} missing: the merged summary covers part of those inputs",
            if self.shards.len() == 1 { "" } else { "s" },
            list.join(", "),
            self.inputs
        )
    }
}

impl Inputs {
    /// The shards missing from each set of inputs this summary has some
    /// but not all shards of, sorted.
    pub fn missing_shards(&self) -> Vec<MissingShards> {
        let mut groups: BTreeMap<(Source, u32), BTreeSet<u32>> = BTreeMap::new();
        for p in &self.parts {
            if let Some(s) = p.shard {
                let src = Source {
                    paths: p.paths.clone(),
                    files_from: p.files_from.clone(),
                    walk: p.walk.clone(),
                };
                groups.entry((src, s.n)).or_default().insert(s.k);
            }
        }
        groups
            .into_iter()
            .map(|((src, n), have)| {
                let part = InputPart {
                    paths: src.paths,
                    files_from: src.files_from,
                    shard: None,
                    walk: src.walk,
                };
                let shown = part.to_string();
                let shown = shown.trim_end_matches(" (all files)").to_owned();
                let shards = (1..=n)
                    .filter(|k| !have.contains(k))
                    .map(|k| Shard { k, n })
                    .collect();
                MissingShards {
                    inputs: shown,
                    shards,
                }
            })
            .collect()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn paths_that_differ_only_in_invalid_utf8_stay_different() {
        let a = Path::new(OsStr::from_bytes(b"/runs/\xff"));
        let b = Path::new(OsStr::from_bytes(b"/runs/\xfe"));
        let part = InputPart::new(&[a, b, a], &[b], None);
        assert_eq!(part.paths.len(), 2, "{:?}", part.paths);
        assert_ne!(part.paths[0], part.paths[1]);
        assert_eq!(
            part.paths,
            vec![crate::batch::encode_path(b), crate::batch::encode_path(a)]
        );
        assert_eq!(part.files_from, vec![crate::batch::encode_path(b)]);
        // UTF-8 paths are kept as given.
        let part = InputPart::new(&["maps/b", "maps/a"], &["-"], None);
        assert_eq!(part.paths, ["maps/a", "maps/b"]);
        assert_eq!(part.files_from, ["-"]);
    }
}

#[cfg(test)]
mod scaling_tests {
    use super::*;

    /// Comparisons of inputs to merge `n` summaries of different inputs
    /// and then the `n` shards of one more, as `merge` does.
    fn merge_work(n: u32, one_by_one: bool) -> u64 {
        let before = SOURCE_COMPARISONS.with(|c| c.get());
        let none: &[&str] = &[];
        let parts = (0..n)
            .map(|i| InputPart::new(&[format!("maps/{i}")], none, None))
            .chain((1..=n).map(|k| InputPart::new(&["all"], none, Some(Shard { k, n }))));
        let merged = if one_by_one {
            let mut m = Inputs::default();
            for p in parts {
                m.merge(Inputs::one(p)).unwrap();
            }
            m
        } else {
            let mut m = InputsMerger::default();
            for p in parts {
                m.add(Inputs::one(p)).unwrap();
            }
            m.finish()
        };
        assert_eq!(merged.parts.len(), n as usize + 1);
        assert_eq!(merged.parts[0].paths, ["all"]);
        assert_eq!(merged.parts[0].shard, None);
        SOURCE_COMPARISONS.with(|c| c.get()) - before
    }

    /// Merging the inputs of 2n summaries costs at most 2.5 times the
    /// comparisons of n (O(P log P)); adding them one by one to an
    /// [`Inputs`] is quadratic (4 times), as `merge` did.
    #[test]
    fn merging_inputs_is_linear_in_the_parts() {
        let (small, large) = (merge_work(2000, false), merge_work(4000, false));
        assert!(
            large * 10 <= small * 25,
            "{small} comparisons for 2 x 2000 parts, {large} for 2 x 4000"
        );
        let (small, large) = (merge_work(500, true), merge_work(1000, true));
        assert!(large > small * 3, "one by one: {small}, {large}");
    }
}
