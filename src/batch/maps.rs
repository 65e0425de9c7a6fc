//! `maps index`: one record per map, and statistics merged across workers.

use super::record::{BatchStats, ErrorRecord, WarningRecord};
use super::{load, Input, MmapMode};
use crate::datafile::{Datafile, Inflater, Limits};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Options of one `maps index` run.
#[derive(Clone, Copy, Debug)]
pub struct IndexOptions {
    /// Decompress every data block and report `data_crc32`.
    pub verify: bool,
    pub mmap: MmapMode,
    pub limits: Limits,
    /// Files larger than this are not read (an error of kind `too_large`).
    pub max_file_bytes: u64,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            verify: false,
            mmap: MmapMode::Never,
            limits: Limits::default(),
            max_file_bytes: crate::limits::Limits::DEFAULT_MAX_MAP_FILE_BYTES,
        }
    }
}

/// One line of `maps index` output.
///
/// Fields that could not be determined because of an error are absent
/// (`None`); everything decoded before the fault is kept.
#[derive(Clone, Debug, Default, Serialize)]
pub struct MapRecord {
    pub path: String,
    pub name: String,
    pub size: u64,
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
    /// With `--verify`: CRC-32 of all decompressed data blocks concatenated
    /// in index order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_crc32: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<crate::map::MapSummary>,
    pub warnings: Vec<WarningRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorRecord>,
    /// Names of the external images (mapres), for the collection summary;
    /// not part of the record output.
    #[serde(skip)]
    pub external_images: Vec<String>,
}

/// What one worker keeps between files.
pub struct Worker {
    pub read_buf: Vec<u8>,
    pub data_buf: Vec<u8>,
    pub inflater: Inflater,
    pub stats: BatchStats,
}

impl Worker {
    pub fn new(limits: Limits) -> Self {
        Worker {
            read_buf: Vec::new(),
            data_buf: Vec::new(),
            inflater: Inflater::new(limits),
            stats: BatchStats::default(),
        }
    }
}

/// Indexes one map and records it in the worker's statistics.
pub fn index_input(w: &mut Worker, input: &Input, opts: &IndexOptions) -> MapRecord {
    let mut rec = MapRecord {
        path: input.display_path(),
        name: input.stem(),
        size: input.listed_size(),
        ..MapRecord::default()
    };
    if input.listed_size() > opts.max_file_bytes {
        rec.error = Some(ErrorRecord::too_large(opts.max_file_bytes));
        w.stats.record(rec.size, rec.error.as_ref(), &rec.warnings);
        return rec;
    }
    let Worker {
        read_buf,
        data_buf,
        inflater,
        stats,
    } = w;
    match load(input, opts.mmap, read_buf) {
        Ok(bytes) => index_bytes(&mut rec, &bytes, opts, inflater, data_buf),
        Err(e) => rec.error = Some(ErrorRecord::io(&e)),
    }
    crate::limits::shrink_buffer(data_buf);
    crate::limits::shrink_buffer(read_buf);
    stats.record(rec.size, rec.error.as_ref(), &rec.warnings);
    rec
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
    rec.crc32 = Some(format!("{:08x}", crc32fast::hash(bytes)));
    rec.sha256 = Some(hex::encode(Sha256::digest(bytes)));
    let df = match Datafile::parse(bytes) {
        Ok(df) => df,
        Err(e) => {
            rec.error = Some(ErrorRecord::datafile(&e));
            return;
        }
    };
    rec.datafile_version = Some(df.version().name());
    rec.num_item_types = Some(df.item_types().len());
    rec.num_items = Some(df.num_items());
    rec.num_data = Some(df.num_data());
    rec.compressed_bytes = Some(df.data_section_len() as u64);
    rec.decompressed_bytes = Some(df.data_size_total());
    rec.warnings
        .extend(df.warnings().iter().map(|w| WarningRecord {
            stage: "datafile",
            kind: w.kind.name().into(),
            section: w.section.name(),
            offset: w.offset,
        }));
    inflater.start_file();
    if !opts.verify {
        add_map_summary(rec, &df, inflater, buf);
        return;
    }
    // `--verify`: the summary first, recording the CRC-32 of every whole
    // block it inflates while the bytes are in cache; then every block in
    // order, inflating only those the summary did not. Each pass has its
    // own budget, and a verify error takes precedence over a map error, as
    // if the verify pass had run first.
    inflater.record_crcs(df.num_data());
    add_map_summary(rec, &df, inflater, buf);
    let crcs = inflater.take_crcs();
    inflater.start_file();
    let mut h = crc32fast::Hasher::new();
    for i in 0..df.num_data() {
        let r = match crcs.get(i).copied().flatten() {
            Some((crc, len)) => df
                .charge_block(i, inflater)
                .map(|()| crc32fast::Hasher::new_with_initial_len(crc, len)),
            None => df.decompress(i, inflater, buf).map(|()| {
                crc32fast::Hasher::new_with_initial_len(
                    crate::datafile::crc32(buf),
                    buf.len() as u64,
                )
            }),
        };
        match r {
            Ok(block) => h.combine(&block),
            Err(e) => {
                rec.error = Some(ErrorRecord::datafile(&e));
                return;
            }
        }
    }
    rec.data_crc32 = Some(format!("{:08x}", h.finalize()));
}

/// The map-level part of a record: the summary, its warnings (moved to the
/// record's list), or the map-level error (kept after any earlier error).
fn add_map_summary(
    rec: &mut MapRecord,
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
) {
    match crate::map::summarize(df, inflater, buf) {
        Ok(mut summary) => {
            let warnings = std::mem::take(&mut summary.warnings);
            rec.warnings
                .extend(warnings.into_iter().map(|w| WarningRecord {
                    stage: "map",
                    kind: w.kind.name().into(),
                    section: w.section.to_string(),
                    offset: w.offset,
                }));
            rec.map = Some(summary);
            rec.external_images = external_image_names(df, inflater, buf);
        }
        Err(e) => {
            if rec.error.is_none() {
                rec.error = Some(ErrorRecord {
                    stage: "map",
                    kind: e.kind.name().into(),
                    section: e.section.to_string(),
                    offset: e.offset,
                    message: e.to_string(),
                });
            }
        }
    }
}

/// The names of a map's external images, in item order: `<missing>` for an
/// image without a name, `<unreadable>` for a name whose data block does
/// not inflate (only for the collection summary; the map part has already
/// been checked and warned about).
fn external_image_names(
    df: &Datafile<'_>,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
) -> Vec<String> {
    let mut names = Vec::new();
    for it in df.items_of_type(crate::map::ITEM_IMAGE) {
        if it.data.get(3).unwrap_or(0) == 0 {
            continue;
        }
        let name = match usize::try_from(it.data.get(4).unwrap_or(-1)) {
            Err(_) => "<missing>".to_owned(),
            Ok(i) if df.decompress(i, inflater, buf).is_ok() => {
                crate::map::strings::c_string(buf).0
            }
            Ok(_) => "<unreadable>".to_owned(),
        };
        names.push(name);
    }
    names
}
