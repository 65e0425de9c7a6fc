//! Huffman decode (oracle, fast, libtw2; batches of streams) and encode
//! (ours, libtw2) on the same inputs; throughput counts decompressed bytes.
use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use teebatch::codec::huffman;
use teebatch::demo::stream::huffman_room;

use crate::common::corpora;

pub fn bench(c: &mut Criterion) {
    for corpus in corpora() {
        let mut out = vec![0u8; corpus.max_decompressed() + 64];
        // Every decoder and encoder must succeed on every input, else the
        // timings below would measure early exits.
        for (c, d) in corpus.compressed.iter().zip(&corpus.decompressed) {
            assert_eq!(huffman::decompress(c, &mut out), Ok(d.len()));
            assert_eq!(huffman::oracle::decompress(c, &mut out), Ok(d.len()));
            let tw = libtw2_huffman::decompress_into(c, &mut out[..]).expect("libtw2 decodes");
            assert_eq!(tw.len(), d.len());
            let mut buf = Vec::with_capacity(d.len() * 2 + 16);
            let tw = libtw2_huffman::compress_into(d, &mut buf).expect("libtw2 encodes");
            // libtw2's `compress` leaves out the reference's extra zero byte.
            assert!(tw == &c[..] || (tw == &c[..c.len() - 1] && c.last() == Some(&0)));
        }
        let mut group = c.benchmark_group("huffman/decode");
        group.throughput(Throughput::Bytes(corpus.decompressed_bytes()));
        group.bench_function(BenchmarkId::new("oracle", corpus.name), |b| {
            b.iter(|| {
                for input in &corpus.compressed {
                    black_box(huffman::oracle::decompress(input, &mut out).ok());
                }
            })
        });
        // The fast tiers this CPU can run (portable, BMI2).
        for tier in [huffman::Tier::Portable, huffman::Tier::Bmi2] {
            if !tier.available() {
                continue;
            }
            let id = BenchmarkId::new(format!("fast-{}", tier.name()), corpus.name);
            group.bench_function(id, |b| {
                b.iter(|| {
                    for input in &corpus.compressed {
                        black_box(huffman::decompress_on(tier, input, &mut out).ok());
                    }
                })
            });
        }
        group.bench_function(BenchmarkId::new("libtw2", corpus.name), |b| {
            b.iter(|| {
                for input in &corpus.compressed {
                    black_box(libtw2_huffman::decompress_into(input, &mut out[..]).ok());
                }
            })
        });
        group.finish();

        // Batches of consecutive streams with the demo decoder's caps,
        // against the single-stream decoder on the same caps (demo payloads
        // only: the generated corpus is one stream).
        if corpus.compressed.len() > 1 {
            bench_batches(c, &corpus);
        }

        let mut group = c.benchmark_group("huffman/encode");
        group.throughput(Throughput::Bytes(corpus.decompressed_bytes()));
        let mut buf = Vec::with_capacity(corpus.max_decompressed() * 2 + 16);
        group.bench_function(BenchmarkId::new("ours", corpus.name), |b| {
            b.iter(|| {
                for input in &corpus.decompressed {
                    buf.clear();
                    huffman::compress(input, &mut buf);
                    black_box(buf.len());
                }
            })
        });
        group.bench_function(BenchmarkId::new("libtw2", corpus.name), |b| {
            b.iter(|| {
                for input in &corpus.decompressed {
                    buf.clear();
                    black_box(libtw2_huffman::compress_into(input, &mut buf).ok());
                }
            })
        });
        group.finish();
    }
}

fn bench_batches(c: &mut Criterion, corpus: &crate::common::Corpus) {
    let mut out = vec![0u8; crate::common::MAX_PAYLOAD];
    let inputs: Vec<&[u8]> = corpus.compressed.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = inputs.iter().map(|c| huffman_room(c.len())).collect();
    let mut group = c.benchmark_group("huffman/decode_batch");
    group.throughput(Throughput::Bytes(corpus.decompressed_bytes()));
    group.bench_function(BenchmarkId::new("single", corpus.name), |b| {
        b.iter(|| {
            for (input, &cap) in inputs.iter().zip(&caps) {
                black_box(huffman::fast::decompress(input, &mut out[..cap]).ok());
            }
        })
    });
    for size in [2, 4, 8] {
        let arena_len = caps.chunks(size).map(|c| c.iter().sum()).max();
        let mut arena = vec![0u8; arena_len.unwrap_or(0)];
        let mut results = vec![Ok(0); size];
        for (inputs, caps) in inputs.chunks(size).zip(caps.chunks(size)) {
            let results = &mut results[..inputs.len()];
            huffman::decompress_batch(inputs, caps, &mut arena, results);
            assert!(results.iter().all(Result::is_ok));
        }
        for tier in [huffman::Tier::Portable, huffman::Tier::Bmi2] {
            if !tier.available() {
                continue;
            }
            let id = BenchmarkId::new(format!("batch{size}-{}", tier.name()), corpus.name);
            group.bench_function(id, |b| {
                b.iter(|| {
                    for (inputs, caps) in inputs.chunks(size).zip(caps.chunks(size)) {
                        let results = &mut results[..inputs.len()];
                        huffman::decompress_batch_on(tier, inputs, caps, &mut arena, results);
                        black_box(&mut *results);
                    }
                })
            });
        }
    }
    group.finish();
}
