//! teebatch against libtw2's published crates, measured in one run so the
//! ratios are comparable:
//!
//! - on the real demos (`../shared/datasets/demos`, or `--demos DIR`): Huffman decode of every
//!   chunk payload (MB/s of output), one stream and in batches of 4, and the
//!   full decode on one thread (framing, Huffman, varints, snapshots, deltas
//!   and checksums; MB/s of chunk data);
//! - on a generated, chunk-dense collection (`teebatch synth demos --count
//!   8`, written to a temporary folder): libtw2's decode-only time against
//!   the whole `teebatch demos index --jobs 1` process (start-up, listing,
//!   reading, SHA-256 and CRC-32 of every file, decode, analysis, JSON
//!   records), the same work in memory (`batch::demos::index_bytes`),
//!   teebatch's own decode-only time and the start-up of a process;
//! - on both: the analysis' share of the decode time (`demos index`'s
//!   in-memory work less its SHA-256 and the decode, over the decode).
//!
//! `cargo bench --bench peers [-- --seconds S --rounds R --demos DIR
//! --synth N --synth-dir DIR --levels sse2,avx2,avx512]`. `--demos DIR`
//! measures the `*.demo` files directly in DIR instead of the shared
//! datasets' (both decoders must agree on every snapshot checksum of them:
//! a demo where they do not stops the bench, naming it). With
//! `TEEBATCH_X86_LEVEL=avx2`
//! (or `sse2`) teebatch's kernels are capped at that level, as on a machine
//! without AVX-512 (the `demos index` process inherits the cap); `--levels`
//! runs the whole bench once per level (each in its own process, since the
//! tiers are chosen once per process) and prints one table per level.
//! Contenders alternate: each round runs every contender in turn for at
//! least S seconds (default 2) and the best of R rounds (default 3) is kept,
//! in CPU seconds of this process and its children (`--wall`: wall-clock),
//! so the machine's other load only ever slows a contender down and a change
//! of load hits both. `--synth 0` skips the generated collection;
//! `--synth-dir DIR` measures the demos in DIR instead of generating them.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sha2::{Digest, Sha256};
use teebatch::backend::Backend;
use teebatch::codec::huffman;
use teebatch::demo::stream::{huffman_room, Decoder};
use teebatch::demo::Demo;

#[path = "../support/libtw2_peer.rs"]
mod peer;
#[path = "../support/race.rs"]
mod race;
use peer::{inputs, inputs_in, libtw2_decode, teebatch_decode, Input, Tw};
use race::{arg, args, mb, num, print_machine, race, teebatch_exe, timing, TempDir};

/// Writes demos `0..count` of the generated collection of seed 1 to `dir`,
/// named as `teebatch synth demos --out DIR --count N` names them.
fn generate_demos(dir: &Path, count: u32) {
    use teebatch::synth::demo::{generate, SynthParams};
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..count {
        let bytes = generate(&SynthParams::collection(1, i));
        std::fs::write(dir.join(format!("synth-s1-{i:04}.demo")), bytes).unwrap();
    }
}

/// `--levels a,b,c`: this bench once per level, in child processes with
/// `TEEBATCH_X86_LEVEL` set, sharing one generated collection.
fn run_levels(levels: &str) {
    let mut rest: Vec<String> = Vec::new();
    let mut it = args().into_iter().skip(1);
    while let Some(a) = it.next() {
        if a == "--levels" {
            it.next();
        } else {
            rest.push(a);
        }
    }
    let count = num("--synth", 8.0) as u32;
    let tmp = TempDir::new("peers");
    if arg("--synth-dir").is_none() && count > 0 {
        generate_demos(&tmp.0, count);
        rest.extend(["--synth-dir".to_string(), tmp.0.display().to_string()]);
    }
    let exe = std::env::current_exe().unwrap();
    for level in levels.split(',') {
        println!("\n## TEEBATCH_X86_LEVEL={level}\n");
        let status = Command::new(&exe)
            .args(&rest)
            .env(teebatch::backend::X86_LEVEL_ENV, level)
            .status()
            .unwrap();
        assert!(status.success(), "level {level}: {status}");
    }
}

pub fn main() {
    if let Some(levels) = arg("--levels") {
        run_levels(&levels);
        return;
    }
    let (min, rounds) = timing();
    print_machine(min, rounds);
    real_demos(min, rounds);
    let count = num("--synth", 8.0) as u32;
    let tmp = TempDir::new("peers");
    let dir = match arg("--synth-dir") {
        Some(d) => PathBuf::from(d),
        None if count > 0 => {
            generate_demos(&tmp.0, count);
            tmp.0.clone()
        }
        None => return,
    };
    generated_demos(&dir, min, rounds);
}

/// Checks that both decoders give every demo the same checksums.
fn same_decode(inputs: &[Input], dec: &mut Decoder, tw: &mut Tw) {
    for i in inputs {
        assert_eq!(
            teebatch_decode(dec, &i.bytes),
            libtw2_decode(tw, &i.bytes, i.protocol),
            "{}: same checksums",
            i.name
        );
    }
}

/// The real demos: every `*.demo` under `--demos DIR`, else those of the
/// shared datasets.
fn real_demos(min: Duration, rounds: u32) {
    let inputs = match arg("--demos") {
        Some(dir) => inputs_in(Path::new(&dir)),
        None => inputs(),
    };
    if inputs.is_empty() {
        return;
    }
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
    same_decode(&inputs, &mut dec, &mut tw);

    // Huffman: libtw2 one payload at a time; teebatch one at a time and in
    // batches of 4 consecutive payloads (what its demo decoder does).
    let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
    let caps: Vec<usize> = refs.iter().map(|p| huffman_room(p.len())).collect();
    let mut arena = vec![0u8; caps.chunks(4).map(|c| c.iter().sum()).max().unwrap_or(0)];
    let mut results = [Ok(0); 4];
    let mut out2 = vec![0u8; 1 << 16];
    let t = race(
        min,
        rounds,
        &mut [
            &mut || {
                for p in &payloads {
                    black_box(libtw2_huffman::decompress_into(p, &mut out[..]).ok());
                }
            },
            &mut || {
                for p in &payloads {
                    black_box(huffman::decompress(p, &mut out2).ok());
                }
            },
            &mut || {
                for (p, c) in refs.chunks(4).zip(caps.chunks(4)) {
                    let r = &mut results[..p.len()];
                    huffman::decompress_batch(p, c, &mut arena, r);
                    black_box(r);
                }
            },
        ],
    );
    let (tw_huff, one, batch) = (t[0], t[1], t[2]);

    // Full decode, one thread; and `demos index`'s in-memory work and its
    // SHA-256 on the same bytes, for the analysis' share.
    let mut dec2 = Decoder::new(Backend::Simd);
    let t = race(
        min,
        rounds,
        &mut [
            &mut || {
                for i in &inputs {
                    black_box(libtw2_decode(&mut tw, &i.bytes, i.protocol));
                }
            },
            &mut || {
                for i in &inputs {
                    black_box(teebatch_decode(&mut dec, &i.bytes));
                }
            },
            &mut || {
                for i in &inputs {
                    black_box(index_work(&mut dec2, &i.bytes));
                }
            },
            &mut || {
                for i in &inputs {
                    black_box(Sha256::digest(&i.bytes));
                }
            },
        ],
    );
    let (tw_full, ours, work, sha) = (t[0], t[1], t[2], t[3]);

    let tier = huffman::Tier::chosen().name();
    println!(
        "\nreal demos: {} demos, {} chunk payloads, {:.2} MB of chunk data, {:.2} MB decoded",
        inputs.len(),
        payloads.len(),
        chunk_bytes as f64 / 1e6,
        out_bytes as f64 / 1e6,
    );
    println!(
        "\n| work (MB/s of output unless noted) | libtw2 | teebatch | ratio |\n|---|---:|---:|---:|"
    );
    let rows = [
        (
            format!("Huffman decode, one stream ({tier})"),
            mb(out_bytes, tw_huff),
            mb(out_bytes, one),
        ),
        (
            format!("Huffman decode, batches of 4 ({tier})"),
            mb(out_bytes, tw_huff),
            mb(out_bytes, batch),
        ),
        (
            "full decode, 1 thread (MB/s of chunk data)".to_string(),
            mb(chunk_bytes, tw_full),
            mb(chunk_bytes, ours),
        ),
    ];
    for (name, theirs, ours) in rows {
        println!(
            "| {name} | {theirs:.0} | {ours:.0} | {:.1}× |",
            ours / theirs
        );
    }
    analysis_share(work, sha, ours);
}

/// `batch::demos::index_bytes` on one demo: what `demos index` does in
/// memory (SHA-256, header, decode, analysis, the record).
fn index_work(dec: &mut Decoder, bytes: &[u8]) -> teebatch::batch::demos::DemoRecord {
    let mut rec = teebatch::batch::demos::DemoRecord::default();
    black_box(teebatch::batch::demos::index_bytes(
        &mut rec,
        bytes,
        dec,
        teebatch::limits::Limits::DEFAULT_MAX_WARNINGS,
    ));
    rec
}

/// Prints the analysis' share of the decode time: `demos index`'s in-memory
/// work less its SHA-256 and the decode (so the header, framing warnings
/// and the record count as analysis), over the decode.
fn analysis_share(work: f64, sha: f64, decode: f64) {
    println!(
        "\nanalysis share: in-memory `demos index` work {work:.4} s less SHA-256 {sha:.4} s \
         and decode {decode:.4} s = {:.4} s, {:.1} % of the decode",
        work - sha - decode,
        (work - sha - decode) / decode * 100.0
    );
}

/// libtw2's decode against the whole `teebatch demos index --jobs 1`
/// process on the demos of `dir`.
fn generated_demos(dir: &Path, min: Duration, rounds: u32) {
    let inputs = inputs_in(dir);
    if inputs.is_empty() {
        eprintln!("no demos in {}", dir.display());
        return;
    }
    let file_bytes: u64 = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    let chunk_bytes: u64 = inputs.iter().map(|i| i.chunk_bytes).sum();
    let mut dec = Decoder::new(Backend::Simd);
    let mut tw = Tw::new();
    same_decode(&inputs, &mut dec, &mut tw);
    let files: Vec<Vec<u8>> = {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "demo"))
            .collect();
        paths.sort();
        paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
    };
    let mut dec2 = Decoder::new(Backend::Simd);
    let exe = teebatch_exe();
    let exe = exe.as_path();
    let index = || {
        let status = Command::new(exe)
            .args(["demos", "index", "--jobs", "1", "--quiet"])
            .arg(dir)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "demos index: {status}");
    };
    let t = race(
        min,
        rounds,
        &mut [
            &mut || {
                for i in &inputs {
                    black_box(libtw2_decode(&mut tw, &i.bytes, i.protocol));
                }
            },
            &mut || index(),
            &mut || {
                for i in &inputs {
                    black_box(teebatch_decode(&mut dec, &i.bytes));
                }
            },
            &mut || {
                for f in &files {
                    black_box(index_work(&mut dec2, f));
                }
            },
            &mut || {
                let status = Command::new(exe)
                    .arg("--version")
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success());
            },
            &mut || {
                for f in &files {
                    black_box(Sha256::digest(f));
                }
            },
        ],
    );
    let (tw_full, process, ours, work, start, sha) = (t[0], t[1], t[2], t[3], t[4], t[5]);
    println!(
        "\ngenerated demos ({}): {} demos, {:.2} MB of files, {:.2} MB of chunk data",
        dir.display(),
        inputs.len(),
        file_bytes as f64 / 1e6,
        chunk_bytes as f64 / 1e6,
    );
    println!(
        "\n| work (seconds for the collection, CPU or wall with --wall; MB/s of chunk data) | libtw2 decode only | teebatch | ratio |\n|---|---:|---:|---:|"
    );
    for (name, ours) in [
        ("`demos index --jobs 1`, whole process", process),
        (
            "`demos index` work in memory, 1 thread (SHA-256, decode, analysis)",
            work,
        ),
        ("full decode only, 1 thread, in memory", ours),
    ] {
        println!(
            "| {name} | {tw_full:.3} s ({:.1} MB/s) | {ours:.3} s ({:.1} MB/s) | {:.1}× |",
            mb(chunk_bytes, tw_full),
            mb(chunk_bytes, ours),
            tw_full / ours
        );
    }
    println!(
        "\nprocess start-up and exit alone (`teebatch --version`): {start:.4} s; the whole \
         process less that and the in-memory work (listing, reading, JSON records): {:.4} s",
        process - start - work
    );
    analysis_share(work, sha, ours);
}
