//! The library run API (`batch::run`): each command's run called with plain
//! values, a sink and an observer of the caller's, as the Python package
//! will call it, gives what the command line prints.

use std::io;
use teebatch::batch::run::{Observer, Selection};
use teebatch::batch::sink::{RecordSink, RecordWriter};
use teebatch::batch::{demos, embedded, maps, render};

/// Counts the files an observer is told of.
#[derive(Default)]
struct Count {
    files: u64,
    bytes: u64,
}

impl Observer for Count {
    fn file_done(&mut self, bytes: u64, path: &dyn Fn() -> String) {
        assert!(!path().is_empty());
        self.files += 1;
        self.bytes += bytes;
    }
}

/// `maps index` over the embedded maps into a closure: one record per map
/// in input order, counted once (by the summary) and reported to the
/// observer; the outcome is the summary's.
#[test]
fn maps_index_run_into_a_closure() {
    let sel = Selection::of(embedded::map_inputs());
    let opts = maps::RunOptions {
        index: maps::IndexOptions::default(),
        jobs: Some(2),
        thumbnails: None,
    };
    let mut records = Vec::new();
    let mut count = Count::default();
    let run = maps::run(
        &sel,
        &opts,
        &mut |r: &maps::MapRecord| {
            records.push(r.clone());
            Ok(())
        },
        &mut count,
    )
    .unwrap();
    let paths: Vec<String> = sel.inputs.iter().map(|i| i.display_path()).collect();
    let got: Vec<String> = records.iter().map(|r| r.path.clone()).collect();
    assert_eq!(got, paths);
    let o = &run.index.outcome;
    assert_eq!(o.files, records.len() as u64);
    assert_eq!(
        o.failed,
        records.iter().filter(|r| r.error.is_some()).count() as u64
    );
    assert_eq!(o.ok + o.failed, o.files);
    assert_eq!(o.bytes, records.iter().map(|r| r.size).sum::<u64>());
    assert_eq!((count.files, count.bytes), (o.files, o.bytes));
    assert_eq!(run.index.summary.command, "maps index");
    assert!(!run.is_failure());
    assert!(run.thumbnail_failures.is_none());
    assert!(o
        .line()
        .starts_with(&format!("maps index: {} files (", o.files)));
}

/// The JSON lines and CSV a [`RecordWriter`] writes for `maps index` are
/// those of the command line.
#[test]
fn record_writer_gives_the_command_lines_bytes() {
    let sel = Selection::of(embedded::map_inputs());
    let opts = maps::RunOptions {
        index: maps::IndexOptions::default(),
        jobs: Some(1),
        thumbnails: None,
    };
    for (format, writer) in [
        ("json", RecordWriter::json(Vec::new())),
        ("csv", RecordWriter::csv(Vec::new())),
    ] {
        let mut w = writer;
        maps::run(&sel, &opts, &mut w, &mut ()).unwrap();
        let bytes = w.finish().unwrap();
        let cli = crate::common::teebatch(&["maps", "index", "-q", "--format", format]);
        assert_eq!(cli.status.code(), Some(0));
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            String::from_utf8(cli.stdout).unwrap(),
            "{format}"
        );
    }
}

/// A CSV of no record is the header row alone.
#[test]
fn csv_of_no_record_is_the_header() {
    let w = RecordWriter::<maps::MapRecord, Vec<u8>>::csv(Vec::new());
    let text = String::from_utf8(w.finish().unwrap()).unwrap();
    assert!(text.starts_with("path,name,size,crc32,sha256,"), "{text}");
    assert_eq!(text.lines().count(), 1);
}

/// A sink's error stops the run and is the run's error.
#[test]
fn a_sink_error_stops_the_run() {
    let sel = Selection::of(embedded::demo_inputs());
    let opts = demos::RunOptions {
        index: demos::IndexOptions::default(),
        jobs: Some(2),
    };
    let mut seen = 0;
    let mut sink = |_: &demos::DemoRecord| {
        seen += 1;
        Err(io::Error::new(io::ErrorKind::BrokenPipe, "gone"))
    };
    let sink: &mut dyn RecordSink<demos::DemoRecord> = &mut sink;
    let e = demos::run(&sel, &opts, sink, &mut ()).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
    assert_eq!(seen, 1);
}

/// `demos index` over nothing: the run fails (nothing found), as the
/// command line's exit code 1 says.
#[test]
fn a_run_over_nothing_fails() {
    let sel = Selection::of(Vec::new());
    let opts = demos::RunOptions {
        index: demos::IndexOptions::default(),
        jobs: None,
    };
    let run = demos::run(&sel, &opts, &mut |_: &demos::DemoRecord| Ok(()), &mut ()).unwrap();
    assert_eq!(run.outcome.files, 0);
    assert!(run.outcome.is_failure());
}

/// `maps render` draws each embedded map into the folder it is given and
/// counts the pictures as the records say.
#[test]
fn render_run_into_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let sel = Selection::of(embedded::map_inputs());
    let opts = render::RunOptions {
        picture: render::PictureOptions {
            render: teebatch::render::RenderOptions {
                style: teebatch::render::Style::Entities,
                size: teebatch::render::Size::MaxSide(64),
            },
            crop: teebatch::render::Crop::None,
            legend: true,
        },
        out: dir.path().to_path_buf(),
        textures: teebatch::render::Textures::locate(None).unwrap(),
        mmap: teebatch::batch::MmapMode::Never,
        jobs: Some(2),
        max_work: None,
    };
    let mut records = Vec::new();
    let run = render::run(
        &sel,
        &opts,
        &mut |r: &render::RenderRecord| {
            records.push(r.clone());
            Ok(())
        },
        &mut (),
    )
    .unwrap();
    // The digest counts the records' errors by kind.
    let failed = records.iter().filter(|r| r.error.is_some()).count() as u64;
    let counted: u64 = run.kinds.errors.values().map(|k| k.count).sum();
    assert_eq!(counted, failed);
    let outcome = run.outcome;
    assert_eq!(outcome.files, sel.inputs.len() as u64);
    assert_eq!(
        outcome.ok,
        records.iter().filter(|r| r.body.output.is_some()).count() as u64
    );
    for r in &records {
        if let Some(png) = &r.body.output {
            assert!(std::path::Path::new(png).starts_with(dir.path()));
            assert!(std::path::Path::new(png).is_file());
        }
    }
}

/// An observer that also keeps the paths it is told failed.
#[derive(Default)]
struct Failures {
    count: Count,
    failed: Vec<String>,
}

impl Observer for Failures {
    fn file_done(&mut self, bytes: u64, path: &dyn Fn() -> String) {
        self.count.file_done(bytes, path);
    }

    fn failed(&mut self, path: &str, _error: &teebatch::report::ErrorRecord) {
        self.failed.push(path.to_owned());
    }
}

/// `demos export` counts its demos in its outcome as the other runs count
/// their files: each demo once (split into segments or not, on one worker
/// or several), its bytes, and a demo that fails as failed; the observer
/// hears of the same files and of the failure once.
#[test]
fn export_run_counts_each_demo_once() {
    use teebatch::batch::export::{self, ExportOptions};
    use teebatch::batch::Input;
    let mut inputs = embedded::demo_inputs();
    let Input::Embedded { bytes, .. } = inputs[0] else {
        unreachable!("the embedded demos are embedded inputs")
    };
    // Cut inside the header: the demo fails before any row.
    inputs.push(Input::Embedded {
        name: "a_cut.demo",
        bytes: &bytes[..40],
    });
    let sizes: u64 = inputs.iter().map(|i| i.listed_size()).sum();
    let n = inputs.len() as u64;
    let sel = Selection::of(inputs);
    let table = teebatch::demo::export::Table::Pickups;
    let mut seen = Vec::new();
    for (jobs, split_bytes) in [(1, export::DEFAULT_SPLIT_BYTES), (3, 1)] {
        let mut opts = ExportOptions::new(table);
        opts.split_bytes = split_bytes;
        let mut out = Vec::new();
        let mut obs = Failures::default();
        let (outcome, totals) = {
            let mut w = teebatch::batch::tables::writer(
                teebatch::batch::sink::RecordFormat::Csv,
                &table.schema(),
                Box::new(&mut out),
            )
            .unwrap();
            export::run(&sel, jobs, &opts, &mut *w, &mut obs).unwrap()
        };
        assert!(totals.units as u64 >= n, "{}", totals.units);
        assert_eq!(
            (outcome.files, outcome.ok, outcome.failed, outcome.bytes),
            (n, n - 1, 1, sizes)
        );
        assert_eq!((obs.count.files, obs.count.bytes), (n, sizes));
        assert_eq!(obs.failed, ["embedded:a_cut.demo"]);
        assert!(outcome.is_failure());
        assert!(outcome.line().starts_with(&format!(
            "demos export: {n} files ({} ok, 1 failed), ",
            n - 1
        )));
        seen.push((totals.rows, out));
    }
    assert_eq!(seen[0], seen[1]);
}
