"""Collections of demos: ``demos export`` tables and ``demos index`` records."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional, Tuple, Union

import pyarrow as pa

from . import _native
from ._common import Batches, Paths, finish, jobs_arg, read_all, selection

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._common import Select

#: The tables of :func:`export`, in the command line's order.
TABLES = tuple(_native.tables())


def _check_table(table: str) -> None:
    if table not in TABLES:
        raise ValueError(f"no table {table!r}; the tables are {', '.join(TABLES)}")


def export_batches(
    paths: Paths = None,
    table: str = "positions",
    *,
    from_tick: Optional[Union[int, str]] = None,
    to_tick: Optional[Union[int, str]] = None,
    jobs: Optional[int] = None,
    split_bytes: Optional[int] = None,
    every_tick: bool = False,
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
    (``--split-bytes``). ``every_tick`` (``--every-tick``): the item tables
    and ``positions`` get a row per tick marker per item of the snapshot in
    effect, carried rows marked ``filled``. The other keywords are the command line's
    selection options: ``files_from`` (``--files-from``, a list file or
    several), ``null`` (``-0``), ``glob``/``exclude`` (``--glob``,
    ``--exclude``), ``max_depth``, ``follow_links=False`` (``--no-follow``),
    ``hidden`` and ``shard="K/N"``.

    Returns a :class:`teebatch._common.Batches` (the Arrow stream
    interface); a demo that fails keeps the rows decoded before its fault
    and is listed in ``.errors``.
    """
    _check_table(table)
    sel = selection(paths, **select)
    run = _native.demos_export(
        sel,
        table,
        from_tick=from_tick,
        to_tick=to_tick,
        jobs=jobs_arg(jobs),
        split_bytes=split_bytes,
        every_tick=every_tick,
    )
    return Batches(run)


def export(
    paths: Paths = None,
    table: str = "positions",
    *,
    from_tick: Optional[Union[int, str]] = None,
    to_tick: Optional[Union[int, str]] = None,
    jobs: Optional[int] = None,
    every_tick: bool = False,
    **select: Unpack[Select],
) -> pa.Table:
    """The rows of ``table`` of every demo of ``paths`` as one
    ``pyarrow.Table`` (see :func:`export_batches` for the arguments).

    A demo that fails keeps its rows before the fault and gives a
    :class:`teebatch.TeebatchWarning` naming the file, stage and offset.
    """
    b = export_batches(
        paths,
        table,
        from_tick=from_tick,
        to_tick=to_tick,
        jobs=jobs,
        every_tick=every_tick,
        **select,
    )
    return read_all(b._run)


def export_tables(
    paths: Paths = None,
    tables: Union[str, Iterable[str]] = "all",
    *,
    from_tick: Optional[Union[int, str]] = None,
    to_tick: Optional[Union[int, str]] = None,
    jobs: Optional[int] = None,
    split_bytes: Optional[int] = None,
    every_tick: bool = False,
    **select: Unpack[Select],
) -> Dict[str, pa.Table]:
    """Several tables of every demo of ``paths`` from one decode, as
    ``teebatch demos export PATHS --tables A,B --out DIR``: a ``dict`` from
    table name to ``pyarrow.Table``, in :data:`TABLES` order, each with the
    rows :func:`export` gives for that table alone.

    ``tables``: ``"all"``, a name, or names. The other arguments are those
    of :func:`export_batches`. The rows of every table are gathered in
    memory before the tables are made; a demo that fails keeps its rows
    before the fault in every table and gives one
    :class:`teebatch.TeebatchWarning`.
    """
    if isinstance(tables, str):
        names = list(TABLES) if tables == "all" else [tables]
    else:
        names = list(tables)
    for t in names:
        _check_table(t)
    if not names:
        raise ValueError("no table asked")
    sel = selection(paths, **select)
    runs = _native.demos_export_tables(
        sel,
        names,
        from_tick=from_tick,
        to_tick=to_tick,
        jobs=jobs_arg(jobs),
        split_bytes=split_bytes,
        every_tick=every_tick,
    )
    if runs and runs[0][1].error is not None:
        raise OSError(runs[0][1].error)
    out = {name: pa.RecordBatchReader.from_stream(run).read_all() for name, run in runs}
    if runs:
        finish(runs[0][1])
    return out


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
