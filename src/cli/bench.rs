//! `teebatch bench ...`: throughput of the engines on real or given files.
//!
//! Each figure is the mean over repeated runs lasting at least `--seconds`;
//! files are read into memory first, so the figures measure decoding, not
//! the disk.

use super::mb_per_s;
use crate::backend::Backend;
use crate::batch::maps::{index_bytes, IndexOptions, MapRecord, Verify};
use crate::batch::{collect_inputs, embedded, run_ordered, Input};
use crate::datafile::{Datafile, Inflater};
use crate::demo::stream::huffman_room;
use serde::Serialize;
use std::cell::RefCell;
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Map engine: parse, index, inflate (libdeflater vs flate2/zlib-rs).
    Maps(BenchArgs),
    /// Demo engine: full decode (Huffman + varints + deltas + checksums) in
    /// MB/s of chunk data, per tier, on one core and on all, plus the
    /// keyframe-split decode of single demos.
    Demos(BenchArgs),
    /// Codec kernels per tier on real demo chunk payloads: Huffman decode,
    /// varint unpack, snapshot checksum and wrapping add, and every snapshot
    /// delta applied in sequence (copying + checksum vs in place).
    Codecs(BenchArgs),
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Minimum time per measurement.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Threads for the parallel figure (default or 0: all cores; at most
    /// 256).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// `text`: the table; `json`: one document with the same figures plus
    /// the machine (CPU model and features), the kernel tiers chosen, the
    /// date and the command, for comparing runs across machines.
    #[arg(long, value_enum, default_value_t = BenchFormat::Text)]
    pub format: BenchFormat,
}

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
struct Report {
    format: BenchFormat,
    bench: &'static str,
    seconds: f64,
    inputs: RefCell<String>,
    figures: RefCell<Vec<Figure>>,
}

impl Report {
    fn new(bench: &'static str, a: &BenchArgs) -> Report {
        Report {
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
            print_line(args);
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
    fn finish(self) -> io::Result<ExitCode> {
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
            print_line(format_args!("{text}"));
        }
        Ok(ExitCode::SUCCESS)
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

/// `println!` for the report: a closed stdout (`| head`) ends the run
/// quietly with exit code 0 instead of a panic; any other write error ends
/// it with code 2.
macro_rules! out {
    ($r:expr, $($arg:tt)*) => {
        $r.line(format_args!($($arg)*))
    };
}

fn print_line(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(e) = writeln!(io::stdout().lock(), "{args}") {
        if super::is_closed_pipe(&e) {
            std::process::exit(0);
        }
        let _ = writeln!(io::stderr(), "teebatch: {e}");
        std::process::exit(2);
    }
}

pub fn run(cmd: BenchCommand) -> io::Result<ExitCode> {
    match cmd {
        BenchCommand::Maps(a) => bench_maps(a),
        BenchCommand::Codecs(a) => bench_codecs(a),
        BenchCommand::Demos(a) => bench_demos(a),
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

fn bench_maps(a: BenchArgs) -> io::Result<ExitCode> {
    let r = Report::new("maps", &a);
    let files = load_all(&a.paths, "map")?;
    let min = Duration::from_secs_f64(a.seconds);
    let file_bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let n = files.len() as f64;
    r.header(format!(
        "maps: {} files, {:.2} MB",
        files.len(),
        file_bytes as f64 / 1e6
    ));
    out!(
        r,
        "{:<44} {:>12} {:>12} {:>8}",
        "measurement",
        "maps/s",
        "MB/s",
        "runs"
    );
    let row = |name: &str, secs: f64, bytes: u64, runs: u32| {
        out!(
            r,
            "{:<44} {:>12.1} {:>12.1} {:>8}",
            name,
            n / secs,
            mb_per_s(bytes, secs),
            runs
        );
        r.figure(Figure {
            maps_per_s: Some(n / secs),
            ..figure(name, None, "files", bytes, (secs, runs))
        });
    };

    // Datafile::parse only.
    let (s, runs) = measure(min, || {
        for (_, b) in &files {
            std::hint::black_box(Datafile::parse(b).ok());
        }
    });
    row("datafile parse (1 thread)", s, file_bytes, runs);

    // The `maps index` work per file (hashes + parse + map summary), in memory.
    let opts = IndexOptions::default();
    let with = |verify| IndexOptions { verify, ..opts };
    for (name, o) in [
        ("index (1 thread)", opts),
        ("index --verify=inflate (1 thread)", with(Verify::Inflate)),
        ("index --verify=crc (1 thread)", with(Verify::Crc)),
        ("index --verify (1 thread)", with(Verify::Full)),
    ] {
        let mut inflater = Inflater::default();
        let mut buf = Vec::new();
        let (s, runs) = measure(min, || {
            for (input, b) in &files {
                let mut rec = MapRecord {
                    path: input.display_path(),
                    ..MapRecord::default()
                };
                index_bytes(&mut rec, b, &o, &mut inflater, &mut buf);
                std::hint::black_box(&rec);
            }
        });
        row(name, s, file_bytes, runs);
    }

    // End to end through the batch driver from the page cache.
    let inputs: Vec<Input> = files.iter().map(|(i, _)| i.clone()).collect();
    let jobs = crate::limits::Limits::cap_jobs(a.jobs, usize::MAX);
    for j in [1, jobs] {
        let (s, runs) = measure(min, || {
            run_ordered(
                &inputs,
                j,
                || crate::batch::maps::Worker::new(opts.limits),
                |w, _, input| crate::batch::maps::index_input(w, input, &opts),
                |_, rec| {
                    std::hint::black_box(rec);
                    std::ops::ControlFlow::Continue(())
                },
            );
        });
        row(
            &format!("maps index end to end ({j} jobs)"),
            s,
            file_bytes,
            runs,
        );
    }

    // Inflate every data block: libdeflater vs flate2 (zlib-rs).
    let blocks: Vec<(&[u8], usize)> = files
        .iter()
        .filter_map(|(_, b)| Datafile::parse(b).ok())
        .flat_map(|df| {
            (0..df.num_data())
                .filter_map(|i| Some((df.data_raw(i)?, df.data_size(i)?)))
                .collect::<Vec<_>>()
        })
        .collect();
    let out_bytes: u64 = blocks.iter().map(|&(_, n)| n as u64).sum();
    let mut d = libdeflater::Decompressor::new();
    let mut out = vec![0u8; blocks.iter().map(|&(_, n)| n).max().unwrap_or(0)];
    let (s, runs) = measure(min, || {
        for &(raw, n) in &blocks {
            std::hint::black_box(d.zlib_decompress(raw, &mut out[..n]).ok());
        }
    });
    out!(
        r,
        "{:<44} {:>12} {:>12.1} {:>8}   ({:.2} GB/s of output, {} blocks, {:.1} MB)",
        "inflate libdeflater (1 thread)",
        "-",
        mb_per_s(out_bytes, s),
        runs,
        out_bytes as f64 / 1e9 / s,
        blocks.len(),
        out_bytes as f64 / 1e6
    );
    r.figure(Figure {
        note: Some(format!(
            "{} blocks, {out_bytes} bytes of output",
            blocks.len()
        )),
        ..figure(
            "inflate libdeflater (1 thread)",
            None,
            "output",
            out_bytes,
            (s, runs),
        )
    });
    // The CRC-32 of each block's output right after inflating it (what
    // `--verify` adds to the inflate): crc32fast vs libdeflate's.
    for (name, libdeflate_crc) in [
        ("inflate + crc32fast crc32 (1 thread)", false),
        ("inflate + libdeflate crc32 (1 thread)", true),
    ] {
        let (s, runs) = measure(min, || {
            let mut a = crc32fast::Hasher::new();
            let mut b = libdeflater::Crc::new();
            for &(raw, n) in &blocks {
                if d.zlib_decompress(raw, &mut out[..n]).is_ok() {
                    if libdeflate_crc {
                        b.update(&out[..n]);
                    } else {
                        a.update(&out[..n]);
                    }
                }
            }
            std::hint::black_box((a.finalize(), b.sum()));
        });
        out!(
            r,
            "{:<44} {:>12} {:>12.1} {:>8}   ({:.2} GB/s of output)",
            name,
            "-",
            mb_per_s(out_bytes, s),
            runs,
            out_bytes as f64 / 1e9 / s
        );
        r.figure(figure(name, None, "output", out_bytes, (s, runs)));
    }
    let (s, runs) = measure(min, || {
        for &(raw, n) in &blocks {
            let mut dec = flate2::Decompress::new(true);
            std::hint::black_box(
                dec.decompress(raw, &mut out[..n], flate2::FlushDecompress::Finish)
                    .ok(),
            );
        }
    });
    out!(
        r,
        "{:<44} {:>12} {:>12.1} {:>8}   ({:.2} GB/s of output)",
        "inflate flate2/zlib-rs (1 thread)",
        "-",
        mb_per_s(out_bytes, s),
        runs,
        out_bytes as f64 / 1e9 / s
    );
    r.figure(figure(
        "inflate flate2/zlib-rs (1 thread)",
        None,
        "output",
        out_bytes,
        (s, runs),
    ));
    r.finish()
}

/// The data chunk payloads of demos: (Huffman-compressed, decompressed, ints).
struct Payloads {
    compressed: Vec<Vec<u8>>,
    decompressed: Vec<Vec<u8>>,
    ints: Vec<Vec<i32>>,
}

fn demo_payloads(files: &[(Input, Vec<u8>)]) -> Payloads {
    let mut p = Payloads {
        compressed: Vec::new(),
        decompressed: Vec::new(),
        ints: Vec::new(),
    };
    for (_, bytes) in files {
        let Ok(demo) = crate::demo::Demo::parse(bytes) else {
            continue;
        };
        for payload in crate::test_support::decoded_payloads(&demo) {
            if let (Some(d), Some(i)) = (payload.decompressed, payload.ints) {
                p.compressed.push(payload.compressed.to_vec());
                p.decompressed.push(d);
                p.ints.push(i);
            }
        }
    }
    p
}

fn bench_codecs(a: BenchArgs) -> io::Result<ExitCode> {
    use crate::codec::kernels::Kernels;
    use crate::codec::snapshot::{checksum, SnapshotKernels};
    use crate::codec::{huffman, varint};
    let r = Report::new("codecs", &a);
    let files = load_all(&a.paths, "demo")?;
    let p = demo_payloads(&files);
    let min = Duration::from_secs_f64(a.seconds);
    let comp: u64 = p.compressed.iter().map(|c| c.len() as u64).sum();
    let decomp: u64 = p.decompressed.iter().map(|c| c.len() as u64).sum();
    let int_bytes: u64 = p.ints.iter().map(|c| 4 * c.len() as u64).sum();
    r.header(format!(
        "codecs: {} demos, {} chunk payloads: {:.2} MB Huffman-compressed, {:.2} MB decompressed, {:.2} MB of ints",
        files.len(),
        p.compressed.len(),
        comp as f64 / 1e6,
        decomp as f64 / 1e6,
        int_bytes as f64 / 1e6,
    ));
    out!(
        r,
        "{:<44} {:>8} {:>12} {:>8}",
        "kernel",
        "tier",
        "MB/s",
        "runs"
    );
    // `kernel` names the figure and its unit ("... (MB/s of output)").
    let row = |kernel: &str, tier: &str, unit: &'static str, bytes: u64, m: (f64, u32)| {
        let name = format!("{kernel} (MB/s of {unit})");
        out!(
            r,
            "{:<44} {:>8} {:>12.1} {:>8}",
            name,
            tier,
            mb_per_s(bytes, m.0),
            m.1
        );
        r.figure(figure(kernel, Some(tier), unit, bytes, m));
    };
    let mut out = vec![0u8; 1 << 16];
    let mut ints = vec![0i32; 1 << 16];
    let mut warnings = Vec::new();
    let huffman_tiers: Vec<huffman::Tier> = huffman::Tier::ALL
        .into_iter()
        .filter(|t| t.available())
        .collect();
    for &tier in &huffman_tiers {
        let m = measure(min, || {
            for c in &p.compressed {
                std::hint::black_box(huffman::decompress_tier(tier, c, &mut out).ok());
            }
        });
        row("huffman decode", tier.name(), "output", decomp, m);
    }
    // Batches of consecutive payloads, with the caps the demo decoder passes.
    let inputs: Vec<&[u8]> = p.compressed.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = inputs.iter().map(|c| huffman_room(c.len())).collect();
    for size in [2, 4, 8] {
        let arena_len = caps.chunks(size).map(|c| c.iter().sum()).max();
        let mut arena = vec![0u8; arena_len.unwrap_or(0)];
        let mut results = vec![Ok(0); size];
        for &tier in &huffman_tiers[1..] {
            let m = measure(min, || {
                for (inputs, caps) in inputs.chunks(size).zip(caps.chunks(size)) {
                    let results = &mut results[..inputs.len()];
                    huffman::decompress_batch_tier(tier, inputs, caps, &mut arena, results);
                    std::hint::black_box(results);
                }
            });
            let name = format!("huffman decode, batch of {size}");
            row(&name, tier.name(), "output", decomp, m);
        }
    }
    for tier in [Backend::Oracle, Backend::Scalar] {
        let k = Kernels::new(tier);
        let m = measure(min, || {
            for d in &p.decompressed {
                warnings.clear();
                std::hint::black_box(k.unpack(d, &mut ints, &mut warnings).ok());
            }
        });
        row("varint unpack", tier.name(), "input", decomp, m);
    }
    for kernel in varint::simd::Kernel::ALL {
        if !kernel.available() {
            continue;
        }
        let m = measure(min, || {
            for d in &p.decompressed {
                warnings.clear();
                let r = varint::simd::unpack_kernel(kernel, d, &mut ints, &mut warnings);
                std::hint::black_box(r.ok());
            }
        });
        row("varint unpack, simd", kernel.name(), "input", decomp, m);
    }
    let mut packed = Vec::new();
    let m = measure(min, || {
        for i in &p.ints {
            packed.clear();
            varint::pack(i, &mut packed);
            std::hint::black_box(&packed);
        }
    });
    row("varint pack", "scalar", "output", decomp, m);
    let mut enc = Vec::new();
    let m = measure(min, || {
        for d in &p.decompressed {
            enc.clear();
            huffman::compress(d, &mut enc);
            std::hint::black_box(&enc);
        }
    });
    row("huffman encode", "scalar", "input", decomp, m);
    for tier in [Backend::Oracle, Backend::Scalar] {
        let k = SnapshotKernels::new(tier);
        let m = measure(min, || {
            for i in &p.ints {
                std::hint::black_box(k.checksum(i));
            }
        });
        row("snapshot checksum", tier.name(), "ints", int_bytes, m);
    }
    for kernel in checksum::Kernel::ALL {
        if !kernel.available() {
            continue;
        }
        let m = measure(min, || {
            for i in &p.ints {
                std::hint::black_box(checksum::checksum_kernel(kernel, i));
            }
        });
        row(
            "snapshot checksum, simd",
            kernel.name(),
            "ints",
            int_bytes,
            m,
        );
    }
    let mut sum = vec![0i32; 1 << 16];
    for tier in Backend::ALL {
        let k = SnapshotKernels::new(tier);
        let m = measure(min, || {
            for i in &p.ints {
                k.wrapping_add(i, i, &mut sum[..i.len()]);
                std::hint::black_box(&sum);
            }
        });
        row("wrapping add old+diff", tier.name(), "ints", int_bytes, m);
    }
    snapshot_delta_rows(&r, &files, min);
    r.finish()
}

/// One demo's snapshot chunks as ints, in file order: its protocol, and
/// (is a delta, ints) per chunk.
type DeltaStream = (crate::codec::snapshot::Protocol, Vec<(bool, Vec<i32>)>);

/// The snapshot and delta chunks of every demo that parses, unpacked
/// ([`crate::test_support::unpacked_snapshot_chunks`]).
fn delta_streams(files: &[(Input, Vec<u8>)]) -> Vec<DeltaStream> {
    files
        .iter()
        .filter_map(|(_, bytes)| crate::demo::Demo::parse(bytes).ok())
        .map(|demo| {
            let chunks = crate::test_support::unpacked_snapshot_chunks(&demo);
            (demo.decode_protocol(), chunks)
        })
        .collect()
}

/// Every snapshot delta of `files` applied in sequence, with the checksum of
/// every snapshot: into a second snapshot then summed in full (what the
/// stream did), and in place with the incremental checksum. MB/s of delta
/// ints and ns per delta; full snapshots are parsed in both.
fn snapshot_delta_rows(r: &Report, files: &[(Input, Vec<u8>)], min: Duration) {
    use crate::codec::snapshot::{DeltaApplier, Snapshot};
    let streams = delta_streams(files);
    let deltas = streams.iter().flat_map(|(_, c)| c).filter(|c| c.0);
    let (count, ints) = deltas.fold((0u64, 0u64), |(n, i), c| (n + 1, i + c.1.len() as u64));
    let mut a = Snapshot::new();
    let mut w = Vec::new();
    let row = |kernel: &str, tier: Backend, (secs, runs): (f64, u32)| {
        let ns = secs * 1e9 / count.max(1) as f64;
        out!(
            r,
            "{:<44} {:>8} {:>12.1} {:>8}   ({:.0} ns per delta, {count} deltas)",
            format!("{kernel} (MB/s of ints)"),
            tier.name(),
            mb_per_s(4 * ints, secs),
            runs,
            ns,
        );
        r.figure(Figure {
            note: Some(format!("{ns:.0} ns per delta, {count} deltas")),
            ..figure(kernel, Some(tier.name()), "ints", 4 * ints, (secs, runs))
        });
    };
    for tier in Backend::ALL {
        let mut applier = DeltaApplier::new(tier);
        let k = applier.kernels();
        let m = measure(min, || {
            let mut sum = 0i32;
            for (p, chunks) in &streams {
                for (is_delta, d) in chunks {
                    let checksum = if *is_delta {
                        w.clear();
                        match applier.apply_by_copy(&mut a, d, *p, &mut w) {
                            Ok(checksum) => checksum,
                            Err(_) => break,
                        }
                    } else if a.parse_into(d).is_ok() {
                        k.checksum(a.data())
                    } else {
                        break;
                    };
                    sum = sum.wrapping_add(checksum);
                }
            }
            std::hint::black_box(sum);
        });
        row("snapshot deltas copy+checksum", tier, m);
        let m = measure(min, || {
            let mut sum = 0i32;
            for (p, chunks) in &streams {
                let mut checksum = 0;
                for (is_delta, d) in chunks {
                    if *is_delta {
                        w.clear();
                        match applier.apply_in_place(&mut a, d, *p, &mut w, checksum) {
                            Ok(c) => checksum = c,
                            Err(_) => break,
                        }
                    } else if a.parse_into(d).is_ok() {
                        checksum = k.checksum(a.data());
                    } else {
                        break;
                    }
                    sum = sum.wrapping_add(checksum);
                }
            }
            std::hint::black_box(sum);
        });
        row("snapshot deltas in place", tier, m);
    }
}

/// Sum of the data chunk payload bytes (as stored, Huffman-coded) of a demo.
fn chunk_bytes(demo: &crate::demo::Demo<'_>) -> u64 {
    demo.chunks()
        .map_while(Result::ok)
        .filter_map(|c| c.kind.payload())
        .map(|p| p.len() as u64)
        .sum()
}

/// A visitor that only keeps the checksum of every snapshot alive.
struct ChecksumSink(i64);

impl crate::demo::stream::Visitor for ChecksumSink {
    fn visit(&mut self, event: &crate::demo::stream::Event<'_>) {
        if let crate::demo::stream::Event::Snapshot(s) = event {
            self.0 = self.0.wrapping_add(i64::from(s.checksum));
        }
    }
}

fn bench_demos(a: BenchArgs) -> io::Result<ExitCode> {
    use crate::demo::stream::{segments, visit, visit_parallel, Decoder};
    use crate::demo::Demo;
    use rayon::prelude::*;
    let files = load_all(&a.paths, "demo")?;
    let demos: Vec<Demo> = files
        .iter()
        .filter_map(|(_, b)| Demo::parse(b).ok())
        .collect();
    let data: u64 = demos.iter().map(chunk_bytes).sum();
    let file_bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let min = Duration::from_secs_f64(a.seconds);
    let jobs = crate::limits::Limits::cap_jobs(a.jobs, usize::MAX);
    let r = Report::new("demos", &a);
    r.header(format!(
        "demos: {} files, {:.2} MB, {:.2} MB of chunk data",
        demos.len(),
        file_bytes as f64 / 1e6,
        data as f64 / 1e6,
    ));
    out!(
        r,
        "{:<52} {:>8} {:>14} {:>8}",
        "measurement",
        "tier",
        "MB/s of chunks",
        "runs"
    );
    let row = |name: &str, tier: Backend, (secs, runs): (f64, u32)| {
        out!(
            r,
            "{:<52} {:>8} {:>14.1} {:>8}",
            name,
            tier.name(),
            mb_per_s(data, secs),
            runs
        );
        r.figure(figure(
            name,
            Some(tier.name()),
            "chunk data",
            data,
            (secs, runs),
        ));
    };
    for tier in [Backend::Scalar, Backend::Simd] {
        let mut dec = Decoder::new(tier);
        let m = measure(min, || {
            for d in &demos {
                std::hint::black_box(visit(d, &mut dec, ChecksumSink(0)).visitor.0);
            }
        });
        row("full decode, 1 thread", tier, m);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(io::Error::other)?;
    let m = measure(min, || {
        pool.install(|| {
            demos.par_iter().for_each_init(
                || Decoder::new(Backend::Simd),
                |dec, d| {
                    std::hint::black_box(visit(d, dec, ChecksumSink(0)).visitor.0);
                },
            )
        })
    });
    row(
        &format!("full decode, collection on {jobs} threads"),
        Backend::Simd,
        m,
    );
    let m = measure(min, || {
        pool.install(|| {
            for d in &demos {
                let segs = segments(d, jobs * 4);
                std::hint::black_box(
                    visit_parallel(d, Backend::Simd, &segs, || ChecksumSink(0))
                        .visitor
                        .len(),
                );
            }
        })
    });
    row(
        &format!("full decode, each demo split on {jobs} threads"),
        Backend::Simd,
        m,
    );
    let mut dec = Decoder::new(Backend::Simd);
    let m = measure(min, || {
        for d in &demos {
            let v = crate::demo::stream::StatsVisitor::new();
            std::hint::black_box(
                visit(d, &mut dec, v)
                    .visitor
                    .finish()
                    .snapshots_reconstructed,
            );
        }
    });
    row("decode + snapshot statistics", Backend::Simd, m);
    let m = measure(min, || {
        for d in &demos {
            // The analysis `demos index` runs: the protocol the snapshots
            // are decoded with, no chat lines kept.
            let v = crate::demo::analysis::AnalysisVisitor::new(d.decode_protocol());
            std::hint::black_box(
                visit(d, &mut dec, v)
                    .visitor
                    .finish()
                    .stats
                    .snapshots_reconstructed,
            );
        }
    });
    row(
        "demos index analysis (stats, players, messages)",
        Backend::Simd,
        m,
    );
    r.finish()
}
