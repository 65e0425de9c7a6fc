//! Huffman decode (oracle, fast, libtw2) and encode (ours, libtw2) on the
//! same inputs; throughput counts decompressed bytes.
use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use teebatch::codec::huffman;

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
