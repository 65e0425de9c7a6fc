"""Collections of maps: ``maps index`` records."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple, Union

import pyarrow as pa

from . import _native
from ._common import Paths, jobs_arg, read_all, selection

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._common import Select

#: The values of ``verify`` (the command line's ``--verify``).
VERIFY = ("off", "inflate", "crc", "full")


def index(
    paths: Paths = None,
    *,
    verify: Optional[str] = None,
    jobs: Optional[int] = None,
    summary: bool = False,
    **select: Unpack[Select],
) -> Union[pa.Table, Tuple[pa.Table, Dict[str, Any]]]:
    """One record per map of ``paths``, as ``teebatch maps index --format
    parquet`` writes them (the same schema and values); a map that fails is
    a record with its ``error``.

    ``paths``: a file, folder, archive or ``ARCHIVE!/MEMBER`` name, or a
    list of them; ``None``: the embedded maps. ``verify``: ``off``
    (default), ``inflate``, ``crc`` or ``full``, as ``--verify``. ``jobs``:
    worker threads (``None``: all cores). The other keywords are the command
    line's selection options.

    With ``summary=True``, returns ``(table, summary)``: the collection
    summary as a ``dict``, the document ``--summary`` writes.
    """
    if verify is not None and verify not in VERIFY:
        raise ValueError(f"verify must be one of {', '.join(VERIFY)}, not {verify!r}")
    sel = selection(paths, **select)
    run = _native.maps_index(sel, verify=verify, jobs=jobs_arg(jobs))
    table = read_all(run)
    if summary:
        return table, json.loads(run.summary_json)
    return table
