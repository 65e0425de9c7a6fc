//! Inputs shared by the codec benches.
#![allow(dead_code)]
use std::path::PathBuf;

use teebatch::bench::payloads::decoded_payloads;
use teebatch::codec::{huffman, varint};
use teebatch::demo::Demo;
use teebatch::synth::Rng;

#[path = "../../../tests/common/datasets.rs"]
mod datasets;

/// `../shared/datasets` (or `$TEEBATCH_DATASETS`), if present.
pub fn datasets_dir() -> Option<PathBuf> {
    datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR"))
}

/// A decoded chunk payload never exceeds this (the library's limit).
pub const MAX_PAYLOAD: usize = teebatch::limits::Limits::MAX_CHUNK_PAYLOAD;

/// Size of the generated input.
pub const GENERATED_LEN: usize = 16 << 20;

/// A set of Huffman streams with their decoded forms.
pub struct Corpus {
    pub name: &'static str,
    /// Huffman-compressed payloads.
    pub compressed: Vec<Vec<u8>>,
    /// The same, decompressed (packed varint streams).
    pub decompressed: Vec<Vec<u8>>,
}

impl Corpus {
    pub fn compressed_bytes(&self) -> u64 {
        self.compressed.iter().map(|c| c.len() as u64).sum()
    }
    pub fn decompressed_bytes(&self) -> u64 {
        self.decompressed.iter().map(|c| c.len() as u64).sum()
    }
    /// Output buffer size for decoding any one stream of the corpus.
    pub fn max_decompressed(&self) -> usize {
        self.decompressed.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// Every data chunk payload (snapshot, delta, message) of every demo in the
/// datasets, in file order; `None` when the datasets are absent.
pub fn demo_payloads() -> Option<Corpus> {
    let dir = datasets_dir()?.join("demos");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "demo"))
        .collect();
    paths.sort();
    let mut corpus = Corpus {
        name: "demos",
        compressed: Vec::new(),
        decompressed: Vec::new(),
    };
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(demo) = Demo::parse(&bytes) else {
            continue;
        };
        for p in decoded_payloads(&demo) {
            if let Some(d) = p.decompressed {
                corpus.compressed.push(p.compressed.to_vec());
                corpus.decompressed.push(d);
            }
        }
    }
    (!corpus.compressed.is_empty()).then_some(corpus)
}

/// Ints shaped like snapshot deltas: 60 % zero, 25 % in -64..64, 10 % in
/// ±10000, 5 % any i32.
pub fn realistic_ints(count: usize, seed: u64) -> Vec<i32> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let r = rng.next_u64();
            let v = (r >> 32) as u32;
            match r % 100 {
                0..=59 => 0,
                60..=84 => (v % 128) as i32 - 64,
                85..=94 => (v % 20001) as i32 - 10000,
                _ => v as i32,
            }
        })
        .collect()
}

/// [`GENERATED_LEN`] bytes of packed [`realistic_ints`], and their Huffman
/// compression as one stream.
pub fn generated() -> Corpus {
    let mut packed = Vec::with_capacity(GENERATED_LEN + 8);
    let mut seed = 1;
    while packed.len() < GENERATED_LEN {
        varint::pack(&realistic_ints(1 << 16, seed), &mut packed);
        seed += 1;
    }
    // Cut at an int boundary at or below the target size.
    let mut ints = vec![0; packed.len()];
    let n = varint::unpack(&packed, &mut ints, &mut Vec::new()).expect("valid");
    let mut cut = Vec::with_capacity(GENERATED_LEN);
    for &v in &ints[..n] {
        let before = cut.len();
        varint::pack_int(v, &mut cut);
        if cut.len() > GENERATED_LEN {
            cut.truncate(before);
            break;
        }
    }
    let mut compressed = Vec::new();
    huffman::compress(&cut, &mut compressed);
    Corpus {
        name: "generated-16MiB",
        compressed: vec![compressed],
        decompressed: vec![cut],
    }
}

/// The corpora to run: real demo payloads (if present) and the generated one.
pub fn corpora() -> Vec<Corpus> {
    let mut v = Vec::new();
    match demo_payloads() {
        Some(c) => v.push(c),
        None => eprintln!("SKIPPED demo payloads: ../shared/datasets not found"),
    }
    v.push(generated());
    v
}
