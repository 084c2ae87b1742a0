"""The Dask backend: trials and exact-search chunks as Dask tasks (see :mod:`.backend`)."""

from dps_verify.distributed.backend import (
    Backend,
    DaskBackend,
    SerialBackend,
    choose_backend,
    task_deadline,
    task_seeds,
)
from dps_verify.distributed.checkpoint import Checkpoint

__all__ = ["Backend", "Checkpoint", "DaskBackend", "SerialBackend", "choose_backend", "task_deadline",
           "task_seeds"]
