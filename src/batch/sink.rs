//! Where the records of a run go: the [`RecordSink`] a run writes to,
//! [`RecordWriter`], the one sink for JSON lines, CSV and Parquet that
//! `maps index` and `demos index` share, and [`RecordFormat`], the one
//! format choice of those and of `demos export`'s tables.
//!
//! A caller that wants the records as values (the Python package) gives a
//! sink of its own; the command line gives a [`RecordWriter`] over stdout
//! or `-o FILE`.

#[cfg(feature = "parquet")]
use super::parquet::ParquetSink;
#[cfg(feature = "parquet")]
use arrow_schema::SchemaRef;
use serde::Serialize;
use std::io::{self, Write};

/// The formats records and tables are written in: one choice for `maps
/// index`, `demos index` and `demos export` (a command without a form in
/// one refuses it: demo records are nested and have no CSV form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum RecordFormat {
    /// One JSON object per line (JSON lines; `json` is the same); null is
    /// `null`.
    #[cfg_attr(feature = "cli", value(name = "jsonl", alias = "json"))]
    Jsonl,
    /// Comma-separated values with a header line (flat columns); null is
    /// an empty field.
    Csv,
    /// Apache Parquet, typed columns (needs `-o FILE`).
    Parquet,
}

impl RecordFormat {
    /// The file name extension of the format: `jsonl`, `csv`, `parquet`.
    pub fn extension(self) -> &'static str {
        match self {
            RecordFormat::Jsonl => "jsonl",
            RecordFormat::Csv => "csv",
            RecordFormat::Parquet => "parquet",
        }
    }
}

/// Takes the records of a run, one at a time and in input order. An error
/// (e.g. a closed pipe) stops the run; the run returns it.
pub trait RecordSink<R> {
    fn write(&mut self, record: &R) -> io::Result<()>;
}

/// Any closure over a record is a sink (e.g. one that collects them).
impl<R, F: FnMut(&R) -> io::Result<()>> RecordSink<R> for F {
    fn write(&mut self, record: &R) -> io::Result<()> {
        self(record)
    }
}

/// A record that has a flat CSV row (`maps index --format csv`).
pub trait CsvRecord {
    /// The row: one column per field, `None` as an empty cell. Its
    /// `Default` gives the header row's field names.
    type Row<'a>: Serialize + Default
    where
        Self: 'a;
    fn csv_row(&self) -> Self::Row<'_>;
}

/// Writes one JSON object and a newline, and flushes: each record reaches
/// the output as soon as it is complete. (Per record one `write` call; the
/// buffer still gathers the pieces of a record.) An I/O error keeps its
/// kind, so a closed pipe ends the run quietly.
pub fn write_json_line(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// A CSV error as an I/O error, keeping the kind of an underlying I/O
/// error (a closed pipe must stay recognisable).
fn csv_io_error(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

/// Records of type `R` on their way out to `W`, in one format; each is
/// flushed as soon as it is written.
pub struct RecordWriter<R, W: Write + Send> {
    inner: Inner<R, W>,
}

enum Inner<R, W: Write + Send> {
    Json(W),
    /// The writer, how a record becomes a row, the header row, and whether
    /// a row was written (the header comes with the first row, else at the
    /// end).
    Csv {
        w: Box<csv::Writer<W>>,
        row: RowFn<R, W>,
        header: fn() -> io::Result<csv::StringRecord>,
        wrote: bool,
    },
    #[cfg(feature = "parquet")]
    Parquet(Box<ParquetSink<W>>),
}

type RowFn<R, W> = fn(&mut csv::Writer<W>, &R) -> csv::Result<()>;

impl<R: Serialize, W: Write + Send> RecordWriter<R, W> {
    /// One JSON object per line.
    pub fn json(out: W) -> Self {
        RecordWriter {
            inner: Inner::Json(out),
        }
    }

    /// Apache Parquet of `schema` (the record's schema in
    /// [`super::parquet`]; cargo feature `parquet`).
    #[cfg(feature = "parquet")]
    pub fn parquet(out: W, schema: SchemaRef) -> io::Result<Self> {
        Ok(RecordWriter {
            inner: Inner::Parquet(Box::new(ParquetSink::new(out, schema)?)),
        })
    }

    /// Flushes what is buffered (a CSV header if no row was written, the
    /// Parquet footer) to the output, and gives the output back.
    pub fn finish(self) -> io::Result<W> {
        match self.inner {
            Inner::Json(mut out) => {
                out.flush()?;
                Ok(out)
            }
            Inner::Csv {
                mut w,
                header,
                wrote,
                ..
            } => {
                if !wrote {
                    w.write_record(&header()?).map_err(csv_io_error)?;
                }
                w.flush()?;
                w.into_inner().map_err(|e| e.into_error())
            }
            #[cfg(feature = "parquet")]
            Inner::Parquet(w) => {
                let mut out = w.finish()?;
                out.flush()?;
                Ok(out)
            }
        }
    }
}

/// Records to an output named on the command line (`None` or `-`:
/// stdout; see [`super::output::open`]): a sink whose file is put in
/// place whole by [`RecordFile::finish`], and left as it was on an error.
pub struct RecordFile<R> {
    writer: RecordWriter<R, super::output::RecordOut>,
    commit: super::output::Commit,
}

impl<R: Serialize> RecordFile<R> {
    /// The output `path` (for a `binary` format: named, see
    /// [`super::output::open_binary`]) and the `writer` over it.
    fn open(
        path: Option<&std::path::Path>,
        writer: impl FnOnce(
            super::output::RecordOut,
        ) -> io::Result<RecordWriter<R, super::output::RecordOut>>,
        binary: bool,
    ) -> io::Result<Self> {
        let (out, commit) = if binary {
            super::output::open_binary(path, "--format parquet")?
        } else {
            super::output::open(path)?
        };
        Ok(RecordFile {
            writer: writer(out)?,
            commit,
        })
    }

    /// JSON lines to `path`.
    pub fn json(path: Option<&std::path::Path>) -> io::Result<Self> {
        Self::open(path, |out| Ok(RecordWriter::json(out)), false)
    }

    /// Parquet of `schema` to `path`, which must be named (a binary
    /// format, see [`super::output::open_binary`]).
    #[cfg(feature = "parquet")]
    pub fn parquet(path: Option<&std::path::Path>, schema: SchemaRef) -> io::Result<Self> {
        Self::open(path, |out| RecordWriter::parquet(out, schema), true)
    }

    /// What `--format parquet` gives in a build without the `parquet`
    /// feature: an `InvalidInput` error.
    #[cfg(not(feature = "parquet"))]
    pub fn parquet_not_built() -> io::Result<Self> {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "--format parquet: teebatch was built without its `parquet` feature",
        ))
    }

    /// Ends the records (a CSV header if no row was written, the Parquet
    /// footer) and puts the file in place.
    pub fn finish(self) -> io::Result<()> {
        drop(self.writer.finish()?);
        self.commit.commit()
    }
}

impl<R: Serialize + CsvRecord> RecordFile<R> {
    /// CSV to `path`.
    pub fn csv(path: Option<&std::path::Path>) -> io::Result<Self> {
        Self::open(path, |out| Ok(RecordWriter::csv(out)), false)
    }
}

impl<R: Serialize> RecordSink<R> for RecordFile<R> {
    fn write(&mut self, record: &R) -> io::Result<()> {
        self.writer.write(record)
    }
}

impl<R: Serialize + CsvRecord, W: Write + Send> RecordWriter<R, W> {
    /// Comma-separated values with a header row (the record's
    /// [`CsvRecord::Row`]).
    pub fn csv(out: W) -> Self {
        RecordWriter {
            inner: Inner::Csv {
                w: Box::new(csv::Writer::from_writer(out)),
                row: |w, r| w.serialize(r.csv_row()),
                header: csv_header::<R>,
                wrote: false,
            },
        }
    }
}

impl<R: Serialize, W: Write + Send> RecordSink<R> for RecordWriter<R, W> {
    fn write(&mut self, r: &R) -> io::Result<()> {
        match &mut self.inner {
            Inner::Json(out) => write_json_line(out, r),
            Inner::Csv { w, row, wrote, .. } => {
                row(w, r).map_err(csv_io_error)?;
                *wrote = true;
                w.flush()
            }
            #[cfg(feature = "parquet")]
            Inner::Parquet(w) => w.write(r),
        }
    }
}

/// The CSV header row: the field names of `R`'s row, as `serialize`
/// writes them before the first row.
fn csv_header<R: CsvRecord>() -> io::Result<csv::StringRecord> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.serialize(R::Row::default()).map_err(csv_io_error)?;
    let bytes = w
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    let mut rd = csv::Reader::from_reader(bytes.as_slice());
    rd.headers().cloned().map_err(csv_io_error)
}
