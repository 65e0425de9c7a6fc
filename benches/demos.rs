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
use std::io::Cursor;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use libtw2_snapshot::snap::{Delta as TwDelta, RawSnap};
use teebatch::backend::Backend;
use teebatch::codec::snapshot::Protocol;
use teebatch::demo::stream::{segments, visit_parallel, Decoder, Event, Visitor};
use teebatch::demo::Demo;

struct Input {
    name: String,
    /// The demo without its embedded map.
    bytes: Vec<u8>,
    protocol: Protocol,
    chunk_bytes: u64,
}

fn inputs() -> Vec<Input> {
    let Some(root) = teebatch::test_support::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) else {
        eprintln!("SKIPPED: ../shared/datasets not found");
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join("demos"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "demo"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let file = std::fs::read(p).unwrap();
            let demo = Demo::parse(&file).unwrap();
            let mut bytes = file[..demo.map_offset()].to_vec();
            bytes[136..140].copy_from_slice(&0i32.to_be_bytes());
            bytes.extend_from_slice(&file[demo.chunks_offset()..]);
            let chunk_bytes = demo
                .chunks()
                .filter_map(|c| c.unwrap().kind.payload())
                .map(|d| d.len() as u64)
                .sum();
            let protocol = demo.protocol().unwrap();
            let stem = p.file_stem().unwrap().to_string_lossy();
            // Short names: the ChillerDragon clips by their middle part.
            let name = match stem.split("__").nth(1) {
                Some(mid) => mid.to_owned(),
                None => stem.into_owned(),
            };
            Input {
                name,
                bytes,
                protocol,
                chunk_bytes,
            }
        })
        .collect()
}

/// Sums snapshot checksums so nothing is optimised away.
#[derive(Default)]
struct Sum(i32);

impl Visitor for Sum {
    fn visit(&mut self, event: &Event<'_>) {
        if let Event::Snapshot(s) = event {
            self.0 = self.0.wrapping_add(s.checksum);
        }
    }
}

fn teebatch_decode(decoder: &mut Decoder, bytes: &[u8]) -> i32 {
    let demo = Demo::parse(bytes).unwrap();
    let mut sum = Sum::default();
    let err = decoder.stream(&demo).run(&mut sum);
    assert!(err.is_none());
    sum.0
}

/// libtw2's state for one demo pass.
struct Tw {
    demo_warnings: Vec<libtw2_demo::Warning>,
    snap_warnings: Vec<libtw2_snapshot::format::Warning>,
    buf: Vec<i32>,
    snap: RawSnap,
    next: RawSnap,
    delta: TwDelta,
}

impl Tw {
    fn new() -> Tw {
        Tw {
            demo_warnings: Vec::new(),
            snap_warnings: Vec::new(),
            buf: Vec::new(),
            snap: RawSnap::empty(),
            next: RawSnap::empty(),
            delta: TwDelta::new(),
        }
    }
}

fn libtw2_decode(tw: &mut Tw, bytes: &[u8], protocol: Protocol) -> i32 {
    use libtw2_demo::RawChunk;
    tw.demo_warnings.clear();
    tw.snap_warnings.clear();
    let mut reader = libtw2_demo::Reader::new(Cursor::new(bytes), &mut tw.demo_warnings).unwrap();
    let size = |t: u16| protocol.static_size(u32::from(t)).map(|s| s as u32);
    let mut sum = 0i32;
    while let Some(chunk) = reader.read_chunk(&mut tw.demo_warnings).unwrap() {
        match chunk {
            RawChunk::Snapshot(data) => {
                tw.snap
                    .read(&mut tw.snap_warnings, &mut tw.buf, data)
                    .unwrap();
                sum = sum.wrapping_add(tw.snap.crc());
            }
            RawChunk::SnapshotDelta(data) => {
                let mut unpacker = libtw2_packer::Unpacker::new(data);
                tw.delta
                    .read(&mut tw.snap_warnings, size, &mut unpacker)
                    .unwrap();
                tw.next
                    .read_with_delta(&mut tw.snap_warnings, &tw.snap, &tw.delta)
                    .unwrap();
                std::mem::swap(&mut tw.snap, &mut tw.next);
                sum = sum.wrapping_add(tw.snap.crc());
            }
            RawChunk::Message(_) | RawChunk::Tick { .. } | RawChunk::Unknown => {}
        }
    }
    sum
}

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
