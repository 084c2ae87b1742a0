"""``dps-verify delta``: the paper's d beside the exact δ of sampled strongly-safe
k-anonymization (CP Thm 5), and the inverse questions."""

from __future__ import annotations

import argparse
import json
import time

from dps_verify import bounds, exact
from dps_verify.core.numbers import to_fraction

NAME = "delta"
HELP = "CP Thm 5's d(k, beta, epsilon) beside the exact worst-case delta; inverse questions."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--k", type=int, help="suppression threshold k >= 1")
    p.add_argument("--beta", type=str, help="sampling probability, 0 < beta < 1")
    p.add_argument("--epsilon", type=str, help="epsilon >= -ln(1-beta)")
    p.add_argument("--delta", type=str, help="target delta (for --min-k/--min-epsilon/--max-beta)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--min-k", action="store_true", help="smallest k reaching --delta")
    g.add_argument("--min-epsilon", action="store_true", help="smallest epsilon reaching --delta")
    g.add_argument("--max-beta", action="store_true", help="largest beta reaching --delta")
    p.add_argument("--json", action="store_true", help="print JSON")


def _need(args: argparse.Namespace, *names: str) -> None:
    missing = [f"--{n.replace('_', '-')}" for n in names if getattr(args, n) is None]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")


def run(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    if args.min_k or args.min_epsilon or args.max_beta:
        return _inverse(args, t0)
    _need(args, "k", "beta", "epsilon")
    paper = bounds.d_certified(args.k, args.beta, args.epsilon)
    hs = exact.sdgs_delta_certified(args.k, args.beta, args.epsilon, "hockey-stick")
    pw = exact.sdgs_delta_certified(args.k, args.beta, args.epsilon, "pointwise")
    rows = {
        "paper_d": paper,
        "exact_hockey_stick": hs,
        "exact_pointwise": pw,
    }
    out = {
        "k": args.k,
        "beta": str(to_fraction(args.beta, "beta")),
        "epsilon": str(to_fraction(args.epsilon, "epsilon")),
        **{
            name: {
                "value": f"{float(c.safe):.6e}",
                "upper": str(c.safe),
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
    print(f"k = {args.k}, beta = {args.beta}, epsilon = {args.epsilon}  (CP Thm 5)")
    labels = {
        "paper_d": "paper d(k,beta,eps)",
        "exact_hockey_stick": "exact delta, hockey-stick",
        "exact_pointwise": "exact delta, pointwise",
    }
    for name, c in rows.items():
        print(f"  {labels[name]:<27} {float(c.safe):.6e}   worst group size n = {c.details.get('argmax_n')}")
    print("  certified: " + paper.how)
    print("  hockey-stick: " + hs.how)
    return 0


def _inverse(args: argparse.Namespace, t0: float) -> int:
    results = {}
    if args.min_k:
        _need(args, "beta", "epsilon", "delta")
        for b in ("paper", "hockey-stick", "pointwise"):
            results[b] = bounds.min_k(args.beta, args.epsilon, args.delta, bound=b)
        what = f"smallest k with delta <= {args.delta} at beta = {args.beta}, epsilon = {args.epsilon}"
    elif args.min_epsilon:
        _need(args, "k", "beta", "delta")
        for b in ("paper", "hockey-stick"):
            results[b] = float(bounds.min_epsilon(args.k, args.beta, args.delta, bound=b))
        what = f"smallest epsilon with delta <= {args.delta} at k = {args.k}, beta = {args.beta}"
    else:
        _need(args, "k", "epsilon", "delta")
        for b in ("paper", "hockey-stick"):
            results[b] = float(bounds.max_beta(args.k, args.epsilon, args.delta, bound=b))
        what = f"largest beta with delta <= {args.delta} at k = {args.k}, epsilon = {args.epsilon}"
    if args.json:
        print(json.dumps({"question": what, "answers": results,
                          "seconds": round(time.perf_counter() - t0, 4)}, indent=2))
        return 0
    print(what)
    for b, v in results.items():
        label = "paper's d" if b == "paper" else f"exact delta ({b})"
        print(f"  by {label:<26} {v}")
    return 0
