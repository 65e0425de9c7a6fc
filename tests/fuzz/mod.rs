//! The fuzz targets (`fuzz/`) in miniature, and their findings.

mod regressions;
mod smoke;
