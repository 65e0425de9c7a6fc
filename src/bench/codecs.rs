//! `bench codecs`: the codec kernels per tier on real chunk payloads.

use super::*;

/// The data chunk payloads of demos: (Huffman-compressed, decompressed, ints).
struct Payloads {
    compressed: Vec<Vec<u8>>,
    decompressed: Vec<Vec<u8>>,
    ints: Vec<Vec<i32>>,
}

fn demo_payloads(files: &[(Input, Vec<u8>)]) -> Payloads {
    let mut p = Payloads {
        compressed: Vec::new(),
        decompressed: Vec::new(),
        ints: Vec::new(),
    };
    for (_, bytes) in files {
        let Ok(demo) = crate::demo::Demo::parse(bytes) else {
            continue;
        };
        for payload in super::payloads::decoded_payloads(&demo) {
            if let (Some(d), Some(i)) = (payload.decompressed, payload.ints) {
                p.compressed.push(payload.compressed.to_vec());
                p.decompressed.push(d);
                p.ints.push(i);
            }
        }
    }
    p
}

pub(super) fn bench_codecs(a: &Options, print: Print<'_>) -> io::Result<()> {
    use crate::codec::kernels::Kernels;
    use crate::codec::snapshot::{checksum, SnapshotKernels};
    use crate::codec::{huffman, varint};
    let r = Report::new("codecs", a, print);
    let files = load_all(&a.paths, "demo")?;
    let p = demo_payloads(&files);
    let min = a.sampling();
    let comp: u64 = p.compressed.iter().map(|c| c.len() as u64).sum();
    let decomp: u64 = p.decompressed.iter().map(|c| c.len() as u64).sum();
    let int_bytes: u64 = p.ints.iter().map(|c| 4 * c.len() as u64).sum();
    r.header(format!(
        "codecs: {} demos, {} chunk payloads: {:.2} MB Huffman-compressed, {:.2} MB decompressed, {:.2} MB of ints",
        files.len(),
        p.compressed.len(),
        comp as f64 / 1e6,
        decomp as f64 / 1e6,
        int_bytes as f64 / 1e6,
    ), files.len(), files.iter().map(|(_, b)| b.len() as u64).sum(), 1);
    out!(r, "{:<44} {:>8} {}", "kernel", "tier", rate_header("MB/s"));
    // `kernel` names the figure and its unit ("... (MB/s of output)").
    let row = |kernel: &str, tier: &str, unit: &'static str, bytes: u64, m: Measured| {
        let name = format!("{kernel} (MB/s of {unit})");
        out!(r, "{:<44} {:>8} {}", name, tier, rate_cells(bytes, &m));
        r.figure(figure(kernel, Some(tier), unit, bytes, &m));
    };
    let mut out = vec![0u8; 1 << 16];
    let mut ints = vec![0i32; 1 << 16];
    let mut warnings = Vec::new();
    let huffman_tiers: Vec<huffman::Tier> = huffman::Tier::ALL
        .into_iter()
        .filter(|t| t.available())
        .collect();
    for &tier in &huffman_tiers {
        let m = measure(min, || {
            for c in &p.compressed {
                std::hint::black_box(huffman::decompress_on(tier, c, &mut out).ok());
            }
        });
        row("huffman decode", tier.name(), "output", decomp, m);
    }
    // Batches of consecutive payloads, with the caps the demo decoder passes.
    let inputs: Vec<&[u8]> = p.compressed.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = inputs.iter().map(|c| huffman_room(c.len())).collect();
    for size in [2, 4, 8] {
        let arena_len = caps.chunks(size).map(|c| c.iter().sum()).max();
        let mut arena = vec![0u8; arena_len.unwrap_or(0)];
        let mut results = vec![Ok(0); size];
        for &tier in &huffman_tiers[1..] {
            let m = measure(min, || {
                for (inputs, caps) in inputs.chunks(size).zip(caps.chunks(size)) {
                    let results = &mut results[..inputs.len()];
                    huffman::decompress_batch_on(tier, inputs, caps, &mut arena, results);
                    std::hint::black_box(results);
                }
            });
            let name = format!("huffman decode, batch of {size}");
            row(&name, tier.name(), "output", decomp, m);
        }
    }
    for tier in [Backend::Oracle, Backend::Scalar] {
        let k = Kernels::new(tier);
        let m = measure(min, || {
            for d in &p.decompressed {
                warnings.clear();
                std::hint::black_box(k.unpack(d, &mut ints, &mut warnings).ok());
            }
        });
        row("varint unpack", tier.name(), "input", decomp, m);
    }
    for kernel in varint::simd::Kernel::ALL {
        if !kernel.available() {
            continue;
        }
        let m = measure(min, || {
            for d in &p.decompressed {
                warnings.clear();
                let r = varint::simd::unpack_on(kernel, d, &mut ints, &mut warnings);
                std::hint::black_box(r.ok());
            }
        });
        row("varint unpack, simd", kernel.name(), "input", decomp, m);
    }
    let mut packed = Vec::new();
    let m = measure(min, || {
        for i in &p.ints {
            packed.clear();
            varint::pack(i, &mut packed);
            std::hint::black_box(&packed);
        }
    });
    row("varint pack", "scalar", "output", decomp, m);
    let mut enc = Vec::new();
    let m = measure(min, || {
        for d in &p.decompressed {
            enc.clear();
            huffman::compress(d, &mut enc);
            std::hint::black_box(&enc);
        }
    });
    row("huffman encode", "scalar", "input", decomp, m);
    for tier in [Backend::Oracle, Backend::Scalar] {
        let k = SnapshotKernels::new(tier);
        let m = measure(min, || {
            for i in &p.ints {
                std::hint::black_box(k.checksum(i));
            }
        });
        row("snapshot checksum", tier.name(), "ints", int_bytes, m);
    }
    for kernel in checksum::Kernel::ALL {
        if !kernel.available() {
            continue;
        }
        let m = measure(min, || {
            for i in &p.ints {
                std::hint::black_box(checksum::checksum_on(kernel, i));
            }
        });
        row(
            "snapshot checksum, simd",
            kernel.name(),
            "ints",
            int_bytes,
            m,
        );
    }
    let mut sum = vec![0i32; 1 << 16];
    for tier in Backend::ALL {
        let k = SnapshotKernels::new(tier);
        let m = measure(min, || {
            for i in &p.ints {
                k.wrapping_add(i, i, &mut sum[..i.len()]);
                std::hint::black_box(&sum);
            }
        });
        row("wrapping add old+diff", tier.name(), "ints", int_bytes, m);
    }
    snapshot_delta_rows(&r, &files, min);
    r.finish()
}

/// One demo's snapshot chunks as ints, in file order: its protocol, and
/// (is a delta, ints) per chunk.
type DeltaStream = (crate::codec::snapshot::Protocol, Vec<(bool, Vec<i32>)>);

/// The snapshot and delta chunks of every demo that parses, unpacked
/// ([`super::payloads::unpacked_snapshot_chunks`]).
fn delta_streams(files: &[(Input, Vec<u8>)]) -> Vec<DeltaStream> {
    files
        .iter()
        .filter_map(|(_, bytes)| crate::demo::Demo::parse(bytes).ok())
        .map(|demo| {
            let chunks = super::payloads::unpacked_snapshot_chunks(&demo);
            (demo.decode_protocol(), chunks)
        })
        .collect()
}

/// Every snapshot delta of `files` applied in sequence, with the checksum of
/// every snapshot: into a second snapshot then summed in full (what the
/// stream did), and in place with the incremental checksum. MB/s of delta
/// ints and ns per delta; full snapshots are parsed in both.
fn snapshot_delta_rows(r: &Report, files: &[(Input, Vec<u8>)], min: Sampling) {
    use crate::codec::snapshot::{DeltaApplier, Snapshot};
    let streams = delta_streams(files);
    let deltas = streams.iter().flat_map(|(_, c)| c).filter(|c| c.0);
    let (count, ints) = deltas.fold((0u64, 0u64), |(n, i), c| (n + 1, i + c.1.len() as u64));
    let mut a = Snapshot::new();
    let mut w = Vec::new();
    let row = |kernel: &str, tier: Backend, m: Measured| {
        let ns = m.median() * 1e9 / count.max(1) as f64;
        out!(
            r,
            "{:<44} {:>8} {}   ({:.0} ns per delta, {count} deltas)",
            format!("{kernel} (MB/s of ints)"),
            tier.name(),
            rate_cells(4 * ints, &m),
            ns,
        );
        r.figure(Figure {
            note: Some(format!("{ns:.0} ns per delta, {count} deltas")),
            ..figure(kernel, Some(tier.name()), "ints", 4 * ints, &m)
        });
    };
    for tier in Backend::ALL {
        let mut applier = DeltaApplier::new(tier);
        let k = applier.kernels();
        let m = measure(min, || {
            let mut sum = 0i32;
            for (p, chunks) in &streams {
                for (is_delta, d) in chunks {
                    let checksum = if *is_delta {
                        w.clear();
                        match applier.apply_by_copy(&mut a, d, *p, &mut w) {
                            Ok(checksum) => checksum,
                            Err(_) => break,
                        }
                    } else if a.parse_into(d).is_ok() {
                        k.checksum(a.data())
                    } else {
                        break;
                    };
                    sum = sum.wrapping_add(checksum);
                }
            }
            std::hint::black_box(sum);
        });
        row("snapshot deltas copy+checksum", tier, m);
        let m = measure(min, || {
            let mut sum = 0i32;
            for (p, chunks) in &streams {
                let mut checksum = 0;
                for (is_delta, d) in chunks {
                    if *is_delta {
                        w.clear();
                        match applier.apply_in_place(&mut a, d, *p, &mut w, checksum) {
                            Ok(c) => checksum = c,
                            Err(_) => break,
                        }
                    } else if a.parse_into(d).is_ok() {
                        checksum = k.checksum(a.data());
                    } else {
                        break;
                    }
                    sum = sum.wrapping_add(checksum);
                }
            }
            std::hint::black_box(sum);
        });
        row("snapshot deltas in place", tier, m);
    }
}
