//! Linear time and bounded memory of the demo analysis (`demos index`,
//! `demos dump --chat`) on generated worst cases.
//!
//! Each table the analysis keeps has a test that doubles a hostile input
//! and checks that the operation counts of that table ([`Probe`]: elements
//! compared in scans, hash or index lookups) at most about double too; a
//! linear search through a growing list would make them quadruple. Wall
//! time is never measured. The demos are written with the crate's own
//! `DemoWriter`.
//!
//! Then: every warning list is capped by the warning limit, capped player
//! lists warn, `demos index` keeps no chat lines, and the counting rule at a
//! stream error or at `--max-ticks` (complete ticks only) on real demos.

use std::io::Cursor;

use teebatch::backend::Backend;
use teebatch::codec::snapshot::uuid::uuid_to_ints;
use teebatch::codec::snapshot::{item_key, v06, Protocol, Snapshot};
use teebatch::codec::varint;
use teebatch::demo::analysis::{
    Analysis, AnalysisVisitor, AnalysisWarningKind, Probe, StageWarnings, TrackerConfig,
};
use teebatch::demo::players::PlayerWarningKind;
use teebatch::demo::stream::{visit, Decoder, StreamError, Visitor};
use teebatch::demo::write::{DemoHeader, DemoVersion, DemoWriter};
use teebatch::demo::{ChunkKind, Demo};
use teebatch::map::strings::to_i32_string;
use teebatch::warn::Discard;
use uuid::Uuid;

use crate::common;

/// A version-6 protocol-0.6 demo written by `DemoWriter`.
fn writer_demo(f: impl FnOnce(&mut DemoWriter<Cursor<Vec<u8>>>)) -> Vec<u8> {
    let header = DemoHeader::new(DemoVersion::V6, Protocol::V06, "scaling", b"");
    let mut w = DemoWriter::new_vec(&header).unwrap();
    f(&mut w);
    w.finish_vec().unwrap()
}

/// Runs the `demos index` analysis over `bytes`.
fn analyse_limited(
    bytes: &[u8],
    config: TrackerConfig,
    max_warnings: usize,
) -> (Analysis, Probe, Option<StreamError>, StageWarnings) {
    let demo = Demo::parse(bytes).unwrap();
    let mut dec = Decoder::new(Backend::Simd);
    let mut warnings = StageWarnings::new(max_warnings);
    let v = AnalysisVisitor::with_config(Protocol::V06, config, &mut warnings);
    let out = visit(&demo, &mut dec, v);
    let probe = out.visitor.probe();
    (out.visitor.finish(), probe, out.error, warnings)
}

fn analyse(bytes: &[u8]) -> (Analysis, Probe) {
    let (a, p, e, _) = analyse_limited(bytes, TrackerConfig::default(), 1024);
    assert_eq!(e, None);
    (a, p)
}

/// `ops(2n) / ops(n)` must stay near 2 (a quadratic table gives 4).
fn assert_linear(what: &str, small: u64, large: u64) {
    assert!(small > 0, "{what}: no operations counted");
    let ratio = large as f64 / small as f64;
    assert!(
        (1.8..=2.3).contains(&ratio),
        "{what}: {small} -> {large} operations when the input doubled (x{ratio:.2})"
    );
}

/// `n` messages of `n` distinct unknown game ids, 64 per tick.
fn many_message_kinds(n: u32) -> Vec<u8> {
    writer_demo(|w| {
        w.tick(100, true).unwrap();
        w.full_snapshot(&Snapshot::new()).unwrap();
        let mut tick = 100;
        for i in 0..n {
            if i % 64 == 63 {
                tick += 1;
                w.tick(tick, false).unwrap();
            }
            let mut b = Vec::new();
            varint::pack_int(((1000 + i) << 1) as i32, &mut b);
            w.message(&b).unwrap();
        }
    })
}

#[test]
fn message_kinds_scale_linearly() {
    let (a, small) = analyse(&many_message_kinds(4000));
    assert_eq!(a.messages.by_name.len(), 4000);
    assert_eq!(a.messages.by_name.get("game:#4999"), Some(&1));
    let (b, large) = analyse(&many_message_kinds(8000));
    assert_eq!(b.messages.by_name.len(), 8000);
    assert_linear("message kinds", small.message_kinds, large.message_kinds);
    assert_eq!(large.message_kinds, 8000);
}

/// A UUID made from a counter (never a known one).
fn uuid_n(n: u64) -> Uuid {
    Uuid::from_u128(0x5eed_0000_0000_0000_0000_0000_0000_0000 | u128::from(n))
}

/// `ticks` snapshots, each declaring 250 UUIDs never seen before under the
/// type numbers 0x4000.. (the list of UUIDs grows for the whole demo).
fn growing_declarations(ticks: u32) -> Vec<u8> {
    writer_demo(|w| {
        for t in 0..ticks {
            let mut s = Snapshot::new();
            for k in 0..250u16 {
                let u = uuid_n(u64::from(t) * 250 + u64::from(k));
                s.push(item_key(0, 0x4000 + k), &uuid_to_ints(&u)).unwrap();
            }
            w.record_snapshot(100 + t as i32, &s).unwrap();
        }
    })
}

#[test]
fn uuid_declarations_scale_linearly() {
    let (a, small) = analyse(&growing_declarations(40));
    let decl = &a.stats.item_types_ordinal[&0];
    assert_eq!(decl.occurrences, 40 * 250);
    assert!(a.stats.item_types_uuid.is_empty());
    let (_, large) = analyse(&growing_declarations(80));
    assert_linear(
        "UUID declarations",
        small.uuid_declarations,
        large.uuid_declarations,
    );
}

/// One keyframe declaring `n` UUID types with one item each (type i has
/// i % 7 + 1 ints), then 50 ticks each with an empty delta: every tick
/// reconstructs (and counts) the `2n` items again.
fn many_uuid_types(n: u16) -> Vec<u8> {
    writer_demo(|w| {
        let mut s = Snapshot::new();
        for k in 0..n {
            s.push(item_key(0x4000 + k, 1), &vec![7; usize::from(k % 7) + 1])
                .unwrap();
            s.push(item_key(0, 0x4000 + k), &uuid_to_ints(&uuid_n(k.into())))
                .unwrap();
        }
        w.tick(100, true).unwrap();
        w.full_snapshot(&s).unwrap();
        for t in 1..=50 {
            w.tick(100 + t, false).unwrap();
            w.delta_snapshot(&s, true).unwrap();
        }
    })
}

#[test]
fn uuid_item_types_scale_linearly() {
    let (a, small) = analyse(&many_uuid_types(250));
    assert_eq!(a.stats.snapshots_reconstructed, 51);
    let uuid = &a.stats.item_types_uuid;
    assert_eq!(uuid.len(), 250);
    let key = uuid_n(3).hyphenated().to_string();
    assert_eq!(uuid[&key].occurrences, 51);
    assert_eq!(
        uuid[&key].sizes_ints.iter().copied().collect::<Vec<_>>(),
        [4]
    );
    let (_, large) = analyse(&many_uuid_types(500));
    assert_linear("UUID item types", small.uuid_items, large.uuid_items);
    assert_linear("item sizes", small.item_sizes, large.item_sizes);
}

/// One keyframe with `n` items of the free-size type 100, all of distinct
/// sizes (1..=n ints), then 50 empty deltas.
fn many_item_sizes(n: u16) -> Vec<u8> {
    writer_demo(|w| {
        let mut s = Snapshot::new();
        for k in 0..n {
            s.push(item_key(100, k), &vec![1; usize::from(k) + 1])
                .unwrap();
        }
        w.tick(100, true).unwrap();
        w.full_snapshot(&s).unwrap();
        for t in 1..=50 {
            w.tick(100 + t, false).unwrap();
            w.delta_snapshot(&s, true).unwrap();
        }
    })
}

#[test]
fn item_sizes_scale_linearly() {
    let (a, small) = analyse(&many_item_sizes(80));
    let t = &a.stats.item_types_ordinal[&100];
    assert_eq!(t.occurrences, 80 * 51);
    assert_eq!(t.sizes_ints.len(), 80);
    assert_eq!(t.sizes_ints.iter().max(), Some(&80));
    let (_, large) = analyse(&many_item_sizes(160));
    assert_linear("item sizes", small.item_sizes, large.item_sizes);
}

/// One keyframe with `n` 0.6 player-info items of client ids 256.. (past
/// the small-id table), then 200 tick markers replaying it.
fn many_players(n: u16) -> Vec<u8> {
    writer_demo(|w| {
        let mut s = Snapshot::new();
        for k in 0..n {
            s.push(
                item_key(v06::PLAYER_INFO, k),
                &[0, i32::from(256 + k), 0, 1, 2],
            )
            .unwrap();
        }
        w.tick(100, true).unwrap();
        w.full_snapshot(&s).unwrap();
        for t in 1..200 {
            w.tick(100 + t, false).unwrap();
        }
    })
}

#[test]
fn players_scale_linearly() {
    let (a, small, e, aw) = analyse_limited(&many_players(400), TrackerConfig::default(), 1024);
    assert_eq!(e, None);
    // The tracker keeps 256 players and warns once for each refused id.
    assert_eq!(a.players.len(), 256);
    assert_eq!(a.players[0].client_id, 256);
    assert_eq!(a.players[0].ticks_present, 200);
    let refused = aw.players.iter();
    let refused = refused
        .filter(|w| w.kind == AnalysisWarningKind::Player(PlayerWarningKind::TooManyPlayers));
    assert_eq!(refused.count(), 400 - 256);
    let (_, large) = analyse(&many_players(800));
    assert_linear("players", small.players, large.players);
}

/// 0.6 `obj_client_info` ints for a name (DDNet `StrToInts`), clan "",
/// skin "default".
fn client_info(name: &str) -> Vec<i32> {
    let ints = to_i32_string;
    let mut v = ints(name, 4);
    v.extend(ints("", 3));
    v.push(0);
    v.extend(ints("default", 6));
    v.extend([0, 0, 0]);
    v
}

/// Player 0 with a new name and team on each of `ticks` ticks.
fn renaming_player(ticks: i32) -> Vec<u8> {
    writer_demo(|w| {
        for t in 0..ticks {
            let mut s = Snapshot::new();
            s.push(
                item_key(v06::CLIENT_INFO, 0),
                &client_info(&format!("n{t}")),
            )
            .unwrap();
            s.push(item_key(v06::PLAYER_INFO, 0), &[0, 0, t % 2, 0, 0])
                .unwrap();
            w.record_snapshot(100 + t, &s).unwrap();
        }
    })
}

/// Names and team changes are capped per player with one warning each,
/// and the string searches stay linear in the ticks.
#[test]
fn player_lists_are_capped_with_a_warning() {
    let config = TrackerConfig {
        max_team_changes: 8,
        ..TrackerConfig::default()
    };
    let (a, small, _, aw) = analyse_limited(&renaming_player(300), config, 1024);
    let p = &a.players[0];
    assert_eq!(p.names.len(), config.max_strings);
    assert_eq!(p.names[0], "n0");
    assert_eq!(p.teams.len(), 8);
    assert_eq!(p.team_changes_dropped, 300 - 8);
    let kinds: Vec<_> = aw.players.iter().map(|w| w.kind.kind()).collect();
    assert_eq!(kinds, ["too_many_team_changes", "too_many_strings"]);
    let (_, large, _, _) = analyse_limited(&renaming_player(600), config, 1024);
    assert_linear("player names", small.players, large.players);
}

/// A keyframe of 1000 character items of 1 int (0.6 needs 3), then 3000
/// tick markers: 3 million short-item warnings, of which the limit keeps
/// `max` and one `too_many_warnings`.
#[test]
fn player_warnings_are_capped() {
    let d = writer_demo(|w| {
        let mut s = Snapshot::new();
        for k in 0..1000 {
            s.push(item_key(v06::CHARACTER, k), &[1]).unwrap();
        }
        w.tick(100, true).unwrap();
        w.full_snapshot(&s).unwrap();
        for t in 1..3000 {
            w.tick(100 + t, false).unwrap();
        }
    });
    for max in [0, 5, 1024] {
        let (_, _, e, aw) = analyse_limited(&d, TrackerConfig::default(), max);
        assert_eq!(e, None);
        let w = &aw.players;
        assert_eq!(w.total(), 3_000_000);
        assert_eq!(w.len(), max + 1);
        assert!(w[..max].iter().all(|w| w.kind.kind() == "short_item"));
        let last = &w[max];
        assert_eq!(last.kind, AnalysisWarningKind::TooManyWarnings);
        assert_eq!(last.stage.stage().name(), "players");
        // The first warning left out: tick 100 (chunk 0) while max < 1000.
        assert_eq!(
            (last.chunk, last.tick),
            (if max < 1000 { 0 } else { 2 }, 100 + i32::from(max >= 1000))
        );
    }
}

/// 0.6 `Sv_Chat` (team 0, client `id`) with a control character.
fn chat_message(id: i32) -> Vec<u8> {
    let mut b = Vec::new();
    varint::pack(&[3 << 1, 0, id], &mut b);
    b.extend_from_slice(b"a\x01b\0");
    b
}

/// 3000 chat lines with a control character each: counted, never stored
/// by `demos index`'s analysis; their warnings capped; an undecodable
/// message is a warning naming its chunk and the reason.
#[test]
fn chat_lines_are_counted_not_kept() {
    let mut undecodable_at = 0;
    let d = writer_demo(|w| {
        w.tick(100, true).unwrap();
        w.full_snapshot(&Snapshot::new()).unwrap();
        // A string longer than DDNet's limit: not a message.
        let mut long = Vec::new();
        varint::pack(&[3 << 1, 0, 0], &mut long);
        long.extend(std::iter::repeat_n(b'x', 4000));
        long.push(0);
        undecodable_at = w.position() as usize;
        w.message(&long).unwrap();
        for i in 0..3000 {
            w.message(&chat_message(i % 64)).unwrap();
        }
    });
    let demo = Demo::parse(&d).unwrap();
    let mut aw = StageWarnings::new(1024);
    let no_chat = TrackerConfig {
        keep_chat: false,
        ..TrackerConfig::default()
    };
    let mut v = AnalysisVisitor::with_config(Protocol::V06, no_chat, &mut aw);
    let mut dec = Decoder::new(Backend::Simd);
    let mut s = dec.stream(&demo, Discard);
    while let Some(ev) = s.next_event() {
        v.visit(&ev.unwrap());
        assert_eq!(v.drain_chat().count(), 0);
    }
    let a = v.finish();
    assert_eq!(a.messages.chat_lines, 3000);
    assert_eq!(a.messages.undecodable, 1);
    let w = &aw.message;
    assert_eq!(w.len(), 1025);
    assert_eq!(w[0].kind.kind(), "undecodable.string_too_long");
    assert_eq!(
        (w[0].section(), w[0].offset),
        ("chunk 2".to_owned(), undecodable_at)
    );
    assert_eq!(w[1].kind.kind(), "control_characters");
    assert_eq!(w[1].section(), "chunk 3");
    assert_eq!(w[1024].kind.kind(), "too_many_warnings");

    // Kept for `dump --chat`: handed out one by one as they are decoded.
    let config = TrackerConfig::default();
    assert!(config.keep_chat);
    let mut v = AnalysisVisitor::with_config(Protocol::V06, config, Discard);
    let mut s = dec.stream(&demo, Discard);
    let mut lines = 0;
    while let Some(ev) = s.next_event() {
        v.visit(&ev.unwrap());
        let n = v.drain_chat().count();
        assert!(n <= 1);
        lines += n;
    }
    assert_eq!(lines, 3000);
}

/// (index, tick) of every tick marker, and the indexes of snapshot and
/// delta chunks, from the container (not the stream).
fn chunk_layout(demo: &Demo<'_>) -> (Vec<(usize, i32)>, Vec<usize>) {
    let (mut ticks, mut snaps) = (Vec::new(), Vec::new());
    for c in demo.chunks() {
        let c = c.unwrap();
        match c.kind {
            ChunkKind::Tick { tick, .. } => ticks.push((c.index, tick)),
            ChunkKind::Snapshot(_) | ChunkKind::Delta(_) => snaps.push(c.index),
            _ => {}
        }
    }
    (ticks, snaps)
}

/// `demos index` on a real demo cut by `--max-ticks` and by truncation:
/// `ticks`, `last_tick` and `snapshots_reconstructed` count the same
/// complete ticks.
#[test]
fn counts_at_max_ticks_and_truncation_agree() {
    let Some(ds) = common::datasets() else { return };
    let path = ds.join("demos/gigachad_gameplay.demo");
    let bytes = std::fs::read(&path).unwrap();
    let demo = Demo::parse(&bytes).unwrap();
    let (ticks, snaps) = chunk_layout(&demo);
    assert!(ticks.len() > 300);
    // Snapshot chunks before the marker of tick number `n` (0-based).
    let snaps_before = |n: usize| snaps.iter().filter(|&&i| i < ticks[n].0).count();

    // --max-ticks 200: the 201st marker is refused; 200 ticks complete.
    let p = path.to_str().unwrap();
    let r = &common::run_records(&["demos", "index", "-q", "--max-ticks", "200", p], 1)[0];
    assert_eq!(r["error"]["kind"], "too_many_ticks");
    assert_eq!(r["error"]["section"], format!("chunk {}", ticks[200].0));
    assert_eq!(r["ticks"], 200);
    assert_eq!(r["last_tick"], ticks[199].1);
    assert_eq!(r["snapshots_reconstructed"], snaps_before(200));

    // Cut inside a snapshot chunk of tick number 250: 249 ticks complete,
    // the snapshots of tick 250 before the cut are not counted.
    let cut_chunk = *snaps.iter().find(|&&i| i > ticks[250].0).unwrap();
    let n = ticks.iter().filter(|t| t.0 < cut_chunk).count() - 1;
    let c = demo
        .chunks()
        .map(Result::unwrap)
        .find(|c| c.index == cut_chunk)
        .unwrap();
    let payload = c.kind.payload().unwrap();
    let start = payload.as_ptr() as usize - bytes.as_ptr() as usize;
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.demo");
    std::fs::write(&cut, &bytes[..start + payload.len() / 2]).unwrap();
    let r = &common::run_records(&["demos", "index", "-q", cut.to_str().unwrap()], 1)[0];
    assert_eq!(r["error"]["section"], format!("chunk {cut_chunk}"), "{r}");
    assert_eq!(r["ticks"], n);
    assert_eq!(r["last_tick"], ticks[n - 1].1);
    assert_eq!(r["snapshots_reconstructed"], snaps_before(n));
    // Every snapshot chunk decoded is still in `chunks`.
    let c = &r["chunks"];
    let decoded = c["snapshot"].as_u64().unwrap() + c["snapshot_delta"].as_u64().unwrap();
    assert_eq!(
        decoded as usize,
        snaps.iter().filter(|&&i| i < cut_chunk).count()
    );
}

/// `demos export` of a demo split at keyframes: a worker reads the file once
/// for all the segments it takes, not once per segment (which makes the bytes
/// read grow with the square of the demo's size under the default `--mmap
/// never`). The file is deleted after the first segment: the others still
/// come from the worker's buffer, and all segments together give the rows
/// of the unsplit demo. The buffer is shrunk after the demo.
#[test]
fn split_export_reads_each_demo_once_per_worker() {
    use teebatch::batch::export::{export_input, plan_units, ExportOptions, ReadBuf};
    use teebatch::batch::{Input, MmapMode};
    use teebatch::demo::export::Table;
    use teebatch::limits::Limits;
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.demo");
    std::fs::copy(ds.join("demos/ddnet__Multeasymap_bench.demo"), &path).unwrap();
    let inputs = vec![Input::File {
        size: std::fs::metadata(&path).unwrap().len(),
        path: path.clone(),
    }];
    // `game`: a table split at keyframes (`positions` is not).
    let mut opts = ExportOptions::new(Table::Game);
    opts.mmap = MmapMode::Never;
    let rows = |opts: &ExportOptions, buf: &mut ReadBuf, unit: &teebatch::batch::export::Unit| {
        let mut decoder = Decoder::new(Backend::default());
        let mut n = 0u64;
        let mut sink = |b: arrow_array::RecordBatch| {
            n += b.num_rows() as u64;
            true
        };
        let done = export_input(
            &mut decoder,
            buf,
            unit.input,
            &inputs[unit.input],
            unit.segment.as_ref(),
            opts,
            &mut sink,
        );
        assert!(done.error.is_none(), "{:?}", done.error);
        assert_eq!(done.rows, n);
        n
    };
    let whole = plan_units(&inputs, &opts);
    assert_eq!(whole.len(), 1);
    let want = rows(&opts, &mut ReadBuf::default(), &whole[0]);
    assert!(want > 1000, "{want} rows");

    opts.split_bytes = 64 << 10;
    let units = plan_units(&inputs, &opts);
    assert!(units.len() >= 8, "{} segments", units.len());
    let mut buf = ReadBuf::default();
    let mut got = rows(&opts, &mut buf, &units[0]);
    std::fs::remove_file(&path).unwrap();
    for unit in &units[1..] {
        got += rows(&opts, &mut buf, unit);
    }
    assert_eq!(got, want);

    // After the demo, the buffer keeps at most the worker limit.
    let mut buf = ReadBuf::default();
    let huge = dir.path().join("huge.demo");
    std::fs::write(&huge, vec![0u8; 80 << 20]).unwrap();
    let input = Input::File {
        size: 80 << 20,
        path: huge,
    };
    let mut sink = |_: arrow_array::RecordBatch| true;
    let done = export_input(
        &mut Decoder::new(Backend::default()),
        &mut buf,
        0,
        &input,
        None,
        &opts,
        &mut sink,
    );
    assert!(done.error.is_some());
    assert!(buf.capacity() >= 80 << 20);
    buf.release();
    assert!(buf.capacity() <= Limits::KEEP_WORKER_BUFFER_BYTES);
}
