//! Output files: no output destroys an input, a list of inputs or another
//! output; outputs appear whole or not at all; a link at an output path is
//! replaced, never written through; `-o -` is stdout; write errors name
//! the path.

use std::path::{Path, PathBuf};
use std::process::Output;

use teebatch::batch::embedded::{DEMOS, MAPS};

use crate::common::teebatch;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A folder with two embedded maps, one embedded demo and a file list.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let f = Fixture {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(f.path("maps")).unwrap();
        std::fs::write(f.map(), MAPS[0].1).unwrap();
        std::fs::write(f.path("maps/b.map"), MAPS[1].1).unwrap();
        std::fs::write(f.demo(), DEMOS[0].1).unwrap();
        std::fs::write(f.path("list.txt"), format!("{}\n", s(&f.map()))).unwrap();
        f
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn map(&self) -> PathBuf {
        self.path("maps/a.map")
    }

    fn demo(&self) -> PathBuf {
        self.path("d.demo")
    }

    /// Every file of the fixture is as it was made (and no other file is
    /// left in its folders).
    fn assert_unchanged(&self, what: &str) {
        assert_eq!(std::fs::read(self.map()).unwrap(), MAPS[0].1, "{what}");
        assert_eq!(
            std::fs::read(self.path("maps/b.map")).unwrap(),
            MAPS[1].1,
            "{what}"
        );
        assert_eq!(std::fs::read(self.demo()).unwrap(), DEMOS[0].1, "{what}");
        assert_eq!(
            std::fs::read_to_string(self.path("list.txt")).unwrap(),
            format!("{}\n", s(&self.map())),
            "{what}"
        );
        let mut names: Vec<String> = walkdir::WalkDir::new(self.dir.path())
            .min_depth(1)
            .into_iter()
            .map(|e| {
                e.unwrap()
                    .path()
                    .strip_prefix(self.dir.path())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["d.demo", "list.txt", "maps", "maps/a.map", "maps/b.map"],
            "{what}"
        );
    }
}

/// Every way the review found to overwrite an input (or an output with
/// another) is refused with exit code 2 before anything is read or
/// written, naming both paths; the inputs are byte for byte as they were.
#[test]
fn outputs_never_overwrite_inputs() {
    let f = Fixture::new();
    let map = f.map();
    let demo = f.demo();
    let list = f.path("list.txt");
    let dir = f.path("maps");
    let (map, demo, list, dir) = (s(&map), s(&demo), s(&list), s(&dir));
    let input = |out: &str, flag: &str, input: &str| {
        format!("teebatch: {flag} {out} is the input file {input}: refusing to overwrite it\n")
    };
    let dotted = format!("{}/./maps/../maps/a.map", f.dir.path().display());
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["maps", "index", "-o", map, map], input(map, "-o", map)),
        (
            vec!["maps", "index", "--summary", map, map],
            input(map, "--summary", map),
        ),
        (
            vec!["maps", "index", "--format", "parquet", "-o", map, map],
            input(map, "-o", map),
        ),
        (
            vec!["maps", "index", "--format", "csv", "-o", map, dir],
            input(map, "-o", map),
        ),
        (
            vec!["maps", "index", "-o", &dotted, map],
            input(&dotted, "-o", map),
        ),
        (
            vec!["demos", "index", "-o", demo, demo],
            input(demo, "-o", demo),
        ),
        (
            vec!["demos", "index", "--summary", demo, demo],
            input(demo, "--summary", demo),
        ),
        (
            vec!["demos", "export", "--table", "chat", "-o", demo, demo],
            input(demo, "-o", demo),
        ),
        (
            vec!["demos", "heatmap", "-o", demo, demo],
            input(demo, "-o", demo),
        ),
        (
            vec!["maps", "index", "--files-from", list, "-o", list],
            format!(
                "teebatch: -o {list} is the --files-from list {list}: refusing to overwrite it\n"
            ),
        ),
        (
            vec!["maps", "index", "-o", list, "--summary", list, map],
            format!(
                "teebatch: --summary {list} is also -o {list}: two outputs cannot share a file\n"
            ),
        ),
    ];
    for (args, message) in &cases {
        let o = teebatch(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(&stderr(&o), message, "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        f.assert_unchanged(&format!("{args:?}"));
    }
    #[cfg(unix)]
    let (sym, hard) = {
        let sym = f.path("sym.map");
        std::os::unix::fs::symlink(f.map(), &sym).unwrap();
        let hard = f.path("hard.map");
        std::fs::hard_link(f.map(), &hard).unwrap();
        (sym, hard)
    };
    #[cfg(unix)]
    for link in [&sym, &hard] {
        let link = s(link);
        for args in [
            vec!["maps", "index", "-o", link, map],
            vec!["maps", "index", "-o", map, link],
        ] {
            let o = teebatch(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).ends_with(": refusing to overwrite it\n"),
                "{args:?}: {}",
                stderr(&o)
            );
            assert_eq!(std::fs::read(f.map()).unwrap(), MAPS[0].1);
        }
    }
    // A new output file beside the inputs is fine, and is not an input of
    // the walk that found them.
    let out = f.path("maps/records.map");
    let o = teebatch(&["maps", "index", "-q", "-o", s(&out), dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 2);
}

/// `merge -o` may not name one of the summaries it reads.
#[test]
fn merge_refuses_to_overwrite_a_summary() {
    let f = Fixture::new();
    let sum = f.path("s.json");
    let o = teebatch(&["maps", "index", "-q", "--summary", s(&sum), s(&f.map())]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = std::fs::read(&sum).unwrap();
    let o = teebatch(&["merge", "-q", "-o", s(&sum), s(&sum)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        format!(
            "teebatch: -o {0} is the summary {0}: refusing to overwrite it\n",
            s(&sum)
        )
    );
    assert_eq!(std::fs::read(&sum).unwrap(), before);
}

/// The files in `dir` (names, sorted).
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A run whose output fails part-way (here: the file size limit, as a
/// full disk would) exits 2 naming the path, and leaves the old file as it
/// was and no partial file, for every format and for the summary.
#[cfg(unix)]
#[test]
fn a_failed_output_leaves_the_old_file_and_no_partial_one() {
    let f = Fixture::new();
    let out_dir = f.path("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("records");
    for args in [
        vec!["maps", "index", "-o", "OUT"],
        vec!["maps", "index", "--format", "csv", "-o", "OUT"],
        vec!["maps", "index", "--format", "parquet", "-o", "OUT"],
        vec!["maps", "index", "--summary", "OUT", "-o", "/dev/null"],
        vec!["demos", "export", "--table", "positions", "-o", "OUT"],
        vec![
            "demos",
            "export",
            "--table",
            "positions",
            "--format",
            "parquet",
            "-o",
            "OUT",
        ],
    ] {
        std::fs::write(&out, b"the old records\n").unwrap();
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "OUT" { s(&out) } else { a })
            .collect();
        let inputs = if args[0] == "maps" {
            f.path("maps")
        } else {
            f.demo()
        };
        // 512-byte blocks: a few records fit, the rest do not; the signal
        // is ignored so that the write fails with EFBIG ("File too large").
        let o = std::process::Command::new("sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 1; exec \"$@\"")
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_teebatch"))
            .args(&args)
            .arg(&inputs)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!("{}: File too large", s(&out))),
            "{args:?}: {e}"
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            b"the old records\n",
            "{args:?}"
        );
        assert_eq!(names_in(&out_dir), ["records"], "{args:?}");
    }
}

/// Write errors name the output (`-o /dev/full`).
#[cfg(target_os = "linux")]
#[test]
fn write_errors_name_the_path() {
    let f = Fixture::new();
    let o = teebatch(&["maps", "index", "-q", "-o", "/dev/full", s(&f.path("maps"))]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "teebatch: /dev/full: No space left on device (os error 28)\n"
    );
}

/// `-o -` is stdout (no file named `-`), for records, summaries, Parquet
/// (when stdout is not a terminal) and `demos slice`; two outputs on stdout
/// are refused.
#[test]
fn dash_is_stdout() {
    let f = Fixture::new();
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
            .args(args)
            .current_dir(f.dir.path())
            .output()
            .unwrap()
    };
    let map = s(&f.map()).to_owned();
    let o = run(&["maps", "index", "-q", "-o", "-", &map]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(String::from_utf8(o.stdout).unwrap().lines().count(), 1);
    let o = run(&[
        "maps", "index", "-q", "--format", "parquet", "-o", "-", &map,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(&o.stdout[..4], b"PAR1");
    assert_eq!(&o.stdout[o.stdout.len() - 4..], b"PAR1");
    let o = run(&[
        "maps",
        "index",
        "-q",
        "-o",
        "/dev/null",
        "--summary",
        "-",
        &map,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["command"], "maps index");
    let o = run(&["maps", "index", "-q", "--summary", "-", &map]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "teebatch: -o and --summary would both write to stdout: name a file for one of them\n"
    );
    assert!(!f.path("-").exists());
    f.assert_unchanged("-o -");
}

/// A symbolic link where a picture goes is replaced by the picture; the
/// file it pointed to is left alone.
#[cfg(unix)]
#[test]
fn a_link_at_a_picture_path_is_replaced_not_followed() {
    let f = Fixture::new();
    let pics = f.path("pics");
    std::fs::create_dir(&pics).unwrap();
    let victim = f.path("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let a_png = crate::common::picture_name("a", MAPS[0].1);
    std::os::unix::fs::symlink(&victim, pics.join(&a_png)).unwrap();
    let o = teebatch(&["maps", "render", "-q", "--out", s(&pics), s(&f.map())]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    let meta = std::fs::symlink_metadata(pics.join(&a_png)).unwrap();
    assert!(meta.is_file());
    assert_eq!(
        &std::fs::read(pics.join(&a_png)).unwrap()[..8],
        b"\x89PNG\r\n\x1a\n"
    );
    assert_eq!(names_in(&pics), [a_png]);
}

/// A picture is never one of the inputs: its name ends in `-<sha256>.png`
/// after the map's whole file stem, which no input's own name can (a map
/// file named like its picture gets a longer name); the input is left as
/// it was.
#[test]
fn a_picture_never_overwrites_an_input() {
    let f = Fixture::new();
    let named_like = crate::common::picture_name("x", MAPS[0].1);
    let png_map = f.path("maps").join(&named_like);
    std::fs::write(&png_map, MAPS[0].1).unwrap();
    let o = teebatch(&[
        "maps",
        "render",
        "-q",
        "--out",
        s(&f.path("maps")),
        s(&png_map),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rec: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let stem = named_like.strip_suffix(".png").unwrap();
    assert_eq!(
        rec["picture"],
        crate::common::picture_name(stem, MAPS[0].1).as_str()
    );
    assert_eq!(std::fs::read(&png_map).unwrap(), MAPS[0].1);
}

/// Picture names depend on the map alone: `<name>-<sha256>.png`, the name
/// made printable (control characters, separators and a leading dot become
/// `_`) and cut to 100 bytes at a character boundary.
#[test]
fn picture_names_are_printable_and_bounded() {
    use teebatch::batch::render::{picture_name, PICTURE_NAME_BYTES};
    let sha = "ab".repeat(32);
    assert_eq!(picture_name("x", &sha), format!("x-{sha}.png"));
    assert_eq!(
        picture_name("evil\x1b[31m\nname", &sha),
        format!("evil_[31m_name-{sha}.png")
    );
    assert_eq!(picture_name(".hidden", &sha), format!("_hidden-{sha}.png"));
    assert_eq!(picture_name("a\\b", &sha), format!("a_b-{sha}.png"));
    assert_eq!(picture_name("", &sha), format!("map-{sha}.png"));
    let long = "é".repeat(80);
    let cut = picture_name(&long, &sha);
    assert_eq!(
        cut,
        format!("{}-{sha}.png", "é".repeat(PICTURE_NAME_BYTES / 2))
    );
    assert!(cut.len() < 255);
}

/// Two different maps never share a picture (issue 38's crafted case: a
/// map named like another's name and hash suffix): `a/x.map`, `b/x.map`
/// and `c/x-<sha256 of a/x.map>.map` give three pictures, each its own
/// map's; the same bytes under two paths give one picture.
#[test]
fn picture_names_never_collide() {
    let f = Fixture::new();
    let (one, two) = (MAPS[0].1, MAPS[1].1);
    let sha_one = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(one));
    for (dir, name, bytes) in [
        ("a", "x.map".to_owned(), one),
        ("b", "x.map".to_owned(), two),
        ("c", format!("x-{sha_one}.map"), two),
        ("d", "x.map".to_owned(), one),
    ] {
        std::fs::create_dir_all(f.path(dir)).unwrap();
        std::fs::write(f.path(dir).join(name), bytes).unwrap();
    }
    let pics = f.path("pics");
    let o = teebatch(&[
        "maps",
        "render",
        "-q",
        "--max-side",
        "64",
        "--out",
        s(&pics),
        s(&f.path("a")),
        s(&f.path("b")),
        s(&f.path("c")),
        s(&f.path("d")),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let recs = crate::common::records(&o);
    let names: Vec<&str> = recs
        .iter()
        .map(|r| r["picture"].as_str().unwrap())
        .collect();
    let want = [
        crate::common::picture_name("x", one),
        crate::common::picture_name("x", two),
        crate::common::picture_name(&format!("x-{sha_one}"), two),
        crate::common::picture_name("x", one),
    ];
    assert_eq!(names, want);
    assert_eq!(names_in(&pics), {
        let mut v = want[..3].to_vec();
        v.sort();
        v
    });
    // Each picture is its own map's: the two contents draw differently.
    let bytes = |n: &str| std::fs::read(pics.join(n)).unwrap();
    assert_ne!(bytes(&want[0]), bytes(&want[1]));
    assert_eq!(bytes(&want[1]), bytes(&want[2]));
}

/// `--out` naming an existing file says "Not a directory".
#[test]
fn an_out_folder_that_is_a_file_is_not_a_directory() {
    let f = Fixture::new();
    let file = s(&f.path("list.txt")).to_owned();
    for args in [
        vec!["maps", "render", "--out", &file],
        vec!["maps", "index", "--thumbnails", &file],
        vec!["demos", "heatmap", "--out", &file],
    ] {
        let o = teebatch(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(
            stderr(&o),
            format!("teebatch: {file}: not a directory\n"),
            "{args:?}"
        );
    }
}

/// A thumbnail that cannot be written fails the run (exit 1) and says so
/// on stderr, besides the warning in its record.
#[test]
fn unwritable_thumbnails_fail_the_run() {
    let f = Fixture::new();
    let thumbs = f.path("thumbs");
    // A folder where the picture would go: the write fails even as root.
    let a_png = thumbs.join(crate::common::picture_name("a", MAPS[0].1));
    std::fs::create_dir_all(&a_png).unwrap();
    let o = teebatch(&["maps", "index", "--thumbnails", s(&thumbs), s(&f.map())]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let expected = format!(
        "teebatch: 1 thumbnails could not be written (the first: {}: is a directory)",
        s(&a_png)
    );
    assert!(stderr(&o).lines().any(|l| l == expected), "{}", stderr(&o));
    let rec: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rec["warnings"][0]["section"], "thumbnail: file");
}

/// `--from` after `--to` is a usage error in every command that takes a
/// tick range, as in `demos slice`.
#[test]
fn from_after_to_is_refused() {
    let f = Fixture::new();
    let demo = s(&f.demo()).to_owned();
    for cmd in [
        vec!["demos", "export", "--table", "chat"],
        vec!["demos", "heatmap", "-o", "/dev/null"],
    ] {
        let mut args = cmd.clone();
        args.extend(["--from", "200", "--to", "100", &demo]);
        let o = teebatch(&args);
        assert_eq!(o.status.code(), Some(2), "{cmd:?}");
        assert_eq!(
            stderr(&o),
            "teebatch: --from 200 is after --to 100: the range holds no tick\n",
            "{cmd:?}"
        );
        assert!(o.stdout.is_empty());
    }
}
