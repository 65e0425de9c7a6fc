//! `demos index`: one record per demo, decoded through the snapshot stream.

use super::record::{Body, ErrorRecord, Record, Stage, WarningRecord};
use super::{load, Input, MmapMode};
use crate::backend::Backend;
use crate::codec::snapshot::Protocol;
use crate::datafile::Datafile;
use crate::demo::analysis::{AnalysisVisitor, MessageCounts, StageWarnings, TrackerConfig};
use crate::demo::stream::{Decoder, DemoStats};
use crate::demo::{Demo, DemoWarning};
use crate::limits::Limits;
use crate::warn::Warnings;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::demo::TICKS_PER_SECOND;

/// Options of one `demos index` run.
#[derive(Clone, Copy, Debug)]
pub struct IndexOptions {
    pub mmap: MmapMode,
    pub backend: Backend,
    /// Files larger than [`Limits::max_demo_file_bytes`] are not read (an
    /// error of kind `too_large`); a demo with more than
    /// [`Limits::max_ticks`] tick markers ends with `too_many_ticks`; each
    /// stage (container, stream, message, players) keeps
    /// [`Limits::max_warnings`] warnings before one `too_many_warnings`
    /// stands for the rest.
    pub limits: Limits,
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            mmap: MmapMode::Never,
            backend: Backend::default(),
            limits: Limits::default(),
        }
    }
}

/// The demo header as reported.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HeaderRecord {
    pub version: u8,
    pub net_version: String,
    /// `0.6` or `0.7`: which item size table the snapshots use.
    pub protocol: Option<&'static str>,
    pub map_name: String,
    pub map_size: u32,
    /// 8 lowercase hex digits.
    pub map_crc: String,
    #[serde(rename = "type")]
    pub demo_type: String,
    /// Seconds, as written by the recorder.
    pub length: i32,
    /// When the recording started, ISO 8601 without a time zone
    /// (`2025-10-04T11:03:42`, the recorder's local time); `None` when
    /// `timestamp_raw` is not a date and time teebatch knows.
    pub timestamp: Option<String>,
    /// The header's timestamp text as written (DDNet writes
    /// `2025-10-04_11-03-42`).
    pub timestamp_raw: String,
    pub timeline_markers: Vec<i32>,
    /// The v6 DDNet SHA-256 extension, if present.
    pub map_sha256: Option<String>,
}

/// The embedded map as found and checked against the header.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EmbeddedMapRecord {
    pub size: u64,
    pub crc32: String,
    pub sha256: String,
    pub crc32_matches_header: bool,
    /// `None` when the header carries no SHA-256.
    pub sha256_matches_header: Option<bool>,
    pub datafile_version: Option<&'static str>,
    pub num_item_types: Option<usize>,
    pub num_items: Option<usize>,
    pub num_data: Option<usize>,
    /// Why the embedded map is not a readable datafile.
    pub error: Option<ErrorRecord>,
}

/// One line of `demos index` output: the envelope around a [`DemoBody`].
pub type DemoRecord = Record<DemoBody>;

/// The fields of a `demos index` record between `size` and `warnings`.
/// Fields that could not be determined because of an error are absent;
/// everything decoded before it is kept.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DemoBody {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<HeaderRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub map: Option<EmbeddedMapRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<crate::demo::stream::stats::ChunkCounts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_tick: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_tick: Option<i32>,
    /// Tick markers seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticks: Option<u64>,
    /// (last_tick - first_tick) / 50.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshots_reconstructed: Option<u64>,
    /// Snapshot items per type: ordinal types by id, then DDNet extended
    /// types by UUID.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub item_types: Vec<ItemTypeRecord>,
    /// Everyone seen in a snapshot (or, for 0.7, announced by message).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<PlayerSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<MessagesRecord>,
    /// Bytes after the header and the embedded map, for the collection
    /// summary; not part of the record output.
    #[serde(skip)]
    pub chunk_bytes: Option<u64>,
}

impl Body for DemoBody {}

/// A player as reported in a record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PlayerSummary {
    pub client_id: u16,
    /// Distinct names in the order seen (a client id can be reused).
    pub names: Vec<String>,
    pub clans: Vec<String>,
    pub first_tick: i32,
    pub last_tick: i32,
    pub ticks_present: u32,
    /// The latest score seen; `None` when none was seen or it is DDNet's
    /// "no time yet" [`NO_SCORE`].
    pub score: Option<i32>,
    /// The latest score as in the snapshot, sentinel included.
    pub score_raw: Option<i32>,
    /// Whether this was the recording client.
    pub local: bool,
}

/// The score DDNet race servers send for a player without a finish time.
pub const NO_SCORE: i32 = -9999;

/// One snapshot item type of a demo.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ItemTypeRecord {
    /// The ordinal type id (`None` for a DDNet extended type).
    pub type_id: Option<u16>,
    /// The UUID of a DDNet extended type.
    pub uuid: Option<String>,
    /// The protocol's name of the type (`unknown` if it has none).
    pub name: String,
    pub occurrences: u64,
    /// The item sizes seen, in ints.
    pub sizes_ints: Vec<usize>,
}

impl ItemTypeRecord {
    /// The key of the collection summary's `item_types` (`id (name)` or
    /// `uuid (Name)`).
    pub fn summary_key(&self) -> String {
        match (&self.uuid, self.type_id) {
            (Some(u), _) => format!("{u} ({})", self.name),
            (None, id) => format!("{} ({})", id.unwrap_or_default(), self.name),
        }
    }
}

/// Messages of a demo by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NameCount {
    /// `space:name` (`game:Sv_Chat`, `system:…`); unnamed ids as
    /// `space:#id` or `space:uuid`.
    pub name: String,
    pub count: u64,
}

/// Message totals of one demo, as reported.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MessagesRecord {
    /// Sorted by name.
    pub by_name: Vec<NameCount>,
    pub chat_lines: u64,
    pub kills: u64,
    pub race_finishes: u64,
    /// Race finishes by the finisher's name, sorted by name.
    pub finishes_by_player: Vec<NameCount>,
    pub undecodable: u64,
}

impl From<MessageCounts> for MessagesRecord {
    fn from(m: MessageCounts) -> Self {
        MessagesRecord {
            by_name: m
                .by_name
                .into_iter()
                .map(|(name, count)| NameCount { name, count })
                .collect(),
            chat_lines: m.chat_lines,
            kills: m.kills,
            race_finishes: m.race_finishes,
            finishes_by_player: m
                .finishes_by_player
                .into_iter()
                .map(|(name, count)| NameCount { name, count })
                .collect(),
            undecodable: m.undecodable,
        }
    }
}

/// A demo header timestamp as ISO 8601 (`YYYY-MM-DDTHH:MM:SS`): DDNet's and
/// Teeworlds' `YYYY-MM-DD_HH-MM-SS`, or `YYYY-MM-DD HH:MM:SS`.
pub fn iso_timestamp(raw: &str) -> Option<String> {
    [
        "%Y-%m-%d_%H-%M-%S",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
    ]
    .iter()
    .find_map(|f| chrono::NaiveDateTime::parse_from_str(raw, f).ok())
    .map(|t| t.format("%Y-%m-%dT%H:%M:%S").to_string())
}

/// What one worker keeps between files.
pub struct Worker {
    pub read_buf: Vec<u8>,
    pub decoder: Decoder,
    /// Warnings kept per stage of a demo ([`Limits::max_warnings`]).
    pub max_warnings: usize,
}

impl Worker {
    /// A worker whose decoder has the options' tier and limits.
    pub fn new(opts: &IndexOptions) -> Self {
        let mut decoder = Decoder::new(opts.backend);
        decoder.set_max_ticks(opts.limits.max_ticks);
        Worker {
            read_buf: Vec::new(),
            decoder,
            max_warnings: opts.limits.max_warnings,
        }
    }
}

/// Indexes one demo.
pub fn index_input(w: &mut Worker, input: &Input, opts: &IndexOptions) -> DemoRecord {
    let mut rec = DemoRecord::of(input);
    if rec.refuse_over(input, opts.limits.max_demo_file_bytes) {
        return rec;
    }
    match load(input, opts.mmap, &mut w.read_buf) {
        Ok(bytes) => {
            index_bytes(&mut rec, &bytes, &mut w.decoder, w.max_warnings);
        }
        Err(e) => rec.fail(ErrorRecord::io(&e)),
    }
    crate::limits::shrink_buffer(&mut w.read_buf);
    rec
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Fills `rec` from the bytes of one demo; returns the snapshot statistics.
/// Each stage (container, stream, message, players) keeps `max_warnings`
/// warnings, then one `too_many_warnings` standing for the rest.
pub fn index_bytes(
    rec: &mut DemoRecord,
    bytes: &[u8],
    decoder: &mut Decoder,
    max_warnings: usize,
) -> Option<DemoStats> {
    rec.size = bytes.len() as u64;
    rec.body.sha256 = Some(hex::encode(Sha256::digest(bytes)));
    // Header warnings; the chunk framing warnings (tick padding, overlong
    // size escapes, unknown chunk types) join them as the stream reads the
    // chunks.
    let mut container = Warnings::new(max_warnings);
    let parsed = Demo::parse_with_warnings(bytes, &mut container);
    let container_records = |rec: &mut DemoRecord, container: &Warnings<DemoWarning>| {
        rec.warn(container.iter().map(|w| WarningRecord {
            stage: Stage::Demo,
            kind: w.kind.kind(),
            section: w.section.to_string(),
            offset: w.offset as u64,
        }));
    };
    let demo = match parsed {
        Ok(d) => d,
        Err(e) => {
            container_records(rec, &container);
            rec.fail(ErrorRecord::demo(&e));
            // A map cut off by the end of the file: the header is still good.
            if let Ok(partial) = Demo::parse_truncated_map(bytes) {
                fill_header(rec, &partial);
            }
            return None;
        }
    };
    fill_header(rec, &demo);
    rec.body.chunk_bytes = Some(bytes.len().saturating_sub(demo.chunks_offset()) as u64);
    // Messages, objects and item names follow the protocol the snapshots
    // are decoded with (for an unknown net version DDNet's fallback, which
    // the stream reports with a warning).
    let protocol = demo.decode_protocol();
    let tracker = TrackerConfig {
        keep_chat: false,
        ..TrackerConfig::default()
    };
    let mut stream_warnings = Warnings::new(max_warnings);
    let mut analysis_warnings = StageWarnings::new(max_warnings);
    let mut visitor = AnalysisVisitor::with_config(protocol, tracker, &mut analysis_warnings);
    let mut stream = decoder.stream_with_framing(&demo, &mut stream_warnings, container);
    let error = stream.run(&mut visitor);
    let (mut container, mut chunks) = stream.into_framing();
    // The framing of the chunks after where the stream stopped, if early.
    while !container.overflowed() {
        match chunks.next_with_warnings(&mut container) {
            Some(Ok(_)) => {}
            _ => break,
        }
    }
    container_records(rec, &container);
    if error.is_some() {
        visitor.stream_failed();
    }
    let analysis = visitor.finish();
    let stats = analysis.stats;
    let body = &mut rec.body;
    body.players = analysis
        .players
        .into_iter()
        .map(|p| PlayerSummary {
            client_id: p.client_id,
            names: p.names,
            clans: p.clans,
            first_tick: p.first_tick,
            last_tick: p.last_tick,
            ticks_present: p.ticks_present,
            score: p.score.filter(|&s| s != NO_SCORE),
            score_raw: p.score,
            local: p.local,
        })
        .collect();
    body.messages = Some(analysis.messages.into());
    rec.warn(stream_warnings.iter().map(|w| {
        WarningRecord {
            stage: Stage::Stream,
            kind: w.kind.kind(),
            section: w
                .chunk
                .map_or_else(|| "header".to_string(), |c| format!("chunk {c}")),
            offset: w.offset as u64,
        }
    }));
    let StageWarnings { message, players } = &analysis_warnings;
    rec.warn(message.iter().chain(players).map(|w| WarningRecord {
        stage: w.stage.stage(),
        kind: w.kind.kind(),
        section: w.section(),
        offset: w.offset as u64,
    }));
    if let Some(e) = error {
        rec.fail(ErrorRecord::stream(&e));
    }
    let body = &mut rec.body;
    body.chunks = Some(stats.chunks);
    body.first_tick = stats.first_tick;
    body.last_tick = stats.last_tick;
    body.ticks = Some(stats.chunks.tick_markers);
    body.duration_s = match (stats.first_tick, stats.last_tick) {
        (Some(a), Some(b)) => Some(f64::from(b.saturating_sub(a)) / f64::from(TICKS_PER_SECOND)),
        _ => None,
    };
    body.snapshots_reconstructed = Some(stats.snapshots_reconstructed);
    for (type_id, s) in &stats.item_types_ordinal {
        let name = protocol
            .item_name(u32::from(*type_id))
            .unwrap_or(if *type_id == 0 {
                "uuid_type_declaration"
            } else {
                "unknown"
            });
        body.item_types.push(ItemTypeRecord {
            type_id: Some(*type_id),
            uuid: None,
            name: name.to_owned(),
            occurrences: s.occurrences,
            sizes_ints: s.sizes_ints.iter().copied().collect(),
        });
    }
    for (key, s) in &stats.item_types_uuid {
        // `uuid (Name)`
        let (uuid, name) = key.split_once(' ').unwrap_or((key, ""));
        let name = name.trim_start_matches('(').trim_end_matches(')');
        body.item_types.push(ItemTypeRecord {
            type_id: None,
            uuid: Some(uuid.to_owned()),
            name: name.to_owned(),
            occurrences: s.occurrences,
            sizes_ints: s.sizes_ints.iter().copied().collect(),
        });
    }
    Some(stats)
}

/// Fills the header and embedded-map fields.
fn fill_header(rec: &mut DemoRecord, demo: &Demo<'_>) {
    let rec = &mut rec.body;
    let net_version = lossy(demo.net_version());
    let protocol = demo.protocol();
    rec.header = Some(HeaderRecord {
        version: demo.version(),
        protocol: protocol.map(|p| match p {
            Protocol::V06 => "0.6",
            Protocol::V07 => "0.7",
        }),
        net_version,
        map_name: lossy(demo.map_name()),
        map_size: demo.map_size(),
        map_crc: format!("{:08x}", demo.map_crc()),
        demo_type: lossy(demo.demo_type()),
        length: demo.length(),
        timestamp: iso_timestamp(&lossy(demo.timestamp())),
        timestamp_raw: lossy(demo.timestamp()),
        timeline_markers: demo.timeline_markers().to_vec(),
        map_sha256: demo.map_sha256().map(hex::encode),
    });
    rec.map = Some(embedded_map(demo));
}

fn embedded_map(demo: &Demo<'_>) -> EmbeddedMapRecord {
    let map = demo.map();
    let crc = crc32fast::hash(map);
    let sha = Sha256::digest(map);
    let mut r = EmbeddedMapRecord {
        size: map.len() as u64,
        crc32: format!("{crc:08x}"),
        sha256: hex::encode(sha),
        crc32_matches_header: crc == demo.map_crc(),
        sha256_matches_header: demo.map_sha256().map(|h| h[..] == sha[..]),
        ..EmbeddedMapRecord::default()
    };
    if map.is_empty() {
        return r;
    }
    match Datafile::parse(map) {
        Ok(df) => {
            r.datafile_version = Some(df.version().name());
            r.num_item_types = Some(df.item_types().len());
            r.num_items = Some(df.num_items());
            r.num_data = Some(df.num_data());
        }
        Err(e) => {
            r.error = Some(ErrorRecord::datafile(&e).in_embedded_map(demo.map_offset(), None));
        }
    }
    r
}

/// Options of a `demos index` run.
pub struct RunOptions {
    /// What is done with each demo.
    pub index: IndexOptions,
    /// Worker threads (`None` or 0: all cores; capped at the inputs).
    pub jobs: Option<usize>,
}

/// The records of a `demos index` run, as `format`, to `path` (`None` or
/// `-`: stdout); CSV is refused (demo records are nested).
pub fn open_records(
    format: super::sink::RecordFormat,
    path: Option<&std::path::Path>,
) -> std::io::Result<super::sink::RecordFile<DemoRecord>> {
    use super::sink::{RecordFile, RecordFormat};
    use std::io;
    match format {
        RecordFormat::Jsonl => RecordFile::json(path),
        RecordFormat::Csv => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--format csv: demo records are nested and have no CSV form (jsonl or parquet)",
        )),
        #[cfg(feature = "parquet")]
        RecordFormat::Parquet => RecordFile::parquet(path, super::parquet::demos_schema()),
        #[cfg(not(feature = "parquet"))]
        RecordFormat::Parquet => RecordFile::parquet_not_built(),
    }
}

/// Indexes every demo of `sel`: the records reach `sink` in input order,
/// `observer` after each; returns the summary of the run. A write error
/// of the sink stops the run and is returned.
pub fn run(
    sel: &super::run::Selection,
    opts: &RunOptions,
    sink: &mut dyn super::sink::RecordSink<DemoRecord>,
    observer: &mut dyn super::run::Observer,
) -> std::io::Result<super::run::IndexRun<super::summary::DemosAggregate>> {
    let index = &opts.index;
    let (run, _) = super::run::run_records(
        "demos index",
        sel,
        opts.jobs,
        || {
            (
                Worker::new(index),
                super::summary::DemosAggregate::default(),
            )
        },
        |w, input| index_input(&mut w.0, input, index),
        sink,
        observer,
        |w| &mut w.1,
    )?;
    let mut run = run;
    run.summary.options = counting_options(opts);
    Ok(run)
}

/// The options of a `demos index` run that change its summary's counts:
/// the limits (errors and warnings past them).
pub fn counting_options(opts: &RunOptions) -> super::summary::CountingOptions {
    let l = &opts.index.limits;
    super::summary::counting_options([
        ("max_ticks", l.max_ticks.to_string()),
        ("max_file_bytes", l.max_demo_file_bytes.to_string()),
        ("max_warnings", l.max_warnings.to_string()),
        ("max_archive_ratio", l.max_archive_ratio.to_string()),
        ("max_archive_bytes", l.max_archive_total_bytes.to_string()),
    ])
}

#[cfg(test)]
mod tests {
    use super::iso_timestamp;

    #[test]
    fn timestamps_become_iso_8601() {
        for (raw, iso) in [
            ("2025-10-04_11-03-42", Some("2025-10-04T11:03:42")),
            ("2025-10-04 11:03:42", Some("2025-10-04T11:03:42")),
            ("2025-10-04T11:03:42", Some("2025-10-04T11:03:42")),
            ("2025-13-04_11-03-42", None),
            ("2025-10-04_11-03", None),
            ("", None),
            ("yesterday", None),
        ] {
            assert_eq!(iso_timestamp(raw).as_deref(), iso, "{raw:?}");
        }
    }
}
