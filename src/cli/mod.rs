//! The `teebatch` command line.
//!
//! A thin layer over the library: parse arguments, list inputs, run the batch,
//! print records on stdout (or `-o FILE`) and a summary on stderr. A failure
//! in one file is a record with an `error` object; the batch goes on and the
//! exit code says something failed (0 all good, 1 some file failed, 2 usage).

mod bench;
mod demos;
mod maps;

use crate::batch::record::BatchStats;
use crate::batch::{run_ordered, Input};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use serde::Serialize;
use std::io::{self, IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

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
    ///
    /// `auto` maps files of 16 MiB or more whose size is still the one seen
    /// when the collection was listed, and reads the others. `always` maps
    /// every file: if another process truncates a file while it is mapped,
    /// reading past its new end kills teebatch with SIGBUS (a file truncated
    /// before it is mapped is detected and read instead). Use `never` for
    /// collections that other processes may modify while teebatch runs
    /// (uploads, network file systems).
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
        Command::Demos(c) => demos::run(c),
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

/// A Parquet writer of `schema` records to `-o FILE` (required: Parquet is
/// a binary file format, never written to stdout or a terminal).
pub fn create_parquet(
    path: Option<&PathBuf>,
    schema: arrow_schema::SchemaRef,
) -> io::Result<crate::batch::parquet::ParquetSink<io::BufWriter<std::fs::File>>> {
    let usage = |msg: String| io::Error::new(io::ErrorKind::InvalidInput, msg);
    let Some(path) = path else {
        return Err(usage(
            "--format parquet writes a binary file: name it with -o FILE".into(),
        ));
    };
    let file = std::fs::File::create(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    if file.is_terminal() {
        return Err(usage(format!(
            "{}: --format parquet writes a binary file, not to a terminal",
            path.display()
        )));
    }
    crate::batch::parquet::ParquetSink::new(io::BufWriter::with_capacity(1 << 16, file), schema)
}

/// Formats a byte rate.
pub fn mb_per_s(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 / 1e6 / secs
    } else {
        0.0
    }
}

/// The summary printed to stderr and written by `--summary`.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub command: &'static str,
    pub jobs: usize,
    pub elapsed_s: f64,
    pub files_per_s: f64,
    pub mb_per_s: f64,
    #[serde(flatten)]
    pub stats: BatchStats,
}

impl Summary {
    fn print(&self) {
        let st = &self.stats;
        let mut e = io::stderr().lock();
        let _ = writeln!(
            e,
            "{}: {} files ({} ok, {} failed), {:.1} MB in {:.3} s on {} jobs: {:.1} files/s, {:.1} MB/s",
            self.command,
            st.files,
            st.ok,
            st.failed,
            st.bytes as f64 / 1e6,
            self.elapsed_s,
            self.jobs,
            self.files_per_s,
            self.mb_per_s
        );
        for (k, v) in &st.errors_by_kind {
            let _ = writeln!(e, "  error {k}: {v}");
        }
        for (k, v) in &st.warnings_by_kind {
            let _ = writeln!(e, "  warning {k}: {v}");
        }
    }
}

/// One batch command run: inputs through workers, records to a writer in
/// input order, a progress bar, the summary, and the exit code.
pub struct BatchRun<'a> {
    pub command: &'static str,
    pub args: &'a BatchArgs,
    pub summary_path: Option<&'a PathBuf>,
}

impl BatchRun<'_> {
    /// Runs the batch. `process` makes one record per input; `write` emits
    /// it (an error, e.g. a closed pipe, stops the batch); `stats` takes the
    /// statistics out of each worker at the end. Returns the exit code (1 if
    /// any file failed) and the workers.
    pub fn run<W: Send, R: Send>(
        &self,
        inputs: &[Input],
        init: impl Fn() -> W + Sync + Send,
        process: impl Fn(&mut W, &Input) -> R + Sync + Send,
        size: impl Fn(&R) -> u64,
        mut write: impl FnMut(&R) -> io::Result<()>,
        stats: impl Fn(&mut W) -> BatchStats,
    ) -> io::Result<(ExitCode, Vec<W>)> {
        let jobs = self.args.jobs();
        let total: u64 = inputs.iter().map(Input::listed_size).sum();
        let bar = self.args.progress(total, inputs.len());
        let n = inputs.len();
        let mut write_err = None;
        let start = Instant::now();
        let mut workers = run_ordered(
            inputs,
            jobs,
            init,
            |w, _, input| process(w, input),
            |i, rec: R| {
                bar.inc(size(&rec));
                bar.set_message(format!("{}/{n} files", i + 1));
                match write(&rec) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => {
                        write_err = Some(e);
                        ControlFlow::Break(())
                    }
                }
            },
        );
        bar.finish_and_clear();
        if let Some(e) = write_err {
            return Err(e);
        }
        let elapsed = start.elapsed().as_secs_f64();
        let mut total = BatchStats::default();
        for w in &mut workers {
            total += stats(w);
        }
        let summary = Summary {
            command: self.command,
            jobs,
            elapsed_s: elapsed,
            files_per_s: if elapsed > 0.0 {
                total.files as f64 / elapsed
            } else {
                0.0
            },
            mb_per_s: mb_per_s(total.bytes, elapsed),
            stats: total,
        };
        if !self.args.quiet {
            summary.print();
        }
        if let Some(p) = self.summary_path {
            let f = std::fs::File::create(p)?;
            serde_json::to_writer_pretty(f, &summary).map_err(io::Error::other)?;
        }
        let code = if summary.stats.failed > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        };
        Ok((code, workers))
    }
}

/// Writes one JSON object and a newline.
pub fn write_json_line(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::other)?;
    out.write_all(b"\n")
}
