//! Cost in proportion to change: what a delta changed
//! ([`teebatch::codec::snapshot::Changes`]), and the readers that follow
//! it (the `demos index` analysis, the `demos export` table builders).
//!
//! Each reader is run twice over the same decoded stream: once following
//! the changes, once told that every snapshot is new (the full read every
//! reader did before). Everything they output must be equal, on the real
//! demos, on generated ones, and on a random demo that adds, removes and
//! updates player items, strings, DDNet declarations and projectiles, with
//! several deltas in some ticks and short items after some keyframes. The
//! work counters then show the change-proportional cost.

use std::io::Cursor;
use std::path::PathBuf;

use teebatch::backend::Backend;
use teebatch::batch::export::{plan_units, ExportOptions};
use teebatch::batch::Input;
use teebatch::codec::snapshot::uuid::{uuid_from_name, uuid_to_ints};
use teebatch::codec::snapshot::{item_key, v06, Changes, Protocol, Snapshot};
use teebatch::demo::analysis::{Analysis, AnalysisVisitor, Probe, StageWarnings, TrackerConfig};
use teebatch::demo::export::readback::{rows, Value};
use teebatch::demo::export::{Table, TableBuilder};
use teebatch::demo::players::PositionConfig;
use teebatch::demo::stream::{Decoder, Event, SnapshotEvent, Visitor};
use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter};
use teebatch::demo::Demo;
use teebatch::map::strings::to_i32_string;
use teebatch::synth::demo::{generate, SynthParams};
use teebatch::synth::Rng;
use teebatch::warn::Discard;

use crate::common;

/// The demos every test here runs on: the real ones (when the datasets are
/// there), three generated collection demos and the random ones.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    if let Some(ds) = common::datasets() {
        for p in common::files_with_ext(&ds.join("demos"), "demo") {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, std::fs::read(&p).unwrap()));
        }
    }
    for i in 0..3 {
        let mut params = SynthParams::collection(11, i);
        params.duration_ticks = params.duration_ticks.min(50 * 30);
        out.push((format!("synth {i}"), generate(&params)));
    }
    for seed in 1..=4 {
        out.push((format!("random {seed}"), random_demo(seed)));
    }
    out
}

/// Hands on every event, but snapshot events with their change unknown
/// when `whole` (every item counts as new).
struct Whole<V> {
    inner: V,
    whole: bool,
    unknown: Changes,
}

impl<V> Whole<V> {
    fn new(inner: V, whole: bool) -> Self {
        let mut unknown = Changes::default();
        unknown.set_unknown();
        Whole {
            inner,
            whole,
            unknown,
        }
    }
}

impl<V: Visitor> Visitor for Whole<V> {
    fn visit(&mut self, event: &Event<'_>) {
        match event {
            Event::Snapshot(e) if self.whole => {
                let e = SnapshotEvent {
                    changes: &self.unknown,
                    ..*e
                };
                self.inner.visit(&Event::Snapshot(e));
            }
            e => self.inner.visit(e),
        }
    }
}

fn analyse(bytes: &[u8], whole: bool) -> (Analysis, Probe, StageWarnings) {
    analyse_limited(bytes, whole, TrackerConfig::default())
}

/// [`analyse`] with these tracker limits.
fn analyse_limited(
    bytes: &[u8],
    whole: bool,
    config: TrackerConfig,
) -> (Analysis, Probe, StageWarnings) {
    let demo = Demo::parse(bytes).unwrap();
    let protocol = demo.decode_protocol();
    let mut dec = Decoder::new(Backend::Simd);
    let mut warnings = StageWarnings::new(1024);
    let v = AnalysisVisitor::with_config(protocol, config, &mut warnings);
    let mut v = Whole::new(v, whole);
    let mut s = dec.stream(&demo, Discard);
    let failed = s.run(&mut v).is_some();
    let mut v = v.inner;
    if failed {
        v.stream_failed();
    }
    let probe = v.probe();
    (v.finish(), probe, warnings)
}

/// Every delta of every demo: `Changes` says exactly which keys went,
/// which kept items changed (at least those whose data differs) and which
/// were appended.
#[test]
fn changes_describe_every_delta() {
    let mut deltas = 0;
    for (name, bytes) in corpus() {
        let demo = Demo::parse(&bytes).unwrap();
        let mut dec = Decoder::new(Backend::Simd);
        let mut s = dec.stream(&demo, Discard);
        let mut prev: Option<Snapshot> = None;
        while let Some(ev) = s.next_event() {
            let Ok(Event::Snapshot(e)) = ev else { continue };
            let (new, c) = (e.snapshot, e.changes);
            if let (Some(old), true) = (&prev, c.is_known()) {
                deltas += 1;
                let at = format!("{name} tick {}", e.tick);
                let removed: Vec<u32> = c.removed().iter().map(|r| r.0).collect();
                for &(k, size) in c.removed() {
                    assert_eq!(old.get(k).map(<[i32]>::len), Some(size as usize), "{at}");
                }
                let kept: Vec<u32> = old
                    .keys()
                    .iter()
                    .copied()
                    .filter(|k| !removed.contains(k))
                    .collect();
                let n_kept = c.added_from().min(new.len());
                assert_eq!(&new.keys()[..n_kept], &kept[..], "{at}");
                for (i, &k) in new.keys()[..n_kept].iter().enumerate() {
                    let listed = c.updated().contains(&(i as u32));
                    if new.get(k) != old.get(k) {
                        assert!(listed, "{at}: item {i} changed but is not listed");
                    }
                }
                let mut updated = c.updated().to_vec();
                updated.sort_unstable();
                updated.dedup();
                assert_eq!(updated.len(), c.updated().len(), "{at}: repeated");
                assert!(updated.iter().all(|&i| (i as usize) < n_kept), "{at}");
                assert_eq!(
                    c.touched(new),
                    removed.len() + updated.len() + (new.len() - n_kept)
                );
            }
            prev = Some(e.snapshot.clone());
        }
    }
    assert!(deltas > 1000, "{deltas} deltas checked");
}

/// The analysis that follows the changes gives the records, players and
/// warnings of the full read, for far less work on the item tables and
/// the players; with position tracks too (the views then follow every
/// moved character, where without they skip them).
#[test]
fn analysis_follows_changes() {
    let (mut follow_ops, mut whole_ops) = (0, 0);
    let (mut follow_players, mut whole_players) = (0, 0);
    let tracks = TrackerConfig {
        positions: Some(PositionConfig {
            every_ticks: 1,
            max_points: 100_000,
        }),
        ..TrackerConfig::default()
    };
    for (name, bytes) in corpus() {
        let (a, pa, aw) = analyse(&bytes, false);
        let (b, pb, bw) = analyse(&bytes, true);
        assert_eq!(a.stats, b.stats, "{name}");
        assert_eq!(a.players, b.players, "{name}");
        assert_eq!(a.messages, b.messages, "{name}");
        assert_eq!(aw.players, bw.players, "{name}");
        assert_eq!(aw.message, bw.message, "{name}");
        follow_ops += pa.item_sizes;
        whole_ops += pb.item_sizes;
        follow_players += pa.players;
        whole_players += pb.players;
        let (a, _, aw) = analyse_limited(&bytes, false, tracks);
        let (b, _, bw) = analyse_limited(&bytes, true, tracks);
        assert_eq!(a.players, b.players, "{name} with positions");
        assert_eq!(aw.players, bw.players, "{name} with positions");
    }
    // Items charged to the type tables: a small share of the full read's.
    assert!(
        follow_ops * 5 < whole_ops,
        "{follow_ops} item operations against {whole_ops}"
    );
    // Player views and records looked up: likewise.
    assert!(
        follow_players * 5 < whole_players,
        "{follow_players} player operations against {whole_players}"
    );
}

/// One table's rows of a demo, and the builder's item fills.
fn table_rows(bytes: &[u8], table: Table, whole: bool) -> (Vec<Vec<Value>>, u64) {
    let demo = Demo::parse(bytes).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    let mut b = TableBuilder::for_demo(table, &demo, "d", i32::MIN, i32::MAX);
    let mut unknown = Changes::default();
    unknown.set_unknown();
    let mut s = dec.stream(&demo, Discard);
    let mut all = Vec::new();
    while let Some(ev) = s.next_event() {
        match ev {
            Ok(Event::Snapshot(e)) => {
                let c = if whole { &unknown } else { e.changes };
                b.snapshot_changed(e.tick, e.snapshot, c);
            }
            Ok(Event::Message(m)) => b.message(m.tick, m.bytes),
            Ok(_) => {}
            Err(_) => break,
        }
        if b.len() > 4096 {
            all.extend(rows(&b.take_batch()));
        }
    }
    b.finish();
    all.extend(rows(&b.take_batch()));
    (all, b.items_seen)
}

/// Every table of every demo: the builders that follow the changes write
/// the rows of the full read.
#[test]
fn tables_follow_changes() {
    let corpus = corpus();
    for table in Table::ALL {
        let (mut fills, mut rows) = (0, 0);
        for (name, bytes) in &corpus {
            let (a, fa) = table_rows(bytes, table, false);
            let (b, _) = table_rows(bytes, table, true);
            assert!(a == b, "{}: {name}: rows differ", table.name());
            fills += fa;
            rows += a.len() as u64;
        }
        if table == Table::Positions {
            // Characters move most ticks: still fewer fills than rows.
            assert!(fills < rows, "{fills} fills for {rows} rows");
        }
    }
}

/// A version-6 protocol-0.6 demo written by `DemoWriter`.
fn writer_demo(f: impl FnOnce(&mut DemoWriter<Cursor<Vec<u8>>>)) -> Vec<u8> {
    let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "delta", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    f(&mut w);
    w.finish_vec().unwrap()
}

/// A keyframe of `n` characters, then `ticks` deltas that each move `k` of
/// them (a different `k` every tick).
fn moving_characters(n: u16, k: u16, ticks: i32) -> Vec<u8> {
    writer_demo(|w| {
        let mut s = Snapshot::new();
        let mut chars: Vec<[i32; 22]> = (0..n).map(|i| [i32::from(i); 22]).collect();
        let build = |chars: &[[i32; 22]]| {
            let mut s = Snapshot::new();
            for (id, c) in chars.iter().enumerate() {
                s.push(item_key(v06::CHARACTER, id as u16), c).unwrap();
            }
            s
        };
        s.clone_from(&build(&chars));
        w.tick(100, true).unwrap();
        w.full_snapshot(&s).unwrap();
        for t in 1..=ticks {
            for j in 0..k {
                let id = (t as usize * usize::from(k) + usize::from(j)) % usize::from(n);
                chars[id][1] += 32;
            }
            w.tick(100 + t, false).unwrap();
            w.delta_snapshot(&build(&chars), false).unwrap();
        }
    })
}

/// `positions` on a demo whose deltas each touch `k` of `n` characters:
/// `n` fills for the keyframe, then `k` per tick, while every tick still
/// has its `n` rows; doubling `n` leaves the fills per tick alone.
#[test]
fn table_work_follows_the_changed_items() {
    let (n, k, ticks) = (300u16, 3u16, 200);
    for n in [n, 2 * n] {
        let bytes = moving_characters(n, k, ticks);
        let (rows, fills) = table_rows(&bytes, Table::Positions, false);
        assert_eq!(rows.len(), usize::from(n) * (ticks as usize + 1));
        assert_eq!(fills, u64::from(n) + u64::from(k) * ticks as u64);
        let (whole_rows, whole_fills) = table_rows(&bytes, Table::Positions, true);
        assert!(rows == whole_rows);
        assert_eq!(whole_fills, u64::from(n) * (ticks as u64 + 1));
    }
    // The analysis too: the type tables see the keyframe's items only, the
    // player views the moved characters.
    let bytes = moving_characters(n, k, ticks);
    let (_, p, _) = analyse(&bytes, false);
    assert_eq!(p.item_sizes, u64::from(n));
    let (_, whole, _) = analyse(&bytes, true);
    assert_eq!(whole.item_sizes, u64::from(n) * (ticks as u64 + 1));
}

/// One client's state in the random demo.
#[derive(Clone, Copy, Default)]
struct Client {
    info: bool,
    player: bool,
    character: bool,
    /// Name index; 0 is an invalid (all-zero) string.
    name: usize,
    /// The client id its player info names (usually its own).
    cid: i32,
    team: i32,
    score: i32,
    x: i32,
}

/// A random 0.6 demo: 8 clients whose items come and go, rename, change
/// teams and scores and move; a DDNet character declaration that comes
/// and goes with DDNet character items; projectiles and events; some ticks
/// without snapshot, some with two deltas; and keyframes, a few of them
/// with short items replayed for several ticks.
fn random_demo(seed: u64) -> Vec<u8> {
    let names = ["", "alpha", "beta", "gamma"];
    let ddnet = uuid_to_ints(&uuid_from_name("character@netobj.ddnet.tw"));
    writer_demo(|w| {
        let mut rng = Rng::new(seed);
        let mut clients = [Client::default(); 8];
        for (i, c) in clients.iter_mut().enumerate() {
            *c = Client {
                info: true,
                player: true,
                character: i % 2 == 0,
                name: 1 + i % 3,
                cid: i as i32,
                ..Client::default()
            };
        }
        let mut declared = true;
        let mut projectiles = 0u16;
        let mut tick = 1000;
        for step in 0..400 {
            tick += 1;
            let mutate = |rng: &mut Rng,
                          clients: &mut [Client; 8],
                          declared: &mut bool,
                          projectiles: &mut u16| {
                for (i, c) in clients.iter_mut().enumerate() {
                    if rng.chance(4, 100) {
                        c.info = !c.info;
                    }
                    if rng.chance(4, 100) {
                        c.player = !c.player;
                    }
                    if rng.chance(6, 100) {
                        c.character = !c.character;
                    }
                    if rng.chance(3, 100) {
                        c.name = rng.modulo(names.len() as u64) as usize;
                    }
                    if rng.chance(2, 100) {
                        c.cid = if rng.chance(50, 100) {
                            i as i32
                        } else {
                            (i as i32 + 1) % 8
                        };
                    }
                    if rng.chance(5, 100) {
                        c.team = rng.modulo(3) as i32 - 1;
                    }
                    if rng.chance(10, 100) {
                        c.score += 1;
                    }
                    if rng.chance(60, 100) {
                        c.x += 3;
                    }
                }
                if rng.chance(3, 100) {
                    *declared = !*declared;
                }
                *projectiles = rng.modulo(4) as u16;
            };
            let build = |clients: &[Client; 8], declared: bool, projectiles: u16, short: bool| {
                let mut s = Snapshot::new();
                if declared {
                    s.push(item_key(0, 0x7fff), &ddnet).unwrap();
                }
                for (i, c) in clients.iter().enumerate() {
                    let id = i as u16;
                    if c.info {
                        let mut v = to_i32_string(names[c.name], 4);
                        if c.name == 0 {
                            v = vec![0; 4];
                        }
                        v.extend(to_i32_string("clan", 3));
                        v.push(276);
                        v.extend(to_i32_string("default", 6));
                        v.extend([0, 0, 0]);
                        s.push(item_key(v06::CLIENT_INFO, id), &v).unwrap();
                    }
                    if c.player {
                        s.push(
                            item_key(v06::PLAYER_INFO, id),
                            &[0, c.cid, c.team, c.score, 5],
                        )
                        .unwrap();
                    }
                    if c.character {
                        let mut ch = vec![0; if short && i == 2 { 2 } else { 22 }];
                        ch[1] = c.x;
                        s.push(item_key(v06::CHARACTER, id), &ch).unwrap();
                        if declared && i % 3 != 1 {
                            s.push(item_key(0x7fff, id), &[c.x, 1, 2, 3, 4, 5, 6, 7, 8, 9])
                                .unwrap();
                        }
                    }
                }
                for p in 0..projectiles {
                    s.push(item_key(v06::PROJECTILE, p), &[1, 2, 3, 4, 5, 6])
                        .unwrap();
                }
                if projectiles % 2 == 1 {
                    s.push(item_key(v06::EVENT_EXPLOSION, 0), &[7, 8]).unwrap();
                }
                s
            };
            mutate(&mut rng, &mut clients, &mut declared, &mut projectiles);
            if step % 50 == 0 || rng.chance(2, 100) {
                // A keyframe, sometimes with a short character replayed by
                // tick markers alone.
                let short = rng.chance(40, 100) && clients[2].character;
                w.tick(tick, true).unwrap();
                w.full_snapshot(&build(&clients, declared, projectiles, short))
                    .unwrap();
                if short {
                    for _ in 0..3 {
                        tick += 1;
                        w.tick(tick, false).unwrap();
                    }
                    // The next delta needs a snapshot of the right sizes.
                    tick += 1;
                    w.tick(tick, true).unwrap();
                    w.full_snapshot(&build(&clients, declared, projectiles, false))
                        .unwrap();
                }
                continue;
            }
            w.tick(tick, false).unwrap();
            if rng.chance(10, 100) {
                continue;
            }
            w.delta_snapshot(&build(&clients, declared, projectiles, false), false)
                .unwrap();
            if rng.chance(10, 100) {
                mutate(&mut rng, &mut clients, &mut declared, &mut projectiles);
                w.delta_snapshot(&build(&clients, declared, projectiles, false), false)
                    .unwrap();
            }
        }
    })
}

/// Runs `demos export -q` with `args`; returns (exit code, stdout).
fn export(args: &[&str]) -> (i32, Vec<u8>) {
    let mut all = vec!["demos", "export", "-q"];
    all.extend_from_slice(args);
    let out = common::teebatch(&all);
    (out.status.code().unwrap(), out.stdout)
}

/// Units of work `demos export` plans for `paths` with `split_bytes`.
fn units(paths: &[PathBuf], table: Table, split_bytes: u64) -> usize {
    let inputs: Vec<Input> = paths
        .iter()
        .map(|p| Input::File {
            path: p.clone(),
            size: std::fs::metadata(p).unwrap().len(),
        })
        .collect();
    let mut opts = ExportOptions::new(table);
    opts.split_bytes = split_bytes;
    plan_units(&inputs, &opts).len()
}

/// Keyframe splitting: the real demos and a long generated one (with
/// renames and players rejoining on the same client id), split into
/// segments of about 64 KiB, give the bytes of the whole-demo export on 1
/// and 2 jobs, for every table: those that split, and those that are not
/// split (the message tables, `players`, `player_changes` and `positions`,
/// whose `session` numbers sessions from the demo's start).
#[test]
fn split_export_equals_whole() {
    let dir = tempfile::tempdir().unwrap();
    let synth = dir.path().join("synth.demo");
    let params = SynthParams {
        players: 32,
        duration_ticks: 50 * 120,
        renames_per_minute: 6,
        rejoins_per_minute: 6,
        ..SynthParams::default()
    };
    std::fs::write(&synth, generate(&params)).unwrap();
    let mut paths = real_demos();
    paths.push(synth.clone());
    let args: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    let mut split_tables = 0;
    for table in Table::ALL {
        let name = table.name();
        let n = units(&paths, table, 64 << 10);
        let splits = [Table::Events, Table::Projectiles]
            .iter()
            .chain(&[Table::Game, Table::Pickups])
            .any(|&t| t == table);
        if splits {
            assert!(n > paths.len() + 20, "{name}: {n} units");
            split_tables += 1;
        } else if table.layouts().is_empty() || table == Table::Positions {
            assert_eq!(n, paths.len(), "{name}");
        }
        let run = |extra: &[&str]| {
            let mut a = args.clone();
            a.extend_from_slice(&["--table", name]);
            a.extend_from_slice(extra);
            export(&a)
        };
        let (c0, whole) = run(&["--jobs", "1"]);
        let (c1, split1) = run(&["--jobs", "1", "--split-bytes", "64K"]);
        let (c2, split2) = run(&["--jobs", "2", "--split-bytes", "64K"]);
        assert_eq!((c0, c1, c2), (0, 0, 0), "{name}");
        assert!(!whole.is_empty());
        assert!(split1 == whole, "{name}: split on 1 job differs");
        assert!(split2 == whole, "{name}: split on 2 jobs differs");
    }
    assert_eq!(split_tables, 4);
}

/// A demo cut in its second half, split: the rows up to the fault (those
/// of the segments before it and of its own segment up to it), the error
/// in the exit code, exactly as unsplit.
#[test]
fn split_export_stops_at_the_fault() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = generate(&SynthParams {
        players: 16,
        duration_ticks: 50 * 90,
        ..SynthParams::default()
    });
    let cut = dir.path().join("cut.demo");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    let whole_demo = dir.path().join("whole.demo");
    std::fs::write(&whole_demo, &bytes).unwrap();
    let paths = [cut.clone(), whole_demo.clone()];
    assert!(units(&paths, Table::Events, 32 << 10) > 6);
    let p: Vec<&str> = paths.iter().map(|p| p.to_str().unwrap()).collect();
    for table in ["game", "events"] {
        let base = [p[0], p[1], "--table", table, "--format", "jsonl"];
        let (c0, whole) = export(&[&base[..], &["--jobs", "1"]].concat());
        let (c1, split) = export(&[&base[..], &["--jobs", "2", "--split-bytes", "32K"]].concat());
        assert_eq!((c0, c1), (1, 1), "{table}");
        assert!(!whole.is_empty());
        assert!(split == whole, "{table}: split differs at the fault");
    }
}

/// The paths of the real demos.
fn real_demos() -> Vec<PathBuf> {
    common::datasets()
        .map(|ds| common::files_with_ext(&ds.join("demos"), "demo"))
        .unwrap_or_default()
}
