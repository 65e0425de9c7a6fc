//! The high-level map view (see map.md).
