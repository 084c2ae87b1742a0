"""``dps-verify explore THEOREM``: a terminal walkthrough of one theorem.

Prints the numbers at the given (default) parameters first, the proof as numbered steps with
``--steps``, then prompts for new parameters and shows how the bound, the exact δ and the
discharged inequality move.  Prompts appear when stdin is a terminal (or with
``--interactive``); ``--no-input`` prints once.  Parameters are validated before anything is
printed.
"""

from __future__ import annotations

import argparse
import sys

from dps_verify.cli import COMMANDS
from dps_verify.paper import walkthroughs as explore

NAME = "explore"
HELP = COMMANDS[NAME]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "theorem",
        nargs="?",
        help=f"theorem id: {', '.join(sorted(explore.WALKTHROUGHS))} (omit to list them)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="start from this parameter value (repeatable), e.g. --set k=30; --set beta=edge is "
        "the largest beta the theorem allows (1-e^-epsilon, or 1-e^-(epsilon-epsilon1) for CP Thm 6); "
        "epsilon may be an exact log, e.g. --set 'epsilon=ln(11)'",
    )
    p.add_argument(
        "--steps",
        action="store_true",
        help="also print the machine-checked proof steps and the proof's verdict (runs the proof: seconds)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--no-input", action="store_true", help="print the walkthrough once, no prompts")
    mode.add_argument(
        "--interactive", action="store_true", help="prompt even when stdin is not a terminal"
    )


def run(args: argparse.Namespace) -> int:
    if args.theorem is None:
        for tid, w in sorted(explore.WALKTHROUGHS.items()):
            print(f"{tid:<14} {w.title}  ({w.reference})")
        return 0
    w = explore.get(args.theorem)
    values, notes = _resolve_edge(explore.parse_assignments(w, args.set))
    interactive = not args.no_input and (args.interactive or sys.stdin.isatty())
    # session validates and computes the numbers before printing anything (bad --set: exit 2, no output)
    explore.session(w, values, interactive=interactive, steps=args.steps, notes=notes)
    return 0


def _resolve_edge(values: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """``beta=edge`` → the exact β of :func:`dps_verify.core.params.resolve_beta` at the
    walkthrough's ε (CP Thm 5) or ε − ε₁ (CP Thm 6), written as ``p/q``, with the note that
    announces it (printed by the session once the values are valid)."""
    if values.get("beta", "").strip().lower() != "edge" or "epsilon" not in values:
        return values, []
    from dps_verify.core.params import beta_edge_note, epsilon_param, resolve_beta

    eps = epsilon_param(values["epsilon"])
    if "epsilon1" in values:
        eps = eps - epsilon_param(values["epsilon1"], "epsilon1")
    beta = resolve_beta("edge", eps)
    return {**values, "beta": str(beta)}, [f"beta = edge = {beta_edge_note(eps, beta)}"]
