//! Archive inputs used by a hostile or careless user (issue 38): cost
//! linear in the archive whatever its member order, capped member names,
//! allocations that follow what inflation produces, and memory per listed
//! member. Operation counts and capacities, never wall time or RSS.

use crate::archives::tar_bytes;
use std::io::Write;
use std::path::Path;
use teebatch::batch::archive::{Source, StreamOps};
use teebatch::batch::{self, Input, MmapMode};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    g.write_all(bytes).unwrap();
    g.finish().unwrap()
}

/// The bytes of member number `i` (`m{i:06}.map`) of `size` bytes.
fn member_bytes(i: usize, size: usize) -> Vec<u8> {
    (0..size).map(|k| (i * 7 + k % 13) as u8).collect()
}

/// `n` members of `size` bytes, stored in a shuffled order (fixed seed),
/// not in the name order workers ask for them.
fn shuffled_members(n: usize, size: usize) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = (0..n)
        .map(|i| (format!("m{i:06}.map"), member_bytes(i, size)))
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in (1..n).rev() {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        v.swap(i, (x >> 33) as usize % (i + 1));
    }
    v
}

/// `large / small` when the input doubled: at most about 2 (a cost that
/// grows with the square of the members gives 4).
fn assert_linear(what: &str, small: u64, large: u64) {
    assert!(small > 0, "{what}: nothing counted");
    let ratio = large as f64 / small as f64;
    assert!(
        ratio <= 2.2,
        "{what}: {small} -> {large} when the members doubled (x{ratio:.2})"
    );
}

/// The `.tar.gz` stream all of `inputs` are members of.
fn stream_of(inputs: &[Input]) -> std::sync::Arc<batch::archive::GzStream> {
    match &inputs[0] {
        Input::Member(m) => match &m.source {
            Source::Stream(s) => s.clone(),
            Source::Mapped(_) => panic!("a .tar.gz is a stream"),
        },
        other => panic!("not a member: {other:?}"),
    }
}

/// Lists the `.tar.gz` at `path` and loads every member in input (name)
/// order, as one worker does, with `budget` bytes of read-ahead memory;
/// checks each member's bytes and returns what the stream counted after
/// listing and after reading.
fn list_and_read(path: &Path, size: usize, budget: u64) -> (StreamOps, StreamOps) {
    let inputs = batch::collect_inputs(&[path.to_path_buf()], "map");
    let stream = stream_of(&inputs);
    stream.set_memory_budget(budget);
    let listed = stream.ops();
    let mut buf = Vec::new();
    for input in &inputs {
        let Input::Member(m) = input else {
            panic!("{input:?}")
        };
        let i: usize = m.name[1..7].parse().unwrap();
        let got = batch::load(input, MmapMode::Never, &mut buf).unwrap();
        assert!(*got == member_bytes(i, size), "{}", m.name);
    }
    assert!(stream.held_bytes() <= budget);
    (listed, stream.ops())
}

/// A `.tar.gz` whose members are not stored in name order is decompressed
/// once to list it and once to read it (the members passed on the way are
/// kept in memory or spooled to a temporary file, never read again from
/// the start), so what reading costs doubles when the members double.
#[test]
fn a_tar_gz_in_any_member_order_is_decompressed_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mut counts = Vec::new();
    for n in [300, 600] {
        let tar = tar_bytes(&shuffled_members(n, 4096));
        let p = tmp.path().join(format!("shuffled{n}.tar.gz"));
        std::fs::write(&p, gzip(&tar)).unwrap();
        // 16 members' worth of memory: the rest of what is passed is spooled.
        let (listed, read) = list_and_read(&p, 4096, 16 * 4096);
        assert_eq!(read.restarts, 0, "n {n}");
        assert_eq!(listed.listed_bytes, tar.len() as u64, "n {n}");
        assert!(
            read.decompressed_bytes <= tar.len() as u64,
            "n {n}: {} bytes decompressed from a {} byte tar",
            read.decompressed_bytes,
            tar.len()
        );
        assert!(read.spooled_bytes > 0, "n {n}");
        counts.push(read);
    }
    let [a, b] = [counts[0], counts[1]];
    assert_linear(
        "decompressed bytes",
        a.decompressed_bytes,
        b.decompressed_bytes,
    );
    assert_linear("entry visits", a.entry_visits, b.entry_visits);
    assert_linear("spooled bytes", a.spooled_bytes, b.spooled_bytes);
}

/// Listing a `.tar.gz` of many empty members (and marking the ones the
/// batch will ask for) visits each member a fixed number of times, and so
/// does reading them: n and 2n members cost about 1 : 2.
#[test]
fn listing_many_tar_gz_members_is_linear() {
    let tmp = tempfile::tempdir().unwrap();
    let mut counts = Vec::new();
    for n in [5_000, 10_000] {
        let tar = tar_bytes(&shuffled_members(n, 0));
        let p = tmp.path().join(format!("empty{n}.tgz"));
        std::fs::write(&p, gzip(&tar)).unwrap();
        let (listed, read) = list_and_read(&p, 0, 0);
        assert_eq!(read.restarts, 0);
        assert!(listed.entry_visits <= 3 * n as u64 + 16, "{listed:?}");
        counts.push((listed, read));
    }
    let (l0, r0) = counts[0];
    let (l1, r1) = counts[1];
    assert_linear("entry visits to list", l0.entry_visits, l1.entry_visits);
    assert_linear(
        "bytes decompressed to list",
        l0.listed_bytes,
        l1.listed_bytes,
    );
    assert_linear("entry visits to read", r0.entry_visits, r1.entry_visits);
}

/// A tar of raw entries `(type, header name, data)`, headers written as
/// given (no long-name handling by the builder).
fn raw_tar(entries: &[(tar::EntryType, &str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (t, name, data) in entries {
        let mut h = if *t == tar::EntryType::XHeader {
            tar::Header::new_ustar()
        } else {
            tar::Header::new_gnu()
        };
        h.set_entry_type(*t);
        h.as_old_mut().name[..name.len()].copy_from_slice(name.as_bytes());
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append(&h, *data).unwrap();
    }
    b.into_inner().unwrap()
}

/// One PAX record `LEN key=value\n` (LEN counts the whole record).
fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = key.len() + value.len() + 3;
    let mut len = body + 1;
    while body + len.to_string().len() != len {
        len = body + len.to_string().len();
    }
    let mut r = format!("{len} {key}=").into_bytes();
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

/// A GNU long name of 64 MiB (64 KB once gzipped) or a PAX path of 5000
/// bytes is never read: the member it names is one `name_too_long`
/// record for the archive at the extension header's offset, and the
/// members after it are listed as usual. A long name under the cap is the
/// member's name.
#[test]
fn overlong_tar_member_names_are_refused_unread() {
    let tmp = tempfile::tempdir().unwrap();
    let huge = vec![b'a'; 64 << 20];
    let long_ok = format!("{}x.map", "d/".repeat(100));
    let pax_long = vec![b'p'; 5000];
    let pax = pax_record("path", &pax_long);
    let tar = raw_tar(&[
        (tar::EntryType::GNULongName, "././@LongLink", &huge),
        (tar::EntryType::Regular, "huge.map", b"x"),
        (tar::EntryType::XHeader, "pax", &pax),
        (tar::EntryType::Regular, "paxed.map", b"y"),
        (
            tar::EntryType::GNULongName,
            "././@LongLink",
            long_ok.as_bytes(),
        ),
        (tar::EntryType::Regular, "cut.map", b"z"),
        (tar::EntryType::Regular, "good.map", b"w"),
    ]);
    // After the long name's header and bytes, huge.map's header and byte.
    let pax_at = 512 + huge.len() + 1024;
    let compressed = gzip(&tar);
    assert!(compressed.len() < 1_000_000, "{}", compressed.len());
    for (name, bytes) in [("long.tar.gz", compressed), ("long.tar", tar)] {
        let p = tmp.path().join(name);
        std::fs::write(&p, &bytes).unwrap();
        let recs = crate::common::run_records(&["maps", "index", "-q", p.to_str().unwrap()], 1);
        let got: Vec<(String, String, u64)> = recs
            .iter()
            .map(|r| {
                (
                    r["path"].as_str().unwrap().to_owned(),
                    r["error"]["kind"].as_str().unwrap_or("").to_owned(),
                    r["error"]["offset"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        let d = p.display();
        assert_eq!(
            got.iter()
                .map(|(p, k, o)| (p.as_str(), k.as_str(), *o))
                .filter(|(_, k, _)| *k == "name_too_long")
                .collect::<Vec<_>>(),
            [
                (d.to_string().as_str(), "name_too_long", 0),
                (d.to_string().as_str(), "name_too_long", pax_at as u64)
            ],
            "{name}: {recs:?}"
        );
        let members: Vec<&str> = got
            .iter()
            .filter(|(_, k, _)| k != "name_too_long")
            .map(|(p, _, _)| p.as_str())
            .collect();
        assert_eq!(
            members,
            [format!("{d}!/{long_ok}"), format!("{d}!/good.map")],
            "{name}"
        );
        let too_long = &recs.iter().find(|r| r["error"]["offset"] == 0).unwrap()["error"];
        assert_eq!(too_long["stage"], "archive");
        assert_eq!(too_long["section"], "member");
        assert!(
            too_long["message"]
                .as_str()
                .unwrap()
                .contains("GNU long name of 67108864 bytes is over the 4096-byte limit"),
            "{too_long}"
        );
    }
}
