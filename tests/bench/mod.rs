//! Tests of `teebatch::bench`: the benchmark reports.

mod report;
