"""The collection API equals the command line: tables, records, summaries,
errors; streams; interruption."""

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import teebatch
from conftest import load_json


def plain(t: pa.Table) -> pa.Table:
    """Dictionary columns as their values (Parquet gives them so)."""
    fields, cols = [], []
    for f, c in zip(t.schema, t.columns):
        if pa.types.is_dictionary(f.type):
            c = c.cast(f.type.value_type)
            f = pa.field(f.name, f.type.value_type, f.nullable)
        fields.append(f)
        cols.append(c)
    return pa.table(cols, schema=pa.schema(fields))


def cli_table(cli, tmp_path, *args):
    out = tmp_path / "cli.parquet"
    p = cli(*args, "--format", "parquet", "-o", out, "-q")
    return pq.read_table(out), p


@pytest.mark.parametrize("table", teebatch.demos.TABLES)
def test_export_equals_the_cli_on_the_real_demos(cli, demos_dir, tmp_path, table):
    want, _ = cli_table(cli, tmp_path, "demos", "export", demos_dir, "--table", table)
    got = teebatch.demos.export(demos_dir, table)
    assert got.num_rows == want.num_rows
    assert got.column_names == want.column_names
    assert plain(got).equals(want), table


def test_export_equals_the_cli_on_generated_demos_with_splitting(cli, synth_demos, tmp_path):
    want, _ = cli_table(
        cli, tmp_path, "demos", "export", synth_demos, "--table", "positions",
        "--split-bytes", "65536", "-j", "2",
    )
    for jobs in (1, 2):
        got = teebatch.demos.export(synth_demos, "positions", jobs=jobs, split_bytes=65536)
        assert want.num_rows > 10_000
        assert plain(got).equals(want), jobs


def test_export_tick_range_equals_the_cli(cli, demos_dir, tmp_path):
    want, _ = cli_table(
        cli, tmp_path, "demos", "export", demos_dir, "--table", "positions",
        "--from", 2674700, "--to", 2674800,
    )
    got = teebatch.demos.export(demos_dir, "positions", from_tick=2674700, to_tick=2674800)
    assert 0 < got.num_rows == want.num_rows
    assert plain(got).equals(want)
    with pytest.raises(ValueError, match="after"):
        teebatch.demos.export(demos_dir, "positions", from_tick=5, to_tick=4)


def test_relative_tick_ranges_equal_the_cli(cli, demos_dir, tmp_path):
    want, _ = cli_table(
        cli, tmp_path, "demos", "export", demos_dir, "--table", "positions",
        "--from", "+250", "--to", "0:10",
    )
    got = teebatch.demos.export(demos_dir, "positions", from_tick="+250", to_tick="0:10")
    assert 0 < got.num_rows == want.num_rows
    assert plain(got).equals(want)
    secs = got.column("time_s").to_pylist()
    assert min(secs) >= 5.0 and max(secs) <= 10.0
    with pytest.raises(ValueError, match="from_tick"):
        teebatch.demos.export(demos_dir, "positions", from_tick="soon")


def test_every_tick_equals_the_cli(cli, demos_dir, tmp_path):
    want, _ = cli_table(
        cli, tmp_path, "demos", "export", demos_dir, "--table", "positions", "--every-tick",
    )
    got = teebatch.demos.export(demos_dir, "positions", every_tick=True)
    plain_rows = teebatch.demos.export(demos_dir, "positions")
    assert plain(got).equals(want)
    # Carried rows come on top of the received ones, which are today's rows.
    filled = got.column("filled").to_pylist()
    assert sum(filled) == got.num_rows - plain_rows.num_rows > 0
    assert not any(plain_rows.column("filled").to_pylist())


def test_export_tables_equals_one_export_per_table(cli, demos_dir, tmp_path):
    out = tmp_path / "all"
    cli("demos", "export", demos_dir, "--tables", "all", "--format", "parquet",
        "--out", out, "-q")
    got = teebatch.demos.export_tables(demos_dir)
    assert list(got) == list(teebatch.demos.TABLES)
    for name, t in got.items():
        want = pq.read_table(out / f"{name}.parquet")
        assert plain(t).equals(want), name
        assert t.equals(teebatch.demos.export(demos_dir, name)), name
    two = teebatch.demos.export_tables(demos_dir, ["chat", "positions"], to_tick="+500")
    assert list(two) == ["positions", "chat"]  # the command line's order
    assert two["positions"].equals(
        teebatch.demos.export(demos_dir, "positions", to_tick="+500")
    )
    with pytest.raises(ValueError, match="no table 'nope'"):
        teebatch.demos.export_tables(demos_dir, ["chat", "nope"])


def test_unknown_table_names_the_tables():
    with pytest.raises(ValueError, match="positions"):
        teebatch.demos.export(None, "nope")


def test_dictionary_text_columns_read_as_strings(demos_dir):
    t = teebatch.demos.export(demos_dir, "chat")
    assert pa.types.is_dictionary(t.schema.field("demo").type)
    rows = t.slice(0, 1).to_pylist()
    assert isinstance(rows[0]["demo"], str)
    assert t.schema.field("demo").type.value_type == pa.string()


def test_maps_index_equals_the_cli(cli, maps_dir, tmp_path):
    want, _ = cli_table(cli, tmp_path, "maps", "index", maps_dir, "--verify=crc")
    got = teebatch.maps.index(maps_dir, verify="crc")
    assert got.num_rows == want.num_rows > 100
    assert got.schema == want.schema
    assert got.equals(want)


def test_demos_index_equals_the_cli(cli, demos_dir, tmp_path):
    want, _ = cli_table(cli, tmp_path, "demos", "index", demos_dir)
    got = teebatch.demos.index(demos_dir)
    assert got.num_rows == want.num_rows == len(list(demos_dir.glob("*.demo")))
    assert got.equals(want)


RUN_FIELDS = {"elapsed_s", "files_per_s", "mb_per_s", "started_at_unix_s", "jobs"}


def without_timing(doc):
    doc = json.loads(json.dumps(doc))
    for k in RUN_FIELDS:
        doc["run"].pop(k, None)
    return doc


@pytest.mark.parametrize("kind", ["maps", "demos"])
def test_summary_equals_the_cli(cli, datasets, tmp_path, kind):
    path = datasets / kind
    s = tmp_path / "s.json"
    cli(kind, "index", path, "-q", "-o", tmp_path / "r.jsonl", "--summary", s)
    _, got = getattr(teebatch, kind).index(path, summary=True)
    assert without_timing(got) == without_timing(load_json(s))
    assert got["files"] > 0 and got["command"] == f"{kind} index"


def test_embedded_dataset_without_paths(cli, tmp_path):
    want, _ = cli_table(cli, tmp_path, "maps", "index")
    got = teebatch.maps.index()
    assert got.num_rows == want.num_rows > 0
    assert got.equals(want)


def truncated_demo(demos_dir, tmp_path, keep=3000, name="big_chungus.demo"):
    src = demos_dir / name
    bad = tmp_path / "bad" / "cut.demo"
    bad.parent.mkdir()
    bad.write_bytes(src.read_bytes()[:keep])
    return bad


def test_a_bad_file_is_a_record_with_the_clis_error(cli, demos_dir, tmp_path):
    bad = truncated_demo(demos_dir, tmp_path)
    shutil.copy(demos_dir / "big_chungus.demo", bad.parent / "good.demo")
    want, p = cli_table(cli, tmp_path, "demos", "index", bad.parent)
    assert p.returncode == 1
    got = teebatch.demos.index(bad.parent)
    assert got.equals(want)
    errors = [r["error"] for r in got.to_pylist()]
    assert errors[0] is not None and errors[0]["kind"] and errors[1] is None


def test_export_keeps_the_rows_before_a_fault_and_reports_it(cli, demos_dir, tmp_path):
    # Cut in the chunks (chunk 3479), after the embedded map.
    bad = truncated_demo(demos_dir, tmp_path, 1_740_385, "ddnet__Multeasymap_bench.demo")
    want, p = cli_table(cli, tmp_path, "demos", "export", bad.parent, "--table", "positions")
    assert p.returncode == 1
    with pytest.warns(teebatch.TeebatchWarning, match="cut.demo"):
        got = teebatch.demos.export(bad.parent, "positions")
    assert plain(got).equals(want)
    assert 0 < got.num_rows < teebatch.demos.export(
        demos_dir / "ddnet__Multeasymap_bench.demo", "positions").num_rows
    b = teebatch.demos.export_batches(bad.parent, "positions")
    with pytest.warns(teebatch.TeebatchWarning):
        b.read_all()
    (e,) = b.errors
    assert e["path"].endswith("cut.demo")
    assert e["message"] in p.stderr.decode()
    assert b.outcome["failed"] == 1 and b.outcome["failure"]


def test_nothing_found_raises(tmp_path):
    with pytest.raises(FileNotFoundError, match="no \\*.demo files found"):
        teebatch.demos.export(tmp_path, "chat")


def test_export_batches_streams_into_polars_and_duckdb(synth_demos):
    import duckdb
    import polars as pl

    whole = teebatch.demos.export(synth_demos, "kills")
    df = pl.from_arrow(teebatch.demos.export_batches(synth_demos, "kills").reader())
    assert df.height == whole.num_rows > 0
    r = teebatch.demos.export_batches(synth_demos, "kills").reader()
    (n,) = duckdb.sql("select count(*) as n, count(distinct killer) as k from r").fetchall()
    assert n[0] == whole.num_rows and n[1] > 0
    # The stream object itself: DuckDB asks for its schema first
    # (__arrow_c_schema__), then takes the stream once.
    b = teebatch.demos.export_batches(synth_demos, "kills")
    (m,) = duckdb.sql("select count(*) from b").fetchall()
    assert m[0] == whole.num_rows
    assert pl.DataFrame(teebatch.demos.export_batches(synth_demos, "kills")).height == whole.num_rows
    batches = list(teebatch.demos.export_batches(synth_demos, "kills"))
    assert sum(b.num_rows for b in batches) == whole.num_rows


def test_a_stream_is_read_once_and_can_stop_early(synth_demos):
    b = teebatch.demos.export_batches(synth_demos, "positions", jobs=2)
    it = iter(b)
    first = next(it)
    assert first.num_rows > 0
    b.close()
    with pytest.raises(RuntimeError, match="already taken"):
        b.reader()
