//! Where the tables of a `demos export` run go: one file per table in
//! `--out DIR`, or the one `-o` file (or stdout), and their writers.

use crate::batch::output::{self, Commit};
use crate::batch::tables::{Format, TableWriter};
use crate::demo::export::TableSet;
use std::io;
use std::path::{Path, PathBuf};

/// Where each table of `tables` goes: `DIR/<table>.<ext>` in `out_dir`
/// (`--tables ... --out DIR`), else the one `output` (`-o`; `None`:
/// stdout). In [`TableSet::iter`] order.
pub fn table_files(
    tables: TableSet,
    format: Format,
    out_dir: Option<&Path>,
    output: Option<&Path>,
) -> Vec<Option<PathBuf>> {
    match out_dir {
        Some(dir) => tables
            .iter()
            .map(|t| Some(dir.join(format!("{}.{}", t.name(), format.extension()))))
            .collect(),
        None => vec![output.map(Path::to_path_buf)],
    }
}

/// One table's writer and what makes its file visible.
pub type TableOutput = (Box<dyn TableWriter>, Commit);

/// A writer of `format` for each table of `tables`, to its file of
/// `files` ([`table_files`]; `None`: stdout), each written whole when its
/// [`Commit`] is committed. Parquet refuses a terminal.
pub fn open_table_writers(
    tables: TableSet,
    format: Format,
    files: &[Option<PathBuf>],
) -> io::Result<Vec<TableOutput>> {
    tables
        .iter()
        .zip(files)
        .map(|(t, file)| {
            let (out, commit) = match format {
                Format::Parquet => output::open_binary(file.as_deref(), "--format parquet")?,
                _ => output::open(file.as_deref())?,
            };
            Ok((
                crate::batch::tables::writer(format, &t.schema(), Box::new(out))?,
                commit,
            ))
        })
        .collect()
}
