//! Tables read back as rows of typed values: how tests and tools compare
//! a table across formats (record batches, CSV, JSON lines, Parquet).
//! Not the way rows are made or written (see [`super::columns`]).

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use std::io;
use std::sync::Arc;

/// One value of a row read back. Floats compare (and hash) by their
/// bits: a value read back equals the one written only if it is the same
/// `f64`.
#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Null,
    I32(i32),
    I64(i64),
    F64(f64),
    Bool(bool),
    Str(Arc<str>),
}

impl PartialEq for Value {
    fn eq(&self, o: &Value) -> bool {
        match (self, o) {
            (Value::Null, Value::Null) => true,
            (Value::I32(a), Value::I32(b)) => a == b,
            (Value::I64(a), Value::I64(b)) => a == b,
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        std::mem::discriminant(self).hash(h);
        match self {
            Value::Null => {}
            Value::I32(v) => v.hash(h),
            Value::I64(v) => v.hash(h),
            Value::F64(v) => v.to_bits().hash(h),
            Value::Bool(v) => v.hash(h),
            Value::Str(v) => v.hash(h),
        }
    }
}

impl From<Option<i32>> for Value {
    fn from(v: Option<i32>) -> Value {
        v.map_or(Value::Null, Value::I32)
    }
}

/// The kinds of value a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    I32,
    I64,
    F64,
    Bool,
    Str,
}

fn kind(f: &Field) -> Kind {
    match f.data_type() {
        DataType::Int32 => Kind::I32,
        DataType::Int64 => Kind::I64,
        DataType::Float64 => Kind::F64,
        DataType::Boolean => Kind::Bool,
        _ => Kind::Str,
    }
}

/// Whether `value` fits column `i` of `schema` (type and nullability).
pub fn accepts(schema: &Schema, i: usize, value: &Value) -> bool {
    let Some(f) = schema.fields().get(i) else {
        return false;
    };
    matches!(
        (kind(f), value),
        (Kind::I32, Value::I32(_))
            | (Kind::I64, Value::I64(_))
            | (Kind::F64, Value::F64(_))
            | (Kind::Bool, Value::Bool(_))
            | (Kind::Str, Value::Str(_))
    ) || (f.is_nullable() && *value == Value::Null)
}

/// The rows of `batch`, column by column as the schema says (text of
/// dictionary columns resolved).
pub fn rows(batch: &RecordBatch) -> Vec<Vec<Value>> {
    let mut rows = vec![Vec::with_capacity(batch.num_columns()); batch.num_rows()];
    for (f, col) in batch.schema().fields().iter().zip(batch.columns()) {
        let text = match kind(f) {
            Kind::Str => {
                Some(arrow_cast::cast(col, &DataType::Utf8).expect("text columns cast to Utf8"))
            }
            _ => None,
        };
        for (r, row) in rows.iter_mut().enumerate() {
            row.push(if col.is_null(r) {
                Value::Null
            } else {
                match kind(f) {
                    Kind::I32 => Value::I32(col.as_primitive::<Int32Type>().value(r)),
                    Kind::I64 => Value::I64(col.as_primitive::<Int64Type>().value(r)),
                    Kind::F64 => Value::F64(col.as_primitive::<Float64Type>().value(r)),
                    Kind::Bool => Value::Bool(col.as_boolean().value(r)),
                    Kind::Str => {
                        let t = text.as_ref().expect("cast above");
                        Value::Str(t.as_string::<i32>().value(r).into())
                    }
                }
            });
        }
    }
    rows
}

/// Reads the rows of a CSV table of `schema` back (header checked; an
/// empty field is null in a nullable column).
pub fn read_csv(schema: &Schema, text: &[u8]) -> Result<Vec<Vec<Value>>, String> {
    let mut r = csv::ReaderBuilder::new().from_reader(text);
    let header = r.headers().map_err(|e| e.to_string())?;
    let names: Vec<&str> = schema.fields().iter().map(|c| c.name().as_str()).collect();
    if header.iter().collect::<Vec<_>>() != names {
        return Err(format!("header {header:?} is not {names:?}"));
    }
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        let mut row = Vec::with_capacity(rec.len());
        for (c, f) in schema.fields().iter().zip(rec.iter()) {
            row.push(parse_field(c, f)?);
        }
        rows.push(row);
    }
    Ok(rows)
}

fn parse_field(c: &Field, f: &str) -> Result<Value, String> {
    if f.is_empty() && (c.is_nullable() || kind(c) != Kind::Str) {
        return Ok(Value::Null);
    }
    let bad = |e: &dyn std::fmt::Display| format!("column {}: {f:?}: {e}", c.name());
    Ok(match kind(c) {
        Kind::I32 => Value::I32(f.parse().map_err(|e| bad(&e))?),
        Kind::I64 => Value::I64(f.parse().map_err(|e| bad(&e))?),
        Kind::F64 => Value::F64(f.parse().map_err(|e| bad(&e))?),
        Kind::Bool => Value::Bool(f.parse().map_err(|e| bad(&e))?),
        Kind::Str => Value::Str(f.into()),
    })
}

/// Reads the rows of a JSON-lines table of `schema` back (keys and their
/// number checked).
pub fn read_jsonl(schema: &Schema, text: &[u8]) -> Result<Vec<Vec<Value>>, String> {
    let text = std::str::from_utf8(text).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for line in text.lines() {
        let obj: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(line).map_err(|e| e.to_string())?;
        if obj.len() != schema.fields().len() {
            return Err(format!(
                "{} keys, schema has {}",
                obj.len(),
                schema.fields().len()
            ));
        }
        let mut row = Vec::with_capacity(obj.len());
        for c in schema.fields() {
            let v = obj
                .get(c.name())
                .ok_or_else(|| format!("no key {}", c.name()))?;
            let bad = || format!("column {}: {v}", c.name());
            row.push(match (kind(c), v) {
                (_, serde_json::Value::Null) => Value::Null,
                (Kind::I32, v) => Value::I32(
                    v.as_i64()
                        .and_then(|i| i32::try_from(i).ok())
                        .ok_or_else(bad)?,
                ),
                (Kind::I64, v) => Value::I64(v.as_i64().ok_or_else(bad)?),
                (Kind::F64, v) => Value::F64(v.as_f64().ok_or_else(bad)?),
                (Kind::Bool, v) => Value::Bool(v.as_bool().ok_or_else(bad)?),
                (Kind::Str, v) => Value::Str(v.as_str().ok_or_else(bad)?.into()),
            });
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Reads the rows of a Parquet table back; the columns of `schema` are
/// looked up by name.
pub fn read_parquet(schema: &Schema, bytes: Vec<u8>) -> io::Result<Vec<Vec<Value>>> {
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        ::bytes::Bytes::from(bytes),
    )
    .and_then(|b| b.build())
    .map_err(|e| io::Error::other(format!("parquet: {e}")))?;
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| io::Error::other(format!("parquet: {e}")))?;
        let columns = schema
            .fields()
            .iter()
            .map(|f| {
                batch
                    .column_by_name(f.name())
                    .cloned()
                    .ok_or_else(|| io::Error::other(format!("parquet: no column {}", f.name())))
            })
            .collect::<io::Result<Vec<_>>>()?;
        let fields: Vec<Field> = schema
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, c)| Field::new(f.name(), c.data_type().clone(), true))
            .collect();
        let b = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
            .map_err(|e| io::Error::other(format!("parquet: {e}")))?;
        out.extend(rows(&b));
    }
    Ok(out)
}
