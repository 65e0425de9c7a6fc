//! Build identity for `teebatch bench --format json` and `--version`: the
//! git commit (when built from a checkout), the profile and optimisation
//! level, and the target features compiled in.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=TEEBATCH_GIT_COMMIT={commit}");
        // Rebuild when HEAD moves: its file, the branch it names, and
        // the packed refs (in a worktree, refs live in the common dir).
        let dir = git(&["rev-parse", "--git-dir"]);
        let common = git(&["rev-parse", "--git-common-dir"]);
        let mut watch = Vec::new();
        if let Some(d) = &dir {
            watch.push(Path::new(d).join("HEAD"));
        }
        if let Some(c) = &common {
            watch.push(Path::new(c).join("packed-refs"));
            if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                watch.push(Path::new(c).join(r));
            }
        }
        for p in watch.iter().filter(|p| p.exists()) {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    println!("cargo:rustc-env=TEEBATCH_PROFILE={}", var("PROFILE"));
    println!("cargo:rustc-env=TEEBATCH_OPT_LEVEL={}", var("OPT_LEVEL"));
    println!(
        "cargo:rustc-env=TEEBATCH_TARGET_FEATURES={}",
        var("CARGO_CFG_TARGET_FEATURE")
    );
}
