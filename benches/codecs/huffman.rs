//! Huffman decode (oracle, fast, libtw2) and encode (ours, libtw2) on the
//! same inputs; throughput counts decompressed bytes.
use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use teebatch::codec::huffman;

use crate::common::corpora;

pub fn bench(c: &mut Criterion) {
    for corpus in corpora() {
        let mut out = vec![0u8; corpus.max_decompressed() + 64];
        let mut group = c.benchmark_group("huffman/decode");
        group.throughput(Throughput::Bytes(corpus.decompressed_bytes()));
        group.bench_function(BenchmarkId::new("oracle", corpus.name), |b| {
            b.iter(|| {
                for input in &corpus.compressed {
                    black_box(huffman::oracle::decompress(input, &mut out).ok());
                }
            })
        });
        group.bench_function(BenchmarkId::new("fast", corpus.name), |b| {
            b.iter(|| {
                for input in &corpus.compressed {
                    black_box(huffman::fast::decompress(input, &mut out).ok());
                }
            })
        });
        group.bench_function(BenchmarkId::new("libtw2", corpus.name), |b| {
            b.iter(|| {
                for input in &corpus.compressed {
                    black_box(libtw2_huffman::decompress_into(input, &mut out[..]).ok());
                }
            })
        });
        group.finish();

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
