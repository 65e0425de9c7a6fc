//! Full decode of the real demos: Huffman, varints, full snapshots, deltas
//! and checksums of every chunk, per demo and all together, per kernel tier,
//! side by side with libtw2 (its demo reader for framing and Huffman, its
//! snapshot crate for snapshots, deltas and checksums); and one demo decoded
//! on 2 threads split at keyframes.
//!
//! Throughput is in bytes of compressed data chunk payloads. Both decoders
//! get each demo with its embedded map cut out (libtw2's reader copies the
//! map into memory; that is not what is measured here).
//!
//! `cargo bench --bench demos -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use teebatch::backend::Backend;
use teebatch::demo::stream::{segments, visit_parallel, Decoder};
use teebatch::demo::Demo;

#[path = "../support/libtw2_peer.rs"]
mod peer;
use peer::{inputs, libtw2_decode, teebatch_decode, Sum, Tw};

fn bench(c: &mut Criterion) {
    let inputs = inputs();
    if inputs.is_empty() {
        return;
    }
    let mut scalar = Decoder::new(Backend::Scalar);
    let mut simd = Decoder::new(Backend::Simd);
    let mut tw = Tw::new();
    // Both decoders agree on every demo before anything is timed.
    for i in &inputs {
        let ours = teebatch_decode(&mut simd, &i.bytes);
        assert_eq!(ours, teebatch_decode(&mut scalar, &i.bytes), "{}", i.name);
        assert_eq!(
            ours,
            libtw2_decode(&mut tw, &i.bytes, i.protocol),
            "{}",
            i.name
        );
    }

    let mut g = c.benchmark_group("demo_decode");
    for i in &inputs {
        g.throughput(Throughput::Bytes(i.chunk_bytes));
        for (label, dec) in [
            ("teebatch-scalar", &mut scalar),
            ("teebatch-simd", &mut simd),
        ] {
            g.bench_with_input(BenchmarkId::new(label, &i.name), &i.bytes, |b, bytes| {
                b.iter(|| teebatch_decode(dec, black_box(bytes)))
            });
        }
        g.bench_with_input(BenchmarkId::new("libtw2", &i.name), &i.bytes, |b, bytes| {
            b.iter(|| libtw2_decode(&mut tw, black_box(bytes), i.protocol))
        });
    }
    let total: u64 = inputs.iter().map(|i| i.chunk_bytes).sum();
    g.throughput(Throughput::Bytes(total));
    for (label, dec) in [
        ("teebatch-scalar", &mut scalar),
        ("teebatch-simd", &mut simd),
    ] {
        g.bench_function(BenchmarkId::new(label, "all"), |b| {
            b.iter(|| {
                inputs
                    .iter()
                    .fold(0i32, |s, i| s.wrapping_add(teebatch_decode(dec, &i.bytes)))
            })
        });
    }
    g.bench_function(BenchmarkId::new("libtw2", "all"), |b| {
        b.iter(|| {
            inputs.iter().fold(0i32, |s, i| {
                s.wrapping_add(libtw2_decode(&mut tw, &i.bytes, i.protocol))
            })
        })
    });
    g.finish();

    // One long demo on 2 threads, split at keyframes, against 1 thread.
    let Some(big) = inputs.iter().max_by_key(|i| i.chunk_bytes) else {
        return;
    };
    let demo = Demo::parse(&big.bytes).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut g = c.benchmark_group("demo_decode_parallel");
    g.throughput(Throughput::Bytes(big.chunk_bytes));
    g.bench_function(BenchmarkId::new("1-thread", &big.name), |b| {
        b.iter(|| teebatch_decode(&mut simd, black_box(&big.bytes)))
    });
    for count in [2, 4, 8] {
        let segs = segments(&demo, count);
        let expect = teebatch_decode(&mut simd, &big.bytes);
        let check = pool.install(|| visit_parallel(&demo, Backend::Simd, &segs, Sum::default));
        let got = check.visitor.iter().fold(0i32, |s, v| s.wrapping_add(v.0));
        assert_eq!(got, expect);
        let label = format!("2-threads-{}-segments", segs.len());
        g.bench_function(BenchmarkId::new(label, &big.name), |b| {
            b.iter(|| {
                pool.install(|| {
                    let r = visit_parallel(&demo, Backend::Simd, black_box(&segs), Sum::default);
                    r.visitor.iter().fold(0i32, |s, v| s.wrapping_add(v.0))
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
