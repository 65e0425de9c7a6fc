"""Three small analyses of a folder of demos (the shared datasets' demos, or
the embedded ones): distance travelled per player with polars, kills per
player with DuckDB, and a position heatmap with matplotlib.

    python python/examples/analysis.py [DEMOS] [--out heatmap.png]
"""

import argparse

import duckdb
import numpy as np
import polars as pl

import teebatch

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("demos", nargs="?", help="a demo, folder or archive (default: the embedded demos)")
ap.add_argument("--out", default="heatmap.png", help="where the heatmap goes")
args = ap.parse_args()

# 1. Positions into polars: distance travelled per player and demo, in tiles
#    (x and y are world units, 32 per tile).
pos = pl.from_arrow(teebatch.demos.export(args.demos, "positions"))
dist = (
    pos.sort("demo", "client_id", "tick")
    .with_columns(
        dx=pl.col("x").diff().over("demo", "client_id"),
        dy=pl.col("y").diff().over("demo", "client_id"),
    )
    .group_by("demo", "client_id")
    .agg(tiles=((pl.col("dx") ** 2 + pl.col("dy") ** 2).sqrt().sum() / 32))
    .sort("tiles", descending=True)
)
print("distance travelled (tiles), top 5:")
print(dist.head(5))

# 2. Kills per player in DuckDB, straight from the stream of batches.
kills = teebatch.demos.export_batches(args.demos, "kills").reader()
print(duckdb.sql(
    "select killer_name, count(*) as kills from kills "
    "where killer_name is not null group by killer_name order by kills desc limit 5"
))

# 3. A heatmap of where players were in the demo with the most positions
#    (one demo: one map), with matplotlib.
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

top = pos.group_by("demo").len().sort("len", descending=True)["demo"][0]
one = pos.filter(pl.col("demo") == top)
x = one["x"].to_numpy() / 32
y = one["y"].to_numpy() / 32
h, xe, ye = np.histogram2d(x, y, bins=(200, 120))
plt.figure(figsize=(8, 5))
plt.imshow(np.log1p(h.T), origin="upper", extent=(xe[0], xe[-1], ye[-1], ye[0]), cmap="magma")
plt.xlabel("x (tiles)")
plt.ylabel("y (tiles)")
plt.colorbar(label="log(1 + position rows)")
plt.title(top.rsplit("/", 1)[-1])
plt.savefig(args.out, dpi=100)
print(f"wrote {args.out}: {len(one)} positions of {top}")
