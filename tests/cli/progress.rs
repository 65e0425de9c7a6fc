//! The progress bar: on stderr only, shown on a non-terminal only with
//! `--progress`, silenced by `-q`; the records do not change.

use crate::common::teebatch;

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

#[test]
fn progress_goes_to_stderr_only() {
    for cmd in [
        &["maps", "index"][..],
        &["demos", "index"],
        &["demos", "export", "--table", "chat"],
    ] {
        let run = |extra: &[&str]| {
            let mut a = cmd.to_vec();
            a.extend(extra);
            let o = teebatch(&a);
            assert_eq!(o.status.code(), Some(0), "{a:?}: {}", text(&o.stderr));
            (text(&o.stdout), text(&o.stderr))
        };
        let (quiet_out, quiet_err) = run(&["-q"]);
        assert_eq!(quiet_err, "", "{cmd:?}");
        // Not a terminal: no bar without --progress.
        let (out, err) = run(&[]);
        assert_eq!(out, quiet_out, "{cmd:?}");
        assert!(
            !err.contains(" files embedded:") && !err.contains("ETA"),
            "{cmd:?}: {err}"
        );
        // -q wins over --progress.
        assert_eq!(
            run(&["-q", "--progress"]),
            (quiet_out.clone(), String::new())
        );
        // --progress: plain lines on stderr (bytes in decimal units, files
        // done of the total, then the last file done, if any: how many are
        // done when the first line is drawn depends on the workers'
        // timing), the records unchanged, the summary after the bar.
        let (out, err) = run(&["--progress"]);
        assert_eq!(out, quiet_out, "{cmd:?}");
        let n = quiet_out.lines().count();
        let files = if cmd[1] == "export" { 6 } else { n };
        let first = err.lines().next().unwrap();
        let count = format!("/{files} files");
        let done: usize = first
            .split_once(&count)
            .and_then(|(head, _)| head.rsplit(' ').next())
            .and_then(|k| k.parse().ok())
            .unwrap_or_else(|| panic!("{cmd:?}: no file count in {first:?}"));
        assert!(done <= files, "{first}");
        assert!(
            first.contains("B/") && first.contains("B/s ETA"),
            "{cmd:?}: {err}"
        );
        assert!(!first.contains("iB"), "{first}");
        let bar_lines = err.lines().take_while(|l| l.contains(" ETA ")).count();
        assert!(bar_lines >= 1);
        if cmd[1] == "index" {
            assert!(
                err.lines()
                    .nth(bar_lines)
                    .unwrap()
                    .starts_with(&format!("{} {} (embedded dataset): ", cmd[0], cmd[1])),
                "{cmd:?}: {err}"
            );
        }
        assert!(!err.contains('\r') && !err.contains('\x1b'), "{err:?}");
    }
}
