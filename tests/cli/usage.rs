//! The command line as a newcomer meets it: help text, byte sizes with
//! units, zero inputs, missing paths, `--list`, completions, the man page
//! and the embedded dataset.

use crate::common::{records, run_records, teebatch};
use clap::CommandFactory;
use std::path::Path;

/// Every command of the tree with its full name (`teebatch demos slice`).
fn all_commands() -> Vec<(String, clap::Command)> {
    fn walk(prefix: &str, cmd: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        let name = format!("{prefix}{}", cmd.get_name());
        out.push((name.clone(), cmd.clone()));
        // `help` subcommands are clap's own.
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            walk(&format!("{name} "), sub, out);
        }
    }
    let mut cmd = crate::teebatch_cli::Cli::command();
    cmd.build();
    let mut out = Vec::new();
    walk("", &cmd, &mut out);
    out
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn every_argument_and_command_has_help() {
    let cmds = all_commands();
    let names: Vec<&str> = cmds.iter().map(|(n, _)| n.as_str()).collect();
    for want in [
        "teebatch maps index",
        "teebatch demos index",
        "teebatch demos dump",
        "teebatch demos slice",
        "teebatch demos export",
        "teebatch bench maps",
        "teebatch bench demos",
        "teebatch bench codecs",
        "teebatch synth maps",
        "teebatch synth demos",
        "teebatch merge",
        "teebatch completions",
        "teebatch man",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let mut missing = Vec::new();
    for (name, cmd) in &cmds {
        if name != "teebatch"
            && cmd
                .get_about()
                .is_none_or(|a| a.to_string().trim().is_empty())
        {
            missing.push(format!("{name} (the command)"));
        }
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            let help = arg.get_help().or(arg.get_long_help());
            if help.is_none_or(|h| h.to_string().trim().is_empty()) {
                missing.push(format!("{name}: {id}"));
            }
        }
    }
    assert!(missing.is_empty(), "arguments without help: {missing:#?}");
}

/// `--help` of every command, as printed: no rustdoc link syntax, and
/// `--backend` lists its values and explains `auto`.
#[test]
fn help_text_is_plain_and_lists_backend_values() {
    for (name, _) in all_commands() {
        let mut args: Vec<&str> = name.split(' ').skip(1).collect();
        args.push("--help");
        let o = teebatch(&args);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(!text.is_empty(), "{name}");
        for bad in ["[`", "`]", "crate::"] {
            assert!(!text.contains(bad), "{name} --help shows {bad:?}:\n{text}");
        }
        if text.contains("--backend") {
            for v in ["- oracle:", "- scalar:", "- simd:", "`auto`"] {
                assert!(text.contains(v), "{name} --help lacks {v:?}:\n{text}");
            }
        }
    }
    let help = stdout(&teebatch(&["maps", "index", "--help"]));
    let auto = format!(
        "auto:   Map files of {} MiB or more",
        teebatch::batch::MMAP_AUTO_THRESHOLD >> 20
    );
    assert!(help.contains(&auto), "{help}");
}

/// `--version` ends with the archive name endings, the line `spark/`
/// reads to tell archives from other files.
#[test]
fn version_lists_the_archive_suffixes() {
    let o = teebatch(&["--version"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert_eq!(
        text.lines().last(),
        Some("archives: .zip .tar .tar.gz .tgz")
    );
}

#[test]
fn backend_auto_is_simd() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join(teebatch::batch::embedded::DEMOS[0].0);
    let d = demo.to_str().unwrap();
    let simd = teebatch(&["demos", "dump", "--ticks", "--backend", "simd", d]);
    let auto = teebatch(&["demos", "dump", "--ticks", "--backend", "auto", d]);
    let scalar = teebatch(&["demos", "dump", "--ticks", "--backend", "scalar", d]);
    for o in [&simd, &auto, &scalar] {
        assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    }
    assert!(!simd.stdout.is_empty());
    assert!(auto.stdout == simd.stdout && scalar.stdout == simd.stdout);
    let bad = teebatch(&["demos", "dump", "--ticks", "--backend", "gpu", d]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("possible values: oracle, scalar, simd"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn byte_sizes_are_binary() {
    use crate::teebatch_cli::parse_byte_size as p;
    assert_eq!(p("0"), Ok(0));
    assert_eq!(p("123"), Ok(123));
    assert_eq!(p("1K"), Ok(1024));
    assert_eq!(p("1k"), Ok(1024));
    assert_eq!(p("1KB"), Ok(1024));
    assert_eq!(p("1KiB"), Ok(1024));
    assert_eq!(p("1.5K"), Ok(1536));
    assert_eq!(p("512M"), Ok(512 << 20));
    assert_eq!(p("1G"), Ok(1 << 30));
    assert_eq!(p("4G"), Ok(4 << 30));
    assert_eq!(p("2T"), Ok(2 << 40));
    for bad in ["", "G", "1X", "-1", "1 G B"] {
        assert!(p(bad).is_err(), "{bad:?} accepted");
    }
    // The defaults shown by --help are the library's limits.
    use teebatch::limits::Limits;
    for (name, id, want) in [
        (
            "teebatch maps index",
            "max_decompressed_bytes",
            Limits::DEFAULT_MAX_DECOMPRESSED_BYTES,
        ),
        (
            "teebatch demos index",
            "max_file_bytes",
            Limits::DEFAULT_MAX_DEMO_FILE_BYTES,
        ),
        (
            "teebatch demos export",
            "max_file_bytes",
            Limits::DEFAULT_MAX_DEMO_FILE_BYTES,
        ),
    ] {
        let cmds = all_commands();
        let cmd = &cmds.iter().find(|(n, _)| n == name).unwrap().1;
        let arg = cmd.get_arguments().find(|a| a.get_id() == id).unwrap();
        let default = arg.get_default_values()[0].to_str().unwrap();
        assert_eq!(p(default), Ok(want), "{name} --{id}");
    }
}

#[test]
fn byte_size_flags_take_units() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = root.join(teebatch::batch::embedded::MAPS[0].0);
    let m = map.to_str().unwrap();
    // The map decompresses to far more than 1 KiB and less than 1 GiB.
    let ok = run_records(
        &["maps", "index", "-q", "--max-decompressed-bytes", "1G", m],
        0,
    );
    let d = ok[0]["decompressed_bytes"].as_u64().unwrap();
    assert!(d > 1024 && d < 1 << 30, "{d}");
    let small = run_records(
        &["maps", "index", "-q", "--max-decompressed-bytes", "1K", m],
        1,
    );
    assert_eq!(small[0]["error"]["kind"], "limit_exceeded", "{}", small[0]);
    // A plain number still works, and is the same limit as its unit form.
    let plain = run_records(
        &["maps", "index", "-q", "--max-decompressed-bytes", "1024", m],
        1,
    );
    assert_eq!(plain, small);

    let demo = root.join(teebatch::batch::embedded::DEMOS[0].0);
    let d = demo.to_str().unwrap();
    for cmd in [
        &["demos", "index"][..],
        &["demos", "export", "--table", "chat"],
    ] {
        let mut a = cmd.to_vec();
        a.extend(["-q", "--max-file-bytes", "1K", d]);
        let o = teebatch(&a);
        assert_eq!(o.status.code(), Some(1), "{cmd:?}: {}", stderr(&o));
    }
    let r = run_records(&["demos", "index", "-q", "--max-file-bytes", "1K", d], 1);
    assert_eq!(r[0]["error"]["kind"], "too_large");
    assert_eq!(
        r[0]["error"]["message"],
        "file is larger than the 1024 byte limit"
    );
    let r = run_records(&["demos", "index", "-q", "--max-file-bytes", "512M", d], 0);
    assert!(r[0].get("error").is_none(), "{}", r[0]);

    let bad = teebatch(&["maps", "index", "--max-decompressed-bytes", "1X", m]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("1024-based"), "{}", stderr(&bad));
}

/// An empty directory, or maps searched in a folder of demos: no record
/// (CSV: the header alone), "0 files" in the summary, a warning naming the
/// extension and the path, exit code 1.
#[test]
fn zero_inputs_warn_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    let demos = dir.path().join("demos");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::create_dir_all(&demos).unwrap();
    std::fs::write(demos.join("a.demo"), teebatch::batch::embedded::DEMOS[0].1).unwrap();
    let (e, dm) = (empty.to_str().unwrap(), demos.to_str().unwrap());
    for (args, ext, path) in [
        (vec!["maps", "index", e], "map", e),
        (vec!["maps", "index", dm], "map", dm),
        (vec!["demos", "index", e], "demo", e),
        (
            vec!["demos", "export", "--table", "chat", "--format", "jsonl", e],
            "demo",
            e,
        ),
    ] {
        let o = teebatch(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = stderr(&o);
        let warning = format!("teebatch: no *.{ext} files found in {path}\n");
        assert!(err.contains(&warning), "{args:?}: {err}");
        assert!(
            err.contains(": 0 files (0 ok, 0 failed)"),
            "{args:?}: {err}"
        );
    }
    // -q keeps the warning, drops the summary.
    let o = teebatch(&["maps", "index", "-q", e]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("teebatch: no *.map files found in {e}\n")
    );

    // CSV with zero rows is the header row, the same as with rows.
    let map = Path::new(env!("CARGO_MANIFEST_DIR")).join(teebatch::batch::embedded::MAPS[0].0);
    let full = teebatch(&[
        "maps",
        "index",
        "-q",
        "--format",
        "csv",
        map.to_str().unwrap(),
    ]);
    assert_eq!(full.status.code(), Some(0));
    let header = stdout(&full).lines().next().unwrap().to_owned();
    assert!(header.starts_with("path,name,size,"), "{header}");
    let none = teebatch(&["maps", "index", "-q", "--format", "csv", e]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(stdout(&none), format!("{header}\n"));
    let none = teebatch(&["demos", "export", "-q", "--table", "chat", e]);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(
        stdout(&none),
        "demo,demo_sha256,tick,demo_tick,time_s,client_id,session,name,mode,raw_mode,target_id,text\n"
    );

    // An empty shard of a non-empty collection is not "nothing found".
    let one = run_records(
        &[
            "maps",
            "index",
            "-q",
            "--shard",
            "1/1",
            map.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(one.len(), 1);
    let mut codes = Vec::new();
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let o = teebatch(&[
            "maps",
            "index",
            "-q",
            "--shard",
            &shard,
            map.to_str().unwrap(),
        ]);
        assert!(stderr(&o).is_empty(), "{}", stderr(&o));
        codes.push((o.status.code(), records(&o).len()));
    }
    codes.sort();
    assert_eq!(codes, [(Some(0), 0), (Some(0), 1)]);
}

#[test]
fn missing_paths_are_said_on_stderr_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no such dir");
    let m = missing.to_str().unwrap();
    let map = Path::new(env!("CARGO_MANIFEST_DIR")).join(teebatch::batch::embedded::MAPS[0].0);
    let o = teebatch(&["maps", "index", "-q", m, map.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("teebatch: {m}: No such file or directory (os error 2)\n")
    );
    let recs = records(&o);
    assert_eq!(recs.len(), 2);
    // Records come in path order, which depends on where the checkout lives.
    let (bad, good): (Vec<_>, Vec<_>) = recs.iter().partition(|r| r["path"] == m);
    assert_eq!(bad.len(), 1, "{recs:?}");
    assert_eq!(bad[0]["error"]["stage"], "io");
    assert_eq!(good[0]["path"], map.to_str().unwrap());
    assert!(good[0].get("error").is_none());
    for cmd in [
        &["demos", "index"][..],
        &["demos", "export", "--table", "chat"],
    ] {
        let mut a = cmd.to_vec();
        a.extend(["-q", m]);
        let o = teebatch(&a);
        assert_eq!(o.status.code(), Some(1), "{cmd:?}");
        assert!(
            stderr(&o).starts_with(&format!("teebatch: {m}: No such file or directory")),
            "{cmd:?}: {}",
            stderr(&o)
        );
    }
}

/// `--list` prints the paths the records would have, in the same order,
/// and nothing else; `-o` is not written.
#[test]
fn list_prints_the_inputs_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.json");
    let o_path = out.to_str().unwrap();
    let sub = dir.path().join("c/b");
    std::fs::create_dir_all(&sub).unwrap();
    for (i, (_, bytes)) in teebatch::batch::embedded::MAPS.iter().take(3).enumerate() {
        std::fs::write(sub.join(format!("m{}.map", 2 - i)), bytes).unwrap();
    }
    for (i, (_, bytes)) in teebatch::batch::embedded::DEMOS.iter().take(2).enumerate() {
        std::fs::write(dir.path().join(format!("d {i}.demo")), bytes).unwrap();
    }
    std::fs::write(dir.path().join("readme.txt"), b"x").unwrap();
    let d = dir.path().to_str().unwrap();
    let cases: [(&[&str], Vec<&str>); 6] = [
        (&["maps", "index"], vec![d]),
        (&["maps", "index"], vec![]),
        (&["demos", "index"], vec![d]),
        (&["demos", "index"], vec![]),
        (&["demos", "export", "--table", "chat"], vec![d]),
        (&["demos", "export", "--table", "chat"], vec![]),
    ];
    for (cmd, paths) in cases {
        let mut a = cmd.to_vec();
        a.extend(["--list", "-o", o_path]);
        a.extend(&paths);
        let o = teebatch(&a);
        assert_eq!(o.status.code(), Some(0), "{a:?}: {}", stderr(&o));
        assert!(stderr(&o).is_empty(), "{a:?}: {}", stderr(&o));
        assert!(!out.exists(), "{a:?} wrote -o");
        let listed: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
        let mut a = vec!["maps", "index", "-q"];
        if cmd[0] == "demos" {
            a = vec!["demos", "index", "-q"];
        }
        a.extend(&paths);
        let want: Vec<String> = records(&teebatch(&a))
            .iter()
            .map(|r| r["path"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed, want, "{cmd:?} {paths:?}");
        let n = match (cmd[0], paths.is_empty()) {
            ("maps", false) => 3,
            ("maps", true) => teebatch::batch::embedded::MAPS.len(),
            (_, false) => 2,
            (_, true) => teebatch::batch::embedded::DEMOS.len(),
        };
        assert_eq!(listed.len(), n, "{cmd:?} {paths:?}: {listed:?}");
    }
}

#[test]
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = teebatch(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let text = stdout(&o);
        for word in [
            "teebatch",
            "maps",
            "demos",
            "export",
            "max-file-bytes",
            "list",
        ] {
            assert!(text.contains(word), "{shell} completions lack {word}");
        }
    }
    assert_eq!(teebatch(&["completions", "tcsh"]).status.code(), Some(2));
    let o = teebatch(&["man"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let man = stdout(&o);
    assert!(man.contains(".TH teebatch 1"), "{man}");
    for word in ["maps", "demos", "bench", "synth", "merge", "completions"] {
        assert!(
            man.contains(&format!("teebatch\\-{word}")),
            "man page lacks {word}"
        );
    }
    // A command's own page has its options in full.
    let o = teebatch(&["man", "maps", "index"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH teebatch-maps-index 1"), "{page}");
    for option in [
        "\\-\\-verify",
        "\\-\\-shard",
        "\\-\\-thumbnails",
        "\\-\\-files\\-from",
    ] {
        assert!(page.contains(option), "maps index page lacks {option}");
    }
    let o = teebatch(&["man", "maps", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no command `nope`"), "{}", stderr(&o));
    // `--out DIR`: one page per command, each as `man COMMAND...` prints it.
    let dir = tempfile::tempdir().unwrap();
    let o = teebatch(&["man", "--out", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for (file, command) in [
        ("teebatch.1", &[][..]),
        ("teebatch-maps-index.1", &["maps", "index"][..]),
        ("teebatch-demos-export.1", &["demos", "export"][..]),
        ("teebatch-merge.1", &["merge"][..]),
    ] {
        let written = std::fs::read_to_string(dir.path().join(file)).unwrap();
        let printed = stdout(&teebatch(&[&["man"][..], command].concat()));
        assert_eq!(written, printed, "{file}");
    }
    assert!(std::fs::read_dir(dir.path()).unwrap().count() >= 19);
}

/// With no PATH the summary says the embedded dataset was used, and record
/// paths start with `embedded:`.
#[test]
fn embedded_dataset_is_named_as_such() {
    for (cmd, n) in [
        (
            &["maps", "index"][..],
            teebatch::batch::embedded::MAPS.len(),
        ),
        (&["demos", "index"], teebatch::batch::embedded::DEMOS.len()),
    ] {
        let o = teebatch(cmd);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let first = stderr(&o).lines().next().unwrap().to_owned();
        let want = format!(
            "{} (embedded dataset): {n} files ({n} ok, 0 failed)",
            cmd.join(" ")
        );
        assert!(first.starts_with(&want), "{first}");
        let recs = records(&o);
        assert_eq!(recs.len(), n);
        for r in recs {
            let p = r["path"].as_str().unwrap();
            assert!(p.starts_with("embedded:datasets/"), "{p}");
        }
    }
    let o = teebatch(&["demos", "export", "--table", "chat"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("demos export (embedded dataset): 6 files"));
    let rows = stdout(&o);
    assert!(rows
        .lines()
        .skip(1)
        .all(|l| l.starts_with("embedded:datasets/demos/")));
}

/// `--format jsonl` names JSON lines for every command that writes them;
/// `json` is the same format (the index commands' former name).
#[test]
fn jsonl_is_accepted_everywhere() {
    for cmd in [&["maps", "index"][..], &["demos", "index"]] {
        let out = |f: &str| {
            let o = teebatch(&[cmd, &["-q", "--format", f]].concat());
            assert!(o.status.success(), "{cmd:?} --format {f}: {}", stderr(&o));
            o.stdout
        };
        let jsonl = out("jsonl");
        assert!(!jsonl.is_empty());
        assert_eq!(jsonl, out("json"), "{cmd:?}");
    }
    let o = teebatch(&[
        "demos", "export", "-q", "--table", "chat", "--format", "jsonl",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}
