//! Snapshot codec: kernels against their oracles, round trips, literal edge
//! cases, a plain model of DDNet's `UnpackDelta` to compare delta application
//! against, and the UUID names against the golden summaries.

use proptest::prelude::*;
use std::collections::{HashMap, HashSet};
use teebatch::backend::Backend;
use teebatch::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints, OFFSET_UUID_TYPE};
use teebatch::codec::snapshot::*;
use teebatch::synth::Rng;

// ---------------------------------------------------------------------------
// Helpers

fn snap(items: &[(u32, &[i32])]) -> Snapshot {
    let mut s = Snapshot::new();
    for &(k, d) in items {
        s.push(k, d).unwrap();
    }
    s
}

fn key(t: u16, id: u16) -> u32 {
    item_key(t, id)
}

fn apply(old: &Snapshot, delta: &[i32], p: Protocol) -> (Result<Snapshot, Error>, Vec<Warning>) {
    let mut new = Snapshot::new();
    let mut w = Vec::new();
    let r = apply_delta(old, delta, p, &mut new, &mut w);
    (r.map(|()| new), w)
}

fn sorted_items(s: &Snapshot) -> Vec<(u32, Vec<i32>)> {
    let mut v: Vec<(u32, Vec<i32>)> = s.iter().map(|(k, d)| (k, d.to_vec())).collect();
    v.sort();
    v
}

/// A plain model of DDNet's `CSnapshotDelta::UnpackDelta` (items as a list
/// of (key, data)), written independently of the crate's applier; it checks
/// in the order the crate documents, so error kinds and offsets must match.
fn model_apply(old: &Snapshot, ints: &[i32], p: Protocol) -> Result<Vec<(u32, Vec<i32>)>, Error> {
    let e = |kind, offset| Err(Error { kind, offset });
    if ints.len() < 3 {
        return e(ErrorKind::Truncated, ints.len());
    }
    let (nr, nu) = (ints[0], ints[1]);
    if nr < 0 {
        return e(ErrorKind::NegativeCount, 0);
    }
    if nu < 0 {
        return e(ErrorKind::NegativeCount, 1);
    }
    let rest = ints.len() - 3;
    if nr as usize > rest {
        return e(ErrorKind::CountTooLarge, 0);
    }
    if nu as usize > (rest - nr as usize) / 2 {
        return e(ErrorKind::CountTooLarge, 1);
    }
    let removed: Vec<u32> = ints[3..3 + nr as usize].iter().map(|&k| k as u32).collect();
    let mut out: Vec<(u32, Vec<i32>)> = old
        .iter()
        .filter(|(k, _)| !removed.contains(k))
        .map(|(k, d)| (k, d.to_vec()))
        .collect();
    let mut pos = 3 + nr as usize;
    for _ in 0..nu {
        let at = pos;
        if pos + 2 > ints.len() {
            return e(ErrorKind::Truncated, at);
        }
        let (t, id) = (ints[pos], ints[pos + 1]);
        if !(0..=0x7fff).contains(&t) {
            return e(ErrorKind::TypeOutOfRange, at);
        }
        if !(0..=0xffff).contains(&id) {
            return e(ErrorKind::IdOutOfRange, at + 1);
        }
        pos += 2;
        let size = match p.static_size(t as u32) {
            Some(s) => s,
            None => {
                if pos >= ints.len() {
                    return e(ErrorKind::Truncated, pos);
                }
                if ints[pos] < 0 {
                    return e(ErrorKind::NegativeSize, pos);
                }
                if ints[pos] > 16380 {
                    return e(ErrorKind::ItemTooLarge, pos);
                }
                pos += 1;
                ints[pos - 1] as usize
            }
        };
        if ints.len() - pos < size {
            return e(ErrorKind::Truncated, pos);
        }
        let data = &ints[pos..pos + size];
        pos += size;
        let k = (t as u32) << 16 | id as u32;
        let from = old.get(k);
        if let Some(f) = from {
            if f.len() != size {
                return e(ErrorKind::SizeMismatch, at);
            }
        }
        let value: Vec<i32> = match from {
            Some(f) => f
                .iter()
                .zip(data)
                .map(|(a, b)| a.wrapping_add(*b))
                .collect(),
            None => data.to_vec(),
        };
        match out.iter_mut().find(|(ok, _)| *ok == k) {
            Some((_, d)) => {
                if d.len() != size {
                    return e(ErrorKind::SizeMismatch, at);
                }
                *d = value;
            }
            None => {
                if out.len() >= MAX_ITEMS {
                    return e(ErrorKind::TooManyItems, at);
                }
                let bytes: usize = 8 + out.iter().map(|(_, d)| 8 + 4 * d.len()).sum::<usize>();
                if bytes + 8 + 4 * size > MAX_SIZE {
                    return e(ErrorKind::TooLarge, at);
                }
                out.push((k, value));
            }
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Strategies

/// Types 0..=24 (pre-agreed in both protocols for most) and a few extended.
fn type_strategy() -> impl Strategy<Value = u16> {
    prop_oneof![4 => 0u16..=24, 1 => 0x7ff8u16..=0x7fff]
}

fn item_size(p: Protocol, t: u16, free: usize) -> usize {
    p.static_size(t as u32).unwrap_or(free)
}

/// A random snapshot valid for `p` (pre-agreed types have their size).
fn snapshot_strategy(p: Protocol, max_items: usize) -> impl Strategy<Value = Snapshot> {
    prop::collection::vec(
        (
            type_strategy(),
            0u16..40,
            0usize..12,
            prop::collection::vec(any::<i32>(), 64),
        ),
        0..max_items,
    )
    .prop_map(move |raw| {
        let mut s = Snapshot::new();
        for (t, id, free, vals) in raw {
            let n = item_size(p, t, free);
            let _ = s.push(key(t, id), &vals[..n]);
        }
        s
    })
}

fn protocol_strategy() -> impl Strategy<Value = Protocol> {
    prop_oneof![Just(Protocol::V06), Just(Protocol::V07)]
}

/// Up to 120 ints read as a delta: mostly small counts, types and ids, some
/// anything, some near the largest type (UUID types).
fn delta_ints_strategy() -> impl Strategy<Value = Vec<i32>> {
    prop::collection::vec(
        prop_oneof![
            6 => -2i32..40,
            1 => any::<i32>(),
            1 => 0x7ff8i32..=0x7fff,
        ],
        0..120,
    )
}

/// (old, new) where `new` keeps some old items (some changed) in old order,
/// then adds new keys: the shape every applied snapshot has.
fn pair_strategy() -> impl Strategy<Value = (Protocol, Snapshot, Snapshot)> {
    protocol_strategy().prop_flat_map(|p| {
        (
            Just(p),
            snapshot_strategy(p, 60),
            snapshot_strategy(p, 30),
            prop::collection::vec((0u8..3, any::<u64>()), 60),
        )
            .prop_map(|(p, old, extra, fate)| {
                let mut new = Snapshot::new();
                for (i, (k, d)) in old.iter().enumerate() {
                    let (f, seed) = fate[i];
                    match f {
                        0 => continue, // removed
                        1 => new.push(k, d).unwrap(),
                        _ => {
                            let changed: Vec<i32> = d
                                .iter()
                                .enumerate()
                                .map(|(j, &v)| {
                                    let r = seed.rotate_left(j as u32 * 7) as i32;
                                    if r & 1 == 0 {
                                        v.wrapping_add(r >> 1)
                                    } else {
                                        v
                                    }
                                })
                                .collect();
                            new.push(k, &changed).unwrap();
                        }
                    }
                }
                for (k, d) in extra.iter() {
                    if old.get(k).is_none() {
                        let _ = new.push(k, d);
                    }
                }
                (p, old, new)
            })
    })
}

// ---------------------------------------------------------------------------
// Kernels against the oracle

fn check_kernels(v: &[i32], w: &[i32]) {
    let want = checksum_oracle(v);
    assert_eq!(checksum_scalar(v), want, "checksum scalar len {}", v.len());
    assert_eq!(checksum_simd(v), want, "checksum simd len {}", v.len());
    for b in Backend::ALL {
        assert_eq!(SnapshotKernels::new(b).checksum(v), want);
    }
    let n = v.len().min(w.len());
    let mut want_sum = vec![0; n];
    wrapping_add_oracle(&v[..n], &w[..n], &mut want_sum);
    for (i, (&a, &b)) in v.iter().zip(w).enumerate() {
        assert_eq!(want_sum[i], a.wrapping_add(b));
    }
    for b in Backend::ALL {
        let mut got = vec![0x5555_5555; n];
        SnapshotKernels::new(b).wrapping_add(&v[..n], &w[..n], &mut got);
        assert_eq!(got, want_sum, "wrapping add {b} len {n}");
    }
    // In place, returning the sum of the diff ints used (the common length).
    let mut want_data = v.to_vec();
    let want_diff_sum = wrapping_add_assign_oracle(&mut want_data, w);
    assert_eq!(&want_data[..n], &want_sum[..]);
    assert_eq!(&want_data[n..], &v[n..]);
    assert_eq!(want_diff_sum, checksum_oracle(&w[..n]));
    type Assign = fn(&mut [i32], &[i32]) -> i32;
    let tiers: [(&str, Assign); 3] = [
        ("scalar", wrapping_add_assign_scalar),
        ("simd", wrapping_add_assign_simd),
        // The sum left in lanes (the in-place applier reduces once per
        // delta); 22 ints, a character, has its own unrolled copy.
        ("simd lanes", |d, w| {
            add::wrapping_add_assign_simd_lanes(d, w).reduce_add()
        }),
    ];
    for (name, f) in tiers {
        let mut got = v.to_vec();
        assert_eq!(f(&mut got, w), want_diff_sum, "add assign {name} len {n}");
        assert_eq!(got, want_data, "add assign {name} len {n}");
    }
    for b in Backend::ALL {
        let mut got = v.to_vec();
        assert_eq!(
            SnapshotKernels::new(b).wrapping_add_assign(&mut got, w),
            want_diff_sum
        );
        assert_eq!(got, want_data, "add assign {b} len {n}");
    }
    // Every kernel of the SIMD tier this CPU can run (AVX2, `wide`).
    for k in AddKernel::ALL.into_iter().filter(|k| k.available()) {
        let mut got = v.to_vec();
        let sum = wrapping_add_assign_on(k, &mut got, w);
        assert_eq!(sum, want_diff_sum, "add assign {k:?} len {n}");
        assert_eq!(got, want_data, "add assign {k:?} len {n}");
    }
}

#[test]
fn kernels_every_tail_length() {
    // Every length 0..=64 (all tails of the 8- and 32-int blocks), at every
    // start alignment 0..8, with values near the wrapping edges.
    let pool: Vec<i32> = (0..200i64)
        .map(|i| match i % 4 {
            0 => i32::MAX - i as i32,
            1 => i32::MIN + i as i32,
            2 => (i * 0x9e37_79b9) as i32,
            _ => -(i as i32),
        })
        .collect();
    let other: Vec<i32> = pool.iter().rev().map(|v| v.rotate_left(5)).collect();
    for start in 0..8 {
        for len in 0..=64 {
            check_kernels(&pool[start..start + len], &other[start..start + len]);
            // Unequal lengths: only the common prefix is used.
            check_kernels(&pool[start..start + len], &other[start..start + len / 2]);
            check_kernels(&pool[start..start + len / 3], &other[start..start + len]);
        }
    }
}

proptest! {
    #[test]
    fn kernels_match_oracle(v in prop::collection::vec(any::<i32>(), 0..2000),
                            w in prop::collection::vec(any::<i32>(), 0..2000)) {
        check_kernels(&v, &w);
    }

    #[test]
    fn serialize_parse_round_trip(s in protocol_strategy().prop_flat_map(|p| snapshot_strategy(p, 100))) {
        let ints = s.to_ints();
        prop_assert_eq!(ints[0] as usize, s.data_size_bytes());
        let mut back = Snapshot::new();
        back.parse_into(&ints).unwrap();
        prop_assert_eq!(&back, &s);
        prop_assert_eq!(back.checksum(), SnapshotKernels::new(Backend::Oracle).checksum(s.data()));
        prop_assert_eq!(back.to_ints(), ints);
        for (k, d) in s.iter() {
            prop_assert_eq!(back.get(k), Some(d));
        }
    }

    #[test]
    fn create_apply_round_trip((p, old, new) in pair_strategy()) {
        let mut delta = Vec::new();
        create_delta(&old, &new, p, &mut delta).unwrap();
        for b in Backend::ALL {
            let mut got = Snapshot::new();
            let mut w = Vec::new();
            SnapshotKernels::new(b).apply_delta(&old, &delta, p, &mut got, &mut w).unwrap();
            prop_assert!(w.is_empty(), "{:?}", w);
            prop_assert_eq!(&got, &new);
            prop_assert_eq!(SnapshotKernels::new(b).checksum(got.data()), SnapshotKernels::new(Backend::Oracle).checksum(new.data()));
        }
        // The model of DDNet's applier agrees.
        let model = model_apply(&old, &delta, p).unwrap();
        let got: Vec<(u32, Vec<i32>)> = new.iter().map(|(k, d)| (k, d.to_vec())).collect();
        prop_assert_eq!(model, got);
    }

    #[test]
    fn create_apply_any_order((p, old, new) in pair_strategy(), rot in 0usize..100) {
        // A new snapshot in another order: same items and data after applying.
        let mut items: Vec<(u32, Vec<i32>)> = new.iter().map(|(k, d)| (k, d.to_vec())).collect();
        if !items.is_empty() {
            let r = rot % items.len();
            items.rotate_left(r);
            items.reverse();
        }
        let mut shuffled = Snapshot::new();
        for (k, d) in &items {
            shuffled.push(*k, d).unwrap();
        }
        let mut delta = Vec::new();
        create_delta(&old, &shuffled, p, &mut delta).unwrap();
        let (got, _) = apply(&old, &delta, p);
        let got = got.unwrap();
        prop_assert_eq!(sorted_items(&got), sorted_items(&shuffled));
        prop_assert_eq!(got.canonical_crc32(), shuffled.canonical_crc32());
        prop_assert_eq!(got.checksum(), shuffled.checksum());
    }

    #[test]
    fn apply_random_ints_never_panics_and_matches_model(
        p in protocol_strategy(),
        old in snapshot_strategy(Protocol::V06, 20),
        ints in delta_ints_strategy(),
    ) {
        let model = model_apply(&old, &ints, p);
        let mut results = Vec::new();
        for b in Backend::ALL {
            let mut got = Snapshot::new();
            let mut w = Vec::new();
            let r = SnapshotKernels::new(b).apply_delta(&old, &ints, p, &mut got, &mut w);
            if r.is_err() {
                prop_assert!(got.is_empty());
            }
            results.push(r.map(|()| got));
        }
        prop_assert_eq!(&results[0], &results[1]);
        prop_assert_eq!(&results[0], &results[2]);
        match (&results[0], model) {
            (Ok(got), Ok(m)) => {
                let got: Vec<(u32, Vec<i32>)> = got.iter().map(|(k, d)| (k, d.to_vec())).collect();
                prop_assert_eq!(got, m);
            }
            (Err(a), Err(b)) => prop_assert_eq!(*a, b),
            (a, b) => prop_assert!(false, "crate {:?} vs model {:?}", a.as_ref().map(|s| s.len()), b),
        }
    }

    #[test]
    fn apply_mutated_delta_matches_model(
        (p, old, new) in pair_strategy(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), -3i32..3), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut delta = Vec::new();
        create_delta(&old, &new, p, &mut delta).unwrap();
        for (at, v) in edits {
            let i = at.index(delta.len());
            delta[i] = delta[i].wrapping_add(v);
        }
        let n = cut.index(delta.len() + 1);
        for ints in [&delta[..], &delta[..n]] {
            let (got, _) = apply(&old, ints, p);
            let model = model_apply(&old, ints, p);
            match (got, model) {
                (Ok(g), Ok(m)) => {
                    let g: Vec<(u32, Vec<i32>)> = g.iter().map(|(k, d)| (k, d.to_vec())).collect();
                    prop_assert_eq!(g, m);
                }
                (Err(a), Err(b)) => prop_assert_eq!(a, b),
                (a, b) => prop_assert!(false, "crate {:?} vs model {:?}", a.map(|s| s.len()), b),
            }
        }
    }

    #[test]
    fn long_delta_chains(seed in any::<u64>(), p in protocol_strategy()) {
        // Many ticks through two reused snapshots: items removed, re-added,
        // changed and added every tick, so the key index goes through
        // tombstones and rebuilds. Each tick must reproduce the generated
        // snapshot, its lookups, and the model on a garbled delta.
        let mut rng = Rng::new(seed);
        let mut next = move |n: u64| rng.modulo(n);
        let types = [5u16, 9, 0x7fff];
        let mut truth = Snapshot::new();
        let mut cur = Snapshot::new();
        let mut out = Snapshot::new();
        let mut w = Vec::new();
        let mut delta = Vec::new();
        for _tick in 0..60 {
            let mut want = Snapshot::new();
            for (k, d) in truth.iter() {
                match next(10) {
                    0 | 1 => {}
                    2 | 3 => {
                        let v: Vec<i32> = d.iter().map(|&x| x.wrapping_add(next(5) as i32 - 2)).collect();
                        want.push(k, &v).unwrap();
                    }
                    _ => want.push(k, d).unwrap(),
                }
            }
            for _ in 0..next(12) {
                let t = types[next(3) as usize];
                let k = key(t, next(60) as u16);
                let n = item_size(p, t, 4);
                let v: Vec<i32> = (0..n).map(|_| next(1 << 20) as i32).collect();
                if want.get(k).is_none() && truth.get(k).is_none() {
                    want.push(k, &v).unwrap();
                }
            }
            create_delta(&truth, &want, p, &mut delta).unwrap();
            apply_delta(&cur, &delta, p, &mut out, &mut w).unwrap();
            prop_assert_eq!(&out, &want);
            for (k, d) in want.iter() {
                prop_assert_eq!(out.get(k), Some(d));
            }
            for (k, _) in truth.iter() {
                if want.get(k).is_none() {
                    prop_assert_eq!(out.get(k), None);
                }
            }
            // A garbled copy of the delta against the same old snapshot.
            if !delta.is_empty() {
                let mut bad = delta.clone();
                let i = next(bad.len() as u64) as usize;
                bad[i] = bad[i].wrapping_add(next(3) as i32 - 1);
                let (got, _) = apply(&cur, &bad, p);
                let model = model_apply(&cur, &bad, p);
                match (got, model) {
                    (Ok(g), Ok(m)) => {
                        let g: Vec<(u32, Vec<i32>)> = g.iter().map(|(k, d)| (k, d.to_vec())).collect();
                        prop_assert_eq!(g, m);
                    }
                    (Err(a), Err(b)) => prop_assert_eq!(a, b),
                    (a, b) => prop_assert!(false, "crate {:?} vs model {:?}", a.map(|s| s.len()), b),
                }
            }
            std::mem::swap(&mut cur, &mut out);
            truth = want;
        }
        prop_assert!(w.is_empty());
    }

    #[test]
    fn parse_random_ints_never_panics(ints in prop::collection::vec(prop_oneof![
            4 => -2i32..64,
            1 => any::<i32>(),
        ], 0..80)) {
        let mut s = Snapshot::new();
        match s.parse_into(&ints) {
            Ok(()) => prop_assert_eq!(s.to_ints(), ints),
            Err(e) => {
                prop_assert!(s.is_empty());
                prop_assert!(e.offset <= ints.len());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Full snapshots: literals

#[test]
fn parse_literal_snapshot() {
    // Two items: (type 9, id 1) with 2 ints, (type 0, id 0x7fff) with 1 int.
    let ints = [20, 2, 0, 12, 9 << 16 | 1, 5, -6, 0x7fff, 7];
    let s = Snapshot::parse(&ints).unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s.item(0), Some((key(9, 1), &[5, -6][..])));
    assert_eq!(s.item(1), Some((key(0, 0x7fff), &[7][..])));
    assert_eq!(s.get(key(9, 1)), Some(&[5, -6][..]));
    assert_eq!(s.get(key(9, 2)), None);
    assert_eq!(s.checksum(), 6);
    assert_eq!(s.data_size_bytes(), 20);
    assert_eq!(s.len_without_type_declarations(), 1);
    // Canonical CRC: items sorted by key, key then data, little-endian.
    let mut h = crc32fast::Hasher::new();
    for v in [0x7fff, 7, 9 << 16 | 1, 5, -6] {
        h.update(&i32::to_le_bytes(v));
    }
    let want_crc = h.finalize();
    assert_eq!(
        s.summary(),
        SnapshotSummary {
            num_items: 2,
            checksum: 6,
            num_items_excl_type_declarations: 1,
            data_size_bytes: 20,
            canonical_crc32: want_crc,
        }
    );
    assert_eq!(s.to_ints(), ints);
    let iter: Vec<(u32, Vec<i32>)> = s.iter().map(|(k, d)| (k, d.to_vec())).collect();
    assert_eq!(
        iter,
        vec![(key(9, 1), vec![5, -6]), (key(0, 0x7fff), vec![7])]
    );
    assert_eq!(
        s.summary().to_string(),
        format!("2\t6\t1\t20\t{want_crc:08x}")
    );
    // Empty snapshot.
    assert_eq!(Snapshot::parse(&[0, 0]).unwrap().len(), 0);
    assert_eq!(Snapshot::new().to_ints(), vec![0, 0]);
}

#[test]
fn parse_literal_errors() {
    let err = |ints: &[i32]| Snapshot::parse(ints).unwrap_err();
    let e = |kind, offset| Error { kind, offset };
    assert_eq!(err(&[]), e(ErrorKind::Truncated, 0));
    assert_eq!(err(&[0]), e(ErrorKind::Truncated, 1));
    assert_eq!(err(&[-4, 0]), e(ErrorKind::NegativeSize, 0));
    assert_eq!(err(&[6, 1, 0, 1, 2]), e(ErrorKind::UnalignedSize, 0));
    assert_eq!(err(&[0, -1]), e(ErrorKind::NegativeCount, 1));
    assert_eq!(err(&[0, 1025]), e(ErrorKind::TooManyItems, 1));
    assert_eq!(err(&[65536, 1]), e(ErrorKind::TooLarge, 0));
    assert_eq!(err(&[8, 1, 0]), e(ErrorKind::Truncated, 3));
    assert_eq!(err(&[4, 1, 0, 1, 99]), e(ErrorKind::TrailingData, 4));
    assert_eq!(err(&[4, 0, 1]), e(ErrorKind::BadOffset, 0));
    // First offset not 0.
    assert_eq!(err(&[8, 1, 4, 1, 2]), e(ErrorKind::BadOffset, 2));
    // Offsets not increasing.
    assert_eq!(err(&[8, 2, 0, 0, 1, 2]), e(ErrorKind::BadOffset, 3));
    // Offset past the data, negative, unaligned.
    assert_eq!(err(&[8, 2, 0, 8, 1, 2]), e(ErrorKind::BadOffset, 3));
    assert_eq!(err(&[8, 2, 0, -4, 1, 2]), e(ErrorKind::BadOffset, 3));
    assert_eq!(err(&[8, 2, 0, 2, 1, 2]), e(ErrorKind::UnalignedSize, 3));
    // Duplicate key (offset: the second key's int).
    assert_eq!(err(&[8, 2, 0, 4, 7, 7]), e(ErrorKind::DuplicateKey, 5));
}

#[test]
fn limits_1024_items_and_64_kib() {
    // 1024 empty items parse; 1025 do not.
    let mut s = Snapshot::new();
    for i in 0..1024u32 {
        s.push(i, &[]).unwrap();
    }
    assert_eq!(
        s.push(5000, &[]),
        Err(Error {
            kind: ErrorKind::TooManyItems,
            offset: 1024
        })
    );
    let ints = s.to_ints();
    assert_eq!(Snapshot::parse(&ints).unwrap().len(), 1024);
    let mut big = vec![4 * 1025, 1025];
    big.extend((0..1025).map(|i| 4 * i));
    big.extend(0..1025);
    assert_eq!(
        Snapshot::parse(&big).unwrap_err(),
        Error {
            kind: ErrorKind::TooManyItems,
            offset: 1
        }
    );
    // 64 KiB total: header 8 + offset 4 + key 4 + data.
    let max_data = (MAX_SIZE - 16) / 4;
    let mut one = Snapshot::new();
    one.push(1, &vec![1; max_data]).unwrap();
    assert_eq!(one.total_size_bytes(), MAX_SIZE);
    assert_eq!(Snapshot::parse(&one.to_ints()).unwrap(), one);
    assert_eq!(MAX_ITEM_SIZE, 4 * max_data);
    let e = |kind, offset| Err::<(), _>(Error { kind, offset });
    let er = |kind, offset| Err::<Snapshot, _>(Error { kind, offset });
    let mut over = Snapshot::new();
    assert_eq!(
        over.push(1, &vec![1; max_data + 1]),
        e(ErrorKind::ItemTooLarge, 0)
    );
    over.push(1, &[]).unwrap();
    assert_eq!(over.push(2, &vec![1; max_data]), e(ErrorKind::TooLarge, 1));
    // In a delta: an explicit size above the item limit; then an item that
    // fits alone but would make the snapshot outgrow 64 KiB.
    let mut d = vec![0, 1, 0, 0x7fff, 0, max_data as i32 + 1];
    d.extend(std::iter::repeat_n(0, max_data + 1));
    assert_eq!(
        apply(&Snapshot::new(), &d, P6).0,
        er(ErrorKind::ItemTooLarge, 5)
    );
    let mut d = vec![0, 1, 0, 0x7fff, 0, max_data as i32];
    d.extend(std::iter::repeat_n(0, max_data));
    let full = apply(&Snapshot::new(), &d, P6).0.unwrap();
    assert_eq!(full.total_size_bytes(), MAX_SIZE);
    assert_eq!(apply(&over, &d, P6).0, er(ErrorKind::TooLarge, 3));
}

// ---------------------------------------------------------------------------
// Deltas: literals

const P6: Protocol = Protocol::V06;

fn base() -> Snapshot {
    // obj_flag (0.6 type 5, 3 ints), obj_game_data (type 7, 4 ints), and an
    // extended item (type 0x7fff, explicit size).
    snap(&[
        (key(5, 0), &[10, 20, 1]),
        (key(7, 0), &[1, 2, 3, 4]),
        (key(0x7fff, 3), &[9, 9]),
    ])
}

#[test]
fn empty_delta_is_identity() {
    let old = base();
    let (new, w) = apply(&old, &[0, 0, 0], P6);
    assert_eq!(new.unwrap(), old);
    assert!(w.is_empty());
    let mut d = Vec::new();
    create_delta(&old, &old, P6, &mut d).unwrap();
    assert_eq!(d, [0, 0, 0]);
}

#[test]
fn delete_only() {
    let old = base();
    let (new, w) = apply(
        &old,
        &[2, 0, 0, key(5, 0) as i32, key(0x7fff, 3) as i32],
        P6,
    );
    assert_eq!(new.unwrap(), snap(&[(key(7, 0), &[1, 2, 3, 4])]));
    assert!(w.is_empty());
    // Removing a key that is not there: ignored like DDNet, with a warning.
    let (new, w) = apply(&old, &[1, 0, 0, key(9, 9) as i32], P6);
    assert_eq!(new.unwrap(), old);
    assert_eq!(
        w,
        [Warning {
            kind: WarningKind::RemovedKeyMissing,
            offset: 3
        }]
    );
}

#[test]
fn update_add_and_order() {
    let old = base();
    let delta = [
        1,
        3,
        0,                // header
        key(7, 0) as i32, // removed
        5,
        0,
        1,
        -1,
        0, // flag: diff
        0x7fff,
        3,
        2,
        0,
        5, // extended: explicit size 2, diff
        6,
        1,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8, // new obj_game_info (8 ints)
    ];
    let (new, w) = apply(&old, &delta, P6);
    assert!(w.is_empty());
    let want = snap(&[
        (key(5, 0), &[11, 19, 1]),
        (key(0x7fff, 3), &[9, 14]),
        (key(6, 1), &[1, 2, 3, 4, 5, 6, 7, 8]),
    ]);
    assert_eq!(new.unwrap(), want);
    let mut d = Vec::new();
    create_delta(&old, &want, P6, &mut d).unwrap();
    assert_eq!(d, delta);
}

#[test]
fn wrapping_overflow() {
    let old = snap(&[(key(5, 0), &[i32::MAX, i32::MIN, -1])]);
    let (new, _) = apply(&old, &[0, 1, 0, 5, 0, 1, -1, 1], P6);
    let new = new.unwrap();
    assert_eq!(new.get(key(5, 0)), Some(&[i32::MIN, i32::MAX, 0][..]));
    for b in Backend::ALL {
        let mut got = Snapshot::new();
        SnapshotKernels::new(b)
            .apply_delta(
                &old,
                &[0, 1, 0, 5, 0, 1, -1, 1],
                P6,
                &mut got,
                &mut Vec::new(),
            )
            .unwrap();
        assert_eq!(got, new);
        assert_eq!(
            SnapshotKernels::new(b).checksum(got.data()),
            i32::MIN.wrapping_add(i32::MAX)
        );
    }
    let mut d = Vec::new();
    create_delta(&old, &new, P6, &mut d).unwrap();
    assert_eq!(d, [0, 1, 0, 5, 0, 1, -1, 1]);
}

#[test]
fn unknown_type_explicit_size() {
    // Type 21 is not pre-agreed in 0.6: size follows the id. In 0.7 it is
    // (event_sound_world, 3 ints), so the same ints read differently.
    let delta = [0, 1, 0, 21, 4, 3, 7, 8, 9];
    let (new, _) = apply(&Snapshot::new(), &delta, Protocol::V06);
    assert_eq!(new.unwrap(), snap(&[(key(21, 4), &[7, 8, 9])]));
    let (new, w) = apply(&Snapshot::new(), &delta, Protocol::V07);
    assert_eq!(new.unwrap(), snap(&[(key(21, 4), &[3, 7, 8])]));
    assert_eq!(
        w,
        [Warning {
            kind: WarningKind::TrailingData,
            offset: 8
        }]
    );
    // Size 0 is allowed.
    let (new, _) = apply(&Snapshot::new(), &[0, 1, 0, 0x4000, 1, 0], P6);
    assert_eq!(new.unwrap(), snap(&[(key(0x4000, 1), &[])]));
}

#[test]
fn delta_errors() {
    let old = base();
    let e = |kind, offset| Err(Error { kind, offset });
    let run = |ints: &[i32]| apply(&old, ints, P6).0;
    // Size mismatch on update: explicit size 3 for a 2-int item.
    assert_eq!(
        run(&[0, 1, 0, 0x7fff, 3, 3, 0, 0, 0]),
        e(ErrorKind::SizeMismatch, 3)
    );
    // Negative explicit size.
    assert_eq!(
        run(&[0, 1, 0, 0x7fff, 3, -1]),
        e(ErrorKind::NegativeSize, 5)
    );
    // Truncated: header, data, size field.
    assert_eq!(run(&[0, 0]), e(ErrorKind::Truncated, 2));
    assert_eq!(run(&[0, 1, 0, 5, 0, 1, 2]), e(ErrorKind::Truncated, 5));
    assert_eq!(run(&[0, 1, 0, 0x7fff, 3]), e(ErrorKind::Truncated, 5));
    // Negative counts, counts larger than what remains.
    assert_eq!(run(&[-1, 0, 0]), e(ErrorKind::NegativeCount, 0));
    assert_eq!(run(&[0, -1, 0]), e(ErrorKind::NegativeCount, 1));
    assert_eq!(run(&[2, 0, 0, 1]), e(ErrorKind::CountTooLarge, 0));
    assert_eq!(run(&[0, 2, 0, 5, 0, 1]), e(ErrorKind::CountTooLarge, 1));
    assert_eq!(
        run(&[i32::MAX, i32::MAX, 0]),
        e(ErrorKind::CountTooLarge, 0)
    );
    // Type and id ranges.
    assert_eq!(
        run(&[0, 1, 0, 0x8000, 0, 0]),
        e(ErrorKind::TypeOutOfRange, 3)
    );
    assert_eq!(run(&[0, 1, 0, -1, 0, 0]), e(ErrorKind::TypeOutOfRange, 3));
    assert_eq!(
        run(&[0, 1, 0, 5, 0x10000, 0]),
        e(ErrorKind::IdOutOfRange, 4)
    );
    // The second of two item deltas is truncated: error, output left empty.
    let mut new = Snapshot::new();
    let r = apply_delta(
        &old,
        &[0, 2, 0, 5, 0, 1, 2, 3, 5, 1],
        P6,
        &mut new,
        &mut Vec::new(),
    );
    assert_eq!(
        r,
        Err(Error {
            kind: ErrorKind::Truncated,
            offset: 10
        })
    );
    assert!(new.is_empty());
}

#[test]
fn delta_adding_item_1025_fails() {
    let mut old = Snapshot::new();
    for i in 0..1024u32 {
        old.push(key(0x7000, i as u16), &[]).unwrap();
    }
    let (r, _) = apply(&old, &[0, 1, 0, 0x7000, 2000, 0], P6);
    assert_eq!(
        r,
        Err(Error {
            kind: ErrorKind::TooManyItems,
            offset: 3
        })
    );
    // Replacing one item is fine.
    let (r, _) = apply(&old, &[1, 1, 0, key(0x7000, 0) as i32, 0x7000, 2000, 0], P6);
    assert_eq!(r.unwrap().len(), 1024);
}

#[test]
fn delta_quirks_follow_ddnet() {
    let old = base();
    // Removed and updated in the same delta: appended at the end as old+diff.
    let (new, _) = apply(&old, &[1, 1, 0, key(5, 0) as i32, 5, 0, 1, 1, 1], P6);
    assert_eq!(
        new.unwrap(),
        snap(&[
            (key(7, 0), &[1, 2, 3, 4]),
            (key(0x7fff, 3), &[9, 9]),
            (key(5, 0), &[11, 21, 2])
        ])
    );
    // A new key twice: the second replaces the first in place.
    let (new, w) = apply(
        &old,
        &[
            0, 2, 0, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6, 1, 2, 2, 2, 2, 2, 2, 2, 2,
        ],
        P6,
    );
    let new = new.unwrap();
    assert_eq!(new.len(), 4);
    assert_eq!(new.get(key(6, 1)), Some(&[2; 8][..]));
    assert_eq!(
        w,
        [Warning {
            kind: WarningKind::DuplicateItemDelta,
            offset: 13
        }]
    );
    // Non-zero padding: warned, ignored.
    let (new, w) = apply(&old, &[0, 0, 5], P6);
    assert_eq!(new.unwrap(), old);
    assert_eq!(
        w,
        [Warning {
            kind: WarningKind::NonZeroPadding,
            offset: 2
        }]
    );
}

#[test]
fn create_delta_errors() {
    let old = snap(&[(key(0x7fff, 1), &[1, 2])]);
    let resized = snap(&[(key(0x7fff, 1), &[1, 2, 3])]);
    let mut d = Vec::new();
    assert_eq!(
        create_delta(&old, &resized, P6, &mut d),
        Err(Error {
            kind: ErrorKind::SizeMismatch,
            offset: 0
        })
    );
    // obj_flag has 3 ints in 0.6.
    let wrong = snap(&[(key(5, 1), &[1, 2])]);
    assert_eq!(
        create_delta(&Snapshot::new(), &wrong, P6, &mut d),
        Err(Error {
            kind: ErrorKind::SizeMismatch,
            offset: 0
        })
    );
    let high = snap(&[(0x8000_0000, &[])]);
    assert_eq!(
        create_delta(&Snapshot::new(), &high, P6, &mut d),
        Err(Error {
            kind: ErrorKind::TypeOutOfRange,
            offset: 0
        })
    );
}

#[test]
fn reuse_buffers_across_ticks() {
    // Ping-pong two snapshots through many deltas, as a worker does.
    let mut cur = base();
    let mut next = Snapshot::new();
    let mut w = Vec::new();
    for tick in 0..100 {
        let delta = [0, 1, 0, 5, 0, tick, -tick, 0];
        apply_delta(&cur, &delta, P6, &mut next, &mut w).unwrap();
        std::mem::swap(&mut cur, &mut next);
    }
    assert_eq!(cur.get(key(5, 0)), Some(&[10 + 4950, 20 - 4950, 1][..]));
    assert!(w.is_empty());
    cur.clear();
    assert!(cur.is_empty());
    assert_eq!(cur.to_ints(), [0, 0]);
}

#[test]
fn delta_view_walks_items() {
    let ints = [1, 2, 0, 77, 5, 1, 1, 2, 3, 0x7fff, 2, 1, 9];
    let d = Delta::parse(&ints, P6).unwrap();
    assert_eq!(d.removed_keys(), &[77]);
    let items: Vec<ItemDelta> = d.items().map(|r| r.unwrap()).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(
        (items[0].type_id(), items[0].id(), items[0].data),
        (5, 1, &[1, 2, 3][..])
    );
    assert!(!items[0].explicit_size);
    assert_eq!(
        (
            items[1].type_id(),
            items[1].id(),
            items[1].data,
            items[1].offset
        ),
        (0x7fff, 2, &[9][..], 9)
    );
    assert!(items[1].explicit_size);
}

#[test]
fn item_delta_runs() {
    // The reader guesses that an item delta has the type and size of the one
    // before: every way the guess can be wrong reads like the model.
    let old = base();
    let cases: [&[i32]; 11] = [
        // A run of obj_flag (3 ints), then a run of explicit sizes 2, 2, 1.
        &[
            0, 5, 0, 5, 0, 1, 1, 1, 5, 1, 2, 2, 2, 0x7fff, 3, 2, 1, 1, 0x7fff, 4, 2, 5, 5, 0x7fff,
            5, 1, 7,
        ],
        // Explicit sizes 2, 1, 2 with every int there.
        &[
            0, 3, 0, 0x7fff, 3, 2, 1, 1, 0x7fff, 4, 1, 5, 0x7fff, 5, 2, 6, 6,
        ],
        // Same type, the second id out of range; negative; the type -1.
        &[0, 2, 0, 5, 0, 1, 1, 1, 5, 0x10000, 2, 2, 2],
        &[0, 2, 0, 5, 0, 1, 1, 1, 5, -1, 2, 2, 2],
        &[0, 2, 0, -1, 0, 1, 1, 1, -1, 0, 2, 2, 2],
        // Same explicit type: negative size, too large, truncated data,
        // truncated before the size.
        &[0, 2, 0, 0x7fff, 3, 1, 9, 0x7fff, 4, -1],
        &[0, 2, 0, 0x7fff, 3, 1, 9, 0x7fff, 4, 16381],
        &[0, 2, 0, 0x7fff, 3, 1, 9, 0x7fff, 4, 1],
        &[0, 2, 0, 0x7fff, 3, 1, 9, 0x7fff, 4],
        // Same static type, truncated data; then only the type.
        &[0, 2, 0, 5, 0, 1, 1, 1, 5, 1, 2, 2],
        &[0, 2, 0, 5, 0, 1, 1, 1, 5],
    ];
    for delta in cases {
        let (got, _) = apply(&old, delta, P6);
        let got = got.map(|s| s.iter().map(|(k, d)| (k, d.to_vec())).collect::<Vec<_>>());
        assert_eq!(got, model_apply(&old, delta, P6), "{delta:?}");
        check_in_place(Backend::Simd, &old, delta, P6, &mut Snapshot::new()).ok();
    }
    // The walk of the first one: offsets, sizes, explicit flags.
    let d = Delta::parse(cases[0], P6).unwrap();
    let items: Vec<(u16, u16, usize, usize, bool)> = d
        .items()
        .map(|r| r.map(|i| (i.type_id(), i.id(), i.offset, i.data.len(), i.explicit_size)))
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        items,
        [
            (5, 0, 3, 3, false),
            (5, 1, 8, 3, false),
            (0x7fff, 3, 13, 2, true),
            (0x7fff, 4, 18, 2, true),
            (0x7fff, 5, 23, 1, true),
        ]
    );
}

// ---------------------------------------------------------------------------
// Protocols, names, extended types

#[test]
fn protocol_from_net_version() {
    assert_eq!(
        Protocol::from_net_version("0.6 626fce9a778df4d4"),
        Some(Protocol::V06)
    );
    assert_eq!(
        Protocol::from_net_version("0.7 802f1be60a05665f"),
        Some(Protocol::V07)
    );
    assert_eq!(Protocol::from_net_version("0.5 b67d1f1a1eea234e"), None);
    assert_eq!(Protocol::V06.item_name(1), Some("obj_player_input"));
    assert_eq!(Protocol::V06.item_name(20), Some("event_damage_indicator"));
    assert_eq!(Protocol::V07.item_name(22), Some("event_damage"));
    assert_eq!(Protocol::V07.static_size(22), Some(7));
}

#[test]
fn extended_types_resolve() {
    let ch = uuid_from_name("character@netobj.ddnet.tw");
    let pl = uuid_from_name("player@netobj.ddnet.tw");
    let unknown = uuid_from_name("not-a-type@example.org");
    let s = snap(&[
        (key(0, 0x7fff), &uuid_to_ints(&ch)),
        (key(0, 0x7ffe), &uuid_to_ints(&pl)),
        (key(0, 0x7ffd), &uuid_to_ints(&unknown)),
        (key(0, 0x7ffc), &[1, 2]),       // too short: not a declaration
        (key(0, 5), &uuid_to_ints(&ch)), // id below 0x4000: not a declaration
        (key(0x7fff, 0), &[0; 11]),
        (key(9, 0), &[0; 22]),
    ]);
    let ext: Vec<ExtendedType> = extended_types(&s).collect();
    assert_eq!(ext.len(), 3);
    assert_eq!(ext[0].type_id, 0x7fff);
    assert_eq!(ext[0].uuid, ch);
    assert_eq!(ext[0].known.map(|k| k.name), Some("DDNetCharacter"));
    assert_eq!(
        ext[1].known.map(|k| k.uuid_name),
        Some("player@netobj.ddnet.tw")
    );
    assert_eq!(ext[2].known, None);
    assert_eq!(
        ext[0].to_string(),
        format!("{} (DDNetCharacter)", ch.hyphenated())
    );
    assert_eq!(ext[2].to_string(), unknown.hyphenated().to_string());
    assert_eq!(resolve_type(&s, 9), ItemType::Ordinal(9));
    assert!(matches!(resolve_type(&s, 0x7fff), ItemType::Extended(e) if e.uuid == ch));
    assert_eq!(resolve_type(&s, 0x7ffc), ItemType::Undeclared(0x7ffc));
    assert_eq!(resolve_type(&s, 0x4000), ItemType::Undeclared(0x4000));
    assert_eq!(OFFSET_UUID_TYPE, 0x4000);
}

#[test]
fn uuid_names_match_golden_summaries() {
    let Some(root) = crate::common::datasets() else {
        return;
    };
    let golden = root.join("golden");
    let mut seen: HashMap<String, String> = HashMap::new();
    for path in crate::common::files_with_ext(&golden, "json") {
        if !path.to_string_lossy().ends_with(".summary.json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let Some(types) = v.get("item_types_uuid").and_then(|t| t.as_object()) else {
            continue;
        };
        for k in types.keys() {
            // "22ca938d-1380-3e2b-9e7b-d2558ea6be11 (DDNetPlayer)"
            let (uuid, name) = k.split_once(' ').unwrap();
            let name = name.trim_start_matches('(').trim_end_matches(')');
            seen.insert(uuid.to_string(), name.to_string());
        }
    }
    if seen.is_empty() {
        crate::common::skip("no item_types_uuid in the golden summaries");
        return;
    }
    // Every UUID the golden files name resolves to the same name here.
    for (uuid, name) in &seen {
        let u: ::uuid::Uuid = uuid.parse().unwrap();
        assert_eq!(
            lookup_uuid(&u).map(|k| k.name),
            Some(name.as_str()),
            "{uuid}"
        );
    }
    // And the well-known ones are among them.
    let names: HashSet<&str> = seen.values().map(|s| s.as_str()).collect();
    for (uuid_name, name) in [
        ("character@netobj.ddnet.tw", "DDNetCharacter"),
        ("player@netobj.ddnet.tw", "DDNetPlayer"),
        ("gameinfo@netobj.ddnet.tw", "GameInfoEx"),
    ] {
        let u = uuid_from_name(uuid_name).hyphenated().to_string();
        assert_eq!(seen.get(&u).map(|s| s.as_str()), Some(name), "{uuid_name}");
        assert!(names.contains(name));
    }
}

#[test]
fn v07_size_table_matches_golden() {
    let Some(root) = crate::common::datasets() else {
        return;
    };
    let mut checked = 0;
    for path in crate::common::files_with_ext(&root.join("golden"), "json") {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let Some(table) = v.pointer("/delta_item_size_table/static_sizes_type_ints") else {
            continue;
        };
        let nv = v
            .pointer("/header/net_version")
            .and_then(|s| s.as_str())
            .unwrap();
        let p = Protocol::from_net_version(nv).unwrap();
        let want: Vec<(u32, usize)> = table
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e[0].as_u64().unwrap() as u32,
                    e[1].as_u64().unwrap() as usize,
                )
            })
            .collect();
        assert_eq!(
            p.static_sizes().collect::<Vec<_>>(),
            want,
            "{}",
            path.display()
        );
        checked += 1;
    }
    eprintln!("size tables checked against {checked} golden summaries");
}

// ---------------------------------------------------------------------------
// In-place delta application against the copying one

/// Applies `delta` to `old` both ways, with `backend`, and checks that they
/// agree: result, error, warnings (after a warning already in the sink),
/// items, lookups and the incremental checksum. `spare` starts with
/// whatever the caller left in it. Returns the copying way's result.
fn check_in_place(
    backend: Backend,
    old: &Snapshot,
    delta: &[i32],
    p: Protocol,
    spare: &mut Snapshot,
) -> Result<Snapshot, Error> {
    let earlier = Warning {
        kind: WarningKind::TrailingData,
        offset: 12345,
    };
    let mut want = Snapshot::new();
    let mut want_w = vec![earlier];
    let want_r = SnapshotKernels::new(backend).apply_delta(old, delta, p, &mut want, &mut want_w);
    let mut got = old.clone();
    let mut got_w = vec![earlier];
    let kernels = SnapshotKernels::new(backend);
    let mut applier = DeltaApplier::with_spare(kernels, std::mem::replace(spare, Snapshot::new()));
    let got_r = applier.apply_in_place(&mut got, delta, p, &mut got_w, old.checksum());
    *spare = applier.into_spare();
    assert_eq!(got_w, want_w, "warnings, delta {delta:?}");
    match (got_r, want_r) {
        (Ok(sum), Ok(())) => {
            assert_eq!(got, want, "delta {delta:?}");
            assert_eq!(
                sum,
                SnapshotKernels::new(Backend::Oracle).checksum(want.data()),
                "delta {delta:?}"
            );
            for (i, (k, d)) in want.iter().enumerate() {
                assert_eq!(got.index_of(k), Some(i));
                assert_eq!(got.get(k), Some(d));
            }
            for &k in old.keys() {
                if want.get(k).is_none() {
                    assert_eq!(got.get(k), None);
                }
            }
            Ok(want)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "delta {delta:?}");
            Err(b)
        }
        (a, b) => panic!("in place {a:?} vs copying {b:?}, delta {delta:?}"),
    }
}

/// The draws of deltas built step by step, from the crate's seeded stream.
struct Draws(Rng);

impl Draws {
    fn new(seed: u64) -> Self {
        Draws(Rng::new(seed))
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0.modulo(n)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.0.chance(percent, 100)
    }
    fn int(&mut self) -> i32 {
        match self.below(4) {
            0 => self.0.next_u64() as u32 as i32,
            1 => i32::MAX - self.below(3) as i32,
            _ => self.below(9) as i32 - 4,
        }
    }
}

/// A delta against `old` exercising every path of the appliers: removals
/// (none, a suffix, anywhere; missing and repeated keys), updates of kept
/// items (some twice, some of the wrong size), updates of removed items,
/// new items (some repeated, some resized), non-zero padding, trailing ints,
/// garbled or cut ints.
fn random_delta(old: &Snapshot, p: Protocol, rng: &mut Draws) -> Vec<i32> {
    let n = old.len();
    let keys = old.keys();
    let mut removed: Vec<u32> = Vec::new();
    match rng.below(4) {
        0 => {}
        1 => {
            // A suffix, in any order.
            let r = rng.below(n as u64 + 1) as usize;
            removed.extend_from_slice(&keys[n - r..]);
            if rng.chance(50) {
                removed.reverse();
            }
        }
        _ => {
            for &k in keys {
                if rng.chance(20) {
                    removed.push(k);
                }
            }
        }
    }
    if !removed.is_empty() && rng.chance(20) {
        let k = removed[rng.below(removed.len() as u64) as usize];
        removed.push(k);
    }
    if rng.chance(20) {
        removed.push(key(3, 1000 + rng.below(3) as u16)); // missing
    }
    let mut out = vec![removed.len() as i32, 0, 0];
    if rng.chance(5) {
        out[2] = 1;
    }
    out.extend(removed.iter().map(|&k| k as i32));
    let mut num_items = 0;
    let mut push_item = |out: &mut Vec<i32>, rng: &mut Draws, k: u32, size: usize| {
        let t = item_type(k);
        let mut size = size;
        out.push(t as i32);
        out.push(item_id(k) as i32);
        if p.static_size(t as u32).is_none() {
            if rng.chance(3) {
                size += 1;
            } else if size > 0 && rng.chance(3) {
                size -= 1;
            }
            out.push(size as i32);
        }
        for _ in 0..size {
            let v = rng.int();
            out.push(v);
        }
        num_items += 1;
    };
    // Updates in old order (as DDNet sends them), sometimes shuffled.
    let mut updates: Vec<(u32, usize)> = old
        .iter()
        .filter(|_| rng.chance(40))
        .map(|(k, d)| (k, d.len()))
        .collect();
    if !updates.is_empty() && rng.chance(15) {
        let u = updates[rng.below(updates.len() as u64) as usize];
        updates.push(u);
    }
    if rng.chance(15) {
        updates.reverse();
    }
    // New items, some twice.
    let types = [2u16, 5, 9, 0x7ff0, 0x7fff];
    let mut new_items = Vec::new();
    for _ in 0..rng.below(6) {
        let t = types[rng.below(types.len() as u64) as usize];
        let k = key(t, 40 + rng.below(8) as u16);
        new_items.push((k, p.static_size(t as u32).unwrap_or(rng.below(5) as usize)));
    }
    if !new_items.is_empty() && rng.chance(20) {
        let u = new_items[rng.below(new_items.len() as u64) as usize];
        new_items.push(u);
    }
    for (k, size) in updates.into_iter().chain(new_items) {
        push_item(&mut out, rng, k, size);
    }
    out[1] = num_items;
    if rng.chance(5) {
        out.push(7);
    }
    if rng.chance(10) {
        let i = rng.below(out.len() as u64) as usize;
        out[i] = out[i].wrapping_add(rng.below(3) as i32 - 1);
    }
    if rng.chance(10) {
        out.truncate(rng.below(out.len() as u64 + 1) as usize);
    }
    out
}

proptest! {
    #[test]
    fn in_place_matches_copying_on_random_deltas(
        p in protocol_strategy(),
        old in protocol_strategy().prop_flat_map(|p| snapshot_strategy(p, 60)),
        seed in any::<u64>(),
        b in 0usize..3,
    ) {
        let mut rng = Draws::new(seed);
        let mut spare = Snapshot::new();
        for _ in 0..8 {
            let delta = random_delta(&old, p, &mut rng);
            check_in_place(Backend::ALL[b], &old, &delta, p, &mut spare).ok();
        }
    }

    #[test]
    fn in_place_matches_copying_on_random_ints(
        p in protocol_strategy(),
        old in snapshot_strategy(Protocol::V06, 20),
        ints in delta_ints_strategy(),
    ) {
        let mut spare = old.clone();
        for b in Backend::ALL {
            check_in_place(b, &old, &ints, p, &mut spare).ok();
        }
    }

    #[test]
    fn in_place_matches_copying_on_created_deltas(
        (p, old, new) in pair_strategy(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), -3i32..3), 0..3),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut delta = Vec::new();
        create_delta(&old, &new, p, &mut delta).unwrap();
        let got = check_in_place(Backend::Simd, &old, &delta, p, &mut Snapshot::new());
        prop_assert_eq!(got.unwrap(), new);
        for (at, v) in edits {
            let i = at.index(delta.len());
            delta[i] = delta[i].wrapping_add(v);
        }
        let n = cut.index(delta.len() + 1);
        for ints in [&delta[..], &delta[..n]] {
            check_in_place(Backend::Simd, &old, ints, p, &mut Snapshot::new()).ok();
        }
    }

    #[test]
    fn in_place_chains(seed in any::<u64>(), p in protocol_strategy()) {
        // Many deltas through one snapshot applied in place (the stamps,
        // generations and key index carry over), with the copying applier
        // alongside; after an error both restart from the last good one.
        let mut rng = Draws::new(seed);
        let mut truth = Snapshot::new();
        let mut cur = Snapshot::new();
        let kernels = SnapshotKernels::new(Backend::Simd);
        let mut applier = DeltaApplier::with_kernels(kernels);
        let mut sum = 0;
        let mut next = Snapshot::new();
        for _tick in 0..80 {
            let delta = random_delta(&truth, p, &mut rng);
            let mut w = Vec::new();
            let r = kernels.apply_delta(&truth, &delta, p, &mut next, &mut w);
            let mut got_w = Vec::new();
            let got = applier.apply_in_place(&mut cur, &delta, p, &mut got_w, sum);
            prop_assert_eq!(&got_w, &w);
            match (got, r) {
                (Ok(s), Ok(())) => {
                    prop_assert_eq!(&cur, &next);
                    prop_assert_eq!(s, next.checksum());
                    for (i, (k, d)) in next.iter().enumerate() {
                        prop_assert_eq!(cur.index_of(k), Some(i));
                        prop_assert_eq!(cur.get(k), Some(d));
                    }
                    sum = s;
                    std::mem::swap(&mut truth, &mut next);
                }
                (Err(a), Err(b)) => {
                    prop_assert_eq!(a, b);
                    cur.clone_from(&truth);
                }
                (a, b) => prop_assert!(false, "in place {:?} vs copying {:?}", a, b),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn in_place_near_limits(
        p in protocol_strategy(),
        n in 1018usize..=1024,
        big in any::<bool>(),
        seed in any::<u64>(),
    ) {
        // Near 1024 items, or near 64 KiB: new items hit TooManyItems or
        // TooLarge, removals make room.
        // Projectiles (type 2) have a pre-agreed size in both protocols, so
        // the deltas do not resize them.
        let size = p.static_size(2).unwrap();
        let mut old = Snapshot::new();
        if big {
            // One big item first, then 7 projectiles, 24 ints of room left.
            let used = 8 + 8 * 8 + 4 * 7 * size;
            let fill = (MAX_SIZE - used) / 4 - 24;
            old.push(key(0x7ff0, 0), &vec![1; fill]).unwrap();
            for id in 1..8 {
                old.push(key(2, id), &vec![id as i32; size]).unwrap();
            }
            assert_eq!(old.total_size_bytes(), MAX_SIZE - 4 * 24);
        } else {
            for id in 0..n {
                old.push(key(2, id as u16), &vec![id as i32; size]).unwrap();
            }
        }
        let mut rng = Draws::new(seed);
        let mut spare = Snapshot::new();
        for _ in 0..4 {
            let delta = random_delta(&old, p, &mut rng);
            check_in_place(Backend::Simd, &old, &delta, p, &mut spare).ok();
        }
    }
}

#[test]
fn in_place_literals() {
    let old = base();
    let run = |delta: &[i32]| check_in_place(Backend::Simd, &old, delta, P6, &mut Snapshot::new());
    let e = |kind, offset| Err(Error { kind, offset });
    // Nothing removed: updates and a new item.
    let got = run(&[0, 2, 0, 7, 0, 1, 1, 1, 1, 6, 1, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    assert_eq!(got.get(key(7, 0)), Some(&[2, 3, 4, 5][..]));
    // The last item removed (a suffix), the first updated, one added.
    let got = run(&[
        1,
        2,
        0,
        key(0x7fff, 3) as i32,
        5,
        0,
        1,
        1,
        1,
        0x7fff,
        4,
        1,
        9,
    ])
    .unwrap();
    assert_eq!(got.keys(), [key(5, 0), key(7, 0), key(0x7fff, 4)]);
    // The middle removed: the last item moves down.
    let got = run(&[1, 0, 0, key(7, 0) as i32]).unwrap();
    assert_eq!(got.keys(), [key(5, 0), key(0x7fff, 3)]);
    // The suffix removed and updated: appended as old + diff, twice (the
    // second warned as a repeat and computed from the old item again).
    let got = run(&[
        2,
        2,
        0,
        key(0x7fff, 3) as i32,
        key(7, 0) as i32,
        7,
        0,
        1,
        1,
        1,
        1,
        7,
        0,
        2,
        2,
        2,
        2,
    ])
    .unwrap();
    assert_eq!(got.keys(), [key(5, 0), key(7, 0)]);
    assert_eq!(got.get(key(7, 0)), Some(&[3, 4, 5, 6][..]));
    // The suffix removed and updated with the wrong size.
    assert_eq!(
        run(&[1, 1, 0, key(0x7fff, 3) as i32, 0x7fff, 3, 3, 1, 1, 1]),
        e(ErrorKind::SizeMismatch, 4)
    );
    // A kept item updated twice: old + the last diff.
    let got = run(&[0, 2, 0, 5, 0, 1, 1, 1, 5, 0, 5, 5, 5]).unwrap();
    assert_eq!(got.get(key(5, 0)), Some(&[15, 25, 6][..]));
    // A new item twice, the second of another size.
    assert_eq!(
        run(&[0, 2, 0, 0x7ff0, 1, 1, 5, 0x7ff0, 1, 2, 5, 5]),
        e(ErrorKind::SizeMismatch, 7)
    );
    // Removed twice, and a missing key.
    let got = run(&[
        3,
        0,
        0,
        key(0x7fff, 3) as i32,
        key(9, 9) as i32,
        key(0x7fff, 3) as i32,
    ])
    .unwrap();
    assert_eq!(got.len(), 2);
}

#[test]
fn in_place_limits() {
    // 1024 items: adding one fails, replacing the last one works; the same
    // at the 64 KiB limit.
    let mut old = Snapshot::new();
    for i in 0..1024u32 {
        old.push(key(0x7000, i as u16), &[i as i32]).unwrap();
    }
    let mut spare = Snapshot::new();
    let add = [0, 1, 0, 0x7000, 2000, 1, 5];
    let r = check_in_place(Backend::Simd, &old, &add, P6, &mut spare);
    assert_eq!(r.unwrap_err().kind, ErrorKind::TooManyItems);
    let last = key(0x7000, 1023) as i32;
    // Removed and updated: appended again as old + diff.
    let replace = [1, 1, 0, last, 0x7000, 1023, 1, 1];
    let got = check_in_place(Backend::Simd, &old, &replace, P6, &mut spare).unwrap();
    assert_eq!(got.len(), 1024);
    assert_eq!(got.get(key(0x7000, 1023)), Some(&[1023 + 1][..]));
    // A new item takes the freed place first.
    let d = [1, 2, 0, last, 0x7000, 2000, 1, 5, 0x7000, 1023, 1, 1];
    assert_eq!(
        check_in_place(Backend::Simd, &old, &d, P6, &mut spare),
        Err(Error {
            kind: ErrorKind::TooManyItems,
            offset: 8
        })
    );
    let d = [1, 1, 0, last, 0x7000, 2000, 1, 5, 1, 9];
    let got = check_in_place(Backend::Simd, &old, &d, P6, &mut spare).unwrap();
    assert_eq!(got.len(), 1024);
    let max_data = (MAX_SIZE - 16) / 4;
    let mut big = Snapshot::new();
    big.push(1, &vec![3; max_data - 10]).unwrap();
    big.push(2, &[4; 2]).unwrap();
    // 64 KiB - 24 bytes; without item 2, 40 bytes are left: room for the
    // key, the offset and 8 ints.
    assert_eq!(big.total_size_bytes(), MAX_SIZE - 24);
    for (size, ok) in [(8, true), (9, false)] {
        let mut d = vec![1, 1, 0, 2, 0x7fff, 0, size];
        d.extend(std::iter::repeat_n(1, size as usize));
        let r = check_in_place(Backend::Simd, &big, &d, P6, &mut spare);
        assert_eq!(
            r.as_ref().err(),
            (!ok).then_some(&Error {
                kind: ErrorKind::TooLarge,
                offset: 4
            })
        );
    }
}

/// Every delta of every real demo, in sequence: the snapshot applied in
/// place equals the copying one after each delta, and every checksum equals
/// the golden `snapshots.tsv`.
#[test]
fn in_place_on_real_demos() {
    use teebatch::codec::huffman;
    use teebatch::codec::kernels::Kernels;
    use teebatch::demo::{ChunkKind, Demo};
    let Some(root) = crate::common::datasets() else {
        return;
    };
    let mut bytes = vec![0u8; 1 << 16];
    let mut ints = vec![0i32; 1 << 16];
    let (mut deltas, mut fulls) = (0, 0);
    let [mut kept_all, mut suffix, mut other] = [0; 3];
    for b in Backend::ALL {
        for path in crate::common::files_with_ext(&root.join("demos"), "demo") {
            let file = std::fs::read(&path).unwrap();
            let demo = Demo::parse(&file).unwrap();
            let p = Protocol::from_net_version(std::str::from_utf8(demo.net_version()).unwrap())
                .unwrap();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            let golden_path = root.join("golden").join(format!("{stem}.snapshots.tsv"));
            let golden = std::fs::read_to_string(golden_path).unwrap();
            let mut golden = golden.lines();
            let (mut copy, mut copy_next) = (Snapshot::new(), Snapshot::new());
            let (mut cur, mut applier) = (Snapshot::new(), DeltaApplier::new(b));
            let mut sum = 0;
            let (mut w, mut got_w) = (Vec::new(), Vec::new());
            for chunk in demo.chunks() {
                let chunk = chunk.unwrap();
                let (payload, is_delta) = match chunk.kind {
                    ChunkKind::Snapshot(d) => (d, false),
                    ChunkKind::Delta(d) => (d, true),
                    _ => continue,
                };
                let n = if payload.is_empty() {
                    0
                } else {
                    let m =
                        huffman::decompress_on(huffman::Tier::for_backend(b), payload, &mut bytes)
                            .unwrap();
                    Kernels::new(b)
                        .unpack(&bytes[..m], &mut ints, &mut Vec::new())
                        .unwrap()
                };
                let ints = &ints[..n];
                if is_delta {
                    SnapshotKernels::new(b)
                        .apply_delta(&copy, ints, p, &mut copy_next, &mut w)
                        .unwrap();
                    std::mem::swap(&mut copy, &mut copy_next);
                    sum = applier
                        .apply_in_place(&mut cur, ints, p, &mut got_w, sum)
                        .unwrap();
                    assert_eq!(cur, copy, "{stem} {b}");
                    assert_eq!(got_w, w);
                    if b == Backend::Simd {
                        deltas += 1;
                        let d = Delta::parse(ints, p).unwrap();
                        let gone: Vec<usize> = d
                            .removed_keys()
                            .iter()
                            .filter_map(|&k| copy_next.index_of(k as u32))
                            .collect();
                        let first = gone.iter().min().copied().unwrap_or(copy_next.len());
                        match gone.len() {
                            0 => kept_all += 1,
                            r if first + r == copy_next.len() => suffix += 1,
                            _ => other += 1,
                        }
                    }
                } else {
                    copy.parse_into(ints).unwrap();
                    cur.parse_into(ints).unwrap();
                    sum = SnapshotKernels::new(b).checksum(cur.data());
                    if b == Backend::Simd {
                        fulls += 1;
                    }
                }
                let line = golden.next().expect("golden line");
                let fields: Vec<&str> = line.split('\t').collect();
                assert_eq!(
                    fields[1].parse::<usize>().unwrap(),
                    cur.len(),
                    "{stem} {line}"
                );
                assert_eq!(fields[2].parse::<i32>().unwrap(), sum, "{stem} {line}");
            }
            assert_eq!(golden.next(), None, "{stem}");
        }
    }
    eprintln!(
        "{fulls} snapshots, {deltas} deltas ({kept_all} removing nothing, {suffix} a suffix, {other} others) match golden and the copying applier"
    );
    assert!(deltas > 0 && fulls > 0);
}
