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
import signal
import subprocess
import sys
import tempfile
import threading
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


def largest(inputs):
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


def run_case(spark, case, tmp, teebatch, i):
    """Runs one case; returns (line, problems)."""
    kind, inputs, parts = case["kind"], case["inputs"], case["parts"]
    fault = case.get("fault")
    index_args = case.get("index_args", [])
    out = os.path.join(tmp, f"out{i}")
    marker = os.path.join(tmp, f"killed{i}") if fault == "kill" else None
    t = time.time()
    killer = None
    hold = None
    if fault == "worker":
        hold = os.path.join(tmp, f"hold{i}")
        os.makedirs(hold)
        killer = WorkerKiller(case["cluster"], hold)
        killer.start()
    if kind == "export":
        doc = job.run_export(spark, inputs, out, teebatch, case["table"], parts, marker,
                             hold=hold)
        run = doc["run"]
        problems = job.verify_export(job.absolute_inputs(inputs), out, teebatch, case["table"])
        if doc["errors"]:
            problems.append(f"errors: {doc['errors'][:3]}")
        what = f"{doc['rows']} {case['table']} rows of {doc['files']} demos"
        records = os.path.join(out, case["table"])
        name = f"export {case['table']} {run['mode']} mode"
    else:
        doc = job.run_job(spark, kind, inputs, out, teebatch, parts, marker, index_args,
                          hold=hold)
        run = doc["run"]
        problems = job.verify(kind, job.absolute_inputs(inputs), out, teebatch, index_args)
        what = f"{doc['files']} files ({doc['failed']} failed)"
        records = os.path.join(out, "records")
        name = f"{kind} {run['mode']} mode"
        if case.get("files") is not None and doc["files"] != case["files"]:
            problems.append(f"{doc['files']} files, not {case['files']} (the glob)")
        if "--verify=crc" in index_args:
            crcs = [r.get("data_crc32") for r in job.parquet_records(records)[0]]
            if not all(crcs):
                problems.append("--verify=crc did not reach the tasks (no data_crc32)")
        if case.get("failed") is not None and doc["failed"] != case["failed"]:
            problems.append(f"{doc['failed']} files failed, not {case['failed']}")
    if killer:
        killer.join()
    name += {"kill": " (teebatch killed once)", "worker": " (a worker JVM killed)"}.get(fault, "")
    if case.get("cluster"):
        name += " on the cluster"
    # Balanced by bytes: no partition more than total/N plus its largest
    # file (paths mode: the driver's cut; export: per bucket, so N + B).
    by = run["bytes_per_partition"]
    if run["mode"] == "paths" and kind != "export" and \
            max(by) > sum(by) / parts + largest(inputs):
        problems.append(f"partitions not balanced by bytes: {by}")
    # Spark wrote the records (its commit protocol's marker).
    if not os.path.exists(os.path.join(records, "_SUCCESS")):
        problems.append(f"no {records}/_SUCCESS: the rows were not written by Spark")
    if doc["files"] != sum(run["files_per_partition"]):
        problems.append("files per partition do not add up to the files")
    if case.get("cluster"):
        # Executors ran the shipped copy (in their work directories), not
        # the binary the driver was given.
        exe = run["executables"]
        if not exe or any(e == teebatch or not e.startswith(os.path.join(STATE, "work", ""))
                          for e in exe):
            problems.append(f"executors did not run the shipped binary: {exe}")
    if fault == "kill":
        if not os.path.exists(marker):
            problems.append("the fault hook did not run")
        if run["task_attempts"][0] != 2:
            problems.append(f"partition 0 ran {run['task_attempts'][0]} times, not 2")
        if any(a != 1 for a in run["task_attempts"][1:]):
            problems.append(f"other partitions retried: {run['task_attempts']}")
    elif fault == "worker":
        if not killer.killed:
            problems.append(f"no worker was killed: {killer.note}")
        elif len(run["hosts"]) < 1:
            problems.append("no hosts")
    elif any(a != 1 for a in run["task_attempts"]):
        problems.append(f"tasks retried without a fault: {run['task_attempts']}")
    line = (f"spark/test: {name}: {what} in {run['partitions']} partitions "
            f"{run['files_per_partition']}, attempts {run['task_attempts']}, "
            f"{time.time() - t:.1f} s: {'ok' if not problems else 'FAILED'}")
    return name, line, problems


def run_cases(spark, cases, tmp, teebatch, failures, first=0):
    for i, case in enumerate(cases, start=first):
        name, line, problems = run_case(spark, case, tmp, teebatch, i)
        print(line, flush=True)
        for p in problems:
            print(f"  {p}", flush=True)
            failures.append(f"{name}: {p}")


def main():
    teebatch = os.path.abspath(sys.argv[1])
    datasets = os.path.abspath(sys.argv[2])
    table_problems = check_tables(teebatch, os.path.join(datasets, "demos"))
    table_problems += check_arguments()
    t0 = time.time()
    failures = []
    maps, demos = os.path.join(datasets, "maps"), os.path.join(datasets, "demos")
    ncases = 0
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
        # A relative INPUT (tasks run elsewhere: made absolute) and index
        # options passed through (`spark/run ... -- --verify=crc`).
        os.chdir(os.path.dirname(maps))
        local_cases = [
            {"kind": "maps", "inputs": [os.path.basename(maps)], "parts": 5,
             "index_args": ["--verify=crc", "--glob", "ddnet*/**"], "files": 48},
            {"kind": "maps", "inputs": ["file://" + os.path.join(maps, "ddnet")], "parts": 3},
            {"kind": "demos", "inputs": ["file://" + demos], "parts": 3},
            {"kind": "demos", "inputs": [demos], "parts": 3, "fault": "kill"},
            {"kind": "maps", "inputs": [bad], "parts": 2, "failed": 2},
            {"kind": "maps", "inputs": ["file://" + bad], "parts": 2, "failed": 2},
            {"kind": "export", "table": "positions", "inputs": [demos], "parts": 3},
        ]
        t = time.time()
        spark = job.session("local[2,4]", "teebatch-spark-test", QUICK_JVM)
        print(f"spark/test: Spark {spark.version} started in {time.time() - t:.1f} s (local[2,4])",
              flush=True)
        try:
            run_cases(spark, local_cases, tmp, teebatch, failures)
        finally:
            spark.stop()
        ncases += len(local_cases)
        ncases += cluster_cases(tmp, teebatch, demos, failures, len(local_cases))
    failures += table_problems
    for p in table_problems:
        print(f"  table: {p}", flush=True)
    print(f"spark/test: {ncases} cases, {len(failures)} failures, "
          f"{time.time() - t0:.1f} s in all", flush=True)
    return 1 if failures else 0


HERE = os.path.dirname(os.path.abspath(__file__))
# Short jobs: the JIT's first tier only and the serial collector start the
# JVMs about a third faster here (2 shared cores); spark/cluster's daemons
# take the same through SPARK_DAEMON_JAVA_OPTS.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
STATE = os.path.join(HERE, ".cluster")
WORKER = "org.apache.spark.deploy.worker.Worker"


class WorkerKiller(threading.Thread):
    """Kills worker 2's JVM (SIGKILL) while one of its executors runs a
    task: the job's first task attempts wait in a hold directory (the job's
    `hold` hook) and name the teebatch they are about to run, which lies in
    their worker's directory; once one of worker 2 waits, its JVM is killed
    and the tasks are let go. The executors it started end with it, and
    Spark runs their tasks again on worker 1."""

    def __init__(self, state, hold):
        super().__init__(daemon=True)
        self.state = state
        self.hold = hold
        self.killed = False
        self.note = ""

    def run(self):
        try:
            self.note = self.kill()
        finally:
            with open(os.path.join(self.hold, job.HOLD_RELEASE), "w"):
                pass

    def kill(self):
        pidfile = os.path.join(self.state, "pids", f"spark-teebatch-{WORKER}-2.pid")
        try:
            with open(pidfile) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError) as e:
            return f"no pid of worker 2: {e}"
        work = os.path.join(self.state, "work", "2", "")
        deadline = time.time() + 120
        while time.time() < deadline:
            for name in sorted(os.listdir(self.hold)):
                if not name.startswith("task-") or name.endswith(".tmp"):
                    continue
                with open(os.path.join(self.hold, name)) as f:
                    exe = f.read()
                if exe.startswith(work):
                    os.kill(pid, signal.SIGKILL)
                    self.killed = True
                    return f"killed worker 2 (pid {pid}) while its {name} waited to run {exe}"
            time.sleep(0.05)
        return "no task ran on worker 2 within 2 minutes"


def cluster_cases(tmp, teebatch, demos, failures, first):
    """The same job on a standalone cluster of two workers (spark/cluster):
    both input modes and the export, the binary shipped to the executors,
    a teebatch killed, and a whole worker JVM killed during a job."""
    cluster = os.path.join(HERE, "cluster")
    t = time.time()
    env = dict(os.environ, SPARK_DAEMON_JAVA_OPTS=QUICK_JVM)
    r = subprocess.run([cluster, "start", "--workers", "2"], env=env, check=False)
    if r.returncode != 0:
        failures.append("spark/cluster start failed")
        subprocess.run([cluster, "stop"], check=False)
        return 0
    print(f"spark/test: spark/cluster start --workers 2: {time.time() - t:.1f} s", flush=True)
    cases = [
        {"kind": "export", "table": "chat", "inputs": ["file://" + demos], "parts": 3,
         "cluster": STATE},
        {"kind": "demos", "inputs": [demos], "parts": 3, "fault": "kill", "cluster": STATE},
        {"kind": "export", "table": "chat", "inputs": [demos], "parts": 4, "fault": "worker",
         "cluster": STATE},
    ]
    try:
        t = time.time()
        spark = job.session("spark://127.0.0.1:7077", "teebatch-spark-cluster-test", QUICK_JVM)
        print(f"spark/test: Spark started in {time.time() - t:.1f} s (spark://127.0.0.1:7077)",
              flush=True)
        try:
            run_cases(spark, cases, tmp, teebatch, failures, first)
        finally:
            spark.stop()
    finally:
        subprocess.run([cluster, "stop"], check=False)
    return len(cases)


if __name__ == "__main__":
    sys.exit(main())
