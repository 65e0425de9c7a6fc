"""Collections of demos: ``demos export`` tables and ``demos index`` records."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Optional, Tuple, Union

import pyarrow as pa

from . import _native
from ._common import Batches, Paths, PathLike, finish, jobs_arg, read_all, selection

#: The tables of :func:`export`, in the command line's order.
TABLES = tuple(_native.tables())


def export_batches(
    paths: Paths = None,
    table: str = "positions",
    *,
    from_tick: Optional[int] = None,
    to_tick: Optional[int] = None,
    jobs: Optional[int] = None,
    split_bytes: Optional[int] = None,
    files_from: Union[PathLike, Iterable[PathLike], None] = None,
    null: bool = False,
    glob: Optional[Iterable[str]] = None,
    exclude: Optional[Iterable[str]] = None,
    max_depth: Optional[int] = None,
    follow_links: bool = True,
    hidden: bool = False,
    shard: Optional[str] = None,
) -> Batches:
    """The rows of ``table`` of every demo of ``paths``, streamed.

    As ``teebatch demos export PATHS --table TABLE``: the same rows in the
    same order (demo after demo, in input order) and the same columns (see
    ``docs/demo-tables.md``). ``paths``: a file, folder, archive or
    ``ARCHIVE!/MEMBER`` name, or a list of them; ``None``: the embedded
    demos. ``from_tick``/``to_tick``: absolute server ticks, inclusive.
    ``jobs``: worker threads (``None``: all cores). The other keywords are
    the command line's selection options (``--files-from``, ``-0``,
    ``--glob``, ``--exclude``, ``--max-depth``, ``--no-follow``,
    ``--hidden``, ``--shard K/N``).

    Returns a :class:`teebatch._common.Batches` (the Arrow stream
    interface); a demo that fails keeps the rows decoded before its fault
    and is listed in ``.errors``.
    """
    if table not in TABLES:
        raise ValueError(f"no table {table!r}; the tables are {', '.join(TABLES)}")
    sel = selection(
        paths,
        files_from=files_from,
        null=null,
        glob=glob,
        exclude=exclude,
        max_depth=max_depth,
        follow_links=follow_links,
        hidden=hidden,
        shard=shard,
    )
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
    from_tick: Optional[int] = None,
    to_tick: Optional[int] = None,
    jobs: Optional[int] = None,
    **select: Any,
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
    files_from: Union[PathLike, Iterable[PathLike], None] = None,
    null: bool = False,
    glob: Optional[Iterable[str]] = None,
    exclude: Optional[Iterable[str]] = None,
    max_depth: Optional[int] = None,
    follow_links: bool = True,
    hidden: bool = False,
    shard: Optional[str] = None,
) -> Union[pa.Table, Tuple[pa.Table, Dict[str, Any]]]:
    """One record per demo of ``paths``, as ``teebatch demos index --format
    parquet`` writes them (the same schema and values); a demo that fails is
    a record with its ``error``.

    With ``summary=True``, returns ``(table, summary)``: the collection
    summary as a ``dict``, the document ``--summary`` writes.
    """
    sel = selection(
        paths,
        files_from=files_from,
        null=null,
        glob=glob,
        exclude=exclude,
        max_depth=max_depth,
        follow_links=follow_links,
        hidden=hidden,
        shard=shard,
    )
    run = _native.demos_index(sel, jobs=jobs_arg(jobs))
    table = read_all(run)
    if summary:
        return table, json.loads(run.summary_json)
    return table
