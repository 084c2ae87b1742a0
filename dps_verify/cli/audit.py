"""``dps-verify audit``: confirm a claimed (ε, δ) for sampled anonymization, or find a witness.

Exit codes (table in :mod:`dps_verify.core.errors`): 0 PASS, 1 FAIL (with a witness),
3 INCONCLUSIVE, 2 bad usage, 4 the code under audit raised (at import or in a call), exited
(``sys.exit``, ``os._exit``), raised ``KeyboardInterrupt`` by itself, returned an unhashable
value, is not a function of its sample, or exceeded ``--timeout`` — reported in one line naming
what happened and the sample (``--traceback`` shows the user's traceback), never as PASS or FAIL;
5 the run's estimated work is past its budget (refused before it starts).

The verdict line is the last line printed, and exit 0 follows only a ``verdict: PASS`` line.
What the audited code prints is captured (:func:`dps_verify.engine.calls.audited_code`): a one-line
summary, or the text itself with ``--show-output``, comes before the report.
See :mod:`dps_verify.audit`.
"""

from __future__ import annotations

import argparse
from typing import Any

from dps_verify.cli import COMMANDS

NAME = "audit"
HELP = COMMANDS[NAME]
#: the longer text of ``dps-verify audit --help``
DESCRIPTION = (
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


#: Seconds one call of the anonymizer may take before the audit gives up (exit 4).
DEFAULT_TIMEOUT = 120.0


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
    p.add_argument("--domain", default=None, help=DOMAIN_HELP + "; or audit a real table with --data")
    p.add_argument("--definition", default="hockey-stick", choices=DEFINITIONS,
                   help="hockey-stick (CP Def. 2, default) or pointwise (TR Def. 2)")
    p.add_argument("--max-size", type=int, default=None, help="override the domain's max_size")
    p.add_argument("--method", default="auto", choices=METHODS)
    p.add_argument("--seed", type=int, default=None, help="seed for random shapes and Monte Carlo")
    p.add_argument("--timeout", type=_positive_seconds, default=None, metavar="SECONDS",
                   help="give up (exit 4) if one call of the anonymizer takes longer than this "
                        f"(default {DEFAULT_TIMEOUT:g} s, so a hanging anonymizer never hangs the audit; "
                        "POSIX, main thread: uses SIGALRM)")
    p.add_argument("--json", metavar="OUT.json", default=None,
                   help="also write the report as JSON (atomically; the path is printed); an existing "
                        "file dps-verify did not write is refused unless --force")
    p.add_argument("--force", action="store_true",
                   help="replace an existing --json file that dps-verify did not write")
    p.add_argument("--show-output", action="store_true",
                   help="print what the audited code wrote to stdout/stderr (captured; summarised otherwise)")
    from dps_verify.audit.data import add_data_arguments

    add_data_arguments(p)  # --data FILE.csv --qi ...: a pipeline on a real table


def guard(anonymizer: Any) -> Any:
    """:func:`dps_verify.engine.calls.guard` (kept here for callers of the CLI module)."""
    from dps_verify.engine.calls import guard as guard_calls

    return guard_calls(anonymizer)


def _output_lines(output: dict, show: bool) -> list[str]:
    """What the audited code printed: a one-line summary per stream, or (``show``) the text."""
    lines: list[str] = []
    for stream, info in output.items():
        if show:
            more = f" (first {len(info['text'])} of {info['chars']} characters)" if info["truncated"] else ""
            lines.append(f"--- the audited code's {stream}{more} ---")
            lines.extend(info["text"].rstrip("\n").splitlines())
            lines.append(f"--- end of the audited code's {stream} ---")
        else:
            lines.append(f"note: the audited code printed {info['lines']} line(s), {info['chars']} characters, "
                         f"to {stream} (captured; --show-output prints them)")
    return lines


def _timeout(asked: float | None) -> float | None:
    """``--timeout``, or :data:`DEFAULT_TIMEOUT` where SIGALRM can deliver it (main thread, POSIX)."""
    import signal
    import threading

    if asked is not None:
        return asked
    if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
        return DEFAULT_TIMEOUT
    return None


def run(args: argparse.Namespace) -> int:
    from dps_verify.audit import audit, load_callable, load_domain
    from dps_verify.audit.budget import check_audit_budget, is_cheap
    from dps_verify.cli._progress import working
    from dps_verify.core import fsio
    from dps_verify.core.errors import VERDICT_EXIT_CODES, AuditedCodeError
    from dps_verify.engine.calls import audited_code, call_limits

    if getattr(args, "data", None) is not None:  # a pipeline on a real table
        from dps_verify.audit.data import cli_run

        with call_limits(timeout=_timeout(args.timeout)):  # serial pipeline runs: --timeout each
            return cli_run(args)
    if args.domain is None:
        from dps_verify.core.errors import UsageError

        raise UsageError("audit needs --domain DOMAIN.json (synthetic datasets) or --data FILE.csv --qi ...")
    if args.json:  # refused before any work: unwritable, or not ours to overwrite
        fsio.check_output_file(args.json, option="--json", force=args.force)
    domain = load_domain(args.domain, args.max_size)
    option = "--max-size (or the domain's \"max_size\")"
    check_audit_budget(domain, option=option, cheap=False)  # at once, before importing the code
    captured = None
    try:
        with audited_code(seed=args.seed) as captured, call_limits(timeout=_timeout(args.timeout)), \
                working(f"auditing {args.target}"):
            anonymizer, _module = load_callable(args.target)
            check_audit_budget(domain, option=option, cheap=is_cheap(anonymizer))
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
    except AuditedCodeError:
        if captured is not None and args.show_output:
            for line in _output_lines(captured.as_dict(), True):
                print(line)
        raise
    output = captured.as_dict() if captured is not None else {}
    rep.output = output
    code = VERDICT_EXIT_CODES[rep.verdict]
    if args.json:
        print(f"wrote {fsio.write_output_file(args.json, rep.to_json() + chr(10), option='--json', force=args.force, what='audit report')}")
    for line in _output_lines(output, args.show_output):
        print(line)
    text = rep.summary()
    print(text)
    assert text.rstrip().splitlines()[-1] == rep.verdict_line()  # the verdict is the last line
    return code
