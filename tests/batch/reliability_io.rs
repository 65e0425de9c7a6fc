//! The batch driver and the command line never lose, hang or lie: `--jobs`
//! caps, non-regular files, the default I/O mode, records flushed one by
//! one, closed pipes, output paths checked first, `demos slice` rules and
//! unambiguous record paths. Every test spawns the built binary.

use crate::common::{self, records, teebatch};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_teebatch");

/// Waits for `child`; a child still running after two minutes is killed and
/// the test fails (a hang guard, not a timing assertion).
fn wait_or_kill(child: &mut Child, what: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after 120 s (blocked?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs teebatch with a hang guard and returns its output.
fn run_guarded(args: &[&std::ffi::OsStr], what: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t = std::thread::spawn(move || {
        let mut v = Vec::new();
        out.read_to_end(&mut v).unwrap();
        v
    });
    let t2 = std::thread::spawn(move || {
        let mut v = Vec::new();
        err.read_to_end(&mut v).unwrap();
        v
    });
    let status = wait_or_kill(&mut child, what);
    Output {
        status,
        stdout: t.join().unwrap(),
        stderr: t2.join().unwrap(),
    }
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read_summary(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

// ---------------------------------------------------------------------------
// --jobs
// ---------------------------------------------------------------------------

/// Absurd `--jobs` values are capped at the number of inputs and at 256
/// (the summary reports the threads used); output is the same as `-j 1`.
#[test]
fn jobs_are_capped_at_inputs_and_maximum() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("s.json");
    let s = s.to_str().unwrap();
    let base = teebatch(&["maps", "index", "-q", "-j", "1"]);
    assert_eq!(base.status.code(), Some(0), "{}", stderr(&base));
    let n_inputs = records(&base).len();
    assert_eq!(n_inputs, 8);
    for (jobs, want) in [("2000", n_inputs), (&*usize::MAX.to_string(), n_inputs)] {
        let o = teebatch(&["maps", "index", "-q", "-j", jobs, "--summary", s]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(o.stdout == base.stdout, "-j {jobs} differs");
        assert_eq!(
            read_summary(Path::new(s))["run"]["jobs"],
            want as u64,
            "-j {jobs}"
        );
    }
    // One input: one worker, whatever is asked.
    let one = teebatch::batch::embedded::MAPS[0].0;
    let one = Path::new(env!("CARGO_MANIFEST_DIR")).join(one);
    let o = teebatch(&[
        "maps",
        "index",
        "-q",
        "-j",
        "2000",
        "--summary",
        s,
        one.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read_summary(Path::new(s))["run"]["jobs"], 1);
    let o = teebatch(&["demos", "index", "-q", "-j", "100000", "--summary", s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let demos = teebatch::batch::embedded::DEMOS.len() as u64;
    assert_eq!(read_summary(Path::new(s))["run"]["jobs"], demos.min(256));
}

/// `demos dump -j` with a huge value decodes with at most 256 threads and
/// prints what `-j 1` prints (no overflow, no thread explosion).
#[test]
fn dump_jobs_are_capped() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join(teebatch::batch::embedded::DEMOS[0].0);
    let d = demo.to_str().unwrap();
    let one = teebatch(&["demos", "dump", "--ticks", "-j", "1", d]);
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    let max = usize::MAX.to_string();
    let many = teebatch(&["demos", "dump", "--ticks", "-j", &max, d]);
    assert_eq!(many.status.code(), Some(0), "{}", stderr(&many));
    assert!(one.stdout == many.stdout);
    assert!(one.stdout.len() > 100);
}

// ---------------------------------------------------------------------------
// Non-regular files
// ---------------------------------------------------------------------------

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(st.success());
}

/// A FIFO named on the command line or found in a tree is an `io` record of
/// kind `not_regular_file`, never opened (opening would block); the files
/// around it are indexed.
#[cfg(unix)]
#[test]
fn fifo_is_a_record_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let map = teebatch::batch::embedded::MAPS[0].1;
    std::fs::write(dir.path().join("a.map"), map).unwrap();
    mkfifo(&dir.path().join("b.map"));
    std::fs::write(dir.path().join("c.map"), map).unwrap();
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    mkfifo(&tree.join("x.map"));
    std::fs::write(tree.join("y.map"), map).unwrap();

    let p = |n: &str| dir.path().join(n).into_os_string();
    let (a, b, c) = (p("a.map"), p("b.map"), p("c.map"));
    let args = [
        os("maps"),
        os("index"),
        os("-q"),
        &a,
        &b,
        &c,
        tree.as_os_str(),
    ];
    let o = run_guarded(&args, "maps index with FIFOs");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let recs = records(&o);
    let names: Vec<&str> = recs.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b", "c", "x", "y"]);
    for r in &recs {
        match r["name"].as_str().unwrap() {
            "b" | "x" => assert_eq!(
                r["error"],
                serde_json::json!({"stage": "io", "kind": "not_regular_file",
                    "section": "file", "offset": 0, "message": "not a regular file"}),
                "{r}"
            ),
            _ => {
                assert!(r.get("error").is_none(), "{r}");
                assert!(r["crc32"].is_string(), "{r}");
            }
        }
    }
    // The single-file commands say the same, naming the path.
    let o = run_guarded(
        &[os("demos"), os("dump"), os("--ticks"), &b],
        "demos dump FIFO",
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!(
            "teebatch: {}: not a regular file\n",
            Path::new(&b).display()
        )
    );
}

// ---------------------------------------------------------------------------
// Default I/O mode, flushing
// ---------------------------------------------------------------------------

/// The default reads files (never maps them): bytes loaded before another
/// process truncates the file stay readable, even above the 16 MiB
/// threshold of `--mmap auto`. (With a mapping, touching them would raise
/// SIGBUS and kill this test process.)
#[test]
fn default_io_reads_and_survives_truncation() {
    use teebatch::batch::{collect_inputs, load, Loaded, MmapMode};
    for kind in ["maps", "demos"] {
        let help = teebatch(&[kind, "index", "--help"]);
        let help = String::from_utf8(help.stdout).unwrap();
        assert!(
            help.contains("[default: never]") && help.contains("UNSAFE"),
            "{help}"
        );
    }
    assert_eq!(MmapMode::default(), MmapMode::Never);
    assert_eq!(
        teebatch::batch::maps::IndexOptions::default().mmap,
        MmapMode::Never
    );
    assert_eq!(
        teebatch::batch::demos::IndexOptions::default().mmap,
        MmapMode::Never
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.map");
    let big: Vec<u8> = (0..(20u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &big).unwrap();
    let inputs = collect_inputs(std::slice::from_ref(&path), "map");
    let mut buf = Vec::new();
    let loaded = load(&inputs[0], MmapMode::default(), &mut buf).unwrap();
    assert!(matches!(loaded, Loaded::Borrowed(_)));
    std::fs::File::create(&path).unwrap(); // truncate to 0
    assert!(loaded[..] == big[..]);
}

/// Each record is written out as soon as it is complete: a run killed
/// while working on its second file has already delivered its first
/// record. The whole output stays far below the 64 KiB output buffer, so
/// without a flush per record nothing would arrive before the end.
#[cfg(unix)]
#[test]
fn killed_run_keeps_finished_records() {
    use std::os::unix::process::ExitStatusExt;
    let Some(ds) = common::datasets() else { return };
    let slow = ds.join("maps/DDNetPP/maps__BlmapChill__53201f2c.map");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.map"),
        teebatch::batch::embedded::MAPS[0].1,
    )
    .unwrap();
    // Slow files after it: each inflates 626 MB with --verify.
    for i in 0..8 {
        std::os::unix::fs::symlink(&slow, dir.path().join(format!("b{i}.map"))).unwrap();
    }
    let mut child = Command::new(BIN)
        .args(["maps", "index", "-q", "--verify", "-j", "1"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    child.kill().unwrap();
    let status = wait_or_kill(&mut child, "killed maps index");
    assert_eq!(
        status.signal(),
        Some(9),
        "the run ended before it was killed: {status:?}"
    );
    let rec: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(rec["name"], "a");
    assert!(rec["data_crc32"].is_string(), "{rec}");
    // Whatever else arrived is whole records, in order, and not all of
    // them: the run was killed mid-batch, not while exiting after a final
    // flush of everything.
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let mut n = 1;
    for (i, line) in rest.lines().enumerate() {
        let r: Value = serde_json::from_str(line).unwrap();
        assert_eq!(r["name"], format!("b{i}"));
        n += 1;
    }
    assert!(n < 9, "all {n} records arrived only at the end");
}

// ---------------------------------------------------------------------------
// Closed pipes
// ---------------------------------------------------------------------------

/// `teebatch ... | head -1` on output far larger than a pipe buffer: the
/// reader takes one line and closes the pipe; teebatch ends with 0 and
/// nothing on stderr, on every output path.
#[cfg(unix)]
#[test]
fn closed_pipe_ends_quietly_with_0() {
    let Some(ds) = common::datasets() else { return };
    let demo = ds.join("demos/ddnet__Multeasymap_bench.demo");
    let demo = demo.to_str().unwrap();
    let maps = ds.join("maps");
    let maps = maps.to_str().unwrap();
    let cases: &[&[&str]] = &[
        &["demos", "dump", "--snapshots-full", demo],
        &["demos", "dump", "--chunks", "-j", "2", demo],
        &["demos", "dump", "--ticks", demo],
        &["demos", "dump", "--chat", demo],
        &["maps", "index", maps],
        &["maps", "index", "--format", "csv", maps],
        &["maps", "index", "-q", "-j", "2", maps],
        &["demos", "export", "--table", "positions", demo],
        &[
            "demos",
            "export",
            "--table",
            "positions",
            "--format",
            "jsonl",
            demo,
        ],
    ];
    for args in cases {
        let mut child = Command::new(BIN)
            .args(*args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "{args:?}");
        drop(out);
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = wait_or_kill(&mut child, "closed pipe");
        assert_eq!(status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
    // The full outputs are indeed larger than a pipe buffer (64 KiB).
    for args in [cases[0], cases[1], cases[4], cases[5], cases[7], cases[8]] {
        let o = teebatch(args);
        assert!(o.stdout.len() > 64 << 10, "{args:?}: {}", o.stdout.len());
    }
}

// ---------------------------------------------------------------------------
// Output and input paths
// ---------------------------------------------------------------------------

/// `-o` and `--summary` in a missing directory fail at once (exit 2, the
/// path named, no record written); the FIFO input would block if it were
/// opened first.
#[cfg(unix)]
#[test]
fn bad_output_paths_fail_before_the_batch() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.map");
    mkfifo(&fifo);
    let missing = dir.path().join("no/such/dir");
    for (flag, kind) in [("-o", "maps"), ("--summary", "maps"), ("-o", "demos")] {
        let target = missing.join("x.json");
        let o = run_guarded(
            &[
                os(kind),
                os("index"),
                os(flag),
                target.as_os_str(),
                fifo.as_os_str(),
            ],
            "bad output path",
        );
        assert_eq!(o.status.code(), Some(2), "{flag}");
        assert!(o.stdout.is_empty(), "{flag}: records were written");
        assert_eq!(
            stderr(&o),
            format!(
                "teebatch: {}: No such file or directory (os error 2)\n",
                target.display()
            )
        );
    }
}

/// Outputs written only once the work is done (`merge -o`, `demos heatmap
/// -o`) are checked before any input is opened: a missing folder or a
/// folder as the path exits 2 at once, naming the path (the FIFO input
/// would block if it were opened first).
#[cfg(unix)]
#[test]
fn late_outputs_are_checked_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("in.demo");
    mkfifo(&fifo);
    let missing = dir.path().join("no/such/dir");
    let cases = [
        (
            vec![os("merge"), os("-o")],
            missing.join("x.json"),
            "No such file or directory (os error 2)",
        ),
        (
            vec![os("merge"), os("-o")],
            dir.path().to_path_buf(),
            "is a directory",
        ),
        (
            vec![os("demos"), os("heatmap"), os("-o")],
            missing.join("x.png"),
            "No such file or directory (os error 2)",
        ),
        (
            vec![os("demos"), os("heatmap"), os("-o")],
            dir.path().to_path_buf(),
            "is a directory",
        ),
    ];
    for (mut args, target, what) in cases {
        args.push(target.as_os_str());
        args.push(fifo.as_os_str());
        let o = run_guarded(&args, "late output path");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(
            stderr(&o),
            format!("teebatch: {}: {what}\n", target.display()),
            "{args:?}"
        );
        assert!(!missing.exists());
    }
}

/// `demos dump` and `demos slice` on a missing file or a directory say
/// which path and what.
#[test]
fn dump_and_slice_name_the_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.demo");
    let out = dir.path().join("out.demo");
    let d = dir.path().to_str().unwrap();
    let m = missing.to_str().unwrap();
    let o = out.to_str().unwrap();
    for (input, what) in [
        (m, "No such file or directory (os error 2)"),
        (d, "is a directory"),
    ] {
        for args in [
            vec!["demos", "dump", "--ticks", input],
            vec!["demos", "dump", "--chat", input],
            vec!["demos", "slice", input, "--from", "1", "--to", "2", "-o", o],
        ] {
            let r = teebatch(&args);
            assert_eq!(r.status.code(), Some(2), "{args:?}");
            assert_eq!(
                stderr(&r),
                format!("teebatch: {input}: {what}\n"),
                "{args:?}"
            );
            assert!(!out.exists());
        }
    }
}

// ---------------------------------------------------------------------------
// demos slice
// ---------------------------------------------------------------------------

fn ticks_of(demo: &Path) -> Vec<String> {
    let o = teebatch(&["demos", "dump", "--ticks", demo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect()
}

fn slice(input: &Path, from: i32, to: i32, out: &Path) -> Output {
    teebatch(&[
        "demos",
        "slice",
        input.to_str().unwrap(),
        "--from",
        &from.to_string(),
        "--to",
        &to.to_string(),
        "-o",
        out.to_str().unwrap(),
    ])
}

/// Range rules: FROM after TO is a usage error; a range without a tick is
/// an error naming the demo's first and last tick; nothing is written.
#[test]
fn slice_range_errors() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("d.demo");
    std::fs::write(&demo, teebatch::batch::embedded::DEMOS[0].1).unwrap();
    let ticks = ticks_of(&demo);
    let tick = |l: &String| l.split('\t').next().unwrap().parse::<i32>().unwrap();
    let (first, last) = (tick(&ticks[0]), tick(ticks.last().unwrap()));
    let out = dir.path().join("out.demo");

    let o = slice(&demo, first + 10, first, &out);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(&format!(
            "error: --from {} is after --to {first}: the range holds no tick\n",
            first + 10
        )),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());

    for (from, to) in [(first - 100, first - 1), (last + 1, last + 100)] {
        let o = slice(&demo, from, to, &out);
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            stderr(&o),
            format!(
                "{}: no tick in {from}..={to}: the demo's ticks run from {first} to {last}\n",
                demo.display()
            )
        );
        assert!(!out.exists());
    }
}

/// `-o` naming the input (same path, through a symlink, a hard link or
/// another spelling) is refused before anything is written.
#[cfg(unix)]
#[test]
fn slice_refuses_to_overwrite_its_input() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("d.demo");
    let bytes = teebatch::batch::embedded::DEMOS[0].1;
    std::fs::write(&demo, bytes).unwrap();
    let sym = dir.path().join("sym.demo");
    std::os::unix::fs::symlink(&demo, &sym).unwrap();
    let hard = dir.path().join("hard.demo");
    std::fs::hard_link(&demo, &hard).unwrap();
    let dotted = dir.path().join(".").join("d.demo");
    let ticks = ticks_of(&demo);
    let first: i32 = ticks[0].split('\t').next().unwrap().parse().unwrap();
    for out in [&demo, &sym, &hard, &dotted] {
        let o = slice(&demo, first, first + 50, out);
        assert_eq!(o.status.code(), Some(2), "{}", out.display());
        assert!(
            stderr(&o).starts_with(&format!(
                "error: -o {} is the input file {}: refusing to overwrite it\n",
                out.display(),
                demo.display()
            )),
            "{}",
            stderr(&o)
        );
        assert!(std::fs::read(&demo).unwrap() == bytes);
    }
    // And the other way round: the input through a link.
    let o = slice(&sym, first, first + 50, &demo);
    assert_eq!(o.status.code(), Some(2));
    assert!(std::fs::read(&demo).unwrap() == bytes);
}

/// Sets a NUL-padded header text field of a demo.
fn set_field(bytes: &mut [u8], offset: usize, len: usize, value: &[u8]) {
    bytes[offset..offset + len].fill(0);
    bytes[offset..offset + value.len()].copy_from_slice(value);
}

/// The net version, map name, type and timestamp are kept byte for byte
/// (even unknown versions and non-UTF-8 names), and the protocol is the
/// decoder's: a 0.7 demo with an unknown `0.7 ...` net version slices with
/// the 0.7 item sizes, giving the original's ticks and checksums.
#[test]
fn slice_keeps_header_bytes_and_decodes_like_index() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (name, net) in [
        (
            "ChillerDragon-traffic-dumps__075_tw_tinycave_other_player_respawn__46c3d73d__client_bar.demo",
            &b"0.7 teebatch-test"[..],
        ),
        ("big_chungus.demo", &b"0.6 teebatch-test \xff"[..]),
    ] {
        let mut bytes = std::fs::read(ds.join("demos").join(name)).unwrap();
        set_field(&mut bytes, 8, 64, net);
        set_field(&mut bytes, 72, 64, b"map \xfe\xff name");
        let input = dir.path().join("in.demo");
        std::fs::write(&input, &bytes).unwrap();
        let ticks = ticks_of(&input);
        let tick = |l: &String| l.split('\t').next().unwrap().parse::<i32>().unwrap();
        let (from, to) = (tick(&ticks[ticks.len() / 4]), tick(&ticks[ticks.len() / 2]));
        let out = dir.path().join("out.demo");
        let o = slice(&input, from, to, &out);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let sliced = std::fs::read(&out).unwrap();
        assert_eq!(sliced[..8], bytes[..8], "{name}: magic and version");
        for (off, len) in [(8, 64), (72, 64), (144, 8), (156, 20)] {
            assert_eq!(sliced[off..off + len], bytes[off..off + len], "{name} @{off}");
        }
        // The slice's ticks are the original's ticks in the range, with the
        // same item counts and checksums (the first is a keyframe with a
        // fresh full snapshot).
        let want: Vec<String> = ticks
            .iter()
            .filter(|l| (from..=to).contains(&tick(l)))
            .map(|l| l.rsplit_once('\t').unwrap().0.to_owned())
            .collect();
        let got: Vec<String> = ticks_of(&out)
            .iter()
            .map(|l| l.rsplit_once('\t').unwrap().0.to_owned())
            .collect();
        assert_eq!(got, want, "{name}");
        let rec = &records(&teebatch(&["demos", "index", "-q", out.to_str().unwrap()]))[0];
        assert!(rec.get("error").is_none(), "{name}: {rec}");
    }
}

// ---------------------------------------------------------------------------
// Non-UTF-8 file names
// ---------------------------------------------------------------------------

/// Two names that differ only in bytes that are not UTF-8 (both decode
/// lossily to the same string) give different `path`s, escaped as `\xHH`;
/// a UTF-8 name with a backslash is escaped too (`\\`), so it cannot look
/// like an escaped name; `name` stays readable.
#[cfg(unix)]
#[test]
fn non_utf8_names_give_distinct_paths() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let map = teebatch::batch::embedded::MAPS[0].1;
    let names: [&[u8]; 4] = [
        b"a\xfe.map",
        b"a\xff.map",
        b"a\\xFF.map",
        b"plain \xc3\xbc.map",
    ];
    for n in names {
        std::fs::write(root.join(OsStr::from_bytes(n)), map).unwrap();
    }
    assert_eq!(
        String::from_utf8_lossy(names[0]),
        String::from_utf8_lossy(names[1])
    );
    let o = teebatch(&["maps", "index", "-q", root.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let recs = records(&o);
    let got: Vec<(String, String)> = recs
        .iter()
        .map(|r| {
            let p = r["path"].as_str().unwrap();
            let rel = p.strip_prefix(root.to_str().unwrap()).unwrap();
            (rel.to_owned(), r["name"].as_str().unwrap().to_owned())
        })
        .collect();
    let want = [
        ("/a\\\\xFF.map", "a\\xFF"),
        ("/a\\xFE.map", "a\u{FFFD}"),
        ("/a\\xFF.map", "a\u{FFFD}"),
        ("/plain ü.map", "plain ü"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(p, n)| (p.to_string(), n.to_string()))
        .collect();
    assert_eq!(got, want);
    // CSV has the same paths.
    let csv = teebatch(&[
        "maps",
        "index",
        "-q",
        "--format",
        "csv",
        root.to_str().unwrap(),
    ]);
    let csv = String::from_utf8(csv.stdout).unwrap();
    for (p, _) in &want {
        assert!(
            csv.contains(&format!("{}{p}", root.display())),
            "{p} in {csv}"
        );
    }
}

/// The path encoding is injective and leaves UTF-8 paths without a
/// backslash as they are.
#[cfg(unix)]
#[test]
fn path_encoding_is_injective() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use teebatch::batch::encode_path;
    let enc = |b: &[u8]| encode_path(Path::new(OsStr::from_bytes(b)));
    assert_eq!(enc(b"dir/x \xc3\xbc.map"), "dir/x ü.map");
    assert_eq!(enc(b"a\xff"), "a\\xFF");
    assert_eq!(enc(b"a\\xFF"), "a\\\\xFF");
    assert_eq!(enc(b"\\"), "\\\\");
    assert_eq!(enc(b"\xc3"), "\\xC3");
    // Every name of up to 3 bytes from an alphabet of awkward bytes.
    let alphabet: &[u8] = b"\\xF\xff\xc3\xbc";
    let mut seen = std::collections::HashMap::new();
    let mut names = vec![Vec::new()];
    for _ in 0..3 {
        let longer: Vec<Vec<u8>> = names
            .iter()
            .flat_map(|n| {
                alphabet.iter().map(move |&b| {
                    let mut m = n.clone();
                    m.push(b);
                    m
                })
            })
            .collect();
        names.extend(longer);
    }
    names.sort();
    names.dedup();
    for n in &names {
        if n.is_empty() {
            continue;
        }
        if let Some(other) = seen.insert(enc(n), n.clone()) {
            panic!("{other:?} and {n:?} both give {:?}", enc(n));
        }
    }
    assert_eq!(seen.len(), 6 + 36 + 216);
}
