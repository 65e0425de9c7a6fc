use super::*;
use crate::backend::Backend;
use proptest::prelude::*;

#[test]
fn skip_literals() {
    let mut out = Vec::new();
    // Tile 5 (flags 1) repeated 3 times, then tile 0 once.
    let packed = [5, 1, 2, 0, 0, 0, 0, 0];
    expand_tile_skip(&packed, 4, &mut out).unwrap();
    assert_eq!(out, [5, 1, 0, 0, 5, 1, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0]);
    assert_eq!(
        expand_tile_skip(&packed, 3, &mut out),
        Err(SkipError {
            kind: SkipErrorKind::Overrun,
            offset: 4
        })
    );
    assert_eq!(
        expand_tile_skip(&packed, 5, &mut out),
        Err(SkipError {
            kind: SkipErrorKind::Short,
            offset: 8
        })
    );
    assert_eq!(
        expand_tile_skip(&packed[..7], 4, &mut out)
            .unwrap_err()
            .kind,
        SkipErrorKind::Misaligned
    );
    // Skip 255 covers 256 tiles.
    expand_tile_skip(&[1, 0, 255, 0], 256, &mut out).unwrap();
    assert_eq!(out.len(), 1024);
    assert!(out.chunks(4).all(|t| t == [1, 0, 0, 0]));
    // A hostile tile count is refused before allocating.
    let e = expand_tile_skip(&[1, 0, 255, 0], 1 << 40, &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind, SkipErrorKind::Short);
    let h = histogram_skip(&packed, 4).unwrap();
    assert_eq!((h.counts[5], h.counts[0], h.total()), (3, 1, 4));
}

#[test]
fn kinds_from_flags() {
    assert_eq!(PhysicsKind::from_flags(0), (PhysicsKind::Tiles, false));
    assert_eq!(PhysicsKind::from_flags(1), (PhysicsKind::Game, false));
    assert_eq!(PhysicsKind::from_flags(8), (PhysicsKind::Front, false));
    assert_eq!(PhysicsKind::from_flags(32), (PhysicsKind::Tune, false));
    assert_eq!(PhysicsKind::from_flags(9), (PhysicsKind::Game, true));
    assert_eq!(PhysicsKind::from_flags(64), (PhysicsKind::Tiles, true));
}

#[test]
fn legacy_formats() {
    let f = PhysicsKind::Speedup.format_for_size(10, 40);
    assert_eq!(f, Some(TileFormat::LEGACY_SPEEDUP));
    assert_eq!(
        PhysicsKind::Speedup.format_for_size(10, 60),
        Some(PhysicsKind::Speedup.format())
    );
    assert_eq!(
        PhysicsKind::Switch.format_for_size(10, 20),
        Some(TileFormat::LEGACY_SWITCH)
    );
    assert_eq!(PhysicsKind::Game.format_for_size(10, 20), None);
    assert_eq!(PhysicsKind::Game.format_for_size(u64::MAX, 20), None);
    assert_eq!(
        upgrade_legacy(
            &[5, 28, 0x10, 0x00],
            PhysicsKind::Speedup,
            TileFormat::LEGACY_SPEEDUP
        ),
        vec![5, 0, 28, 0, 0x10, 0x00]
    );
    assert_eq!(
        upgrade_legacy(&[3, 24], PhysicsKind::Switch, TileFormat::LEGACY_SWITCH),
        vec![3, 24, 0, 0]
    );
    // Tele tiles share the legacy switch layout but stay as they are.
    let tele = PhysicsKind::Tele.format();
    assert_eq!(
        upgrade_legacy(&[3, 26], PhysicsKind::Tele, tele),
        vec![3, 26]
    );
}

#[test]
fn speedup_tile_bytes() {
    let t = SpeedupTile::from_bytes([10, 20, 28, 0, 0x5a, 0xff]);
    assert_eq!((t.force, t.max_speed, t.id, t.angle), (10, 20, 28, -166));
    assert_eq!(t.to_bytes(), [10, 20, 28, 0, 0x5a, 0xff]);
}

fn kind_strategy() -> impl Strategy<Value = TileFormat> {
    prop::sample::select(vec![
        PhysicsKind::Tiles.format(),
        PhysicsKind::Tele.format(),
        PhysicsKind::Speedup.format(),
        PhysicsKind::Switch.format(),
        TileFormat::LEGACY_SPEEDUP,
        TileFormat::LEGACY_SWITCH,
    ])
}

proptest! {
    #[test]
    fn histogram_matches_oracle(data in prop::collection::vec(prop_oneof![Just(0u8), any::<u8>()], 0..600), kind in kind_strategy()) {
        prop_assert_eq!(histogram(&data, kind), oracle::histogram(&data, kind));
        for k in Backend::ALL.map(TileKernels::new) {
            prop_assert_eq!(k.histogram(&data, kind), oracle::histogram(&data, kind));
        }
    }

    /// Layers as real ones are: long runs of empty tiles (id and
    /// padding zero, any flags) between a few others, so the 16-tile
    /// empty check sees both outcomes and every offset of a non-empty
    /// tile or padding byte.
    #[test]
    fn histogram_of_mostly_empty_layers_matches_oracle(
        len in 0usize..700,
        set in prop::collection::vec((0usize..700, any::<u8>()), 0..6),
        flags in any::<u8>(),
        kind in kind_strategy(),
    ) {
        let mut data: Vec<u8> = (0..len).map(|i| if i % 4 == 1 { flags } else { 0 }).collect();
        for (at, v) in set {
            if at < len {
                data[at] = v;
            }
        }
        prop_assert_eq!(histogram(&data, kind), oracle::histogram(&data, kind));
    }

    #[test]
    fn histogram_every_tail(kind in kind_strategy(), seed in any::<u8>()) {
        for len in 0..=64usize {
            let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(seed) & 0x7).collect();
            prop_assert_eq!(histogram(&data, kind), oracle::histogram(&data, kind));
        }
    }

    #[test]
    fn skip_every_tail(seed in any::<u8>(), delta in -2i64..2) {
        for len in 0..=64usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(seed) % 5).collect();
            let total: i64 = bytes.chunks_exact(4).map(|t| t[2] as i64 + 1).sum();
            let n = (total + delta).max(0) as usize;
            let mut out = Vec::new();
            let fast = expand_tile_skip(&bytes, n, &mut out).map(|_| out.clone());
            prop_assert_eq!(fast, oracle::expand_tile_skip(&bytes, n), "len {}", len);
        }
    }

    #[test]
    fn skip_matches_oracle(packed in prop::collection::vec((0u8..4, any::<u8>(), prop_oneof![Just(0u8), 0u8..4, any::<u8>()], prop_oneof![Just(0u8), any::<u8>()]), 0..40), extra in 0usize..3, delta in -3i64..3) {
        let bytes: Vec<u8> = packed.iter().flat_map(|&(a, b, c, d)| [a, b, c, d]).collect();
        let bytes = &bytes[..bytes.len().saturating_sub(extra % 4)];
        let total: i64 = bytes.chunks_exact(4).map(|t| t[2] as i64 + 1).sum();
        let n = (total + delta).max(0) as usize;
        let mut out = Vec::new();
        let fast = expand_tile_skip(bytes, n, &mut out).map(|_| out.clone());
        let slow = oracle::expand_tile_skip(bytes, n);
        prop_assert_eq!(&fast, &slow);
        for k in Backend::ALL.map(TileKernels::new) {
            let mut o = Vec::new();
            let r = k.expand_tile_skip(bytes, n, &mut o).map(|_| o);
            prop_assert_eq!(&r, &slow);
        }
        let h = histogram_skip(bytes, n as u64);
        match (&slow, h) {
            (Ok(expanded), Ok(h)) => {
                let mut o = oracle::histogram(expanded, PhysicsKind::Game.format());
                // Skip bytes are reset by expansion; only reserved bytes count.
                o.padding_nonzero = expanded.chunks(4).any(|t| t[3] != 0);
                prop_assert_eq!(h, o);
            }
            (Err(e), Err(f)) => prop_assert_eq!(*e, f),
            (a, b) => prop_assert!(false, "{:?} vs {:?}", a, b),
        }
    }
}
