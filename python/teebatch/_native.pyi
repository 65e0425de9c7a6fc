"""Type stubs of the extension module (``python/src/lib.rs``)."""

from typing import Any, Dict, List, Optional, Tuple, Union

QUEUE_BATCHES: int

class FormatError(ValueError):
    path: str
    stage: str
    kind: str
    section: str
    offset: int

class Run:
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def __arrow_c_schema__(self) -> object: ...
    def close(self) -> None: ...
    @property
    def notes(self) -> List[str]: ...
    @property
    def errors_json(self) -> str: ...
    @property
    def outcome_json(self) -> Optional[str]: ...
    @property
    def summary_json(self) -> Optional[str]: ...
    @property
    def error(self) -> Optional[str]: ...
    def raise_pending(self) -> None: ...

class DemoFile:
    def __init__(self, path: str, bytes: bytes) -> None: ...
    def record_json(self) -> str: ...
    def table(
        self, table: str, from_tick: Optional[Union[int, str]] = None, to_tick: Optional[Union[int, str]] = None
    ) -> Run: ...

class MapFile:
    def __init__(self, path: str, bytes: bytes) -> None: ...
    def record_json(self, verify: Optional[str] = None) -> str: ...
    def layers_json(self) -> str: ...
    def tiles(
        self, layer: int
    ) -> Tuple[str, int, int, int, int, Optional[int], bytes]: ...
    def render(
        self,
        style: str,
        max_side: Optional[int] = None,
        scale: Optional[int] = None,
        mapres: Optional[str] = None,
    ) -> Tuple[int, int, bytes]: ...

def tables() -> List[str]: ...
def demos_export(
    select: Dict[str, Any],
    table: str,
    from_tick: Optional[Union[int, str]] = None,
    to_tick: Optional[Union[int, str]] = None,
    jobs: Optional[int] = None,
    split_bytes: Optional[int] = None,
    every_tick: bool = False,
) -> Run: ...
def demos_export_tables(
    select: Dict[str, Any],
    tables: List[str],
    from_tick: Optional[Union[int, str]] = None,
    to_tick: Optional[Union[int, str]] = None,
    jobs: Optional[int] = None,
    split_bytes: Optional[int] = None,
    every_tick: bool = False,
) -> List[Tuple[str, Run]]: ...
def demos_index(select: Dict[str, Any], jobs: Optional[int] = None) -> Run: ...
def maps_index(
    select: Dict[str, Any], verify: Optional[str] = None, jobs: Optional[int] = None
) -> Run: ...
