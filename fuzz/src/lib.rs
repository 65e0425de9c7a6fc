//! The properties every fuzz target checks, one function per target.
//!
//! Each function takes arbitrary bytes and panics when a property fails;
//! on hostile input the parsers themselves must never panic, abort, hang or
//! allocate without bound. The same file is compiled into the integration
//! tests (`tests/fuzz/smoke.rs` includes it with `#[path]`), so the CI smoke
//! campaign and libFuzzer check exactly the same things. It may only depend
//! on `teebatch` and `std`.
//!
//! Layout of the inputs (the fuzzer learns them; the seeds follow them):
//!
//! - `datafile`, `map`, `demo`, `analysis`: the file bytes as they are.
//! - `huffman`: `[limit: u16 LE] payload`; the output buffer has `limit`
//!   bytes (`0xffff` means "64 KiB", the demo player's buffer).
//! - `varint`: `[limit: u16 LE] payload`; the output has `limit` ints.
//! - `snapshot`: `[mode: u8] [split: u16 LE] ints…` (LE `i32`s); see
//!   [`snapshot`].

use teebatch::backend::Backend;
use teebatch::codec::kernels::Kernels;
use teebatch::codec::snapshot::{
    self, create_delta, item_key, Delta, DeltaApplier, Protocol, Snapshot, SnapshotKernels,
    MAX_ITEMS, MAX_SIZE,
};
use teebatch::codec::{huffman, varint};
use teebatch::datafile::{Datafile, InflateLimits, Inflater};
use teebatch::demo::{ChunkKind, Demo};
use teebatch::map::{self, Map};

/// Decompressed bytes one input may inflate (per pass over a file).
pub const MAX_INFLATE: u64 = 64 << 20;

/// The demo player's buffers: a snapshot is at most 64 KiB.
pub const PAYLOAD_BUF: usize = snapshot::MAX_SIZE;

fn inflater() -> Inflater {
    Inflater::new(InflateLimits {
        max_decompressed_bytes: MAX_INFLATE,
    })
}

/// Splits `[u16 LE] rest`; short inputs give `(0, …)`.
fn take_u16(data: &[u8]) -> (u16, &[u8]) {
    match data {
        [a, b, rest @ ..] => (u16::from_le_bytes([*a, *b]), rest),
        _ => (0, &[]),
    }
}

/// The LE `i32`s of `bytes` (a trailing partial int is dropped).
pub fn ints_of(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Datafile: parse the tables, touch every item and inflate every data
/// block under a 64 MiB budget; a block that inflates has exactly its
/// claimed size.
pub fn datafile(data: &[u8]) {
    let Ok(df) = Datafile::parse(data) else {
        return;
    };
    let mut n = 0usize;
    for item in df.items() {
        n += item.data.len();
        assert_eq!(df.item(item.index), Some(item));
    }
    for t in df.item_types() {
        assert!(df.items_of_type(t.type_id).len() <= df.num_items());
        let _ = df.find_item(t.type_id, 0);
    }
    std::hint::black_box(n);
    let _ = df.data_size_total();
    let mut inflater = inflater();
    let mut out = Vec::new();
    for i in 0..df.num_data() {
        let raw = df.data_raw(i).expect("index below num_data");
        assert!(raw.len() <= data.len());
        if df.decompress(i, &mut inflater, &mut out).is_ok() {
            assert_eq!(Some(out.len()), df.data_size(i));
        }
        assert!(inflater.used() <= MAX_INFLATE);
    }
    assert!(df
        .decompress(df.num_data(), &mut inflater, &mut out)
        .is_err());
}

/// Map: the index summary, then the full map view and every tile layer
/// (expanded and as a histogram), each pass under a 64 MiB budget.
pub fn map(data: &[u8]) {
    let Ok(df) = Datafile::parse(data) else {
        return;
    };
    let mut inflater = inflater();
    let mut scratch = Vec::new();
    let _ = map::summarize(&df, &mut inflater, &mut scratch);
    assert!(inflater.used() <= MAX_INFLATE);

    inflater.start_file();
    let mut warnings = teebatch::warn::Warnings::new(map::MAX_WARNINGS);
    let Ok(Some(m)) = Map::parse(&df, &mut inflater, &mut scratch, &mut warnings) else {
        return;
    };
    let _ = map::MapCounts::of(&m);
    for layer in 0..m.layers.len() {
        inflater.start_file();
        if let Ok(Some(tiles)) = m.load_tiles(&df, layer, &mut inflater, &mut scratch) {
            let len = tiles
                .width
                .checked_mul(tiles.height)
                .and_then(|n| n.checked_mul(tiles.kind.tile_size()));
            assert_eq!(len, Some(tiles.bytes.len()), "layer {layer}");
        }
        inflater.start_file();
        let mut warnings = Vec::new();
        let _ = m.tile_histogram(&df, layer, &mut inflater, &mut scratch, &mut warnings);
    }
    assert!(m
        .load_tiles(&df, m.layers.len(), &mut inflater, &mut scratch)
        .is_ok());
}

/// Huffman: the oracle and the fast tier agree (output, error kind and
/// offset) for the given output limit; the payload round-trips through the
/// encoder.
pub fn huffman(data: &[u8]) {
    let (limit, payload) = take_u16(data);
    // Every symbol takes at least one bit: larger limits act alike.
    let most = payload.len() * 8;
    let limit = if limit == u16::MAX {
        PAYLOAD_BUF
    } else {
        usize::from(limit)
    };
    huffman_agree(payload, limit.min(most + 1));
    // Also the exact-fit and one-short limits around the true length.
    if let Ok(n) = huffman::oracle::decompress(payload, &mut vec![0; most]) {
        huffman_agree(payload, n);
        if n > 0 {
            huffman_agree(payload, n - 1);
        }
    }

    let mut packed = Vec::new();
    huffman::compress(payload, &mut packed);
    assert_eq!(packed.len(), huffman::compressed_len(payload));
    for backend in huffman::Tier::ALL.into_iter().filter(|t| t.available()) {
        let mut out = vec![0; payload.len()];
        let r = huffman::decompress_on(backend, &packed, &mut out);
        assert_eq!(r, Ok(payload.len()), "{backend:?}");
        assert_eq!(out, payload, "{backend:?}");
        if !payload.is_empty() {
            let mut short = vec![0; payload.len() - 1];
            let r = huffman::decompress_on(backend, &packed, &mut short);
            assert_eq!(
                r.map_err(|e| e.kind),
                Err(huffman::HuffmanErrorKind::OutputFull),
                "{backend:?}"
            );
        }
    }
}

fn huffman_agree(payload: &[u8], limit: usize) {
    let mut a = vec![0xa5; limit];
    let mut b = vec![0x5a; limit];
    let ra = huffman::decompress_on(huffman::Tier::Oracle, payload, &mut a);
    let rb = huffman::decompress_on(huffman::Tier::Portable, payload, &mut b);
    assert_eq!(ra, rb, "limit {limit}");
    if let Ok(n) = ra {
        assert!(n <= limit);
        assert_eq!(a[..n], b[..n], "limit {limit}");
    }
    // The interleaved batch decoder, the payload between two others (its
    // two halves, each a stream of its own).
    let (h1, h2) = payload.split_at(payload.len() / 2);
    let inputs = [h1, payload, h2];
    let caps = [h1.len() * 8 + 1, limit, h2.len() * 8 + 1];
    let mut arena = vec![0x3c; caps.iter().sum()];
    let mut results = [Ok(0); 3];
    huffman::decompress_batch(&inputs, &caps, &mut arena, &mut results);
    assert_eq!(results[1], ra, "batch, limit {limit}");
    if let Ok(n) = ra {
        let at = caps[0];
        assert_eq!(arena[at..at + n], a[..n], "batch, limit {limit}");
    }
    for (half, (&input, r)) in [(0, (&h1, results[0])), (2, (&h2, results[2]))] {
        let mut single = vec![0; caps[half]];
        assert_eq!(
            r,
            huffman::decompress(input, &mut single),
            "batch half {half}"
        );
    }
}

/// Varint: oracle, scalar and SIMD agree on values, warnings and error
/// (kind and offset); ints round-trip through the packer.
pub fn varint(data: &[u8]) {
    let (limit, payload) = take_u16(data);
    // Each int takes at least one byte: larger limits act alike.
    varint_agree(payload, usize::from(limit).min(payload.len() + 1));
    varint_agree(payload, payload.len());
    varint_agree(payload, payload.len() / 2);

    let values = ints_of(payload);
    let mut packed = Vec::new();
    varint::pack(&values, &mut packed);
    for backend in Backend::ALL {
        let mut out = vec![0; values.len()];
        let mut warnings = Vec::new();
        let r = Kernels::new(backend).unpack(&packed, &mut out, &mut warnings);
        assert_eq!(r, Ok(values.len()), "{backend}");
        assert_eq!(out, values, "{backend}");
        assert!(warnings.is_empty(), "{backend}");
    }
}

fn varint_agree(payload: &[u8], limit: usize) {
    let mut results = Vec::new();
    for backend in Backend::ALL {
        let mut out = vec![0x5a5a_5a5a; limit];
        let mut warnings = Vec::new();
        let r = Kernels::new(backend).unpack(payload, &mut out, &mut warnings);
        if let Ok(n) = r {
            assert!(n <= limit);
            out.truncate(n);
        } else {
            // Only the ints before the failing one are specified.
            out.clear();
        }
        results.push((backend, r, out, warnings));
    }
    let (_, r0, out0, w0) = &results[0];
    for (backend, r, out, w) in &results[1..] {
        assert_eq!(r, r0, "{backend} vs oracle, limit {limit}");
        assert_eq!(out, out0, "{backend} vs oracle, limit {limit}");
        assert_eq!(w, w0, "{backend} vs oracle, limit {limit}");
    }
}

/// A snapshot derived from ints: the ints parsed as a full snapshot if they
/// are one, else items built from `[key selector, size selector, data…]`
/// triples whose keys fall in a small range (so deltas hit them) and whose
/// types include the pre-agreed ones. Pushes that fail are skipped.
pub fn derive_snapshot(ints: &[i32]) -> Snapshot {
    if let Ok(s) = Snapshot::parse(ints) {
        return s;
    }
    let mut s = Snapshot::new();
    let mut rest = ints;
    while let [k, sz, tail @ ..] = rest {
        let type_id = (*k as u32 >> 8 & 0x1f) as u16;
        let id = (*k & 0xff) as u16;
        let size = (*sz as u32 % 24) as usize;
        let size = size.min(tail.len());
        let _ = s.push(item_key(type_id, id), &tail[..size]);
        rest = &tail[size..];
    }
    s
}

/// Applies `delta` to `old` with every tier; all must agree. Returns the
/// oracle's result.
fn apply_all(old: &Snapshot, delta: &[i32], protocol: Protocol) -> Option<Snapshot> {
    let mut results = Vec::new();
    for backend in Backend::ALL {
        let mut new = Snapshot::new();
        let mut warnings = Vec::new();
        let k = SnapshotKernels::new(backend);
        let r = k.apply_delta(old, delta, protocol, &mut new, &mut warnings);
        if r.is_err() {
            assert!(new.is_empty(), "{backend}: not cleared on error");
        }
        results.push((backend, r, new, warnings));
    }
    let (_, r0, new0, w0) = &results[0];
    for (backend, r, new, w) in &results[1..] {
        assert_eq!(r, r0, "{backend} vs oracle");
        assert_eq!(new, new0, "{backend} vs oracle");
        assert_eq!(w, w0, "{backend} vs oracle");
    }
    // In place: the same snapshot, warnings and error; the checksum carried.
    for backend in Backend::ALL {
        let mut snap = old.clone();
        let mut applier = DeltaApplier::new(backend);
        let mut warnings = Vec::new();
        let r = applier.apply_in_place(&mut snap, delta, protocol, &mut warnings, old.checksum());
        assert_eq!(r.map(|_| ()), *r0, "{backend} in place");
        assert_eq!(&warnings, w0, "{backend} in place");
        if let Ok(sum) = r {
            assert_eq!(&snap, new0, "{backend} in place");
            assert_eq!(sum, new0.checksum(), "{backend} in place");
        }
    }
    let (_, r, new, _) = results.swap_remove(0);
    r.ok().map(|()| new)
}

/// Invariants of any snapshot the crate built: within the limits, and it
/// serializes to ints that parse back to it; checksums agree across tiers.
fn check_snapshot(s: &Snapshot) {
    assert!(s.len() <= MAX_ITEMS);
    assert!(s.total_size_bytes() <= MAX_SIZE);
    let ints = s.to_ints();
    let back = Snapshot::parse(&ints).expect("a built snapshot parses back");
    assert_eq!(&back, s);
    let checksum = |b| SnapshotKernels::new(b).checksum(s.data());
    let c = checksum(Backend::Oracle);
    assert_eq!(checksum(Backend::Scalar), c);
    assert_eq!(checksum(Backend::Simd), c);
    assert_eq!(s.summary().canonical_crc32, back.canonical_crc32());
}

/// Same items (key and data), in any order.
fn same_items(a: &Snapshot, b: &Snapshot) -> bool {
    a.len() == b.len() && a.iter().all(|(k, d)| b.get(k) == Some(d))
}

/// Snapshot: `[mode] [split: u16 LE] ints…`. The ints before `split` make
/// the old snapshot ([`derive_snapshot`]), the rest is (mode bit 1 clear) a
/// delta applied with every tier, or (bit 1 set) the ints of a second
/// snapshot. Mode bit 0 picks the protocol. Also: the whole int stream
/// parsed as a full snapshot, a delta walked item by item, applied
/// snapshots round-trip through `create_delta`.
pub fn snapshot(data: &[u8]) {
    let (mode, rest) = match data {
        [m, rest @ ..] => (*m, rest),
        [] => return,
    };
    let (split, rest) = take_u16(rest);
    let protocol = if mode & 1 == 0 {
        Protocol::V06
    } else {
        Protocol::V07
    };
    let ints = ints_of(rest);
    let split = usize::from(split).min(ints.len());
    let (a, b) = ints.split_at(split);

    // The whole stream as a full snapshot.
    let mut s = Snapshot::new();
    if s.parse_into(&ints).is_ok() {
        check_snapshot(&s);
    } else {
        assert!(s.is_empty());
    }

    let old = derive_snapshot(a);
    check_snapshot(&old);

    if mode & 2 == 0 {
        // `b` as a delta against `old`.
        if let Ok(delta) = Delta::parse(b, protocol) {
            assert!(delta.removed_keys().len() == delta.num_removed());
            let mut n = 0;
            for item in delta.items() {
                let Ok(item) = item else { break };
                if let Some(size) = protocol.static_size(u32::from(item.type_id())) {
                    assert!(!item.explicit_size);
                    assert_eq!(item.data.len(), size);
                }
                n += 1;
            }
            assert!(n <= delta.num_item_deltas());
        }
        let Some(new) = apply_all(&old, b, protocol) else {
            return;
        };
        check_snapshot(&new);
        // Re-create the delta from the result: applying it gives the same
        // items, in the same order unless a key was both removed and
        // updated (that item moves to the end; see tests/fuzz/regressions.rs).
        let mut d = Vec::new();
        if create_delta(&old, &new, protocol, &mut d).is_ok() {
            let again = apply_all(&old, &d, protocol).expect("a created delta applies");
            assert!(same_items(&again, &new), "{again:?} vs {new:?}");
            let readded = Delta::parse(b, protocol)
                .expect("an applied delta parses")
                .removed_keys()
                .iter()
                .any(|&k| new.index_of(k as u32).is_some());
            if !readded {
                assert_eq!(again, new);
            }
        }
    } else {
        // `b` as a second snapshot: create_delta → apply round trip.
        let new = derive_snapshot(b);
        check_snapshot(&new);
        let mut d = Vec::new();
        if create_delta(&old, &new, protocol, &mut d).is_ok() {
            let applied = apply_all(&old, &d, protocol).expect("a created delta applies");
            assert!(same_items(&applied, &new), "{applied:?} vs {new:?}");
        }
    }
}

/// Demo: the header, the embedded map's datafile tables, then every chunk;
/// snapshot and delta payloads go through Huffman, varint and the snapshot
/// code against the previous snapshot with the demo's protocol, messages
/// through Huffman and varint.
pub fn demo(data: &[u8]) {
    let Ok(demo) = Demo::parse(data) else {
        return;
    };
    demo_streams_agree(&demo);
    assert!(demo.map_offset() <= demo.chunks_offset());
    assert!(demo.chunks_offset() <= data.len());
    let _ = Datafile::parse(demo.map());
    let protocol = demo.protocol().unwrap_or(Protocol::V06);

    let mut bytes = vec![0u8; PAYLOAD_BUF];
    let mut ints = vec![0i32; PAYLOAD_BUF];
    let mut varint_warnings = Vec::new();
    let mut snap_warnings = Vec::new();
    let mut prev = Snapshot::new();
    let mut next = Snapshot::new();
    let mut last_offset = None;
    for chunk in demo.chunks() {
        let Ok(chunk) = chunk else { break };
        assert!(last_offset < Some(chunk.offset));
        last_offset = Some(chunk.offset);
        let Some(payload) = chunk.kind.payload() else {
            continue;
        };
        let Ok(n) = huffman::decompress(payload, &mut bytes) else {
            continue;
        };
        varint_warnings.clear();
        let Ok(count) = varint::unpack(&bytes[..n], &mut ints, &mut varint_warnings) else {
            continue;
        };
        let ints = &ints[..count];
        match chunk.kind {
            ChunkKind::Snapshot(_) => {
                // On error the snapshot is left empty (the next delta then
                // applies to nothing, as in DDNet's player).
                let r = prev.parse_into(ints);
                assert!(r.is_ok() || prev.is_empty());
            }
            ChunkKind::Delta(_) => {
                snap_warnings.clear();
                let r = snapshot::apply_delta(&prev, ints, protocol, &mut next, &mut snap_warnings);
                if r.is_ok() {
                    assert!(next.total_size_bytes() <= MAX_SIZE);
                    std::mem::swap(&mut prev, &mut next);
                }
            }
            _ => {}
        }
    }
}

thread_local! {
    /// The `demos index` worker's decoder, reused across inputs as a batch
    /// worker reuses it.
    static INDEX_DECODER: std::cell::RefCell<teebatch::demo::stream::Decoder> =
        std::cell::RefCell::new(teebatch::demo::stream::Decoder::new(Backend::Simd));
}

/// Analysis: what `demos index` does with one file (`index_bytes`: header,
/// embedded map, stream, statistics, players, messages): every warning list of a stage holds at most the limit plus
/// one `too_many_warnings`; players and their names stay within the
/// tracker's caps; `snapshots_reconstructed` never exceeds the snapshot
/// chunks decoded (it counts those of complete ticks). Run with a per-input
/// `-timeout=` so that a table searched linearly shows as a timeout.
pub fn analysis(data: &[u8]) {
    use teebatch::batch::demos::{index_bytes, DemoRecord};
    use teebatch::limits::Limits;
    INDEX_DECODER.with_borrow_mut(|decoder| {
        decoder.set_max_ticks(1 << 16);
        let mut rec = DemoRecord::default();
        let max = Limits::DEFAULT_MAX_WARNINGS;
        let stats = index_bytes(&mut rec, data, decoder, max);
        for stage in ["demo", "stream", "message", "players"] {
            let n = rec
                .warnings
                .iter()
                .filter(|w| w.stage.name() == stage)
                .count();
            assert!(n <= max + 1, "{stage}: {n} warnings");
        }
        assert!(rec.body.players.len() <= Limits::MAX_TRACKED_PLAYERS);
        for p in &rec.body.players {
            assert!(p.names.len() <= Limits::MAX_NAMES_PER_PLAYER);
            assert!(p.clans.len() <= Limits::MAX_NAMES_PER_PLAYER);
        }
        if let (Some(s), Some(c)) = (rec.body.snapshots_reconstructed, rec.body.chunks) {
            assert!(s <= c.snapshot + c.snapshot_delta);
            if rec.error.is_none() {
                assert_eq!(s, c.snapshot + c.snapshot_delta);
            }
        }
        if let Some(stats) = stats {
            assert_eq!(Some(stats.chunks.tick_markers), rec.body.ticks);
        }
    })
}

/// One line per stream event: what a dump would show.
#[derive(Default)]
struct EventLines(Vec<String>);

impl teebatch::demo::stream::Visitor for EventLines {
    fn visit(&mut self, event: &teebatch::demo::stream::Event<'_>) {
        use teebatch::demo::stream::Event;
        let line = match event {
            Event::Tick(t) => format!("T {} {} {}", t.tick, t.keyframe, t.checksum),
            Event::Snapshot(s) => format!(
                "S {} {} {} {:?}",
                s.tick,
                s.snapshot.len(),
                s.checksum,
                s.payload.ints.len()
            ),
            Event::Message(m) => format!("M {} {:?}", m.tick, m.bytes),
            Event::Unknown(u) => format!("U {} {}", u.tick, u.chunk_type),
        };
        self.0.push(line);
    }
}

thread_local! {
    /// One stream decoder per tier (oracle, scalar, SIMD), reused from one
    /// input to the next as a batch worker reuses its decoder: the fuzzer
    /// does not pay for fresh buffers per input, and a state carried over
    /// from an earlier demo would show up as a disagreement.
    static DECODERS: std::cell::RefCell<[teebatch::demo::stream::Decoder; 3]> =
        std::cell::RefCell::new(Backend::ALL.map(teebatch::demo::stream::Decoder::new));
}

/// The stream's fast tiers (read-ahead, batch Huffman, in-place deltas,
/// the run-time varint kernel) give the oracle tier's events, warnings and
/// error; so does the keyframe-split parallel decode.
fn demo_streams_agree(demo: &Demo<'_>) {
    use teebatch::demo::stream::{segments, visit, visit_parallel};
    DECODERS.with_borrow_mut(|decoders| {
        let [oracle, fast @ ..] = decoders;
        assert_eq!(oracle.backend(), Backend::Oracle);
        oracle.set_max_ticks(1 << 16);
        let plain = visit(demo, oracle, EventLines::default());
        for dec in fast {
            let backend = dec.backend();
            dec.set_max_ticks(1 << 16);
            let fast = visit(demo, dec, EventLines::default());
            assert_eq!(fast.visitor.0, plain.visitor.0, "{backend}");
            assert_eq!(fast.warnings, plain.warnings, "{backend}");
            assert_eq!(fast.error, plain.error, "{backend}");
        }
        if plain.error.is_none() {
            let segs = segments(demo, 4);
            let par = visit_parallel(demo, Backend::Simd, &segs, EventLines::default);
            let lines: Vec<String> = par.visitor.into_iter().flat_map(|v| v.0).collect();
            assert_eq!(lines, plain.visitor.0, "parallel");
        }
    })
}
