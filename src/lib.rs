//! teebatch: batch processing of Teeworlds and DDNet maps and demos.
//!
//! The crate is layered so that every parser works on a borrowed `&[u8]` and
//! never sees a file handle. From the ground up:
//!
//! - [`bytes`], [`backend`] (the CPU's x86 level, the `--backend` choice
//!   and the one chooser of every kernel family), [`warn`] (the warning sink
//!   every layer reports through: counts every warning, keeps the first N)
//!   and [`kind`] (the names of errors and warnings in reports: each kind's
//!   `kind()` and the [`kind::Stage`] that reports it), and [`report`]
//!   (the error and warning records every layer reports with).
//! - [`datafile`]: the Teeworlds datafile container (maps), versions 3 and 4.
//! - [`map`]: the high-level map view on top of a datafile.
//! - [`codec`]: the demo/network kernels (Huffman, variable-length ints,
//!   snapshots and deltas), each with a reference, a scalar and a SIMD tier;
//!   [`codec::kernels::Kernels`] is what a backend resolves to, once.
//! - [`demo`]: the demo container (header, chunks), the snapshot stream,
//!   messages, players, dumps, export tables and the writer.
//! - [`limits`]: the resource limits of a run, one value carried in every
//!   options struct; each limit's default lives with the layer that
//!   enforces it.
//! - [`batch`]: walking collections, reading or mapping files, rayon
//!   fold/reduce, records, summaries and Parquet; one run per command
//!   (`maps index`, `demos index`, `maps render`, `demos heatmap`) that
//!   takes plain values and a record sink and returns what the run says
//!   ([`batch::run`]), for the command line and any other caller.
//! - [`bench`](mod@bench): the benchmark program of `teebatch bench`, and
//!   the decode-every-payload loop it shares with the criterion benches
//!   ([`bench::payloads`]).
//! - [`synth`] (cargo feature `synth`, on by default): deterministic map
//!   and demo generators.
//!
//! Cargo features (all on by default; `docs/architecture.md`, Features):
//! `parquet` (Arrow and Parquet: `demo::export`, `batch::export`,
//! `batch::tables`, `batch::parquet`), `render` (PNG: `render`,
//! `batch::render`, `batch::extract`, thumbnails; with `parquet`,
//! `batch::heat`), `archive` (zip and tar inputs; without it an archive
//! input is one `archive.not_built` error record), `cli` (the binary; in the
//! library only the `clap::ValueEnum` derives of option enums) and `synth`.
//!
//! The format modules (`codec`, `datafile`, `map`, `demo`) never use
//! `batch`, `limits` or the command line, and no two rooms below `batch`
//! (`backend`, `codec::kernels`, `synth::map`, ...) use each other, directly
//! or round a circle (tests check both). The command
//! line is not in the library: it is the `teebatch` binary's own module
//! (`src/main.rs`, `src/cli/`), which uses only the public API.
//!
//! # Examples
//!
//! Reading a datafile (the README's example):
//!
//! ```no_run
//! use teebatch::datafile::{Datafile, Inflater};
//!
//! let bytes = std::fs::read("Tutorial.map")?;
//! let df = Datafile::parse(&bytes)?;          // validates every table; borrows `bytes`
//! println!("{} items in {} types", df.num_items(), df.item_types().len());
//! for item in df.items_of_type(5) {           // layers
//!     println!("layer {} has {} ints", item.id, item.data.len());
//! }
//! let mut inflater = Inflater::default();     // per-file limit on decompressed bytes
//! let first = df.data(0, &mut inflater)?;     // exact-size libdeflater inflate
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The summary of a generated map, as `maps index` reports it, with its
//! warnings named as in the records:
//!
//! ```
//! # #[cfg(feature = "synth")] {
//! use teebatch::datafile::{Datafile, Inflater};
//! use teebatch::synth::map::{generate, SynthParams};
//!
//! let bytes = generate(&SynthParams::new(1, 30, 30));
//! let df = Datafile::parse(&bytes)?;
//! let mut inflater = Inflater::default();
//! let summary = teebatch::map::summarize(&df, &mut inflater, &mut Vec::new())?;
//! assert!(summary.counts.is_some());
//! for w in summary.warnings.iter() {
//!     println!("map.{} in {} at byte {}", w.kind.kind(), w.section, w.offset);
//! }
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod backend;
pub mod batch;
pub mod bench;
pub mod bytes;
pub mod codec;
pub mod datafile;
pub mod demo;
pub mod kind;
pub mod limits;
pub mod map;
#[cfg(feature = "render")]
pub mod render;
pub mod report;
#[cfg(feature = "synth")]
pub mod synth;
pub mod warn;

#[cfg(test)]
mod test_support;

#[cfg(test)]
mod tests {
    /// The lines of the first fenced block after `open` in `text`, with
    /// `prefix` taken off each line.
    fn block(text: &str, open: &str, prefix: &str) -> Vec<String> {
        let start = text.find(open).expect("block start") + open.len();
        text[start..]
            .lines()
            .skip(1)
            .map(|l| {
                l.strip_prefix(prefix)
                    .or_else(|| l.strip_prefix(prefix.trim_end()))
                    .unwrap_or(l)
                    .to_owned()
            })
            .take_while(|l| !l.starts_with("```"))
            .collect()
    }

    /// The README's library example is the one compiled as this crate's
    /// first doctest.
    #[test]
    fn readme_library_example_is_the_compiled_one() {
        let readme = block(include_str!("../README.md"), "## Library\n\n```rust", "");
        let lib = block(include_str!("lib.rs"), "//! ```no_run", "//! ");
        assert!(readme.len() > 5);
        assert_eq!(readme, lib);
    }

    /// Every `.rs` file under `dir` (recursively).
    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// No upward arrow: the format modules use neither the batch layer, the
    /// limits gathered above them, nor the command line (comments aside).
    #[test]
    fn formats_do_not_use_the_layers_above() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        for dir in ["codec", "datafile", "map", "demo"] {
            rust_files(&src.join(dir), &mut files);
        }
        for f in ["bytes.rs", "backend.rs", "warn.rs", "report.rs"] {
            files.push(src.join(f));
        }
        assert!(files.len() > 40, "{}", files.len());
        let mut upward = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                for above in ["crate::batch", "crate::cli", "crate::limits"] {
                    if code.contains(above) {
                        upward.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                    }
                }
            }
        }
        assert!(upward.is_empty(), "upward uses:\n{}", upward.join("\n"));
    }

    /// The module path of the source file `f` under `src`
    /// (`codec/huffman/mod.rs` → `["codec", "huffman"]`).
    fn module_of(src: &std::path::Path, f: &std::path::Path) -> Vec<String> {
        let rel = f.strip_prefix(src).unwrap().with_extension("");
        let mut m: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if m.last().is_some_and(|l| l == "mod" || l == "lib") {
            m.pop();
        }
        m
    }

    /// The module paths the code of `text` names (comments and the test
    /// part at the end of a file, from `#[cfg(test)]` or
    /// `#[cfg(all(test, ...))]` on, aside), each with its line:
    /// `crate::a::b` (also `$crate::`), and `super::x` / `self::x` resolved
    /// against `module`, the module of the file (a `mod.rs` is its
    /// folder's module, so `super` is the parent in both cases).
    fn named_modules(text: &str, module: &[String]) -> Vec<(Vec<String>, usize)> {
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.trim_start();
            if l.starts_with("#[cfg(test)]") || l.starts_with("#[cfg(all(test,") {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            let bytes = code.as_bytes();
            let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
            let mut at = 0;
            while at < code.len() {
                let rest = &code[at..];
                let Some(root) = ["crate::", "super::", "self::"]
                    .into_iter()
                    .find(|r| rest.starts_with(r) && (at == 0 || !word(bytes[at - 1])))
                else {
                    at += rest.chars().next().map_or(1, char::len_utf8);
                    continue;
                };
                let mut path: Vec<String> = match root {
                    "crate::" => Vec::new(),
                    // A file `a/b.rs` is module `a::b`: `self` is it, `super`
                    // is `a`; `a/b/mod.rs` is module `a::b` too.
                    "self::" => module.to_vec(),
                    _ => module[..module.len().saturating_sub(1)].to_vec(),
                };
                let mut p = at + root.len();
                loop {
                    let seg: String = code[p..].chars().take_while(|&c| word(c as u8)).collect();
                    if seg.is_empty() {
                        break;
                    }
                    p += seg.len();
                    if seg == "super" {
                        path.pop();
                    } else {
                        path.push(seg);
                    }
                    if code[p..].starts_with("::") {
                        p += 2;
                    } else {
                        break;
                    }
                }
                out.push((path, i + 1));
                at = p.max(at + 1);
            }
        }
        out
    }

    /// No import circle between the rooms below `batch`: with each file in
    /// the room its module path starts with (the longest such), no room
    /// uses a room that uses it back, directly or through others. Test
    /// modules at the end of a file (from `#[cfg(test)]` on) may use any
    /// room.
    #[test]
    fn no_import_circles_between_rooms() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let rooms: Vec<Vec<&str>> = [
            "backend",
            "bytes",
            "warn",
            "kind",
            "datafile",
            "map",
            "codec",
            "codec::huffman",
            "codec::varint",
            "codec::snapshot",
            "codec::kernels",
            "demo",
            "synth",
            "synth::demo",
            "synth::map",
            "synth::rng",
        ]
        .iter()
        .map(|r| r.split("::").collect())
        .collect();
        let room_of = |m: &[String]| {
            rooms
                .iter()
                .enumerate()
                .filter(|(_, r)| r.len() <= m.len() && r.iter().zip(m).all(|(a, b)| a == b))
                .max_by_key(|(_, r)| r.len())
                .map(|(i, _)| i)
        };
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        // uses[a][b]: where room a names room b first.
        let n = rooms.len();
        let mut uses = vec![vec![None::<String>; n]; n];
        for f in &files {
            let module = module_of(&src, f);
            let Some(a) = room_of(&module) else { continue };
            let text = std::fs::read_to_string(f).unwrap();
            for (path, line) in named_modules(&text, &module) {
                if let Some(b) = room_of(&path).filter(|&b| b != a) {
                    uses[a][b].get_or_insert_with(|| format!("{}:{line}", f.display()));
                }
            }
        }
        // The resolution finds the arrows that remain of the two circles
        // this test was written against (backend.rs <-> codec through
        // `tiers()`, synth/demo.rs <-> synth/map.rs).
        let room = |name: &str| rooms.iter().position(|r| r.join("::") == name).unwrap();
        assert!(uses[room("codec::kernels")][room("backend")].is_some());
        assert!(uses[room("codec::varint")][room("backend")].is_some());
        assert!(uses[room("synth::demo")][room("synth::map")].is_some());
        // Every pair of rooms that reach each other.
        let mut reach: Vec<Vec<bool>> = (0..n)
            .map(|a| (0..n).map(|b| uses[a][b].is_some()).collect())
            .collect();
        for k in 0..n {
            for a in 0..n {
                for b in 0..n {
                    reach[a][b] |= reach[a][k] && reach[k][b];
                }
            }
        }
        let mut circles = Vec::new();
        for a in 0..n {
            for b in 0..n {
                if let Some(at) = &uses[a][b] {
                    if reach[b][a] {
                        let (ra, rb) = (rooms[a].join("::"), rooms[b].join("::"));
                        circles.push(format!("{ra} uses {rb} ({at}) and {rb} leads back"));
                    }
                }
            }
        }
        assert!(
            circles.is_empty(),
            "import circles:\n{}",
            circles.join("\n")
        );
    }

    /// The optional dependencies stay in the rooms their cargo feature
    /// gates (`Cargo.toml`, `[features]`): a crate path (`png::...`) named
    /// anywhere else must be on a line that says its feature (a
    /// `cfg_attr`) or right under a `#[cfg(...)]` that does, so the
    /// library builds without it (`.ci/check-lib-only`). Test modules at
    /// the end of a file (from `#[cfg(test)]` or `#[cfg(all(test, ...))]`
    /// on) are aside: the tests run with the default features.
    #[test]
    fn optional_crates_stay_in_their_features_rooms() {
        // (feature, its crates, its rooms: files or folders under src/).
        let features: [(&str, &[&str], &[&str]); 4] = [
            (
                "parquet",
                &[
                    "arrow_array",
                    "arrow_buffer",
                    "arrow_cast",
                    "arrow_csv",
                    "arrow_json",
                    "arrow_schema",
                    "parquet",
                    "lexical_core",
                    "csv_core",
                ],
                &[
                    "demo/export",
                    "batch/export",
                    "batch/tables.rs",
                    "batch/parquet.rs",
                    "batch/heat.rs",
                    "bench/export.rs",
                ],
            ),
            (
                "render",
                &["png", "font8x8"],
                &[
                    "render",
                    "batch/render.rs",
                    "batch/extract.rs",
                    "batch/heat.rs",
                ],
            ),
            (
                "archive",
                &["zip", "tar"],
                &[
                    "batch/archive/zip.rs",
                    "batch/archive/tar.rs",
                    "batch/archive/tests.rs",
                    // `list_tar_gz` (the stream reader is always built).
                    "batch/archive/gz.rs",
                ],
            ),
            (
                "cli",
                &[
                    "clap",
                    "clap_complete",
                    "clap_mangen",
                    "indicatif",
                    "parse_size",
                ],
                &["cli", "main.rs"],
            ),
        ];
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b':';
        let mut stray = Vec::new();
        let mut seen = 0;
        for f in &files {
            let rel = f.strip_prefix(&src).unwrap();
            let text = std::fs::read_to_string(f).unwrap();
            let mut above = "";
            for (i, line) in text.lines().enumerate() {
                let l = line.trim_start();
                if l.starts_with("#[cfg(test)]") || l.starts_with("#[cfg(all(test,") {
                    break;
                }
                let code = line.split("//").next().unwrap_or("");
                for (feature, crates, rooms) in &features {
                    for c in crates.iter() {
                        let needle = format!("{c}::");
                        let named = code
                            .match_indices(&needle)
                            .any(|(at, _)| at == 0 || !word(code.as_bytes()[at - 1]));
                        if !named || rooms.iter().any(|r| rel.starts_with(r)) {
                            continue;
                        }
                        seen += 1;
                        let says = format!("feature = \"{feature}\"");
                        if !code.contains(&says) && !above.contains(&says) {
                            stray.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
                        }
                    }
                }
                if !line.trim().is_empty() {
                    above = line;
                }
            }
        }
        // The derives of clap's value names on library enums, at least.
        assert!(seen >= 8, "{seen}");
        assert!(files
            .iter()
            .any(|f| f.ends_with("batch/archive/not_built.rs")));
        assert!(
            stray.is_empty(),
            "optional crates outside their feature's rooms:\n{}",
            stray.join("\n")
        );
    }

    /// Control flows one way, from the command line down: no library
    /// module (anything but `cli/`, `main.rs` and this test) uses the command line,
    /// so every run can be called without it.
    #[test]
    fn the_library_does_not_use_the_command_line() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let cli = src.join("cli");
        files.retain(|f| !f.starts_with(&cli) && !f.ends_with("main.rs") && !f.ends_with("lib.rs"));
        assert!(files.iter().any(|f| f.ends_with("batch/run.rs")));
        let mut upward = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if code.contains("crate::cli") || code.contains("clap::Args") {
                    upward.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
                }
            }
        }
        assert!(
            upward.is_empty(),
            "uses of the command line:\n{}",
            upward.join("\n")
        );
    }
}
