//! `--mmap never` (read into a reused buffer) against `--mmap always` (map
//! every file) per file size, whole `teebatch` processes on one job:
//!
//! - small: the shared maps under 1 MB (`maps index`), and the real demos
//!   (`demos index`);
//! - medium: the shared maps of 1 MB and more, and generated demos of a few
//!   MB (`synth demos --players 32 --seconds 120`);
//! - large: one generated demo of about 100 MB (`--players 64 --seconds
//!   2400`; `--large-seconds S` to change).
//!
//! `cargo bench --bench mmap [-- --seconds S --rounds R --cold]`. The page
//! cache is warm (every file was read before) unless `--cold`, which evicts
//! the inputs' pages before every run (`posix_fadvise(POSIX_FADV_DONTNEED)`,
//! which needs no privileges; the eviction is inside the timed run, the same
//! for both modes; the host may still cache the disk). `--mmap auto` maps
//! the files of at least 16 MiB, so it is `never` on the small and medium
//! classes and `always` on the large one. Times are CPU seconds of the
//! teebatch processes unless `--wall` (use it with `--cold`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "../support/race.rs"]
mod race;
use race::{flag, mb, num, print_machine, race, teebatch_exe, timing, TempDir};

#[path = "../../tests/common/datasets.rs"]
mod datasets;

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == ext))
        .map(|e| e.into_path())
        .collect();
    v.sort();
    v
}

/// Drops the page cache's copy of `path` (clean pages only).
fn evict(path: &Path) {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path).unwrap();
    // SAFETY: a valid open descriptor; the call only advises the kernel.
    unsafe {
        libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
    }
}

fn generate_demos(dir: &Path, count: u32, players: usize, seconds: i32) {
    use teebatch::synth::demo::{generate_to, SynthParams};
    for i in 0..count {
        let mut p = SynthParams::collection(1, i);
        p.players = players;
        p.duration_ticks = seconds * 50;
        let f = std::fs::File::create(dir.join(format!("synth-s1-{i:04}.demo"))).unwrap();
        generate_to(&p, std::io::BufWriter::new(f)).unwrap();
    }
}

fn main() {
    let (min, rounds) = timing();
    print_machine(min, rounds);
    let cold = flag("--cold");
    if cold && !race::wall() {
        eprintln!("--cold measures the time spent waiting for the disk: add --wall");
    }
    println!(
        "page cache: {}",
        if cold {
            "cold (inputs evicted before every run)"
        } else {
            "warm"
        }
    );
    let Some(ds) = datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) else {
        eprintln!("SKIPPED: ../shared/datasets not found");
        return;
    };
    let tmp = TempDir::new("mmap");
    let medium = tmp.0.join("medium");
    let large = tmp.0.join("large");
    std::fs::create_dir_all(&medium).unwrap();
    std::fs::create_dir_all(&large).unwrap();
    generate_demos(&medium, 4, 32, 120);
    generate_demos(&large, 1, 64, num("--large-seconds", 2400.0) as i32);
    let maps = files(&ds.join("maps"), "map");
    let size = |p: &PathBuf| std::fs::metadata(p).unwrap().len();
    let (big_maps, small_maps): (Vec<PathBuf>, Vec<PathBuf>) =
        maps.into_iter().partition(|p| size(p) >= 1_000_000);
    let lists = tmp.0.join("lists");
    std::fs::create_dir_all(&lists).unwrap();
    let list = |name: &str, paths: &[PathBuf]| {
        let p = lists.join(name);
        let text: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
        std::fs::write(&p, text).unwrap();
        p
    };
    let classes: Vec<(&str, &str, Vec<PathBuf>, Vec<String>)> = vec![
        (
            "small: shared maps under 1 MB",
            "maps",
            small_maps.clone(),
            vec![
                "--files-from".into(),
                list("small-maps", &small_maps).display().to_string(),
            ],
        ),
        (
            "small: real demos",
            "demos",
            files(&ds.join("demos"), "demo"),
            vec![ds.join("demos").display().to_string()],
        ),
        (
            "medium: shared maps of 1 MB and more",
            "maps",
            big_maps.clone(),
            vec![
                "--files-from".into(),
                list("big-maps", &big_maps).display().to_string(),
            ],
        ),
        (
            "medium: generated demos",
            "demos",
            files(&medium, "demo"),
            vec![medium.display().to_string()],
        ),
        (
            "large: one generated demo",
            "demos",
            files(&large, "demo"),
            vec![large.display().to_string()],
        ),
    ];
    let exe = teebatch_exe();
    let exe = exe.as_path();
    println!(
        "\n| class | files | MB | sizes | `--mmap never` s | `--mmap always` s | always / never |\n|---|---:|---:|---|---:|---:|---:|"
    );
    for (name, kind, paths, args) in &classes {
        let bytes: u64 = paths.iter().map(size).sum();
        let (lo, hi) = paths
            .iter()
            .map(size)
            .fold((u64::MAX, 0), |(lo, hi), s| (lo.min(s), hi.max(s)));
        let run = |mode: &str| {
            if cold {
                paths.iter().for_each(|p| evict(p));
            }
            let status = Command::new(exe)
                .args([kind, "index", "-j", "1", "-q", "--mmap", mode])
                .args(args)
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.code().is_some_and(|c| c <= 1), "{name}: {status}");
        };
        let t = race(
            min,
            rounds,
            &mut [&mut || run("never"), &mut || run("always")],
        );
        println!(
            "| {name} (`{kind} index -j 1`) | {} | {:.1} | {:.0}–{:.0} KB | {:.4} ({:.0} MB/s) | {:.4} ({:.0} MB/s) | {:.3} |",
            paths.len(),
            bytes as f64 / 1e6,
            lo as f64 / 1e3,
            hi as f64 / 1e3,
            t[0],
            mb(bytes, t[0]),
            t[1],
            mb(bytes, t[1]),
            t[1] / t[0]
        );
    }
}
