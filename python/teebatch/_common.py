"""What the collection functions share: choosing inputs, reading a run."""

from __future__ import annotations

import json
import os
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Union

import pyarrow as pa

if TYPE_CHECKING:
    from typing_extensions import TypedDict

PathLike = Union[str, "os.PathLike[str]"]
Paths = Union[PathLike, Iterable[PathLike], None]


class TeebatchWarning(UserWarning):
    """A file of a collection that failed, or a PATH that could not be read.

    The run goes on; the same facts are in the run's ``errors``/``notes``.
    """


if TYPE_CHECKING:

    class Select(TypedDict, total=False):
        """The selection keywords every collection function takes: the
        command line's ``--files-from`` (a list file, or several), ``-0``
        (``null``), ``--glob``, ``--exclude``, ``--max-depth``,
        ``--no-follow`` (``follow_links=False``), ``--hidden`` and
        ``--shard K/N``."""

        files_from: Union[PathLike, Iterable[PathLike], None]
        null: bool
        glob: Optional[Iterable[str]]
        exclude: Optional[Iterable[str]]
        max_depth: Optional[int]
        follow_links: bool
        hidden: bool
        shard: Optional[str]


def selection(
    paths: Paths,
    *,
    files_from: Union[PathLike, Iterable[PathLike], None] = None,
    null: bool = False,
    glob: Optional[Iterable[str]] = None,
    exclude: Optional[Iterable[str]] = None,
    max_depth: Optional[int] = None,
    follow_links: bool = True,
    hidden: bool = False,
    shard: Optional[str] = None,
) -> Dict[str, Any]:
    """The native selection of the command line's options."""
    return {
        "paths": _path_list(paths),
        "files_from": _path_list(files_from),
        "null": bool(null),
        "globs": [*(glob or ()), *("!" + g for g in (exclude or ()))],
        "max_depth": max_depth,
        "follow_links": bool(follow_links),
        "hidden": bool(hidden),
        "shard": shard,
    }


def _path_list(paths: Any) -> List[str]:
    if paths is None:
        return []
    if isinstance(paths, (str, bytes, os.PathLike)):
        return [os.fsdecode(paths)]
    return [os.fsdecode(p) for p in paths]


def read_all(run: Any) -> pa.Table:
    """Reads a native run's stream to its end into one table; Ctrl-C stops
    it (KeyboardInterrupt), a run's own failure raises ``OSError``."""
    try:
        reader = pa.RecordBatchReader.from_stream(run)
        table = reader.read_all()
    except BaseException:
        run.raise_pending()
        run.close()
        if run.error is not None:
            raise OSError(run.error) from None
        raise
    finish(run)
    return table


def finish(run: Any) -> Dict[str, Any]:
    """The outcome of a run read to its end: its notes as warnings; a
    collection where nothing was found raises ``FileNotFoundError``."""
    if run.error is not None:
        raise OSError(run.error)
    outcome = json.loads(run.outcome_json)
    notes = run.notes
    if outcome.get("nothing_found"):
        raise FileNotFoundError("; ".join(notes) or "no input files found")
    for n in notes:
        warnings.warn(n, TeebatchWarning, stacklevel=3)
    return outcome


def jobs_arg(jobs: Optional[int]) -> Optional[int]:
    if jobs is not None and jobs < 0:
        raise ValueError(f"jobs must be positive (or None for all cores), not {jobs}")
    return jobs


class Batches:
    """A run's record batches, streamed: the Arrow PyCapsule stream
    interface (``pyarrow.RecordBatchReader.from_stream(b)``,
    ``polars.from_arrow(b)``, DuckDB's ``from_arrow``), or ``for batch in b``.

    The run goes on in Rust while batches are read; at most a few batches
    wait for the reader, so memory stays bounded whatever the collection's
    size. Read it once. After the end, ``errors`` lists the files that failed
    and ``outcome`` the run's counts; ``close()`` (or leaving a ``with``
    block) stops a run that is not read to its end.
    """

    def __init__(self, run: Any) -> None:
        self._run = run

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._run.__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self) -> Any:
        return self._run.__arrow_c_schema__()

    def reader(self) -> pa.RecordBatchReader:
        """The batches as a ``pyarrow.RecordBatchReader``."""
        return pa.RecordBatchReader.from_stream(self)

    def __iter__(self):
        reader = self.reader()
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except BaseException:
                self._run.raise_pending()
                raise
            yield batch

    def read_all(self) -> pa.Table:
        """All batches as one table (what :func:`teebatch.demos.export` gives)."""
        return read_all(self._run)

    @property
    def errors(self) -> List[Dict[str, Any]]:
        """The files that failed so far: ``path``, ``stage``, ``kind``,
        ``section``, ``offset``, ``message``."""
        return json.loads(self._run.errors_json)

    @property
    def notes(self) -> List[str]:
        """Messages for a person (what the command line prints on stderr)."""
        return list(self._run.notes)

    @property
    def outcome(self) -> Optional[Dict[str, Any]]:
        """The run's counts (``files``, ``ok``, ``failed``, ``bytes``,
        ``rows``, ...) and its stderr ``line``, once it has ended."""
        text = self._run.outcome_json
        return None if text is None else json.loads(text)

    def close(self) -> None:
        """Stops the run if it is still going."""
        self._run.close()

    def __enter__(self) -> "Batches":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
