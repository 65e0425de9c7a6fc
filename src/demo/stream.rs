//! The snapshot stream: the snapshot in effect at every tick.
