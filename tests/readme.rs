//! The README's commands marked runnable (```` ```sh runnable ````) work
//! with the freshly built binary: run in an empty folder, `teebatch` first
//! on `PATH`, each line must exit 0.

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

#[test]
fn readme_commands_run() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let blocks = runnable_blocks(&readme);
    assert!(!blocks.is_empty(), "the README has runnable blocks");
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
