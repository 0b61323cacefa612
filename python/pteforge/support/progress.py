"""Stage timing for the export pipeline, reported through the 'pteforge' logger."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Iterator

_log = logging.getLogger("pteforge")


class StageTimer:
    """Times named stages, logging each as it ends; `timings` keeps the seconds."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        _log.info("%s ...", name)
        start = time.perf_counter()
        yield
        seconds = time.perf_counter() - start
        self.timings[name] = seconds
        _log.info("%s: %.2f s", name, seconds)
