//! Snapshot kernels: checksum and wrapping add per tier over generated item
//! data, and delta apply + checksum end to end over a generated game: 64
//! players whose characters move every tick, projectiles that come and go.
//! libtw2's snapshot crate runs the same stream side by side.
//!
//! Throughput is bytes of item data (4 × data ints, keys excluded) of the
//! snapshots produced (apply) or read (checksum), except for
//! `snapshot/real_deltas`: every snapshot and delta chunk of the real demos
//! in sequence, copying + full checksum vs in place with the incremental
//! checksum, in bytes of delta ints (4 per int).

use criterion::{black_box, BenchmarkId, Criterion, Throughput};
use libtw2_snapshot::snap::{Delta as TwDelta, RawBuilder, RawSnap};
use teebatch::backend::Backend;
use teebatch::bench::payloads::unpacked_snapshot_chunks;
use teebatch::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints};
use teebatch::codec::snapshot::*;
use teebatch::demo::Demo;
use teebatch::synth::Rng;

const PLAYERS: u16 = 64;
const TICKS: usize = 250;

/// The snapshots of a generated 0.6/DDNet game, one per tick, each in the
/// order applying a delta to the previous one produces.
fn game() -> Vec<Snapshot> {
    let mut rng = Rng::new(0x5eed_1234_abcd_ef01);
    let mut cur = Snapshot::new();
    let decl = |name: &str| uuid_to_ints(&uuid_from_name(name));
    cur.push(item_key(0, 0x7fff), &decl("character@netobj.ddnet.tw"))
        .unwrap();
    cur.push(item_key(0, 0x7ffe), &decl("player@netobj.ddnet.tw"))
        .unwrap();
    cur.push(item_key(0, 0x7ffd), &decl("gameinfo@netobj.ddnet.tw"))
        .unwrap();
    cur.push(item_key(v06::GAME_INFO, 0), &[0, 0, 0, 0, 0, 0, 1, 1])
        .unwrap();
    cur.push(item_key(0x7ffd, 0), &[0x1ff, 8, 9]).unwrap();
    for p in 0..PLAYERS {
        let base = p as i32 * 100;
        cur.push(item_key(v06::CLIENT_INFO, p), &[base; 17])
            .unwrap();
        cur.push(item_key(v06::PLAYER_INFO, p), &[1, p as i32, 0, 0, 40])
            .unwrap();
        let mut ch = [0i32; 22];
        for (i, v) in ch.iter_mut().enumerate() {
            *v = base + i as i32;
        }
        cur.push(item_key(v06::CHARACTER, p), &ch).unwrap();
        cur.push(item_key(0x7fff, p), &[0, 0, 0, -1, -1, 0, 0, 0, 0, 0])
            .unwrap();
        cur.push(item_key(0x7ffe, p), &[0, 0]).unwrap();
    }
    let mut snaps = vec![cur.clone()];
    let mut next_proj = 0u16;
    for tick in 1..TICKS as i32 {
        let mut next = Snapshot::new();
        for (key, data) in cur.iter() {
            let t = item_type(key);
            // Projectiles live 20 ticks.
            if t == 2 && tick - data[5] > 20 {
                continue;
            }
            let mut d = data.to_vec();
            match t {
                9 => {
                    d[0] = tick; // core tick
                    d[1] += rng.range(-8, 8); // x
                    d[2] += rng.range(-8, 8); // y
                    d[3] = rng.range(-500, 500); // vel x
                    d[4] = rng.range(-500, 500); // vel y
                    d[5] = rng.range(-1000, 1000); // angle
                    if rng.next_u64().is_multiple_of(8) {
                        d[9] = rng.range(-3, 3); // hook state
                    }
                }
                10 if rng.next_u64().is_multiple_of(50) => d[4] = 20 + rng.range(-20, 20), // latency
                0x7fff if rng.next_u64().is_multiple_of(10) => d[0] ^= 1,                  // flags
                6 | 0x7ffd => {}
                _ => {}
            }
            next.push(key, &d).unwrap();
        }
        for _ in 0..2 {
            let id = next_proj;
            next_proj = next_proj.wrapping_add(1);
            let d = [
                rng.range(-5000, 5000),
                rng.range(-5000, 5000),
                rng.range(-100, 100),
                rng.range(-100, 100),
                1,
                tick,
            ];
            next.push(item_key(v06::PROJECTILE, id), &d).unwrap();
        }
        snaps.push(next.clone());
        cur = next;
    }
    snaps
}

/// Delta ints from each snapshot to the next.
fn deltas(snaps: &[Snapshot]) -> Vec<Vec<i32>> {
    snaps
        .windows(2)
        .map(|w| {
            let mut d = Vec::new();
            create_delta(&w[0], &w[1], Protocol::V06, &mut d).unwrap();
            d
        })
        .collect()
}

/// Like `create_delta`, but every kept item is written, zero diff or not
/// (what libtw2's `Delta::create_raw` produces).
fn full_delta(old: &Snapshot, new: &Snapshot) -> Vec<i32> {
    let p = Protocol::V06;
    let mut out = vec![0, new.len() as i32, 0];
    for &k in old.keys() {
        if new.get(k).is_none() {
            out.push(k as i32);
            out[0] += 1;
        }
    }
    for (key, data) in new.iter() {
        out.push(item_type(key) as i32);
        out.push(item_id(key) as i32);
        if p.static_size(item_type(key) as u32).is_none() {
            out.push(data.len() as i32);
        }
        match old.get(key) {
            Some(o) => out.extend(data.iter().zip(o).map(|(n, o)| n.wrapping_sub(*o))),
            None => out.extend_from_slice(data),
        }
    }
    out
}

fn to_libtw2(s: &Snapshot) -> RawSnap {
    let mut b = RawBuilder::new();
    for (key, data) in s.iter() {
        b.add_item(item_type(key), item_id(key), data).unwrap();
    }
    b.finish()
}

fn random_ints(n: usize, seed: u64) -> Vec<i32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u64() as i32).collect()
}

/// Applies every delta in turn (ping-pong between two reused snapshots),
/// returning the sum of checksums so nothing is optimised away.
fn run_stream(
    backend: Backend,
    first: &Snapshot,
    deltas: &[Vec<i32>],
    a: &mut Snapshot,
    b: &mut Snapshot,
) -> i32 {
    let mut w = Vec::new();
    let mut sum = 0i32;
    let k = SnapshotKernels::new(backend);
    a.clone_from(first);
    for d in deltas {
        k.apply_delta(a, d, Protocol::V06, b, &mut w).unwrap();
        sum = sum.wrapping_add(k.checksum(b.data()));
        std::mem::swap(a, b);
    }
    sum
}

/// [`run_stream`] in place: one snapshot, the checksum carried along.
fn run_stream_in_place(
    backend: Backend,
    first: &Snapshot,
    deltas: &[Vec<i32>],
    a: &mut Snapshot,
    b: &mut Snapshot,
) -> i32 {
    let mut w = Vec::new();
    let mut sum = 0i32;
    // `b` is the spare snapshot, lent to the applier.
    let k = SnapshotKernels::new(backend);
    let mut applier = DeltaApplier::with_spare(k, std::mem::replace(b, Snapshot::new()));
    a.clone_from(first);
    let mut checksum = k.checksum(a.data());
    for d in deltas {
        checksum = applier
            .apply_in_place(a, d, Protocol::V06, &mut w, checksum)
            .unwrap();
        sum = sum.wrapping_add(checksum);
    }
    *b = applier.into_spare();
    sum
}

/// One demo's snapshot chunks, unpacked: (is a delta, ints) in file order.
struct RealStream {
    protocol: Protocol,
    chunks: Vec<(bool, Vec<i32>)>,
}

/// The snapshot and delta chunks of every real demo that parses
/// ([`unpacked_snapshot_chunks`], as `teebatch bench` uses them); `None`
/// without the datasets.
fn real_streams() -> Option<Vec<RealStream>> {
    let dir = crate::common::datasets_dir()?.join("demos");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "demo"))
        .collect();
    paths.sort();
    let mut streams = Vec::new();
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(demo) = Demo::parse(&bytes) else {
            continue;
        };
        streams.push(RealStream {
            protocol: demo.decode_protocol(),
            chunks: unpacked_snapshot_chunks(&demo),
        });
    }
    Some(streams)
}

/// Every real snapshot and delta in sequence, copying: the sum of all
/// checksums.
fn real_copy(backend: Backend, streams: &[RealStream], a: &mut Snapshot, b: &mut Snapshot) -> i32 {
    let mut w = Vec::new();
    let mut sum = 0i32;
    // `b` is the spare snapshot, lent to the applier.
    let k = SnapshotKernels::new(backend);
    let mut applier = DeltaApplier::with_spare(k, std::mem::replace(b, Snapshot::new()));
    for s in streams {
        for (is_delta, ints) in &s.chunks {
            let checksum = if *is_delta {
                applier.apply_by_copy(a, ints, s.protocol, &mut w).unwrap()
            } else {
                a.parse_into(ints).unwrap();
                k.checksum(a.data())
            };
            sum = sum.wrapping_add(checksum);
        }
    }
    *b = applier.into_spare();
    sum
}

/// [`real_copy`] in place.
fn real_in_place(
    backend: Backend,
    streams: &[RealStream],
    a: &mut Snapshot,
    b: &mut Snapshot,
) -> i32 {
    let mut w = Vec::new();
    let mut sum = 0i32;
    // `b` is the spare snapshot, lent to the applier.
    let k = SnapshotKernels::new(backend);
    let mut applier = DeltaApplier::with_spare(k, std::mem::replace(b, Snapshot::new()));
    for s in streams {
        let mut checksum = 0;
        for (is_delta, ints) in &s.chunks {
            checksum = if *is_delta {
                applier
                    .apply_in_place(a, ints, s.protocol, &mut w, checksum)
                    .unwrap()
            } else {
                a.parse_into(ints).unwrap();
                k.checksum(a.data())
            };
            sum = sum.wrapping_add(checksum);
        }
    }
    *b = applier.into_spare();
    sum
}

pub fn bench(c: &mut Criterion) {
    // Kernels on a snapshot-sized buffer (64 KiB: the largest snapshot) and
    // on 1 MiB.
    let mut g = c.benchmark_group("snapshot/checksum");
    for ints in [16 * 1024, 256 * 1024] {
        let v = random_ints(ints, 7);
        g.throughput(Throughput::Bytes(4 * ints as u64));
        for b in Backend::ALL {
            let k = SnapshotKernels::new(b);
            g.bench_with_input(BenchmarkId::new(b.name(), 4 * ints), &v, |bn, v| {
                bn.iter(|| k.checksum(black_box(v)))
            });
        }
        for k in teebatch::codec::snapshot::checksum::Kernel::ALL {
            if !k.available() {
                continue;
            }
            let id = BenchmarkId::new(format!("simd-{}", k.name()), 4 * ints);
            g.bench_with_input(id, &v, |bn, v| {
                bn.iter(|| teebatch::codec::snapshot::checksum::checksum_on(k, black_box(v)))
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("snapshot/wrapping_add");
    for ints in [16 * 1024, 256 * 1024] {
        let old = random_ints(ints, 8);
        let diff = random_ints(ints, 9);
        let mut out = vec![0; ints];
        g.throughput(Throughput::Bytes(4 * ints as u64));
        for b in Backend::ALL {
            let k = SnapshotKernels::new(b);
            g.bench_function(BenchmarkId::new(b.name(), 4 * ints), |bn| {
                bn.iter(|| {
                    k.wrapping_add(black_box(&old), black_box(&diff), &mut out);
                    black_box(&out);
                })
            });
        }
    }
    g.finish();

    // `data += diff` on character-sized items (22 ints, most item deltas),
    // by kernel of the SIMD tier.
    let mut g = c.benchmark_group("snapshot/wrapping_add_assign_22");
    let items = 4096;
    let diff = random_ints(22 * items, 10);
    let mut data = random_ints(22 * items, 11);
    g.throughput(Throughput::Bytes(4 * 22 * items as u64));
    for k in teebatch::codec::snapshot::AddKernel::ALL {
        if !k.available() {
            continue;
        }
        g.bench_function(BenchmarkId::new(format!("simd-{}", k.name()), 22), |bn| {
            bn.iter(|| {
                let mut s = 0i32;
                for (d, w) in data.chunks_exact_mut(22).zip(diff.chunks_exact(22)) {
                    s = s.wrapping_add(teebatch::codec::snapshot::wrapping_add_assign_on(
                        k,
                        black_box(d),
                        black_box(w),
                    ));
                }
                black_box(s)
            })
        });
    }
    g.finish();

    // End to end: 249 deltas of a 64-player game.
    let snaps = game();
    let ds = deltas(&snaps);
    let produced: u64 = snaps[1..].iter().map(|s| 4 * s.data().len() as u64).sum();
    let mut a = Snapshot::new();
    let mut b = Snapshot::new();
    // Check once that the stream reproduces the game.
    run_stream(Backend::Simd, &snaps[0], &ds, &mut a, &mut b);
    assert_eq!(&a, snaps.last().unwrap());

    let mut g = c.benchmark_group("snapshot/apply_checksum");
    g.throughput(Throughput::Bytes(produced));
    for be in Backend::ALL {
        g.bench_function(BenchmarkId::new("delta", be.name()), |bn| {
            bn.iter(|| run_stream(be, &snaps[0], black_box(&ds), &mut a, &mut b))
        });
    }
    // In place, checked once against the copying stream.
    assert_eq!(
        run_stream_in_place(Backend::Simd, &snaps[0], &ds, &mut a, &mut b),
        run_stream(
            Backend::Simd,
            &snaps[0],
            &ds,
            &mut Snapshot::new(),
            &mut Snapshot::new()
        )
    );
    assert_eq!(&a, snaps.last().unwrap());
    for be in [Backend::Scalar, Backend::Simd] {
        g.bench_function(BenchmarkId::new("delta_in_place", be.name()), |bn| {
            bn.iter(|| run_stream_in_place(be, &snaps[0], black_box(&ds), &mut a, &mut b))
        });
    }

    // Side by side with libtw2 on deltas listing every item (its
    // `create_raw` writes zero diffs too). libtw2 gets its deltas already
    // parsed into its `Delta` (its int reader needs the packer crate);
    // ours are parsed from ints inside the timed loop.
    let full: Vec<Vec<i32>> = snaps.windows(2).map(|w| full_delta(&w[0], &w[1])).collect();
    g.bench_function(BenchmarkId::new("full_delta", "teebatch-simd"), |bn| {
        bn.iter(|| run_stream(Backend::Simd, &snaps[0], black_box(&full), &mut a, &mut b))
    });
    let tw: Vec<RawSnap> = snaps.iter().map(to_libtw2).collect();
    let tw_deltas: Vec<TwDelta> = tw
        .windows(2)
        .map(|w| {
            let mut d = TwDelta::new();
            d.create_raw(&w[0], &w[1]);
            d
        })
        .collect();
    // Check once that libtw2 reproduces the game too.
    {
        let (mut a, mut b, mut w) = (tw[0].clone(), RawSnap::empty(), Vec::new());
        for d in &tw_deltas {
            b.read_with_delta(&mut w, &a, d).unwrap();
            std::mem::swap(&mut a, &mut b);
        }
        assert_eq!(a.crc(), snaps.last().unwrap().checksum());
        assert_eq!(a.items().count(), snaps.last().unwrap().len());
    }
    g.bench_function(BenchmarkId::new("full_delta", "libtw2"), |bn| {
        let mut a = RawSnap::empty();
        let mut b = RawSnap::empty();
        let mut w = Vec::new();
        bn.iter(|| {
            a.clone_from(&tw[0]);
            let mut sum = 0i32;
            for d in &tw_deltas {
                b.read_with_delta(&mut w, &a, black_box(d)).unwrap();
                sum = sum.wrapping_add(b.crc());
                std::mem::swap(&mut a, &mut b);
            }
            sum
        })
    });
    g.finish();

    // Every real delta in sequence: copying + checksum vs in place.
    let Some(streams) = real_streams() else {
        eprintln!("SKIPPED snapshot/real_deltas: ../shared/datasets not found");
        return;
    };
    let delta_ints: u64 = streams
        .iter()
        .flat_map(|s| &s.chunks)
        .filter(|c| c.0)
        .map(|c| c.1.len() as u64)
        .sum();
    assert_eq!(
        real_in_place(Backend::Simd, &streams, &mut a, &mut b),
        real_copy(Backend::Simd, &streams, &mut a, &mut b)
    );
    let mut g = c.benchmark_group("snapshot/real_deltas");
    g.throughput(Throughput::Bytes(4 * delta_ints));
    for be in [Backend::Scalar, Backend::Simd] {
        g.bench_function(BenchmarkId::new("copy_checksum", be.name()), |bn| {
            bn.iter(|| real_copy(be, black_box(&streams), &mut a, &mut b))
        });
        g.bench_function(BenchmarkId::new("in_place", be.name()), |bn| {
            bn.iter(|| real_in_place(be, black_box(&streams), &mut a, &mut b))
        });
    }
    g.finish();
}
