//! Tests of `teebatch::backend`: which kernel each family runs.

mod dispatch;
