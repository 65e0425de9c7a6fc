//! `teebatch-peers`: teebatch against the other decoders of the Teeworlds
//! world, on your files, in one run, with the ratios printed. A cargo
//! example, so that libtw2's crates (dev-dependencies, MIT/Apache-2.0) and
//! twmap (optional, AGPL-3.0-only, feature `twmap-peer`) are linked only
//! here and never into the `teebatch` binary or library:
//!
//! ```text
//! cargo run --release --example teebatch-peers --features peers -- demos [--demos DIR] [--levels sse2,avx2] [--seconds S --rounds R]
//! cargo run --release --example teebatch-peers --features peers,twmap-peer -- maps [--maps DIR] [--seconds S --rounds R]
//! ```
//!
//! `demos` is the harness of `cargo bench --bench peers` (libtw2: Huffman,
//! framing, snapshots and deltas), `maps` that of `cargo bench --bench
//! maps_peers` (twmap's parse and load, `sha256sum`); their module docs
//! list every option. Without `--demos`/`--maps` they measure the shared
//! datasets of a development checkout.

// Each harness brings its own copy of the shared timing module
// (`race.rs`), as it does when cargo builds it as a bench.
#![allow(clippy::duplicate_mod)]

#[path = "peers.rs"]
mod demos;
#[path = "maps_peers.rs"]
mod maps;

const USAGE: &str =
    "usage: teebatch-peers demos [--demos DIR] [options] | maps [--maps DIR] [options]";

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("demos") => demos::main(),
        Some("maps") => maps::main(),
        Some("-h" | "--help") => println!("{USAGE}"),
        _ => {
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    }
}
