//! Column buffers of one table's rows, turned into an Arrow
//! [`RecordBatch`] without a copy.
//!
//! A [`Columns`] holds one typed buffer per column of the table's Arrow
//! schema ([`super::Table::schema`]): `Vec<i32>` (`Vec<f64>`) values and
//! validity bitmaps ([`Bits`]) for the integer (float) columns, dictionary keys for repeated text
//! (the demo path, player names, kinds), offsets and bytes for free text.
//! The table builder appends to them directly, column by column for the
//! item tables (a snapshot's items at a time) and row by row through
//! [`Columns::row`] for the message tables; [`Columns::take_batch`] hands
//! the buffers to Arrow (the `Vec`s become the arrays' buffers) and starts
//! empty ones sized like the last.
//!
//! Dictionaries are per batch: a batch's dictionary holds the values its
//! rows use (a batch is bounded, so is the dictionary).

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, RecordBatch, StringArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, SchemaRef};
use std::collections::HashMap;
use std::sync::Arc;

/// A bitmap being appended to, in Arrow's bit order (bit `i` of the
/// little-endian words), handed to Arrow without a copy.
#[derive(Debug, Default)]
pub struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    fn with_capacity(bits: usize) -> Bits {
        Bits {
            words: Vec::with_capacity(bits.div_ceil(64)),
            len: 0,
        }
    }

    /// Bits appended so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `v`.
    #[inline]
    pub fn push(&mut self, v: bool) {
        let bit = self.len % 64;
        if bit == 0 {
            self.words.push(u64::from(v));
        } else if let Some(w) = self.words.last_mut() {
            *w |= u64::from(v) << bit;
        }
        self.len += 1;
    }

    /// Appends `v` `n` times.
    pub fn push_n(&mut self, v: bool, n: usize) {
        if !v {
            // Bits past the end are clear.
            self.len += n;
            self.words.resize(self.len.div_ceil(64), 0);
            return;
        }
        let mut left = n;
        while left > 0 {
            let bit = self.len % 64;
            if bit == 0 {
                self.words.push(0);
            }
            let take = left.min(64 - bit);
            let ones = if take == 64 {
                u64::MAX
            } else {
                ((1u64 << take) - 1) << bit
            };
            if let Some(w) = self.words.last_mut() {
                *w |= ones;
            }
            self.len += take;
            left -= take;
        }
    }

    /// Appends one bit per item of `bits`.
    #[inline]
    pub fn extend(&mut self, bits: impl IntoIterator<Item = bool>) {
        for b in bits {
            self.push(b);
        }
    }

    fn finish(self) -> BooleanBuffer {
        BooleanBuffer::new(Buffer::from_vec(self.words), 0, self.len)
    }
}

/// A nullable or non-null `Int32` column.
#[derive(Debug, Default)]
pub struct I32Col {
    pub values: Vec<i32>,
    /// One flag per value; empty for a non-null column.
    pub valid: Bits,
    nullable: bool,
}

impl I32Col {
    /// Appends `v` (`None`: null).
    #[inline]
    pub fn push(&mut self, v: Option<i32>) {
        self.values.push(v.unwrap_or(0));
        if self.nullable {
            self.valid.push(v.is_some());
        }
    }

    /// Appends a value that is never null.
    #[inline]
    pub fn push_value(&mut self, v: i32) {
        self.values.push(v);
        if self.nullable {
            self.valid.push(true);
        }
    }
}

/// A nullable or non-null `Float64` column.
#[derive(Debug, Default)]
pub struct F64Col {
    pub values: Vec<f64>,
    /// One flag per value; empty for a non-null column.
    pub valid: Bits,
    nullable: bool,
}

impl F64Col {
    /// Appends `v` (`None`: null).
    #[inline]
    pub fn push(&mut self, v: Option<f64>) {
        self.values.push(v.unwrap_or(0.0));
        if self.nullable {
            self.valid.push(v.is_some());
        }
    }
}

/// A `Boolean` column.
#[derive(Debug, Default)]
pub struct BoolCol {
    values: Bits,
    valid: Bits,
    nullable: bool,
}

impl BoolCol {
    /// Appends `v`, never null, `n` times.
    #[inline]
    pub fn extend_value(&mut self, v: bool, n: usize) {
        self.values.push_n(v, n);
        if self.nullable {
            self.valid.push_n(true, n);
        }
    }
}

/// Text stored once per batch: keys into the batch's dictionary.
#[derive(Debug, Default)]
pub struct DictCol {
    keys: Vec<i32>,
    valid: Bits,
    nullable: bool,
    /// The batch's values, by key.
    values: Vec<Arc<str>>,
    index: HashMap<Arc<str>, i32>,
    /// Keys of static text by its address and length ([`DictCol::push_static`]).
    statics: Vec<(usize, usize, i32)>,
}

impl DictCol {
    /// The key of `s` in this batch's dictionary (added if new).
    pub fn key(&mut self, s: &str) -> i32 {
        if let Some(&k) = self.index.get(s) {
            return k;
        }
        self.key_of_new(s.into())
    }

    /// The key of `s`, which the caller holds as shared text.
    pub fn key_arc(&mut self, s: &Arc<str>) -> i32 {
        if let Some(&k) = self.index.get(s) {
            return k;
        }
        self.key_of_new(s.clone())
    }

    fn key_of_new(&mut self, s: Arc<str>) -> i32 {
        let k = i32::try_from(self.values.len()).expect("a batch's dictionary fits i32 keys");
        self.values.push(s.clone());
        self.index.insert(s, k);
        k
    }

    /// Appends a key from [`DictCol::key`] (`None`: null).
    #[inline]
    pub fn push_key(&mut self, k: Option<i32>) {
        self.keys.push(k.unwrap_or(0));
        if self.nullable {
            self.valid.push(k.is_some());
        }
    }

    /// Appends static text `s` (`None`: null): code names, team names, a
    /// handful of values repeated row after row, whose keys are looked up
    /// by the text's address (without hashing the text; two copies of the
    /// same text still get one key).
    #[inline]
    pub fn push_static(&mut self, s: Option<&'static str>) {
        let k = s.map(|s| {
            let (at, len) = (s.as_ptr() as usize, s.len());
            match self.statics.iter().find(|e| e.0 == at && e.1 == len) {
                Some(e) => e.2,
                None => {
                    let k = self.key(s);
                    if self.statics.len() < 64 {
                        self.statics.push((at, len, k));
                    }
                    k
                }
            }
        });
        self.push_key(k);
    }

    /// Appends `s` (`None`: null).
    pub fn push(&mut self, s: Option<&str>) {
        let k = s.map(|s| self.key(s));
        self.push_key(k);
    }
}

/// Free text (each value stored as it is).
#[derive(Debug, Default)]
pub struct StrCol {
    offsets: Vec<i32>,
    bytes: Vec<u8>,
    valid: Bits,
    nullable: bool,
}

impl StrCol {
    fn push(&mut self, s: Option<&str>) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        if let Some(s) = s {
            self.bytes.extend_from_slice(s.as_bytes());
        }
        let end = i32::try_from(self.bytes.len()).expect("a batch's text fits i32 offsets");
        self.offsets.push(end);
        if self.nullable {
            self.valid.push(s.is_some());
        }
    }
}

/// The buffer of one column.
#[derive(Debug)]
pub enum Col {
    I32(I32Col),
    F64(F64Col),
    Bool(BoolCol),
    Dict(DictCol),
    Str(StrCol),
    /// One value for every row of the batch (the demo path), stored as a
    /// dictionary of one.
    Const(Option<Arc<str>>),
}

impl Col {
    fn for_type(ty: &DataType, nullable: bool) -> Col {
        match ty {
            DataType::Int32 => Col::I32(I32Col {
                nullable,
                ..I32Col::default()
            }),
            DataType::Float64 => Col::F64(F64Col {
                nullable,
                ..F64Col::default()
            }),
            DataType::Boolean => Col::Bool(BoolCol {
                nullable,
                ..BoolCol::default()
            }),
            DataType::Dictionary(..) => Col::Dict(DictCol {
                nullable,
                ..DictCol::default()
            }),
            DataType::Utf8 => Col::Str(StrCol {
                nullable,
                ..StrCol::default()
            }),
            t => unreachable!("no column buffer for {t}"),
        }
    }

    /// An empty buffer of the same type, with room for `rows` rows.
    fn fresh(&self, rows: usize) -> Col {
        match self {
            Col::I32(c) => Col::I32(I32Col {
                values: Vec::with_capacity(rows),
                valid: Bits::with_capacity(if c.nullable { rows } else { 0 }),
                nullable: c.nullable,
            }),
            Col::F64(c) => Col::F64(F64Col {
                values: Vec::with_capacity(rows),
                valid: Bits::with_capacity(if c.nullable { rows } else { 0 }),
                nullable: c.nullable,
            }),
            Col::Bool(c) => Col::Bool(BoolCol {
                nullable: c.nullable,
                ..BoolCol::default()
            }),
            Col::Dict(c) => Col::Dict(DictCol {
                keys: Vec::with_capacity(rows),
                valid: Bits::with_capacity(if c.nullable { rows } else { 0 }),
                nullable: c.nullable,
                ..DictCol::default()
            }),
            Col::Str(c) => Col::Str(StrCol {
                nullable: c.nullable,
                ..StrCol::default()
            }),
            Col::Const(v) => Col::Const(v.clone()),
        }
    }
}

fn nulls(valid: Bits) -> Option<NullBuffer> {
    let bits = valid.finish();
    if bits.count_set_bits() == bits.len() {
        return None;
    }
    Some(NullBuffer::new(bits))
}

impl Col {
    fn into_array(self, rows: usize) -> ArrayRef {
        match self {
            Col::I32(c) => Arc::new(Int32Array::new(
                ScalarBuffer::from(c.values),
                nulls(c.valid),
            )),
            Col::F64(c) => Arc::new(Float64Array::new(
                ScalarBuffer::from(c.values),
                nulls(c.valid),
            )),
            Col::Bool(c) => Arc::new(BooleanArray::new(c.values.finish(), nulls(c.valid))),
            Col::Dict(c) => {
                let keys = Int32Array::new(ScalarBuffer::from(c.keys), nulls(c.valid));
                let values: StringArray = c.values.iter().map(|v| Some(&**v)).collect();
                Arc::new(DictionaryArray::<Int32Type>::new(keys, Arc::new(values)))
            }
            Col::Str(mut c) => {
                if c.offsets.is_empty() {
                    c.offsets.push(0);
                }
                Arc::new(StringArray::new(
                    OffsetBuffer::new(ScalarBuffer::from(c.offsets)),
                    c.bytes.into(),
                    nulls(c.valid),
                ))
            }
            Col::Const(v) => {
                let keys = Int32Array::new(ScalarBuffer::from(vec![0; rows]), None);
                let values = StringArray::from(vec![v.as_deref().unwrap_or("")]);
                Arc::new(DictionaryArray::<Int32Type>::new(keys, Arc::new(values)))
            }
        }
    }
}

/// The column buffers of one table (see the module docs).
#[derive(Debug)]
pub struct Columns {
    schema: SchemaRef,
    cols: Vec<Col>,
    rows: usize,
}

impl Columns {
    /// Empty buffers for the columns of `schema`; column `const_col` (the
    /// demo path) holds `value` in every row.
    pub fn new(schema: SchemaRef, const_col: usize, value: &str) -> Columns {
        let cols = schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                if i == const_col {
                    Col::Const(Some(value.into()))
                } else {
                    Col::for_type(f.data_type(), f.is_nullable())
                }
            })
            .collect();
        Columns {
            schema,
            cols,
            rows: 0,
        }
    }

    /// Makes column `col` (text) hold `value` in every row, as the
    /// constant column of [`Columns::new`] (rows skip it too).
    pub fn set_const(&mut self, col: usize, value: &str) {
        self.cols[col] = Col::Const(Some(value.into()));
    }

    /// Rows appended since the last [`Columns::take_batch`].
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Counts `n` rows that the caller appended column by column (every
    /// column but the constant one gets exactly `n` values).
    pub fn add_rows(&mut self, n: usize) {
        self.rows += n;
    }

    /// The integer column `i`.
    #[inline]
    pub fn i32(&mut self, i: usize) -> &mut I32Col {
        match &mut self.cols[i] {
            Col::I32(c) => c,
            c => unreachable!("column {i} is not Int32: {c:?}"),
        }
    }

    /// The float column `i`.
    #[inline]
    pub fn f64(&mut self, i: usize) -> &mut F64Col {
        match &mut self.cols[i] {
            Col::F64(c) => c,
            c => unreachable!("column {i} is not Float64: {c:?}"),
        }
    }

    /// The Boolean column `i`.
    #[inline]
    pub fn bool(&mut self, i: usize) -> &mut BoolCol {
        match &mut self.cols[i] {
            Col::Bool(c) => c,
            c => unreachable!("column {i} is not Boolean: {c:?}"),
        }
    }

    /// The dictionary column `i`.
    #[inline]
    pub fn dict(&mut self, i: usize) -> &mut DictCol {
        match &mut self.cols[i] {
            Col::Dict(c) => c,
            c => unreachable!("column {i} is not a dictionary: {c:?}"),
        }
    }

    /// Starts a row; its values follow in column order, the constant
    /// column skipped (checked when the row ends).
    pub fn row(&mut self) -> Row<'_> {
        Row { cols: self, at: 0 }
    }

    /// The rows so far as a record batch; the buffers start empty again.
    pub fn take_batch(&mut self) -> RecordBatch {
        let rows = std::mem::take(&mut self.rows);
        let columns: Vec<ArrayRef> = self
            .cols
            .iter_mut()
            .map(|c| {
                let fresh = c.fresh(rows);
                std::mem::replace(c, fresh).into_array(rows)
            })
            .collect();
        RecordBatch::try_new(self.schema.clone(), columns)
            .expect("every column has a value in every row")
    }
}

/// One row being appended through [`Columns::row`], value after value.
pub struct Row<'a> {
    cols: &'a mut Columns,
    at: usize,
}

impl Row<'_> {
    fn next(&mut self) -> &mut Col {
        while matches!(self.cols.cols.get(self.at), Some(Col::Const(_))) {
            self.at += 1;
        }
        let i = self.at;
        self.at += 1;
        &mut self.cols.cols[i]
    }

    /// An integer (`None`: null).
    pub fn i32(mut self, v: Option<i32>) -> Self {
        match self.next() {
            Col::I32(c) => c.push(v),
            c => unreachable!("not Int32: {c:?}"),
        }
        self
    }

    /// A float (`None`: null).
    pub fn f64(mut self, v: Option<f64>) -> Self {
        match self.next() {
            Col::F64(c) => c.push(v),
            c => unreachable!("not Float64: {c:?}"),
        }
        self
    }

    /// A boolean (`None`: null).
    pub fn bool(mut self, v: Option<bool>) -> Self {
        match self.next() {
            Col::Bool(c) => {
                c.values.push(v.unwrap_or(false));
                if c.nullable {
                    c.valid.push(v.is_some());
                }
            }
            c => unreachable!("not Boolean: {c:?}"),
        }
        self
    }

    /// Text (`None`: null), dictionary or plain as the column is.
    pub fn str(mut self, v: Option<&str>) -> Self {
        match self.next() {
            Col::Dict(c) => c.push(v),
            Col::Str(c) => c.push(v),
            c => unreachable!("not text: {c:?}"),
        }
        self
    }

    /// Ends the row (every column has its value).
    pub fn end(mut self) {
        while matches!(self.cols.cols.get(self.at), Some(Col::Const(_))) {
            self.at += 1;
        }
        assert_eq!(self.at, self.cols.cols.len(), "a row has every column");
        self.cols.rows += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use arrow_array::Array;
    use arrow_schema::{Field, Schema};

    fn dict() -> DataType {
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
    }

    #[test]
    fn rows_become_typed_arrays() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("demo", dict(), false),
            Field::new("tick", DataType::Int32, false),
            Field::new("name", dict(), true),
            Field::new("ok", DataType::Boolean, true),
            Field::new("text", DataType::Utf8, true),
        ]));
        let mut c = Columns::new(schema, 0, "a.demo");
        c.row()
            .i32(Some(5))
            .str(Some("x"))
            .bool(Some(true))
            .str(Some("hé"))
            .end();
        c.row().i32(Some(6)).str(None).bool(None).str(None).end();
        c.row()
            .i32(Some(7))
            .str(Some("x"))
            .bool(Some(false))
            .str(Some(""))
            .end();
        assert_eq!(c.len(), 3);
        let b = c.take_batch();
        assert!(c.is_empty());
        assert_eq!(b.num_rows(), 3);
        let demo = b.column(0).as_dictionary::<Int32Type>();
        assert_eq!(demo.values().as_string::<i32>().value(0), "a.demo");
        assert_eq!(demo.keys().values().to_vec(), vec![0, 0, 0]);
        let tick = b.column(1).as_primitive::<Int32Type>();
        assert_eq!(tick.values().to_vec(), vec![5, 6, 7]);
        assert_eq!(tick.null_count(), 0);
        let name = b.column(2).as_dictionary::<Int32Type>();
        assert_eq!(name.values().len(), 1, "x is stored once");
        assert!(name.is_null(1) && name.is_valid(0) && name.is_valid(2));
        let ok = b.column(3).as_boolean();
        assert!(ok.value(0) && ok.is_null(1) && !ok.value(2));
        let text = b.column(4).as_string::<i32>();
        assert_eq!(
            (text.value(0), text.is_null(1), text.value(2)),
            ("hé", true, "")
        );
        // The next batch starts empty, with its own dictionary.
        c.row()
            .i32(Some(8))
            .str(Some("y"))
            .bool(None)
            .str(None)
            .end();
        let b = c.take_batch();
        let name = b.column(2).as_dictionary::<Int32Type>();
        assert_eq!(name.values().as_string::<i32>().value(0), "y");
        assert_eq!(name.values().len(), 1);
    }

    /// A bitmap appended bit by bit and in runs (across word bounds)
    /// holds the bits of the same appends to a `Vec<bool>`.
    #[test]
    fn bits_equal_a_vec_of_bools() {
        let mut bits = Bits::default();
        let mut want = Vec::new();
        let mut seed = 7u32;
        for step in 0..400 {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let v = seed >> 16 & 1 == 1;
            if step % 3 == 0 {
                let n = (seed >> 20) as usize % 150;
                bits.push_n(v, n);
                want.extend(std::iter::repeat_n(v, n));
            } else {
                bits.push(v);
                want.push(v);
            }
            assert_eq!(bits.len(), want.len());
        }
        let got: Vec<bool> = bits.finish().iter().collect();
        assert_eq!(got, want);
    }

    #[test]
    #[should_panic(expected = "a row has every column")]
    fn a_short_row_is_a_bug() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("demo", dict(), false),
            Field::new("tick", DataType::Int32, false),
            Field::new("x", DataType::Int32, true),
        ]));
        let mut c = Columns::new(schema, 0, "d");
        c.row().i32(Some(1)).end();
    }
}
