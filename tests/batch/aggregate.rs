//! Collection summaries (`--summary`), `teebatch merge`, `--shard K/N` and
//! `--files-from` on the real datasets.

use crate::common::{self, records, teebatch};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use teebatch::batch::summary::{Aggregate, DemosAggregate, MapsAggregate};
use teebatch::batch::{collect_inputs, demos, maps, Input};

/// Runs `teebatch args --summary FILE -q`, requires exit `code`, returns the
/// summary without `run` and the records.
fn summary_of(args: &[&str], code: i32) -> (Value, Vec<Value>) {
    summary_in(None, args, code)
}

/// `teebatch args`, in the folder `cwd` if given.
fn teebatch_in(cwd: Option<&Path>, args: &[&str]) -> std::process::Output {
    match cwd {
        None => teebatch(args),
        Some(d) => std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
            .current_dir(d)
            .args(args)
            .output()
            .expect("run teebatch"),
    }
}

/// [`summary_of`], run in the folder `cwd` if given (paths in `args`
/// relative to it).
fn summary_in(cwd: Option<&Path>, args: &[&str], code: i32) -> (Value, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let mut a = args.to_vec();
    a.extend(["-q", "--summary", file.to_str().unwrap()]);
    let out = teebatch_in(cwd, &a);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (read_summary(&file), records(&out))
}

fn read_summary(path: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(v["run"].is_object(), "run object");
    v.as_object_mut().unwrap().remove("run");
    v
}

/// Runs `teebatch merge files -o OUT`; returns the exit code, stderr and
/// the merged summary (if written) without `run`.
fn merge(files: &[&Path]) -> (i32, String, Option<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("merged.json");
    let mut a = vec!["merge", "-q", "-o", out_file.to_str().unwrap()];
    a.extend(files.iter().map(|p| p.to_str().unwrap()));
    let out = teebatch(&a);
    let merged = out.status.success().then(|| read_summary(&out_file));
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        merged,
    )
}

/// Writes `teebatch <cmd> index --shard K/N --summary` for K in 1..=N, run
/// in the folder `cwd` if given.
fn shard_summaries(
    cmd: &str,
    dir: &Path,
    cwd: Option<&Path>,
    root: &str,
    n: u32,
) -> (Vec<PathBuf>, Vec<Value>) {
    let mut files = Vec::new();
    let mut recs = Vec::new();
    for k in 1..=n {
        let f = dir.join(format!("{cmd}-{k}.json"));
        let shard = format!("{k}/{n}");
        let out = teebatch_in(
            cwd,
            &[
                cmd,
                "index",
                "-q",
                "--shard",
                &shard,
                "--summary",
                f.to_str().unwrap(),
                root,
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        let r = records(&out);
        assert!(!r.is_empty(), "shard {shard} of {root} is empty");
        recs.extend(r);
        files.push(f);
    }
    (files, recs)
}

fn permutations(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in permutations(n - 1) {
        for i in 0..=p.len() {
            let mut q = p.clone();
            q.insert(i, n - 1);
            out.push(q);
        }
    }
    out
}

/// Duplicates and name collisions of the maps summary equal those
/// recomputed from the golden `maps.tsv` (sha256 and path columns), with
/// three maps listed a second time under another spelling of their path
/// (`dir/../dir/name.map`) so that the duplicate search has real work.
#[test]
fn maps_summary_matches_golden_tsv() {
    let Some(ds) = common::datasets() else { return };
    let maps = ds.join("maps");
    let golden = std::fs::read_to_string(ds.join("golden/maps.tsv")).unwrap();
    let rows: Vec<Vec<&str>> = golden.lines().map(|l| l.split('\t').collect()).collect();
    let mut by_sha: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut versions: BTreeMap<String, u64> = BTreeMap::new();
    let mut bytes = 0u64;
    for r in &rows {
        let p = maps.join(r[0]).to_string_lossy().into_owned();
        by_sha.entry(r[7].to_owned()).or_default().insert(p);
        *versions.entry(r[2].to_owned()).or_default() += 1;
        bytes += r[1].parse::<u64>().unwrap();
    }
    // Aliases of three maps from the golden list.
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("aliases.txt");
    let mut aliases = String::new();
    for r in rows.iter().step_by(rows.len() / 3).take(3) {
        let (d, f) = r[0].rsplit_once('/').unwrap();
        let alias = maps.join(format!("{d}/../{d}/{f}"));
        aliases.push_str(&format!("{}\n", alias.display()));
        by_sha
            .get_mut(r[7])
            .unwrap()
            .insert(alias.to_string_lossy().into_owned());
        bytes += r[1].parse::<u64>().unwrap();
        *versions.entry(r[2].to_owned()).or_default() += 1;
    }
    std::fs::write(&list, aliases).unwrap();
    let (s, _) = summary_of(
        &[
            "maps",
            "index",
            "--files-from",
            list.to_str().unwrap(),
            maps.to_str().unwrap(),
        ],
        0,
    );
    let want_dups: BTreeMap<&String, Vec<&String>> = by_sha
        .iter()
        .filter(|(_, p)| p.len() >= 2)
        .map(|(s, p)| (s, p.iter().collect()))
        .collect();
    assert_eq!(want_dups.len(), 3);
    assert_eq!(s["duplicates"], serde_json::to_value(&want_dups).unwrap());
    // Name collisions: file stems with two or more sha256.
    let mut by_name: BTreeMap<String, BTreeMap<&String, Vec<&String>>> = BTreeMap::new();
    for (sha, paths) in &by_sha {
        for p in paths {
            let stem = Path::new(p)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            by_name
                .entry(stem)
                .or_default()
                .entry(sha)
                .or_default()
                .push(p);
        }
    }
    by_name.retain(|_, shas| shas.len() >= 2);
    assert!(by_name.len() >= 5, "the dataset has map versions");
    assert_eq!(
        s["name_collisions"],
        serde_json::to_value(&by_name).unwrap()
    );
    assert_eq!(s["files"], rows.len() as u64 + 3);
    assert_eq!(s["ok"], rows.len() as u64 + 3);
    assert_eq!(s["bytes"], bytes);
    assert_eq!(
        s["datafile_versions"],
        serde_json::to_value(&versions).unwrap()
    );
    assert_eq!(s["format"], "teebatch-summary");
    assert_eq!(s["version"], 1);
    assert_eq!(s["command"], "maps index");
}

/// Per-map demo counts, versions and chunk totals of the demos summary
/// equal those summed from the independent decoder's golden summaries.
#[test]
fn demos_summary_matches_golden_summaries() {
    let Some(ds) = common::datasets() else { return };
    let demos = ds.join("demos");
    let (s, _) = summary_of(&["demos", "index", demos.to_str().unwrap()], 0);
    let mut maps: BTreeMap<String, BTreeMap<String, (u64, i64)>> = BTreeMap::new();
    let mut versions: BTreeMap<String, u64> = BTreeMap::new();
    let (mut ticks, mut snaps, mut deltas, mut msgs, mut recon) = (0, 0, 0, 0, 0);
    let (mut files, mut chunk_bytes) = (0, 0);
    for f in common::files_with_ext(&ds.join("golden"), "json") {
        if !f.to_string_lossy().ends_with(".summary.json") {
            continue;
        }
        let g: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        files += 1;
        let dur = g["last_tick"].as_i64().unwrap() - g["first_tick"].as_i64().unwrap();
        let e = maps
            .entry(g["header"]["map_name"].as_str().unwrap().to_owned())
            .or_default()
            .entry(g["embedded_map"]["sha256"].as_str().unwrap().to_owned())
            .or_default();
        e.0 += 1;
        e.1 += dur;
        *versions
            .entry(g["header"]["version_number"].to_string())
            .or_default() += 1;
        let c = &g["chunks"];
        ticks += c["tick_markers"].as_u64().unwrap();
        snaps += c["snapshot"].as_u64().unwrap();
        deltas += c["snapshot_delta"].as_u64().unwrap();
        msgs += c["message"].as_u64().unwrap();
        recon += g["snapshots_reconstructed"].as_u64().unwrap();
        // The chunks are what follows the header and the embedded map. The
        // header's size by version, from libtw2-doc's demo.md: 8 bytes of
        // magic and version, 168 of fields, 260 of timeline markers from
        // version 4, 48 of map SHA-256 (UUID + hash) from version 6.
        let version = g["header"]["version_number"].as_u64().unwrap();
        let header =
            8 + 168 + if version >= 4 { 260 } else { 0 } + if version >= 6 { 48 } else { 0 };
        chunk_bytes +=
            g["file_size"].as_u64().unwrap() - g["embedded_map"]["size"].as_u64().unwrap() - header;
    }
    assert_eq!(files, 10);
    assert_eq!(s["chunk_bytes"], chunk_bytes);
    assert_eq!(s["files"], files);
    let got: BTreeMap<String, BTreeMap<String, (u64, i64)>> = s["maps"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, shas)| {
            let shas = shas
                .as_object()
                .unwrap()
                .iter()
                .map(|(sha, u)| {
                    let d = u["duration_ticks"].as_i64().unwrap();
                    (sha.clone(), (u["demos"].as_u64().unwrap(), d))
                })
                .collect();
            (name.clone(), shas)
        })
        .collect();
    assert_eq!(got, maps);
    assert_eq!(got["tinycave"].values().map(|u| u.0).sum::<u64>(), 4);
    assert_eq!(s["versions"], serde_json::to_value(&versions).unwrap());
    let t = &s["totals"];
    assert_eq!(t["ticks"], ticks);
    assert_eq!(t["snapshots"], snaps);
    assert_eq!(t["deltas"], deltas);
    assert_eq!(t["messages"], msgs);
    assert_eq!(t["snapshots_reconstructed"], recon);
    let dur: i64 = maps.values().flat_map(|m| m.values()).map(|u| u.1).sum();
    assert_eq!(t["duration_ticks"], dur);
}

/// `--jobs 1` and `--jobs 2` give the same summary; three shards, merged
/// in every order, give the summary of one run, and their records are
/// those of one run.
///
/// Run in the datasets folder on the relative roots `maps` and `demos`: a
/// file's shard follows from its path as given, so the shards (every one
/// of them non-empty here: demos 7, 1 and 2 of 10) do not depend on where
/// the checkout is.
#[test]
fn shards_merged_in_any_order_equal_one_run() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cwd = Some(ds.as_path());
    for (cmd, root) in [("maps", "maps"), ("demos", "demos")] {
        let (one, mut one_recs) = summary_in(cwd, &[cmd, "index", "-j", "1", root], 0);
        let (two, _) = summary_in(cwd, &[cmd, "index", "-j", "2", "--mmap", "always", root], 0);
        assert_eq!(one, two, "{cmd}: -j1 vs -j2");
        assert_eq!(one["inputs"]["parts"][0]["shard"], Value::Null);
        let (files, mut shard_recs) = shard_summaries(cmd, dir.path(), cwd, root, 3);
        let key = |r: &Value| r["path"].as_str().unwrap().to_owned();
        shard_recs.sort_by_key(key);
        one_recs.sort_by_key(key);
        assert_eq!(shard_recs, one_recs, "{cmd}: shard records");
        for order in permutations(3) {
            let f: Vec<&Path> = order.iter().map(|&i| files[i].as_path()).collect();
            let (code, err, merged) = merge(&f);
            assert_eq!(code, 0, "{err}");
            assert_eq!(merged.unwrap(), one, "{cmd}: merge order {order:?}");
        }
        // Associativity through files: (1 + 2) + 3.
        let (code, _, m12) = merge(&[&files[0], &files[1]]);
        assert_eq!(code, 0);
        let m12_file = dir.path().join(format!("{cmd}-12.json"));
        let mut m12 = m12.unwrap();
        m12["run"] = Value::Null;
        std::fs::write(&m12_file, m12.to_string()).unwrap();
        assert_eq!(m12["inputs"]["parts"].as_array().unwrap().len(), 2);
        let (code, err, m) = merge(&[&files[2], &m12_file]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(m.unwrap(), one, "{cmd}: 3 + (1 + 2)");
    }
}

/// Merges that would count files twice, mix commands or versions, or read
/// files that are not summaries are refused, naming the file.
#[test]
fn merge_refusals() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let maps = ds.join("maps");
    let root = maps.to_str().unwrap();
    let (files, _) = shard_summaries("maps", d, None, root, 2);
    let whole = d.join("whole.json");
    let third = d.join("third.json");
    let ddnet = d.join("ddnet.json");
    let demos = d.join("demos.json");
    let run = |args: &[&str]| assert_eq!(teebatch(args).status.code(), Some(0), "{args:?}");
    run(&[
        "maps",
        "index",
        "-q",
        "--summary",
        whole.to_str().unwrap(),
        root,
    ]);
    run(&[
        "maps",
        "index",
        "-q",
        "--shard",
        "1/3",
        "--summary",
        third.to_str().unwrap(),
        root,
    ]);
    let ddnet_root = maps.join("ddnet");
    run(&[
        "maps",
        "index",
        "-q",
        "--summary",
        ddnet.to_str().unwrap(),
        ddnet_root.to_str().unwrap(),
    ]);
    let demo_root = ds.join("demos");
    run(&[
        "demos",
        "index",
        "-q",
        "--summary",
        demos.to_str().unwrap(),
        demo_root.to_str().unwrap(),
    ]);
    let expect = |files: &[&Path], code: i32, names: &Path, says: &str| {
        let (c, err, _) = merge(files);
        assert_eq!(c, code, "{files:?}: {err}");
        assert!(err.contains(&*names.to_string_lossy()), "{err}");
        assert!(err.contains(says), "{err}");
    };
    expect(
        &[&files[0], &files[0]],
        2,
        &files[0],
        "shard 1/2) is already merged in",
    );
    expect(&[&files[1], &whole], 2, &whole, "overlap");
    expect(
        &[&files[0], &third],
        2,
        &third,
        "different numbers of shards",
    );
    // Different roots, same files: caught by the maps' paths.
    expect(&[&whole, &ddnet], 2, &ddnet, "both cover the map");
    expect(
        &[&whole, &demos],
        2,
        &demos,
        "\"demos index\" summary cannot be merged",
    );
    // Another format version.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&whole).unwrap()).unwrap();
    v["version"] = 2.into();
    let v2 = d.join("v2.json");
    std::fs::write(&v2, v.to_string()).unwrap();
    expect(&[&whole, &v2], 2, &v2, "summary format version 2");
    // Not summaries: a record file, JSON without the format, a bad field,
    // a missing file.
    let recs = d.join("recs.jsonl");
    let o = teebatch(&["maps", "index", "-q", "-o", recs.to_str().unwrap(), root]);
    assert_eq!(o.status.code(), Some(0));
    expect(&[&whole, &recs], 1, &recs, "not a teebatch summary");
    let other = d.join("other.json");
    std::fs::write(&other, r#"{"files": 3}"#).unwrap();
    expect(&[&other], 1, &other, "not a teebatch summary");
    let mut bad = v.clone();
    bad["version"] = 1.into();
    bad["files"] = "many".into();
    let badf = d.join("bad.json");
    std::fs::write(&badf, bad.to_string()).unwrap();
    expect(&[&whole, &badf], 1, &badf, "bad summary");
    let missing = d.join("missing.json");
    expect(&[&missing], 1, &missing, "missing.json");
    // Usage: no summaries at all.
    assert_eq!(teebatch(&["merge"]).status.code(), Some(2));
    // Disjoint shards merge.
    let (c, err, _) = merge(&[&files[0], &files[1]]);
    assert_eq!(c, 0, "{err}");
}

/// `--files-from` with newline and NUL separators, stdin, odd file names
/// (symlinks to real maps named with spaces, a newline, non-UTF-8 bytes),
/// combined with PATH arguments and `--shard`.
#[cfg(unix)]
#[test]
fn files_from_lists_with_odd_names() {
    use std::io::Write;
    use std::os::unix::ffi::OsStrExt;
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let real = common::files_with_ext(&ds.join("maps/ddnet"), "map");
    assert!(real.len() >= 4);
    let names: Vec<&[u8]> = vec![
        b"with space.map",
        b"new\nline.map",
        b"caf\xc3\xa9 \xe2\x98\x83.map",
        b"latin1 \xe9.map",
    ];
    let mut links = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let p = d.join(std::ffi::OsStr::from_bytes(n));
        std::os::unix::fs::symlink(&real[i], &p).unwrap();
        links.push(p);
    }
    let nul_list = d.join("list0");
    let mut l = Vec::new();
    for p in &links {
        l.extend_from_slice(p.as_os_str().as_bytes());
        l.push(0);
    }
    std::fs::write(&nul_list, &l).unwrap();
    let want: BTreeSet<String> = links
        .iter()
        .map(|p| teebatch::batch::encode_path(p))
        .collect();
    let paths = |recs: &[Value]| -> BTreeSet<String> {
        recs.iter()
            .map(|r| r["path"].as_str().unwrap().to_owned())
            .collect()
    };
    let (s, recs) = summary_of(
        &[
            "maps",
            "index",
            "-0",
            "--files-from",
            nul_list.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(paths(&recs), want);
    assert_eq!(s["files"], 4);
    assert_eq!(
        s["inputs"]["parts"][0]["files_from"][0],
        nul_list.to_str().unwrap()
    );
    // Newline-separated from stdin: the name with a newline cannot be
    // listed; the others can, combined with a PATH argument.
    let nl: Vec<u8> = links
        .iter()
        .filter(|p| !p.as_os_str().as_bytes().contains(&b'\n'))
        .flat_map(|p| [p.as_os_str().as_bytes(), b"\n"].concat())
        .collect();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args(["maps", "index", "-q", "--files-from", "-"])
        .arg(&real[0])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&nl).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let mut want_nl: BTreeSet<String> =
        want.iter().filter(|p| !p.contains('\n')).cloned().collect();
    want_nl.insert(real[0].to_string_lossy().into_owned());
    assert_eq!(paths(&records(&out)), want_nl);
    // Shards of a list are disjoint and cover it.
    let mut union = BTreeSet::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let o = teebatch(&[
            "maps",
            "index",
            "-q",
            "--null",
            "--verify",
            "--mmap",
            "always",
            "-j",
            "2",
            "--shard",
            &shard,
            "--files-from",
            nul_list.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0));
        for p in paths(&records(&o)) {
            assert!(union.insert(p), "in two shards");
        }
    }
    assert_eq!(union, want);
    // A shard spec that is not K/N with 1 <= K <= N is a usage error.
    for bad in ["0/2", "3/2", "1", "x/2"] {
        let o = teebatch(&["maps", "index", "--shard", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
    // A list that cannot be read is a usage error naming it.
    let o = teebatch(&["maps", "index", "--files-from", "/nonexistent/list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/list"));
    // An empty list indexes nothing (not the embedded dataset): nothing
    // found, exit code 1.
    let empty = d.join("empty");
    std::fs::write(&empty, b"").unwrap();
    let (s, recs) = summary_of(
        &["maps", "index", "--files-from", empty.to_str().unwrap()],
        1,
    );
    assert!(recs.is_empty());
    assert_eq!(s["files"], 0);
}

/// Records of every real map and demo, computed once through the library.
fn real_records() -> Option<&'static (Vec<maps::MapRecord>, Vec<demos::DemoRecord>)> {
    static RECS: OnceLock<(Vec<maps::MapRecord>, Vec<demos::DemoRecord>)> = OnceLock::new();
    // Outside the cache, so every test that goes without is counted.
    let ds = common::datasets()?;
    Some(RECS.get_or_init(|| {
        let opts = maps::IndexOptions::default();
        let mut w = maps::Worker::new(opts.limits);
        let m: Vec<maps::MapRecord> = collect_inputs(&[ds.join("maps")], "map")
            .iter()
            .map(|i: &Input| maps::index_input(&mut w, i, &opts))
            .collect();
        let opts = demos::IndexOptions::default();
        let mut w = demos::Worker::new(&opts);
        let d: Vec<demos::DemoRecord> = collect_inputs(&[ds.join("demos")], "demo")
            .iter()
            .map(|i| demos::index_input(&mut w, i, &opts))
            .collect();
        (m, d)
    }))
}

/// Folds `recs` split by `part` (values 0..5) into five aggregates and
/// merges them in the order `picks` gives (any tree of merges, either side
/// first); the result must equal the fold of all records.
fn split_and_merge<A: Aggregate>(
    recs: &[A::Record],
    part: &[usize],
    picks: &[(prop::sample::Index, prop::sample::Index, bool)],
) -> (Value, Value) {
    let mut whole = A::default();
    let mut parts: Vec<A> = (0..5).map(|_| A::default()).collect();
    for (r, &p) in recs.iter().zip(part) {
        whole.add(r);
        parts[p].add(r);
    }
    let mut picks = picks.iter();
    while parts.len() > 1 {
        let (i, j, flip) = picks.next().expect("4 picks");
        let a = parts.remove(i.index(parts.len()));
        let j = j.index(parts.len());
        let b = std::mem::take(&mut parts[j]);
        let (mut x, y) = if *flip { (a, b) } else { (b, a) };
        x.merge(y).unwrap();
        parts[j] = x;
    }
    let mut merged = parts.pop().unwrap();
    whole.finish();
    merged.finish();
    (
        serde_json::to_value(&merged).unwrap(),
        serde_json::to_value(&whole).unwrap(),
    )
}

#[test]
fn random_splits_of_the_real_datasets_merge_exactly() {
    let Some((m, d)) = real_records() else { return };
    let n = m.len().max(d.len());
    let config = Config {
        cases: 12,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(15),
        ..Config::default()
    };
    let pick = (
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        any::<bool>(),
    );
    proptest!(config, |(
        part in prop::collection::vec(0usize..5, n),
        picks in prop::collection::vec(pick, 4),
    )| {
        let (merged, whole) = split_and_merge::<MapsAggregate>(m, &part, &picks);
        prop_assert_eq!(merged, whole);
        let (merged, whole) = split_and_merge::<DemosAggregate>(d, &part, &picks);
        prop_assert_eq!(merged, whole);
    });
    // The fold sees what the records say.
    let mut a = MapsAggregate::default();
    m.iter().for_each(|r| a.add(r));
    assert_eq!(a.files, m.len() as u64);
    assert_eq!(
        a.paths_by_sha256.len(),
        m.iter().filter(|r| r.body.sha256.is_some()).count()
    );
    let mut a = DemosAggregate::default();
    d.iter().for_each(|r| a.add(r));
    assert_eq!(
        a.totals.ticks,
        d.iter().map(|r| r.body.ticks.unwrap_or(0)).sum::<u64>()
    );
    // The splits above merge real finishes: Multeasymap's two chat lines.
    assert_eq!(a.totals.race_finishes, 2);
    let finishers: Vec<(&str, u64)> = a
        .finishes_by_player
        .iter()
        .map(|(n, c)| (n.as_str(), *c))
        .collect();
    assert_eq!(finishers, [("Zrocken", 1), ("fakaskin", 1)]);
    let by_map: u64 = a.maps["Multeasymap"].values().map(|u| u.finishes).sum();
    assert_eq!(by_map, 2);
}

/// Merging an aggregate with a copy of itself is refused for maps (same
/// paths); the example paths kept are the smallest whatever the order.
#[test]
fn examples_keep_the_smallest_paths() {
    use teebatch::batch::summary::{Examples, MAX_EXAMPLES};
    let paths: Vec<String> = (0..40).map(|i| format!("p{:02}", (i * 7) % 40)).collect();
    let mut fwd = Examples::default();
    paths.iter().for_each(|p| fwd.insert(p));
    let mut rev = Examples::default();
    paths.iter().rev().for_each(|p| rev.insert(p));
    let want: Vec<String> = (0..MAX_EXAMPLES).map(|i| format!("p{i:02}")).collect();
    assert_eq!(fwd.iter().collect::<Vec<_>>(), want);
    assert_eq!(fwd, rev);
    let Some((m, _)) = real_records() else { return };
    let mut a = MapsAggregate::default();
    m.iter().for_each(|r| a.add(r));
    let err = a.clone().merge(a).unwrap_err();
    assert!(err.contains("both cover the map"), "{err}");
}

/// The end of the stderr summary is a short digest of the collection
/// summary: top maps and players, duplicates, errors and warnings by kind.
#[test]
fn stderr_digest_is_a_few_lines() {
    let Some(ds) = common::datasets() else { return };
    let out = teebatch(&["demos", "index", ds.join("demos").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().collect();
    assert!(lines.len() <= 8, "{err}");
    assert!(
        lines[0].starts_with("demos index: 10 files (10 ok, 0 failed)"),
        "{err}"
    );
    assert!(
        err.contains("  top maps: tinycave (4 demos), Tutorial (2 demos)"),
        "{err}"
    );
    assert!(err.contains("  top players: "), "{err}");
    assert!(
        err.contains("  warning demo.timeline_marker_padding: 1 (e.g. "),
        "{err}"
    );
    let out = teebatch(&["maps", "index", ds.join("maps").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "  249 distinct sha256; duplicates: 0 sha256 under 0 paths; name collisions: 11 names"
        ),
        "{err}"
    );
    assert!(err.contains("  top authors: ChillerDragon (20)"), "{err}");
}

/// A JSON value that keeps its object keys in document order.
enum Ordered {
    Obj(Vec<(String, Ordered)>),
    Arr(Vec<Ordered>),
    Num(serde_json::Number),
    Str(String),
    Other,
}

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some(e) = m.next_entry()? {
                    v.push(e);
                }
                Ok(Ordered::Obj(v))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut s: A,
            ) -> Result<Ordered, A::Error> {
                let mut v = Vec::new();
                while let Some(e) = s.next_element()? {
                    v.push(e);
                }
                Ok(Ordered::Arr(v))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Ordered, E> {
                Ok(Ordered::Num(n.into()))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Ordered, E> {
                Ok(Ordered::Num(n.into()))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Ordered, E> {
                Ok(serde_json::Number::from_f64(n).map_or(Ordered::Other, Ordered::Num))
            }
            fn visit_str<E>(self, s: &str) -> Result<Ordered, E> {
                Ok(Ordered::Str(s.to_owned()))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Ordered, E> {
                Ok(Ordered::Other)
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// Every number below `v` is a non-negative integer; every object whose
/// keys are data (`keyed`: below a field named in `maps`) has its keys in
/// strictly increasing byte order, and every list of strings is sorted.
fn check_ordered(v: &Ordered, at: &str, keyed: bool, maps: &[&str]) {
    match v {
        Ordered::Num(n) => assert!(n.is_u64(), "{at}: {n} is not a non-negative integer"),
        Ordered::Arr(items) => {
            let strs: Vec<&str> = items
                .iter()
                .filter_map(|i| match i {
                    Ordered::Str(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            assert!(strs.windows(2).all(|w| w[0] < w[1]), "{at}: {strs:?}");
            for (i, x) in items.iter().enumerate() {
                check_ordered(x, &format!("{at}[{i}]"), false, maps);
            }
        }
        Ordered::Obj(fields) => {
            if keyed {
                let keys: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
                assert!(keys.windows(2).all(|w| w[0] < w[1]), "{at}: {keys:?}");
            }
            for (k, x) in fields {
                let deeper = keyed && matches!(x, Ordered::Obj(_)) && maps.contains(&at);
                let at = format!("{at}.{k}");
                let keyed = maps.contains(&at.as_str()) || deeper;
                check_ordered(x, &at, keyed, maps);
            }
        }
        Ordered::Str(_) | Ordered::Other => {}
    }
}

/// Outside `run`, a summary holds integers only, and every map of it
/// (versions, tiles, names, kinds, sha256s, ...) has sorted keys and
/// sorted path lists, so two runs over the same files write the same
/// bytes there whatever the order files were read in.
#[test]
fn summary_outside_run_is_integers_with_sorted_keys() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let maps_keyed = [
        ".datafile_versions",
        ".map_version_kinds",
        ".special_tiles",
        ".entities",
        ".layers",
        ".uuid_types",
        ".external_images",
        ".authors",
        ".errors",
        ".warnings",
        ".duplicates",
        ".name_collisions",
        ".content_duplicates",
        ".paths_by_sha256",
        ".data_sha256_by_sha256",
    ];
    let demos_keyed = [
        ".versions",
        ".protocols",
        ".net_versions",
        ".types",
        ".messages_by_name",
        ".item_types",
        ".maps",
        ".players",
        ".errors",
        ".warnings",
    ];
    for (cmd, keyed) in [("maps", &maps_keyed[..]), ("demos", &demos_keyed[..])] {
        let f = dir.path().join(format!("{cmd}.json"));
        let root = ds.join(cmd);
        let out = teebatch(&[
            cmd,
            "index",
            "-q",
            "--summary",
            f.to_str().unwrap(),
            root.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0));
        let doc: Ordered = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        let Ordered::Obj(fields) = doc else {
            panic!("not an object")
        };
        let mut seen = 0;
        for (k, v) in &fields {
            if k == "run" {
                continue;
            }
            let at = format!(".{k}");
            if keyed.contains(&at.as_str()) {
                seen += 1;
                assert!(
                    matches!(v, Ordered::Obj(o) if !o.is_empty())
                        || k == "errors"
                        || k == "duplicates"
                        // Content hashes need --verify.
                        || k == "content_duplicates"
                        || k == "data_sha256_by_sha256",
                    "{cmd} {at} is empty"
                );
            }
            check_ordered(v, &at, keyed.contains(&at.as_str()), keyed);
        }
        assert_eq!(seen, keyed.len(), "{cmd}: every keyed field is there");
    }
}

/// Adds one to `m[k]`.
fn count(m: &mut BTreeMap<String, u64>, k: &str, n: u64) {
    *m.entry(k.to_owned()).or_default() += n;
}

/// `stage.kind` -> (count, 10 smallest paths) from records' errors and
/// warnings.
fn kinds_of(recs: &[Value], field: &str) -> Value {
    let mut m: BTreeMap<String, (u64, BTreeSet<String>)> = BTreeMap::new();
    for r in recs {
        let list: Vec<&Value> = match &r[field] {
            Value::Array(a) => a.iter().collect(),
            Value::Null => vec![],
            one => vec![one],
        };
        for e in list {
            let k = format!(
                "{}.{}",
                e["stage"].as_str().unwrap(),
                e["kind"].as_str().unwrap()
            );
            let x = m.entry(k).or_default();
            x.0 += 1;
            x.1.insert(r["path"].as_str().unwrap().to_owned());
        }
    }
    m.into_iter()
        .map(|(k, (n, p))| {
            let ex: Vec<String> = p.into_iter().take(10).collect();
            (k, serde_json::json!({"count": n, "examples": ex}))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Every field of the maps summary equals what the test sums from the
/// JSON records of the same run (249 real maps and two bad files), and the
/// 2007 prototype maps, whose item type 2 is not an image, add no
/// external image.
#[test]
fn maps_summary_fields_equal_the_records() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("junk.map"), b"not a datafile at all").unwrap();
    let real = std::fs::read(ds.join("maps/ddnet/Gold Mine.map")).unwrap();
    std::fs::write(dir.path().join("cut.map"), &real[..real.len() / 2]).unwrap();
    let (s, recs) = summary_of(
        &[
            "maps",
            "index",
            ds.join("maps").to_str().unwrap(),
            dir.path().to_str().unwrap(),
        ],
        1,
    );
    let n = recs.len() as u64;
    let failed = recs.iter().filter(|r| !r["error"].is_null()).count() as u64;
    assert_eq!(
        (s["files"].as_u64(), s["failed"].as_u64()),
        (Some(n), Some(2))
    );
    assert_eq!(s["ok"], n - failed);
    let sum = |f: &str| recs.iter().map(|r| r[f].as_u64().unwrap_or(0)).sum::<u64>();
    assert_eq!(s["bytes"], sum("size"));
    assert_eq!(s["compressed_bytes"], sum("compressed_bytes"));
    assert_eq!(s["decompressed_bytes"], sum("decompressed_bytes"));
    let mut versions: BTreeMap<String, u64> = BTreeMap::new();
    let (mut kinds, mut authors, mut uuids) =
        (versions.clone(), versions.clone(), versions.clone());
    let (mut tiles, mut layers) = (versions.clone(), versions.clone());
    let mut entities: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let (mut widths, mut heights, mut areas) = (vec![], vec![], vec![]);
    let mut hist = vec![0u64; 64];
    for r in &recs {
        if let Some(v) = r["datafile_version"].as_str() {
            count(&mut versions, v, 1);
        }
        let m = &r["map"];
        let Some(kind) = m["version_kind"].as_str() else {
            continue;
        };
        count(&mut kinds, kind, 1);
        match m["info"]["author"].as_str() {
            Some(a) if !a.is_empty() => count(&mut authors, a, 1),
            _ => {}
        }
        let names: BTreeSet<&str> = m["uuid_types"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| {
                u["name"]
                    .as_str()
                    .unwrap_or_else(|| u["uuid"].as_str().unwrap())
            })
            .collect();
        names.into_iter().for_each(|u| count(&mut uuids, u, 1));
        if let Some(c) = m["counts"].as_object() {
            for (k, v) in c {
                if let Some(l) = k.strip_prefix("layers_") {
                    count(&mut layers, l, v.as_u64().unwrap());
                }
            }
        }
        let st = &m["stats"];
        if st.is_null() {
            continue;
        }
        for t in st["special_tiles"].as_array().unwrap() {
            count(&mut tiles, t.as_str().unwrap(), 1);
        }
        for l in ["game", "front"] {
            let e = entities.entry(l.to_owned()).or_default();
            for (k, v) in st[format!("{l}_entities")].as_object().unwrap() {
                count(e, k, v.as_u64().unwrap());
            }
        }
        if let (Some(w), Some(h)) = (st["game_width"].as_u64(), st["game_height"].as_u64()) {
            widths.push(w);
            heights.push(h);
            areas.push(w * h);
            hist[(w * h).max(1).ilog2() as usize] += 1;
        }
    }
    let j = |x: &BTreeMap<String, u64>| serde_json::to_value(x).unwrap();
    assert_eq!(s["datafile_versions"], j(&versions));
    assert_eq!(s["map_version_kinds"], j(&kinds));
    assert_eq!(s["authors"], j(&authors));
    assert_eq!(s["uuid_types"], j(&uuids));
    assert_eq!(s["special_tiles"], j(&tiles));
    assert_eq!(s["layers"], j(&layers));
    assert_eq!(s["entities"], serde_json::to_value(&entities).unwrap());
    let mms = |v: &[u64]| serde_json::json!({"min": v.iter().min(), "max": v.iter().max(), "sum": v.iter().sum::<u64>()});
    let gl = &s["game_layer"];
    assert_eq!(gl["maps"], widths.len() as u64);
    assert_eq!(gl["width"], mms(&widths));
    assert_eq!(gl["height"], mms(&heights));
    assert_eq!(gl["area"], mms(&areas));
    assert_eq!(
        gl["area_log2_histogram"],
        serde_json::to_value(&hist).unwrap()
    );
    assert_eq!(s["errors"], kinds_of(&recs, "error"));
    assert_eq!(s["warnings"], kinds_of(&recs, "warnings"));
    assert!(
        s["warnings"]["map.string_unterminated"]["count"]
            .as_u64()
            .unwrap()
            > 10
    );
    assert_eq!(s["errors"].as_object().unwrap().len(), 2, "{}", s["errors"]);
    // External images are not in the records: every name counted is a
    // real image name, and the stock `grass_main` is used by many maps.
    let ext = s["external_images"].as_object().unwrap();
    assert!(!ext.contains_key("<unreadable>"), "{ext:?}");
    assert!(ext["grass_main"].as_u64().unwrap() > 10, "{ext:?}");
}

/// Every field of the demos summary equals what the test sums from the
/// JSON records of the same run (10 real demos and a cut one), and the
/// net versions and types equal the golden summaries' headers. The run
/// reads a NUL-separated `--files-from` list in two shards on two jobs
/// with `--mmap always`, merged.
#[test]
fn demos_summary_fields_equal_the_records() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut demos = common::files_with_ext(&ds.join("demos"), "demo");
    let real = std::fs::read(&demos[0]).unwrap();
    let cut = d.join("cut.demo");
    std::fs::write(&cut, &real[..real.len() * 2 / 3]).unwrap();
    demos.push(cut);
    let mut list = Vec::new();
    for p in &demos {
        list.extend_from_slice(p.to_str().unwrap().as_bytes());
        list.push(0);
    }
    let list_file = d.join("list0");
    std::fs::write(&list_file, &list).unwrap();
    let list_arg = list_file.to_str().unwrap();
    let (one, recs) = summary_of(&["demos", "index", "-0", "--files-from", list_arg], 1);
    let mut files = Vec::new();
    let mut shard_recs = Vec::new();
    for k in ["1/2", "2/2"] {
        let f = d.join(format!("s{}.json", &k[..1]));
        let out = teebatch(&[
            "demos",
            "index",
            "-q",
            "-j",
            "2",
            "--mmap",
            "always",
            "-0",
            "--files-from",
            list_arg,
            "--shard",
            k,
            "--summary",
            f.to_str().unwrap(),
        ]);
        let r = records(&out);
        // The documented hash: FNV-1a 64 of the path as listed, mod N.
        for x in &r {
            let mut h = fnv::FnvHasher::default();
            std::hash::Hasher::write(&mut h, x["path"].as_str().unwrap().as_bytes());
            let want = u64::from(k.as_bytes()[0] - b'1');
            assert_eq!(std::hash::Hasher::finish(&h) % 2, want, "{}", x["path"]);
        }
        assert!(!r.is_empty(), "shard {k} is empty");
        shard_recs.extend(r);
        files.push(f);
    }
    let key = |r: &Value| r["path"].as_str().unwrap().to_owned();
    let mut sorted = recs.clone();
    sorted.sort_by_key(key);
    shard_recs.sort_by_key(key);
    assert_eq!(shard_recs, sorted);
    let (code, err, merged) = merge(&[&files[1], &files[0]]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(merged.unwrap(), one);
    let s = one;
    assert_eq!(s["files"], 11);
    assert_eq!(s["failed"], 1);
    assert_eq!(s["ok"], 10);
    assert_eq!(
        s["bytes"],
        recs.iter()
            .map(|r| r["size"].as_u64().unwrap())
            .sum::<u64>()
    );
    let mut versions: BTreeMap<String, u64> = BTreeMap::new();
    let (mut protocols, mut nets, mut types) =
        (versions.clone(), versions.clone(), versions.clone());
    let (mut by_name, mut items) = (versions.clone(), versions.clone());
    let mut players: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
    for r in &recs {
        let h = &r["header"];
        if h.is_object() {
            count(&mut versions, &h["version"].to_string(), 1);
            count(
                &mut protocols,
                h["protocol"].as_str().unwrap_or("unknown"),
                1,
            );
            count(&mut nets, h["net_version"].as_str().unwrap(), 1);
            count(&mut types, h["type"].as_str().unwrap(), 1);
        }
        let m = &r["messages"];
        for (t, f) in [
            ("chat_lines", "chat_lines"),
            ("kills", "kills"),
            ("race_finishes", "race_finishes"),
            ("undecodable_messages", "undecodable"),
        ] {
            *totals.entry(t).or_default() += m[f].as_u64().unwrap_or(0);
        }
        *totals.entry("ticks").or_default() += r["ticks"].as_u64().unwrap_or(0);
        for c in m["by_name"].as_array().into_iter().flatten() {
            count(
                &mut by_name,
                c["name"].as_str().unwrap(),
                c["count"].as_u64().unwrap(),
            );
        }
        for t in r["item_types"].as_array().into_iter().flatten() {
            let id = match t["uuid"].as_str() {
                Some(u) => u.to_owned(),
                None => t["type_id"].to_string(),
            };
            let k = format!("{id} ({})", t["name"].as_str().unwrap());
            count(&mut items, &k, t["occurrences"].as_u64().unwrap());
        }
        let mut seen = BTreeSet::new();
        for p in r["players"].as_array().into_iter().flatten() {
            for n in p["names"].as_array().unwrap() {
                let n = n.as_str().unwrap();
                players.entry(n.to_owned()).or_default().1 += p["ticks_present"].as_u64().unwrap();
                if seen.insert(n) {
                    players.get_mut(n).unwrap().0 += 1;
                }
            }
        }
    }
    let j = |x: &BTreeMap<String, u64>| serde_json::to_value(x).unwrap();
    assert_eq!(s["versions"], j(&versions));
    assert_eq!(s["protocols"], j(&protocols));
    assert_eq!(s["net_versions"], j(&nets));
    assert_eq!(s["types"], j(&types));
    assert_eq!(s["messages_by_name"], j(&by_name));
    assert_eq!(s["item_types"], j(&items));
    for (t, n) in &totals {
        assert_eq!(s["totals"][*t], *n, "totals.{t}");
    }
    assert_eq!(
        s["totals"]["chat_lines"],
        s["messages_by_name"]["game:Sv_Chat"]
    );
    assert_eq!(
        s["totals"]["kills"],
        s["messages_by_name"]["game:Sv_KillMsg"]
    );
    // Finishes per player and per map, summed from the records.
    let mut finishers: BTreeMap<String, u64> = BTreeMap::new();
    let mut map_finishes: BTreeMap<String, u64> = BTreeMap::new();
    for r in &recs {
        let m = &r["messages"];
        for c in m["finishes_by_player"].as_array().into_iter().flatten() {
            count(
                &mut finishers,
                c["name"].as_str().unwrap(),
                c["count"].as_u64().unwrap(),
            );
        }
        if let (Some(map), Some(n)) = (
            r["header"]["map_name"].as_str(),
            m["race_finishes"].as_u64(),
        ) {
            if r["map"].is_object() && n > 0 {
                count(&mut map_finishes, map, n);
            }
        }
    }
    assert_eq!(s["finishes_by_player"], j(&finishers));
    let mut got_map_finishes: BTreeMap<String, u64> = BTreeMap::new();
    for (name, shas) in s["maps"].as_object().unwrap() {
        let n: u64 = shas
            .as_object()
            .unwrap()
            .values()
            .map(|u| u["finishes"].as_u64().unwrap())
            .sum();
        if n > 0 {
            got_map_finishes.insert(name.clone(), n);
        }
    }
    assert_eq!(got_map_finishes, map_finishes);
    assert_eq!(got_map_finishes.get("Multeasymap"), Some(&2));
    let want: serde_json::Map<String, Value> = players
        .into_iter()
        .map(|(n, (d, t))| (n, serde_json::json!({"demos": d, "ticks_present": t})))
        .collect();
    assert!(want.len() > 50, "{}", want.len());
    assert_eq!(s["players"], Value::Object(want));
    assert_eq!(s["errors"], kinds_of(&recs, "error"));
    assert_eq!(s["warnings"], kinds_of(&recs, "warnings"));
    assert_eq!(s["errors"].as_object().unwrap().len(), 1, "{}", s["errors"]);
    // Net versions and types from the independent decoder's headers.
    let (mut g_nets, mut g_types) = (BTreeMap::new(), BTreeMap::new());
    for f in common::files_with_ext(&ds.join("golden"), "json") {
        if !f.to_string_lossy().ends_with(".summary.json") {
            continue;
        }
        let g: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        count(&mut g_nets, g["header"]["net_version"].as_str().unwrap(), 1);
        count(&mut g_types, g["header"]["type"].as_str().unwrap(), 1);
    }
    // The cut demo is a copy of a real demo's head: its header counts too.
    let first = &recs
        .iter()
        .find(|r| r["path"] == demos[10].to_str().unwrap())
        .unwrap()["header"];
    if first.is_object() {
        count(&mut g_nets, first["net_version"].as_str().unwrap(), 1);
        count(&mut g_types, first["type"].as_str().unwrap(), 1);
    }
    assert_eq!(s["net_versions"], j(&g_nets));
    assert_eq!(s["types"], j(&g_types));
}

/// Two runs over the same PATH with different walk options (`--glob`,
/// `--exclude`, `--max-depth`, ...) cover different files: the summary
/// records the walk, so disjoint globs merge (into the one-run aggregate),
/// shards of different globs do not pass for the whole collection, and the
/// same glob and shard twice is still refused.
#[test]
fn merge_tells_walk_selections_apart() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let root = ds.join("maps");
    let root = root.to_str().unwrap();
    let run = |name: &str, extra: &[&str]| -> PathBuf {
        let f = d.join(name);
        let mut a = vec![
            "maps",
            "index",
            "-q",
            "--summary",
            f.to_str().unwrap(),
            root,
        ];
        a.extend(extra);
        assert_eq!(teebatch(&a).status.code(), Some(0), "{a:?}");
        f
    };
    let whole = run("whole.json", &[]);
    let inc = run("inc.json", &["--glob", "ddnet*/**"]);
    let exc = run("exc.json", &["--exclude", "ddnet*/**"]);
    let (code, err, m) = merge(&[&inc, &exc]);
    assert_eq!(code, 0, "{err}");
    let mut m = m.unwrap();
    let mut one = read_summary(&whole);
    let parts = m.as_object_mut().unwrap().remove("inputs").unwrap();
    one.as_object_mut().unwrap().remove("inputs");
    assert_eq!(m, one, "two disjoint globs = one run");
    assert_eq!(
        parts["parts"][0]["walk"]["globs"],
        serde_json::json!(["!ddnet*/**"])
    );
    assert_eq!(
        parts["parts"][1]["walk"]["globs"],
        serde_json::json!(["ddnet*/**"])
    );
    // No walk options: no `walk` field (documents as before).
    assert!(one.get("inputs").is_none());
    assert!(read_summary(&whole)["inputs"]["parts"][0]
        .get("walk")
        .is_none());
    let s1 = run("s1.json", &["--glob", "ddnet/**", "--shard", "1/2"]);
    let s2 = run("s2.json", &["--glob", "ddnet7/**", "--shard", "2/2"]);
    let (code, err, m) = merge(&[&s1, &s2]);
    assert_eq!(code, 0, "{err}");
    let parts = &m.unwrap()["inputs"]["parts"];
    assert_eq!(parts.as_array().unwrap().len(), 2, "{parts}");
    assert_eq!(parts[0]["shard"], "1/2");
    let again = run("again.json", &["--glob", "ddnet/**", "--shard", "1/2"]);
    let (code, err, _) = merge(&[&s1, &again]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--glob ddnet/** (shard 1/2) is already merged in"),
        "{err}"
    );
    let depth = run(
        "depth.json",
        &["--max-depth", "2", "--no-follow", "--hidden"],
    );
    let w = &read_summary(&depth)["inputs"]["parts"][0]["walk"];
    assert_eq!(
        *w,
        serde_json::json!({"max_depth": 2, "no_follow": true, "hidden": true})
    );
}

/// Runs `teebatch args` with `stdin` (a hang guard: killed after 120 s);
/// returns the exit code and stderr.
fn run_with_stdin(args: &[&str], stdin: std::process::Stdio) -> (i32, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args(args)
        .stdin(stdin)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?}: still running after 120 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    (status.code().unwrap(), err)
}

/// `cat /dev/zero` as a pipe for a child's stdin.
#[cfg(unix)]
fn endless_zeros() -> (std::process::Child, std::process::Stdio) {
    let mut cat = std::process::Command::new("cat")
        .arg("/dev/zero")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = cat.stdout.take().unwrap();
    (cat, out.into())
}

/// A summary is read up to 256 MiB and a file list's entry up to 64 KiB:
/// `merge /dev/zero` and `--files-from /dev/zero` (which read gigabytes
/// before) are refused without reading (a device), an endless pipe stops
/// at the limit, a sparse file over the limit is refused by its size, and
/// an entry one byte too long is refused; each error names the file and
/// the limit.
#[cfg(unix)]
#[test]
fn summary_and_file_list_sizes_are_capped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Summaries.
    let (code, err) = run_with_stdin(&["merge", "-q", "/dev/zero"], std::process::Stdio::null());
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "teebatch merge: /dev/zero: not a summary file: neither a regular file nor a pipe\n"
        )
    );
    let big = d.join("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(teebatch::batch::summary::MAX_SUMMARY_BYTES + 1)
        .unwrap();
    let limit = "larger than the 268435456 byte limit of a summary";
    let (code, err) = run_with_stdin(
        &["merge", "-q", big.to_str().unwrap()],
        std::process::Stdio::null(),
    );
    assert_eq!(
        (code, err),
        (1, format!("teebatch merge: {}: {limit}\n", big.display()))
    );
    let (mut cat, zeros) = endless_zeros();
    let (code, err) = run_with_stdin(&["merge", "-q", "/dev/stdin"], zeros);
    let _ = cat.kill();
    let _ = cat.wait();
    assert_eq!(
        (code, err),
        (1, format!("teebatch merge: /dev/stdin: {limit}\n"))
    );

    // File lists.
    let (code, err) = run_with_stdin(
        &["maps", "index", "-q", "--files-from", "/dev/zero", "-0"],
        std::process::Stdio::null(),
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "teebatch: --files-from /dev/zero: a device, not a file list (`-` reads the list from stdin)\n"
    );
    let (mut cat, zeros) = endless_zeros();
    let (code, err) = run_with_stdin(&["maps", "index", "-q", "--files-from", "-"], zeros);
    let _ = cat.kill();
    let _ = cat.wait();
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        "teebatch: --files-from -: entry 1 (at byte 0) is longer than the 65536 byte limit of a listed path\n"
    );
    let max = teebatch::batch::summary::shard::MAX_LISTED_PATH_BYTES;
    let list = d.join("list");
    let long_ok = "a".repeat(max);
    std::fs::write(&list, format!("x.map\n\n{long_ok}\n{long_ok}b\n")).unwrap();
    let (code, err) = run_with_stdin(
        &[
            "maps",
            "index",
            "-q",
            "--files-from",
            list.to_str().unwrap(),
        ],
        std::process::Stdio::null(),
    );
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "teebatch: --files-from {}: entry 4 (at byte {}) is longer than the 65536 byte limit of a listed path\n",
            list.display(),
            6 + 1 + max + 1
        )
    );
    // At the limit: read (the long name is a missing file, one record).
    std::fs::write(&list, format!("{long_ok}\n")).unwrap();
    let (code, err) = run_with_stdin(
        &[
            "maps",
            "index",
            "-q",
            "--files-from",
            list.to_str().unwrap(),
        ],
        std::process::Stdio::null(),
    );
    assert_eq!(code, 1, "{err}");
}

/// `merge` sums counts with checked arithmetic: a summary whose `files`
/// is 2^64 - 1 merged with another part fails (exit 2) naming the file and
/// the field, where it used to wrap to a small count with exit 0; so do a
/// count in a map of counts, a nested sum, and a histogram longer than
/// the 64 buckets an area has.
#[test]
fn merge_refuses_counts_that_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let map = teebatch::batch::embedded::MAPS[0].1;
    let mut parts = Vec::new();
    for name in ["a", "b"] {
        let folder = d.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("{name}.map")), map).unwrap();
        let s = d.join(format!("{name}.json"));
        let o = teebatch(&[
            "maps",
            "index",
            "-q",
            "--summary",
            s.to_str().unwrap(),
            folder.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0));
        parts.push(s);
    }
    let (code, err, _) = merge(&[&parts[0], &parts[1]]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&parts[0]).unwrap()).unwrap();
    let b = parts[1].display();
    for (edit, says) in [
        ("/files", "files: 18446744073709551615 + 1 overflows"),
        (
            "/layers/game",
            "layers[\"game\"]: 18446744073709551615 + 1 overflows",
        ),
        (
            "/game_layer/area/sum",
            "game_layer.area.sum: 18446744073709551615 + ",
        ),
    ] {
        let mut v = doc.clone();
        *v.pointer_mut(edit).unwrap() = u64::MAX.into();
        let f = d.join("max.json");
        std::fs::write(&f, v.to_string()).unwrap();
        let (code, err, merged) = merge(&[&f, &parts[1]]);
        assert_eq!(code, 2, "{edit}: {err}");
        assert!(merged.is_none());
        assert!(
            err.starts_with(&format!("teebatch merge: {b}: cannot be merged: {says}")),
            "{edit}: {err}"
        );
        assert!(err.contains("(at most 2^64 - 1)"), "{err}");
    }
    let mut v = doc.clone();
    *v.pointer_mut("/game_layer/area_log2_histogram").unwrap() = vec![0u64; 65].into();
    let f = d.join("long.json");
    std::fs::write(&f, v.to_string()).unwrap();
    let (code, err, _) = merge(&[&parts[1], &f]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "teebatch merge: {}: cannot be merged: game_layer.area_log2_histogram: 65 entries, more than the 64 a 64-bit area has\n",
            f.display()
        )
    );
}

/// `merge` parses a summary straight into its typed form, one file at a
/// time: a crafted 19 MB summary of tiny values (2 million zeros in an
/// unknown field, a `run` of a million repeated keys and 256 Ki zeros, a
/// million example paths) peaks within 32 MiB + twice its size, where a
/// JSON tree of it took about 12 times its size (and 33 times for a file of
/// zeros alone). The merged document is what a JSON value of each file
/// gives: `run` as read (keys sorted, the last repeated key kept), ten
/// examples.
#[test]
fn merge_memory_is_a_small_multiple_of_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let folder = d.join("maps");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("a.map"), teebatch::batch::embedded::MAPS[0].1).unwrap();
    let part = d.join("part.json");
    let o = teebatch(&[
        "maps",
        "index",
        "-q",
        "--summary",
        part.to_str().unwrap(),
        folder.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&part).unwrap()).unwrap();
    let n = 1 << 20;
    let mut text = serde_json::to_string(&{
        let mut v = doc.clone();
        let o = v.as_object_mut().unwrap();
        o.remove("run");
        o.insert(
            "errors".into(),
            serde_json::json!({ "io.not_regular_file": { "count": 1, "examples": [] } }),
        );
        v
    })
    .unwrap();
    assert!(text.ends_with('}'));
    text.pop();
    let zeros = |n: usize| format!("[{}]", vec!["0"; n].join(","));
    text += &format!(",\"unknown\":{}", zeros(2 * n));
    text += &format!(
        ",\"run\":{{\"b\":{},{},\"a\":1}}}}",
        zeros(n / 4),
        vec!["\"a\":0"; n].join(",")
    );
    let examples: Vec<String> = (0..n).rev().map(|i| format!("\"{i:x}\"")).collect();
    let text = text.replacen(
        "\"examples\":[]",
        &format!("\"examples\":[{}]", examples.join(",")),
        1,
    );
    let big = d.join("big.json");
    std::fs::write(&big, &text).unwrap();
    let size = text.len() as u64;
    assert!(size > 18 << 20, "{size}");
    let other = d.join("other.json");
    let folder2 = d.join("more");
    std::fs::create_dir_all(&folder2).unwrap();
    std::fs::write(folder2.join("b.map"), teebatch::batch::embedded::MAPS[1].1).unwrap();
    let o = teebatch(&[
        "maps",
        "index",
        "-q",
        "--summary",
        other.to_str().unwrap(),
        folder2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = d.join("merged.json");
    let (o, peak) = crate::common::output_with_peak_rss(
        std::process::Command::new(env!("CARGO_BIN_EXE_teebatch")).args([
            "merge",
            "-q",
            "-o",
            out.to_str().unwrap(),
            big.to_str().unwrap(),
            other.to_str().unwrap(),
        ]),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let peak = peak.expect("peak RSS from /proc");
    assert!(
        peak * 1024 <= (32 << 20) + 2 * size,
        "peak {peak} KiB for a summary of {size} bytes"
    );
    let merged: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let run = &merged["run"]["merged"][0]["run"];
    assert_eq!(run.as_object().unwrap().len(), 2);
    assert_eq!(run["a"], 1);
    assert_eq!(run["b"].as_array().unwrap().len(), n / 4);
    let ex = &merged["errors"]["io.not_regular_file"]["examples"];
    let smallest: BTreeSet<String> = (0..n).map(|i| format!("{i:x}")).collect();
    let smallest: Vec<&String> = smallest.iter().take(10).collect();
    assert_eq!(
        ex.as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect::<Vec<_>>(),
        smallest
    );
}

/// The `--files-from` lists of a run hold at most
/// `shard::MAX_LISTED_PATHS` entries, empty ones counted: an endless list
/// of empty entries (`/dev/zero` piped with `-0`), which ran forever,
/// stops at the limit with exit 2 and a message naming the list, the entry
/// and the limit.
#[cfg(unix)]
#[test]
fn file_lists_have_an_entry_limit() {
    let max = teebatch::batch::summary::shard::MAX_LISTED_PATHS;
    let (mut cat, zeros) = endless_zeros();
    let (code, err) = run_with_stdin(&["maps", "index", "-q", "-0", "--files-from", "-"], zeros);
    let _ = cat.kill();
    let _ = cat.wait();
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err,
        format!(
            "teebatch: --files-from -: entry {} (at byte {max}) is past the limit of {max} entries in the --files-from lists of a run\n",
            max + 1
        )
    );
}

/// Shards 1/3 and 2/3 merge with a warning naming the missing 3/3
/// (`--strict`: exit 1 and nothing written); summaries of runs whose
/// options change the counts (`--verify`, `--thumbnails`, a limit) are
/// refused, naming the option and both values.
#[test]
fn merge_warns_of_missing_shards_and_refuses_other_counting_options() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let maps = d.join("maps");
    let ok = |args: &[&str]| {
        let out = teebatch(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    ok(&[
        "synth",
        "maps",
        "--out",
        maps.to_str().unwrap(),
        "--count",
        "6",
    ]);
    let root = maps.to_str().unwrap();
    let summary = |name: &str, extra: &[&str]| {
        let f = d.join(name);
        let mut a = vec![
            "maps",
            "index",
            "-q",
            "-o",
            "/dev/null",
            "--summary",
            f.to_str().unwrap(),
        ];
        a.extend(extra);
        a.push(root);
        ok(&a);
        f
    };
    let s1 = summary("s1.json", &["--shard", "1/3"]);
    let s2 = summary("s2.json", &["--shard", "2/3"]);
    let s3 = summary("s3.json", &["--shard", "3/3"]);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&s1).unwrap()).unwrap();
    assert_eq!(doc["options"]["verify"], "off");
    assert_eq!(doc["options"]["thumbnails"], "false");
    assert_eq!(doc["options"]["max_warnings"], "1024");

    let (code, err, merged) = merge(&[&s1, &s2]);
    assert_eq!(code, 0, "{err}");
    assert!(merged.is_some());
    assert!(
        err.contains(&format!("warning: shard 3/3 of {root} missing")),
        "{err}"
    );
    // All three: no warning, and the inputs collapse.
    let (code, err, merged) = merge(&[&s1, &s2, &s3]);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(merged.unwrap()["inputs"]["parts"][0]["shard"].is_null());

    let out_file = d.join("strict.json");
    let out = teebatch(&[
        "merge",
        "-q",
        "--strict",
        "-o",
        out_file.to_str().unwrap(),
        s1.to_str().unwrap(),
        s2.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error: shard 3/3"));
    assert!(!out_file.exists(), "--strict writes nothing");

    // Other options on the other shards: refused, naming the option.
    let v2 = summary("v2.json", &["--shard", "2/3", "--verify"]);
    let (code, err, _) = merge(&[&s1, &v2]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&*v2.to_string_lossy()), "{err}");
    assert!(err.contains("verify=off against verify=full"), "{err}");
    let w2 = summary("w2.json", &["--shard", "2/3", "--max-warnings", "3"]);
    let (code, err, _) = merge(&[&s1, &w2]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("max_warnings=1024 against max_warnings=3"),
        "{err}"
    );
    // A summary without recorded options (an older teebatch's).
    let mut old: Value = serde_json::from_str(&std::fs::read_to_string(&s2).unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("options");
    let o2 = d.join("old.json");
    std::fs::write(&o2, old.to_string()).unwrap();
    let (code, err, _) = merge(&[&s1, &o2]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("none recorded"), "{err}");
}

/// `content_duplicates` (`maps index --verify`): the groups of the shared
/// maps equal the records grouped by `data_sha256`, the stderr digest
/// names them, and three shards merged give the one run's document.
///
/// The shared maps hold 11 groups of 23 paths, none of them a file
/// duplicate: 9 pairs and three copies of `ctf4` in `teeworlds-history`
/// (the same map stored by different Teeworlds releases' writers) and the
/// autumn night and winter day themes, also stored twice.
#[test]
fn content_duplicates_of_the_shared_maps() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let root = ds.join("maps");
    let root = root.to_str().unwrap();
    let f = dir.path().join("one.json");
    let out = teebatch(&[
        "maps",
        "index",
        "--verify",
        "--summary",
        f.to_str().unwrap(),
        root,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let recs = records(&out);
    let one = read_summary(&f);
    let mut by_data: BTreeMap<String, Vec<(String, String, u64)>> = BTreeMap::new();
    for r in &recs {
        let d = r["data_sha256"]
            .as_str()
            .expect("every shared map inflates");
        by_data.entry(d.to_owned()).or_default().push((
            r["path"].as_str().unwrap().to_owned(),
            r["sha256"].as_str().unwrap().to_owned(),
            r["size"].as_u64().unwrap(),
        ));
    }
    let want: serde_json::Map<String, Value> = by_data
        .iter()
        .filter(|(_, v)| v.len() >= 2)
        .map(|(d, v)| {
            let paths: BTreeSet<&str> = v.iter().map(|x| x.0.as_str()).collect();
            let shas: BTreeSet<&str> = v.iter().map(|x| x.1.as_str()).collect();
            let bytes: u64 = v.iter().map(|x| x.2).sum();
            let min = v.iter().map(|x| x.2).min().unwrap();
            let g = serde_json::json!({
                "bytes": bytes,
                "examples": paths.into_iter().take(10).collect::<Vec<_>>(),
                "files": v.len(),
                "saveable_bytes": bytes - min,
                "sha256s": shas.len(),
            });
            (d.clone(), g)
        })
        .collect();
    assert_eq!(one["content_duplicates"], Value::Object(want.clone()));
    let groups = one["content_duplicates"].as_object().unwrap();
    assert_eq!(groups.len(), 11);
    let paths: u64 = groups.values().map(|g| g["files"].as_u64().unwrap()).sum();
    assert_eq!(paths, 23);
    assert!(groups.values().all(|g| g["sha256s"] == g["files"]));
    assert_eq!(one["duplicates"], serde_json::json!({}));
    let saveable: u64 = groups
        .values()
        .map(|g| g["saveable_bytes"].as_u64().unwrap())
        .sum();
    let group_of = |p: &str| {
        groups
            .values()
            .find(|g| g["examples"][0].as_str().unwrap().ends_with(p))
            .unwrap_or_else(|| panic!("no group starts with {p}"))
    };
    let autumn = group_of("/ddnet-history/data_themes__autumn_night__46ba7d5e.map");
    assert_eq!(autumn["files"], 2);
    assert!(autumn["examples"][1]
        .as_str()
        .unwrap()
        .ends_with("/themes/autumn_night.map"));
    assert_eq!(
        group_of("/teeworlds-history/data_maps__ctf4__418db5cf.map")["files"],
        3
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "content duplicates: 11 data_sha256 under 23 paths ({saveable} bytes could be saved)"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("duplicates: 0 sha256 under 0 paths"),
        "{stderr}"
    );
    // The index behind the groups is kept for merging: one entry per file.
    assert_eq!(
        one["data_sha256_by_sha256"].as_object().unwrap().len(),
        recs.len()
    );

    // Three shards merged in every order equal the one run.
    let mut files = Vec::new();
    for k in 1..=3 {
        let f = dir.path().join(format!("shard{k}.json"));
        let shard = format!("{k}/3");
        let o = teebatch(&[
            "maps",
            "index",
            "-q",
            "--verify",
            "--shard",
            &shard,
            "--summary",
            f.to_str().unwrap(),
            "-o",
            "/dev/null",
            root,
        ]);
        assert_eq!(o.status.code(), Some(0));
        files.push(f);
    }
    for order in permutations(3) {
        let f: Vec<&Path> = order.iter().map(|&i| files[i].as_path()).collect();
        let (code, err, merged) = merge(&f);
        assert_eq!(code, 0, "{err}");
        assert_eq!(merged.unwrap(), one, "merge order {order:?}");
    }

    // A second path to the same file: one group of three paths, two
    // files, and the copy counts as saveable.
    let themes = ds.join("maps/themes/autumn_night.map");
    let alias = ds.join("maps/themes/../themes/autumn_night.map");
    let hist = ds.join("maps/ddnet-history/data_themes__autumn_night__46ba7d5e.map");
    let (s, recs) = summary_of(
        &[
            "maps",
            "index",
            "--verify",
            themes.to_str().unwrap(),
            alias.to_str().unwrap(),
            hist.to_str().unwrap(),
        ],
        0,
    );
    let sizes: Vec<u64> = recs.iter().map(|r| r["size"].as_u64().unwrap()).collect();
    let g = s["content_duplicates"].as_object().unwrap();
    assert_eq!(g.len(), 1);
    let g = g.values().next().unwrap();
    assert_eq!(
        (g["files"].as_u64(), g["sha256s"].as_u64()),
        (Some(3), Some(2))
    );
    let total: u64 = sizes.iter().sum();
    assert_eq!(g["bytes"], total);
    assert_eq!(g["saveable_bytes"], total - sizes.iter().min().unwrap());
    assert_eq!(s["duplicates"].as_object().unwrap().len(), 1);

    // Without the content hash the digest says it was not computed.
    let o = teebatch(&["maps", "index", "-o", "/dev/null", themes.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("content duplicates: not computed (maps index --verify)"),
        "{stderr}"
    );
}
