"""``dps-verify paper``: check the paper's claims and print a verdict for each.

The claim registry lives in :mod:`dps_verify.claims`; this module only runs and prints it.
"""

from __future__ import annotations

import argparse
import fnmatch
import time

from .claims import REGISTRY

NAME = "paper"
HELP = "Check every registered claim of the paper and report a verdict for each."


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--only", metavar="PATTERN", help="run claims whose id matches this glob")


def run(args: argparse.Namespace) -> int:
    claims = [c for c in REGISTRY if not args.only or fnmatch.fnmatch(c.id, args.only)]
    if not claims:
        raise ValueError(f"no claim id matches {args.only!r}")
    t0 = time.perf_counter()
    mismatches = 0
    for c in claims:
        t = time.perf_counter()
        res = c.check()
        ok = res.verdict == c.expected
        mismatches += not ok
        flag = "" if ok else f"   <-- expected {c.expected}"
        print(f"{c.id:<34} {res.verdict:<26} {res.figure:<40} {time.perf_counter() - t:6.2f}s{flag}")
    total = time.perf_counter() - t0
    print(f"{len(claims)} claims checked in {total:.1f} s; "
          f"{len(claims) - mismatches} as expected, {mismatches} unexpected")
    return 0 if mismatches == 0 else 1
