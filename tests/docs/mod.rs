//! Tests of the documentation: runnable commands and generated tables.

mod readme;
mod tables;
