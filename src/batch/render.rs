//! `maps render`: one picture per map and one record per picture, and
//! the thumbnails of `maps index --thumbnails`.

use super::maps::Worker;
use super::output::InputFiles;
use super::record::{Body, ErrorRecord, Record, WarningRecord};
use super::run::{Observer, RunOutcome, Selection};
use super::sink::RecordSink;
use super::{load, run_ordered, Input};
use crate::render::{Crop, RenderOptions, Size, Style, Textures};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One line of `maps render` output: the envelope around a
/// [`RenderBody`].
pub type RenderRecord = Record<RenderBody>;

/// The fields of a `maps render` record between `size` and `warnings`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RenderBody {
    /// The PNG written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The PNG's file name in the `--out` folder ([`picture_name`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub picture: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Pixels per tile (1 when several tiles share a pixel).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub px_per_tile: Option<u32>,
    /// Tiles per pixel along each side (1 unless the map is larger than
    /// the picture).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiles_per_px: Option<u32>,
}

impl Body for RenderBody {}

/// The most bytes of a map's name kept in its picture's file name (cut
/// at a character boundary), so that name, hash and `.png` stay well
/// under the 255 bytes a file name may have.
pub const PICTURE_NAME_BYTES: usize = 100;

/// The picture file name of a map whose file is named `stem` and has the
/// SHA-256 `sha256_hex` (64 hex digits): `<name>-<sha256>.png`. `name` is
/// the stem with control characters, `/` and `\` replaced by `_`, a
/// leading `.` by `_` (no hidden files), cut to [`PICTURE_NAME_BYTES`];
/// `map` when empty.
///
/// The name depends on the map alone, never on the other files of the
/// run: shards, `--jobs` and reruns give the same names. Two different
/// maps never share a name: the name ends in `-` and the 64 hex digits of
/// the file's own hash, so equal names mean equal hashes (and equal
/// names before the hash); two paths to the same bytes share one picture
/// (the same picture: it is drawn from those bytes). On a file system
/// that ignores case, names that differ only in case have equal hashes,
/// so they are the same map's picture too.
pub fn picture_name(stem: &str, sha256_hex: &str) -> String {
    let mut name = String::new();
    for (i, c) in stem.chars().enumerate() {
        let c = if c.is_control() || c == '/' || c == '\\' || (i == 0 && c == '.') {
            '_'
        } else {
            c
        };
        if name.len() + c.len_utf8() > PICTURE_NAME_BYTES {
            break;
        }
        name.push(c);
    }
    if name.is_empty() {
        name.push_str("map");
    }
    format!("{name}-{sha256_hex}.png")
}

/// Writes an encoded picture to `path`, whole or not at all, unless
/// `path` is one of the run's input files.
pub(crate) fn write_picture(path: &Path, inputs: &InputFiles, png: &[u8]) -> io::Result<()> {
    inputs.check(path)?;
    crate::batch::output::write_atomic(path, png)
}

/// Pictures that could not be written (`--thumbnails`): counted across
/// workers, the first error kept for the message on stderr.
#[derive(Debug, Default)]
pub struct WriteFailures {
    count: std::sync::atomic::AtomicU64,
    first: std::sync::Mutex<Option<String>>,
}

impl WriteFailures {
    fn add(&self, e: &io::Error) {
        self.count
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| e.to_string());
    }

    /// How many failed, and the first failure's message.
    pub fn report(&self) -> Option<(u64, String)> {
        let n = self.count.load(std::sync::atomic::Ordering::Relaxed);
        let first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        (n > 0).then(|| (n, first.clone().unwrap_or_default()))
    }
}

/// The size of `maps index --thumbnails` pictures.
pub const THUMBNAIL_SIZE: Size = Size::MaxSide(256);

/// How a run's pictures are drawn: style and size, the part of the map
/// (`--crop`) and whether the flat palette's legend is drawn in them
/// (`--no-legend` turns it off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PictureOptions {
    pub render: RenderOptions,
    pub crop: Crop,
    pub legend: bool,
}

impl PictureOptions {
    /// The thumbnails' default: the entities style, 256 pixels at most,
    /// the whole map, with the legend.
    pub fn thumbnails() -> Self {
        PictureOptions {
            render: RenderOptions {
                style: Style::Entities,
                size: THUMBNAIL_SIZE,
            },
            crop: Crop::None,
            legend: true,
        }
    }
}

/// Draws the thumbnail of the map in `bytes` to `path`; the failure as a
/// warning of stage `render` (the map's record stays that of the index).
#[allow(clippy::too_many_arguments)]
pub fn write_thumbnail(
    bytes: &[u8],
    opts: &PictureOptions,
    textures: &Textures,
    inflater: &mut crate::datafile::Inflater,
    buf: &mut Vec<u8>,
    path: &Path,
    inputs: &InputFiles,
    failures: &WriteFailures,
) -> Option<WarningRecord> {
    inflater.start_file();
    let err = match crate::render::render_map_cropped(
        bytes,
        &opts.render,
        opts.crop,
        textures,
        inflater,
        buf,
        None,
    ) {
        Ok(mut p) => match {
            // A legend cut or left out for the size is documented, not a
            // warning of the index record.
            if opts.legend {
                let _ = p.draw_legend(&[]);
            }
            p
        }
        .canvas
        .encode_png()
        .and_then(|png| write_picture(path, inputs, &png))
        {
            Ok(()) => return None,
            Err(e) => {
                failures.add(&e);
                ErrorRecord::io(&e)
            }
        },
        // The map's own warnings are the index record's, from the index.
        Err(f) => f.error,
    };
    Some(WarningRecord {
        stage: err.stage,
        kind: err.kind,
        section: format!("thumbnail: {}", err.section),
        offset: err.offset,
    })
}

/// Renders one input (read as `mmap` says), a `full` picture doing at
/// most `max_work` work (see [`RunOptions::max_work`]), and writes its
/// picture into the folder `out_dir`, named by [`picture_name`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn render_input(
    w: &mut Worker,
    input: &Input,
    mmap: crate::batch::MmapMode,
    opts: &PictureOptions,
    textures: &Textures,
    out_dir: &Path,
    inputs: &InputFiles,
    max_work: Option<u64>,
) -> RenderRecord {
    let mut rec = RenderRecord::of(input);
    if !rec.refuse_over(input, crate::limits::Limits::DEFAULT_MAX_MAP_FILE_BYTES) {
        let Worker {
            read_buf,
            data_buf,
            inflater,
            ..
        } = w;
        match load(input, mmap, read_buf) {
            Ok(bytes) => {
                rec.size = bytes.len() as u64;
                inflater.start_file();
                match crate::render::render_map_cropped(
                    &bytes,
                    &opts.render,
                    opts.crop,
                    textures,
                    inflater,
                    data_buf,
                    max_work,
                ) {
                    Ok(mut p) => {
                        let legend = if opts.legend {
                            p.draw_legend(&[])
                        } else {
                            None
                        };
                        rec.warn(p.warnings);
                        rec.warn(legend);
                        let body = &mut rec.body;
                        body.width = Some(p.geometry.width);
                        body.height = Some(p.geometry.height);
                        body.px_per_tile = Some(p.geometry.cell);
                        body.tiles_per_px = Some(p.geometry.shrink);
                        let name =
                            picture_name(&rec.name, &hex::encode(Sha256::digest(&bytes[..])));
                        let out = out_dir.join(&name);
                        match p
                            .canvas
                            .encode_png()
                            .and_then(|png| write_picture(&out, inputs, &png))
                        {
                            Ok(()) => {
                                rec.body.output = Some(crate::batch::encode_path(&out));
                                rec.body.picture = Some(name);
                            }
                            Err(e) => rec.fail(ErrorRecord::io(&e)),
                        }
                    }
                    Err(f) => {
                        rec.warn(f.warnings);
                        rec.fail(f.error);
                    }
                }
            }
            Err(e) => rec.fail(ErrorRecord::io(&e)),
        }
        crate::limits::shrink_buffer(&mut w.data_buf);
        crate::limits::shrink_buffer(&mut w.read_buf);
    }
    rec
}

/// Options of a `maps render` run.
pub struct RunOptions {
    /// What to draw and how large, which part, with or without legend.
    pub picture: PictureOptions,
    /// The folder the pictures go to (`<name>-<sha256>.png`, see
    /// [`picture_name`]); it must exist.
    pub out: PathBuf,
    /// The textures to draw with ([`Textures::locate`]).
    pub textures: Textures,
    pub mmap: super::MmapMode,
    /// Worker threads (`None` or 0: all cores; capped at the inputs).
    pub jobs: Option<usize>,
    /// The most work one `full` picture may do (`None`:
    /// [`crate::limits::Limits::picture_work`] of its drawing's pixels);
    /// past it the picture fails with render `work_limit`
    /// (`maps render --max-render-work`).
    pub max_work: Option<u64>,
}

/// A finished `maps render` run.
#[derive(Debug)]
pub struct RenderRun {
    pub outcome: RunOutcome,
    /// The records' errors and warnings by kind, with example paths (the
    /// digest on stderr).
    pub kinds: super::summary::Kinds,
}

/// Draws every map of `sel` into `opts.out`; the records reach `sink` in
/// input order, `observer` after each. A write error of the sink stops
/// the run and is returned.
pub fn run(
    sel: &Selection,
    opts: &RunOptions,
    sink: &mut dyn RecordSink<RenderRecord>,
    observer: &mut dyn Observer,
) -> io::Result<RenderRun> {
    let mut kinds = super::summary::Kinds::default();
    let input_files = InputFiles::of(&sel.inputs);
    let jobs = crate::limits::Limits::cap_jobs(opts.jobs, sel.inputs.len());
    let mut write_err = None;
    let mut outcome = RunOutcome::start("maps render", sel, jobs);
    let start = Instant::now();
    run_ordered(
        &sel.inputs,
        jobs,
        || Worker::new(crate::limits::Limits::default()),
        |w, _, input| {
            render_input(
                w,
                input,
                opts.mmap,
                &opts.picture,
                &opts.textures,
                &opts.out,
                &input_files,
                opts.max_work,
            )
        },
        |_, rec: RenderRecord| {
            outcome.count(&rec);
            kinds.add_record(&rec);
            observer.file_done(rec.size, &|| rec.path.clone());
            super::run::written(sink.write(&rec), &mut write_err)
        },
    );
    if let Some(e) = write_err {
        return Err(e);
    }
    outcome.elapsed_s = start.elapsed().as_secs_f64();
    Ok(RenderRun { outcome, kinds })
}
