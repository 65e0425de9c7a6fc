//! The demo container (see demo.md).
