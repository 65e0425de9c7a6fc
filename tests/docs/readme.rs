//! The commands marked runnable (```` ```sh runnable ````) in the README
//! and in `docs/*.md` work with the freshly built binary: run in an empty
//! folder, `teebatch` first on `PATH`, each line must exit 0.

use std::path::Path;

/// The lines of every ```` ```sh runnable ```` block of the README
/// (comments and blank lines left out), block by block.
fn runnable_blocks(readme: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in readme.lines() {
        match &mut current {
            None if line.trim_end() == "```sh runnable" => current = Some(Vec::new()),
            None => {}
            Some(b) if line.trim_end() == "```" => {
                blocks.push(std::mem::take(b));
                current = None;
            }
            Some(b) => {
                let l = line.trim();
                if !l.is_empty() && !l.starts_with('#') {
                    b.push(l.to_owned());
                }
            }
        }
    }
    assert!(current.is_none(), "unclosed ```sh runnable block");
    blocks
}

/// The README and every `docs/*.md`, by path, in name order.
fn manual_pages() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages.insert(0, root.join("README.md"));
    pages
}

#[test]
fn readme_commands_run() {
    let mut blocks = Vec::new();
    for page in manual_pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let found = runnable_blocks(&text);
        if page.ends_with("README.md") {
            assert!(!found.is_empty(), "the README has runnable blocks");
        }
        blocks.extend(found);
    }
    assert!(blocks.len() >= 5, "{} runnable blocks", blocks.len());
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_teebatch")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    for block in blocks {
        let dir = tempfile::tempdir().unwrap();
        for line in &block {
            let o = std::process::Command::new("sh")
                .args(["-c", line])
                .current_dir(dir.path())
                .env("PATH", &path)
                .output()
                .unwrap();
            assert!(
                o.status.success(),
                "README command `{line}`: {}\n{}",
                o.status,
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

/// `teebatch ARGS --help`'s output.
fn help(args: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(o.status.success(), "teebatch {args:?} --help");
    String::from_utf8(o.stdout).unwrap()
}

/// The subcommands a `--help` lists under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim_end() != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// The README's synopsis (the first fenced block of its "Command line"
/// section) names every command `teebatch --help` has, and no other; every
/// `--option` it gives a command is one that command's `--help` lists.
#[test]
fn readme_synopsis_matches_the_commands() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let section = readme
        .split("\n## Command line\n")
        .nth(1)
        .expect("a Command line section");
    let block = section.split("```\n").nth(1).expect("the synopsis block");
    // Synopsis lines: `teebatch CMD [SUB] ...`, continued by indented lines.
    let mut synopsis: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        if let Some(rest) = line.strip_prefix("teebatch ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let top = help(&[]);
            let cmd = words[0];
            if !subcommands(&top).iter().any(|c| c == cmd) {
                // `teebatch --version` and the like.
                assert!(
                    cmd.starts_with('-'),
                    "README synopsis names `{cmd}`, not a command"
                );
                continue;
            }
            let subs = subcommands(&help(&[cmd]));
            let name = match words.get(1) {
                Some(w) if subs.iter().any(|s| s == w) => format!("{cmd} {w}"),
                _ if subs.is_empty() => cmd.to_owned(),
                // `bench (maps | demos | codecs)`: one line for several.
                _ => {
                    for s in &subs {
                        if rest.contains(s.as_str()) {
                            synopsis.push((format!("{cmd} {s}"), rest.to_owned()));
                        }
                    }
                    continue;
                }
            };
            synopsis.push((name, rest.to_owned()));
        } else if let Some(last) = synopsis.last_mut() {
            last.1.push(' ');
            last.1.push_str(line);
        }
    }
    let mut commands = Vec::new();
    for c in subcommands(&help(&[])) {
        let subs = subcommands(&help(&[&c]));
        if subs.is_empty() {
            commands.push(c);
        } else {
            commands.extend(subs.into_iter().map(|s| format!("{c} {s}")));
        }
    }
    let mut named: Vec<String> = synopsis.iter().map(|(n, _)| n.clone()).collect();
    named.sort();
    named.dedup();
    commands.sort();
    assert_eq!(named, commands, "the README's synopsis against --help");
    for (name, text) in &synopsis {
        let args: Vec<&str> = name.split(' ').collect();
        let h = help(&args);
        for opt in text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("--") && w.len() > 2)
        {
            assert!(
                [" ", "\n", "=", ",", "["]
                    .iter()
                    .any(|end| h.contains(&format!("{opt}{end}"))),
                "README synopsis gives `teebatch {name}` the option {opt}, which its --help does not list"
            );
        }
    }
}

/// Code fences of a page that do not close: a fence opened and never
/// closed, or a closing fence with text after it (which Markdown does not
/// take as a closing fence, so the block runs on over the prose below).
fn fence_faults(text: &str) -> Vec<String> {
    let mut faults = Vec::new();
    let mut open: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if !t.starts_with("```") {
            continue;
        }
        let rest = t.trim_start_matches('`');
        match open {
            None => open = Some(i + 1),
            Some(_) if rest.trim().is_empty() => open = None,
            Some(at) => faults.push(format!(
                "line {}: `{}` inside the block opened on line {at} (a closing fence takes no text)",
                i + 1,
                line.trim()
            )),
        }
    }
    if let Some(at) = open {
        faults.push(format!("the block opened on line {at} never closes"));
    }
    faults
}

#[test]
fn manual_code_blocks_close() {
    assert_eq!(
        fence_faults("a\n```sh\nx\n``` then prose\n"),
        ["line 4: ```` then prose` inside the block opened on line 2 (a closing fence takes no text)", "the block opened on line 2 never closes"]
    );
    assert!(fence_faults("```sh runnable\nx\n```\ntext\n```text\ny\n```\n").is_empty());
    for page in manual_pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        assert_eq!(
            fence_faults(&text),
            Vec::<String>::new(),
            "{}",
            page.display()
        );
    }
}
