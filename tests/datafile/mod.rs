//! Tests of `teebatch::datafile`: the container format of maps.

mod golden;
mod hostile;
