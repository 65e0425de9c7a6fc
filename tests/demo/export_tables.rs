//! `demos export --tables A,B,... --out DIR`: several tables from one
//! decode of each demo, the same bytes as separate `--table` runs.

use crate::common::{datasets, teebatch};
use std::path::Path;
use teebatch::demo::export::{Table, TableSet};

/// Runs `demos export -q args` and returns (exit code, stdout, stderr).
fn export(args: &[&str]) -> (i32, Vec<u8>, String) {
    let mut all = vec!["demos", "export", "-q"];
    all.extend_from_slice(args);
    let out = teebatch(&all);
    (
        out.status.code().unwrap(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The bytes `--table name` writes for `args`, to a file (Parquet needs one).
fn separate(args: &[&str], name: &str, format: &str) -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("t");
    let f = file.to_str().unwrap();
    let mut all = args.to_vec();
    all.extend(["--table", name, "--format", format, "-o", f]);
    let (c, _, e) = export(&all);
    assert_eq!(c, 0, "{name}: {e}");
    std::fs::read(&file).unwrap()
}

/// Checks that `--tables` over `args` writes, for each format, the bytes of
/// separate `--table` runs of each of `tables`.
fn same_as_separate_runs(args: &[&str], tables: &str) {
    let set = TableSet::parse(tables).unwrap();
    for format in ["csv", "jsonl", "parquet"] {
        let tmp = tempfile::tempdir().unwrap();
        // A directory that does not exist yet: created.
        let dir = tmp.path().join("out");
        let d = dir.to_str().unwrap();
        let mut all = args.to_vec();
        all.extend(["--tables", tables, "--out", d, "--format", format]);
        let (c, out, e) = export(&all);
        assert_eq!(c, 0, "{e}");
        assert!(out.is_empty(), "--tables writes nothing to stdout");
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        let mut want: Vec<String> = set
            .iter()
            .map(|t| format!("{}.{format}", t.name()))
            .collect();
        want.sort();
        assert_eq!(names, want);
        for t in set.iter() {
            let got = std::fs::read(dir.join(format!("{}.{format}", t.name()))).unwrap();
            let sep = separate(args, t.name(), format);
            assert!(
                got == sep,
                "{tables} {format}: {} differs from --table",
                t.name()
            );
        }
    }
}

/// `--tables all` on the shared demos: every table, each format, byte for
/// byte the separate runs (on 2 workers).
#[test]
fn tables_all_equals_separate_runs() {
    let Some(root) = datasets() else { return };
    let dir = root.join("demos");
    same_as_separate_runs(&[dir.to_str().unwrap(), "--jobs", "2"], "all");
}

/// Split demos: a run of tables that are all splittable is cut into
/// segments, and still writes the bytes of separate runs; a run with one
/// table that needs the whole demo is not cut.
#[test]
fn tables_of_split_demos() {
    use teebatch::batch::export::{plan_units, ExportOptions};
    let Some(root) = datasets() else { return };
    let demo = root.join("demos/ddnet__Multeasymap_bench.demo");
    let p = demo.to_str().unwrap();
    let args = [p, "--jobs", "2", "--split-bytes", "256K"];
    same_as_separate_runs(&args, "lasers,pickups,events");
    same_as_separate_runs(&args, "pickups,chat");
    let inputs = teebatch::batch::collect_inputs(std::slice::from_ref(&demo), "demo");
    let units = |tables: &str| {
        let mut opts = ExportOptions::for_tables(TableSet::parse(tables).unwrap());
        opts.split_bytes = 256 << 10;
        plan_units(&inputs, &opts).len()
    };
    assert!(units("lasers,pickups,events") > 1);
    assert_eq!(units("lasers"), units("lasers,pickups,events"));
    assert_eq!(units("pickups,chat"), 1);
    assert_eq!(units("all"), 1);
}

/// A demo that fails is counted and reported once, not once per table, and
/// every table keeps the rows before the fault.
#[test]
fn a_failed_demo_is_counted_once() {
    let Some(root) = datasets() else { return };
    let real = root.join("demos/ddnet__Multeasymap_bench.demo");
    let bytes = std::fs::read(&real).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cut = tmp.path().join("a_cut.demo");
    std::fs::write(&cut, &bytes[..bytes.len() * 3 / 5]).unwrap();
    let dir = tmp.path().join("out");
    let args = [
        cut.to_str().unwrap(),
        real.to_str().unwrap(),
        "--tables",
        "positions,chat,game",
        "--out",
        dir.to_str().unwrap(),
    ];
    let out = teebatch(&[&["demos", "export"][..], &args[..]].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("at byte").count(), 1, "{err}");
    assert!(err.contains("2 files (1 ok, 1 failed)"), "{err}");
    assert!(err.contains("rows of 3 tables (positions "), "{err}");
    for t in ["positions", "chat", "game"] {
        let got = std::fs::read(dir.join(format!("{t}.csv"))).unwrap();
        let sep = {
            let (c, out, _) = export(&[args[0], args[1], "--table", t]);
            assert_eq!(c, 1);
            out
        };
        assert!(got == sep, "{t}");
    }
}

/// `--tables` needs `--out DIR`, takes no `-o` and no `--table`; names
/// are checked; `--table X --out DIR` writes `DIR/X.csv`.
#[test]
fn tables_usage() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("o");
    let d = d.to_str().unwrap();
    let usage = |args: &[&str], says: &str| {
        let (c, _, e) = export(args);
        assert_eq!(c, 2, "{args:?}: {e}");
        assert!(e.contains(says), "{args:?}: {e}");
    };
    usage(&["--tables", "chat"], "--out");
    usage(
        &["--tables", "chat", "--out", d, "-o", "x.csv"],
        "cannot be used",
    );
    usage(
        &["--tables", "chat", "--table", "chat", "--out", d],
        "cannot be used",
    );
    usage(&["--tables", "chat,nope", "--out", d], "no table \"nope\"");
    usage(&["--tables", "chat,chat", "--out", d], "named twice");
    usage(&[], "--table");
    // The embedded dataset, one table into a directory.
    let (c, out, e) = export(&["--table", "chat", "--out", d]);
    assert_eq!(c, 0, "{e}");
    assert!(out.is_empty());
    let (c, want, _) = export(&["--table", "chat"]);
    assert_eq!(c, 0);
    assert_eq!(std::fs::read(Path::new(d).join("chat.csv")).unwrap(), want);
    assert!(Table::ALL.len() >= 12);
}

/// Runs `teebatch args` in `dir` and returns its stdout (exit code 0).
fn run_in(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn json_lines(bytes: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The (path, sha256) of each `demos index` record of `paths` run in `dir`.
fn index_keys(dir: &Path, paths: &[&str]) -> std::collections::BTreeMap<String, String> {
    let mut args = vec!["demos", "index", "-q"];
    args.extend_from_slice(paths);
    json_lines(&run_in(dir, &args))
        .into_iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["sha256"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Every table's `demo` is the path `demos index` records write, as typed
/// (relative, `./`, a directory walked, absolute), and `demo_sha256` is the
/// index's `sha256`: the two join on either.
#[test]
fn demo_and_demo_sha256_join_demos_index() {
    let Some(root) = datasets() else { return };
    let abs = root.join("demos");
    let abs = abs.to_str().unwrap();
    let one = format!("{abs}/big_chungus.demo");
    for paths in [
        vec!["demos"],
        vec!["./demos"],
        vec!["demos/big_chungus.demo", "./demos/gigachad_gameplay.demo"],
        vec![abs],
        vec![one.as_str()],
    ] {
        let want = index_keys(&root, &paths);
        assert!(!want.is_empty());
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().to_str().unwrap();
        let mut args = vec![
            "demos", "export", "-q", "--tables", "all", "--format", "jsonl",
        ];
        args.extend(["--out", out]);
        args.extend_from_slice(&paths);
        run_in(&root, &args);
        for t in Table::ALL {
            let rows =
                json_lines(&std::fs::read(tmp.path().join(format!("{}.jsonl", t.name()))).unwrap());
            let mut got = std::collections::BTreeMap::new();
            for r in &rows {
                let demo = r["demo"].as_str().unwrap().to_owned();
                let sha = r["demo_sha256"].as_str().unwrap().to_owned();
                assert_eq!(
                    want.get(&demo),
                    Some(&sha),
                    "{paths:?} {}: {demo}",
                    t.name()
                );
                got.insert(demo, sha);
            }
            if t == Table::Demos || t == Table::Positions {
                assert_eq!(got, want, "{paths:?} {}", t.name());
            }
        }
    }
}

/// A split demo: every segment's rows carry the whole file's SHA-256, and
/// the `demos` row is made once.
#[test]
fn split_demos_carry_one_sha256() {
    let Some(root) = datasets() else { return };
    let demo = root.join("demos/ddnet__Multeasymap_bench.demo");
    let p = demo.to_str().unwrap();
    let want = index_keys(&root, &[p]);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let (c, _, e) = export(&[
        p,
        "--jobs",
        "2",
        "--split-bytes",
        "256K",
        "--tables",
        "pickups,events,demos",
        "--format",
        "jsonl",
        "--out",
        out,
    ]);
    assert_eq!(c, 0, "{e}");
    for t in ["pickups", "events", "demos"] {
        let rows = json_lines(&std::fs::read(tmp.path().join(format!("{t}.jsonl"))).unwrap());
        assert!(!rows.is_empty());
        for r in &rows {
            assert_eq!(r["demo_sha256"].as_str(), Some(want[p].as_str()), "{t}");
        }
        if t == "demos" {
            assert_eq!(rows.len(), 1);
        }
    }
}

/// `demos`: one row per demo, with what `demos index` says of it (header,
/// embedded map, tick span); its time columns are those of the first tick.
#[test]
fn demos_table_matches_demos_index() {
    let Some(root) = datasets() else { return };
    let dir = root.join("demos");
    let d = dir.to_str().unwrap();
    let index = json_lines(&run_in(&root, &["demos", "index", "-q", d]));
    let (c, out, e) = export(&[d, "--table", "demos", "--format", "jsonl"]);
    assert_eq!(c, 0, "{e}");
    let rows = json_lines(&out);
    assert_eq!(rows.len(), index.len());
    for (r, x) in rows.iter().zip(&index) {
        let h = &x["header"];
        assert_eq!(r["demo"], x["path"]);
        assert_eq!(r["demo_sha256"], x["sha256"]);
        assert_eq!(r["tick"], x["first_tick"]);
        assert_eq!(
            (r["demo_tick"].as_i64(), r["time_s"].as_f64()),
            (Some(0), Some(0.0))
        );
        for (col, want) in [
            ("version", &h["version"]),
            ("net_version", &h["net_version"]),
            ("protocol", &h["protocol"]),
            ("demo_type", &h["type"]),
            ("timestamp", &h["timestamp"]),
            ("length_s", &h["length"]),
            ("map_name", &h["map_name"]),
            ("map_size", &h["map_size"]),
            ("map_crc", &h["map_crc"]),
            ("map_sha256", &x["map"]["sha256"]),
            ("first_tick", &x["first_tick"]),
            ("last_tick", &x["last_tick"]),
            ("ticks", &x["ticks"]),
            ("duration_s", &x["duration_s"]),
        ] {
            assert_eq!(&r[col], want, "{} {col}", x["path"]);
        }
    }
}

/// `weapon_name`, `team_name` and `emote_name` name the codes beside them
/// in every row of the shared demos (null for a code without a name, or a
/// null code), and the codes seen have names.
#[test]
fn code_names_beside_codes() {
    use teebatch::demo::export::tables::{emote_name, team_name, weapon_name};
    let Some(root) = datasets() else { return };
    let dir = root.join("demos");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    let (c, _, e) = export(&[
        dir.to_str().unwrap(),
        "--tables",
        "positions,players,projectiles,kills",
        "--format",
        "jsonl",
        "--out",
        out,
    ]);
    assert_eq!(c, 0, "{e}");
    type Names = fn(i32) -> Option<&'static str>;
    let checks: [(&str, &str, &str, Names); 6] = [
        ("kills", "weapon", "weapon_name", weapon_name),
        ("positions", "weapon", "weapon_name", weapon_name),
        ("positions", "emote", "emote_name", emote_name),
        ("positions", "team", "team_name", team_name),
        ("players", "team", "team_name", team_name),
        ("projectiles", "type", "weapon_name", weapon_name),
    ];
    for (table, code, name, names) in checks {
        let rows = json_lines(&std::fs::read(tmp.path().join(format!("{table}.jsonl"))).unwrap());
        let mut named = std::collections::BTreeSet::new();
        for r in &rows {
            let want = r[code].as_i64().and_then(|v| names(v as i32));
            assert_eq!(r[name].as_str(), want, "{table} {r}");
            if let Some(n) = want {
                named.insert(n.to_owned());
            }
        }
        assert!(!named.is_empty(), "{table}.{name}: no named rows");
        eprintln!("{table}.{name}: {named:?}");
    }
    // The kills of the shared demos include the special codes.
    let kills = json_lines(&std::fs::read(tmp.path().join("kills.jsonl")).unwrap());
    let has = |n: &str| kills.iter().any(|r| r["weapon_name"] == n);
    assert!(has("world") || has("self") || has("game"));
    // The names of the codes, and none for other codes.
    assert_eq!(
        (-4..=6).map(weapon_name).collect::<Vec<_>>(),
        [
            None,
            Some("game"),
            Some("self"),
            Some("world"),
            Some("hammer"),
            Some("gun"),
            Some("shotgun"),
            Some("grenade"),
            Some("laser"),
            Some("ninja"),
            None
        ]
    );
    assert_eq!(
        (-2..=2).map(team_name).collect::<Vec<_>>(),
        [None, Some("spectators"), Some("red"), Some("blue"), None]
    );
    assert_eq!(
        (-1..=6).map(emote_name).collect::<Vec<_>>(),
        [
            None,
            Some("normal"),
            Some("pain"),
            Some("happy"),
            Some("surprise"),
            Some("angry"),
            Some("blink"),
            None
        ]
    );
}

/// `docs/tables.md` is the reference generated from the schemas
/// (`Table::reference_markdown`); units are in the fields' metadata and
/// the Parquet files keep them.
#[test]
fn tables_reference() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/tables.md");
    let want = Table::reference_markdown();
    if std::env::var_os("TEEBATCH_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/tables.md differs from the table schemas: regenerate it with \
         `TEEBATCH_BLESS=1 cargo test --test tests tables_reference`"
    );
    for t in Table::ALL {
        let s = t.schema();
        for f in s.fields() {
            assert_eq!(
                f.metadata().get("unit").map(String::as_str),
                t.unit(f.name())
            );
            assert!(got.contains(&format!("| `{}` |", f.name())));
        }
        assert_eq!(t.unit("tick"), Some("server tick (50 per second)"));
        assert_eq!(t.unit("time_s"), Some("seconds"));
    }
    let p = Table::Positions;
    assert_eq!(p.unit("x"), Some("world unit (1/32 tile)"));
    assert_eq!(p.unit("vel_x"), Some("1/256 world unit per tick"));
    assert_eq!(p.unit("angle"), Some("1/256 radian"));
    assert!(p.unit("score").is_none() && Table::Players.unit("score").unwrap().contains("-9999"));
    assert!(got.contains("types_mapper=pd.ArrowDtype") && got.contains("dtype_backend"));
    // The batches carry the units (the Parquet files do not: written
    // without the Arrow schema).
    let mut b = teebatch::demo::export::TableBuilder::new(
        p,
        teebatch::codec::snapshot::Protocol::V06,
        "d",
        0,
        i32::MIN,
        i32::MAX,
    );
    let batch = b.take_batch();
    let vel = batch.schema().field_with_name("vel_x").unwrap().clone();
    assert_eq!(
        vel.metadata().get("unit").map(String::as_str),
        Some("1/256 world unit per tick")
    );
}
