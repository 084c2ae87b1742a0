"""``dps-verify paper``: check every registered claim of the paper and report a verdict for each.

The registry lives in :mod:`dps_verify.claims`; report writers in :mod:`dps_verify.report`.
Exit code 0 when every verdict equals the verdict recorded as expected, 1 otherwise, 2 on bad
usage (no claim matches ``--only``, an unwritable output path, an output that would overwrite
something dps-verify did not write: ``--force`` replaces such a ``--json``/``--markdown`` file).  Outputs are written safely (:mod:`dps_verify.core.fsio`)
and each path written is printed.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
import time
from pathlib import Path

from dps_verify.cli import COMMANDS
from dps_verify.core.errors import ParameterError

NAME = "paper"
HELP = COMMANDS[NAME]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", metavar="PATTERN",
                   help="run only claims whose id matches this glob (or contains it as a substring)")
    p.add_argument("--json", metavar="FILE", type=Path, help="write a JSON report")
    p.add_argument("--markdown", metavar="FILE", type=Path,
                   help="write a Markdown report (figures go to <FILE stem>_figures/)")
    p.add_argument("--html", metavar="DIR", type=Path, help="write an HTML report to DIR/index.html")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --json/--markdown file that dps-verify did not write")
    p.add_argument("--list", action="store_true", help="list the claim ids and exit")


def _select(pattern: str | None):
    from dps_verify.paper.claims import REGISTRY
    if not pattern:
        return list(REGISTRY)
    return [c for c in REGISTRY if fnmatch.fnmatch(c.id, pattern) or pattern in c.id]


def _check_paths(args: argparse.Namespace, claims) -> None:
    """Refuse before any claim runs if an output could not be written or would overwrite
    something dps-verify did not write (:mod:`dps_verify.core.fsio`)."""
    from dps_verify.core import fsio
    from dps_verify.core.errors import UsageError

    for opt in ("json", "markdown"):
        f = getattr(args, opt)
        if f is not None:
            fsio.check_output_file(f, option=f"--{opt}", force=args.force)
    figs = sorted({c.artefact for c in claims if c.artefact and c.artefact.startswith("fig")})
    if args.markdown is not None and figs:
        md = Path(args.markdown).absolute()
        fsio.check_report_dir(md.parent / f"{md.stem}_figures", [f"{a}.png" for a in figs],
                              what="--markdown figures")
    if args.html is not None:
        h = Path(args.html).absolute()
        if not h.exists() and not h.parent.is_dir():
            raise UsageError(f"--html: parent directory {h.parent} does not exist")
        fsio.check_report_dir(h, ["index.html", "figures"] if figs else ["index.html"], what="--html report")


def summary_line(outcomes, seconds: float) -> str:
    """The one summary line (shared with the reports: :func:`dps_verify.report.model.summary_line`)."""
    from dps_verify.report.model import summary_line as line

    return line(outcomes, seconds)


def run(args: argparse.Namespace) -> int:
    claims = _select(args.only)
    if not claims:
        raise ParameterError(f"no claim id matches {args.only!r} (see --list)")
    if args.list:
        for c in claims:
            print(c.id)
        return 0
    _check_paths(args, claims)
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    from dps_verify.paper.claims.runner import run_claims

    console = Console(soft_wrap=False)
    tty = console.is_terminal
    t0 = time.perf_counter()
    if tty:
        with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                      TimeElapsedColumn(), console=console, transient=True) as prog:
            task = prog.add_task("checking claims", total=len(claims))
            outcomes = run_claims(claims, lambda o: prog.update(task, advance=1, description=o.claim.id))
    else:
        outcomes = run_claims(claims)
    total = time.perf_counter() - t0

    if tty:
        table = Table(show_lines=False, header_style="bold")
        for col in ("claim", "verdict", "method", "key figure", "time"):
            table.add_column(col, overflow="fold")
        style = {"CONFIRMED": "green", "REFUTED": "red", "CONFIRMED-WITH-CORRECTION": "yellow",
                 "NOT-MACHINE-CHECKABLE": "dim"}
        for o in outcomes:
            v = o.result.verdict + ("" if o.ok else f"  (expected {o.claim.expected})")
            table.add_row(o.claim.id, f"[{style[o.result.verdict]}]{v}[/]" if o.ok else f"[bold red]{v}[/]",
                          o.claim.method, o.result.figure, f"{o.seconds:.2f}s")
        console.print(table)
    else:
        for o in outcomes:
            flag = "" if o.ok else f"   <-- expected {o.claim.expected}"
            print(f"{o.claim.id:<34} {o.result.verdict:<26} {o.result.figure[:70]:<70} "
                  f"{o.seconds:5.2f}s{flag}")
    from dps_verify.paper.claims.runner import findings
    found = findings(outcomes)
    if found:
        print(f"findings ({len(found)}):")
        for line in found:
            print(f"  {line[:160]}")
    sys.stdout.flush()

    from dps_verify import report
    from dps_verify.report.writers import DrawnFigures
    drawn: DrawnFigures = {}  # each figure drawn once, copied into the other format's directory
    if args.json is not None:
        print(f"wrote {report.write_json(outcomes, total, args.json, force=args.force)}")
    if args.markdown is not None:
        print(f"wrote {report.write_markdown(outcomes, total, args.markdown, force=args.force, drawn=drawn)}")
    if args.html is not None:
        print(f"wrote {report.write_html(outcomes, total, args.html, drawn=drawn)}")
    print(summary_line(outcomes, total))  # the verdict of the run: always the last line
    return 0 if all(o.ok for o in outcomes) else 1
