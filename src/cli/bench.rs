//! `teebatch bench ...`: the arguments of [`teebatch::bench`] and its report
//! on stdout.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use teebatch::bench::{self, Bench, BenchFormat, Options};

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Map engine: parse, index, inflate (libdeflater vs flate2/zlib-rs).
    Maps(BenchArgs),
    /// Demo engine: full decode (Huffman + varints + deltas + checksums) in
    /// MB/s of chunk data, per tier, on one core and on all, plus the
    /// keyframe-split decode of single demos.
    Demos(BenchArgs),
    /// Codec kernels per tier on real demo chunk payloads: Huffman decode,
    /// varint unpack, snapshot checksum and wrapping add, and every snapshot
    /// delta applied in sequence (copying + checksum vs in place).
    Codecs(BenchArgs),
    /// `demos export` per table and format: rows/s, MB/s of chunk data and
    /// CPU time against the full decode of the same demos, one job, in one
    /// run (the median of runs lasting at least --seconds each).
    Export(BenchExportArgs),
}

#[derive(clap::Args, Debug)]
pub struct BenchExportArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    /// A table to measure (repeatable; default: every table).
    #[arg(long = "table", value_enum)]
    pub tables: Vec<teebatch::demo::export::Table>,
    /// A table format to measure (repeatable; default: csv, jsonl and
    /// parquet).
    #[arg(long = "writer", value_enum)]
    pub writers: Vec<teebatch::batch::sink::RecordFormat>,
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Minimum time per figure, shared by its timed runs: each run repeats
    /// the work until it lasts at least SECONDS / RUNS.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Timed runs per figure: the figure is their median, printed with the
    /// slowest and fastest run.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub runs: u32,
    /// Untimed runs before them (at least one is always made, to size the
    /// timed runs).
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Keep this run's JSON document as `.teebatch-bench/NAME.json` (or at
    /// NAME itself when it ends in `.json` or holds a `/`), for --compare.
    #[arg(long, value_name = "NAME")]
    pub save: Option<String>,
    /// Compare every figure with a saved run (a --save NAME, or a FILE
    /// written by `--format json`): the change of its median, and `no
    /// change` when it is within the noise (2 %, or the larger half-spread
    /// of the two runs), else `improved` or `regressed`.
    #[arg(long, value_name = "NAME|FILE")]
    pub compare: Option<String>,
    /// Threads for the parallel figure (default or 0: all cores; at most
    /// 256).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// `text`: the table; `json`: one document with the same figures plus
    /// the machine (CPU model and features), the kernel tiers chosen, the
    /// date and the command, for comparing runs across machines.
    #[arg(long, value_enum, default_value_t = BenchFormat::Text)]
    pub format: BenchFormat,
}

/// `println!` for the report: a closed stdout (`| head`) ends the run
/// quietly with exit code 0 instead of a panic; any other write error ends
/// it with code 2.
fn print_line(args: std::fmt::Arguments<'_>) {
    if let Err(e) = writeln!(io::stdout().lock(), "{args}") {
        if super::is_closed_pipe(&e) {
            std::process::exit(0);
        }
        let _ = writeln!(io::stderr(), "teebatch: {e}");
        std::process::exit(2);
    }
}

pub fn run(cmd: BenchCommand) -> io::Result<ExitCode> {
    let (which, a, tables, writers) = match cmd {
        BenchCommand::Maps(a) => (Bench::Maps, a, vec![], vec![]),
        BenchCommand::Demos(a) => (Bench::Demos, a, vec![], vec![]),
        BenchCommand::Codecs(a) => (Bench::Codecs, a, vec![], vec![]),
        BenchCommand::Export(e) => (Bench::Export, e.bench, e.tables, e.writers),
    };
    let opts = Options {
        paths: a.paths,
        seconds: a.seconds,
        jobs: a.jobs,
        format: a.format,
        runs: a.runs,
        warmup: a.warmup,
        save: a.save,
        compare: a.compare,
        tables,
        writers,
    };
    bench::run(which, &opts, &print_line)?;
    Ok(ExitCode::SUCCESS)
}
