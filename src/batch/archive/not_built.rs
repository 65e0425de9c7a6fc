//! The archive readers of a build without the cargo feature `archive`:
//! stand-ins with the readers' signatures, never called ([`super::list`]
//! and [`super::list_stdin`] give a `not_built` record first).

use super::{ArchiveError, ArchiveKind, GzStream, Listed};
use crate::limits::Limits;
use std::path::Path;

fn error() -> ArchiveError {
    ArchiveError::new(
        ArchiveKind::NotBuilt,
        "archive",
        0,
        "built without the cargo feature `archive`".into(),
    )
}

pub(super) fn list_tar(_: &[u8], _: &str) -> (Vec<Listed>, Vec<ArchiveError>) {
    (Vec::new(), vec![error()])
}

#[allow(clippy::type_complexity)]
pub(super) fn list_zip(
    _: &[u8],
    _: &str,
) -> Result<(Vec<Listed>, Option<ArchiveError>), ArchiveError> {
    Err(error())
}

#[allow(clippy::type_complexity)]
pub(super) fn list_tar_gz(
    _: &Path,
    _: &str,
    _: &Limits,
) -> Result<(Vec<Listed>, GzStream, Vec<ArchiveError>), ArchiveError> {
    Err(error())
}

pub(super) fn inflate_into(_: &[u8], _: u64, _: &mut Vec<u8>) -> Result<(), String> {
    Err("built without the cargo feature `archive`".into())
}
