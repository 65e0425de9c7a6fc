//! Hostile demos: crafted files that try to make the demo parsers (framing,
//! Huffman, varints, the snapshot stream) allocate without bound, loop
//! forever or crash, each checked for the exact error (kind, chunk, byte
//! offset) it must produce, on their own and through `demos index`.
//!
//! How the crafted demos are made: they start with the crate's
//! `DemoWriter` (header, valid tick markers, snapshots it accepts); what it
//! refuses is appended by hand after `finish_vec`: tick markers that go
//! backwards or out of range (`TickBackwards` / `NegativeTick`), raw Huffman
//! payloads (it only compresses what it varint-packed itself), overlong
//! varints (it packs minimal forms), deltas that would make a snapshot of
//! more than 1024 items (`Snapshot::push` refuses them before the writer is
//! reached). Header fields it never writes (`map_size` 2^31 - 1 or negative,
//! 65 timeline markers) are patched into its output.

use std::io::Cursor;

use crate::common::{records, teebatch};
use teebatch::backend::Backend;
use teebatch::batch;
use teebatch::codec::huffman::{self, HuffmanErrorKind};
use teebatch::codec::kernels::Kernels;
use teebatch::codec::snapshot::{self, item_key, Protocol, Snapshot};
use teebatch::codec::varint::{self, VarintErrorKind, VarintWarningKind};
use teebatch::demo::stream::{
    segments, Decoder, Event, StreamError, StreamErrorKind, StreamWarningKind,
};
use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter, WriteErrorKind};
use teebatch::demo::{self, Demo, DemoErrorKind};
use teebatch::limits::Limits;
use teebatch::warn::{Discard, Warnings};

const DATA_SNAPSHOT: u8 = 1;
const DATA_MESSAGE: u8 = 2;
const DATA_DELTA: u8 = 3;
/// An item type with no pre-agreed size in 0.6: deltas carry its size.
const FREE_TYPE: u16 = 100;

/// A version-6, protocol-0.6 demo written by `DemoWriter`: `f` writes the
/// chunks it accepts; hand-made chunks are appended to the result.
fn writer_demo(f: impl FnOnce(&mut DemoWriter<Cursor<Vec<u8>>>)) -> Vec<u8> {
    let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "hostile", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    f(&mut w);
    w.finish_vec().unwrap()
}

/// Tick 100 (keyframe) with an empty full snapshot.
fn keyframe_100(w: &mut DemoWriter<Cursor<Vec<u8>>>) {
    w.tick(100, true).unwrap();
    w.full_snapshot(&Snapshot::new()).unwrap();
}

/// Appends a data chunk with this raw (already Huffman-coded) payload.
fn raw_chunk(d: &mut Vec<u8>, chunk_type: u8, payload: &[u8]) -> usize {
    let at = d.len();
    let head = chunk_type << 5;
    match payload.len() {
        n @ 0..=29 => d.push(head | n as u8),
        n @ 30..=255 => d.extend_from_slice(&[head | 30, n as u8]),
        n => {
            d.push(head | 31);
            d.extend_from_slice(&u16::try_from(n).unwrap().to_le_bytes());
        }
    }
    d.extend_from_slice(payload);
    at
}

/// Appends a data chunk of `ints`, varint-packed and Huffman-coded.
fn ints_chunk(d: &mut Vec<u8>, chunk_type: u8, ints: &[i32]) -> usize {
    let mut packed = Vec::new();
    varint::pack(ints, &mut packed);
    let mut payload = Vec::new();
    huffman::compress(&packed, &mut payload);
    raw_chunk(d, chunk_type, &payload)
}

/// Appends an absolute tick marker (versions 5/6 layout).
fn raw_tick(d: &mut Vec<u8>, tick: i32, keyframe: bool) -> usize {
    let at = d.len();
    d.push(0x80 | if keyframe { 0x40 } else { 0 });
    d.extend_from_slice(&tick.to_be_bytes());
    at
}

/// Decodes `bytes` with a fresh decoder (limit `max_ticks` if given): the
/// events in short form and the error.
fn stream(bytes: &[u8], max_ticks: Option<u64>) -> (Vec<String>, Option<StreamError>) {
    let demo = Demo::parse(bytes).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    if let Some(m) = max_ticks {
        dec.set_max_ticks(m);
    }
    let mut s = dec.stream(&demo, Discard);
    let mut events = Vec::new();
    let err = loop {
        match s.next_event() {
            None => break None,
            Some(Err(e)) => break Some(e),
            Some(Ok(ev)) => events.push(match ev {
                Event::Tick(t) => format!("T{}", t.tick),
                Event::Snapshot(e) => {
                    format!("{}{} n{}", e.kind.letter(), e.tick, e.snapshot.len())
                }
                Event::Message(m) => format!("M{} {}", m.tick, m.bytes.len()),
                Event::Unknown(u) => format!("U{}", u.tick),
            }),
        }
    };
    assert!(s.next_event().is_none(), "events after the end");
    (events, err)
}

fn err_of(e: Option<StreamError>) -> (StreamErrorKind, usize, usize, usize) {
    let e = e.expect("stream must fail");
    (e.kind, e.chunk, e.offset, e.inner_offset)
}

/// A crafted demo and the record error `demos index` must give it: (file
/// name, bytes, stage, kind, section, offset).
type CraftedDemo = (&'static str, Vec<u8>, &'static str, String, String, u64);

/// Every crafted demo of this file.
fn crafted_demos() -> Vec<CraftedDemo> {
    let mut v = Vec::new();
    for (name, byte) in [("huffman_zeros", 0x00u8), ("huffman_ones", 0xff)] {
        let (d, at, _) = huffman_no_eof(byte, 1000);
        v.push((
            name,
            d,
            "stream",
            "huffman.missing_eof".to_string(),
            "chunk 2".to_string(),
            at as u64,
        ));
    }
    let (d, at) = varint_payload(65536);
    v.push((
        "varint_continuation",
        d,
        "stream",
        "varint.unexpected_end".into(),
        "chunk 2".into(),
        at as u64,
    ));
    let (d, at) = delta_1024_items_per_tick();
    v.push((
        "delta_bomb",
        d,
        "stream",
        "snapshot.too_many_items".into(),
        "chunk 5".into(),
        at as u64,
    ));
    let (d, at) = tick_demo(50);
    v.push((
        "tick_backwards",
        d,
        "stream",
        "tick_not_increasing".into(),
        "chunk 2".into(),
        at as u64,
    ));
    let (d, at) = tick_demo(i32::MAX);
    v.push((
        "tick_jump",
        d,
        "stream",
        "tick_out_of_range".into(),
        "chunk 2".into(),
        at as u64,
    ));
    let plain = writer_demo(keyframe_100);
    for (name, value, kind, section, offset) in [
        (
            "map_size_max",
            i32::MAX,
            "unexpected_end",
            "map",
            plain.len(),
        ),
        ("map_size_negative", -1, "negative_map_size", "header", 136),
    ] {
        let mut d = plain.clone();
        d[136..140].copy_from_slice(&value.to_be_bytes());
        v.push((name, d, "demo", kind.into(), section.into(), offset as u64));
    }
    for (name, value) in [("markers_65", 65), ("markers_negative", -1)] {
        let mut d = plain.clone();
        d[176..180].copy_from_slice(&i32::to_be_bytes(value));
        v.push((
            name,
            d,
            "demo",
            "timeline_marker_count".into(),
            "timeline markers".into(),
            176,
        ));
    }
    v
}

/// A message chunk whose Huffman payload is `len` bytes of `byte`, after a
/// keyframe: (demo, offset of that chunk, the Huffman error on its own).
fn huffman_no_eof(byte: u8, len: usize) -> (Vec<u8>, usize, huffman::HuffmanError) {
    let mut d = writer_demo(keyframe_100);
    let payload = vec![byte; len];
    let at = raw_chunk(&mut d, DATA_MESSAGE, &payload);
    let mut out = vec![0; Limits::MAX_CHUNK_PAYLOAD];
    let e = huffman::decompress(&payload, &mut out).unwrap_err();
    (d, at, e)
}

#[test]
fn huffman_payload_without_eof() {
    for byte in [0x00u8, 0xff] {
        // 1000 bytes: the decoder runs to the end of the input, never to
        // EOF, and stops there.
        let (d, at, e) = huffman_no_eof(byte, 1000);
        assert_eq!((e.kind, e.offset), (HuffmanErrorKind::MissingEof, 1000));
        for backend in huffman::Tier::ALL.into_iter().filter(|t| t.available()) {
            let mut out = vec![0; Limits::MAX_CHUNK_PAYLOAD];
            let payload = &d[at + 3..];
            let eb = huffman::decompress_on(backend, payload, &mut out).unwrap_err();
            assert_eq!(eb, e, "{backend:?}");
        }
        let (events, err) = stream(&d, None);
        // The snapshot stays reported; the tick it was in is unfinished.
        assert_eq!(events, ["S100 n0"], "{byte:#x}");
        assert_eq!(
            err_of(err),
            (
                StreamErrorKind::Huffman(HuffmanErrorKind::MissingEof),
                2,
                at,
                1000
            )
        );
    }
    // The longest payload a chunk can carry: 65535 zero bytes decode to
    // 0x80s until the 64 KiB buffer is full, then stop (output bounded).
    let (d, at, e) = huffman_no_eof(0x00, u16::MAX as usize);
    assert_eq!(e.kind, HuffmanErrorKind::OutputFull);
    let (_, err) = stream(&d, None);
    assert_eq!(
        err_of(err),
        (StreamErrorKind::PayloadTooLarge, 2, at, e.offset)
    );
}

/// A message chunk whose decoded payload is `n` continuation bytes.
fn varint_payload(n: usize) -> (Vec<u8>, usize) {
    let mut d = writer_demo(keyframe_100);
    let mut payload = Vec::new();
    huffman::compress(&vec![0x80; n], &mut payload);
    assert!(payload.len() <= u16::MAX as usize, "{}", payload.len());
    let at = raw_chunk(&mut d, DATA_MESSAGE, &payload);
    (d, at)
}

#[test]
fn varint_continuation_bytes() {
    // 10 MB of 0x80: every 5 bytes are one (overlong, padded) int, so the
    // output fills up long before the input ends; the error names the first
    // int that does not fit, and warnings stop there too.
    let input = vec![0x80u8; 10_000_000];
    for backend in [Backend::Oracle, Backend::Scalar, Backend::Simd] {
        let mut out = vec![0i32; Limits::MAX_CHUNK_PAYLOAD / 4];
        let mut warnings = Vec::new();
        let e = Kernels::new(backend)
            .unpack(&input, &mut out, &mut warnings)
            .unwrap_err();
        assert_eq!(
            (e.kind, e.offset),
            (VarintErrorKind::OutputFull, 5 * 16384),
            "{backend:?}"
        );
        assert_eq!(warnings.len(), 16384, "{backend:?}");
        assert!(warnings
            .iter()
            .all(|w| w.kind == VarintWarningKind::NonZeroPadding));
        assert!(out.iter().all(|&v| v == 0), "{backend:?}");
    }
    // Cut inside the last int: the error is at its first byte.
    let input = vec![0x80u8; 1003];
    let mut out = vec![0i32; 1000];
    let e = varint::unpack(&input, &mut out, &mut Vec::new()).unwrap_err();
    assert_eq!((e.kind, e.offset), (VarintErrorKind::UnexpectedEnd, 1000));

    // As a demo chunk: 64 KiB of 0x80 is 13107 ints and one byte, cut.
    let (d, at) = varint_payload(65536);
    let (events, err) = stream(&d, None);
    assert_eq!(events, ["S100 n0"]);
    assert_eq!(
        err_of(err),
        (
            StreamErrorKind::Varint(VarintErrorKind::UnexpectedEnd),
            2,
            at,
            65535
        )
    );
    // One byte more does not fit the 64 KiB chunk buffer: the Huffman stage
    // stops at the byte that would overflow it.
    let (d, at) = varint_payload(65537);
    let e = err_of(stream(&d, None).1);
    assert_eq!((e.0, e.1, e.2), (StreamErrorKind::PayloadTooLarge, 2, at));
}

/// Keyframe 100 with an empty snapshot; tick 101: a delta (by the writer)
/// adding 1024 items; tick 102: a hand-made delta adding 1024 more. Returns
/// the demo and the offset of the second delta chunk.
fn delta_1024_items_per_tick() -> (Vec<u8>, usize) {
    assert_eq!(Protocol::V06.static_size(u32::from(FREE_TYPE)), None);
    let mut snap = Snapshot::new();
    for id in 0..1024u16 {
        snap.push(item_key(FREE_TYPE, id), &[i32::from(id)])
            .unwrap();
    }
    // The snapshot cannot grow past the protocol limit even in memory.
    assert_eq!(
        snap.push(item_key(FREE_TYPE, 1024), &[0]).unwrap_err().kind,
        snapshot::ErrorKind::TooManyItems
    );
    let mut d = writer_demo(|w| {
        keyframe_100(w);
        w.tick(101, false).unwrap();
        w.delta_snapshot(&snap, false).unwrap();
    });
    raw_tick(&mut d, 102, false);
    let mut ints = vec![0, 1024, 0];
    for id in 1024..2048 {
        ints.extend_from_slice(&[i32::from(FREE_TYPE), id, 1, id]);
    }
    let at = ints_chunk(&mut d, DATA_DELTA, &ints);
    (d, at)
}

#[test]
fn delta_adding_1024_items_every_tick() {
    let (d, at) = delta_1024_items_per_tick();
    let (events, err) = stream(&d, None);
    // What came before stays: the first 1024 items were reconstructed.
    assert_eq!(events, ["S100 n0", "T100", "D101 n1024", "T101"]);
    // The first item delta (int 3) is the 1025th item.
    assert_eq!(
        err_of(err),
        (
            StreamErrorKind::Snapshot(snapshot::ErrorKind::TooManyItems),
            5,
            at,
            3
        )
    );
    // A full snapshot claiming 1025 items is refused the same way.
    let mut d = writer_demo(|w| w.tick(100, true).unwrap());
    let mut ints = vec![4 * 1025, 1025];
    ints.extend((0..1025).map(|i| 4 * i));
    ints.extend((0..1025).map(|i| item_key(FREE_TYPE, i as u16) as i32));
    let at = ints_chunk(&mut d, DATA_SNAPSHOT, &ints);
    assert_eq!(
        err_of(stream(&d, None).1),
        (
            StreamErrorKind::Snapshot(snapshot::ErrorKind::TooManyItems),
            1,
            at,
            1
        )
    );
}

/// Keyframe 100 then an absolute tick marker `next` (by hand: the writer
/// refuses ticks that go backwards or are negative).
fn tick_demo(next: i32) -> (Vec<u8>, usize) {
    let mut d = writer_demo(keyframe_100);
    let at = raw_tick(&mut d, next, false);
    (d, at)
}

#[test]
fn ticks_backwards_and_far_jumps() {
    let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "hostile", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    w.tick(100, true).unwrap();
    assert_eq!(
        w.tick(50, false).unwrap_err().kind,
        WriteErrorKind::TickBackwards
    );
    assert_eq!(
        w.tick(100i32.wrapping_add(i32::MIN), false)
            .unwrap_err()
            .kind,
        WriteErrorKind::NegativeTick
    );

    for (next, kind) in [
        (50, StreamErrorKind::TickNotIncreasing),
        (100, StreamErrorKind::TickNotIncreasing),
        // +2^31 wraps to a negative tick: it goes backwards.
        (
            100i32.wrapping_add(i32::MIN),
            StreamErrorKind::TickNotIncreasing,
        ),
        // +2^31 - 101: past DDNet's MAX_TICK.
        (i32::MAX, StreamErrorKind::TickOutOfRange),
        (0x6fff_ffff, StreamErrorKind::TickOutOfRange),
    ] {
        let (d, at) = tick_demo(next);
        let (events, err) = stream(&d, None);
        // The refused marker still completes tick 100.
        assert_eq!(events, ["S100 n0", "T100"], "{next}");
        assert_eq!(err_of(err), (kind, 2, at, 0), "{next}");
    }
    // The last valid tick, then an inline delta of 31 past the range.
    let mut d = writer_demo(|w| w.tick(0x6fff_fff0, true).unwrap());
    let at = d.len();
    d.push(0xa0 | 31);
    let (events, err) = stream(&d, None);
    assert_eq!(events, ["T1879048176"]);
    assert_eq!(err_of(err), (StreamErrorKind::TickOutOfRange, 1, at, 0));
}

#[test]
fn tick_limit() {
    // 20 tick markers; a limit of 10 stops at the 11th (chunk 10).
    let mut offsets = Vec::new();
    let d = writer_demo(|w| {
        for i in 0..20 {
            offsets.push(w.position() as usize);
            w.tick(100 + i, i == 0).unwrap();
        }
    });
    let (events, err) = stream(&d, Some(10));
    // Ten ticks complete: the 11th marker is refused, but it ends the
    // tenth tick (all of its chunks were read) before the error.
    assert_eq!(events.len(), 10);
    assert_eq!(events[9], "T109");
    assert_eq!(
        err_of(err),
        (StreamErrorKind::TooManyTicks, 10, offsets[10], 0)
    );
    // Exactly at the limit: no error.
    let (events, err) = stream(&d, Some(20));
    assert_eq!((events.len(), err), (20, None));
    // The default accepts a week of ticks.
    assert_eq!(Decoder::default().max_ticks(), 50 * 3600 * 24 * 7);

    // Segments count the tick markers before them: a demo with a keyframe
    // every 5 ticks, split at every keyframe, hits the limit at the same
    // chunk as the sequential pass, inside the segment that holds it.
    let d = writer_demo(|w| {
        for i in 0..40 {
            w.tick(100 + i, i % 5 == 0).unwrap();
            if i % 5 == 0 {
                w.full_snapshot(&Snapshot::new()).unwrap();
            }
        }
    });
    let demo = Demo::parse(&d).unwrap();
    let (_, seq) = stream(&d, Some(23));
    let seq = seq.unwrap();
    assert_eq!(seq.kind, StreamErrorKind::TooManyTicks);
    let segs = segments(&demo, 100);
    assert_eq!(segs.len(), 8);
    let mut dec = Decoder::new(Backend::Simd);
    dec.set_max_ticks(23);
    let mut errors = Vec::new();
    for (i, seg) in segs.iter().enumerate() {
        let mut s = dec.stream_segment(&demo, seg, Discard);
        while let Some(r) = s.next_event() {
            if let Err(e) = r {
                errors.push((i, e));
            }
        }
    }
    // Segment 4 (ticks 120..=124) holds the 24th marker; the later ones
    // start past the limit (a parallel pass keeps only the first failing
    // segment).
    assert_eq!(errors[0], (4, seq));
    assert_eq!(errors.len(), 4);
    assert!(errors[1..]
        .iter()
        .all(|(_, e)| e.kind == StreamErrorKind::TooManyTicks));
}

#[test]
fn header_counts_out_of_range() {
    for (name, bytes, stage, kind, section, offset) in crafted_demos() {
        if stage != "demo" {
            continue;
        }
        let e = Demo::parse(&bytes).unwrap_err();
        let want_kind = match kind.as_str() {
            "unexpected_end" => DemoErrorKind::UnexpectedEnd,
            "negative_map_size" => DemoErrorKind::NegativeMapSize,
            "timeline_marker_count" => DemoErrorKind::TimelineMarkerCount,
            k => panic!("{k}"),
        };
        assert_eq!(e.kind, want_kind, "{name}");
        assert_eq!(e.section.to_string(), section, "{name}");
        assert_eq!(e.offset as u64, offset, "{name}");
    }
    // map_size 2^31 - 1 with the file cut: the header is still readable.
    let mut d = writer_demo(keyframe_100);
    d[136..140].copy_from_slice(&i32::MAX.to_be_bytes());
    let partial = Demo::parse_truncated_map(&d).unwrap();
    assert_eq!(partial.map_size(), i32::MAX as u32);
    assert_eq!(partial.chunks_offset(), d.len());
    assert_eq!(Demo::parse(&d).unwrap_err().section, demo::Section::Map);
}

/// `demos index` keeps the chunk framing warnings as its stream reads the
/// chunks (one pass over the headers), then walks on from where the stream
/// stopped. Its demo-stage warnings must be the header warnings and those
/// of a walk over every chunk, in file order: also where a payload that
/// does not decode stops the stream more than a read-ahead queue (512
/// chunks) before the framing oddities after it, and under every cap.
#[test]
fn framing_warnings_in_one_pass_equal_a_walk_over_every_chunk() {
    let mut d = writer_demo(keyframe_100);
    let mut empty_message = Vec::new();
    huffman::compress(&[0], &mut empty_message);
    // Framing oddities: a size escape for a small size, a type-0 chunk.
    let overlong = |d: &mut Vec<u8>| {
        d.extend_from_slice(&[(DATA_MESSAGE << 5) | 30, empty_message.len() as u8]);
        d.extend_from_slice(&empty_message);
    };
    overlong(&mut d);
    // A payload with no EOF: the stream stops here with an error.
    let bad = raw_chunk(&mut d, DATA_MESSAGE, &[0xff; 40]);
    for tick in 0..600 {
        raw_tick(&mut d, 101 + tick, false);
    }
    let late = d.len();
    overlong(&mut d);
    raw_chunk(&mut d, 0, &empty_message);
    overlong(&mut d);
    let walk = |max: usize| {
        let mut w = Warnings::new(max);
        let demo = Demo::parse_with_warnings(&d, &mut w).unwrap();
        let mut chunks = demo.chunks();
        while let Some(Ok(_)) = chunks.next_with_warnings(&mut w) {}
        w.iter()
            .map(|w| (w.kind.kind(), w.section.to_string(), w.offset as u64))
            .collect::<Vec<_>>()
    };
    let all = walk(100);
    assert_eq!(all.len(), 4, "{all:?}");
    assert_eq!(
        all[1],
        ("overlong_chunk_size", "chunk 604".to_string(), late as u64)
    );
    let mut dec = Decoder::new(Backend::Simd);
    for max in [0, 1, 2, 3, 4, 5, 100] {
        let mut rec = batch::demos::DemoRecord::default();
        batch::demos::index_bytes(&mut rec, &d, &mut dec, max);
        let error = rec
            .error
            .as_ref()
            .expect("the bad payload stops the stream");
        assert_eq!(error.offset, bad as u64);
        let got: Vec<_> = rec
            .warnings
            .iter()
            .filter(|w| w.stage == batch::record::Stage::Demo)
            .map(|w| (w.kind, w.section.clone(), w.offset))
            .collect();
        assert_eq!(got, walk(max), "max {max}");
    }
}

/// Every crafted demo through `demos index`: one record each, with the
/// error the library reports.
/// Container warnings (chunk framing) reach the index record: a message
/// chunk whose small size is written with the one-byte escape (30, n).
#[test]
fn container_warnings_through_demos_index() {
    let mut bytes = writer_demo(keyframe_100);
    let at = bytes.len();
    // An empty message: the header int 0.
    let mut payload = Vec::new();
    huffman::compress(&[0], &mut payload);
    assert!(payload.len() < 30);
    bytes.extend_from_slice(&[(DATA_MESSAGE << 5) | 30, payload.len() as u8]);
    bytes.extend_from_slice(&payload);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("overlong.demo"), &bytes).unwrap();
    let out = teebatch(&["demos", "index", "-q", dir.path().to_str().unwrap()]);
    let recs = records(&out);
    let w = &recs[0]["warnings"];
    assert_eq!(w.as_array().map(Vec::len), Some(2), "{w}");
    assert_eq!(w[0]["stage"], "demo");
    assert_eq!(w[0]["kind"], "overlong_chunk_size");
    assert_eq!(w[0]["section"], "chunk 2");
    assert_eq!(w[0]["offset"], at as u64);
    // The message itself (header int 0: an extended message without its
    // UUID) does not decode: a message warning names the chunk and why.
    assert_eq!(w[1]["stage"], "message");
    assert_eq!(w[1]["kind"], "undecodable.unexpected_end");
    assert_eq!(w[1]["section"], "chunk 2");
    assert_eq!(w[1]["offset"], at as u64);
    assert_eq!(recs[0]["messages"]["undecodable"], 1);
}

#[test]
fn crafted_demos_through_demos_index() {
    let dir = tempfile::tempdir().unwrap();
    let crafted = crafted_demos();
    for (name, bytes, ..) in &crafted {
        std::fs::write(dir.path().join(format!("{name}.demo")), bytes).unwrap();
    }
    let out = teebatch(&["demos", "index", "-q", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let recs = records(&out);
    assert_eq!(recs.len(), crafted.len());
    for (name, _, stage, kind, section, offset) in &crafted {
        let r = recs
            .iter()
            .find(|r| r["name"] == *name)
            .unwrap_or_else(|| panic!("no record for {name}"));
        let e = &r["error"];
        assert_eq!(e["stage"], *stage, "{name}: {e}");
        assert_eq!(e["kind"], kind.as_str(), "{name}: {e}");
        assert_eq!(e["section"], section.as_str(), "{name}: {e}");
        assert_eq!(e["offset"], *offset, "{name}: {e}");
        if *stage == "stream" {
            // Decoded up to the fault: the keyframe's snapshot chunk is
            // counted; `snapshots_reconstructed` only counts complete ticks.
            let c = &r["chunks"];
            let chunks = c["snapshot"].as_u64().unwrap() + c["snapshot_delta"].as_u64().unwrap();
            assert!(chunks >= 1, "{name}");
            let s = r["snapshots_reconstructed"].as_u64().unwrap();
            assert!(s <= chunks, "{name}");
            assert_eq!(s == 0, r["ticks"] == 0, "{name}: {r}");
        } else if *name == "map_size_max" {
            // The header survives a map cut off by the end of the file.
            assert_eq!(r["header"]["map_size"], i32::MAX as u32, "{name}");
        }
    }
}

/// 1000 message chunks of 16 384 overlong varints each (12 MB): every int
/// is a warning, 16.4 million of them (655 MB of `StreamWarning`s before the
/// limit existed). The caller's sink keeps `max_warnings` and one
/// `TooManyWarnings` at the first one left out, and counts them all.
#[test]
fn warnings_are_bounded() {
    let mut d = writer_demo(keyframe_100);
    let packed: Vec<u8> = std::iter::repeat_n([0x80u8, 0x00], 16384)
        .flatten()
        .collect();
    let mut payload = Vec::new();
    huffman::compress(&packed, &mut payload);
    assert!(payload.len() < 13_000, "{}", payload.len());
    let first = raw_chunk(&mut d, DATA_MESSAGE, &payload);
    for _ in 1..1000 {
        raw_chunk(&mut d, DATA_MESSAGE, &payload);
    }
    let demo = Demo::parse(&d).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    let out = teebatch::demo::stream::visit(&demo, &mut dec, NoVisit);
    assert_eq!(out.error, None);
    let w = &out.warnings;
    assert_eq!(w.len(), 1025);
    assert!(w[..1024]
        .iter()
        .all(|w| w.kind == StreamWarningKind::Varint(VarintWarningKind::Overlong)));
    assert_eq!(
        (
            w[1024].kind,
            w[1024].chunk,
            w[1024].offset,
            w[1024].inner_offset
        ),
        (StreamWarningKind::TooManyWarnings, Some(2), first, 2 * 1024)
    );
    // A smaller limit, as `demos index` builds it: the same cut.
    let mut w = Warnings::new(3);
    let (_, error) = teebatch::demo::stream::visit_observed(&demo, &mut dec, NoVisit, &mut w);
    assert_eq!(error, None);
    assert_eq!(w.len(), 4);
    assert_eq!(w[3].kind, StreamWarningKind::TooManyWarnings);
    assert_eq!(w.total(), 1000 * 16384);
}

struct NoVisit;

impl teebatch::demo::stream::Visitor for NoVisit {
    fn visit(&mut self, _: &Event<'_>) {}
}
