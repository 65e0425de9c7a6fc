//! Variable-length ints: int.md's examples, overlong and padding quirks,
//! every tier against the oracle, pack/unpack round trips.

use proptest::prelude::*;
use teebatch::backend::Backend;
use teebatch::codec::varint::{
    self, pack, pack_int, unpack_with, VarintError, VarintErrorKind, VarintWarning,
    VarintWarningKind,
};

type Outcome = (Result<Vec<i32>, VarintError>, Vec<VarintWarning>);

fn run(backend: Backend, input: &[u8], limit: usize) -> Outcome {
    let mut out = vec![0x5555_5555; limit];
    let mut warnings = Vec::new();
    let r = unpack_with(backend, input, &mut out, &mut warnings);
    (r.map(|n| out[..n].to_vec()), warnings)
}

/// Unpacks with every tier, asserts they agree, returns the oracle's outcome.
fn all_tiers(input: &[u8], limit: usize) -> Outcome {
    let expected = run(Backend::Oracle, input, limit);
    for backend in [Backend::Scalar, Backend::Simd] {
        assert_eq!(
            run(backend, input, limit),
            expected,
            "{backend} vs oracle on {input:02x?}, limit {limit}"
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

proptest! {
    #[test]
    fn tiers_equal_oracle_on_random_bytes(input in byte_soup(), limit in 0usize..320) {
        agree(&input, limit);
        agree(&input, input.len());
    }

    #[test]
    fn every_tail_length(input in prop::collection::vec(prop_oneof![6 => 0u8..0x80, 1 => any::<u8>()], 64)) {
        for len in 0..=64 {
            agree(&input[..len], len);
            agree(&input[..len], len / 2);
            agree(&input[64 - len..], 64);
        }
    }

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
