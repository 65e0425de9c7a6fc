//! The kernels every demo byte passes through.
//!
//! Each hot kernel has three tiers side by side: a plain reference (`oracle`),
//! a fast scalar path and, where it pays, a `wide` SIMD path. The tier is
//! chosen once through [`crate::backend::Backend`].

pub mod huffman;
pub mod kernels;
pub mod snapshot;
pub mod varint;
