//! Plumbing of the unit tests (compiled only for them): the shared
//! datasets folder, found as the integration tests and the benches find it
//! (`tests/common/datasets.rs`).

#[path = "../tests/common/datasets.rs"]
mod datasets;

use std::path::PathBuf;

/// The shared datasets for a unit test: `None` where they are missing, after
/// saying on stderr (uncaptured: one line for the one unit test that reads
/// them) that the test skips; a panic instead with
/// `TEEBATCH_REQUIRE_DATASETS` set. (The integration tests count their
/// skips in `tests/common`.)
pub(crate) fn test_datasets() -> Option<PathBuf> {
    use std::io::Write;
    let found = datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR"));
    if found.is_none() {
        if std::env::var_os("TEEBATCH_REQUIRE_DATASETS").is_some() {
            panic!("TEEBATCH_REQUIRE_DATASETS is set but ../shared/datasets is missing");
        }
        let test = std::thread::current().name().unwrap_or("").to_owned();
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test} for lack of data: ../shared/datasets not found (set TEEBATCH_DATASETS)"
        );
    }
    found
}
