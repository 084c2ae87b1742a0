"""``dps-verify audit``: confirm a claimed (ε, δ) for sampled anonymization, or find a witness.

Exit codes: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 bad usage.  See :mod:`dps_verify.audit`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dps_verify.audit import audit, load_callable, load_domain
from dps_verify.audit.core import METHODS
from dps_verify.measures.divergence import DEFINITIONS

NAME = "audit"
HELP = (
    "Audit a claimed (epsilon, delta) for 'sample at rate beta, then anonymize' (CP Def. 3): "
    "PASS (exit 0), FAIL with a witness (exit 1), INCONCLUSIVE (exit 3)."
)

DOMAIN_HELP = (
    "JSON file naming the records to build datasets from: "
    '{"records": [[30, "M"], [45, "F"]], "max_size": 40} or '
    '{"attributes": {"age": [20, 90], "sex": ["M", "F"]}, "max_size": 40} '
    "(Cartesian product; max_size = largest dataset size, default 40)"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", metavar="FILE.py:NAME",
                   help="the anonymizer: a function sample -> output, an exact.randomized "
                        "object, or a black box (sample, rng) -> output")
    p.add_argument("--beta", required=True, help="sampling probability, 0 < beta <= 1 "
                   "(1 = the pipeline samples by itself)")
    p.add_argument("--epsilon", required=True, help="claimed epsilon >= 0")
    p.add_argument("--delta", required=True, help="claimed delta in [0, 1]")
    p.add_argument("--domain", required=True, help=DOMAIN_HELP)
    p.add_argument("--definition", default="hockey-stick", choices=DEFINITIONS,
                   help="hockey-stick (CP Def. 2, default) or pointwise (TR Def. 2)")
    p.add_argument("--max-size", type=int, default=None, help="override the domain's max_size")
    p.add_argument("--method", default="auto", choices=METHODS)
    p.add_argument("--seed", type=int, default=None, help="seed for random shapes and Monte Carlo")
    p.add_argument("--json", metavar="OUT.json", default=None, help="also write the report as JSON")


def run(args: argparse.Namespace) -> int:
    anonymizer, _module = load_callable(args.target)
    domain = load_domain(args.domain, args.max_size)
    rep = audit(
        anonymizer,
        beta=args.beta,
        epsilon=args.epsilon,
        delta=args.delta,
        domain=domain,
        definition=args.definition,
        method=args.method,
        seed=args.seed,
    )
    print(rep.summary())
    if args.json:
        Path(args.json).write_text(rep.to_json() + "\n")
    return rep.exit_code
