//! Writes the seed corpora of every fuzz target from the shared datasets.
//!
//! ```text
//! cargo run --release --example seed -- /work/shared/datasets corpus
//! ```
//!
//! `corpus/<target>/<name>` files (never committed: they hold or derive
//! from third-party files). Inputs follow the layouts in `src/lib.rs`:
//!
//! - `datafile`, `map`: maps below 64 KiB, the maps embedded in the small
//!   demos, and small generated maps (every DDNet layer, 0.7 tile skip).
//! - `demo`: demos below 16 KiB, and every large demo cut to its header
//!   (embedded map dropped, `map_size` set to 0) plus its first 4 KiB of
//!   chunks.
//! - `huffman`: `[0xffff] payload` for distinct demo chunk payloads.
//! - `varint`: `[0xffff] bytes` for the Huffman output of those payloads.
//! - `snapshot`: `[mode] [split] old ints ++ delta ints` for the first
//!   deltas of each demo (mode = protocol bit), and `[mode | 2] [split] old
//!   ints ++ new ints` for consecutive snapshots, ints from the crate's own
//!   Huffman, varint and delta code.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use teebatch::codec::snapshot::{apply_delta, Protocol, Snapshot};
use teebatch::codec::{huffman, varint};
use teebatch::demo::{ChunkKind, Demo};
use teebatch::synth::map::{self as synth, SynthParams};

/// Most seeds per demo for the codec targets.
const PER_DEMO: usize = 60;

struct Corpus {
    root: PathBuf,
    seen: HashSet<(String, Vec<u8>)>,
}

impl Corpus {
    fn add(&mut self, target: &str, name: &str, bytes: Vec<u8>) {
        if !self.seen.insert((target.to_owned(), bytes.clone())) {
            return;
        }
        let dir = self.root.join(target);
        fs::create_dir_all(&dir).expect("create corpus dir");
        fs::write(dir.join(name), bytes).expect("write seed");
    }
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

fn ints_bytes(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn snapshot_seed(mode: u8, a: &[i32], b: &[i32]) -> Option<Vec<u8>> {
    let split = u16::try_from(a.len()).ok()?;
    let mut v = vec![mode];
    v.extend_from_slice(&split.to_le_bytes());
    v.extend(ints_bytes(a));
    v.extend(ints_bytes(b));
    Some(v)
}

fn with_limit(limit: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = limit.to_le_bytes().to_vec();
    v.extend_from_slice(payload);
    v
}

fn seed_demo(c: &mut Corpus, path: &Path, bytes: &[u8]) {
    let name = stem(path);
    let Ok(demo) = Demo::parse(bytes) else {
        eprintln!("skipping {name}: not a demo");
        return;
    };
    if !demo.map().is_empty() && demo.map().len() < 64 << 10 {
        c.add("datafile", &format!("{name}.map"), demo.map().to_vec());
        c.add("map", &format!("{name}.map"), demo.map().to_vec());
    }
    if bytes.len() < 16 << 10 {
        c.add("demo", &name, bytes.to_vec());
    } else {
        // Header without the map, then the first 4 KiB of chunks (cut at a
        // chunk boundary).
        let mut cut = demo.chunks_offset();
        for chunk in demo.chunks().flatten() {
            if chunk.offset - demo.chunks_offset() > 4096 {
                break;
            }
            cut = chunk.offset;
        }
        let mut v = bytes[..demo.map_offset()].to_vec();
        v[136..140].copy_from_slice(&0u32.to_be_bytes());
        v.extend_from_slice(&bytes[demo.chunks_offset()..cut]);
        c.add("demo", &format!("{name}.head"), v);
    }

    let protocol = std::str::from_utf8(demo.net_version())
        .ok()
        .and_then(Protocol::from_net_version)
        .unwrap_or(Protocol::V06);
    let pbit = u8::from(protocol == Protocol::V07);
    let mut buf = vec![0u8; 64 << 10];
    let mut ints = vec![0i32; 64 << 10];
    let mut prev = Snapshot::new();
    let mut next = Snapshot::new();
    let (mut n_huff, mut n_snap, mut n_pair) = (0, 0, 0);
    for chunk in demo.chunks().flatten() {
        let Some(payload) = chunk.kind.payload() else {
            continue;
        };
        let i = chunk.index;
        if n_huff < PER_DEMO {
            c.add(
                "huffman",
                &format!("{name}.{i}"),
                with_limit(0xffff, payload),
            );
        }
        let Ok(n) = huffman::decompress(payload, &mut buf) else {
            continue;
        };
        if n_huff < PER_DEMO {
            c.add(
                "varint",
                &format!("{name}.{i}"),
                with_limit(0xffff, &buf[..n]),
            );
            n_huff += 1;
        }
        let mut warnings = Vec::new();
        let Ok(count) = varint::unpack(&buf[..n], &mut ints, &mut warnings) else {
            continue;
        };
        let ints = &ints[..count];
        match chunk.kind {
            ChunkKind::Snapshot(_) => {
                let old = prev.to_ints();
                if prev.parse_into(ints).is_ok() && n_pair < PER_DEMO / 4 {
                    if let Some(s) = snapshot_seed(pbit | 2, &old, &prev.to_ints()) {
                        c.add("snapshot", &format!("{name}.{i}.pair"), s);
                        n_pair += 1;
                    }
                }
            }
            ChunkKind::Delta(_) => {
                let old = prev.to_ints();
                if n_snap < PER_DEMO {
                    if let Some(s) = snapshot_seed(pbit, &old, ints) {
                        c.add("snapshot", &format!("{name}.{i}.delta"), s);
                        n_snap += 1;
                    }
                }
                let mut w = Vec::new();
                if apply_delta(&prev, ints, protocol, &mut next, &mut w).is_ok() {
                    if n_pair < PER_DEMO / 4 && i % 7 == 0 {
                        if let Some(s) = snapshot_seed(pbit | 2, &old, &next.to_ints()) {
                            c.add("snapshot", &format!("{name}.{i}.pair"), s);
                            n_pair += 1;
                        }
                    }
                    std::mem::swap(&mut prev, &mut next);
                }
            }
            _ => {}
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(datasets), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: seed <datasets dir> <corpus dir>");
        std::process::exit(2);
    };
    let datasets = Path::new(datasets);
    let mut c = Corpus {
        root: PathBuf::from(out),
        seen: HashSet::new(),
    };

    for p in files(&datasets.join("maps"), "map") {
        let bytes = fs::read(&p).expect("read map");
        if bytes.len() < 64 << 10 {
            c.add("datafile", &format!("{}.map", stem(&p)), bytes.clone());
            c.add("map", &format!("{}.map", stem(&p)), bytes);
        }
    }
    for (i, seed) in (0..6u64).enumerate() {
        let mut params = SynthParams::new(seed, 8 + 3 * i as u32, 5 + i as u32);
        if i % 2 == 1 {
            params = params.with_all_layers();
        }
        params.tile_skip = i >= 3;
        let bytes = synth::generate(&params);
        c.add("datafile", &format!("synth{i}.map"), bytes.clone());
        c.add("map", &format!("synth{i}.map"), bytes);
    }
    for p in files(&datasets.join("demos"), "demo") {
        let bytes = fs::read(&p).expect("read demo");
        seed_demo(&mut c, &p, &bytes);
    }
    // The codec targets also start from a few hand-made inputs.
    c.add("huffman", "empty", Vec::new());
    c.add("varint", "empty", Vec::new());
    c.add("snapshot", "empty", vec![0, 0, 0]);
    let mut packed = Vec::new();
    varint::pack(
        &[0, -1, 63, 64, -65, 1 << 20, i32::MIN, i32::MAX],
        &mut packed,
    );
    c.add("varint", "edges", with_limit(16, &packed));

    for t in ["datafile", "map", "demo", "huffman", "varint", "snapshot"] {
        let n = fs::read_dir(c.root.join(t)).map_or(0, |d| d.count());
        println!("{t}: {n} seeds");
    }
}
