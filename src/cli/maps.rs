//! `teebatch maps ...` and `teebatch synth maps`.

use super::{open_output, BatchArgs};
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use teebatch::batch::embedded;
use teebatch::batch::maps::{open_records, IndexOptions, RunOptions, Thumbnails, Verify};
use teebatch::batch::sink::RecordFormat;
use teebatch::limits::Limits;

#[derive(clap::Subcommand, Debug)]
pub enum MapsCommand {
    /// Parse, verify and index maps: one record per map.
    ///
    /// PATHs are files or directory trees (searched recursively for *.map).
    /// The PATH `-` is a tar stream on stdin (records named by member name).
    /// With no PATH the embedded default dataset is indexed (record paths
    /// `embedded:datasets/maps/...`).
    ///
    /// Exit code: 0 all maps good, 1 some map failed or no *.map file was
    /// found (a warning on stderr names the paths searched), 2 usage error.
    Index(IndexArgs),
    /// Draw maps as PNG pictures: `DIR/<name>.png` per map, one record per
    /// map on stdout (see the README's "Pictures" section).
    ///
    /// Exit code: 0 all maps drawn, 1 some map failed, 2 usage error.
    Render(super::render::RenderArgs),
    /// Show one map inside: header, item types, groups and layers, images,
    /// envelopes, sounds and server settings (docs/map-tools.md).
    ///
    /// Exit code: 0, 1 the file is not a readable map (what was read is
    /// still shown), 2 usage or I/O error.
    Info(super::maptools::InfoArgs),
    /// Write the embedded images (PNG) and sounds (opus) of maps into a
    /// folder, one file per content, and a manifest (docs/map-tools.md).
    ///
    /// Exit code: 0, 1 some map, image or sound failed or no map was
    /// found, 2 usage error.
    Extract(super::maptools::ExtractArgs),
    /// Compare two runs of `maps index` (records or summaries): maps
    /// added, removed, changed and renamed (docs/map-tools.md).
    ///
    /// Exit code: 0 no difference, 1 differences, 2 usage or bad input.
    Diff(super::maptools::DiffArgs),
    /// Check maps against the rules a DDNet map tester applies: one record
    /// per finding, then one per map (see docs/map-check.md).
    ///
    /// Exit code: 0 no finding of severity error, 1 some map has an error
    /// finding or could not be read (or no *.map file was found), 2 usage
    /// error.
    Check(CheckArgs),
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Map files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Rules to apply, comma-separated ids, or `all`.
    #[arg(long, value_delimiter = ',', default_value = "all", value_name = "ID,...",
          value_parser = parse_rule)]
    pub rules: Vec<String>,
    /// Record format: JSON lines, or one line of text per record.
    #[arg(long, value_enum, default_value_t = teebatch::batch::check::CheckFormat::Jsonl)]
    pub format: teebatch::batch::check::CheckFormat,
    /// Also write the counts per rule and severity (JSON) to this file.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    #[command(flatten)]
    pub batch: BatchArgs,
}

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// Map files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Write records here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Record format.
    #[arg(long, value_enum, default_value_t = RecordFormat::Jsonl)]
    pub format: RecordFormat,
    /// Inflate every data block (sizes and zlib checksums checked) and add
    /// hashes of the decompressed data: `--verify` (= `--verify=full`) adds
    /// `data_crc32` and `data_sha256` (the content hash; SHA-256 costs
    /// several times the inflate), `--verify=crc` only `data_crc32`,
    /// `--verify=inflate` no hash (the integrity check alone, at about the
    /// cost of the inflate).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true,
          default_missing_value = "full", default_value = "off", value_name = "LEVEL")]
    pub verify: Verify,
    /// Also write the collection summary (a versioned JSON document that
    /// `teebatch merge` combines; see the README) to this file.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Per-file limit on decompressed bytes: bytes, or with a binary unit
    /// (K, M, G, T: 1K = 1024, 1G = 2^30), e.g. 512M.
    #[arg(long, default_value = "1G", value_name = "SIZE", value_parser = super::parse_byte_size)]
    pub max_decompressed_bytes: u64,
    /// Most warnings kept per map and stage (datafile, map); one
    /// `too_many_warnings` warning stands for the rest.
    #[arg(long, default_value_t = teebatch::limits::Limits::DEFAULT_MAX_WARNINGS)]
    pub max_warnings: usize,
    /// Also write a thumbnail of every map, `DIR/<name>-<sha256>.png` (the
    /// pictures of `maps render --max-side 256`; the record's `thumbnail`
    /// names it), in the same pass over each file. A map that cannot be
    /// drawn gets a warning of stage `render`.
    #[arg(long, value_name = "DIR")]
    pub thumbnails: Option<PathBuf>,
    /// The thumbnails' style (as for `maps render`).
    #[arg(long, value_enum, default_value_t = super::render::StyleArg::Entities, requires = "thumbnails")]
    pub style: super::render::StyleArg,
    #[command(flatten)]
    pub picture: super::render::PictureArgs,
    /// Folder with DDNet's textures for --thumbnails (as for `maps render`).
    #[arg(long, value_name = "DIR", requires = "thumbnails")]
    pub mapres: Option<PathBuf>,
    #[command(flatten)]
    pub batch: BatchArgs,
}

impl IndexArgs {
    /// The run's limits: the flags over the defaults.
    pub fn limits(&self) -> Limits {
        self.batch.select.limits(Limits {
            max_decompressed_bytes: self.max_decompressed_bytes,
            max_warnings: self.max_warnings,
            ..Limits::default()
        })
    }
}

#[derive(clap::Subcommand, Debug)]
pub enum SynthCommand {
    /// Generate synthetic maps with teebatch's own map writer.
    Maps(SynthMapsArgs),
    /// Generate synthetic demos (players moving, shooting, chatting, dying)
    /// with teebatch's own demo writer.
    Demos(SynthDemosArgs),
}

#[derive(clap::Args, Debug)]
pub struct SynthDemosArgs {
    /// Directory to write the demos to (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of demos.
    #[arg(long, default_value_t = 6)]
    pub count: u32,
    /// Seed of the generator: the same seed and count give the same files.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Players in every demo (default: 1 to 64, varying).
    #[arg(long)]
    pub players: Option<usize>,
    /// Length of every demo in seconds (default: 20 to 120, varying).
    #[arg(long)]
    pub seconds: Option<u32>,
}

#[derive(clap::Args, Debug)]
pub struct SynthMapsArgs {
    /// Directory to write the maps to (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Number of maps.
    #[arg(long, default_value_t = 8)]
    pub count: u32,
    /// Seed of the generator: the same seed and count give the same files.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(cmd: MapsCommand) -> io::Result<ExitCode> {
    match cmd {
        MapsCommand::Index(args) => index(args),
        MapsCommand::Render(args) => super::render::render(args),
        MapsCommand::Info(args) => super::maptools::info(args),
        MapsCommand::Extract(args) => super::maptools::extract(args),
        MapsCommand::Diff(args) => super::maptools::diff(args),
        MapsCommand::Check(args) => check(args),
    }
}

/// One `--rules` entry: a rule id or `all` (else a usage error).
fn parse_rule(s: &str) -> Result<String, String> {
    teebatch::map::check::RuleSet::parse(&[s]).map(|_| s.trim().to_owned())
}

fn check(args: CheckArgs) -> io::Result<ExitCode> {
    use teebatch::batch::check;
    if args.batch.list {
        return args.batch.list(&args.paths, "map", embedded::map_inputs);
    }
    let rules = teebatch::map::check::RuleSet::parse(&args.rules)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("--rules: {e}")))?;
    let sel = args.batch.select_checked(
        &args.paths,
        "map",
        embedded::map_inputs,
        &[("--summary", args.summary.as_deref())],
    )?;
    let opts = check::CheckOptions {
        rules,
        mmap: args.batch.mmap,
        limits: args.batch.select.limits(Limits::default()),
        jobs: args.batch.jobs,
    };
    let mut bar = args.batch.bar(&sel, true);
    let (mut out, _stdout) = open_output(None)?;
    let run = check::write(&sel, &opts, args.format, &mut out, &mut bar);
    bar.finish();
    let run = run?;
    if !args.batch.quiet {
        super::note!("{}", run.outcome.line());
        super::note!("{}", run.findings_line());
    }
    if let Some(p) = &args.summary {
        run.write_summary(p)?;
    }
    Ok(super::exit_code(run.is_failure()))
}

fn index(args: IndexArgs) -> io::Result<ExitCode> {
    if args.batch.list {
        return args.batch.list(&args.paths, "map", embedded::map_inputs);
    }
    let sel = args.batch.select_checked(
        &args.paths,
        "map",
        embedded::map_inputs,
        &[
            ("-o", args.output.as_deref()),
            ("--summary", args.summary.as_deref()),
        ],
    )?;
    let out = args.output.as_deref();
    let mut sink = open_records(args.format, out)?;
    if args.thumbnails.is_none()
        && (args.picture.no_legend || args.picture.crop != super::render::CropArg::None)
    {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--crop and --no-legend are options of the pictures: give --thumbnails DIR too",
        ));
    }
    let thumbnails = match &args.thumbnails {
        Some(dir) => Some(Thumbnails::create(
            dir,
            super::render::textures(args.mapres.as_deref(), args.batch.quiet)?,
            args.picture
                .options(args.style, teebatch::batch::render::THUMBNAIL_SIZE),
        )?),
        None => None,
    };
    let opts = RunOptions {
        index: IndexOptions {
            verify: args.verify,
            mmap: args.batch.mmap,
            limits: args.limits(),
        },
        jobs: args.batch.jobs,
        thumbnails,
    };
    let mut bar = args
        .batch
        .bar(&sel, super::is_stdout(args.output.as_deref()));
    let run = teebatch::batch::maps::run(&sel, &opts, &mut sink, &mut bar);
    bar.finish();
    let run = run?;
    args.batch.report(&run.index, args.summary.as_deref())?;
    sink.finish()?;
    if let Some((n, first)) = &run.thumbnail_failures {
        // The records carry each failure as a warning; a picture that
        // could not be written still fails the run.
        super::note!("teebatch: {n} thumbnails could not be written (the first: {first})");
    }
    Ok(super::exit_code(run.is_failure()))
}

#[cfg(feature = "synth")]
pub fn run_synth(cmd: SynthCommand) -> io::Result<ExitCode> {
    use teebatch::batch::generate::{write_demos, write_maps};
    match cmd {
        SynthCommand::Maps(a) => {
            let bytes = write_maps(&a.out, a.seed, a.count)?;
            super::note!(
                "synth maps: wrote {} maps, {:.2} MB, to {}",
                a.count,
                bytes as f64 / 1e6,
                a.out.display()
            );
        }
        SynthCommand::Demos(a) => {
            let start = std::time::Instant::now();
            let bytes = write_demos(&a.out, a.seed, a.count, a.players, a.seconds)?;
            super::note!(
                "synth demos: wrote {} demos, {:.2} MB, to {} in {:.1} s",
                a.count,
                bytes as f64 / 1e6,
                a.out.display(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
