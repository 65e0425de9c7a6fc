//! The builder on hand-made snapshots and messages.
use super::*;
use crate::codec::snapshot::item_key;
use crate::demo::export::readback::{accepts, rows, Value};
use Protocol::V06;

fn take(b: &mut TableBuilder) -> Vec<Vec<Value>> {
    let batch = b.take_batch();
    assert_eq!(batch.schema(), b.table.schema());
    rows(&batch)
}

/// Lasers and flags (none in the real demos): ordinal and DDNet
/// extended items in one table, by id, then type; the extended type
/// found through its declaration; ints a short item lacks are null.
#[test]
fn lasers_and_flags_from_a_snapshot() {
    use crate::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints};
    let mut s = Snapshot::new();
    s.push(item_key(3, 7), &[1, 2, 3, 4, 5]).unwrap();
    s.push(
        item_key(0, 0x7ffe),
        &uuid_to_ints(&uuid_from_name("laser@netobj.ddnet.tw")),
    )
    .unwrap();
    s.push(item_key(0x7ffe, 2), &[10, 20, 30, 40, 50, 1, 0, 0, 0, 0])
        .unwrap();
    s.push(item_key(3, 2), &[6, 7]).unwrap();
    s.push(item_key(5, 1), &[100, 200, 1]).unwrap();
    let mut b = TableBuilder::new(Table::Lasers, V06, "d", 0, i32::MIN, i32::MAX);
    b.snapshot(9, &s);
    let rows = take(&mut b);
    let col = |n| Table::Lasers.column_index(n).unwrap();
    let got: Vec<(String, i32, Value, Value)> = rows
        .iter()
        .map(|r| {
            let Value::Str(k) = &r[col("kind")] else {
                panic!()
            };
            let Value::I32(id) = r[col("id")] else {
                panic!()
            };
            (
                k.to_string(),
                id,
                r[col("x")].clone(),
                r[col("owner")].clone(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("laser".into(), 2, Value::I32(6), Value::Null),
            ("ddnet_laser".into(), 2, Value::I32(10), Value::I32(1)),
            ("laser".into(), 7, Value::I32(1), Value::Null),
        ]
    );
    assert_eq!(rows[0][col("from_x")], Value::Null);
    let mut b = TableBuilder::new(Table::Flags, V06, "d", 4, i32::MIN, i32::MAX);
    b.snapshot(9, &s);
    let rows = take(&mut b);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0][..],
        [
            Value::Str("d".into()),
            Value::Str("".into()),
            Value::I32(9),
            Value::I32(5),
            Value::F64(0.1),
            Value::Str("flag".into()),
            Value::I32(1),
            Value::I32(100),
            Value::I32(200),
            Value::I32(1),
            Value::Str("blue".into()),
            // `filled`: the row's snapshot arrived at this tick.
            Value::Bool(false)
        ]
    );
}

/// Message tables: a 0.6 broadcast and kill, each in its table only,
/// and only in the tick range.
#[test]
fn message_rows() {
    let broadcast = [0x04, b'h', b'i', 0];
    let kill = [0x08, 1, 2, 3, 0];
    let mut all = Vec::new();
    for table in [Table::Broadcasts, Table::Kills, Table::Chat] {
        let mut b = TableBuilder::new(table, V06, "d", 5, 10, 20);
        for tick in [5, 10, 21] {
            b.message(tick, &broadcast);
            b.message(tick, &kill);
        }
        all.push(take(&mut b));
    }
    assert_eq!(all[0].len(), 1);
    assert_eq!(
        all[0][0][2..],
        [
            Value::I32(10),
            Value::I32(5),
            Value::F64(0.1),
            Value::Str("hi".into())
        ]
    );
    assert_eq!(all[1].len(), 1);
    assert_eq!(
        all[1][0][2..],
        [
            Value::I32(10),
            Value::I32(5),
            Value::F64(0.1),
            Value::Str("kill".into()),
            Value::I32(1),
            // No snapshot showed clients 1 and 2: no session, no name.
            Value::Null,
            Value::Null,
            Value::I32(2),
            Value::Null,
            Value::Null,
            Value::I32(3),
            Value::Str("grenade".into()),
            Value::I32(0),
            Value::Null,
            Value::Null,
        ]
    );
    assert!(all[2].is_empty());
}

#[test]
fn positions_rows_from_a_snapshot() {
    let mut s = Snapshot::new();
    let mut ch = [0i32; 22];
    for (i, v) in ch.iter_mut().enumerate() {
        *v = i as i32 * 10;
    }
    s.push(item_key(9, 4), &ch).unwrap();
    s.push(item_key(9, 2), &ch[..3]).unwrap();
    let mut b = TableBuilder::new(Table::Positions, V06, "d.demo", 0, 0, 100);
    b.snapshot(5, &s);
    b.snapshot(101, &s);
    let rows = take(&mut b);
    assert_eq!(rows.len(), 2);
    let col = |n| Table::Positions.column_index(n).unwrap();
    let r = &rows[1];
    assert_eq!(r[col("client_id")], Value::I32(4));
    assert_eq!(r[col("x")], Value::I32(10));
    assert_eq!(r[col("attack_tick")], Value::I32(210));
    assert_eq!(r[col("triggered_events")], Value::Null);
    // A short item: the ints it has, null for the rest.
    let r = &rows[0];
    assert_eq!(r[col("client_id")], Value::I32(2));
    assert_eq!(r[col("y")], Value::I32(20));
    assert_eq!(r[col("vel_x")], Value::Null);
    let schema = Table::Positions.schema();
    for (i, v) in r.iter().enumerate() {
        assert!(accepts(&schema, i, v), "{i} {v:?}");
    }
    // The next batch starts a dictionary of its own: the kinds of an
    // item table keep their keys.
    let mut b = TableBuilder::new(Table::Projectiles, V06, "d", 0, 0, 100);
    let mut s = Snapshot::new();
    s.push(item_key(2, 1), &[1, 2, 3, 4, 5, 6]).unwrap();
    for tick in [1, 2] {
        b.snapshot(tick, &s);
        let rows = take(&mut b);
        let kind = Table::Projectiles.column_index("kind").unwrap();
        assert_eq!(rows[0][kind], Value::Str("projectile".into()));
    }
}

/// Every table's rows carry `demo_tick = tick - first_tick` and `time_s
/// = demo_tick / 50` (as a float64), item tables (column by column) and
/// message tables (row by row) alike; ticks before the first give
/// negative times.
#[test]
fn time_columns_count_from_the_first_tick() {
    let mut s = Snapshot::new();
    s.push(item_key(9, 4), &[0i32; 22]).unwrap();
    s.push(item_key(4, 1), &[1, 2, 3, 4]).unwrap();
    let first = 1_000;
    let ticks = [1_000, 1_001, 1_075, 999];
    for table in [Table::Positions, Table::Pickups, Table::Broadcasts] {
        let mut b = TableBuilder::new(table, V06, "d", first, i32::MIN, i32::MAX);
        for t in ticks {
            b.snapshot(t, &s);
            b.message(t, &[0x04, b'h', b'i', 0]);
        }
        let rows = take(&mut b);
        assert_eq!(rows.len(), 4, "{}", table.name());
        let c = |name: &str| table.column_index(name).unwrap();
        let (tc, dt, ts) = (c("tick"), c("demo_tick"), c("time_s"));
        for (r, t) in rows.iter().zip(ticks) {
            assert_eq!(r[tc], Value::I32(t));
            assert_eq!(r[dt], Value::I32(t - first));
            assert_eq!(r[ts], Value::F64(f64::from(t - first) / 50.0));
        }
        assert_eq!(rows[0][ts], Value::F64(0.0));
        assert_eq!(rows[2][ts], Value::F64(1.5));
        assert_eq!(rows[3][ts], Value::F64(-0.02));
    }
    // Far apart ticks: the difference wraps as i32 arithmetic would never
    // need for ticks a stream accepts, and never panics.
    assert_eq!(
        time_of(-1, 0x6fff_fffe),
        (-0x6fff_ffff, -0x6fff_ffff as f64 / 50.0)
    );
    assert_eq!(time_of(i32::MAX, i32::MIN).0, -1);
}
