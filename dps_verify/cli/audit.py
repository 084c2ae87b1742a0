"""``dps-verify audit``: confirm a claimed (ε, δ) for sampled anonymization, or find a witness.

Exit codes (table in :mod:`dps_verify.core.errors`): 0 PASS, 1 FAIL (with a witness),
3 INCONCLUSIVE, 2 bad usage, 4 the code under audit raised, returned an unhashable value, is not
a function of its sample, or exceeded ``--timeout`` — reported in one line naming the exception
and the sample (``--traceback`` shows the user's traceback), never as PASS or FAIL.
See :mod:`dps_verify.audit`.
"""

from __future__ import annotations

import argparse
import functools
import inspect
from typing import Any

NAME = "audit"
HELP = (
    "Audit a claimed (epsilon, delta) for 'sample at rate beta, then anonymize' (CP Def. 3): "
    "PASS (exit 0), FAIL with a witness (exit 1), INCONCLUSIVE (exit 3); "
    "exit 4 if the audited code fails."
)

DOMAIN_HELP = (
    "JSON file naming the records to build datasets from: "
    '{"records": [[30, "M"], [45, "F"]], "max_size": 40} or '
    '{"attributes": {"age": [20, 90], "sex": ["M", "F"]}, "max_size": 40} '
    "(Cartesian product; max_size = largest dataset size, default 40)"
)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text!r}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    from dps_verify.audit.core import METHODS
    from dps_verify.measures.divergence import DEFINITIONS

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
    p.add_argument("--timeout", type=_positive_seconds, default=None, metavar="SECONDS",
                   help="give up (exit 4) if one call of the anonymizer takes longer than this "
                        "(POSIX, main thread: uses SIGALRM)")
    p.add_argument("--json", metavar="OUT.json", default=None,
                   help="also write the report as JSON (atomically; the path is printed)")


def guard(anonymizer: Any) -> Any:
    """A plain function under audit, wrapped so every call goes through
    :mod:`dps_verify.engine.calls` (its signature and attributes are kept, so the auditor still
    recognises a black box ``(sample, rng)`` or a ``sufficient_statistic``).  Objects (classes,
    :class:`~dps_verify.engine.distribution.randomized`) are returned unchanged: the exact engine
    guards their calls itself."""
    from dps_verify.engine.calls import call_anonymizer, call_blackbox

    if not inspect.isfunction(anonymizer):
        return anonymizer

    @functools.wraps(anonymizer)
    def guarded(sample: Any, *rest: Any) -> Any:
        if rest:
            return call_blackbox(anonymizer, sample, *rest)
        return call_anonymizer(anonymizer, sample)

    return guarded


def run(args: argparse.Namespace) -> int:
    from dps_verify.audit import audit, load_callable, load_domain
    from dps_verify.core import fsio
    from dps_verify.engine.calls import call_limits

    anonymizer, _module = load_callable(args.target)
    domain = load_domain(args.domain, args.max_size)
    with call_limits(timeout=args.timeout):
        rep = audit(
            guard(anonymizer),
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
        print(f"wrote {fsio.write_text(args.json, rep.to_json() + chr(10), what='audit report')}")
    return rep.exit_code
