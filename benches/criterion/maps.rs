//! Criterion benches of the map engine.
//!
//! Inputs: the stock DDNet/Teeworlds maps of ../shared/datasets
//! (`maps/{ddnet,ddnet7,themes,tw-themes}`: 34 maps, 7.9 MB) and the whole
//! shared map corpus. Figures: MB/s of files and maps/s for `maps index`
//! (without and with `--verify`), and GB/s of inflate output for libdeflater
//! next to flate2 (zlib-rs backend) on every data block.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;
use teebatch::batch::maps::{index_bytes, IndexOptions, MapRecord};
use teebatch::datafile::{Datafile, Inflater};

#[path = "../../tests/common/datasets.rs"]
mod datasets;

const STOCK: &[&str] = &["ddnet", "ddnet7", "themes", "tw-themes"];

fn load(dirs: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(d).into_iter().filter_map(|e| e.ok()))
        .filter(|e| e.path().extension().is_some_and(|x| x == "map"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn corpora() -> Vec<(&'static str, Vec<Vec<u8>>)> {
    let Some(ds) = datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) else {
        eprintln!("SKIPPED: ../shared/datasets not found; benchmarking the embedded dataset");
        return vec![(
            "embedded",
            teebatch::batch::embedded::MAPS
                .iter()
                .map(|(_, b)| b.to_vec())
                .collect(),
        )];
    };
    let maps = ds.join("maps");
    vec![
        (
            "stock",
            load(&STOCK.iter().map(|d| maps.join(d)).collect::<Vec<_>>()),
        ),
        ("all", load(&[maps])),
    ]
}

fn index_all(files: &[Vec<u8>], opts: &IndexOptions, inflater: &mut Inflater, buf: &mut Vec<u8>) {
    for b in files {
        let mut rec = MapRecord::default();
        index_bytes(&mut rec, b, opts, inflater, buf);
        black_box(&rec);
    }
}

fn bench(c: &mut Criterion) {
    for (name, files) in corpora() {
        let bytes: u64 = files.iter().map(|f| f.len() as u64).sum();
        let mut inflater = Inflater::default();
        let mut buf = Vec::new();
        let plain = IndexOptions::default();
        let verify = IndexOptions {
            verify: teebatch::batch::maps::Verify::Full,
            ..plain
        };

        let mut g = c.benchmark_group(format!("maps_index_mb/{name}"));
        g.sample_size(10).measurement_time(Duration::from_secs(3));
        g.throughput(Throughput::Bytes(bytes));
        g.bench_function("index", |b| {
            b.iter(|| index_all(&files, &plain, &mut inflater, &mut buf))
        });
        g.bench_function("index_verify", |b| {
            b.iter(|| index_all(&files, &verify, &mut inflater, &mut buf))
        });
        g.finish();

        let mut g = c.benchmark_group(format!("maps_index_maps/{name}"));
        g.sample_size(10).measurement_time(Duration::from_secs(3));
        g.throughput(Throughput::Elements(files.len() as u64));
        g.bench_function("index", |b| {
            b.iter(|| index_all(&files, &plain, &mut inflater, &mut buf))
        });
        g.bench_function("parse", |b| {
            b.iter(|| {
                for f in &files {
                    black_box(Datafile::parse(f).ok());
                }
            })
        });
        g.finish();

        // Every data block: (compressed, uncompressed size).
        let dfs: Vec<Datafile> = files
            .iter()
            .filter_map(|f| Datafile::parse(f).ok())
            .collect();
        let blocks: Vec<(&[u8], usize)> = dfs
            .iter()
            .flat_map(|df| {
                (0..df.num_data()).filter_map(|i| Some((df.data_raw(i)?, df.data_size(i)?)))
            })
            .collect();
        let out_bytes: u64 = blocks.iter().map(|&(_, n)| n as u64).sum();
        let mut out = vec![0u8; blocks.iter().map(|&(_, n)| n).max().unwrap_or(0)];
        let mut g = c.benchmark_group(format!("inflate/{name}"));
        g.sample_size(10).measurement_time(Duration::from_secs(5));
        g.throughput(Throughput::Bytes(out_bytes));
        let mut d = libdeflater::Decompressor::new();
        g.bench_function(BenchmarkId::new("libdeflater", blocks.len()), |b| {
            b.iter(|| {
                for &(raw, n) in &blocks {
                    black_box(d.zlib_decompress(raw, &mut out[..n]).ok());
                }
            })
        });
        g.bench_function(BenchmarkId::new("flate2_zlib_rs", blocks.len()), |b| {
            b.iter(|| {
                for &(raw, n) in &blocks {
                    let mut z = flate2::Decompress::new(true);
                    black_box(
                        z.decompress(raw, &mut out[..n], flate2::FlushDecompress::Finish)
                            .ok(),
                    );
                }
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
