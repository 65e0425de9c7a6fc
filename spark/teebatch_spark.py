"""teebatch on Apache Spark: `maps index` / `demos index` over a cluster.

Usage (what `spark/run` calls; also a `spark-submit` application):

    teebatch_spark.py maps|demos INPUT... --out DIR [--master URL]
        [--partitions N] --teebatch PATH [--check-local] [-- INDEX-OPTION...]

INPUTs that are plain paths are read by the executors themselves (paths
mode): the driver lists the files with `teebatch KIND index --list` (the
same walk, extension and archive rules as one machine), sorts them and cuts
the list into N contiguous partitions; each partition pipes its paths into
`teebatch KIND index --files-from - -0` in a subprocess. INPUTs that are URIs
(`file:///...`, `hdfs://...`, `s3a://...`) are read by Spark (storage mode):
`binaryFiles` hands each partition its (URI, bytes) pairs, which are written
as a tar stream to `teebatch KIND index -` (records are named by the URI).

Each partition's teebatch writes its records as Parquet and its summary as
JSON into a task-local temporary directory; the task returns both files'
bytes to the driver. The driver writes DIR/records/part-NNNNN.parquet (temp
name, then rename) for each partition once, whatever task attempts ran, and
merges the partition summaries with `teebatch merge` into DIR/summary.json.

A file teebatch cannot read is a record with its error (teebatch exits 1,
the task succeeds). A teebatch process that dies (a signal, exit code other
than 0 and 1) fails the task, and Spark runs it again.
"""

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time

# A URI scheme (`file:`, `hdfs:`, `s3a:`); one letter is a Windows drive.
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")
# Names a member of an archive in teebatch's listing.
ARCHIVE_SEPARATOR = "!/"
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")
# Kills the teebatch subprocess of partition 0's first attempt once (the
# marker file records that it happened): the fault test's hook.
FAULT_ENV = "TEEBATCH_SPARK_KILL_ONCE"
EXT = {"maps": "map", "demos": "demo"}


def is_uri(s):
    return bool(URI.match(s))


def list_paths(teebatch, kind, inputs, index_args=()):
    """The units of work of INPUT paths as teebatch selects them (with the
    pass-through index options: globs, depth), sorted: files, and whole
    archives (teebatch lists their members; an archive is not split over
    partitions)."""
    out = subprocess.run(
        [teebatch, kind, "index", *index_args, "--list", "-0", "--", *inputs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    if out.returncode != 0:
        sys.stderr.write(out.stderr.decode(errors="replace"))
        raise SystemExit(f"teebatch {kind} index --list failed ({out.returncode})")
    units = []
    seen = set()
    # `--list -0`: raw path bytes, each ended by a NUL (any name works,
    # newlines included).
    for path in out.stdout.split(b"\0"):
        if not path:
            continue
        if ARCHIVE_SEPARATOR.encode() in path:
            head = path.split(ARCHIVE_SEPARATOR.encode(), 1)[0]
            if head.lower().endswith(tuple(s.encode() for s in ARCHIVE_SUFFIXES)):
                path = head
        if path not in seen:
            seen.add(path)
            units.append(path)
    units.sort()
    return units


def run_teebatch(teebatch, args, stdin_writer, work, kill_once=None):
    """Runs teebatch with `args` in `work`, feeding stdin from
    `stdin_writer(pipe)`. Returns (records Parquet bytes, summary bytes,
    exit code, stderr). Raises (failing the task) when teebatch did not
    finish with exit code 0 or 1."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    fault = kill_once
    records = os.path.join(work, "records.parquet")
    summary = os.path.join(work, "summary.json")
    cmd = [teebatch, *args, "--format", "parquet", "-o", records, "--summary", summary,
           "--quiet", "--jobs", "1"]
    with open(os.path.join(work, "stderr"), "wb") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=err, cwd=work)
        kill = False
        if fault and ctx is not None and ctx.partitionId() == 0:
            try:
                fd = os.open(fault, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.close(fd)
                kill = True
            except FileExistsError:
                pass
        try:
            if kill:
                proc.send_signal(signal.SIGKILL)
            else:
                stdin_writer(proc.stdin)
        except BrokenPipeError:
            pass
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
        code = proc.wait()
    with open(os.path.join(work, "stderr"), "rb") as f:
        stderr = f.read().decode(errors="replace")
    if code not in (0, 1):
        how = f"signal {-code}" if code < 0 else f"exit code {code}"
        raise RuntimeError(f"teebatch {' '.join(args)} ended with {how}:\n{stderr[-4000:]}")
    with open(records, "rb") as f:
        rec = f.read()
    with open(summary, "rb") as f:
        summ = f.read()
    return rec, summ, code, stderr


def executable(name):
    """The teebatch shipped with the job (`addFile`), executable."""
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    if not os.access(path, os.X_OK):
        os.chmod(path, 0o755)
    return path


def task_result(index, n_files, res, n_bytes):
    from pyspark import TaskContext

    rec, summ, code, stderr = res
    ctx = TaskContext.get()
    return {
        "partition": index,
        "files": n_files,
        "bytes": n_bytes,
        "records": rec,
        "summary": summ,
        "exit_code": code,
        "stderr": stderr[-2000:],
        "attempt": ctx.attemptNumber() if ctx else 0,
        "host": socket.gethostname(),
    }


def paths_partition(kind, binary_name, kill_once, index_args=()):
    def run(index, it):
        paths = [p for chunk in it for p in chunk]
        if not paths:
            return
        teebatch = executable(binary_name)
        with tempfile.TemporaryDirectory(prefix="teebatch-spark-") as work:
            def feed(pipe):
                pipe.write(b"\0".join(paths))
            res = run_teebatch(teebatch, [kind, "index", *index_args, "--files-from", "-", "-0"], feed, work,
                               kill_once)
        yield task_result(index, len(paths), res, sum(unit_size(p) for p in paths))

    return run


def storage_partition(kind, binary_name, kill_once, index_args=()):
    ext = "." + EXT[kind]

    def wanted(uri):
        u = uri.lower()
        return u.endswith(ext) or u.endswith(ARCHIVE_SUFFIXES)

    def run(index, it):
        first = next(it, None)
        if first is None:
            return
        teebatch = executable(binary_name)
        count = [0, 0]
        with tempfile.TemporaryDirectory(prefix="teebatch-spark-") as work:
            def feed(pipe):
                # One member per file, named by its URI, streamed as Spark
                # hands the files over.
                with tarfile.open(fileobj=pipe, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                    for row in _chain(first, it):
                        uri, data = row.path, row.content
                        if not wanted(uri):
                            continue
                        info = tarfile.TarInfo(uri)
                        info.size = len(data)
                        info.mode = 0o644
                        tar.addfile(info, _BytesReader(data))
                        count[0] += 1
                        count[1] += len(data)
            res = run_teebatch(teebatch, [kind, "index", *index_args, "-"], feed, work, kill_once)
        if count[0]:
            yield task_result(index, count[0], res, count[1])

    return run


def _chain(first, it):
    yield first
    yield from it


class _BytesReader:
    """A file object over bytes without a copy (tarfile reads it)."""

    def __init__(self, data):
        self.view = memoryview(data)
        self.pos = 0

    def read(self, n=-1):
        end = len(self.view) if n < 0 else min(len(self.view), self.pos + n)
        b = self.view[self.pos : end].tobytes()
        self.pos = end
        return b


def cut_by_bytes(units, sizes, n):
    """Cuts the sorted `units` into at most `n` contiguous, non-empty slices
    of about equal bytes: a slice ends where the running total of `sizes`
    passes the next multiple of total/n (a unit larger than that is a slice
    of its own). Every unit counts at least one byte plus a small opening
    cost, so that a collection of empty files is still cut by count."""
    cost = [s + 4096 for s in sizes]
    total = sum(cost)
    chunks, current, acc, k = [], [], 0, 1
    for u, c in zip(units, cost):
        current.append(u)
        acc += c
        if acc * n >= k * total and len(chunks) < n - 1:
            chunks.append(current)
            current = []
            while k * total <= acc * n:
                k += 1
    if current:
        chunks.append(current)
    return chunks


def unit_size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        # teebatch reports the file's error; it weighs as an empty file.
        return 0


def default_partitions(sc, n_files):
    """Four tasks per core, at least one file and at most 5,000 files per
    partition."""
    n = max(4 * sc.defaultParallelism, -(-n_files // 5000))
    return max(1, min(n, n_files))


def storage_frame(spark, inputs, n):
    """The files under the URIs as a DataFrame of (path, length, content),
    read by Spark's `binaryFile` source, in about `n` partitions of about
    equal bytes: Spark packs the files, largest first, into partitions of at
    most total/n bytes (plus an opening cost of 64 KiB per file)."""
    total = 0
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    jvm = spark.sparkContext._jvm
    for i in inputs:
        path = jvm.org.apache.hadoop.fs.Path(i)
        fs = path.getFileSystem(conf)
        total += fs.getContentSummary(path).getLength()
    open_cost = 64 << 10
    spark.conf.set("spark.sql.files.openCostInBytes", str(open_cost))
    spark.conf.set("spark.sql.files.minPartitionNum", str(max(1, n)))
    # Large enough that total/n (not this cap) decides the split size.
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(128 << 20, total)))
    return (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
            .load(inputs).select("path", "content"))


def write_atomic(path, data):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def executors(sc):
    """Executors of the application (the driver is one in local mode)."""
    try:
        status = sc._jsc.sc().getExecutorMemoryStatus()
        n = status.size()
        return n if sc.master.startswith("local") else max(1, n - 1)
    except Exception:  # noqa: BLE001 - only a figure for `run`
        return None


# Options of `teebatch KIND index` that spark/run sets itself.
RESERVED = ("--format", "-o", "--output", "--summary", "--jobs", "-j", "--files-from", "-0",
            "--null", "--list", "--shard", "--progress", "-q", "--quiet")
# Options that select files in a directory walk: paths mode only (in storage
# mode Spark lists the files, and teebatch ignores them for a tar stream).
WALK = ("--glob", "-g", "--exclude", "--max-depth", "--no-follow", "--hidden")


def check_index_args(index_args, storage):
    """An error message for pass-through options spark/run cannot take, or
    None."""
    for a in index_args:
        if not a.startswith("-"):
            continue  # an option's value
        name = a.split("=", 1)[0]
        if name in RESERVED or (name.startswith("-j") and not name.startswith("--")):
            return f"{name} is set by spark/run (not an option to pass after --)"
        if storage and (name in WALK or name.startswith("-g")):
            return (f"{name} selects files in a directory walk: paths mode only (in storage "
                    "mode Spark lists every file under the URIs)")
    return None


def absolute_inputs(inputs):
    """INPUT paths made absolute (tasks run in other directories); URIs
    unchanged."""
    return [i if is_uri(i) else os.path.abspath(i) for i in inputs]


def run_job(spark, kind, inputs, out, teebatch, partitions=None, kill_once=None,
            index_args=()):
    """Runs the job; returns the summary document written to
    OUT/summary.json. `kill_once`: a marker file path; the first task of
    partition 0 that creates it kills its teebatch (the fault test).
    `index_args`: options passed to every `teebatch KIND index`."""
    sc = spark.sparkContext
    inputs = absolute_inputs(inputs)
    index_args = list(index_args)
    started = time.time()
    binary_name = os.path.basename(teebatch)
    sc.addFile(teebatch)
    if __name__ != "__main__":
        # Imported (spark/test): the executors' Python needs this module for
        # the partition functions.
        sc.addPyFile(os.path.abspath(__file__))
    storage = [is_uri(i) for i in inputs]
    if any(storage) and not all(storage):
        raise SystemExit("INPUTs are either all paths or all URIs (storage mode)")
    storage = all(storage)
    problem = check_index_args(index_args, storage)
    if problem:
        raise SystemExit(problem)
    if storage:
        df = storage_frame(spark, inputs, partitions or 4 * sc.defaultParallelism)
        listed = None
        results = df.rdd.mapPartitionsWithIndex(
            storage_partition(kind, binary_name, kill_once, index_args)).collect()
    else:
        units = list_paths(teebatch, kind, inputs, index_args)
        if not units:
            raise SystemExit(f"no *.{EXT[kind]} files found in {' '.join(inputs)}")
        n = partitions or default_partitions(sc, len(units))
        n = max(1, min(n, len(units)))
        listed = len(units)
        # One element per partition: contiguous slices of the sorted list,
        # of about equal bytes (parallelize alone would cut it in batches
        # of 1,024 paths).
        chunks = cut_by_bytes(units, [unit_size(u) for u in units], n)
        rdd = sc.parallelize(chunks, len(chunks))
        results = rdd.mapPartitionsWithIndex(
            paths_partition(kind, binary_name, kill_once, index_args)).collect()
    results.sort(key=lambda r: r["partition"])
    if not results:
        raise SystemExit(f"no *.{EXT[kind]} files found in {' '.join(inputs)}")

    records_dir = os.path.join(out, "records")
    os.makedirs(records_dir, exist_ok=True)
    for name in os.listdir(records_dir):
        if name.startswith("part-"):
            os.remove(os.path.join(records_dir, name))
    parts_dir = tempfile.mkdtemp(prefix="summaries-", dir=out)
    # Each non-empty partition's summary is recorded as shard k of N of the
    # job's INPUTs, so that `teebatch merge` refuses any partition twice and
    # the N shards collapse into the one-machine inputs.
    job_paths = sorted(set(inputs))
    summaries = []
    for k, r in enumerate(results, start=1):
        write_atomic(os.path.join(records_dir, f"part-{r['partition']:05d}.parquet"), r["records"])
        doc = json.loads(r["summary"])
        shard = f"{k}/{len(results)}" if len(results) > 1 else None
        # The task's own part keeps what the options record (e.g. `walk`).
        part = dict((doc.get("inputs") or {}).get("parts", [{}])[0])
        part.update({"paths": job_paths, "files_from": [], "shard": shard})
        doc["inputs"] = {"parts": [part]}
        p = os.path.join(parts_dir, f"part-{r['partition']:05d}.json")
        with open(p, "w") as f:
            json.dump(doc, f)
        summaries.append(p)
    merged = os.path.join(parts_dir, "merged.json")
    m = subprocess.run([teebatch, "merge", "-q", "-o", merged, *summaries],
                       stderr=subprocess.PIPE, check=False)
    if m.returncode != 0:
        raise SystemExit(f"teebatch merge failed: {m.stderr.decode(errors='replace')}")
    with open(merged) as f:
        doc = json.load(f)
    wall = time.time() - started
    files = sum(r["files"] for r in results)
    doc["run"] = {
        "engine": "spark",
        "spark_version": spark.version,
        "master": sc.master,
        "app_id": sc.applicationId,
        "mode": "storage" if storage else "paths",
        "executors": executors(sc),
        "default_parallelism": sc.defaultParallelism,
        "partitions": len(results),
        "files": files,
        "files_listed_by_driver": listed,
        "files_per_partition": [r["files"] for r in results],
        "bytes_per_partition": [r["bytes"] for r in results],
        "task_attempts": [r["attempt"] + 1 for r in results],
        "hosts": sorted({r["host"] for r in results}),
        "wall_s": round(wall, 3),
        "files_per_s": round(files / wall, 1) if wall > 0 else None,
        "teebatch_version": doc.get("run", {}).get("teebatch_version"),
        "partition_runs": [json.loads(r["summary"]).get("run") for r in results],
    }
    write_atomic(os.path.join(out, "summary.json"),
                 (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
    for p in os.listdir(parts_dir):
        os.remove(os.path.join(parts_dir, p))
    os.rmdir(parts_dir)
    return doc


# -- comparison with one machine (--check-local and spark/test) ---------------------------------

def local_path(s):
    """A `file:` URI as the local path it names; other strings unchanged."""
    if s.startswith("file://"):
        return s[len("file://"):]
    if s.startswith("file:"):
        return s[len("file:"):]
    return s


def strip_file_scheme(v):
    """`v` with every `file:` URI string replaced by its local path."""
    if isinstance(v, str):
        return local_path(v)
    if isinstance(v, list):
        return [strip_file_scheme(x) for x in v]
    if isinstance(v, dict):
        return {k: strip_file_scheme(x) for k, x in v.items()}
    return v


def normalize_record(v):
    """What JSON and Parquet may spell differently without a difference in
    content: nulls and absent fields, empty lists and objects, integer and
    float spellings, maps (pyarrow gives key/value pairs)."""
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, list):
        if not v:
            return None
        if all(isinstance(x, tuple) and len(x) == 2 for x in v):
            return normalize_record(dict(v))
        return [normalize_record(x) for x in v]
    if isinstance(v, dict):
        m = {k: normalize_record(x) for k, x in v.items()}
        m = {k: x for k, x in m.items() if x is not None}
        return m or None
    return v


def parquet_records(records_dir):
    import pyarrow.parquet as pq

    rows = []
    schemas = set()
    for name in sorted(os.listdir(records_dir)):
        if name.endswith(".parquet"):
            t = pq.read_table(os.path.join(records_dir, name))
            schemas.add(t.schema.to_string(show_schema_metadata=False))
            rows.extend(t.to_pylist())
    return rows, schemas


def verify(kind, inputs, out, teebatch, index_args=()):
    """Compares OUT with one teebatch run on this machine over the same
    inputs (`file:` URIs read as local paths): summary.json minus `run`,
    and the Parquet records with the JSONL records (by path). Returns a
    list of differences (empty: equal)."""
    local = [local_path(i) for i in inputs]
    problems = []
    with tempfile.TemporaryDirectory(prefix="teebatch-verify-") as d:
        jsonl = os.path.join(d, "records.jsonl")
        summary = os.path.join(d, "summary.json")
        pq_one = os.path.join(d, "one.parquet")
        r = subprocess.run([teebatch, kind, "index", *index_args, "--format", "json", "-o",
                            jsonl, "--summary", summary, "-q", "--", *local],
                           stderr=subprocess.PIPE, check=False)
        if r.returncode not in (0, 1):
            return [f"one-machine run failed: {r.stderr.decode(errors='replace')}"]
        subprocess.run([teebatch, kind, "index", *index_args, "--format", "parquet", "-o",
                        pq_one, "-q", "--", *local], stderr=subprocess.DEVNULL, check=False)
        with open(summary) as f:
            one = json.load(f)
        with open(os.path.join(out, "summary.json")) as f:
            dist = json.load(f)
        one.pop("run", None)
        dist.pop("run", None)
        if strip_file_scheme(dist) != one:
            problems.append("summary.json differs from the one-machine summary (minus run)")
            for k in sorted(set(one) | set(dist)):
                if strip_file_scheme(dist.get(k)) != one.get(k):
                    problems.append(f"  field {k!r}: one machine "
                                    f"{json.dumps(one.get(k))[:300]}, Spark "
                                    f"{json.dumps(strip_file_scheme(dist.get(k)))[:300]}")
        with open(jsonl) as f:
            want = {}
            for line in f:
                rec = json.loads(line)
                want[rec["path"]] = normalize_record(rec)
        rows, schemas = parquet_records(os.path.join(out, "records"))
        import pyarrow.parquet as pq

        one_schema = pq.read_table(pq_one).schema.to_string(show_schema_metadata=False)
        if schemas != {one_schema}:
            problems.append("the partitions' Parquet schema is not that of --format parquet")
        got = {}
        for row in rows:
            row["path"] = local_path(row["path"])
            if row["path"] in got:
                problems.append(f"record twice: {row['path']}")
            got[row["path"]] = normalize_record(row)
        if set(got) != set(want):
            missing = sorted(set(want) - set(got))[:5]
            extra = sorted(set(got) - set(want))[:5]
            problems.append(f"record paths differ: missing {missing}, extra {extra}")
        for p in sorted(set(got) & set(want)):
            if got[p] != want[p]:
                problems.append(f"record differs: {p}")
                if len(problems) > 20:
                    break
    return problems


def session(master, app_name="teebatch"):
    from pyspark.sql import SparkSession

    b = SparkSession.builder.appName(app_name)
    if master:
        b = b.master(master)
    b = b.config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
    # binaryFiles packs files into splits of at least this many bytes: small
    # enough that --partitions splits a collection of small files.
    b = b.config("spark.files.openCostInBytes", str(64 << 10))
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="spark/run",
        description="teebatch maps|demos index on Apache Spark: DIR/records/ (Parquet, "
        "one row per file) and DIR/summary.json (the merged summary).")
    ap.add_argument("kind", choices=["maps", "demos"])
    ap.add_argument("inputs", nargs="+", metavar="INPUT",
                    help="paths every executor can read (paths mode) or URIs Spark reads, "
                    "e.g. file:///data, hdfs://nn/demos, s3a://bucket/maps (storage mode)")
    ap.add_argument("--out", required=True, metavar="DIR", help="output directory")
    ap.add_argument("--master", help="Spark master URL (default: spark-submit's, else local[*])")
    ap.add_argument("--partitions", type=int, metavar="N",
                    help="partitions (default: 4 per core, at most 5,000 files each)")
    ap.add_argument("--teebatch", required=True, metavar="PATH",
                    help="the teebatch binary shipped to the executors")
    ap.add_argument("--check-local", action="store_true",
                    help="compare the output with one teebatch run on the driver's machine "
                    "(inputs it can read); exit 1 on a difference")
    ap.epilog = ("Options after `--` go to every `teebatch KIND index` (e.g. -- --verify=crc "
                 "--glob 'novice/**' --max-file-bytes 64M); spark/run sets --format, -o, "
                 "--summary, --jobs and --files-from itself.")
    argv = list(sys.argv[1:] if argv is None else argv)
    index_args = []
    if "--" in argv:
        cut = argv.index("--")
        argv, index_args = argv[:cut], argv[cut + 1:]
    a = ap.parse_args(argv)
    inputs = absolute_inputs(a.inputs)
    problem = check_index_args(index_args, all(is_uri(i) for i in inputs))
    if problem:
        ap.error(problem)
    if a.partitions is not None and a.partitions < 1:
        ap.error("--partitions must be at least 1")
    teebatch = os.path.abspath(a.teebatch)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    spark = session(a.master)
    startup = time.time() - t0
    try:
        doc = run_job(spark, a.kind, inputs, a.out, teebatch, a.partitions,
                      os.environ.get(FAULT_ENV), index_args)
    finally:
        spark.stop()
    run = doc["run"]
    print(f"spark: {run['files']} files in {run['partitions']} partitions "
          f"({min(run['files_per_partition'])}-{max(run['files_per_partition'])} files each) "
          f"on {run['master']}: {run['wall_s']:.1f} s (+ {startup:.1f} s Spark start-up), "
          f"{run['files_per_s']} files/s -> {a.out}/summary.json, {a.out}/records/",
          file=sys.stderr)
    code = 0
    if doc.get("failed"):
        print(f"spark: {doc['failed']} of {doc['files']} files failed (see their records)",
              file=sys.stderr)
        code = 1
    if a.check_local:
        problems = verify(a.kind, inputs, a.out, teebatch, index_args)
        for p in problems:
            print(f"check-local: {p}", file=sys.stderr)
        if problems:
            return 1
        print("check-local: summary.json and records equal one teebatch run on this machine",
              file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
