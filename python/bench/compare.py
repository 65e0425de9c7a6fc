"""Side by side, in one run (wall-clock seconds, best of --runs):

- ``teebatch.maps.index(paths)`` against the PyPI package ``twmap``
  (``twmap.Map(path)`` for each map, a dev-only comparison: twmap is never a
  dependency), over every ``*.map`` of a folder; which maps each rejects.
  ``twmap.Map`` leaves the layers' data compressed until it is asked for,
  so a second twmap figure also reads what the index record holds of each
  map: the tiles of its six physics layers and their id histograms;
- ``teebatch.demos.export(paths, table)`` against the command line's
  ``teebatch demos export --table TABLE --format parquet``, and the same
  table written to Parquet by pyarrow, with one job and with all cores.

    python python/bench/compare.py [--maps DIR] [--demos DIR] [--cli BIN]

Prints one line per measurement and, with --json FILE, a JSON document.
"""

import argparse
import json
import os
import pathlib
import platform
import subprocess
import sys
import tempfile
import time
import warnings

import pyarrow.parquet as pq

import teebatch


def best(f, runs):
    times = []
    out = None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def maps_vs_twmap(maps, runs):
    import twmap

    paths = sorted(str(p) for p in pathlib.Path(maps).rglob("*.map"))

    def load_twmap():
        rejected = []
        for p in paths:
            try:
                twmap.Map(p)
            except Exception as e:  # twmap raises its own error types
                rejected.append((p, type(e).__name__))
        return rejected

    def index():
        t = teebatch.maps.index(paths)
        return [r["path"] for r in t.select(["path", "error"]).to_pylist() if r["error"]]

    def twmap_tiles():
        import numpy as np

        for p in paths:
            try:
                m = twmap.Map(p)
            except Exception:
                continue
            for layer in (m.game_layer, m.front_layer, m.tele_layer, m.speedup_layer,
                          m.switch_layer, m.tune_layer):
                layer = layer()
                if layer is not None:
                    ids = np.asarray(layer.tiles)[..., 0].ravel()
                    np.bincount(ids, minlength=256)

    t_tw, tw_rejects = best(load_twmap, runs)
    t_tb, tb_rejects = best(index, runs)
    t_tw_tiles, _ = best(twmap_tiles, runs)
    return {
        "maps": len(paths),
        "twmap_s": t_tw,
        "twmap_with_physics_tiles_s": t_tw_tiles,
        "teebatch_s": t_tb,
        "ratio": t_tw / t_tb,
        "ratio_with_physics_tiles": t_tw_tiles / t_tb,
        "twmap_rejects": len(tw_rejects),
        "teebatch_rejects": len(tb_rejects),
        "twmap_rejected": [p for p, _ in tw_rejects],
        "teebatch_rejected": tb_rejects,
    }


def export_vs_cli(demos, cli, table, jobs, runs):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.parquet")
        args = [cli, "demos", "export", demos, "--table", table, "--format", "parquet",
                "-o", out, "-q"]
        if jobs:
            args += ["--jobs", str(jobs)]
        t_cli, _ = best(lambda: subprocess.run(args, check=True), runs)
        t_py, tbl = best(lambda: teebatch.demos.export(demos, table, jobs=jobs), runs)
        t_pyw, _ = best(lambda: pq.write_table(
            teebatch.demos.export(demos, table, jobs=jobs), out), runs)
    return {
        "table": table,
        "jobs": jobs or os.cpu_count(),
        "rows": tbl.num_rows,
        "cli_parquet_s": t_cli,
        "python_table_s": t_py,
        "python_table_plus_pyarrow_parquet_s": t_pyw,
        "python_over_cli": t_py / t_cli,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = pathlib.Path(__file__).resolve().parents[2]
    ds = pathlib.Path(os.environ.get("TEEBATCH_DATASETS", root.parent / "shared" / "datasets"))
    ap.add_argument("--maps", default=str(ds / "maps"))
    ap.add_argument("--demos", default=str(ds / "demos"))
    ap.add_argument("--cli", default=str(root / "target" / "release" / "teebatch"))
    ap.add_argument("--table", default="positions")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    warnings.simplefilter("ignore", teebatch.TeebatchWarning)
    doc = {"python": sys.version.split()[0], "machine": platform.machine(),
           "cpus": os.cpu_count()}
    m = maps_vs_twmap(a.maps, a.runs)
    doc["maps"] = m
    print(f"maps: {m['maps']} files: twmap {m['twmap_s']:.3f} s ({m['twmap_rejects']} rejected), "
          f"teebatch.maps.index {m['teebatch_s']:.3f} s ({m['teebatch_rejects']} with an error): "
          f"{m['ratio']:.1f}x; twmap with the physics layers' tiles and histograms "
          f"{m['twmap_with_physics_tiles_s']:.3f} s: {m['ratio_with_physics_tiles']:.1f}x")
    doc["export"] = []
    for jobs in (1, None):
        e = export_vs_cli(a.demos, a.cli, a.table, jobs, a.runs)
        doc["export"].append(e)
        print(f"export {e['table']} -j{e['jobs']}: {e['rows']} rows: CLI to Parquet "
              f"{e['cli_parquet_s']:.3f} s, Python table {e['python_table_s']:.3f} s "
              f"({e['python_over_cli']:.2f}x), Python + pyarrow Parquet "
              f"{e['python_table_plus_pyarrow_parquet_s']:.3f} s")
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
