//! The `teebatch` command line.
//!
//! A thin layer over the library: parse arguments, list inputs, run the batch,
//! print records on stdout (or `-o FILE`) and a summary on stderr. A failure
//! in one file is a record with an `error` object; the batch goes on and the
//! exit code says something failed (0 all good, 1 some file failed, 2 usage).

mod bench;
mod maps;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// Measure the engines (MB/s per kernel and tier).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Generate synthetic collections with teebatch's own writers.
    #[command(subcommand)]
    Synth(maps::SynthCommand),
}

/// Options shared by every batch command.
#[derive(clap::Args, Debug, Clone)]
pub struct BatchArgs {
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// How to get file bytes: map large files (auto), always map, or always read.
    #[arg(long, value_enum, default_value_t = crate::batch::MmapMode::Auto)]
    pub mmap: crate::batch::MmapMode,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl BatchArgs {
    pub fn jobs(&self) -> usize {
        self.jobs
            .filter(|&j| j > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// A progress bar on stderr when it is a terminal and not `--quiet`.
    pub fn progress(&self, total_bytes: u64, files: usize) -> indicatif::ProgressBar {
        if self.quiet || !io::stderr().is_terminal() {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total_bytes),
            indicatif::ProgressDrawTarget::stderr_with_hz(10),
        );
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {binary_bytes}/{binary_total_bytes} {msg} (ETA {eta})",
            )
            .expect("valid template"),
        );
        bar.set_message(format!("0/{files} files"));
        bar
    }
}

/// The long `--version` text: version, SIMD features compiled in, backend.
pub fn long_version() -> String {
    format!(
        "{}\n{}\nkernels: huffman, varint, snapshot delta/checksum (oracle | scalar | simd)",
        env!("CARGO_PKG_VERSION"),
        crate::backend::describe()
    )
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cmd = Cli::command().long_version(long_version());
    let matches = cmd.get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Maps(c) => maps::run(c),
        Command::Bench(c) => bench::run(c),
        Command::Synth(c) => maps::run_synth(c),
    };
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "teebatch: {e}");
            ExitCode::from(2)
        }
    }
}

/// Where records go: stdout or `-o FILE`.
pub fn open_output(path: Option<&PathBuf>) -> io::Result<Box<dyn Write>> {
    Ok(match path {
        Some(p) => Box::new(io::BufWriter::with_capacity(
            1 << 16,
            std::fs::File::create(p)?,
        )),
        None => Box::new(io::BufWriter::with_capacity(1 << 16, io::stdout().lock())),
    })
}

/// Formats a byte rate.
pub fn mb_per_s(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 / 1e6 / secs
    } else {
        0.0
    }
}
