//! The `teebatch` binary: batch conventions of `maps index`.

use crate::common::{self, records, run_records, teebatch};
use serde_json::Value;
use std::path::Path;
use std::process::Output;
use std::sync::OnceLock;

/// `maps index --verify -q` over the real maps with the default jobs and
/// mmap mode: one pass over every map, shared by the golden test and the
/// jobs/mmap identity test.
fn default_verify_index(maps: &Path) -> &'static Output {
    static OUT: OnceLock<Output> = OnceLock::new();
    OUT.get_or_init(|| teebatch(&["maps", "index", "--verify", "-q", maps.to_str().unwrap()]))
}

#[test]
fn maps_index_verify_matches_golden_through_the_cli() {
    let Some(ds) = common::datasets() else { return };
    let maps = ds.join("maps");
    let out = default_verify_index(&maps);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(out);
    let golden = std::fs::read_to_string(ds.join("golden/maps.tsv")).unwrap();
    let golden: Vec<Vec<&str>> = golden.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(recs.len(), golden.len());
    // Output is sorted by path, as is the golden file.
    for (r, g) in recs.iter().zip(&golden) {
        let path = r["path"].as_str().unwrap();
        assert_eq!(Path::new(path), maps.join(g[0]), "order");
        assert_eq!(r["size"].as_u64().unwrap().to_string(), g[1], "{path}");
        assert_eq!(r["datafile_version"], g[2], "{path}");
        assert_eq!(
            r["num_item_types"].as_u64().unwrap().to_string(),
            g[3],
            "{path}"
        );
        assert_eq!(r["num_items"].as_u64().unwrap().to_string(), g[4], "{path}");
        assert_eq!(r["num_data"].as_u64().unwrap().to_string(), g[5], "{path}");
        assert_eq!(r["crc32"], g[6], "{path}");
        assert_eq!(r["sha256"], g[7], "{path}");
        assert_eq!(r["data_crc32"], g[8], "{path}");
        assert!(r.get("error").is_none(), "{path}");
    }
}

/// `--verify=crc` is `--verify` without `data_sha256`: the same records
/// (golden `data_crc32` included) less that one field; `--verify=inflate`
/// the same less both hashes; `--verify=off` is no flag; `--verify PATH`
/// (no `=`) leaves PATH a path.
#[test]
fn verify_crc_is_verify_without_the_content_hash() {
    let Some(ds) = common::datasets() else { return };
    let maps = ds.join("maps");
    let m = maps.to_str().unwrap();
    let full = records(default_verify_index(&maps));
    let crc = run_records(&["maps", "index", "-q", "--verify=crc", m], 0);
    assert_eq!(crc.len(), full.len());
    for (c, f) in crc.iter().zip(&full) {
        let path = c["path"].as_str().unwrap();
        assert!(c.get("data_sha256").is_none(), "{path}");
        assert_eq!(f["data_sha256"].as_str().unwrap().len(), 64, "{path}");
        assert_eq!(c["data_crc32"].as_str().unwrap().len(), 8, "{path}");
        let mut f = f.clone();
        f.as_object_mut().unwrap().remove("data_sha256");
        assert_eq!(c, &f, "{path}");
    }
    let inflate = run_records(&["maps", "index", "-q", "--verify=inflate", m], 0);
    assert_eq!(inflate.len(), full.len());
    for (i, f) in inflate.iter().zip(&full) {
        let mut f = f.clone();
        f.as_object_mut().unwrap().remove("data_sha256");
        f.as_object_mut().unwrap().remove("data_crc32");
        assert_eq!(i, &f);
    }
    let embedded_off = run_records(&["maps", "index", "-q", "--verify=off"], 0);
    let embedded_plain = run_records(&["maps", "index", "-q"], 0);
    assert_eq!(embedded_off, embedded_plain);
    assert!(embedded_plain.iter().all(|r| r.get("data_crc32").is_none()));
    let one = maps.join(full[0]["path"].as_str().unwrap());
    let spaced = run_records(
        &["maps", "index", "-q", "--verify", one.to_str().unwrap()],
        0,
    );
    assert_eq!(spaced.len(), 1);
    assert_eq!(spaced[0], full[0]);
}

#[test]
fn output_is_identical_for_any_jobs_and_mmap_mode() {
    let Some(ds) = common::datasets() else { return };
    let maps = ds.join("maps");
    let m = maps.to_str().unwrap();
    // The default (every core, no mapping) is the golden test's pass; each
    // jobs count and mmap mode is run once against it.
    let base = default_verify_index(&maps);
    assert_eq!(base.status.code(), Some(0));
    assert!(!base.stdout.is_empty());
    for args in [
        ["-j", "1", "--mmap", "never"],
        ["-j", "2", "--mmap", "always"],
        ["-j", "1", "--mmap", "auto"],
    ] {
        let mut a = vec!["maps", "index", "-q", "--verify"];
        a.extend(args);
        a.push(m);
        let o = teebatch(&a);
        assert_eq!(o.status.code(), Some(0));
        assert!(o.stdout == base.stdout, "{args:?} differs");
    }
}

/// A tree mixing good maps (with awkward names) and bad files: every good
/// map is indexed exactly as alone, every bad one has an error record with a
/// section and an offset, the exit code is 1.
#[test]
fn bad_files_are_reported_and_the_batch_goes_on() {
    let Some(ds) = common::datasets() else { return };
    let good = std::fs::read(ds.join("maps/ddnet/Tutorial.map")).unwrap();
    let small = std::fs::read(ds.join("maps/ddnet/coverage.map")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("types/novice/maps");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("Tom & Jerry's \"Run\" ü.map"), &good).unwrap();
    std::fs::write(sub.join("coverage copy.map"), &small).unwrap();
    std::fs::write(sub.join("truncated.map"), &good[..good.len() / 3]).unwrap();
    std::fs::write(sub.join("empty.map"), b"").unwrap();
    std::fs::write(sub.join("not a map.map"), b"<html>hello</html>").unwrap();
    let mut flipped = small.clone();
    let n = flipped.len();
    for i in (n / 2..n).step_by(97) {
        flipped[i] ^= 0xff;
    }
    std::fs::write(sub.join("flipped.map"), &flipped).unwrap();
    std::fs::write(sub.join("readme.txt"), b"not indexed").unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.path(), sub.join("loop")).unwrap();
        // Links to nothing: one that may be an input (a map, a folder) is
        // reported, one named as no input is left out like a `.txt` file.
        std::os::unix::fs::symlink(sub.join("gone.map"), sub.join("dangling.map")).unwrap();
        std::os::unix::fs::symlink(sub.join("gone"), sub.join("dangling folder")).unwrap();
        std::os::unix::fs::symlink(sub.join("gone.txt"), sub.join("notes.txt")).unwrap();
    }

    let recs = run_records(
        &[
            "maps",
            "index",
            "--verify",
            "-q",
            dir.path().to_str().unwrap(),
        ],
        1,
    );
    let by_name = |suffix: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(suffix))
            .unwrap_or_else(|| panic!("no record for {suffix}: {recs:#?}"))
    };
    let alone = |bytes: &[u8], name: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        let o = teebatch(&["maps", "index", "--verify", "-q", p.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0));
        let mut r = records(&o).remove(0);
        std::fs::remove_file(&p).unwrap();
        r.as_object_mut().unwrap().remove("path");
        r
    };
    let strip = |r: &Value| {
        let mut r = r.clone();
        r.as_object_mut().unwrap().remove("path");
        r
    };
    let mut tom = strip(by_name("Tom & Jerry's \"Run\" ü.map"));
    let mut tut = alone(&good, "Tom & Jerry's \"Run\" ü.map");
    tom.as_object_mut().unwrap().remove("name");
    tut.as_object_mut().unwrap().remove("name");
    assert_eq!(tom, tut);
    assert_eq!(
        by_name("Tom & Jerry's \"Run\" ü.map")["name"],
        "Tom & Jerry's \"Run\" ü"
    );
    assert!(by_name("coverage copy.map").get("error").is_none());

    for (name, kind) in [
        ("truncated.map", "truncated"),
        ("empty.map", "truncated"),
        ("not a map.map", "bad_magic"),
    ] {
        let e = &by_name(name)["error"];
        assert_eq!(e["stage"], "datafile", "{name}");
        assert_eq!(e["kind"], kind, "{name}: {e}");
        assert!(
            e["section"].is_string() && e["offset"].is_u64(),
            "{name}: {e}"
        );
    }
    // The truncated map's header was read: its fields are kept, and the
    // error names the data block the cut falls in.
    let t = by_name("truncated.map");
    for field in [
        "datafile_version",
        "num_item_types",
        "num_items",
        "num_data",
        "compressed_bytes",
        "decompressed_bytes",
    ] {
        assert!(t[field].is_string() || t[field].is_u64(), "{field}: {t}");
        assert_eq!(t[field], tut[field], "{field}");
    }
    let df = teebatch::datafile::Datafile::parse(&good).unwrap();
    let cut = good.len() / 3;
    let block = (0..df.num_data())
        .rfind(|&i| df.data_range(i).unwrap().start <= cut)
        .unwrap();
    assert_eq!(t["error"]["section"], format!("data {block}"), "{t}");
    assert_eq!(t["error"]["offset"], cut as u64, "{t}");
    // The flipped map's tables are intact: its header fields are kept, and
    // the error names the data block and its offset.
    let f = by_name("flipped.map");
    assert_eq!(f["num_items"], by_name("coverage copy.map")["num_items"]);
    assert!(
        f["error"]["section"].as_str().unwrap().starts_with("data "),
        "{f}"
    );
    #[cfg(unix)]
    assert!(
        recs.iter()
            .any(|r| r["error"]["stage"] == "io" && r["path"].as_str().unwrap().contains("loop")),
        "symlink loop reported: {recs:#?}"
    );
    #[cfg(unix)]
    for name in ["dangling.map", "dangling folder"] {
        let e = &by_name(name)["error"];
        assert_eq!(
            (e["stage"].as_str(), e["message"].as_str()),
            (Some("io"), Some("symbolic link to a missing target")),
            "{name}: {e}"
        );
    }
    assert!(!recs
        .iter()
        .any(|r| r["path"].as_str().unwrap().ends_with(".txt")));
}

#[test]
fn csv_and_summary_outputs() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.json");
    let csv = dir.path().join("maps.csv");
    let maps = ds.join("maps/ddnet");
    let out = teebatch(&[
        "maps",
        "index",
        "-q",
        "--format",
        "csv",
        "-o",
        csv.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
        maps.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let n = common::files_with_ext(&maps, "map").len();
    let mut rd = csv::Reader::from_path(&csv).unwrap();
    let headers = rd.headers().unwrap().clone();
    assert_eq!(&headers[0], "path");
    assert!(headers.iter().any(|h| h == "sha256"));
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
    assert_eq!(rows.len(), n);
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["files"].as_u64(), Some(n as u64));
    assert_eq!(s["ok"].as_u64(), Some(n as u64));
    assert_eq!(s["failed"].as_u64(), Some(0));
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        teebatch(&["maps", "index", "--format", "xml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(teebatch(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn embedded_dataset_is_reproducible_and_indexed_by_default() {
    use teebatch::synth::map::{build, SynthParams};
    let embedded = teebatch::batch::embedded::MAPS;
    assert_eq!(embedded.len(), 8);
    for (i, (name, bytes)) in embedded.iter().enumerate() {
        let params = SynthParams::collection(teebatch::batch::embedded::MAPS_SEED, i as u32);
        let map = build(&params);
        assert!(
            map.bytes == *bytes,
            "{name} differs from a fresh generation"
        );
    }
    let recs = run_records(&["maps", "index", "--verify", "-q"], 0);
    assert_eq!(recs.len(), 8);
    for (i, r) in recs.iter().enumerate() {
        let params = SynthParams::collection(teebatch::batch::embedded::MAPS_SEED, i as u32);
        let map = build(&params);
        assert_eq!(r["path"], format!("embedded:{}", embedded[i].0));
        assert_eq!(
            r["map"]["stats"],
            serde_json::to_value(&map.stats).unwrap(),
            "{}",
            embedded[i].0
        );
        assert_eq!(
            r["map"]["counts"],
            serde_json::to_value(map.counts).unwrap()
        );
        assert!(r["data_crc32"].is_string());
        assert_eq!(r["warnings"], serde_json::json!([]));
    }
}
