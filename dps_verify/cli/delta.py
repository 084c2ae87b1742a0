"""``dps-verify delta``: the paper's d beside the exact δ of sampled strongly-safe
k-anonymization (CP Thm 5), and the inverse questions."""

from __future__ import annotations

import argparse
import json
import time
from fractions import Fraction

import mpmath

from dps_verify.cli import COMMANDS
from dps_verify.cli._progress import working
from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import format_down, format_up
from dps_verify.core.params import beta_edge_note, epsilon_param, resolve_beta
from dps_verify.core.types import bound_param
from dps_verify.inverse.questions import max_beta, min_epsilon, min_k
from dps_verify.worstcase.closed_forms import d_certified
from dps_verify.worstcase.sdgs import is_infinite_epsilon, sdgs_delta_certified

NAME = "delta"
HELP = COMMANDS[NAME]


def _release_count(text: str) -> int:
    """``--releases T``: a whole number of releases, T >= 1 (argparse: one line, exit 2)."""
    try:
        t = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of releases T >= 1, got {text!r}") from None
    if t < 1:
        raise argparse.ArgumentTypeError(f"the number of releases T must be >= 1, got {t}")
    return t


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--k", type=int, help="suppression threshold k >= 1")
    p.add_argument("--beta", type=str, help='sampling probability, 0 < beta < 1, or "edge" (1-e^-epsilon rounded down)')
    p.add_argument("--epsilon", type=str, help="epsilon >= -ln(1-beta); a decimal, p/q, or an exact log such as 'ln(11)'")
    p.add_argument("--delta", type=str, help="target delta (for --min-k/--min-epsilon/--max-beta)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--min-k", action="store_true", help="smallest k reaching --delta")
    g.add_argument("--min-epsilon", action="store_true", help="smallest epsilon reaching --delta")
    g.add_argument("--max-beta", action="store_true", help="largest beta reaching --delta")
    p.add_argument("--releases", type=_release_count, metavar="T",
                   help="delta of T fresh-sample releases, worst case over all group sizes (exact or certified enclosure)")
    p.add_argument("--json", action="store_true", help="print JSON")


def _need(args: argparse.Namespace, *names: str) -> None:
    missing = [f"--{n.replace('_', '-')}" for n in names if getattr(args, n) is None]
    if missing:
        raise ParameterError(f"missing {', '.join(missing)}")


def _beta_and_eps(args: argparse.Namespace) -> tuple[Fraction, Fraction]:
    if is_infinite_epsilon(args.epsilon) and not args.releases:
        # --epsilon inf: the limit epsilon -> inf, beta^k; the worstcase functions read the text
        # "inf" themselves (worstcase.sdgs.limit_at_infinite_epsilon); releases/inverses refuse it
        return (_infinite_beta(args.beta), args.epsilon)  # type: ignore[return-value]
    eps = epsilon_param(args.epsilon)
    return resolve_beta(args.beta, eps), eps


def _infinite_beta(beta: str) -> Fraction:
    if str(beta).strip().lower() == "edge":
        raise ParameterError('--beta edge is 1 at --epsilon inf: give 0 < beta < 1 (CP Thm 5)')
    return resolve_beta(beta, Fraction(1))


def run(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    if args.min_k or args.min_epsilon or args.max_beta:
        return _inverse(args, t0)
    _need(args, "k", "beta", "epsilon")
    beta, eps = _beta_and_eps(args)
    if getattr(args, "releases", None) is not None:
        from dps_verify.cli._releases import run_releases

        return run_releases(args.k, beta, eps, args.releases, args.json, t0)
    with working(f"delta at k = {args.k}"):  # a spinner on a terminal only
        paper = d_certified(args.k, beta, eps)
        hs = sdgs_delta_certified(args.k, beta, eps, "hockey-stick")
        pw = sdgs_delta_certified(args.k, beta, eps, "pointwise")
    rows = {
        "paper_d": paper,
        "exact_hockey_stick": hs,
        "exact_pointwise": pw,
    }
    out = {
        "k": args.k,
        "beta": str(beta),
        "beta_is_edge": str(args.beta).strip().lower() == "edge",
        "epsilon": str(eps),
        **{
            name: {
                # the safe (upper) end, rounded UP: a positive delta never prints as 0
                "value": format_up(c.upper, 7),
                "upper": format_up(c.upper, 17),
                "lower": format_down(c.lower, 17),
                "argmax_n": c.details.get("argmax_n"),
                "certified": c.how,
            }
            for name, c in rows.items()
        },
        "seconds": round(time.perf_counter() - t0, 4),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    edge_note = f"\n  beta = edge = {beta_edge_note(eps, beta)}" if out["beta_is_edge"] else ""
    print(f"k = {args.k}, beta = {args.beta}, epsilon = {args.epsilon}  (CP Thm 5){edge_note}")
    labels = {
        "paper_d": "paper d(k,beta,eps)",
        "exact_hockey_stick": "exact delta, hockey-stick",
        "exact_pointwise": "exact delta, pointwise",
    }
    for name, c in rows.items():
        print(f"  {labels[name]:<27} {format_up(c.upper, 7)}   worst group size n = {c.details.get('argmax_n')}")
    print("  (values are upper ends of certified enclosures, rounded up)")
    print("  certified: " + paper.how)
    print("  hockey-stick: " + hs.how)
    return 0


def _inverse(args: argparse.Namespace, t0: float) -> int:
    with working("searching"):  # a spinner on a terminal only
        results, what = _inverse_results(args)
    return _print_inverse(args, t0, results, what)


def _inverse_results(args: argparse.Namespace) -> tuple[dict[str, object], str]:
    results: dict[str, object] = {}
    measures = ("paper", "hockey-stick", "pointwise")
    if args.min_k:
        _need(args, "beta", "epsilon", "delta")
        beta, eps = _beta_and_eps(args)
        for b in measures:
            results[b] = min_k(beta, eps, args.delta, bound=bound_param(b))
        what = f"smallest k with delta <= {args.delta} at beta = {args.beta}, epsilon = {args.epsilon}"
    elif args.min_epsilon:
        _need(args, "k", "beta", "delta")
        for b in measures:
            results[b] = mpmath.nstr(min_epsilon(args.k, args.beta, args.delta, bound=bound_param(b)), 12)
        what = f"smallest epsilon with delta <= {args.delta} at k = {args.k}, beta = {args.beta} (rounded up)"
    else:
        _need(args, "k", "epsilon", "delta")
        for b in measures:
            results[b] = mpmath.nstr(max_beta(args.k, args.epsilon, args.delta, bound=bound_param(b)), 12)
        what = f"largest beta with delta <= {args.delta} at k = {args.k}, epsilon = {args.epsilon} (rounded down)"
    return results, what


def _print_inverse(args: argparse.Namespace, t0: float, results: dict[str, object], what: str) -> int:
    if args.json:
        print(json.dumps({"question": what, "answers": results,
                          "seconds": round(time.perf_counter() - t0, 4)}, indent=2))
        return 0
    print(what)
    for b, v in results.items():
        label = "paper's d" if b == "paper" else f"exact delta ({b})"
        print(f"  by {label:<26} {v}")
    return 0
