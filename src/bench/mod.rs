//! The benchmark program of `teebatch bench ...`: throughput of the
//! engines on real or given files.
//!
//! Each figure is measured as hyperfine and criterion users expect: after
//! `--warmup` runs, `--runs` timed runs (samples), each repeating the work
//! enough times to last at least `--seconds / --runs`; the figure is the
//! median of the samples, printed with their minimum and maximum. Files are
//! read into memory first, so the figures measure decoding, not the disk.
//! A run warns (on stderr, and in the JSON document) when the machine is
//! loaded or the input is too small for its figures to mean anything;
//! `--save NAME` keeps the JSON document and `--compare NAME|FILE` prints
//! the change of every figure against a saved one ([`compare`]).
//!
//! [`payloads`] is the decode-every-payload loop of `bench codecs`, public
//! for the criterion benches (`benches/codecs`) that measure the same
//! kernels on the same inputs.

use crate::backend::Backend;
use crate::batch::maps::{index_bytes, IndexOptions, MapRecord, Verify};
use crate::batch::run::mb_per_s;
use crate::batch::{collect_inputs, embedded, run_ordered, Input};
use crate::datafile::{Datafile, Inflater};
use crate::demo::stream::huffman_room;
use serde::Serialize;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub(crate) use comparison::saved_path;
pub use comparison::{compare, Comparison};
use report::Report;
pub use report::{Build, Inputs, Machine, MIN_MEANINGFUL_BYTES};

/// Which bench to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bench {
    /// Map engine: parse, index, inflate (libdeflater vs flate2/zlib-rs).
    Maps,
    /// Demo engine: full decode per tier, on one core and on all, plus the
    /// keyframe-split decode of single demos.
    Demos,
    /// Codec kernels per tier on real demo chunk payloads.
    Codecs,
    /// `demos export`: each table in each format against the full decode
    /// (cargo feature `parquet`).
    #[cfg(feature = "parquet")]
    Export,
}

/// Options of a bench run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Files or directories (none: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Minimum time per measurement, in seconds.
    pub seconds: f64,
    /// Threads for the parallel figure (`None` or 0: all cores; at most
    /// 256).
    pub jobs: Option<usize>,
    pub format: BenchFormat,
    /// Timed runs per figure (at least 1).
    pub runs: u32,
    /// Untimed runs before them.
    pub warmup: u32,
    /// Where to keep this run's JSON document (`--save`): a name, kept as
    /// `.teebatch-bench/NAME.json`, or a path ending in `.json`.
    pub save: Option<String>,
    /// A saved run to compare with (`--compare`), named as for `save`.
    pub compare: Option<String>,
    /// `bench export`: the tables (none: all).
    #[cfg(feature = "parquet")]
    pub tables: Vec<crate::demo::export::Table>,
    /// `bench export`: the table formats (none: all).
    #[cfg(feature = "parquet")]
    pub writers: Vec<crate::batch::sink::RecordFormat>,
}

impl Options {
    #[cfg(feature = "parquet")]
    fn backend_name(&self) -> &'static str {
        crate::backend::Backend::default().name()
    }

    /// How each figure is sampled.
    fn sampling(&self) -> Sampling {
        Sampling {
            runs: self.runs.max(1),
            warmup: self.warmup,
            per_run: Duration::from_secs_f64(self.seconds.max(0.0) / f64::from(self.runs.max(1))),
        }
    }
}

/// How a figure is sampled: `warmup` untimed runs, then `runs` samples of
/// at least `per_run` each.
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    pub runs: u32,
    pub warmup: u32,
    pub per_run: Duration,
}

/// The samples of one figure: seconds per iteration of the work, one per
/// timed run, each run repeating the work `iterations` times.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub iterations: u32,
    pub samples: Vec<f64>,
}

impl Measured {
    /// The seconds per iteration of the fastest, the median and the
    /// slowest run (one sort).
    fn spread(&self) -> (f64, f64, f64) {
        let mut v = self.samples.clone();
        v.sort_by(f64::total_cmp);
        let (lo, hi) = (v.first().copied(), v.last().copied());
        (lo.unwrap_or(0.0), median_of(&v), hi.unwrap_or(0.0))
    }

    /// The median seconds per iteration (the mean of the two middle ones
    /// for an even count).
    pub fn median(&self) -> f64 {
        self.spread().1
    }

    pub fn min(&self) -> f64 {
        self.spread().0
    }

    pub fn max(&self) -> f64 {
        self.spread().2
    }

    /// Timed runs.
    pub fn runs(&self) -> u32 {
        self.samples.len() as u32
    }

    /// The median, minimum and maximum rates of `bytes` per iteration, in
    /// MB/s (the fastest sample gives the maximum).
    pub fn rates(&self, bytes: u64) -> (f64, f64, f64) {
        let (fastest, median, slowest) = self.spread();
        (
            mb_per_s(bytes, median),
            mb_per_s(bytes, slowest),
            mb_per_s(bytes, fastest),
        )
    }
}

/// The median of sorted `v` (0 when empty).
fn median_of(v: &[f64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The text cells of a rate: median, `min–max`, runs (× iterations per
/// run when more than one).
fn rate_cells(bytes: u64, m: &Measured) -> String {
    let (med, lo, hi) = m.rates(bytes);
    let runs = if m.iterations > 1 {
        format!("{}×{}", m.runs(), m.iterations)
    } else {
        m.runs().to_string()
    };
    format!("{med:>10.1} {:>17} {runs:>7}", format!("{lo:.1}–{hi:.1}"))
}

/// The header cells matching [`rate_cells`].
fn rate_header(unit: &str) -> String {
    format!("{unit:>10} {:>17} {:>7}", "min–max", "runs")
}

/// Where the report's lines go (the command line prints each on stdout).
pub type Print<'a> = &'a dyn Fn(fmt::Arguments<'_>);

/// Output format of `teebatch bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BenchFormat {
    /// A table on stdout.
    Text,
    /// One JSON document on stdout.
    Json,
}

/// One measured figure: the row of the text table.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    pub measurement: String,
    /// `oracle`, `scalar` or `simd` ([`Backend`]), or a kernel's name.
    pub tier: Option<String>,
    /// Megabytes (10^6 bytes) per second of `unit`: the median of the
    /// runs.
    pub mb_per_s: f64,
    /// The slowest and the fastest run's rate.
    pub mb_per_s_min: f64,
    pub mb_per_s_max: f64,
    /// What the megabytes count, e.g. "output", "chunk data", "files".
    pub unit: &'static str,
    /// Maps per second, where the table has that column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maps_per_s: Option<f64>,
    /// The median seconds of one iteration of the work.
    pub seconds_per_run: f64,
    /// Timed runs (samples).
    pub runs: u32,
    /// Iterations of the work per timed run.
    pub iterations_per_run: u32,
    /// Seconds per iteration of every timed run, in run order.
    pub samples: Vec<f64>,
    /// Anything else the text row says (e.g. ns per delta).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A [`Figure`] of `bytes` processed per iteration, measured as `m`.
fn figure(
    measurement: &str,
    tier: Option<&str>,
    unit: &'static str,
    bytes: u64,
    m: &Measured,
) -> Figure {
    let (med, lo, hi) = m.rates(bytes);
    Figure {
        measurement: measurement.to_string(),
        tier: tier.map(str::to_string),
        mb_per_s: med,
        mb_per_s_min: lo,
        mb_per_s_max: hi,
        unit,
        maps_per_s: None,
        seconds_per_run: m.median(),
        runs: m.runs(),
        iterations_per_run: m.iterations,
        samples: m.samples.clone(),
        note: None,
    }
}

/// A line of the report (nothing in JSON).
macro_rules! out {
    ($r:expr, $($arg:tt)*) => {
        $r.line(format_args!($($arg)*))
    };
}

mod codecs;
mod comparison;
mod demos;
#[cfg(feature = "parquet")]
mod export;
mod maps;
pub mod payloads;
mod report;

/// Runs `bench` with `opts`; each line of the report (the table as it
/// comes, or the JSON document at the end) goes to `print`.
pub fn run(bench: Bench, opts: &Options, print: Print<'_>) -> io::Result<()> {
    match bench {
        Bench::Maps => maps::bench_maps(opts, print),
        Bench::Codecs => codecs::bench_codecs(opts, print),
        Bench::Demos => demos::bench_demos(opts, print),
        #[cfg(feature = "parquet")]
        Bench::Export => export::bench_export(opts, print),
    }
}

/// Samples `f` as `s` says: `s.warmup` untimed calls (at least one, which
/// also times one call), then `s.runs` timed runs of the same number of
/// calls each, enough for a run to last `s.per_run`.
fn measure(s: Sampling, mut f: impl FnMut()) -> Measured {
    let mut one = f64::MAX;
    for _ in 0..s.warmup.max(1) {
        let t = Instant::now();
        f();
        one = one.min(t.elapsed().as_secs_f64());
    }
    let iterations = iterations_for(s.per_run.as_secs_f64(), one);
    let samples = (0..s.runs.max(1))
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iterations {
                f();
            }
            t.elapsed().as_secs_f64() / f64::from(iterations)
        })
        .collect();
    Measured {
        iterations,
        samples,
    }
}

/// Calls of `one` seconds each that fill `per_run` seconds (1 to 10^6).
fn iterations_for(per_run: f64, one: f64) -> u32 {
    if one <= 0.0 {
        return 1_000_000;
    }
    (per_run / one).ceil().clamp(1.0, 1e6) as u32
}

fn load_all(paths: &[PathBuf], ext: &str) -> io::Result<Vec<(Input, Vec<u8>)>> {
    let inputs = if paths.is_empty() {
        match ext {
            "demo" => embedded::demo_inputs(),
            _ => embedded::map_inputs(),
        }
    } else {
        collect_inputs(paths, ext)
    };
    let mut out = Vec::new();
    for input in inputs {
        let bytes = match &input {
            Input::File { path, .. } => crate::batch::read_named_file(path)?,
            Input::Embedded { bytes, .. } => bytes.to_vec(),
            Input::Member(m) => {
                let mut buf = Vec::new();
                m.load(&mut buf)?.to_vec()
            }
            Input::Unlistable { .. } | Input::BadArchive { .. } | Input::Special { .. } => continue,
        };
        out.push((input, bytes));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(samples: &[f64]) -> Measured {
        Measured {
            iterations: 1,
            samples: samples.to_vec(),
        }
    }

    #[test]
    fn medians_minima_and_maxima_of_samples() {
        let m = measured(&[3.0, 1.0, 2.0]);
        assert_eq!((m.median(), m.min(), m.max(), m.runs()), (2.0, 1.0, 3.0, 3));
        assert_eq!(measured(&[4.0, 1.0, 2.0, 3.0]).median(), 2.5);
        // 1 MB per iteration: the slowest run (3 s) gives the minimum rate.
        let (med, lo, hi) = m.rates(1_000_000);
        assert_eq!((med, lo, hi), (0.5, 1.0 / 3.0, 1.0));
    }

    #[test]
    fn iterations_fill_the_run() {
        assert_eq!(iterations_for(0.2, 0.05), 4);
        assert_eq!(iterations_for(0.2, 0.3), 1);
        assert_eq!(iterations_for(0.0, 0.3), 1);
        assert_eq!(iterations_for(1.0, 1e-12), 1_000_000);
    }

    #[test]
    fn measure_takes_the_runs_asked() {
        let mut calls = 0;
        let s = Sampling {
            runs: 4,
            warmup: 2,
            per_run: Duration::ZERO,
        };
        let m = measure(s, || calls += 1);
        assert_eq!((m.runs(), m.iterations, calls), (4, 1, 6));
    }
}
