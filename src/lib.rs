//! teebatch: batch processing of Teeworlds and DDNet maps and demos.
//!
//! The crate is layered so that every parser works on a borrowed `&[u8]` and
//! never sees a file handle:
//!
//! - [`datafile`]: the Teeworlds datafile container (maps), versions 3 and 4.
//! - [`map`]: the high-level map view on top of a datafile.
//! - [`codec`]: the demo/network kernels (Huffman, variable-length ints,
//!   snapshots and deltas), each with a reference, a scalar and a SIMD tier.
//! - [`demo`]: the demo container (header, chunks).
//! - [`batch`]: walking collections, reading or mapping files, rayon fold/reduce.
//! - [`cli`]: the `teebatch` command line.

pub mod backend;
pub mod batch;
pub mod bytes;
pub mod cli;
pub mod codec;
pub mod datafile;
pub mod demo;
pub mod limits;
pub mod map;
pub mod render;
