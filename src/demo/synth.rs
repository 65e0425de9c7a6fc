//! Deterministic generator of realistic demos, written by our writer.
