//! Snapshots and snapshot deltas (see snapshot.md).
