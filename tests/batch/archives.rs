//! Maps and demos inside `.zip`, `.tar` and `.tar.gz` archives: the same
//! records as the loose files (path aside), and hostile archives as exact
//! error records while the other members still get theirs.

use crate::common::{self, files_with_ext, run_records};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `(name in the archive, bytes)` of every file below `dir` named `*.ext`,
/// named by their path relative to `dir`.
fn members(dir: &Path, ext: &str) -> Vec<(String, Vec<u8>)> {
    files_with_ext(dir, ext)
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

pub(crate) fn write_zip(path: &Path, files: &[(String, Vec<u8>)], method: zip::CompressionMethod) {
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in files {
        z.start_file(name.as_str(), opts).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap();
}

pub(crate) fn tar_bytes(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, bytes.as_slice()).unwrap();
    }
    b.into_inner().unwrap()
}

pub(crate) fn write_tar_gz(path: &Path, tar: &[u8]) {
    let mut g = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::fast(),
    );
    g.write_all(tar).unwrap();
    g.finish().unwrap();
}

/// The records of `loose` and of `archive` are equal but for the path, and
/// each archive record's path is the archive, `!/` and the loose path
/// relative to `base`.
fn assert_same_records(loose: &[Value], archive: &[Value], archive_path: &Path, base: &Path) {
    assert_eq!(loose.len(), archive.len(), "{}", archive_path.display());
    for (l, a) in loose.iter().zip(archive) {
        let lp = Path::new(l["path"].as_str().unwrap());
        let rel = lp.strip_prefix(base).unwrap().to_str().unwrap();
        assert_eq!(
            a["path"].as_str().unwrap(),
            format!("{}!/{rel}", archive_path.display())
        );
        let (mut l, mut a) = (l.clone(), a.clone());
        l.as_object_mut().unwrap().remove("path");
        a.as_object_mut().unwrap().remove("path");
        assert_eq!(l, a, "{rel} in {}", archive_path.display());
    }
}

#[test]
fn zipped_maps_give_the_loose_maps_records() {
    let Some(ds) = common::datasets() else { return };
    let maps = ds.join("maps");
    let tmp = tempfile::tempdir().unwrap();
    let files = members(&maps, "map");
    assert_eq!(files.len(), 249);
    let loose = run_records(
        &["maps", "index", "-q", "--verify", maps.to_str().unwrap()],
        0,
    );
    let mut runs = Vec::new();
    for (name, method) in [
        ("stored.zip", zip::CompressionMethod::Stored),
        ("deflated.ZIP", zip::CompressionMethod::Deflated),
    ] {
        let z = tmp.path().join(name);
        write_zip(&z, &files, method);
        for jobs in ["1", "2"] {
            let recs = run_records(
                &[
                    "maps",
                    "index",
                    "-q",
                    "--verify",
                    "-j",
                    jobs,
                    z.to_str().unwrap(),
                ],
                0,
            );
            assert_same_records(&loose, &recs, &z, &maps);
            runs.push((z.clone(), recs));
        }
    }
    // The plain tar too.
    let t = tmp.path().join("maps.tar");
    std::fs::write(&t, tar_bytes(&files)).unwrap();
    let recs = run_records(&["maps", "index", "-q", "--verify", t.to_str().unwrap()], 0);
    assert_same_records(&loose, &recs, &t, &maps);
    runs.push((t, recs));
    // The golden CRC-32s and SHA-256s hold for every member of every run.
    let golden = std::fs::read_to_string(ds.join("golden/maps.tsv")).unwrap();
    for (a, recs) in &runs {
        let by_path: std::collections::HashMap<&str, &Value> = recs
            .iter()
            .map(|r| (r["path"].as_str().unwrap(), r))
            .collect();
        let mut checked = 0;
        for line in golden.lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if f[2].starts_with("ERROR") {
                continue;
            }
            let path = format!("{}!/{}", a.display(), f[0]);
            let r = by_path[path.as_str()];
            assert_eq!(r["crc32"], f[6], "{path}");
            assert_eq!(r["sha256"], f[7], "{path}");
            assert_eq!(r["data_crc32"], f[8], "{path}");
            checked += 1;
        }
        assert!(checked > 200, "{checked}");
    }
}

#[test]
fn tarred_demos_give_the_loose_demos_records() {
    let Some(ds) = common::datasets() else { return };
    let demos = ds.join("demos");
    let tmp = tempfile::tempdir().unwrap();
    let mut files = members(&demos, "demo");
    assert_eq!(files.len(), 10);
    let loose = run_records(&["demos", "index", "-q", demos.to_str().unwrap()], 0);
    // Reverse name order in the tar: the stream is passed more than once.
    files.reverse();
    let tar = tar_bytes(&files);
    let t = tmp.path().join("demos.tar");
    std::fs::write(&t, &tar).unwrap();
    let tgz = tmp.path().join("demos.tar.gz");
    write_tar_gz(&tgz, &tar);
    let tgz2 = tmp.path().join("demos.TGZ");
    write_tar_gz(&tgz2, &tar);
    for a in [&t, &tgz, &tgz2] {
        for jobs in ["1", "2"] {
            let recs = run_records(
                &["demos", "index", "-q", "-j", jobs, a.to_str().unwrap()],
                0,
            );
            assert_same_records(&loose, &recs, a, &demos);
            assert_golden_demo_fields(&ds, &recs);
        }
    }
}

/// The file and stream fields of each demo record equal the independent
/// decoder's `golden/NAME.summary.json`.
fn assert_golden_demo_fields(ds: &Path, recs: &[Value]) {
    for r in recs {
        let name = r["name"].as_str().unwrap();
        let g: Value = serde_json::from_str(
            &std::fs::read_to_string(ds.join(format!("golden/{name}.summary.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(r["size"], g["file_size"], "{name}");
        assert_eq!(r["sha256"], g["file_sha256"], "{name}");
        assert_eq!(r["chunks"], g["chunks"], "{name}");
        assert_eq!(r["first_tick"], g["first_tick"], "{name}");
        assert_eq!(r["last_tick"], g["last_tick"], "{name}");
        assert_eq!(r["map"]["sha256"], g["embedded_map"]["sha256"], "{name}");
        assert_eq!(
            r["snapshots_reconstructed"], g["snapshots_reconstructed"],
            "{name}"
        );
    }
}

/// `demos export` takes archives like `demos index`: every table's rows
/// from a `.tar.gz` (members in reverse name order) and from a deflated
/// `.zip` equal the loose demos' rows, the `demo` column aside.
#[test]
fn demos_export_reads_archives() {
    let Some(ds) = common::datasets() else { return };
    let demos = ds.join("demos");
    let tmp = tempfile::tempdir().unwrap();
    let mut files = members(&demos, "demo");
    files.reverse();
    let tgz = tmp.path().join("demos.tar.gz");
    write_tar_gz(&tgz, &tar_bytes(&files));
    let z = tmp.path().join("demos.zip");
    write_zip(&z, &files, zip::CompressionMethod::Deflated);
    let rows = |input: &Path, table: &str, jobs: &str| -> Vec<Value> {
        let out = common::teebatch(&[
            "demos",
            "export",
            "-q",
            "--table",
            table,
            "--format",
            "jsonl",
            "-j",
            jobs,
            input.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{table} {}: {}",
            input.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        common::records(&out)
    };
    for table in ["positions", "players", "chat", "kills", "game", "events"] {
        let loose = rows(&demos, table, "2");
        assert!(!loose.is_empty(), "{table}");
        for (a, jobs) in [(&tgz, "2"), (&z, "1")] {
            let got = rows(a, table, jobs);
            assert_eq!(got.len(), loose.len(), "{table} {}", a.display());
            for (l, g) in loose.iter().zip(&got) {
                let lp = Path::new(l["demo"].as_str().unwrap());
                let rel = lp.strip_prefix(&demos).unwrap().to_str().unwrap();
                assert_eq!(g["demo"], format!("{}!/{rel}", a.display()), "{table}");
                let (mut l, mut g) = (l.clone(), g.clone());
                l.as_object_mut().unwrap().remove("demo");
                g.as_object_mut().unwrap().remove("demo");
                assert_eq!(l, g, "{table} {rel} in {}", a.display());
            }
        }
    }
}

/// Members over `--max-file-bytes` in a `.tar.gz` are `too_large` records
/// and the others are read as usual, on 1 and 2 jobs.
#[test]
fn too_large_stream_members_are_refused_and_the_rest_read() {
    let Some(ds) = common::datasets() else { return };
    let demos = ds.join("demos");
    let tmp = tempfile::tempdir().unwrap();
    let files = members(&demos, "demo");
    let limit: u64 = 1 << 20;
    let large = files.iter().filter(|(_, b)| b.len() as u64 > limit).count();
    assert!(large > 0 && large < files.len(), "{large}");
    let tgz = tmp.path().join("demos.tgz");
    write_tar_gz(&tgz, &tar_bytes(&files));
    let loose = run_records(&["demos", "index", "-q", demos.to_str().unwrap()], 0);
    for jobs in ["1", "2"] {
        let recs = run_records(
            &[
                "demos",
                "index",
                "-q",
                "--max-file-bytes",
                "1M",
                "-j",
                jobs,
                tgz.to_str().unwrap(),
            ],
            1,
        );
        assert_eq!(recs.len(), files.len());
        let mut refused = 0;
        for (l, r) in loose.iter().zip(&recs) {
            if l["size"].as_u64().unwrap() > limit {
                assert_eq!(r["error"]["stage"], "io", "{r}");
                assert_eq!(r["error"]["kind"], "too_large", "{r}");
                refused += 1;
            } else {
                assert_eq!(r["sha256"], l["sha256"], "{r}");
                assert_eq!(r["chunks"], l["chunks"], "{r}");
                assert!(r.get("error").is_none(), "{r}");
            }
        }
        assert_eq!(refused, large);
    }
}

#[test]
fn archives_in_a_directory_tree_are_opened_and_sorted_with_files() {
    let Some(ds) = common::datasets() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tree");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let demo = std::fs::read(ds.join("demos/big_chungus.demo")).unwrap();
    std::fs::write(dir.join("a.demo"), &demo).unwrap();
    std::fs::write(dir.join("z.demo"), &demo).unwrap();
    let files = vec![
        ("x/b.demo".to_owned(), demo.clone()),
        ("a.demo".to_owned(), demo.clone()),
        ("notes.txt".to_owned(), b"not a member".to_vec()),
    ];
    write_zip(
        &dir.join("sub/pack.zip"),
        &files,
        zip::CompressionMethod::Deflated,
    );
    std::fs::write(dir.join("b.tar"), tar_bytes(&files)).unwrap();
    let recs = run_records(&["demos", "index", "-q", dir.to_str().unwrap()], 0);
    let paths: Vec<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    let d = dir.display();
    assert_eq!(
        paths,
        [
            format!("{d}/a.demo"),
            format!("{d}/b.tar!/a.demo"),
            format!("{d}/b.tar!/x/b.demo"),
            format!("{d}/sub/pack.zip!/a.demo"),
            format!("{d}/sub/pack.zip!/x/b.demo"),
            format!("{d}/z.demo"),
        ]
    );
    let names: Vec<&str> = recs.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "a", "b", "a", "b", "z"]);
    // `--files-from` names an archive like a PATH does, and `--shard`
    // splits its members.
    let list = tmp.path().join("list");
    std::fs::write(&list, format!("{}/b.tar\n", d)).unwrap();
    let recs = run_records(
        &[
            "demos",
            "index",
            "-q",
            "--files-from",
            list.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(recs.len(), 2);
    let mut sharded = 0;
    for k in ["1/2", "2/2"] {
        sharded += run_records(
            &["demos", "index", "-q", "--shard", k, dir.to_str().unwrap()],
            0,
        )
        .len();
    }
    assert_eq!(sharded, 6);
}

#[test]
fn parquet_with_archive_inputs_holds_the_combined_path() {
    let Some(ds) = common::datasets() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let files = members(&ds.join("demos"), "demo");
    let z = tmp.path().join("d.zip");
    write_zip(&z, &files, zip::CompressionMethod::Deflated);
    let pq = tmp.path().join("d.parquet");
    let out = common::teebatch(&[
        "demos",
        "index",
        "-q",
        "--format",
        "parquet",
        "-o",
        pq.to_str().unwrap(),
        z.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&pq).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let mut paths = Vec::new();
    for b in reader {
        let b = b.unwrap();
        let col = b
            .column_by_name("path")
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::StringArray>()
            .unwrap()
            .clone();
        paths.extend(col.iter().map(|s| s.unwrap().to_owned()));
    }
    let want: Vec<String> = files
        .iter()
        .map(|(n, _)| format!("{}!/{n}", z.display()))
        .collect();
    assert_eq!(paths, want);
}

// ---- hostile archives ----

/// A real map (the collection's good member) and the crafted archive dir.
pub(crate) fn small_map() -> Option<Vec<u8>> {
    let ds = common::datasets()?;
    Some(
        std::fs::read(ds.join("maps/KoG-maps-workflow/tiny_finishable_map__8fa5e630.map")).unwrap(),
    )
}

/// Positions of `sig` in `bytes`.
pub(crate) fn find_all(bytes: &[u8], sig: &[u8]) -> Vec<usize> {
    bytes
        .windows(sig.len())
        .enumerate()
        .filter(|(_, w)| *w == sig)
        .map(|(i, _)| i)
        .collect()
}

pub(crate) const LOCAL: &[u8] = b"PK\x03\x04";
pub(crate) const CENTRAL: &[u8] = b"PK\x01\x02";

pub(crate) fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A stored zip of `good.map` and `bad.map` (both the small map), patched
/// by `patch(bytes, local header offsets, central entry offsets)`; returns
/// the records of `maps index` on it (exit 1) and the local offsets.
fn hostile_zip(
    dir: &Path,
    patch: impl FnOnce(&mut Vec<u8>, &[usize], &[usize]),
) -> (PathBuf, Vec<Value>, Vec<usize>) {
    let map = small_map().unwrap();
    let z = dir.join("hostile.zip");
    write_zip(
        &z,
        &[("bad.map".into(), map.clone()), ("good.map".into(), map)],
        zip::CompressionMethod::Stored,
    );
    let mut bytes = std::fs::read(&z).unwrap();
    let (local, central) = (find_all(&bytes, LOCAL), find_all(&bytes, CENTRAL));
    assert_eq!((local.len(), central.len()), (2, 2));
    patch(&mut bytes, &local, &central);
    std::fs::write(&z, &bytes).unwrap();
    let recs = run_records(&["maps", "index", "-q", z.to_str().unwrap()], 1);
    (z, recs, local)
}

/// The `bad.map` record has this archive error at `offset`, and
/// `good.map` is fine.
fn assert_member_error(z: &Path, recs: &[Value], kind: &str, offset: usize) {
    assert_eq!(recs.len(), 2, "{recs:?}");
    let bad = &recs[0];
    assert_eq!(bad["path"], format!("{}!/bad.map", z.display()));
    assert_eq!(bad["error"]["stage"], "archive", "{bad}");
    assert_eq!(bad["error"]["kind"], kind, "{bad}");
    assert_eq!(bad["error"]["section"], "member", "{bad}");
    assert_eq!(bad["error"]["offset"], offset, "{bad}");
    assert_eq!(recs[1]["path"], format!("{}!/good.map", z.display()));
    assert!(recs[1].get("error").is_none(), "{}", recs[1]);
    assert!(recs[1]["map"].is_object());
}

#[test]
fn zip_crc_mismatch_is_the_members_error() {
    if small_map().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (z, recs, local) = hostile_zip(tmp.path(), |b, local, _| {
        // The first data byte of bad.map (after its 30-byte header and name).
        b[local[0] + 30 + 7] ^= 0xFF;
    });
    assert_member_error(&z, &recs, "crc_mismatch", local[0]);
    assert!(recs[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("CRC-32"));
}

#[test]
fn zip_bomb_ratio_is_refused_before_inflating() {
    if small_map().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (z, recs, local) = hostile_zip(tmp.path(), |b, _, central| {
        // Declared size 0xF0000000 bytes for bad.map, deflated.
        b[central[0] + 10] = 8;
        put_u32(b, central[0] + 24, 0xF000_0000);
    });
    assert_member_error(&z, &recs, "zip_bomb", local[0]);
}

#[test]
fn zip_lying_sizes_are_the_members_error() {
    if small_map().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // Stored bytes past the archive's end.
    let (z, recs, local) = hostile_zip(tmp.path(), |b, _, central| {
        put_u32(b, central[0] + 20, 0x7000_0000);
        put_u32(b, central[0] + 24, 0x7000_0000);
    });
    assert_member_error(&z, &recs, "lying_size", local[0]);
    // A deflated member that inflates to fewer bytes than it declares.
    let map = small_map().unwrap();
    let z = tmp.path().join("short.zip");
    write_zip(
        &z,
        &[("bad.map".into(), map.clone()), ("good.map".into(), map)],
        zip::CompressionMethod::Deflated,
    );
    let mut b = std::fs::read(&z).unwrap();
    let c = find_all(&b, CENTRAL)[0];
    let declared = u32::from_le_bytes(b[c + 24..c + 28].try_into().unwrap());
    put_u32(&mut b, c + 24, declared + 100);
    std::fs::write(&z, &b).unwrap();
    let recs = run_records(&["maps", "index", "-q", z.to_str().unwrap()], 1);
    assert_member_error(&z, &recs, "size_mismatch", find_all(&b, LOCAL)[0]);
}

#[test]
fn overlapping_zip_members_are_both_errors() {
    if small_map().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let map = small_map().unwrap();
    let z = tmp.path().join("overlap.zip");
    write_zip(
        &z,
        &[("bad.map".into(), map.clone()), ("bad2map".into(), map)],
        zip::CompressionMethod::Stored,
    );
    let mut b = std::fs::read(&z).unwrap();
    let (local, central) = (find_all(&b, LOCAL), find_all(&b, CENTRAL));
    // The second central entry points at the first member's header, under
    // another name.
    put_u32(&mut b, central[1] + 42, local[0] as u32);
    let n = b.len();
    b[central[1] + 46..central[1] + 53].copy_from_slice(b"ba2.map");
    assert_eq!(b.len(), n);
    std::fs::write(&z, &b).unwrap();
    let recs = run_records(&["maps", "index", "-q", z.to_str().unwrap()], 1);
    assert_eq!(recs.len(), 2, "{recs:?}");
    for r in &recs {
        assert_eq!(r["error"]["kind"], "overlapping", "{r}");
        assert_eq!(r["error"]["offset"], local[0], "{r}");
    }
}

#[test]
fn unsafe_and_nested_member_names_are_errors() {
    let Some(map) = small_map() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("names.zip");
    write_zip(
        &z,
        &[
            ("aa/evil.map".into(), map.clone()),
            ("good.map".into(), map.clone()),
            ("inner.zip".into(), b"PK\x05\x06".to_vec()),
            ("xetc/abs.map".into(), map.clone()),
        ],
        zip::CompressionMethod::Stored,
    );
    let mut b = std::fs::read(&z).unwrap();
    // Same-length names, in the local and the central headers alike.
    for (from, to) in [
        (&b"aa/evil.map"[..], &b"../evil.map"[..]),
        (b"xetc/abs.map", b"/etc/abs.map"),
    ] {
        for at in find_all(&b, from) {
            b[at..at + to.len()].copy_from_slice(to);
        }
    }
    std::fs::write(&z, &b).unwrap();
    let before: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let recs = run_records(&["maps", "index", "-q", z.to_str().unwrap()], 1);
    let local = find_all(&b, LOCAL);
    let d = z.display();
    let got: Vec<(String, Value, Value)> = recs
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["error"]["kind"].clone(),
                r["error"]["offset"].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                format!("{d}!/../evil.map"),
                "unsafe_name".into(),
                local[0].into()
            ),
            (
                format!("{d}!//etc/abs.map"),
                "unsafe_name".into(),
                local[3].into()
            ),
            (format!("{d}!/good.map"), Value::Null, Value::Null),
            (
                format!("{d}!/inner.zip"),
                "nested_archive".into(),
                local[2].into()
            ),
        ]
    );
    // Nothing was written beside the archive.
    let after: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
}

/// Two members under one name: in a tar (appended to), the first is read
/// and the later one is a `duplicate_name` error; in a zip, whose reader
/// keeps one entry per name, the archive is a `duplicate_name` error and the
/// last entry is read. An archive named twice still gives each member once.
#[test]
fn a_repeated_member_name_is_an_error_for_the_later_member() {
    let Some(map) = small_map() else { return };
    let Some(ds) = common::datasets() else { return };
    let other = std::fs::read(ds.join("maps/iMilchshake-gores-mapgen/test__aa9627c0.map")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        ("a.map".to_owned(), map.clone()),
        ("b.map".to_owned(), other),
    ];
    let tar = tar_bytes(&files);
    let t = tmp.path().join("dup.tar");
    let tgz = tmp.path().join("dup.tgz");
    let z = tmp.path().join("dup.zip");
    write_zip(&z, &files, zip::CompressionMethod::Deflated);
    let mut zb = std::fs::read(&z).unwrap();
    for at in find_all(&zb, b"b.map") {
        zb[at..at + 5].copy_from_slice(b"a.map");
    }
    std::fs::write(&z, &zb).unwrap();
    let mut tb = tar.clone();
    // The second header's name and checksum (the name is its first bytes).
    let second = 512 + map.len().div_ceil(512) * 512;
    tb[second..second + 5].copy_from_slice(b"a.map");
    let mut h = tar::Header::new_old();
    h.as_mut_bytes().copy_from_slice(&tb[second..second + 512]);
    h.set_cksum();
    tb[second..second + 512].copy_from_slice(h.as_bytes());
    std::fs::write(&t, &tb).unwrap();
    write_tar_gz(&tgz, &tb);
    let want_first = run_records(&["maps", "index", "-q", t.to_str().unwrap()], 1)[0].clone();
    let central = find_all(&zb, CENTRAL)[0];
    for args in [vec![z.to_str().unwrap()], vec![z.to_str().unwrap(); 2]] {
        let mut all = vec!["maps", "index", "-q"];
        all.extend(&args);
        let recs = run_records(&all, 1);
        assert_eq!(recs.len(), 2, "{recs:?}");
        assert_eq!(recs[0]["path"], z.to_str().unwrap());
        assert_eq!(recs[0]["error"]["kind"], "duplicate_name");
        assert_eq!(recs[0]["error"]["section"], "central_directory");
        assert_eq!(recs[0]["error"]["offset"], central);
        assert_eq!(recs[1]["path"], format!("{}!/a.map", z.display()));
        assert!(recs[1].get("error").is_none(), "{}", recs[1]);
        assert_eq!(recs[1]["size"], files[1].1.len());
    }
    for (a, at) in [(&t, second), (&tgz, second)] {
        let a = a.to_str().unwrap();
        for args in [vec![a], vec![a, a]] {
            let mut all = vec!["maps", "index", "-q", "-j", "2"];
            all.extend(&args);
            let recs = run_records(&all, 1);
            assert_eq!(recs.len(), 2, "{a}: {recs:?}");
            let path = format!("{a}!/a.map");
            assert_eq!(recs[0]["path"], path.as_str());
            assert!(recs[0].get("error").is_none(), "{}", recs[0]);
            assert_eq!(recs[0]["sha256"], want_first["sha256"]);
            assert_eq!(recs[1]["path"], path.as_str());
            assert_eq!(recs[1]["error"]["kind"], "duplicate_name", "{}", recs[1]);
            assert_eq!(recs[1]["error"]["offset"], at, "{}", recs[1]);
        }
    }
}

#[test]
fn truncated_archives_are_one_error_and_keep_what_came_before() {
    let Some(map) = small_map() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("cut.zip");
    write_zip(
        &z,
        &[("a.map".into(), map.clone()), ("b.map".into(), map.clone())],
        zip::CompressionMethod::Stored,
    );
    let b = std::fs::read(&z).unwrap();
    let cut = find_all(&b, CENTRAL)[1] + 20;
    std::fs::write(&z, &b[..cut]).unwrap();
    let recs = run_records(&["maps", "index", "-q", z.to_str().unwrap()], 1);
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert_eq!(recs[0]["path"], z.to_str().unwrap());
    assert_eq!(recs[0]["error"]["stage"], "archive");
    assert_eq!(recs[0]["error"]["kind"], "bad_archive");
    assert_eq!(recs[0]["error"]["section"], "central_directory");
    assert_eq!(recs[0]["error"]["offset"], cut);

    // A tar whose second member is cut short: the first is fine, the second
    // is `lying_size` at its header. Read as a stream, the archive itself is
    // also an error where the stream ended (a mapped tar seeks over member
    // bytes and sees no more headers).
    let tar = tar_bytes(&[("a.map".into(), map.clone()), ("b.map".into(), map.clone())]);
    let second = 512 + map.len().div_ceil(512) * 512;
    let cut_tar = &tar[..second + 512 + 100];
    let t = tmp.path().join("cut.tar");
    std::fs::write(&t, cut_tar).unwrap();
    let tgz = tmp.path().join("cut.tgz");
    write_tar_gz(&tgz, cut_tar);
    for (a, streamed) in [(&t, false), (&tgz, true)] {
        let mut recs = run_records(&["maps", "index", "-q", a.to_str().unwrap()], 1);
        assert_eq!(recs.len(), 2 + usize::from(streamed), "{recs:?}");
        if streamed {
            let r = recs.remove(0);
            assert_eq!(r["path"], a.to_str().unwrap());
            assert_eq!(r["error"]["kind"], "bad_archive");
            assert_eq!(r["error"]["section"], "archive");
            assert_eq!(r["error"]["offset"], second + 512 + map.len());
        }
        assert_eq!(recs[0]["path"], format!("{}!/a.map", a.display()));
        assert!(recs[0].get("error").is_none());
        assert_eq!(recs[1]["path"], format!("{}!/b.map", a.display()));
        assert_eq!(recs[1]["error"]["kind"], "lying_size");
        assert_eq!(recs[1]["error"]["offset"], second);
    }

    // Not an archive at all.
    let junk = tmp.path().join("junk.tar.gz");
    std::fs::write(&junk, b"not gzip").unwrap();
    let recs = run_records(&["maps", "index", "-q", junk.to_str().unwrap()], 1);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["path"], junk.to_str().unwrap());
    assert_eq!(recs[0]["error"]["kind"], "bad_archive");
}

/// Runs `teebatch args` with `stdin` on its standard input.
pub(crate) fn run_with_stdin(args: &[&str], stdin: &[u8]) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_teebatch"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&bytes));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    out
}

#[test]
fn a_tar_stream_on_stdin_gives_records_named_by_member() {
    let Some(ds) = common::datasets() else { return };
    // Absolute: a member name with a `..` component is refused.
    let demos = ds.join("demos").canonicalize().unwrap();
    // Member names as a Spark job writes them: the URI of each file.
    let files: Vec<(String, Vec<u8>)> = members(&demos, "demo")
        .into_iter()
        .map(|(name, bytes)| (format!("file:{}/{name}", demos.display()), bytes))
        .rev()
        .collect();
    let loose = run_records(&["demos", "index", "-q", demos.to_str().unwrap()], 0);
    let out = run_with_stdin(&["demos", "index", "-q", "-"], &tar_bytes(&files));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = common::records(&out);
    assert_eq!(recs.len(), loose.len());
    for (l, s) in loose.iter().zip(&recs) {
        let lp = l["path"].as_str().unwrap();
        assert_eq!(s["path"].as_str().unwrap(), format!("file:{lp}"));
        let (mut l, mut s) = (l.clone(), s.clone());
        l.as_object_mut().unwrap().remove("path");
        s.as_object_mut().unwrap().remove("path");
        assert_eq!(l, s, "{lp}");
    }

    // A stream that is not a tar: one error record for `-`, exit 1.
    let out = run_with_stdin(&["demos", "index", "-q", "-"], &[7u8; 1000]);
    assert_eq!(out.status.code(), Some(1));
    let recs = common::records(&out);
    assert_eq!(recs.len(), 1, "{recs:?}");
    assert_eq!(recs[0]["path"], "-");
    assert_eq!(recs[0]["error"]["kind"], "bad_archive");
    assert_eq!(recs[0]["error"]["section"], "archive");

    // `-` twice on stdin is a usage error.
    let out = run_with_stdin(&["demos", "index", "-q", "-", "--files-from", "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("both read stdin"));
}

#[test]
fn tar_members_that_are_not_regular_files_get_their_record() {
    let Some(map) = small_map() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("links.tar");
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_entry_type(tar::EntryType::Symlink);
    h.set_size(0);
    h.set_mode(0o777);
    h.set_link_name("good.map").unwrap();
    h.set_cksum();
    b.append_data(&mut h, "bad.map", std::io::empty()).unwrap();
    // A directory named like an input is not an input.
    let mut d = tar::Header::new_gnu();
    d.set_entry_type(tar::EntryType::Directory);
    d.set_size(0);
    d.set_mode(0o755);
    d.set_cksum();
    b.append_data(&mut d, "dir.map/", std::io::empty()).unwrap();
    let mut g = tar::Header::new_gnu();
    g.set_size(map.len() as u64);
    g.set_mode(0o644);
    g.set_cksum();
    b.append_data(&mut g, "good.map", map.as_slice()).unwrap();
    std::fs::write(&t, b.into_inner().unwrap()).unwrap();
    let recs = run_records(&["maps", "index", "-q", t.to_str().unwrap()], 1);
    assert_member_error(&t, &recs, "unsupported", 0);
    assert!(
        recs[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Symlink"),
        "{}",
        recs[0]
    );
}

/// Member names that are not UTF-8 keep their bytes: two names that differ
/// only there are two members with two record paths (escaped as file names
/// are), not one name given twice.
#[cfg(unix)]
#[test]
fn member_names_that_are_not_utf8_stay_distinct() {
    use std::os::unix::ffi::OsStrExt;
    let Some(map) = small_map() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path().join("names.tar");
    let mut b = tar::Builder::new(Vec::new());
    for name in [&b"m\xfe.map"[..], b"m\xff.map"] {
        let mut h = tar::Header::new_gnu();
        h.set_size(map.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, std::ffi::OsStr::from_bytes(name), map.as_slice())
            .unwrap();
    }
    std::fs::write(&t, b.into_inner().unwrap()).unwrap();
    let recs = run_records(&["maps", "index", "-q", t.to_str().unwrap()], 0);
    let paths: Vec<&str> = recs.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            format!("{}!/m\\xFE.map", t.display()),
            format!("{}!/m\\xFF.map", t.display())
        ]
    );
    assert!(recs.iter().all(|r| r.get("error").is_none()), "{recs:?}");
}

#[test]
fn archive_limit_flags_set_the_ratio_and_total_limits() {
    let Some(map) = small_map() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let z = tmp.path().join("limits.zip");
    // `airy.map` is the map and 256 KiB of zeros: it deflates by far more
    // than 50:1; `good.map` (564 bytes) by about 2:1.
    let mut airy = map.clone();
    airy.resize(map.len() + (256 << 10), 0);
    write_zip(
        &z,
        &[
            ("airy.map".into(), airy.clone()),
            ("good.map".into(), map.clone()),
        ],
        zip::CompressionMethod::Deflated,
    );
    let zs = z.to_str().unwrap();
    let error_kind = |r: &Value| r["error"]["kind"].as_str().map(str::to_owned);

    // The defaults (1100:1, 64 GiB) take both.
    let recs = run_records(&["maps", "index", "-q", zs], 0);
    assert_eq!(recs.len(), 2);
    assert!(recs.iter().all(|r| r.get("error").is_none()), "{recs:?}");

    let recs = run_records(&["maps", "index", "-q", "--max-archive-ratio", "50", zs], 1);
    assert_eq!(recs[0]["path"], format!("{zs}!/airy.map"));
    assert_eq!(
        error_kind(&recs[0]).as_deref(),
        Some("zip_bomb"),
        "{}",
        recs[0]
    );
    assert_eq!(recs[0]["error"]["stage"], "archive");
    assert!(recs[1].get("error").is_none(), "{}", recs[1]);

    // A total just over the first member's declared size: the second
    // member is past it.
    let total = (airy.len() + 10).to_string();
    let recs = run_records(
        &["maps", "index", "-q", "--max-archive-bytes", &total, zs],
        1,
    );
    assert!(recs[0].get("error").is_none(), "{}", recs[0]);
    assert_eq!(recs[1]["path"], format!("{zs}!/good.map"));
    assert_eq!(
        error_kind(&recs[1]).as_deref(),
        Some("total_limit"),
        "{}",
        recs[1]
    );
}
