//! Deterministic generators of maps and demos, for tests, benchmarks and
//! `teebatch synth`.
//!
//! [`map`] writes maps with teebatch's own datafile writer; [`demo`]
//! simulates and records games with the demo writer.

pub mod demo;
pub mod map;
pub mod rng;

pub use rng::Rng;
pub mod builder;
