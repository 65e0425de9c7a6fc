//! Variable-length ints: int.md's examples, overlong and padding quirks,
//! every tier and every SIMD kernel this CPU can run (AVX-512, AVX2
//! shuffle, AVX2-compiled `wide`, `wide`, forced whatever the process chose) against the oracle (random bytes, real-like
//! runs and clusters, every tail length, small outputs, the real demo
//! payloads), pack/unpack round trips.

use proptest::prelude::*;
use teebatch::backend::Backend;
use teebatch::codec::kernels::Kernels;
use teebatch::codec::varint::{
    self, pack, pack_int, VarintError, VarintErrorKind, VarintWarning, VarintWarningKind,
};

use teebatch::warn::Warn;

type Outcome = (Result<Vec<i32>, VarintError>, Vec<VarintWarning>);

type Unpack = fn(&[u8], &mut [i32], &mut dyn Warn<VarintWarning>) -> Result<usize, VarintError>;

/// Every implementation: the tiers, and the SIMD tier's baseline kernel
/// (`simd` runs the kernel chosen for this process).
const IMPLS: [(&str, Unpack); 4] = [
    ("oracle", varint::oracle::unpack),
    ("scalar", varint::scalar::unpack),
    ("simd", varint::simd::unpack),
    ("simd baseline", varint::simd::unpack_baseline),
];

fn run_impl(
    unpack: impl Fn(&[u8], &mut [i32], &mut dyn Warn<VarintWarning>) -> Result<usize, VarintError>,
    input: &[u8],
    limit: usize,
) -> Outcome {
    let mut out = vec![0x5555_5555; limit];
    let mut warnings = Vec::new();
    let r = unpack(input, &mut out, &mut warnings);
    (r.map(|n| out[..n].to_vec()), warnings)
}

fn run(backend: Backend, input: &[u8], limit: usize) -> Outcome {
    run_impl(
        |i, o, w| Kernels::new(backend).unpack(i, o, w),
        input,
        limit,
    )
}

/// Unpacks with every implementation into `limit` slots, asserts they
/// agree, returns the oracle's outcome.
fn all_tiers(input: &[u8], limit: usize) -> Outcome {
    let expected = run(Backend::Oracle, input, limit);
    for backend in [Backend::Scalar, Backend::Simd] {
        assert_eq!(
            run(backend, input, limit),
            expected,
            "{backend} vs oracle on {input:02x?}, limit {limit}"
        );
    }
    for (name, unpack) in &IMPLS[1..] {
        assert_eq!(
            run_impl(*unpack, input, limit),
            expected,
            "{name} vs oracle on {input:02x?}, limit {limit}"
        );
    }
    // Every SIMD kernel this CPU can run, whatever was chosen.
    for kernel in varint::simd::Kernel::ALL
        .into_iter()
        .filter(|k| k.available())
    {
        assert_eq!(
            run_impl(
                |i, o, w| varint::simd::unpack_on(kernel, i, o, w),
                input,
                limit
            ),
            expected,
            "{kernel:?} kernel vs oracle on {input:02x?}, limit {limit}"
        );
    }
    expected
}

/// Asserts every tier agrees; the outcome itself is not of interest.
fn agree(input: &[u8], limit: usize) {
    let _ = all_tiers(input, limit);
}

fn packed(values: &[i32]) -> Vec<u8> {
    let mut out = Vec::new();
    pack(values, &mut out);
    out
}

/// One int: decoded value and warnings, and whether packing gives the bytes back.
fn check_int(bytes: &[u8], value: i32, warning: Option<VarintWarningKind>) {
    let (r, warnings) = all_tiers(bytes, 1);
    assert_eq!(r, Ok(vec![value]), "{bytes:02x?}");
    let expected: Vec<_> = warning
        .map(|kind| VarintWarning { kind, offset: 0 })
        .into_iter()
        .collect();
    assert_eq!(warnings, expected, "{bytes:02x?}");
    let mut re = Vec::new();
    pack_int(value, &mut re);
    assert_eq!(
        re == bytes,
        warning.is_none(),
        "re-packing {value} gave {re:02x?}"
    );
}

#[test]
fn int_md_examples() {
    check_int(&[0b0000_0000], 0, None);
    check_int(&[0b0000_0001], 1, None);
    check_int(&[0b0100_0000], -1, None);
    check_int(&[0b1000_0000, 0b0000_0001], 64, None);
}

#[test]
fn boundary_values() {
    check_int(&[0x3f], 63, None);
    check_int(&[0x7f], -64, None);
    check_int(&[0xc0, 0x01], -65, None);
    check_int(&[0xff, 0xff, 0xff, 0xff, 0x0f], i32::MIN, None);
    check_int(&[0xbf, 0xff, 0xff, 0xff, 0x0f], i32::MAX, None);
}

#[test]
fn overlong_forms_keep_their_value() {
    use VarintWarningKind::Overlong;
    check_int(&[0x80, 0x00], 0, Some(Overlong));
    check_int(&[0xc0, 0x00], -1, Some(Overlong));
    check_int(&[0x81, 0x80, 0x00], 1, Some(Overlong));
    check_int(&[0x80, 0x80, 0x80, 0x80, 0x00], 0, Some(Overlong));
}

#[test]
fn padding_is_part_of_the_value() {
    use VarintWarningKind::NonZeroPadding;
    // 0x7f-masked 5th byte: padding bit 4 becomes bit 31 (Teeworlds/libtw2).
    check_int(&[0xff, 0xff, 0xff, 0xff, 0xff], 0, Some(NonZeroPadding));
    check_int(&[0xbf, 0xff, 0xff, 0xff, 0xff], -1, Some(NonZeroPadding));
    check_int(
        &[0x80, 0x80, 0x80, 0x80, 0x10],
        i32::MIN,
        Some(NonZeroPadding),
    );
    // The 5th byte's top bit is padding too, not an extend flag.
    assert_eq!(
        all_tiers(&[0x80, 0x80, 0x80, 0x80, 0x81, 0x05], 2),
        (
            Ok(vec![1 << 27, 5]),
            vec![VarintWarning {
                kind: NonZeroPadding,
                offset: 0
            }]
        )
    );
}

#[test]
fn errors_carry_the_offset_of_the_int() {
    let end = |offset| {
        Err(VarintError {
            kind: VarintErrorKind::UnexpectedEnd,
            offset,
        })
    };
    let full = |offset| {
        Err(VarintError {
            kind: VarintErrorKind::OutputFull,
            offset,
        })
    };
    assert_eq!(all_tiers(&[], 0).0, Ok(vec![]));
    assert_eq!(all_tiers(&[0x80], 4).0, end(0));
    assert_eq!(all_tiers(&[0x01, 0x80, 0x80], 4).0, end(1));
    assert_eq!(all_tiers(&[0x01, 0x02], 1).0, full(1));
    assert_eq!(all_tiers(&[0x01, 0x80, 0x01, 0x03], 1).0, full(1));
    assert_eq!(all_tiers(&[0x80, 0x01], 0).0, full(0));
}

#[test]
fn default_unpack() {
    let bytes = packed(&[0, 1, -1, 64, i32::MIN]);
    let mut out = [0; 8];
    let mut warnings = Vec::new();
    assert_eq!(varint::unpack(&bytes, &mut out, &mut warnings), Ok(5));
    assert_eq!(out[..5], [0, 1, -1, 64, i32::MIN]);
    assert!(warnings.is_empty());
}

/// Ints shaped like snapshot deltas: mostly 0 and small values, some large.
fn realistic_ints() -> impl Strategy<Value = Vec<i32>> {
    prop::collection::vec(
        prop_oneof![
            8 => Just(0),
            4 => -64i32..64,
            2 => -10_000i32..10_000,
            1 => any::<i32>(),
            1 => prop::sample::select(vec![0, -1, 63, 64, -64, -65, i32::MIN, i32::MAX]),
        ],
        0..300,
    )
}

/// Bytes with few extend bits (long one-byte runs) or many.
fn byte_soup() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        prop::collection::vec(prop_oneof![12 => 0u8..0x80, 1 => any::<u8>()], 0..300),
    ]
}

/// A piece of a stream shaped like real chunk payloads: runs of one-byte
/// ints (often long runs of zeros), clusters of multi-byte ints (often 5
/// bytes), and now and then an odd int (overlong, padding, a 5th byte with
/// the extend bit, a cut-off int when it ends the stream).
fn payload_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => (0usize..100, prop_oneof![3 => Just(0u8), 1 => 0u8..0x80])
            .prop_map(|(n, b)| vec![b; n]),
        3 => prop::collection::vec(0u8..0x80, 0..20),
        4 => prop::collection::vec(
            prop_oneof![2 => 64i32..10_000, 1 => -10_000i32..-64, 2 => any::<i32>()],
            1..8,
        )
        .prop_map(|v| packed(&v)),
        1 => prop::sample::select(vec![
            vec![0x80, 0x00],
            vec![0xc0, 0x80, 0x00],
            vec![0x80, 0x80, 0x80, 0x80, 0x10],
            vec![0xbf, 0xff, 0xff, 0xff, 0x7f],
            vec![0xff, 0xff, 0xff, 0xff, 0xff],
            vec![0x80, 0x80, 0x80, 0x80, 0x81],
            vec![0x81],
        ]),
        1 => prop::collection::vec(0x80u8..=0xff, 1..12),
    ]
}

/// A stream of [`payload_piece`]s.
fn payload_like() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(payload_piece(), 0..24).prop_map(|p| p.concat())
}

/// 192 bytes (three 64-byte windows) of one-byte-heavy random bytes or of
/// a payload-like stream.
fn tail_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(prop_oneof![6 => 0u8..0x80, 1 => any::<u8>()], 192),
        payload_like().prop_map(|mut v| {
            v.resize(192, 0);
            v
        }),
    ]
}

proptest! {
    #[test]
    fn tiers_equal_oracle_on_random_bytes(input in byte_soup(), limit in 0usize..320) {
        agree(&input, limit);
        agree(&input, input.len());
    }

    #[test]
    fn tiers_equal_oracle_on_payload_like_streams(
        input in payload_like(),
        cut in any::<prop::sample::Index>(),
        limit in 0usize..400,
    ) {
        let (r, _) = all_tiers(&input, input.len());
        // Outputs of every size around the int count, and a few fixed ones.
        if let Ok(values) = r {
            for slack in [0, 1, 15, 16, 17, 63, 64, 65] {
                agree(&input, values.len().saturating_sub(slack));
                agree(&input, values.len() + slack);
            }
        }
        agree(&input, limit);
        agree(&input[..cut.index(input.len() + 1)], input.len());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every end of the input within and across the SIMD windows, with
    /// room for every int, half of it, and a fixed 256.
    #[test]
    fn every_tail_length(input in tail_input()) {
        for len in 0..=192 {
            agree(&input[..len], len);
            agree(&input[..len], len / 2);
            agree(&input[192 - len..], 256);
        }
    }
}

/// Odd ints (overlong, padding, a 5th byte with the extend bit, a run of
/// extend bytes, an int cut off by the end) at every offset of 192 bytes of
/// one-byte ints or of valid multi-byte ints, so that each crosses every
/// position within and across the SIMD windows and blocks.
#[test]
fn odd_ints_at_every_offset() {
    let odd: [&[u8]; 8] = [
        &[0x80, 0x00],
        &[0xc0, 0x80, 0x80, 0x80, 0x00],
        &[0x80, 0x80, 0x80, 0x80, 0x10],
        &[0xbf, 0xff, 0xff, 0xff, 0x7f],
        &[0x80, 0x80, 0x80, 0x80, 0x81],
        &[0xff; 9],
        &[0x81, 0x82],
        &[0x80, 0x80, 0x80, 0x80],
    ];
    let backgrounds = [
        vec![0x45; 192],
        packed(&[1000, -70, i32::MIN, 5, 1 << 20, -3, i32::MAX].repeat(12)),
    ];
    for background in &backgrounds {
        for bytes in odd {
            for at in 0..192 {
                let mut input = background.clone();
                let to = (at + bytes.len()).min(input.len());
                input.splice(at..to, bytes.iter().copied());
                // Cut off after the odd int, and at the full length.
                agree(&input[..(at + bytes.len()).min(input.len())], 256);
                agree(&input, 256);
                agree(&input, 100);
            }
        }
    }
}

proptest! {

    #[test]
    fn pack_unpack_round_trip(values in realistic_ints(), slack in 0usize..20) {
        let bytes = packed(&values);
        let (r, warnings) = all_tiers(&bytes, values.len() + slack);
        prop_assert_eq!(r, Ok(values.clone()));
        prop_assert!(warnings.is_empty());
        if !values.is_empty() {
            let (r, _) = all_tiers(&bytes, values.len() - 1);
            prop_assert_eq!(r.map_err(|e| e.kind), Err(VarintErrorKind::OutputFull));
        }
    }

    #[test]
    fn unpack_pack_is_identity_without_warnings(input in byte_soup()) {
        let (r, warnings) = all_tiers(&input, input.len());
        if let (Ok(values), true) = (r, warnings.is_empty()) {
            prop_assert_eq!(packed(&values), input);
        }
    }
}

/// Every chunk payload of the real demos, with room for every int, for
/// exactly the ints, and for one less.
#[test]
fn tiers_equal_oracle_on_real_payloads() {
    use teebatch::codec::huffman;
    use teebatch::demo::Demo;
    let Some(ds) = crate::common::datasets() else {
        return;
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut lengths = [0usize; 6];
    for path in crate::common::files_with_ext(&ds.join("demos"), "demo") {
        let data = std::fs::read(&path).expect("read demo");
        let Ok(demo) = Demo::parse(&data) else {
            continue;
        };
        for chunk in demo.chunks() {
            let Ok(chunk) = chunk else { break };
            let Some(payload) = chunk.kind.payload() else {
                continue;
            };
            let Ok(n) = huffman::decompress(payload, &mut buf) else {
                continue;
            };
            let input = &buf[..n];
            let (r, warnings) = all_tiers(input, n);
            let values = r.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(warnings.is_empty(), "{}: {warnings:?}", path.display());
            if let Some(fewer) = values.len().checked_sub(1) {
                agree(input, values.len());
                let (r, _) = all_tiers(input, fewer);
                assert_eq!(r.map_err(|e| e.kind), Err(VarintErrorKind::OutputFull));
            }
            let mut rest = input;
            while let Some(len) = rest.iter().position(|&b| b < 0x80) {
                lengths[(len + 1).min(5)] += 1;
                rest = &rest[len + 1..];
            }
        }
    }
    // The corpus has ints of every length, many one-byte ones.
    assert!(lengths[1] > 1_000_000, "{lengths:?}");
    assert!(lengths[2..].iter().all(|&c| c > 1000), "{lengths:?}");
}
