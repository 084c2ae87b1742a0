"""``dps-verify plan``: the smallest k and the best β for a target (ε, δ), certified, and what
each choice buys on a table (CP Thm 5; with --select-with, CP Thm 6 read as in its App. A.3)."""

from __future__ import annotations

import argparse

NAME = "plan"
HELP = ("Plan a sampled k-anonymized release for a target (epsilon, delta): smallest k per "
        "measure and beta, certified, beside ARX's k.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--epsilon", required=True,
                   help="target epsilon >= 0: a decimal, p/q, or an exact log such as 'ln(3)'")
    p.add_argument("--delta", required=True, help="target delta, 0 < delta < 1")
    p.add_argument("--beta", action="append", default=[], metavar="B",
                   help='add a sampling probability (repeatable; "edge" = 1-e^-epsilon rounded down)')
    p.add_argument("--no-grid", action="store_true",
                   help="only the edge and the --beta values (no default grid below the edge)")
    p.add_argument("--json", metavar="FILE", help="write the plan as JSON (atomic; never over a file dps-verify did not write)")
    p.add_argument("--plot", metavar="FILE.png", help="plot k against beta for the three measures (PNG)")


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse bad output paths before any work (nothing half-written)."""
    from pathlib import Path

    from dps_verify.core.errors import UsageError
    from dps_verify.plan import outputs

    if args.plot is not None:
        if not str(args.plot).lower().endswith(".png"):
            raise UsageError(f"--plot {args.plot}: the plot is a PNG file, name it *.png")
        outputs.check_png(args.plot)
    if args.json is not None:
        p = Path(args.json)
        if p.exists() and (not p.is_file() or not outputs.json_is_ours(p)):
            raise UsageError(f"refusing to overwrite {p}: it is not a JSON file dps-verify wrote; "
                             "choose another name or move it away")
    for opt in ("json", "plot"):
        val = getattr(args, opt)
        if val is not None and not Path(val).absolute().parent.is_dir():
            raise UsageError(f"--{opt} {val}: directory {Path(val).absolute().parent} does not exist")


def run(args: argparse.Namespace) -> int:
    from dps_verify.plan import outputs
    from dps_verify.plan.planner import plan
    from dps_verify.plan.report import frontier_json, print_frontier

    _check_outputs(args)
    result = plan(args.epsilon, args.delta, args.beta, default_grid=not args.no_grid)
    print_frontier(result.frontier)
    if args.json is not None:
        path = outputs.write_json(args.json, {"command": "plan", **frontier_json(result.frontier)},
                                  what="plan JSON")
        print(f"wrote {path}")
    if args.plot is not None:
        from dps_verify.plan.plot import frontier_png

        path = outputs.write_png(args.plot, frontier_png(result.frontier))
        print(f"wrote {path}")
    return 0
