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
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let mut a = args.to_vec();
    a.extend(["-q", "--summary", file.to_str().unwrap()]);
    let out = teebatch(&a);
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

/// Writes `teebatch <cmd> index --shard K/N --summary` for K in 1..=N.
fn shard_summaries(cmd: &str, dir: &Path, root: &str, n: u32) -> (Vec<PathBuf>, Vec<Value>) {
    let mut files = Vec::new();
    let mut recs = Vec::new();
    for k in 1..=n {
        let f = dir.join(format!("{cmd}-{k}.json"));
        let shard = format!("{k}/{n}");
        let out = teebatch(&[
            cmd,
            "index",
            "-q",
            "--shard",
            &shard,
            "--summary",
            f.to_str().unwrap(),
            root,
        ]);
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
    let mut files = 0;
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
    }
    assert_eq!(files, 10);
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
#[test]
fn shards_merged_in_any_order_equal_one_run() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (cmd, sub) in [("maps", "maps"), ("demos", "demos")] {
        let root = ds.join(sub);
        let root = root.to_str().unwrap();
        let (one, mut one_recs) = summary_of(&[cmd, "index", "-j", "1", root], 0);
        let (two, _) = summary_of(&[cmd, "index", "-j", "2", "--mmap", "always", root], 0);
        assert_eq!(one, two, "{cmd}: -j1 vs -j2");
        assert_eq!(one["inputs"]["parts"][0]["shard"], Value::Null);
        let (files, mut shard_recs) = shard_summaries(cmd, dir.path(), root, 3);
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
    let (files, _) = shard_summaries("maps", d, root, 2);
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
        m.iter().filter(|r| r.sha256.is_some()).count()
    );
    let mut a = DemosAggregate::default();
    d.iter().for_each(|r| a.add(r));
    assert_eq!(
        a.totals.ticks,
        d.iter().map(|r| r.ticks.unwrap_or(0)).sum::<u64>()
    );
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
