"""Mutation testing of the certified core: ``python -m benchmarks.mutation``.

    python -m benchmarks.mutation                       # every target module, every mutant
    python -m benchmarks.mutation --sample 40 --seed 1  # 40 mutants per module (seeded)
    python -m benchmarks.mutation --module core/numbers --module measures/divergence
    python -m benchmarks.mutation --list                # the mutants, without running them

Writes ``benchmarks/mutation/report.md`` (``--report`` to change): the score per module
(killed / non-equivalent), and every survivor with its judgement from ``judgements.toml``
(equivalent, harmless-but-sound, dangerous) and the reason, or "unjudged".  Exit status 1 when a
module is below ``--target`` (default 95 %) or a survivor is dangerous or unjudged, so the run
can gate a deep CI job.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tomllib
from pathlib import Path

from benchmarks.mutation.operators import Mutant, mutants
from benchmarks.mutation.runner import Outcome, baseline, run
from benchmarks.mutation.targets import TARGETS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
JUDGEMENTS = HERE / "judgements.toml"
KINDS = ("equivalent", "harmless", "dangerous")


def load_judgements(path: Path = JUDGEMENTS) -> dict[str, dict[str, str]]:
    """key -> {"kind": one of KINDS, "reason": ..., "mutant": description}."""
    if not path.exists():
        return {}
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = {}
    for key, entry in data.get("mutant", {}).items():
        if entry.get("kind") not in KINDS:
            raise SystemExit(f"{path}: mutant {key}: kind must be one of {KINDS}")
        out[key] = entry
    return out


def select(modules: list[str], sample: int | None, seed: int) -> list[tuple[Mutant, str]]:
    rng = random.Random(seed)
    out: list[tuple[Mutant, str]] = []
    for m in modules:
        src = (ROOT / m).read_text(encoding="utf-8")
        ms = mutants(m, src)
        if sample is not None and sample < len(ms):
            ms = sorted(rng.sample(ms, sample), key=lambda x: x.index)
        out.extend((x, src) for x in ms)
    return out


def score(outcomes: list[Outcome], judged: dict[str, dict[str, str]]) -> dict[str, dict]:
    per: dict[str, dict] = {}
    for o in outcomes:
        s = per.setdefault(o.mutant.module, {"total": 0, "killed": 0, "equivalent": 0,
                                             "survivors": [], "errors": []})
        s["total"] += 1
        if o.how.startswith("error"):
            s["errors"].append(o)
        elif o.killed:
            s["killed"] += 1
        elif judged.get(o.mutant.key, {}).get("kind") == "equivalent":
            s["equivalent"] += 1
        else:
            s["survivors"].append(o)
    for s in per.values():
        relevant = s["total"] - s["equivalent"] - len(s["errors"])
        s["score"] = s["killed"] / relevant if relevant else 1.0
    return per


def report(per: dict[str, dict], judged: dict[str, dict[str, str]], args: argparse.Namespace,
           seconds: float) -> str:
    lines = ["# Mutation report: the certified core", "",
             f"Command: `python -m benchmarks.mutation {' '.join(sys.argv[1:])}`".rstrip(),
             f"Sample: {args.sample or 'all'} mutants per module, seed {args.seed}; "
             f"wall time {seconds:.0f} s with {args.workers} worker(s).", "",
             "Score = killed / (mutants − equivalent). A survivor is judged in "
             "`benchmarks/mutation/judgements.toml`: *equivalent* (no input can tell), "
             "*harmless* (changes a path that cannot change a certified result, e.g. a "
             "screen that only orders work), *dangerous* (can change a verdict or a number).",
             "", "| module | mutants | killed | equivalent | survivors | score |",
             "|---|---:|---:|---:|---:|---:|"]
    for m, s in sorted(per.items()):
        lines.append(f"| `{m}` | {s['total']} | {s['killed']} | {s['equivalent']} | "
                     f"{len(s['survivors'])} | {100 * s['score']:.1f} % |")
    lines += ["", "## Survivors", ""]
    for _, s in sorted(per.items()):
        for o in s["survivors"]:
            j = judged.get(o.mutant.key)
            verdict = f"**{j['kind']}** — {j['reason']}" if j else "**unjudged**"
            lines.append(f"- `{o.mutant.key}` {o.mutant.describe()} ({o.mutant.operator}): "
                         f"{verdict}")
    errs = [o for s in per.values() for o in s["errors"]]
    if errs:
        lines += ["", "## Runner errors (not counted)", ""]
        lines += [f"- `{o.mutant.key}` {o.mutant.describe()}: {o.how[:200]}" for o in errs]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.mutation", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--module", action="append", default=[],
                   help="a target (e.g. core/numbers); default: all of targets.TARGETS")
    p.add_argument("--sample", type=int, default=None, help="mutants per module (seeded)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant run")
    p.add_argument("--target", type=float, default=0.95)
    p.add_argument("--report", type=Path, default=HERE / "report.md")
    p.add_argument("--match", action="append", default=[],
                   help="only mutants whose description contains this text (repeatable: any)")
    p.add_argument("--tests", nargs=argparse.REMAINDER, default=None,
                   help="pytest arguments to run instead of the module's selection (a quick look)")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the check that each selection passes on the unmutated code (only "
                        "when it was just run green: a red selection would 'kill' every mutant)")
    args = p.parse_args(argv)
    modules = [m for m in TARGETS if not args.module
               or any(m == f"dps_verify/{x.removesuffix('.py')}.py" for x in args.module)]
    if not modules:
        p.error(f"no target matches {args.module}; targets: {', '.join(TARGETS)}")
    chosen = select(modules, args.sample, args.seed)
    if args.match:
        chosen = [(m, s) for m, s in chosen
                  if any(x in f"{m.describe()} ({m.operator})" for x in args.match)]
    if args.list:
        for m, _ in chosen:
            print(m.key, m.describe(), f"({m.operator})")
        return 0
    tests_for = {m: tuple(args.tests) if args.tests else TARGETS[m] for m in modules}
    for m in [] if args.no_baseline else modules:
        ok, secs, tail = baseline(ROOT, tests_for[m], args.timeout * 4)
        if not ok:
            print(f"{m}: its tests fail on the unmutated code; fix that first\n{tail}",
                  file=sys.stderr)
            return 2
    t0 = time.perf_counter()
    done = [0]

    def progress(o: Outcome) -> None:
        done[0] += 1
        mark = "killed" if o.killed else o.how[:60]
        print(f"[{done[0]}/{len(chosen)}] {o.mutant.describe()}: {mark} ({o.seconds:.1f} s)",
              flush=True)

    outcomes = run(ROOT, ((m, src, tests_for[m.module]) for m, src in chosen), args.workers,
                   args.timeout, progress)
    judged = load_judgements()
    per = score(outcomes, judged)
    text = report(per, judged, args, time.perf_counter() - t0)
    tmp = args.report.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.report)
    print(text)
    bad = [m for m, s in per.items() if s["score"] < args.target]
    worry = [o for s in per.values() for o in s["survivors"]
             if judged.get(o.mutant.key, {}).get("kind") in (None, "dangerous")]
    return 1 if bad or worry else 0


if __name__ == "__main__":
    raise SystemExit(main())
