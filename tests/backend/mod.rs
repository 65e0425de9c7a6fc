//! Tests of `teebatch::backend`: which kernel each family runs.

pub(crate) mod dispatch;
