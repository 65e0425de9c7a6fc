//! `bench --format json` carries the same figures as the text table plus
//! the machine and the tiers; figures are medians of the runs asked, with
//! their spread; `--save` then `--compare` gives a verdict for every figure.

use crate::backend::dispatch::{expected_kernels, teebatch_with_level};
use teebatch::backend::X86Level;

/// The rows of a `bench` text table: the lines after its column header
/// (which the inputs, the sampling and any warnings precede).
fn text_rows(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !(l.starts_with("kernel ") || l.starts_with("measurement ")))
        .skip(1)
        .map(str::to_string)
        .collect()
}

#[test]
fn bench_json_has_the_tables_figures_machine_and_tiers() {
    let level = X86Level::detected().min(X86Level::Avx2);
    let args = ["bench", "codecs", "--seconds", "0"];
    let text = teebatch_with_level(level.name(), &args);
    assert_eq!(text.status.code(), Some(0));
    let rows = text_rows(&String::from_utf8(text.stdout).unwrap());
    let json = teebatch_with_level(level.name(), &[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["format"], "teebatch-bench");
    assert_eq!(doc["bench"], "codecs");
    assert_eq!(doc["tiers"]["active"], level.name());
    assert_eq!(doc["tiers"]["detected"], X86Level::detected().name());
    if cfg!(target_arch = "x86_64") {
        for (family, kernel) in expected_kernels(level) {
            assert_eq!(doc["tiers"][family], kernel, "{family}");
        }
        let features = doc["machine"]["features"].as_array().unwrap();
        assert!(features.contains(&"sse2".into()));
    }
    assert!(doc["date"].as_str().unwrap().ends_with('Z'));
    assert_eq!(doc["command"][1], "bench");
    let figures = doc["figures"].as_array().unwrap();
    // Every text row is a figure, in the same order; the text names carry
    // the unit.
    assert_eq!(figures.len(), rows.len(), "{rows:?}");
    for (f, row) in figures.iter().zip(&rows) {
        let name = format!(
            "{} (MB/s of {})",
            f["measurement"].as_str().unwrap(),
            f["unit"].as_str().unwrap()
        );
        let tier = f["tier"].as_str().unwrap();
        let rest = row.strip_prefix(&name).map(str::split_whitespace);
        assert_eq!(rest.and_then(|mut r| r.next()), Some(tier), "{name}: {row}");
        assert!(f["mb_per_s"].as_f64().unwrap() > 0.0, "{f}");
        assert!(f["runs"].as_u64().unwrap() >= 1, "{f}");
    }
    // One varint figure per SIMD kernel this CPU can run.
    let varint_kernels: Vec<&str> = figures
        .iter()
        .filter(|f| f["measurement"] == "varint unpack, simd")
        .map(|f| f["tier"].as_str().unwrap())
        .collect();
    let available: Vec<&str> = teebatch::codec::varint::simd::Kernel::ALL
        .into_iter()
        .filter(|k| k.available())
        .map(|k| k.name())
        .collect();
    assert_eq!(varint_kernels, available);
}

#[test]
fn bench_json_of_maps_and_demos_has_every_row_of_the_table() {
    for bench in ["maps", "demos"] {
        let args = ["bench", bench, "--seconds", "0", "-j", "2"];
        let text = teebatch_with_level("sse2", &args);
        assert_eq!(text.status.code(), Some(0), "{bench}");
        let rows = text_rows(&String::from_utf8(text.stdout).unwrap());
        let json = teebatch_with_level("sse2", &[&args[..], &["--format", "json"]].concat());
        assert_eq!(json.status.code(), Some(0), "{bench}");
        let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(doc["bench"], bench);
        assert_eq!(
            doc["tiers"]["active"],
            X86Level::detected().min(X86Level::Sse2).name()
        );
        let figures = doc["figures"].as_array().unwrap();
        assert_eq!(figures.len(), rows.len(), "{bench}: {rows:?}");
        for (f, row) in figures.iter().zip(&rows) {
            let name = f["measurement"].as_str().unwrap();
            let rest = row.strip_prefix(name).map(str::split_whitespace);
            let first = rest.and_then(|mut r| r.next());
            // demos: the tier follows the name; maps: maps/s or `-`.
            match f["tier"].as_str() {
                Some(tier) => assert_eq!(first, Some(tier), "{bench}: {row}"),
                None => assert!(first.is_some(), "{bench}: {row}"),
            }
            if bench == "maps" {
                assert_eq!(f["maps_per_s"].is_f64(), first != Some("-"), "{row}");
            }
            assert!(f["mb_per_s"].as_f64().unwrap() > 0.0, "{f}");
        }
    }
}

#[test]
fn bench_figures_are_medians_of_the_runs_asked_with_their_spread() {
    let args = [
        "bench",
        "codecs",
        "--seconds",
        "0",
        "--runs",
        "3",
        "--warmup",
        "0",
        "--format",
        "json",
    ];
    let out = teebatch_with_level("sse2", &args);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["version"], 2);
    assert_eq!(doc["sampling"]["runs"], 3);
    assert_eq!(doc["sampling"]["warmup"], 0);
    assert_eq!(doc["threads"], 1);
    // Structured inputs: no PATH, the embedded demos.
    assert_eq!(doc["inputs"]["paths"].as_array().unwrap().len(), 0);
    assert!(doc["inputs"]["files"].as_u64().unwrap() >= 1);
    assert!(doc["inputs"]["bytes"].as_u64().unwrap() > 0);
    // The embedded dataset is always too small: the run says so.
    let warnings = doc["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("embedded dataset")),
        "{warnings:?}"
    );
    assert_eq!(doc["build"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(doc["build"]["profile"].is_string());
    for f in doc["figures"].as_array().unwrap() {
        let samples: Vec<f64> = f["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(samples.len(), 3, "{f}");
        assert_eq!(f["runs"], 3);
        // The median of three is the middle sample.
        let mut sorted = samples.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(f["seconds_per_run"].as_f64().unwrap(), sorted[1], "{f}");
        let (med, lo, hi) = (
            f["mb_per_s"].as_f64().unwrap(),
            f["mb_per_s_min"].as_f64().unwrap(),
            f["mb_per_s_max"].as_f64().unwrap(),
        );
        assert!(lo <= med && med <= hi, "{f}");
    }
}

#[test]
fn bench_save_then_compare_gives_a_verdict_for_every_figure() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
            .args(["bench", "demos", "--seconds", "0", "--runs", "3", "-j", "1"])
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["--save", "base"]);
    let saved = dir.path().join(".teebatch-bench/base.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&saved).unwrap()).unwrap();
    let figures = doc["figures"].as_array().unwrap().len();
    assert!(figures >= 4);
    // JSON: one comparison per figure, none new or gone.
    let json: serde_json::Value =
        serde_json::from_str(&run(&["--compare", "base", "--format", "json"])).unwrap();
    let c = json["comparison"].as_array().unwrap();
    assert_eq!(c.len(), figures);
    for x in c {
        let v = x["verdict"].as_str().unwrap();
        assert!(["no change", "improved", "regressed"].contains(&v), "{x}");
        let change = x["after"].as_f64().unwrap() / x["before"].as_f64().unwrap() - 1.0;
        assert!((change - x["change"].as_f64().unwrap()).abs() < 1e-9, "{x}");
        assert_eq!(
            v == "no change",
            change.abs() <= x["noise"].as_f64().unwrap(),
            "{x}"
        );
    }
    // Text: the same verdicts after the table, by path too.
    let text = run(&["--compare", saved.to_str().unwrap()]);
    let tail: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("compared with "))
        .skip(1)
        .collect();
    assert_eq!(tail.len(), figures, "{text}");
    // A missing saved run is an error naming it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args([
            "bench",
            "codecs",
            "--seconds",
            "0",
            "--runs",
            "1",
            "--compare",
            "nothing",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(".teebatch-bench/nothing.json"), "{err}");
}

/// `bench export`: the decode floor, then per table its batches alone
/// (built and dropped) and each writer; every line of a table counts the
/// rows `demos export` writes, and a writer's output bytes are the size of
/// the file `demos export` writes.
#[test]
fn bench_export_lines_count_the_rows_and_bytes_of_demos_export() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let export = [
        "demos", "export", "-q", "--table", "game", "--format", "csv",
    ];
    let o = teebatch_with_level("sse2", &[&export[..], &["--out", out]].concat());
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let file = std::fs::read_to_string(tmp.path().join("game.csv")).unwrap();
    let rows = file.lines().count() as u64 - 1;
    assert!(rows > 100, "the embedded demos have game rows: {rows}");

    let args = [
        "bench",
        "export",
        "--seconds",
        "0",
        "--runs",
        "1",
        "--table",
        "game",
        "--writer",
        "csv",
        "--writer",
        "jsonl",
    ];
    let text = teebatch_with_level("sse2", &args);
    assert_eq!(text.status.code(), Some(0));
    let names: Vec<String> = text_rows(&String::from_utf8(text.stdout).unwrap())
        .iter()
        .map(|r| r.split("  ").next().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "full decode (floor)",
            "export game batches",
            "export game csv",
            "export game jsonl"
        ]
    );
    let json = teebatch_with_level("sse2", &[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let figures = doc["figures"].as_array().unwrap();
    // "N rows, R rows/s, X.XXx decode, B output bytes, S s wall"
    let note_number = |f: &serde_json::Value, unit: &str| -> u64 {
        let words: Vec<&str> = f["note"].as_str().unwrap().split_whitespace().collect();
        let i = words
            .iter()
            .position(|w| w.trim_end_matches(',') == unit)
            .unwrap();
        words[i - 1].parse().unwrap()
    };
    let by_name = |name: &str| {
        figures
            .iter()
            .find(|f| f["measurement"] == name)
            .unwrap_or_else(|| panic!("{name}: {figures:?}"))
    };
    for line in ["batches", "csv", "jsonl"] {
        let f = by_name(&format!("export game {line}"));
        assert_eq!(note_number(f, "rows"), rows, "{line}");
    }
    assert_eq!(note_number(by_name("export game batches"), "output"), 0);
    assert_eq!(
        note_number(by_name("export game csv"), "output"),
        file.len() as u64
    );
    assert!(note_number(by_name("export game jsonl"), "output") > file.len() as u64);
}
