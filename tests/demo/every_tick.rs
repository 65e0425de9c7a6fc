//! `--every-tick`: the item tables and `positions` with one row per tick
//! marker per item of the snapshot in effect, carried (`filled` true) at
//! the markers without a snapshot chunk, on the real demos; and the same
//! rows whatever the split of a demo into keyframe segments.

use crate::common::{datasets, files_with_ext, teebatch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use teebatch::backend::Backend;
use teebatch::batch::export::{plan_units, ExportOptions};
use teebatch::batch::Input;
use teebatch::demo::export::{export_demo, readback, Table, TableBuilder, Value};
use teebatch::demo::stream::{Decoder, Event};
use teebatch::demo::Demo;

fn demo(name: &str) -> Option<PathBuf> {
    Some(datasets()?.join("demos").join(name))
}

/// The rows of `table` of the demo at `path` through the library, ticks
/// `from..=to`, with or without every tick.
fn rows(path: &Path, table: Table, every_tick: bool, from: i32) -> Vec<Vec<Value>> {
    let bytes = std::fs::read(path).unwrap();
    let demo = Demo::parse(&bytes).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    let mut b = TableBuilder::for_demo(table, &demo, "d", from, i32::MAX);
    b.set_every_tick(every_tick);
    let mut out = Vec::new();
    let mut sink = |batch: arrow_array::RecordBatch| {
        assert_eq!(batch.schema(), table.schema());
        out.extend(readback::rows(&batch));
        true
    };
    let r = export_demo(&demo, &mut dec, &mut b, i32::MAX, 100, &mut sink);
    assert!(r.error.is_none(), "{}: {:?}", path.display(), r.error);
    assert_eq!(r.rows as usize, out.len());
    out
}

/// Every tick marker of the demo with whether a snapshot chunk came with
/// it, as the stream reports them.
fn markers(path: &Path) -> Vec<(i32, bool)> {
    let bytes = std::fs::read(path).unwrap();
    let demo = Demo::parse(&bytes).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    let mut s = dec.stream(&demo, teebatch::warn::Discard);
    let mut out = Vec::new();
    while let Some(ev) = s.next_event() {
        if let Event::Tick(t) = ev.unwrap() {
            out.push((t.tick, t.had_snapshot_chunk));
        }
    }
    out
}

fn col(table: Table, name: &str) -> usize {
    table.column_index(name).unwrap()
}

fn int(v: &Value) -> i32 {
    match v {
        Value::I32(v) => *v,
        v => panic!("not an int: {v:?}"),
    }
}

fn filled(table: Table, row: &[Value]) -> bool {
    match row[col(table, "filled")] {
        Value::Bool(b) => b,
        ref v => panic!("filled: {v:?}"),
    }
}

/// A row without its time columns and `filled`: what a carried row
/// repeats of the received one.
fn state(table: Table, row: &[Value]) -> Vec<Value> {
    let skip = ["tick", "demo_tick", "time_s", "filled"].map(|n| col(table, n));
    row.iter()
        .enumerate()
        .filter(|(i, _)| !skip.contains(i))
        .map(|(_, v)| v.clone())
        .collect()
}

/// `big_chungus.demo` (a client demo, one player standing still most of
/// the time): 210 tick markers, 18 of them with a snapshot chunk and a
/// character. Every tick gives 210 rows = 210 ticks x 1 character; 192
/// are carried, and the 18 received ones are the rows of the default
/// export, which has `filled` false throughout.
#[test]
fn every_tick_rows_are_ticks_times_items_on_big_chungus() {
    let Some(path) = demo("big_chungus.demo") else {
        return;
    };
    let t = Table::Positions;
    let marks = markers(&path);
    assert_eq!(marks.len(), 210);
    let default = rows(&path, t, false, i32::MIN);
    let every = rows(&path, t, true, i32::MIN);
    assert_eq!(default.len(), 18);
    assert!(default.iter().all(|r| !filled(t, r)));
    assert_eq!(every.len(), 210);
    assert_eq!(every.iter().filter(|r| filled(t, r)).count(), 192);
    // One row per marker, in marker order; filled exactly where no
    // snapshot chunk came.
    let ticks: Vec<(i32, bool)> = every
        .iter()
        .map(|r| (int(&r[col(t, "tick")]), !filled(t, r)))
        .collect();
    assert_eq!(ticks, marks);
    let received: Vec<_> = every.iter().filter(|r| !filled(t, r)).cloned().collect();
    assert_eq!(received, default);
    check_forward_fill(t, &every);
}

/// Each carried row repeats the state of the same item at the tick before
/// (received or carried), and a tick's rows are the previous tick's
/// items when it is carried.
fn check_forward_fill(t: Table, rows: &[Vec<Value>]) {
    let tick_col = col(t, "tick");
    let mut by_tick: BTreeMap<i32, Vec<&Vec<Value>>> = BTreeMap::new();
    for r in rows {
        by_tick.entry(int(&r[tick_col])).or_default().push(r);
    }
    let mut prev: Option<&Vec<&Vec<Value>>> = None;
    for rs in by_tick.values() {
        let carried = rs.iter().filter(|r| filled(t, r)).count();
        assert!(carried == 0 || carried == rs.len(), "mixed tick");
        if carried > 0 {
            let p = prev.expect("a carried tick after a received one");
            let a: Vec<_> = rs.iter().map(|r| state(t, r)).collect();
            let b: Vec<_> = p.iter().map(|r| state(t, r)).collect();
            assert_eq!(a, b);
        }
        prev = Some(rs);
    }
}

/// On every real demo and every item table: rows with every tick = the
/// sum over tick markers of the items in effect (the rows of the last
/// received tick at or before each marker), and the received rows are
/// the default export's.
#[test]
fn every_tick_forward_fills_every_item_table() {
    let Some(ds) = datasets() else { return };
    let mut carried_tables = 0;
    for path in files_with_ext(&ds.join("demos"), "demo") {
        let marks = markers(&path);
        for t in Table::ALL.into_iter().filter(|t| !t.layouts().is_empty()) {
            let default = rows(&path, t, false, i32::MIN);
            let every = rows(&path, t, true, i32::MIN);
            let tick_col = col(t, "tick");
            let mut per_tick: BTreeMap<i32, usize> = BTreeMap::new();
            for r in &default {
                *per_tick.entry(int(&r[tick_col])).or_default() += 1;
            }
            // Items in effect at each marker: those of the last marker
            // with a snapshot chunk.
            let mut in_effect = 0;
            let mut expected = 0;
            for &(tick, had) in &marks {
                if had {
                    in_effect = per_tick.get(&tick).copied().unwrap_or(0);
                }
                expected += in_effect;
            }
            let name = format!("{} {}", path.display(), t.name());
            assert_eq!(every.len(), expected, "{name}");
            let received: Vec<_> = every.iter().filter(|r| !filled(t, r)).cloned().collect();
            assert_eq!(received, default, "{name}");
            check_forward_fill(t, &every);
            if every.len() > default.len() {
                carried_tables += 1;
            }
        }
    }
    assert!(carried_tables >= 10, "{carried_tables}");
}

/// A range that starts at a marker without a snapshot chunk: the first
/// rows are carried from the snapshot before the range (read whole, as
/// no row of it was made).
#[test]
fn every_tick_range_starts_between_snapshots() {
    let Some(path) = demo("big_chungus.demo") else {
        return;
    };
    let t = Table::Positions;
    // 2176 has a snapshot, 2178 none.
    let marks = markers(&path);
    assert_eq!(&marks[..2], &[(2176, true), (2178, false)]);
    let all = rows(&path, t, true, i32::MIN);
    let from = rows(&path, t, true, 2178);
    assert_eq!(from.len(), 209);
    assert!(filled(t, &from[0]));
    assert_eq!(int(&from[0][col(t, "tick")]), 2178);
    assert_eq!(from[..], all[1..]);
    // Without every tick the range starts at the next snapshot.
    let default = rows(&path, t, false, 2178);
    assert_eq!(int(&default[0][col(t, "tick")]), 2180);
}

fn export(args: &[&str]) -> Vec<u8> {
    let mut all = vec!["demos", "export", "-q"];
    all.extend_from_slice(args);
    let out = teebatch(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The same bytes whole and split into keyframe segments of 16 KiB, on
/// 1 and 2 jobs, for the splittable tables of the real demos (a carried
/// row needs only the snapshot of its own segment).
#[test]
fn every_tick_split_equals_whole() {
    let Some(ds) = datasets() else { return };
    let paths = files_with_ext(&ds.join("demos"), "demo");
    let inputs: Vec<Input> = paths
        .iter()
        .map(|p| Input::File {
            path: p.clone(),
            size: std::fs::metadata(p).unwrap().len(),
        })
        .collect();
    let args: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    // Not `positions`: it is not split (its sessions need the whole demo).
    for t in [
        Table::Projectiles,
        Table::Pickups,
        Table::Game,
        Table::Events,
    ] {
        let mut opts = ExportOptions::new(t);
        opts.split_bytes = 16 << 10;
        opts.every_tick = true;
        assert!(plan_units(&inputs, &opts).len() > paths.len() + 10);
        let run = |extra: &[&str]| {
            let mut a = args.clone();
            a.extend_from_slice(&["--table", t.name(), "--every-tick", "--format", "csv"]);
            a.extend_from_slice(extra);
            export(&a)
        };
        let whole = run(&["--jobs", "1"]);
        let split1 = run(&["--jobs", "1", "--split-bytes", "16K"]);
        let split2 = run(&["--jobs", "2", "--split-bytes", "16K"]);
        assert!(whole.len() > 1000);
        assert!(split1 == whole, "{}: split on 1 job differs", t.name());
        assert!(split2 == whole, "{}: split on 2 jobs differs", t.name());
        assert!(run(&[]) == whole, "{}: default jobs differ", t.name());
    }
}

/// The CLI flag and the default: `filled` is the last column of the
/// positions header with or without it, false throughout by default.
#[test]
fn every_tick_cli() {
    let Some(path) = demo("big_chungus.demo") else {
        return;
    };
    let p = path.to_str().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    let default = text(export(&[p, "--table", "positions"]));
    let every = text(export(&[p, "--table", "positions", "--every-tick"]));
    assert_eq!(default.lines().count(), 1 + 18);
    assert_eq!(every.lines().count(), 1 + 210);
    let header = default.lines().next().unwrap();
    assert!(header.ends_with(",filled"), "{header}");
    assert_eq!(every.lines().next().unwrap(), header);
    assert!(default.lines().skip(1).all(|l| l.ends_with(",false")));
    let carried = every.lines().filter(|l| l.ends_with(",true")).count();
    assert_eq!(carried, 192);
    // Tables without snapshot items ignore it.
    let chat = export(&[p, "--table", "chat"]);
    assert_eq!(chat, export(&[p, "--table", "chat", "--every-tick"]));
}
