//! The table layer of `demos export`: a typed column schema per table, rows
//! as typed values, and writers that are generic over the schema.
//!
//! A [`Schema`] names each column with its [`ColumnType`] and whether it may
//! be null. Rows travel in [`RowBatch`]es (row-major [`Value`]s, a bounded
//! number of rows each) from the table builders to a [`TableWriter`]. The
//! CSV and JSON-lines writers here format every row through the `csv` and
//! `serde_json` crates; a columnar writer (Parquet) takes the same batches
//! and the same schema.

use serde::ser::{Serialize, SerializeMap, Serializer};
use std::io::{self, Write};
use std::sync::Arc;

/// The type of a column's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnType {
    I32,
    I64,
    Bool,
    /// UTF-8 text.
    Str,
}

/// One column: name, type, whether values may be null.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Column {
    pub name: &'static str,
    pub ty: ColumnType,
    pub nullable: bool,
}

impl Column {
    pub const fn new(name: &'static str, ty: ColumnType, nullable: bool) -> Column {
        Column { name, ty, nullable }
    }
}

/// The columns of one table, in output order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    pub table: &'static str,
    pub columns: Vec<Column>,
}

impl Schema {
    /// The index of the column named `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Whether `value` fits column `i` (type and nullability).
    pub fn accepts(&self, i: usize, value: &Value) -> bool {
        let Some(c) = self.columns.get(i) else {
            return false;
        };
        matches!(
            (c.ty, value),
            (ColumnType::I32, Value::I32(_))
                | (ColumnType::I64, Value::I64(_))
                | (ColumnType::Bool, Value::Bool(_))
                | (ColumnType::Str, Value::Str(_))
        ) || (c.nullable && *value == Value::Null)
    }
}

/// One typed value of a row.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Value {
    #[default]
    Null,
    I32(i32),
    I64(i64),
    Bool(bool),
    /// Shared text: names repeat in row after row without a copy.
    Str(Arc<str>),
}

impl From<Option<i32>> for Value {
    fn from(v: Option<i32>) -> Value {
        v.map_or(Value::Null, Value::I32)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_none(),
            Value::I32(v) => s.serialize_i32(*v),
            Value::I64(v) => s.serialize_i64(*v),
            Value::Bool(v) => s.serialize_bool(*v),
            Value::Str(v) => s.serialize_str(v),
        }
    }
}

/// Rows of one table, row-major: `values.len()` is a multiple of the width.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowBatch {
    width: usize,
    values: Vec<Value>,
}

impl RowBatch {
    /// An empty batch of rows `width` values wide.
    pub fn new(width: usize) -> RowBatch {
        RowBatch {
            width,
            values: Vec::new(),
        }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.values.len().checked_div(self.width).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Appends a row of nulls and returns it to be filled.
    pub fn push_row(&mut self) -> &mut [Value] {
        let start = self.values.len();
        self.values.resize(start + self.width, Value::Null);
        &mut self.values[start..]
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[Value] {
        &self.values[i * self.width..(i + 1) * self.width]
    }

    /// The rows in order.
    pub fn rows(&self) -> impl Iterator<Item = &[Value]> {
        self.values.chunks_exact(self.width.max(1))
    }

    /// Removes every row, keeping the memory; rows are `width` wide from
    /// now on.
    pub fn clear(&mut self, width: usize) {
        self.values.clear();
        self.width = width;
    }
}

/// Output formats of `demos export`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Format {
    /// Comma-separated values with a header line; null is an empty field.
    #[default]
    Csv,
    /// One JSON object per row, keys in column order; null is `null`.
    Jsonl,
    /// Apache Parquet, one typed column per table column (needs `-o FILE`).
    Parquet,
}

/// Takes batches of one table's rows, in order.
pub trait TableWriter {
    fn write_batch(&mut self, batch: &RowBatch) -> io::Result<()>;
    /// An encoder that turns batches into this writer's bytes on another
    /// thread (row formats); `None` when the writer needs the typed rows
    /// itself (columnar formats).
    fn encoder(&self) -> Option<Box<dyn BatchEncoder + Send>> {
        None
    }
    /// Writes bytes made by one of [`TableWriter::encoder`]'s encoders, in
    /// place of the batch they encode.
    fn write_encoded(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Writes what is buffered (the writer stays usable).
    fn finish(&mut self) -> io::Result<()>;
}

/// Encodes batches into the bytes a row-format writer would write.
pub trait BatchEncoder {
    fn encode(&mut self, batch: &RowBatch, out: &mut Vec<u8>) -> io::Result<()>;
}

/// A writer of `format` for `schema` on `out`.
pub fn writer<'w>(
    format: Format,
    schema: &Schema,
    out: Box<dyn Write + 'w>,
) -> io::Result<Box<dyn TableWriter + 'w>> {
    Ok(match format {
        Format::Csv => Box::new(CsvWriter::new(schema, out)?),
        Format::Jsonl => Box::new(JsonlWriter::new(schema, out)),
        // Parquet needs a file it can own and send between threads:
        // `crate::batch::parquet::ParquetTableWriter`.
        Format::Parquet => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "parquet tables are written by batch::parquet::ParquetTableWriter",
            ))
        }
    })
}

fn csv_io(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        k => io::Error::other(format!("{k:?}")),
    }
}

/// CSV: a header line of column names, then one record per row. Integers
/// in decimal, booleans as `true`/`false`, null as an empty field, text
/// quoted by the `csv` crate where needed.
pub struct CsvWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
}

impl<W: Write> CsvWriter<W> {
    pub fn new(schema: &Schema, mut out: W) -> io::Result<CsvWriter<W>> {
        let mut header = csv::Writer::from_writer(Vec::new());
        header
            .write_record(schema.columns.iter().map(|c| c.name))
            .map_err(csv_io)?;
        out.write_all(&header.into_inner().map_err(|e| e.into_error())?)?;
        Ok(CsvWriter {
            out,
            buf: Vec::new(),
        })
    }
}

/// Encodes CSV records (no header).
#[derive(Clone, Copy, Debug, Default)]
pub struct CsvEncoder;

impl BatchEncoder for CsvEncoder {
    fn encode(&mut self, batch: &RowBatch, out: &mut Vec<u8>) -> io::Result<()> {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(out);
        let mut ints = itoa::Buffer::new();
        for row in batch.rows() {
            for v in row {
                let field: &[u8] = match v {
                    Value::Null => b"",
                    Value::I32(i) => ints.format(*i).as_bytes(),
                    Value::I64(i) => ints.format(*i).as_bytes(),
                    Value::Bool(true) => b"true",
                    Value::Bool(false) => b"false",
                    Value::Str(s) => s.as_bytes(),
                };
                w.write_field(field).map_err(csv_io)?;
            }
            w.write_record(None::<&[u8]>).map_err(csv_io)?;
        }
        w.flush()
    }
}

impl<W: Write> TableWriter for CsvWriter<W> {
    fn write_batch(&mut self, batch: &RowBatch) -> io::Result<()> {
        self.buf.clear();
        CsvEncoder.encode(batch, &mut self.buf)?;
        self.out.write_all(&self.buf)
    }

    fn encoder(&self) -> Option<Box<dyn BatchEncoder + Send>> {
        Some(Box::new(CsvEncoder))
    }

    fn write_encoded(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// JSON lines: one object per row with every column, in schema order.
pub struct JsonlWriter<W: Write> {
    encoder: JsonlEncoder,
    out: W,
    buf: Vec<u8>,
}

impl<W: Write> JsonlWriter<W> {
    pub fn new(schema: &Schema, out: W) -> JsonlWriter<W> {
        JsonlWriter {
            encoder: JsonlEncoder {
                names: schema.columns.iter().map(|c| c.name).collect(),
            },
            out,
            buf: Vec::new(),
        }
    }
}

/// Encodes JSON lines.
#[derive(Clone, Debug)]
pub struct JsonlEncoder {
    names: Vec<&'static str>,
}

/// One row as a JSON object.
struct JsonRow<'a> {
    names: &'a [&'static str],
    values: &'a [Value],
}

impl Serialize for JsonRow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.names.len()))?;
        for (k, v) in self.names.iter().zip(self.values) {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl BatchEncoder for JsonlEncoder {
    fn encode(&mut self, batch: &RowBatch, out: &mut Vec<u8>) -> io::Result<()> {
        for values in batch.rows() {
            let row = JsonRow {
                names: &self.names,
                values,
            };
            serde_json::to_writer(&mut *out, &row).map_err(io::Error::other)?;
            out.push(b'\n');
        }
        Ok(())
    }
}

impl<W: Write> TableWriter for JsonlWriter<W> {
    fn write_batch(&mut self, batch: &RowBatch) -> io::Result<()> {
        self.buf.clear();
        self.encoder.encode(batch, &mut self.buf)?;
        self.out.write_all(&self.buf)
    }

    fn encoder(&self) -> Option<Box<dyn BatchEncoder + Send>> {
        Some(Box::new(self.encoder.clone()))
    }

    fn write_encoded(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Reads the rows a [`CsvWriter`] wrote for `schema` back as values
/// (header checked; an empty field is null in a nullable column).
pub fn read_csv(schema: &Schema, text: &[u8]) -> Result<Vec<Vec<Value>>, String> {
    let mut r = csv::ReaderBuilder::new().from_reader(text);
    let header = r.headers().map_err(|e| e.to_string())?;
    let names: Vec<&str> = schema.columns.iter().map(|c| c.name).collect();
    if header.iter().collect::<Vec<_>>() != names {
        return Err(format!("header {header:?} is not {names:?}"));
    }
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        let mut row = Vec::with_capacity(rec.len());
        for (c, f) in schema.columns.iter().zip(rec.iter()) {
            row.push(parse_field(c, f)?);
        }
        rows.push(row);
    }
    Ok(rows)
}

fn parse_field(c: &Column, f: &str) -> Result<Value, String> {
    if f.is_empty() && (c.nullable || c.ty != ColumnType::Str) {
        return Ok(Value::Null);
    }
    let bad = |e: &dyn std::fmt::Display| format!("column {}: {f:?}: {e}", c.name);
    Ok(match c.ty {
        ColumnType::I32 => Value::I32(f.parse().map_err(|e| bad(&e))?),
        ColumnType::I64 => Value::I64(f.parse().map_err(|e| bad(&e))?),
        ColumnType::Bool => Value::Bool(f.parse().map_err(|e| bad(&e))?),
        ColumnType::Str => Value::Str(f.into()),
    })
}

/// Reads the rows a [`JsonlWriter`] wrote for `schema` back as values (keys
/// and their order checked).
pub fn read_jsonl(schema: &Schema, text: &[u8]) -> Result<Vec<Vec<Value>>, String> {
    let text = std::str::from_utf8(text).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for line in text.lines() {
        let obj: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(line).map_err(|e| e.to_string())?;
        if obj.len() != schema.columns.len() {
            return Err(format!(
                "{} keys, schema has {}",
                obj.len(),
                schema.columns.len()
            ));
        }
        let mut row = Vec::with_capacity(obj.len());
        for c in &schema.columns {
            let v = obj
                .get(c.name)
                .ok_or_else(|| format!("no key {}", c.name))?;
            let bad = || format!("column {}: {v}", c.name);
            row.push(match (c.ty, v) {
                (_, serde_json::Value::Null) => Value::Null,
                (ColumnType::I32, v) => Value::I32(
                    v.as_i64()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(bad)?,
                ),
                (ColumnType::I64, v) => Value::I64(v.as_i64().ok_or_else(bad)?),
                (ColumnType::Bool, v) => Value::Bool(v.as_bool().ok_or_else(bad)?),
                (ColumnType::Str, v) => Value::Str(v.as_str().ok_or_else(bad)?.into()),
            });
        }
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        Schema {
            table: "t",
            columns: vec![
                Column::new("a", ColumnType::I32, false),
                Column::new("b", ColumnType::I64, true),
                Column::new("c", ColumnType::Bool, true),
                Column::new("d", ColumnType::Str, true),
            ],
        }
    }

    #[test]
    fn csv_and_jsonl_round_trip() {
        let s = schema();
        let mut b = RowBatch::new(4);
        b.push_row().clone_from_slice(&[
            Value::I32(-7),
            Value::I64(1 << 40),
            Value::Bool(true),
            Value::Str("a,\"b\"\nc".into()),
        ]);
        b.push_row()[0] = Value::I32(i32::MIN);
        for r in b.rows().enumerate() {
            for (i, v) in r.1.iter().enumerate() {
                assert!(s.accepts(i, v));
            }
        }
        let mut csv_out = Vec::new();
        let mut w = CsvWriter::new(&s, &mut csv_out).unwrap();
        w.write_batch(&b).unwrap();
        w.finish().unwrap();
        drop(w);
        assert_eq!(
            String::from_utf8(csv_out.clone()).unwrap(),
            "a,b,c,d\n-7,1099511627776,true,\"a,\"\"b\"\"\nc\"\n-2147483648,,,\n"
        );
        let mut json_out = Vec::new();
        let mut w = JsonlWriter::new(&s, &mut json_out);
        w.write_batch(&b).unwrap();
        w.finish().unwrap();
        assert_eq!(
            String::from_utf8(json_out.clone()).unwrap().lines().nth(1),
            Some(r#"{"a":-2147483648,"b":null,"c":null,"d":null}"#)
        );
        let want: Vec<Vec<Value>> = b.rows().map(|r| r.to_vec()).collect();
        assert_eq!(read_csv(&s, &csv_out).unwrap(), want);
        assert_eq!(read_jsonl(&s, &json_out).unwrap(), want);
    }
}
