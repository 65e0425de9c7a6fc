//! Kernel dispatch: the x86 level cap (`TEEBATCH_X86_LEVEL`) decides the
//! kernel each family runs, `--version` says what was detected and chosen,
//! and a bad cap is refused.

use teebatch::backend::{X86Level, X86_LEVEL_ENV};

pub(crate) fn teebatch_with_level(level: &str, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .env(X86_LEVEL_ENV, level)
        .args(args)
        .output()
        .expect("run teebatch")
}

/// The kernels each family must choose at an active level.
pub(crate) fn expected_kernels(active: X86Level) -> [(&'static str, &'static str); 3] {
    match active {
        X86Level::Sse2 => [
            ("varint", "wide"),
            ("huffman", "portable"),
            ("checksum", "wide"),
        ],
        X86Level::Avx2 => [
            ("varint", "avx2"),
            ("huffman", "bmi2"),
            ("checksum", "avx2"),
        ],
        X86Level::Avx512 => [
            ("varint", "avx512"),
            ("huffman", "bmi2"),
            ("checksum", "avx2"),
        ],
    }
}

#[test]
fn version_names_detected_level_and_each_familys_kernel() {
    let detected = X86Level::detected();
    for cap in X86Level::ALL {
        let out = teebatch_with_level(cap.name(), &["--version"]);
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8(out.stdout).unwrap();
        let active = detected.min(cap);
        assert!(
            text.contains(&format!("cpu level {detected}, active {active} ")),
            "cap {cap}: {text}"
        );
        for (family, kernel) in expected_kernels(active) {
            if !cfg!(target_arch = "x86_64") {
                break;
            }
            assert!(
                text.contains(&format!("{family} {kernel}")),
                "cap {cap}: {family} should run {kernel}: {text}"
            );
        }
    }
}

#[test]
fn a_bad_level_cap_is_refused() {
    let out = teebatch_with_level("avx3", &["--version"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        format!("teebatch: {X86_LEVEL_ENV}=avx3: not an x86 level (sse2, avx2, avx512)\n")
    );
}
