//! Tests of `teebatch::batch`: the batch driver, its inputs (walks,
//! archives), records, summaries, output files and the run API.

mod aggregate;
mod archive_limits;
mod archives;
mod hostile;
mod map_records;
mod outputs;
mod parquet_records;
mod reliability_io;
mod run_api;
mod walk;
