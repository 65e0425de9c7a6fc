//! `teebatch maps info`, `maps extract` and `maps diff`: parse, call the
//! library run ([`teebatch::batch::info`], [`teebatch::batch::extract`],
//! [`teebatch::batch::diff`]), print.

use super::BatchArgs;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use teebatch::batch::extract::{self, ExtractOptions, ManifestFormat};
use teebatch::batch::{diff as mapdiff, embedded, info as mapinfo, output};
use teebatch::limits::Limits;

/// Text for people, or one JSON document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TextFormat {
    Text,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// The map file.
    pub path: PathBuf,
    /// Output format (json: one pretty-printed document).
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
}

#[derive(clap::Args, Debug)]
pub struct ExtractArgs {
    /// Map files, directories or archives (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// The folder to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Manifest format: csv, or jsonl (JSON lines; `json` is the same).
    #[arg(long, value_enum, default_value_t = ManifestFormat::Csv)]
    pub manifest_format: ManifestFormat,
    /// The manifest file (`-`: stdout). Default: DIR/manifest.csv, or
    /// DIR/manifest.jsonl with --manifest-format jsonl.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    #[command(flatten)]
    pub batch: BatchArgs,
}

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// Records (`maps index` JSON lines) or a `maps index --summary` of
    /// the earlier run.
    pub old: PathBuf,
    /// The same of the later run.
    pub new: PathBuf,
    /// Output format (json: one pretty-printed document).
    #[arg(long, value_enum, default_value_t = TextFormat::Text)]
    pub format: TextFormat,
}

/// Prints `doc` as pretty JSON, or through `text`, on stdout.
fn print<T: serde::Serialize>(
    format: TextFormat,
    doc: &T,
    text: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    match format {
        TextFormat::Json => {
            serde_json::to_writer_pretty(&mut out, doc)?;
            out.write_all(b"\n")?;
        }
        TextFormat::Text => text(&mut out)?,
    }
    out.flush()
}

pub fn info(args: InfoArgs) -> io::Result<ExitCode> {
    let report = mapinfo::info_file(&args.path, &Limits::default())?;
    print(args.format, &report, |out| report.write_text(out))?;
    Ok(super::exit_code(report.is_failure()))
}

pub fn extract(args: ExtractArgs) -> io::Result<ExitCode> {
    if args.batch.list {
        return args.batch.list(&args.paths, "map", embedded::map_inputs);
    }
    let manifest = args
        .manifest
        .clone()
        .unwrap_or_else(|| args.out.join(args.manifest_format.default_name()));
    output::create_dir(&args.out)?;
    let sel = args.batch.select_checked(
        &args.paths,
        "map",
        embedded::map_inputs,
        &[("--manifest", Some(&manifest))],
    )?;
    let opts = ExtractOptions {
        out: args.out.clone(),
        mmap: args.batch.mmap,
        jobs: args.batch.jobs,
        limits: args.batch.select.limits(Limits::default()),
    };
    let mut bar = args.batch.bar(&sel, super::is_stdout(Some(&manifest)));
    let outcome = extract::run_to_file(&sel, &opts, args.manifest_format, &manifest, &mut bar);
    bar.finish();
    let outcome = outcome?;
    if !args.batch.quiet {
        super::note!("{}", outcome.line());
    }
    Ok(super::exit_code(outcome.is_failure()))
}

pub fn diff(args: DiffArgs) -> io::Result<ExitCode> {
    let old = mapdiff::read_side(&args.old)?;
    let new = mapdiff::read_side(&args.new)?;
    let d = mapdiff::diff(&old.entries, &new.entries)?;
    print(args.format, &d, |out| d.write_text(out))?;
    Ok(ExitCode::from(u8::from(d.differs())))
}
