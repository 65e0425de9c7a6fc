//! Inputs shared by the codec benches.
#![allow(dead_code)]
use std::path::PathBuf;

/// `../shared/datasets` (or `$TEEBATCH_DATASETS`), if present.
pub fn datasets_dir() -> Option<PathBuf> {
    teebatch::batch::shared_datasets_dir(env!("CARGO_MANIFEST_DIR"))
}
