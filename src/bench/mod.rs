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

use crate::backend::Backend;
use crate::batch::maps::{index_bytes, IndexOptions, MapRecord, Verify};
use crate::batch::run::mb_per_s;
use crate::batch::{collect_inputs, embedded, run_ordered, Input};
use crate::datafile::{Datafile, Inflater};
use crate::demo::stream::huffman_room;
use serde::Serialize;
use std::cell::RefCell;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    pub writers: Vec<crate::batch::tables::Format>,
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

/// The machine a run was measured on.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// `model name` of `/proc/cpuinfo` where there is one.
    pub cpu_model: Option<String>,
    pub arch: &'static str,
    pub os: &'static str,
    /// Logical CPUs available to this process.
    pub cpus: usize,
    /// The SIMD-relevant CPU features detected at run time.
    pub features: Vec<&'static str>,
}

impl Machine {
    pub fn current() -> Machine {
        let cpu_model = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|info| {
                info.lines()
                    .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            });
        Machine {
            cpu_model,
            arch: std::env::consts::ARCH,
            os: std::env::consts::OS,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            features: detected_features(),
        }
    }
}

/// The SIMD-relevant features this CPU has.
fn detected_features() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut v = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! feat {
            ($($f:tt),*) => {$(
                if is_x86_feature_detected!($f) { v.push($f); }
            )*};
        }
        feat!(
            "sse2",
            "ssse3",
            "sse4.1",
            "sse4.2",
            "popcnt",
            "avx",
            "avx2",
            "bmi1",
            "bmi2",
            "lzcnt",
            "pclmulqdq",
            "sha",
            "avx512f",
            "avx512bw",
            "avx512vl",
            "avx512vbmi",
            "avx512vbmi2"
        );
    }
    v
}

/// The JSON document of `bench --format json` (and of `--save`).
#[derive(Serialize)]
struct Document<'a> {
    format: &'static str,
    /// 2: medians with `samples`, structured `inputs`, `build`, `load`.
    version: u32,
    teebatch_version: &'static str,
    bench: &'static str,
    /// UTC, RFC 3339.
    date: String,
    command: Vec<String>,
    build: Build,
    machine: Machine,
    tiers: crate::codec::kernels::Tiers,
    inputs: &'a Inputs,
    /// Threads of the parallel figures (the others use one).
    threads: usize,
    sampling: SamplingDoc,
    /// The 1-minute load average before and after the run (`None` where
    /// the platform has no `/proc/loadavg`).
    load_average: LoadAverage,
    warnings: &'a [String],
    figures: &'a [Figure],
    /// With `--compare`: each figure against the saved run.
    #[serde(skip_serializing_if = "Option::is_none")]
    comparison: Option<&'a [Comparison]>,
}

/// What was measured.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Inputs {
    /// The PATH arguments (empty: the embedded dataset).
    pub paths: Vec<String>,
    pub files: usize,
    /// Bytes of the files.
    pub bytes: u64,
    /// What the header says of them.
    pub description: String,
}

#[derive(Serialize)]
struct SamplingDoc {
    runs: u32,
    warmup: u32,
    seconds_min: f64,
}

#[derive(Serialize)]
struct LoadAverage {
    before: Option<f64>,
    after: Option<f64>,
}

/// The build that measured: enough to tell two runs' binaries apart.
#[derive(Clone, Debug, Serialize)]
pub struct Build {
    pub version: &'static str,
    /// `git rev-parse HEAD` when built from a checkout.
    pub git_commit: Option<&'static str>,
    /// Cargo's profile (`debug` for dev and test builds, `release`) and
    /// its optimisation level.
    pub profile: &'static str,
    pub opt_level: &'static str,
    /// The target features compiled in (`-C target-cpu`/`target-feature`).
    pub target_features: Vec<&'static str>,
    /// The x86 level the kernels may use (after `TEEBATCH_X86_LEVEL`).
    pub x86_level: String,
}

impl Build {
    pub fn current() -> Build {
        Build {
            version: env!("CARGO_PKG_VERSION"),
            git_commit: option_env!("TEEBATCH_GIT_COMMIT"),
            profile: env!("TEEBATCH_PROFILE"),
            opt_level: env!("TEEBATCH_OPT_LEVEL"),
            target_features: env!("TEEBATCH_TARGET_FEATURES")
                .split(',')
                .filter(|f| !f.is_empty())
                .collect(),
            x86_level: crate::codec::kernels::describe(),
        }
    }
}

/// The 1-minute load average, where the platform says it.
pub(crate) fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Inputs smaller than this give figures that mostly measure set-up and
/// caches: the run says so.
pub const MIN_MEANINGFUL_BYTES: u64 = 10_000_000;

/// Why a run's figures may not mean what they seem: a load average above
/// the cores the bench leaves idle (CPUs − `threads`) by more than 0.5,
/// or inputs under [`MIN_MEANINGFUL_BYTES`] (the embedded dataset always).
pub(crate) fn warnings_for(
    inputs: &Inputs,
    threads: usize,
    cpus: usize,
    load: Option<f64>,
) -> Vec<String> {
    let mut w = Vec::new();
    if let Some(load) = load {
        let idle = cpus.saturating_sub(threads);
        if load > idle as f64 + 0.5 {
            w.push(format!(
                "load average {load:.2} before the run on {cpus} CPUs, {idle} of them left idle by this bench ({threads} threads): other processes compete for the cores, so the figures are not comparable with an idle machine's"
            ));
        }
    }
    if inputs.paths.is_empty() {
        w.push(format!(
            "the embedded dataset ({:.2} MB) is far too small for a figure to mean anything: name real files, {} MB or more",
            inputs.bytes as f64 / 1e6,
            MIN_MEANINGFUL_BYTES / 1_000_000
        ));
    } else if inputs.bytes < MIN_MEANINGFUL_BYTES {
        w.push(format!(
            "{:.2} MB of input is too little for stable figures (set-up and caches dominate): name {} MB or more",
            inputs.bytes as f64 / 1e6,
            MIN_MEANINGFUL_BYTES / 1_000_000
        ));
    }
    w
}

/// Where a bench's lines and figures go: printed as they come (text), or
/// gathered for one JSON document at the end.
struct Report<'a> {
    print: Print<'a>,
    opts: &'a Options,
    bench: &'static str,
    threads: std::cell::Cell<usize>,
    load_before: Option<f64>,
    inputs: RefCell<Inputs>,
    warnings: RefCell<Vec<String>>,
    figures: RefCell<Vec<Figure>>,
}

impl<'a> Report<'a> {
    fn new(bench: &'static str, a: &'a Options, print: Print<'a>) -> Report<'a> {
        Report {
            print,
            opts: a,
            bench,
            threads: std::cell::Cell::new(1),
            load_before: load_average(),
            inputs: RefCell::new(Inputs::default()),
            warnings: RefCell::new(Vec::new()),
            figures: RefCell::new(Vec::new()),
        }
    }

    /// A line of the text table (nothing in JSON).
    fn line(&self, args: std::fmt::Arguments<'_>) {
        if self.opts.format == BenchFormat::Text {
            (self.print)(args);
        }
    }

    /// The header: what the inputs are (`files` files of `bytes` bytes,
    /// described by `text`), the machine's tiers, the sampling, and the
    /// warnings; `threads`: those of the parallel figures.
    fn header(&self, text: String, files: usize, bytes: u64, threads: usize) {
        self.threads.set(threads);
        let inputs = Inputs {
            paths: self
                .opts
                .paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
            files,
            bytes,
            description: text.clone(),
        };
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let warnings = warnings_for(&inputs, threads, cpus, self.load_before);
        self.line(format_args!(
            "{text} ({})",
            crate::codec::kernels::describe()
        ));
        let s = self.opts.sampling();
        self.line(format_args!(
            "each figure: median of {} timed runs of at least {:.3} s after {} warm-up runs, with the slowest and fastest run (min–max)",
            s.runs,
            s.per_run.as_secs_f64(),
            s.warmup
        ));
        for w in &warnings {
            self.line(format_args!("warning: {w}"));
        }
        *self.inputs.borrow_mut() = inputs;
        *self.warnings.borrow_mut() = warnings;
    }

    fn figure(&self, f: Figure) {
        self.figures.borrow_mut().push(f);
    }

    /// Prints the JSON document (text was printed as it came), saves it
    /// with `--save` and compares with `--compare`.
    fn finish(self) -> io::Result<()> {
        let figures = self.figures.borrow();
        let inputs = self.inputs.borrow();
        let warnings = self.warnings.borrow();
        let comparison = match &self.opts.compare {
            Some(name) => {
                let path = saved_path(name);
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    io::Error::new(e.kind(), format!("--compare {}: {e}", path.display()))
                })?;
                let saved: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("--compare {}: not a bench document: {e}", path.display()),
                    )
                })?;
                Some(compare(&saved, &figures))
            }
            None => None,
        };
        let s = self.opts.sampling();
        let doc = Document {
            format: "teebatch-bench",
            version: 2,
            teebatch_version: env!("CARGO_PKG_VERSION"),
            bench: self.bench,
            date: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            command: std::env::args().collect(),
            build: Build::current(),
            machine: Machine::current(),
            tiers: crate::codec::kernels::tiers(),
            inputs: &inputs,
            threads: self.threads.get(),
            sampling: SamplingDoc {
                runs: s.runs,
                warmup: s.warmup,
                seconds_min: self.opts.seconds,
            },
            load_average: LoadAverage {
                before: self.load_before,
                after: load_average(),
            },
            warnings: &warnings,
            figures: &figures,
            comparison: comparison.as_deref(),
        };
        let text = serde_json::to_string_pretty(&doc).map_err(io::Error::other)?;
        if let Some(name) = &self.opts.save {
            let path = saved_path(name);
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let (mut file, pending) = crate::batch::output::create(&path)?;
            std::io::Write::write_all(&mut file, text.as_bytes())?;
            drop(file);
            pending.commit()?;
        }
        match self.opts.format {
            BenchFormat::Json => (self.print)(format_args!("{text}")),
            BenchFormat::Text => {
                if let Some(c) = &comparison {
                    (self.print)(format_args!(
                        "compared with {}:",
                        self.opts.compare.as_deref().unwrap_or_default()
                    ));
                    for line in c {
                        (self.print)(format_args!("{line}"));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Where `--save NAME` keeps a run and `--compare NAME` finds it: a NAME
/// ending in `.json` or holding a `/` is a path; any other is
/// `.teebatch-bench/NAME.json` in the current directory.
pub(crate) fn saved_path(name: &str) -> PathBuf {
    if name.ends_with(".json") || name.contains('/') {
        PathBuf::from(name)
    } else {
        PathBuf::from(".teebatch-bench").join(format!("{name}.json"))
    }
}

/// The change of one figure against a saved run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub measurement: String,
    pub tier: Option<String>,
    /// The saved and the new median, MB/s.
    pub before: Option<f64>,
    pub after: Option<f64>,
    /// `after / before − 1`.
    pub change: Option<f64>,
    /// The relative change under which the two are the same: 2 %, or the
    /// larger half-spread (max − min) / (2 × median) of the two runs.
    pub noise: Option<f64>,
    /// `no change`, `improved`, `regressed`, `new` (not in the saved run)
    /// or `gone` (only in the saved run).
    pub verdict: &'static str,
}

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match &self.tier {
            Some(t) => format!("{} [{t}]", self.measurement),
            None => self.measurement.clone(),
        };
        match (self.before, self.after, self.change, self.noise) {
            (Some(b), Some(a), Some(c), Some(n)) => write!(
                f,
                "  {name:<60} {b:>10.1} -> {a:>10.1} MB/s {:>+7.1} % (noise ±{:.1} %): {}",
                c * 100.0,
                n * 100.0,
                self.verdict
            ),
            _ => write!(f, "  {name:<60} {}", self.verdict),
        }
    }
}

/// Relative half-spread of a figure: (max − min) / (2 × median).
fn half_spread(median: f64, min: f64, max: f64) -> f64 {
    if median > 0.0 {
        (max - min).abs() / (2.0 * median)
    } else {
        0.0
    }
}

/// Each figure of this run against the figure of the same measurement and
/// tier in `saved` (a bench document), then the saved ones this run lacks.
pub fn compare(saved: &serde_json::Value, figures: &[Figure]) -> Vec<Comparison> {
    let empty = Vec::new();
    let old: Vec<&serde_json::Value> = saved["figures"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .collect();
    let key = |v: &serde_json::Value| {
        (
            v["measurement"].as_str().unwrap_or_default().to_string(),
            v["tier"].as_str().map(str::to_string),
        )
    };
    // The saved figures by (measurement, tier): one lookup per figure.
    let by_key: std::collections::HashMap<(String, Option<String>), usize> = old
        .iter()
        .enumerate()
        .rev()
        .map(|(i, v)| (key(v), i))
        .collect();
    let mut out = Vec::new();
    let mut matched = vec![false; old.len()];
    for f in figures {
        let at = by_key
            .get(&(f.measurement.clone(), f.tier.clone()))
            .copied();
        let Some(at) = at else {
            out.push(Comparison {
                measurement: f.measurement.clone(),
                tier: f.tier.clone(),
                before: None,
                after: Some(f.mb_per_s),
                change: None,
                noise: None,
                verdict: "new",
            });
            continue;
        };
        matched[at] = true;
        let v = old[at];
        let before = v["mb_per_s"].as_f64().unwrap_or(0.0);
        // A version-1 document has no spread: its noise is 5 %.
        let old_spread = match (v["mb_per_s_min"].as_f64(), v["mb_per_s_max"].as_f64()) {
            (Some(lo), Some(hi)) => half_spread(before, lo, hi),
            _ => 0.05,
        };
        let noise =
            0.02_f64
                .max(old_spread)
                .max(half_spread(f.mb_per_s, f.mb_per_s_min, f.mb_per_s_max));
        let change = if before > 0.0 {
            f.mb_per_s / before - 1.0
        } else {
            0.0
        };
        let verdict = if change.abs() <= noise {
            "no change"
        } else if change > 0.0 {
            "improved"
        } else {
            "regressed"
        };
        out.push(Comparison {
            measurement: f.measurement.clone(),
            tier: f.tier.clone(),
            before: Some(before),
            after: Some(f.mb_per_s),
            change: Some(change),
            noise: Some(noise),
            verdict,
        });
    }
    for (v, _) in old.iter().zip(&matched).filter(|(_, m)| !**m) {
        let (measurement, tier) = key(v);
        out.push(Comparison {
            measurement,
            tier,
            before: v["mb_per_s"].as_f64(),
            after: None,
            change: None,
            noise: None,
            verdict: "gone",
        });
    }
    out
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
mod demos;
#[cfg(feature = "parquet")]
mod export;
mod maps;

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
    use std::path::Path;

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

    fn fig(name: &str, med: f64, lo: f64, hi: f64) -> Figure {
        Figure {
            measurement: name.into(),
            tier: Some("simd".into()),
            mb_per_s: med,
            mb_per_s_min: lo,
            mb_per_s_max: hi,
            unit: "output",
            maps_per_s: None,
            seconds_per_run: 1.0,
            runs: 3,
            iterations_per_run: 1,
            samples: vec![1.0; 3],
            note: None,
        }
    }

    #[test]
    fn a_run_compared_with_itself_has_no_change() {
        let figures = vec![fig("a", 100.0, 90.0, 110.0), fig("b", 5.0, 5.0, 5.0)];
        let saved = serde_json::json!({ "figures": figures });
        let c = compare(&saved, &figures);
        assert_eq!(c.len(), 2);
        assert!(c
            .iter()
            .all(|c| c.verdict == "no change" && c.change == Some(0.0)));
    }

    #[test]
    fn changes_beyond_the_noise_are_verdicts() {
        let saved = serde_json::json!({ "figures": [
            fig("a", 100.0, 99.0, 101.0), fig("b", 100.0, 80.0, 120.0),
            fig("c", 100.0, 99.0, 101.0), fig("gone", 1.0, 1.0, 1.0),
        ]});
        let now = vec![
            fig("a", 110.0, 109.0, 111.0), // +10 %, noise 2 %: improved
            fig("b", 115.0, 114.0, 116.0), // +15 %, noise 20 %: no change
            fig("c", 90.0, 89.0, 91.0),    // −10 %: regressed
            fig("new", 1.0, 1.0, 1.0),
        ];
        let c = compare(&saved, &now);
        let v: Vec<(&str, &str)> = c
            .iter()
            .map(|c| (c.measurement.as_str(), c.verdict))
            .collect();
        assert_eq!(
            v,
            [
                ("a", "improved"),
                ("b", "no change"),
                ("c", "regressed"),
                ("new", "new"),
                ("gone", "gone")
            ]
        );
        let b = &c[1];
        assert!((b.noise.unwrap() - 0.2).abs() < 1e-12);
    }

    #[test]
    fn warnings_name_the_load_and_the_small_input() {
        let small = Inputs {
            paths: vec!["demos".into()],
            files: 2,
            bytes: 3_000_000,
            description: String::new(),
        };
        let w = warnings_for(&small, 1, 2, Some(0.4));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("3.00 MB") && w[0].contains("10 MB"), "{w:?}");
        let big = Inputs {
            bytes: 50_000_000,
            ..small.clone()
        };
        assert!(warnings_for(&big, 1, 2, Some(1.4)).is_empty());
        let w = warnings_for(&big, 1, 2, Some(1.6));
        assert!(w[0].contains("load average 1.60"), "{w:?}");
        assert_eq!(warnings_for(&big, 2, 2, Some(0.6)).len(), 1);
        let embedded = Inputs {
            paths: vec![],
            ..big
        };
        assert!(warnings_for(&embedded, 1, 2, None)[0].contains("embedded dataset"));
    }

    #[test]
    fn saved_runs_are_found_by_name_or_path() {
        assert_eq!(saved_path("base"), Path::new(".teebatch-bench/base.json"));
        assert_eq!(saved_path("x/y"), Path::new("x/y"));
        assert_eq!(saved_path("run.json"), Path::new("run.json"));
    }
}
