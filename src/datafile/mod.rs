//! The Teeworlds datafile container.
