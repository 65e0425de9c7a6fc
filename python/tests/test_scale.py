"""Ctrl-C stops a long call; streaming keeps memory bounded."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import teebatch


@pytest.fixture(scope="module")
def many_demos(tmp_path_factory):
    """1,000 generated demos (10 s, 8 players each: 60 MB, 1.7M position
    rows), written by two generator processes at once (seeds 5 and 6)."""
    from conftest import cli_path

    d = tmp_path_factory.mktemp("many")
    procs = [
        subprocess.Popen([cli_path(), "synth", "demos", "--out", str(d), "--count", "500",
                          "--seed", str(seed), "--seconds", "10", "--players", "8"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for seed in (5, 6)
    ]
    assert [p.wait() for p in procs] == [0, 0]
    assert len(list(d.glob("*.demo"))) == 1000
    return d


def test_keyboard_interrupt_stops_a_long_export_within_a_second(many_demos):
    import _thread

    fired = []

    def interrupt():
        fired.append(time.monotonic())
        _thread.interrupt_main()

    t = threading.Timer(0.2, interrupt)
    t.start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        teebatch.demos.export(many_demos, "positions", jobs=2)
    stopped = time.monotonic()
    t.join()
    assert fired, "the export ended before the interrupt"
    assert stopped - fired[0] < 1.0, stopped - fired[0]
    assert stopped - start > 0.15


def test_streaming_1000_demos_keeps_peak_rss_under_300_mb(many_demos):
    code = textwrap.dedent(f"""
        import teebatch
        rows = 0
        b = teebatch.demos.export_batches({str(many_demos)!r}, "positions", jobs=2)
        for batch in b:
            rows += batch.num_rows
        assert b.outcome["files"] == 1000 and b.outcome["failed"] == 0, b.outcome
        # The peak of this process (ru_maxrss would include the parent's:
        # it survives exec).
        status = open("/proc/self/status").read()
        hwm = next(l for l in status.splitlines() if l.startswith("VmHWM:"))
        print(rows, hwm.split()[1])
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    rows, rss_kb = map(int, p.stdout.split())
    assert rows > 1_000_000
    assert rss_kb < 300 * 1024, f"peak RSS {rss_kb / 1024:.0f} MB"
