//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// The shared real-file datasets (`$TEEBATCH_DATASETS` or `../shared/datasets`).
///
/// Returns `None`, after saying so on stderr, where neither exists (a user's
/// fresh clone). CI always has the folder; set `TEEBATCH_REQUIRE_DATASETS=1`
/// to turn a missing folder into a failure.
pub fn datasets() -> Option<PathBuf> {
    match teebatch::batch::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) {
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
/// child's peak resident set size in KiB (`ru_maxrss` of `wait4`, Linux;
/// `None` elsewhere).
// The child is reaped by `wait4` on Linux (`Child::wait` elsewhere).
#[allow(clippy::zombie_processes)]
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
    let mut stderr = Vec::new();
    err.read_to_end(&mut stderr).unwrap();
    let stdout = reader.join().unwrap();
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::ExitStatusExt;
        let pid = child.id() as libc::pid_t;
        let mut status = 0;
        // SAFETY: `rusage` is plain data that `wait4` fills in; the child is
        // ours and has not been waited for (`child.wait()` is never called).
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
        let output = std::process::Output {
            status: std::process::ExitStatus::from_raw(status),
            stdout,
            stderr,
        };
        (output, Some(usage.ru_maxrss as u64))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let status = child.wait().unwrap();
        (
            std::process::Output {
                status,
                stdout,
                stderr,
            },
            None,
        )
    }
}
