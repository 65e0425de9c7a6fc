//! One integration-test binary: faster to link, one place to look.

mod common;

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
mod demo_messages;
mod demo_stream;
mod demo_write;
mod demos_cli;
mod dispatch;
mod fuzz_regressions;
mod fuzz_smoke;
mod hostile;
mod map_bounds;
mod maps;
mod outputs;
mod parquet_records;
mod progress;
mod readme;
mod records;
mod reliability_io;
mod render;
mod render_cost;
mod render_more;
mod scaling;
mod skips;
mod walk;
