//! `--format parquet`: the Parquet records, read back with Arrow's Parquet
//! reader and written out again as JSON by Arrow's JSON writer, equal the
//! JSON records field by field, for every map and demo of the shared
//! datasets and for files that fail part way.

use crate::common::{self, records, teebatch};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::Value;
use std::path::Path;

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
