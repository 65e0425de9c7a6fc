//! Every reference table in `docs/` is generated from the code or checked
//! against it: the tile names (docs/tile-names.md), the flat palette
//! (docs/pictures.md), the record fields (docs/records.md); the export
//! tables are `demo::export_tables::tables_reference`, the kinds
//! `src/kind_names.txt`.

use std::path::PathBuf;

fn doc_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join(name)
}

/// The flat palette table of docs/pictures.md, between its markers and
/// indented by two spaces (it is inside a list item), is
/// `render::entities::palette_markdown`.
#[test]
fn palette_reference() {
    let path = doc_path("pictures.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let begin = doc.find("<!-- palette:begin").expect("begin marker");
    let start = begin + doc[begin..].find("-->\n").unwrap() + 4;
    let end = start
        + doc[start..]
            .find("  <!-- palette:end -->")
            .expect("end marker");
    let want: String = teebatch::render::entities::palette_markdown()
        .lines()
        .map(|l| format!("  {l}\n"))
        .collect();
    if std::env::var_os("TEEBATCH_BLESS").is_some() {
        std::fs::write(&path, format!("{}{}{}", &doc[..start], want, &doc[end..])).unwrap();
        return;
    }
    assert!(
        doc[start..end] == want,
        "docs/pictures.md's palette table differs from the code: regenerate it with \
         `TEEBATCH_BLESS=1 cargo test --test tests palette_reference`"
    );
}

/// `docs/tile-names.md` is generated from the tile id table
/// (`map::names::reference_markdown`).
#[test]
fn tile_names_reference() {
    let path = doc_path("tile-names.md");
    let want = teebatch::map::names::reference_markdown();
    if std::env::var_os("TEEBATCH_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let got = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        got == want,
        "docs/tile-names.md differs from src/map/names.rs: regenerate it with \
         `TEEBATCH_BLESS=1 cargo test --test tests tile_names_reference`"
    );
}

/// The backticked names of `text` (a span `a, b` gives `a` and `b`, also
/// across a line break).
fn backticked(text: &str) -> std::collections::BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|span| span.split(',').map(|s| s.trim().to_owned()))
        .collect()
}

/// The top-level field names of a schema.
fn field_names(schema: &arrow_schema::Schema) -> Vec<String> {
    schema.fields().iter().map(|f| f.name().clone()).collect()
}

/// docs/records.md's record tables name exactly the record fields: the
/// first column of the `maps index` table is every top-level field of the
/// records' schema (`error` and `warnings` are described above it), its
/// `map` row names every field of `map`; the `demos index` paragraph names
/// every top-level demo field; the envelope every record shares is as its
/// paragraph says.
#[test]
fn records_reference() {
    use arrow_schema::DataType;
    use teebatch::batch::parquet::{demos_schema, maps_schema};
    let doc = std::fs::read_to_string(doc_path("records.md")).unwrap();
    let table: Vec<&str> = doc
        .split("`maps index` record:\n")
        .nth(1)
        .expect("the maps index table")
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .collect();
    let first_cells: std::collections::BTreeSet<String> = table
        .iter()
        .flat_map(|row| backticked(row.split('|').nth(1).unwrap()))
        .collect();
    let schema = maps_schema();
    let mut fields: std::collections::BTreeSet<String> = field_names(&schema).into_iter().collect();
    assert!(fields.remove("error") && fields.remove("warnings"));
    assert_eq!(first_cells, fields, "docs/records.md's maps index table");
    assert!(doc.contains("`error: {stage, kind, section, offset,\nmessage}`"));
    assert!(doc.contains("`warnings: [{stage, kind, section, offset}]`"));
    let map_row = table
        .iter()
        .find(|row| row.starts_with("| `map` |"))
        .unwrap();
    let documented = backticked(map_row);
    let DataType::Struct(map_fields) = schema.field_with_name("map").unwrap().data_type() else {
        panic!("map is a struct");
    };
    for f in map_fields {
        // The map's own warnings list is always empty in records (they are
        // the record's `warnings`), as the Parquet schema keeps it.
        if f.name() != "warnings" {
            assert!(
                documented.contains(f.name()),
                "the map row lacks `{}`",
                f.name()
            );
        }
    }

    // The envelope (`batch::record::Record`), as the paragraph above the
    // tables says: the same fields first and last in both schemas and in
    // the JSON of an empty record of each kind.
    assert!(doc.contains(
        "`path`, `name`, `size` first, then the\nkind's fields, then `warnings`, then `error`"
    ));
    for schema in [maps_schema(), demos_schema()] {
        let names = field_names(&schema);
        assert_eq!(names[..3], ["path", "name", "size"]);
        assert_eq!(names[names.len() - 2..], ["warnings", "error"]);
    }
    let empty = r#"{"path":"","name":"","size":0,"warnings":[]}"#;
    use teebatch::batch::{demos, heat, maps, render};
    assert_eq!(
        serde_json::to_string(&maps::MapRecord::default()).unwrap(),
        empty
    );
    assert_eq!(
        serde_json::to_string(&demos::DemoRecord::default()).unwrap(),
        empty
    );
    assert_eq!(
        serde_json::to_string(&render::RenderRecord::default()).unwrap(),
        empty
    );
    assert!(doc.contains("(`path`, `size`, `map`, `map_sha256`, `positions`, `error`)"));
    assert_eq!(
        serde_json::to_string(&heat::HeatDemoRecord::default()).unwrap(),
        r#"{"path":"","size":0,"positions":0}"#
    );

    let demos = doc
        .split("`demos index` record:")
        .nth(1)
        .expect("the demos index paragraph")
        .split("\n\n")
        .next()
        .unwrap();
    let documented = backticked(demos);
    for f in field_names(&demos_schema()) {
        if f != "error" && f != "warnings" {
            assert!(
                documented.contains(&f),
                "the demos index paragraph lacks `{f}`"
            );
        }
    }
}
