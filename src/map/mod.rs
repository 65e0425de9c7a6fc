//! The high-level map view (see map.md).
mod error;
mod items;
pub mod names;
mod stats;
pub mod strings;
pub mod synth;
pub mod tiles;
pub mod uuids;

pub use error::{MapError, MapErrorKind, MapSection, MapWarning, MapWarningKind};
pub use items::*;
pub use stats::*;
pub use tiles::PhysicsKind;
