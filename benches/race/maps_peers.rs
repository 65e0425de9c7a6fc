//! `maps index` against its floor (libdeflater inflating every data block),
//! against twmap (with `--features twmap-peer`) and against `sha256sum`, on
//! the same maps in one run, and where the time of `maps index --verify`
//! goes: inflate, CRC-32, SHA-256, the rest of the index work;
//! `--verify=crc` (no SHA-256) and `--verify=inflate` (no hash) beside it.
//!
//! `cargo bench --bench maps_peers --features twmap-peer [-- --seconds S
//! --rounds R --maps DIR --synth N]`. Inputs: every `*.map` under DIR
//! (default `../shared/datasets/maps`), or N generated maps (`teebatch
//! synth maps --count N`, written to a temporary folder) with `--synth N`.
//! In memory and on one thread, the maps that teebatch indexes without an
//! error (and whose blocks twmap inflates, when it is built in) are the
//! set; the whole-process rows run `teebatch maps index -j 1` and
//! `sha256sum` over every file of the inputs. Contenders alternate, best
//! of R rounds of at least S seconds each, in CPU seconds unless `--wall`
//! (see `race.rs`).
//!
//! Without `--features twmap-peer` the twmap rows are left out: twmap is
//! AGPL-3.0-only and an optional dependency no default build compiles.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sha2::{Digest, Sha256};
use teebatch::batch::maps::{index_bytes, IndexOptions, MapRecord, Verify};
use teebatch::datafile::{Datafile, Inflater, Version};

#[path = "../support/race.rs"]
mod race;
use race::{arg, mb, num, print_machine, race, teebatch_exe, timing, TempDir};

#[path = "../../tests/common/datasets.rs"]
mod datasets;

/// Bytes hashed per piece by the fused variant: the CRC-32 and the SHA-256
/// of a piece are taken while it is still in L1/L2 after the first of them.
const PIECE: usize = 64 << 10;

fn map_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "map"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

fn index(
    bytes: &[u8],
    opts: &IndexOptions,
    inflater: &mut Inflater,
    buf: &mut Vec<u8>,
) -> MapRecord {
    let mut rec = MapRecord::default();
    index_bytes(&mut rec, bytes, opts, inflater, buf);
    rec
}

#[cfg(feature = "twmap-peer")]
mod tw {
    /// twmap's inflate alone: its datafile parser and its zlib wrapper on
    /// every data block (what its map loading inflates with).
    pub fn inflate(bytes: &[u8]) -> Option<u64> {
        let df = twmap::datafile::RawDatafile::parse(bytes).ok()?;
        // Version 3: blocks are stored raw, nothing to inflate.
        let Some(sizes) = df.data_sizes else {
            return Some(0);
        };
        let mut out = 0u64;
        for (raw, size) in df.data_items.iter().zip(sizes) {
            let size = usize::try_from(size.to_int()).ok()?;
            out += twmap::compression::decompress(raw, size).ok()?.len() as u64;
        }
        Some(out)
    }

    /// twmap's map loading: parse (with its checks), then every layer,
    /// image and sound loaded (inflated and checked).
    pub fn load(bytes: &[u8]) -> bool {
        match twmap::TwMap::parse(bytes) {
            Ok(mut map) => map.load().is_ok(),
            Err(_) => false,
        }
    }
}

pub fn main() {
    let (min, rounds) = timing();
    print_machine(min, rounds);
    let tmp = TempDir::new("maps-peers");
    let dir = match (arg("--maps"), num("--synth", 0.0) as u32) {
        (Some(d), _) => PathBuf::from(d),
        (None, 0) => {
            let Some(ds) = datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) else {
                eprintln!("SKIPPED: ../shared/datasets not found");
                return;
            };
            ds.join("maps")
        }
        (None, n) => {
            for i in 0..n {
                let p = teebatch::synth::map::SynthParams::collection(1, i);
                let bytes = teebatch::synth::map::generate(&p);
                std::fs::write(tmp.0.join(format!("synth-s1-{i:04}.map")), bytes).unwrap();
            }
            tmp.0.clone()
        }
    };
    let paths = map_files(&dir);
    let all: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let all_bytes: u64 = all.iter().map(|b| b.len() as u64).sum();

    let verify = IndexOptions {
        verify: Verify::Full,
        ..IndexOptions::default()
    };
    let mut inflater = Inflater::default();
    let mut buf = Vec::new();
    // The set: maps teebatch indexes and verifies without an error (and
    // whose blocks twmap inflates).
    let mut excluded = Vec::new();
    let files: Vec<&[u8]> = all
        .iter()
        .zip(&paths)
        .filter(|(b, p)| {
            let ok = index(b, &verify, &mut inflater, &mut buf).error.is_none();
            #[cfg(feature = "twmap-peer")]
            let ok = ok && tw::inflate(b).is_some();
            if !ok {
                excluded.push(p.strip_prefix(&dir).unwrap_or(p).display().to_string());
            }
            ok
        })
        .map(|(b, _)| b.as_slice())
        .collect();
    let file_bytes: u64 = files.iter().map(|b| b.len() as u64).sum();
    // Every compressed (v4) data block of the set.
    let dfs: Vec<Datafile> = files.iter().map(|b| Datafile::parse(b).unwrap()).collect();
    let blocks: Vec<(&[u8], usize)> = dfs
        .iter()
        .filter(|df| df.version() != Version::V3)
        .flat_map(|df| {
            (0..df.num_data()).map(|i| (df.data_raw(i).unwrap(), df.data_size(i).unwrap()))
        })
        .collect();
    let out_bytes: u64 = blocks.iter().map(|&(_, n)| n as u64).sum();
    let mut out = vec![0u8; blocks.iter().map(|&(_, n)| n).max().unwrap_or(0)];
    let mut d = libdeflater::Decompressor::new();

    println!(
        "\ninputs: {} ({} maps, {:.1} MB); in memory: {} maps, {:.1} MB of files, {} compressed blocks, {:.1} MB inflated",
        dir.display(),
        all.len(),
        all_bytes as f64 / 1e6,
        files.len(),
        file_bytes as f64 / 1e6,
        blocks.len(),
        out_bytes as f64 / 1e6
    );
    if !excluded.is_empty() {
        println!("left out of the in-memory set (an error in teebatch, or in twmap's inflate): {excluded:?}");
    }
    #[cfg(feature = "twmap-peer")]
    {
        let refused: Vec<&[u8]> = files.iter().copied().filter(|b| !tw::load(b)).collect();
        println!(
            "twmap's TwMap::parse + load refuses {} of them ({:.1} MB; its checks, e.g. old map versions): it stops early on those",
            refused.len(),
            refused.iter().map(|b| b.len()).sum::<usize>() as f64 / 1e6
        );
    }

    // Inflate every block into one reused buffer, then `then` on its bytes.
    let mut inflate_then = |then: &mut dyn FnMut(&[u8])| {
        for &(raw, n) in &blocks {
            let n = d.zlib_decompress(raw, &mut out[..n]).unwrap();
            then(&out[..n]);
        }
    };
    let work = std::cell::RefCell::new((Inflater::default(), Vec::new()));
    let mut names: Vec<String> = Vec::new();
    let mut contenders: Vec<Box<dyn FnMut() + '_>> = Vec::new();
    macro_rules! contender {
        ($name:expr, $f:expr) => {
            names.push($name.to_string());
            contenders.push(Box::new($f));
        };
    }
    let inflate_then = std::cell::RefCell::new(&mut inflate_then);
    contender!("inflate, libdeflater alone (the floor)", || {
        inflate_then.borrow_mut()(&mut |b| {
            black_box(b);
        })
    });
    contender!("inflate + CRC-32 (crc32fast) per block", || {
        let mut h = crc32fast::Hasher::new();
        inflate_then.borrow_mut()(&mut |b| h.update(b));
        black_box(h.finalize());
    });
    contender!("inflate + CRC-32 (libdeflate) per block", || {
        let mut h = libdeflater::Crc::new();
        inflate_then.borrow_mut()(&mut |b| h.update(b));
        black_box(h.sum());
    });
    contender!("inflate + SHA-256 per block", || {
        let mut h = Sha256::new();
        inflate_then.borrow_mut()(&mut |b| h.update(b));
        black_box(h.finalize());
    });
    contender!("inflate + CRC-32 + SHA-256, two passes per block", || {
        let mut c = crc32fast::Hasher::new();
        let mut h = Sha256::new();
        inflate_then.borrow_mut()(&mut |b| {
            c.update(b);
            h.update(b);
        });
        black_box((c.finalize(), h.finalize()));
    });
    contender!("inflate + CRC-32 + SHA-256 fused per 64 KiB piece", || {
        let mut c = crc32fast::Hasher::new();
        let mut h = Sha256::new();
        inflate_then.borrow_mut()(&mut |b| {
            for p in b.chunks(PIECE) {
                c.update(p);
                h.update(p);
            }
        });
        black_box((c.finalize(), h.finalize()));
    });
    contender!(
        "inflate + CRC-32 (libdeflate) + SHA-256 fused per 64 KiB piece",
        || {
            let mut c = libdeflater::Crc::new();
            let mut h = Sha256::new();
            inflate_then.borrow_mut()(&mut |b| {
                for p in b.chunks(PIECE) {
                    c.update(p);
                    h.update(p);
                }
            });
            black_box((c.sum(), h.finalize()));
        }
    );
    let (work, all_files) = (&work, &files);
    for (flag, verify) in LEVELS {
        let opts = IndexOptions {
            verify,
            ..IndexOptions::default()
        };
        contender!(work_name(flag), move || {
            let (inf, buf) = &mut *work.borrow_mut();
            for b in all_files {
                black_box(index(b, &opts, inf, buf));
            }
        });
    }
    #[cfg(feature = "twmap-peer")]
    {
        contender!("twmap: datafile parse + inflate every block", || {
            for b in &files {
                black_box(tw::inflate(b));
            }
        });
        contender!("twmap: TwMap::parse + load (checks, inflate)", || {
            for b in &files {
                black_box(tw::load(b));
            }
        });
    }
    let mut refs: Vec<&mut dyn FnMut()> = contenders
        .iter_mut()
        .map(|f| &mut **f as &mut dyn FnMut())
        .collect();
    let t = race(min, rounds, &mut refs);
    drop(refs);
    drop(contenders);
    let floor = t[0];
    println!(
        "\n| 1 thread, maps in memory | s per pass (CPU, or wall with --wall) | MB/s of output | MB/s of files | × the floor |\n|---|---:|---:|---:|---:|"
    );
    for (name, s) in names.iter().zip(&t) {
        println!(
            "| {name} | {s:.3} | {:.0} | {:.0} | {:.2} |",
            mb(out_bytes, *s),
            mb(file_bytes, *s),
            s / floor
        );
    }
    if let Some(i) = names.iter().position(|n| n.starts_with("twmap: datafile")) {
        for flag in LEVELS.iter().filter_map(|&(flag, _)| flag) {
            let verify_t = t[names
                .iter()
                .position(|n| *n == work_name(Some(flag)))
                .unwrap()];
            println!(
                "\n`maps index {flag}` against twmap's inflate alone: {:.2}× (twmap {:.3} s, teebatch {:.3} s)",
                t[i] / verify_t,
                t[i],
                verify_t
            );
        }
    }

    // The hashes alone, on a buffer that stays in cache, for the bound.
    let piece = vec![0x5au8; 1 << 20];
    let t = race(
        min,
        rounds,
        &mut [
            &mut || {
                black_box(Sha256::digest(&piece));
            },
            &mut || {
                black_box(crc32fast::hash(&piece));
            },
            &mut || {
                black_box(libdeflater::crc32(&piece));
            },
        ],
    );
    println!(
        "\nhashes alone over 1 MiB in cache: SHA-256 (sha2) {:.0} MB/s, CRC-32 crc32fast {:.0} MB/s, libdeflate {:.0} MB/s",
        mb(1 << 20, t[0]),
        mb(1 << 20, t[1]),
        mb(1 << 20, t[2])
    );

    if num("--process", 1.0) == 0.0 {
        return;
    }
    // Whole processes over every file of the inputs.
    let exe = teebatch_exe();
    let exe = exe.as_path();
    let run = |cmd: &mut Command| {
        let status = cmd.stdout(Stdio::null()).status().unwrap();
        // maps index exits 1 where some map has an error; it still ran.
        assert!(status.code().is_some_and(|c| c <= 1), "{cmd:?}: {status}");
    };
    let mut processes: Vec<Box<dyn FnMut() + '_>> = LEVELS
        .iter()
        .map(|&(flag, _)| {
            let dir = &dir;
            Box::new(move || {
                run(Command::new(exe)
                    .args(["maps", "index", "-j", "1", "-q"])
                    .args(flag)
                    .arg(dir))
            }) as Box<dyn FnMut()>
        })
        .collect();
    processes.push(Box::new(|| run(Command::new("sha256sum").args(&paths))));
    let mut refs: Vec<&mut dyn FnMut()> = processes
        .iter_mut()
        .map(|f| &mut **f as &mut dyn FnMut())
        .collect();
    let t = race(min, rounds, &mut refs);
    println!(
        "\n| whole process, {} files, {:.1} MB | s (CPU, or wall with --wall) | MB/s of files |\n|---|---:|---:|",
        paths.len(),
        all_bytes as f64 / 1e6
    );
    let process_names = LEVELS.iter().map(|&(flag, _)| match flag {
        None => "`teebatch maps index -j 1`".to_string(),
        Some(flag) => format!("`teebatch maps index -j 1 {flag}`"),
    });
    let sha256sum = "`sha256sum` (coreutils) over the same files".to_string();
    for (name, s) in process_names.chain([sha256sum]).zip(&t) {
        println!("| {name} | {s:.3} | {:.0} |", mb(all_bytes, *s));
    }
}

/// The `--verify` levels measured: the flag (none for no `--verify`) and
/// the level.
const LEVELS: [(Option<&str>, Verify); 4] = [
    (None, Verify::Off),
    (Some("--verify=inflate"), Verify::Inflate),
    (Some("--verify=crc"), Verify::Crc),
    (Some("--verify"), Verify::Full),
];

/// The name of the in-memory `maps index` work with `flag`.
fn work_name(flag: Option<&str>) -> String {
    match flag {
        None => "`maps index` work (no --verify)".to_string(),
        Some(flag) => format!("`maps index {flag}` work"),
    }
}
