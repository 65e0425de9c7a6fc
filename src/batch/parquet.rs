//! Records as Parquet files, through Apache Arrow's Rust crates.
//!
//! Each record type has an explicit Arrow schema ([`maps_schema`],
//! [`demos_schema`]) that mirrors its JSON form field by field: integers as
//! integers, hashes and CRCs as the same lowercase hex strings as the JSON,
//! nested objects as Arrow structs, lists as Arrow lists (`item_types` and
//! `messages.by_name` are lists of structs, one per type or name).
//! A field that a record leaves out (an `Option` that is `None`, because an
//! error stopped the decode) is a null.
//!
//! Records are turned into Arrow arrays by `arrow_json`'s serde decoder in
//! strict mode: a record field the schema does not name is an error, so the
//! schema cannot silently fall behind the record types (the tests write every
//! record of the shared datasets). [`ParquetSink`] buffers at most
//! [`BATCH_ROWS`] records before handing them to the Parquet writer, which
//! closes a row group every [`ROW_GROUP_ROWS`] rows: memory stays bounded
//! however many files a run indexes, and since records arrive in input order
//! the file is byte-identical for any number of jobs.
//!
//! Unsigned counts are written as signed 64-bit integers (`INT64`), which
//! every Parquet reader (DuckDB, pandas/pyarrow, polars, Spark) maps to its
//! plain integer type; the values never come near `i64::MAX`.

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, DataType, Field, Fields, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde::Serialize;
use std::io::{self, Write};
use std::sync::Arc;

/// Records buffered before they are converted into one Arrow batch.
pub const BATCH_ROWS: usize = 1024;
/// Rows per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 8192;

/// Turns records of one schema into Arrow record batches of at most
/// [`BATCH_ROWS`] rows, through `arrow_json`'s serde decoder in strict mode
/// (the Parquet files of [`ParquetSink`], the Python package's tables).
pub struct RecordBatcher {
    decoder: arrow_json::reader::Decoder,
}

impl RecordBatcher {
    /// A batcher of `schema` rows.
    pub fn new(schema: SchemaRef) -> io::Result<Self> {
        let decoder = arrow_json::ReaderBuilder::new(schema)
            .with_strict_mode(true)
            .build_decoder()
            .map_err(arrow_io)?;
        Ok(RecordBatcher { decoder })
    }

    /// Appends one record; returns a full batch when one is ready.
    pub fn push<T: Serialize>(&mut self, record: &T) -> io::Result<Option<RecordBatch>> {
        self.decoder
            .serialize(std::slice::from_ref(record))
            .map_err(arrow_io)?;
        if self.decoder.len() >= BATCH_ROWS {
            return self.flush();
        }
        Ok(None)
    }

    /// The rows appended since the last batch, if any.
    pub fn flush(&mut self) -> io::Result<Option<RecordBatch>> {
        self.decoder.flush().map_err(arrow_io)
    }
}

/// Writes records of one schema to a Parquet file.
pub struct ParquetSink<W: Write + Send> {
    batcher: RecordBatcher,
    writer: ArrowWriter<W>,
}

/// Snappy pages, [`ROW_GROUP_ROWS`] rows per group, `created_by` naming
/// teebatch (the same bytes on every run).
fn writer_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_created_by(format!("teebatch {}", env!("CARGO_PKG_VERSION")))
        .build()
}

fn arrow_io(e: ArrowError) -> io::Error {
    io::Error::other(format!("parquet: {e}"))
}

fn parquet_io(e: parquet::errors::ParquetError) -> io::Error {
    io::Error::other(format!("parquet: {e}"))
}

impl<W: Write + Send> ParquetSink<W> {
    /// A writer of `schema` rows to `out` (Snappy-compressed pages).
    pub fn new(out: W, schema: SchemaRef) -> io::Result<Self> {
        let batcher = RecordBatcher::new(schema.clone())?;
        let writer =
            ArrowWriter::try_new(out, schema, Some(writer_properties())).map_err(parquet_io)?;
        Ok(ParquetSink { batcher, writer })
    }

    /// Appends one record.
    pub fn write<T: Serialize>(&mut self, record: &T) -> io::Result<()> {
        if let Some(batch) = self.batcher.push(record)? {
            self.writer.write(&batch).map_err(parquet_io)?;
        }
        Ok(())
    }

    /// Writes the buffered rows and the file footer; returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(batch) = self.batcher.flush()? {
            self.writer.write(&batch).map_err(parquet_io)?;
        }
        self.writer.into_inner().map_err(parquet_io)
    }
}

fn field(name: &str, data_type: DataType) -> Field {
    Field::new(name, data_type, true)
}

fn int64(name: &str) -> Field {
    field(name, DataType::Int64)
}

/// Offsets and sizes: any `u64` a file can declare (a zip64 offset, a
/// base-256 tar size) fits, where INT64 would refuse the record.
fn uint64(name: &str) -> Field {
    field(name, DataType::UInt64)
}

fn int32(name: &str) -> Field {
    field(name, DataType::Int32)
}

fn utf8(name: &str) -> Field {
    field(name, DataType::Utf8)
}

fn boolean(name: &str) -> Field {
    field(name, DataType::Boolean)
}

fn list(name: &str, item: DataType) -> Field {
    field(
        name,
        DataType::List(Arc::new(Field::new("item", item, true))),
    )
}

fn strukt(name: &str, fields: Vec<Field>) -> Field {
    field(name, DataType::Struct(Fields::from(fields)))
}

/// `{stage, kind, section, offset, message}`: a failed file's `error`.
fn error_struct(name: &str) -> Field {
    strukt(
        name,
        vec![
            utf8("stage"),
            utf8("kind"),
            utf8("section"),
            uint64("offset"),
            utf8("message"),
        ],
    )
}

/// `[{stage, kind, section, offset}]`: a record's `warnings`.
fn warnings_list(name: &str, with_stage: bool) -> Field {
    let mut fields = Vec::with_capacity(4);
    if with_stage {
        fields.push(utf8("stage"));
    }
    fields.extend([utf8("kind"), utf8("section"), uint64("offset")]);
    list(name, DataType::Struct(Fields::from(fields)))
}

fn entity_counts(name: &str) -> Field {
    strukt(
        name,
        [
            "spawn",
            "spawn_red",
            "spawn_blue",
            "flag_red",
            "flag_blue",
            "armor",
            "health",
            "shotgun",
            "grenade",
            "ninja",
            "laser",
        ]
        .into_iter()
        .map(int64)
        .collect(),
    )
}

/// The schema of records of one kind ([`super::record::Record`]): the
/// envelope's `path`, `name` and `size` (never null), the fields of the
/// kind's body, then `warnings` and `error`.
fn record_schema(body: Vec<Field>) -> SchemaRef {
    let mut fields = vec![
        Field::new("path", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, false),
        Field::new("size", DataType::UInt64, false),
    ];
    fields.extend(body);
    fields.extend([warnings_list("warnings", true), error_struct("error")]);
    Arc::new(Schema::new(fields))
}

/// The schema of `maps index` records ([`super::maps::MapRecord`]).
pub fn maps_schema() -> SchemaRef {
    let info = strukt(
        "info",
        vec![
            utf8("author"),
            utf8("map_version"),
            utf8("credits"),
            utf8("license"),
            list("settings", DataType::Utf8),
        ],
    );
    let counts = strukt(
        "counts",
        [
            "images_embedded",
            "images_external",
            "envelopes",
            "env_points",
            "groups",
            "layers",
            "layers_tiles",
            "layers_game",
            "layers_front",
            "layers_tele",
            "layers_speedup",
            "layers_switch",
            "layers_tune",
            "layers_quads",
            "layers_sounds",
            "layers_unknown",
            "quads",
            "sound_sources",
            "sounds",
        ]
        .into_iter()
        .map(int64)
        .collect(),
    );
    let uuid_types = list(
        "uuid_types",
        DataType::Struct(Fields::from(vec![
            int32("type_id"),
            utf8("uuid"),
            utf8("name"),
            int64("items"),
        ])),
    );
    let stats = strukt(
        "stats",
        vec![
            int64("game_width"),
            int64("game_height"),
            entity_counts("game_entities"),
            entity_counts("front_entities"),
            strukt(
                "non_empty_tiles",
                ["game", "front", "tele", "speedup", "switch", "tune"]
                    .into_iter()
                    .map(int64)
                    .collect(),
            ),
            list("special_tiles", DataType::Utf8),
            list(
                "tiles",
                DataType::Struct(Fields::from(vec![
                    utf8("layer"),
                    int32("id"),
                    utf8("name"),
                    int64("count"),
                ])),
            ),
        ],
    );
    let map = strukt(
        "map",
        vec![
            utf8("version_kind"),
            utf8("absent_reason"),
            info,
            counts,
            uuid_types,
            stats,
            warnings_list("warnings", false),
        ],
    );
    record_schema(vec![
        utf8("crc32"),
        utf8("sha256"),
        utf8("datafile_version"),
        int64("num_item_types"),
        int64("num_items"),
        int64("num_data"),
        int64("compressed_bytes"),
        int64("decompressed_bytes"),
        utf8("data_crc32"),
        utf8("data_sha256"),
        map,
        utf8("thumbnail"),
    ])
}

/// The schema of `demos index` records ([`super::demos::DemoRecord`]).
pub fn demos_schema() -> SchemaRef {
    let header = strukt(
        "header",
        vec![
            int32("version"),
            utf8("net_version"),
            utf8("protocol"),
            utf8("map_name"),
            int64("map_size"),
            utf8("map_crc"),
            utf8("type"),
            int32("length"),
            utf8("timestamp"),
            utf8("timestamp_raw"),
            list("timeline_markers", DataType::Int32),
            utf8("map_sha256"),
        ],
    );
    let map = strukt(
        "map",
        vec![
            int64("size"),
            utf8("crc32"),
            utf8("sha256"),
            boolean("crc32_matches_header"),
            boolean("sha256_matches_header"),
            utf8("datafile_version"),
            int64("num_item_types"),
            int64("num_items"),
            int64("num_data"),
            error_struct("error"),
        ],
    );
    let chunks = strukt(
        "chunks",
        [
            "tick_markers",
            "keyframe_tick_markers",
            "snapshot",
            "snapshot_delta",
            "message",
            "unknown",
        ]
        .into_iter()
        .map(int64)
        .collect(),
    );
    let item_type = DataType::Struct(Fields::from(vec![
        int32("type_id"),
        utf8("uuid"),
        utf8("name"),
        int64("occurrences"),
        list("sizes_ints", DataType::Int64),
    ]));
    let player = DataType::Struct(Fields::from(vec![
        int32("client_id"),
        list("names", DataType::Utf8),
        list("clans", DataType::Utf8),
        int32("first_tick"),
        int32("last_tick"),
        int64("ticks_present"),
        int32("score"),
        int32("score_raw"),
        boolean("local"),
    ]));
    let messages = strukt(
        "messages",
        vec![
            list(
                "by_name",
                DataType::Struct(Fields::from(vec![utf8("name"), int64("count")])),
            ),
            int64("chat_lines"),
            int64("kills"),
            int64("race_finishes"),
            list(
                "finishes_by_player",
                DataType::Struct(Fields::from(vec![utf8("name"), int64("count")])),
            ),
            int64("undecodable"),
        ],
    );
    record_schema(vec![
        utf8("sha256"),
        header,
        map,
        chunks,
        int32("first_tick"),
        int32("last_tick"),
        int64("ticks"),
        field("duration_s", DataType::Float64),
        int64("snapshots_reconstructed"),
        list("item_types", item_type),
        list("players", player),
        messages,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::types::UInt64Type;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    #[derive(Serialize)]
    struct Row {
        path: &'static str,
        name: &'static str,
        size: u64,
    }

    #[test]
    fn unknown_fields_are_refused() {
        #[derive(Serialize)]
        struct Extra {
            path: &'static str,
            name: &'static str,
            size: u64,
            surprise: u8,
        }
        let mut sink = ParquetSink::new(Vec::new(), maps_schema()).unwrap();
        // Strict mode refuses the row when the buffered rows are decoded.
        let e = sink
            .write(&Extra {
                path: "a",
                name: "a",
                size: 1,
                surprise: 2,
            })
            .and_then(|()| sink.finish().map(drop))
            .unwrap_err();
        assert!(e.to_string().contains("surprise"), "{e}");
    }

    #[test]
    fn rows_round_trip_across_batches_and_row_groups() {
        let n = ROW_GROUP_ROWS + BATCH_ROWS + 7;
        let mut sink = ParquetSink::new(Vec::new(), maps_schema()).unwrap();
        for i in 0..n {
            sink.write(&Row {
                path: "p",
                name: "n",
                size: i as u64,
            })
            .unwrap();
        }
        let bytes = ::bytes::Bytes::from(sink.finish().unwrap());
        let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
        assert_eq!(builder.metadata().num_row_groups(), 2);
        let mut sizes = Vec::new();
        for batch in builder.build().unwrap() {
            let batch = batch.unwrap();
            let col = batch.column_by_name("size").unwrap();
            sizes.extend(col.as_primitive::<UInt64Type>().values().iter().copied());
            assert_eq!(
                batch.column_by_name("sha256").unwrap().null_count(),
                batch.num_rows()
            );
        }
        assert_eq!(sizes, (0..n as u64).collect::<Vec<_>>());
    }

    /// Reads the `(size, error offset, first warning offset)` of every
    /// row of Parquet `bytes`.
    fn offsets_of(bytes: Vec<u8>) -> Vec<(u64, u64, u64)> {
        use arrow_array::{Array, ListArray, StructArray};
        let reader = ParquetRecordBatchReaderBuilder::try_new(::bytes::Bytes::from(bytes))
            .unwrap()
            .build()
            .unwrap();
        let mut out = Vec::new();
        for batch in reader {
            let batch = batch.unwrap();
            let size = batch
                .column_by_name("size")
                .unwrap()
                .as_primitive::<UInt64Type>();
            let error = batch.column_by_name("error").unwrap();
            let error = error.as_any().downcast_ref::<StructArray>().unwrap();
            let offset = error
                .column_by_name("offset")
                .unwrap()
                .as_primitive::<UInt64Type>();
            let warnings = batch.column_by_name("warnings").unwrap();
            let warnings = warnings.as_any().downcast_ref::<ListArray>().unwrap();
            for r in 0..batch.num_rows() {
                let w = warnings.value(r);
                let w = w.as_any().downcast_ref::<StructArray>().unwrap();
                let w = w
                    .column_by_name("offset")
                    .unwrap()
                    .as_primitive::<UInt64Type>();
                out.push((size.value(r), offset.value(r), w.value(0)));
            }
        }
        out
    }

    /// No value a file can declare breaks the writer: offsets and sizes up
    /// to `u64::MAX` (a zip64 offset, a base-256 tar size) are written and
    /// read back as they are, in both record schemas.
    #[test]
    fn the_largest_offsets_and_sizes_are_written() {
        use crate::batch::record::{ErrorRecord, WarningRecord};
        use crate::kind::Stage;
        let error = ErrorRecord {
            stage: Stage::Archive,
            kind: "lying_size",
            section: "member 1".into(),
            offset: u64::MAX,
            message: "m".into(),
        };
        let warning = WarningRecord {
            stage: Stage::Archive,
            kind: "lying_size",
            section: "member 1".into(),
            offset: 1 << 63,
        };
        let expected = vec![(u64::MAX, u64::MAX, 1 << 63)];
        let mut sink = ParquetSink::new(Vec::new(), maps_schema()).unwrap();
        sink.write(&crate::batch::maps::MapRecord {
            size: u64::MAX,
            warnings: vec![warning.clone()],
            error: Some(error.clone()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(offsets_of(sink.finish().unwrap()), expected);
        let mut sink = ParquetSink::new(Vec::new(), demos_schema()).unwrap();
        sink.write(&crate::batch::demos::DemoRecord {
            size: u64::MAX,
            warnings: vec![warning],
            error: Some(error),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(offsets_of(sink.finish().unwrap()), expected);
    }
}
