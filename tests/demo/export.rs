//! `demos export`: the positions table cross-checked with libtw2's demo
//! reader and generated protocol crates on every real demo, chat and kills
//! against libtw2's message decoding and `demos dump --chat`, csv against
//! jsonl, `--jobs 1` against `--jobs 2`, tick ranges and truncated demos.

use crate::common::{datasets, files_with_ext, teebatch};
use std::path::{Path, PathBuf};
use teebatch::backend::Backend;
use teebatch::codec::snapshot::Protocol;
use teebatch::demo::export::readback::{accepts, read_csv, read_jsonl, read_parquet};
use teebatch::demo::export::tables::{DDNET_CHARACTER, POSITION_FIELDS};
use teebatch::demo::export::{export_demo, readback, Table, TableBuilder, Value};
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
    let mut b = TableBuilder::for_demo(table, &demo, "d", i32::MIN, i32::MAX);
    let mut rows = Vec::new();
    let mut sink = |batch: arrow_array::RecordBatch| {
        // Batches are bounded: 100 rows asked, plus at most one
        // snapshot's items.
        assert!(batch.num_rows() < 100 + teebatch::codec::snapshot::MAX_ITEMS);
        assert_eq!(batch.schema(), table.schema());
        rows.extend(readback::rows(&batch));
        true
    };
    let r = export_demo(&demo, &mut dec, &mut b, i32::MAX, 100, &mut sink);
    assert!(r.error.is_none(), "{}: {:?}", path.display(), r.error);
    assert_eq!(r.rows as usize, rows.len());
    (protocol, rows)
}

fn col(table: Table, name: &str) -> usize {
    table.column_index(name).unwrap()
}

/// The `&'static str` name of a column of `table` (as the layouts name
/// their fields).
fn column_name(table: Table, name: &str) -> &'static str {
    table
        .layouts()
        .iter()
        .flat_map(|l| l.fields.iter())
        .find(|f| **f == name)
        .copied()
        .unwrap_or_else(|| panic!("{}: no field {name}", table.name()))
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
                    out.push((
                        tick,
                        i32::from(id),
                        v,
                        d.unwrap_or_else(|| vec![Value::Null; 11]),
                    ));
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
        assert_eq!(
            rows.len(),
            theirs.len(),
            "{name}: {warnings} libtw2 warnings"
        );
        for (i, (row, (tick, id, fields, dd))) in rows.iter().zip(&theirs).enumerate() {
            let at = format!("{name} row {i}");
            let (tc, ic) = (
                col(Table::Positions, "tick"),
                col(Table::Positions, "client_id"),
            );
            assert_eq!((&row[tc], &row[ic]), (&int(*tick), &int(*id)), "{at}");
            let ours: Vec<Value> = POSITION_FIELDS
                .iter()
                .map(|f| row[col(t, f)].clone())
                .collect();
            assert_eq!(&ours[..], &fields[..], "{at}");
            // libtw2 fills the DDNet fields an older server did not send
            // with defaults; we leave them null. libtw2's 0.7 crate has no
            // DDNet items (a DDNet server's 0.7 demo has them): unchecked.
            if protocol == Protocol::V07 {
                unchecked_07 += usize::from(row[ddnet] != Value::Null);
                continue;
            }
            let dd_ours: Vec<&Value> = DDNET_CHARACTER.iter().map(|f| &row[col(t, f)]).collect();
            for (j, (a, b)) in dd_ours.into_iter().zip(dd).enumerate() {
                assert!(
                    a == b || *a == Value::Null,
                    "{at} ddnet field {j}: {a:?} {b:?}"
                );
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

/// (tick, client id, raw mode, target id, text) of every chat message and
/// (tick, killer, victim, weapon, mode special) of every kill, as libtw2's
/// demo reader decodes them.
type Chat = (i32, i32, i32, Option<i32>, Vec<u8>);
type Kill = (i32, i32, i32, i32, i32);

fn libtw2_messages(bytes: &[u8], protocol: Protocol) -> (Vec<Chat>, Vec<Kill>) {
    use libtw2_demo::ddnet::{Chunk, DemoReader};
    let (mut chat, mut kills) = (Vec::new(), Vec::new());
    let mut warn = Vec::new();
    let mut tick = -1;
    match protocol {
        Protocol::V06 => {
            use libtw2_gamenet_ddnet::msg::Game;
            let mut r = DemoReader::<libtw2_gamenet_ddnet::Protocol>::new(
                std::io::Cursor::new(bytes),
                &mut warn,
            )
            .unwrap();
            while let Some(chunk) = r.next_chunk(&mut warn).unwrap() {
                match chunk {
                    Chunk::Tick { tick: t, .. } => tick = t,
                    Chunk::Message(Game::SvChat(c)) => {
                        chat.push((tick, c.client_id, c.team, None, c.message.to_vec()))
                    }
                    Chunk::Message(Game::SvKillMsg(k)) => {
                        kills.push((tick, k.killer, k.victim, k.weapon, k.mode_special))
                    }
                    _ => {}
                }
            }
        }
        Protocol::V07 => {
            use libtw2_gamenet_teeworlds_0_7::msg::Game;
            let mut r = DemoReader::<libtw2_gamenet_teeworlds_0_7::Protocol>::new(
                std::io::Cursor::new(bytes),
                &mut warn,
            )
            .unwrap();
            while let Some(chunk) = r.next_chunk(&mut warn).unwrap() {
                match chunk {
                    Chunk::Tick { tick: t, .. } => tick = t,
                    Chunk::Message(Game::SvChat(c)) => chat.push((
                        tick,
                        c.client_id,
                        c.mode as i32,
                        Some(c.target_id),
                        c.message.to_vec(),
                    )),
                    Chunk::Message(Game::SvKillMsg(k)) => {
                        kills.push((tick, k.killer, k.victim, k.weapon, k.mode_special))
                    }
                    _ => {}
                }
            }
        }
    }
    (chat, kills)
}

fn i(v: &Value) -> i32 {
    match v {
        Value::I32(x) => *x,
        v => panic!("not an int: {v:?}"),
    }
}

fn s(v: &Value) -> &str {
    match v {
        Value::Str(x) => x,
        Value::Null => "",
        v => panic!("not text: {v:?}"),
    }
}

/// Chat and kill rows equal libtw2's decoding of the same messages, and
/// the chat rows (with names) equal `demos dump --chat`.
#[test]
fn chat_and_kills_match_libtw2_and_dump() {
    let Some(demos) = demos() else { return };
    let (mut chats, mut kills) = (0, 0);
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy();
        let bytes = std::fs::read(path).unwrap();
        let (protocol, chat_rows) = ours(path, Table::Chat);
        let (_, kill_rows) = ours(path, Table::Kills);
        let (their_chat, their_kills) = libtw2_messages(&bytes, protocol);
        let c = |n: &str| col(Table::Chat, n);
        let k = |n: &str| col(Table::Kills, n);
        let our_chat: Vec<Chat> = chat_rows
            .iter()
            .map(|r| {
                let target = match r[c("target_id")] {
                    Value::I32(t) => Some(t),
                    _ => None,
                };
                (
                    i(&r[c("tick")]),
                    i(&r[c("client_id")]),
                    i(&r[c("raw_mode")]),
                    target,
                    s(&r[c("text")]).as_bytes().to_vec(),
                )
            })
            .collect();
        assert_eq!(our_chat, their_chat, "{name}");
        let our_kills: Vec<Kill> = kill_rows
            .iter()
            .filter(|r| s(&r[k("kind")]) == "kill")
            .map(|r| {
                (
                    i(&r[k("tick")]),
                    i(&r[k("killer")]),
                    i(&r[k("victim")]),
                    i(&r[k("weapon")]),
                    i(&r[k("mode_special")]),
                )
            })
            .collect();
        assert_eq!(our_kills, their_kills, "{name}");
        // Names: killer and victim names are the ones the players table
        // has at that tick (spot check: every named kill has a name), and
        // so do their sessions.
        for r in &kill_rows {
            if i(&r[k("killer")]) >= 0 {
                assert_ne!(r[k("killer_name")], Value::Null, "{name}: {r:?}");
                assert_ne!(r[k("killer_session")], Value::Null, "{name}: {r:?}");
                assert_ne!(r[k("victim_session")], Value::Null, "{name}: {r:?}");
            }
        }
        // Chat from a client has its sender's session, the server's none.
        for r in &chat_rows {
            let server = i(&r[c("client_id")]) < 0;
            assert_eq!(r[c("session")] == Value::Null, server, "{name}: {r:?}");
        }
        // The chat log `demos dump --chat` prints: same lines.
        let out = teebatch(&["demos", "dump", "--chat", path.to_str().unwrap()]);
        assert!(out.status.success());
        let dumped: Vec<String> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .skip(1)
            .map(str::to_owned)
            .collect();
        let mine: Vec<String> = chat_rows
            .iter()
            .map(|r| {
                format!(
                    "{}\t{}\t{}\t{}",
                    i(&r[c("tick")]),
                    i(&r[c("client_id")]),
                    s(&r[c("name")]),
                    s(&r[c("text")]).replace(['\t', '\n'], " ")
                )
            })
            .collect();
        let dumped_no_mode: Vec<String> = dumped
            .iter()
            .map(|l| {
                let f: Vec<&str> = l.splitn(5, '\t').collect();
                format!("{}\t{}\t{}\t{}", f[0], f[1], f[2], f[4])
            })
            .collect();
        assert_eq!(mine, dumped_no_mode, "{name}");
        chats += chat_rows.len();
        kills += our_kills.len();
    }
    assert_eq!((chats, kills), (52, 45));
}

/// Runs `demos export` and returns (exit code, stdout, stderr).
fn export(args: &[&str]) -> (i32, Vec<u8>, String) {
    let mut all = vec!["demos", "export", "-q"];
    all.extend_from_slice(args);
    let out = teebatch(&all);
    (
        out.status.code().unwrap(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--jobs 1` and `--jobs 2` write the same bytes; csv and jsonl hold the
/// same rows; every value fits its column.
#[test]
fn jobs_and_formats_agree() {
    let Some(root) = datasets() else { return };
    let dir = root.join("demos");
    let dir = dir.to_str().unwrap();
    for table in Table::ALL {
        let name = table.name();
        let (c1, csv1, e1) = export(&[dir, "--table", name, "--jobs", "1"]);
        let (c2, csv2, _) = export(&[dir, "--table", name, "--jobs", "2"]);
        let (c3, jsonl, _) = export(&[dir, "--table", name, "--jobs", "2", "--format", "jsonl"]);
        assert_eq!((c1, c2, c3), (0, 0, 0), "{name}: {e1}");
        assert!(csv1 == csv2, "{name}: --jobs 1 and 2 differ");
        let schema = table.schema();
        // Parquet on 1 and 2 jobs: the same bytes, and the jsonl rows.
        let pq = |jobs: &str| {
            let tmp = tempfile::NamedTempFile::new().unwrap();
            let path = tmp.path().to_str().unwrap();
            let (c, out, e) = export(&[
                dir, "--table", name, "--jobs", jobs, "--format", "parquet", "-o", path,
            ]);
            assert_eq!(c, 0, "{name}: {e}");
            assert!(out.is_empty());
            std::fs::read(tmp.path()).unwrap()
        };
        let (pq1, pq2) = (pq("1"), pq("2"));
        assert!(pq1 == pq2, "{name}: parquet --jobs 1 and 2 differ");
        let from_parquet = read_parquet(&schema, pq1).unwrap();
        assert_eq!(from_parquet, read_jsonl(&schema, &jsonl).unwrap(), "{name}");
        let a = read_csv(&schema, &csv1).unwrap();
        let b = read_jsonl(&schema, &jsonl).unwrap();
        assert_eq!(a.len(), b.len(), "{name}");
        for (ra, rb) in a.iter().zip(&b) {
            // CSV cannot tell an empty text from null.
            let norm = |r: &[Value]| -> Vec<Value> {
                r.iter()
                    .map(|v| match v {
                        Value::Str(s) if s.is_empty() => Value::Null,
                        v => v.clone(),
                    })
                    .collect()
            };
            assert_eq!(norm(ra), norm(rb), "{name}");
            for (k, v) in rb.iter().enumerate() {
                assert!(accepts(&schema, k, v), "{name} column {k}: {v:?}");
            }
        }
        // Rows by demo path, then tick.
        let tc = col(table, "tick");
        let key = |r: &Vec<Value>| (s(&r[0]).to_owned(), i(&r[tc]));
        assert!(b.windows(2).all(|w| key(&w[0]) <= key(&w[1])), "{name}");
        if table == Table::Positions {
            assert_eq!(b.len(), 119_612);
        }
    }
}

/// `--from/--to` keep exactly the rows of those ticks.
#[test]
fn tick_range() {
    let Some(root) = datasets() else { return };
    let path = root.join("demos/ddnet__Multeasymap_bench.demo");
    let p = path.to_str().unwrap();
    for table in [Table::Positions, Table::Events, Table::Chat] {
        let schema = table.schema();
        let (c, all, _) = export(&[p, "--table", table.name(), "--format", "jsonl"]);
        assert_eq!(c, 0);
        let all = read_jsonl(&schema, &all).unwrap();
        let tc = col(table, "tick");
        let (lo, hi) = (i(&all[all.len() / 3][tc]), i(&all[all.len() / 2][tc]));
        let (c, cut, _) = export(&[
            p,
            "--table",
            table.name(),
            "--format",
            "jsonl",
            "--from",
            &lo.to_string(),
            "--to",
            &hi.to_string(),
        ]);
        assert_eq!(c, 0);
        let cut = read_jsonl(&schema, &cut).unwrap();
        let want: Vec<_> = all
            .iter()
            .filter(|r| (lo..=hi).contains(&i(&r[tc])))
            .cloned()
            .collect();
        assert!(!want.is_empty() && want.len() < all.len());
        assert_eq!(cut, want, "{}", table.name());
    }
}

/// A truncated real demo keeps its rows up to the fault, says where the
/// fault is on stderr and exits 1; the next demo is exported whole.
#[test]
fn truncated_demo_keeps_rows_before_the_fault() {
    let Some(root) = datasets() else { return };
    let real = root.join("demos/ddnet__Multeasymap_bench.demo");
    let bytes = std::fs::read(&real).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cut = tmp.path().join("a_cut.demo");
    std::fs::write(&cut, &bytes[..bytes.len() * 3 / 5]).unwrap();
    let schema = Table::Positions.schema();
    let (c, full, _) = export(&[real.to_str().unwrap(), "--table", "positions"]);
    assert_eq!(c, 0);
    let full = read_csv(&schema, &full).unwrap();
    let (c, out, err) = export(&[
        cut.to_str().unwrap(),
        real.to_str().unwrap(),
        "--table",
        "positions",
    ]);
    assert_eq!(c, 1, "{err}");
    // Printed as every run's note is: `teebatch: PATH: MESSAGE`.
    let prefix = format!("teebatch: {}: ", cut.display());
    assert!(
        err.lines()
            .any(|l| l.starts_with(&prefix) && l.contains("at byte")),
        "{err}"
    );
    let out = read_csv(&schema, &out).unwrap();
    let (from_cut, from_real): (Vec<_>, Vec<_>) = out
        .into_iter()
        .partition(|r| s(&r[0]) == cut.to_str().unwrap());
    assert_eq!(from_real, full);
    assert!(!from_cut.is_empty() && from_cut.len() < full.len());
    // All but the path and the file's hash.
    let tick = col(Table::Positions, "tick");
    for (a, b) in from_cut.iter().zip(&full) {
        assert_eq!(a[tick..], b[tick..]);
    }
}

/// (tick, id, kind, the event's ints by column name) of one event row.
type EventRow = (i32, i32, String, Vec<(&'static str, i32)>);

/// The rows of item table `table` libtw2's reader gives (by kind, fields
/// by column name).
fn libtw2_items(bytes: &[u8], protocol: Protocol, table: Table) -> Vec<EventRow> {
    use libtw2_demo::ddnet::{Chunk, DemoReader};
    use Table::{Events as E, Flags as F, Game as G, Lasers as L, Pickups as P, Projectiles as R};
    let mut out = Vec::new();
    let mut warn = Vec::new();
    let mut tick = -1;
    macro_rules! read {
        ($proto:ty, $map:expr) => {{
            let mut r = DemoReader::<$proto>::new(std::io::Cursor::new(bytes), &mut warn).unwrap();
            while let Some(chunk) = r.next_chunk(&mut warn).unwrap() {
                match chunk {
                    Chunk::Tick { tick: t, .. } => tick = t,
                    Chunk::Snapshot(items) => {
                        for (obj, id) in items {
                            if let Some((t, kind, fields)) = $map(obj) {
                                if t == table {
                                    out.push((tick, i32::from(*id), String::from(kind), fields));
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }};
    }
    fn named(names: &[&'static str], v: &[i32]) -> Vec<(&'static str, i32)> {
        names.iter().copied().zip(v.iter().copied()).collect()
    }
    const XY: &[&str] = &["x", "y"];
    match protocol {
        Protocol::V06 => {
            use libtw2_gamenet_ddnet::SnapObj as O;
            read!(libtw2_gamenet_ddnet::Protocol, |o: &O| {
                let xy = |c: &libtw2_gamenet_ddnet::snap_obj::Common| named(XY, &[c.x, c.y]);
                let with = |c, k: &'static str, v: i32| [xy(c), vec![(k, v)]].concat();
                Some(match o {
                    O::Explosion(e) => (E, "explosion", xy(&e.common)),
                    O::Spawn(e) => (E, "spawn", xy(&e.common)),
                    O::HammerHit(e) => (E, "hammer_hit", xy(&e.common)),
                    O::Death(e) => (E, "death", with(&e.common, "client_id", e.client_id)),
                    O::SoundGlobal(e) => (
                        E,
                        "sound_global",
                        with(&e.common, "sound_id", e.sound_id as i32),
                    ),
                    O::SoundWorld(e) => (
                        E,
                        "sound_world",
                        with(&e.common, "sound_id", e.sound_id as i32),
                    ),
                    O::DamageInd(e) => (E, "damage_indicator", with(&e.common, "angle", e.angle)),
                    O::Birthday(e) => (E, "birthday", xy(&e.common)),
                    O::Finish(e) => (E, "finish", xy(&e.common)),
                    O::MapSoundWorld(e) => (
                        E,
                        "map_sound_world",
                        with(&e.common, "sound_id", e.sound_id),
                    ),
                    O::Projectile(p) => (
                        R,
                        "projectile",
                        named(
                            &["x", "y", "vel_x", "vel_y", "type", "start_tick"],
                            &[p.x, p.y, p.vel_x, p.vel_y, p.type_ as i32, p.start_tick.0],
                        ),
                    ),
                    O::DdnetProjectile(p) => (
                        R,
                        "ddnet_projectile",
                        named(
                            &[
                                "x",
                                "y",
                                "vel_x",
                                "vel_y",
                                "type",
                                "start_tick",
                                "owner",
                                "switch_number",
                                "tune_zone",
                                "flags",
                            ],
                            &[
                                p.x,
                                p.y,
                                p.vel_x,
                                p.vel_y,
                                p.type_ as i32,
                                p.start_tick.0,
                                p.owner,
                                p.switch_number,
                                p.tune_zone,
                                p.flags,
                            ],
                        ),
                    ),
                    O::DdraceProjectile(p) => (
                        R,
                        "ddrace_projectile",
                        named(
                            &["x", "y", "angle", "data", "type", "start_tick"],
                            &[p.x, p.y, p.angle, p.data, p.type_ as i32, p.start_tick.0],
                        ),
                    ),
                    O::Laser(l) => (
                        L,
                        "laser",
                        named(
                            &["x", "y", "from_x", "from_y", "start_tick"],
                            &[l.x, l.y, l.from_x, l.from_y, l.start_tick.0],
                        ),
                    ),
                    O::DdnetLaser(l) => (
                        L,
                        "ddnet_laser",
                        named(
                            &[
                                "x",
                                "y",
                                "from_x",
                                "from_y",
                                "start_tick",
                                "owner",
                                "type",
                                "switch_number",
                                "subtype",
                                "flags",
                            ],
                            &[
                                l.to_x,
                                l.to_y,
                                l.from_x,
                                l.from_y,
                                l.start_tick.0,
                                l.owner,
                                l.type_,
                                l.switch_number,
                                l.subtype,
                                l.flags,
                            ],
                        ),
                    ),
                    O::Pickup(p) => (
                        P,
                        "pickup",
                        named(
                            &["x", "y", "type", "subtype"],
                            &[p.x, p.y, p.type_, p.subtype],
                        ),
                    ),
                    O::DdnetPickup(p) => (
                        P,
                        "ddnet_pickup",
                        named(
                            &["x", "y", "type", "subtype", "switch_number", "flags"],
                            &[p.x, p.y, p.type_, p.subtype, p.switch_number, p.flags],
                        ),
                    ),
                    O::Flag(f) => (F, "flag", named(&["x", "y", "team"], &[f.x, f.y, f.team])),
                    O::GameInfo(g) => (
                        G,
                        "game_info",
                        named(
                            &[
                                "game_flags",
                                "game_state_flags",
                                "round_start_tick",
                                "warmup_timer",
                                "score_limit",
                                "time_limit",
                                "round_num",
                                "round_current",
                            ],
                            &[
                                g.game_flags,
                                g.game_state_flags,
                                g.round_start_tick.0,
                                g.warmup_timer,
                                g.score_limit,
                                g.time_limit,
                                g.round_num,
                                g.round_current,
                            ],
                        ),
                    ),
                    O::GameData(g) => (
                        G,
                        "game_data",
                        named(
                            &[
                                "teamscore_red",
                                "teamscore_blue",
                                "flag_carrier_red",
                                "flag_carrier_blue",
                            ],
                            &[
                                g.teamscore_red,
                                g.teamscore_blue,
                                g.flag_carrier_red,
                                g.flag_carrier_blue,
                            ],
                        ),
                    ),
                    O::GameInfoEx(g) => (
                        G,
                        "game_info_ex",
                        named(
                            &["ex_flags", "ex_version", "ex_flags2"],
                            &[g.flags, g.version, g.flags2],
                        ),
                    ),
                    _ => return None,
                })
            })
        }
        Protocol::V07 => {
            use libtw2_gamenet_teeworlds_0_7::SnapObj as O;
            read!(libtw2_gamenet_teeworlds_0_7::Protocol, |o: &O| {
                let xy =
                    |c: &libtw2_gamenet_teeworlds_0_7::snap_obj::Common| named(XY, &[c.x, c.y]);
                let with = |c, k: &'static str, v: i32| [xy(c), vec![(k, v)]].concat();
                Some(match o {
                    O::Explosion(e) => (E, "explosion", xy(&e.common)),
                    O::Spawn(e) => (E, "spawn", xy(&e.common)),
                    O::HammerHit(e) => (E, "hammer_hit", xy(&e.common)),
                    O::Death(e) => (E, "death", with(&e.common, "client_id", e.client_id)),
                    O::SoundWorld(e) => (
                        E,
                        "sound_world",
                        with(&e.common, "sound_id", e.sound_id as i32),
                    ),
                    O::Damage(e) => (
                        E,
                        "damage",
                        [
                            xy(&e.common),
                            named(
                                &[
                                    "client_id",
                                    "angle",
                                    "health_amount",
                                    "armor_amount",
                                    "self",
                                ],
                                &[
                                    e.client_id,
                                    e.angle,
                                    e.health_amount,
                                    e.armor_amount,
                                    i32::from(e.self_),
                                ],
                            ),
                        ]
                        .concat(),
                    ),
                    O::Projectile(p) => (
                        R,
                        "projectile",
                        named(
                            &["x", "y", "vel_x", "vel_y", "type", "start_tick"],
                            &[p.x, p.y, p.vel_x, p.vel_y, p.type_ as i32, p.start_tick.0],
                        ),
                    ),
                    O::Laser(l) => (
                        L,
                        "laser",
                        named(
                            &["x", "y", "from_x", "from_y", "start_tick"],
                            &[l.x, l.y, l.from_x, l.from_y, l.start_tick.0],
                        ),
                    ),
                    O::Pickup(p) => (
                        P,
                        "pickup",
                        named(&["x", "y", "type"], &[p.x, p.y, p.type_ as i32]),
                    ),
                    O::Flag(f) => (F, "flag", named(&["x", "y", "team"], &[f.x, f.y, f.team])),
                    O::GameData(g) => (
                        G,
                        "game_data",
                        named(
                            &["game_start_tick", "game_state_flags", "game_state_end_tick"],
                            &[
                                g.game_start_tick.0,
                                g.game_state_flags,
                                g.game_state_end_tick.0,
                            ],
                        ),
                    ),
                    O::GameDataTeam(g) => (
                        G,
                        "game_data_team",
                        named(
                            &["teamscore_red", "teamscore_blue"],
                            &[g.teamscore_red, g.teamscore_blue],
                        ),
                    ),
                    O::GameDataFlag(g) => (
                        G,
                        "game_data_flag",
                        named(
                            &[
                                "flag_carrier_red",
                                "flag_carrier_blue",
                                "flag_drop_tick_red",
                                "flag_drop_tick_blue",
                            ],
                            &[
                                g.flag_carrier_red,
                                g.flag_carrier_blue,
                                g.flag_drop_tick_red.0,
                                g.flag_drop_tick_blue.0,
                            ],
                        ),
                    ),
                    O::DeGameInfo(g) => (
                        G,
                        "de_game_info",
                        named(
                            &[
                                "game_flags",
                                "score_limit",
                                "time_limit",
                                "match_num",
                                "match_current",
                            ],
                            &[
                                g.game_flags,
                                g.score_limit,
                                g.time_limit,
                                g.match_num,
                                g.match_current,
                            ],
                        ),
                    ),
                    O::GameDataRace(g) => (
                        G,
                        "game_data_race",
                        named(
                            &["best_time", "precision", "race_flags"],
                            &[g.best_time, g.precision, g.race_flags],
                        ),
                    ),
                    _ => return None,
                })
            })
        }
    }
    out
}

/// Every row of every item table other than `positions` (events,
/// projectiles, lasers, pickups, flags, game) equals libtw2's decoding of
/// the same items; compared per tick as sets (extended types are ordered
/// by their per-snapshot type number, which libtw2 does not expose).
#[test]
fn item_tables_match_libtw2() {
    let Some(demos) = demos() else { return };
    let tables = [
        Table::Events,
        Table::Projectiles,
        Table::Lasers,
        Table::Pickups,
        Table::Flags,
        Table::Game,
    ];
    let mut totals = Vec::new();
    let mut unchecked = 0;
    for table in tables {
        let schema = table.schema();
        let mut total = 0;
        for path in &demos {
            let name = path.file_name().unwrap().to_string_lossy();
            let bytes = std::fs::read(path).unwrap();
            let (protocol, rows) = ours(path, table);
            let mut mine: Vec<EventRow> = rows
                .iter()
                .map(|r| {
                    let block = col(table, "id") + 1;
                    let fields = schema.fields()[block..]
                        .iter()
                        .enumerate()
                        .filter_map(|(k, c)| match r[block + k] {
                            Value::I32(v) => Some((column_name(table, c.name()), v)),
                            _ => None,
                        })
                        .collect();
                    let c = |name: &str| col(table, name);
                    (
                        i(&r[c("tick")]),
                        i(&r[c("id")]),
                        s(&r[c("kind")]).to_owned(),
                        fields,
                    )
                })
                .collect();
            // libtw2's 0.7 crate has no DDNet extended items (which a DDNet
            // server's 0.7 demo has): those rows are unchecked.
            let ddnet_kinds = [
                "game_info_ex",
                "ddnet_projectile",
                "ddrace_projectile",
                "ddnet_laser",
                "ddnet_pickup",
                "birthday",
                "finish",
                "map_sound_world",
            ];
            if protocol == Protocol::V07 {
                let before = mine.len();
                mine.retain(|r| !ddnet_kinds.contains(&r.2.as_str()));
                unchecked += before - mine.len();
            }
            let mut theirs = libtw2_items(&bytes, protocol, table);
            for v in [&mut mine, &mut theirs] {
                for e in v.iter_mut() {
                    e.3.sort_unstable();
                }
                v.sort();
            }
            assert_eq!(mine, theirs, "{} {name}", table.name());
            // Our own order: by tick, then id.
            let (tc, ic) = (col(table, "tick"), col(table, "id"));
            let key = |r: &Vec<Value>| (i(&r[tc]), i(&r[ic]));
            assert!(rows.windows(2).all(|w| key(&w[0]) <= key(&w[1])), "{name}");
            total += rows.len();
        }
        totals.push((table.name(), total));
    }
    eprintln!("rows equal to libtw2's: {totals:?}; {unchecked} DDNet rows of 0.7 demos unchecked");
    assert!(totals
        .iter()
        .all(|&(t, n)| n > 0 || t == "flags" || t == "lasers"));
}

/// The `player_changes` table replayed (join, update, leave) gives, after each
/// tick, the players libtw2 reads from that tick's snapshot: the same
/// client ids and, in 0.6 demos, the same scores, teams, local flag and
/// names (packed back into ints by libtw2's packer).
#[test]
fn players_replay_matches_libtw2() {
    use libtw2_demo::ddnet::{Chunk, DemoReader};
    use std::collections::BTreeMap;
    let Some(demos) = demos() else { return };
    let (mut changes, mut checked) = (0, 0);
    for path in &demos {
        let name = path.file_name().unwrap().to_string_lossy();
        let bytes = std::fs::read(path).unwrap();
        let (protocol, rows) = ours(path, Table::PlayerChanges);
        // (name ints, team, score, local) per client id, per tick (the
        // last snapshot of each tick).
        type State = BTreeMap<i32, (Option<[i32; 4]>, Option<i32>, Option<i32>, bool)>;
        let mut theirs: Vec<(i32, State)> = Vec::new();
        let mut warn = Vec::new();
        let mut tick = -1;
        let mut push = |tick: i32, st: State| match theirs.last_mut() {
            Some(last) if last.0 == tick => last.1 = st,
            _ => theirs.push((tick, st)),
        };
        match protocol {
            Protocol::V06 => {
                use libtw2_gamenet_ddnet::SnapObj as O;
                let mut r = DemoReader::<libtw2_gamenet_ddnet::Protocol>::new(
                    std::io::Cursor::new(&bytes[..]),
                    &mut warn,
                )
                .unwrap();
                while let Some(chunk) = r.next_chunk(&mut warn).unwrap() {
                    match chunk {
                        Chunk::Tick { tick: t, .. } => tick = t,
                        Chunk::Snapshot(items) => {
                            let mut st = State::new();
                            for (obj, id) in items {
                                let id = i32::from(*id);
                                match obj {
                                    O::ClientInfo(c) => {
                                        st.entry(id).or_insert((None, None, None, false)).0 =
                                            Some(c.name);
                                    }
                                    O::PlayerInfo(p) => {
                                        let e = st
                                            .entry(p.client_id)
                                            .or_insert((None, None, None, false));
                                        e.1 = Some(p.team as i32);
                                        e.2 = Some(p.score);
                                        e.3 = p.local != 0;
                                    }
                                    O::Character(_) => {
                                        st.entry(id).or_insert((None, None, None, false));
                                    }
                                    _ => {}
                                }
                            }
                            push(tick, st);
                        }
                        _ => {}
                    }
                }
            }
            Protocol::V07 => {
                use libtw2_gamenet_teeworlds_0_7::SnapObj as O;
                let mut r = DemoReader::<libtw2_gamenet_teeworlds_0_7::Protocol>::new(
                    std::io::Cursor::new(&bytes[..]),
                    &mut warn,
                )
                .unwrap();
                while let Some(chunk) = r.next_chunk(&mut warn).unwrap() {
                    match chunk {
                        Chunk::Tick { tick: t, .. } => tick = t,
                        Chunk::Snapshot(items) => {
                            let mut st = State::new();
                            for (obj, id) in items {
                                let e = match obj {
                                    O::PlayerInfo(_) | O::DeClientInfo(_) | O::Character(_) => st
                                        .entry(i32::from(*id))
                                        .or_insert((None, None, None, false)),
                                    _ => continue,
                                };
                                if let O::PlayerInfo(p) = obj {
                                    e.2 = Some(p.score);
                                }
                            }
                            push(tick, st);
                        }
                        _ => {}
                    }
                }
            }
        }
        let mut state = State::new();
        let mut at = 0;
        let c = |n: &str| col(Table::PlayerChanges, n);
        for (tick, want) in &theirs {
            while at < rows.len() && i(&rows[at][c("tick")]) <= *tick {
                let r = &rows[at];
                let id = i(&r[c("client_id")]);
                assert_ne!(r[c("session")], Value::Null, "{name}: {r:?}");
                match s(&r[c("change")]) {
                    "leave" => {
                        assert!(state.remove(&id).is_some(), "{name}: {r:?}");
                    }
                    change => {
                        assert_eq!(change == "join", !state.contains_key(&id), "{name}: {r:?}");
                        let name_ints = match &r[c("name")] {
                            Value::Str(n) if protocol == Protocol::V06 => {
                                Some(libtw2_packer::string_to_ints4(n.as_bytes()))
                            }
                            _ => None,
                        };
                        let team = match r[c("team")] {
                            Value::I32(t) if protocol == Protocol::V06 => Some(t),
                            _ => None,
                        };
                        let local = protocol == Protocol::V06 && r[c("local")] == Value::Bool(true);
                        let score = r[c("score")].clone().try_into_i32();
                        state.insert(id, (name_ints, team, score, local));
                    }
                }
                changes += 1;
                at += 1;
            }
            assert_eq!(&state, want, "{name} tick {tick}");
            checked += 1;
        }
        assert_eq!(at, rows.len(), "{name}");
    }
    eprintln!("{changes} player rows replayed, equal to libtw2 at {checked} ticks");
    assert!(changes > 0);
}

trait TryI32 {
    fn try_into_i32(self) -> Option<i32>;
}

impl TryI32 for Value {
    fn try_into_i32(self) -> Option<i32> {
        match self {
            Value::I32(v) => Some(v),
            _ => None,
        }
    }
}

/// Usage errors exit 2; no PATH exports the embedded dataset.
#[test]
fn usage_and_embedded_dataset() {
    for bad in [
        &["--table", "nope"][..],
        &["--table", "positions", "--format", "parquet"],
        &["--format", "csv"],
    ] {
        let (c, _, err) = export(bad);
        assert_eq!(c, 2, "{bad:?}: {err}");
    }
    let (c, out, err) = export(&["--table", "positions", "--format", "jsonl"]);
    assert_eq!(c, 0, "{err}");
    let rows = read_jsonl(&Table::Positions.schema(), &out).unwrap();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| s(&r[0]).ends_with(".demo")));
}

/// Corrupted real demos (bytes flipped after the map) never panic any
/// table; each either ends cleanly or with an error, keeping its rows.
#[test]
fn corrupted_demos_never_panic() {
    let Some(root) = datasets() else { return };
    let path = root.join("demos/ChillerDragon-traffic-dumps__075_ddnet_tinycave_other_player_join__6e925168__client_foo.demo");
    let clean = std::fs::read(&path).unwrap();
    let mut rng = teebatch::synth::Rng::new(0x9e37_79b9);
    let mut next = || rng.next_u64();
    let (mut errors, mut rows) = (0, 0u64);
    for _ in 0..60 {
        let mut bytes = clean.clone();
        // The chunks follow the 1,094-byte map.
        for _ in 0..4 {
            let at = 1600 + (next() as usize) % (bytes.len() - 1600);
            bytes[at] ^= (next() as u8) | 1;
        }
        let Ok(demo) = Demo::parse(&bytes) else {
            continue;
        };
        for table in Table::ALL {
            let mut dec = Decoder::new(Backend::Simd);
            let mut b = TableBuilder::for_demo(table, &demo, "d", i32::MIN, i32::MAX);
            let schema = table.schema();
            let mut sink = |batch: arrow_array::RecordBatch| {
                assert_eq!(batch.schema(), schema);
                for r in readback::rows(&batch) {
                    for (k, v) in r.iter().enumerate() {
                        assert!(accepts(&schema, k, v), "{} {k} {v:?}", table.name());
                    }
                }
                true
            };
            let r = export_demo(&demo, &mut dec, &mut b, i32::MAX, 100, &mut sink);
            errors += usize::from(r.error.is_some());
            rows += r.rows;
        }
    }
    eprintln!("{errors} table exports ended with an error, {rows} rows");
    assert!(errors > 0 && rows > 0);
}

/// `demos export` keeps no chat of the demo: at n and 2n chat lines, the
/// `positions` table holds no line at any point, and the `chat` table
/// holds at most the line of the current message (each becomes a row as
/// it comes; the rows count every line). Before, every table that
/// follows players kept every line to the end of the demo.
#[test]
fn export_keeps_no_chat_lines() {
    use teebatch::codec::snapshot::Snapshot;
    use teebatch::codec::varint;
    use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter};
    let demo_with = |lines: i32| {
        let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "chat", b"");
        let mut w = DemoWriter::new_vec(&header).unwrap();
        w.tick(100, true).unwrap();
        w.full_snapshot(&Snapshot::new()).unwrap();
        for i in 0..lines {
            if i % 50 == 0 {
                w.tick(101 + i / 50, false).unwrap();
            }
            let mut m = Vec::new();
            varint::pack(&[3 << 1, 0, i % 64], &mut m);
            m.extend_from_slice(b"a line of chat\0");
            w.message(&m).unwrap();
        }
        w.finish_vec().unwrap()
    };
    // (rows, the most chat lines held at once) per table, the builder
    // fed every message as `export_demo` feeds it.
    let held = |bytes: &[u8], table: Table| {
        let demo = Demo::parse(bytes).unwrap();
        let mut dec = Decoder::new(Backend::Simd);
        let mut b = TableBuilder::for_demo(table, &demo, "d", i32::MIN, i32::MAX);
        let mut most = 0;
        let mut stream = dec.stream(&demo, teebatch::warn::Discard);
        while let Some(ev) = stream.next_event() {
            if let teebatch::demo::stream::Event::Message(m) = ev.unwrap() {
                b.message(m.tick, m.bytes);
            }
            most = most.max(b.chat_lines_held());
        }
        (b.rows_made, most)
    };
    let (n, n2) = (demo_with(2000), demo_with(4000));
    assert_eq!(held(&n, Table::Positions), (0, 0));
    assert_eq!(held(&n2, Table::Positions), (0, 0));
    // The room for one message's lines (a `Vec`'s smallest capacity).
    let (rows, most) = held(&n, Table::Chat);
    assert_eq!(rows, 2000);
    assert!((1..=4).contains(&most), "{most}");
    assert_eq!(held(&n2, Table::Chat), (4000, most));
}

fn f(v: &Value) -> f64 {
    match v {
        Value::F64(x) => *x,
        v => panic!("not a float: {v:?}"),
    }
}

/// Each demo's `first_tick` as `demos index` reports it, by path.
fn first_ticks(dir: &str) -> std::collections::HashMap<String, i32> {
    crate::common::run_records(&["demos", "index", "-q", dir], 0)
        .iter()
        .map(|r| {
            let path = r["path"].as_str().unwrap().to_owned();
            (path, r["first_tick"].as_i64().unwrap() as i32)
        })
        .collect()
}

/// Every row of every table of every shared demo has `demo_tick = tick -
/// first_tick` (the `first_tick` of `demos index`) and `time_s =
/// demo_tick / 50`; a table whose first row is at the demo's first tick
/// starts at `time_s` 0.
#[test]
fn time_columns_count_from_the_demos_first_tick() {
    let Some(root) = datasets() else { return };
    let dir = root.join("demos");
    let dir = dir.to_str().unwrap();
    let first = first_ticks(dir);
    let (mut rows, mut starts_at_zero) = (0, 0);
    for table in Table::ALL {
        let name = table.name();
        let (tc, dt, ts) = (
            col(table, "tick"),
            col(table, "demo_tick"),
            col(table, "time_s"),
        );
        assert_eq!((dt, ts), (tc + 1, tc + 2));
        let (c, out, e) = export(&[dir, "--table", name, "--format", "jsonl"]);
        assert_eq!(c, 0, "{e}");
        let all = read_jsonl(&table.schema(), &out).unwrap();
        let mut seen = std::collections::HashSet::new();
        for r in &all {
            let demo = s(&r[0]);
            let ft = first[demo];
            assert_eq!(i(&r[dt]), i(&r[tc]) - ft, "{name} {demo}");
            assert_eq!(f(&r[ts]), f64::from(i(&r[tc]) - ft) / 50.0, "{name} {demo}");
            if seen.insert(demo.to_owned()) && i(&r[tc]) == ft {
                assert_eq!(f(&r[ts]), 0.0);
                starts_at_zero += 1;
            }
        }
        rows += all.len();
    }
    // Every demo's positions (a snapshot at its first tick) at least.
    assert!(starts_at_zero >= first.len(), "{starts_at_zero}");
    assert!(rows > 119_612);
}

/// `--from/--to` relative to each demo's start: seconds, minutes:seconds
/// and `+TICKS` select the same rows, those of the absolute range from
/// `demos index`'s first tick, on one demo and (per demo) on a folder.
#[test]
fn relative_tick_ranges() {
    let Some(root) = datasets() else { return };
    let path = root.join("demos/ddnet__Multeasymap_bench.demo");
    let p = path.to_str().unwrap();
    let ft = first_ticks(p)[p];
    let (lo, hi) = ((ft + 250).to_string(), (ft + 500).to_string());
    let table = Table::Positions;
    let run = |from: &str, to: &str| {
        let (c, out, e) = export(&[p, "--table", "positions", "--from", from, "--to", to]);
        assert_eq!(c, 0, "{from} {to}: {e}");
        out
    };
    let absolute = run(&lo, &hi);
    let rows = read_csv(&table.schema(), &absolute).unwrap();
    assert!(!rows.is_empty());
    let dt = col(table, "demo_tick");
    assert_eq!(i(&rows[0][dt]), 250);
    assert!(rows.iter().all(|r| (250..=500).contains(&i(&r[dt]))));
    for (from, to) in [
        ("5s", "10s"),
        ("+250", "+500"),
        ("0:05", "0:10"),
        ("5.00s", "0:10.00"),
    ] {
        assert!(run(from, to) == absolute, "{from} {to}");
    }
    // Mixed kinds resolve per demo.
    assert!(run(&lo, "10s") == absolute);
    // On a folder: each demo's own start.
    let dir = root.join("demos");
    let dir = dir.to_str().unwrap();
    let (c, all, _) = export(&[dir, "--table", "chat", "--format", "jsonl"]);
    assert_eq!(c, 0);
    let (c, cut, _) = export(&[
        dir, "--table", "chat", "--format", "jsonl", "--from", "1s", "--to", "+2500",
    ]);
    assert_eq!(c, 0);
    let schema = Table::Chat.schema();
    let want: Vec<_> = read_jsonl(&schema, &all)
        .unwrap()
        .into_iter()
        .filter(|r| (50..=2500).contains(&i(&r[col(Table::Chat, "demo_tick")])))
        .collect();
    assert!(want.len() > 1, "{}", want.len());
    assert_eq!(read_jsonl(&schema, &cut).unwrap(), want);
}

/// A range whose bounds are of the same kind and out of order is a usage
/// error; bounds of different kinds that resolve out of order fail that
/// demo (exit 1, `export.empty_range`) and the others are exported.
#[test]
fn relative_ranges_out_of_order() {
    let Some(root) = datasets() else { return };
    let path = root.join("demos/ddnet__Multeasymap_bench.demo");
    let p = path.to_str().unwrap();
    let ft = first_ticks(p)[p];
    for (from, to) in [("+10", "+5"), ("10s", "0:05"), ("2s", "+99")] {
        let (c, out, e) = export(&[p, "--table", "chat", "--from", from, "--to", to]);
        assert_eq!(c, 2, "{from} {to}: {e}");
        assert!(e.contains("the range holds no tick"), "{e}");
        assert!(out.is_empty());
    }
    let (c, _, e) = export(&[p, "--table", "chat", "--from", "0.01s"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("0.02 s"), "{e}");
    let from = (ft + 100).to_string();
    let (c, out, e) = export(&[p, "--table", "chat", "--from", &from, "--to", "+10"]);
    assert_eq!(c, 1, "{e}");
    assert!(
        e.contains(&format!("--to +10 (tick {}) for this demo", ft + 10)),
        "{e}"
    );
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 1);
    // The heatmap: relative and absolute ranges draw the same picture.
    let tmp = tempfile::tempdir().unwrap();
    let png = tmp.path().join("h.png");
    let heat = |from: &str, to: &str| {
        let o = teebatch(&[
            "demos",
            "heatmap",
            "-q",
            p,
            "-o",
            png.to_str().unwrap(),
            "--from",
            from,
            "--to",
            to,
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (o.stdout, std::fs::read(&png).unwrap())
    };
    // A window inside the demo (its ticks run from ft to ft + 3846): the
    // positions counted are the export's rows of that window, fewer than
    // the whole demo's.
    let absolute = heat(&(ft + 1000).to_string(), &(ft + 1500).to_string());
    assert!(heat("20s", "+1500") == absolute);
    let whole = heat("0s", "1:40");
    assert!(whole != absolute);
    let counted = |out: &[u8]| {
        let rec: serde_json::Value =
            serde_json::from_slice(out.split(|&b| b == b'\n').next().unwrap()).unwrap();
        rec["positions"].as_u64().unwrap()
    };
    let rows = |from: &str, to: &str| {
        let (c, out, e) = export(&[p, "--table", "positions", "--from", from, "--to", to]);
        assert_eq!(c, 0, "{e}");
        let mut rd = csv::Reader::from_reader(out.as_slice());
        let x = rd.headers().unwrap().iter().position(|h| h == "x").unwrap();
        rd.records()
            .filter(|r| !r.as_ref().unwrap()[x].is_empty())
            .count() as u64
    };
    let in_window = rows("+1000", "+1500");
    assert!(in_window > 1000, "{in_window}");
    assert_eq!(counted(&absolute.0), in_window);
    assert_eq!(counted(&whole.0), rows("+0", "+5000"));
    assert!(counted(&whole.0) > in_window * 3);
}
