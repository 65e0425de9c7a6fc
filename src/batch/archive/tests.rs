use super::checks::{check_members, has_ext, unsafe_name};
use super::*;

fn listed(name: &str, header_offset: u64, stored_size: u64, size: u64) -> Listed {
    Listed {
        raw: name.as_bytes().to_vec(),
        header_offset,
        data_offset: header_offset + 30,
        stored_size,
        size,
        method: Method::Deflated,
        crc32: Some(0),
        problem: None,
    }
}

#[test]
fn ratio_and_total_limits_refuse_the_members_past_them() {
    let limits = Limits {
        max_archive_ratio: 10,
        max_archive_total_bytes: 250,
        ..Limits::default()
    };
    let mut l = vec![
        listed("a.map", 0, 10, 100),
        listed("b.map", 100, 10, 101),
        listed("c.map", 200, 10, 100),
        listed("d.map", 300, 10, 100),
    ];
    check_members(&mut l, 1000, &limits);
    let kinds: Vec<_> = l
        .iter()
        .map(|l| l.problem.as_ref().map(|p| (p.kind, p.offset)))
        .collect();
    assert_eq!(
        kinds,
        [
            None,
            Some(("zip_bomb", 100)),
            None,
            Some(("total_limit", 300)),
        ]
    );
}

/// A tar of `files` (`(name, bytes)`), in that order.
fn tar_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut b = ::tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut h = ::tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, bytes.as_slice()).unwrap();
    }
    b.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    g.write_all(bytes).unwrap();
    g.finish().unwrap()
}

fn members_of(path: &Path, kind: Kind) -> Vec<Member> {
    let mut out = Vec::new();
    list(path, kind, "map", &Limits::default(), &mut out);
    crate::batch::archive::mark_selected(&out);
    out.into_iter()
        .map(|i| match i {
            Input::Member(m) => *m,
            _ => panic!("not a member"),
        })
        .collect()
}

fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("a.map", vec![1; 1000]),
        ("b.map", vec![2; 3000]),
        ("c.map", vec![3; 5000]),
    ]
}

#[test]
fn stored_tar_members_are_slices_of_the_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.tar");
    std::fs::write(&path, tar_of(&files())).unwrap();
    let members = members_of(&path, Kind::Tar);
    assert_eq!(members.len(), 3);
    for (m, (_, want)) in members.iter().zip(files()) {
        let Source::Mapped(mapped) = &m.source else {
            panic!("a tar is mapped")
        };
        let range = mapped.bytes.as_ptr_range();
        let mut buf = Vec::new();
        let got = m.load(&mut buf).unwrap();
        assert_eq!(got, want.as_slice());
        assert!(range.contains(&got.as_ptr()), "{} was copied", m.name);
        assert_eq!(buf.capacity(), 0, "{} went through the buffer", m.name);
    }
}

#[test]
fn a_gzip_stream_changed_after_listing_is_the_members_bad_archive() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.tar.gz");
    let whole = gzip(&tar_of(&files()));
    std::fs::write(&path, &whole).unwrap();
    let members = members_of(&path, Kind::TarGz);
    assert_eq!(members.len(), 3);
    // Cut after a.map's bytes: b.map cannot be read any more.
    let tar = tar_of(&files());
    std::fs::write(&path, gzip(&tar[..2048])).unwrap();
    let mut buf = Vec::new();
    let e = members[1].load(&mut buf).unwrap_err();
    let e = e
        .get_ref()
        .and_then(|e| e.downcast_ref::<ArchiveError>())
        .unwrap();
    assert_eq!(
        (e.kind, e.section, e.offset),
        ("bad_archive", "member", members[1].header_offset)
    );
    // The failed read closed the stream: the next member reads it again
    // from its start, and gets its own bytes.
    std::fs::write(&path, &whole).unwrap();
    assert_eq!(members[2].load(&mut buf).unwrap(), &files()[2].1[..]);
    assert_eq!(members[0].load(&mut buf).unwrap(), &files()[0].1[..]);
}

#[test]
fn a_released_stream_member_is_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.tgz");
    std::fs::write(&path, gzip(&tar_of(&files()))).unwrap();
    let members = members_of(&path, Kind::TarGz);
    let Source::Stream(stream) = &members[0].source else {
        panic!("a .tgz is a stream")
    };
    // A worker asking for c.map first passes a.map and b.map, which
    // come before it in name order: they are kept for their workers.
    let mut buf = Vec::new();
    assert_eq!(members[2].load(&mut buf).unwrap(), &files()[2].1[..]);
    assert_eq!(stream.held_bytes(), 4000);
    // a.map is refused by its command: its bytes go.
    members[0].release();
    assert_eq!(stream.held_bytes(), 3000);
    assert_eq!(members[1].load(&mut buf).unwrap(), &files()[1].1[..]);
    assert_eq!(stream.held_bytes(), 0);
    // Released before the stream passes it: never kept.
    let members = members_of(&path, Kind::TarGz);
    let Source::Stream(stream) = &members[0].source else {
        panic!("a .tgz is a stream")
    };
    members[0].release();
    assert_eq!(members[2].load(&mut buf).unwrap(), &files()[2].1[..]);
    assert_eq!(stream.held_bytes(), 3000);
    assert_eq!(stream.restarts(), 0);
}

#[test]
fn kinds_and_names() {
    assert_eq!(Kind::of_name(b"a/B.TAR.GZ"), Some(Kind::TarGz));
    assert_eq!(Kind::of_name(b"x.tgz"), Some(Kind::TarGz));
    assert_eq!(Kind::of_name(b"x.Zip"), Some(Kind::Zip));
    assert_eq!(Kind::of_name(b"x.tar"), Some(Kind::Tar));
    assert_eq!(Kind::of_name(b"x.map"), None);
    assert_eq!(Kind::of_name(b"x.gz"), None);
    assert_eq!(Kind::of_name(b"tar"), None);
    assert_eq!(Kind::of_name(b""), None);
    assert!(has_ext(b"maps/A.MAP", "map"));
    assert!(!has_ext(b"maps/.map", "map"));
    assert!(!has_ext(b"amap", "map"));
    assert!(unsafe_name("../x.map"));
    assert!(unsafe_name("a/../../x.map"));
    assert!(unsafe_name("/etc/x.map"));
    assert!(unsafe_name("C:x.map"));
    assert!(!unsafe_name("a/..b/x.map"));
}
