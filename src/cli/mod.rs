//! The `teebatch` command line.
//!
//! A thin layer over the library: parse arguments, list inputs, run the batch,
//! print records on stdout (or `-o FILE`) and a summary on stderr. A failure
//! in one file is a record with an `error` object; the batch goes on and the
//! exit code says something failed (0 all good, 1 some file failed or no
//! input file was found, 2 usage).

/// `eprintln!` that ignores a failed write (stderr closed, e.g. `2>&1 |
/// head`) instead of panicking: a message on stderr is never worth a crash.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use note;

mod bench;
pub mod collection;
mod demos;
mod maps;
mod maptools;
mod progress;
pub mod render;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use teebatch::batch::output;
use teebatch::batch::run::{write_summary_file, IndexRun, RunOutcome};
use teebatch::batch::sink::RecordFormat;
use teebatch::batch::summary::Aggregate;
use teebatch::batch::Input;

#[derive(Parser, Debug)]
#[command(
    name = "teebatch",
    about = "Parse, verify, index and benchmark whole collections of Teeworlds/DDNet maps and demos",
    version
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Maps (Teeworlds datafiles).
    #[command(subcommand)]
    Maps(maps::MapsCommand),
    /// Demos (replays).
    #[command(subcommand)]
    Demos(demos::DemosCommand),
    /// Measure the engines (MB/s per kernel and tier).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Generate synthetic collections with teebatch's own writers.
    #[cfg(feature = "synth")]
    #[command(subcommand)]
    Synth(maps::SynthCommand),
    /// Merge `--summary` files of the same command (e.g. of `--shard` runs)
    /// into the summary of one run over all their inputs.
    Merge(collection::MergeArgs),
    /// Print a shell completion script for teebatch to stdout.
    ///
    /// For example `teebatch completions bash > ~/.local/share/bash-completion/completions/teebatch`.
    Completions(CompletionsArgs),
    /// Print a man page (roff) to stdout, e.g. `teebatch man > teebatch.1`
    /// or `teebatch man maps index > teebatch-maps-index.1`; `--out DIR`
    /// writes every page.
    Man(ManArgs),
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// The command whose page to print, e.g. `maps index` (its options in
    /// full); none: the top-level page.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write every page into DIR instead (teebatch.1, teebatch-maps.1,
    /// teebatch-maps-index.1, ...), one per command.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub out: Option<std::path::PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Parses a byte size: a plain number of bytes, or a number with a unit
/// `K`, `M`, `G`, `T` (optionally followed by `B` or `iB`, any case), all
/// binary: `1K` = 1024, `1G` = 2^30. Decimals are allowed (`1.5G`).
pub fn parse_byte_size(s: &str) -> Result<u64, String> {
    parse_size::Config::new()
        .with_binary()
        .parse_size(s)
        .map_err(|e| {
            format!("{e} (expected bytes, e.g. 1048576, 512M or 1G; K/M/G/T are 1024-based)")
        })
}

/// A `--format` that takes only `only` of the record formats (with their
/// names, aliases and help as [`RecordFormat`]'s `clap::ValueEnum` gives
/// them).
pub fn formats(
    only: &'static [RecordFormat],
) -> impl clap::builder::TypedValueParser<Value = RecordFormat> {
    use clap::builder::TypedValueParser as _;
    use clap::ValueEnum as _;
    clap::builder::PossibleValuesParser::new(only.iter().filter_map(|f| f.to_possible_value()))
        .map(|name| RecordFormat::from_str(&name, false).expect("one of the possible values"))
}

/// Options shared by every batch command.
#[derive(clap::Args, Debug, Clone)]
pub struct BatchArgs {
    /// Worker threads (default or 0: all cores). Capped at the number of
    /// input files and at 256.
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// How to get file bytes: always read (never, the default), map large
    /// files (auto), or always map.
    ///
    /// `never` reads every file into a reused buffer: safe whatever other
    /// processes do to the files. `auto` maps files of 16 MiB or more whose
    /// size is still the one seen when the collection was listed, and reads
    /// the others; `always` maps every file. Both are UNSAFE for files that
    /// can change while teebatch runs (uploads, network file systems): if
    /// another process truncates a file while it is mapped, reading past its
    /// new end kills teebatch with SIGBUS, and a file modified while mapped
    /// changes under the parser.
    #[arg(long, value_enum, default_value_t = teebatch::batch::MmapMode::Never)]
    pub mmap: teebatch::batch::MmapMode,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Show the progress bar even when stderr is not a terminal (then as a
    /// plain line about once a second). Without it the bar shows only on a
    /// terminal, and not where the records are printed on it too;
    /// --quiet wins.
    #[arg(long)]
    pub progress: bool,
    /// Print the input files that would be processed, one per line as the
    /// records' `path` field, and nothing else (no records, no summary;
    /// `-o` and `--summary` are not written); exit 0. With -0 the paths are
    /// written as their raw bytes, each ended by a NUL, which is what
    /// `--files-from FILE -0` reads back.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub select: collection::SelectArgs,
}

impl BatchArgs {
    /// Worker threads for `inputs` files (see [`Limits::cap_jobs`]).
    ///
    /// [`Limits::cap_jobs`]: teebatch::limits::Limits::cap_jobs
    pub fn jobs(&self, inputs: usize) -> usize {
        teebatch::limits::Limits::cap_jobs(self.jobs, inputs)
    }

    /// The progress bar of a run over `sel` whose records go to stdout or
    /// not, and the observer of its notes (see [`progress::Progress`]).
    pub fn bar(&self, sel: &collection::Selection, records_to_stdout: bool) -> progress::Progress {
        let total: u64 = sel.inputs.iter().map(Input::listed_size).sum();
        progress::Progress::new(
            self.quiet,
            self.progress,
            total,
            sel.inputs.len(),
            records_to_stdout,
        )
    }

    /// The end of a run: its line and `digest` on stderr (unless
    /// `--quiet`), and its exit code.
    pub fn end(&self, outcome: &RunOutcome, digest: &[String]) -> io::Result<ExitCode> {
        self.say(outcome, digest);
        Ok(exit_code(outcome.is_failure()))
    }

    fn say(&self, outcome: &RunOutcome, digest: &[String]) {
        if !self.quiet {
            note!("{}", outcome.line());
            collection::print_digest(digest);
        }
    }

    /// The end of an index run: its line and digest on stderr (unless
    /// `--quiet`), its summary document to `summary_path`.
    pub fn report<A: Aggregate>(
        &self,
        run: &IndexRun<A>,
        summary_path: Option<&std::path::Path>,
    ) -> io::Result<()> {
        self.say(&run.outcome, &run.summary.aggregate.digest());
        match summary_path {
            Some(p) => write_summary_file(p, &run.summary),
            None => Ok(()),
        }
    }
}

/// The long `--version` text: version, SIMD features compiled in,
/// backend, and the name endings read as archives.
pub fn long_version() -> String {
    let archives: Vec<&str> = teebatch::batch::archive::Kind::SUFFIXES
        .iter()
        .map(|(s, _)| *s)
        .collect();
    format!(
        "{}\n{}\nkernels: huffman, varint, snapshot delta/checksum (oracle | scalar | simd); \
         {} caps the x86 level (sse2 | avx2 | avx512)\narchives: {}",
        env!("CARGO_PKG_VERSION"),
        teebatch::codec::kernels::describe(),
        teebatch::backend::X86_LEVEL_ENV,
        archives.join(" "),
    )
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    // The kernels read the level cap once; a typo must not measure the
    // wrong tier silently.
    if let Err(e) = teebatch::backend::X86Level::cap_from_env() {
        let _ = writeln!(io::stderr(), "teebatch: {e}");
        return ExitCode::from(2);
    }
    let cmd = Cli::command().long_version(long_version());
    let matches = cmd.get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Maps(c) => maps::run(c),
        Command::Demos(c) => demos::run(c),
        Command::Bench(c) => bench::run(c),
        #[cfg(feature = "synth")]
        Command::Synth(c) => maps::run_synth(c),
        Command::Merge(a) => collection::merge(a),
        Command::Completions(a) => completions(a.shell),
        Command::Man(a) => man_page(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "teebatch: {e}");
            ExitCode::from(2)
        }
    }
}

/// `teebatch completions SHELL`: the completion script on stdout.
fn completions(shell: clap_complete::Shell) -> io::Result<ExitCode> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "teebatch", &mut out);
    let mut stdout = io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// `teebatch man`: the page of `a.command` (roff) on stdout, or every
/// page into `a.out`. Pages are named as `clap_mangen` names them
/// (`teebatch-maps-index`), and the top-level page's SUBCOMMANDS section
/// refers to them.
fn man_page(a: &ManArgs) -> io::Result<ExitCode> {
    let mut cmd = Cli::command()
        .long_version(long_version())
        .disable_help_subcommand(true);
    cmd.build();
    if let Some(dir) = &a.out {
        std::fs::create_dir_all(dir)?;
        clap_mangen::generate_to(cmd, dir)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut page = &cmd;
    for name in &a.command {
        match page.find_subcommand(name) {
            Some(sub) => page = sub,
            None => {
                let known: Vec<&str> = page.get_subcommands().map(|c| c.get_name()).collect();
                writeln!(
                    io::stderr(),
                    "teebatch: man: no command `{}` (commands of `{}`: {})",
                    name,
                    page.get_display_name().unwrap_or(page.get_name()),
                    known.join(", ")
                )?;
                return Ok(ExitCode::from(2));
            }
        }
    }
    let mut out = Vec::new();
    clap_mangen::Man::new(page.clone()).render(&mut out)?;
    let mut stdout = io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

impl BatchArgs {
    /// `--list`: the inputs of `paths` (selected as the run would) on
    /// stdout ([`teebatch::batch::write_list`], with `-0` as raw paths ended
    /// by NULs); exit 0.
    pub fn list(
        &self,
        paths: &[PathBuf],
        ext: &str,
        embedded: impl FnOnce() -> Vec<Input>,
    ) -> io::Result<ExitCode> {
        let sel = self.select.select(paths, ext, embedded)?;
        let mut out = io::BufWriter::new(io::stdout().lock());
        teebatch::batch::write_list(&sel.inputs, self.select.null, &mut out)?;
        Ok(ExitCode::SUCCESS)
    }

    /// The inputs of `paths` (see [`collection::SelectArgs::select`]),
    /// with the outputs checked around the listing: their folders before
    /// it ([`output::check_folders`]), then against the inputs, the lists
    /// and each other ([`output::check_run_outputs`], where `outputs` are
    /// described).
    pub fn select_checked(
        &self,
        paths: &[PathBuf],
        ext: &str,
        embedded: impl FnOnce() -> Vec<Input>,
        outputs: &[(&str, Option<&std::path::Path>)],
    ) -> io::Result<collection::Selection> {
        output::check_folders(outputs.iter().map(|(_, p)| *p))?;
        let sel = self.select.select(paths, ext, embedded)?;
        output::check_run_outputs(outputs, &self.select.files_from, &sel.inputs)?;
        Ok(sel)
    }
}

pub use output::{is_stdout, open as open_output};

/// Whether `e` means the reader of our output went away (`| head`): the
/// run then ends quietly with exit code 0.
pub fn is_closed_pipe(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe
}

/// The exit code of a run that failed or not (1: some file failed or
/// nothing was found; see [`teebatch::batch::run::RunOutcome::is_failure`]).
pub fn exit_code(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
