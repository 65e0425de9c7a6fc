//! `maps extract`: the embedded images (as PNG) and sounds (their opus
//! data as it is) of a collection of maps, one file per distinct content,
//! and a manifest row per image or sound of each map.
//!
//! - **Named by content.** An image is `<sha256>.png`, where the SHA-256 is
//!   over its width and height (each a little-endian u32) and then its
//!   pixels as 8-bit RGBA rows (an RGB image of a 0.7 map gets alpha 255):
//!   the same picture has the same name whatever map it is in, however the
//!   map stored it, and whatever PNG encoder wrote it. A sound is
//!   `<sha256>.opus`, the SHA-256 of its bytes (the file's own hash).
//! - **One file per content in the whole run.** The first worker to meet a
//!   hash writes its file (whole, through a temporary file); the others
//!   only name it. The set of files and the manifest (rows in input order)
//!   are the same for any number of jobs.
//! - **Bounded memory.** A worker holds one map and one image or sound at a
//!   time, within the inflate limit of a map; the run keeps 32 bytes per
//!   distinct hash.

use super::maps::Worker;
use super::output::InputFiles;
use super::record::ErrorRecord;
use super::run::{Observer, Selection};
use super::{load, run_ordered, Input, MmapMode};
use crate::datafile::{Datafile, Inflater};
use crate::limits::Limits;
use crate::map::{ImageVariant, LoadOptions, Map};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

/// One manifest row: an image or sound of one map and the file that holds
/// it (the columns of the CSV manifest, in order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ManifestRow {
    /// The map's record path (as `maps index`'s `path`).
    pub map: String,
    /// The image's or sound's index among the map's images or sounds.
    pub index: usize,
    /// Its name in the map.
    pub name: String,
    /// `image` or `sound`.
    pub kind: &'static str,
    /// Images: size in pixels.
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// The content hash the file is named by (see the module docs).
    pub sha256: String,
    /// The file's name in the output folder.
    pub file: String,
}

/// What one map gave.
#[derive(Clone, Debug, Default)]
pub struct MapExtract {
    pub path: String,
    pub size: u64,
    pub rows: Vec<ManifestRow>,
    /// External images and sounds (no data in the map: nothing written).
    pub external: usize,
    /// Why the map could not be read.
    pub error: Option<ErrorRecord>,
    /// Images or sounds that could not be extracted (bad data, a file not
    /// written), each as a message naming it.
    pub failures: Vec<String>,
}

/// The format of the manifest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ManifestFormat {
    /// Comma-separated values with a header row.
    #[default]
    Csv,
    /// One JSON object per line (JSON lines; `json` is the same).
    #[cfg_attr(feature = "cli", value(name = "jsonl", alias = "json"))]
    Jsonl,
}

impl ManifestFormat {
    /// The manifest's default file name in the output folder.
    pub fn default_name(self) -> &'static str {
        match self {
            ManifestFormat::Csv => "manifest.csv",
            ManifestFormat::Jsonl => "manifest.jsonl",
        }
    }
}

/// Writes manifest rows as CSV (through the `csv` crate) or JSON lines.
pub enum ManifestWriter<W: Write> {
    Csv(Box<csv::Writer<W>>),
    Json(W),
}

impl<W: Write> ManifestWriter<W> {
    pub fn new(format: ManifestFormat, out: W) -> Self {
        match format {
            ManifestFormat::Csv => ManifestWriter::Csv(Box::new(csv::Writer::from_writer(out))),
            ManifestFormat::Jsonl => ManifestWriter::Json(out),
        }
    }

    pub fn write(&mut self, row: &ManifestRow) -> io::Result<()> {
        match self {
            ManifestWriter::Csv(w) => w.serialize(row).map_err(io::Error::other),
            ManifestWriter::Json(w) => {
                serde_json::to_writer(&mut *w, row)?;
                w.write_all(b"\n")
            }
        }
    }

    /// Flushes and returns the writer.
    pub fn finish(self) -> io::Result<W> {
        match self {
            ManifestWriter::Csv(w) => w.into_inner().map_err(|e| e.into_error()),
            ManifestWriter::Json(mut w) => {
                w.flush()?;
                Ok(w)
            }
        }
    }
}

/// Options of a `maps extract` run.
pub struct ExtractOptions {
    /// The folder the files go to (it must exist).
    pub out: PathBuf,
    pub mmap: MmapMode,
    /// Worker threads (`None` or 0: all cores; capped at the inputs).
    pub jobs: Option<usize>,
    /// The map file size limit and each map's inflate budget.
    pub limits: Limits,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractOutcome {
    pub maps: u64,
    pub failed_maps: u64,
    /// Images and sounds that could not be extracted.
    pub failed_items: u64,
    /// Manifest rows of images and of sounds.
    pub images: u64,
    pub sounds: u64,
    pub external: u64,
    /// Distinct files named by the manifest, and their bytes on disk.
    pub unique_files: u64,
    pub unique_bytes: u64,
    pub jobs: usize,
    pub elapsed_s: f64,
    pub nothing_found: bool,
}

impl ExtractOutcome {
    /// Whether a map or an item failed, or nothing was found (exit 1).
    pub fn is_failure(&self) -> bool {
        self.failed_maps > 0 || self.failed_items > 0 || self.nothing_found
    }

    /// The summary line on stderr.
    pub fn line(&self) -> String {
        format!(
            "maps extract: {} maps ({} failed): {} images and {} sounds ({} failed, {} external) in {} files of {:.1} MB, in {:.3} s on {} jobs",
            self.maps,
            self.failed_maps,
            self.images,
            self.sounds,
            self.failed_items,
            self.external,
            self.unique_files,
            self.unique_bytes as f64 / 1e6,
            self.elapsed_s,
            self.jobs
        )
    }
}

/// The hashes whose file a worker of the run has taken on.
#[derive(Default)]
struct Claims(Mutex<HashSet<[u8; 32]>>);

impl Claims {
    /// Whether `hash` was not claimed before (the caller writes its file).
    fn claim(&self, hash: [u8; 32]) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(hash)
    }
}

/// The content hash of an image: SHA-256 over its width and height (u32
/// little-endian) and its RGBA pixels.
pub(crate) fn image_hash(width: u32, height: u32, rgba: &[u8]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(width.to_le_bytes());
    h.update(height.to_le_bytes());
    h.update(rgba);
    h.finalize().into()
}

/// Encodes RGBA pixels as an 8-bit RGBA PNG.
pub(crate) fn encode_rgba_png(width: u32, height: u32, rgba: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, width, height);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut w = enc.write_header().map_err(io::Error::other)?;
    w.write_image_data(rgba).map_err(io::Error::other)?;
    w.finish().map_err(io::Error::other)?;
    Ok(out)
}

/// The pixels of embedded image `index` of `map` as RGBA, in `rgba`
/// (RGB data expanded), with its size; an error message naming the image
/// when its data is missing, does not inflate or is not width × height
/// pixels.
pub(crate) fn image_rgba(
    df: &Datafile<'_>,
    map: &Map,
    index: usize,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    rgba: &mut Vec<u8>,
) -> Result<(u32, u32), String> {
    let im = &map.images[index];
    let what = || format!("image {index} {:?}", im.name.as_deref().unwrap_or(""));
    let (Ok(w), Ok(h)) = (u32::try_from(im.width), u32::try_from(im.height)) else {
        return Err(format!("{}: size {}x{}", what(), im.width, im.height));
    };
    if w == 0 || h == 0 {
        return Err(format!("{}: size {w}x{h}", what()));
    }
    let Some(data) = im.data else {
        return Err(format!("{}: no pixel data block", what()));
    };
    df.decompress(data, inflater, buf)
        .map_err(|e| format!("{}: {e}", what()))?;
    let bpp = if im.variant == ImageVariant::Rgb {
        3
    } else {
        4
    };
    let want = u64::from(w) * u64::from(h) * bpp;
    if buf.len() as u64 != want {
        return Err(format!(
            "{}: {} bytes of pixels for {w}x{h} at {bpp} bytes per pixel ({want})",
            what(),
            buf.len()
        ));
    }
    rgba.clear();
    if bpp == 3 {
        rgba.reserve(buf.len() / 3 * 4);
        for p in buf.chunks_exact(3) {
            rgba.extend_from_slice(&[p[0], p[1], p[2], 255]);
        }
    } else {
        std::mem::swap(rgba, buf);
    }
    Ok((w, h))
}

/// Per-worker buffers.
pub struct ExtractWorker {
    map: Worker,
    rgba: Vec<u8>,
}

/// Writes `bytes` (made by `make`, only called for a hash claimed first
/// here) to `dir/file`, unless it is an input file.
fn write_once(
    claims: &Claims,
    hash: [u8; 32],
    target: &Path,
    inputs: &InputFiles,
    make: impl FnOnce() -> io::Result<Vec<u8>>,
) -> io::Result<()> {
    if !claims.claim(hash) {
        return Ok(());
    }
    let bytes = make()?;
    super::render::write_picture(target, inputs, &bytes)
}

/// Extracts one map.
fn extract_input(
    w: &mut ExtractWorker,
    input: &Input,
    opts: &ExtractOptions,
    claims: &Claims,
    inputs: &InputFiles,
) -> MapExtract {
    let mut rec = MapExtract {
        path: input.display_path(),
        size: input.listed_size(),
        ..MapExtract::default()
    };
    if input.listed_size() > opts.limits.max_map_file_bytes {
        rec.error = Some(ErrorRecord::too_large(opts.limits.max_map_file_bytes));
        input.release();
        return rec;
    }
    let ExtractWorker { map, rgba } = w;
    let Worker {
        read_buf,
        data_buf,
        inflater,
    } = map;
    match load(input, opts.mmap, read_buf) {
        Ok(bytes) => {
            rec.size = bytes.len() as u64;
            inflater.start_file();
            extract_bytes(
                &mut rec, &bytes, opts, inflater, data_buf, rgba, claims, inputs,
            );
        }
        Err(e) => rec.error = Some(ErrorRecord::io(&e)),
    }
    crate::limits::shrink_buffer(data_buf);
    crate::limits::shrink_buffer(read_buf);
    crate::limits::shrink_buffer(rgba);
    inflater.shrink_block_buffer(Limits::KEEP_WORKER_BUFFER_BYTES);
    rec
}

#[allow(clippy::too_many_arguments)]
fn extract_bytes(
    rec: &mut MapExtract,
    bytes: &[u8],
    opts: &ExtractOptions,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
    rgba: &mut Vec<u8>,
    claims: &Claims,
    inputs: &InputFiles,
) {
    let df = match Datafile::parse(bytes) {
        Ok(df) => df,
        Err(e) => {
            rec.error = Some(ErrorRecord::datafile(&e));
            return;
        }
    };
    let mut discard = crate::warn::Discard;
    let map = match Map::parse_opts(&df, inflater, buf, LoadOptions::SUMMARY, &mut discard) {
        Ok(Some(map)) => map,
        // No map part: nothing embedded to extract.
        Ok(None) => return,
        Err(e) => {
            rec.error = Some(ErrorRecord::map(&e));
            return;
        }
    };
    for (index, im) in map.images.iter().enumerate() {
        if im.external {
            rec.external += 1;
            continue;
        }
        let name = im.name.clone().unwrap_or_default();
        let (w, h) = match image_rgba(&df, &map, index, inflater, buf, rgba) {
            Ok(size) => size,
            Err(msg) => {
                rec.failures.push(msg);
                continue;
            }
        };
        let hash = image_hash(w, h, rgba);
        let file = format!("{}.png", hex::encode(hash));
        let target = opts.out.join(&file);
        if let Err(e) = write_once(claims, hash, &target, inputs, || {
            encode_rgba_png(w, h, rgba)
        }) {
            rec.failures.push(format!("image {index} {name:?}: {e}"));
            continue;
        }
        rec.rows.push(ManifestRow {
            map: rec.path.clone(),
            index,
            name,
            kind: "image",
            width: Some(w),
            height: Some(h),
            sha256: hex::encode(hash),
            file,
        });
    }
    for (index, s) in map.sounds.iter().enumerate() {
        let name = s.name.clone().unwrap_or_default();
        if s.external {
            rec.external += 1;
            continue;
        }
        let Some(data) = s.data else {
            rec.failures
                .push(format!("sound {index} {name:?}: no data block"));
            continue;
        };
        if let Err(e) = df.decompress(data, inflater, buf) {
            rec.failures.push(format!("sound {index} {name:?}: {e}"));
            continue;
        }
        let hash: [u8; 32] = Sha256::digest(&buf[..]).into();
        let file = format!("{}.opus", hex::encode(hash));
        let target = opts.out.join(&file);
        if let Err(e) = write_once(claims, hash, &target, inputs, || Ok(buf.clone())) {
            rec.failures.push(format!("sound {index} {name:?}: {e}"));
            continue;
        }
        rec.rows.push(ManifestRow {
            map: rec.path.clone(),
            index,
            name,
            kind: "sound",
            width: None,
            height: None,
            sha256: hex::encode(hash),
            file,
        });
    }
}

/// [`run`] with the manifest written as `format` to `path` (`-`: stdout):
/// a file is put in place whole, once the run and the manifest's last
/// row are written ([`super::output::open`]); on an error it is left as
/// it was.
pub fn run_to_file(
    sel: &Selection,
    opts: &ExtractOptions,
    format: ManifestFormat,
    path: &Path,
    observer: &mut dyn Observer,
) -> io::Result<ExtractOutcome> {
    let (out, commit) = super::output::open(Some(path))?;
    let mut manifest = ManifestWriter::new(format, out);
    let outcome = run(sel, opts, &mut manifest, observer)?;
    let mut out = manifest.finish()?;
    out.flush()?;
    drop(out);
    commit.commit()?;
    Ok(outcome)
}

/// Extracts the images and sounds of every map of `sel` into `opts.out`;
/// each map's rows reach `manifest` in input order, `observer` after each
/// map (a failure as a note naming the map). A write error of the
/// manifest stops the run and is returned.
pub fn run<W: Write>(
    sel: &Selection,
    opts: &ExtractOptions,
    manifest: &mut ManifestWriter<W>,
    observer: &mut dyn Observer,
) -> io::Result<ExtractOutcome> {
    let inputs = InputFiles::of(&sel.inputs);
    let claims = Claims::default();
    let jobs = Limits::cap_jobs(opts.jobs, sel.inputs.len());
    let mut outcome = ExtractOutcome {
        jobs,
        nothing_found: sel.nothing_found,
        ..ExtractOutcome::default()
    };
    let mut files: HashSet<String> = HashSet::new();
    let mut write_err = None;
    let start = Instant::now();
    run_ordered(
        &sel.inputs,
        jobs,
        || ExtractWorker {
            map: Worker::new(opts.limits),
            rgba: Vec::new(),
        },
        |w, _, input| extract_input(w, input, opts, &claims, &inputs),
        |_, rec: MapExtract| {
            outcome.maps += 1;
            outcome.external += rec.external as u64;
            if let Some(e) = &rec.error {
                outcome.failed_maps += 1;
                observer.note(&format!("{}: {}", rec.path, e.message), false);
            }
            for f in &rec.failures {
                outcome.failed_items += 1;
                observer.note(&format!("{}: {f}", rec.path), false);
            }
            let mut result = Ok(());
            for row in &rec.rows {
                match row.kind {
                    "image" => outcome.images += 1,
                    _ => outcome.sounds += 1,
                }
                if !files.contains(&row.file) {
                    files.insert(row.file.clone());
                }
                if result.is_ok() {
                    result = manifest.write(row);
                }
            }
            observer.file_done(rec.size, &|| rec.path.clone());
            super::run::written(result, &mut write_err)
        },
    );
    if let Some(e) = write_err {
        return Err(e);
    }
    outcome.unique_files = files.len() as u64;
    outcome.unique_bytes = files
        .iter()
        .filter_map(|f| std::fs::metadata(opts.out.join(f)).ok())
        .map(|m| m.len())
        .sum();
    outcome.elapsed_s = start.elapsed().as_secs_f64();
    Ok(outcome)
}
