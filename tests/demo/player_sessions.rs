//! Player sessions: the `session` column of every per-player table, the
//! `players` table (one row per session) and `player_changes`, on the
//! shared demos (client 3 of Multeasymap is two people, client 44 one
//! person renamed) and on generated demos with renames and rejoins on the
//! same client id, checked against what the generator wrote; `--trails`
//! draws a trail per session.

use crate::common::{datasets, run_records};
use std::collections::BTreeMap;
use teebatch::codec::snapshot::Protocol;
use teebatch::demo::export::{Table, Value};
use teebatch::demo::Demo;
use teebatch::synth::demo::{generate_observed, PlayerChange, SynthEvent, SynthParams};

/// The rows of `table` of a demo held in memory, through the library.
fn rows(bytes: &[u8], table: Table) -> Vec<Vec<Value>> {
    crate::common::table_rows(bytes, table, 1000)
}

fn i(v: &Value) -> i32 {
    match v {
        Value::I32(x) => *x,
        v => panic!("not an i32: {v:?}"),
    }
}

fn s(v: &Value) -> &str {
    match v {
        Value::Str(x) => x,
        v => panic!("not a string: {v:?}"),
    }
}

/// A column of `table`, by name.
fn c(table: Table, name: &str) -> usize {
    table.column_index(name).unwrap()
}

/// One `players` row: (client id, session, first tick, last tick, names).
type SessionRow = (i32, i32, i32, i32, String);

fn session_rows(players: &[Vec<Value>]) -> Vec<SessionRow> {
    let p = |n| c(Table::Players, n);
    players
        .iter()
        .map(|r| {
            // The leading tick is the session's start, and its first tick
            // here (every session of these demos starts in a snapshot).
            assert_eq!(r[p("tick")], r[p("first_tick")], "{r:?}");
            assert!(i(&r[p("first_tick")]) <= i(&r[p("last_tick")]), "{r:?}");
            let names = match &r[p("names")] {
                Value::Null => String::new(),
                v => s(v).to_owned(),
            };
            if r[p("name")] != Value::Null {
                assert_eq!(names.rsplit(" / ").next(), Some(s(&r[p("name")])));
            }
            (
                i(&r[p("client_id")]),
                i(&r[p("session")]),
                i(&r[p("first_tick")]),
                i(&r[p("last_tick")]),
                names,
            )
        })
        .collect()
}

/// Every table with a session column gives each row the session the
/// `players` table has for that client id around that tick.
fn check_sessions_agree(bytes: &[u8], sessions: &[SessionRow]) {
    let by_number: BTreeMap<i32, &SessionRow> = sessions.iter().map(|r| (r.1, r)).collect();
    // Numbered 1, 2, … in order of start, then client id.
    let numbers: Vec<i32> = sessions.iter().map(|r| r.1).collect();
    assert_eq!(numbers, (1..=sessions.len() as i32).collect::<Vec<_>>());
    assert!(sessions
        .windows(2)
        .all(|w| (w[0].2, w[0].0) < (w[1].2, w[1].0)));
    let check = |table: Table, id_col: &str, session_col: &str, exact: bool| {
        let (ic, sc, tc) = (c(table, id_col), c(table, session_col), c(table, "tick"));
        let mut n = 0;
        for r in rows(bytes, table) {
            let Value::I32(id) = r[ic] else { continue };
            if id < 0 {
                assert_eq!(r[sc], Value::Null, "{}: {r:?}", table.name());
                continue;
            }
            let sess = by_number[&i(&r[sc])];
            assert_eq!(sess.0, id, "{}: {r:?}", table.name());
            let tick = i(&r[tc]);
            if exact {
                assert!((sess.2..=sess.3).contains(&tick), "{}: {r:?}", table.name());
            } else {
                assert!(sess.2 <= tick, "{}: {r:?}", table.name());
            }
            n += 1;
        }
        n
    };
    assert!(check(Table::Positions, "client_id", "session", true) > 0);
    check(Table::PlayerChanges, "client_id", "session", false);
    check(Table::Chat, "client_id", "session", false);
    check(Table::Kills, "killer", "killer_session", false);
    check(Table::Kills, "victim", "victim_session", false);
}

/// Multeasymap: client 3 is `fakaskin` until they leave, then
/// `FuckingFuck` (two sessions); client 44 is renamed `2221` → `nnnyyy`
/// without leaving (one session, both names). Every table agrees.
#[test]
fn multeasymap_sessions() {
    let Some(ds) = datasets() else { return };
    let bytes = std::fs::read(ds.join("demos/ddnet__Multeasymap_bench.demo")).unwrap();
    let players = rows(&bytes, Table::Players);
    let sessions = session_rows(&players);
    let of = |id: i32| {
        sessions
            .iter()
            .filter(move |r| r.0 == id)
            .collect::<Vec<_>>()
    };
    let three = of(3);
    assert_eq!(three.len(), 2, "{three:?}");
    assert_eq!(
        (three[0].2, three[0].3, three[0].4.as_str()),
        (2674626, 2675046, "fakaskin")
    );
    assert_eq!((three[1].2, three[1].4.as_str()), (2675760, "FuckingFuck"));
    assert_eq!(three[1].3, 2678472);
    assert_ne!(three[0].1, three[1].1);
    let fortyfour = of(44);
    assert_eq!(fortyfour.len(), 1, "{fortyfour:?}");
    assert_eq!(fortyfour[0].4, "2221 / nnnyyy");
    // The players table: one row per session, 63 players at the start.
    let p = |n| c(Table::Players, n);
    let at_start = players
        .iter()
        .filter(|r| i(&r[p("demo_tick")]) == 0)
        .count();
    assert_eq!(players.len(), 66);
    assert_eq!(at_start, 63);
    let row44 = players
        .iter()
        .find(|r| i(&r[p("client_id")]) == 44)
        .unwrap();
    assert_eq!(s(&row44[p("name")]), "nnnyyy");
    assert_eq!(row44[p("team_changes")], Value::I32(0));
    assert_eq!(row44[p("local")], Value::Bool(false));
    check_sessions_agree(&bytes, &sessions);
    // player_changes: client 3 leaves in session 1 and joins in session 2.
    let pc = |n| c(Table::PlayerChanges, n);
    let changes: Vec<(String, i32)> = rows(&bytes, Table::PlayerChanges)
        .iter()
        .filter(|r| i(&r[pc("client_id")]) == 3 && s(&r[pc("change")]) != "update")
        .map(|r| (s(&r[pc("change")]).to_owned(), i(&r[pc("session")])))
        .collect();
    let (a, b) = (three[0].1, three[1].1);
    assert_eq!(
        changes,
        [
            ("join".to_owned(), a),
            ("leave".to_owned(), a),
            ("join".to_owned(), b)
        ]
    );
}

/// Every real demo: sessions numbered in order, and every table agrees
/// with `players`.
#[test]
fn real_demos_sessions_agree() {
    let Some(ds) = datasets() else { return };
    let demos = crate::common::files_with_ext(&ds.join("demos"), "demo");
    for path in demos {
        let bytes = std::fs::read(&path).unwrap();
        let players = rows(&bytes, Table::Players);
        let demo = Demo::parse(&bytes).unwrap();
        // 0.7 sessions may start by message (tick before the first
        // snapshot showing them): only 0.6 leading ticks are first ticks.
        if demo.decode_protocol() == Protocol::V06 {
            let sessions = session_rows(&players);
            check_sessions_agree(&bytes, &sessions);
        }
        assert!(!players.is_empty(), "{}", path.display());
    }
}

/// Generated demos with renames and players rejoining on the same client
/// id: the `players` table has exactly the sessions the generator made
/// (client id, names in order, first and last snapshot with the player).
#[test]
fn generated_sessions_match_the_generator() {
    let (mut rejoins, mut renames) = (0, 0);
    for seed in 1..4 {
        let params = SynthParams {
            seed,
            players: 8,
            duration_ticks: 50 * 60,
            leaves_per_minute: 0,
            renames_per_minute: 8,
            rejoins_per_minute: 8,
            ..SynthParams::default()
        };
        let mut snapshots = Vec::new();
        // (client id, join tick, leave tick, names) per generated session.
        let mut want: Vec<(u16, i32, Option<i32>, Vec<String>)> = Vec::new();
        let mut open: BTreeMap<u16, usize> = BTreeMap::new();
        let bytes = generate_observed(&params, |ev| match ev {
            SynthEvent::Snapshot { tick, .. } => snapshots.push(tick),
            SynthEvent::Player {
                tick,
                client_id,
                change,
                name,
            } => match change {
                PlayerChange::Join => {
                    assert!(!open.contains_key(&client_id));
                    rejoins += usize::from(want.iter().any(|w| w.0 == client_id));
                    open.insert(client_id, want.len());
                    want.push((client_id, tick, None, vec![name.to_owned()]));
                }
                PlayerChange::Rename => {
                    renames += 1;
                    want[open[&client_id]].3.push(name.to_owned());
                }
                PlayerChange::Leave => {
                    let at = open.remove(&client_id).unwrap();
                    want[at].2 = Some(tick);
                }
            },
            SynthEvent::Message { .. } | SynthEvent::Finish { .. } | SynthEvent::Record { .. } => {}
        });
        // First snapshot from the join on; last one before the leave.
        let last_snapshot = *snapshots.last().unwrap();
        let mut want: Vec<SessionRow> = want
            .into_iter()
            .map(|(id, join, leave, names)| {
                let first = *snapshots.iter().find(|&&t| t >= join).unwrap();
                let last = match leave {
                    Some(l) => *snapshots.iter().rev().find(|&&t| t < l).unwrap(),
                    None => last_snapshot,
                };
                (i32::from(id), 0, first, last, names.join(" / "))
            })
            .collect();
        want.sort_by_key(|w| (w.2, w.0));
        for (k, w) in want.iter_mut().enumerate() {
            w.1 = k as i32 + 1;
        }
        let sessions = session_rows(&rows(&bytes, Table::Players));
        assert_eq!(sessions, want, "seed {seed}");
        check_sessions_agree(&bytes, &sessions);
    }
    assert!(
        rejoins >= 6 && renames >= 6,
        "{rejoins} rejoins, {renames} renames"
    );
}

/// The tables with a session column are never split at keyframes: a
/// segment starting at a keyframe with fresh state could not number the
/// sessions of the demo (so `--split-bytes` leaves their rows unchanged;
/// `codec::delta_changes::split_export_equals_whole` checks the bytes).
#[test]
fn session_tables_are_not_split() {
    let mut with = 0;
    for t in Table::ALL {
        let sessions = ["session", "killer_session", "victim_session"]
            .iter()
            .any(|n| t.column_index(n).is_some());
        if sessions {
            with += 1;
            assert!(!t.splittable(Protocol::V06), "{}", t.name());
            assert!(!t.splittable(Protocol::V07), "{}", t.name());
        }
    }
    // positions, players, player_changes, chat, kills, finishes.
    assert_eq!(with, 6);
}

/// `--trails`: one trail per session: client 3 of Multeasymap gets two
/// legend rows, `fakaskin` and `FuckingFuck`, of different colours.
#[test]
fn trails_are_per_session() {
    let Some(ds) = datasets() else { return };
    let demo = ds.join("demos/ddnet__Multeasymap_bench.demo");
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("t.png");
    let recs = run_records(
        &[
            "demos",
            "heatmap",
            demo.to_str().unwrap(),
            "-o",
            png.to_str().unwrap(),
            "--trails",
            "--players",
            "3,44",
            "-q",
        ],
        0,
    );
    let legend = recs.last().unwrap()["legend"].as_array().unwrap().clone();
    let rows: Vec<(i64, i64, &str)> = legend
        .iter()
        .map(|l| {
            (
                l["client_id"].as_i64().unwrap(),
                l["session"].as_i64().unwrap(),
                l["name"].as_str().unwrap(),
            )
        })
        .collect();
    let names: Vec<(i64, &str)> = rows.iter().map(|r| (r.0, r.2)).collect();
    assert_eq!(
        names,
        [(3, "fakaskin"), (3, "FuckingFuck"), (44, "2221")],
        "{legend:?}"
    );
    assert_ne!(rows[0].1, rows[1].1);
    assert_ne!(legend[0]["colour"], legend[1]["colour"]);
}
