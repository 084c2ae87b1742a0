"""Progress of a long search, reported to whoever listens (the CLI's progress bar on a terminal).

The search calls :func:`step` as it goes (a context-variable lookup when nobody listens); the
command line installs a listener with :func:`reporting`.  Nothing is printed here: a run with no
listener (a pipe, a test, the Python API) stays silent.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: listener(phase, done, total)
Listener = Callable[[str, int, int], None]
_listener: contextvars.ContextVar[Listener | None] = contextvars.ContextVar("dps_verify_progress", default=None)


def step(phase: str, done: int, total: int) -> None:
    """Report that ``done`` of ``total`` units of ``phase`` are finished."""
    listener = _listener.get()
    if listener is not None:
        listener(phase, done, total)


@contextmanager
def reporting(listener: Listener | None) -> Iterator[None]:
    """Send the :func:`step` reports made inside the block to ``listener`` (None: to nobody)."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


__all__ = ["Listener", "reporting", "step"]
