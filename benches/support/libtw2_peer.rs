//! The real demos and the two decoders the demo benches compare: teebatch's
//! stream and libtw2's published crates (its demo reader for framing and
//! Huffman, its snapshot crate for snapshots, deltas and checksums). Shared
//! by `benches/criterion/demos.rs` (criterion) and `benches/race/peers.rs` (ratios in one
//! run).
#![allow(dead_code)]

use std::io::Cursor;
use std::path::PathBuf;

use libtw2_snapshot::snap::{Delta as TwDelta, RawSnap};
use teebatch::codec::snapshot::Protocol;
use teebatch::demo::stream::{Decoder, Event, Visitor};
use teebatch::demo::Demo;

#[path = "../../tests/common/datasets.rs"]
mod datasets;

pub struct Input {
    pub name: String,
    /// The demo without its embedded map.
    pub bytes: Vec<u8>,
    pub protocol: Protocol,
    pub chunk_bytes: u64,
}

pub fn inputs() -> Vec<Input> {
    let Some(root) = datasets::shared_datasets_dir(env!("CARGO_MANIFEST_DIR")) else {
        eprintln!("SKIPPED: ../shared/datasets not found");
        return Vec::new();
    };
    inputs_in(&root.join("demos"))
}

/// The `*.demo` files directly in `dir`, by name.
pub fn inputs_in(dir: &std::path::Path) -> Vec<Input> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "demo"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let file = std::fs::read(p).unwrap();
            let demo = Demo::parse(&file).unwrap();
            let mut bytes = file[..demo.map_offset()].to_vec();
            bytes[136..140].copy_from_slice(&0i32.to_be_bytes());
            bytes.extend_from_slice(&file[demo.chunks_offset()..]);
            let chunk_bytes = demo
                .chunks()
                .filter_map(|c| c.unwrap().kind.payload())
                .map(|d| d.len() as u64)
                .sum();
            let protocol = demo.protocol().unwrap();
            let stem = p.file_stem().unwrap().to_string_lossy();
            // Short names: the ChillerDragon clips by their middle part.
            let name = match stem.split("__").nth(1) {
                Some(mid) => mid.to_owned(),
                None => stem.into_owned(),
            };
            Input {
                name,
                bytes,
                protocol,
                chunk_bytes,
            }
        })
        .collect()
}

/// Sums snapshot checksums so nothing is optimised away.
#[derive(Default)]
pub struct Sum(pub i32);

impl Visitor for Sum {
    fn visit(&mut self, event: &Event<'_>) {
        if let Event::Snapshot(s) = event {
            self.0 = self.0.wrapping_add(s.checksum);
        }
    }
}

pub fn teebatch_decode(decoder: &mut Decoder, bytes: &[u8]) -> i32 {
    let demo = Demo::parse(bytes).unwrap();
    let mut sum = Sum::default();
    let err = decoder.stream(&demo, teebatch::warn::Discard).run(&mut sum);
    assert!(err.is_none());
    sum.0
}

/// libtw2's state for one demo pass.
pub struct Tw {
    demo_warnings: Vec<libtw2_demo::Warning>,
    snap_warnings: Vec<libtw2_snapshot::format::Warning>,
    buf: Vec<i32>,
    snap: RawSnap,
    next: RawSnap,
    delta: TwDelta,
}

impl Tw {
    pub fn new() -> Tw {
        Tw {
            demo_warnings: Vec::new(),
            snap_warnings: Vec::new(),
            buf: Vec::new(),
            snap: RawSnap::empty(),
            next: RawSnap::empty(),
            delta: TwDelta::new(),
        }
    }
}

pub fn libtw2_decode(tw: &mut Tw, bytes: &[u8], protocol: Protocol) -> i32 {
    use libtw2_demo::RawChunk;
    tw.demo_warnings.clear();
    tw.snap_warnings.clear();
    let mut reader = libtw2_demo::Reader::new(Cursor::new(bytes), &mut tw.demo_warnings).unwrap();
    let size = |t: u16| protocol.static_size(u32::from(t)).map(|s| s as u32);
    let mut sum = 0i32;
    while let Some(chunk) = reader.read_chunk(&mut tw.demo_warnings).unwrap() {
        match chunk {
            RawChunk::Snapshot(data) => {
                tw.snap
                    .read(&mut tw.snap_warnings, &mut tw.buf, data)
                    .unwrap();
                sum = sum.wrapping_add(tw.snap.crc());
            }
            RawChunk::SnapshotDelta(data) => {
                let mut unpacker = libtw2_packer::Unpacker::new(data);
                tw.delta
                    .read(&mut tw.snap_warnings, size, &mut unpacker)
                    .unwrap();
                tw.next
                    .read_with_delta(&mut tw.snap_warnings, &tw.snap, &tw.delta)
                    .unwrap();
                std::mem::swap(&mut tw.snap, &mut tw.next);
                sum = sum.wrapping_add(tw.snap.crc());
            }
            RawChunk::Message(_) | RawChunk::Tick { .. } | RawChunk::Unknown => {}
        }
    }
    sum
}
