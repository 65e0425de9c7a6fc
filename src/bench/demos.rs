//! `bench demos`: the full decode per tier, on one core and on all.

use super::*;

/// Sum of the data chunk payload bytes (as stored, Huffman-coded) of a demo.
fn chunk_bytes(demo: &crate::demo::Demo<'_>) -> u64 {
    demo.chunks()
        .map_while(Result::ok)
        .filter_map(|c| c.kind.payload())
        .map(|p| p.len() as u64)
        .sum()
}

/// A visitor that only keeps the checksum of every snapshot alive.
struct ChecksumSink(i64);

impl crate::demo::stream::Visitor for ChecksumSink {
    fn visit(&mut self, event: &crate::demo::stream::Event<'_>) {
        if let crate::demo::stream::Event::Snapshot(s) = event {
            self.0 = self.0.wrapping_add(i64::from(s.checksum));
        }
    }
}

pub(super) fn bench_demos(a: &Options, print: Print<'_>) -> io::Result<()> {
    use crate::demo::stream::{segments, visit, visit_parallel, Decoder};
    use crate::demo::Demo;
    use rayon::prelude::*;
    let files = load_all(&a.paths, "demo")?;
    let demos: Vec<Demo> = files
        .iter()
        .filter_map(|(_, b)| Demo::parse(b).ok())
        .collect();
    let data: u64 = demos.iter().map(chunk_bytes).sum();
    let file_bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let min = a.sampling();
    let jobs = crate::limits::Limits::cap_jobs(a.jobs, usize::MAX);
    let r = Report::new("demos", a, print);
    r.header(
        format!(
            "demos: {} files, {:.2} MB, {:.2} MB of chunk data",
            demos.len(),
            file_bytes as f64 / 1e6,
            data as f64 / 1e6,
        ),
        files.len(),
        file_bytes,
        jobs,
    );
    out!(
        r,
        "{:<52} {:>8} {}",
        "measurement",
        "tier",
        rate_header("MB/s")
    );
    let row = |name: &str, tier: Backend, m: Measured| {
        out!(
            r,
            "{:<52} {:>8} {}",
            name,
            tier.name(),
            rate_cells(data, &m)
        );
        r.figure(figure(name, Some(tier.name()), "chunk data", data, &m));
    };
    for tier in [Backend::Scalar, Backend::Simd] {
        let mut dec = Decoder::new(tier);
        let m = measure(min, || {
            for d in &demos {
                std::hint::black_box(visit(d, &mut dec, ChecksumSink(0)).visitor.0);
            }
        });
        row("full decode, 1 thread", tier, m);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(io::Error::other)?;
    let m = measure(min, || {
        pool.install(|| {
            demos.par_iter().for_each_init(
                || Decoder::new(Backend::Simd),
                |dec, d| {
                    std::hint::black_box(visit(d, dec, ChecksumSink(0)).visitor.0);
                },
            )
        })
    });
    row(
        &format!("full decode, collection on {jobs} threads"),
        Backend::Simd,
        m,
    );
    let m = measure(min, || {
        pool.install(|| {
            for d in &demos {
                let segs = segments(d, jobs * 4);
                std::hint::black_box(
                    visit_parallel(d, Backend::Simd, &segs, || ChecksumSink(0))
                        .visitor
                        .len(),
                );
            }
        })
    });
    row(
        &format!("full decode, each demo split on {jobs} threads"),
        Backend::Simd,
        m,
    );
    let mut dec = Decoder::new(Backend::Simd);
    let m = measure(min, || {
        for d in &demos {
            let v = crate::demo::stream::StatsVisitor::new();
            std::hint::black_box(
                visit(d, &mut dec, v)
                    .visitor
                    .finish()
                    .snapshots_reconstructed,
            );
        }
    });
    row("decode + snapshot statistics", Backend::Simd, m);
    let m = measure(min, || {
        for d in &demos {
            // The analysis `demos index` runs: the protocol the snapshots
            // are decoded with, no chat lines kept.
            let v = crate::demo::analysis::AnalysisVisitor::new(d.decode_protocol());
            std::hint::black_box(
                visit(d, &mut dec, v)
                    .visitor
                    .finish()
                    .stats
                    .snapshots_reconstructed,
            );
        }
    });
    row(
        "demos index analysis (stats, players, messages)",
        Backend::Simd,
        m,
    );
    r.finish()
}
