//! `teebatch demos ...`.

use super::BatchArgs;
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use teebatch::backend::Backend;
use teebatch::batch::demos::{open_records, IndexOptions, RunOptions};
use teebatch::batch::embedded;
use teebatch::batch::range::TickBound;
use teebatch::batch::sink::RecordFormat;
use teebatch::demo::dump::DumpKind;
use teebatch::limits::Limits;

#[derive(clap::Subcommand, Debug)]
pub enum DemosCommand {
    /// Decode every snapshot of every demo: one JSON record per demo.
    ///
    /// PATHs are files or directory trees (searched recursively for *.demo).
    /// The PATH `-` is a tar stream on stdin (records named by member name).
    /// With no PATH the embedded default dataset is indexed (record paths
    /// `embedded:datasets/demos/...`).
    ///
    /// Exit code: 0 all demos good, 1 some demo failed or no *.demo file
    /// was found (a warning on stderr names the paths searched), 2 usage
    /// error.
    Index(IndexArgs),
    /// Print one demo's snapshots, ticks or chunks in the golden TSV formats,
    /// or its chat log.
    Dump(DumpArgs),
    /// Cut ticks FROM..=TO out of a demo into a new demo that starts with a
    /// keyframe.
    ///
    /// The header (version, net version, map, type, timestamp) is the
    /// original's. Errors: FROM after TO (usage error, exit 2), OUT the same
    /// file as the input (exit 2, checked before anything is written), no
    /// tick in the range (exit 1, naming the demo's first and last tick).
    Slice(SliceArgs),
    /// Write one table (positions, players, chat, ...) of every demo as
    /// typed rows: CSV, JSON lines or Parquet, by demo path, then tick, then id.
    /// With --tables A,B,... --out DIR, several tables from one decode of
    /// each demo, to DIR/A.csv, DIR/B.csv, ... (the rows of separate runs).
    ///
    /// PATHs are files or directory trees (searched recursively for *.demo).
    /// With no PATH the embedded default dataset is exported. A demo that
    /// fails keeps the rows before the fault; the error goes to stderr and
    /// the exit code is 1, as when no *.demo file was found.
    Export(ExportArgs),
    /// Draw where characters were (a density of positions over all
    /// snapshots) or, with --trails, each player's path, over the entities
    /// picture of the demos' embedded map (see the README's "Pictures").
    ///
    /// One record per demo on stdout, then one per picture. Demos of the
    /// same map (same SHA-256) make one picture; demos of different maps
    /// are an error unless --out DIR asks for one picture per map.
    Heatmap(super::render::HeatmapArgs),
}

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("which").required(true).multiple(false)))]
pub struct ExportArgs {
    /// Demo files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// The table to write (columns in the README).
    #[arg(long, value_enum, group = "which")]
    pub table: Option<teebatch::demo::export::Table>,
    /// Several tables from one decode of each demo: table names separated
    /// by commas, or `all`; each goes to `DIR/<table>.<csv|jsonl|parquet>`
    /// (needs --out DIR).
    #[arg(long, value_name = "TABLE,...|all", group = "which", requires = "out")]
    pub tables: Option<teebatch::demo::export::TableSet>,
    /// Write each table to `DIR/<table>.<csv|jsonl|parquet>` (created if
    /// missing; files of the same name are replaced): needed by --tables,
    /// allowed with --table.
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    pub out: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RecordFormat::Csv)]
    pub format: RecordFormat,
    /// Write rows here instead of stdout (--table only).
    #[arg(long, short = 'o', conflicts_with = "tables")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub range: TickRangeArgs,
    /// Item tables and positions: one row per tick marker per item of the
    /// snapshot in effect, carried from the last snapshot at the markers
    /// where none arrived (column `filled` true). Without it (the
    /// default) rows come only where a snapshot arrived (`filled` false).
    /// Tick markers are the ticks the demo recorded a snapshot for
    /// (every 2nd tick in most demos): ticks between them give no rows.
    #[arg(long)]
    pub every_tick: bool,
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Demos of at least this size are exported in segments cut at
    /// keyframes, in parallel (same rows; tables that need the whole demo
    /// are not split). For tests and measurement.
    #[arg(long, hide = true, default_value = "64M", value_name = "SIZE", value_parser = super::parse_byte_size)]
    pub split_bytes: u64,
    #[command(flatten)]
    pub batch: BatchArgs,
}

/// `--from` and `--to` (of `demos export` and `demos heatmap`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct TickRangeArgs {
    /// Only ticks from this one on. A bare integer is an absolute server
    /// tick, as `demos dump --ticks` lists them; `+4500` is 4500 ticks after
    /// each demo's first tick (`demo_tick`), `90s` / `1.5s` seconds and
    /// `1:30` minutes:seconds since it (`time_s`).
    #[arg(long, allow_negative_numbers = true, value_name = "TICK")]
    pub from: Option<TickBound>,
    /// Only ticks up to this one (inclusive; decoding stops after it), in
    /// the forms of --from. Bounds of the same kind must be in order;
    /// otherwise a demo where --from resolves after --to fails with
    /// `export.empty_range`.
    #[arg(long, allow_negative_numbers = true, value_name = "TICK")]
    pub to: Option<TickBound>,
}

impl TickRangeArgs {
    /// The bounds (the whole demo where one is not given), or the usage
    /// error (exit 2) of a `--from` after a `--to` of the same kind: the
    /// range holds no tick of any demo
    /// ([`teebatch::batch::range::check_order`]).
    pub fn bounds(&self) -> io::Result<(TickBound, TickBound)> {
        let (from, to) = (
            self.from.unwrap_or(TickBound::START),
            self.to.unwrap_or(TickBound::END),
        );
        if self.from.is_some() && self.to.is_some() {
            teebatch::batch::range::check_order(from, to)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        }
        Ok((from, to))
    }
}

/// How demos are decoded (of `demos index` and `demos export`).
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct DecodeArgs {
    /// Kernel tier (the output is the same for all).
    #[arg(long, value_enum, default_value_t = Backend::Simd)]
    pub backend: Backend,
    /// Most tick markers decoded per demo; a demo with more ends with a
    /// `too_many_ticks` error after them (default: one week at 50 ticks/s).
    #[arg(long, default_value_t = Limits::DEFAULT_MAX_TICKS)]
    pub max_ticks: u64,
    /// Demo files larger than this are not read (error `too_large`): bytes,
    /// or with a binary unit (K, M, G, T: 1K = 1024, 1G = 2^30), e.g. 512M.
    #[arg(long, default_value = "4G", value_name = "SIZE", value_parser = super::parse_byte_size)]
    pub max_file_bytes: u64,
}

impl DecodeArgs {
    /// The run's limits: these flags and `batch`'s over the defaults.
    pub fn limits(&self, batch: &BatchArgs, max_warnings: usize) -> Limits {
        batch.select.limits(Limits {
            max_ticks: self.max_ticks,
            max_warnings,
            max_demo_file_bytes: self.max_file_bytes,
            ..Limits::default()
        })
    }
}

#[derive(clap::Args, Debug)]
pub struct SliceArgs {
    /// The demo to cut.
    pub file: PathBuf,
    /// First tick kept: an absolute server tick, as `demos dump --ticks`
    /// lists them (not a time from the start of the demo).
    #[arg(long)]
    pub from: i32,
    /// Last tick kept (inclusive): an absolute server tick, as `demos dump
    /// --ticks` lists them.
    #[arg(long)]
    pub to: i32,
    /// Leave out chat messages.
    #[arg(long)]
    pub no_chat: bool,
    /// The new demo; must not be the input file (also through links).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// Demo files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Write records here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Record format (demo records are nested: no CSV form).
    #[arg(long, default_value = "jsonl",
          value_parser = super::formats(&[RecordFormat::Jsonl, RecordFormat::Parquet]))]
    pub format: RecordFormat,
    /// Also write the collection summary (a versioned JSON document that
    /// `teebatch merge` combines; see the README) to this file.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub decode: DecodeArgs,
    /// Most warnings kept per demo and stage; one `too_many_warnings`
    /// warning stands for the rest.
    #[arg(long, default_value_t = Limits::DEFAULT_MAX_WARNINGS)]
    pub max_warnings: usize,
    #[command(flatten)]
    pub batch: BatchArgs,
}

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("what").required(true).multiple(false)))]
pub struct DumpArgs {
    /// The demo to print.
    pub file: PathBuf,
    /// Per snapshot or delta chunk: tick, items, checksum.
    #[arg(long, group = "what")]
    pub snapshots: bool,
    /// Per snapshot: kind, items, checksum, data size, canonical CRC-32.
    #[arg(long, group = "what")]
    pub snapshots_full: bool,
    /// Per tick marker: the snapshot in effect.
    #[arg(long, group = "what")]
    pub ticks: bool,
    /// Per data chunk: sizes and CRC-32s of each decoding stage.
    #[arg(long, group = "what")]
    pub chunks: bool,
    /// The chat log: tick, client id, sender name, mode, text.
    #[arg(long, group = "what")]
    pub chat: bool,
    /// Decode on this many threads by splitting at keyframes (same output).
    /// Capped at 256.
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    /// Kernel tier (the output is the same for all).
    #[arg(long, value_enum, default_value_t = Backend::Simd)]
    pub backend: Backend,
}

pub fn run(cmd: DemosCommand) -> io::Result<ExitCode> {
    match cmd {
        DemosCommand::Index(a) => index(a),
        DemosCommand::Dump(a) => dump(a),
        DemosCommand::Slice(a) => slice(a),
        DemosCommand::Export(a) => export(a),
        DemosCommand::Heatmap(a) => super::render::heatmap(a),
    }
}

fn export(args: ExportArgs) -> io::Result<ExitCode> {
    use teebatch::batch::export::{ExportOptions, TableFiles};
    use teebatch::demo::export::TableSet;
    if args.batch.list {
        return args.batch.list(&args.paths, "demo", embedded::demo_inputs);
    }
    let (from, to) = args.range.bounds()?;
    let set = match (args.table, args.tables) {
        (Some(t), _) => TableSet::one(t),
        (None, Some(s)) => s,
        (None, None) => unreachable!("clap requires --table or --tables"),
    };
    // `--tables`: one file per table in `--out DIR`; `--table`: `-o` or
    // stdout.
    let files = TableFiles::new(
        set,
        args.format,
        args.out.as_deref(),
        args.output.as_deref(),
    );
    files.create_dir()?;
    let sel =
        args.batch
            .select_checked(&args.paths, "demo", embedded::demo_inputs, &files.outputs())?;
    let outputs = files.open()?;
    let opts = ExportOptions {
        from,
        to,
        mmap: args.batch.mmap,
        backend: args.decode.backend,
        limits: args
            .decode
            .limits(&args.batch, Limits::DEFAULT_MAX_WARNINGS),
        split_bytes: args.split_bytes,
        every_tick: args.every_tick,
        ..ExportOptions::for_tables(set)
    };
    // Capped again at the units of work (demos, or segments of split ones).
    let jobs = args.batch.jobs(usize::MAX);
    let mut bar = args.batch.bar(&sel, files.on_stdout());
    let (outcome, totals) = outputs.run(&sel, jobs, &opts, &mut bar)?;
    bar.finish();
    if !args.batch.quiet {
        super::note!("{}", outcome.line());
        super::note!("{}", totals.rows_line(set, outcome.elapsed_s));
    }
    Ok(super::exit_code(outcome.is_failure()))
}

fn index(args: IndexArgs) -> io::Result<ExitCode> {
    if args.batch.list {
        return args.batch.list(&args.paths, "demo", embedded::demo_inputs);
    }
    let sel = args.batch.select_checked(
        &args.paths,
        "demo",
        embedded::demo_inputs,
        &[
            ("-o", args.output.as_deref()),
            ("--summary", args.summary.as_deref()),
        ],
    )?;
    let out = args.output.as_deref();
    let mut sink = open_records(args.format, out)?;
    let opts = RunOptions {
        index: IndexOptions {
            mmap: args.batch.mmap,
            backend: args.decode.backend,
            limits: args.decode.limits(&args.batch, args.max_warnings),
        },
        jobs: args.batch.jobs,
    };
    let mut bar = args
        .batch
        .bar(&sel, super::is_stdout(args.output.as_deref()));
    let run = teebatch::batch::demos::run(&sel, &opts, &mut sink, &mut bar);
    bar.finish();
    let run = run?;
    args.batch.report(&run, args.summary.as_deref())?;
    sink.finish()?;
    Ok(super::exit_code(run.outcome.is_failure()))
}

/// A usage error of `demos slice` (exit code 2) in clap's format.
fn usage_error(msg: String) -> ! {
    use clap::CommandFactory;
    let mut cmd = super::Cli::command();
    cmd.build();
    let slice = cmd
        .find_subcommand_mut("demos")
        .and_then(|c| c.find_subcommand_mut("slice"))
        .expect("demos slice is a command");
    slice
        .error(clap::error::ErrorKind::ArgumentConflict, msg)
        .exit()
}

fn slice(args: SliceArgs) -> io::Result<ExitCode> {
    use teebatch::batch::dump::slice_file;
    use teebatch::demo::slice::SliceOptions;
    if args.from > args.to {
        usage_error(format!(
            "--from {} is after --to {}: the range holds no tick",
            args.from, args.to
        ));
    }
    if let Err(e) = teebatch::batch::output::check_output_of(
        "-o",
        Some(&args.output),
        "the input file",
        std::slice::from_ref(&args.file),
    ) {
        usage_error(e.to_string());
    }
    let opts = SliceOptions {
        drop_chat: args.no_chat,
    };
    match slice_file(&args.file, &args.output, args.from, args.to, opts)? {
        Ok((stats, bytes)) => {
            super::note!(
                "{}: ticks {}..={}: {} ticks, {} snapshots, {} messages ({} chat lines dropped), {} bytes",
                args.output.display(),
                args.from,
                args.to,
                stats.ticks,
                stats.snapshots,
                stats.messages,
                stats.chat_dropped,
                bytes
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(message) => {
            super::note!("{message}");
            Ok(ExitCode::from(1))
        }
    }
}

fn dump(args: DumpArgs) -> io::Result<ExitCode> {
    use teebatch::batch::dump::{dump_file, DumpWhat};
    let what = if args.chat {
        DumpWhat::Chat
    } else if args.snapshots {
        DumpWhat::Table(DumpKind::Snapshots)
    } else if args.snapshots_full {
        DumpWhat::Table(DumpKind::SnapshotsFull)
    } else if args.ticks {
        DumpWhat::Table(DumpKind::Ticks)
    } else {
        DumpWhat::Table(DumpKind::Chunks)
    };
    // `Stdout` (not its lock) so the writer can move into the pool.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout());
    match dump_file(&args.file, what, args.backend, args.jobs, &mut out)? {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(message) => {
            super::note!("{message}");
            Ok(ExitCode::from(1))
        }
    }
}
