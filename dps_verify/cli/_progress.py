"""A live progress display for long commands on a terminal (stderr, drawn by rich and cleared
when done); nothing at all otherwise (pipes, files, CI logs).

It shows a spinner and the elapsed time, and a bar with done/total while the search reports its
progress (:mod:`dps_verify.core.progress`: the audit's exact and statistical phases).  It writes
to the process's real stderr (``sys.__stderr__``), so it stays visible while the audited code's
output is captured (:func:`dps_verify.engine.calls.audited_code`), and it never redirects
stdout: the report and the verdict line are printed after it is gone.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import IO, Any

from dps_verify.core import progress


@contextlib.contextmanager
def working(description: str, *, stream: IO[str] | None = None) -> Iterator[Any]:
    """``with working("auditing f.py"):`` — a transient progress display on a terminal.
    Yields the rich ``Progress`` (or None when ``stream`` is not a terminal)."""
    out = sys.__stderr__ if stream is None else stream
    if out is None or not out.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    prog = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=Console(file=out, force_terminal=True), transient=True,
                    redirect_stdout=False, redirect_stderr=False)
    with prog:
        task = prog.add_task(description, total=None)

        def listen(phase: str, done: int, total: int) -> None:
            prog.update(task, description=f"{description}: {phase}", completed=done, total=total)

        with progress.reporting(listen):
            yield prog
