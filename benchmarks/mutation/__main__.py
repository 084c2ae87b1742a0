"""Mutation testing of the certified core: ``python -m benchmarks.mutation``.

    python -m benchmarks.mutation --sample 60 --seed 1  # 60 mutants per module (seeded)
    python -m benchmarks.mutation --module core/numbers --module measures/divergence
    python -m benchmarks.mutation                       # every mutant of every target module
    python -m benchmarks.mutation --list                # the mutants, without running them
    python -m benchmarks.mutation --at-commit ...       # measure HEAD as committed (git archive)
    python -m benchmarks.mutation --speed-check --sample 6 --module core/numbers

Each mutant runs only the tests of its module's selection (``targets.py``, a subset of the
default test run) that execute its line, from a coverage map recorded once per module
(``coverage_map.py``; lines run at import time get the whole selection; a line no test runs is
*not covered* and counts as a survivor).  A survivor of its line's tests is run again against
the module's whole selection before it is reported.  Every phase (coverage map, baseline, first
pass, escalation) runs on one snapshot of the tree taken when the campaign starts.

Statistics: with ``--sample N`` each module's mutants are a simple random sample of N (seeded
per module, so a module's sample does not depend on which other modules run).  The score is
killed / non-equivalent sampled mutants, with a one-sided 95 % Clopper-Pearson lower bound on
the module's kill rate (59 non-equivalent mutants all killed give >= 95 %); a run of all of a
module's mutants gives its exact score.  Only *equivalent* judgements (``judgements.toml``) leave
the denominator; a harmless survivor still counts against the score.

Writes the sections of the modules run into ``benchmarks/mutation/report.md`` (``--report``)
and rewrites its summary table, keeping the other modules' sections and every hand-written line
outside the sections (the header, notes before the summary, between or after the sections).
Campaigns of different modules may run at the same time and write the same report: each
re-reads it, merges its own sections and replaces it atomically under a lock of the report's
directory (:func:`update_report`), so none loses another's section.  Exit status 1 when a module's
lower bound is below ``--target`` (default 0.95) or a survivor is dangerous or unjudged.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from benchmarks.mutation.coverage_map import (
    LineMap,
    load_or_record,
    statement_lines,
    tests_for_line,
)
from benchmarks.mutation.judgement_match import applicable
from benchmarks.mutation.operators import Mutant, mutants
from benchmarks.mutation.runner import (
    Outcome,
    baseline,
    drop_snapshot,
    run,
    snapshot,
    snapshot_commit,
)
from benchmarks.mutation.targets import TARGETS

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
JUDGEMENTS = HERE / "judgements.toml"
KINDS = ("equivalent", "harmless", "dangerous")
CONFIDENCE = 0.95


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


def judgements_for(outcomes: list[Outcome], sources: dict[str, str | None]
                   ) -> dict[str, dict[str, str]]:
    """The judgements to apply to ``outcomes`` (made from ``sources``: module -> source): a
    judgement whose recorded ``mutant`` text does not describe the survivor its key names now
    (keys count occurrences, so an edit above a mutant or a key moved by hand can point it at
    another mutant) is not applied; that survivor is reported unjudged, with both descriptions
    (:mod:`benchmarks.mutation.judgement_match`)."""
    judged = applicable([o.mutant for o in outcomes if not o.killed], load_judgements(), sources)
    for o in outcomes:
        if not o.killed and judged.get(o.mutant.key, {}).get("kind") == "unjudged":
            print(f"{o.mutant.key}: {judged[o.mutant.key]['reason']}", file=sys.stderr)
    return judged


def select(modules: list[str], sample: int | None, seed: int, root: Path = ROOT
           ) -> dict[str, tuple[list[Mutant], int, str]]:
    """module -> (chosen mutants, number of mutants of the module, source read under ``root``).
    A sample is a simple random sample without replacement, its generator seeded by (seed,
    module)."""
    out = {}
    for m in modules:
        src = (root / m).read_text(encoding="utf-8")
        ms = mutants(m, src)
        total = len(ms)
        if sample is not None and sample < total:
            ms = sorted(random.Random(f"{seed}:{m}").sample(ms, sample), key=lambda x: x.index)
        out[m] = (ms, total, src)
    return out


def lower_bound(killed: int, n: int, confidence: float = CONFIDENCE) -> float:
    """One-sided Clopper-Pearson lower confidence bound on a kill rate from ``killed`` of ``n``."""
    if n == 0 or killed == 0:
        return 0.0
    from scipy.stats import beta

    return float(beta.ppf(1 - confidence, killed, n - killed + 1))


def score(outcomes: list[Outcome], judged: dict[str, dict[str, str]]) -> dict[str, dict]:
    per: dict[str, dict] = {}
    for o in outcomes:
        s = per.setdefault(o.mutant.module, {"sampled": 0, "killed": 0, "equivalent": 0,
                                             "survivors": [], "killed_by_module": 0,
                                             "by_failure": 0, "by_timeout": 0, "by_crash": 0})
        s["sampled"] += 1
        if o.killed:
            s["killed"] += 1
            s["killed_by_module"] += o.how.endswith("(module selection)")
            kind = ("by_timeout" if o.how.startswith("timeout") else
                    "by_crash" if o.how.startswith("crashed") else "by_failure")
            s[kind] += 1
        elif judged.get(o.mutant.key, {}).get("kind") == "equivalent":
            s["equivalent"] += 1
        else:
            s["survivors"].append(o)
    for s in per.values():
        n = s["sampled"] - s["equivalent"]
        s["n"] = n
        s["score"] = s["killed"] / n if n else 1.0
        s["lower"] = lower_bound(s["killed"], n)
    return per


# -- the report: one section per module, kept across runs of other modules ------------------------

_SECTION = re.compile(r"^<!-- module (\S+) (\{[^\n]*\}) -->\n(.*?)^<!-- end module -->\n",
                      re.S | re.M)

_HEAD = """# Mutation report: the certified core

Made by `python -m benchmarks.mutation` (see its `--help`); each module's section below names the
exact command, seed and wall time of the campaign that produced it.  A mutant runs only the tests
of the module's selection (`benchmarks/mutation/targets.py`, a subset of the default test run)
that execute its line (coverage map; import-time lines get the whole selection); a survivor is
run again against the whole selection.  Every phase runs on one snapshot of the tree taken when
the campaign starts; the Campaign line names its commit, any file of the module or its
selection that differed from it (dirty tree) and any other file the snapshot copied from the
package, proofs, tests, properties, conftest.py or pyproject.toml that differed (dirty
elsewhere; records before that check say the rest was not checked).  *Not covered*: no test of the selection executes
the line (counts as a survivor).  A kill is by a failing test or by time-out (shown apart: a
time-out depends on the machine's load).

Score = killed / non-equivalent sampled mutants.  *Lower bound*: one-sided 95 % Clopper–Pearson
bound on the module's kill rate from its simple random sample (exact score when every mutant
ran).  Judgements (`benchmarks/mutation/judgements.toml`): *equivalent* (no input can tell; the
only kind left out of the denominator), *harmless* (sound but distinguishable: counts against the
score until a test kills it or the code is simplified), *dangerous* (can change a verdict or a
number).

Module section format (shared by every campaign): an HTML comment
`<!-- module PATH {json} -->` with the numbers of the summary table, a `## PATH` heading, the
command and campaign line, the score line, then the survivors, then `<!-- end module -->`.
"""


#: what the snapshot's tests import or read besides the module and its selection: the package,
#: the theorem encodings, every test and property file (conftests, helpers) and the pytest and
#: Hypothesis configuration
SNAPSHOT_PATHS = ("dps_verify", "proofs", "tests", "properties", "conftest.py", "pyproject.toml")


def tree_state(root: Path, module: str, selection: tuple[str, ...]) -> dict:
    """Which code a campaign measures: the commit checked out at ``root`` (``git rev-parse
    HEAD``), the files of ``module`` and of its test selection that differ from it (``dirty``,
    ``git status --porcelain``; the snapshot copies the working tree, so those edits are measured
    too), every other file under :data:`SNAPSHOT_PATHS` that differs from it (``dirty_elsewhere``:
    e.g. another engineer's uncommitted edit of a module the tests import, or of a conftest),
    and the last commit of the tool itself."""
    def git(*cmd: str) -> str | None:
        try:
            proc = subprocess.run(["git", *cmd], cwd=root, capture_output=True, text=True,
                                  timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.stdout if proc.returncode == 0 else None

    paths = [module] + sorted({a.split("::")[0] for a in selection if not a.startswith("-")})
    head = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--", *paths)
    everywhere = git("status", "--porcelain", "--", *SNAPSHOT_PATHS)
    dirty = None if status is None else [x for x in status.splitlines() if x.strip()]
    tool = git("log", "-1", "--format=%h", "--", "benchmarks/mutation")
    return {"commit": head.strip() if head else None, "dirty": dirty,
            "dirty_elsewhere": None if everywhere is None else
            [x for x in everywhere.splitlines() if x.strip() and x not in (dirty or [])],
            "tool": tool.strip() if tool else None}


def describe_state(c: dict) -> str:
    """The code line of a campaign record (older records have no commit)."""
    note = f".  Correction: {c['correction']}" if c.get("correction") else ""
    if not c.get("commit"):
        return "code: commit not recorded" + note
    if c.get("archived"):
        text = (f"code: commit {c['commit'][:12]} exactly (--at-commit: a git archive of it, so "
                f"no uncommitted edit of the working tree was measured)")
        return text + (f"; tool at {c['tool']}" if c.get("tool") else "") + note
    text = f"code: commit {c['commit'][:12]}"
    if c.get("dirty"):
        text += (f", **dirty tree**: {len(c['dirty'])} file(s) of the module or its selection "
                 f"differed from that commit ({'; '.join(c['dirty'])})")
    elif c.get("dirty") is not None:
        text += ", the module and its selection as committed"
    if c.get("dirty_elsewhere"):
        text += (f"; **dirty elsewhere**: {len(c['dirty_elsewhere'])} other file(s) the snapshot "
                 f"copied differed from that commit ({'; '.join(c['dirty_elsewhere'])})")
    elif c.get("dirty_elsewhere") is not None:
        text += f"; nothing else under {', '.join(SNAPSHOT_PATHS)} differed"
    elif c.get("dirty") is not None:
        text += " (the rest of the tree the snapshot copied was not checked)"
    if c.get("tool"):
        text += f"; tool at {c['tool']}"
    return text + note


def kill_kinds(s: dict) -> str:
    """How the kills of a section were made: a time-out depends on the load of the machine
    (and the default test run has no time limit), so it is shown apart from a failing test."""
    text = f"{s['killed']} killed: {s.get('by_failure', 0)} by a failing test, " \
           f"{s.get('by_timeout', 0)} by time-out"
    if s.get("by_crash"):
        text += f", {s['by_crash']} by a crash"
    return text


def module_section(m: str, s: dict, total: int, sample: int | None, seed: int, command: str,
                   seconds: float, workers: int, base: str, judged: dict[str, dict[str, str]],
                   rate: float, state: dict | None = None) -> str:
    exhaustive = s["sampled"] >= total
    data = {"mutants": total, "sampled": s["sampled"], "equivalent": s["equivalent"],
            "killed": s["killed"], "n": s["n"], "score": round(s["score"], 4),
            "lower": None if exhaustive else round(s["lower"], 4), "seed": seed,
            "date": time.strftime("%Y-%m-%d", time.gmtime())}
    bound = ("exhaustive: every mutant ran" if exhaustive
             else f"95 % lower bound {100 * s['lower']:.1f} %")
    lines = [f"<!-- module {m} {json.dumps(data, sort_keys=True)} -->", f"## `{m}`", "",
             f"Command: `{command}`  ",
             f"Campaign: {'all' if exhaustive else f'simple random sample of {sample}'} of "
             f"{total} mutants, seed {seed}; wall time {seconds:.0f} s for the whole command "
             f"({workers} worker(s), {rate:.1f} mutants/min); baseline: {base}; "
             f"{describe_state(state or {})}.", "",
             f"Score: {s['killed']} killed / {s['n']} non-equivalent = {100 * s['score']:.1f} % "
             f"({bound}); {s['equivalent']} equivalent; {s['killed_by_module']} of the kills "
             f"needed the whole selection.  {kill_kinds(s)}.", ""]
    if s["survivors"]:
        lines += ["Survivors:", ""]
    for o in s["survivors"]:
        j = judged.get(o.mutant.key)
        verdict = f"**{j['kind']}** — {j['reason']}" if j else "**unjudged**"
        how = "" if o.how == "survived" else f" [{o.how}]"
        lines.append(f"- `{o.mutant.key}` {o.mutant.describe()} ({o.mutant.operator}){how}: "
                     f"{verdict}")
    if not s["survivors"]:
        lines.append("No survivor.")
    return "\n".join(lines) + "\n\n<!-- end module -->\n"


_SUMMARY = re.compile(r"^## Summary\n\n(?:\|[^\n]*\n)*\n?", re.M)


def summary_table(data: dict[str, dict]) -> str:
    """The summary table of every module section (``data``: module -> its JSON numbers)."""
    rows = ["## Summary", "", "| module | mutants | sampled | equivalent | killed | score | "
            "95 % lower bound | seed, date |", "|---|---:|---:|---:|---:|---:|---:|---|"]
    for m in sorted(data):
        d = data[m]
        lb = "exhaustive" if d["lower"] is None else f"{100 * d['lower']:.1f} %"
        rows.append(f"| `{m}` | {d['mutants']} | {d['sampled']} | {d['equivalent']} | "
                    f"{d['killed']}/{d['n']} | "
                    f"{100 * (d['killed'] / d['n'] if d['n'] else 1.0):.1f} % | {lb} | "
                    f"{d['seed']}, {d['date']} |")
    return "\n".join(rows) + "\n\n"


def merge_report(old: str, sections: dict[str, str]) -> str:
    """``old`` with the sections of ``sections`` put in (replacing a module's old section in
    place, a new module's section in sorted order among the others) and its summary table
    rewritten; every other line of ``old`` -- the header and any hand-written paragraph before,
    between or after the sections -- is kept as it was.  An empty ``old`` starts from the
    standard header."""
    if not old.strip():
        old = _HEAD + "\n"
    new = {m: (json.loads(_SECTION.search(t).group(2)), t)  # type: ignore[union-attr]
           for m, t in sections.items()}
    # the report as a list of pieces: hand-written text (kept verbatim) and module sections
    pieces: list[tuple[str | None, str]] = []
    data: dict[str, dict] = {}
    at = 0
    for match in _SECTION.finditer(old):
        pieces.append((None, old[at:match.start()]))
        m = match.group(1)
        data[m] = json.loads(match.group(2))
        pieces.append((m, match.group(0)))
        at = match.end()
    pieces.append((None, old[at:]))
    for m in sorted(new):
        data[m] = new[m][0]
        if any(name == m for name, _ in pieces):
            pieces = [(name, new[m][1] if name == m else text) for name, text in pieces]
            continue
        after = [i for i, (name, _) in enumerate(pieces) if name is not None and name < m]
        before = [i for i, (name, _) in enumerate(pieces) if name is not None and name > m]
        if after:
            pieces.insert(after[-1] + 1, (m, "\n" + new[m][1]))
        elif before:
            pieces.insert(before[0], (m, new[m][1] + "\n"))
        else:
            tail = pieces.pop()[1]
            pieces += [(None, tail.rstrip("\n") + "\n\n"), (m, new[m][1])]
    text = "".join(t for _, t in pieces)
    table = summary_table(data)
    if _SUMMARY.search(text):
        return _SUMMARY.sub(lambda _: table, text, count=1)
    first = _SECTION.search(text)
    cut = first.start() if first else len(text)
    head = text[:cut].rstrip("\n") + "\n\n"
    return head + table + text[cut:]


# -- running -------------------------------------------------------------------------------------

def _limit(args: argparse.Namespace, seconds: float) -> float:
    """Time limit of one mutant run: generous against the recorded time of its tests."""
    return min(args.timeout, 30.0 + 5.0 * seconds)


def plan(chosen: dict[str, tuple[list[Mutant], int, str]], maps: dict[str, LineMap | None],
         tests_for: dict[str, tuple[str, ...]], args: argparse.Namespace
         ) -> tuple[list[tuple[Mutant, str, tuple[str, ...], float]], list[Outcome]]:
    """The jobs to run and the mutants not covered by any test."""
    jobs, uncovered = [], []
    for m, (ms, _, src) in chosen.items():
        lm = maps.get(m)
        spans = statement_lines(src)
        for x in ms:
            if lm is None or args.module_selection:
                whole = lm.seconds if lm is not None else args.timeout / 5
                jobs.append((x, src, tests_for[m], _limit(args, whole)))
                continue
            tests = tests_for_line(lm, spans, x.line, tests_for[m])
            if tests is None:
                uncovered.append(Outcome(x, False, "not covered", 0.0, 0))
            else:
                jobs.append((x, src, tests, _limit(args, lm.budget(tests))))
    return jobs, uncovered


def run_order(jobs: list, seed: int) -> list:
    """``--shuffle``'s order: the same jobs in an order drawn from ``seed`` alone (a stream of
    its own, apart from the one that drew the sample), so a stopped exploration has looked at a
    random part of its sample and the same seed gives the same order."""
    order = list(jobs)
    random.Random(f"{seed}:order").shuffle(order)
    return order


def ran_whole_selection(o: Outcome, tests_for: dict[str, tuple[str, ...]]) -> bool:
    """Whether a survivor already ran its module's whole selection (then re-running it there
    cannot kill it).  Compares the arguments themselves: a line covered by as many node ids as
    the selection has arguments is still only a part of it."""
    return o.selection == tuple(tests_for[o.mutant.module])


def escalate(snap: Path, outcomes: list[Outcome], chosen: dict[str, tuple[list[Mutant], int, str]],
             maps: dict[str, LineMap | None], tests_for: dict[str, tuple[str, ...]],
             args: argparse.Namespace, progress: Callable[[Outcome], None] | None = None
             ) -> list[Outcome]:
    """``outcomes`` with every survivor of its line's tests re-run against its module's whole
    selection on ``snap`` -- the campaign's own snapshot, whose baseline was green -- and
    counted killed "(module selection)" when that fails."""
    again = [(o.mutant, chosen[o.mutant.module][2], tests_for[o.mutant.module],
              _limit(args, maps[o.mutant.module].seconds))  # type: ignore[union-attr]
             for o in outcomes if o.how == "survived" and maps.get(o.mutant.module) is not None
             and not ran_whole_selection(o, tests_for)]
    if not again:
        return outcomes
    print(f"{len(again)} survivor(s) of their line's tests: the module's whole selection",
          flush=True)
    second = {o.mutant.key: o for o in run(snap, again, args.workers, progress)}
    return [Outcome(o.mutant, True, f"{second[o.mutant.key].how} (module selection)",
                    o.seconds + second[o.mutant.key].seconds, second[o.mutant.key].tests)
            if o.mutant.key in second and second[o.mutant.key].killed else o
            for o in outcomes]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.mutation", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--module", action="append", default=[],
                   help="a target (e.g. core/numbers); default: all of targets.TARGETS")
    p.add_argument("--sample", type=int, default=None,
                   help="mutants per module, a seeded simple random sample (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=300.0,
                   help="most seconds per mutant run (the limit is 30 s + 5x the recorded time "
                        "of its tests, at most this)")
    p.add_argument("--target", type=float, default=CONFIDENCE,
                   help="least 95 %% lower bound of each module's kill rate for exit status 0")
    p.add_argument("--report", type=Path, default=HERE / "report.md")
    p.add_argument("--match", action="append", default=[],
                   help="only mutants whose description contains this text (repeatable: any)")
    p.add_argument("--tests", nargs=argparse.REMAINDER, default=None,
                   help="pytest arguments to run instead of the module's selection (a quick "
                        "look; writes no report)")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--module-selection", action="store_true",
                   help="run each mutant against its module's whole selection (no coverage map)")
    p.add_argument("--speed-check", action="store_true",
                   help="run the chosen mutants with the whole selection and with the per-line "
                        "selection, one after the other in this process; print mutants/min of "
                        "each and whether the outcomes agree (writes no report)")
    p.add_argument("--no-escalate", action="store_true",
                   help="do not re-run the survivors of their line's tests against the module's "
                        "whole selection (cheaper; a survivor then counts as one even if another "
                        "test of the selection would kill it)")
    p.add_argument("--shuffle", action="store_true",
                   help="run the chosen mutants in a random order seeded by --seed (not line "
                        "order), so an exploration stopped early has looked at a random part "
                        "of its sample; the sample and the report are the same")
    p.add_argument("--rescore", action="store_true",
                   help="rewrite the report sections of the chosen modules from their last "
                        "campaign's saved outcomes (benchmarks/mutation/outcomes/) with the "
                        "current judgements; runs nothing")
    p.add_argument("--at-commit", action="store_true",
                   help="measure HEAD exactly as committed (a git archive of it), not the working "
                        "tree: uncommitted edits (e.g. another engineer's in a shared tree) are "
                        "not measured, and the campaign line says so")
    p.add_argument("--no-baseline", action="store_true",
                   help="skip the check that each selection passes on the unmutated code (only "
                        "when it was just run green: a red selection would 'kill' every mutant)")
    args = p.parse_args(argv)
    modules = [m for m in TARGETS if not args.module
               or any(m == f"dps_verify/{x.removesuffix('.py')}.py" for x in args.module)]
    if not modules:
        p.error(f"no target matches {args.module}; targets: {', '.join(TARGETS)}")
    if args.rescore:
        return rescore(args, modules)
    if args.list:
        for ms, _, _ in choose(ROOT, modules, args).values():
            for x in ms:
                print(x.key, x.describe(), f"({x.operator})")
        return 0
    states = {m: tree_state(ROOT, m, tuple(args.tests) if args.tests else TARGETS[m])
              for m in modules}
    if args.at_commit:
        head = next(iter(states.values()))["commit"]
        if not head:
            p.error("--at-commit: no commit found (git rev-parse HEAD failed)")
        states = {m: {"commit": head, "dirty": [], "dirty_elsewhere": [], "archived": True,
                      "tool": st.get("tool")} for m, st in states.items()}
        print(f"measuring commit {head[:12]} as committed (git archive)", flush=True)
        snap = snapshot_commit(ROOT, head)
        try:
            return campaign(args, modules, snap, argv, states)
        finally:
            drop_snapshot(snap)
    for m, st in states.items():
        if st["dirty"]:
            print(f"{m}: dirty tree: {'; '.join(st['dirty'])} differ from HEAD "
                  f"{(st['commit'] or '?')[:12]} (measured as they are now)", flush=True)
        if st.get("dirty_elsewhere"):
            print(f"{m}: dirty elsewhere: {'; '.join(st['dirty_elsewhere'])} differ from HEAD "
                  f"{(st['commit'] or '?')[:12]} (the snapshot copies them as they are now)",
                  flush=True)
    snap = snapshot(ROOT)  # the one code every phase of this campaign measures
    try:
        return campaign(args, modules, snap, argv, states)
    finally:
        drop_snapshot(snap)


def choose(root: Path, modules: list[str], args: argparse.Namespace
           ) -> dict[str, tuple[list[Mutant], int, str]]:
    """The sampled mutants of ``modules`` (read under ``root``), filtered by ``--match``."""
    chosen = select(modules, args.sample, args.seed, root)
    if args.match:
        chosen = {m: ([x for x in ms if any(t in f"{x.describe()} ({x.operator})"
                                             for t in args.match)], total, src)
                  for m, (ms, total, src) in chosen.items()}
    return chosen


def campaign(args: argparse.Namespace, modules: list[str], snap: Path,
             argv: list[str] | None, states: dict[str, dict] | None = None) -> int:
    """Run the campaign on ``snap``, a snapshot of the tree taken when it started: the coverage
    map, the baseline, the first pass and the escalation of its survivors all run on that same
    code, never on the working tree as it is later (another engineer's new or failing test would
    otherwise "kill" survivors)."""
    chosen = choose(snap, modules, args)
    command = "python -m benchmarks.mutation " + " ".join(map(shlex.quote, sys.argv[1:] if argv is None else argv))
    t0 = time.perf_counter()
    tests_for = {m: tuple(args.tests) if args.tests else TARGETS[m] for m in modules}
    maps: dict[str, LineMap | None] = {}
    base: dict[str, str] = {}
    for m in modules:
        if args.tests is None and not args.module_selection:
            lm, fresh = load_or_record(snap, m, tests_for[m], args.timeout * 8)
            maps[m] = lm
            print(f"{m}: coverage map of {len(lm.tests)} tests "
                  f"({'recorded' if fresh else 'cached'}, {lm.seconds:.0f} s under coverage)",
                  flush=True)
            if fresh:
                base[m] = f"green while recording the coverage map ({lm.seconds:.0f} s)"
                continue
        if args.no_baseline:
            base[m] = "skipped (--no-baseline)"
            continue
        ok, secs, tail = baseline(snap, tests_for[m], args.timeout * 8)
        if not ok:
            print(f"{m}: its tests fail on the unmutated code; fix that first\n{tail}",
                  file=sys.stderr)
            return 2
        base[m] = f"green ({secs:.0f} s)"
    done = [0]

    def progress(o: Outcome) -> None:
        done[0] += 1
        mark = "killed" if o.killed else o.how[:60]
        print(f"[{done[0]}] {o.mutant.describe()}: {mark} ({o.seconds:.1f} s, {o.tests} args)",
              flush=True)

    jobs, uncovered = plan(chosen, maps, tests_for, args)
    if args.shuffle:
        jobs = run_order(jobs, args.seed)
    if args.speed_check:
        return speed_check(snap, chosen, maps, tests_for, args, jobs, progress)
    for o in uncovered:
        progress(o)
    outcomes = run(snap, jobs, args.workers, progress) + uncovered
    if not args.module_selection and not args.no_escalate:
        outcomes = escalate(snap, outcomes, chosen, maps, tests_for, args, progress)
    seconds = time.perf_counter() - t0
    judged = judgements_for(outcomes, {m: chosen[m][2] for m in chosen})
    per = score(outcomes, judged)
    if args.tests is not None or args.match:
        for m, s in sorted(per.items()):
            print(f"{m}: {s['killed']}/{s['n']} killed; survivors: "
                  + ", ".join(f"{o.mutant.key} ({o.how})" for o in s["survivors"]))
        return 0
    rate = 60 * len(outcomes) / seconds if seconds else 0.0
    record = {"command": command, "sample": args.sample, "seed": args.seed, "seconds": seconds,
              "workers": args.workers, "rate": rate}
    OUTCOMES.mkdir(exist_ok=True)
    for m in per:
        save_outcomes(m, {**record, "mutants": chosen[m][1], "baseline": base[m],
                          **(states or {}).get(m, {})},
                      [o for o in outcomes if o.mutant.module == m])
    return write_report(args, per, judged, {m: {**record, "mutants": chosen[m][1],
                                                 "baseline": base[m],
                                                 **(states or {}).get(m, {})} for m in per})


#: the outcomes of the last campaign of each module (``--rescore`` reads them)
OUTCOMES = HERE / "outcomes"


def save_outcomes(module: str, campaign: dict, outcomes: list[Outcome]) -> None:
    rows = [{**asdict(o.mutant), "killed": o.killed, "how": o.how, "seconds": round(o.seconds, 2),
             "tests": o.tests} for o in outcomes]
    path = OUTCOMES / f"{module.replace('/', '.')}.json"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")  # private to this campaign, then renamed
    tmp.write_text(json.dumps({"campaign": campaign, "outcomes": rows}, indent=1) + "\n",
                   encoding="utf-8")
    tmp.replace(path)


def rescore(args: argparse.Namespace, modules: list[str]) -> int:
    """Rewrite the report sections of ``modules`` from their saved outcomes with the current
    judgements (no mutant is run: a kill still needs a new campaign)."""
    outcomes: list[Outcome] = []
    campaigns = {}
    sources: dict[str, str | None] = {}
    for m in modules:
        path = OUTCOMES / f"{m.replace('/', '.')}.json"
        if not path.exists():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        campaigns[m] = data["campaign"]
        sources[m] = source_at(data["campaign"].get("commit"), m)
        fields = set(Mutant.__dataclass_fields__)
        outcomes += [Outcome(Mutant(**{k: v for k, v in row.items() if k in fields}),
                             row["killed"], row["how"], row["seconds"], row["tests"])
                     for row in data["outcomes"]]
    if not campaigns:
        print("no saved outcomes for these modules", file=sys.stderr)
        return 2
    judged = judgements_for(outcomes, sources)
    return write_report(args, score(outcomes, judged), judged, campaigns)


def source_at(commit: str | None, module: str) -> str | None:
    """``module``'s source at ``commit`` (the code a saved campaign measured; a record without a
    commit, or one git cannot show: None, and the judgements' statement check is skipped)."""
    if not commit:
        return None
    try:
        proc = subprocess.run(["git", "show", f"{commit}:{module}"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def update_report(path: Path, sections: dict[str, str]) -> None:
    """Put ``sections`` into the report at ``path`` (:func:`merge_report`), safely against
    other campaigns doing the same at the same time: the read, merge and write happen under an
    exclusive ``flock`` of the report's directory (the report itself is replaced by a rename, so
    a lock on its inode would not hold across writers), and the new text goes to a private
    temporary file first, then replaces the report atomically.  Two campaigns of different
    modules therefore each keep the other's section, and a reader never sees half a report."""
    import fcntl
    import tempfile

    folder = path.resolve().parent
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        text = merge_report(old, sections)
        mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
        handle, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.fchmod(handle, mode)  # mkstemp's file is private (0600); keep the report's mode
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def write_report(args: argparse.Namespace, per: dict[str, dict], judged: dict[str, dict[str, str]],
                 campaigns: dict[str, dict]) -> int:
    sections = {m: module_section(m, s, c["mutants"], c["sample"], c["seed"], c["command"],
                                  c["seconds"], c["workers"], c["baseline"], judged, c["rate"], c)
                for m, s in per.items() for c in [campaigns[m]]}
    update_report(args.report, sections)
    for m in sorted(sections):
        print(sections[m])
    print(f"report: {args.report}")
    bad = [m for m, s in per.items()
           if (s["score"] if s["sampled"] >= campaigns[m]["mutants"] else s["lower"]) < args.target]
    worry = [o for s in per.values() for o in s["survivors"]
             if judged.get(o.mutant.key, {}).get("kind") in (None, "dangerous", "unjudged")]
    return 1 if bad or worry else 0


def speed_check(snap: Path, chosen: dict[str, tuple[list[Mutant], int, str]],
                maps: dict[str, LineMap | None], tests_for: dict[str, tuple[str, ...]],
                args: argparse.Namespace, jobs: list, progress) -> int:  # type: ignore[no-untyped-def]
    """The same mutants, whole selection then per-line selection, in this one process."""
    whole = [(x, src, tests_for[x.module], _limit(args, maps[x.module].seconds))  # type: ignore[union-attr]
             for x, src, _, _ in jobs]
    t0 = time.perf_counter()
    a = {o.mutant.key: o for o in run(snap, whole, args.workers, progress)}
    t1 = time.perf_counter()
    b = {o.mutant.key: o for o in run(snap, jobs, args.workers, progress)}
    t2 = time.perf_counter()
    n = len(jobs)
    differ = [k for k in a if a[k].killed != b[k].killed]
    print(f"{n} covered mutants, {args.workers} worker(s): whole selection {t1 - t0:.0f} s "
          f"({60 * n / (t1 - t0):.1f} mutants/min); per-line selection {t2 - t1:.0f} s "
          f"({60 * n / (t2 - t1):.1f} mutants/min); speed-up {(t1 - t0) / (t2 - t1):.1f}x; "
          f"outcomes differ on {len(differ)}: {differ}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
