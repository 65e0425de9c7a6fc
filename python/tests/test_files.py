"""One file: Demo and Map, and FormatError."""

import pyarrow as pa
import pytest

import teebatch
from test_collections import plain, truncated_demo


def test_demo_tables_equal_the_collection_export(demos_dir):
    path = demos_dir / "ddnet__Multeasymap_bench.demo"
    d = teebatch.Demo(path)
    for table in ("chat", "players", "kills", "positions"):
        want = teebatch.demos.export(path, table)
        assert d.table(table).equals(want), table
    assert d.chat.equals(teebatch.demos.export(path, "chat"))
    assert d.header["map_name"] == "Multeasymap"


def test_demo_from_bytes_names_its_rows(demos_dir):
    path = demos_dir / "big_chungus.demo"
    d = teebatch.Demo(path.read_bytes(), name="x/y.demo")
    t = d.table("positions", from_tick=0)
    want = teebatch.demos.export(path, "positions")
    assert t.num_rows == want.num_rows > 0
    assert set(t.column("demo").to_pylist()) == {"x/y.demo"}
    assert plain(t.drop_columns(["demo"])).equals(plain(want.drop_columns(["demo"])))


def test_demo_record_equals_the_index_row(demos_dir):
    path = demos_dir / "big_chungus.demo"
    row = teebatch.demos.index(path).to_pylist()[0]
    rec = teebatch.Demo(path).record
    assert rec["sha256"] == row["sha256"]
    assert rec["ticks"] == row["ticks"]
    assert rec["header"]["map_name"] == row["header"]["map_name"]


def test_a_bad_demo_raises_format_error_with_the_clis_kind_and_offset(demos_dir, tmp_path):
    bad = truncated_demo(demos_dir, tmp_path)
    row = teebatch.demos.index(bad).to_pylist()[0]
    with pytest.raises(teebatch.FormatError) as e:
        teebatch.Demo(bad).record
    err = e.value
    assert (err.kind, err.stage, err.section, err.offset) == (
        row["error"]["kind"],
        row["error"]["stage"],
        row["error"]["section"],
        row["error"]["offset"],
    )
    assert err.path == str(bad)
    assert str(bad) in str(err)
    with pytest.raises(teebatch.FormatError):
        teebatch.Demo(bad).table("chat")
    assert isinstance(err, ValueError)


def test_map_record_equals_the_index_row(maps_dir):
    path = next(iter(sorted(maps_dir.rglob("*.map"))))
    row = teebatch.maps.index(path, verify="full").to_pylist()[0]
    m = teebatch.Map(path, verify="full")
    assert m.record["data_sha256"] == row["data_sha256"] is not None
    assert m.info == (row["map"]["info"] if row["map"] else None)


def test_a_bad_map_raises_format_error(maps_dir):
    path = next(iter(sorted(maps_dir.rglob("*.map"))))
    data = path.read_bytes()[:40]
    with pytest.raises(teebatch.FormatError) as e:
        teebatch.Map(data, name="cut.map").record
    assert e.value.path == "cut.map"
    assert e.value.stage == "datafile"
    row = teebatch.maps.index(path).to_pylist()[0]
    assert row["error"] is None


def test_tables_are_the_clis():
    assert teebatch.demos.TABLES[0] == "positions"
    assert len(teebatch.demos.TABLES) == 15
    assert teebatch.demos.TABLES[-3:] == ("finishes", "records", "demos")
    assert isinstance(teebatch.Demo.__dict__["chat"], property)
    assert pa is not None


def first_map(maps_dir, with_layer="game"):
    for p in sorted(maps_dir.rglob("*.map")):
        m = teebatch.Map(p)
        try:
            if any(l["type"] == with_layer for l in m.layers):
                return p, m
        except (teebatch.FormatError, ValueError):
            continue
    raise AssertionError("no map with a game layer")


def test_map_tiles_match_the_index_histogram(maps_dir):
    import numpy as np

    checked = 0
    for p in sorted(maps_dir.rglob("*.map"))[:40]:
        m = teebatch.Map(p)
        try:
            layers = m.layers
            hist = m.record["map"]["stats"]["tiles"]
        except (teebatch.FormatError, ValueError, TypeError, KeyError):
            continue
        for kind in {h["layer"] for h in hist}:
            of_kind = [l for l in layers if l["type"] == kind]
            if len(of_kind) != 1:
                continue
            ids, flags = m.tiles(kind)
            assert ids.shape == (of_kind[0]["height"], of_kind[0]["width"])
            want = {h["id"]: h["count"] for h in hist if h["layer"] == kind}
            values, counts = np.unique(ids[ids != 0], return_counts=True)
            assert dict(zip(values.tolist(), counts.tolist())) == want, (p, kind)
            if kind in ("game", "front", "tiles", "switch"):
                assert flags is not None and flags.shape == ids.shape
            checked += 1
    assert checked >= 20


def test_map_render_equals_the_clis_picture(cli, maps_dir, tmp_path, datasets):
    import matplotlib.image

    mapres = datasets.parent / "reference" / "ddnet-mapres"
    p, m = first_map(maps_dir)
    for style in ("entities", "full"):
        out = tmp_path / style
        args = ["maps", "render", p, "--out", out, "--style", style, "--max-side", 300, "-q"]
        if mapres.is_dir():
            args += ["--mapres", mapres]
        assert cli(*args).returncode == 0
        (png,) = out.glob("*.png")
        want = (matplotlib.image.imread(png) * 255).round().astype("uint8")
        got = m.render(style, max_side=300, mapres=mapres if mapres.is_dir() else None)
        assert got.shape[2] == 4 and (got[:, :, 3] == 255).all()
        assert got.shape[:2] == want.shape[:2]
        assert (got[:, :, :3] == want[:, :, :3]).all(), style


def test_map_errors(maps_dir):
    p, m = first_map(maps_dir)
    with pytest.raises(ValueError, match="no 'sounds' layer|not a tile layer"):
        m.tiles("sounds")
    with pytest.raises(ValueError, match="style"):
        m.render("nope")
