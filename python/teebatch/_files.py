"""One file: :class:`Demo` and :class:`Map`."""

from __future__ import annotations

import functools
import json
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

if TYPE_CHECKING:
    import numpy

import pyarrow as pa

from . import _native

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


def _load(source: Source, name: Optional[str]):
    if isinstance(source, (bytes, bytearray, memoryview)):
        return (name or "<bytes>"), bytes(source)
    path = os.fsdecode(source)
    with open(path, "rb") as f:
        return (name or path), f.read()


class Demo:
    """One demo, from a path or its bytes.

    ``.record`` is its ``demos index`` record, ``.header`` the header part;
    ``.table(name)`` (and ``.positions``, ``.chat``, ``.kills``, ... for each
    table of :data:`teebatch.demos.TABLES`) its ``demos export`` rows. A demo
    that cannot be read raises :class:`teebatch.FormatError` (with ``.path``,
    ``.stage``, ``.kind``, ``.section``, ``.offset``). ``name`` is the path
    the rows and record show (default: the path given, or ``<bytes>``).
    """

    def __init__(self, source: Source, *, name: Optional[str] = None) -> None:
        path, data = _load(source, name)
        self.path = path
        self._native = _native.DemoFile(path, data)

    @functools.cached_property
    def record(self) -> Dict[str, Any]:
        """The ``demos index`` record (a dict, as its JSON line)."""
        return json.loads(self._native.record_json())

    @property
    def header(self) -> Dict[str, Any]:
        """The demo's header: version, net version, map name, ..."""
        return self.record["header"]

    def table(
        self, name: str, *, from_tick: Optional[Union[int, str]] = None, to_tick: Optional[Union[int, str]] = None
    ) -> pa.Table:
        """The rows of ``demos export --table NAME`` of this demo."""
        run = self._native.table(name, from_tick=from_tick, to_tick=to_tick)
        return pa.RecordBatchReader.from_stream(run).read_all()

    def __repr__(self) -> str:
        return f"teebatch.Demo({self.path!r})"


def _table_property(name: str):
    def get(self: Demo) -> pa.Table:
        return self.table(name)

    get.__doc__ = f"The ``{name}`` table of this demo (``demo.table({name!r})``)."
    return property(get)


for _t in _native.tables():
    setattr(Demo, _t, _table_property(_t))


class Map:
    """One map, from a path or its bytes.

    ``.record`` is its ``maps index`` record (``verify`` as ``--verify``),
    ``.info`` the map's info item (author, version, credits, license,
    settings). A map that cannot be read raises
    :class:`teebatch.FormatError`.
    """

    def __init__(
        self, source: Source, *, name: Optional[str] = None, verify: Optional[str] = None
    ) -> None:
        path, data = _load(source, name)
        self.path = path
        self._verify = verify
        self._native = _native.MapFile(path, data)

    @functools.cached_property
    def record(self) -> Dict[str, Any]:
        """The ``maps index`` record (a dict, as its JSON line)."""
        return json.loads(self._native.record_json(self._verify))

    @property
    def info(self) -> Optional[Dict[str, Any]]:
        """The map's info item, or ``None`` when it has none."""
        m = self.record.get("map") or {}
        return m.get("info")

    @functools.cached_property
    def layers(self) -> List[Dict[str, Any]]:
        """The layers in item order: ``index``, ``group``, ``name``,
        ``type`` (``tiles``, ``game``, ``front``, ``tele``, ``speedup``,
        ``switch``, ``tune``, ``quads``, ``sounds``, ``unknown``),
        ``detail``, and a tile layer's ``width`` and ``height``."""
        return json.loads(self._native.layers_json())

    def tiles(self, layer: Union[int, str]) -> Tuple["numpy.ndarray", Optional["numpy.ndarray"]]:
        """The tiles of a tile layer as ``(ids, flags)``: two ``uint8``
        arrays of ``height x width`` (``flags`` is ``None`` for the layers
        whose tiles have none: tele, speedup, tune). ``layer`` is an index
        of :attr:`layers` or a type name (``"game"``: the first layer of that
        type). The ids are the tile ids DDNet's tables name (for tele,
        speedup, switch and tune layers the type byte)."""
        import numpy as np

        index = self._layer_index(layer)
        _kind, w, h, size, id_off, flags_off, data = self._native.tiles(index)
        a = np.frombuffer(data, dtype=np.uint8).reshape(h, w, size)
        ids = a[:, :, id_off].copy()
        flags = None if flags_off is None else a[:, :, flags_off].copy()
        return ids, flags

    def render(
        self,
        style: str = "entities",
        *,
        max_side: Optional[int] = None,
        scale: Optional[int] = None,
        mapres: Optional[Union[str, "os.PathLike[str]"]] = None,
    ) -> "numpy.ndarray":
        """The picture ``teebatch maps render`` draws, as an RGBA ``uint8``
        array of ``height x width x 4`` (opaque: alpha is 255).

        ``style``: ``"entities"`` or ``"full"``; ``max_side`` (default 1024)
        or ``scale`` (pixels per tile) as ``--max-side``/``--scale``;
        ``mapres``: the folder of DDNet's tilesets and entities texture, as
        ``--mapres`` (default: ``$TEEBATCH_MAPRES``, else the flat palette)."""
        import numpy as np

        w, h, rgb = self._native.render(
            style,
            max_side=max_side,
            scale=scale,
            mapres=None if mapres is None else os.fsdecode(mapres),
        )
        out = np.full((h, w, 4), 255, dtype=np.uint8)
        out[:, :, :3] = np.frombuffer(rgb, dtype=np.uint8).reshape(h, w, 3)
        return out

    def _layer_index(self, layer: Union[int, str]) -> int:
        if isinstance(layer, int):
            return layer
        for entry in self.layers:
            if entry["type"] == layer:
                return entry["index"]
        raise ValueError(f"{self.path}: no {layer!r} layer")

    def __repr__(self) -> str:
        return f"teebatch.Map({self.path!r})"
