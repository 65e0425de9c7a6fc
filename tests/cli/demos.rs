//! The `teebatch demos` commands against the real demos and their golden
//! files, and the batch conventions on broken demos.

use crate::common::{self, records, run_records, teebatch};
use serde_json::Value;

/// Header, embedded map, chunk counts and tick fields of `demos index`
/// equal the independent decoder's summary.json for every real demo.
#[test]
fn demos_index_matches_golden_summaries() {
    let Some(ds) = common::datasets() else { return };
    let demos = ds.join("demos");
    let recs = run_records(&["demos", "index", "-q", demos.to_str().unwrap()], 0);
    assert_eq!(recs.len(), 10);
    for r in &recs {
        let name = r["name"].as_str().unwrap();
        let g: Value = serde_json::from_str(
            &std::fs::read_to_string(ds.join(format!("golden/{name}.summary.json"))).unwrap(),
        )
        .unwrap();
        let (h, gh) = (&r["header"], &g["header"]);
        assert_eq!(h["version"], gh["version_number"], "{name}");
        for k in [
            "net_version",
            "map_name",
            "map_size",
            "map_crc",
            "type",
            "length",
            "timeline_markers",
        ] {
            assert_eq!(h[k], gh[k], "{name}: header {k}");
        }
        // The raw text as golden, and as ISO 8601: `2025-10-04_11-03-42`
        // is `2025-10-04T11:03:42`.
        let raw = gh["timestamp"].as_str().unwrap();
        assert_eq!(h["timestamp_raw"], raw, "{name}");
        let (date, time) = raw.split_once('_').unwrap();
        assert_eq!(
            h["timestamp"],
            format!("{date}T{}", time.replace('-', ":")),
            "{name}"
        );
        assert_eq!(h["map_sha256"], gh["map_sha256_header"], "{name}");
        assert_eq!(r["size"], g["file_size"], "{name}");
        assert_eq!(r["sha256"], g["file_sha256"], "{name}");
        let (m, gm) = (&r["map"], &g["embedded_map"]);
        for k in [
            "size",
            "crc32",
            "sha256",
            "crc32_matches_header",
            "sha256_matches_header",
        ] {
            assert_eq!(m[k], gm[k], "{name}: map {k}");
        }
        let gd = &gm["libtw2_datafile"];
        for k in ["num_item_types", "num_items", "num_data"] {
            assert_eq!(m[k], gd[k], "{name}: map {k}");
        }
        assert_eq!(r["chunks"], g["chunks"], "{name}");
        // The one container oddity in the real demos: non-zero padding
        // after the timeline markers of the DDNet demo (header byte 180).
        let expected = if name == "ddnet__Multeasymap_bench" {
            serde_json::json!([{
                "stage": "demo",
                "kind": "timeline_marker_padding",
                "section": "timeline markers",
                "offset": 180
            }])
        } else {
            serde_json::json!([])
        };
        assert_eq!(r["warnings"], expected, "{name}");
        assert_eq!(r["first_tick"], g["first_tick"], "{name}");
        assert_eq!(r["last_tick"], g["last_tick"], "{name}");
        assert_eq!(r["ticks"], g["chunks"]["tick_markers"], "{name}");
        assert_eq!(
            r["snapshots_reconstructed"], g["snapshots_reconstructed"],
            "{name}"
        );
        let dur = (g["last_tick"].as_f64().unwrap() - g["first_tick"].as_f64().unwrap()) / 50.0;
        assert_eq!(r["duration_s"].as_f64(), Some(dur), "{name}");
        // Item types: a list of {type_id, uuid, name, occurrences,
        // sizes_ints}; golden keys are ordinal ids and `uuid (Name)`.
        let types = r["item_types"].as_array().unwrap();
        let counts = |t: &Value| serde_json::json!({"occurrences": t["occurrences"], "sizes_ints": t["sizes_ints"]});
        let ordinal = g["item_types_ordinal"].as_object().unwrap();
        let uuid = g["item_types_uuid"].as_object().unwrap();
        assert_eq!(types.len(), ordinal.len() + uuid.len(), "{name}");
        for (k, v) in ordinal {
            let ours = types
                .iter()
                .find(|t| t["type_id"].as_u64().map(|i| i.to_string()).as_deref() == Some(k))
                .unwrap_or_else(|| panic!("{name}: type {k}"));
            assert!(ours["uuid"].is_null() && ours["name"].is_string());
            assert_eq!(&counts(ours), v, "{name}: type {k}");
        }
        for (k, v) in uuid {
            let ours = types
                .iter()
                .find(|t| {
                    format!(
                        "{} ({})",
                        t["uuid"].as_str().unwrap_or(""),
                        t["name"].as_str().unwrap()
                    ) == *k
                })
                .unwrap_or_else(|| panic!("{name}: {k}"));
            assert!(ours["type_id"].is_null());
            assert_eq!(&counts(ours), v, "{name}: {k}");
        }
        assert!(r.get("error").is_none(), "{name}");
        // Every message chunk decodes.
        assert_eq!(r["messages"]["undecodable"], 0, "{name}");
        let by_name = r["messages"]["by_name"].as_array().unwrap();
        let total: u64 = by_name.iter().map(|v| v["count"].as_u64().unwrap()).sum();
        let names: Vec<&str> = by_name
            .iter()
            .map(|v| v["name"].as_str().unwrap())
            .collect();
        assert!(
            names.is_sorted() && names.iter().all(|n| n.contains(':')),
            "{names:?}"
        );
        assert_eq!(total, g["chunks"]["message"].as_u64().unwrap(), "{name}");
    }
    // DDNet's "no time yet" score -9999 is null, the raw value kept; other
    // scores are as sent.
    let players: Vec<&Value> = recs
        .iter()
        .flat_map(|r| r["players"].as_array().unwrap())
        .collect();
    let sentinel = players.iter().filter(|p| p["score_raw"] == -9999).count();
    assert!(
        sentinel > 0,
        "the real demos have race players without a time"
    );
    for p in &players {
        if p["score_raw"] == -9999 || p["score_raw"].is_null() {
            assert!(p["score"].is_null(), "{p}");
        } else {
            assert_eq!(p["score"], p["score_raw"], "{p}");
        }
    }
    // Known facts: the 064 join/chat demo has one player and one chat line.
    let r = recs
        .iter()
        .find(|r| r["name"].as_str().unwrap().contains("064_ddnet_join_chat"))
        .unwrap();
    assert_eq!(
        r["players"][0]["names"],
        serde_json::json!(["nameless tee"])
    );
    assert_eq!(r["messages"]["chat_lines"], 1);
    let r = recs
        .iter()
        .find(|r| r["name"] == "ddnet__Multeasymap_bench")
        .unwrap();
    assert_eq!(r["messages"]["chat_lines"], 40);
    assert_eq!(r["messages"]["kills"], 30);
}

fn golden_ticks(ds: &std::path::Path, name: &str) -> Vec<(i32, String)> {
    std::fs::read_to_string(ds.join(format!("golden/{name}.ticks.tsv")))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].parse().unwrap(),
                format!("{}\t{}\t{}", f[0], f[1], f[2]),
            )
        })
        .collect()
}

/// A slice keeps the ticks, item counts and checksums of its range, starts
/// with a keyframe, and (with --no-chat) drops exactly the chat lines.
#[test]
fn slice_keeps_ticks_and_checksums_of_its_range() {
    let Some(ds) = common::datasets() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (name, from, to) in [
        ("ddnet__Multeasymap_bench", 2_675_003, 2_676_500),
        ("gigachad_gameplay", 2_063_000, 2_063_824),
        (
            "ChillerDragon-traffic-dumps__075_tw_dm1_join_chat_walk_disconnect__11fb9342__client",
            500,
            700,
        ),
    ] {
        let src = ds.join(format!("demos/{name}.demo"));
        let outp = dir.path().join(format!("{name}.demo"));
        for no_chat in [false, true] {
            let mut args = vec![
                "demos",
                "slice",
                src.to_str().unwrap(),
                "-o",
                outp.to_str().unwrap(),
            ];
            let (f, t) = (from.to_string(), to.to_string());
            args.extend(["--from", &f, "--to", &t]);
            if no_chat {
                args.push("--no-chat");
            }
            let o = teebatch(&args);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{name}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let d = teebatch(&["demos", "dump", "--ticks", outp.to_str().unwrap()]);
            assert_eq!(d.status.code(), Some(0));
            let got: Vec<String> = String::from_utf8(d.stdout)
                .unwrap()
                .lines()
                .skip(1)
                .map(|l| l.rsplit_once('\t').unwrap().0.to_string())
                .collect();
            let want: Vec<String> = golden_ticks(&ds, name)
                .into_iter()
                .filter(|(t, _)| (from..=to).contains(t))
                .map(|(_, l)| l)
                .collect();
            assert!(!want.is_empty());
            assert_eq!(got, want, "{name}");
            let chat = |p: &std::path::Path| -> Vec<String> {
                let o = teebatch(&["demos", "dump", "--chat", p.to_str().unwrap()]);
                String::from_utf8(o.stdout)
                    .unwrap()
                    .lines()
                    .skip(1)
                    .map(String::from)
                    .collect()
            };
            let sliced_chat = chat(&outp);
            let orig_chat: Vec<String> = chat(&src)
                .into_iter()
                .filter(|l| {
                    (from..=to).contains(&l.split('\t').next().unwrap().parse::<i32>().unwrap())
                })
                .collect();
            if no_chat {
                assert!(sliced_chat.is_empty(), "{name}");
            } else {
                // Names can be unknown at the slice's first tick only if the
                // sender joined before it; compare tick, id and text.
                let strip = |v: &[String]| -> Vec<String> {
                    v.iter()
                        .map(|l| {
                            let f: Vec<&str> = l.split('\t').collect();
                            format!("{}\t{}\t{}", f[0], f[1], f[4])
                        })
                        .collect()
                };
                assert_eq!(strip(&sliced_chat), strip(&orig_chat), "{name}");
            }
        }
    }
}

#[test]
fn embedded_demos_are_reproducible_and_indexed_by_default() {
    use teebatch::batch::embedded::{DEMOS, DEMOS_SEED};
    use teebatch::synth::demo::{generate, SynthParams};
    assert_eq!(DEMOS.len(), 6);
    for (i, (name, bytes)) in DEMOS.iter().enumerate() {
        let fresh = generate(&SynthParams::collection(DEMOS_SEED, i as u32));
        assert!(fresh == *bytes, "{name} differs from a fresh generation");
    }
    let recs = run_records(&["demos", "index", "-q"], 0);
    assert_eq!(recs.len(), 6);
    for (i, r) in recs.iter().enumerate() {
        let p = SynthParams::collection(DEMOS_SEED, i as u32);
        assert_eq!(r["path"], format!("embedded:{}", DEMOS[i].0));
        assert!(
            r["players"].as_array().unwrap().len() >= p.players,
            "{}",
            DEMOS[i].0
        );
        assert_eq!(
            r["last_tick"].as_i64().unwrap() - r["first_tick"].as_i64().unwrap(),
            i64::from(p.duration_ticks)
        );
        assert!(r["snapshots_reconstructed"].as_u64().unwrap() > 0);
        assert!(r.get("error").is_none());
    }
}

/// Real demos mixed with truncated, corrupted, empty and foreign files:
/// good demos are indexed exactly as alone, bad ones have an error with a
/// section and an offset plus what was decoded before the fault, exit 1,
/// and the output is the same for 1 and 2 jobs.
#[test]
fn broken_demos_are_reported_and_the_batch_goes_on() {
    let Some(ds) = common::datasets() else { return };
    let good = std::fs::read(ds.join("demos/gigachad_gameplay.demo")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    std::fs::write(p("good.demo"), &good).unwrap();
    // Cut in the chunks (after the embedded map) and inside the map.
    let chunks_at = teebatch::demo::Demo::parse(&good).unwrap().chunks_offset();
    let cut = chunks_at + (good.len() - chunks_at) / 2;
    std::fs::write(p("truncated.demo"), &good[..cut]).unwrap();
    std::fs::write(p("map cut.demo"), &good[..chunks_at - 1000]).unwrap();
    let mut flipped = good.clone();
    let start = chunks_at + (good.len() - chunks_at) / 4;
    for i in (start..good.len()).step_by(1013) {
        flipped[i] ^= 0x55;
    }
    std::fs::write(p("flipped.demo"), &flipped).unwrap();
    std::fs::write(p("empty.demo"), b"").unwrap();
    std::fs::write(
        p("a map.demo"),
        std::fs::read(ds.join("maps/ddnet/coverage.map")).unwrap(),
    )
    .unwrap();

    let d = dir.path().to_str().unwrap();
    let one = teebatch(&["demos", "index", "-q", "-j", "1", d]);
    let two = teebatch(&["demos", "index", "-q", "-j", "2", "--mmap", "always", d]);
    assert_eq!(one.status.code(), Some(1));
    assert!(one.stdout == two.stdout, "jobs/mmap change the output");
    let recs = records(&one);
    assert_eq!(recs.len(), 6);
    let get = |n: &str| {
        recs.iter()
            .find(|r| r["path"].as_str().unwrap().ends_with(n))
            .unwrap()
    };

    let alone = records(&teebatch(&[
        "demos",
        "index",
        "-q",
        ds.join("demos/gigachad_gameplay.demo").to_str().unwrap(),
    ]));
    let strip = |r: &Value| {
        let mut r = r.clone();
        let o = r.as_object_mut().unwrap();
        o.remove("path");
        o.remove("name");
        r
    };
    assert_eq!(strip(get("good.demo")), strip(&alone[0]));

    let t = get("truncated.demo");
    assert_eq!(t["error"]["stage"], "stream", "{t}");
    assert!(t["error"]["section"]
        .as_str()
        .unwrap()
        .starts_with("chunk "));
    assert!(t["error"]["offset"].as_u64().unwrap() <= cut as u64);
    assert!(t["ticks"].as_u64().unwrap() > 0, "decoded prefix kept: {t}");
    assert!(t["ticks"].as_u64() < get("good.demo")["ticks"].as_u64());
    assert_eq!(t["header"], get("good.demo")["header"]);

    let f = get("flipped.demo");
    assert!(f["error"].is_object(), "{f}");
    assert!(f["snapshots_reconstructed"].as_u64().unwrap() > 0);

    let m = get("map cut.demo");
    assert_eq!(m["error"]["section"], "map");
    assert_eq!(m["error"]["kind"], "unexpected_end");
    assert_eq!(m["header"], get("good.demo")["header"], "header kept");
    assert_eq!(m["map"]["crc32_matches_header"], false);
    assert_eq!(get("empty.demo")["error"]["kind"], "unexpected_end");
    assert_eq!(get("a map.demo")["error"]["kind"], "bad_magic");
}

/// A 0.7 demo whose net version string is not one of the two known ones
/// (its hash patched): snapshots are decoded with DDNet's fallback (0.7 for
/// `0.7…`), and `demos index` reads its messages and objects and names its
/// items the same way, so everything decoded equals the original's; only
/// the header's protocol and a warning say that the version was guessed.
#[test]
fn unknown_07_net_version_is_analysed_as_07() {
    let Some(ds) = common::datasets() else { return };
    let name = "ChillerDragon-traffic-dumps__075_tw_tinycave_other_player_join_round_start__6334a1ea__client_foo.demo";
    let good = std::fs::read(ds.join("demos").join(name)).unwrap();
    let known = b"0.7 802f1be60a05665f";
    let at = good
        .windows(known.len())
        .position(|w| w == known)
        .expect("the 0.7 net version in the header");
    assert!(at < 64, "net version found at {at}, not in the header");
    let mut patched = good.clone();
    patched[at..at + known.len()].copy_from_slice(b"0.7 0123456789abcdef");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.demo"), &good).unwrap();
    std::fs::write(dir.path().join("b.demo"), &patched).unwrap();
    let recs = run_records(&["demos", "index", "-q", dir.path().to_str().unwrap()], 0);
    let [a, b] = &recs[..] else {
        panic!("{} records", recs.len())
    };
    assert_eq!(a["header"]["protocol"], "0.7");
    assert_eq!(b["header"]["protocol"], Value::Null);
    for field in ["players", "messages", "item_types", "chunks", "ticks"] {
        assert_eq!(a[field], b[field], "{field}");
    }
    let names: Vec<&str> = b["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["names"][0].as_str().unwrap())
        .collect();
    assert_eq!(names, ["foo", "bar"]);
    assert_eq!(a["warnings"], serde_json::json!([]));
    let warnings = b["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["kind"], "unknown_net_version", "{warnings:?}");
}

/// `demos index --max-ticks` and `--max-warnings` reach the decoder: a
/// demo over the tick limit fails with `too_many_ticks` after keeping what
/// it decoded, and a zero warning limit leaves one `too_many_warnings`.
#[test]
fn index_limits_from_the_command_line() {
    let Some(ds) = common::datasets() else { return };
    let demos = ds.join("demos");
    let path = |n: &str| demos.join(n).to_str().unwrap().to_owned();
    let long = path("gigachad_gameplay.demo");
    let full = run_records(&["demos", "index", "-q", &long], 0);
    assert!(full[0]["ticks"].as_u64().unwrap() > 100);
    let cut = run_records(&["demos", "index", "-q", "--max-ticks", "100", &long], 1);
    let r = &cut[0];
    assert_eq!(r["error"]["stage"], "stream");
    assert_eq!(r["error"]["kind"], "too_many_ticks");
    // Exactly the first 100 ticks are kept: the 101st marker is refused
    // and completes the 100th.
    assert_eq!(r["ticks"], 100);
    assert_eq!(r["first_tick"], full[0]["first_tick"]);
    assert_eq!(r["players"][0]["names"], full[0]["players"][0]["names"]);

    let warned = path("ddnet__Multeasymap_bench.demo");
    let some = run_records(&["demos", "index", "-q", &warned], 0);
    assert_eq!(some[0]["warnings"][0]["kind"], "timeline_marker_padding");
    let none = run_records(&["demos", "index", "-q", "--max-warnings", "0", &warned], 0);
    let w = none[0]["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["kind"], "too_many_warnings");
    assert_eq!(w[0]["offset"], some[0]["warnings"][0]["offset"]);
}
