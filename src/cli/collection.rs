//! Collections on the command line: which inputs (`--files-from`,
//! `--shard`), the summary document (`--summary`, the stderr digest) and
//! `teebatch merge`.

use crate::batch::summary::shard::{read_path_list, read_path_list_file};
use crate::batch::summary::{
    self, Aggregate, DemosAggregate, InputPart, LoadError, MapsAggregate, Shard, Summary, Walk,
};
use crate::batch::{collect_inputs_with, Input, WalkOptions};
use crate::limits::Limits;
use serde::Serialize;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Which files of the collection a batch processes.
#[derive(clap::Args, Debug, Clone)]
pub struct SelectArgs {
    /// Also process the paths listed in FILE (`-` for stdin), one per line
    /// (or NUL-separated with -0). Combines with PATH arguments.
    #[arg(long, value_name = "FILE")]
    pub files_from: Vec<PathBuf>,
    /// The --files-from lists are separated by NUL bytes (as `find -print0`
    /// writes), so any file name works.
    #[arg(short = '0', long = "null")]
    pub null: bool,
    /// Process only shard K of N (1-based): the files whose path, as listed,
    /// hashes to K-1 modulo N (FNV-1a 64 over the path bytes). The N shards
    /// are disjoint and together are the whole collection.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    #[command(flatten)]
    pub walk: WalkArgs,
    /// Archive members declaring more than N bytes per byte they store are
    /// refused (error `zip_bomb`; deflate's most is about 1032).
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT_MAX_ARCHIVE_RATIO)]
    pub max_archive_ratio: u64,
    /// Most bytes the members of one archive may declare in total (the
    /// members past it are refused, error `total_limit`; a tar stream on
    /// stdin longer than this is refused as a whole): bytes, or with a
    /// binary unit (K, M, G, T: 1K = 1024), e.g. 500G.
    #[arg(long, value_name = "SIZE", default_value = "64G", value_parser = super::parse_byte_size)]
    pub max_archive_bytes: u64,
}

/// How directory PATHs are walked (files named on the command line are
/// always taken).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct WalkArgs {
    /// Take only the files matching GLOB, or with a leading `!` skip what
    /// it matches (a directory with everything in it). Repeatable; a later
    /// glob wins. ripgrep's --glob syntax, matched against paths relative
    /// to the directory PATH (a glob without `/` matches a name at any
    /// depth), e.g. --glob 'novice/**' --glob '!*_old.map'.
    #[arg(long = "glob", short = 'g', value_name = "GLOB")]
    pub globs: Vec<String>,
    /// Skip the files and directories matching GLOB (the same as
    /// --glob '!GLOB'; applied after every --glob).
    #[arg(long = "exclude", value_name = "GLOB")]
    pub excludes: Vec<String>,
    /// Descend at most N directory levels into a directory PATH (1: only
    /// the files directly in it). Default: no limit.
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Do not follow symbolic links found in directories (by default they
    /// are followed, and a link loop, or a link to a missing target that
    /// may be an input, is reported as an error record).
    #[arg(long)]
    pub no_follow: bool,
    /// Also walk hidden files and directories (names starting with `.`),
    /// which are skipped by default.
    #[arg(long)]
    pub hidden: bool,
}

impl WalkArgs {
    /// What the summary records about the walk (see [`Walk`]).
    pub fn spec(&self) -> Walk {
        let o = self.options();
        Walk {
            globs: o.globs,
            max_depth: o.max_depth,
            no_follow: !o.follow_links,
            hidden: o.hidden,
        }
    }

    /// The walk the options describe.
    pub fn options(&self) -> WalkOptions {
        WalkOptions {
            globs: self
                .globs
                .iter()
                .cloned()
                .chain(self.excludes.iter().map(|g| format!("!{g}")))
                .collect(),
            max_depth: self.max_depth,
            follow_links: !self.no_follow,
            hidden: self.hidden,
            limits: Limits::default(),
        }
    }
}

/// The inputs of one batch and what is known about how they were chosen.
#[derive(Debug)]
pub struct Selection {
    /// The inputs to process, sorted, in shard.
    pub inputs: Vec<Input>,
    /// What the summary records about them.
    pub part: InputPart,
    /// No PATH and no `--files-from`: the embedded dataset.
    pub embedded: bool,
    /// Nothing was found to process at all (before `--shard`). A batch
    /// over nothing exits with code 1, as ripgrep does when it finds
    /// nothing; an empty shard of a non-empty collection is not an error.
    pub nothing_found: bool,
}

impl SelectArgs {
    /// `limits` with the archive limits of the flags.
    pub fn limits(&self, limits: Limits) -> Limits {
        Limits {
            max_archive_ratio: self.max_archive_ratio,
            max_archive_total_bytes: self.max_archive_bytes,
            ..limits
        }
    }

    /// The inputs of a batch over `paths` (files and directory trees searched
    /// for `*.ext`) and the `--files-from` lists, in shard; `embedded` when
    /// there are neither. Also returns what the summary records about them.
    pub fn inputs(
        &self,
        paths: &[PathBuf],
        ext: &str,
        embedded: impl FnOnce() -> Vec<Input>,
    ) -> io::Result<(Vec<Input>, InputPart)> {
        let s = self.select(paths, ext, embedded)?;
        Ok((s.inputs, s.part))
    }

    /// As [`SelectArgs::inputs`], and says on stderr what a user would
    /// otherwise only find in the records or not at all: a PATH named on
    /// the command line that cannot be read (`teebatch: PATH: No such file
    /// or directory (os error 2)`), and that no `*.ext` file was found.
    pub fn select(
        &self,
        paths: &[PathBuf],
        ext: &str,
        embedded: impl FnOnce() -> Vec<Input>,
    ) -> io::Result<Selection> {
        let mut all = paths.to_vec();
        let stdin = Path::new(crate::batch::archive::STDIN);
        if paths.iter().any(|p| p == stdin) && self.files_from.iter().any(|f| f == stdin) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the PATH - (a tar stream on stdin) and --files-from - both read stdin",
            ));
        }
        for f in &self.files_from {
            let listed = if f.as_os_str() == "-" {
                read_path_list(io::stdin().lock(), self.null)
            } else {
                read_path_list_file(f, self.null)
            };
            all.extend(listed.map_err(|e| {
                io::Error::new(e.kind(), format!("--files-from {}: {e}", f.display()))
            })?);
        }
        let is_embedded = all.is_empty() && self.files_from.is_empty();
        let walk = WalkOptions {
            limits: self.limits(Limits::default()),
            ..self.walk.options()
        };
        let mut inputs = if is_embedded {
            walk.check()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
            embedded()
        } else {
            collect_inputs_with(&all, ext, &walk)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?
        };
        let named: std::collections::HashSet<&Path> = paths.iter().map(PathBuf::as_path).collect();
        for i in &inputs {
            if let Input::Unlistable { path, message } = i {
                if named.contains(path.as_path()) {
                    super::note!("teebatch: {}: {message}", path.display());
                }
            }
        }
        let nothing_found = inputs.is_empty();
        if nothing_found {
            let mut searched: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            searched.extend(
                self.files_from
                    .iter()
                    .map(|f| format!("--files-from {}", f.display())),
            );
            super::note!(
                "teebatch: no *.{ext} files found in {}",
                searched.join(", ")
            );
        }
        if let Some(s) = &self.shard {
            inputs.retain(|i| s.contains(i));
            crate::batch::archive::mark_selected(&inputs);
        }
        Ok(Selection {
            inputs,
            part: InputPart::new(paths, &self.files_from, self.shard).with_walk(self.walk.spec()),
            embedded: is_embedded,
            nothing_found,
        })
    }
}

/// The run-dependent part of a summary.
#[derive(Serialize)]
pub struct RunInfo {
    pub teebatch_version: &'static str,
    pub host: String,
    /// Seconds since 1970 when the batch started.
    pub started_at_unix_s: u64,
    pub jobs: usize,
    pub elapsed_s: f64,
    pub files_per_s: f64,
    pub mb_per_s: f64,
}

/// This machine's host name, where the system tells it.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .unwrap_or_default()
}

/// Writes a summary document (pretty JSON) to `path`, whole or not at all
/// (`-`: stdout).
pub fn write_summary_file<A: Aggregate>(path: &Path, doc: &Summary<A>) -> io::Result<()> {
    let mut text = serde_json::to_vec_pretty(doc).map_err(io::Error::from)?;
    text.push(b'\n');
    crate::batch::output::write_whole(path, &text)
}

/// Prints the digest lines of an aggregate, indented, to stderr.
pub fn print_digest(lines: &[String]) {
    let mut e = io::stderr().lock();
    for l in lines {
        let _ = writeln!(e, "  {l}");
    }
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Summary files written by `maps index --summary` or `demos index
    /// --summary` (all of the same command).
    #[arg(required = true, value_name = "SUMMARY")]
    pub summaries: Vec<PathBuf>,
    /// Write the merged summary here instead of stdout (`-`: stdout). It
    /// may not be one of the SUMMARY files.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// No digest on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `teebatch merge`: exit 0, 1 for a bad file, 2 for summaries that cannot
/// be merged (other command or version, the same inputs twice).
pub fn merge(args: MergeArgs) -> io::Result<ExitCode> {
    let fail = |e: LoadError| {
        eprintln!("teebatch merge: {e}");
        Ok(ExitCode::from(match e {
            LoadError::BadFile(_) => 1,
            LoadError::Incompatible(_) => 2,
        }))
    };
    if let Some(p) = args
        .output
        .as_deref()
        .filter(|p| !super::is_stdout(Some(p)))
    {
        crate::batch::output::check_output_path(p)?;
        let lists: Vec<crate::batch::output::Named<'_>> = args
            .summaries
            .iter()
            .map(|path| crate::batch::output::Named {
                flag: "the summary",
                path,
            })
            .collect();
        crate::batch::output::check_outputs(
            &[crate::batch::output::Named {
                flag: "-o",
                path: p,
            }],
            &lists,
            &[],
        )
        .map_err(|msg| io::Error::new(io::ErrorKind::InvalidInput, msg))?;
    }
    let mut docs = Vec::with_capacity(args.summaries.len());
    for p in &args.summaries {
        match summary::read_header(p) {
            Ok(d) => docs.push(d),
            Err(e) => return fail(e),
        }
    }
    let command = docs[0].0.clone();
    for (p, (c, _)) in args.summaries.iter().zip(&docs) {
        if *c != command {
            return fail(LoadError::Incompatible(format!(
                "{}: a \"{c}\" summary cannot be merged with \"{command}\" summaries ({})",
                p.display(),
                args.summaries[0].display()
            )));
        }
    }
    let values = docs.into_iter().map(|(_, v)| v).collect();
    let result = if command == summary::MAPS_INDEX {
        merge_typed::<MapsAggregate>(&args, values)
    } else {
        merge_typed::<DemosAggregate>(&args, values)
    };
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(Ok(e)) => fail(e),
        Err(Err(e)) => Err(e),
    }
}

fn merge_typed<A: Aggregate>(
    args: &MergeArgs,
    values: Vec<serde_json::Value>,
) -> Result<(), Result<LoadError, io::Error>> {
    let mut merged: Option<Summary<A>> = None;
    let mut runs = Vec::new();
    for (p, v) in args.summaries.iter().zip(values) {
        let doc: Summary<A> = summary::from_value(p, v).map_err(Ok)?;
        runs.push(serde_json::json!({ "file": p.to_string_lossy(), "run": doc.run }));
        match &mut merged {
            None => merged = Some(doc),
            Some(m) => m.merge(doc).map_err(|e| {
                Ok(LoadError::Incompatible(format!(
                    "{}: cannot be merged: {e}",
                    p.display()
                )))
            })?,
        }
    }
    let mut merged = merged.expect("at least one summary");
    merged.aggregate.finish();
    merged.run = serde_json::json!({
        "teebatch_version": env!("CARGO_PKG_VERSION"),
        "merged": runs,
    });
    let mut text = serde_json::to_vec_pretty(&merged).map_err(|e| Err(io::Error::other(e)))?;
    text.push(b'\n');
    crate::batch::output::write_whole(args.output.as_deref().unwrap_or(Path::new("-")), &text)
        .map_err(Err)?;
    if !args.quiet {
        let a = &merged.aggregate;
        let (files, ok, failed) = a.file_counts();
        eprintln!(
            "merge: {} {} summaries: {files} files ({ok} ok, {failed} failed)",
            args.summaries.len(),
            A::COMMAND
        );
        print_digest(&a.digest());
    }
    Ok(())
}
