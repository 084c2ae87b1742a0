"""The ``dps-verify`` command line.

Each subcommand lives in its own module ``dps_verify.cmd_<name>`` that exposes ``NAME``,
``HELP``, ``add_arguments(parser)`` and ``run(args) -> int``.  Errors in user input are
reported as a single line on stderr with exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from . import __version__

#: Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "cmd_paper",
    "cmd_delta",
    "cmd_prove",
    "cmd_audit",
    "cmd_explore",
)


class UsageError(Exception):
    """Bad input detected by a subcommand; printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        self.exit(2, f"dps-verify: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dps-verify",
        description="Verify the claims of Li, Qardaji & Su (ASIACCS 2012) and audit "
        "sampled k-anonymization code against them.",
    )
    parser.add_argument("--version", action="version", version=f"dps-verify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for modname in SUBCOMMANDS:
        try:
            mod = importlib.import_module(f"dps_verify.{modname}")
        except ModuleNotFoundError as exc:  # subcommand not built in this checkout
            if exc.name == f"dps_verify.{modname}":
                continue
            raise
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    try:
        return int(args._run(args))
    except (UsageError, ValueError, OSError) as exc:
        print(f"dps-verify {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
