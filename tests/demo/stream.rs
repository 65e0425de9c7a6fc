//! The snapshot stream on every real demo against the golden files of an
//! independent decoder (libtw2): dumps byte for byte, statistics against
//! `summary.json`, parallel decoding against sequential, truncated and
//! corrupted files; and hand-made demos for each stream-level error.

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::Value;
use teebatch::backend::Backend;
use teebatch::codec::huffman;
use teebatch::codec::snapshot::{item_key, Snapshot};
use teebatch::codec::varint;
use teebatch::demo::dump::{dump_on, dump_parallel, DumpError, DumpKind, DumpVisitor};
use teebatch::demo::stream::{
    self, demo_stats, segments, split_points, visit_parallel, Decoder, Event, StatsVisitor,
    StreamErrorKind, StreamWarningKind, Visitor,
};
use teebatch::demo::{Demo, DemoErrorKind};
use teebatch::warn::Discard;

use crate::common::{datasets, files_with_ext};

struct Real {
    name: String,
    bytes: Vec<u8>,
    golden: PathBuf,
}

impl Real {
    fn golden(&self, suffix: &str) -> Vec<u8> {
        let stem = self.name.strip_suffix(".demo").unwrap();
        std::fs::read(self.golden.join(format!("{stem}.{suffix}"))).unwrap()
    }
}

fn real_demos() -> Option<Vec<Real>> {
    let root = datasets()?;
    let demos = files_with_ext(&root.join("demos"), "demo");
    assert!(!demos.is_empty());
    Some(
        demos
            .iter()
            .map(|p: &PathBuf| Real {
                name: p.file_name().unwrap().to_string_lossy().into_owned(),
                bytes: std::fs::read(p).unwrap(),
                golden: root.join("golden"),
            })
            .collect(),
    )
}

fn dump(backend: Backend, demo: &Demo<'_>, kind: DumpKind) -> (Vec<u8>, Option<DumpError>) {
    let mut out = Vec::new();
    let r = dump_on(backend, demo, kind, &mut out);
    (out, r.err())
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn dumps_match_golden() {
    let Some(demos) = real_demos() else { return };
    let mut files = 0;
    for d in &demos {
        let demo = Demo::parse(&d.bytes).unwrap();
        for kind in DumpKind::ALL {
            let golden = d.golden(kind.file_suffix());
            let (out, err) = dump(Backend::Simd, &demo, kind);
            assert!(err.is_none(), "{} {kind:?}: {err:?}", d.name);
            if out != golden {
                let (a, b) = (show(&out), show(&golden));
                let line = a.lines().zip(b.lines()).position(|(x, y)| x != y);
                panic!("{} {kind:?}: differs at line {line:?}", d.name);
            }
            files += 1;
        }
        // The other tiers give the same snapshots and chunks.
        for backend in [Backend::Scalar, Backend::Oracle] {
            for kind in [DumpKind::Snapshots, DumpKind::Chunks] {
                let (out, err) = dump(backend, &demo, kind);
                assert!(err.is_none());
                assert!(out == d.golden(kind.file_suffix()), "{} {backend}", d.name);
            }
        }
    }
    eprintln!("{files} dumps of {} demos match golden", demos.len());
    assert_eq!(files, 4 * demos.len());
}

#[test]
fn stats_match_summary() {
    let Some(demos) = real_demos() else { return };
    for d in &demos {
        let demo = Demo::parse(&d.bytes).unwrap();
        let r = demo_stats(Backend::Simd, &demo);
        assert_eq!(r.error, None, "{}", d.name);
        assert!(r.warnings.is_empty(), "{}: {:?}", d.name, r.warnings);
        let ours = serde_json::to_value(&r.visitor).unwrap();
        let golden: Value = serde_json::from_slice(&d.golden("summary.json")).unwrap();
        let fields = [
            "chunks",
            "first_tick",
            "last_tick",
            "snapshots_reconstructed",
            "ticks_without_snapshot_chunk",
            "decompressed_snapshot_and_delta_bytes",
            "message_bytes_after_int_unpacking",
            "item_types_ordinal",
            "item_types_uuid",
        ];
        for f in fields {
            assert_eq!(ours[f], golden[f], "{} field {f}", d.name);
        }
        assert_eq!(ours.as_object().unwrap().len(), fields.len());
    }
}

#[test]
fn one_pass_for_everything() {
    let Some(demos) = real_demos() else { return };
    let d = demos.iter().max_by_key(|d| d.bytes.len()).unwrap();
    let demo = Demo::parse(&d.bytes).unwrap();
    let dumps: Vec<DumpVisitor> = DumpKind::ALL.into_iter().map(DumpVisitor::new).collect();
    let mut decoder = Decoder::new(Backend::Simd);
    let r = stream::visit(&demo, &mut decoder, (StatsVisitor::new(), dumps));
    assert_eq!(r.error, None);
    let (stats, dumps) = r.visitor;
    assert_eq!(stats.finish(), demo_stats(Backend::Simd, &demo).visitor);
    for (kind, v) in DumpKind::ALL.into_iter().zip(dumps) {
        let mut expect = d.golden(kind.file_suffix());
        expect.drain(..kind.header().map_or(0, str::len));
        assert!(v.out == expect, "{kind:?}");
    }
}

#[test]
fn parallel_equals_sequential() {
    let Some(demos) = real_demos() else { return };
    let mut max_segments = 0;
    for d in &demos {
        let demo = Demo::parse(&d.bytes).unwrap();
        let points = split_points(&demo);
        // Every split point is a keyframe marker followed by a full snapshot.
        for p in &points {
            let c = demo.chunks_at(p.offset, p.index, p.tick_before).next();
            let c = c.unwrap().unwrap();
            assert!(matches!(
                c.kind,
                teebatch::demo::ChunkKind::Tick { keyframe: true, .. }
            ));
        }
        let golden_stats = demo_stats(Backend::Simd, &demo).visitor;
        for count in [1, 2, 3, 64] {
            let segs = segments(&demo, count);
            assert!(segs.len() <= count.max(1));
            if count == 64 {
                // As many segments as there are split points (+ the start).
                let expect = points.len() + usize::from(points.first().is_none_or(|p| p.index > 0));
                assert_eq!(segs.len(), expect, "{}", d.name);
                max_segments = max_segments.max(segs.len());
            }
            for kind in DumpKind::ALL {
                let mut out = Vec::new();
                dump_parallel(Backend::Simd, &demo, kind, &segs, &mut out).unwrap();
                assert!(
                    out == d.golden(kind.file_suffix()),
                    "{} {kind:?} {count}",
                    d.name
                );
            }
            let r = visit_parallel(&demo, Backend::Simd, &segs, StatsVisitor::new);
            assert_eq!(r.error, None);
            let mut merged = stream::DemoStats::default();
            for v in r.visitor {
                merged += v.finish();
            }
            assert_eq!(merged, golden_stats, "{} {count}", d.name);
        }
    }
    eprintln!("largest split: {max_segments} segments");
    assert!(max_segments >= 10);
}

/// Lines of a dump without its header.
fn body(kind: DumpKind, b: &[u8]) -> Vec<String> {
    let s = show(b);
    let skip = usize::from(kind.header().is_some());
    s.lines().skip(skip).map(str::to_owned).collect()
}

#[test]
fn truncated_demos_keep_the_golden_prefix() {
    let Some(demos) = real_demos() else { return };
    let mut outcomes = [0usize; 3]; // parse error, stream error, clean end
    let mut decoder = Decoder::new(Backend::Simd);
    for d in &demos {
        let golden: Vec<Vec<String>> = DumpKind::ALL
            .iter()
            .map(|&k| body(k, &d.golden(k.file_suffix())))
            .collect();
        // 64 cuts over the whole file, 64 over the chunk data (most of a
        // DDNet demo is its embedded map).
        let chunks_at = Demo::parse(&d.bytes).unwrap().chunks_offset();
        let span = d.bytes.len() - chunks_at;
        let cuts = (0..64).map(|k| d.bytes.len() * k / 64);
        let cuts = cuts.chain((0..64).map(|k| chunks_at + span * k / 64));
        for (n, cut) in cuts.enumerate() {
            let data = &d.bytes[..cut];
            let Ok(demo) = Demo::parse(data) else {
                outcomes[0] += 1;
                continue;
            };
            let framing_error = demo.chunks().find_map(|c| c.err());
            for (kind, golden) in DumpKind::ALL.into_iter().zip(&golden) {
                let (out, err) = dump(Backend::Simd, &demo, kind);
                // Read-ahead stops where a chunk-by-chunk pass stops (checked
                // at every fourth cut: the oracle tier is the slow part).
                if n % 4 == 0 {
                    let (plain, plain_err) = dump(Backend::Oracle, &demo, kind);
                    assert!(plain == out, "{} cut {cut} {kind:?}", d.name);
                    assert_eq!(format!("{plain_err:?}"), format!("{err:?}"));
                }
                let lines = body(kind, &out);
                assert!(lines.len() <= golden.len());
                match err {
                    Some(DumpError::Stream(e)) => {
                        // Truncation only ever cuts a chunk short.
                        let f = framing_error.expect("a stream error without framing error");
                        assert_eq!(
                            e.kind,
                            StreamErrorKind::Container(DemoErrorKind::UnexpectedEnd)
                        );
                        assert_eq!(
                            (e.offset, Some(e.chunk)),
                            (
                                f.offset,
                                match f.section {
                                    teebatch::demo::Section::Chunk(i) => Some(i),
                                    _ => None,
                                }
                            )
                        );
                        assert!(e.offset < cut);
                        assert_eq!(lines[..], golden[..lines.len()], "{} cut {cut}", d.name);
                    }
                    Some(DumpError::Io(e)) => panic!("{e}"),
                    None => {
                        assert!(framing_error.is_none());
                        // The last tick may be cut before its snapshot chunk.
                        let n = lines
                            .len()
                            .saturating_sub(usize::from(kind == DumpKind::Ticks));
                        assert_eq!(lines[..n], golden[..n], "{} cut {cut}", d.name);
                        if let (Some(a), DumpKind::Ticks) = (lines.last(), kind) {
                            let tick = |l: &str| l.split('\t').next().unwrap().to_owned();
                            assert_eq!(tick(a), tick(&golden[lines.len() - 1]));
                        }
                    }
                }
            }
            let r = stream::visit(&demo, &mut decoder, StatsVisitor::new());
            outcomes[if r.error.is_some() { 1 } else { 2 }] += 1;
        }
    }
    eprintln!(
        "truncations: {} header/map errors, {} stream errors, {} clean ends",
        outcomes[0], outcomes[1], outcomes[2]
    );
    assert!(outcomes[1] > 0);
}

/// Records, for each dump line, the file offset where the chunk that
/// produced it ends.
struct Located {
    inner: DumpVisitor,
    ends: Vec<usize>,
    base: usize,
}

impl Visitor for Located {
    fn visit(&mut self, event: &Event<'_>) {
        let before = self.inner.out.len();
        self.inner.visit(event);
        let end = match event {
            Event::Snapshot(s) => {
                s.payload.compressed.as_ptr() as usize + s.payload.compressed.len()
            }
            Event::Message(m) => {
                m.payload.compressed.as_ptr() as usize + m.payload.compressed.len()
            }
            Event::Unknown(u) => {
                u.payload.compressed.as_ptr() as usize + u.payload.compressed.len()
            }
            Event::Tick(_) => return,
        };
        let added = self.inner.out[before..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        for _ in 0..added {
            self.ends.push(end - self.base);
        }
    }
}

fn check_corrupted(bytes: &[u8], golden: &[Vec<String>; 2], flips: &[(usize, u8)]) {
    let Ok(clean) = Demo::parse(bytes) else {
        return;
    };
    let start = clean.chunks_offset();
    let span = bytes.len() - start;
    if span == 0 {
        return;
    }
    let mut data = bytes.to_vec();
    let mut first = usize::MAX;
    for &(at, x) in flips {
        let p = start + at % span;
        data[p] ^= x.max(1);
        first = first.min(p);
    }
    let demo = Demo::parse(&data).unwrap();
    // The chunk containing the first flipped byte starts here.
    let mut chunk_start = start;
    for c in clean.chunks() {
        let c = c.unwrap();
        if c.offset > first {
            break;
        }
        chunk_start = c.offset;
    }
    // Split at every keyframe, the corrupted demo decodes to the same lines
    // and the same error as sequentially.
    let segs = segments(&demo, usize::MAX);
    for kind in DumpKind::ALL {
        let (seq, err) = dump(Backend::Simd, &demo, kind);
        // The oracle tier decodes chunk by chunk, without read-ahead.
        let (plain, plain_err) = dump(Backend::Oracle, &demo, kind);
        assert!(plain == seq, "{kind:?}");
        assert_eq!(format!("{plain_err:?}"), format!("{err:?}"));
        let mut par = Vec::new();
        let perr = dump_parallel(Backend::Simd, &demo, kind, &segs, &mut par).err();
        assert!(par == seq, "{kind:?}");
        let stream_err = |e: Option<DumpError>| match e {
            Some(DumpError::Stream(e)) => Some(e),
            Some(DumpError::Io(e)) => panic!("{e}"),
            None => None,
        };
        assert_eq!(stream_err(perr), stream_err(err));
    }
    for (kind, golden) in [DumpKind::Snapshots, DumpKind::Chunks]
        .into_iter()
        .zip(golden)
    {
        let mut v = Located {
            inner: DumpVisitor::new(kind),
            ends: Vec::new(),
            base: data.as_ptr() as usize,
        };
        let mut decoder = Decoder::new(Backend::Simd);
        let err = decoder.stream(&demo, Discard).run(&mut v);
        let lines = body(DumpKind::Snapshots, &v.inner.out);
        assert_eq!(lines.len(), v.ends.len());
        for (i, (line, &end)) in lines.iter().zip(&v.ends).enumerate() {
            if end <= first {
                assert_eq!(Some(line), golden.get(i), "line {i}");
            }
        }
        if let Some(e) = err {
            assert!(e.offset >= chunk_start, "{e} before the flip at {first}");
            assert!(e.offset < data.len());
            // The error names the chunk that starts at its offset.
            let at = demo.chunks().find_map(|c| match c {
                Ok(c) if c.index == e.chunk => Some(c.offset),
                Err(f) => Some(f.offset),
                _ => None,
            });
            assert_eq!(at, Some(e.offset), "{e}");
        }
    }
}

fn corruption_cases() -> Vec<(Vec<u8>, [Vec<String>; 2])> {
    let Some(demos) = real_demos() else {
        return Vec::new();
    };
    demos
        .into_iter()
        .map(|d| {
            let g = [DumpKind::Snapshots, DumpKind::Chunks]
                .map(|k| body(k, &d.golden(k.file_suffix())));
            (d.bytes, g)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn corrupted_demos_never_panic(
        which in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4),
    ) {
        thread_local! {
            static CASES: Vec<(Vec<u8>, [Vec<String>; 2])> = corruption_cases();
        }
        CASES.with(|cases| {
            if cases.is_empty() {
                return;
            }
            let (bytes, golden) = &cases[which.index(cases.len())];
            check_corrupted(bytes, golden, &flips);
        });
    }
}

// ---------------------------------------------------------------------------
// Hand-made demos

/// A version-5 demo header with `net_version`, no map.
fn header(net_version: &str) -> Vec<u8> {
    let mut d = b"TWDEMO\0\x05".to_vec();
    d.resize(8 + 168 + 260, 0);
    d[8..8 + net_version.len()].copy_from_slice(net_version.as_bytes());
    d
}

const V06: &str = "0.6 626fce9a778df4d4";

fn tick_abs(d: &mut Vec<u8>, tick: i32, keyframe: bool) {
    d.push(0x80 | if keyframe { 0x40 } else { 0 });
    d.extend_from_slice(&tick.to_be_bytes());
}

fn tick_delta(d: &mut Vec<u8>, delta: u8, keyframe: bool) {
    d.push(0xa0 | if keyframe { 0x40 } else { 0 } | delta);
}

/// A data chunk of `chunk_type` holding `ints`, packed and compressed.
fn data(d: &mut Vec<u8>, chunk_type: u8, ints: &[i32]) {
    let mut packed = Vec::new();
    varint::pack(ints, &mut packed);
    let mut payload = Vec::new();
    if !packed.is_empty() {
        huffman::compress(&packed, &mut payload);
    }
    raw(d, chunk_type, &payload);
}

fn raw(d: &mut Vec<u8>, chunk_type: u8, payload: &[u8]) {
    let t = chunk_type << 5;
    match payload.len() {
        n @ 0..30 => d.push(t | n as u8),
        n @ 30..256 => d.extend_from_slice(&[t | 30, n as u8]),
        n => {
            d.push(t | 31);
            d.extend_from_slice(&(n as u16).to_le_bytes());
        }
    }
    d.extend_from_slice(payload);
}

fn snapshot_ints(items: &[(u32, &[i32])]) -> Vec<i32> {
    let mut s = Snapshot::new();
    for &(k, data) in items {
        s.push(k, data).unwrap();
    }
    s.to_ints()
}

/// All events as short strings, plus the error and warnings.
fn run(
    bytes: &[u8],
) -> (
    Vec<String>,
    Option<stream::StreamError>,
    Vec<stream::StreamWarning>,
) {
    let demo = Demo::parse(bytes).unwrap();
    let mut decoder = Decoder::new(Backend::Simd);
    let mut warnings = Vec::new();
    let mut s = decoder.stream(&demo, &mut warnings);
    let mut events = Vec::new();
    let err = loop {
        match s.next_event() {
            None => break None,
            Some(Err(e)) => break Some(e),
            Some(Ok(ev)) => events.push(match ev {
                Event::Tick(t) => format!(
                    "T{} k{} s{} n{} c{}",
                    t.tick,
                    u8::from(t.keyframe),
                    u8::from(t.had_snapshot_chunk),
                    t.snapshot.map_or(0, Snapshot::len),
                    t.checksum
                ),
                Event::Snapshot(e) => format!(
                    "{}{} n{} c{}",
                    e.kind.letter(),
                    e.tick,
                    e.snapshot.len(),
                    e.checksum
                ),
                Event::Message(m) => format!("M{} {:?}", m.tick, m.bytes),
                Event::Unknown(u) => format!("U{} {:?}", u.tick, u.payload.ints),
            }),
        }
    };
    assert!(s.next_event().is_none(), "events after the end");
    drop(s);
    (events, err, warnings)
}

#[test]
fn stream_semantics() {
    let mut d = header(V06);
    tick_abs(&mut d, 100, true);
    let full = snapshot_ints(&[(item_key(4, 1), &[1, 2, 3, 4]), (item_key(9, 7), &[10; 22])]);
    data(&mut d, 1, &full);
    data(&mut d, 2, &[1, -2]);
    tick_delta(&mut d, 2, false); // 102: no snapshot chunk
    tick_delta(&mut d, 2, false); // 104: delta updating item 4:1
    data(&mut d, 3, &[0, 1, 0, 4, 1, 1, 1, 1, 1]);
    tick_delta(&mut d, 0, false); // 104 again (inline delta 0 is allowed)
    raw(&mut d, 0, &[]); // unknown, empty
    let (events, err, warnings) = run(&d);
    assert_eq!(err, None);
    assert_eq!(
        events,
        [
            "S100 n2 c230",
            "M100 [1, 0, 0, 0, 254, 255, 255, 255]",
            "T100 k1 s1 n2 c230",
            "T102 k0 s0 n2 c230",
            "D104 n2 c234",
            "T104 k0 s1 n2 c234",
            "U104 []",
            "T104 k0 s0 n2 c234",
        ]
    );
    assert_eq!(
        warnings.iter().map(|w| w.kind).collect::<Vec<_>>(),
        [StreamWarningKind::UnknownChunk]
    );
}

#[test]
fn stream_errors() {
    let kind = |d: &[u8]| run(d).1.map(|e| (e.kind, e.chunk));
    let full = snapshot_ints(&[(item_key(4, 1), &[1, 2, 3, 4])]);

    let mut d = header(V06);
    tick_abs(&mut d, 5, true);
    data(&mut d, 3, &[0, 0, 0]);
    assert_eq!(kind(&d), Some((StreamErrorKind::DeltaBeforeSnapshot, 1)));

    let mut d = header(V06);
    tick_delta(&mut d, 3, false);
    assert_eq!(kind(&d), Some((StreamErrorKind::TickDeltaBeforeStart, 0)));

    let mut d = header(V06);
    tick_abs(&mut d, 5, false);
    data(&mut d, 1, &full);
    tick_abs(&mut d, 5, false);
    let (events, err, _) = run(&d);
    assert_eq!(
        err.map(|e| (e.kind, e.chunk)),
        Some((StreamErrorKind::TickNotIncreasing, 2))
    );
    // The snapshot and its tick stay reported: the refused marker still
    // ends the tick (all its chunks were read), and the error follows.
    assert_eq!(events, ["S5 n1 c10", "T5 k0 s1 n1 c10"]);

    let mut d = header(V06);
    tick_abs(&mut d, -1, false);
    assert_eq!(kind(&d), Some((StreamErrorKind::TickOutOfRange, 0)));
    let mut d = header(V06);
    tick_abs(&mut d, 0x6fff_ffff, false);
    assert_eq!(kind(&d), Some((StreamErrorKind::TickOutOfRange, 0)));

    // Huffman stream without EOF: the error names the chunk and its offset.
    let mut d = header(V06);
    tick_abs(&mut d, 5, false);
    let at = d.len();
    raw(&mut d, 2, &[0, 0, 0]);
    let e = run(&d).1.unwrap();
    assert_eq!(
        (e.kind, e.chunk, e.offset),
        (
            StreamErrorKind::Huffman(huffman::HuffmanErrorKind::MissingEof),
            1,
            at
        )
    );

    // Varint cut inside an int.
    let mut d = header(V06);
    tick_abs(&mut d, 5, false);
    let mut payload = Vec::new();
    huffman::compress(&[0x80], &mut payload);
    raw(&mut d, 2, &payload);
    assert_eq!(
        kind(&d),
        Some((
            StreamErrorKind::Varint(varint::VarintErrorKind::UnexpectedEnd),
            1
        ))
    );

    // More than 16384 ints.
    let mut d = header(V06);
    tick_abs(&mut d, 5, false);
    data(&mut d, 2, &[7; 16385]);
    assert_eq!(kind(&d), Some((StreamErrorKind::PayloadTooLarge, 1)));
    let mut d = header(V06);
    tick_abs(&mut d, 5, false);
    data(&mut d, 2, &[7; 16384]);
    assert_eq!(kind(&d), None);

    // Snapshot errors carry the int offset.
    let mut d = header(V06);
    tick_abs(&mut d, 5, false);
    data(&mut d, 1, &[4, 1, 0, 0x10001, 9]);
    let e = run(&d).1.unwrap();
    assert_eq!(
        (e.kind, e.inner_offset),
        (
            StreamErrorKind::Snapshot(teebatch::codec::snapshot::ErrorKind::TrailingData),
            4
        )
    );

    // Cut inside a chunk.
    let mut d = header(V06);
    tick_abs(&mut d, 5, false);
    d.extend_from_slice(&[0x25, 1]);
    assert_eq!(
        kind(&d),
        Some((StreamErrorKind::Container(DemoErrorKind::UnexpectedEnd), 1))
    );
}

#[test]
fn stream_warnings_and_protocols() {
    // Unknown net version: DDNet's fallback (0.7 prefix -> 0.7), warned.
    // Type 4 has 4 ints in 0.6 and 3 in 0.7, so the same delta decodes
    // differently.
    let build = |nv: &str| {
        let mut d = header(nv);
        tick_abs(&mut d, 10, true);
        data(&mut d, 1, &snapshot_ints(&[]));
        tick_delta(&mut d, 1, true); // keyframe as a delta: warned
        data(&mut d, 3, &[0, 1, 0, 4, 1, 5, 6, 7, 8]);
        d
    };
    let (events, err, w) = run(&build(V06));
    assert_eq!(err, None);
    assert_eq!(events[2], "D11 n1 c26");
    assert_eq!(
        w.iter().map(|w| w.kind).collect::<Vec<_>>(),
        [StreamWarningKind::KeyframeTickDelta]
    );
    let (_, err, w) = run(&build("0.7 802f1be60a05665f"));
    // 0.7: 3 ints for the item, one int left over.
    assert_eq!(err, None);
    assert!(w.iter().any(|w| w.kind
        == StreamWarningKind::Snapshot(teebatch::codec::snapshot::WarningKind::TrailingData)));
    let (_, _, w) = run(&build("0.7 something"));
    assert_eq!(w[0].kind, StreamWarningKind::UnknownNetVersion);
    assert_eq!(w[0].chunk, None);
    assert!(w
        .iter()
        .any(|w| matches!(w.kind, StreamWarningKind::Snapshot(_))));

    // Data before any tick marker: tick -1, warned.
    let mut d = header(V06);
    data(&mut d, 2, &[1]);
    let (events, err, w) = run(&d);
    assert_eq!(err, None);
    assert_eq!(events, ["M-1 [1, 0, 0, 0]"]);
    assert_eq!(w[0].kind, StreamWarningKind::DataBeforeTick);

    // Overlong varints are warned with chunk and byte.
    let mut d = header(V06);
    tick_abs(&mut d, 1, false);
    let mut payload = Vec::new();
    huffman::compress(&[0x01, 0x80, 0x00], &mut payload);
    raw(&mut d, 2, &payload);
    let (_, err, w) = run(&d);
    assert_eq!(err, None);
    assert_eq!(
        (w[0].kind, w[0].chunk, w[0].inner_offset),
        (
            StreamWarningKind::Varint(varint::VarintWarningKind::Overlong),
            Some(1),
            1
        )
    );
}

#[test]
fn segments_of_a_hand_made_demo() {
    // Keyframes at 10 (full snapshot), 20 (delta first: not a split point),
    // 30 (message, then full snapshot).
    let mut d = header(V06);
    tick_abs(&mut d, 10, true);
    data(
        &mut d,
        1,
        &snapshot_ints(&[(item_key(4, 1), &[1, 2, 3, 4])]),
    );
    tick_abs(&mut d, 20, true);
    data(&mut d, 3, &[0, 1, 0, 4, 1, 1, 1, 1, 1]);
    data(
        &mut d,
        1,
        &snapshot_ints(&[(item_key(4, 1), &[9, 9, 9, 9])]),
    );
    tick_delta(&mut d, 5, false);
    tick_abs(&mut d, 30, true);
    data(&mut d, 2, &[3]);
    data(&mut d, 1, &snapshot_ints(&[]));
    tick_delta(&mut d, 1, false);
    data(&mut d, 3, &[0, 1, 0, 4, 2, 1, 1, 1, 1]);
    let demo = Demo::parse(&d).unwrap();
    let points = split_points(&demo);
    assert_eq!(
        points
            .iter()
            .map(|p| (p.index, p.data_index, p.last_tick))
            .collect::<Vec<_>>(),
        [(0, 0, None), (6, 3, Some(25))]
    );
    for count in [0, 1] {
        let one = segments(&demo, count);
        assert_eq!(one.len(), 1);
        assert_eq!((one[0].index, one[0].end), (0, usize::MAX));
    }
    let segs = segments(&demo, 8);
    assert_eq!(segs.len(), 2);
    assert_eq!(segs[0].end, segs[1].offset);
    assert_eq!(segs[1].end, usize::MAX);
    for kind in DumpKind::ALL {
        let (seq, err) = dump(Backend::Simd, &demo, kind);
        assert!(err.is_none());
        let mut par = Vec::new();
        dump_parallel(Backend::Simd, &demo, kind, &segs, &mut par).unwrap();
        assert_eq!(show(&par), show(&seq), "{kind:?}");
    }
}

#[test]
fn parallel_stops_where_sequential_stops() {
    // The second keyframe repeats tick 11: sequentially, decoding stops
    // there without emitting tick 11; split at that keyframe, the first
    // segment must not emit it either.
    let mut d = header(V06);
    tick_abs(&mut d, 10, true);
    data(
        &mut d,
        1,
        &snapshot_ints(&[(item_key(4, 1), &[1, 2, 3, 4])]),
    );
    tick_delta(&mut d, 1, false);
    tick_abs(&mut d, 11, true);
    data(&mut d, 1, &snapshot_ints(&[]));
    let demo = Demo::parse(&d).unwrap();
    let segs = segments(&demo, 8);
    assert_eq!(segs.len(), 2);
    for kind in DumpKind::ALL {
        let (seq, err) = dump(Backend::Simd, &demo, kind);
        let Some(DumpError::Stream(e)) = err else {
            panic!()
        };
        assert_eq!((e.kind, e.chunk), (StreamErrorKind::TickNotIncreasing, 3));
        let mut par = Vec::new();
        let r = dump_parallel(Backend::Simd, &demo, kind, &segs, &mut par);
        let Err(DumpError::Stream(pe)) = r else {
            panic!()
        };
        assert_eq!(pe, e);
        assert_eq!(show(&par), show(&seq), "{kind:?}");
    }
}
