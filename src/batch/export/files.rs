//! Where the tables of a `demos export` run go: one file per table in
//! `--out DIR`, or the one `-o` file (or stdout), planned before anything
//! is read ([`TableFiles`]), then opened, written by one run and made
//! visible ([`TableOutputs`]).

use super::{run_tables, ExportOptions, ExportTotals};
use crate::batch::output::{self, Commit};
use crate::batch::run::{Observer, RunOutcome, Selection};
use crate::batch::sink::RecordFormat;
use crate::batch::tables::TableWriter;
use crate::demo::export::TableSet;
use std::io;
use std::path::{Path, PathBuf};

/// The output files of a `demos export` run, from its arguments: what the
/// command line checks before reading any input ([`TableFiles::outputs`]),
/// the `--out` folder to create, and the writers to open.
#[derive(Clone, Debug)]
pub struct TableFiles {
    tables: TableSet,
    format: RecordFormat,
    /// `--out DIR`, when the tables go to one file each.
    out_dir: Option<PathBuf>,
    /// Per table of `tables` (in [`TableSet::iter`] order), its file, or
    /// the one `-o` file (`None`: stdout).
    files: Vec<Option<PathBuf>>,
}

impl TableFiles {
    /// The files of the tables of `tables` in `format`: `DIR/<table>.<ext>`
    /// in `out_dir` (`--tables ... --out DIR`), else the one `output`
    /// (`-o`; `None`: stdout).
    pub fn new(
        tables: TableSet,
        format: RecordFormat,
        out_dir: Option<&Path>,
        output: Option<&Path>,
    ) -> TableFiles {
        TableFiles {
            tables,
            format,
            out_dir: out_dir.map(Path::to_path_buf),
            files: table_files(tables, format, out_dir, output),
        }
    }

    /// The outputs as the command line names them, `(flag, path)` with
    /// `--out` or `-o` (`None`: stdout), in table order: what
    /// [`output::check_folders`] and [`output::check_run_outputs`] check
    /// before the inputs are read.
    pub fn outputs(&self) -> Vec<(&'static str, Option<&Path>)> {
        let flag = if self.out_dir.is_some() {
            "--out"
        } else {
            "-o"
        };
        self.files.iter().map(|f| (flag, f.as_deref())).collect()
    }

    /// Whether the rows go to stdout (no `--out`, and no `-o` or `-o -`).
    pub fn on_stdout(&self) -> bool {
        self.out_dir.is_none() && self.files.iter().all(|f| output::is_stdout(f.as_deref()))
    }

    /// Creates the `--out` folder (and its parents), if there is one.
    pub fn create_dir(&self) -> io::Result<()> {
        match &self.out_dir {
            Some(dir) => output::create_dir(dir),
            None => Ok(()),
        }
    }

    /// A writer of the format for each table, to its file (through a
    /// temporary file, renamed into place by [`TableOutputs::run`] when the
    /// run ends well) or stdout. Parquet refuses a terminal.
    pub fn open(&self) -> io::Result<TableOutputs> {
        let (writers, commits) = open_table_writers(self.tables, self.format, &self.files)?
            .into_iter()
            .unzip();
        Ok(TableOutputs {
            tables: self.tables,
            writers,
            commits,
        })
    }
}

/// The open writers of a run's tables ([`TableFiles::open`]), each with
/// what makes its file visible.
pub struct TableOutputs {
    /// The tables the writers are for, in order.
    tables: TableSet,
    writers: Vec<Box<dyn TableWriter>>,
    commits: Vec<Commit>,
}

impl TableOutputs {
    /// [`run_tables`] into these writers, then each file renamed into
    /// place, in table order. On an error the files not yet committed are
    /// removed, their targets left as they were. `opts.tables` other than
    /// the tables of the [`TableFiles`] opened is an `InvalidInput` error
    /// before anything is read (the rows would go to the wrong files).
    pub fn run(
        self,
        sel: &Selection,
        jobs: usize,
        opts: &ExportOptions,
        observer: &mut dyn Observer,
    ) -> io::Result<(RunOutcome, ExportTotals)> {
        let TableOutputs {
            tables,
            mut writers,
            commits,
        } = self;
        if opts.tables != tables {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the export options name other tables than the files opened",
            ));
        }
        let done = {
            let mut refs: Vec<&mut dyn TableWriter> =
                writers.iter_mut().map(|w| &mut **w as _).collect();
            run_tables(sel, jobs, opts, &mut refs, observer)?
        };
        drop(writers);
        for c in commits {
            c.commit()?;
        }
        Ok(done)
    }
}

/// Where each table of `tables` goes: `DIR/<table>.<ext>` in `out_dir`
/// (`--tables ... --out DIR`), else the one `output` (`-o`; `None`:
/// stdout). In [`TableSet::iter`] order.
fn table_files(
    tables: TableSet,
    format: RecordFormat,
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

/// A writer of `format` for each table of `tables`, to its file of
/// `files` ([`table_files`]; `None`: stdout), each written whole when its
/// [`Commit`] is committed. Parquet refuses a terminal.
fn open_table_writers(
    tables: TableSet,
    format: RecordFormat,
    files: &[Option<PathBuf>],
) -> io::Result<Vec<(Box<dyn TableWriter>, Commit)>> {
    tables
        .iter()
        .zip(files)
        .map(|(t, file)| {
            let (out, commit) = match format {
                RecordFormat::Parquet => output::open_binary(file.as_deref(), "--format parquet")?,
                _ => output::open(file.as_deref())?,
            };
            Ok((
                crate::batch::tables::writer(format, &t.schema(), Box::new(out))?,
                commit,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::export::Table;

    #[test]
    fn the_outputs_are_named_by_their_flag_in_table_order() {
        let mut set = TableSet::one(Table::Chat);
        set.insert(Table::Positions);
        let dir = Path::new("rows");
        let files = TableFiles::new(set, RecordFormat::Parquet, Some(dir), None);
        let want: Vec<PathBuf> = set
            .iter()
            .map(|t| dir.join(format!("{}.parquet", t.name())))
            .collect();
        assert_eq!(want.len(), 2);
        let got: Vec<(&str, Option<&Path>)> =
            want.iter().map(|p| ("--out", Some(p.as_path()))).collect();
        assert_eq!(files.outputs(), got);
        assert!(!files.on_stdout());

        let one = TableSet::one(Table::Chat);
        let files = TableFiles::new(one, RecordFormat::Csv, None, None);
        assert_eq!(files.outputs(), [("-o", None)]);
        assert!(files.on_stdout());
        let dash = Path::new("-");
        let files = TableFiles::new(one, RecordFormat::Jsonl, None, Some(dash));
        assert_eq!(files.outputs(), [("-o", Some(dash))]);
        assert!(files.on_stdout());
        let file = Path::new("chat.jsonl");
        let files = TableFiles::new(one, RecordFormat::Jsonl, None, Some(file));
        assert_eq!(files.outputs(), [("-o", Some(file))]);
        assert!(!files.on_stdout());
        // No folder to create without --out.
        files.create_dir().unwrap();
    }

    /// Options for other tables than the files opened are refused before
    /// anything is read, and no file is left behind.
    #[test]
    fn options_for_other_tables_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let chat = TableSet::one(Table::Chat);
        let files = TableFiles::new(chat, RecordFormat::Csv, Some(dir.path()), None);
        let outputs = files.open().unwrap();
        let opts = ExportOptions::for_tables(TableSet::one(Table::Positions));
        let sel = Selection::of(Vec::new());
        let e = outputs.run(&sel, 1, &opts, &mut ()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            e.to_string(),
            "the export options name other tables than the files opened"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
