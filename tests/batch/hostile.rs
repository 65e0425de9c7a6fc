//! Hostile input to the batch driver: a batch run over every real file plus
//! hundreds of corrupted copies (one record each, exact error fields,
//! bounded memory), and files that shrink or grow between listing and
//! loading.

use std::path::{Path, PathBuf};

use crate::common::{self, records};
use serde_json::Value;
use teebatch::batch::{self, MmapMode};
use teebatch::synth::Rng;

// ---------------------------------------------------------------------------
// A batch of real files and corrupted copies
// ---------------------------------------------------------------------------

/// Corrupted variants of `bytes`: (suffix, bytes). Truncations at each of
/// `cuts` (when shorter than the file), at half the file and one byte short,
/// then `flips` copies with random bit flips (1, 1, 8, 64, 1, 1, 8, 64, ...
/// bits; every fifth one within the first 200 bytes, where the tables are).
fn corruptions(
    bytes: &[u8],
    rng: &mut Rng,
    cuts: &[usize],
    flips: usize,
) -> Vec<(String, Vec<u8>)> {
    let n = bytes.len();
    let mut v = Vec::new();
    for &c in cuts {
        if c < n {
            v.push((format!("cut{c}"), bytes[..c].to_vec()));
        }
    }
    v.push(("cut_half".into(), bytes[..n / 2].to_vec()));
    v.push(("cut_last".into(), bytes[..n.saturating_sub(1)].to_vec()));
    for k in 0..flips {
        let mut b = bytes.to_vec();
        let count = [1, 1, 8, 64][k % 4];
        let span = if k % 5 == 4 { n.min(200) } else { n };
        for _ in 0..count {
            let i = rng.modulo(span as u64) as usize;
            b[i] ^= 1 << rng.below(8);
        }
        v.push((format!("flip{count}_{k}"), b));
    }
    v
}

fn copy_tree(src: &Path, dst: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in common::files_with_ext(src, ext) {
        let rel = f.strip_prefix(src).unwrap();
        let to = dst.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&f, &to).unwrap();
        out.push(rel.to_path_buf());
    }
    out
}

/// Records by path relative to `root`, with `path` removed.
fn by_rel_path(recs: &[Value], root: &Path) -> std::collections::BTreeMap<String, Value> {
    recs.iter()
        .map(|r| {
            let p = r["path"].as_str().unwrap();
            let rel = Path::new(p)
                .strip_prefix(root)
                .unwrap_or_else(|_| panic!("{p} not under {}", root.display()))
                .to_string_lossy()
                .into_owned();
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("path");
            (rel, r)
        })
        .collect()
}

/// Builds good/ (copies of every real file) and bad/ (corrupted copies,
/// empty files, foreign files, a symlink loop) under `root`; returns the
/// relative paths of the good files and the number of bad files.
fn build_collection(src: &Path, root: &Path, ext: &str, seed: u64) -> (Vec<PathBuf>, usize) {
    let good = copy_tree(src, &root.join("good"), ext);
    let bad_dir = root.join("bad");
    std::fs::create_dir_all(&bad_dir).unwrap();
    let mut rng = Rng::new(seed);
    let mut bad = 0;
    let mut write = |name: String, bytes: &[u8]| {
        std::fs::write(bad_dir.join(format!("{name}.{ext}")), bytes).unwrap();
        bad += 1;
    };
    // Maps: many variants of every 16th map, two of the others. Demos (only
    // ten): many of each, fewer of the large ones (over 512 KiB).
    const CUTS: &[usize] = &[0, 7, 8, 35, 36, 100, 180, 400, 1000];
    for (i, rel) in good.iter().enumerate() {
        let bytes = std::fs::read(root.join("good").join(rel)).unwrap();
        let stem = rel.to_string_lossy().replace(['/', '.'], "_");
        let large = bytes.len() > 512 << 10;
        let variants = match (ext, i % 16 == 0, large) {
            ("map", true, _) => corruptions(&bytes, &mut rng, CUTS, 6),
            ("map", false, _) => corruptions(&bytes, &mut rng, &[], 1)[1..].to_vec(),
            (_, _, false) => corruptions(&bytes, &mut rng, CUTS, 20),
            (_, _, true) => corruptions(&bytes, &mut rng, &[180], 9),
        };
        for (suffix, b) in variants {
            write(format!("{stem}__{suffix}"), &b);
        }
    }
    write("empty".into(), b"");
    write("text".into(), b"this is not a teeworlds file\n");
    write("png".into(), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
    write(
        "other_magic".into(),
        if ext == "map" {
            b"TWDEMO\0\x06"
        } else {
            b"DATA\x04\0\0\0"
        },
    );
    let noise: Vec<u8> = (0..4096).map(|_| rng.next_u64() as u8).collect();
    write("noise".into(), &noise);
    // A directory symlink loop: reported once as an unlistable entry.
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", bad_dir.join("loop")).unwrap();
    (good, bad)
}

fn check_batch(kind: &str, ext: &str, extra: &[&str], seed: u64) {
    let Some(ds) = common::datasets() else { return };
    let src = ds.join(format!("{kind}s"));
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (good, bad) = build_collection(&src, &root, ext, seed);
    assert!(bad >= 200, "{bad} corrupted {kind}s");

    let command = format!("{kind}s");
    let run = |path: &Path, jobs: &str| {
        let (out, peak_kib) = common::output_with_peak_rss(
            std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
                .args([command.as_str(), "index", "-q", "--jobs", jobs])
                .args(extra)
                .arg(path),
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(kib) = peak_kib {
            eprintln!("{kind}s index --jobs {jobs}: peak RSS {} MiB", kib >> 10);
            assert!(
                kib <= peak_rss_bound_kib(kind, jobs),
                "{kind}s index --jobs {jobs}: peak RSS {kib} KiB"
            );
        }
        out
    };
    let clean = run(&src, "2");
    let clean = by_rel_path(&records(&clean), &src);
    assert_eq!(clean.len(), good.len());

    let out1 = run(&root, "1");
    let out2 = run(&root, "2");
    assert_eq!(out1.status.code(), Some(1));
    assert_eq!(out2.status.code(), Some(1));
    assert!(out1.stdout == out2.stdout, "--jobs 1 and 2 differ");
    let recs = by_rel_path(&records(&out1), &root);
    // One record per file, plus one for the symlink loop.
    assert_eq!(recs.len(), good.len() + bad + usize::from(cfg!(unix)));

    for rel in &good {
        let key = Path::new("good").join(rel).to_string_lossy().into_owned();
        let want = &clean[&rel.to_string_lossy().into_owned()];
        assert_eq!(&recs[&key], want, "{key}");
    }
    let mut errors = 0;
    let mut harmless = 0;
    for (rel, r) in recs.iter().filter(|(rel, _)| rel.starts_with("bad/")) {
        if rel == "bad/loop" {
            assert_eq!(r["error"]["stage"], "io", "{rel}: {r}");
            continue;
        }
        match r.get("error") {
            Some(e) => {
                errors += 1;
                for k in ["stage", "kind", "section", "message"] {
                    assert!(e[k].is_string(), "{rel}: {k} in {e}");
                }
                // Every offset is inside the file (the end for a cut).
                let size = r["size"].as_u64().unwrap();
                assert!(e["offset"].as_u64().unwrap() <= size, "{rel}: {e}");
            }
            None => {
                // A harmless corruption (e.g. a flipped bit in item data or
                // in a message): the file still parses all the way.
                harmless += 1;
                if kind == "map" {
                    assert!(r["data_crc32"].is_string(), "{rel}: {r}");
                    assert!(r["map"].is_object(), "{rel}: {r}");
                } else {
                    assert!(r["header"].is_object(), "{rel}: {r}");
                    assert!(r["chunks"].is_object(), "{rel}: {r}");
                }
            }
        }
    }
    assert_eq!(errors + harmless, bad);
    assert!(errors > bad / 2, "{errors} errors, {harmless} harmless");
    eprintln!(
        "{kind}s: {} good, {bad} bad ({errors} errors, {harmless} harmless)",
        good.len()
    );
}

/// Peak resident memory allowed for a batch over the real files plus
/// hundreds of corrupted ones: a base for the process plus, per worker,
/// about 1.5× (maps) or 3× (demos) what the largest real file needs
/// (measured with the test binary on 2026-11-26: maps 132 MiB with one job
/// and 255 MiB with two, where BlmapChill's data blocks inflate to 626 MB
/// in all, one block at a time; demos 13 MiB with one job, 17 MiB with
/// two). Nothing may grow with the
/// number of files.
fn peak_rss_bound_kib(kind: &str, jobs: &str) -> u64 {
    let jobs: u64 = jobs.parse().unwrap();
    let (base_mib, per_worker_mib) = if kind == "map" { (64, 192) } else { (32, 16) };
    (base_mib + per_worker_mib * jobs) << 10
}

#[test]
fn batch_of_real_and_corrupted_maps() {
    check_batch("map", "map", &["--verify"], 0x5eed_0001);
}

#[test]
fn batch_of_real_and_corrupted_demos() {
    check_batch("demo", "demo", &[], 0x5eed_0002);
}

// ---------------------------------------------------------------------------
// Files that change between listing and loading
// ---------------------------------------------------------------------------

/// A file listed at its full size, then truncated before it is loaded:
/// every mode gives either an error or the short file, which then fails to
/// parse as a short file; nothing crashes.
#[test]
fn file_truncated_between_listing_and_loading() {
    let Some(ds) = common::datasets() else { return };
    let src = common::files_with_ext(&ds.join("maps"), "map")
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let original = std::fs::read(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shrinking.map");
    for mode in [MmapMode::Never, MmapMode::Auto, MmapMode::Always] {
        for keep in [0usize, 20, 1000, original.len() / 2] {
            std::fs::write(&path, &original).unwrap();
            let inputs = batch::collect_inputs(std::slice::from_ref(&path), "map");
            assert_eq!(inputs.len(), 1);
            assert_eq!(inputs[0].listed_size(), original.len() as u64);
            std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap()
                .set_len(keep as u64)
                .unwrap();
            let mut buf = Vec::new();
            let loaded = batch::load(&inputs[0], mode, &mut buf).unwrap();
            assert_eq!(&loaded[..], &original[..keep], "{mode:?} {keep}");
            drop(loaded);

            let opts = batch::maps::IndexOptions {
                verify: teebatch::batch::maps::Verify::Full,
                mmap: mode,
                ..Default::default()
            };
            let mut w = batch::maps::Worker::new(opts.limits);
            let rec = batch::maps::index_input(&mut w, &inputs[0], &opts);
            let e = rec.error.expect("a short map fails");
            assert_eq!(
                (e.stage.name(), e.kind),
                ("datafile", "truncated"),
                "{mode:?} {keep}"
            );
            assert_eq!(rec.size, keep as u64);
        }
        // Removed altogether: an I/O error.
        std::fs::write(&path, &original).unwrap();
        let inputs = batch::collect_inputs(std::slice::from_ref(&path), "map");
        std::fs::remove_file(&path).unwrap();
        let mut buf = Vec::new();
        let e = batch::load(&inputs[0], mode, &mut buf).err().unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
    }
}

/// A file that grows between listing and loading is read no further than
/// twice its listed size (so the listing's size check bounds memory); more
/// is an I/O error, never a silent cut.
#[test]
fn file_grown_between_listing_and_loading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("growing.map");
    std::fs::write(&path, vec![1u8; 1000]).unwrap();
    let inputs = batch::collect_inputs(std::slice::from_ref(&path), "map");
    for (grown, ok) in [(1500, true), (2000, true), (2001, false), (100_000, false)] {
        std::fs::write(&path, vec![2u8; grown]).unwrap();
        for mode in [MmapMode::Never, MmapMode::Auto] {
            let mut buf = Vec::new();
            match batch::load(&inputs[0], mode, &mut buf) {
                Ok(b) => {
                    assert!(ok, "{grown} {mode:?}");
                    assert_eq!(b.len(), grown);
                }
                Err(e) => {
                    assert!(!ok, "{grown} {mode:?}");
                    assert_eq!(e.kind(), std::io::ErrorKind::Other);
                    assert!(buf.capacity() < 10_000, "{}", buf.capacity());
                }
            }
        }
    }
    // Through `maps index`: a record with an io error.
    let opts = batch::maps::IndexOptions::default();
    let mut w = batch::maps::Worker::new(opts.limits);
    let rec = batch::maps::index_input(&mut w, &inputs[0], &opts);
    let e = rec.error.unwrap();
    assert_eq!((e.stage.name(), e.kind), ("io", "io"));
    assert!(e.message.contains("grew"), "{}", e.message);
}
