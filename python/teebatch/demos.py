"""Collections of demos: ``demos export`` tables and ``demos index`` records."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple, Union

import pyarrow as pa

from . import _native
from ._common import Batches, Paths, jobs_arg, read_all, selection

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._common import Select

#: The tables of :func:`export`, in the command line's order.
TABLES = tuple(_native.tables())


def export_batches(
    paths: Paths = None,
    table: str = "positions",
    *,
    from_tick: Optional[Union[int, str]] = None,
    to_tick: Optional[Union[int, str]] = None,
    jobs: Optional[int] = None,
    split_bytes: Optional[int] = None,
    **select: Unpack[Select],
) -> Batches:
    """The rows of ``table`` of every demo of ``paths``, streamed.

    As ``teebatch demos export PATHS --table TABLE``: the same rows in the
    same order (demo after demo, in input order) and the same columns (see
    ``docs/export-tables.md``). ``paths``: a file, folder, archive or
    ``ARCHIVE!/MEMBER`` name, or a list of them; ``None``: the embedded
    demos. ``from_tick``/``to_tick`` (inclusive), as ``--from``/``--to``:
    an int is an absolute server tick; a string may also count from each
    demo's first tick: ``"+4500"`` (ticks), ``"90s"``, ``"1:30"``.
    ``jobs``: worker threads (``None``: all cores). ``split_bytes``: demos
    of at least this size are split at keyframes and decoded in parallel
    (``--split-bytes``). The other keywords are the command line's
    selection options: ``files_from`` (``--files-from``, a list file or
    several), ``null`` (``-0``), ``glob``/``exclude`` (``--glob``,
    ``--exclude``), ``max_depth``, ``follow_links=False`` (``--no-follow``),
    ``hidden`` and ``shard="K/N"``.

    Returns a :class:`teebatch._common.Batches` (the Arrow stream
    interface); a demo that fails keeps the rows decoded before its fault
    and is listed in ``.errors``.
    """
    if table not in TABLES:
        raise ValueError(f"no table {table!r}; the tables are {', '.join(TABLES)}")
    sel = selection(paths, **select)
    run = _native.demos_export(
        sel,
        table,
        from_tick=from_tick,
        to_tick=to_tick,
        jobs=jobs_arg(jobs),
        split_bytes=split_bytes,
    )
    return Batches(run)


def export(
    paths: Paths = None,
    table: str = "positions",
    *,
    from_tick: Optional[Union[int, str]] = None,
    to_tick: Optional[Union[int, str]] = None,
    jobs: Optional[int] = None,
    **select: Unpack[Select],
) -> pa.Table:
    """The rows of ``table`` of every demo of ``paths`` as one
    ``pyarrow.Table`` (see :func:`export_batches` for the arguments).

    A demo that fails keeps its rows before the fault and gives a
    :class:`teebatch.TeebatchWarning` naming the file, stage and offset.
    """
    b = export_batches(
        paths, table, from_tick=from_tick, to_tick=to_tick, jobs=jobs, **select
    )
    return read_all(b._run)


def index(
    paths: Paths = None,
    *,
    jobs: Optional[int] = None,
    summary: bool = False,
    **select: Unpack[Select],
) -> Union[pa.Table, Tuple[pa.Table, Dict[str, Any]]]:
    """One record per demo of ``paths``, as ``teebatch demos index --format
    parquet`` writes them (the same schema and values); a demo that fails is
    a record with its ``error``.

    With ``summary=True``, returns ``(table, summary)``: the collection
    summary as a ``dict``, the document ``--summary`` writes.
    """
    sel = selection(paths, **select)
    run = _native.demos_index(sel, jobs=jobs_arg(jobs))
    table = read_all(run)
    if summary:
        return table, json.loads(run.summary_json)
    return table
