//! Archive inputs used by a hostile or careless user (issue 38): cost
//! linear in the archive whatever its member order, capped member names,
//! allocations that follow what inflation produces, and memory per listed
//! member. Operation counts and capacities, never wall time; the bound of
//! memory per member is the process's peak RSS (as in
//! `tests/batch/hostile.rs`).

use crate::batch::archives::tar_bytes;
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

/// The records of `maps index -q ARGS` (exit `code`) as (path, error kind).
fn kinds(args: &[&str], code: i32) -> Vec<(String, String)> {
    let mut all = vec!["maps", "index", "-q"];
    all.extend(args);
    crate::common::run_records(&all, code)
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["error"]["kind"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// A deflated zip member declaring 1000 times the bytes it inflates to
/// (within the default 1100:1 ratio) gets a buffer as large as what it
/// inflates to, not as its declared size; a member that really inflates
/// 1000:1 is read whole.
#[test]
fn a_zip_members_declared_size_never_sizes_its_buffer() {
    use crate::batch::archives::{find_all, put_u32, write_zip, CENTRAL, LOCAL};
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("liar.zip");
    let noise: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let zeros = vec![0u8; 4 << 20];
    write_zip(
        &z,
        &[
            ("liar.map".into(), noise.clone()),
            ("zeros.map".into(), zeros.clone()),
        ],
        zip::CompressionMethod::Deflated,
    );
    let mut b = std::fs::read(&z).unwrap();
    let (c, l) = (find_all(&b, CENTRAL)[0], find_all(&b, LOCAL)[0]);
    let stored = u32::from_le_bytes(b[c + 20..c + 24].try_into().unwrap());
    let declared = stored * 1000;
    put_u32(&mut b, c + 24, declared);
    put_u32(&mut b, l + 22, declared);
    std::fs::write(&z, &b).unwrap();
    let inputs = batch::collect_inputs(std::slice::from_ref(&z), "map");
    assert_eq!(inputs.len(), 2);
    let mut buf = Vec::new();
    let e = batch::load(&inputs[0], MmapMode::Never, &mut buf)
        .err()
        .unwrap();
    let e = e
        .get_ref()
        .and_then(|e| e.downcast_ref::<batch::archive::ArchiveError>())
        .unwrap();
    assert_eq!((e.kind, e.offset), ("size_mismatch", l as u64), "{e}");
    assert_eq!(buf.len(), noise.len());
    assert!(
        buf.capacity() <= 2 * noise.len() + (64 << 10),
        "{} bytes of capacity for {} inflated, {declared} declared",
        buf.capacity(),
        noise.len()
    );
    let mut buf = Vec::new();
    let got = batch::load(&inputs[1], MmapMode::Never, &mut buf).unwrap();
    assert!(*got == zeros[..]);
    assert!(buf.capacity() <= 2 * zeros.len() + (64 << 10));
}

/// An encrypted zip member (general purpose flag bit 0) is `encrypted`,
/// not an inflate or size error; the other member is read.
#[test]
fn encrypted_zip_members_are_reported_as_encrypted() {
    use crate::batch::archives::{find_all, write_zip, CENTRAL, LOCAL};
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("locked.zip");
    write_zip(
        &z,
        &[
            ("locked.map".into(), vec![1; 5000]),
            ("open.map".into(), vec![2; 5000]),
        ],
        zip::CompressionMethod::Deflated,
    );
    let mut b = std::fs::read(&z).unwrap();
    let (c, l) = (find_all(&b, CENTRAL)[0], find_all(&b, LOCAL)[0]);
    b[c + 8] |= 1;
    b[l + 6] |= 1;
    std::fs::write(&z, &b).unwrap();
    let recs = crate::common::run_records(&["maps", "index", "-q", z.to_str().unwrap()], 1);
    assert_eq!(recs.len(), 2, "{recs:?}");
    assert_eq!(recs[0]["path"], format!("{}!/locked.map", z.display()));
    assert_eq!(recs[0]["error"]["stage"], "archive");
    assert_eq!(recs[0]["error"]["kind"], "encrypted", "{}", recs[0]);
    assert_eq!(recs[0]["error"]["offset"], l);
    // Not a map, but read: a datafile error, not an archive one.
    assert_eq!(recs[1]["error"]["stage"], "datafile", "{}", recs[1]);
}

/// A `.tar.gz` piped to `-` is read as its tar; a stream that is neither
/// gzip nor tar is one `bad_archive` record whose message has no raw
/// control bytes.
#[test]
fn a_gzipped_tar_on_stdin_is_read() {
    let tar = tar_bytes(&[
        ("a.map".to_owned(), vec![1; 700]),
        ("b.map".to_owned(), vec![2; 900]),
    ]);
    for input in [gzip(&tar), tar.clone()] {
        let out = crate::batch::archives::run_with_stdin(&["maps", "index", "-q", "-"], &input);
        assert_eq!(out.status.code(), Some(1));
        let recs = crate::common::records(&out);
        let got: Vec<(&str, &str, u64)> = recs
            .iter()
            .map(|r| {
                (
                    r["path"].as_str().unwrap(),
                    r["error"]["stage"].as_str().unwrap(),
                    r["size"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [("a.map", "datafile", 700), ("b.map", "datafile", 900)]
        );
    }
    // Header bytes with control characters where a number should be.
    let mut junk = tar.clone();
    junk[124..136].copy_from_slice(b"\x1b[31m\x07\x01\x02\x03\x04\x05\x06");
    let mut h = tar::Header::new_old();
    h.as_mut_bytes().copy_from_slice(&junk[..512]);
    h.set_cksum();
    junk[..512].copy_from_slice(h.as_bytes());
    let out = crate::batch::archives::run_with_stdin(&["maps", "index", "-q", "-"], &gzip(&junk));
    let recs = crate::common::records(&out);
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert_eq!(recs[0]["error"]["kind"], "bad_archive");
    let msg = recs[0]["error"]["message"].as_str().unwrap();
    assert!(!msg.chars().any(char::is_control), "{msg:?}");
    assert!(msg.contains("\\u{1b}"), "{msg:?}");
}

/// An archive named on the command line always gets a record: a zip whose
/// end record says 0 entries, or one without a `*.map` member, is one
/// `no_members` error; found by a directory walk, it is left out.
#[test]
fn a_named_archive_without_members_is_a_no_members_record() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.zip");
    let z = zip::ZipWriter::new(std::fs::File::create(&empty).unwrap());
    z.finish().unwrap();
    let other = tmp.path().join("demos.tar");
    std::fs::write(&other, tar_bytes(&[("x.demo".to_owned(), vec![1; 10])])).unwrap();
    let (e, o) = (empty.to_str().unwrap(), other.to_str().unwrap());
    assert_eq!(
        kinds(&[e, o], 1),
        [
            (o.to_owned(), "no_members".to_owned()),
            (e.to_owned(), "no_members".to_owned())
        ]
    );
    // Found by a walk: no record, nothing found (exit 1, no records).
    assert_eq!(kinds(&[tmp.path().to_str().unwrap()], 1), []);
}

/// `--list -0` output fed back with `--files-from - -0` gives the same
/// records, archive members included.
#[test]
fn listed_archive_members_are_accepted_back() {
    let tmp = tempfile::tempdir().unwrap();
    let files = vec![
        ("a.map".to_owned(), vec![1; 100]),
        ("sub/b.map".to_owned(), vec![2; 200]),
    ];
    let z = tmp.path().join("p.zip");
    crate::batch::archives::write_zip(&z, &files, zip::CompressionMethod::Deflated);
    let tgz = tmp.path().join("p.tgz");
    crate::batch::archives::write_tar_gz(&tgz, &tar_bytes(&files));
    std::fs::write(tmp.path().join("c.map"), [3; 300]).unwrap();
    let dir = tmp.path().to_str().unwrap();
    let listed = crate::common::teebatch(&["maps", "index", "--list", "-0", dir]);
    assert_eq!(listed.status.code(), Some(0));
    assert_eq!(
        listed
            .stdout
            .split(|&b| b == 0)
            .filter(|s| !s.is_empty())
            .count(),
        5
    );
    let direct = crate::common::run_records(&["maps", "index", "-q", dir], 1);
    let out = crate::batch::archives::run_with_stdin(
        &["maps", "index", "-q", "--files-from", "-", "-0"],
        &listed.stdout,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = crate::common::records(&out);
    assert_eq!(back, direct);
    assert!(
        back.iter().all(|r| r["error"]["stage"] == "datafile"),
        "{back:?}"
    );
    // A member the archive does not hold: its own record.
    let missing = format!("{}!/nope.map", z.display());
    assert_eq!(kinds(&[&missing], 1), [(missing.clone(), "io".to_owned())]);
}

/// A real file whose path is an archive member's record path is refused
/// (exit 2, the path in the message) on every run, instead of two records
/// with one path.
#[test]
fn a_file_named_like_a_member_record_path_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("x.zip");
    crate::batch::archives::write_zip(
        &z,
        &[("y.map".to_owned(), vec![1; 10])],
        zip::CompressionMethod::Stored,
    );
    let clash = tmp.path().join("x.zip!");
    std::fs::create_dir(&clash).unwrap();
    std::fs::write(clash.join("y.map"), [2; 10]).unwrap();
    for _ in 0..3 {
        let out = crate::common::teebatch(&["maps", "index", "-q", tmp.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "{}!/y.map: names both a file and an archive member",
                z.display()
            )),
            "{err}"
        );
    }
}

/// The documented bound of an archive collection's memory: `maps index
/// --format parquet -j2` over a tar of n and 2n empty members (every one a
/// record, all sharing one SHA-256, so the summary's duplicate groups hold
/// every path too) grows by at most 3 KiB of peak RSS per added member,
/// and stays under 48 MiB + 3 KiB per member. Measured 2026-11-29 (test
/// profile): 52 MB at 2 × 10^4 members, 89 MB at 4 × 10^4, 196 MB at 10^5:
/// about 1.8 KiB per member (about 1 KiB per member for `--list` alone).
#[cfg(target_os = "linux")]
#[test]
fn archive_memory_per_member_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let mut peaks = Vec::new();
    let (small, large) = (20_000u64, 40_000u64);
    for n in [small, large] {
        let tar = tmp.path().join(format!("empty{n}.tar"));
        std::fs::write(&tar, tar_bytes(&shuffled_members(n as usize, 0))).unwrap();
        let out = tmp.path().join(format!("empty{n}.parquet"));
        let (o, peak) = crate::common::output_with_peak_rss(
            std::process::Command::new(env!("CARGO_BIN_EXE_teebatch")).args([
                "maps".as_ref(),
                "index".as_ref(),
                "-q".as_ref(),
                "-j2".as_ref(),
                "--format".as_ref(),
                "parquet".as_ref(),
                "-o".as_ref(),
                out.as_os_str(),
                tar.as_os_str(),
            ]),
        );
        // Every empty member is a map error: exit 1, every record written.
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(std::fs::metadata(&out).unwrap().len() > 0);
        let peak = peak.expect("peak RSS from /proc");
        assert!(
            peak <= 48 * 1024 + 3 * n,
            "{n} members: peak {peak} KiB over 48 MiB + 3 KiB per member"
        );
        peaks.push(peak);
    }
    let per_member = peaks[1].saturating_sub(peaks[0]) as f64 / (large - small) as f64;
    assert!(
        per_member <= 3.0,
        "{per_member:.2} KiB per added member (peaks {peaks:?} KiB)"
    );
}

/// `demos export` of a demo inside a `.tar.gz` split at keyframes: the
/// stream is told the member is loaded by the plan and once per segment,
/// and keeps its bytes between the loads (in memory, or spooled past the
/// memory budget), so the archive is decompressed once, where every
/// segment restarted the gzip stream from its start (the member was
/// consumed by the plan). Each segment is exported with a fresh worker
/// buffer, as different workers do; together they give the rows of the
/// unsplit demo.
#[test]
fn a_split_demo_in_a_tar_gz_is_decompressed_once() {
    use teebatch::backend::Backend;
    use teebatch::batch::export::{export_input, plan_units, ExportOptions, ReadBuf};
    use teebatch::demo::export::Table;
    use teebatch::demo::stream::Decoder;
    let Some(ds) = crate::common::datasets() else {
        return;
    };
    let demo = std::fs::read(ds.join("demos/ddnet__Multeasymap_bench.demo")).unwrap();
    let tar = tar_bytes(&[
        ("a.demo".to_string(), demo.clone()),
        ("filler.bin".to_string(), member_bytes(1, 1 << 20)),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demos.tar.gz");
    std::fs::write(&path, gzip(&tar)).unwrap();
    let export_all = |split_bytes: u64, budget: u64| {
        let inputs = batch::collect_inputs(std::slice::from_ref(&path), "demo");
        assert_eq!(inputs.len(), 1);
        let stream = stream_of(&inputs);
        stream.set_memory_budget(budget);
        let listed = stream.ops();
        // `game`: a table split at keyframes (`positions` is not).
        let mut opts = ExportOptions::new(Table::Game);
        opts.split_bytes = split_bytes;
        let units = plan_units(&inputs, &opts);
        let mut rows = 0;
        for unit in &units {
            let mut sink = |b: arrow_array::RecordBatch| {
                rows += b.num_rows() as u64;
                true
            };
            let done = export_input(
                &mut Decoder::new(Backend::default()),
                &mut ReadBuf::default(),
                unit.input,
                &inputs[unit.input],
                unit.segment.as_ref(),
                &opts,
                &mut sink,
            );
            assert!(done.error.is_none(), "{:?}", done.error);
        }
        let ops = stream.ops();
        (units.len(), rows, listed, ops)
    };
    let (n, want, _, _) = export_all(u64::MAX, 64 << 20);
    assert_eq!(n, 1);
    assert!(want > 1000, "{want} rows");
    for budget in [64 << 20, 4096] {
        let (n, rows, listed, ops) = export_all(64 << 10, budget);
        assert!(n >= 8, "{n} segments");
        assert_eq!(rows, want, "budget {budget}");
        assert_eq!(ops.restarts, 0, "budget {budget}: {n} segments");
        assert!(
            ops.decompressed_bytes - listed.decompressed_bytes <= demo.len() as u64 + 1024,
            "budget {budget}: {} bytes decompressed for a {} byte member",
            ops.decompressed_bytes - listed.decompressed_bytes,
            demo.len()
        );
        assert_eq!(
            ops.spooled_bytes > 0,
            budget < demo.len() as u64,
            "budget {budget}"
        );
    }
}
