"""The ``dps-verify`` command line.

Each subcommand lives in its own module ``dps_verify.cli.<name>`` exposing ``NAME``, ``HELP``,
``add_arguments(parser)`` and ``run(args) -> int`` (and optionally ``DESCRIPTION``, a longer
text for its own ``--help``).  :data:`COMMANDS` holds the one-line help of every command, so that
``dps-verify --help`` imports none of them; a command's ``HELP`` is its entry there (one text,
never a copy).  A command's module (and its heavy dependencies: sympy, z3, scipy) is imported
only when that command runs.

Exit codes: the one table of :mod:`dps_verify.core.errors` (``EXIT_CODES``): 0 PASS/as
expected, 1 FAIL/unexpected, 2 bad usage, 3 INCONCLUSIVE, 4 error in the code under audit,
5 certification limit or work budget reached, 70 internal error of dps_verify itself (a bug,
never a verdict), 130 interrupted (Ctrl-C).  Every error is one line on stderr; the global
option ``--traceback`` prints the full traceback as well.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from dps_verify import __version__
from dps_verify.core.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    BudgetError,
    DPSVerifyError,
    UsageError,
)

#: name -> one-line help, in the order ``--help`` lists them: the only copy of each text (the
#: module ``dps_verify.cli.<name>`` sets ``HELP = COMMANDS[NAME]``).
COMMANDS: dict[str, str] = {
    "paper": "Check every registered claim of the paper and report a verdict for each.",
    "delta": "CP Thm 5's d(k, beta, epsilon) beside the exact worst-case delta; inverse questions.",
    "prove": "Machine-check the paper's theorems step by step with z3 + cvc5 and sympy (list them "
    "with no id).",
    "audit": "Audit an anonymizer's claimed (beta, epsilon, delta) under sampling: PASS, FAIL "
    "with a witness, or INCONCLUSIVE.",
    "explore": "Walk through a theorem step by step and try parameters (CP Thm 1, 5, 6).",
    "where": "Where a theorem of the paper lives here: proof, property tests, claims, notebook, docs, code.",
    "plan": "Plan a sampled k-anonymized release for a target (epsilon, delta): smallest k per measure and beta, certified, beside ARX's k.",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2
        self.exit(EXIT_USAGE, f"dps-verify: error: {message}\n")


def load_command(name: str):
    """Import the module of command ``name`` (``dps_verify.cli.<name>``)."""
    return importlib.import_module(f"dps_verify.cli.{name}")


def _chosen_command(argv: Sequence[str]) -> str | None:
    for tok in argv:
        if tok in COMMANDS:
            return tok
        if not tok.startswith("-"):
            return None
    return None


def build_parser(argv: Sequence[str] | None = None, *, load_all: bool = False) -> argparse.ArgumentParser:
    """The argument parser; only the command named in ``argv`` (or all, with ``load_all``)
    gets its options, so building it imports nothing heavy."""
    parser = _Parser(
        prog="dps-verify",
        description="Verify the claims of Li, Qardaji & Su (ASIACCS 2012) and audit "
        "sampled k-anonymization code against them.",
    )
    parser.add_argument("--version", action="version", version=f"dps-verify {__version__}")
    parser.add_argument("--traceback", action="store_true",
                        help="on an error, print the full traceback (also accepted after the command)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    chosen = None if argv is None else _chosen_command(argv)
    for name, help_text in COMMANDS.items():
        if load_all or name == chosen:
            mod = load_command(name)
            p = sub.add_parser(name, help=help_text,
                               description=getattr(mod, "DESCRIPTION", help_text))
            mod.add_arguments(p)
            p.set_defaults(_run=mod.run)
        else:
            sub.add_parser(name, help=help_text, description=help_text)
    return parser


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dps-verify``; returns the exit code (table in :mod:`dps_verify.core.errors`).

    Errors are one line on stderr; ``--traceback`` (anywhere before a bare ``--``) adds the full
    traceback, including the chained exception raised by the code under audit.  Run as the
    command itself (``argv`` None), once the last line is printed, nothing the audited code left
    behind (a thread, an exit handler) can print or choose the exit code
    (:func:`dps_verify.engine.calls.seal_process`).
    """
    code = _main(argv)
    calls = sys.modules.get("dps_verify.engine.calls")
    if argv is None and calls is not None:  # audited code ran in this process
        calls.seal_process()
    return code


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    show_tb = "--traceback" in argv[:cut]
    argv = [a for i, a in enumerate(argv) if not (a == "--traceback" and i < cut)]
    where = "dps-verify" if _chosen_command(argv) is None else f"dps-verify {_chosen_command(argv)}"
    hint = "" if show_tb else " (--traceback shows where)"
    caught: BaseException
    try:
        parser = build_parser(argv)  # imports the command's module: a broken install is one line too
        args = parser.parse_args(argv)
        if not getattr(args, "_run", None):
            parser.print_help()
            return EXIT_USAGE
        where = f"dps-verify {args.command}"
        return int(args._run(args))
    except DPSVerifyError as exc:
        caught, code, msg = exc, exc.exit_code, _one_line(exc)
        if exc.exit_code != EXIT_USAGE and not isinstance(exc, BudgetError):  # a refusal has no "where"
            msg += hint
    except (ValueError, OSError) as exc:
        caught, code, msg = exc, EXIT_USAGE, _one_line(exc)
    except KeyboardInterrupt as exc:
        caught, code = exc, EXIT_INTERRUPTED
        msg = "interrupted (outputs are written atomically: nothing half-written is left)"
    except Exception as exc:  # a bug in dps_verify: never mistaken for a verdict or for bad usage
        caught, code = exc, EXIT_INTERNAL
        msg = f"internal error: {type(exc).__name__}: {_one_line(exc)}{hint}"
    if show_tb:
        traceback.print_exception(caught)
    print(f"{where}: error: {msg}", file=sys.stderr)
    return code


__all__ = ["COMMANDS", "EXIT_INTERRUPTED", "UsageError", "build_parser", "load_command", "main"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
