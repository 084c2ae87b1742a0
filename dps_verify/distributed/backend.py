"""Where the embarrassingly parallel work runs: in this process, or as Dask tasks.

A backend has ``map(fn, items, progress=None) -> list`` returning ``[fn(x) for x in items]`` in
order, ``scatter(data)`` (ship a large argument once; a Dask future, or the data itself) and
``close()``.  ``fn`` must be a module-level function of plain data.

Determinism: every task's random stream is a child of one :class:`numpy.random.SeedSequence`
(:func:`task_seeds`, ``SeedSequence(seed).spawn(n)``), indexed by the task's position, and
results are combined in task order — so a verdict and its witness do not depend on the number
of workers, nor on which worker ran which task.

:class:`DaskBackend` starts a :class:`distributed.LocalCluster` with one single-threaded worker
process per core (stopped by :meth:`close`) unless it is given an existing ``client`` or a
scheduler ``address``, which it leaves running.

Hung tasks: the audited code may never return.  :class:`DaskBackend` gives every task a
deadline (``task_timeout`` seconds; by default :func:`task_deadline` of the run's estimate,
overridable by the parameter or the environment variable ``DPS_VERIFY_TASK_TIMEOUT``).  Tasks
start only when a worker is free, i.e. at the start or when another task finishes, so when no
task has finished for ``task_timeout`` seconds every running task has run at least that long:
the map stops and raises :class:`~dps_verify.core.errors.AuditedCodeError` (the audit's exit
code for audited-code failures, never a verdict).  On a LocalCluster started here the worker
processes are killed (the hung task cannot be interrupted otherwise); on an external cluster
the futures are cancelled, and the message says that its workers may still be busy.
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from dps_verify.core.errors import ParameterError

#: Below this many seconds of estimated work a job runs serially (starting workers costs ~2 s).
PARALLEL_SECONDS = 10.0


#: Settings of a LocalCluster this backend starts.  A task whose worker dies is not retried
#: on the other workers (only the audited code can kill a worker, and it would kill them one
#: after another).  The workers' statistical profiler (a stack sample every 10 ms) is off and
#: the system monitor samples every 2 s: on pandas-heavy pipelines the profiler alone cost
#: about a quarter of each run's CPU time (benchmarks/bench_real_audit.py).
LOCAL_CLUSTER_CONFIG = {
    "distributed.scheduler.allowed-failures": 0,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "2s",
}


#: least per-task deadline of :func:`task_deadline` (seconds): starting workers and shipping
#: the table take seconds on a loaded machine
MIN_TASK_TIMEOUT = 120.0
#: a task may take this many times the estimate of the *whole* run before it counts as hung
TASK_TIMEOUT_FACTOR = 20.0
#: environment variable overriding the per-task deadline (seconds)
TASK_TIMEOUT_ENV = "DPS_VERIFY_TASK_TIMEOUT"


def task_deadline(estimated_seconds: float, override: float | None = None) -> float:
    """Per-task deadline in seconds: ``override`` if given, else ``$DPS_VERIFY_TASK_TIMEOUT``,
    else max(:data:`MIN_TASK_TIMEOUT`, :data:`TASK_TIMEOUT_FACTOR` × ``estimated_seconds``, an
    upper estimate of one task: :class:`DaskBackend` passes the run's whole estimate over the
    number of tasks of the map) — a task taking 20 times its estimate is taken as hung."""
    if override is None and os.environ.get(TASK_TIMEOUT_ENV):
        raw = os.environ[TASK_TIMEOUT_ENV]
        try:
            override = float(raw)
        except ValueError:
            raise ParameterError(f"{TASK_TIMEOUT_ENV} must be a number of seconds, got {raw!r}") from None
    if override is not None:
        if not override > 0:
            raise ParameterError(f"task_timeout must be > 0 seconds, got {override!r}")
        return float(override)
    return max(MIN_TASK_TIMEOUT, TASK_TIMEOUT_FACTOR * max(0.0, estimated_seconds))


def task_seeds(seed: int | None, n: int) -> list[np.random.SeedSequence]:
    """``n`` independent child seed sequences of ``SeedSequence(seed)`` (fresh entropy when
    ``seed`` is None; the chosen entropy is kept in each child's ``entropy``)."""
    return np.random.SeedSequence(seed).spawn(n)


class Backend(Protocol):
    workers: int

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any],
            progress: Callable[[int, int], None] | None = None) -> list: ...

    def scatter(self, data: Any) -> Any: ...

    def close(self) -> None: ...


class SerialBackend:
    """Everything in the calling process, in order."""

    workers = 1
    name = "serial"

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any],
            progress: Callable[[int, int], None] | None = None) -> list:
        out = []
        for i, x in enumerate(items):
            out.append(fn(x))
            if progress is not None:
                progress(i + 1, len(items))
        return out

    def scatter(self, data: Any) -> Any:
        return data

    def close(self) -> None:
        pass


class DaskBackend:
    """Tasks on a Dask cluster: a LocalCluster started here (``workers`` processes, default
    one per core), or an existing one through ``client`` or a scheduler ``address``."""

    name = "dask"

    def __init__(self, workers: int | None = None, *, address: str | None = None,
                 client: Any = None, task_timeout: float | None = None,
                 estimated_seconds: float = 0.0):
        from dask.distributed import Client, LocalCluster

        #: seconds without any finished task after which the running ones count as hung (set
        #: per map: the run's estimate shared over the map's tasks, unless overridden)
        self.task_timeout = task_deadline(estimated_seconds, task_timeout)  # refuses bad values
        self._estimate, self._override = estimated_seconds, task_timeout
        self._cluster: Any = None
        self._own_client = client is None
        if client is not None:
            self.client = client
        elif address is not None:
            self.client = Client(address)
        else:
            n = max(1, workers or os.cpu_count() or 1)
            # workers' own logs stay quiet: a failing task is reported once, by the caller
            import dask

            with dask.config.set(LOCAL_CLUSTER_CONFIG):
                self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                             dashboard_address=":0",
                                             silence_logs=logging.CRITICAL)
            self.client = Client(self._cluster)
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})) or (workers or 1))
        self.name = f"dask ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def scatter(self, data: Any) -> Any:
        """``data`` on every worker as ONE future.  (``client.scatter`` of a list scatters each
        element as its own future: a table of 32,561 rows would make every task depend on
        32,561 keys, seconds of scheduler work per task.)"""
        return self.client.scatter([data], broadcast=True, hash=False)[0]

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any],
            progress: Callable[[int, int], None] | None = None) -> list:
        from dask.distributed import wait
        from distributed.scheduler import KilledWorker

        from dps_verify.core.errors import AuditedCodeError

        # a task of this map is estimated at most the run's whole estimate over its task count
        self.task_timeout = task_deadline(self._estimate / max(1, len(items)), self._override)
        futures = [self.client.submit(fn, x, pure=False) for x in items]
        index = {f.key: i for i, f in enumerate(futures)}
        out: list[Any] = [None] * len(futures)
        done = 0
        pending = set(futures)
        try:
            while pending:
                try:
                    finished, pending = wait(pending, timeout=self.task_timeout,
                                             return_when="FIRST_COMPLETED")
                except TimeoutError:
                    raise AuditedCodeError(self._hung(fn, len(pending))) from None
                for fut in finished:
                    try:
                        out[index[fut.key]] = fut.result()  # re-raises a task's exception here
                    except KilledWorker:
                        # a worker process died in the task (a crash, a kill, memory): the only
                        # code in a task that can do so is the audited code (never a verdict)
                        raise AuditedCodeError(
                            f"a Dask worker process died while running task {index[fut.key]} "
                            f"({getattr(fn, '__name__', fn)}): the audited code crashed or was killed "
                            "(out of memory?)") from None
                    done += 1
                    if progress is not None:
                        progress(done, len(futures))
        finally:
            if self.client.status == "running":  # (closed here after killing hung workers)
                for f in futures:
                    f.cancel()
        return out

    def _hung(self, fn: Callable[[Any], Any], running: int) -> str:
        """Stop the hung tasks (kill our workers; cancel on an external cluster): the message."""
        what = (f"no task of {getattr(fn, '__name__', fn)} finished within the per-task deadline "
                f"of {self.task_timeout:g} s ({running} not finished): the audited code hangs "
                f"(or is far slower than estimated; set {TASK_TIMEOUT_ENV} to allow longer)")
        if self._cluster is None:
            return what + ("; the tasks were cancelled, but the workers of the external Dask "
                           "cluster may still be busy running them")
        self._kill_local_workers()
        return what + "; the local Dask worker processes were killed"

    def _kill_local_workers(self) -> None:
        """SIGKILL the worker processes of the LocalCluster started here (a task hung in a
        worker thread cannot be interrupted), then close the cluster."""
        pids = []
        for nanny in list(getattr(self._cluster, "workers", {}).values()):
            proc = getattr(getattr(nanny, "process", None), "process", None)
            pid = getattr(proc, "pid", None)
            if pid:
                pids.append(pid)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.close()

    def close(self) -> None:
        if self._own_client:
            self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def choose_backend(
    requested: Backend | str | None = None,
    *,
    estimated_seconds: float = 0.0,
    workers: int | None = None,
    address: str | None = None,
    client: Any = None,
    task_timeout: float | None = None,
) -> Backend:
    """``requested`` if it is a backend; ``"serial"``/``"dask"``; else Dask when a ``client`` or
    scheduler ``address`` is given, or ``workers`` > 1 is asked for, or the estimated work is
    over :data:`PARALLEL_SECONDS` on a machine with several cores; serial otherwise.  A Dask
    backend's per-task deadline is :func:`task_deadline` (``estimated_seconds``,
    ``task_timeout``)."""
    if requested is not None and not isinstance(requested, str):
        return requested
    if requested not in (None, "serial", "dask"):
        raise ParameterError(f"backend must be 'serial', 'dask' or a Backend, got {requested!r}")
    if requested == "serial":
        return SerialBackend()
    kw: dict[str, Any] = {"task_timeout": task_timeout, "estimated_seconds": estimated_seconds}
    if client is not None or address is not None:
        return DaskBackend(workers, address=address, client=client, **kw)
    if requested == "dask" or (workers or 0) > 1:
        return DaskBackend(workers, **kw)
    if estimated_seconds > PARALLEL_SECONDS and (os.cpu_count() or 1) > 1 and workers != 1:
        return DaskBackend(workers, **kw)
    return SerialBackend()


__all__ = [
    "LOCAL_CLUSTER_CONFIG",
    "PARALLEL_SECONDS",
    "Backend",
    "DaskBackend",
    "SerialBackend",
    "choose_backend",
    "task_deadline",
    "task_seeds",
]
