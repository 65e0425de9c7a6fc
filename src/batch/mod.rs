//! Batch processing of file collections.
//!
//! A batch is a sorted list of [`Input`]s (files named on the command line,
//! files found by walking directory trees, or the embedded default dataset).
//! [`run_ordered`] hands them to rayon workers in order; each worker keeps its
//! own state (reused read buffer, inflater, statistics) and sends one result
//! per input to the calling thread, which re-orders them and passes them to a
//! sink in input order. Workers pull inputs in order, so the re-order buffer
//! holds at most about one result per worker: memory stays flat however large
//! the collection, and output is identical for any number of jobs. With
//! one job there is no pool: the calling thread processes the inputs itself.
//!
//! Statistics are per-worker values merged by addition at the end (ripgrep's
//! `Stats` pattern): no lock on the hot path.

pub mod archive;
pub mod check;
pub mod demos;
pub mod diff;
mod driver;
pub mod dump;
pub mod embedded;
#[cfg(feature = "parquet")]
pub mod export;
#[cfg(feature = "render")]
pub mod extract;
#[cfg(feature = "synth")]
pub mod generate;
#[cfg(all(feature = "parquet", feature = "render"))]
pub mod heat;
pub mod info;
mod input;
mod load;
pub mod maps;
pub mod output;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod range;
pub mod record;
#[cfg(feature = "render")]
pub mod render;
pub mod run;
pub mod select;
pub mod sink;
pub mod summary;
#[cfg(feature = "parquet")]
pub mod tables;
mod walk;

pub use driver::run_ordered;
pub use input::{encode_path, write_list, Input, EMBEDDED_PREFIX};
pub use load::{
    check_regular_file, load, read_named_file, Loaded, MmapMode, NotRegularFile,
    MMAP_AUTO_THRESHOLD,
};
pub use walk::{collect_inputs, collect_inputs_opts, SpecialFilesystem, WalkOptions};
