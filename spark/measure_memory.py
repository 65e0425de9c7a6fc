"""Peak memory of the Spark driver for one `spark/run demos` job (step
"Memory" of spark/README.md): the driver is this Python process and the JVM
PySpark starts; both peaks (VmHWM) are read from /proc when the job is done.

    .venv/bin/python measure_memory.py TEEBATCH DEMOS_DIR [MASTER]

prints one JSON line: files, python_peak_kib, jvm_peak_kib, driver_peak_kib
(the sum), wall_s. Run it once per collection (a fresh JVM each time) and
compare the two lines: the driver holds one report per partition and the
sorted file list, not the records.
"""

import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import teebatch_spark as job  # noqa: E402


def peak_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def descendants(pid):
    children = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def main():
    teebatch, demos = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    master = sys.argv[3] if len(sys.argv) > 3 else "local[2]"
    spark = job.session(master, "teebatch-memory")
    try:
        with tempfile.TemporaryDirectory(prefix="teebatch-memory-") as out:
            t = time.time()
            doc = job.run_job(spark, "demos", [demos], out, teebatch)
            wall = time.time() - t
        jvms = [p for p in descendants(os.getpid()) if os.path.exists(f"/proc/{p}/exe")
                and os.path.basename(os.readlink(f"/proc/{p}/exe")) == "java"]
        jvm = sum(peak_kib(p) for p in jvms)
        py = peak_kib(os.getpid())
    finally:
        spark.stop()
    print(json.dumps({"files": doc["files"], "partitions": doc["run"]["partitions"],
                      "python_peak_kib": py, "jvm_peak_kib": jvm, "driver_peak_kib": py + jvm,
                      "wall_s": round(wall, 1)}))


if __name__ == "__main__":
    main()
