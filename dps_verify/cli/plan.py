"""``dps-verify plan``: the smallest k and the best β for a target (ε, δ), certified, and what
each choice buys on a table (CP Thm 5; with --select-with, CP Thm 6 read as in its App. A.3)."""

from __future__ import annotations

import argparse

from dps_verify.cli import COMMANDS
from dps_verify.core.errors import ParameterError

NAME = "plan"
HELP = COMMANDS[NAME]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--epsilon", required=True,
                   help="target epsilon >= 0: a decimal, p/q, or an exact log such as 'ln(3)'")
    p.add_argument("--delta", required=True, help="target delta, 0 < delta < 1")
    p.add_argument("--beta", action="extend", nargs="+", default=[], metavar="B",
                   help='add sampling probabilities (--beta 0.3 0.5, or repeated; "edge" = 1-e^-epsilon '
                   'rounded down)')
    p.add_argument("--no-grid", action="store_true",
                   help="only the edge and the --beta values (no default grid below the edge)")
    p.add_argument("--json", metavar="FILE", help="write the plan as JSON (atomic; never over a file dps-verify did not write)")
    p.add_argument("--plot", metavar="FILE.png", help="plot k against beta for the three measures (PNG)")
    p.add_argument("--force", action="store_true",
                   help="replace existing --json/--plot/--release files even if dps-verify did not write them")
    d = p.add_argument_group("what the plan buys on a table")
    d.add_argument("--data", metavar="FILE.csv", help="the table (CSV; without a header, column names come from the spec)")
    d.add_argument("--qi", metavar="COLS", help="comma-separated quasi-identifier columns (default: the spec's 'qi')")
    d.add_argument("--recoding", metavar="SPEC[:NAME]",
                   help="fixed, data-independent recoding (JSON spec, e.g. examples/real/adult_recoding.json); "
                   ":NAME picks one of its recodings")
    d.add_argument("--columns", metavar="COLS", help="comma-separated column names for a CSV without a header row")
    s = p.add_argument_group("choosing with privacy (CP Thm 6, App. A.3 reading)")
    s.add_argument("--select-with", metavar="EPS1",
                   help="choose (recoding, beta, k) epsilon1-DP with the exponential mechanism on the unsampled "
                   "table; the anonymization then gets epsilon - EPS1")
    s.add_argument("--candidates", metavar="NAMES", help="comma-separated recodings of the spec to choose from (default: all)")
    s.add_argument("--select-measure", default="paper", choices=["paper", "hockey-stick"],
                   help="measure that sets k for each candidate: paper (the d of CP Thm 6, default) or "
                   "hockey-stick (the exact worst-case delta, the same App. A.3 argument with it in place of d)")
    r = p.add_argument_group("a release that follows the plan")
    r.add_argument("--release", metavar="OUT.csv",
                   help="sample and anonymize the table with the chosen (beta, recoding, k); writes OUT.csv and "
                   "OUT.csv.json (parameters, certified guarantee, theorem)")
    r.add_argument("--release-beta", default="edge", metavar="B",
                   help="beta of the release without --select-with (a beta of the plan; default edge)")
    r.add_argument("--release-measure", default="hockey-stick", choices=["paper", "hockey-stick", "pointwise"],
                   help="measure whose smallest k the release uses without --select-with (default hockey-stick)")
    r.add_argument("--seed", type=int, help="seed for the selection and the sampler (reproducible, not secret; "
                   "omit for the OS CSPRNG)")


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse bad output paths before any work (nothing half-written)."""
    import os
    from pathlib import Path

    from dps_verify.core.errors import UsageError
    from dps_verify.plan import outputs

    named: list[tuple[str, str | None]] = [("--json", args.json), ("--plot", args.plot)]
    if args.release is not None:
        named += [("--release", args.release), ("--release's sidecar", str(outputs.sidecar_path(args.release)))]
    seen: dict[str, str] = {}
    for option, path in named:
        if path is None:
            continue
        key = os.path.normcase(os.path.realpath(Path(path)))
        if key in seen:
            raise UsageError(f"{option} {path}: the same file as {seen[key]}; every output needs its own name")
        seen[key] = option
    if args.plot is not None:
        if not str(args.plot).lower().endswith(".png"):
            raise UsageError(f"--plot {args.plot}: the plot is a PNG file, name it *.png")
        outputs.check_png(args.plot, force=args.force)
    if args.release is not None:
        if args.data is None:
            raise UsageError("--release needs --data and --recoding")
        outputs.check_release(args.release, force=args.force)
    if args.json is not None:
        outputs.check_json(args.json, force=args.force)


def _console():
    """A rich console; at least 120 columns wide when stdout is not a terminal (pipes, files)."""
    import sys

    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=120)


def _cols(text: str | None) -> list[str] | None:
    if text is None:
        return None
    cols = [c.strip() for c in text.split(",") if c.strip()]
    if not cols:
        raise ParameterError(f"empty column list {text!r}")
    return cols


def _split_recoding(text: str | None) -> tuple[str | None, str | None]:
    """``SPEC`` or ``SPEC:NAME`` (the part after the last ':' is a name if SPEC exists without it)."""
    if text is None:
        return None, None
    from pathlib import Path

    if ":" in text and not Path(text).exists():
        head, _, tail = text.rpartition(":")
        return head, tail or None
    return text, None


def run(args: argparse.Namespace) -> int:
    from dps_verify.plan import outputs
    from dps_verify.plan.planner import plan
    from dps_verify.plan.report import (
        frontier_json,
        print_frontier,
        print_selection,
        print_utility,
        selection_json,
        utility_json,
    )

    _check_outputs(args)
    spec_path, name = _split_recoding(args.recoding)
    betas = list(args.beta)
    if args.release is not None and args.select_with is None and args.release_beta != "edge":
        betas.append(args.release_beta)
    result = plan(args.epsilon, args.delta, betas, default_grid=not args.no_grid,
                  data=args.data, qi=_cols(args.qi), recoding=spec_path, recoding_name=name,
                  columns=_cols(args.columns), select_with=args.select_with,
                  candidates=_cols(args.candidates), select_measure=args.select_measure, seed=args.seed)
    console = _console()
    print_frontier(result.frontier, console)
    # The JSON is built only when asked for (its exact rationals can be long to format).
    doc = None if args.json is None else {"command": "plan", **frontier_json(result.frontier)}
    if result.utility is not None:
        print_utility(result.utility, console)
        if doc is not None:
            doc["on_table"] = utility_json(result.utility)
    if result.selection is not None:
        print_selection(result.selection, console)
        if doc is not None:
            doc["selection"] = selection_json(result.selection)
    if args.release is not None:
        from fractions import Fraction

        from dps_verify.core.numbers import format_up
        from dps_verify.plan.planner import make_release, release_choice
        from dps_verify.plan.release import sidecar

        choice = release_choice(result, args.release_beta, args.release_measure)
        rel = make_release(result, choice, args.seed)
        assert result.spec is not None and result.table is not None
        side = sidecar(beta=choice["beta"], beta_label=choice["beta_label"], k=choice["k"],
                       recoding=choice["recoding"], spec_path=result.spec.path, qi=result.table.qi,
                       seed=args.seed, guarantee=choice["guarantee"], release=rel,
                       recoding_rules={c: result.spec.get(choice["recoding"]).spec.get(c, "keep")
                                       for c in result.table.qi})
        out, side_path = outputs.write_release(args.release, rel.csv_text(), side, force=args.force)
        console.print(f"release: {len(rel.rows):,} records in {rel.published_groups:,} groups "
                      f"(recoding {choice['recoding']!r}, beta = {choice['beta_label']}, k = {choice['k']}); "
                      f"guarantee (epsilon, delta) = ({choice['guarantee']['epsilon']}, "
                      f"{format_up(Fraction(choice['guarantee']['delta']), 4)}) under {choice['guarantee']['delta_measure']}")
        console.print(f"wrote {out} and {side_path}")
        if doc is not None:
            doc["release"] = {"file": str(out), "sidecar": str(side_path), **{k: v for k, v in side.items()}}
    if doc is not None:
        path = outputs.write_json(args.json, doc, force=args.force, what="plan JSON")
        print(f"wrote {path}")
    if args.plot is not None:
        from dps_verify.plan.plot import frontier_png

        path = outputs.write_png(args.plot, frontier_png(result.frontier), force=args.force)
        print(f"wrote {path}")
    return 0
