//! The writers of `demos export` tables: Arrow record batches of a table's
//! schema ([`crate::demo::export::Table::schema`]) to CSV, JSON lines or
//! Parquet, through Apache Arrow's own crates (`arrow-csv`, `arrow-json`,
//! `parquet`'s `ArrowWriter`).
//!
//! The row formats are encoded by the export's workers, in parallel
//! ([`TableWriter::encoder`]); the writer only copies their bytes out in
//! order. Parquet takes the batches themselves.

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, StringArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{ArrowError, DataType, SchemaRef};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;
use std::io::{self, Write};

use super::sink::RecordFormat;

/// Takes record batches of one table, in order.
pub trait TableWriter {
    fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()>;
    /// An encoder that turns batches into this writer's bytes on another
    /// thread (row formats); `None` when the writer takes the batches
    /// themselves (Parquet).
    fn encoder(&self) -> Option<Box<dyn BatchEncoder + Send>> {
        None
    }
    /// Writes bytes made by one of [`TableWriter::encoder`]'s encoders, in
    /// place of the batch they encode.
    fn write_encoded(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Writes what is buffered and ends the file (a second call does
    /// nothing).
    fn finish(&mut self) -> io::Result<()>;
}

/// Encodes batches into the bytes a row-format writer would write.
pub trait BatchEncoder {
    fn encode(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> io::Result<()>;
}

fn arrow_io(e: ArrowError) -> io::Error {
    match e {
        ArrowError::IoError(_, e) => e,
        e => io::Error::other(e.to_string()),
    }
}

fn parquet_io(e: parquet::errors::ParquetError) -> io::Error {
    io::Error::other(format!("parquet: {e}"))
}

/// A writer of `format` for tables of `schema` on `out`.
pub fn writer<'w>(
    format: RecordFormat,
    schema: &SchemaRef,
    out: Box<dyn Write + Send + 'w>,
) -> io::Result<Box<dyn TableWriter + 'w>> {
    Ok(match format {
        RecordFormat::Csv => Box::new(RowWriter::csv(schema, out)?),
        RecordFormat::Jsonl => Box::new(RowWriter::jsonl(out)),
        RecordFormat::Parquet => Box::new(ParquetTableWriter::new(out, schema)?),
    })
}

/// CSV records without a header, through `arrow-csv`: integers in
/// decimal, booleans as `true`/`false`, null as an empty field, text
/// quoted where needed (the `csv` crate's rules). The reference of
/// [`FastCsvEncoder`], which writes the same bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct CsvEncoder;

impl BatchEncoder for CsvEncoder {
    fn encode(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> io::Result<()> {
        let mut w = arrow_csv::WriterBuilder::new()
            .with_header(false)
            .build(out);
        w.write(batch).map_err(arrow_io)
    }
}

/// JSON lines through `arrow-json`: one object per row with every column
/// in schema order, null as `null`. The reference of
/// [`FastJsonlEncoder`], which writes the same bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsonlEncoder;

impl BatchEncoder for JsonlEncoder {
    fn encode(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> io::Result<()> {
        let mut w = arrow_json::WriterBuilder::new()
            .with_explicit_nulls(true)
            .build::<_, arrow_json::writer::LineDelimited>(out);
        w.write(batch).map_err(arrow_io)?;
        w.finish().map_err(arrow_io)
    }
}

/// How a row format writes a float: `arrow-csv` by `ryu` (`NaN`, `inf`
/// as `ryu` spells them), `arrow-json` by `lexical-core` (not finite:
/// `null`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FloatText {
    Ryu,
    Lexical,
}

/// The most bytes `lexical-core` writes for an `f64`.
const LEXICAL_F64: usize = <f64 as lexical_core::FormattedSize>::FORMATTED_SIZE;

/// Room for a float's text: the most either writer writes for an `f64`
/// (`ryu`: 24 bytes), so a float's text is never cut.
const FLOAT_TEXT: usize = if LEXICAL_F64 > 24 { LEXICAL_F64 } else { 24 };

impl FloatText {
    /// The text of `v`, with its length; `None` for a value written as
    /// null.
    fn text(self, v: f64) -> Option<([u8; FLOAT_TEXT], usize)> {
        let mut t = [0u8; FLOAT_TEXT];
        let n = match self {
            FloatText::Ryu => {
                let mut b = ryu::Buffer::new();
                let s = b.format(v).as_bytes();
                t[..s.len()].copy_from_slice(s);
                s.len()
            }
            FloatText::Lexical => {
                if !v.is_finite() {
                    return None;
                }
                let mut buf = [0u8; LEXICAL_F64];
                let s = lexical_core::write(v, &mut buf);
                t[..s.len()].copy_from_slice(s);
                s.len()
            }
        };
        Some((t, n))
    }
}

/// Bytes a cell write may touch past its end: a piece of text of up to
/// `WINDOW` bytes is copied as a whole window (a fixed-size copy, no call
/// to `memcpy`), the bytes after its end are overwritten by what follows.
const WINDOW: usize = 32;

/// Short pieces of text (dictionary values, JSON keys, `true`, `null`)
/// in one buffer, each followed by at least [`WINDOW`] readable bytes, so
/// that one of up to `WINDOW` bytes is copied as a fixed-size window.
#[derive(Default)]
struct Pieces {
    bytes: Vec<u8>,
    /// `(start, len)` of each piece.
    at: Vec<(usize, usize)>,
}

impl Pieces {
    /// Adds a piece written by `f`; its index.
    fn add(&mut self, f: impl FnOnce(&mut Vec<u8>)) -> usize {
        // Drop the padding of the piece before.
        if let Some(&(s, l)) = self.at.last() {
            self.bytes.truncate(s + l);
        }
        let start = self.bytes.len();
        f(&mut self.bytes);
        self.at.push((start, self.bytes.len() - start));
        self.bytes.resize(self.bytes.len() + WINDOW, 0);
        self.at.len() - 1
    }

    fn add_bytes(&mut self, b: &[u8]) -> usize {
        self.add(|out| out.extend_from_slice(b))
    }

    /// Writes piece `i` at `pos` of `out` (which has room for it and
    /// [`WINDOW`] bytes more); the position after it.
    #[inline(always)]
    fn put(&self, i: usize, out: &mut [u8], pos: usize) -> usize {
        let (s, l) = self.at[i];
        if l <= WINDOW {
            out[pos..pos + WINDOW].copy_from_slice(&self.bytes[s..s + WINDOW]);
        } else {
            out[pos..pos + l].copy_from_slice(&self.bytes[s..s + l]);
        }
        pos + l
    }
}

/// Two decimal digits of each number below 100.
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Writes `v` in decimal (as `itoa`) at the start of `w`; its length (at
/// most 11).
#[inline(always)]
fn write_i32(v: i32, w: &mut [u8; 16]) -> usize {
    let mut n = v.unsigned_abs();
    w[0] = b'-';
    let len = usize::from(v < 0) + (n | 1).ilog10() as usize + 1;
    let mut i = len;
    while n >= 100 {
        let d = (n % 100) as usize * 2;
        n /= 100;
        i -= 2;
        w[i..i + 2].copy_from_slice(&DIGIT_PAIRS[d..d + 2]);
    }
    if n >= 10 {
        let d = n as usize * 2;
        w[i - 2..i].copy_from_slice(&DIGIT_PAIRS[d..d + 2]);
    } else {
        w[i - 1] = b'0' + n as u8;
    }
    len
}

/// The row formats the columnar encoders write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowFormat {
    Csv,
    Jsonl,
}

impl RowFormat {
    /// How a text value is written (quoted, escaped).
    fn text(self) -> fn(&str, &mut Vec<u8>) {
        match self {
            RowFormat::Csv => csv_field,
            RowFormat::Jsonl => json_str,
        }
    }

    fn floats(self) -> FloatText {
        match self {
            RowFormat::Csv => FloatText::Ryu,
            RowFormat::Jsonl => FloatText::Lexical,
        }
    }
}

/// The text of the last float a column wrote: a column's floats repeat
/// (`time_s` is that of the row's tick), so each is formatted once per
/// run of equal values.
struct LastFloat {
    bits: u64,
    /// `None`: the value is written as null.
    text: Option<([u8; FLOAT_TEXT], usize)>,
}

/// One column of a batch as the row encoders read it.
enum Cells<'a> {
    I32(&'a [i32], Option<&'a NullBuffer>),
    F64(
        &'a [f64],
        Option<&'a NullBuffer>,
        FloatText,
        Option<LastFloat>,
    ),
    Bool(&'a BooleanArray),
    /// Dictionary text: keys, and each dictionary value already encoded
    /// (piece `first + key`).
    Dict {
        keys: &'a [i32],
        nulls: Option<&'a NullBuffer>,
        first: usize,
        longest: usize,
    },
    Str(&'a StringArray),
}

/// The pieces every batch has.
const TRUE: usize = 0;
const FALSE: usize = 1;
const NULL: usize = 2;

impl<'a> Cells<'a> {
    /// The cells of `col`; dictionary values are encoded into `pieces`
    /// with `enc` (once per batch), floats as `floats` says.
    fn of(
        col: &'a ArrayRef,
        pieces: &mut Pieces,
        enc: fn(&str, &mut Vec<u8>),
        floats: FloatText,
    ) -> io::Result<Cells<'a>> {
        Ok(match col.data_type() {
            DataType::Int32 => {
                let a = col.as_primitive::<Int32Type>();
                Cells::I32(a.values(), a.nulls())
            }
            DataType::Float64 => {
                let a = col.as_primitive::<Float64Type>();
                Cells::F64(a.values(), a.nulls(), floats, None)
            }
            DataType::Boolean => Cells::Bool(col.as_boolean()),
            DataType::Utf8 => Cells::Str(col.as_string::<i32>()),
            DataType::Dictionary(k, v) if **k == DataType::Int32 && **v == DataType::Utf8 => {
                let d = col.as_dictionary::<Int32Type>();
                let values = d.values().as_string::<i32>();
                let first = pieces.at.len();
                let mut longest = 0;
                for i in 0..values.len() {
                    let p = pieces.add(|out| enc(values.value(i), out));
                    longest = longest.max(pieces.at[p].1);
                }
                Cells::Dict {
                    keys: d.keys().values(),
                    nulls: d.nulls(),
                    first,
                    longest,
                }
            }
            t => return Err(io::Error::other(format!("no row encoding for {t}"))),
        })
    }

    /// The most bytes a cell of this column takes, free text aside (and
    /// the null piece, `null_len`).
    fn widest(&self, null_len: usize) -> usize {
        let w = match self {
            Cells::I32(..) => 11,
            Cells::F64(..) => FLOAT_TEXT,
            Cells::Bool(_) => 5,
            Cells::Dict { longest, .. } => *longest,
            Cells::Str(_) => 0,
        };
        w.max(null_len)
    }
}

/// Rows encoded at a time: a tile's values are read column by column
/// first ([`touch`]), so that the row-by-row pass finds them in the cache
/// (read row by row, the cells of 40 columns are 40 streams of memory the
/// hardware prefetcher does not follow: the loads stalled for 30 % of the
/// CSV encoder's time, `perf annotate`).
const TILE: usize = 128;

/// Reads the values of rows `from..to` of every column, column by column
/// (a sum, so that the reads are not optimised away).
fn touch(cells: &[Cells<'_>], from: usize, to: usize) -> u32 {
    let mut sum = 0u32;
    for c in cells {
        sum = sum.wrapping_add(match c {
            Cells::I32(v, _) | Cells::Dict { keys: v, .. } => {
                (v[from..to].iter()).fold(0u32, |a, &x| a.wrapping_add(x as u32))
            }
            Cells::F64(v, ..) => {
                (v[from..to].iter()).fold(0u32, |a, &x| a.wrapping_add(x.to_bits() as u32))
            }
            Cells::Bool(_) | Cells::Str(_) => 0,
        });
    }
    sum
}

/// Makes `out` at least `need` bytes long (zeros), with room for about
/// `rows_left` more rows of `per_row` bytes, so that it grows a few times
/// per batch.
#[cold]
fn grow(out: &mut Vec<u8>, need: usize, rows_left: usize, per_row: usize) {
    let want = need.saturating_add(rows_left.saturating_mul(per_row) / 8 * 9);
    out.resize(want.max(need), 0);
}

/// Writes the rows of `batch` as `format`, row after row, each cell
/// formatted straight into `out` (see [`FastCsvEncoder`]).
fn encode_rows(batch: &RecordBatch, out: &mut Vec<u8>, format: RowFormat) -> io::Result<()> {
    let enc = format.text();
    let mut pieces = Pieces::default();
    pieces.add_bytes(b"true");
    pieces.add_bytes(b"false");
    pieces.add_bytes(match format {
        RowFormat::Csv => b"",
        RowFormat::Jsonl => b"null",
    });
    // What comes before each cell: `,` (CSV, not the first), `{"name":`
    // or `,"name":` (JSON lines).
    let schema = batch.schema();
    let seps: Vec<usize> = (schema.fields().iter().enumerate())
        .map(|(i, f)| match format {
            RowFormat::Csv => pieces.add_bytes(if i == 0 { b"" } else { b"," }),
            RowFormat::Jsonl => pieces.add(|k| {
                k.push(if i == 0 { b'{' } else { b',' });
                json_str(f.name(), k);
                k.push(b':');
            }),
        })
        .collect();
    let row_end = pieces.add_bytes(match format {
        RowFormat::Csv => b"\n",
        RowFormat::Jsonl => b"}\n",
    });
    let mut cells = batch
        .columns()
        .iter()
        .map(|c| Cells::of(c, &mut pieces, enc, format.floats()))
        .collect::<io::Result<Vec<_>>>()?;
    let null_len = pieces.at[NULL].1;
    // The most bytes of a row without its free text, and the window past
    // its end.
    let widest = cells.iter().map(|c| c.widest(null_len)).sum::<usize>()
        + seps.iter().map(|&s| pieces.at[s].1).sum::<usize>()
        + pieces.at[row_end].1
        + 2 * WINDOW;
    let rows = batch.num_rows();
    let base = out.len();
    let mut pos = base;
    let mut text = Vec::new();
    for r in 0..rows {
        if r % TILE == 0 {
            std::hint::black_box(touch(&cells, r, rows.min(r + TILE)));
        }
        if out.len() < pos + widest {
            // The first rows' size sets how much room the rest get.
            let (left, per_row) = match r {
                0 => (16, widest),
                _ => (rows - r, (pos - base) / r + 1),
            };
            grow(out, pos + widest, left, per_row);
        }
        for (c, &sep) in cells.iter_mut().zip(&seps) {
            pos = pieces.put(sep, out, pos);
            pos = match c {
                Cells::I32(v, nulls) => {
                    if nulls.is_some_and(|n| n.is_null(r)) {
                        pieces.put(NULL, out, pos)
                    } else {
                        let w: &mut [u8; 16] =
                            (&mut out[pos..pos + 16]).try_into().expect("16 bytes");
                        pos + write_i32(v[r], w)
                    }
                }
                Cells::F64(v, nulls, floats, last) => {
                    if nulls.is_some_and(|n| n.is_null(r)) {
                        pieces.put(NULL, out, pos)
                    } else {
                        let bits = v[r].to_bits();
                        let l = match last {
                            Some(l) if l.bits == bits => l,
                            _ => last.insert(LastFloat {
                                bits,
                                text: floats.text(v[r]),
                            }),
                        };
                        match &l.text {
                            Some((t, n)) => {
                                out[pos..pos + FLOAT_TEXT].copy_from_slice(t);
                                pos + n
                            }
                            None => pieces.put(NULL, out, pos),
                        }
                    }
                }
                Cells::Bool(a) => {
                    let p = if a.is_null(r) {
                        NULL
                    } else if a.value(r) {
                        TRUE
                    } else {
                        FALSE
                    };
                    pieces.put(p, out, pos)
                }
                Cells::Dict {
                    keys, nulls, first, ..
                } => {
                    if nulls.is_some_and(|n| n.is_null(r)) {
                        pieces.put(NULL, out, pos)
                    } else {
                        pieces.put(*first + keys[r] as usize, out, pos)
                    }
                }
                Cells::Str(a) => {
                    if a.is_null(r) {
                        pieces.put(NULL, out, pos)
                    } else {
                        text.clear();
                        enc(a.value(r), &mut text);
                        if out.len() < pos + text.len() + widest {
                            let per_row = (pos - base) / (r + 1) + 1 + text.len();
                            grow(out, pos + text.len() + widest, rows - r, per_row);
                        }
                        out[pos..pos + text.len()].copy_from_slice(&text);
                        pos + text.len()
                    }
                }
            };
        }
        pos = pieces.put(row_end, out, pos);
    }
    out.truncate(pos);
    Ok(())
}

/// CSV records without a header, the same bytes as [`CsvEncoder`]
/// (`arrow-csv`): row after row, each cell formatted straight into the
/// output from the typed arrays (integers in decimal as `itoa` writes
/// them, floats by `ryu` as `arrow-csv`, each once per run of equal
/// values), text quoted by `csv-core` with the `csv` crate's defaults
/// (each dictionary value once per batch).
#[derive(Clone, Copy, Debug, Default)]
pub struct FastCsvEncoder;

/// `s` as one CSV field: quoted (quotes doubled) only where the `csv`
/// crate's default writer quotes it.
fn csv_field(s: &str, out: &mut Vec<u8>) {
    // Alone, an empty field would be quoted (a record of one empty field
    // is `""`); in a record of several it is nothing.
    if s.is_empty() {
        return;
    }
    let mut w = csv_core::Writer::new();
    let start = out.len();
    out.resize(start + 2 * s.len() + 2, 0);
    let (_, _, n) = w.field(s.as_bytes(), &mut out[start..]);
    let (_, m) = w.finish(&mut out[start + n..]);
    out.truncate(start + n + m);
}

impl BatchEncoder for FastCsvEncoder {
    fn encode(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> io::Result<()> {
        encode_rows(batch, out, RowFormat::Csv)
    }
}

/// JSON lines, the same bytes as [`JsonlEncoder`] (`arrow-json`), written
/// as [`FastCsvEncoder`] writes CSV: keys and dictionary values
/// serialised by `serde_json` once per batch, free text by `serde_json`,
/// integers in decimal, floats by `lexical-core` (as `arrow-json`).
#[derive(Clone, Copy, Debug, Default)]
pub struct FastJsonlEncoder;

fn json_str(s: &str, out: &mut Vec<u8>) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

impl BatchEncoder for FastJsonlEncoder {
    fn encode(&mut self, batch: &RecordBatch, out: &mut Vec<u8>) -> io::Result<()> {
        encode_rows(batch, out, RowFormat::Jsonl)
    }
}

/// A row format (CSV, JSON lines) on a byte stream.
pub struct RowWriter<W: Write> {
    out: W,
    encoder: fn() -> Box<dyn BatchEncoder + Send>,
    buf: Vec<u8>,
}

impl<W: Write> RowWriter<W> {
    /// CSV, starting with the header line of `schema`'s column names.
    pub fn csv(schema: &SchemaRef, mut out: W) -> io::Result<RowWriter<W>> {
        let mut header = csv::Writer::from_writer(Vec::new());
        header
            .write_record(schema.fields().iter().map(|f| f.name()))
            .map_err(|e| io::Error::other(e.to_string()))?;
        out.write_all(&header.into_inner().map_err(|e| e.into_error())?)?;
        Ok(RowWriter {
            out,
            encoder: || Box::new(FastCsvEncoder),
            buf: Vec::new(),
        })
    }

    /// JSON lines.
    pub fn jsonl(out: W) -> RowWriter<W> {
        RowWriter {
            out,
            encoder: || Box::new(FastJsonlEncoder),
            buf: Vec::new(),
        }
    }
}

impl<W: Write> TableWriter for RowWriter<W> {
    fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()> {
        self.buf.clear();
        (self.encoder)().encode(batch, &mut self.buf)?;
        self.out.write_all(&self.buf)
    }

    fn encoder(&self) -> Option<Box<dyn BatchEncoder + Send>> {
        Some((self.encoder)())
    }

    fn write_encoded(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Rows per Parquet row group of a table (about a million: large enough
/// for column scans, a few tens of MB of encoded pages buffered).
pub const TABLE_ROW_GROUP_ROWS: usize = 1 << 20;

/// The Parquet settings of a table of `schema` (measured in
/// `docs/performance.md`, "Export tables"):
/// - Snappy pages, chunk statistics (min/max per row group) of the
///   number and free-text columns; none of the dictionary text columns
///   (computing them compared every row's text twice);
/// - `tick`, `demo_tick`: delta encoding (rows come by tick: small
///   deltas);
/// - number columns whose values rarely repeat ([`spread_out`]:
///   coordinates, velocities, angles, ticks, `time_s`): plain, no dictionary (a
///   dictionary would be built and given up on every page);
/// - every other column, text included: dictionary-encoded (the demo
///   path, names, kinds, flags and small counts repeat);
/// - no Arrow schema in the metadata: the dictionary text columns are
///   read as plain strings by every reader.
pub(crate) fn table_properties(schema: &SchemaRef) -> WriterProperties {
    let mut p = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(TABLE_ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::Chunk)
        .set_created_by(format!("teebatch {}", env!("CARGO_PKG_VERSION")));
    for f in schema.fields() {
        let path = ColumnPath::from(f.name().as_str());
        if matches!(f.data_type(), DataType::Dictionary(..)) {
            // The writer compares every row's text with the chunk's min
            // and max (the 64 bytes of `demo_sha256`, the demo path, ...):
            // 20 % of `positions`' CPU time for bounds of little use.
            p = p.set_column_statistics_enabled(path.clone(), EnabledStatistics::None);
        }
        if matches!(f.name().as_str(), "tick" | "demo_tick") {
            p = p
                .set_column_dictionary_enabled(path.clone(), false)
                .set_column_encoding(path, Encoding::DELTA_BINARY_PACKED);
        } else if spread_out(f.name())
            && matches!(f.data_type(), DataType::Int32 | DataType::Float64)
        {
            p = p.set_column_dictionary_enabled(path, false);
        } else {
            p = p.set_column_dictionary_enabled(path, true);
        }
    }
    p.build()
}

/// Integer columns whose values rarely repeat within a page (positions,
/// velocities, angles, ticks): a dictionary would grow to its limit and be
/// given up on every page, so they are written plain.
pub fn spread_out(name: &str) -> bool {
    matches!(
        name,
        "x" | "y" | "angle" | "freeze_end" | "freeze_start" | "time_s"
    ) || ["_x", "_y", "_dx", "_dy", "tick"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// A `demos export` table as a Parquet file: every batch is written as it
/// is; row groups close every [`TABLE_ROW_GROUP_ROWS`] rows.
pub struct ParquetTableWriter<W: Write + Send> {
    writer: Option<ArrowWriter<W>>,
}

impl<W: Write + Send> ParquetTableWriter<W> {
    pub fn new(out: W, schema: &SchemaRef) -> io::Result<Self> {
        let options = ArrowWriterOptions::new()
            .with_properties(table_properties(schema))
            .with_skip_arrow_metadata(true);
        let writer =
            ArrowWriter::try_new_with_options(out, schema.clone(), options).map_err(parquet_io)?;
        Ok(ParquetTableWriter {
            writer: Some(writer),
        })
    }
}

impl<W: Write + Send> TableWriter for ParquetTableWriter<W> {
    fn write_batch(&mut self, batch: &RecordBatch) -> io::Result<()> {
        if batch.num_rows() == 0 {
            return Ok(());
        }
        match &mut self.writer {
            Some(w) => w.write(batch).map_err(parquet_io),
            None => Err(io::Error::other("parquet: the table was already finished")),
        }
    }

    fn write_encoded(&mut self, _bytes: &[u8]) -> io::Result<()> {
        // `encoder()` is `None`: a columnar writer takes the batches.
        Err(io::Error::other(
            "parquet: a columnar writer takes record batches, not encoded bytes",
        ))
    }

    /// Writes the last row group and the footer (the file is complete; a
    /// second call does nothing).
    fn finish(&mut self) -> io::Result<()> {
        if let Some(w) = self.writer.take() {
            let mut out = w.into_inner().map_err(parquet_io)?;
            out.flush()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::export::columns::Columns;
    use crate::demo::export::readback::{read_csv, read_jsonl, read_parquet, rows, Value};
    use arrow_schema::{Field, Schema};
    use std::sync::Arc;

    fn schema() -> SchemaRef {
        let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        Arc::new(Schema::new(vec![
            Field::new("demo", dict.clone(), false),
            Field::new("tick", DataType::Int32, false),
            Field::new("c", DataType::Boolean, true),
            Field::new("d", dict, true),
            Field::new("e", DataType::Utf8, true),
        ]))
    }

    /// The three formats write the values of a batch, and read back the
    /// same rows; the text is that of the earlier row writers.
    #[test]
    fn csv_jsonl_and_parquet_round_trip() {
        let s = schema();
        let mut c = Columns::new(s.clone(), 0, "x.demo");
        c.row()
            .i32(Some(-7))
            .bool(Some(true))
            .str(Some("a,\"b\"\nc"))
            .str(Some("é\u{1}"))
            .end();
        c.row()
            .i32(Some(i32::MIN))
            .bool(None)
            .str(None)
            .str(None)
            .end();
        let b = c.take_batch();
        let want = rows(&b);
        assert_eq!(want[1][1], Value::I32(i32::MIN));

        let mut out = Vec::new();
        let mut w = writer(RecordFormat::Csv, &s, Box::new(&mut out)).unwrap();
        w.write_batch(&b).unwrap();
        w.finish().unwrap();
        drop(w);
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "demo,tick,c,d,e\nx.demo,-7,true,\"a,\"\"b\"\"\nc\",é\u{1}\nx.demo,-2147483648,,,\n"
        );
        assert_eq!(read_csv(&s, &out).unwrap(), want);

        let mut out = Vec::new();
        let mut w = writer(RecordFormat::Jsonl, &s, Box::new(&mut out)).unwrap();
        w.write_batch(&b).unwrap();
        w.finish().unwrap();
        drop(w);
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(
            text.lines().nth(1),
            Some(r#"{"demo":"x.demo","tick":-2147483648,"c":null,"d":null,"e":null}"#)
        );
        assert_eq!(
            text.lines().next(),
            Some(r#"{"demo":"x.demo","tick":-7,"c":true,"d":"a,\"b\"\nc","e":"é\u0001"}"#)
        );
        assert_eq!(read_jsonl(&s, &out).unwrap(), want);

        let mut out = Vec::new();
        let mut w = writer(RecordFormat::Parquet, &s, Box::new(&mut out)).unwrap();
        w.write_batch(&b).unwrap();
        w.finish().unwrap();
        drop(w);
        // The text columns are plain strings in the file.
        let pq = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            ::bytes::Bytes::from(out.clone()),
        )
        .unwrap();
        let file_schema = pq.schema().clone();
        assert_eq!(file_schema.field(0).data_type(), &DataType::Utf8);
        assert_eq!(file_schema.field(3).data_type(), &DataType::Utf8);
        assert_eq!(read_parquet(&s, out).unwrap(), want);
    }

    /// Floats: `time_s` values (ticks / 50, of every size and sign) and
    /// any `f64` (non-finite, subnormal, huge, exponents).
    fn float() -> impl Strategy<Value = f64> {
        prop_oneof![
            any::<i32>().prop_map(|t| f64::from(t) / 50.0),
            (0i32..1_000_000).prop_map(|t| f64::from(t) / 50.0),
            any::<f64>(),
            Just(0.0),
            Just(-0.0),
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(1e16),
            Just(1e-7),
        ]
    }

    /// Text that needs quoting or escaping, and text that does not.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{0,6}",
            "[,\"\r\n\\a\u{1}\u{7f}é€💥#=-]{0,8}",
            any::<String>(),
        ]
    }

    prop_compose! {
        /// A batch of random rows: every column type, nulls, and
        /// dictionary text (values repeat).
        fn batch()(
            rows in proptest::collection::vec(
                (
                    any::<i32>(),
                    proptest::option::of(any::<i32>()),
                    proptest::option::of(any::<bool>()),
                    proptest::option::of(0usize..4),
                    proptest::option::of(text()),
                    proptest::option::of(float()),
                ),
                0..40,
            ),
            names in proptest::collection::vec(text(), 4),
            demo in text(),
        ) -> RecordBatch {
            let s = schema_with_int();
            let mut c = Columns::new(s, 0, &demo);
            for (tick, x, b, name, t, f) in &rows {
                c.row()
                    .i32(Some(*tick))
                    .bool(*b)
                    .str(name.map(|k| names[k].as_str()))
                    .str(t.as_deref())
                    .i32(*x)
                    .f64(*f)
                    .end();
            }
            c.take_batch()
        }
    }

    fn schema_with_int() -> SchemaRef {
        let mut fields: Vec<Field> = schema().fields().iter().map(|f| (**f).clone()).collect();
        fields.push(Field::new("x", DataType::Int32, true));
        fields.push(Field::new("f", DataType::Float64, true));
        Arc::new(Schema::new(fields))
    }

    fn encode(enc: &mut dyn BatchEncoder, b: &RecordBatch) -> Vec<u8> {
        let mut out = Vec::new();
        enc.encode(b, &mut out).unwrap();
        out
    }

    use proptest::prelude::*;
    proptest! {
        /// The columnar encoders write exactly the bytes of Arrow's own
        /// writers (the reference), on every prefix of a random batch
        /// (every row count, so every tail).
        #[test]
        fn fast_row_encoders_equal_arrows(b in batch()) {
            for n in 0..=b.num_rows() {
                let part = b.slice(0, n);
                prop_assert_eq!(
                    String::from_utf8(encode(&mut FastCsvEncoder, &part)).unwrap(),
                    String::from_utf8(encode(&mut CsvEncoder, &part)).unwrap()
                );
                prop_assert_eq!(
                    String::from_utf8(encode(&mut FastJsonlEncoder, &part)).unwrap(),
                    String::from_utf8(encode(&mut JsonlEncoder, &part)).unwrap()
                );
            }
        }
    }
}
