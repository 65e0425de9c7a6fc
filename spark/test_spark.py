"""The Spark integration test (run by spark/test, which CI calls).

One SparkSession (local[2,4]: two cores, a task may be tried four times)
runs the maps and the demos of the shared datasets through both input
modes, and requires of each output what `spark/run --verify` checks: the
summary equals a one-machine `teebatch KIND index --summary` minus `run`,
the Parquet records read back equal the JSON records of one run (paths of
`file:` URIs read as local paths), one Parquet schema, no record twice.
Then the fault test: partition 0's teebatch is killed on the first attempt;
Spark runs the task again and the output is still equal. Last, a directory
with a truncated and a junk map: error records, no failed task.

Before Spark starts, pyarrow reads every `demos export` table written as
Parquet: the columns have the documented types (text as plain `string`,
though teebatch builds it dictionary-encoded), and the rows equal the
table's JSON lines.
"""

import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import teebatch_spark as job  # noqa: E402

TABLES = ["positions", "players", "player_changes", "projectiles", "lasers", "pickups",
          "flags", "game", "events", "chat", "kills", "broadcasts", "finishes", "records",
          "demos"]


def check_tables(teebatch, demos):
    """Problems with the Parquet export tables as pyarrow reads them."""
    import subprocess
    import pyarrow as pa
    import pyarrow.parquet as pq
    problems = []
    with tempfile.TemporaryDirectory(prefix="teebatch-tables-") as tmp:
        for t in TABLES:
            path = os.path.join(tmp, f"{t}.parquet")
            subprocess.run([teebatch, "demos", "export", "-q", demos, "--table", t,
                            "--format", "parquet", "-o", path], check=True)
            lines = subprocess.run([teebatch, "demos", "export", "-q", demos, "--table", t,
                                    "--format", "jsonl"], check=True,
                                   capture_output=True).stdout.decode().splitlines()
            table = pq.read_table(path)
            types = {f.name: f.type for f in table.schema}
            for name, ty in types.items():
                if ty not in (pa.int32(), pa.bool_(), pa.string()) and \
                        not (name.endswith("_s") and ty == pa.float64()):
                    problems.append(f"{t}.{name}: {ty}")
            for name in ("demo", "demo_sha256", "name", "kind", "change", "mode", "killer_name",
                         "weapon_name", "team_name", "emote_name", "map_name"):
                if name in types and types[name] != pa.string():
                    problems.append(f"{t}.{name} is {types[name]}, not a plain string")
            rows = table.to_pylist()
            want = [json.loads(line) for line in lines]
            if rows != want:
                problems.append(f"{t}: {len(rows)} Parquet rows differ from {len(want)} JSON rows")
            print(f"spark/test: table {t}: {len(rows)} rows, {len(types)} columns read by "
                  f"pyarrow {pa.__version__}: {'ok' if not problems else 'FAILED'}", flush=True)
    return problems


def largest(out, inputs):
    sizes = [os.path.getsize(os.path.join(r, f)) for i in inputs for r, _, fs in
             os.walk(job.local_path(os.path.abspath(i) if not job.is_uri(i) else i))
             for f in fs]
    return max(sizes) + 4096


def check_arguments():
    """spark/run's pass-through options: refused where spark/run sets them
    or where they cannot apply."""
    problems = []
    for args, storage, want in [
        (["--verify=crc", "--glob", "a/**", "--max-file-bytes", "64M"], False, None),
        (["--glob", "a/**"], True, "paths mode only"),
        (["--format", "json"], False, "set by spark/run"),
        (["-j4"], False, "set by spark/run"),
    ]:
        got = job.check_index_args(args, storage)
        if (got is None) != (want is None) or (want and want not in got):
            problems.append(f"check_index_args({args}, storage={storage}): {got!r}")
    if job.absolute_inputs(["a/b", "hdfs://nn/x"]) != [os.path.abspath("a/b"), "hdfs://nn/x"]:
        problems.append("relative INPUTs are not made absolute")
    if job.cut_by_bytes(list("abcdef"), [100, 0, 0, 0, 0, 100], 2) != [list("abc"), list("def")]:
        problems.append(f"cut_by_bytes: {job.cut_by_bytes(list('abcdef'), [100, 0, 0, 0, 0, 100], 2)}")
    return problems


def main():
    teebatch = os.path.abspath(sys.argv[1])
    datasets = os.path.abspath(sys.argv[2])
    table_problems = check_tables(teebatch, os.path.join(datasets, "demos"))
    table_problems += check_arguments()
    t0 = time.time()
    spark = job.session("local[2,4]", "teebatch-spark-test")
    startup = time.time() - t0
    print(f"spark/test: Spark {spark.version} started in {startup:.1f} s", flush=True)
    failures = []
    maps, demos = os.path.join(datasets, "maps"), os.path.join(datasets, "demos")
    # A relative INPUT (tasks run elsewhere: made absolute) and index
    # options passed through (`spark/run ... -- --verify=crc`).
    os.chdir(os.path.dirname(maps))
    cases = [
        ("maps", [os.path.basename(maps)], 5, None, ["--verify=crc"]),
        ("maps", ["file://" + maps], 5, None, []),
        ("demos", [demos], 3, None, []),
        ("demos", ["file://" + demos], 3, None, []),
        ("demos", [demos], 3, "kill", []),
    ]
    try:
        with tempfile.TemporaryDirectory(prefix="teebatch-spark-test-") as tmp:
            # Files teebatch cannot read are records with their errors, not
            # failed tasks: two good maps, a truncated one, one that is no map.
            bad = os.path.join(tmp, "bad")
            os.makedirs(bad)
            good = sorted(os.path.join(r, f) for r, _, fs in os.walk(maps)
                          for f in fs if f.endswith(".map"))[:2]
            for i, g in enumerate(good):
                shutil.copyfile(g, os.path.join(bad, f"good{i}.map"))
            with open(good[0], "rb") as f:
                head = f.read(1000)
            with open(os.path.join(bad, "truncated.map"), "wb") as f:
                f.write(head)
            with open(os.path.join(bad, "junk.map"), "wb") as f:
                f.write(b"not a map\n")
            cases += [
                ("maps", [bad], 2, None, []),
                ("maps", ["file://" + bad], 2, None, []),
            ]
            for i, (kind, inputs, parts, fault, index_args) in enumerate(cases):
                out = os.path.join(tmp, f"out{i}")
                marker = os.path.join(tmp, f"killed{i}") if fault else None
                t = time.time()
                doc = job.run_job(spark, kind, inputs, out, teebatch, parts, marker, index_args)
                run = doc["run"]
                name = f"{kind} {run['mode']} mode{' (teebatch killed once)' if fault else ''}"
                problems = job.verify(kind, job.absolute_inputs(inputs), out, teebatch, index_args)
                if index_args == ["--verify=crc"]:
                    crcs = [r.get("data_crc32") for r in
                            job.parquet_records(os.path.join(out, "records"))[0]]
                    if not all(crcs):
                        problems.append("--verify=crc did not reach the tasks (no data_crc32)")
                # Balanced by bytes: no partition more than total/N plus its
                # largest file (paths mode: the driver's cut).
                by = run["bytes_per_partition"]
                if run["mode"] == "paths" and max(by) > sum(by) / parts + largest(out, inputs):
                    problems.append(f"partitions not balanced by bytes: {by}")
                if inputs[0].endswith("/bad") and doc["failed"] != 2:
                    problems.append(f"{doc['failed']} files failed, not 2")
                if doc["files"] != sum(run["files_per_partition"]):
                    problems.append("files per partition do not add up to the files")
                if fault:
                    if not os.path.exists(marker):
                        problems.append("the fault hook did not run")
                    if run["task_attempts"][0] != 2:
                        problems.append(f"partition 0 ran {run['task_attempts'][0]} times, not 2")
                    if any(a != 1 for a in run["task_attempts"][1:]):
                        problems.append(f"other partitions retried: {run['task_attempts']}")
                elif any(a != 1 for a in run["task_attempts"]):
                    problems.append(f"tasks retried without a fault: {run['task_attempts']}")
                status = "ok" if not problems else "FAILED"
                print(f"spark/test: {name}: {doc['files']} files ({doc['failed']} failed) in "
                      f"{run['partitions']} partitions {run['files_per_partition']}, "
                      f"attempts {run['task_attempts']}, {time.time() - t:.1f} s: {status}",
                      flush=True)
                for p in problems:
                    print(f"  {p}", flush=True)
                    failures.append(f"{name}: {p}")
    finally:
        spark.stop()
    failures += table_problems
    for p in table_problems:
        print(f"  table: {p}", flush=True)
    print(f"spark/test: {len(cases)} cases, {len(failures)} failures, "
          f"{time.time() - t0:.1f} s in all", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
