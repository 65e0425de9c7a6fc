//! Deterministic generators of maps and demos, for tests, benchmarks and
//! `teebatch synth`.
//!
//! [`map`] writes maps with teebatch's own datafile writer; [`scene`]
//! writes small hand-made maps for pixel tests of the full style; [`demo`]
//! simulates and records games with the demo writer. The three map
//! writers ([`map`], [`builder`], [`scene`]) take their item layouts from
//! [`items`].

pub mod demo;
pub mod items;
pub mod map;
pub mod rng;
pub mod scene;

pub use rng::Rng;
pub mod builder;
