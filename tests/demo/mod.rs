//! Tests of `teebatch::demo`: framing, the snapshot stream, messages,
//! players, the analysis, the writer and the export tables.

mod chunks;
mod every_tick;
mod export;
mod export_tables;
mod finishes;
mod hostile;
mod messages;
mod player_sessions;
mod scaling;
mod stream;
mod write;
