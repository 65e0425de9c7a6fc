//! Where the shared real-file datasets are: one file for the integration
//! tests (`tests/common`), the benches (`#[path]` from `benches/`) and the
//! one unit test that reads them (`src/test_support.rs`).

use std::path::{Path, PathBuf};

/// Environment variable naming the shared real-file datasets folder.
pub const DATASETS_ENV: &str = "TEEBATCH_DATASETS";

/// The shared datasets folder (`$TEEBATCH_DATASETS`, else `../shared/datasets`
/// beside the crate at `manifest_dir`), if it exists.
pub fn shared_datasets_dir(manifest_dir: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(DATASETS_ENV) {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    let p = Path::new(manifest_dir).join("../shared/datasets");
    p.is_dir().then_some(p)
}
