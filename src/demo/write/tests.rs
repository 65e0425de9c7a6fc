use super::*;
use crate::demo::{ChunkKind, Demo};

fn header(version: DemoVersion) -> DemoHeader<'static> {
    DemoHeader::new(version, Protocol::V06, "dm1", b"not really a map")
}

fn ticks(bytes: &[u8]) -> Vec<(i32, bool, usize)> {
    let demo = Demo::parse(bytes).unwrap();
    let mut v = Vec::new();
    let mut prev = None;
    for c in demo.chunks() {
        let c = c.unwrap();
        if let ChunkKind::Tick { tick, keyframe } = c.kind {
            if let Some((t, k, off)) = prev.take() {
                v.push((t, k, c.offset - off));
            }
            prev = Some((tick, keyframe, c.offset));
        }
    }
    if let Some((t, k, off)) = prev {
        v.push((t, k, bytes.len() - off));
    }
    v
}

#[test]
fn tick_markers_inline_or_absolute() {
    for version in [DemoVersion::V6, DemoVersion::V5, DemoVersion::V4] {
        let mut w = DemoWriter::new_vec(&header(version)).unwrap();
        let seq = [
            (100, false),
            (100, false),
            (131, false),
            (163, false),
            (164, true),
            (227, false),
            (291, false),
        ];
        for (t, k) in seq {
            w.tick(t, k).unwrap();
        }
        let bytes = w.finish_vec().unwrap();
        let got = ticks(&bytes);
        let inline_v5 = [5, 1, 1, 5, 5, 5, 5];
        let inline_v4 = [5, 5, 1, 1, 5, 1, 5];
        let want = if version == DemoVersion::V4 {
            inline_v4
        } else {
            inline_v5
        };
        for (i, ((t, k), (gt, gk, len))) in seq.iter().zip(&got).enumerate() {
            assert_eq!((*t, *k), (*gt, *gk), "{version:?} #{i}");
            assert_eq!(*len, want[i], "{version:?} #{i}");
        }
        assert_eq!(
            Demo::parse(&bytes).unwrap().length(),
            (291 - 100) / TICKS_PER_SECOND
        );
    }
}

#[test]
fn header_fields() {
    let map = b"some map bytes";
    let mut h = DemoHeader::new(DemoVersion::V6, Protocol::V07, "ctf5", map);
    h.timestamp = "2024-01-02_03-04-05";
    h.demo_type = "server";
    let mut w = DemoWriter::new_vec(&h).unwrap();
    w.tick(1000, true).unwrap();
    w.timeline_marker(1000).unwrap();
    assert_eq!(
        w.timeline_marker(1049).unwrap_err().kind,
        WriteErrorKind::TimelineMarkerTooClose
    );
    w.tick(1200, false).unwrap();
    w.timeline_marker(1200).unwrap();
    let bytes = w.finish_vec().unwrap();
    let d = Demo::parse(&bytes).unwrap();
    assert_eq!(d.version(), 6);
    assert_eq!(d.net_version(), Protocol::V07.net_version().as_bytes());
    assert_eq!(d.map_name(), b"ctf5");
    assert_eq!(d.map(), map);
    assert_eq!(d.map_crc(), crc32fast::hash(map));
    assert_eq!(d.map_sha256().unwrap()[..], Sha256::digest(map)[..]);
    assert_eq!(d.demo_type(), b"server");
    assert_eq!(d.timestamp(), b"2024-01-02_03-04-05");
    assert_eq!(d.length(), 4);
    assert_eq!(d.timeline_markers(), &[1000, 1200]);
}

#[test]
fn errors_write_nothing() {
    let mut w = DemoWriter::new_vec(&header(DemoVersion::V6)).unwrap();
    w.tick(10, true).unwrap();
    let at = w.position();
    assert_eq!(
        w.tick(9, false).unwrap_err().kind,
        WriteErrorKind::TickBackwards
    );
    assert_eq!(
        w.tick(-1, false).unwrap_err().kind,
        WriteErrorKind::NegativeTick
    );
    let big = vec![0x55u8; MAX_DATA_SIZE + 1];
    assert_eq!(
        w.message(&big).unwrap_err().kind,
        WriteErrorKind::DataTooLarge
    );
    // 64 KiB of bytes that each take a 9+-bit Huffman code: packs to
    // more than 64 KiB, so no chunk can hold it.
    let ints: Vec<u8> = (0..MAX_DATA_SIZE).map(|i| (i * 37 + 200) as u8).collect();
    let e = w.message(&ints).unwrap_err();
    assert_eq!(e.kind, WriteErrorKind::PayloadTooLarge);
    assert_eq!(e.offset, at);
    assert_eq!(w.position(), at);
    let long = "x".repeat(64);
    let mut h = header(DemoVersion::V6);
    h.map_name = &long;
    assert_eq!(
        DemoWriter::new_vec(&h).err().unwrap().kind,
        WriteErrorKind::FieldTooLong(HeaderField::MapName)
    );
}
