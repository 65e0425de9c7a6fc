//! Huffman: the code table against huffman.md, byte-literal edge cases, and
//! the fast tier against the oracle on random and encoded inputs.

use proptest::prelude::*;
use teebatch::codec::huffman::{
    self, compress, compressed_len, decompress_on, fast, oracle, tree::Tree, HuffmanError,
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
    if let Some(d) = crate::common::datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) {
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
        crate::common::skip("libtw2-doc/huffman.md not found (set TEEBATCH_REFERENCE)");
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
    for tier in huffman::Tier::ALL.into_iter().filter(|t| t.available()) {
        let mut out = [0; 64];
        let n = decompress_on(tier, &c, &mut out).unwrap();
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

// ---------------------------------------------------------------------------
// Batch decoding: every stream's result equals the single-stream decoder's.

/// The cap the demo decoder passes for a payload.
fn lead_cap(input: &[u8]) -> usize {
    teebatch::demo::stream::huffman_room(input.len())
}

/// Decodes `inputs` one by one with [`fast::decompress`] into `caps[i]`-byte
/// buffers: the expected results and bytes.
fn singles(inputs: &[&[u8]], caps: &[usize]) -> Vec<(Result<usize, HuffmanError>, Vec<u8>)> {
    inputs
        .iter()
        .zip(caps)
        .map(|(input, &cap)| {
            let mut out = vec![0xee; cap];
            let r = fast::decompress(input, &mut out);
            out.truncate(*r.as_ref().unwrap_or(&0));
            (r, out)
        })
        .collect()
}

/// Checks one batch decode against `expected`: results, the bytes of every
/// `Ok`, and that nothing past the caps' sum was written.
fn check_arena(
    what: &str,
    inputs: &[&[u8]],
    caps: &[usize],
    expected: &[(Result<usize, HuffmanError>, Vec<u8>)],
    decode: impl FnOnce(&mut [u8], &mut [Result<usize, HuffmanError>]),
) {
    let total: usize = caps.iter().sum();
    let mut arena = vec![0xee; total + 64];
    let mut results = vec![Ok(usize::MAX); inputs.len()];
    decode(&mut arena, &mut results);
    let mut start = 0;
    for (i, ((result, bytes), &cap)) in expected.iter().zip(caps).enumerate() {
        assert_eq!(
            results[i],
            *result,
            "{what}: stream {i} of {} ({:02x?}, cap {cap})",
            inputs.len(),
            inputs[i]
        );
        if let Ok(n) = result {
            assert_eq!(
                arena[start..start + n],
                bytes[..],
                "{what}: bytes of stream {i}"
            );
        }
        start += cap;
    }
    assert!(
        arena[total..].iter().all(|&b| b == 0xee),
        "{what}: wrote past the caps"
    );
}

/// Every batch entry point (each backend and each lane count) on one batch.
fn check_batch(inputs: &[&[u8]], caps: &[usize]) {
    let expected = singles(inputs, caps);
    check_arena("decompress_batch", inputs, caps, &expected, |a, r| {
        huffman::decompress_batch(inputs, caps, a, r)
    });
    for tier in huffman::Tier::ALL.into_iter().filter(|t| t.available()) {
        check_arena(tier.name(), inputs, caps, &expected, |a, r| {
            huffman::decompress_batch_on(tier, inputs, caps, a, r)
        });
    }
    macro_rules! widths {
        ($($w:literal)*) => {$(
            check_arena(concat!("width ", $w), inputs, caps, &expected, |a, r| {
                huffman::batch::decompress_batch_interleaved::<$w>(inputs, caps, a, r)
            });
        )*};
    }
    widths!(1 2 3 4 5 6 7 8);
}

#[test]
fn batch_of_nothing() {
    check_batch(&[], &[]);
    huffman::decompress_batch(&[], &[], &mut [], &mut []);
}

#[test]
fn batch_edge_streams() {
    let long: Vec<u8> = (0..5000u32).map(|i| (i % 7 * (i % 3)) as u8).collect();
    let c_long = compressed(&long);
    let c_short = compressed(b"\x00\x01\x00");
    let c_zeros = compressed(&[0; 700]);
    let inputs: Vec<&[u8]> = vec![
        &[],
        &c_long,
        &c_short,
        &c_short[..1],
        &c_zeros,
        &c_long[..c_long.len() / 2],
        &[0xff; 40],
        &[0; 40],
        &c_long,
    ];
    // The demo decoder's caps, exact caps, and caps one byte short.
    let lead: Vec<usize> = inputs.iter().map(|i| lead_cap(i)).collect();
    check_batch(&inputs, &lead);
    let exact = [0, long.len(), 3, 3, 700, 8000, 300, 400, long.len()];
    check_batch(&inputs, &exact);
    let short = [0, long.len() - 1, 2, 0, 699, 10, 0, 5, 0];
    check_batch(&inputs, &short);
}

#[test]
#[should_panic(expected = "one cap per input")]
fn batch_caps_length_mismatch_panics() {
    huffman::decompress_batch(&[&[]], &[], &mut [], &mut [Ok(0)]);
}

#[test]
#[should_panic(expected = "the caps add up to more than the arena")]
fn batch_arena_too_small_panics() {
    huffman::decompress_batch(
        &[&[], &[]],
        &[4, usize::MAX],
        &mut [0; 8],
        &mut [Ok(0), Ok(0)],
    );
}

/// One stream of a random batch.
#[derive(Clone, Debug)]
enum Stream {
    /// The encoding of `data`, cut to `cut` bytes from the end, with a cap
    /// chosen by `cap`.
    Encoded { data: Vec<u8>, cut: usize, cap: Cap },
    /// Arbitrary bytes.
    Garbage { bytes: Vec<u8>, cap: Cap },
}

#[derive(Clone, Copy, Debug)]
enum Cap {
    /// What the demo decoder passes.
    Lead,
    /// The decoded length plus this much (less room than needed if negative).
    Slack(i32),
}

impl Stream {
    fn input(&self) -> Vec<u8> {
        match self {
            Stream::Encoded { data, cut, .. } => {
                let c = compressed(data);
                c[..c.len().saturating_sub(*cut)].to_vec()
            }
            Stream::Garbage { bytes, .. } => bytes.clone(),
        }
    }
    fn cap(&self, input: &[u8]) -> usize {
        let (cap, len) = match self {
            Stream::Encoded { data, cap, .. } => (*cap, data.len()),
            Stream::Garbage { bytes, cap } => (*cap, 2 * bytes.len()),
        };
        match cap {
            Cap::Lead => lead_cap(input),
            Cap::Slack(s) => (len as i64 + i64::from(s)).max(0) as usize,
        }
    }
}

fn stream() -> impl Strategy<Value = Stream> {
    let cap = prop_oneof![4 => Just(Cap::Lead), 3 => (-20i32..80).prop_map(Cap::Slack)];
    let data = prop_oneof![
        realistic_bytes(),
        prop::collection::vec(any::<u8>(), 0..400),
        prop::collection::vec(0u8..3, 0..3000),
    ];
    prop_oneof![
        4 => (data, prop_oneof![3 => Just(0usize), 1 => 0usize..70], cap.clone())
            .prop_map(|(data, cut, cap)| Stream::Encoded { data, cut, cap }),
        1 => (prop::collection::vec(any::<u8>(), 0..200), cap)
            .prop_map(|(bytes, cap)| Stream::Garbage { bytes, cap }),
    ]
}

proptest! {
    #[test]
    fn batch_equals_single_stream(streams in prop::collection::vec(stream(), 0..9)) {
        let inputs: Vec<Vec<u8>> = streams.iter().map(Stream::input).collect();
        let caps: Vec<usize> = streams.iter().zip(&inputs).map(|(s, i)| s.cap(i)).collect();
        let inputs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        check_batch(&inputs, &caps);
    }

    #[test]
    fn batch_every_tail_length(
        data in realistic_bytes(),
        noise in prop::collection::vec(any::<u8>(), 64),
        long in prop::collection::vec(0u8..4, 200..2000),
    ) {
        // Every prefix of an encoding and of noise, between long streams
        // that keep the other lanes busy.
        let c = compressed(&data);
        let c_long = compressed(&long);
        for len in 0..=64usize {
            let prefix = &c[..len.min(c.len())];
            let inputs: Vec<&[u8]> = vec![&c_long, prefix, &noise[..len], &c_long, prefix];
            let caps = [long.len(), data.len() + 32, 2 * len + 8, lead_cap(&c_long), data.len()];
            check_batch(&inputs, &caps);
        }
    }
}

#[test]
fn batch_equals_single_stream_on_real_payloads() {
    let Some(root) = crate::common::datasets() else {
        return;
    };
    let files = crate::common::files_with_ext(&root.join("demos"), "demo");
    assert!(!files.is_empty(), "no demos in {}", root.display());
    let bytes: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let mut payloads: Vec<&[u8]> = Vec::new();
    for b in &bytes {
        let demo = teebatch::demo::Demo::parse(b).unwrap();
        for chunk in demo.chunks() {
            if let Some(p) = chunk.unwrap().kind.payload() {
                payloads.push(p);
            }
        }
    }
    assert!(payloads.len() > 1000, "{} payloads", payloads.len());
    let caps: Vec<usize> = payloads.iter().map(|p| lead_cap(p)).collect();
    let expected = singles(&payloads, &caps);
    assert!(
        expected.iter().all(|(r, _)| r.is_ok()),
        "every payload decodes"
    );
    for size in 1..=8 {
        for (i, (inputs, caps)) in payloads.chunks(size).zip(caps.chunks(size)).enumerate() {
            let what = format!("batch {i} of size {size}");
            let expected = &expected[i * size..i * size + inputs.len()];
            check_arena(&what, inputs, caps, expected, |a, r| {
                huffman::decompress_batch(inputs, caps, a, r)
            });
        }
    }
}
