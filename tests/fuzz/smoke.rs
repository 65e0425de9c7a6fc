//! The fuzz campaign in miniature, for every `cargo test`.
//!
//! Runs the properties of the libFuzzer targets (`fuzz/src/lib.rs`, compiled
//! in here unchanged) on random bytes and on mutated real inputs: small maps
//! and demos from the shared datasets when present, generated maps, and
//! codec inputs derived from them with the crate's own encoders. The case
//! counts keep the whole file to a few seconds at the test profile's
//! opt-level; the long campaign is `fuzz/README.md`'s.

#[path = "../../fuzz/src/lib.rs"]
mod props;

use std::sync::OnceLock;

use proptest::prelude::*;
use teebatch::codec::snapshot::{item_key, Snapshot};
use teebatch::codec::{huffman, varint};
use teebatch::demo::Demo;
use teebatch::synth::map::{self as synth, SynthParams};

/// Real and generated inputs per target, the mutation bases.
struct Seeds {
    maps: Vec<Vec<u8>>,
    demos: Vec<Vec<u8>>,
    /// `[0xffff] payload` Huffman inputs.
    huffman: Vec<Vec<u8>>,
    /// `[0xffff] bytes` varint inputs.
    varint: Vec<Vec<u8>>,
    /// `[mode] [split] ints` snapshot inputs.
    snapshot: Vec<Vec<u8>>,
}

fn with_limit(limit: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = limit.to_le_bytes().to_vec();
    v.extend_from_slice(payload);
    v
}

fn snapshot_input(mode: u8, a: &[i32], b: &[i32]) -> Vec<u8> {
    let mut v = vec![mode];
    v.extend_from_slice(&(a.len() as u16).to_le_bytes());
    v.extend(a.iter().chain(b).flat_map(|x| x.to_le_bytes()));
    v
}

fn seeds() -> &'static Seeds {
    static SEEDS: OnceLock<Seeds> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let mut s = Seeds {
            maps: Vec::new(),
            demos: Vec::new(),
            huffman: Vec::new(),
            varint: Vec::new(),
            snapshot: Vec::new(),
        };
        // Generated maps: always available.
        for i in 0..4u32 {
            let mut p = SynthParams::new(u64::from(i), 6 + i, 5);
            if i % 2 == 1 {
                p = p.with_all_layers();
            }
            p.tile_skip = i >= 2;
            s.maps.push(synth::generate(&p));
        }
        if let Some(dir) = crate::common::optional_datasets() {
            let small = |ext: &str, max: u64| {
                crate::common::files_with_ext(&dir, ext)
                    .into_iter()
                    .filter(move |p| std::fs::metadata(p).is_ok_and(|m| m.len() < max))
            };
            s.maps
                .extend(small("map", 12 << 10).take(8).flat_map(std::fs::read));
            s.demos
                .extend(small("demo", 16 << 10).flat_map(std::fs::read));
        }
        // Codec inputs from the demos' chunks.
        let mut buf = vec![0u8; props::PAYLOAD_BUF];
        let mut ints = vec![0i32; props::PAYLOAD_BUF];
        for bytes in &s.demos {
            let Ok(demo) = Demo::parse(bytes) else {
                continue;
            };
            let mut prev: Vec<i32> = Vec::new();
            for chunk in demo.chunks().flatten().take(40) {
                let Some(payload) = chunk.kind.payload() else {
                    continue;
                };
                s.huffman.push(with_limit(0xffff, payload));
                let Ok(n) = huffman::decompress(payload, &mut buf) else {
                    continue;
                };
                s.varint.push(with_limit(0xffff, &buf[..n]));
                let mut w = Vec::new();
                let Ok(count) = varint::unpack(&buf[..n], &mut ints, &mut w) else {
                    continue;
                };
                let ints = &ints[..count];
                s.snapshot.push(snapshot_input(0, &prev, ints));
                if Snapshot::parse(ints).is_ok() {
                    prev = ints.to_vec();
                }
            }
        }
        // And generated ones: compressed text, packed ints, a snapshot
        // followed by a delta that updates, removes and adds items.
        let text = b"teebatch fuzz smoke \x00\x00\x00\x00\x01\x02\xff".repeat(3);
        let mut packed = Vec::new();
        huffman::compress(&text, &mut packed);
        s.huffman.push(with_limit(0xffff, &packed));
        let values = [0, -1, 63, 64, -65, 1 << 20, i32::MIN, i32::MAX, 7, 7, 7];
        let mut packed = Vec::new();
        varint::pack(&values, &mut packed);
        s.varint.push(with_limit(16, &packed));
        let mut old = Snapshot::new();
        for id in 0..4u16 {
            old.push(item_key(9, id), &[i32::from(id); 22]).unwrap();
            old.push(item_key(40, id), &[1, 2, 3]).unwrap();
        }
        #[rustfmt::skip]
        let delta = [
            1, 2, 0, // header
            item_key(9, 0) as i32, // removed
            9, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // update
            40, 9, 2, 77, 78, // new item, explicit size
        ];
        s.snapshot.push(snapshot_input(0, &old.to_ints(), &delta));
        s.snapshot.push(snapshot_input(2, &old.to_ints(), &[]));
        s
    })
}

/// One edit of a mutation: what, where (taken modulo the length), a value.
#[derive(Clone, Copy, Debug)]
enum Edit {
    Set(usize, u8),
    Flip(usize, u8),
    Insert(usize, u8),
    Remove(usize),
    Truncate(usize),
    /// Overwrite an aligned `i32` with an interesting value.
    Int(usize, i32),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop_oneof![
        Just(0),
        Just(-1),
        Just(1),
        Just(i32::MAX),
        Just(i32::MIN),
        Just(0x7fff),
        Just(0x1_0000),
        Just(64 << 10),
        any::<i32>(),
    ];
    prop_oneof![
        4 => (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Set(p, b)),
        3 => (any::<usize>(), 0u8..8).prop_map(|(p, b)| Edit::Flip(p, b)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Edit::Insert(p, b)),
        1 => any::<usize>().prop_map(Edit::Remove),
        1 => any::<usize>().prop_map(Edit::Truncate),
        3 => (any::<usize>(), interesting).prop_map(|(p, v)| Edit::Int(p, v)),
    ]
}

fn mutate(base: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut v = base.to_vec();
    for &e in edits {
        let len = v.len();
        match e {
            Edit::Insert(p, b) => v.insert(p % (len + 1), b),
            _ if len == 0 => {}
            Edit::Set(p, b) => v[p % len] = b,
            Edit::Flip(p, bit) => v[p % len] ^= 1 << bit,
            Edit::Remove(p) => {
                v.remove(p % len);
            }
            Edit::Truncate(p) => v.truncate(p % len),
            Edit::Int(p, x) if len >= 4 => {
                let at = (p % (len / 4)) * 4;
                v[at..at + 4].copy_from_slice(&x.to_le_bytes());
            }
            Edit::Int(..) => {}
        }
    }
    v
}

/// A mutated copy of one of `bases` (the bytes as they are if `bases` is
/// empty or the edit list is).
fn mutated(bases: &'static [Vec<u8>]) -> impl Strategy<Value = Vec<u8>> {
    (
        any::<prop::sample::Index>(),
        prop::collection::vec(edit(), 0..6),
    )
        .prop_map(move |(i, edits)| match bases.len() {
            0 => Vec::new(),
            n => mutate(&bases[i.index(n)], &edits),
        })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn datafile_on_mutated_maps(data in mutated(&seeds().maps)) {
        props::datafile(&data);
    }

    #[test]
    fn map_on_mutated_maps(data in mutated(&seeds().maps)) {
        props::map(&data);
    }

    #[test]
    fn demo_on_mutated_demos(data in mutated(&seeds().demos)) {
        props::demo(&data);
    }

    #[test]
    fn analysis_on_mutated_demos(data in mutated(&seeds().demos)) {
        props::analysis(&data);
    }
}

proptest! {
    #![proptest_config(config(10000))]

    #[test]
    fn huffman_on_random_bytes(data in prop::collection::vec(any::<u8>(), 0..300)) {
        props::huffman(&data);
    }

    #[test]
    fn huffman_on_mutated_payloads(data in mutated(&seeds().huffman)) {
        props::huffman(&data);
    }

    #[test]
    fn varint_on_random_bytes(data in prop::collection::vec(any::<u8>(), 0..300)) {
        props::varint(&data);
    }

    #[test]
    fn varint_on_mutated_streams(data in mutated(&seeds().varint)) {
        props::varint(&data);
    }

    #[test]
    fn snapshot_on_random_ints(mode in any::<u8>(), split in 0u16..64, ints in prop::collection::vec(
        prop_oneof![4 => -2i32..40, 1 => any::<i32>()], 0..160)) {
        let mut data = vec![mode];
        data.extend_from_slice(&split.to_le_bytes());
        data.extend(ints.iter().flat_map(|x| x.to_le_bytes()));
        props::snapshot(&data);
    }

    #[test]
    fn snapshot_on_mutated_deltas(data in mutated(&seeds().snapshot)) {
        props::snapshot(&data);
    }

    #[test]
    fn datafile_on_random_bytes(version in 2u8..6, rest in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut data = b"DATA".to_vec();
        data.extend_from_slice(&[version, 0, 0, 0]);
        data.extend_from_slice(&rest);
        props::datafile(&data);
        props::map(&data);
    }

    #[test]
    fn demo_on_random_bytes(version in 2u8..8, rest in prop::collection::vec(any::<u8>(), 0..900)) {
        let mut data = b"TWDEMO\0".to_vec();
        data.push(version);
        data.extend_from_slice(&rest);
        props::demo(&data);
        props::analysis(&data);
    }
}

#[test]
fn seeds_are_there() {
    let s = seeds();
    assert!(s.maps.len() >= 4);
    assert!(!s.huffman.is_empty() && !s.varint.is_empty() && !s.snapshot.is_empty());
    // The properties hold on the unmutated seeds.
    for m in &s.maps {
        props::datafile(m);
        props::map(m);
    }
    for d in &s.demos {
        props::demo(d);
        props::analysis(d);
    }
}
