//! Collections on the command line: which inputs (`--files-from`,
//! `--shard`), the summary document (`--summary`, the stderr digest) and
//! `teebatch merge`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use teebatch::batch::select::SelectOptions;
use teebatch::batch::summary::merge::MergeError;
use teebatch::batch::summary::{self, LoadError, Shard};
use teebatch::batch::{Input, WalkOptions};
use teebatch::limits::Limits;

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

pub use teebatch::batch::run::Selection;

impl SelectArgs {
    /// `limits` with the archive limits of the flags.
    pub fn limits(&self, limits: Limits) -> Limits {
        Limits {
            max_archive_ratio: self.max_archive_ratio,
            max_archive_total_bytes: self.max_archive_bytes,
            ..limits
        }
    }

    /// The selection the flags describe.
    pub fn options(&self) -> SelectOptions {
        SelectOptions {
            files_from: self.files_from.clone(),
            null: self.null,
            shard: self.shard,
            walk: WalkOptions {
                limits: self.limits(Limits::default()),
                ..self.walk.options()
            },
        }
    }

    /// The inputs of a batch over `paths` ([`teebatch::batch::select::select`]),
    /// its notes on stderr.
    pub fn select(
        &self,
        paths: &[PathBuf],
        ext: &str,
        embedded: impl FnOnce() -> Vec<Input>,
    ) -> io::Result<Selection> {
        teebatch::batch::select::select(paths, ext, embedded, &self.options(), &mut |m| {
            super::note!("{m}")
        })
    }
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
    /// Fail (exit 1, nothing written) when the summaries hold some but not
    /// all shards of a set of inputs, instead of warning.
    #[arg(long)]
    pub strict: bool,
}

/// `teebatch merge`: exit 0, 1 for a bad file (or, with `--strict`, missing
/// shards), 2 for summaries that cannot be merged (other command, version
/// or counting options, the same inputs twice).
pub fn merge(args: MergeArgs) -> io::Result<ExitCode> {
    let fail = |e: LoadError| {
        eprintln!("teebatch merge: {e}");
        Ok(ExitCode::from(match e {
            LoadError::BadFile(_) => 1,
            LoadError::Incompatible(_) => 2,
        }))
    };
    teebatch::batch::output::check_merge_output(args.output.as_deref(), &args.summaries)?;
    match summary::merge::merge_files(&args.summaries) {
        Ok(m) => {
            let level = if args.strict { "error" } else { "warning" };
            for missing in &m.missing_shards {
                eprintln!("teebatch merge: {level}: {missing}");
            }
            if args.strict && !m.missing_shards.is_empty() {
                return Ok(ExitCode::from(1));
            }
            teebatch::batch::output::write_whole(
                args.output.as_deref().unwrap_or(Path::new("-")),
                &m.text,
            )?;
            if !args.quiet {
                let (files, ok, failed) = m.files;
                eprintln!(
                    "merge: {} {} summaries: {files} files ({ok} ok, {failed} failed)",
                    args.summaries.len(),
                    m.command
                );
                print_digest(&m.digest);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(MergeError::Load(e)) => fail(e),
        Err(MergeError::Io(e)) => Err(e),
    }
}
