//! The benchmark program of `teebatch bench ...`: throughput of the
//! engines on real or given files.
//!
//! Each figure is the mean over repeated runs lasting at least `--seconds`;
//! files are read into memory first, so the figures measure decoding, not
//! the disk.

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
    /// `demos export`: each table in each format against the full decode.
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
    /// `bench export`: the tables (none: all).
    pub tables: Vec<crate::demo::export::Table>,
    /// `bench export`: the table formats (none: all).
    pub writers: Vec<crate::batch::tables::Format>,
}

impl Options {
    fn backend_name(&self) -> &'static str {
        crate::backend::Backend::default().name()
    }
}

/// Where the report's lines go (the command line prints each on stdout).
pub type Print<'a> = &'a dyn Fn(fmt::Arguments<'_>);

/// Output format of `teebatch bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
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
    /// Megabytes (10^6 bytes) per second of `unit`.
    pub mb_per_s: f64,
    /// What the megabytes count, e.g. "output", "chunk data", "files".
    pub unit: &'static str,
    /// Maps per second, where the table has that column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maps_per_s: Option<f64>,
    pub seconds_per_run: f64,
    pub runs: u32,
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

/// The JSON document of `bench --format json`.
#[derive(Serialize)]
struct Document<'a> {
    format: &'static str,
    version: u32,
    teebatch_version: &'static str,
    bench: &'static str,
    /// UTC, RFC 3339.
    date: String,
    command: Vec<String>,
    machine: Machine,
    tiers: crate::codec::kernels::Tiers,
    /// The inputs, as the text header says.
    inputs: &'a str,
    seconds_min: f64,
    figures: &'a [Figure],
}

/// Where a bench's lines and figures go: printed as they come (text), or
/// gathered for one JSON document at the end.
struct Report<'a> {
    print: Print<'a>,
    format: BenchFormat,
    bench: &'static str,
    seconds: f64,
    inputs: RefCell<String>,
    figures: RefCell<Vec<Figure>>,
}

impl<'a> Report<'a> {
    fn new(bench: &'static str, a: &Options, print: Print<'a>) -> Report<'a> {
        Report {
            print,
            format: a.format,
            bench,
            seconds: a.seconds,
            inputs: RefCell::new(String::new()),
            figures: RefCell::new(Vec::new()),
        }
    }

    /// A line of the text table (nothing in JSON).
    fn line(&self, args: std::fmt::Arguments<'_>) {
        if self.format == BenchFormat::Text {
            (self.print)(args);
        }
    }

    /// The header: what the inputs are, then the machine's tiers.
    fn header(&self, inputs: String) {
        self.line(format_args!(
            "{inputs} ({})",
            crate::codec::kernels::describe()
        ));
        *self.inputs.borrow_mut() = inputs;
    }

    fn figure(&self, f: Figure) {
        self.figures.borrow_mut().push(f);
    }

    /// Prints the JSON document (text was printed as it came).
    fn finish(self) -> io::Result<()> {
        if self.format == BenchFormat::Json {
            let figures = self.figures.borrow();
            let inputs = self.inputs.borrow();
            let doc = Document {
                format: "teebatch-bench",
                version: 1,
                teebatch_version: env!("CARGO_PKG_VERSION"),
                bench: self.bench,
                date: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                command: std::env::args().collect(),
                machine: Machine::current(),
                tiers: crate::codec::kernels::tiers(),
                inputs: &inputs,
                seconds_min: self.seconds,
                figures: &figures,
            };
            let text = serde_json::to_string_pretty(&doc).map_err(io::Error::other)?;
            (self.print)(format_args!("{text}"));
        }
        Ok(())
    }
}

/// A [`Figure`] of `bytes` processed per run in `secs`.
fn figure(
    measurement: &str,
    tier: Option<&str>,
    unit: &'static str,
    bytes: u64,
    (secs, runs): (f64, u32),
) -> Figure {
    Figure {
        measurement: measurement.to_string(),
        tier: tier.map(str::to_string),
        mb_per_s: mb_per_s(bytes, secs),
        unit,
        maps_per_s: None,
        seconds_per_run: secs,
        runs,
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
mod export;
mod maps;

/// Runs `bench` with `opts`; each line of the report (the table as it
/// comes, or the JSON document at the end) goes to `print`.
pub fn run(bench: Bench, opts: &Options, print: Print<'_>) -> io::Result<()> {
    match bench {
        Bench::Maps => maps::bench_maps(opts, print),
        Bench::Codecs => codecs::bench_codecs(opts, print),
        Bench::Demos => demos::bench_demos(opts, print),
        Bench::Export => export::bench_export(opts, print),
    }
}

/// Runs `f` (which processes `units` items and `bytes` bytes) repeatedly for
/// at least `min` and returns (seconds per run, runs).
fn measure(min: Duration, mut f: impl FnMut()) -> (f64, u32) {
    f(); // warm-up
    let start = Instant::now();
    let mut runs = 0;
    while runs == 0 || start.elapsed() < min {
        f();
        runs += 1;
    }
    (start.elapsed().as_secs_f64() / runs as f64, runs)
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
