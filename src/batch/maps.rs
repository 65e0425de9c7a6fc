//! `maps index`: one record per map, and the run over a collection.

use super::record::{Body, ErrorRecord, Record, WarningRecord};
use super::run::{run_records, IndexRun, Observer, Selection};
use super::sink::RecordSink;
use super::summary::MapsAggregate;
use super::{load, Input, MmapMode};
use crate::datafile::{Datafile, Inflater, Layout};
use crate::limits::Limits;
use crate::map::MapStats;
use crate::warn::Warnings;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// What `maps index --verify` does beyond the index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Verify {
    /// No data block is inflated beyond what the map summary reads.
    #[default]
    Off,
    /// Inflate every data block, checking its size against the size table
    /// and its zlib Adler-32 (libdeflate checks it while inflating), and
    /// report nothing but errors: the integrity check alone, at about the
    /// cost of the inflate.
    Inflate,
    /// As `inflate`, and report `data_crc32` (a second pass over the
    /// inflated bytes: about a quarter of the inflate's time).
    Crc,
    /// As `crc`, and also report `data_sha256`, the content hash that finds
    /// maps with equal content however they were compressed. SHA-256 costs
    /// several times the inflate (even with the CPU's SHA instructions).
    Full,
}

impl std::str::FromStr for Verify {
    type Err = String;

    /// The name `--verify` takes (`off`, `inflate`, `crc`, `full`).
    fn from_str(s: &str) -> Result<Verify, String> {
        Verify::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| format!("{s:?} is not one of off, inflate, crc, full"))
    }
}

impl Verify {
    pub const ALL: [Verify; 4] = [Verify::Off, Verify::Inflate, Verify::Crc, Verify::Full];

    /// The name `--verify` takes.
    pub fn name(self) -> &'static str {
        match self {
            Verify::Off => "off",
            Verify::Inflate => "inflate",
            Verify::Crc => "crc",
            Verify::Full => "full",
        }
    }

    /// Whether every data block is inflated.
    pub fn inflates(self) -> bool {
        self != Verify::Off
    }

    /// Whether the record reports `data_crc32`.
    pub(crate) fn reports_crc32(self) -> bool {
        matches!(self, Verify::Crc | Verify::Full)
    }

    /// Whether the record reports `data_sha256`.
    pub(crate) fn reports_sha256(self) -> bool {
        self == Verify::Full
    }
}

/// Options of one `maps index` run.
#[derive(Clone, Copy, Debug)]
pub struct IndexOptions {
    /// Inflate every data block and report its hashes (see [`Verify`]).
    pub verify: Verify,
    pub mmap: MmapMode,
    /// Files larger than [`Limits::max_map_file_bytes`] are not read (an
    /// error of kind `too_large`); [`Limits::max_decompressed_bytes`] is
    /// each file's inflate budget; [`Limits::max_warnings`] caps the
    /// datafile's and the map's warnings, each.
    pub limits: Limits,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            verify: Verify::Off,
            mmap: MmapMode::Never,
            limits: Limits::default(),
        }
    }
}

/// One line of `maps index` output: the envelope around a [`MapBody`].
pub type MapRecord = Record<MapBody>;

/// The fields of a `maps index` record between `size` and `warnings`.
///
/// Fields that could not be determined because of an error are absent
/// (`None`); everything decoded before the fault is kept.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MapBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crc32: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub datafile_version: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_item_types: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_items: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_data: Option<usize>,
    /// Bytes of the data section as stored (compressed for v4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compressed_bytes: Option<u64>,
    /// Uncompressed bytes of all data blocks, per the size table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decompressed_bytes: Option<u64>,
    /// With `--verify` (`crc` or `full`): CRC-32 of all decompressed data
    /// blocks concatenated in index order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_crc32: Option<String>,
    /// With `--verify` (`full`): SHA-256 of the same bytes as `data_crc32`: equal
    /// for maps whose content is identical however it was compressed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<crate::map::MapSummary>,
    /// With `--thumbnails DIR`: the thumbnail's file name in DIR
    /// (`<name>-<sha256>.png`, see [`super::render::picture_name`]), when
    /// it was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thumbnail: Option<String>,
    /// Names of the external images (mapres), for the collection summary;
    /// not part of the record output.
    #[serde(skip)]
    pub external_images: Vec<String>,
}

impl Body for MapBody {}

/// The flat CSV row of a record (`maps index --format csv`): one column
/// per field, `None` as an empty cell.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CsvRow<'a> {
    pub path: &'a str,
    pub name: &'a str,
    pub size: u64,
    pub crc32: Option<&'a str>,
    pub sha256: Option<&'a str>,
    pub datafile_version: Option<&'a str>,
    pub num_item_types: Option<usize>,
    pub num_items: Option<usize>,
    pub num_data: Option<usize>,
    pub compressed_bytes: Option<u64>,
    pub decompressed_bytes: Option<u64>,
    pub data_crc32: Option<&'a str>,
    pub data_sha256: Option<&'a str>,
    pub map_version_kind: Option<&'a str>,
    pub author: Option<&'a str>,
    pub game_width: Option<u32>,
    pub game_height: Option<u32>,
    pub spawns: Option<u64>,
    /// DDNet special tiles present, space-separated.
    pub special_tiles: Option<String>,
    /// With `--thumbnails`: the thumbnail's file name.
    pub thumbnail: Option<&'a str>,
    pub warnings: usize,
    pub error_stage: Option<&'a str>,
    pub error_kind: Option<&'a str>,
    pub error_section: Option<&'a str>,
    pub error_offset: Option<u64>,
    pub error_message: Option<&'a str>,
}

impl MapRecord {
    /// The record as a flat CSV row.
    pub fn csv_row(&self) -> CsvRow<'_> {
        let (r, b) = (self, &self.body);
        let e = r.error.as_ref();
        let m = b.map.as_ref();
        let stats = m.and_then(|m| m.stats.as_ref());
        CsvRow {
            path: &r.path,
            name: &r.name,
            size: r.size,
            crc32: b.crc32.as_deref(),
            sha256: b.sha256.as_deref(),
            datafile_version: b.datafile_version,
            num_item_types: b.num_item_types,
            num_items: b.num_items,
            num_data: b.num_data,
            compressed_bytes: b.compressed_bytes,
            decompressed_bytes: b.decompressed_bytes,
            data_crc32: b.data_crc32.as_deref(),
            data_sha256: b.data_sha256.as_deref(),
            map_version_kind: m.map(|m| m.version_kind),
            author: m.and_then(|m| m.info.as_ref()?.author.as_deref()),
            game_width: stats.and_then(|s| s.game_width),
            game_height: stats.and_then(|s| s.game_height),
            spawns: stats.map(MapStats::spawns),
            special_tiles: stats.map(|s| s.special_tiles.join(" ")),
            thumbnail: b.thumbnail.as_deref(),
            warnings: r.warnings.len(),
            error_stage: e.map(|e| e.stage.name()),
            error_kind: e.map(|e| e.kind),
            error_section: e.map(|e| e.section.as_str()),
            error_offset: e.map(|e| e.offset),
            error_message: e.map(|e| e.message.as_str()),
        }
    }
}

/// What one worker keeps between files.
pub struct Worker {
    pub read_buf: Vec<u8>,
    pub data_buf: Vec<u8>,
    pub inflater: Inflater,
}

impl Worker {
    pub fn new(limits: Limits) -> Self {
        Worker {
            read_buf: Vec::new(),
            data_buf: Vec::new(),
            inflater: Inflater::new(limits.datafile()),
        }
    }
}

/// Indexes one map.
pub fn index_input(w: &mut Worker, input: &Input, opts: &IndexOptions) -> MapRecord {
    index_input_then(w, input, opts, |_, _, _, _| {})
}

/// [`index_input`], then `then(bytes, inflater, scratch, record)` on the
/// same bytes before they are released (e.g. to draw a thumbnail in the
/// same pass over the file); not called when the file could not be read.
pub(crate) fn index_input_then(
    w: &mut Worker,
    input: &Input,
    opts: &IndexOptions,
    then: impl FnOnce(&[u8], &mut Inflater, &mut Vec<u8>, &mut MapRecord),
) -> MapRecord {
    let mut rec = MapRecord::of(input);
    if rec.refuse_over(input, opts.limits.max_map_file_bytes) {
        return rec;
    }
    let Worker {
        read_buf,
        data_buf,
        inflater,
    } = w;
    match load(input, opts.mmap, read_buf) {
        Ok(bytes) => {
            index_bytes(&mut rec, &bytes, opts, inflater, data_buf);
            then(&bytes, inflater, data_buf, &mut rec);
        }
        Err(e) => rec.fail(ErrorRecord::io(&e)),
    }
    crate::limits::shrink_buffer(data_buf);
    crate::limits::shrink_buffer(read_buf);
    inflater.shrink_block_buffer(Limits::KEEP_WORKER_BUFFER_BYTES);
    rec
}

impl MapBody {
    /// The fields the datafile header gives, and the total decompressed
    /// size the tables claim.
    fn set_header(&mut self, l: &Layout, decompressed_bytes: Option<u64>) {
        self.datafile_version = Some(l.version.name());
        self.num_item_types = Some(l.num_item_types);
        self.num_items = Some(l.num_items);
        self.num_data = Some(l.num_data);
        self.compressed_bytes = Some(l.data_size as u64);
        self.decompressed_bytes = decompressed_bytes;
    }
}

/// Fills `rec` from the bytes of one map.
pub fn index_bytes(
    rec: &mut MapRecord,
    bytes: &[u8],
    opts: &IndexOptions,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
) {
    rec.size = bytes.len() as u64;
    rec.body.crc32 = Some(format!("{:08x}", crc32fast::hash(bytes)));
    rec.body.sha256 = Some(hex::encode(Sha256::digest(bytes)));
    // The warnings of a file whose tables do not parse are left out with
    // it: the record has the error.
    let max_warnings = opts.limits.max_warnings;
    let mut df_warnings = Warnings::new(max_warnings);
    let df = match Datafile::parse_observed(bytes, &mut df_warnings) {
        Ok(df) => df,
        Err(e) => {
            // What the header says is kept where it was read (a truncated
            // file).
            if let Ok(l) = Datafile::layout(bytes) {
                rec.body.set_header(&l, l.data_size_total(bytes));
            }
            rec.fail(ErrorRecord::datafile(&e));
            return;
        }
    };
    rec.body.set_header(df.header(), Some(df.data_size_total()));
    rec.warn(df_warnings.iter().map(WarningRecord::datafile));
    inflater.start_file();
    if opts.verify.inflates() {
        let mut crc = opts.verify.reports_crc32().then(crc32fast::Hasher::new);
        let mut sha = opts.verify.reports_sha256().then(Sha256::new);
        for i in 0..df.num_data() {
            let block = match df.decompress_block(i, inflater) {
                Ok(block) => block,
                Err(e) => {
                    rec.fail(ErrorRecord::datafile(&e));
                    break;
                }
            };
            if let Some(crc) = &mut crc {
                crc.update(block);
            }
            if let Some(sha) = &mut sha {
                sha.update(block);
            }
        }
        if !rec.is_failed() {
            rec.body.data_crc32 = crc.map(|crc| format!("{:08x}", crc.finalize()));
            rec.body.data_sha256 = sha.map(|sha| hex::encode(sha.finalize()));
        }
        inflater.start_file();
    }
    add_map_summary(rec, &df, inflater, buf, max_warnings);
}

/// The map-level part of a record: the summary, its warnings (moved to the
/// record's list), or the map-level error (kept after any earlier error).
fn add_map_summary(
    rec: &mut MapRecord,
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    max_warnings: usize,
) {
    // As for the datafile, the warnings of a map part with an error are
    // left out with it.
    let mut warnings = Warnings::new(max_warnings);
    match crate::map::summarize_observed(df, inflater, buf, &mut warnings) {
        Ok(mut summary) => {
            summary.warnings = warnings.into_vec();
            rec.warn(summary.warnings.iter().map(WarningRecord::map));
            rec.body.external_images = std::mem::take(&mut summary.external_images);
            rec.body.map = Some(summary);
        }
        Err(e) => rec.fail(ErrorRecord::map(&e)),
    }
}

impl super::sink::CsvRecord for MapRecord {
    type Row<'a> = CsvRow<'a>;
    fn csv_row(&self) -> CsvRow<'_> {
        MapRecord::csv_row(self)
    }
}

/// The thumbnails of a `maps index` run: `dir/<name>-<sha256>.png` per
/// map (see [`super::render::picture_name`]), drawn in the same pass over
/// each file (cargo feature `render`).
#[cfg(feature = "render")]
pub struct Thumbnails {
    /// The folder (it must exist).
    pub dir: std::path::PathBuf,
    /// The textures to draw with ([`crate::render::Textures::locate`]).
    pub textures: crate::render::Textures,
    /// Style, size, crop and legend ([`super::render::PictureOptions::thumbnails`]
    /// unless `--style`, `--crop` or `--no-legend` say otherwise).
    pub picture: super::render::PictureOptions,
}

#[cfg(feature = "render")]
impl Thumbnails {
    /// Thumbnails into `dir`, created if missing.
    pub fn create(
        dir: &std::path::Path,
        textures: crate::render::Textures,
        picture: super::render::PictureOptions,
    ) -> std::io::Result<Thumbnails> {
        super::output::create_dir(dir)?;
        Ok(Thumbnails {
            dir: dir.to_path_buf(),
            textures,
            picture,
        })
    }
}

/// The records of a `maps index` run, as `format`, to `path` (`None` or
/// `-`: stdout).
pub fn open_records(
    format: super::sink::RecordFormat,
    path: Option<&std::path::Path>,
) -> std::io::Result<super::sink::RecordFile<MapRecord>> {
    use super::sink::{RecordFile, RecordFormat};
    match format {
        RecordFormat::Jsonl => RecordFile::json(path),
        RecordFormat::Csv => RecordFile::csv(path),
        #[cfg(feature = "parquet")]
        RecordFormat::Parquet => RecordFile::parquet(path, super::parquet::maps_schema()),
        #[cfg(not(feature = "parquet"))]
        RecordFormat::Parquet => RecordFile::parquet_not_built(),
    }
}

/// Options of a `maps index` run.
pub struct RunOptions {
    /// What is done with each map.
    pub index: IndexOptions,
    /// Worker threads (`None` or 0: all cores; capped at the inputs).
    pub jobs: Option<usize>,
    #[cfg(feature = "render")]
    pub thumbnails: Option<Thumbnails>,
}

/// A finished `maps index` run.
#[derive(Debug)]
pub struct MapsRun {
    /// The summary document and the outcome.
    pub index: IndexRun<MapsAggregate>,
    /// How many thumbnails could not be written, and the first failure's
    /// message (each map's record has its failure as a warning; a picture
    /// not written still fails the run).
    pub thumbnail_failures: Option<(u64, String)>,
}

impl MapsRun {
    /// Whether the run failed (see [`RunOutcome::is_failure`]), or a
    /// thumbnail could not be written.
    ///
    /// [`RunOutcome::is_failure`]: super::run::RunOutcome::is_failure
    pub fn is_failure(&self) -> bool {
        self.index.outcome.is_failure() || self.thumbnail_failures.is_some()
    }
}

/// Indexes every map of `sel`: the records reach `sink` in input order,
/// `observer` after each; returns the summary of the run. A write error
/// of the sink stops the run and is returned.
pub fn run(
    sel: &Selection,
    opts: &RunOptions,
    sink: &mut dyn RecordSink<MapRecord>,
    observer: &mut dyn Observer,
) -> std::io::Result<MapsRun> {
    #[cfg(feature = "render")]
    use super::render::{picture_name, write_thumbnail, WriteFailures};
    #[cfg(feature = "render")]
    let thumbs = opts
        .thumbnails
        .as_ref()
        .map(|t| (t, super::output::InputFiles::of(&sel.inputs)));
    #[cfg(feature = "render")]
    let failures = WriteFailures::default();
    let index = &opts.index;
    let (run, _) = run_records(
        "maps index",
        sel,
        opts.jobs,
        || (Worker::new(index.limits), MapsAggregate::default()),
        |w, input| {
            #[cfg(feature = "render")]
            if let Some((t, input_files)) = &thumbs {
                return index_input_then(&mut w.0, input, index, |bytes, inflater, buf, rec| {
                    let Some(sha) = rec.body.sha256.as_deref().filter(|_| !rec.is_failed()) else {
                        // The record already says why the map is unusable.
                        return;
                    };
                    let name = picture_name(&rec.name, sha);
                    let path = t.dir.join(&name);
                    match write_thumbnail(
                        bytes,
                        &t.picture,
                        &t.textures,
                        inflater,
                        buf,
                        &path,
                        input_files,
                        &failures,
                    ) {
                        Some(warning) => rec.warn([warning]),
                        None => rec.body.thumbnail = Some(name),
                    }
                });
            }
            index_input(&mut w.0, input, index)
        },
        sink,
        observer,
        |w| &mut w.1,
    )?;
    let mut run = run;
    run.summary.options = counting_options(opts);
    Ok(MapsRun {
        index: run,
        #[cfg(feature = "render")]
        thumbnail_failures: failures.report(),
        #[cfg(not(feature = "render"))]
        thumbnail_failures: None,
    })
}

/// The summary option `thumbnails`: `false`, `true`, or `full` for `--style
/// full` thumbnails.
fn thumbnails_option(opts: &RunOptions) -> &'static str {
    #[cfg(feature = "render")]
    match &opts.thumbnails {
        None => "false",
        Some(t) if t.picture.render.style == crate::render::Style::Full => "full",
        Some(_) => "true",
    }
    #[cfg(not(feature = "render"))]
    {
        let _ = opts;
        "false"
    }
}

/// The options of a `maps index` run that change its summary's counts:
/// the `--verify` level (errors only inflating finds), `--thumbnails`
/// (their warnings; `full` for `--style full` thumbnails), and the limits (errors and warnings past them).
pub fn counting_options(opts: &RunOptions) -> super::summary::CountingOptions {
    let l = &opts.index.limits;
    super::summary::counting_options([
        ("verify", opts.index.verify.name().to_owned()),
        // `full` thumbnails can fail where `entities` ones draw (their
        // failures are warnings of the records).
        ("thumbnails", thumbnails_option(opts).to_owned()),
        (
            "max_decompressed_bytes",
            l.max_decompressed_bytes.to_string(),
        ),
        ("max_file_bytes", l.max_map_file_bytes.to_string()),
        ("max_warnings", l.max_warnings.to_string()),
        ("max_archive_ratio", l.max_archive_ratio.to_string()),
        ("max_archive_bytes", l.max_archive_total_bytes.to_string()),
    ])
}

#[cfg(all(test, feature = "cli"))]
mod tests {
    use super::Verify;

    /// The names of [`Verify`] are those of `--verify`, and read back.
    #[test]
    fn verify_names_are_the_command_lines() {
        use clap::ValueEnum;
        let clap_names: Vec<String> = Verify::value_variants()
            .iter()
            .map(|v| v.to_possible_value().unwrap().get_name().to_owned())
            .collect();
        let ours: Vec<&str> = Verify::ALL.iter().map(|v| v.name()).collect();
        assert_eq!(clap_names, ours);
        for v in Verify::ALL {
            assert_eq!(v.name().parse::<Verify>(), Ok(v));
        }
        assert!("sha".parse::<Verify>().is_err());
    }
}
