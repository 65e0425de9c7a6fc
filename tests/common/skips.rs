//! Tests that go without the shared datasets say so: the test binary,
//! run on a few data tests with the datasets pointed elsewhere, ends with
//! one line counting them, and fails them with `TEEBATCH_REQUIRE_DATASETS`.

/// Runs this test binary on the datafile tests (which read the shared
/// datasets) with `TEEBATCH_DATASETS` naming a missing folder.
fn run_data_tests(require: bool) -> std::process::Output {
    let missing = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "datafile::golden::every_real_map_matches_golden",
        "datafile::golden::real_maps_round_trip_through_the_writer",
        "--test-threads",
        "2",
    ])
    .env("TEEBATCH_DATASETS", missing.path().join("nothing here"))
    .env_remove("TEEBATCH_REQUIRE_DATASETS");
    if require {
        cmd.env("TEEBATCH_REQUIRE_DATASETS", "1");
    }
    cmd.output().unwrap()
}

#[test]
fn skipped_tests_are_counted_in_one_line() {
    let o = run_data_tests(false);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(out.contains("2 passed"), "{out}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("SKIPPED")).collect();
    assert_eq!(
        lines,
        [
            "SKIPPED 2 tests for lack of data: ../shared/datasets not found \
          (set TEEBATCH_DATASETS=/path/to/datasets) \
          (TEEBATCH_REQUIRE_DATASETS=1 makes this a failure)"
        ],
        "{err}"
    );
}

#[test]
fn required_datasets_fail_instead_of_skipping() {
    let o = run_data_tests(true);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("2 failed"), "{out}");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("SKIPPED"));
}
