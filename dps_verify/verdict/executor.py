"""One executor interface for the embarrassingly parallel parts of the exact search.

An executor has ``map(fn, items) -> list`` returning ``[fn(item) for item in items]`` in order.
``fn`` must be a module-level function of plain data (numpy arrays, numbers): the search never
ships user code to workers — the anonymizer is called in the parent process, once per distinct
sample, and workers only do the float screening.  So results are identical whichever executor
runs them (each item is computed independently, in the same arithmetic).

The parallel executor runs the chunks as Dask tasks (:mod:`dps_verify.distributed`); any object
with ``map`` and ``close`` (a :class:`~dps_verify.distributed.backend.DaskBackend` on an existing
cluster, for one) can be passed instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from dps_verify.core.errors import ParameterError

#: Below this many enumeration terms a search runs serially (starting workers costs ~1 s).
PARALLEL_THRESHOLD = 3_000_000


class Executor(Protocol):
    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Runs everything in the calling process."""

    workers = 1

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list:
        return [fn(x) for x in items]

    def close(self) -> None:
        pass


class ProcessExecutor:
    """Worker processes on a Dask ``LocalCluster`` (:class:`dps_verify.distributed.backend.
    DaskBackend`, one single-threaded worker process per core by default), started on the first
    ``map`` of more than one item and stopped by :meth:`close`; workers only run numpy code on
    the data they are sent, so results equal the serial ones."""

    def __init__(self, workers: int | None = None):
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._backend: Any = None

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list:
        if len(items) <= 1 or self.workers == 1:
            return [fn(x) for x in items]
        if self._backend is None:
            from dps_verify.distributed.backend import DaskBackend

            self._backend = DaskBackend(self.workers)
        return self._backend.map(fn, items)

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None


def choose_executor(work: int, requested: Executor | str | None = None) -> Executor:
    """``requested`` if given (``"serial"``/``"process"`` or an executor); else serial for small
    work (< :data:`PARALLEL_THRESHOLD` terms) and Dask worker processes on all cores otherwise."""
    if requested is not None and not isinstance(requested, str):
        return requested
    if requested == "serial":
        return SerialExecutor()
    if requested == "process":
        return ProcessExecutor()
    if requested is not None:
        raise ParameterError(f"executor must be 'serial', 'process' or an Executor, got {requested!r}")
    if work < PARALLEL_THRESHOLD or (os.cpu_count() or 1) < 2:
        return SerialExecutor()
    return ProcessExecutor()


__all__ = ["PARALLEL_THRESHOLD", "Executor", "ProcessExecutor", "SerialExecutor", "choose_executor"]
