//! `bench maps`: parse, index, inflate.

use super::*;

pub(super) fn bench_maps(a: &Options, print: Print<'_>) -> io::Result<()> {
    let r = Report::new("maps", a, print);
    let files = load_all(&a.paths, "map")?;
    let min = a.sampling();
    let file_bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let n = files.len() as f64;
    let jobs = crate::limits::Limits::cap_jobs(a.jobs, usize::MAX);
    r.header(
        format!(
            "maps: {} files, {:.2} MB",
            files.len(),
            file_bytes as f64 / 1e6
        ),
        files.len(),
        file_bytes,
        jobs,
    );
    out!(
        r,
        "{:<44} {:>12} {}",
        "measurement",
        "maps/s",
        rate_header("MB/s")
    );
    let row = |name: &str, m: Measured, bytes: u64| {
        let secs = m.median();
        out!(
            r,
            "{:<44} {:>12.1} {}",
            name,
            n / secs,
            rate_cells(bytes, &m)
        );
        r.figure(Figure {
            maps_per_s: Some(n / secs),
            ..figure(name, None, "files", bytes, &m)
        });
    };

    // Datafile::parse only.
    let m = measure(min, || {
        for (_, b) in &files {
            std::hint::black_box(Datafile::parse(b).ok());
        }
    });
    row("datafile parse (1 thread)", m, file_bytes);

    // The `maps index` work per file (hashes + parse + map summary), in memory.
    let opts = IndexOptions::default();
    let with = |verify| IndexOptions { verify, ..opts };
    for (name, o) in [
        ("index (1 thread)", opts),
        ("index --verify=inflate (1 thread)", with(Verify::Inflate)),
        ("index --verify=crc (1 thread)", with(Verify::Crc)),
        ("index --verify (1 thread)", with(Verify::Full)),
    ] {
        let mut inflater = Inflater::default();
        let mut buf = Vec::new();
        let m = measure(min, || {
            for (input, b) in &files {
                let mut rec = MapRecord {
                    path: input.display_path(),
                    ..MapRecord::default()
                };
                index_bytes(&mut rec, b, &o, &mut inflater, &mut buf);
                std::hint::black_box(&rec);
            }
        });
        row(name, m, file_bytes);
    }

    // End to end through the batch driver from the page cache.
    let inputs: Vec<Input> = files.iter().map(|(i, _)| i.clone()).collect();
    for j in [1, jobs] {
        let m = measure(min, || {
            run_ordered(
                &inputs,
                j,
                || crate::batch::maps::Worker::new(opts.limits),
                |w, _, input| crate::batch::maps::index_input(w, input, &opts),
                |_, rec| {
                    std::hint::black_box(rec);
                    std::ops::ControlFlow::Continue(())
                },
            );
        });
        row(&format!("maps index end to end ({j} jobs)"), m, file_bytes);
    }

    // Inflate every data block: libdeflater vs flate2 (zlib-rs).
    let blocks: Vec<(&[u8], usize)> = files
        .iter()
        .filter_map(|(_, b)| Datafile::parse(b).ok())
        .flat_map(|df| {
            (0..df.num_data())
                .filter_map(|i| Some((df.data_raw(i)?, df.data_size(i)?)))
                .collect::<Vec<_>>()
        })
        .collect();
    let out_bytes: u64 = blocks.iter().map(|&(_, n)| n as u64).sum();
    let mut d = libdeflater::Decompressor::new();
    let mut out = vec![0u8; blocks.iter().map(|&(_, n)| n).max().unwrap_or(0)];
    let m = measure(min, || {
        for &(raw, n) in &blocks {
            std::hint::black_box(d.zlib_decompress(raw, &mut out[..n]).ok());
        }
    });
    out!(
        r,
        "{:<44} {:>12} {}   ({:.2} GB/s of output, {} blocks, {:.1} MB)",
        "inflate libdeflater (1 thread)",
        "-",
        rate_cells(out_bytes, &m),
        out_bytes as f64 / 1e9 / m.median(),
        blocks.len(),
        out_bytes as f64 / 1e6
    );
    r.figure(Figure {
        note: Some(format!(
            "{} blocks, {out_bytes} bytes of output",
            blocks.len()
        )),
        ..figure(
            "inflate libdeflater (1 thread)",
            None,
            "output",
            out_bytes,
            &m,
        )
    });
    // The CRC-32 of each block's output right after inflating it (what
    // `--verify` adds to the inflate): crc32fast vs libdeflate's.
    for (name, libdeflate_crc) in [
        ("inflate + crc32fast crc32 (1 thread)", false),
        ("inflate + libdeflate crc32 (1 thread)", true),
    ] {
        let m = measure(min, || {
            let mut a = crc32fast::Hasher::new();
            let mut b = libdeflater::Crc::new();
            for &(raw, n) in &blocks {
                if d.zlib_decompress(raw, &mut out[..n]).is_ok() {
                    if libdeflate_crc {
                        b.update(&out[..n]);
                    } else {
                        a.update(&out[..n]);
                    }
                }
            }
            std::hint::black_box((a.finalize(), b.sum()));
        });
        out!(
            r,
            "{:<44} {:>12} {}   ({:.2} GB/s of output)",
            name,
            "-",
            rate_cells(out_bytes, &m),
            out_bytes as f64 / 1e9 / m.median()
        );
        r.figure(figure(name, None, "output", out_bytes, &m));
    }
    let m = measure(min, || {
        for &(raw, n) in &blocks {
            let mut dec = flate2::Decompress::new(true);
            std::hint::black_box(
                dec.decompress(raw, &mut out[..n], flate2::FlushDecompress::Finish)
                    .ok(),
            );
        }
    });
    out!(
        r,
        "{:<44} {:>12} {}   ({:.2} GB/s of output)",
        "inflate flate2/zlib-rs (1 thread)",
        "-",
        rate_cells(out_bytes, &m),
        out_bytes as f64 / 1e9 / m.median()
    );
    r.figure(figure(
        "inflate flate2/zlib-rs (1 thread)",
        None,
        "output",
        out_bytes,
        &m,
    ));
    r.finish()
}
