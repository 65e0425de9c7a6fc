"""Where the tests find the shared datasets and the command line.

The shared datasets (real maps and demos, not part of the project) are
read from ``$TEEBATCH_DATASETS`` or ``../shared/datasets`` beside the
checkout; where neither exists the tests that need them are skipped with a
reason, unless ``TEEBATCH_REQUIRE_DATASETS`` is set (as in CI), which makes
a missing folder a failure. The command line the Python results are compared
with is ``$TEEBATCH_BIN`` or the checkout's ``target/debug/teebatch``
(``cargo test`` builds it).
"""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _datasets():
    env = os.environ.get("TEEBATCH_DATASETS")
    return pathlib.Path(env) if env else ROOT.parent / "shared" / "datasets"


@pytest.fixture(scope="session")
def datasets():
    d = _datasets()
    if not d.is_dir():
        if os.environ.get("TEEBATCH_REQUIRE_DATASETS"):
            pytest.fail(f"the shared datasets are missing: {d}")
        pytest.skip(f"the shared datasets are missing ({d}); set TEEBATCH_DATASETS")
    return d


@pytest.fixture(scope="session")
def demos_dir(datasets):
    return datasets / "demos"


@pytest.fixture(scope="session")
def maps_dir(datasets):
    return datasets / "maps"


def cli_path():
    """The command line the tests compare with (skips when it is missing)."""
    b = os.environ.get("TEEBATCH_BIN") or str(ROOT / "target" / "debug" / "teebatch")
    if not os.path.exists(b):
        pytest.skip(f"no teebatch binary at {b}: run `cargo build` (or set TEEBATCH_BIN)")
    return b


@pytest.fixture(scope="session")
def cli():
    b = cli_path()
    if not os.path.exists(b):
        pytest.skip(f"no teebatch binary at {b}: run `cargo build` (or set TEEBATCH_BIN)")

    def run(*args, check=True):
        p = subprocess.run([b, *map(str, args)], capture_output=True)
        if check and p.returncode not in (0, 1):
            raise AssertionError(f"teebatch {args}: exit {p.returncode}: {p.stderr.decode()}")
        return p

    return run


@pytest.fixture(scope="session")
def synth_demos(cli, tmp_path_factory):
    """Six generated demos (the command line's generator, seed 3)."""
    d = tmp_path_factory.mktemp("synth")
    cli("synth", "demos", "--out", d, "--count", 6, "--seed", 3)
    return d


def load_json(p):
    return json.loads(pathlib.Path(p).read_text())
