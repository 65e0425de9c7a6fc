//! `finishes` and `records`: the real race finishes of the shared demos
//! (Multeasymap's two chat lines, exact to the hundredth), the record
//! notices in their own table, and generated demos with every chat wording
//! and race message, checked against what the generator wrote; chat and
//! messages agree where both report a finish; `demos index` counts each
//! finish once.

use crate::common::{datasets, files_with_ext};
use std::collections::BTreeMap;
use teebatch::backend::Backend;
use teebatch::demo::analysis::{Analysis, AnalysisVisitor};
use teebatch::demo::export::{Table, Value};
use teebatch::demo::finishes::Finish;
use teebatch::demo::stream::Decoder;
use teebatch::demo::Demo;
use teebatch::synth::demo::{self as synth, SynthEvent, SynthParams, RACE_FORMS};

/// The rows of `table` of one demo, through the library.
fn rows(bytes: &[u8], table: Table) -> Vec<Vec<Value>> {
    crate::common::table_rows(bytes, table, 7)
}

fn analyse(bytes: &[u8]) -> Analysis {
    let demo = Demo::parse(bytes).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    let mut v = AnalysisVisitor::new(demo.decode_protocol());
    let mut s = dec.stream(&demo, teebatch::warn::Discard);
    assert!(s.run(&mut v).is_none());
    v.finish()
}

/// Column `name` of `row` of `table` (looked up by name: other columns
/// may come between).
fn get<'a>(table: Table, row: &'a [Value], name: &str) -> &'a Value {
    &row[table
        .column_index(name)
        .unwrap_or_else(|| panic!("no column {name}"))]
}

fn opt_i32(v: Option<i32>) -> Value {
    v.map_or(Value::Null, Value::I32)
}

fn opt_str(v: Option<&str>) -> Value {
    v.map_or(Value::Null, |s| Value::Str(s.into()))
}

fn opt_f64(v: Option<f64>) -> Value {
    v.map_or(Value::Null, Value::F64)
}

fn opt_bool(v: Option<bool>) -> Value {
    v.map_or(Value::Null, Value::Bool)
}

/// A finish as its `finishes` row gives it: (tick, the finish columns).
fn as_row(tick: i32, f: &Finish) -> (i32, Vec<Value>) {
    (
        tick,
        vec![
            opt_i32(f.client_id),
            opt_str(f.name.as_deref()),
            Value::F64(f.time_s()),
            Value::Str(f.source.into()),
            Value::Str(f.kind.into()),
            opt_f64(f.diff_s()),
            opt_bool(f.record_personal),
            opt_bool(f.record_server),
        ],
    )
}

const FINISH_COLUMNS: [&str; 8] = [
    "client_id",
    "name",
    "finish_time_s",
    "source",
    "kind",
    "diff_s",
    "record_personal",
    "record_server",
];

fn finish_rows(rows: &[Vec<Value>]) -> Vec<(i32, Vec<Value>)> {
    let t = Table::Finishes;
    rows.iter()
        .map(|r| {
            let Value::I32(tick) = get(t, r, "tick") else {
                panic!()
            };
            let cols = FINISH_COLUMNS.iter().map(|c| get(t, r, c).clone());
            (*tick, cols.collect())
        })
        .collect()
}

fn read(name: &str) -> Option<Vec<u8>> {
    let ds = datasets()?;
    Some(std::fs::read(ds.join("demos").join(name)).unwrap())
}

/// Multeasymap's two server chat finishes, with the exact times the
/// lines write (25:28.38 and 17:36.68) and the finishers' client ids.
#[test]
fn multeasymap_chat_finishes() {
    let Some(bytes) = read("ddnet__Multeasymap_bench.demo") else {
        return;
    };
    let got = finish_rows(&rows(&bytes, Table::Finishes));
    let s = |v: &str| Value::Str(v.into());
    let want = [
        (
            2_674_672,
            vec![
                Value::I32(3),
                s("fakaskin"),
                Value::F64(1528.38),
                s("chat"),
                s("player"),
                Value::Null,
                Value::Null,
                Value::Null,
            ],
        ),
        (
            2_674_698,
            vec![
                Value::I32(62),
                s("Zrocken"),
                Value::F64(1056.68),
                s("chat"),
                s("player"),
                Value::Null,
                Value::Null,
                Value::Null,
            ],
        ),
    ];
    assert_eq!(got, want);
    // Exact: the float nearest the written decimal, 25 * 60 + 28.38.
    assert_eq!(1528.38_f64, 152_838.0 / 100.0);
    // The client ids are those with the names at that tick.
    let players = rows(&bytes, Table::PlayerChanges);
    let p = Table::PlayerChanges;
    for (tick, row) in &want {
        let named = players.iter().rev().find(|r| {
            matches!(get(p, r, "tick"), Value::I32(t) if t <= tick)
                && get(p, r, "client_id") == &row[0]
                && get(p, r, "change") != &Value::Str("leave".into())
        });
        assert_eq!(get(p, named.unwrap(), "name"), &row[1]);
    }
    // Each finish names the finisher's session: the one of `players` with
    // that client id, open at the finish's tick, under that name.
    let sessions = rows(&bytes, Table::Players);
    let (f, p) = (Table::Finishes, Table::Players);
    let finishes = rows(&bytes, Table::Finishes);
    assert_eq!(finishes.len(), 2);
    for r in &finishes {
        let Value::I32(tick) = *get(f, r, "tick") else {
            panic!()
        };
        let open: Vec<&Vec<Value>> = sessions
            .iter()
            .filter(|s| {
                get(p, s, "client_id") == get(f, r, "client_id")
                    && matches!(get(p, s, "first_tick"), Value::I32(a) if *a <= tick)
                    && matches!(get(p, s, "last_tick"), Value::I32(b) if *b >= tick)
            })
            .collect();
        assert_eq!(open.len(), 1, "{r:?}");
        assert_eq!(get(f, r, "session"), get(p, open[0], "session"));
        assert!(matches!(get(f, r, "session"), Value::I32(_)));
        let Value::Str(names) = get(p, open[0], "names") else {
            panic!()
        };
        let Value::Str(name) = get(f, r, "name") else {
            panic!()
        };
        assert!(names.split(" / ").any(|n| n == &**name), "{names} {name}");
    }
    // The line after Zrocken's finish ("New record: ...") is no finish.
    let a = analyse(&bytes);
    assert_eq!(a.messages.race_finishes, 2);
    let by_player: Vec<_> = a.messages.finishes_by_player.into_iter().collect();
    assert_eq!(
        by_player,
        [("Zrocken".to_owned(), 1), ("fakaskin".to_owned(), 1)]
    );
}

/// The record notices (`Sv_Record`, hundredths of a second) are rows of
/// `records`, one per message, and never of `finishes`; on the shared
/// demos only Multeasymap has finishes.
#[test]
fn record_notices_have_their_own_table() {
    let Some(ds) = datasets() else { return };
    let mut finishes = BTreeMap::new();
    let mut records = BTreeMap::new();
    for path in files_with_ext(&ds.join("demos"), "demo") {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let f = rows(&bytes, Table::Finishes);
        let r = rows(&bytes, Table::Records);
        // One records row per record message, whatever the tick.
        let a = analyse(&bytes);
        let notices: u64 = ["game:Sv_Record", "game:Sv_RecordLegacy"]
            .iter()
            .filter_map(|n| a.messages.by_name.get(*n))
            .sum();
        assert_eq!(r.len() as u64, notices, "{name}");
        if !f.is_empty() {
            finishes.insert(name.clone(), f.len());
        }
        if !r.is_empty() {
            records.insert(name, r);
        }
    }
    assert_eq!(
        finishes.into_iter().collect::<Vec<_>>(),
        [("ddnet__Multeasymap_bench.demo".to_owned(), 2)]
    );
    let t = Table::Records;
    let got: Vec<(String, Value, Value, Value, Value)> = records
        .into_iter()
        .flat_map(|(name, rows)| {
            rows.into_iter().map(move |r| {
                (
                    name.clone(),
                    get(t, &r, "tick").clone(),
                    get(t, &r, "source").clone(),
                    get(t, &r, "server_best_s").clone(),
                    get(t, &r, "player_best_s").clone(),
                )
            })
        })
        .collect();
    let row = |name: &str, tick| {
        (
            name.to_owned(),
            Value::I32(tick),
            Value::Str("message:Sv_Record".into()),
            Value::F64(0.0),
            Value::F64(0.0),
        )
    };
    assert_eq!(
        got,
        [
            row(
                "ChillerDragon-traffic-dumps__064_ddnet_join_chat_walk_disconnect__9d324496__client.demo",
                1432
            ),
            row(
                "ChillerDragon-traffic-dumps__075_ddnet_tinycave_other_player_join__6e925168__client_foo.demo",
                172
            ),
        ]
    );
}

/// Where a chat line and a race message report the same finish (same
/// name, within a second), their times agree. No shared demo has both
/// (the chat finishes are Multeasymap's, the one race message is
/// `gigachad_gameplay`'s race timer, `m_Finish` 0), so the generated demos
/// below carry both.
#[test]
fn shared_demos_have_no_finish_in_both_sources() {
    let Some(ds) = datasets() else { return };
    for path in files_with_ext(&ds.join("demos"), "demo") {
        let bytes = std::fs::read(&path).unwrap();
        let got = finish_rows(&rows(&bytes, Table::Finishes));
        let chat = got
            .iter()
            .filter(|(_, r)| r[3] == Value::Str("chat".into()));
        assert_eq!(chat.count(), got.len(), "{}", path.display());
        let a = analyse(&bytes);
        let timers: u64 = ["game:Sv_DDRaceTime", "game:Sv_DDRaceTimeLegacy"]
            .iter()
            .filter_map(|n| a.messages.by_name.get(*n))
            .sum();
        let name = path.file_name().unwrap().to_string_lossy();
        assert_eq!(
            timers,
            u64::from(name == "gigachad_gameplay.demo"),
            "{name}"
        );
    }
}

/// A generated demo, the finishes the generator reported (with their
/// ticks) and its record notices (tick, legacy, server best, player best).
type Generated = (Vec<u8>, Vec<(i32, Finish)>, Vec<(i32, bool, i32, i32)>);

fn generated(params: &SynthParams) -> Generated {
    let (mut finishes, mut records) = (Vec::new(), Vec::new());
    let bytes = synth::generate_observed(params, |ev| match ev {
        SynthEvent::Finish { tick, finish } => finishes.push((tick, finish.clone())),
        SynthEvent::Record {
            tick,
            legacy,
            server_best,
            player_best,
        } => records.push((tick, legacy, server_best, player_best)),
        _ => {}
    });
    (bytes, finishes, records)
}

/// Generated demos with finishes in every chat wording and race message:
/// `finishes` and `records` give exactly what the generator wrote; where a
/// chat line and a message report the same finish, they agree; the
/// summary counts each finish once, per player.
#[test]
fn generated_finishes_are_exported_exactly() {
    for (seed, players) in [(3, 1), (11, 8), (29, 40)] {
        let params = SynthParams {
            seed,
            players,
            duration_ticks: 50 * 120,
            finishes_per_minute: 30,
            ..SynthParams::default()
        };
        let (bytes, want, want_records) = generated(&params);
        // Every form, more than once.
        let sources: std::collections::BTreeSet<(&str, &str)> =
            want.iter().map(|(_, f)| (f.source, f.kind)).collect();
        assert_eq!(
            sources.into_iter().collect::<Vec<_>>(),
            [
                ("chat", "own_team"),
                ("chat", "player"),
                ("chat", "practice"),
                ("chat", "team_member"),
                ("message:Sv_DDRaceTime", "player"),
                ("message:Sv_DDRaceTimeLegacy", "player"),
                ("message:Sv_RaceFinish", "player"),
            ],
            "seed {seed}"
        );
        assert!(want.len() > 2 * RACE_FORMS.len(), "{}", want.len());
        assert!(want_records.len() >= 4);
        let got = finish_rows(&rows(&bytes, Table::Finishes));
        let want_rows: Vec<_> = want.iter().map(|(t, f)| as_row(*t, f)).collect();
        assert_eq!(got, want_rows, "seed {seed}");
        // Records: one row per notice, hundredths as seconds.
        let t = Table::Records;
        let got: Vec<(Value, Value, Value, Value)> = rows(&bytes, t)
            .iter()
            .map(|r| {
                (
                    get(t, r, "tick").clone(),
                    get(t, r, "source").clone(),
                    get(t, r, "server_best_s").clone(),
                    get(t, r, "player_best_s").clone(),
                )
            })
            .collect();
        let want_r: Vec<_> = want_records
            .iter()
            .map(|&(tick, legacy, s, p)| {
                let source = if legacy {
                    "message:Sv_RecordLegacy"
                } else {
                    "message:Sv_Record"
                };
                (
                    Value::I32(tick),
                    Value::Str(source.into()),
                    Value::F64(f64::from(s) / 100.0),
                    Value::F64(f64::from(p) / 100.0),
                )
            })
            .collect();
        assert_eq!(got, want_r);
        // Chat and messages agree: every message finish has a chat line
        // for the same player at the same tick with the same time.
        let mut both = 0;
        for (tick, f) in want.iter().filter(|(_, f)| f.source != "chat") {
            let chat = want.iter().find(|(t, c)| {
                t == tick && c.source == "chat" && c.name == f.name && c.kind == "player"
            });
            let (_, c) = chat.unwrap_or_else(|| panic!("no chat line for {f:?}"));
            assert_eq!(c.time_ms, f.time_ms);
            assert!(c.client_id.is_none() || c.client_id == f.client_id);
            both += 1;
        }
        assert!(both >= 3);
        // The summary: each finish once, by name.
        let a = analyse(&bytes);
        let distinct = want.len() - both;
        assert_eq!(a.messages.race_finishes, distinct as u64, "seed {seed}");
        let mut by_player: BTreeMap<String, u64> = BTreeMap::new();
        for (_, f) in want.iter().filter(|(_, f)| f.source == "chat") {
            if let Some(n) = &f.name {
                *by_player.entry(n.clone()).or_default() += 1;
            }
        }
        assert_eq!(a.messages.finishes_by_player, by_player, "seed {seed}");
    }
}

/// Without `finishes_per_minute` the generator writes what it wrote
/// before (no finish, same bytes as a run that never asks).
#[test]
fn generated_demos_without_finishes_have_none() {
    let params = SynthParams {
        seed: 5,
        players: 4,
        duration_ticks: 50 * 10,
        ..SynthParams::default()
    };
    let (bytes, finishes, records) = generated(&params);
    assert!(finishes.is_empty() && records.is_empty());
    assert!(rows(&bytes, Table::Finishes).is_empty());
    assert!(rows(&bytes, Table::Records).is_empty());
}
