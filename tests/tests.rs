//! One integration-test binary: faster to link, one place to look.

mod common;

/// The binary's command line (`src/cli/`), compiled here too so that tests
/// can walk clap's command tree (the library does not hold it).
#[path = "../src/cli/mod.rs"]
#[allow(dead_code)]
mod teebatch_cli;

mod aggregate;
mod archive_limits;
mod archives;
mod cli;
mod cli_usage;
mod codec_huffman;
mod codec_snapshot;
mod codec_varint;
mod datafile;
mod delta_changes;
mod demo_chunks;
mod demo_export;
mod demo_finishes;
mod demo_messages;
mod demo_stream;
mod demo_write;
mod demos_cli;
mod dispatch;
mod docs_tables;
mod every_tick;
mod export_tables;
mod fuzz_regressions;
mod fuzz_smoke;
mod heatmap_options;
mod hostile;
mod legacy_maps;
mod map_bounds;
mod map_check;
mod map_tools;
mod maps;
mod outputs;
mod parquet_records;
mod pictures;
mod progress;
mod readme;
mod records;
mod reliability_io;
mod render;
mod render_cost;
mod render_fidelity;
mod render_more;
mod run_api;
mod scaling;
mod sessions;
mod skips;
mod walk;
