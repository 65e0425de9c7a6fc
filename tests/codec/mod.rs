//! Tests of `teebatch::codec`: Huffman, varints, snapshots and deltas.

mod delta_changes;
mod huffman;
mod snapshot;
mod varint;
