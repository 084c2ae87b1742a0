"""A live progress indicator for long commands: a spinner with the elapsed time on a terminal
(stderr, drawn by rich and cleared when done), nothing at all otherwise (pipes, files, CI logs).

It writes to the process's real stderr (``sys.__stderr__``), so it stays visible while the
audited code's output is captured (:func:`dps_verify.engine.calls.audited_code`), and it never
redirects stdout: the report and the verdict line are printed after it is gone.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import IO, Any


@contextlib.contextmanager
def working(description: str, *, stream: IO[str] | None = None) -> Iterator[Any]:
    """``with working("auditing f.py"):`` — a transient spinner + elapsed time on a terminal.
    Yields the rich ``Progress`` (or None when ``stream`` is not a terminal)."""
    out = sys.__stderr__ if stream is None else stream
    if out is None or not out.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    prog = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                    console=Console(file=out, force_terminal=True), transient=True,
                    redirect_stdout=False, redirect_stderr=False)
    with prog:
        prog.add_task(description, total=None)
        yield prog


__all__ = ["working"]
