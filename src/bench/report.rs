//! The report of one run: its header (inputs, machine, sampling and the
//! warnings that make figures doubtful), the text table as it comes or
//! the JSON document at the end (with the [`Build`] and [`Machine`] that
//! measured), saved with `--save` and compared with `--compare`.

use super::{compare, saved_path, BenchFormat, Comparison, Figure, Options, Print};
use serde::Serialize;
use std::cell::RefCell;
use std::io;

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
pub(super) struct Report<'a> {
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
    pub(super) fn new(bench: &'static str, a: &'a Options, print: Print<'a>) -> Report<'a> {
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
    pub(super) fn line(&self, args: std::fmt::Arguments<'_>) {
        if self.opts.format == BenchFormat::Text {
            (self.print)(args);
        }
    }

    /// The header: what the inputs are (`files` files of `bytes` bytes,
    /// described by `text`), the machine's tiers, the sampling, and the
    /// warnings; `threads`: those of the parallel figures.
    pub(super) fn header(&self, text: String, files: usize, bytes: u64, threads: usize) {
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

    pub(super) fn figure(&self, f: Figure) {
        self.figures.borrow_mut().push(f);
    }

    /// Prints the JSON document (text was printed as it came), saves it
    /// with `--save` and compares with `--compare`.
    pub(super) fn finish(self) -> io::Result<()> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
