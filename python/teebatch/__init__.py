"""teebatch: Teeworlds/DDNet maps and demos as Apache Arrow tables.

Collections (files, folders, archives, ``ARCHIVE!/MEMBER`` names, as on the
command line) are decoded in parallel in Rust, without the GIL, by the same
library runs the ``teebatch`` command line calls:

- :func:`teebatch.demos.export` -- the rows of one ``demos export`` table;
- :func:`teebatch.demos.export_batches` -- the same, streamed batch by batch
  (the Arrow PyCapsule stream interface: pyarrow, polars, DuckDB);
- :func:`teebatch.demos.index`, :func:`teebatch.maps.index` -- one record per
  file, the command line's Parquet record schema, and the ``--summary``
  document as a ``dict``.

One file: :class:`teebatch.Demo` and :class:`teebatch.Map`.

In a collection a bad file never raises: it is a record with its ``error``
(index), or a :class:`TeebatchWarning` and an entry of ``.errors`` (export),
and the rows decoded before the fault are kept. The one-file API raises
:class:`FormatError`.
"""

from ._native import FormatError
from ._common import TeebatchWarning
from ._files import Demo, Map
from . import demos, maps

__all__ = ["Demo", "FormatError", "Map", "TeebatchWarning", "demos", "maps"]
__version__ = "0.1.0"
