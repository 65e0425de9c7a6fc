//! `demos export`: the positions table cross-checked with libtw2's demo
//! reader and generated protocol crates on every real demo, chat and kills
//! against libtw2's message decoding and `demos dump --chat`, csv against
//! jsonl, `--jobs 1` against `--jobs 2`, tick ranges and truncated demos.

use crate::common::{datasets, files_with_ext, teebatch};
use std::path::{Path, PathBuf};
use teebatch::backend::Backend;
use teebatch::codec::snapshot::Protocol;
use teebatch::demo::export::table::{read_csv, read_jsonl};
use teebatch::demo::export::{export_demo, Table, TableBuilder, Value};
use teebatch::demo::stream::Decoder;
use teebatch::demo::Demo;

fn demos() -> Option<Vec<PathBuf>> {
    let root = datasets()?;
    let demos = files_with_ext(&root.join("demos"), "demo");
    assert!(!demos.is_empty(), "no demos in {}", root.display());
    Some(demos)
}

/// Our rows of `table` for one demo, through the library.
fn ours(path: &Path, table: Table) -> (Protocol, Vec<Vec<Value>>) {
    let bytes = std::fs::read(path).unwrap();
    let demo = Demo::parse(&bytes).unwrap();
    let protocol = demo.decode_protocol();
    let mut dec = Decoder::new(Backend::Simd);
    let mut b = TableBuilder::new(table, protocol, "d", i32::MIN, i32::MAX);
    let mut rows = Vec::new();
    let r = export_demo(&demo, &mut dec, &mut b, i32::MAX, 100, |batch| {
        rows.extend(batch.rows().map(<[Value]>::to_vec));
        true
    });
    assert!(r.error.is_none(), "{}: {:?}", path.display(), r.error);
    assert_eq!(r.rows as usize, rows.len());
    (protocol, rows)
}

fn col(table: Table, name: &str) -> usize {
    table.schema().index_of(name).unwrap()
}

fn int(v: i32) -> Value {
    Value::I32(v)
}

/// One character as libtw2 decodes it: (tick, client id, the 23
/// character columns, the 11 DDNet ones), null where the protocol (or
/// the item) has no such field.
type Expected = (i32, i32, Vec<Value>, Vec<Value>);

/// The positions rows libtw2 reads from a 0.6 / DDNet demo.
fn libtw2_positions_06(bytes: &[u8]) -> (Vec<Expected>, usize) {
    use libtw2_demo::ddnet::{Chunk, DemoReader};
    use libtw2_gamenet_ddnet::SnapObj;
    let mut warn = Vec::new();
    let mut r =
        DemoReader::<libtw2_gamenet_ddnet::Protocol>::new(std::io::Cursor::new(bytes), &mut warn)
            .unwrap();
    let (mut tick, mut out) = (-1, Vec::new());
    while let Some(chunk) = r.next_chunk(&mut warn).unwrap() {
        match chunk {
            Chunk::Tick { tick: t, .. } => tick = t,
            Chunk::Snapshot(items) => {
                let mut chars = Vec::new();
                let mut ddnet = std::collections::BTreeMap::new();
                for (obj, id) in items {
                    match obj {
                        SnapObj::Character(c) => chars.push((*id, *c)),
                        SnapObj::DdnetCharacter(d) => {
                            ddnet.insert(*id, *d);
                        }
                        _ => {}
                    }
                }
                chars.sort_by_key(|c| c.0);
                for (id, c) in chars {
                    let k = c.character_core;
                    let fields = [
                        k.tick,
                        k.x,
                        k.y,
                        k.vel_x,
                        k.vel_y,
                        k.angle,
                        k.direction,
                        k.jumped,
                        k.hooked_player,
                        k.hook_state,
                        k.hook_tick,
                        k.hook_x,
                        k.hook_y,
                        k.hook_dx,
                        k.hook_dy,
                        c.player_flags,
                        c.health,
                        c.armor,
                        c.ammo_count,
                        c.weapon,
                        c.emote as i32,
                        c.attack_tick,
                    ];
                    let mut v: Vec<Value> = fields.into_iter().map(int).collect();
                    v.push(Value::Null); // triggered_events: 0.7 only
                    let d = ddnet.get(&id).map(|d| {
                        [
                            d.flags,
                            d.freeze_end.0,
                            d.jumps,
                            d.tele_checkpoint,
                            d.strong_weak_id,
                            d.jumped_total,
                            d.ninja_activation_tick.0,
                            d.freeze_start.0,
                            d.target_x,
                            d.target_y,
                            d.tune_zone_override,
                        ]
                        .into_iter()
                        .map(int)
                        .collect()
                    });
                    out.push((tick, i32::from(id), v, d.unwrap_or_else(|| vec![Value::Null; 11])));
                }
            }
            _ => {}
        }
    }
    (out, warn.len())
}

/// The positions rows libtw2 reads from a Teeworlds 0.7 demo.
fn libtw2_positions_07(bytes: &[u8]) -> (Vec<Expected>, usize) {
    use libtw2_demo::ddnet::{Chunk, DemoReader};
    use libtw2_gamenet_teeworlds_0_7::SnapObj;
    let mut warn = Vec::new();
    let mut r = DemoReader::<libtw2_gamenet_teeworlds_0_7::Protocol>::new(
        std::io::Cursor::new(bytes),
        &mut warn,
    )
    .unwrap();
    let (mut tick, mut out) = (-1, Vec::new());
    while let Some(chunk) = r.next_chunk(&mut warn).unwrap() {
        match chunk {
            Chunk::Tick { tick: t, .. } => tick = t,
            Chunk::Snapshot(items) => {
                let mut chars: Vec<_> = items
                    .filter_map(|(obj, id)| match obj {
                        SnapObj::Character(c) => Some((*id, *c)),
                        _ => None,
                    })
                    .collect();
                chars.sort_by_key(|c| c.0);
                for (id, c) in chars {
                    let k = c.character_core;
                    let core = [
                        k.tick.0,
                        k.x,
                        k.y,
                        k.vel_x,
                        k.vel_y,
                        k.angle,
                        k.direction,
                        k.jumped,
                        k.hooked_player,
                        k.hook_state,
                        k.hook_tick.0,
                        k.hook_x,
                        k.hook_y,
                        k.hook_dx,
                        k.hook_dy,
                    ];
                    let mut v: Vec<Value> = core.into_iter().map(int).collect();
                    v.push(Value::Null); // player_flags: not in the 0.7 character
                    v.extend(
                        [
                            c.health,
                            c.armor,
                            c.ammo_count,
                            c.weapon,
                            c.emote as i32,
                            c.attack_tick.0,
                            c.triggered_events,
                        ]
                        .into_iter()
                        .map(int),
                    );
                    out.push((tick, i32::from(id), v, vec![Value::Null; 11]));
                }
            }
            _ => {}
        }
    }
    (out, warn.len())
}

/// Every row of the positions table of every real demo equals what
/// libtw2's reader decodes: tick, client id, every character field and
/// DDNet's extended character fields.
#[test]
fn positions_match_libtw2() {
    let Some(demos) = demos() else { return };
    let t = Table::Positions;
    let first = col(t, "core_tick");
    let ddnet = col(t, "ddnet_flags");
    let (mut rows_total, mut with_ddnet, mut v07, mut unchecked_07) = (0, 0, 0, 0);
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy();
        let (protocol, rows) = ours(path, t);
        let bytes = std::fs::read(path).unwrap();
        let (theirs, warnings) = match protocol {
            Protocol::V06 => libtw2_positions_06(&bytes),
            Protocol::V07 => libtw2_positions_07(&bytes),
        };
        assert_eq!(rows.len(), theirs.len(), "{name}: {warnings} libtw2 warnings");
        for (i, (row, (tick, id, fields, dd))) in rows.iter().zip(&theirs).enumerate() {
            let at = format!("{name} row {i}");
            assert_eq!((&row[1], &row[2]), (&int(*tick), &int(*id)), "{at}");
            assert_eq!(&row[first..first + 23], &fields[..], "{at}");
            // libtw2 fills the DDNet fields an older server did not send
            // with defaults; we leave them null. libtw2's 0.7 crate has no
            // DDNet items (a DDNet server's 0.7 demo has them): unchecked.
            if protocol == Protocol::V07 {
                unchecked_07 += usize::from(row[ddnet] != Value::Null);
                continue;
            }
            for (j, (a, b)) in row[ddnet..ddnet + 11].iter().zip(dd).enumerate() {
                assert!(a == b || *a == Value::Null, "{at} ddnet field {j}: {a:?} {b:?}");
            }
            if row[ddnet] != Value::Null {
                with_ddnet += 1;
            }
        }
        rows_total += rows.len();
        if protocol == Protocol::V07 {
            v07 += rows.len();
        }
    }
    eprintln!(
        "{rows_total} position rows ({v07} from 0.7 demos, {with_ddnet} with DDNet fields, \
         {unchecked_07} DDNet fields of 0.7 demos unchecked) equal libtw2's"
    );
    assert_eq!(rows_total, 119_612);
    assert!(v07 > 0 && with_ddnet > 0);
}
