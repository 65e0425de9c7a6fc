//! Walking directory inputs: `--glob`, `--exclude`, `--max-depth`,
//! `--no-follow`, `--hidden`, seen through `--list` and the records.

use crate::common::{records, teebatch};
use std::path::Path;

/// A tree of maps (copies of one embedded map) at several depths, hidden
/// ones, a link to a directory outside the tree and a file that is no map.
/// Returns the walked root and the directory the link points to.
fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let map = teebatch::batch::embedded::MAPS[0].1;
    for rel in [
        "a.map",
        "b_old.map",
        "novice/c.map",
        "novice/deep/d.map",
        "novice/deep/e_old.map",
        "moderate/f.map",
        ".hidden/g.map",
        "moderate/.h.map",
    ] {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, map).unwrap();
    }
    std::fs::write(root.join("readme.txt"), b"x").unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("i.map"), map).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, root.join("linked")).unwrap();
    (dir, root)
}

/// `maps index --list ROOT extra...`: the listed paths relative to `root`,
/// requiring exit code 0 and nothing on stderr.
fn listed(root: &Path, extra: &[&str]) -> Vec<String> {
    let mut a = vec!["maps", "index", "--list"];
    a.extend(extra);
    a.push(root.to_str().unwrap());
    let o = teebatch(&a);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{a:?}: {err}");
    assert!(err.is_empty(), "{a:?}: {err}");
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            Path::new(l)
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

#[test]
fn walk_options_select_files() {
    let (_dir, root) = tree();
    let linked: &[&str] = if cfg!(unix) { &["linked/i.map"] } else { &[] };
    let with_link = |v: &[&str]| {
        let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        v.extend(linked.iter().map(|s| s.to_string()));
        v.sort();
        v
    };
    // Default: hidden entries skipped, links followed, any depth, sorted.
    let all = with_link(&[
        "a.map",
        "b_old.map",
        "moderate/f.map",
        "novice/c.map",
        "novice/deep/d.map",
        "novice/deep/e_old.map",
    ]);
    assert_eq!(listed(&root, &[]), all);
    assert_eq!(
        listed(&root, &["--hidden"]),
        with_link(&[
            ".hidden/g.map",
            "a.map",
            "b_old.map",
            "moderate/.h.map",
            "moderate/f.map",
            "novice/c.map",
            "novice/deep/d.map",
            "novice/deep/e_old.map",
        ])
    );
    // A glob that matches a hidden name does not bring it back.
    assert!(!listed(&root, &["--glob", "*.map"])
        .iter()
        .any(|p| p.contains("/.") || p.starts_with('.')));
    #[cfg(unix)]
    assert_eq!(
        listed(&root, &["--no-follow"]),
        all.iter()
            .filter(|p| !p.starts_with("linked/"))
            .cloned()
            .collect::<Vec<_>>()
    );
    assert_eq!(
        listed(&root, &["--max-depth", "1"]),
        vec!["a.map", "b_old.map"]
    );
    assert_eq!(
        listed(&root, &["--max-depth", "2"]),
        with_link(&["a.map", "b_old.map", "moderate/f.map", "novice/c.map"])
    );
    // Whitelist globs: paths relative to the walked directory.
    assert_eq!(
        listed(&root, &["--glob", "novice/**"]),
        vec!["novice/c.map", "novice/deep/d.map", "novice/deep/e_old.map"]
    );
    // Negated globs and --exclude: by name at any depth, or a directory.
    let no_old = with_link(&[
        "a.map",
        "moderate/f.map",
        "novice/c.map",
        "novice/deep/d.map",
    ]);
    assert_eq!(listed(&root, &["--glob", "!*_old.map"]), no_old);
    assert_eq!(listed(&root, &["--exclude", "*_old.map"]), no_old);
    assert_eq!(
        listed(&root, &["--exclude", "deep", "-g", "novice/**"]),
        vec!["novice/c.map"]
    );
    // A later glob wins over an earlier one.
    assert_eq!(
        listed(&root, &["-g", "novice/**", "-g", "!*_old.map"]),
        vec!["novice/c.map", "novice/deep/d.map"]
    );
    // A file named on the command line is taken whatever the options.
    let hidden_file = root.join(".hidden/g.map");
    let o = teebatch(&[
        "maps",
        "index",
        "--list",
        "--exclude",
        "*.map",
        hidden_file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!("{}\n", hidden_file.display())
    );
}

/// The records follow the same selection as `--list`, for maps and demos.
#[test]
fn walk_options_apply_to_records() {
    let (_dir, root) = tree();
    let o = teebatch(&[
        "maps",
        "index",
        "-q",
        "--max-depth",
        "2",
        "--exclude",
        "novice",
        root.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let paths: Vec<String> = records(&o)
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    let mut want = vec!["a.map", "b_old.map", "moderate/f.map"];
    if cfg!(unix) {
        want.push("linked/i.map");
    }
    want.sort();
    let want: Vec<String> = want
        .iter()
        .map(|p| root.join(p).to_string_lossy().into_owned())
        .collect();
    assert_eq!(paths, want);

    let demos = root.join("demos/.old");
    std::fs::create_dir_all(&demos).unwrap();
    std::fs::write(demos.join("x.demo"), teebatch::batch::embedded::DEMOS[0].1).unwrap();
    std::fs::write(
        root.join("demos/y.demo"),
        teebatch::batch::embedded::DEMOS[0].1,
    )
    .unwrap();
    let o = teebatch(&["demos", "index", "-q", root.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let paths: Vec<String> = records(&o)
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(paths, vec![root.join("demos/y.demo").to_string_lossy()]);
}

/// A glob that does not compile is a usage error naming it (exit 2), also
/// with no PATH.
#[test]
fn bad_glob_is_a_usage_error() {
    let (_dir, root) = tree();
    for paths in [vec![root.to_str().unwrap()], vec![]] {
        let mut a = vec!["maps", "index", "-q", "--glob", "a{b"];
        a.extend(&paths);
        let o = teebatch(&a);
        assert_eq!(o.status.code(), Some(2), "{paths:?}");
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--glob \"a{b\""), "{err}");
    }
}

/// `--list -0` prints raw path bytes ended by NUL, and `--files-from - -0`
/// reads that list back to the same inputs, whatever bytes the names hold
/// (newline, backslash, bytes that are not UTF-8).
#[cfg(unix)]
#[test]
fn list_null_round_trips_through_files_from() {
    use std::io::Write;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let map = teebatch::batch::embedded::MAPS[0].1;
    let names: [&[u8]; 4] = [
        b"plain.map",
        b"new\nline.map",
        b"back\\slash.map",
        b"bad\xff.map",
    ];
    for n in names {
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(n)), map).unwrap();
    }
    let root = dir.path().to_str().unwrap();
    let raw = teebatch(&["maps", "index", "--list", "-0", root]);
    assert_eq!(raw.status.code(), Some(0));
    let listed: Vec<&[u8]> = raw.stdout.split(|&b| b == 0).collect();
    assert_eq!(listed.len(), names.len() + 1, "{:?}", raw.stdout);
    assert_eq!(
        listed.last(),
        Some(&&b""[..]),
        "every path is ended by a NUL"
    );
    let mut want: Vec<Vec<u8>> = names
        .iter()
        .map(|n| [dir.path().as_os_str().as_bytes(), b"/", n].concat())
        .collect();
    want.sort();
    let mut got: Vec<Vec<u8>> = listed[..names.len()].iter().map(|p| p.to_vec()).collect();
    got.sort();
    assert_eq!(got, want);
    // Reading the raw list back gives the same records as walking the
    // folder (the line-per-path listing cannot carry the newline name).
    let walked = records(&teebatch(&["maps", "index", "-q", root]));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args(["maps", "index", "-q", "--files-from", "-", "-0"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&raw.stdout).unwrap();
    let back = child.wait_with_output().unwrap();
    assert_eq!(back.status.code(), Some(0));
    let recs = records(&back);
    assert_eq!(recs.len(), names.len());
    assert_eq!(recs, walked);
}

/// Links to the kernel's filesystems are not walked: a link to `/proc`
/// (whose walk never ended: every `/proc/PID/root` leads back to `/`) or
/// to `/sys` gives one `io.special_filesystem` record and the walk goes
/// on; so does a link to `/dev` where it is a mount of its own. A link to
/// a file is followed, and a folder that two links lead to is walked once
/// (through the first in name order).
#[cfg(target_os = "linux")]
#[test]
fn links_to_kernel_filesystems_are_not_walked() {
    use std::os::unix::fs::{symlink, MetadataExt};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let map = teebatch::batch::embedded::MAPS[0].1;
    std::fs::write(root.join("a.map"), map).unwrap();
    std::fs::write(outside.join("o.map"), map).unwrap();
    symlink("/proc", root.join("proc")).unwrap();
    symlink("/sys", root.join("sys")).unwrap();
    symlink("/dev", root.join("dev")).unwrap();
    symlink(&outside, root.join("l1")).unwrap();
    symlink(&outside, root.join("l2")).unwrap();
    symlink(root.join("a.map"), root.join("file_link.map")).unwrap();
    let dev_is_a_mount =
        std::fs::metadata("/dev").unwrap().dev() != std::fs::metadata("/").unwrap().dev();

    let o = teebatch(&["maps", "index", "-q", root.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let recs = records(&o);
    let paths: Vec<String> = recs
        .iter()
        .map(|r| {
            let p = r["path"].as_str().unwrap();
            Path::new(p)
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut want = vec!["a.map", "file_link.map", "l1/o.map", "proc", "sys"];
    if dev_is_a_mount {
        want.insert(1, "dev");
    }
    assert_eq!(paths, want);
    let special = |name: &str, filesystem: &str| {
        let r = recs
            .iter()
            .find(|r| r["path"] == root.join(name).to_str().unwrap())
            .unwrap();
        assert_eq!(
            r["error"],
            serde_json::json!({
                "stage": "io",
                "kind": "special_filesystem",
                "section": "file",
                "offset": 0,
                "message": format!(
                    "not walked: a directory on the kernel's {filesystem} \
                     filesystem, not a collection of files"
                ),
            }),
            "{name}"
        );
    };
    special("proc", "proc");
    special("sys", "sysfs");
    if dev_is_a_mount {
        special("dev", "/dev");
    }
    for name in ["a.map", "file_link.map", "l1/o.map"] {
        let r = recs
            .iter()
            .find(|r| r["path"] == root.join(name).to_str().unwrap())
            .unwrap();
        assert!(r.get("error").is_none(), "{name}: {r}");
    }
    // `/proc` named itself is not walked either.
    let o = teebatch(&["maps", "index", "--list", "/proc"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "/proc\n");
}
