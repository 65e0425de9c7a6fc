//! teebatch against libtw2's published crates on the real demos
//! (`../shared/datasets/demos`), measured in one run so the ratios are
//! comparable: Huffman decode of every chunk payload (MB/s of output) and
//! the full decode on one thread (framing, Huffman, varints, snapshots,
//! deltas and checksums; MB/s of chunk data).
//!
//! `cargo bench --bench peers [-- --seconds S --rounds R]`; with
//! `TEEBATCH_X86_LEVEL=avx2` (or `sse2`) teebatch's kernels are capped at
//! that level, as on a machine without AVX-512. Each contender runs for at
//! least S seconds (default 2) per round, contenders alternate, and the
//! best of R rounds (default 3) is kept: the machine's other load only
//! ever slows a run down.

use std::hint::black_box;
use std::time::{Duration, Instant};

use teebatch::backend::Backend;
use teebatch::codec::huffman;
use teebatch::demo::stream::{huffman_room, Decoder};
use teebatch::demo::Demo;

#[path = "libtw2_peer.rs"]
mod peer;
use peer::{inputs, libtw2_decode, teebatch_decode, Tw};

/// Seconds per run of `f`, best of `rounds` rounds of at least `min`.
fn best(min: Duration, rounds: u32, f: &mut dyn FnMut()) -> f64 {
    f();
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            let mut runs = 0u32;
            while runs == 0 || start.elapsed() < min {
                f();
                runs += 1;
            }
            start.elapsed().as_secs_f64() / f64::from(runs)
        })
        .fold(f64::INFINITY, f64::min)
}

fn arg(name: &str) -> Option<f64> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1)?.parse().ok()
}

fn main() {
    let inputs = inputs();
    if inputs.is_empty() {
        return;
    }
    let min = Duration::from_secs_f64(arg("--seconds").unwrap_or(2.0));
    let rounds = arg("--rounds").unwrap_or(3.0) as u32;

    // Every chunk payload, in file order, with its decoded length.
    let mut payloads: Vec<Vec<u8>> = Vec::new();
    let mut out_bytes = 0u64;
    let mut out = vec![0u8; 1 << 16];
    for i in &inputs {
        let demo = Demo::parse(&i.bytes).unwrap();
        for chunk in demo.chunks() {
            if let Some(p) = chunk.unwrap().kind.payload() {
                let n = huffman::decompress(p, &mut out).unwrap();
                let tw = libtw2_huffman::decompress_into(p, &mut out[..]).unwrap();
                assert_eq!(tw.len(), n, "libtw2 and teebatch decode alike");
                out_bytes += n as u64;
                payloads.push(p.to_vec());
            }
        }
    }
    let chunk_bytes: u64 = inputs.iter().map(|i| i.chunk_bytes).sum();
    let mut dec = Decoder::new(Backend::Simd);
    let mut tw = Tw::new();
    for i in &inputs {
        assert_eq!(
            teebatch_decode(&mut dec, &i.bytes),
            libtw2_decode(&mut tw, &i.bytes, i.protocol),
            "{}: same checksums",
            i.name
        );
    }

    let mb = |bytes: u64, secs: f64| bytes as f64 / 1e6 / secs;
    let mut rows: Vec<(String, f64, f64)> = Vec::new();

    // Huffman: libtw2 one payload at a time; teebatch one at a time and in
    // batches of 4 consecutive payloads (what its demo decoder does).
    let tw_huff = best(min, rounds, &mut || {
        for p in &payloads {
            black_box(libtw2_huffman::decompress_into(p, &mut out[..]).ok());
        }
    });
    let tier = huffman::Tier::chosen();
    let one = best(min, rounds, &mut || {
        for p in &payloads {
            black_box(huffman::decompress(p, &mut out).ok());
        }
    });
    rows.push((
        format!("Huffman decode, one stream ({})", tier.name()),
        mb(out_bytes, tw_huff),
        mb(out_bytes, one),
    ));
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = refs.iter().map(|p| huffman_room(p.len())).collect();
    let mut arena = vec![0u8; caps.chunks(4).map(|c| c.iter().sum()).max().unwrap_or(0)];
    let mut results = [Ok(0); 4];
    let batch = best(min, rounds, &mut || {
        for (p, c) in refs.chunks(4).zip(caps.chunks(4)) {
            let r = &mut results[..p.len()];
            huffman::decompress_batch(p, c, &mut arena, r);
            black_box(r);
        }
    });
    rows.push((
        format!("Huffman decode, batches of 4 ({})", tier.name()),
        mb(out_bytes, tw_huff),
        mb(out_bytes, batch),
    ));

    // Full decode, one thread.
    let tw_full = best(min, rounds, &mut || {
        for i in &inputs {
            black_box(libtw2_decode(&mut tw, &i.bytes, i.protocol));
        }
    });
    let ours = best(min, rounds, &mut || {
        for i in &inputs {
            black_box(teebatch_decode(&mut dec, &i.bytes));
        }
    });
    rows.push((
        "full decode, 1 thread (MB/s of chunk data)".to_string(),
        mb(chunk_bytes, tw_full),
        mb(chunk_bytes, ours),
    ));

    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    println!("machine: {cpu}");
    println!("teebatch: {}", teebatch::backend::describe());
    println!(
        "inputs: {} demos, {} chunk payloads, {:.2} MB of chunk data, {:.2} MB decoded; \
         best of {rounds} rounds of {:.1} s",
        inputs.len(),
        payloads.len(),
        chunk_bytes as f64 / 1e6,
        out_bytes as f64 / 1e6,
        min.as_secs_f64()
    );
    println!(
        "| work (MB/s of output unless noted) | libtw2 | teebatch | ratio |\n|---|---:|---:|---:|"
    );
    for (name, theirs, ours) in rows {
        println!(
            "| {name} | {theirs:.0} | {ours:.0} | {:.1}× |",
            ours / theirs
        );
    }
}
