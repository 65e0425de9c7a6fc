//! Criterion benches of the codec kernels, per kernel and tier.
use criterion::{criterion_group, criterion_main};

#[path = "codecs/common.rs"]
mod common;
#[path = "codecs/huffman.rs"]
mod huffman;
#[path = "codecs/snapshot.rs"]
mod snapshot;
#[path = "codecs/varint.rs"]
mod varint;

criterion_group!(benches, huffman::bench, varint::bench, snapshot::bench);
criterion_main!(benches);
