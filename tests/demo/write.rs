//! The demo writer and the synthetic demo generator, checked with a small
//! decoder local to this file (chunks → Huffman → varints → snapshot or
//! delta), independent of the crate's stream reader.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use teebatch::codec::huffman;
use teebatch::codec::snapshot::{
    apply_delta, extended_types, item_key, item_type, Delta, Protocol, Snapshot,
};
use teebatch::codec::varint;
use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter, SnapshotChunk, WriteErrorKind};
use teebatch::demo::{ChunkKind, Demo};
use teebatch::synth::demo::{self as synth, SynthParams};

use crate::common::{datasets, files_with_ext};

/// One decoded chunk.
#[derive(Clone, Debug, PartialEq)]
enum Event {
    Tick {
        tick: i32,
        keyframe: bool,
    },
    /// A full snapshot (`full`) or delta, with the snapshot it yields.
    Snap {
        full: bool,
        tick: i32,
        snap: Snapshot,
    },
    Message(Vec<i32>),
}

/// Decodes every chunk of a demo. Panics on anything malformed.
fn decode(bytes: &[u8]) -> (Protocol, Vec<Event>) {
    let demo = Demo::parse(bytes).unwrap();
    let net = std::str::from_utf8(demo.net_version()).unwrap();
    let protocol = Protocol::from_net_version(net).unwrap();
    let (mut buf, mut ints) = (vec![0u8; 1 << 16], vec![0i32; 1 << 16]);
    let (mut cur, mut next) = (Snapshot::new(), Snapshot::new());
    let (mut tick, mut events) = (0, Vec::new());
    for chunk in demo.chunks() {
        let chunk = chunk.unwrap();
        if let ChunkKind::Tick { tick: t, keyframe } = chunk.kind {
            tick = t;
            events.push(Event::Tick { tick, keyframe });
            continue;
        }
        let n = huffman::decompress(chunk.kind.payload().unwrap(), &mut buf).unwrap();
        let m = varint::unpack(&buf[..n], &mut ints, &mut Vec::new()).unwrap();
        let ints = &ints[..m];
        events.push(match chunk.kind {
            ChunkKind::Snapshot(_) => {
                cur.parse_into(ints).unwrap();
                Event::Snap {
                    full: true,
                    tick,
                    snap: cur.clone(),
                }
            }
            ChunkKind::Delta(_) => {
                apply_delta(&cur, ints, protocol, &mut next, &mut Vec::new()).unwrap();
                std::mem::swap(&mut cur, &mut next);
                Event::Snap {
                    full: false,
                    tick,
                    snap: cur.clone(),
                }
            }
            ChunkKind::Message(_) => Event::Message(ints.to_vec()),
            _ => panic!("unknown chunk"),
        });
    }
    (protocol, events)
}

/// `tick num_items checksum` per snapshot chunk, as in the golden files.
fn snapshot_lines(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Snap { tick, snap, .. } => {
                Some(format!("{tick}\t{}\t{}", snap.len(), snap.checksum()))
            }
            _ => None,
        })
        .collect()
}

fn ints_to_bytes(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The raw bytes of every chunk, in order.
fn chunk_bytes(bytes: &[u8]) -> Vec<(&'static str, &[u8])> {
    let demo = Demo::parse(bytes).unwrap();
    let mut chunks: Vec<_> = demo.chunks().map(|c| c.unwrap()).collect();
    let ends: Vec<usize> = chunks
        .iter()
        .skip(1)
        .map(|c| c.offset)
        .chain([bytes.len()])
        .collect();
    chunks
        .drain(..)
        .zip(ends)
        .map(|(c, end)| (c.kind.name(), &bytes[c.offset..end]))
        .collect()
}

/// A delta chunk's removed keys and item deltas, sorted: its content
/// regardless of order.
fn delta_content(chunk: &[u8], protocol: Protocol) -> (Vec<i32>, Vec<(u32, Vec<i32>)>) {
    // Skip the chunk header: size escapes 30 and 31 add 1 and 2 bytes.
    let payload = match chunk[0] & 0x1f {
        30 => &chunk[2..],
        31 => &chunk[3..],
        _ => &chunk[1..],
    };
    let (mut buf, mut ints) = (vec![0u8; 1 << 16], vec![0i32; 1 << 16]);
    let n = huffman::decompress(payload, &mut buf).unwrap();
    let m = varint::unpack(&buf[..n], &mut ints, &mut Vec::new()).unwrap();
    let delta = Delta::parse(&ints[..m], protocol).unwrap();
    let mut removed = delta.removed_keys().to_vec();
    removed.sort_unstable();
    let mut items: Vec<_> = delta
        .items()
        .map(|d| {
            let d = d.unwrap();
            (d.key, d.data.to_vec())
        })
        .collect();
    items.sort_unstable();
    (removed, items)
}

/// The first index where `a` and `b` differ (a length difference counts).
fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    (common < a.len().max(b.len())).then_some(common)
}

fn real_demos() -> Option<(Vec<PathBuf>, PathBuf)> {
    let root = datasets()?;
    Some((
        files_with_ext(&root.join("demos"), "demo"),
        root.join("golden"),
    ))
}

fn golden_lines(golden: &Path, demo: &Path) -> Vec<String> {
    let stem = demo.file_stem().unwrap().to_string_lossy();
    std::fs::read_to_string(golden.join(format!("{stem}.snapshots.tsv")))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Re-writes every real demo from its decoded events: same version, net
/// version, map and header strings, the same tick markers, the full
/// snapshots and deltas where the original has them.
#[test]
fn rewrite_real_demos() {
    let Some((demos, golden)) = real_demos() else {
        return;
    };
    assert!(!demos.is_empty());
    let mut report = Vec::new();
    for path in &demos {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(path).unwrap();
        let demo = Demo::parse(&original).unwrap();
        let (protocol, events) = decode(&original);
        assert_eq!(
            snapshot_lines(&events),
            golden_lines(&golden, path),
            "{name}"
        );

        let text = |b: &[u8]| std::str::from_utf8(b).unwrap().to_owned();
        let (map_name, demo_type, timestamp) = (
            text(demo.map_name()),
            text(demo.demo_type()),
            text(demo.timestamp()),
        );
        let mut header = DemoHeader::new(
            DemoVersion::from_number(demo.version()).unwrap(),
            protocol,
            &map_name,
            demo.map(),
        );
        header.demo_type = &demo_type;
        header.timestamp = &timestamp;
        let mut w = DemoWriter::new_vec(&header).unwrap();
        for &m in demo.timeline_markers() {
            w.timeline_marker(m).unwrap();
        }
        // DDNet's keyframe rule applied to the original's snapshot ticks.
        let mut rule_agrees = true;
        let mut last_keyframe: Option<i32> = None;
        for e in &events {
            match e {
                Event::Tick { tick, keyframe } => w.tick(*tick, *keyframe).unwrap(),
                Event::Snap { full, tick, snap } => {
                    let rule = last_keyframe.is_none_or(|k| tick - k > 250);
                    rule_agrees &= rule == *full;
                    if *full {
                        last_keyframe = Some(*tick);
                        w.full_snapshot(snap).unwrap();
                    } else {
                        let c = w.delta_snapshot(snap, true).unwrap();
                        assert_eq!(c, SnapshotChunk::Delta);
                    }
                }
                Event::Message(ints) => w.message(&ints_to_bytes(ints)).unwrap(),
            }
        }
        let ours = w.finish_vec().unwrap();

        // (a) Decoding our file gives the golden snapshots and the same
        // messages and tick markers.
        let (p2, ours_events) = decode(&ours);
        assert_eq!(p2, protocol);
        assert_eq!(
            snapshot_lines(&ours_events),
            golden_lines(&golden, path),
            "{name}"
        );
        assert_eq!(ours_events.len(), events.len(), "{name}");
        for (a, b) in events.iter().zip(&ours_events) {
            match (a, b) {
                (
                    Event::Snap {
                        snap: x, full: fx, ..
                    },
                    Event::Snap {
                        snap: y, full: fy, ..
                    },
                ) => {
                    assert_eq!(fx, fy, "{name}");
                    assert_eq!(x.summary(), y.summary(), "{name}");
                }
                _ => assert_eq!(a, b, "{name}"),
            }
        }

        // The header is byte-identical (same strings, map, CRC, SHA-256,
        // length, markers).
        let d2 = Demo::parse(&ours).unwrap();
        assert_eq!(d2.chunks_offset(), demo.chunks_offset(), "{name}");
        // The header is byte-identical except for unused timeline marker
        // slots, which old DDNet versions left uninitialised.
        let unused = if demo.version() >= 4 {
            180 + 4 * demo.timeline_markers().len()..436
        } else {
            0..0
        };
        let garbage_slots = original[unused.clone()].iter().any(|&b| b != 0);
        let mut masked = original[..demo.chunks_offset()].to_vec();
        masked[unused].fill(0);
        let header_diff = first_difference(&ours[..d2.chunks_offset()], &masked);
        assert_eq!(header_diff, None, "{name}: header differs at byte");

        // (b) Chunk bytes against the original.
        let (a, b) = (chunk_bytes(&original), chunk_bytes(&ours));
        assert_eq!(a.len(), b.len());
        let mut same = std::collections::BTreeMap::<&str, (usize, usize)>::new();
        let mut prefix_chunks = None;
        let mut reordered = 0;
        for (i, ((ka, ba), (kb, bb))) in a.iter().zip(&b).enumerate() {
            assert_eq!(ka, kb, "{name} chunk {i}");
            let e = same.entry(ka).or_default();
            e.1 += 1;
            if ba == bb {
                e.0 += 1;
                continue;
            }
            prefix_chunks.get_or_insert(i);
            // A delta that differs holds the same removals and item deltas
            // in another order (the original follows the server's item
            // order, which decoding does not keep).
            assert_eq!(*ka, "Delta", "{name} chunk {i}");
            assert_eq!(
                delta_content(ba, protocol),
                delta_content(bb, protocol),
                "{name} chunk {i}"
            );
            reordered += 1;
        }
        // Tick markers, full snapshots and messages are always identical.
        for kind in ["Tick", "Snapshot", "Message"] {
            if let Some(&(s, n)) = same.get(kind) {
                assert_eq!(s, n, "{name}: {kind} chunks differ");
            }
        }
        let identical = ours == original;
        // Nothing else differs: same order and header garbage aside, the
        // file is byte-identical.
        assert_eq!(identical, reordered == 0 && !garbage_slots, "{name}");
        let common = ours
            .iter()
            .zip(&original)
            .take_while(|(x, y)| x == y)
            .count();
        report.push(format!(
            "{name}: v{} {} bytes, identical={identical}, common prefix {common} bytes, \
             garbage in unused marker slots={garbage_slots}, \
             first differing chunk {:?} of {}, {reordered} deltas reordered, \
             keyframe rule agrees={rule_agrees}, {:?}",
            demo.version(),
            original.len(),
            prefix_chunks,
            a.len(),
            same
        ));
    }
    for r in &report {
        eprintln!("{r}");
    }
}

/// What DDNet's recorder would write for the real snapshots: the same
/// snapshot lines, keyframes where its rule puts them.
#[test]
fn record_real_snapshots_with_ddnet_rule() {
    let Some((demos, golden)) = real_demos() else {
        return;
    };
    for path in &demos {
        let original = std::fs::read(path).unwrap();
        let demo = Demo::parse(&original).unwrap();
        let (protocol, events) = decode(&original);
        let header = DemoHeader::new(DemoVersion::V6, protocol, "m", demo.map());
        let mut w = DemoWriter::new_vec(&header).unwrap();
        let mut expected = Vec::new();
        let mut last_written: Option<&Snapshot> = None;
        for e in &events {
            if let Event::Snap { tick, snap, .. } = e {
                let c = w.record_snapshot(*tick, snap).unwrap();
                if c == SnapshotChunk::Unchanged {
                    assert_eq!(Some(snap), last_written);
                } else {
                    expected.push((*tick, c == SnapshotChunk::Full, snap.summary()));
                    last_written = Some(snap);
                }
            }
        }
        let ours = w.finish_vec().unwrap();
        let (_, got) = decode(&ours);
        let mut last_kf = None;
        let got: Vec<_> = got
            .iter()
            .filter_map(|e| match e {
                Event::Tick {
                    tick,
                    keyframe: true,
                } => {
                    last_kf = Some(*tick);
                    None
                }
                Event::Snap { tick, full, snap } => {
                    assert_eq!(*full, last_kf == Some(*tick));
                    Some((*tick, *full, snap.summary()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(got, expected, "{}", path.display());
        // Keyframes at most 251 ticks apart, as DDNet writes them.
        let kf: Vec<i32> = got.iter().filter(|g| g.1).map(|g| g.0).collect();
        assert!(kf.windows(2).all(|w| w[1] - w[0] > 250), "{kf:?}");
        assert!(!golden_lines(&golden, path).is_empty());
    }
}

fn small_snapshot(items: &[(u16, u16, Vec<i32>)]) -> Snapshot {
    let mut s = Snapshot::new();
    for (t, id, data) in items {
        let _ = s.push(item_key(*t, *id), data);
    }
    s
}

/// Random items of types whose size is fixed in 0.6, plus free-size types.
fn arb_items() -> impl Strategy<Value = Vec<(u16, u16, Vec<i32>)>> {
    prop::collection::vec((1u16..=25, 0u16..6, any::<i32>()), 0..24).prop_map(|v| {
        v.into_iter()
            .map(|(t, id, x)| {
                let len = Protocol::V06
                    .static_size(t.into())
                    .unwrap_or(id as usize % 4);
                let data = (0..len as i32)
                    .map(|i| x.wrapping_mul(i + 1) >> (i % 20))
                    .collect();
                (t, id, data)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random snapshot sequences survive write → decode, whatever mix of
    /// keyframes and deltas the ticks give.
    #[test]
    fn random_snapshot_sequences_round_trip(
        seq in prop::collection::vec((1i32..300, arb_items(), prop::option::of(".{0,40}")), 1..12),
        version in prop::sample::select(vec![DemoVersion::V4, DemoVersion::V5, DemoVersion::V6]),
    ) {
        let header = DemoHeader::new(version, Protocol::V06, "rand", b"");
        let mut w = DemoWriter::new_vec(&header).unwrap();
        let mut tick = 7;
        let mut want = Vec::new();
        let mut want_msgs = Vec::new();
        let mut prev: Option<Snapshot> = None;
        for (dt, items, msg) in &seq {
            tick += dt;
            let snap = small_snapshot(items);
            if let Some(m) = msg {
                w.message(m.as_bytes()).unwrap();
                let mut b = m.as_bytes().to_vec();
                b.resize(b.len().div_ceil(4) * 4, 0);
                want_msgs.push(b);
            }
            let c = w.record_snapshot(tick, &snap).unwrap();
            if c == SnapshotChunk::Unchanged {
                prop_assert_eq!(prev.as_ref(), Some(&snap));
            } else {
                want.push((tick, snap.summary()));
                prev = Some(snap);
            }
        }
        let bytes = w.finish_vec().unwrap();
        let (_, events) = decode(&bytes);
        let got: Vec<_> = events.iter().filter_map(|e| match e {
            Event::Snap { tick, snap, .. } => Some((*tick, snap.summary())),
            _ => None,
        }).collect();
        prop_assert_eq!(got, want);
        let msgs: Vec<_> = events.iter().filter_map(|e| match e {
            Event::Message(ints) => Some(ints_to_bytes(ints)),
            _ => None,
        }).collect();
        prop_assert_eq!(msgs, want_msgs);
        let ticks = events.iter().filter(|e| matches!(e, Event::Tick { .. })).count();
        prop_assert_eq!(ticks, seq.len());
        prop_assert_eq!(Demo::parse(&bytes).unwrap().length(), (tick - 7 - seq[0].0) / 50);
    }
}

#[test]
fn oversized_snapshots_are_errors() {
    let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "big", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    // 1024 items is the limit: one more cannot be pushed, so build a
    // snapshot at the limit and check that it writes, then a delta of an
    // unknown-size item whose size changed, which cannot be expressed.
    let mut s = Snapshot::new();
    for id in 0..1024u16 {
        s.push(item_key(30, id), &[id as i32; 8]).unwrap();
    }
    w.record_snapshot(100, &s).unwrap();
    let mut t = Snapshot::new();
    for id in 0..1024u16 {
        t.push(item_key(30, id), &[1; 9]).unwrap();
    }
    let at = w.position();
    let e = w.record_snapshot(102, &t).unwrap_err();
    assert_eq!(
        e.kind,
        WriteErrorKind::Snapshot(teebatch::codec::snapshot::ErrorKind::SizeMismatch)
    );
    // Nothing went out, not even the tick marker.
    assert_eq!(w.position(), at);
    // A full snapshot near 64 KiB whose ints pack to more than a chunk holds.
    let mut big = Snapshot::new();
    for id in 0..4u16 {
        let data: Vec<i32> = (0..4000i32)
            .map(|i| i.wrapping_mul(0x1234_5677) + id as i32)
            .collect();
        big.push(item_key(31, id), &data).unwrap();
    }
    let e = w.full_snapshot(&big).unwrap_err();
    assert_eq!(e.kind, WriteErrorKind::PayloadTooLarge);
    assert_eq!(e.offset, at);
    assert_eq!(w.position(), at);
    // The writer is still usable and the file still decodes.
    w.record_snapshot(104, &s).unwrap();
    let bytes = w.finish_vec().unwrap();
    let (_, events) = decode(&bytes);
    let snaps = events
        .iter()
        .filter(|e| matches!(e, Event::Snap { .. }))
        .count();
    assert_eq!(snaps, 1);
}

#[test]
fn synth_decodes_to_intended_snapshots() {
    for (players, version) in [
        (3, DemoVersion::V6),
        (16, DemoVersion::V5),
        (64, DemoVersion::V6),
    ] {
        let params = SynthParams {
            seed: 7 + players as u64,
            players,
            duration_ticks: 50 * 20,
            version,
            ..SynthParams::default()
        };
        let mut intended = Vec::new();
        let mut messages = Vec::new();
        let bytes = synth::generate_observed(&params, |ev| match ev {
            synth::SynthEvent::Snapshot { tick, snap, chunk } => {
                intended.push((tick, chunk, snap.summary()))
            }
            synth::SynthEvent::Message { bytes, .. } => messages.push(bytes.to_vec()),
            synth::SynthEvent::Finish { .. } | synth::SynthEvent::Record { .. } => {}
            synth::SynthEvent::Player { .. } => {}
        });
        let demo = Demo::parse(&bytes).unwrap();
        assert_eq!(demo.version(), version.number());
        assert_eq!(demo.net_version(), Protocol::V06.net_version().as_bytes());
        assert_eq!(demo.map_name(), params.map_name.as_bytes());
        assert_eq!(demo.map_crc(), crc32fast::hash(demo.map()));
        assert!(teebatch::datafile::Datafile::parse(demo.map()).is_ok());
        let (_, events) = decode(&bytes);
        let mut got = Vec::new();
        let mut got_msgs = Vec::new();
        let mut last_tick = None;
        let mut keyframe_ticks = Vec::new();
        for e in &events {
            match e {
                Event::Tick { tick, keyframe } => {
                    if let Some(l) = last_tick {
                        assert!(*tick > l);
                    }
                    last_tick = Some(*tick);
                    if *keyframe {
                        keyframe_ticks.push(*tick);
                    }
                }
                Event::Snap { tick, full, snap } => {
                    let chunk = if *full {
                        SnapshotChunk::Full
                    } else {
                        SnapshotChunk::Delta
                    };
                    got.push((*tick, chunk, snap.summary()));
                }
                Event::Message(ints) => got_msgs.push(ints_to_bytes(ints)),
            }
        }
        let intended_unchanged = intended
            .iter()
            .filter(|i| i.1 == SnapshotChunk::Unchanged)
            .count();
        intended.retain(|i| i.1 != SnapshotChunk::Unchanged);
        assert_eq!(got, intended, "{players} players");
        // Messages come back padded to whole ints.
        let padded: Vec<Vec<u8>> = messages
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.resize(m.len().div_ceil(4) * 4, 0);
                m
            })
            .collect();
        assert_eq!(got_msgs, padded);
        assert!(!got_msgs.is_empty());
        // Keyframes: the first snapshot, then every 252 ticks (snapshots
        // every 2 ticks, "more than 250 ticks since the last").
        let first = got[0].0;
        let want: Vec<i32> = (0..)
            .map(|k| first + 252 * k)
            .take_while(|t| *t <= last_tick.unwrap())
            .collect();
        assert_eq!(keyframe_ticks, want);
        assert_eq!(demo.length(), (last_tick.unwrap() - first) / 50);
        let max_items = got.iter().map(|g| g.2.num_items).max().unwrap();
        assert!(
            max_items > 3 * players,
            "{max_items} items for {players} players"
        );

        // Every kind of item shows up, and the extended types resolve.
        let mut types = std::collections::BTreeSet::new();
        let mut extended = std::collections::BTreeSet::new();
        for e in &events {
            if let Event::Snap { snap, .. } = e {
                types.extend(snap.keys().iter().map(|&k| item_type(k)));
                extended.extend(extended_types(snap).filter_map(|t| t.known.map(|k| k.name)));
            }
        }
        // projectile, laser, pickup, game info, character, player info,
        // client info, explosion, spawn, death, sound, damage, DDNet types.
        for t in [
            0, 2, 3, 4, 6, 9, 10, 11, 14, 15, 17, 19, 20, 0x7ffd, 0x7ffe, 0x7fff,
        ] {
            assert!(
                types.contains(&t),
                "{players} players: no item of type {t}: {types:?}"
            );
        }
        let names: Vec<_> = extended.into_iter().collect();
        assert_eq!(names, ["DDNetCharacter", "DDNetPlayer", "GameInfoEx"]);
        // Tuning with every snapshot, chat and kill messages (header ints
        // 6 << 1, 3 << 1, 4 << 1).
        let count = |id: u8| got_msgs.iter().filter(|m| m[0] == id).count();
        assert_eq!(count(12), got.len() + intended_unchanged);
        assert!(
            count(6) > 0 && count(8) > 0,
            "chat {} kill {}",
            count(6),
            count(8)
        );
    }
}

/// An hour of demo streams to a file; the header and keyframes say so.
#[test]
fn synth_hour_long_streams_to_file() {
    let params = SynthParams {
        seed: 3,
        players: 2,
        duration_ticks: 50 * 3600,
        ..SynthParams::default()
    };
    let mut file = tempfile::tempfile().unwrap();
    let stats = synth::generate_to(&params, std::io::BufWriter::new(&mut file)).unwrap();
    use std::io::{Read, Seek};
    file.rewind().unwrap();
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).unwrap();
    assert_eq!(bytes.len() as u64, stats.bytes);
    let demo = Demo::parse(&bytes).unwrap();
    assert_eq!(demo.length(), 3600);
    let (mut markers, mut keyframes) = (0, 0);
    for c in demo.chunks() {
        if let ChunkKind::Tick { keyframe, .. } = c.unwrap().kind {
            markers += 1;
            keyframes += usize::from(keyframe);
        }
    }
    assert_eq!(markers, 3600 * 25 + 1);
    assert_eq!(keyframes, (3600 * 50) / 252 + 1);
    assert_eq!(keyframes, stats.write.keyframes);
}

#[test]
fn synth_is_deterministic() {
    let params = SynthParams {
        seed: 42,
        players: 8,
        duration_ticks: 50 * 30,
        ..SynthParams::default()
    };
    let a = synth::generate(&params);
    let b = synth::generate(&params);
    assert_eq!(a, b);
    let mut file = tempfile::tempfile().unwrap();
    synth::generate_to(&params, &mut file).unwrap();
    use std::io::{Read, Seek};
    file.rewind().unwrap();
    let mut c = Vec::new();
    file.read_to_end(&mut c).unwrap();
    assert_eq!(a, c);
    let other = synth::generate(&SynthParams {
        seed: 43,
        ..params.clone()
    });
    assert_ne!(a, other);
}
