//! Variable-length ints (see int.md).
