//! `--format parquet`: the Parquet records, read back with Arrow's Parquet
//! reader and written out again as JSON by Arrow's JSON writer, equal the
//! JSON records field by field, for every map and demo of the shared
//! datasets and for files that fail part way; and every leaf column of the
//! record schemas is filled by some record.

use crate::common::{self, records, teebatch};
use arrow_array::cast::AsArray;
use arrow_array::Array;
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use teebatch::codec::snapshot::{Protocol, Snapshot};
use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter};

/// The rows of a Parquet file as JSON values (Arrow's JSON writer).
fn parquet_rows(path: &Path) -> Vec<Value> {
    let file = std::fs::File::open(path).unwrap();
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut buf = Vec::new();
    {
        let mut w = arrow_json::LineDelimitedWriter::new(&mut buf);
        for batch in reader {
            w.write(&batch.unwrap()).unwrap();
        }
        w.finish().unwrap();
    }
    String::from_utf8(buf)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Drops what both forms may spell differently without a difference in
/// content: nulls and absent fields, empty lists and objects (a skipped
/// empty `Vec` in JSON is an empty list in Parquet), and the integer/float
/// spelling of numbers.
fn normalize(v: &Value) -> Option<Value> {
    match v {
        Value::Null => None,
        Value::Number(n) => Some(Value::from(n.as_f64().unwrap())),
        Value::Array(a) if a.is_empty() => None,
        Value::Array(a) => Some(Value::Array(
            a.iter()
                .map(|x| normalize(x).unwrap_or(Value::Null))
                .collect(),
        )),
        Value::Object(o) => {
            let m: serde_json::Map<String, Value> = o
                .iter()
                .filter_map(|(k, x)| Some((k.clone(), normalize(x)?)))
                .collect();
            (!m.is_empty()).then_some(Value::Object(m))
        }
        other => Some(other.clone()),
    }
}

/// Runs `args` once with JSON output and once with `--format parquet -o`
/// (on 1 and 2 jobs), and requires equal records and byte-identical
/// Parquet files. Returns the number of records.
fn same_records(args: &[&str], code: i32, dir: &Path) -> usize {
    let json_out = teebatch(args);
    assert_eq!(
        json_out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&json_out.stderr)
    );
    let json = records(&json_out);
    let mut files = Vec::new();
    for jobs in ["1", "2"] {
        let pq = dir.join(format!("records-j{jobs}.parquet"));
        let mut a = args.to_vec();
        a.extend([
            "--format",
            "parquet",
            "-o",
            pq.to_str().unwrap(),
            "-j",
            jobs,
        ]);
        let out = teebatch(&a);
        assert_eq!(
            out.status.code(),
            Some(code),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
        files.push(std::fs::read(&pq).unwrap());
        let rows = parquet_rows(&pq);
        assert_eq!(rows.len(), json.len());
        for (p, j) in rows.iter().zip(&json) {
            assert_eq!(normalize(p), normalize(j), "record {}", j["path"]);
        }
    }
    assert!(
        files[0] == files[1],
        "Parquet bytes differ between -j1 and -j2"
    );
    json.len()
}

#[test]
fn maps_parquet_equals_json_on_every_shared_map() {
    let Some(ds) = common::datasets() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let maps = ds.join("maps");
    let n = same_records(
        &["maps", "index", "-q", "--verify", maps.to_str().unwrap()],
        0,
        tmp.path(),
    );
    assert_eq!(n, 249);
}

#[test]
fn demos_parquet_equals_json_on_every_shared_demo() {
    let Some(ds) = common::datasets() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let demos = ds.join("demos");
    let n = same_records(
        &["demos", "index", "-q", demos.to_str().unwrap()],
        0,
        tmp.path(),
    );
    assert_eq!(n, 10);
}

#[test]
fn failed_files_keep_their_error_struct_in_parquet() {
    let Some(ds) = common::datasets() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let inputs = tmp.path().join("in");
    std::fs::create_dir(&inputs).unwrap();
    let demo = std::fs::read(ds.join("demos/gigachad_gameplay.demo")).unwrap();
    std::fs::write(inputs.join("cut.demo"), &demo[..demo.len() * 2 / 3]).unwrap();
    std::fs::write(inputs.join("garbage.demo"), b"not a demo at all").unwrap();
    std::fs::write(inputs.join("whole.demo"), &demo).unwrap();
    let n = same_records(
        &["demos", "index", "-q", inputs.to_str().unwrap()],
        1,
        tmp.path(),
    );
    assert_eq!(n, 3);
    let rows = parquet_rows(&tmp.path().join("records-j1.parquet"));
    // The cut demo keeps what was decoded before the fault.
    assert_eq!(rows[0]["error"]["stage"], "demo");
    assert!(rows[0]["error"]["offset"].as_u64().unwrap() > 0);
    assert_eq!(rows[0]["header"]["map_name"], "Tutorial");
    assert_eq!(rows[1]["error"]["stage"], "demo");
    assert!(rows[1]["error"]["message"].is_string());
    assert_eq!(rows[2].get("error"), None);
    assert!(rows[2]["ticks"].as_u64().unwrap() > 0);
}

#[test]
fn embedded_maps_as_parquet() {
    let tmp = tempfile::tempdir().unwrap();
    let n = same_records(&["maps", "index", "-q", "--verify"], 0, tmp.path());
    assert_eq!(n, 8);
}

#[test]
fn parquet_needs_a_file() {
    for cmd in [
        &["maps", "index"][..],
        &["demos", "index"],
        &["demos", "export", "--table", "positions"],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["-q", "--format", "parquet"]);
        let out = teebatch(&args);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("-o FILE"), "{cmd:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}

/// `-o` naming a terminal is a usage error for every Parquet command, and
/// nothing is written to it.
#[test]
fn parquet_to_a_terminal_is_a_usage_error() {
    // A pseudo-terminal: the master end is ours, the slave is the path.
    // SAFETY: plain libc calls on a descriptor this test owns; `ptsname`
    // returns a NUL-terminated static buffer, copied at once.
    let (master, slave) = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        assert_eq!(libc::grantpt(fd), 0);
        assert_eq!(libc::unlockpt(fd), 0);
        let name = std::ffi::CStr::from_ptr(libc::ptsname(fd))
            .to_str()
            .unwrap()
            .to_owned();
        (fd, name)
    };
    for cmd in [
        &["maps", "index"][..],
        &["demos", "index"],
        &["demos", "export", "--table", "chat"],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["-q", "--format", "parquet", "-o", &slave]);
        let out = teebatch(&args);
        assert_eq!(out.status.code(), Some(2), "{cmd:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not to a terminal"), "{cmd:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    // Nothing reached the terminal.
    // SAFETY: non-blocking read into a local buffer, then close, both on
    // the descriptor opened above.
    let n = unsafe {
        libc::fcntl(master, libc::F_SETFL, libc::O_NONBLOCK);
        let mut b = [0u8; 64];
        let n = libc::read(master, b.as_mut_ptr().cast(), b.len());
        libc::close(master);
        n
    };
    assert!(n <= 0, "{n} bytes reached the terminal");
}

// ---------------------------------------------------------------------------
// Every column of the schemas is filled by some record
// ---------------------------------------------------------------------------

/// The leaf columns under `prefix` of type `dt`, by dotted path (`[]` for
/// the items of a list).
fn leaf_paths(prefix: &str, dt: &DataType, out: &mut BTreeSet<String>) {
    match dt {
        DataType::Struct(fields) => {
            for f in fields {
                leaf_paths(&format!("{prefix}.{}", f.name()), f.data_type(), out);
            }
        }
        DataType::List(item) => leaf_paths(&format!("{prefix}[]"), item.data_type(), out),
        _ => {
            out.insert(prefix.to_owned());
        }
    }
}

/// The leaf columns of `array` (named as by [`leaf_paths`]) that hold a
/// value in at least one row where `present` and every enclosing struct
/// and list are non-null.
fn filled_paths(prefix: &str, array: &dyn Array, present: &[bool], out: &mut BTreeSet<String>) {
    let present: Vec<bool> = (0..array.len())
        .map(|i| present[i] && array.is_valid(i))
        .collect();
    match array.data_type() {
        DataType::Struct(_) => {
            let s = array.as_struct();
            for (f, c) in s.fields().iter().zip(s.columns()) {
                filled_paths(&format!("{prefix}.{}", f.name()), c, &present, out);
            }
        }
        DataType::List(_) => {
            let l = array.as_list::<i32>();
            let offsets = l.value_offsets();
            let mut items = vec![false; l.values().len()];
            for (i, _) in present.iter().enumerate().filter(|(_, p)| **p) {
                items[offsets[i] as usize..offsets[i + 1] as usize].fill(true);
            }
            filled_paths(&format!("{prefix}[]"), l.values(), &items, out);
        }
        _ => {
            if present.contains(&true) {
                out.insert(prefix.to_owned());
            }
        }
    }
}

/// Runs `args` with `--format parquet -o` (exit code `code`), reads the
/// file back and returns the leaf columns of `schema` that no row fills,
/// and the number of rows. The file's schema must be `schema`.
fn never_filled(args: &[&str], code: i32, schema: &Schema, dir: &Path) -> (Vec<String>, usize) {
    let pq = dir.join("columns.parquet");
    let mut a = args.to_vec();
    a.extend(["--format", "parquet", "-o", pq.to_str().unwrap()]);
    let out = teebatch(&a);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&pq).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let mut filled = BTreeSet::new();
    let mut rows = 0;
    for batch in reader {
        let batch = batch.unwrap();
        assert_eq!(batch.schema().fields(), schema.fields());
        rows += batch.num_rows();
        for (f, c) in schema.fields().iter().zip(batch.columns()) {
            filled_paths(f.name(), c, &vec![true; c.len()], &mut filled);
        }
    }
    let mut all = BTreeSet::new();
    for f in schema.fields() {
        leaf_paths(f.name(), f.data_type(), &mut all);
    }
    (all.difference(&filled).cloned().collect(), rows)
}

/// The other direction of `batch::parquet`'s `unknown_fields_are_refused`
/// (a record field the schema lacks is refused): every leaf column of
/// `maps_schema()` is filled by some `maps index` record, over every shared
/// map with `--verify` and `--thumbnails`, the embedded maps, a truncated
/// map, a map without layers and one with trailing bytes.
#[test]
fn every_maps_schema_column_is_filled() {
    let Some(ds) = common::datasets() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let extra = tmp.path().join("extra");
    std::fs::create_dir(&extra).unwrap();
    let (_, embedded) = teebatch::batch::embedded::MAPS[0];
    std::fs::write(extra.join("cut.map"), &embedded[..embedded.len() / 2]).unwrap();
    let mut trailing = embedded.to_vec();
    trailing.extend_from_slice(b"trailing");
    std::fs::write(extra.join("trailing.map"), &trailing).unwrap();
    let mut w = teebatch::datafile::DatafileWriter::new();
    w.add_item(0, 0, &[1]);
    std::fs::write(extra.join("no_layers.map"), w.write()).unwrap();
    let thumbs = tmp.path().join("thumbs");
    let maps = ds.join("maps");
    let (missing, rows) = never_filled(
        &[
            "maps",
            "index",
            "-q",
            "--verify",
            "--thumbnails",
            thumbs.to_str().unwrap(),
            maps.to_str().unwrap(),
            extra.to_str().unwrap(),
        ],
        1,
        &teebatch::batch::parquet::maps_schema(),
        tmp.path(),
    );
    assert_eq!(rows, 249 + 3);
    assert!(
        missing.is_empty(),
        "columns of maps_schema() no record fills: {}",
        missing.join(", ")
    );
}

/// As [`every_maps_schema_column_is_filled`] for `demos_schema()`: every
/// shared demo, a truncated one, a file that is no demo, a demo whose
/// embedded map is no datafile and one with a timeline marker.
#[test]
fn every_demos_schema_column_is_filled() {
    let Some(ds) = common::datasets() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let extra = tmp.path().join("extra");
    std::fs::create_dir(&extra).unwrap();
    let demo = std::fs::read(ds.join("demos/gigachad_gameplay.demo")).unwrap();
    std::fs::write(extra.join("cut.demo"), &demo[..demo.len() * 2 / 3]).unwrap();
    std::fs::write(extra.join("garbage.demo"), b"not a demo at all").unwrap();
    // Generated: one whose embedded map is no datafile (`map.error`), one
    // with a timeline marker (none of the shared demos has one).
    let (_, embedded) = teebatch::batch::embedded::MAPS[0];
    for (name, map, marker) in [
        ("broken_map.demo", &b"not a map"[..], false),
        ("marker.demo", embedded, true),
    ] {
        let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "generated", map);
        let mut w = DemoWriter::new_vec(&header).unwrap();
        w.tick(100, true).unwrap();
        w.full_snapshot(&Snapshot::new()).unwrap();
        if marker {
            w.timeline_marker(100).unwrap();
        }
        std::fs::write(extra.join(name), w.finish_vec().unwrap()).unwrap();
    }
    let demos = ds.join("demos");
    let (missing, rows) = never_filled(
        &[
            "demos",
            "index",
            "-q",
            demos.to_str().unwrap(),
            extra.to_str().unwrap(),
        ],
        1,
        &teebatch::batch::parquet::demos_schema(),
        tmp.path(),
    );
    assert_eq!(rows, 10 + 4);
    assert!(
        missing.is_empty(),
        "columns of demos_schema() no record fills: {}",
        missing.join(", ")
    );
}
