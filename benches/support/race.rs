//! What the side-by-side harnesses (`peers`, `maps_peers`, `mmap`) share:
//! interleaved best-of-N timing, their few flags, a temporary folder and
//! the machine's name.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// CPU seconds used so far by this process and by its children that have
/// ended (user + system): what a contender costs, whether it runs here or
/// as a child process, without the time the machine's other load takes
/// from it.
pub fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write to.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    // SAFETY: all-zero is a valid `rusage`, which getrusage fills in.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid rusage to write to.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9 + tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Wall-clock seconds instead of CPU seconds (`--wall`).
pub fn wall() -> bool {
    flag("--wall")
}

/// CPU seconds per run of each contender ([`cpu_seconds`]; wall-clock
/// seconds with `--wall`): rounds
/// alternate between the contenders, each runs for at least `min` of wall
/// time per round (mean per run), and the best of `rounds` rounds is kept.
/// CPU time leaves out the time slices the machine's other load takes
/// (not the caches and memory bandwidth it shares); best of N and
/// alternation do the rest.
pub fn race(min: Duration, rounds: u32, contenders: &mut [&mut dyn FnMut()]) -> Vec<f64> {
    for f in contenders.iter_mut() {
        f();
    }
    let mut best = vec![f64::INFINITY; contenders.len()];
    for _ in 0..rounds.max(1) {
        for (f, best) in contenders.iter_mut().zip(&mut best) {
            let start = Instant::now();
            let cpu = cpu_seconds();
            let mut runs = 0u32;
            while runs == 0 || start.elapsed() < min {
                f();
                runs += 1;
            }
            let secs = if wall() {
                start.elapsed().as_secs_f64()
            } else {
                cpu_seconds() - cpu
            };
            *best = best.min(secs / f64::from(runs));
        }
    }
    best
}

/// The `teebatch` binary the process contenders run: the one cargo built
/// for a bench, or for the `teebatch-peers` example (which cargo gives no
/// such path) the binary beside the example's folder
/// (`target/release/teebatch` for `target/release/examples/`).
pub fn teebatch_exe() -> PathBuf {
    if let Some(exe) = option_env!("CARGO_BIN_EXE_teebatch") {
        return PathBuf::from(exe);
    }
    let me = std::env::current_exe().unwrap();
    let exe = me
        .parent()
        .and_then(|d| d.parent())
        .unwrap()
        .join("teebatch");
    assert!(
        exe.is_file(),
        "{} not found: build it first with the same profile (`cargo build --release`)",
        exe.display()
    );
    exe
}

pub fn args() -> Vec<String> {
    std::env::args().collect()
}

/// The value after flag `name`.
pub fn arg(name: &str) -> Option<String> {
    let args = args();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
}

pub fn flag(name: &str) -> bool {
    args().iter().any(|a| a == name)
}

pub fn num(name: &str, default: f64) -> f64 {
    arg(name).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// `--seconds S` (default 2) and `--rounds R` (default 3).
pub fn timing() -> (Duration, u32) {
    (
        Duration::from_secs_f64(num("--seconds", 2.0)),
        num("--rounds", 3.0) as u32,
    )
}

/// A temporary folder, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(what: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("teebatch-{what}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The machine, the tiers and the timing rule, for the top of a report.
pub fn print_machine(min: Duration, rounds: u32) {
    let cpu = teebatch::bench::Machine::current().cpu_model;
    println!("machine: {}", cpu.as_deref().unwrap_or("unknown CPU"));
    println!("teebatch: {}", teebatch::codec::kernels::describe());
    let clock = if wall() {
        "wall-clock seconds"
    } else {
        "CPU seconds (user + system, child processes included)"
    };
    println!(
        "contenders alternate; {clock}, best of {rounds} rounds of at least {:.1} s each",
        min.as_secs_f64()
    );
}

pub fn mb(bytes: u64, secs: f64) -> f64 {
    bytes as f64 / 1e6 / secs
}
