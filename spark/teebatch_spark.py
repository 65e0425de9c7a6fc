"""teebatch on Apache Spark: `maps index`, `demos index` and `demos export`
over a cluster.

Usage (what `spark/run` calls; also a `spark-submit` application):

    teebatch_spark.py maps|demos INPUT... --out DIR [--master URL]
        [--partitions N] --teebatch PATH [--check-local] [-- INDEX-OPTION...]
    teebatch_spark.py demos export INPUT... --table NAME --out DIR
        [--from TICK] [--to TICK] [--partitions N] [--buckets B]
        [--master URL] --teebatch PATH [--check-local]

INPUTs that are plain paths are read by the executors themselves (paths
mode): the driver lists the files with `teebatch KIND index --list` (the
same walk, extension and archive rules as one machine), sorts them and cuts
the list into N contiguous partitions of about equal bytes; each partition
pipes its paths into `teebatch ... --files-from - -0` in a subprocess.
INPUTs that are URIs (`file:///...`, `hdfs://...`, `s3a://...`) are read by
Spark (storage mode): the `binaryFile` source hands each partition its
(URI, bytes) rows, which are written as a tar stream to `teebatch ... -`
(records are named by the URI).

Each task (`mapInArrow`) reads its teebatch's Parquet output back with
pyarrow and yields the rows to Spark, which writes DIR/records/ (index) or
DIR/NAME/demo_bucket=K/ (export) with its own Parquet writer and output
committer. The driver receives one small report per partition through an
accumulator and merges the index summaries with `teebatch merge` into
DIR/summary.json.

A file teebatch cannot read is a record with its error (teebatch exits 1,
the task succeeds). A teebatch process that dies (a signal, exit code other
than 0 and 1) fails the task, and Spark runs it again.
"""

import argparse
import decimal
import functools
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
import zlib

# A URI scheme (`file:`, `hdfs:`, `s3a:`); one letter is a Windows drive.
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")
# Names a member of an archive in teebatch's listing.
ARCHIVE_SEPARATOR = "!/"
# Kills the teebatch subprocess of partition 0's first attempt once (the
# marker file records that it happened): the fault test's hook.
FAULT_ENV = "TEEBATCH_SPARK_KILL_ONCE"
# The file in a hold directory that lets held tasks go on (`hold_task`).
HOLD_RELEASE = "release"
EXT = {"maps": "map", "demos": "demo"}


def is_uri(s):
    return bool(URI.match(s))


@functools.lru_cache(maxsize=None)
def archive_suffixes(teebatch):
    """The name endings teebatch reads as archives (any case): the
    `archives:` line of `teebatch --version`, the binary's own list (asked
    once per binary: the listing and the job's spec both need it)."""
    out = subprocess.run([teebatch, "--version"], stdout=subprocess.PIPE, check=True)
    for line in out.stdout.decode(errors="replace").splitlines():
        if line.startswith("archives:"):
            return tuple(line.split()[1:])
    raise SystemExit(f"`{teebatch} --version` names no archives: not a teebatch binary?")


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
    suffixes = tuple(a.encode() for a in archive_suffixes(teebatch))
    units = []
    seen = set()
    # `--list -0`: raw path bytes, each ended by a NUL (any name works,
    # newlines included).
    for path in out.stdout.split(b"\0"):
        if not path:
            continue
        if ARCHIVE_SEPARATOR.encode() in path:
            head = path.split(ARCHIVE_SEPARATOR.encode(), 1)[0]
            if head.lower().endswith(suffixes):
                path = head
        if path not in seen:
            seen.add(path)
            units.append(path)
    units.sort()
    return units


def hold_task(hold, partition, teebatch):
    """The worker fault test's hook: the first attempt of each task writes
    HOLD/task-P holding the path of the teebatch it is about to run (under
    its worker's directory, so it names the worker) and waits until
    HOLD/release exists (2 minutes at most). The test kills a worker while
    one of its tasks surely runs, however short the tasks are."""
    mark = os.path.join(hold, f"task-{partition}")
    with open(mark + ".tmp", "w") as f:
        f.write(teebatch)
    os.replace(mark + ".tmp", mark)
    release = os.path.join(hold, HOLD_RELEASE)
    deadline = time.time() + 120
    while not os.path.exists(release) and time.time() < deadline:
        time.sleep(0.05)


def run_teebatch(teebatch, args, stdin_writer, work, kill_once=None, want_summary=True,
                 hold=None):
    """Runs teebatch with `args` in `work`, feeding stdin from
    `stdin_writer(pipe)`. Returns (path of the records' Parquet file,
    summary bytes or None, exit code, stderr). Raises (failing the task)
    when teebatch did not finish with exit code 0 or 1. `hold`: see
    `hold_task`."""
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if hold and ctx is not None and ctx.attemptNumber() == 0:
        hold_task(hold, ctx.partitionId(), teebatch)
    fault = kill_once
    records = os.path.join(work, "records.parquet")
    summary = os.path.join(work, "summary.json")
    cmd = [teebatch, *args, "--format", "parquet", "-o", records,
           *(["--summary", summary] if want_summary else []), "--quiet", "--jobs", "1"]
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
    summ = None
    if want_summary:
        with open(summary, "rb") as f:
            summ = f.read()
    return records, summ, code, stderr


def executable(name):
    """The teebatch shipped with the job (`addFile`), executable."""
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    if not os.access(path, os.X_OK):
        os.chmod(path, 0o755)
    return path


class _BytesReader:
    """A file object over bytes without a copy (tarfile reads it)."""

    def __init__(self, data):
        self.view = memoryview(data).cast("B")
        self.pos = 0

    def read(self, n=-1):
        end = len(self.view) if n < 0 else min(len(self.view), self.pos + n)
        b = self.view[self.pos : end].tobytes()
        self.pos = end
        return b


class ListParam:
    """An accumulator of lists (Spark merges the updates of each
    successful task once: a failed or superseded attempt adds nothing)."""

    def zero(self, value):
        return []

    def addInPlace(self, a, b):
        a.extend(b)
        return a


def spark_arrow_type(t):
    """The Arrow type Spark takes for `t`: unsigned integers widened as
    Spark's own Parquet reader does (uint64 to decimal(20,0)), dictionaries
    and large types as their plain forms, nested types converted inside."""
    import pyarrow as pa

    widen = {pa.uint8(): pa.int16(), pa.uint16(): pa.int32(), pa.uint32(): pa.int64(),
             pa.uint64(): pa.decimal128(20, 0)}
    if t in widen:
        return widen[t]
    if pa.types.is_dictionary(t):
        return spark_arrow_type(t.value_type)
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(spark_arrow_type(f.type)) for f in t])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(t.value_field.with_type(spark_arrow_type(t.value_type)))
    if pa.types.is_map(t):
        return pa.map_(spark_arrow_type(t.key_type),
                       t.item_field.with_type(spark_arrow_type(t.item_type)))
    return t


def spark_arrow_schema(schema):
    import pyarrow as pa

    return pa.schema([f.with_type(spark_arrow_type(f.type)) for f in schema])


def spark_type_string(schema):
    """Column names and Spark types of an Arrow schema (nullability and
    the names of list items aside): what two Parquet writers agree on."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(spark_arrow_schema(schema)).simpleString()


def output_schema(teebatch, args):
    """The Arrow schema of the Parquet file `teebatch ARGS --format parquet`
    writes (it writes the schema for no input at all)."""
    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory(prefix="teebatch-schema-") as d:
        f = os.path.join(d, "empty.parquet")
        r = subprocess.run([teebatch, *args, "--files-from", "-", "--format", "parquet", "-o", f,
                            "-q"], input=b"", stderr=subprocess.PIPE, check=False)
        if not os.path.exists(f):
            raise SystemExit(f"teebatch {' '.join(args)} wrote no schema: "
                             f"{r.stderr.decode(errors='replace')}")
        return pq.read_schema(f).remove_metadata()


def bucket_of(demo, buckets):
    """The output bucket of a demo path: CRC-32 of its UTF-8 bytes modulo
    the bucket count (Spark SQL: `pmod(crc32(demo), B)`)."""
    return zlib.crc32(demo.encode("utf-8", "surrogateescape")) % buckets


def arrow_task(spec, acc):
    """The function `mapInArrow` runs per partition: one teebatch process
    over the partition's files, its Parquet output read back in batches and
    yielded to Spark (cast to the types Spark takes; with `buckets`, the
    column `demo_bucket` added), and one report into the accumulator `acc`:
    the partition, its files, bytes, rows, exit code, stderr and (index)
    the summary."""

    def run(batches):
        import pyarrow as pa
        import pyarrow.parquet as pq
        from pyspark import TaskContext

        ctx = TaskContext.get()
        teebatch = executable(spec["binary"])
        ext = "." + EXT[spec["kind"]]
        archives = spec["archives"]
        count = [0, 0]
        with tempfile.TemporaryDirectory(prefix="teebatch-spark-") as work:
            if spec["storage"]:
                def feed(pipe):
                    # One member per file, named by its URI, streamed as
                    # Spark hands the files over.
                    with tarfile.open(fileobj=pipe, mode="w|", format=tarfile.PAX_FORMAT) as tar:
                        for b in batches:
                            paths, contents = b.column("path"), b.column("content")
                            for i in range(b.num_rows):
                                uri = paths[i].as_py()
                                u = uri.lower()
                                if not (u.endswith(ext) or u.endswith(archives)):
                                    continue
                                data = contents[i].as_buffer()
                                info = tarfile.TarInfo(uri)
                                info.size = data.size
                                info.mode = 0o644
                                tar.addfile(info, _BytesReader(data))
                                count[0] += 1
                                count[1] += data.size
                args = [*spec["args"], "-"]
            else:
                paths = [p for b in batches for chunk in b.column("paths").to_pylist()
                         for p in chunk]
                count[0] = len(paths)
                count[1] = sum(unit_size(os.fsdecode(p)) for p in paths)

                def feed(pipe):
                    pipe.write(b"\0".join(paths))
                args = [*spec["args"], "--files-from", "-", "-0"]
            records, summ, code, stderr = run_teebatch(
                teebatch, args, feed, work, spec["kill_once"], want_summary=spec["summary"],
                hold=spec.get("hold"))
            if count[0] == 0:
                return
            target = spec["schema"]
            buckets = spec.get("buckets")
            rows = 0
            for rb in pq.ParquetFile(records).iter_batches(batch_size=16384):
                t = pa.Table.from_batches([rb]).cast(target)
                if buckets:
                    demo = t.column("demo").combine_chunks().dictionary_encode()
                    keys = pa.array([bucket_of(d, buckets) for d in demo.dictionary.to_pylist()],
                                    pa.int32())
                    t = t.append_column("demo_bucket", keys.take(demo.indices))
                rows += t.num_rows
                yield from t.to_batches()
        acc.add([{
            "partition": ctx.partitionId() if ctx else 0,
            "attempt": ctx.attemptNumber() if ctx else 0,
            "files": count[0],
            "bytes": count[1],
            "rows": rows,
            "summary": summ.decode() if summ else None,
            "exit_code": code,
            "stderr": stderr[-4000:],
            "host": socket.gethostname(),
            "teebatch": teebatch,
        }])

    return run


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
    # A few files per Arrow batch (their bytes are the batch).
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "16")
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


def records_uri(out, name):
    """Where Spark writes DIR/NAME: a URI as given, a path on the driver's
    file system as a `file:` URI (so not on Hadoop's default file system)."""
    if is_uri(out):
        return out.rstrip("/") + "/" + name
    return "file://" + os.path.join(os.path.abspath(out), name)


def write_out_file(spark, out, name, data):
    """Writes DIR/NAME (bytes): a plain file for a local DIR, else through
    Hadoop's FileSystem API (temporary name, then rename)."""
    if not is_uri(out):
        os.makedirs(out, exist_ok=True)
        write_atomic(os.path.join(out, name), data)
        return
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(out.rstrip("/") + "/" + name)
    tmp = jvm.org.apache.hadoop.fs.Path(out.rstrip("/") + "/." + name + ".tmp")
    fs = path.getFileSystem(conf)
    stream = fs.create(tmp, True)
    stream.write(bytearray(data))
    stream.close()
    fs.delete(path, False)
    if not fs.rename(tmp, path):
        raise SystemExit(f"cannot rename {tmp} to {path}")


def input_frame(spark, teebatch, kind, inputs, partitions, list_args, units_by=None):
    """The job's input as a DataFrame and how it was cut: storage mode (all
    INPUTs URIs) the files Spark lists, in partitions of about equal bytes;
    paths mode one row per partition holding its slice of the sorted file
    list (`units_by(units)` may group the units first: a list of lists,
    each cut on its own). Returns (frame, storage, files listed)."""
    sc = spark.sparkContext
    storage = [is_uri(i) for i in inputs]
    if any(storage) and not all(storage):
        raise SystemExit("INPUTs are either all paths or all URIs (storage mode)")
    storage = all(storage)
    if storage:
        return storage_frame(spark, inputs, partitions or 4 * sc.defaultParallelism), True, None
    units = list_paths(teebatch, kind, inputs, list_args)
    if not units:
        raise SystemExit(f"no *.{EXT[kind]} files found in {' '.join(inputs)}")
    n = partitions or default_partitions(sc, len(units))
    n = max(1, min(n, len(units)))
    sizes = {u: unit_size(os.fsdecode(u)) for u in units}
    groups = units_by(units) if units_by else [units]
    total = sum(sizes.values()) + 4096 * len(units)
    chunks = []
    for g in groups:
        g_bytes = sum(sizes[u] for u in g) + 4096 * len(g)
        k = max(1, min(len(g), round(n * g_bytes / total)))
        chunks += cut_by_bytes(g, [sizes[u] for u in g], k)
    # One row per partition: contiguous slices of the sorted list, of
    # about equal bytes (parallelize alone would cut it in batches of
    # 1,024 paths).
    rdd = sc.parallelize([(k, c) for k, c in enumerate(chunks)], len(chunks))
    frame = spark.createDataFrame(rdd, "part int, paths array<binary>")
    return frame, False, len(units)


def add_module(sc):
    if __name__ != "__main__":
        # Imported (spark/test): the executors' Python needs this module for
        # the task functions.
        sc.addPyFile(os.path.abspath(__file__))


def reports_of(acc):
    """The accumulated task reports, one per partition (Spark adds the
    updates of each partition's one successful attempt), by partition."""
    by = {}
    for r in acc.value:
        if r["partition"] in by:
            raise SystemExit(f"partition {r['partition']} reported twice (attempts "
                             f"{by[r['partition']]['attempt']} and {r['attempt']})")
        by[r["partition"]] = r
    return [by[k] for k in sorted(by)]


def run_job(spark, kind, inputs, out, teebatch, partitions=None, kill_once=None,
            index_args=(), hold=None):
    """Runs the job; returns the summary document written to
    OUT/summary.json. Spark writes OUT/records/ (Parquet, its commit
    protocol: a failed or speculative task attempt leaves no rows); the
    driver gets one small report per partition. `kill_once`: a marker file
    path; the first task of partition 0 that creates it kills its teebatch
    (the fault test). `index_args`: options passed to every `teebatch KIND
    index`. `hold`: a directory where tasks wait (`hold_task`; the worker
    fault test)."""
    sc = spark.sparkContext
    started = time.time()
    inputs = absolute_inputs(inputs)
    index_args = list(index_args)
    problem = check_index_args(index_args, all(is_uri(i) for i in inputs))
    if problem:
        raise SystemExit(problem)
    binary_name = os.path.basename(teebatch)
    sc.addFile(teebatch)
    add_module(sc)
    frame, storage, listed = input_frame(spark, teebatch, kind, inputs, partitions, index_args)
    schema = spark_arrow_schema(output_schema(teebatch, [kind, "index", *index_args]))
    from pyspark.sql.pandas.types import from_arrow_schema

    acc = sc.accumulator([], ListParam())
    spec = {"kind": kind, "binary": binary_name, "kill_once": kill_once, "storage": storage,
            "args": [kind, "index", *index_args], "summary": True, "schema": schema,
            "archives": archive_suffixes(teebatch),
            "hold": hold}
    frame.mapInArrow(arrow_task(spec, acc), from_arrow_schema(schema)) \
        .write.mode("overwrite").parquet(records_uri(out, "records"))
    results = reports_of(acc)
    if not results:
        raise SystemExit(f"no *.{EXT[kind]} files found in {' '.join(inputs)}")

    parts_dir = tempfile.mkdtemp(prefix="teebatch-summaries-")
    # Each non-empty partition's summary is recorded as shard k of N of the
    # job's INPUTs, so that `teebatch merge` refuses any partition twice and
    # the N shards collapse into the one-machine inputs.
    job_paths = sorted(set(inputs))
    summaries = []
    for k, r in enumerate(results, start=1):
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
    for p in os.listdir(parts_dir):
        os.remove(os.path.join(parts_dir, p))
    os.rmdir(parts_dir)
    wall = time.time() - started
    files = sum(r["files"] for r in results)
    doc["run"] = run_doc(spark, results, storage, listed, wall)
    doc["run"].update({
        "files": files,
        "files_per_s": round(files / wall, 1) if wall > 0 else None,
        "teebatch_version": doc.get("run", {}).get("teebatch_version"),
        "partition_runs": [json.loads(r["summary"]).get("run") for r in results],
    })
    write_out_file(spark, out, "summary.json",
                   (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
    return doc


BUCKET_COLUMN = "demo_bucket"
DEFAULT_BUCKETS = 16


def export_args(table, from_tick=None, to_tick=None):
    return ["demos", "export", "--table", table,
            *(["--from", from_tick] if from_tick is not None else []),
            *(["--to", to_tick] if to_tick is not None else [])]


def run_export(spark, inputs, out, teebatch, table, partitions=None, kill_once=None,
               from_tick=None, to_tick=None, buckets=DEFAULT_BUCKETS, hold=None):
    """`teebatch demos export --table TABLE` on Spark: Spark writes the rows
    to OUT/TABLE/demo_bucket=K/part-*.parquet (its commit protocol), K =
    pmod(crc32(demo), buckets) of the row's demo path, so a reader looking
    for some demos reads only their buckets. In paths mode the driver groups
    the files by bucket before cutting them into partitions, so a task
    writes one file (an archive's members may spread over buckets). Returns
    the document written to OUT/TABLE.json: rows, files, buckets and the
    errors of demos that failed (teebatch's stderr). `kill_once`, `hold`:
    the fault tests' hooks (see `run_job`)."""
    sc = spark.sparkContext
    started = time.time()
    inputs = absolute_inputs(inputs)
    binary_name = os.path.basename(teebatch)
    sc.addFile(teebatch)
    add_module(sc)
    args = export_args(table, from_tick, to_tick)

    def by_bucket(units):
        groups = {}
        for u in units:
            groups.setdefault(bucket_of(os.fsdecode(u), buckets), []).append(u)
        return [groups[k] for k in sorted(groups)]

    frame, storage, listed = input_frame(spark, teebatch, "demos", inputs, partitions, [],
                                         by_bucket)
    schema = spark_arrow_schema(output_schema(teebatch, args))
    from pyspark.sql.pandas.types import from_arrow_schema
    from pyspark.sql.types import IntegerType, StructField

    spark_schema = from_arrow_schema(schema).add(StructField(BUCKET_COLUMN, IntegerType(), False))
    acc = sc.accumulator([], ListParam())
    spec = {"kind": "demos", "binary": binary_name, "kill_once": kill_once, "storage": storage,
            "args": args, "summary": False, "schema": schema, "buckets": buckets,
            "archives": archive_suffixes(teebatch),
            "hold": hold}
    # No sort before the write: a task keeps one open file per bucket it
    # meets (in paths mode one) instead of sorting its rows by bucket.
    spark.conf.set("spark.sql.optimizer.plannedWrite.enabled", "false")
    spark.conf.set("spark.sql.maxConcurrentOutputFileWriters", str(buckets + 1))
    frame.mapInArrow(arrow_task(spec, acc), spark_schema) \
        .write.mode("overwrite").partitionBy(BUCKET_COLUMN).parquet(records_uri(out, table))
    results = reports_of(acc)
    if not results:
        raise SystemExit(f"no *.demo files found in {' '.join(inputs)}")
    wall = time.time() - started
    rows = sum(r["rows"] for r in results)
    files = sum(r["files"] for r in results)
    errors = [line for r in results if r["exit_code"] != 0
              for line in r["stderr"].splitlines() if line.strip()]
    doc = {
        "table": table,
        "inputs": inputs,
        "from": from_tick,
        "to": to_tick,
        "files": files,
        "rows": rows,
        "failed_partitions": sum(1 for r in results if r["exit_code"] != 0),
        "errors": errors,
        "buckets": buckets,
        "bucket_column": BUCKET_COLUMN,
        "bucket_of": f"pmod(crc32(demo), {buckets}): CRC-32 of the demo path's UTF-8 bytes",
        "dataset": records_uri(out, table),
        "run": run_doc(spark, results, storage, listed, wall),
    }
    doc["run"].update({
        "rows_per_partition": [r["rows"] for r in results],
        "rows_per_s": round(rows / wall, 1) if wall > 0 else None,
    })
    write_out_file(spark, out, f"{table}.json",
                   (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
    return doc


def run_doc(spark, results, storage, listed, wall):
    sc = spark.sparkContext
    return {
        "engine": "spark",
        "spark_version": spark.version,
        "master": sc.master,
        "app_id": sc.applicationId,
        "mode": "storage" if storage else "paths",
        "executors": executors(sc),
        "default_parallelism": sc.defaultParallelism,
        "partitions": len(results),
        "files_listed_by_driver": listed,
        "files_per_partition": [r["files"] for r in results],
        "bytes_per_partition": [r["bytes"] for r in results],
        "task_attempts": [r["attempt"] + 1 for r in results],
        "hosts": sorted({r["host"] for r in results}),
        "executables": sorted({r["teebatch"] for r in results}),
        "wall_s": round(wall, 3),
    }


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
    if isinstance(v, decimal.Decimal):
        return float(v)
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
    for root, dirs, names in os.walk(records_dir):
        dirs.sort()
        for name in sorted(names):
            if name.endswith(".parquet") and not name.startswith((".", "_")):
                t = pq.read_table(os.path.join(root, name), partitioning=None)
                schemas.add(spark_type_string(t.schema))
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

        one_schema = spark_type_string(pq.read_table(pq_one).schema)
        if schemas != {one_schema}:
            problems.append("the Parquet schema (as Spark types) is not that of --format parquet: "
                            f"{sorted(schemas)} vs {one_schema}"[:2000])
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


def verify_export(inputs, out, teebatch, table, from_tick=None, to_tick=None):
    """Compares OUT/TABLE/ with one `teebatch demos export --format parquet`
    on this machine over the same inputs: the rows as a multiset (`file:`
    URIs read as local paths), the columns' Spark types, and each file's
    bucket directory against its rows' demo paths. Returns a list of
    differences (empty: equal)."""
    import collections
    import pyarrow.parquet as pq

    local = [local_path(i) for i in inputs]
    problems = []
    with open(os.path.join(out, f"{table}.json")) as f:
        buckets = json.load(f)["buckets"]
    with tempfile.TemporaryDirectory(prefix="teebatch-verify-") as d:
        one = os.path.join(d, "one.parquet")
        r = subprocess.run([teebatch, *export_args(table, from_tick, to_tick), "--format",
                            "parquet", "-o", one, "-q", "--", *local],
                           stderr=subprocess.PIPE, check=False)
        if r.returncode not in (0, 1):
            return [f"one-machine run failed: {r.stderr.decode(errors='replace')}"]
        t = pq.read_table(one)
        want_schema = spark_type_string(t.schema)
        want = collections.Counter(json.dumps(row, sort_keys=True) for row in t.to_pylist())
    got = collections.Counter()
    root = os.path.join(out, table)
    n_files = 0
    for dirpath, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".parquet") or name.startswith((".", "_")):
                continue
            n_files += 1
            t = pq.read_table(os.path.join(dirpath, name), partitioning=None)
            if spark_type_string(t.schema) != want_schema:
                problems.append(f"{name}: columns {spark_type_string(t.schema)[:300]} are not "
                                f"those of --format parquet {want_schema[:300]}")
            k = os.path.basename(dirpath)
            for row in t.to_pylist():
                if k != f"{BUCKET_COLUMN}={bucket_of(row['demo'], buckets)}":
                    problems.append(f"a row of {row['demo']} in {k}")
                    break
                row["demo"] = local_path(row["demo"])
                got[json.dumps(row, sort_keys=True)] += 1
    if got != want:
        missing = sum((want - got).values())
        extra = sum((got - want).values())
        problems.append(f"rows differ: {sum(want.values())} one machine, {sum(got.values())} "
                        f"Spark ({missing} missing, {extra} extra)")
    return problems


def session(master, app_name="teebatch", java_options=None):
    from pyspark.sql import SparkSession

    # The executors' Python needs pyarrow (the tasks read teebatch's
    # Parquet): this one (spark/.venv) unless PYSPARK_PYTHON names another.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    b = SparkSession.builder.appName(app_name)
    if master:
        b = b.master(master)
    b = b.config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
    if java_options:
        b = b.config("spark.driver.extraJavaOptions", java_options) \
            .config("spark.executor.extraJavaOptions", java_options)
    if master and re.match(r"^spark://(127\.0\.0\.1|localhost)[:/]", master):
        # A cluster on this machine (spark/cluster): the driver listens on
        # the loopback address only, as the master and workers do.
        b = b.config("spark.driver.host", "127.0.0.1") \
            .config("spark.driver.bindAddress", "127.0.0.1")
    # binaryFiles packs files into splits of at least this many bytes: small
    # enough that --partitions splits a collection of small files.
    b = b.config("spark.files.openCostInBytes", str(64 << 10))
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def export_main(argv):
    ap = argparse.ArgumentParser(
        prog="spark/run demos export",
        description="teebatch demos export --table NAME on Apache Spark: DIR/NAME/ (a Parquet "
        "dataset written by Spark, partitioned by demo_bucket = pmod(crc32(demo), B)) and "
        "DIR/NAME.json (rows, files, errors, run).")
    ap.add_argument("inputs", nargs="+", metavar="INPUT",
                    help="paths every executor can read (paths mode) or URIs Spark reads "
                    "(storage mode)")
    ap.add_argument("--table", required=True, metavar="NAME", choices=TABLES,
                    help="the table (as teebatch demos export --table)")
    ap.add_argument("--out", required=True, metavar="DIR",
                    help="output directory or URI (e.g. hdfs://nn/out)")
    ap.add_argument("--from", dest="from_tick", metavar="TICK",
                    help="as teebatch demos export --from")
    ap.add_argument("--to", dest="to_tick", metavar="TICK", help="as teebatch demos export --to")
    ap.add_argument("--partitions", type=int, metavar="N",
                    help="partitions (default: 4 per core, at most 5,000 files each)")
    ap.add_argument("--buckets", type=int, default=DEFAULT_BUCKETS, metavar="B",
                    help=f"output buckets (directories demo_bucket=0..B-1; default "
                    f"{DEFAULT_BUCKETS})")
    ap.add_argument("--master", help="Spark master URL (default: spark-submit's, else local[*])")
    ap.add_argument("--teebatch", required=True, metavar="PATH",
                    help="the teebatch binary shipped to the executors")
    ap.add_argument("--check-local", action="store_true",
                    help="compare the rows with one teebatch demos export on the driver's "
                    "machine (as a multiset); exit 1 on a difference")
    a = ap.parse_args(argv)
    if a.partitions is not None and a.partitions < 1:
        ap.error("--partitions must be at least 1")
    if a.buckets < 1:
        ap.error("--buckets must be at least 1")
    inputs = absolute_inputs(a.inputs)
    teebatch = os.path.abspath(a.teebatch)
    t0 = time.time()
    spark = session(a.master)
    startup = time.time() - t0
    try:
        doc = run_export(spark, inputs, a.out, teebatch, a.table, a.partitions,
                         os.environ.get(FAULT_ENV), a.from_tick, a.to_tick, a.buckets)
    finally:
        spark.stop()
    run = doc["run"]
    print(f"spark: {doc['rows']} {a.table} rows of {doc['files']} demos in {run['partitions']} "
          f"partitions on {run['master']}: {run['wall_s']:.1f} s (+ {startup:.1f} s Spark "
          f"start-up), {run['rows_per_s']} rows/s -> {doc['dataset']}", file=sys.stderr)
    code = 0
    if doc["errors"]:
        for e in doc["errors"]:
            print(e, file=sys.stderr)
        code = 1
    if a.check_local:
        problems = verify_export(inputs, a.out, teebatch, a.table, a.from_tick, a.to_tick)
        for p in problems:
            print(f"check-local: {p}", file=sys.stderr)
        if problems:
            return 1
        print("check-local: the rows equal one teebatch demos export on this machine",
              file=sys.stderr)
    return code


TABLES = ["positions", "players", "player_changes", "projectiles", "lasers", "pickups",
          "flags", "game", "events", "chat", "kills", "broadcasts", "finishes", "records",
          "demos"]


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:2] == ["demos", "export"]:
        return export_main(argv[2:])
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
    if not is_uri(a.out):
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
