//! `maps check`: every rule fires on a generated map with one violation
//! and no other rule fires; the records, the exit code, `--rules`, the
//! text format and the summary of the command; the shared maps.

use crate::common::{datasets, run_records, teebatch};
use teebatch::batch::check::{check_bytes, Checked};
use teebatch::datafile::Inflater;
use teebatch::limits::Limits;
use teebatch::map::check::{Finding, RuleSet, RULES};
use teebatch::map::names::ENTITY_OFFSET;
use teebatch::map::PhysicsKind::{Front, Game, Switch, Tele};
use teebatch::synth::builder::MapBuilder;

fn check(bytes: &[u8]) -> Vec<Finding> {
    let mut inflater = Inflater::new(Limits::default().datafile());
    match check_bytes(bytes, RuleSet::ALL, &mut inflater, &mut Vec::new()) {
        Ok(Checked::Map(c)) => {
            assert_eq!(c.counts.iter().sum::<u64>(), c.findings.len() as u64);
            c.findings
        }
        Ok(Checked::Absent(a)) => panic!("no map part: {a}"),
        Err(e) => panic!("{e:?}"),
    }
}

fn base() -> MapBuilder {
    MapBuilder::new(10, 6)
}

/// One map per rule, each with exactly one violation of it.
fn violations() -> Vec<(&'static str, MapBuilder)> {
    let mut v = Vec::new();
    let mut add = |id, f: &dyn Fn(&mut MapBuilder)| {
        let mut b = base();
        f(&mut b);
        v.push((id, b));
    };
    add("tile-id-invalid", &|b| {
        b.set(Game, 1, 1, &[8, 0, 0, 0]);
    });
    add("tile-mirrored", &|b| {
        b.set(Game, 2, 2, &[60, 1, 0, 0]);
    });
    add("hookthrough-without-solid", &|b| {
        b.set(Front, 3, 2, &[5, 0, 0, 0]);
    });
    add("tele-number-zero", &|b| {
        b.set(Tele, 1, 1, &[0, 26]);
    });
    add("tele-in-without-out", &|b| {
        b.set(Tele, 1, 1, &[4, 26]);
    });
    add("tele-out-without-in", &|b| {
        b.set(Tele, 1, 1, &[4, 27]);
    });
    add("tele-checkpoint-without-out", &|b| {
        b.set(Tele, 1, 1, &[4, 29]);
    });
    add("tele-checkpoint-out-unused", &|b| {
        b.set(Tele, 1, 1, &[4, 30]);
    });
    add("switch-without-trigger", &|b| {
        b.set(Switch, 1, 1, &[2, ENTITY_OFFSET + 49, 0, 0]);
    });
    add("switch-trigger-unused", &|b| {
        b.set(Switch, 1, 1, &[2, 24, 0, 0]);
    });
    add("start-without-finish", &|b| {
        b.set(Game, 1, 4, &[33, 0, 0, 0]);
    });
    add("finish-without-start", &|b| {
        b.set(Game, 8, 4, &[34, 0, 0, 0]);
    });
    add("time-checkpoints-missing", &|b| {
        b.set(Game, 1, 4, &[33, 0, 0, 0]);
        b.set(Game, 8, 4, &[34, 0, 0, 0]);
    });
    add("setting-not-allowed", &|b| {
        b.setting("sv_motd hello");
    });
    add("setting-irregular", &|b| {
        b.setting("sv_hit 0");
    });
    add("image-unused", &|b| {
        b.external_image("grass_main");
    });
    add("envelope-unused", &|b| {
        b.envelope("pulse");
    });
    add("sound-unused", &|b| {
        b.sound("wind");
    });
    add("image-external-not-standard", &|b| {
        let i = b.external_image("my_tiles");
        b.tiles_layer(i, -1);
    });
    v
}

#[test]
fn each_rule_fires_on_its_map_and_no_other_does() {
    let v = violations();
    // Every rule has its map, in rule order.
    let ids: Vec<&str> = v.iter().map(|(id, _)| *id).collect();
    let all: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, all);
    for (id, b) in &v {
        let found = check(&b.build());
        let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
        assert_eq!(rules, [*id], "{id}: {found:?}");
    }
}

/// Where the findings are and what they say.
#[test]
fn findings_have_their_location() {
    let v = violations();
    let get = |id: &str| check(&v.iter().find(|(i, _)| *i == id).unwrap().1.build()).remove(0);
    let f = get("tile-mirrored");
    assert_eq!(
        (
            f.location.layer,
            f.location.layer_kind,
            f.location.x,
            f.location.y
        ),
        (Some(0), Some("game"), Some(2), Some(2))
    );
    assert_eq!(f.location.layer_name.as_deref(), Some("game"));
    assert_eq!(
        f.message,
        "direction-sensitive tile 60 is mirrored (flags 1)"
    );
    let f = get("hookthrough-without-solid");
    assert_eq!(
        (
            f.location.layer,
            f.location.layer_kind,
            f.location.x,
            f.location.y
        ),
        (Some(1), Some("front"), Some(3), Some(2))
    );
    let f = get("tele-in-without-out");
    assert_eq!(f.message, "teleporter in 26 number 4 has no teleporter out");
    assert_eq!((f.location.x, f.location.y), (Some(1), Some(1)));
    let f = get("setting-not-allowed");
    assert_eq!(f.location.setting, Some(0));
    assert_eq!(
        f.message,
        "\"sv_motd\" is not a command DDNet runs from map settings"
    );
    let f = get("image-external-not-standard");
    assert_eq!(f.location.image, Some(0));
    let f = get("sound-unused");
    assert_eq!(f.location.sound, Some(0));
    assert_eq!(f.severity, teebatch::map::check::Severity::Warning);
}

/// Maps that use everything correctly have no finding: paired teles and
/// switches, a race with checkpoints, envelopes used by a quad and a sound
/// source, a standard external image, allowed settings.
#[test]
fn correct_maps_have_no_findings() {
    let mut b = base();
    b.set(Game, 0, 4, &[1, 0, 0, 0])
        .set(Front, 0, 3, &[5, 0, 0, 0]);
    b.set(Front, 0, 4, &[5, 0, 0, 0]);
    b.set(Game, 1, 4, &[33, 0, 0, 0])
        .set(Game, 5, 4, &[40, 0, 0, 0])
        .set(Game, 8, 4, &[34, 0, 0, 0])
        .set(Game, 2, 2, &[60, 3, 0, 0])
        .set(Tele, 1, 1, &[4, 26])
        .set(Tele, 2, 1, &[4, 27])
        .set(Tele, 3, 1, &[7, 29])
        .set(Tele, 4, 1, &[7, 30])
        .set(Tele, 5, 1, &[0, 31])
        .set(Switch, 1, 2, &[2, 24, 0, 0])
        .set(Switch, 2, 2, &[2, ENTITY_OFFSET + 49, 0, 0])
        .setting("tune gravity 0.5; sv_team 1")
        .setting("# a comment");
    // The front tile at (0, 3) is over air: only (0, 4) is over a block.
    let found = check(&b.build());
    let rules: Vec<&str> = found.iter().map(|f| f.rule).collect();
    assert_eq!(rules, ["hookthrough-without-solid"]);
    b.set(Front, 0, 3, &[0, 0, 0, 0]);
    assert_eq!(check(&b.build()), []);
    let img = b.external_image("grass_main");
    let emb = b.embedded_image("mine", 2, 2);
    let e1 = b.envelope("pos");
    let e2 = b.envelope("sound");
    let e3 = b.envelope("color");
    let snd = b.sound("wind");
    b.tiles_layer(img, e3)
        .quads_layer(emb, e1, -1)
        .sounds_layer(snd, -1, e2);
    assert_eq!(check(&b.build()), []);
}

/// The command: records per finding then per map, exit codes, `--rules`,
/// the text format and the summary file.
#[test]
fn the_command_line() {
    let dir = std::env::temp_dir().join(format!("teebatch-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v = violations();
    let write = |name: &str, bytes: Vec<u8>| {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_owned()
    };
    let tele = write("a_tele.map", v[4].1.build());
    let unused = write("b_unused.map", v[15].1.build());
    let clean = write("c_clean.map", base().build());
    // A warning only: exit 0.
    let recs = run_records(&["maps", "check", &unused, "--quiet"], 0);
    assert_eq!(recs.len(), 2);
    assert_eq!(recs[0]["record"], "finding");
    assert_eq!(recs[0]["rule"], "image-unused");
    assert_eq!(recs[0]["severity"], "warning");
    assert_eq!(recs[0]["image"], 0);
    assert_eq!(recs[1]["record"], "map");
    assert_eq!(recs[1]["findings"], 1);
    assert_eq!(recs[1]["warnings"], 1);
    assert_eq!(recs[1]["rules"]["image-unused"], 1);
    // An error finding: exit 1; findings in input order, each map's
    // record after its findings.
    let summary = dir.join("summary.json");
    let recs = run_records(
        &[
            "maps",
            "check",
            dir.to_str().unwrap(),
            "--quiet",
            "-j",
            "2",
            "--summary",
            summary.to_str().unwrap(),
        ],
        1,
    );
    let kinds: Vec<String> = recs
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["record"].as_str().unwrap(),
                r["rule"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "finding tele-in-without-out",
            "map ",
            "finding image-unused",
            "map ",
            "map "
        ]
    );
    assert_eq!(recs[0]["path"], tele);
    assert_eq!(recs[0]["layer_kind"], "tele");
    assert_eq!(recs[4]["path"], clean);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["files"], 3);
    assert_eq!(s["maps_with_errors"], 1);
    assert_eq!(s["findings"]["error"], 1);
    assert_eq!(s["findings"]["warning"], 1);
    assert_eq!(s["findings"]["info"], 0);
    assert_eq!(s["rules"].as_array().unwrap().len(), RULES.len());
    let r = s["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "tele-in-without-out")
        .unwrap();
    assert_eq!(
        (r["findings"].as_u64(), r["maps"].as_u64()),
        (Some(1), Some(1))
    );
    // --rules leaves the others out: exit 0.
    let recs = run_records(
        &[
            "maps",
            "check",
            &tele,
            &unused,
            "--rules",
            "image-unused,sound-unused",
            "--quiet",
        ],
        0,
    );
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["record"], "map");
    assert_eq!(recs[1]["rule"], "image-unused");
    // An unknown rule is a usage error.
    let out = teebatch(&["maps", "check", &tele, "--rules", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown rule \"nope\""));
    // Text.
    let out = teebatch(&["maps", "check", &tele, "--format", "text", "--quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "{tele}: layer 1 \"tele\" (tele) x 1 y 1: error[tele-in-without-out]: teleporter in 26 number 4 has no teleporter out\n\
             {tele}: 1 findings (1 errors, 0 warnings, 0 info)\n"
        )
    );
    // The stderr lines.
    let out = teebatch(&["maps", "check", &clean]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("maps check: 1 files (1 ok, 0 failed)"),
        "{err}"
    );
    assert!(
        err.contains("maps check: 0 findings (0 errors, 0 warnings, 0 info); 0 maps with errors"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that is not a map: its record has the error, exit 1.
#[test]
fn unreadable_maps_fail() {
    let dir = std::env::temp_dir().join(format!("teebatch-check-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.map");
    std::fs::write(&p, b"DATA not really").unwrap();
    let recs = run_records(&["maps", "check", p.to_str().unwrap(), "--quiet"], 1);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["record"], "map");
    assert_eq!(recs[0]["error"]["stage"], "datafile");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The shared maps: every map is read, and the findings per rule are the
/// golden figures of docs/map-check.md.
#[test]
fn shared_maps() {
    let Some(data) = datasets() else { return };
    let maps = data.join("maps");
    let summary =
        std::env::temp_dir().join(format!("teebatch-check-sum-{}.json", std::process::id()));
    let out = teebatch(&[
        "maps",
        "check",
        maps.to_str().unwrap(),
        "--quiet",
        "--summary",
        summary.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    std::fs::remove_file(&summary).unwrap();
    let counts: Vec<(String, u64, u64)> = s["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_owned(),
                r["findings"].as_u64().unwrap(),
                r["maps"].as_u64().unwrap(),
            )
        })
        .collect();
    let golden: Vec<(String, u64, u64)> = GOLDEN
        .iter()
        .map(|(id, f, m)| (id.to_string(), *f, *m))
        .collect();
    assert_eq!(counts, golden);
    assert_eq!(s["files"], 249);
}

/// Findings and maps per rule on the 249 shared maps.
const GOLDEN: &[(&str, u64, u64)] = &[
    ("tile-id-invalid", 408833, 44),
    ("tile-mirrored", 4, 1),
    ("hookthrough-without-solid", 0, 0),
    ("tele-number-zero", 0, 0),
    ("tele-in-without-out", 394136, 2),
    ("tele-out-without-in", 13, 7),
    ("tele-checkpoint-without-out", 8, 2),
    ("tele-checkpoint-out-unused", 2, 2),
    ("switch-without-trigger", 448, 21),
    ("switch-trigger-unused", 14, 6),
    ("start-without-finish", 0, 0),
    ("finish-without-start", 0, 0),
    ("time-checkpoints-missing", 62, 62),
    ("setting-not-allowed", 54, 21),
    ("setting-irregular", 5, 5),
    ("image-unused", 117, 52),
    ("envelope-unused", 1157, 113),
    ("sound-unused", 2, 2),
    ("image-external-not-standard", 25, 21),
];

/// docs/map-check.md's rule table is the one the code gives.
#[test]
fn the_docs_rule_table_is_the_codes() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/map-check.md")).unwrap();
    let start = doc.find("<!-- rules -->\n").expect("rules marker") + "<!-- rules -->\n".len();
    let end = doc.find("<!-- /rules -->").expect("end marker");
    assert_eq!(&doc[start..end], teebatch::map::check::rules_markdown());
}
