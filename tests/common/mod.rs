//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared real-file datasets (`$TEEBATCH_DATASETS` or `../shared/datasets`).
///
/// Returns `None`, after saying so on stderr, where neither exists (a user's
/// fresh clone). CI always has the folder; set `TEEBATCH_REQUIRE_DATASETS=1`
/// to turn a missing folder into a failure.
pub fn datasets() -> Option<PathBuf> {
    match teebatch::test_support::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) {
        Some(p) => Some(p),
        None => {
            if std::env::var_os("TEEBATCH_REQUIRE_DATASETS").is_some() {
                panic!("TEEBATCH_REQUIRE_DATASETS is set but ../shared/datasets is missing");
            }
            eprintln!("SKIPPED: ../shared/datasets not found (set TEEBATCH_DATASETS)");
            None
        }
    }
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

/// Runs the `teebatch` binary built for these tests.
pub fn teebatch(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args(args)
        .output()
        .expect("run teebatch")
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
