//! Warnings of the picture commands: every command warns alike about what
//! it reads, and a failed picture keeps the warnings found before.

use crate::common::run_records;

/// A map with three warnings: its embedded image's name has no NUL (at
/// byte `.1`), its quads layer 1 claims quads its data does not hold (its
/// item at byte `.2`), and its design tile layer 2 names data block 99
/// (the field at byte `.3`); the game layer is `side` × `side` tiles.
fn warned_map(side: i32) -> (Vec<u8>, u64, u64, u64) {
    use teebatch::datafile::{Datafile, DatafileWriter};
    use teebatch::map;
    let mut w = DatafileWriter::new();
    w.add_item(map::ITEM_VERSION, 0, &[1]);
    let name = w.add_data(b"no terminator") as i32;
    let pixels = w.add_data(&[255; 4]) as i32;
    // Version 1: width, height, external, name, data.
    w.add_item(map::ITEM_IMAGE, 0, &[1, 1, 1, 0, name, pixels]);
    let game = w.add_data(&vec![0; 4 * (side * side) as usize]) as i32;
    let quads = w.add_data(&[0; map::QUAD_SIZE]) as i32;
    let layer_name = [-2139062144, -2139062144, -2139062272];
    let tilemap = |flags: i32, data: i32| {
        let mut v = vec![
            0,
            map::LAYER_TILEMAP,
            0,
            3,
            side,
            side,
            flags,
            255,
            255,
            255,
            255,
        ];
        v.extend([-1, 0, -1, data]);
        v.extend(layer_name);
        v
    };
    w.add_item(map::ITEM_LAYER, 0, &tilemap(1, game));
    // Three quads claimed, the data of one; drawn with image 0.
    let mut quads_layer = vec![0, map::LAYER_QUADS, 0, 2, 3, quads, 0];
    quads_layer.extend(layer_name);
    w.add_item(map::ITEM_LAYER, 1, &quads_layer);
    w.add_item(map::ITEM_LAYER, 2, &tilemap(0, 99));
    w.add_item(
        map::ITEM_GROUP,
        0,
        &[3, 0, 0, 100, 100, 0, 3, 0, 0, 0, 0, 0],
    );
    let bytes = w.write();
    let df = Datafile::parse(&bytes).unwrap();
    let name_at = df.data_range(name as usize).unwrap().start as u64;
    let quads_at = df.find_item(map::ITEM_LAYER, 1).unwrap().offset as u64;
    // The data field: after the item's 8-byte header, int 14.
    let design_at = df.find_item(map::ITEM_LAYER, 2).unwrap().offset as u64 + 8 + 4 * 14;
    (bytes, name_at, quads_at, design_at)
}

/// The map-stage warnings (kind, section, offset) of the one record that
/// `teebatch args` prints, exiting with `code`.
fn map_warnings(args: &[&str], code: i32) -> Vec<(String, String, u64)> {
    let recs = run_records(args, code);
    assert_eq!(recs.len(), 1, "{args:?}");
    recs[0]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["stage"] == "map")
        .map(|w| {
            let s = |k: &str| w[k].as_str().unwrap().to_owned();
            (s("kind"), s("section"), w["offset"].as_u64().unwrap())
        })
        .collect()
}

/// The three warnings of [`warned_map`] as [`map_warnings`] gives them, in
/// the order the map is read: the name, the design layer, the quads.
fn warned(name_at: u64, quads_at: u64, design_at: u64) -> [(String, String, u64); 3] {
    let w = |kind: &str, section: &str, at: u64| (kind.to_owned(), section.to_owned(), at);
    [
        w("string_unterminated", "image 0", name_at),
        w("tile_data_out_of_range", "layer 2", design_at),
        w("quads_data_size", "layer 1", quads_at),
    ]
}

/// Every command warns alike about the part of a map it reads: `maps
/// index` reads all that either picture style reads, so a map whose
/// embedded image's name has no NUL, whose quads layer claims quads its
/// data does not hold and whose design tile layer names a missing data
/// block gets the three warnings at the same offsets from `maps index` and
/// from `maps render --style full` (which reads names, draws quads and
/// leaves the design layer out, as the index does not count it), and all
/// but the name's from the entities style (which reads no names: layer
/// sizes and data references are checked wherever the map is loaded). No
/// command fails.
#[test]
fn every_command_warns_alike_about_what_it_reads() {
    let (bytes, name_at, quads_at, design_at) = warned_map(2);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("warned.map");
    std::fs::write(&path, &bytes).unwrap();
    let (path, out) = (path.to_str().unwrap(), dir.path().to_str().unwrap());
    let all = warned(name_at, quads_at, design_at);
    assert_eq!(map_warnings(&["maps", "index", path], 0), all);
    let full = ["maps", "render", "--style", "full", "--out", out, path];
    assert_eq!(map_warnings(&full, 0), all);
    let entities = ["maps", "render", "--out", out, path];
    assert_eq!(map_warnings(&entities, 0), all[1..]);
}

/// A picture that fails after its map was read keeps the warnings found
/// before its error: a 200 × 200 tile map asked for at 64 pixels per tile
/// (a 12,800-pixel square, over the pixel limit) is `too_large` with the
/// map's warnings in both styles' records (found by fuzzing: they were
/// dropped).
#[test]
fn a_failed_picture_keeps_the_warnings_found_before() {
    let (bytes, name_at, quads_at, design_at) = warned_map(200);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.map");
    std::fs::write(&path, &bytes).unwrap();
    let (path, out) = (path.to_str().unwrap(), dir.path().to_str().unwrap());
    let all = warned(name_at, quads_at, design_at);
    for (style, want) in [("full", &all[..]), ("entities", &all[1..])] {
        let args = [
            "maps", "render", "--style", style, "--scale", "64", "--out", out, path,
        ];
        assert_eq!(map_warnings(&args, 1), want, "{style}");
        let recs = run_records(&args, 1);
        assert_eq!(recs[0]["error"]["kind"], "too_large", "{style}");
    }
}
