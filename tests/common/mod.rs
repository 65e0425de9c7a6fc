//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub mod datasets;

mod skips;

/// The shared real-file datasets (`$TEEBATCH_DATASETS` or `../shared/datasets`).
///
/// Returns `None` where neither exists (a user's fresh clone) and counts the
/// calling test as skipped (see [`skip`]). CI always has the folder; with
/// `TEEBATCH_REQUIRE_DATASETS` set a missing folder fails the test.
pub fn datasets() -> Option<PathBuf> {
    let found = optional_datasets();
    if found.is_none() {
        skip("../shared/datasets not found (set TEEBATCH_DATASETS=/path/to/datasets)");
    }
    found
}

/// As [`datasets`] for a test that also runs without them (on less data):
/// not counted as skipped.
pub fn optional_datasets() -> Option<PathBuf> {
    let found = datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR"));
    if found.is_none() && require_data() {
        panic!("TEEBATCH_REQUIRE_DATASETS is set but ../shared/datasets is missing");
    }
    found
}

/// Whether tests must not skip for lack of data (`TEEBATCH_REQUIRE_DATASETS`).
pub fn require_data() -> bool {
    std::env::var_os("TEEBATCH_REQUIRE_DATASETS").is_some()
}

/// The tests that skipped for lack of data (by test thread name; libtest
/// runs each test on a thread named after it) and why.
static SKIPPED: std::sync::Mutex<(BTreeSet<String>, BTreeSet<String>)> =
    std::sync::Mutex::new((BTreeSet::new(), BTreeSet::new()));

/// Records that the calling test skips (all or part of its checks) because
/// `reason` names data that is missing; panics instead when
/// `TEEBATCH_REQUIRE_DATASETS` is set. When the test binary exits, one line
/// on stderr says how many tests skipped and why (libtest captures what a
/// passing test prints, so a line per test would not be seen).
pub fn skip(reason: &str) {
    if require_data() {
        panic!("TEEBATCH_REQUIRE_DATASETS is set but {reason}");
    }
    static REPORT: std::sync::Once = std::sync::Once::new();
    REPORT.call_once(|| {
        // SAFETY: `report_skipped` is an `extern "C" fn()` that does not
        // unwind (it catches nothing that can panic: a poisoned lock and a
        // failed write are ignored); `atexit` only stores the pointer.
        unsafe {
            libc::atexit(report_skipped);
        }
    });
    let test = std::thread::current()
        .name()
        .unwrap_or("unnamed test")
        .to_owned();
    if let Ok(mut s) = SKIPPED.lock() {
        s.0.insert(test);
        s.1.insert(reason.to_owned());
    }
}

/// The one line of [`skip`], run at exit.
extern "C" fn report_skipped() {
    use std::io::Write;
    let Ok(s) = SKIPPED.lock() else { return };
    let reasons: Vec<&str> = s.1.iter().map(String::as_str).collect();
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED {} tests for lack of data: {} (TEEBATCH_REQUIRE_DATASETS=1 makes this a failure)",
        s.0.len(),
        reasons.join("; ")
    );
}

/// Every file below `dir` whose name ends in `ext`, sorted.
pub fn files_with_ext(dir: &std::path::Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

/// DDNet's textures for the tests: `$TEEBATCH_MAPRES` when set, else
/// `../shared/reference/ddnet-mapres` when it exists (teebatch itself has
/// no built-in default but an installed DDNet's data folder).
pub fn mapres() -> Option<PathBuf> {
    std::env::var_os("TEEBATCH_MAPRES")
        .map(PathBuf::from)
        .or_else(|| {
            Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference/ddnet-mapres"))
                .filter(|d| d.is_dir())
        })
}

/// Runs the `teebatch` binary built for these tests, with
/// `$TEEBATCH_MAPRES` naming [`mapres`] (a `--mapres` argument wins).
pub fn teebatch(args: &[&str]) -> std::process::Output {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"));
    if let Some(d) = mapres() {
        c.env("TEEBATCH_MAPRES", d);
    }
    c.args(args).output().expect("run teebatch")
}

/// Runs `teebatch args`, requires exit code `code` (showing stderr
/// otherwise) and returns the JSON records it printed.
pub fn run_records(args: &[&str], code: i32) -> Vec<serde_json::Value> {
    let out = teebatch(args);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    records(&out)
}

/// The JSON records (one per line) a batch command printed.
pub fn records(out: &std::process::Output) -> Vec<serde_json::Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Runs `cmd` to completion like `Command::output`, and also returns the
/// child's peak resident set size in KiB: the largest `VmHWM` (the kernel's
/// high-water mark of the process's RSS) read from `/proc/PID/status` every
/// 5 ms while it runs (`None` without `/proc`). Sampling can miss growth in
/// the last few milliseconds before exit; it never overstates. (`wait4`'s
/// `ru_maxrss` cannot be used: a child started with `vfork`, as `Command`
/// does, inherits the test process's own peak.)
pub fn output_with_peak_rss(
    cmd: &mut std::process::Command,
) -> (std::process::Output, Option<u64>) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        out.read_to_end(&mut v).unwrap();
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        err.read_to_end(&mut v).unwrap();
        v
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak: Option<u64> = None;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        let hwm = std::fs::read_to_string(&status_file).ok().and_then(|st| {
            st.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        });
        if let Some(h) = hwm {
            peak = Some(peak.map_or(h, |p| p.max(h)));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let output = std::process::Output {
        status,
        stdout: reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    };
    (output, peak)
}

/// A hand-made version 3 datafile (raw data blocks): one item type, one
/// item (type 5, id 9, data `[-7]`) and one data block, `b"abc"`.
pub fn hand_made_v3() -> Vec<u8> {
    let mut v = b"DATA".to_vec();
    let ints: [i32; 7] = [0, 0, 1, 1, 1, 12, 3];
    v.extend_from_slice(&3i32.to_le_bytes());
    for i in ints {
        v.extend_from_slice(&i.to_le_bytes());
    }
    for i in [5i32, 0, 1, 0, 0, (5 << 16) | 9, 4, -7] {
        v.extend_from_slice(&i.to_le_bytes());
    }
    v.extend_from_slice(b"abc");
    let size = (v.len() - 16) as i32;
    v[8..12].copy_from_slice(&size.to_le_bytes());
    let swaplen = (v.len() - 3 - 16) as i32;
    v[12..16].copy_from_slice(&swaplen.to_le_bytes());
    v
}

/// The rows of `table` of one demo held in memory, through the library
/// (`TableBuilder` and `export_demo`, batches of `batch_rows`), checked
/// against the table's schema and the builder's row count.
pub fn table_rows(
    bytes: &[u8],
    table: teebatch::demo::export::Table,
    batch_rows: usize,
) -> Vec<Vec<teebatch::demo::export::Value>> {
    use teebatch::demo::export::{export_demo, readback, TableBuilder};
    let demo = teebatch::demo::Demo::parse(bytes).unwrap();
    let mut dec = teebatch::demo::stream::Decoder::new(teebatch::backend::Backend::Simd);
    let mut b = TableBuilder::for_demo(table, &demo, "d", i32::MIN, i32::MAX);
    let mut out = Vec::new();
    let mut sink = |batch: arrow_array::RecordBatch| {
        assert_eq!(batch.schema(), table.schema());
        out.extend(readback::rows(&batch));
        true
    };
    let r = export_demo(&demo, &mut dec, &mut b, i32::MAX, batch_rows, &mut sink);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.rows as usize, out.len());
    out
}

/// The picture file name `maps render` and `maps index --thumbnails` give
/// the map file `stem` with `bytes`: `<stem>-<sha256>.png`.
pub fn picture_name(stem: &str, bytes: &[u8]) -> String {
    format!(
        "{stem}-{}.png",
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(bytes))
    )
}
