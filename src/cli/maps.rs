//! `teebatch maps ...` and `teebatch synth maps`.

use super::{open_output, BatchArgs, BatchRun};
use crate::batch::embedded;
use crate::batch::maps::{
    index_input, index_input_then, CsvRow, IndexOptions, MapRecord, Verify, Worker,
};
use crate::batch::summary::MapsAggregate;
use crate::limits::Limits;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

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
}

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// Map files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Write records here instead of stdout.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Record format.
    #[arg(long, value_enum, default_value_t = Format::Json)]
    pub format: Format,
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
    #[arg(long, default_value_t = crate::limits::Limits::DEFAULT_MAX_WARNINGS)]
    pub max_warnings: usize,
    /// Also write a thumbnail of every map, `DIR/<name>.png` (the pictures
    /// of `maps render --max-side 256`), in the same pass over each file. A
    /// map that cannot be drawn gets a warning of stage `render`.
    #[arg(long, value_name = "DIR")]
    pub thumbnails: Option<PathBuf>,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One JSON object per line.
    Json,
    /// Comma-separated values with a header row (flat columns).
    Csv,
    /// Apache Parquet (typed, nested columns; needs `-o FILE`).
    Parquet,
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
    }
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
    let (mut sink, commit) = match args.format {
        Format::Json => {
            let (out, commit) = open_output(args.output.as_deref())?;
            (RecordSink::Json(out), commit)
        }
        Format::Csv => {
            let (out, commit) = open_output(args.output.as_deref())?;
            (
                RecordSink::Csv(Box::new(csv::Writer::from_writer(out)), false),
                commit,
            )
        }
        Format::Parquet => {
            let (w, commit) = super::create_parquet(
                args.output.as_deref(),
                crate::batch::parquet::maps_schema(),
            )?;
            (RecordSink::Parquet(Box::new(w)), commit)
        }
    };
    let opts = IndexOptions {
        verify: args.verify,
        mmap: args.batch.mmap,
        limits: args.limits(),
    };
    let thumbs = match &args.thumbnails {
        Some(dir) => {
            crate::batch::output::create_dir(dir)?;
            Some((
                dir,
                super::render::textures(args.mapres.as_deref(), args.batch.quiet)?,
                super::render::picture_names(&sel.inputs),
                crate::batch::output::InputFiles::of(&sel.inputs),
            ))
        }
        None => None,
    };
    let names_index: std::collections::HashMap<String, usize> = match &thumbs {
        Some(_) => sel
            .inputs
            .iter()
            .enumerate()
            .map(|(i, input)| (input.display_path(), i))
            .collect(),
        None => Default::default(),
    };
    let batch = BatchRun {
        command: "maps index",
        args: &args.batch,
        summary_path: args.summary.as_ref(),
        part: sel.part,
        embedded: sel.embedded,
        nothing_found: sel.nothing_found,
        records_to_stdout: super::is_stdout(args.output.as_deref()),
    };
    let thumb_failures = super::render::WriteFailures::default();
    let (mut code, _) = batch.run(
        &sel.inputs,
        || (Worker::new(opts.limits), MapsAggregate::default()),
        |w, input| match &thumbs {
            None => index_input(&mut w.0, input, &opts),
            Some((dir, textures, names, input_files)) => {
                index_input_then(&mut w.0, input, &opts, |bytes, inflater, buf, rec| {
                    if rec.error.is_some() {
                        // The record already says why the map is unusable.
                        return;
                    }
                    let name = &names[names_index[&rec.path]];
                    let path = dir.join(format!("{name}.png"));
                    if let Some(warning) = super::render::write_thumbnail(
                        bytes,
                        textures,
                        inflater,
                        buf,
                        &path,
                        input_files,
                        &thumb_failures,
                    ) {
                        rec.warnings.push(warning);
                    }
                })
            }
        },
        |rec: &MapRecord| rec.size,
        |rec| sink.write(rec),
        |w| std::mem::take(&mut w.0.stats),
        |w| &mut w.1,
    )?;
    sink.finish()?;
    commit.commit()?;
    if let Some((n, first)) = thumb_failures.report() {
        // The records carry each failure as a warning; a picture that
        // could not be written still fails the run.
        super::note!("teebatch: {n} thumbnails could not be written (the first: {first})");
        code = ExitCode::from(1);
    }
    Ok(code)
}

/// A CSV error as an I/O error, keeping the kind of an underlying I/O
/// error (a closed pipe must stay recognisable).
fn csv_io_error(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// Records on their way out, in the chosen format; each is flushed as soon
/// as it is written.
enum RecordSink {
    Json(super::RecordOut),
    /// The writer, and whether a row was written (the header comes with
    /// the first row, else at the end).
    Csv(Box<csv::Writer<super::RecordOut>>, bool),
    Parquet(Box<crate::batch::parquet::ParquetSink<super::RecordOut>>),
}

impl RecordSink {
    fn write(&mut self, r: &MapRecord) -> io::Result<()> {
        match self {
            RecordSink::Json(out) => super::write_json_line(out, r),
            RecordSink::Csv(w, wrote) => {
                w.serialize(r.csv_row()).map_err(csv_io_error)?;
                *wrote = true;
                w.flush()
            }
            RecordSink::Parquet(w) => w.write(r),
        }
    }

    fn finish(self) -> io::Result<()> {
        match self {
            RecordSink::Json(mut out) => out.flush(),
            RecordSink::Csv(mut w, wrote) => {
                if !wrote {
                    w.write_record(&csv_header()?).map_err(csv_io_error)?;
                }
                w.flush()
            }
            RecordSink::Parquet(w) => w.finish()?.flush(),
        }
    }
}

/// The CSV header row: the field names of [`CsvRow`], as `serialize`
/// writes them before the first row.
fn csv_header() -> io::Result<csv::StringRecord> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.serialize(CsvRow::default()).map_err(csv_io_error)?;
    let bytes = w
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut rd = csv::Reader::from_reader(bytes.as_slice());
    rd.headers().cloned().map_err(csv_io_error)
}

#[cfg(feature = "synth")]
pub fn run_synth(cmd: SynthCommand) -> io::Result<ExitCode> {
    match cmd {
        SynthCommand::Maps(a) => {
            crate::batch::output::create_dir(&a.out)?;
            let mut bytes = 0;
            for i in 0..a.count {
                let params = crate::synth::map::SynthParams::collection(a.seed, i);
                let map = crate::synth::map::generate(&params);
                bytes += map.len();
                crate::batch::output::write_atomic(&a.out.join(synth_map_name(a.seed, i)), &map)?;
            }
            super::note!(
                "synth maps: wrote {} maps, {:.2} MB, to {}",
                a.count,
                bytes as f64 / 1e6,
                a.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        SynthCommand::Demos(a) => {
            use crate::synth::demo::{generate_to, SynthParams};
            crate::batch::output::create_dir(&a.out)?;
            let start = std::time::Instant::now();
            let mut bytes = 0;
            for i in 0..a.count {
                let mut p = SynthParams::collection(a.seed, i);
                if let Some(n) = a.players {
                    p.players = n.clamp(1, 64);
                }
                if let Some(s) = a.seconds {
                    p.duration_ticks = (s.min(24 * 3600) * 50) as i32;
                }
                let path = a.out.join(synth_demo_name(a.seed, i));
                let (file, pending) = crate::batch::output::create(&path)?;
                let mut file = io::BufWriter::new(file);
                generate_to(&p, &mut file).map_err(io::Error::other)?;
                file.flush()?;
                drop(file);
                pending.commit()?;
                bytes += std::fs::metadata(&path)?.len();
            }
            super::note!(
                "synth demos: wrote {} demos, {:.2} MB, to {} in {:.1} s",
                a.count,
                bytes as f64 / 1e6,
                a.out.display(),
                start.elapsed().as_secs_f64()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// File name of demo `index` of a generated collection.
#[cfg(feature = "synth")]
pub fn synth_demo_name(seed: u64, index: u32) -> String {
    format!("synth-s{seed}-{index:04}.demo")
}

/// File name of map `index` of a generated collection.
#[cfg(feature = "synth")]
pub fn synth_map_name(seed: u64, index: u32) -> String {
    format!("synth-s{seed}-{index:04}.map")
}
