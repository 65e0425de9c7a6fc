//! Demo framing and the codec kernels on every real demo, against the
//! golden files of an independent decoder (libtw2).

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::Digest;
use teebatch::backend::Backend;
use teebatch::codec::huffman::{self, tree::Tree};
use teebatch::codec::kernels::Kernels;
use teebatch::codec::varint::{self, VarintWarning};
use teebatch::demo::{ChunkKind, Demo, DemoErrorKind, DemoWarning, DemoWarningKind, Section};

use crate::common::{datasets, files_with_ext};

/// A decoded chunk payload never exceeds 64 KiB in the reference.
const MAX_PAYLOAD: usize = 1 << 16;

fn demos() -> Option<(Vec<PathBuf>, PathBuf)> {
    let root = datasets()?;
    let demos = files_with_ext(&root.join("demos"), "demo");
    assert!(!demos.is_empty(), "no demos in {}", root.display());
    Some((demos, root.join("golden")))
}

fn golden_path(golden: &Path, demo: &Path, suffix: &str) -> PathBuf {
    let stem = demo.file_stem().unwrap().to_string_lossy();
    golden.join(format!("{stem}.{suffix}"))
}

fn crc32(bytes: &[u8]) -> String {
    format!("{:08x}", crc32fast::hash(bytes))
}

fn ints_le(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Bits of the Huffman code of `data` plus EOF.
fn code_bits(data: &[u8]) -> usize {
    let codes = &Tree::reference().codes;
    data.iter()
        .map(|&b| codes[b as usize].len as usize)
        .sum::<usize>()
        + codes[256].len as usize
}

#[derive(Default)]
struct Totals {
    demos: usize,
    chunks: usize,
    extra_byte: usize,
    repacked: usize,
    with_warnings: usize,
}

#[test]
fn chunks_match_golden() {
    let Some((demos, golden)) = demos() else {
        return;
    };
    let mut totals = Totals::default();
    let mut out_fast = vec![0u8; MAX_PAYLOAD];
    let mut out_oracle = vec![0u8; MAX_PAYLOAD];
    let mut ints = vec![0i32; MAX_PAYLOAD];
    let mut ints_other = vec![0i32; MAX_PAYLOAD];
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let demo = Demo::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tsv = std::fs::read_to_string(golden_path(&golden, path, "chunks.tsv")).unwrap();
        let mut expected = tsv.lines().filter(|l| !l.starts_with('#'));
        let mut data_index = 0;
        for chunk in demo.chunks() {
            let chunk = chunk.unwrap_or_else(|e| panic!("{name}: {e}"));
            let Some(payload) = chunk.kind.payload() else {
                continue;
            };
            let kind = chunk.kind.name();
            let n = huffman::decompress(payload, &mut out_fast)
                .unwrap_or_else(|e| panic!("{name} chunk {}: {e}", chunk.index));
            let n_oracle = huffman::oracle::decompress(payload, &mut out_oracle);
            assert_eq!(n_oracle, Ok(n), "{name} chunk {}", chunk.index);
            let decoded = &out_fast[..n];
            assert_eq!(decoded, &out_oracle[..n], "{name} chunk {}", chunk.index);

            let mut warnings: Vec<VarintWarning> = Vec::new();
            let count = varint::unpack(decoded, &mut ints, &mut warnings)
                .unwrap_or_else(|e| panic!("{name} chunk {}: {e}", chunk.index));
            for backend in [Backend::Oracle, Backend::Scalar] {
                let mut warnings_other = Vec::new();
                let r = Kernels::new(backend).unpack(decoded, &mut ints_other, &mut warnings_other);
                assert_eq!(r, Ok(count), "{name} chunk {} {backend}", chunk.index);
                assert_eq!(ints[..count], ints_other[..count]);
                assert_eq!(warnings, warnings_other);
            }

            let line = format!(
                "{data_index}\t{kind}\t{}\t{n}\t{}\t{count}\t{}",
                payload.len(),
                crc32(decoded),
                crc32(&ints_le(&ints[..count])),
            );
            assert_eq!(Some(line.as_str()), expected.next(), "{name}");

            // Re-compressing reproduces the file's bytes, extra byte and all.
            let mut recompressed = Vec::new();
            huffman::compress(decoded, &mut recompressed);
            assert_eq!(recompressed, payload, "{name} chunk {}", chunk.index);
            if code_bits(decoded).is_multiple_of(8) {
                assert_eq!(payload.last(), Some(&0));
                totals.extra_byte += 1;
            }
            // Packing the ints again gives the payload back unless the
            // writer used non-minimal forms.
            if warnings.is_empty() {
                let mut repacked = Vec::new();
                varint::pack(&ints[..count], &mut repacked);
                assert_eq!(repacked, decoded, "{name} chunk {}", chunk.index);
                totals.repacked += 1;
            } else {
                totals.with_warnings += 1;
            }
            data_index += 1;
            totals.chunks += 1;
        }
        assert_eq!(expected.next(), None, "{name}: golden has more chunks");
        totals.demos += 1;
    }
    eprintln!(
        "{} demos, {} data chunks match golden; {} carry the extra trailing Huffman byte; \
         {} re-packed exactly, {} had varint warnings",
        totals.demos, totals.chunks, totals.extra_byte, totals.repacked, totals.with_warnings
    );
    assert_eq!(totals.demos, demos.len());
}

fn str_field(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} is not a string"))
        .to_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn header_and_counts_match_summary() {
    let Some((demos, golden)) = demos() else {
        return;
    };
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let demo = Demo::parse(&bytes).unwrap();
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(golden_path(&golden, path, "summary.json")).unwrap(),
        )
        .unwrap();
        let h = &summary["header"];
        assert_eq!(
            h["version_number"].as_u64(),
            Some(u64::from(demo.version())),
            "{name}"
        );
        assert_eq!(
            str_field(h, "net_version"),
            text(demo.net_version()),
            "{name}"
        );
        assert_eq!(str_field(h, "map_name"), text(demo.map_name()), "{name}");
        assert_eq!(
            h["map_size"].as_u64(),
            Some(u64::from(demo.map_size())),
            "{name}"
        );
        assert_eq!(
            str_field(h, "map_crc"),
            format!("{:08x}", demo.map_crc()),
            "{name}"
        );
        assert_eq!(str_field(h, "type"), text(demo.demo_type()), "{name}");
        assert_eq!(
            h["length"].as_i64(),
            Some(i64::from(demo.length())),
            "{name}"
        );
        assert_eq!(str_field(h, "timestamp"), text(demo.timestamp()), "{name}");
        let markers: Vec<i64> = h["timeline_markers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_i64().unwrap())
            .collect();
        let ours: Vec<i64> = demo
            .timeline_markers()
            .iter()
            .map(|&m| i64::from(m))
            .collect();
        assert_eq!(markers, ours, "{name}");
        assert_eq!(
            h["map_sha256_header"].as_str().map(str::to_owned),
            demo.map_sha256().map(hex::encode),
            "{name}"
        );

        // The embedded map is the one the header names.
        let map = &summary["embedded_map"];
        assert_eq!(
            map["size"].as_u64(),
            Some(demo.map().len() as u64),
            "{name}"
        );
        assert_eq!(str_field(map, "crc32"), crc32(demo.map()), "{name}");
        assert_eq!(
            str_field(map, "sha256"),
            hex::encode(sha2::Sha256::digest(demo.map()))
        );

        // Chunk counts and the tick range.
        let (mut ticks, mut keyframes, mut snaps, mut deltas, mut msgs, mut unknown) =
            (0, 0, 0, 0, 0, 0);
        let (mut first_tick, mut last_tick) = (None, None);
        for chunk in demo.chunks() {
            match chunk.unwrap().kind {
                ChunkKind::Tick { tick, keyframe } => {
                    ticks += 1;
                    keyframes += u64::from(keyframe);
                    first_tick.get_or_insert(tick);
                    last_tick = Some(tick);
                }
                ChunkKind::Snapshot(_) => snaps += 1,
                ChunkKind::Delta(_) => deltas += 1,
                ChunkKind::Message(_) => msgs += 1,
                ChunkKind::Unknown { .. } => unknown += 1,
            }
        }
        let c = &summary["chunks"];
        let counts = [ticks, keyframes, snaps, deltas, msgs, unknown];
        let golden_counts = [
            "tick_markers",
            "keyframe_tick_markers",
            "snapshot",
            "snapshot_delta",
            "message",
            "unknown",
        ]
        .map(|k| c[k].as_u64().unwrap());
        assert_eq!(counts, golden_counts, "{name}");
        assert_eq!(
            summary["first_tick"].as_i64(),
            first_tick.map(i64::from),
            "{name}"
        );
        assert_eq!(
            summary["last_tick"].as_i64(),
            last_tick.map(i64::from),
            "{name}"
        );
    }
}

/// libtw2's name for each warning (its demo reader makes the same checks;
/// it files non-increasing markers and keyframe deltas under one name).
fn libtw2_name(kind: DemoWarningKind) -> &'static str {
    use DemoWarningKind::*;
    match kind {
        NetVersionPadding => "demo:WeirdNetVersion",
        MapNamePadding => "demo:WeirdMapName",
        TimestampPadding => "demo:WeirdTimestamp",
        UnknownType => "demo:WeirdType",
        TimelineMarkerPadding => "demo:WeirdTimelineMarkerPadding",
        TimelineMarkersNotIncreasing | KeyframeDeltaTick => "demo:NonAbsoluteTickmarkerTick",
        TickPadding => "demo:NonZeroTickmarkerPadding",
        UnknownChunkType => "demo:UnknownChunkType",
        OverlongChunkSize => "demo:OverlongChunkSizeEncoding",
        // Errors in libtw2's reader; none of the demos has them.
        DeltaTickFirst => "error:StartingDeltaSnapshot",
        TickNotIncreasing => "error:NotIncreasingTick",
        TickOverflow => "error:TickOverflow",
        // Added by a capped sink, never by the reader.
        TooManyWarnings => "teebatch:TooManyWarnings",
        // Not checked by libtw2; none of the demos has it.
        ZeroTickDelta => "teebatch:ZeroTickDelta",
        // The enum is `#[non_exhaustive]`: a kind added later needs its
        // libtw2 name here.
        other => panic!("no libtw2 name for {other:?}"),
    }
}

#[test]
fn warnings_match_libtw2() {
    let Some((demos, golden)) = demos() else {
        return;
    };
    let mut total = 0;
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        let mut warnings: Vec<DemoWarning> = Vec::new();
        let demo = Demo::parse_with_warnings(&bytes, &mut warnings).unwrap();
        let mut chunks = demo.chunks();
        while let Some(chunk) = chunks.next_with_warnings(&mut warnings) {
            chunk.unwrap();
        }
        let mut ours = std::collections::BTreeMap::new();
        for w in &warnings {
            *ours.entry(libtw2_name(w.kind).to_owned()).or_insert(0u64) += 1;
        }
        let summary: Value = serde_json::from_str(
            &std::fs::read_to_string(golden_path(&golden, path, "summary.json")).unwrap(),
        )
        .unwrap();
        let theirs: std::collections::BTreeMap<String, u64> = summary["libtw2_warnings"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| k.starts_with("demo:"))
            .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
            .collect();
        assert_eq!(ours, theirs, "{name}: {warnings:?}");
        total += warnings.len();
    }
    eprintln!("{total} demo warnings, all as libtw2 reports them");
}

#[test]
fn truncated_demos_fail_cleanly() {
    let Some((demos, _)) = demos() else {
        return;
    };
    let mut outcomes = [0usize; 3]; // parse error, chunk error, clean end
    for path in &demos {
        let bytes = std::fs::read(path).unwrap();
        for k in 0..64 {
            let cut = bytes.len() * k / 64;
            let data = &bytes[..cut];
            let demo = match Demo::parse(data) {
                Ok(d) => d,
                Err(e) => {
                    assert!(e.offset <= cut, "{e}");
                    assert!(!matches!(e.section, Section::Chunk(_)));
                    outcomes[0] += 1;
                    continue;
                }
            };
            let mut error = None;
            let mut last_end = demo.chunks_offset();
            for chunk in demo.chunks() {
                assert!(error.is_none(), "a chunk after an error");
                match chunk {
                    Ok(c) => {
                        assert!(c.offset >= last_end && c.offset < cut);
                        last_end = c.offset + 1;
                    }
                    Err(e) => error = Some(e),
                }
            }
            match error {
                Some(e) => {
                    assert_eq!(e.kind, DemoErrorKind::UnexpectedEnd);
                    assert!(matches!(e.section, Section::Chunk(_)));
                    assert!(
                        e.offset >= last_end.saturating_sub(1) && e.offset < cut,
                        "{e}"
                    );
                    outcomes[1] += 1;
                }
                None => outcomes[2] += 1,
            }
        }
    }
    eprintln!(
        "truncations: {} header/map errors, {} chunk errors, {} ended on a chunk boundary",
        outcomes[0], outcomes[1], outcomes[2]
    );
}

#[test]
fn header_errors() {
    let mut demo = b"TWDEMO\0\x06".to_vec();
    demo.resize(8 + 168 + 260, 0);
    let parsed = Demo::parse(&demo).unwrap();
    assert_eq!(parsed.map_sha256(), None);
    assert_eq!(parsed.chunks_offset(), 436);
    assert_eq!(parsed.chunks().count(), 0);

    // Version 3: no timeline markers; a 2-byte "map", then one tick chunk.
    let mut v3 = b"TWDEMO\0\x03".to_vec();
    v3.resize(8 + 168, 0);
    v3[8..11].copy_from_slice(b"0.6");
    v3[136..140].copy_from_slice(&2i32.to_be_bytes());
    v3.extend_from_slice(&[0xaa, 0xbb, 0x85]);
    let parsed = Demo::parse(&v3).unwrap();
    assert_eq!(parsed.version(), 3);
    assert_eq!(parsed.net_version(), b"0.6");
    assert_eq!(parsed.timeline_markers(), &[] as &[i32]);
    assert_eq!(parsed.map(), [0xaa, 0xbb]);
    assert_eq!(parsed.chunks_offset(), 178);
    let chunks: Vec<_> = parsed.chunks().map(|c| c.unwrap().kind).collect();
    assert_eq!(
        chunks,
        [ChunkKind::Tick {
            tick: 5,
            keyframe: false
        }]
    );
    assert!(format!("{parsed:?}").contains("map_size: 2"));
    // Its type is empty; a map name with bytes after the NUL.
    let mut odd = v3.clone();
    odd[72..78].copy_from_slice(b"dm1\0xy");
    let mut warnings = Vec::new();
    let parsed = Demo::parse_with_warnings(&odd, &mut warnings).unwrap();
    assert_eq!(parsed.map_name(), b"dm1");
    let found: Vec<_> = warnings
        .iter()
        .map(|w| (w.kind, w.section, w.offset))
        .collect();
    assert_eq!(
        found,
        [
            (DemoWarningKind::MapNamePadding, Section::Header, 72),
            (DemoWarningKind::UnknownType, Section::Header, 144),
        ]
    );

    let err = |bytes: &[u8]| Demo::parse(bytes).unwrap_err();
    assert_eq!(err(b"TWDEMO").kind, DemoErrorKind::UnexpectedEnd);
    assert_eq!(err(b"TWDEMX\0\x06").kind, DemoErrorKind::BadMagic);
    let mut v7 = demo.clone();
    v7[7] = 7;
    assert_eq!(err(&v7).kind, DemoErrorKind::UnsupportedVersion);
    let mut markers = demo.clone();
    markers[176..180].copy_from_slice(&65i32.to_be_bytes());
    let e = err(&markers);
    assert_eq!(
        (e.kind, e.section, e.offset),
        (
            DemoErrorKind::TimelineMarkerCount,
            Section::TimelineMarkers,
            176
        )
    );
    let mut map = demo.clone();
    map[136..140].copy_from_slice(&1i32.to_be_bytes());
    let e = err(&map);
    assert_eq!(
        (e.kind, e.section),
        (DemoErrorKind::UnexpectedEnd, Section::Map)
    );
    map[136..140].copy_from_slice(&(-1i32).to_be_bytes());
    assert_eq!(err(&map).kind, DemoErrorKind::NegativeMapSize);
}

#[test]
fn chunk_framing() {
    // Version 5 layout, no map, then hand-made chunks.
    let mut demo = b"TWDEMO\0\x05".to_vec();
    demo.resize(8 + 168 + 260, 0);
    let start = demo.len();
    demo.extend_from_slice(&[0xc0, 0, 0, 0x01, 0x00]); // keyframe, absolute tick 256
    demo.extend_from_slice(&[0xa3]); // inline delta 3
    demo.extend_from_slice(&[0x22, 1, 2]); // snapshot, 2 bytes
    demo.extend_from_slice(&[0x5e, 3, 9, 9, 9]); // message, size byte: 3
    demo.extend_from_slice(&[0x7f, 1, 0, 7]); // delta, LE u16 size: 1
    demo.extend_from_slice(&[0x01, 5]); // type 0: unknown, skipped by size
    demo.extend_from_slice(&[0x7f, 2]); // truncated size
    let demo_parsed = Demo::parse(&demo).unwrap();
    let chunks: Vec<_> = demo_parsed.chunks().collect();
    let kinds: Vec<_> = chunks
        .iter()
        .map(|c| c.map(|c| (c.offset - start, c.kind)))
        .collect();
    use ChunkKind::*;
    assert_eq!(
        kinds,
        [
            Ok((
                0,
                Tick {
                    tick: 256,
                    keyframe: true
                }
            )),
            Ok((
                5,
                Tick {
                    tick: 259,
                    keyframe: false
                }
            )),
            Ok((6, Snapshot(&[1, 2]))),
            Ok((9, Message(&[9, 9, 9]))),
            Ok((14, Delta(&[7]))),
            Ok((
                18,
                Unknown {
                    chunk_type: 0,
                    data: &[5]
                }
            )),
            Err(teebatch::demo::DemoError {
                kind: DemoErrorKind::UnexpectedEnd,
                section: Section::Chunk(6),
                offset: start + 20,
            }),
        ]
    );

    // Warnings: each odd chunk once.
    let mut odd = demo[..start].to_vec();
    odd.extend_from_slice(&[0xa1]); // delta before any absolute tick
    odd.extend_from_slice(&[0x83, 0, 0, 0, 9]); // absolute, non-zero padding
    odd.extend_from_slice(&[0xe2]); // keyframe as a delta
    odd.extend_from_slice(&[0x80, 0, 0, 0, 9]); // not increasing (11 -> 9)
    odd.extend_from_slice(&[0x3e, 1, 0]); // snapshot, size escape 30 for 1
    odd.extend_from_slice(&[0x5f, 2, 0, 7, 7]); // message, escape 31 for 2
    odd.extend_from_slice(&[0x9f, 0x80, 0, 0, 0]); // i32::MIN ...
    let odd_demo = Demo::parse(&odd).unwrap();
    let mut chunks = odd_demo.chunks_at(odd.len() - 5, 0, i32::MAX);
    let mut warnings = Vec::new();
    while let Some(c) = chunks.next_with_warnings(&mut warnings) {
        c.unwrap();
    }
    // ... reached from i32::MAX by an absolute marker: not increasing.
    assert_eq!(
        warnings.iter().map(|w| w.kind).collect::<Vec<_>>(),
        [
            DemoWarningKind::TickPadding,
            DemoWarningKind::TickNotIncreasing
        ]
    );
    let mut warnings = Vec::new();
    let mut chunks = odd_demo.chunks();
    while let Some(c) = chunks.next_with_warnings(&mut warnings) {
        c.unwrap();
    }
    use DemoWarningKind::*;
    let found: Vec<_> = warnings
        .iter()
        .map(|w| (w.kind, w.offset - start))
        .collect();
    assert_eq!(
        found,
        [
            (DeltaTickFirst, 0),
            (TickPadding, 1),
            (KeyframeDeltaTick, 6),
            (TickNotIncreasing, 7),
            (OverlongChunkSize, 12),
            (OverlongChunkSize, 15),
            (TickPadding, 20),
            (TickNotIncreasing, 20),
        ]
    );
    assert_eq!(warnings[0].section, Section::Chunk(0));

    // Version 4: a non-zero 6-bit delta is inline, 0 means absolute.
    let mut v4 = demo[..start].to_vec();
    v4[7] = 4;
    v4.extend_from_slice(&[0x80, 0, 0, 0, 10, 0xbf, 0xa0]);
    let ticks: Vec<_> = Demo::parse(&v4)
        .unwrap()
        .chunks()
        .map(|c| c.unwrap().kind)
        .collect();
    assert_eq!(
        ticks,
        [
            Tick {
                tick: 10,
                keyframe: false
            },
            Tick {
                tick: 73,
                keyframe: false
            },
            Tick {
                tick: 105,
                keyframe: false
            },
        ]
    );
}

/// A version-5 tick marker whose delta is 0 (the inline flag and no delta
/// bits, which `DemoWriter` writes for a repeated tick) repeats the tick:
/// one `zero_tick_delta` warning at that marker's byte, in the chunk walk
/// and in the `demos index` record. Version 4 has no such marker (a delta
/// of 0 means an absolute tick follows).
#[test]
fn zero_tick_delta_warns() {
    use teebatch::codec::snapshot::{Protocol, Snapshot};
    use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter};
    let header = DemoHeader::new(DemoVersion::V5, Protocol::V06, "zero", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    w.tick(100, true).unwrap();
    w.full_snapshot(&Snapshot::new()).unwrap();
    w.tick(101, false).unwrap();
    let at = w.position() as usize;
    w.tick(101, false).unwrap();
    w.tick(102, false).unwrap();
    let bytes = w.finish_vec().unwrap();
    assert_eq!(bytes[at], 0xa0, "an inline delta of 0");
    let demo = Demo::parse(&bytes).unwrap();
    let mut warnings = Vec::new();
    let mut ticks = Vec::new();
    let mut chunks = demo.chunks();
    while let Some(c) = chunks.next_with_warnings(&mut warnings) {
        if let ChunkKind::Tick { tick, .. } = c.unwrap().kind {
            ticks.push(tick);
        }
    }
    assert_eq!(ticks, [100, 101, 101, 102]);
    assert_eq!(
        warnings,
        [DemoWarning {
            kind: DemoWarningKind::ZeroTickDelta,
            section: Section::Chunk(3),
            offset: at,
        }]
    );
    assert_eq!(DemoWarningKind::ZeroTickDelta.kind(), "zero_tick_delta");

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zero.demo");
    std::fs::write(&path, &bytes).unwrap();
    let o = crate::common::teebatch(&["demos", "index", "-q", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let rec = &crate::common::records(&o)[0];
    let demo_warnings: Vec<&Value> = rec["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["stage"] == "demo")
        .collect();
    assert_eq!(
        demo_warnings,
        [&serde_json::json!({
            "stage": "demo",
            "kind": "zero_tick_delta",
            "section": "chunk 3",
            "offset": at,
        })]
    );
}

/// Decodes everything the way a batch tool would; returns how many chunks
/// decoded cleanly. Must never panic, whatever the bytes.
fn decode_all(bytes: &[u8]) -> usize {
    let mut warnings = Vec::new();
    let Ok(demo) = Demo::parse_with_warnings(bytes, &mut warnings) else {
        return 0;
    };
    let mut out = vec![0u8; MAX_PAYLOAD];
    let mut ints = vec![0i32; MAX_PAYLOAD];
    let mut clean = 0;
    let mut chunks = demo.chunks();
    while let Some(chunk) = chunks.next_with_warnings(&mut warnings) {
        let Ok(chunk) = chunk else {
            break;
        };
        let Some(payload) = chunk.kind.payload() else {
            continue;
        };
        let fast = huffman::decompress(payload, &mut out);
        let mut oracle_out = vec![0u8; MAX_PAYLOAD];
        assert_eq!(fast, huffman::oracle::decompress(payload, &mut oracle_out));
        if let Ok(n) = fast {
            let mut w = Vec::new();
            if varint::unpack(&out[..n], &mut ints, &mut w).is_ok() {
                clean += 1;
            }
        }
    }
    clean
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    #[test]
    fn mutated_demos_never_panic(
        flips in proptest::collection::vec((0.0f64..1.0, proptest::prelude::any::<u8>()), 1..16),
    ) {
        let Some((demos, _)) = demos() else {
            return Ok(());
        };
        // The smallest demo keeps this quick; mutate its chunk data mostly.
        let path = demos.iter().min_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)).unwrap();
        let mut bytes = std::fs::read(path).unwrap();
        proptest::prop_assert!(decode_all(&bytes) > 0);
        for (at, value) in flips {
            let last = bytes.len() - 1;
            let i = ((bytes.len() as f64) * at) as usize;
            bytes[i.min(last)] ^= value;
        }
        decode_all(&bytes);
    }
}
