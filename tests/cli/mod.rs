//! Tests of the command line (`src/cli`): usage, help and the conventions
//! of the `maps` and `demos` commands, the progress bar.

mod demos;
mod maps_index;
mod progress;
mod usage;
