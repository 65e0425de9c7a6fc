//! Resource limits: what bounds memory and work on hostile input.
//!
//! Every parser in the crate checks counts, offsets and sizes against the
//! bytes that remain, so most of what a hostile file can do is bounded by its
//! own length. A few things are not, and need a number:
//!
//! | limit | default | enforced by | error when exceeded |
//! |---|---|---|---|
//! | [`Limits::max_decompressed_bytes`] | 1 GiB per file | [`crate::datafile::Inflater`] (a data block's claimed size is charged before its buffer is allocated) | datafile `limit_exceeded` |
//! | [`Limits::max_ticks`] | 30 240 000 tick markers (one week at 50 ticks/s) | [`crate::demo::stream::Decoder::set_max_ticks`] | stream `too_many_ticks` |
//! | [`Limits::max_warnings`] | 1024 per demo stream | the [`crate::warn::Warnings`] `demos index` hands to [`crate::demo::stream::visit_observed`] | none: one `too_many_warnings` warning, the rest dropped |
//! | datafile and map warnings ([`Limits::max_warnings`]) | 1024 per datafile and per map view | the [`crate::warn::Warnings`] `maps index` hands to [`crate::datafile::Datafile::parse_observed`] and [`crate::map::summarize_observed`] | none: one `too_many_warnings` warning, the rest dropped |
//! | [`crate::datafile::MAX_WARNINGS`], [`crate::map::MAX_WARNINGS`] | 1024 (fixed) | the [`crate::warn::Warnings`] `maps render` and `demos heatmap` hand to the same parsers | none: one `too_many_warnings` warning, the rest dropped |
//! | [`Limits::max_map_file_bytes`] | 1 GiB | `maps index` (not read at all) | io `too_large` |
//! | [`Limits::max_demo_file_bytes`] | 4 GiB | `demos index` (not read at all) | io `too_large` |
//! | [`Limits::max_archive_ratio`] | 1100:1 declared size to stored size per archive member (deflate's most is about 1032:1) | [`crate::batch::archive`] listing | archive `zip_bomb` (that member) |
//! | [`Limits::max_archive_total_bytes`] | 64 GiB declared per archive | [`crate::batch::archive`] listing | archive `total_limit` (the members past it) |
//! | [`Limits::MAX_JOBS`] | 256 worker threads (fixed) | [`Limits::cap_jobs`]: `--jobs` of every command, [`crate::batch::run_ordered`] | none: `--jobs` is capped at 256 and at the number of inputs |
//! | analysis warnings ([`Limits::max_warnings`]) | 1024 per demo and stage (`message`, `players`) | the [`crate::demo::analysis::StageWarnings`] `demos index` hands to [`crate::demo::analysis::AnalysisVisitor`] | none: one `too_many_warnings` warning, the rest dropped |
//! | [`Limits::MAX_TRACKED_PLAYERS`] | 256 client ids per demo (fixed) | [`crate::demo::players::PlayerTracker`] | players `too_many_players` (once per id) |
//! | [`Limits::MAX_NAMES_PER_PLAYER`] | 32 names, clans, skins each (fixed) | [`crate::demo::players::PlayerTracker`] | players `too_many_strings` (once per player) |
//! | [`Limits::MAX_TEAM_CHANGES_PER_PLAYER`] | 1024 (fixed) | [`crate::demo::players::PlayerTracker`] | players `too_many_team_changes` (once per player; counted) |
//! | chat lines | none kept by `demos index` (counted); `demos dump --chat` writes each as decoded | [`crate::demo::players::TrackerConfig::keep_chat`] | – |
//! | [`Limits::KEEP_WORKER_BUFFER_BYTES`] | 64 MiB per reusable worker buffer (fixed) | `maps index`, `demos index`, `demos export` (shrunk after a larger file) | none |
//! | [`crate::map::STREAM_TILES_BYTES`] | 16 MiB (fixed) | `maps index` tile statistics: larger vanilla tile data is counted piece by piece as it inflates, never held whole | none |
//! | map string blocks | 4097 bytes inflated per C string (fixed, [`crate::map::strings::MAX_STRING_LEN`] + 1) | [`crate::datafile::Datafile::decompress_prefix`] | none: a longer string is cut with `string_truncated` |
//! | [`Limits::MAX_PICTURE_OVERDRAW`], [`Limits::PICTURE_WORK_ALLOWANCE`] | 256 pixel visits per pixel of the drawing, plus 2^24 (fixed; see [`Limits::picture_work`]) | `maps render --style full` ([`crate::render::full::draw`]): every pixel a tile or quad visits, every row a quad scans, every tile and quad read | render `work_limit` (naming the group and layer) |
//! | [`Limits::MAX_SNAPSHOT_ITEMS`] | 1024 (fixed) | snapshot parsing and delta application | stream `snapshot.too_many_items` |
//! | [`Limits::MAX_SNAPSHOT_BYTES`] | 64 KiB (fixed) | snapshot parsing and delta application | stream `snapshot.too_large` |
//! | [`Limits::MAX_CHUNK_PAYLOAD`] | 64 KiB decoded (fixed) | Huffman and varint stages of the demo stream | stream `payload_too_large` |
//!
//! The last three are **protocol limits**, not tunables: they are DDNet's
//! own constants (`CSnapshot::MAX_ITEMS`, `CSnapshot::MAX_SIZE`, the 64 KiB
//! chunk buffers of `CDemoPlayer`), every demo DDNet or Teeworlds can record
//! or play stays within them, and the decoder's buffers are sized by them.
//! They are associated constants here so a report can name them in one place.
//!
//! The configurable defaults accept every real file in the shared datasets
//! (the largest, DDNetPP's BlmapChill, inflates from 1.4 MB to 626 MB: 1 GiB
//! leaves a 1.7× margin; the longest demo has 1912 tick markers; real demos
//! have no stream warnings, real maps at most 13 warnings) and reject
//! decompression bombs and endless tick streams long before memory or time
//! run out. A
//! datafile data block is also checked against the most zlib can produce from
//! its stored bytes (about 1032:1), whatever the limit: a 1 KiB block that
//! claims to inflate to 2 GiB is refused (`bad_data_size`) before anything is
//! allocated.

use crate::codec::snapshot;
use crate::datafile;
use crate::demo::{players, stream};

/// The resource limits of one run; see the module docs for the table.
///
/// Built once from the command line flags and carried in every options
/// struct ([`crate::batch::maps::IndexOptions`],
/// [`crate::batch::demos::IndexOptions`],
/// [`crate::batch::export::ExportOptions`]); each layer's default lives
/// with the layer and is referred to here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Total decompressed bytes of one datafile's data blocks (a map, or a
    /// map embedded in a demo).
    pub max_decompressed_bytes: u64,
    /// Tick markers decoded from one demo before the stream stops with
    /// [`stream::StreamErrorKind::TooManyTicks`].
    pub max_ticks: u64,
    /// Map files larger than this are not read.
    pub max_map_file_bytes: u64,
    /// Demo files larger than this are not read.
    pub max_demo_file_bytes: u64,
    /// Warnings kept per demo stream; the next one is reported as
    /// `too_many_warnings` and the rest are dropped (real demos have none;
    /// a crafted one can have 16 384 per 12 KB chunk).
    pub max_warnings: usize,
    /// Most bytes an archive member may declare per byte it stores (a
    /// member over it is a `zip_bomb` error; its declared size is never
    /// allocated).
    pub max_archive_ratio: u64,
    /// Most bytes the members of one archive may declare in total (members
    /// past it are `total_limit` errors).
    pub max_archive_total_bytes: u64,
}

impl Limits {
    /// Default [`Limits::max_decompressed_bytes`]: 1 GiB
    /// ([`datafile::DEFAULT_MAX_DECOMPRESSED_BYTES`]).
    pub const DEFAULT_MAX_DECOMPRESSED_BYTES: u64 = datafile::DEFAULT_MAX_DECOMPRESSED_BYTES;
    /// Default [`Limits::max_ticks`]: one week of ticks at 50 ticks per
    /// second ([`stream::DEFAULT_MAX_TICKS`]).
    pub const DEFAULT_MAX_TICKS: u64 = stream::DEFAULT_MAX_TICKS;
    /// Default [`Limits::max_warnings`] ([`crate::warn::DEFAULT_MAX_WARNINGS`]).
    pub const DEFAULT_MAX_WARNINGS: usize = crate::warn::DEFAULT_MAX_WARNINGS;
    /// Default [`Limits::max_archive_ratio`]: above deflate's most (about
    /// 1032:1), so no honest member is refused.
    pub const DEFAULT_MAX_ARCHIVE_RATIO: u64 = 1100;
    /// Default [`Limits::max_archive_total_bytes`]: 64 GiB.
    pub(crate) const DEFAULT_MAX_ARCHIVE_TOTAL_BYTES: u64 = 64 << 30;
    /// Default [`Limits::max_map_file_bytes`]: the decompression limit
    /// (1 GiB), so a map file is not read when its size alone is over what
    /// it may inflate to.
    pub const DEFAULT_MAX_MAP_FILE_BYTES: u64 = Self::DEFAULT_MAX_DECOMPRESSED_BYTES;
    /// Default [`Limits::max_demo_file_bytes`]: 4 GiB.
    pub const DEFAULT_MAX_DEMO_FILE_BYTES: u64 = 4 << 30;

    /// Most items in one snapshot (protocol limit, DDNet
    /// `CSnapshot::MAX_ITEMS`; not configurable).
    pub const MAX_SNAPSHOT_ITEMS: usize = snapshot::MAX_ITEMS;
    /// Largest serialized snapshot in bytes (protocol limit, DDNet
    /// `CSnapshot::MAX_SIZE`; not configurable).
    pub const MAX_SNAPSHOT_BYTES: usize = snapshot::MAX_SIZE;
    /// Largest demo chunk payload once Huffman-decoded, in bytes (protocol
    /// limit, DDNet's 64 KiB chunk buffers; not configurable). It also bounds
    /// the varint stage: at most a quarter as many ints.
    pub const MAX_CHUNK_PAYLOAD: usize = stream::MAX_PAYLOAD;

    /// Most worker threads of one run, whatever `--jobs` asks (see
    /// [`Limits::cap_jobs`]). Far above the cores of any machine this runs
    /// on, far below what makes thread creation the bottleneck.
    pub const MAX_JOBS: usize = 256;

    /// The worker threads a run uses: `requested` (`None` or 0: one per
    /// available core), at most [`Limits::MAX_JOBS`] and at most `work`
    /// (the number of inputs or pieces of work; at least 1).
    pub fn cap_jobs(requested: Option<usize>, work: usize) -> usize {
        let jobs = requested
            .filter(|&j| j > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        jobs.min(Self::MAX_JOBS).min(work.max(1))
    }

    /// Bytes of capacity a worker's reusable buffer (file bytes, inflated
    /// blocks) keeps after a file; a larger one is shrunk to this once the
    /// file is done (`shrink_buffer`), so one huge file does not hold its
    /// memory for the rest of the batch (not configurable).
    pub const KEEP_WORKER_BUFFER_BYTES: usize = 64 << 20;
    /// Players a demo's analysis tracks; more client ids get one
    /// `too_many_players` warning each (not configurable).
    pub const MAX_TRACKED_PLAYERS: usize = players::DEFAULT_MAX_PLAYERS;
    /// Distinct names (and clans, skins) kept per player; the next one
    /// gives one `too_many_strings` warning (not configurable).
    pub const MAX_NAMES_PER_PLAYER: usize = players::DEFAULT_MAX_STRINGS;
    /// Team changes kept per player; later ones are counted, with one
    /// `too_many_team_changes` warning (not configurable).
    pub const MAX_TEAM_CHANGES_PER_PLAYER: usize = players::DEFAULT_MAX_TEAM_CHANGES;

    /// Pixel visits a `full` picture may make per pixel of its drawing (the
    /// canvas it is drawn on: one pixel per tile when shrinking), on
    /// average: a visit is a pixel a tile cell or a quad's span covers
    /// (drawn or found transparent), and each row a quad scans, each tile
    /// and each quad read counts one too. Real maps draw each pixel about
    /// once per layer; 256 is far above any (not configurable).
    pub const MAX_PICTURE_OVERDRAW: u64 = 256;
    /// Visits every `full` picture may make whatever its size (so a tiny
    /// picture of a map with many layers or quads is still drawn).
    pub const PICTURE_WORK_ALLOWANCE: u64 = 1 << 24;

    /// The work a `full` picture of `pixels` drawing pixels may do:
    /// [`Limits::MAX_PICTURE_OVERDRAW`] per pixel plus
    /// [`Limits::PICTURE_WORK_ALLOWANCE`]; past it the picture fails with
    /// render `work_limit`.
    pub fn picture_work(pixels: u64) -> u64 {
        pixels
            .saturating_mul(Self::MAX_PICTURE_OVERDRAW)
            .saturating_add(Self::PICTURE_WORK_ALLOWANCE)
    }

    /// The datafile part of these limits.
    pub fn datafile(&self) -> datafile::InflateLimits {
        datafile::InflateLimits {
            max_decompressed_bytes: self.max_decompressed_bytes,
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_decompressed_bytes: Self::DEFAULT_MAX_DECOMPRESSED_BYTES,
            max_ticks: Self::DEFAULT_MAX_TICKS,
            max_map_file_bytes: Self::DEFAULT_MAX_MAP_FILE_BYTES,
            max_demo_file_bytes: Self::DEFAULT_MAX_DEMO_FILE_BYTES,
            max_warnings: Self::DEFAULT_MAX_WARNINGS,
            max_archive_ratio: Self::DEFAULT_MAX_ARCHIVE_RATIO,
            max_archive_total_bytes: Self::DEFAULT_MAX_ARCHIVE_TOTAL_BYTES,
        }
    }
}

/// Shrinks a worker's reusable buffer to
/// [`Limits::KEEP_WORKER_BUFFER_BYTES`] of capacity if it grew beyond (its
/// contents are dropped: call between files).
pub(crate) fn shrink_buffer(buf: &mut Vec<u8>) {
    if buf.capacity() > Limits::KEEP_WORKER_BUFFER_BYTES {
        buf.clear();
        buf.shrink_to(Limits::KEEP_WORKER_BUFFER_BYTES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_buffers_shrink_small_ones_stay() {
        let mut big = vec![0u8; Limits::KEEP_WORKER_BUFFER_BYTES + 1];
        shrink_buffer(&mut big);
        assert!(big.capacity() <= Limits::KEEP_WORKER_BUFFER_BYTES);
        let mut small = vec![7u8; 1000];
        shrink_buffer(&mut small);
        assert_eq!(small, vec![7u8; 1000]);
    }

    #[test]
    fn jobs_are_capped_at_the_work_and_the_maximum() {
        assert_eq!(Limits::cap_jobs(Some(2000), 1), 1);
        assert_eq!(
            Limits::cap_jobs(Some(usize::MAX), 100_000),
            Limits::MAX_JOBS
        );
        assert_eq!(Limits::cap_jobs(Some(3), 10), 3);
        assert_eq!(Limits::cap_jobs(Some(3), 0), 1);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(Limits::cap_jobs(None, 100_000), cores.min(256));
        assert_eq!(Limits::cap_jobs(Some(0), 100_000), cores.min(256));
    }

    #[test]
    fn defaults_agree_with_the_layers_that_enforce_them() {
        let l = Limits::default();
        assert_eq!(l.datafile(), datafile::InflateLimits::default());
        assert_eq!(l.max_ticks, 30_240_000);
        assert_eq!(l, crate::batch::maps::IndexOptions::default().limits);
        assert_eq!(l, crate::batch::demos::IndexOptions::default().limits);
        assert_eq!(l.max_map_file_bytes, 1 << 30);
        assert_eq!(l.max_demo_file_bytes, 4 << 30);
        assert_eq!(
            stream::Decoder::default().max_ticks(),
            Limits::DEFAULT_MAX_TICKS
        );
        assert_eq!(Limits::MAX_SNAPSHOT_ITEMS, 1024);
        let t = players::TrackerConfig::default();
        assert_eq!(
            (t.max_players, t.max_strings, t.max_team_changes),
            (
                Limits::MAX_TRACKED_PLAYERS,
                Limits::MAX_NAMES_PER_PLAYER,
                Limits::MAX_TEAM_CHANGES_PER_PLAYER
            )
        );
        assert_eq!(Limits::MAX_SNAPSHOT_BYTES, 65536);
        assert_eq!(Limits::MAX_CHUNK_PAYLOAD, 65536);
    }
}
