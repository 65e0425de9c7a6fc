//! `bench export`: what writing each table costs, against the decode it
//! rests on, measured in one run.
//!
//! Every figure is process CPU time (user + system, all threads: the
//! export's worker and its writer) of a one-job run over the inputs, the
//! median of repeated runs, the lines taking turns run by run; the floor
//! is the same demos decoded in full (Huffman, varints, deltas,
//! checksums, messages) without a table. Each table has a `batches` line
//! (its record batches built and dropped), then one per format, whose
//! rows go to a writer that only counts the bytes.

use super::*;
use crate::batch::export::{run_export, ExportOptions};
use crate::batch::sink::RecordFormat;
use crate::batch::tables;
use crate::batch::{load, MmapMode};
use crate::demo::export::Table;
use crate::demo::stream::{Decoder, Event};
use crate::demo::Demo;
use std::io::Write;

/// Process CPU seconds so far (wall seconds where the platform has no
/// process clock).
pub fn cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
        t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64()
    }
}

/// One measured line: a table in a format, or the decode floor.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ExportFigure {
    /// The table, or `decode` for the floor.
    pub table: &'static str,
    /// `csv`, `jsonl`, `parquet`, `batches` for the table's record
    /// batches built and dropped (no writer), or `none` for the floor.
    pub format: &'static str,
    pub rows: u64,
    /// Huffman-decoded bytes of the snapshot and message chunks read.
    pub chunk_bytes: u64,
    /// Bytes written (the table's file size).
    pub output_bytes: u64,
    /// Median CPU seconds of one run.
    pub cpu_s: f64,
    /// Median wall seconds of one run.
    pub wall_s: f64,
    pub runs: u32,
    /// CPU seconds of every timed run, in run order.
    pub cpu_samples: Vec<f64>,
    /// Rows per CPU second.
    pub rows_per_s: f64,
    /// MB (10^6 bytes) of chunk data per CPU second.
    pub mb_per_s: f64,
    /// CPU time over the decode floor's.
    pub x_decode: f64,
}

/// Counts the bytes written to it.
#[derive(Debug, Default)]
struct Count(u64);

impl Write for Count {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Takes a table's batches and drops them: what a run costs before any
/// writer. Its encoder drops each batch on the export's worker, where the
/// row formats' encoders take theirs (a batch sent to the writer's thread
/// to be dropped there costs more than building it did: its memory is
/// freed away from the thread that reuses it).
struct Batches;

struct DropBatches;

impl tables::BatchEncoder for DropBatches {
    fn encode(&mut self, batch: &arrow_array::RecordBatch, _: &mut Vec<u8>) -> io::Result<()> {
        std::hint::black_box(batch.num_rows());
        Ok(())
    }
}

impl tables::TableWriter for Batches {
    fn write_batch(&mut self, batch: &arrow_array::RecordBatch) -> io::Result<()> {
        std::hint::black_box(batch.num_rows());
        Ok(())
    }
    fn encoder(&self) -> Option<Box<dyn tables::BatchEncoder + Send>> {
        Some(Box::new(DropBatches))
    }
    fn write_encoded(&mut self, _: &[u8]) -> io::Result<()> {
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What one run of a line gives: rows, chunk bytes decoded, bytes
/// written.
type RunTotals = (u64, u64, u64);

/// One measured line and its runs so far.
struct Line<'a> {
    table: &'static str,
    format: &'static str,
    run: Box<dyn FnMut() -> io::Result<RunTotals> + 'a>,
    cpu: Vec<f64>,
    wall: Vec<f64>,
    /// The last run's result.
    out: Option<io::Result<RunTotals>>,
}

impl Line<'_> {
    fn time(&mut self) {
        let (c0, w0) = (cpu_seconds(), Instant::now());
        let out = (self.run)();
        self.cpu.push(cpu_seconds() - c0);
        self.wall.push(w0.elapsed().as_secs_f64());
        self.out = Some(out);
    }

    /// At least `s.runs` timed runs and `s.runs × s.per_run` of wall time
    /// (each run is one whole export, never repeated inside a sample).
    fn done(&self, s: Sampling) -> bool {
        self.cpu.len() as u32 >= s.runs.max(1)
            && self.wall.iter().sum::<f64>() >= s.per_run.as_secs_f64() * f64::from(s.runs)
    }
}

/// Runs every line `s.warmup` times untimed, then in rounds, one timed run
/// of each unfinished line per round, until each is [`Line::done`]. The
/// lines take turns, so that a machine getting slower or faster during the
/// bench (other work, clocks) moves every line's figure alike, not the
/// floor's alone: their ratios are what the bench is for.
fn interleave(s: Sampling, lines: &mut [Line<'_>]) {
    for line in lines.iter_mut() {
        for _ in 0..s.warmup {
            (line.run)().ok();
        }
    }
    while lines.iter().any(|l| !l.done(s)) {
        for line in lines.iter_mut().filter(|l| !l.done(s)) {
            line.time();
        }
    }
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    median_of(&v)
}

/// The decode floor: every input decoded in full on this thread.
fn decode_all(inputs: &[Input], backend: Backend) -> u64 {
    let mut decoder = Decoder::new(backend);
    let mut buf = Vec::new();
    let mut chunk_bytes = 0u64;
    for input in inputs {
        let Ok(bytes) = load(input, MmapMode::Never, &mut buf) else {
            continue;
        };
        let Ok(demo) = Demo::parse(&bytes) else {
            continue;
        };
        let mut s = decoder.stream(&demo, crate::warn::Discard);
        while let Some(ev) = s.next_event() {
            match ev {
                Ok(Event::Snapshot(e)) => chunk_bytes += e.payload.decompressed.len() as u64,
                Ok(Event::Message(m)) => chunk_bytes += m.payload.decompressed.len() as u64,
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    chunk_bytes
}

/// Measures the decode floor, then per table its batches alone and every
/// format, one job each, each line sampled as `sampling` says, the lines
/// taking turns ([`interleave`]); `progress` sees each figure, in that
/// order, when all are measured.
pub fn measure(
    inputs: &[Input],
    tables: &[Table],
    formats: &[RecordFormat],
    sampling: Sampling,
    backend: Backend,
    mut progress: impl FnMut(&ExportFigure),
) -> io::Result<Vec<ExportFigure>> {
    let mut lines = vec![Line {
        table: "decode",
        format: "none",
        run: Box::new(move || Ok((0, decode_all(inputs, backend), 0))),
        cpu: Vec::new(),
        wall: Vec::new(),
        out: None,
    }];
    for &table in tables {
        // First the batches alone (built, then dropped): the part of every
        // format's figure that is not its writer.
        let writers = std::iter::once(None).chain(formats.iter().copied().map(Some));
        for format in writers {
            let mut opts = ExportOptions::new(table);
            opts.mmap = MmapMode::Never;
            opts.backend = backend;
            let run = move || -> io::Result<RunTotals> {
                let mut count = Count::default();
                let totals = {
                    let mut w: Box<dyn tables::TableWriter> = match format {
                        Some(format) => {
                            tables::writer(format, &table.schema(), Box::new(&mut count))?
                        }
                        None => Box::new(Batches),
                    };
                    let t = run_export(inputs, 1, &opts, &mut *w, |_| {})?;
                    w.finish()?;
                    t
                };
                Ok((totals.rows, totals.chunk_bytes, count.0))
            };
            lines.push(Line {
                table: table.name(),
                format: format.map_or("batches", RecordFormat::extension),
                run: Box::new(run),
                cpu: Vec::new(),
                wall: Vec::new(),
                out: None,
            });
        }
    }
    interleave(sampling, &mut lines);
    let rate = |x: f64, s: f64| if s > 0.0 { x / s } else { 0.0 };
    let floor_cpu = median(&lines[0].cpu);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let (rows, chunk_bytes, output_bytes) = line.out.expect("every line ran")?;
        let cpu = median(&line.cpu);
        let f = ExportFigure {
            table: line.table,
            format: line.format,
            rows,
            chunk_bytes,
            output_bytes,
            cpu_s: cpu,
            wall_s: median(&line.wall),
            runs: line.cpu.len() as u32,
            cpu_samples: line.cpu,
            rows_per_s: rate(rows as f64, cpu),
            mb_per_s: rate(chunk_bytes as f64 / 1e6, cpu),
            x_decode: rate(cpu, floor_cpu),
        };
        progress(&f);
        out.push(f);
    }
    Ok(out)
}

/// `bench export`: the decode floor, then every table in every format
/// asked (all by default), one line each.
pub(super) fn bench_export(a: &Options, print: Print<'_>) -> io::Result<()> {
    let inputs = if a.paths.is_empty() {
        embedded::demo_inputs()
    } else {
        collect_inputs(&a.paths, "demo")
    };
    let tables = if a.tables.is_empty() {
        Table::ALL.to_vec()
    } else {
        a.tables.clone()
    };
    let formats = if a.writers.is_empty() {
        vec![
            RecordFormat::Csv,
            RecordFormat::Jsonl,
            RecordFormat::Parquet,
        ]
    } else {
        a.writers.clone()
    };
    let bytes: u64 = inputs.iter().map(Input::listed_size).sum();
    let r = Report::new("export", a, print);
    r.header(format!(
        "demos: {} files, {:.2} MB; one job, CPU seconds (user + system, all threads) per run, median",
        inputs.len(),
        bytes as f64 / 1e6
    ), inputs.len(), bytes, 1);
    out!(
        r,
        "{:<30} {:>9} {:>12} {:>13} {:>9} {:>8} {:>10} {:>5}",
        "measurement",
        "rows",
        "rows/s",
        "MB/s chunks",
        "× decode",
        "cpu s",
        "output MB",
        "runs"
    );
    let line = |f: &ExportFigure| {
        let name = if f.format == "none" {
            "full decode (floor)".to_string()
        } else {
            format!("export {} {}", f.table, f.format)
        };
        out!(
            r,
            "{:<30} {:>9} {:>12.0} {:>13.1} {:>9.2} {:>8.3} {:>10.2} {:>5}",
            name,
            f.rows,
            f.rows_per_s,
            f.mb_per_s,
            f.x_decode,
            f.cpu_s,
            f.output_bytes as f64 / 1e6,
            f.runs
        );
        let rate = |s: f64| mb_per_s(f.chunk_bytes, s);
        let (slowest, fastest) = f.cpu_samples.iter().fold((f64::MAX, 0f64), |(lo, hi), &s| {
            (lo.min(rate(s)), hi.max(rate(s)))
        });
        r.figure(Figure {
            measurement: name,
            tier: Some(a.backend_name().to_string()),
            mb_per_s: f.mb_per_s,
            mb_per_s_min: slowest,
            mb_per_s_max: fastest,
            unit: "chunk data per CPU second",
            maps_per_s: None,
            seconds_per_run: f.cpu_s,
            runs: f.runs,
            iterations_per_run: 1,
            samples: f.cpu_samples.clone(),
            note: Some(format!(
                "{} rows, {:.0} rows/s, {:.2}x decode, {} output bytes, {:.3} s wall",
                f.rows, f.rows_per_s, f.x_decode, f.output_bytes, f.wall_s
            )),
        });
    };
    measure(
        &inputs,
        &tables,
        &formats,
        a.sampling(),
        Backend::default(),
        line,
    )?;
    r.finish()
}
