//! Huffman: the code table against huffman.md, byte-literal edge cases, and
//! the fast tier against the oracle on random and encoded inputs.

use proptest::prelude::*;
use teebatch::backend::Backend;
use teebatch::codec::huffman::{
    self, compress, compressed_len, decompress_with, fast, oracle, tree::Tree, HuffmanError,
    HuffmanErrorKind,
};

fn compressed(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    compress(data, &mut out);
    out
}

/// Decodes with both tiers into `limit`-byte buffers and checks they agree.
fn both(input: &[u8], limit: usize) -> Result<Vec<u8>, HuffmanError> {
    let mut a = vec![0xee; limit];
    let mut b = vec![0xee; limit];
    let ra = oracle::decompress(input, &mut a);
    let rb = fast::decompress(input, &mut b);
    assert_eq!(ra, rb, "oracle vs fast on {input:02x?} with limit {limit}");
    ra.map(|n| {
        assert_eq!(a[..n], b[..n], "output of {input:02x?}");
        a.truncate(n);
        a
    })
}

/// Where huffman.md may be: `$TEEBATCH_REFERENCE`, `../shared/reference`, or
/// beside the datasets folder.
fn huffman_md() -> Option<String> {
    let mut candidates = Vec::new();
    if let Some(r) = std::env::var_os("TEEBATCH_REFERENCE") {
        candidates.push(std::path::PathBuf::from(r));
    }
    candidates.push(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/reference"));
    if let Some(d) = teebatch::batch::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) {
        candidates.push(d.join("../reference"));
    }
    candidates
        .into_iter()
        .map(|c| c.join("libtw2-doc/huffman.md"))
        .find_map(|p| std::fs::read_to_string(p).ok())
}

#[test]
fn codes_match_huffman_md_appendix() {
    let Some(doc) = huffman_md() else {
        eprintln!("SKIPPED: libtw2-doc/huffman.md not found (set TEEBATCH_REFERENCE)");
        return;
    };
    let appendix = doc
        .split("Appendix")
        .nth(1)
        .expect("huffman.md has an appendix");
    let tree = Tree::reference();
    let mut seen = 0;
    for line in appendix.lines() {
        let Some((name, bits)) = line.trim().split_once(": ") else {
            continue;
        };
        let symbol = if name == "EOF" {
            256
        } else {
            usize::from_str_radix(name, 16).expect("hex symbol")
        };
        assert_eq!(tree.codes[symbol].to_bit_string(), bits, "code of {name}");
        seen += 1;
    }
    assert_eq!(seen, 257);
}

#[test]
fn worked_example_of_huffman_md() {
    let data = [0x00, 0x01, 0x00, 0x02, 0x00, 0x80, 0x00];
    let bytes = [
        0b1011_0001,
        0b0000_1000,
        0b0010_1010,
        0b0110_1110,
        0b0000_0000,
    ];
    assert_eq!(compressed(&data), bytes);
    assert_eq!(compressed_len(&data), 5);
    assert_eq!(both(&bytes, 7), Ok(data.to_vec()));
    assert_eq!(both(&bytes, 100), Ok(data.to_vec()));
    // One byte short of room: the last 0x00 starts at bit 17.
    assert_eq!(
        both(&bytes, 6),
        Err(HuffmanError {
            kind: HuffmanErrorKind::OutputFull,
            offset: 2
        })
    );
    // Bytes after EOF are ignored.
    let mut trailing = bytes.to_vec();
    trailing.extend_from_slice(&[0xff; 20]);
    assert_eq!(both(&trailing, 64), Ok(data.to_vec()));
}

#[test]
fn empty_input_has_no_eof() {
    for limit in [0, 1, 100] {
        assert_eq!(
            both(&[], limit),
            Err(HuffmanError {
                kind: HuffmanErrorKind::MissingEof,
                offset: 0
            })
        );
    }
}

#[test]
fn eof_only_stream() {
    // EOF = 01010001 1101100 in stream order, padded with one zero bit;
    // each byte holds its first stream bit in the LSB.
    let bytes = [0b1000_1010, 0b0001_1011];
    assert_eq!(compressed(&[]), bytes);
    assert_eq!(both(&bytes, 0), Ok(vec![]));
    assert_eq!(both(&bytes, 10), Ok(vec![]));
    // Without its last byte, EOF's first 8 bits are completed with zeros into
    // another symbol; then the input is over and there is no EOF.
    assert_eq!(
        both(&bytes[..1], 10),
        Err(HuffmanError {
            kind: HuffmanErrorKind::MissingEof,
            offset: 1
        })
    );
}

#[test]
fn output_limit_zero() {
    assert_eq!(
        both(&compressed(&[0x00]), 0),
        Err(HuffmanError {
            kind: HuffmanErrorKind::OutputFull,
            offset: 0
        })
    );
    assert_eq!(both(&compressed(&[]), 0), Ok(vec![]));
}

#[test]
fn extra_byte_when_bits_end_on_a_byte_boundary() {
    // 0x00 (1 bit) + EOF (15 bits) = 16 bits: the reference still writes a
    // third byte.
    assert_eq!(compressed(&[0x00]), [0b0001_0101, 0b0011_0111, 0x00]);
    assert_eq!(compressed_len(&[0x00]), 3);
    assert_eq!(both(&compressed(&[0x00]), 1), Ok(vec![0x00]));
    // 2 bits + 15 = 17 bits: no extra byte.
    assert_eq!(compressed(&[0x00, 0x00]).len(), 3);
}

#[test]
fn backends_dispatch() {
    let data = b"teeworlds \x00\x00\x00 demo";
    let c = compressed(data);
    for backend in Backend::ALL {
        let mut out = [0; 64];
        let n = decompress_with(backend, &c, &mut out).unwrap();
        assert_eq!(&out[..n], data);
    }
    let mut out = [0; 64];
    assert_eq!(huffman::decompress(&c, &mut out), Ok(data.len()));
}

/// Data shaped like snapshot payloads: mostly zero bytes, some small values.
fn realistic_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![6 => Just(0u8), 2 => 0u8..16, 1 => any::<u8>()],
        0..600,
    )
}

proptest! {
    #[test]
    fn fast_equals_oracle_on_random_bytes(
        input in prop::collection::vec(any::<u8>(), 0..300),
        limit in 0usize..400,
    ) {
        both(&input, limit).ok();
    }

    #[test]
    fn fast_equals_oracle_on_encodings(data in realistic_bytes(), slack in 0usize..40, cut in 0usize..64) {
        let c = compressed(&data);
        prop_assert_eq!(c.len(), compressed_len(&data));
        // Exact room, a little more, and (when possible) too little.
        prop_assert_eq!(both(&c, data.len()), Ok(data.clone()));
        prop_assert_eq!(both(&c, data.len() + slack), Ok(data.clone()));
        if !data.is_empty() {
            let r = both(&c, data.len() - 1 - slack.min(data.len() - 1));
            prop_assert_eq!(r.map_err(|e| e.kind), Err(HuffmanErrorKind::OutputFull));
        }
        // Truncated streams.
        let cut = c.len().saturating_sub(cut);
        both(&c[..cut], data.len() + slack).ok();
    }

    #[test]
    fn every_tail_length(data in realistic_bytes(), noise in prop::collection::vec(any::<u8>(), 64)) {
        let c = compressed(&data);
        for len in 0..=64usize {
            // Prefixes of an encoding and of noise, with room to spare and exact room.
            let prefix = &c[..len.min(c.len())];
            both(prefix, data.len() + 32).ok();
            both(prefix, data.len()).ok();
            both(&noise[..len], 2 * len + 8).ok();
            both(&noise[..len], len).ok();
        }
    }

    #[test]
    fn round_trip(data in prop::collection::vec(any::<u8>(), 0..2000)) {
        let c = compressed(&data);
        let mut out = vec![0; data.len()];
        let n = huffman::decompress(&c, &mut out);
        prop_assert_eq!(n, Ok(data.len()));
        prop_assert_eq!(out, data);
    }
}
