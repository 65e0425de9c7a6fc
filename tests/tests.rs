//! One integration-test binary: faster to link, one place to look.
//!
//! The tests follow the rooms of the library (`src/`): `tests/ROOM/` holds
//! the tests of `teebatch::ROOM` (`tests/cli/` those of the command line,
//! `tests/docs/` and `tests/fuzz/` those of the documentation and of the
//! fuzz targets); helpers shared by several rooms are in `tests/common/`.

mod common;

/// The binary's command line (`src/cli/`), compiled here too so that tests
/// can walk clap's command tree (the library does not hold it).
#[path = "../src/cli/mod.rs"]
#[allow(dead_code)]
mod teebatch_cli;

mod backend;
mod batch;
mod bench;
mod cli;
mod codec;
mod datafile;
mod demo;
mod docs;
mod fuzz;
mod map;
mod render;
