//! `teebatch bench ...`: throughput of the engines on real or given files.
//!
//! Each figure is the mean over repeated runs lasting at least `--seconds`;
//! files are read into memory first, so the figures measure decoding, not
//! the disk.

use super::mb_per_s;
use crate::batch::maps::{index_bytes, IndexOptions, MapRecord};
use crate::batch::{collect_inputs, embedded, run_ordered, Input};
use crate::datafile::{Datafile, Inflater};
use std::io::{self, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Map engine: parse, index, inflate (libdeflater vs flate2/zlib-rs).
    Maps(BenchArgs),
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Files or directories (default: the embedded dataset).
    pub paths: Vec<PathBuf>,
    /// Minimum time per measurement.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Threads for the parallel figure (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
}

pub fn run(cmd: BenchCommand) -> io::Result<ExitCode> {
    match cmd {
        BenchCommand::Maps(a) => bench_maps(a),
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
        embedded::map_inputs()
    } else {
        collect_inputs(paths, ext)
    };
    let mut out = Vec::new();
    for input in inputs {
        let bytes = match &input {
            Input::File { path, .. } => {
                let mut v = Vec::new();
                std::fs::File::open(path)?.read_to_end(&mut v)?;
                v
            }
            Input::Embedded { bytes, .. } => bytes.to_vec(),
            Input::Unlistable { .. } => continue,
        };
        out.push((input, bytes));
    }
    Ok(out)
}

fn bench_maps(a: BenchArgs) -> io::Result<ExitCode> {
    let files = load_all(&a.paths, "map")?;
    let min = Duration::from_secs_f64(a.seconds);
    let file_bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let n = files.len() as f64;
    println!(
        "maps: {} files, {:.2} MB ({})",
        files.len(),
        file_bytes as f64 / 1e6,
        crate::backend::describe()
    );
    println!(
        "{:<44} {:>12} {:>12} {:>8}",
        "measurement", "maps/s", "MB/s", "runs"
    );
    let row = |name: &str, secs: f64, bytes: u64, runs: u32| {
        println!(
            "{:<44} {:>12.1} {:>12.1} {:>8}",
            name,
            n / secs,
            mb_per_s(bytes, secs),
            runs
        );
    };

    // Datafile::parse only.
    let (s, r) = measure(min, || {
        for (_, b) in &files {
            std::hint::black_box(Datafile::parse(b).ok());
        }
    });
    row("datafile parse (1 thread)", s, file_bytes, r);

    // The `maps index` work per file (hashes + parse + map summary), in memory.
    let opts = IndexOptions::default();
    let verify = IndexOptions {
        verify: true,
        ..opts
    };
    for (name, o) in [
        ("index (1 thread)", opts),
        ("index --verify (1 thread)", verify),
    ] {
        let mut inflater = Inflater::default();
        let mut buf = Vec::new();
        let (s, r) = measure(min, || {
            for (input, b) in &files {
                let mut rec = MapRecord {
                    path: input.display_path(),
                    ..MapRecord::default()
                };
                index_bytes(&mut rec, b, &o, &mut inflater, &mut buf);
                std::hint::black_box(&rec);
            }
        });
        row(name, s, file_bytes, r);
    }

    // End to end through the batch driver from the page cache.
    let inputs: Vec<Input> = files.iter().map(|(i, _)| i.clone()).collect();
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    for j in [1, jobs] {
        let (s, r) = measure(min, || {
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
            r,
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
        .filter(|_| true)
        .collect();
    let out_bytes: u64 = blocks.iter().map(|&(_, n)| n as u64).sum();
    let mut d = libdeflater::Decompressor::new();
    let mut out = vec![0u8; blocks.iter().map(|&(_, n)| n).max().unwrap_or(0)];
    let (s, r) = measure(min, || {
        for &(raw, n) in &blocks {
            std::hint::black_box(d.zlib_decompress(raw, &mut out[..n]).ok());
        }
    });
    println!(
        "{:<44} {:>12} {:>12.1} {:>8}   ({:.2} GB/s of output, {} blocks, {:.1} MB)",
        "inflate libdeflater (1 thread)",
        "-",
        mb_per_s(out_bytes, s),
        r,
        out_bytes as f64 / 1e9 / s,
        blocks.len(),
        out_bytes as f64 / 1e6
    );
    let (s, r) = measure(min, || {
        for &(raw, n) in &blocks {
            let mut dec = flate2::Decompress::new(true);
            std::hint::black_box(
                dec.decompress(raw, &mut out[..n], flate2::FlushDecompress::Finish)
                    .ok(),
            );
        }
    });
    println!(
        "{:<44} {:>12} {:>12.1} {:>8}   ({:.2} GB/s of output)",
        "inflate flate2/zlib-rs (1 thread)",
        "-",
        mb_per_s(out_bytes, s),
        r,
        out_bytes as f64 / 1e9 / s
    );
    Ok(ExitCode::SUCCESS)
}
