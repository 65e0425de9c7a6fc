//! The table builders of `demos export` and the writers behind them, on
//! generated demos (`teebatch::synth`, 16 and 64 players): decoding into
//! record batches of `positions` and `events` (the builders), then the
//! batches encoded as CSV, JSON lines and Parquet (and the row encoders
//! alone beside Arrow's `arrow-csv` and `arrow-json`). Throughput is in
//! rows.
//! `teebatch bench export` measures whole runs against the decode.
//!
//! `cargo bench --bench export -- --warm-up-time 1 --measurement-time 3`

use std::hint::black_box;

use arrow_array::RecordBatch;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use parquet::arrow::arrow_writer::{ArrowWriter, ArrowWriterOptions};
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use teebatch::backend::Backend;
use teebatch::batch::sink::RecordFormat;
use teebatch::batch::tables::{
    writer, BatchEncoder, CsvEncoder, FastCsvEncoder, FastJsonlEncoder, JsonlEncoder,
};
use teebatch::demo::export::{export_demo, Table, TableBuilder};
use teebatch::demo::stream::Decoder;
use teebatch::demo::Demo;
use teebatch::synth::demo::{generate, SynthParams};

/// Prints the bytes `write` makes of `batches` (and per row), then
/// measures it as `label` of `group`.
fn sized(
    g: &mut BenchmarkGroup<'_, WallTime>,
    group: &str,
    label: &str,
    name: &str,
    batches: &[RecordBatch],
    mut write: impl FnMut(&[RecordBatch]) -> usize,
) {
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let size = write(batches);
    println!(
        "{group}/{label}/{name}: {rows} rows, {size} bytes, {:.1} bytes/row",
        size as f64 / rows as f64
    );
    g.bench_with_input(BenchmarkId::new(label, name), batches, |b, batches| {
        b.iter(|| write(batches))
    });
}

/// Makes one of the row encoders.
type MakeEncoder = fn() -> Box<dyn BatchEncoder>;

/// The batches of `table` for one demo.
fn build(bytes: &[u8], table: Table, dec: &mut Decoder) -> Vec<RecordBatch> {
    let demo = Demo::parse(bytes).expect("generated demo");
    let mut b = TableBuilder::for_demo(table, &demo, "bench.demo", i32::MIN, i32::MAX);
    let mut out = Vec::new();
    let mut sink = |batch: RecordBatch| {
        out.push(batch);
        true
    };
    let r = export_demo(&demo, dec, &mut b, i32::MAX, 8192, &mut sink);
    assert!(r.error.is_none());
    out
}

fn bench(c: &mut Criterion) {
    let demos: Vec<(String, Vec<u8>)> = [16usize, 64]
        .iter()
        .map(|&players| {
            let params = SynthParams {
                players,
                duration_ticks: 50 * 30,
                ..SynthParams::default()
            };
            (format!("{players}p"), generate(&params))
        })
        .collect();
    let mut dec = Decoder::new(Backend::Simd);
    let mut g = c.benchmark_group("export_build");
    for (name, bytes) in &demos {
        for table in [Table::Positions, Table::Events] {
            let rows: usize = build(bytes, table, &mut dec)
                .iter()
                .map(|b| b.num_rows())
                .sum();
            g.throughput(Throughput::Elements(rows as u64));
            g.bench_with_input(BenchmarkId::new(table.name(), name), bytes, |b, bytes| {
                b.iter(|| build(black_box(bytes), table, &mut dec))
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("export_write");
    let (name, bytes) = &demos[1];
    let batches = build(bytes, Table::Positions, &mut dec);
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    g.throughput(Throughput::Elements(rows as u64));
    for (label, format) in [
        ("csv", RecordFormat::Csv),
        ("jsonl", RecordFormat::Jsonl),
        ("parquet", RecordFormat::Parquet),
    ] {
        let write = |batches: &[RecordBatch]| {
            let mut out = Vec::new();
            let mut w =
                writer(format, &Table::Positions.schema(), Box::new(&mut out)).expect("writer");
            for batch in batches {
                w.write_batch(black_box(batch)).expect("write");
            }
            w.finish().expect("finish");
            drop(w);
            out.len()
        };
        sized(&mut g, "export_write", label, name, &batches, write);
    }
    g.finish();

    // The row encoders alone, as an export's worker runs them (batch after
    // batch into one reused buffer): teebatch's, and Arrow's own `arrow-csv`
    // and `arrow-json` writers, which write the same bytes (their
    // reference).
    let mut g = c.benchmark_group("export_encode");
    g.throughput(Throughput::Elements(rows as u64));
    let encoders: [(&str, MakeEncoder); 4] = [
        ("csv", || Box::new(FastCsvEncoder)),
        ("jsonl", || Box::new(FastJsonlEncoder)),
        ("arrow_csv", || Box::new(CsvEncoder)),
        ("arrow_json", || Box::new(JsonlEncoder)),
    ];
    for (label, encoder) in encoders {
        let mut enc = encoder();
        let mut buf = Vec::new();
        let encode = |batches: &[RecordBatch]| {
            let mut bytes = 0;
            for batch in batches {
                buf.clear();
                enc.encode(black_box(batch), &mut buf).expect("encode");
                bytes += buf.len();
            }
            bytes
        };
        sized(&mut g, "export_encode", label, name, &batches, encode);
    }
    g.finish();

    // What Arrow's Parquet writer costs at its cheapest on the same
    // batches, beside the table settings above: no compression, no
    // statistics, every column plain (no dictionary), then each of the
    // table's choices alone. The floor under any `--format parquet` run.
    let mut g = c.benchmark_group("export_write_parquet_settings");
    g.throughput(Throughput::Elements(rows as u64));
    let schema = Table::Positions.schema();
    let cheapest = || {
        WriterProperties::builder()
            .set_compression(Compression::UNCOMPRESSED)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_dictionary_enabled(false)
            .set_max_row_group_row_count(Some(1 << 20))
    };
    let settings: [(&str, WriterProperties); 4] = [
        ("plain_uncompressed", cheapest().build()),
        (
            "plain_snappy",
            cheapest().set_compression(Compression::SNAPPY).build(),
        ),
        (
            "dictionary_uncompressed",
            cheapest().set_dictionary_enabled(true).build(),
        ),
        (
            "chunk_statistics_uncompressed",
            cheapest()
                .set_statistics_enabled(EnabledStatistics::Chunk)
                .build(),
        ),
    ];
    let write = |options: &ArrowWriterOptions, batches: &[RecordBatch]| {
        let mut out = Vec::new();
        let mut w = ArrowWriter::try_new_with_options(&mut out, schema.clone(), options.clone())
            .expect("writer");
        for batch in batches {
            w.write(black_box(batch)).expect("write");
        }
        w.close().expect("close");
        out.len()
    };
    for (label, props) in settings {
        let options = ArrowWriterOptions::new()
            .with_properties(props)
            .with_skip_arrow_metadata(true);
        // The size each setting gives, beside its time.
        let group = "export_write_parquet_settings";
        sized(&mut g, group, label, name, &batches, |b| write(&options, b));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
