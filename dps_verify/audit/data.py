"""Audit a pipeline on a real table: ``audit(pipeline, data=..., qi=..., beta=, epsilon=, delta=)``.

The pipeline is the user's code: it takes a table (a list of records, a list of dicts or a
pandas DataFrame, as it expects) and returns its release.  The claim is that "keep each row
independently with probability β, then run the pipeline" (CP Def. 3) is (ε, δ)-DP (CP Def. 2)
under add/remove-one-row neighbours (CP §2.1).  Two questions are answered:

*This table* — the worst δ over the table's neighbours: remove any one row, or add any one row
of the data's domain (the product of the values each QI column takes in the data).

- A group-factorised anonymizer (a fixed recoding with suppression, CP Def. 5 and §3.2's Apply
  step, e.g. :class:`~dps_verify.mechanisms.StronglySafeKAnonymizer`) is answered exactly:
  by the cancellation theorem (:mod:`dps_verify.engine.product_law`) removing a row of a group of
  n records costs δ(L_n, L_{n−1}) and adding one costs δ(L_{n+1}, L_n), so the whole table needs
  one measure per distinct group size; every row gets its own δ (the histogram of rows at risk).
- Any other pipeline is audited statistically (:mod:`dps_verify.audit.statistical`): for target
  rows likely to be worst (unique or extreme QI values), screening runs the pipeline on the same
  sample with and without each target and picks a distinguishing event; fresh, independent runs
  with and without the chosen target then feed one exact test
  (:mod:`dps_verify.audit.two_binomials`) of δ ≥ a·p_with − b·p_without (β entering
  analytically) at looks planned from the claim; a rejection refutes the claim at confidence
  1 − α (FAIL), else the run is INCONCLUSIVE with the smallest δ it could have detected.  Runs
  are tasks of :mod:`dps_verify.distributed` (serial or Dask), each with its own child of one
  seed.

*Every table* — the recognised closed form when the pipeline is the paper's mechanism (the exact
worst case ``sdgs_delta`` of strongly-safe k-anonymization over all datasets, CP Thm 5 / CP App.
A.2), else the existing exact search (:func:`dps_verify.audit.core.audit`) over small datasets
built from the data's own QI values (the target rows and the most common rows).
"""

from __future__ import annotations

import csv
import hashlib
import inspect
import json
import math
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from dps_verify.audit import statistical as st
from dps_verify.core.errors import AuditedCodeError, UsageError
from dps_verify.core.numbers import Number, exp_affine_enclosure
from dps_verify.core.params import beta_param, delta_param, epsilon_param
from dps_verify.core.types import DefinitionLike, definition_param

TABLE_FORMATS = ("records", "dicts", "dataframe")
QUESTIONS = ("both", "this", "every")
#: Defaults of the statistical audit (trials are runs of the pipeline on a sample).
DEFAULT_TARGETS = 3
DEFAULT_SCREEN_TRIALS = 2
DEFAULT_MAX_TRIALS = 1024
#: Runs of one kind per confirmation task (small: tasks of ~1 s balance well over workers).
TRIALS_PER_TASK = 4
#: Planned "without" runs per "with" run of a confirmation (n_B/n_A of the plan).
RUN_RATIO = 6
#: Share of α the first look spends (the rest is split evenly over the later looks): an audit
#: that refutes usually does so at its first look, sized for it.
FIRST_LOOK_SHARE = Fraction(3, 4)


# ------------------------------------------------------------------------------ the table
@dataclass
class Table:
    """A table's QI records (tuples, in file order) and where they came from."""

    records: list[tuple]
    qi: tuple[str, ...]
    source: str = "data"
    dropped_missing: int = 0

    def fingerprint(self) -> str:
        h = hashlib.sha256(repr((self.qi, self.records)).encode())
        return h.hexdigest()[:16]


def _typed_columns(rows: list[list[str]]) -> list[list[Any]]:
    """Each column as int if every value is an integer, float if every value is a number,
    else text."""
    if not rows:
        return rows
    cols = list(zip(*rows))
    out: list[list[Any]] = []
    for col in cols:
        try:
            out.append([int(v) for v in col])
            continue
        except ValueError:
            pass
        try:
            vals = [float(v) for v in col]
            out.append(vals if all(math.isfinite(v) for v in vals) else list(col))
        except ValueError:
            out.append(list(col))
    return [list(r) for r in zip(*out)]


def columns_option(text: str | None) -> list[str] | None:
    """``--columns``: a comma-separated list, or a JSON file with a ``"columns"`` list (such as
    a recoding spec)."""
    if text is None:
        return None
    if text.endswith(".json"):
        try:
            spec = json.loads(Path(text).read_text())
        except (OSError, ValueError) as exc:
            raise UsageError(f"--columns {text}: cannot read a JSON file with a 'columns' list ({exc})") from None
        cols = spec.get("columns") if isinstance(spec, dict) else None
        if not isinstance(cols, list) or not all(isinstance(c, str) for c in cols):
            raise UsageError(f"--columns {text}: the file has no 'columns' list of names")
        return cols
    cols = [c.strip() for c in text.split(",") if c.strip()]
    if not cols:
        raise UsageError("--columns: expected comma-separated column names")
    return cols


def load_table(
    path: str | Path, qi: Sequence[str], *, columns: Sequence[str] | None = None,
    missing: str | None = "?",
) -> Table:
    """Read a CSV file (a header row, or no header and ``columns`` naming the fields), keep the
    ``qi`` columns, strip spaces, drop rows with ``missing`` in a QI column, and type each
    column (int, float or text).  Bad input raises :class:`UsageError` naming it."""
    p = Path(path)
    try:
        with p.open(newline="") as fh:
            rows = [r for r in csv.reader(fh, skipinitialspace=True) if r and any(x.strip() for x in r)]
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--data {path}: cannot read it ({exc})") from None
    if not rows:
        raise UsageError(f"--data {path}: no rows")
    header = list(columns) if columns is not None else [h.strip() for h in rows[0]]
    body = rows if columns is not None else rows[1:]
    qi = tuple(qi)
    if not qi:
        raise UsageError("--qi: name at least one quasi-identifier column")
    unknown = [c for c in qi if c not in header]
    if unknown:
        raise UsageError(f"--qi: column(s) {', '.join(unknown)} not in the data's columns "
                         f"({', '.join(header)})")
    idx = [header.index(c) for c in qi]
    kept, dropped = [], 0
    for line_no, r in enumerate(body, 2 if columns is None else 1):
        if len(r) != len(header):
            raise UsageError(f"--data {path}: line {line_no} has {len(r)} fields, expected {len(header)}")
        vals = [r[i].strip() for i in idx]
        if missing is not None and missing in vals:
            dropped += 1
            continue
        kept.append(vals)
    if not kept:
        raise UsageError(f"--data {path}: no row without missing values in the QI columns")
    records = [tuple(r) for r in _typed_columns(kept)]
    return Table(records, qi, str(path), dropped)


def as_table(data: Any, qi: Sequence[str] | None) -> Table:
    """A :class:`Table` from a path, a pandas DataFrame, a list of dicts or a list of rows."""
    if isinstance(data, Table):
        return data
    if isinstance(data, (str, Path)):
        if qi is None:
            raise UsageError("qi: name the quasi-identifier columns")
        return load_table(data, qi)
    if hasattr(data, "columns") and hasattr(data, "itertuples"):
        names = [str(c) for c in data.columns]
        q = tuple(qi) if qi is not None else tuple(names)
        missing = [c for c in q if c not in names]
        if missing:
            raise UsageError(f"qi: column(s) {', '.join(missing)} not in the DataFrame")
        records = [tuple(_plain(v) for v in r) for r in data[list(q)].itertuples(index=False)]
        return Table(records, q, "DataFrame")
    rows = list(data)
    if rows and all(isinstance(r, dict) for r in rows):
        q = tuple(qi) if qi is not None else tuple(rows[0])
        return Table([tuple(r[c] for c in q) for r in rows], q, "records")
    if qi is None:
        raise UsageError("qi: name the columns of the records")
    q = tuple(qi)
    if any(len(r) != len(q) for r in rows):
        raise UsageError(f"every record must have {len(q)} values (one per qi column)")
    return Table([tuple(r) for r in rows], q, "records")


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python number it holds (hashable, printable)."""
    item = getattr(v, "item", None)
    return item() if callable(item) and type(v).__module__ == "numpy" else v


# ------------------------------------------------------------------------------ the pipeline
def table_format(pipeline: Any, requested: str | None = None) -> str:
    """How the pipeline takes its table: ``requested``, else its ``table_format`` attribute,
    else ``"dataframe"`` when its first parameter is annotated as a DataFrame, else
    ``"records"`` (a list of tuples in QI order)."""
    fmt = requested or getattr(pipeline, "table_format", None)
    if fmt is None:
        try:
            params = list(inspect.signature(pipeline).parameters.values())
            ann = str(params[0].annotation) if params else ""
        except (TypeError, ValueError):
            ann = ""
        fmt = "dataframe" if "DataFrame" in ann else "records"
    if fmt not in TABLE_FORMATS:
        raise UsageError(f"table format must be one of {', '.join(TABLE_FORMATS)}, got {fmt!r}")
    return fmt


def make_table(rows: Sequence[tuple], qi: Sequence[str], fmt: str) -> Any:
    """The table handed to the pipeline."""
    if fmt == "records":
        return list(rows)
    if fmt == "dicts":
        return [dict(zip(qi, r)) for r in rows]
    import pandas as pd  # type: ignore[import-untyped]

    return pd.DataFrame.from_records(list(rows), columns=list(qi))


def _resolve(ref: Any) -> Any:
    """A pipeline reference: the object itself, or ``("file", "path.py:NAME")`` loaded once per
    process (workers load user code from its file, never from a pickle of a module they lack)."""
    if isinstance(ref, tuple) and len(ref) == 2 and ref[0] == "file":
        got = _LOADED.get(ref[1])
        if got is None:
            from dps_verify.audit.loader import load_callable

            got = load_callable(ref[1])[0]
            _LOADED[ref[1]] = got
        return got
    return ref


_LOADED: dict[str, Any] = {}


def run_pipeline(pipeline: Any, rows: Sequence[tuple], qi: Sequence[str], fmt: str) -> tuple:
    """The pipeline's release of ``rows``, canonical (:func:`statistical.canonical_release`).
    Any exception (or exit) of the user's code becomes :class:`AuditedCodeError` naming it, and
    so does a call that outlives the ``--timeout`` of :func:`~dps_verify.engine.calls.call_limits`
    (serial runs in the main thread; Dask tasks have the backend's own deadline)."""
    from dps_verify.engine.calls import call_deadline

    table = make_table(rows, qi, fmt)
    with call_deadline(f"the pipeline (on a table of {len(rows)} rows)"):
        try:
            release = pipeline(table)
            return st.canonical_release(release)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - the audited code failed
            raise AuditedCodeError(
                f"the pipeline raised {type(exc).__name__}: {exc} (on a table of {len(rows)} rows)",
                original=exc if isinstance(exc, Exception) else None,
            ) from None


# ------------------------------------------------------------------------------ trial tasks
def _sample_mask(rng: Any, n: int, beta: float, exclude: Sequence[int]) -> Any:
    mask = rng.random(n) < beta
    mask[list(exclude)] = False
    return mask


def _rows(records: Sequence[tuple], mask: Any, extra: int | None = None) -> list[tuple]:
    """Sampled rows in table order (the target, if ``extra``, at its own position)."""
    if extra is not None:
        mask = mask.copy()
        mask[extra] = True
    return [records[i] for i in mask.nonzero()[0]]


def _child_seed(parent: Any, i: int) -> Any:
    """The ``i``-th child of a SeedSequence (what ``parent.spawn(n)[i]`` gives for any n > i)."""
    import numpy as np

    return np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, i))


#: Tasks of one process run one at a time: the global generators their pipeline may draw from
#: are the process's, so two tasks on two threads of one worker would draw from one stream in an
#: order the scheduler picks (counts that change from run to run).
_TASK_LOCK = threading.Lock()
#: The run (``"run"`` of the task) whose task holds :data:`_TASK_LOCK`, if any.
_task_holder: list[Any] = [None]
#: Seconds between two looks at who holds the lock while a task waits for it.
_TASK_LOCK_POLL = 0.2


def _acquire_task_lock(run: Any) -> None:
    """Wait for this process's turn to run a pipeline task.  Tasks of the same run wait for one
    another (the backend's deadline bounds each); a task of another run holding the lock (one
    left running past its deadline by an earlier audit, or a second audit at the same time)
    is an error naming that cause, never a wait without end."""
    while not _TASK_LOCK.acquire(timeout=_TASK_LOCK_POLL):
        holder = _task_holder[0]
        if holder is not None and holder != run:
            raise AuditedCodeError(
                "a pipeline task of another audit is still running in this process (left running "
                "past its deadline, or a second audit at the same time): the tasks of one process "
                "share its global random generators, so they run one at a time; wait for it to end "
                "or restart the workers")
    _task_holder[0] = run


def _release_task_lock() -> None:
    _task_holder[0] = None
    _TASK_LOCK.release()


def _guarded(task: Callable[[Any], Any], item: Any) -> Any:
    """Run a task where the audited code runs (a Dask worker or this process) inside
    :func:`dps_verify.engine.calls.audited_code`: ``os._exit``, ``sys.exit`` or any other escape
    of the pipeline becomes :class:`AuditedCodeError` (what it prints is dropped), never a dead
    worker or a count.  The error crosses back to the caller as a plain message.  The global
    random generators (``random``, numpy's legacy one) are seeded from the task's seed (their
    states are restored when the outermost guard ends), and the tasks of one process run one at
    a time (:data:`_TASK_LOCK`), so a worker with several threads gives the same counts as a
    serial run."""
    import random

    import numpy as np

    from dps_verify.engine.calls import audited_code

    seed = item[0].get("seed")
    _acquire_task_lock(item[0].get("run"))
    try:
        with audited_code():
            if seed is not None:
                # the global generators a pipeline may draw from without saying so get a stream
                # of their own per task (a child of the task's seed, apart from the sampling
                # stream): runs stay independent across tasks, and reproducible
                code_seed = int(_child_seed(seed, 2**31 - 1).generate_state(1)[0])
                random.seed(code_seed)
                np.random.seed(code_seed)
            return task(item)
    except AuditedCodeError as exc:
        raise AuditedCodeError(str(exc)) from None
    finally:
        _release_task_lock()


def screening_task(item: tuple[dict, Sequence[tuple]]) -> dict:
    """One screening task (a Dask task or a serial call): ``n`` trials, each one base sample of
    the table without any target and the pipeline run on it and on it plus each target
    (coupled: the same sample with and without t shows what t changes).  Returns, per trial,
    the features of every release with respect to each target."""
    return _guarded(_screening, item)


def _screening(item: tuple[dict, Sequence[tuple]]) -> dict:
    import numpy as np

    task, records = item
    pipe = _resolve(task["pipeline"])
    qi, fmt, targets = task["qi"], task["fmt"], task["targets"]
    rng = np.random.default_rng(task["seed"])
    out: dict[str, list] = {"with": [], "without": []}
    for _ in range(task["n"]):
        mask = _sample_mask(rng, len(records), task["beta"], targets)
        base = run_pipeline(pipe, _rows(records, mask), qi, fmt)
        w, wo = [], []
        for t in targets:
            target = dict(zip(qi, records[t]))
            rel = run_pipeline(pipe, _rows(records, mask, t), qi, fmt)
            w.append(_jsonable(st.release_features(rel, target)))
            wo.append(_jsonable(st.release_features(base, target)))
        out["with"].append(w)
        out["without"].append(wo)
    return out


def confirmation_task(item: tuple[dict, Sequence[tuple]]) -> dict:
    """One confirmation task: ``n`` fresh, independent runs of one kind for one target and one
    event — ``"without"``: a Bernoulli(β) sample of the table without the target; ``"with"``: such
    a sample plus the target (at its own position).  Returns ``{"hits": …, "n": …}``, the number
    of releases in the event."""
    return _guarded(_confirmation, item)


def _confirmation(item: tuple[dict, Sequence[tuple]]) -> dict:
    import numpy as np

    task, records = item
    pipe = _resolve(task["pipeline"])
    qi, fmt, t = task["qi"], task["fmt"], task["target"]
    target = dict(zip(qi, records[t]))
    event = _event_from_json(task["event"])
    rng = np.random.default_rng(task["seed"])
    hits = 0
    for _ in range(task["n"]):
        mask = _sample_mask(rng, len(records), task["beta"], [t])
        rel = run_pipeline(pipe, _rows(records, mask, t if task["kind"] == "with" else None), qi, fmt)
        hits += st.event_holds(event, st.release_features(rel, target))
    return {"hits": hits, "n": task["n"]}


def _jsonable(feats: dict[tuple, float]) -> list:
    return [[list(k), v] for k, v in sorted(feats.items(), key=lambda kv: repr(kv[0]))]


def _feats_from_json(items: list) -> dict[tuple, float]:
    return {tuple(k): v for k, v in items}


def _event_from_json(ev: Any) -> tuple:
    ev = list(ev)
    return (ev[0], tuple(ev[1]), *ev[2:])


# ------------------------------------------------------------------------------ the report
@dataclass
class DataAuditReport:
    """Verdict of a table audit and both questions' answers (JSON-able)."""

    verdict: str
    claim: dict
    this_table: dict = field(default_factory=dict)
    every_table: dict = field(default_factory=dict)
    witness: dict | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    #: what the audited code printed (filled by the command line, as for a domain audit)
    output: dict = field(default_factory=dict)

    def verdict_line(self) -> str:
        """The last line of the command's output: the verdict alone."""
        return self.verdict

    @property
    def exit_code(self) -> int:
        from dps_verify.core.errors import VERDICT_EXIT_CODES

        return VERDICT_EXIT_CODES[self.verdict]

    def to_dict(self) -> dict:
        return {"generator": "dps-verify", "kind": "table audit", "verdict": self.verdict,
                "claim": self.claim, "this_table": self.this_table,
                "every_table": self.every_table, "witness": self.witness,
                "seconds": round(self.seconds, 3), "notes": self.notes}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, default=str)

    def summary(self) -> str:
        c = self.claim
        lines = [f"{self.verdict}: sample at beta = {c['beta']}, then the pipeline, claimed "
                 f"({c['epsilon']}, {c['delta']})-DP ({c['definition']}) on {c['rows']} rows of "
                 f"{c['source']} (QI: {', '.join(c['qi'])})"]
        for name, q in (("this table", self.this_table), ("every table", self.every_table)):
            if q:
                lines.append(f"  {name}: {q.get('verdict', '-')} — {q.get('summary', '')}")
        if self.witness:
            lines.append("  witness: " + self.witness.get("text", ""))
        for n in self.notes:
            lines.append(f"  note: {n}")
        lines.append(f"  ({self.seconds:.1f} s)")
        return "\n".join(lines)


def _combine(*verdicts: str | None) -> str:
    vs = [v for v in verdicts if v]
    if "FAIL" in vs:
        return "FAIL"
    if vs and all(v == "PASS" for v in vs):
        return "PASS"
    return "INCONCLUSIVE"


# ------------------------------------------------------------------------------ this table, exact
def _exact_this_table(anon: Any, table: Table, b: Fraction, eps: Fraction, d: Fraction,
                      definition: DefinitionLike) -> tuple[dict, dict | None]:
    """Worst δ over every neighbour of the table, exact, for a group-factorised anonymizer."""
    from dps_verify.engine.product_law import pair_hockey_stick, pair_pointwise, part_weights

    t0 = time.perf_counter()
    key_of = {r: anon.group_key(r) for r in dict.fromkeys(table.records)}  # per distinct row
    keys = [key_of[r] for r in table.records]
    sizes = Counter(keys)
    pairs: dict[tuple[int, int], tuple[Fraction, Fraction, Any]] = {}

    def measure(n_big: int, n_small: int) -> tuple[Fraction, Fraction, Any]:
        key = (n_big, n_small)
        if key not in pairs:
            X, Y = part_weights(anon, n_big, b), part_weights(anon, n_small, b)
            if definition == "pointwise":
                v = pair_pointwise(X, Y, eps)
                pairs[key] = (v, v, (X, Y))
            else:
                encl = [exp_affine_enclosure(A, B, eps) for A, B in pair_hockey_stick(X, Y, eps)]
                lo = max(max(e[0] for e in encl), Fraction(0))
                hi = max(max(e[1] for e in encl), Fraction(0))
                pairs[key] = (lo, hi, (X, Y))
        return pairs[key]

    row_of_group: dict[Any, int] = {}
    for i, key in enumerate(keys):
        row_of_group.setdefault(key, i)
    rows_per_size = Counter(sizes[k] for k in keys)  # δ of a removal depends on n only
    removal = {n: measure(n, n - 1) for n in sorted(rows_per_size)}
    n_worst = max(removal, key=lambda n: (removal[n][1], -n))
    first_row = next(i for i, k in enumerate(keys) if sizes[k] == n_worst)
    worst = (removal[n_worst][0], removal[n_worst][1], "remove", first_row, (n_worst, n_worst - 1))
    add_worst = None
    for key, n in sizes.items():
        lo, hi, _ = measure(n + 1, n)
        if add_worst is None or hi > add_worst[1]:
            add_worst = (lo, hi, "add", row_of_group[key], (n + 1, n))
    # a row of the domain whose group is empty in the table: group of 1 against none
    lo1, hi1, _ = measure(1, 0)
    assert worst is not None and add_worst is not None
    cands = [worst, add_worst, (lo1, hi1, "add-new-group", -1, (1, 0))]
    top = max(cands, key=lambda c: c[1])
    lo, hi, kind, row, (nb, ns) = top
    verdict = "PASS" if hi <= d else "FAIL" if lo > d else None
    if verdict is None:  # the enclosure straddles the claim: decide exactly
        from dps_verify.measures.divergence import delta_exceeds

        X, Y = pairs[(nb, ns)][2]
        L = {y: Fraction(w, X[1]) for y, w in X[0].items()}
        L2 = {y: Fraction(w, Y[1]) for y, w in Y[0].items()}
        verdict = "FAIL" if delta_exceeds(L, L2, eps, d) else "PASS"
    hist = _histogram({n: (removal[n][1], c) for n, c in rows_per_size.items()})
    res = {
        "verdict": verdict, "method": "exact (product law, cancellation theorem)",
        "worst_delta": {"lower": _fmt(lo, "d"), "upper": _fmt(hi, "u"),
                        "where": _where(kind, row, table, nb, ns),
                        "certified": "exact bad sets in integer arithmetic; e^eps enclosed by "
                                     "interval arithmetic, outward rounding"},
        "rows": len(table.records), "groups": len(sizes), "distinct_pairs_measured": len(pairs),
        "add_neighbours": "any row of the data's domain: its group gains one record (a group "
                          "of the table, or a new group of 1)",
        "per_row_delta_histogram": hist,
        "rows_at_risk": sum(c for n, c in rows_per_size.items() if removal[n][1] > d),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    res["summary"] = (f"worst delta {_fmt(hi, 'u')} ({_where(kind, row, table, nb, ns)}); "
                      f"{res['rows_at_risk']} of {len(keys)} rows above the claimed delta; "
                      f"exact over all {len(keys)} removals and every addition")
    logs = {n: _log10(removal[n][1]) for n in removal}
    res["per_row_log10_delta"] = [logs[sizes[k]] for k in keys]
    witness = None
    if verdict == "FAIL":
        witness = _exact_witness(pairs[(nb, ns)][2], eps, kind, row, table, nb, ns, definition)
    return res, witness


def _where(kind: str, row: int, table: Table, nb: int, ns: int) -> str:
    if kind == "add-new-group":
        return "adding a row whose group is empty in the table (group of 1 against none)"
    rec = dict(zip(table.qi, table.records[row]))
    verb = "removing" if kind == "remove" else "adding a copy of"
    return f"{verb} row {row} {rec} (its group: {nb} vs {ns} records)"


def _exact_witness(XY: tuple, eps: Fraction, kind: str, row: int, table: Table, nb: int, ns: int,
                   definition: DefinitionLike) -> dict:
    from dps_verify.engine.product_law import _direction_masses

    (xw, dx), (yw, dy) = XY
    best = None
    for fwd in (True, False):
        a, da, b_, db = (xw, dx, yw, dy) if fwd else (yw, dy, xw, dx)
        bad, A, B = _direction_masses(a, da, b_, db, eps)
        val = exp_affine_enclosure(Fraction(A, da), Fraction(B, db), eps)[0]
        if best is None or val > best[0]:
            best = (val, fwd, bad, Fraction(A, da), Fraction(B, db))
    assert best is not None
    _val, fwd, bad, P, Q = best
    shown = sorted((-1 if y is None else y) for y in bad)
    parts = ", ".join("suppressed" if y == -1 else str(y) for y in shown[:12])
    if len(shown) > 12:
        parts += f", ... ({len(shown)} values)"
    bigger = "the table" if kind == "remove" else "the table plus the row"
    smaller = "the table without the row" if kind == "remove" else "the table"
    first, second = (bigger, smaller) if fwd else (smaller, bigger)
    text = (f"{_where(kind, row, table, nb, ns)}: event 'the group's published count is one of "
            f"{{{parts}}}' has probability {float(P):.6g} on {first} and {float(Q):.6g} on "
            f"{second} ({definition})")
    return {"method": "exact", "row": row, "record": list(table.records[row]) if row >= 0 else None,
            "event": f"published count of the group in {{{parts}}}", "p_first": float(P),
            "p_second": float(Q), "first": first, "second": second, "text": text,
            "definition": definition}


def _log10(v: Fraction) -> float:
    """log10 of an exact rational δ in [0, 1] (−inf for 0), without underflow however small δ
    is (mpmath's logarithm through ``core.numbers.log_fraction``; a report figure, not a
    verdict)."""
    from dps_verify.core.numbers import log_fraction

    if v <= 0:
        return -math.inf
    return log_fraction(v) / math.log(10)


def _fmt(v: Fraction, rounding: str) -> str:
    """An exact rational as a short decimal rounded up ("u") or down ("d"); a positive value
    never prints as 0, however small."""
    from dps_verify.core.numbers import fraction_to_mpf

    if v == 0:
        return "0"
    import mpmath

    return mpmath.nstr(fraction_to_mpf(v, rounding), 4)


def _exact_decade(v: Fraction) -> int:
    """The integer e with 10^e <= v < 10^(e+1), for a rational v > 0: the float logarithm
    guesses, exact comparisons settle (a δ of exactly 10^-8 belongs to 1e-8..1e-7 however the
    logarithm rounds)."""
    e = math.floor(_log10(v))
    while Fraction(10) ** e > v:
        e -= 1
    while Fraction(10) ** (e + 1) <= v:
        e += 1
    return e


def _histogram(by_size: dict[int, tuple[Fraction, int]]) -> dict:
    """Rows by decade of their exact δ: {"0": rows with δ = 0, "1e-8..1e-7": ...}; ``by_size``
    maps a group size to (δ of removing one of its rows, number of such rows)."""
    out: Counter = Counter()
    for v, c in by_size.values():
        out[-10**9 if v <= 0 else _exact_decade(v)] += c
    return {("0" if e == -10**9 else f"1e{e}..1e{e + 1}"): c for e, c in sorted(out.items())}


# ------------------------------------------------------------------------------ this table, statistical
@dataclass
class _Progress:
    enabled: bool

    def __call__(self, what: str) -> Callable[[int, int], None]:
        def show(done: int, total: int) -> None:
            if self.enabled:
                end = "\n" if done == total else ""
                print(f"\r  {what}: {done}/{total} tasks", end=end, file=sys.stderr, flush=True)
        return show


def _first_level(alpha: float) -> float:
    """The first look's level, FIRST_LOOK_SHARE·α rounded down."""
    return math.nextafter(alpha * float(FIRST_LOOK_SHARE), 0)


def _look_plan(a: Fraction, bb: Fraction, d: Fraction, alpha: float, max_trials: int,
               first_look: int | None) -> tuple[list[tuple[int, int]], list[float], tuple[int, int] | None]:
    """Confirmation looks, fixed before any confirmation run: run counts (n_A, n_B) per look and
    the level each look spends (3α/4 on the first, the rest split evenly over the others;
    Bonferroni over looks, so stopping at the first look that rejects is valid).  The first look
    is the smallest design whose perfect outcome refutes the claim (or ``first_look`` runs); each
    next look doubles it, up to ``max_trials`` runs.  Returns ([], [], design at max_trials) when
    not even ``max_trials`` runs can refute the claim."""
    from dps_verify.audit.two_binomials import smallest_design

    def split(total: int) -> tuple[int, int]:
        n_a = max(4, -(-total // (RUN_RATIO + 1)))
        return n_a, max(1, total - n_a)

    first_level = _first_level(alpha)
    if first_look is not None:
        first = split(first_look)
    else:
        got = smallest_design(a, bb, d, first_level, ratio=RUN_RATIO, cap=max_trials)
        if got is None:
            return [], [], split(max_trials)
        first = got
    looks = [first]
    while sum(looks[-1]) * 2 <= max_trials:
        looks.append((looks[-1][0] * 2, looks[-1][1] * 2))
    if sum(looks[-1]) < max_trials and first_look is not None:
        looks.append(split(max_trials))
    # rounded down: the levels never add up to more than alpha
    rest = math.nextafter((alpha - first_level) / (len(looks) - 1), 0) if len(looks) > 1 else 0.0
    levels = [alpha] if len(looks) == 1 else [first_level] + [rest] * (len(looks) - 1)
    return looks, levels, None


def _statistical_this_table(
    ref: Any, table: Table, fmt: str, b: Fraction, eps: Fraction, d: Fraction, *,
    seed: int | None, alpha: float, targets: int, screen_trials: int, max_trials: int,
    first_look: int | None, backend: Any, checkpoint: Any, progress: _Progress,
) -> tuple[dict, dict | None]:
    """Screening (coupled runs, ranks events), then confirmation of the best (target, event) on
    fresh independent runs with and without the target, decided by the exact joint test of
    :mod:`dps_verify.audit.two_binomials` at pre-planned looks."""
    from dps_verify.audit.two_binomials import lower_confidence_delta, rejects
    from dps_verify.distributed import task_seeds
    from dps_verify.verdict.montecarlo import clopper_pearson, exp_upper_float

    t0 = time.perf_counter()
    e_eps = exp_upper_float(eps)
    e_hi = Fraction(e_eps)
    bf = float(b)
    chosen = st.choose_targets(table.records, table.qi, targets)
    root = task_seeds(seed, 3)  # screening, "without" runs, "with" runs
    records = backend.scatter(table.records)
    # "run": which audit a task belongs to (tasks of one run wait for one another's turn)
    base = {"pipeline": ref, "qi": table.qi, "fmt": fmt, "beta": bf, "run": uuid.uuid4().hex}

    # ---- screening (never certifies anything; its runs are not reused)
    n_tasks = max(1, math.ceil(screen_trials / 2))
    seeds = root[0].spawn(n_tasks)
    items, keys, results = [], [], {}
    for i in range(n_tasks):
        n = min(2, screen_trials - 2 * i)
        key = f"screen:{i}"
        got = checkpoint.get(key)
        if got is not None:
            results[i] = got
        else:
            items.append(({**base, "targets": chosen, "n": n, "seed": seeds[i]}, records))
            keys.append(i)
    if items:
        done = backend.map(screening_task, items, progress=progress("screening"))
        for i, r in zip(keys, done):
            results[i] = r
        checkpoint.put_many({f"screen:{i}": results[i] for i in keys})
    best: tuple | None = None
    for j, t in enumerate(chosen):
        with_t = [_feats_from_json(results[i]["with"][k][j]) for i in sorted(results)
                  for k in range(len(results[i]["with"]))]
        without_t = [_feats_from_json(results[i]["without"][k][j]) for i in sorted(results)
                     for k in range(len(results[i]["without"]))]
        own = dict(zip(table.qi, table.records[t]))
        for ev in st.candidate_events(with_t, without_t):
            h1 = sum(st.event_holds(ev, f) for f in with_t)
            h0 = sum(st.event_holds(ev, f) for f in without_t)
            for direction in ("add", "remove"):
                if st.direction_coefficients(direction, b, e_hi) is None:
                    continue
                score = st.plug_in_delta(direction, h1 / len(with_t), h0 / len(without_t), b, e_eps)
                cand = (score, _event_rank(ev, own), -j, direction, repr(ev), ev, t)
                if best is None or cand[:5] > best[:5]:
                    best = cand
    screen_runs = screen_trials * (1 + len(chosen))
    screening = {"targets": [{"row": t, "record": dict(zip(table.qi, table.records[t]))} for t in chosen],
                 "trials": screen_trials, "pipeline_runs": screen_runs}
    method = "statistical (screening, then an exact test on fresh runs)"
    if best is None or best[0] <= 0:
        res = {"verdict": "INCONCLUSIVE", "method": method, "screening": screening,
               "summary": "no event separated the releases with and without any target on the "
                          "screening runs", "seconds": round(time.perf_counter() - t0, 3)}
        return res, None
    _score, _rank, _j, direction, _r, event, t = best
    coeffs = st.direction_coefficients(direction, b, e_hi)
    assert coeffs is not None
    side_a, a_coef, b_coef = coeffs
    side_b = "without" if side_a == "with" else "with"

    # ---- confirmation: fresh independent runs, looks planned from the claim alone
    looks, levels, too_big = _look_plan(a_coef, b_coef, d, alpha, max_trials, first_look)
    rec = dict(zip(table.qi, table.records[t]))
    desc = st.describe_event(event)
    ev_json = [event[0], list(event[1]), *event[2:]]
    if too_big is not None:
        floor = lower_confidence_delta(too_big[0], too_big[0], 0, too_big[1], a_coef, b_coef,
                                       _first_level(alpha))
        res = {"verdict": "INCONCLUSIVE", "method": method, "screening": screening,
               "target": {"row": t, "record": rec}, "event": desc, "event_spec": ev_json,
               "direction": direction, "detectable_delta": _detectable(floor),
               "pipeline_runs": screen_runs,
               "summary": (f"not run: even {max_trials} confirmation runs (--trials) could not "
                           f"refute delta = {float(d):.3g}; "
                           + (f"they refute delta below about {_float_down(floor):.3g} at best"
                              if floor > 0 else "they cannot refute any delta")),
               "seconds": round(time.perf_counter() - t0, 3)}
        return res, None
    counts = {"with": [0, 0], "without": [0, 0]}  # hits, runs
    planned = {"with": 0, "without": 0}  # runs handed out so far (tasks of <= TRIALS_PER_TASK)
    task_count = {"with": 0, "without": 0}
    verdict, bound, used = "INCONCLUSIVE", Fraction(0), 0
    for li, (n_a, n_b) in enumerate(looks):
        want = {side_a: n_a, side_b: n_b}
        items, idx = [], []
        for kind in ("without", "with"):
            parent = root[1] if kind == "without" else root[2]
            while planned[kind] < want[kind]:
                i, n = task_count[kind], min(TRIALS_PER_TASK, want[kind] - planned[kind])
                task_count[kind] += 1
                planned[kind] += n
                key = f"confirm:{t}:{repr(event)}:{kind}:{i}"
                got = checkpoint.get(key)
                if got is not None and got.get("n") == n:
                    counts[kind][0] += got["hits"]
                    counts[kind][1] += got["n"]
                    continue
                items.append(({**base, "target": t, "event": ev_json, "kind": kind,
                               "n": n, "seed": _child_seed(parent, i)}, records))
                idx.append(key)
        if items:
            out = backend.map(confirmation_task, items,
                              progress=progress(f"confirming (look {li + 1} of {len(looks)})"))
            for (task, _), r in zip(items, out):
                counts[task["kind"]][0] += r["hits"]
                counts[task["kind"]][1] += r["n"]
            checkpoint.put_many(dict(zip(idx, out)))
        used = li
        (x_a, m_a), (x_b, m_b) = counts[side_a], counts[side_b]
        if rejects(x_a, m_a, x_b, m_b, a_coef, b_coef, d, levels[li]):
            verdict = "FAIL"
            bound = lower_confidence_delta(x_a, m_a, x_b, m_b, a_coef, b_coef, levels[li])
            break
    (x_a, m_a), (x_b, m_b) = counts[side_a], counts[side_b]
    level = levels[used]
    floor = lower_confidence_delta(m_a, m_a, 0, m_b, a_coef, b_coef, level)
    if verdict != "FAIL":
        bound = lower_confidence_delta(x_a, m_a, x_b, m_b, a_coef, b_coef, level)
    hw, nw = counts["with"]
    h0, n0 = counts["without"]
    ci1 = clopper_pearson(hw, nw, level / 2)
    ci0 = clopper_pearson(h0, n0, level / 2)
    bound_f = _float_down(bound)
    res = {
        "verdict": verdict, "method": method,
        "confidence": 1 - alpha, "screening": screening,
        "target": {"row": t, "record": rec}, "event": desc, "event_spec": ev_json,
        "direction": direction,
        "counts": {"hits_with": hw, "n_with": nw, "hits_without": h0, "n_without": n0},
        "looks": [{f"runs_{side_a}": la, f"runs_{side_b}": lb, "level": lv}
                  for (la, lb), lv in zip(looks[: used + 1], levels[: used + 1])],
        "planned_looks": len(looks),
        "test": (f"exact test of {float(a_coef):.6g}*p_{side_a} - {float(b_coef):.6g}*p_{side_b} "
                 f"<= delta on two independent binomials, level {level:.4g} at this look "
                 "(alpha spent over the planned looks)"),
        "alpha_each": level,
        "p_with": {"estimate": hw / max(nw, 1), "ci": list(ci1)},
        "p_without": {"estimate": h0 / max(n0, 1), "ci": list(ci0)},
        "e_eps_upper": e_eps,
        "delta_lower_bound": bound_f,
        "detectable_delta": _detectable(floor),
        "pipeline_runs": screen_runs + nw + n0,
        "seconds": round(time.perf_counter() - t0, 3),
    }
    if verdict == "FAIL":
        res["summary"] = (f"delta >= {bound_f:.4g} at confidence {1 - alpha:.0%} (target row {t}, "
                          f"{desc})")
    else:
        res["summary"] = (f"no refutation at confidence {1 - alpha:.0%}; best bound {bound_f:.3g}; "
                          + (f"this run could refute only a claimed delta below about "
                             f"{_float_down(floor):.3g} for its event" if floor > 0 else
                             "this many runs cannot refute any delta for its event"))
    witness = None
    if verdict == "FAIL":
        pw = f"{hw}/{nw} runs with the row, {h0}/{n0} runs without it"
        witness = {
            "method": "statistical", "row": t, "record": rec, "event": desc, "direction": direction,
            "hits_with": hw, "n_with": nw, "hits_without": h0, "n_without": n0,
            "implied_delta": bound_f, "confidence": 1 - alpha,
            "text": (f"row {t} {rec}: event '{desc}' happened in {pw}; with beta = {b} this gives "
                     f"delta >= {bound_f:.4g} at confidence {1 - alpha:.0%} "
                     f"({'D against D - row' if direction == 'add' else 'D - row against D'}; "
                     "CP Def. 2, exact test, e^eps rounded up)"),
        }
    return res, witness


def _detectable(floor: Fraction) -> float | None:
    """The largest δ a perfect outcome of the runs refutes (None: not even δ = 0)."""
    return _float_down(floor) if floor > 0 else None


def _float_down(v: Fraction) -> float:
    """A rational as the float just below it (a lower bound stays a lower bound)."""
    f = float(v)
    return math.nextafter(f, -math.inf) if Fraction(f) > v else f


def _event_rank(ev: tuple, own: dict[str, object] | None = None) -> int:
    """On equal screening scores prefer events a person reads at once: the target's own value
    shown in the release, then any value shown, then the target's class, then thresholds."""
    kind = ev[1][0]
    if kind in ("cell", "token") and ev[0] == "has":
        shown = own is not None and len(ev[1]) > 2 and str(own.get(ev[1][1], object())) == ev[1][2]
        return 3 if shown else 2
    return 1 if kind.startswith("cover") else 0


# ------------------------------------------------------------------------------ every table
def _every_table(pipeline: Any, ref: Any, table: Table, fmt: str, b: Fraction, eps: Fraction,
                 d: Fraction, definition: DefinitionLike, seed: int | None, budget: int) -> dict:
    from dps_verify.audit.core import audit as audit_domain
    from dps_verify.audit.core import closed_form_kind

    t0 = time.perf_counter()
    if closed_form_kind(pipeline) == "strongly-safe":
        from dps_verify.worstcase.sdgs import sdgs_delta_certified

        cert = sdgs_delta_certified(pipeline.k, b, eps, definition_param(definition))
        v = "PASS" if cert.upper <= d else "FAIL" if cert.lower > d else "INCONCLUSIVE"
        return {"verdict": v, "method": "closed form (exact sdgs worst case, CP Thm 5 / App. A.2)",
                "worst_delta": {"lower": float(cert.lower), "upper": float(cert.upper),
                                "certified": cert.how},
                "summary": f"exact worst case over all datasets: delta in [{float(cert.lower):.3g}, "
                           f"{float(cert.upper):.3g}] ({cert.how})",
                "seconds": round(time.perf_counter() - t0, 3)}
    # the exact search over small datasets of the data's own QI values
    common = [r for r, _ in Counter(table.records).most_common(2)]
    picks = list(dict.fromkeys([*(table.records[i] for i in st.choose_targets(table.records, table.qi, 3)), *common]))

    def on_sample(sample: tuple) -> tuple:
        return run_pipeline(_resolve(ref), list(sample), table.qi, fmt)

    try:
        rep = audit_domain(on_sample, beta=b, epsilon=eps, delta=d,
                           domain={"records": [list(r) for r in picks], "max_size": 6},
                           definition=definition, method="exact", seed=seed, total_budget=budget)
    except AuditedCodeError:
        raise
    except Exception as exc:  # noqa: BLE001 - the search could not run on this pipeline
        return {"verdict": None, "method": "exact search", "summary": f"not run: {exc}",
                "seconds": round(time.perf_counter() - t0, 3)}
    w = rep.witness
    pairs = rep.coverage.get("pairs_exact", 0)
    res = {"verdict": rep.verdict,
           "method": f"exact search over datasets built from {len(picks)} of the data's own "
                     "records (all datasets up to 6 rows, leak shapes up to 96 rows)",
           "records": [dict(zip(table.qi, r)) for r in picks],
           "pairs": pairs,
           "summary": (w.summary() if w is not None else
                       f"{pairs} neighbouring pairs checked exactly, no violation"),
           "seconds": round(time.perf_counter() - t0, 3)}
    if w is not None:
        res["witness"] = w.summary()
    return res


# ------------------------------------------------------------------------------ the entry point
def audit_data(
    pipeline: Any,
    *,
    data: Any,
    qi: Sequence[str] | None = None,
    beta: Number,
    epsilon: Number,
    delta: Number,
    definition: DefinitionLike = "hockey-stick",
    question: str = "both",
    table_format_: str | None = None,
    seed: int | None = 0,
    alpha: float = 0.05,
    targets: int = DEFAULT_TARGETS,
    screen_trials: int = DEFAULT_SCREEN_TRIALS,
    max_trials: int = DEFAULT_MAX_TRIALS,
    first_look: int | None = None,
    client: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
    backend: Any = None,
    checkpoint: str | Path | None = None,
    progress: bool = False,
    search_budget: int = 200_000,
    pipeline_ref: Any = None,
) -> DataAuditReport:
    """Audit ``pipeline`` on a real table (module docstring): both questions by default.

    ``data`` is a CSV path (with a header row), a :class:`Table`, a pandas DataFrame or a list
    of records; ``qi`` names the quasi-identifier columns (the record the claim protects is the
    row of QI values).  Statistical trials run on ``backend`` (a
    :mod:`dps_verify.distributed` backend), else on a Dask ``client`` / ``scheduler`` address,
    else on a LocalCluster of ``workers`` processes when ``workers`` > 1, else serially; the
    verdict and witness depend on ``seed`` only.  ``checkpoint`` is a JSON file to resume from.
    ``pipeline_ref`` (``("file", "path.py:NAME")``) lets Dask workers load the pipeline from its
    file instead of receiving a pickle of it.
    """
    from dps_verify.distributed import Checkpoint, choose_backend
    from dps_verify.engine.protocol import is_group_factorised
    from dps_verify.measures.divergence import DEFINITIONS

    t0 = time.perf_counter()
    b = beta_param(beta, allow_one=True)
    eps = epsilon_param(epsilon)
    d = delta_param(delta)
    if definition not in DEFINITIONS:
        raise UsageError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    if question not in QUESTIONS:
        raise UsageError(f"question must be one of {QUESTIONS}, got {question!r}")
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be in (0, 1), got {alpha}")
    if not callable(pipeline):
        raise UsageError("the pipeline must be callable (table -> release)")
    table = as_table(data, qi)
    fmt = table_format(pipeline, table_format_)
    ref = pipeline_ref if pipeline_ref is not None else pipeline
    claim = {"beta": str(b), "epsilon": str(eps), "delta": f"{float(d):.6g}",
             "definition": definition, "rows": len(table.records), "qi": list(table.qi),
             "source": table.source}
    rep = DataAuditReport("INCONCLUSIVE", claim)
    if table.dropped_missing:
        rep.notes.append(f"{table.dropped_missing} rows with a missing QI value were dropped")
    factorised = is_group_factorised(pipeline)
    witness = None
    if question in ("both", "this"):
        if factorised:
            rep.this_table, witness = _exact_this_table(pipeline, table, b, eps, d, definition)
        else:
            fp = hashlib.sha256(repr((repr(ref) if not isinstance(ref, tuple) else ref,
                                      table.fingerprint(), str(b), str(eps), str(d), seed, alpha,
                                      targets, screen_trials, max_trials, first_look,
                                      TRIALS_PER_TASK, RUN_RATIO, str(FIRST_LOOK_SHARE), "exact joint test")
                                     ).encode()).hexdigest()[:16]
            ck = Checkpoint(checkpoint, fp)
            est = (screen_trials * (1 + targets) + max_trials) * 0.05
            be = choose_backend(backend, estimated_seconds=est, workers=workers,
                                address=scheduler, client=client)
            try:
                rep.this_table, witness = _statistical_this_table(
                    ref, table, fmt, b, eps, d, seed=seed, alpha=alpha, targets=targets,
                    screen_trials=screen_trials, max_trials=max_trials, first_look=first_look,
                    backend=be, checkpoint=ck, progress=_Progress(progress))
                rep.this_table["backend"] = getattr(be, "name", type(be).__name__)
                if ck.resumed:
                    rep.this_table["resumed_tasks"] = ck.resumed
            finally:
                if be is not backend:
                    be.close()
            if definition == "pointwise":
                rep.notes.append("the statistical audit bounds the hockey-stick delta, which is at "
                                 "most the pointwise one: its FAIL also refutes a pointwise claim")
    if question in ("both", "every"):
        rep.every_table = _every_table(pipeline, ref, table, fmt, b, eps, d, definition, seed,
                                       search_budget)
    rep.witness = witness
    if witness is None and rep.every_table.get("witness"):
        rep.witness = {"method": "exact search", "text": rep.every_table["witness"]}
    rep.verdict = _combine(rep.this_table.get("verdict"), rep.every_table.get("verdict"))
    rep.seconds = time.perf_counter() - t0
    return rep


# ------------------------------------------------------------------------------ the command line
def add_data_arguments(p: Any) -> None:
    """The ``--data`` option block of ``dps-verify audit`` (a table instead of a domain)."""
    g = p.add_argument_group(
        "auditing a pipeline on a real table (instead of --domain)",
        "The pipeline takes a table and returns its release; both questions are answered: this "
        "table (worst delta over its neighbours) and every table (closed form or exact search).")
    g.add_argument("--data", metavar="FILE.csv", default=None,
                   help="the table (CSV with a header row, or see --columns)")
    g.add_argument("--qi", metavar="COL,COL,...", default=None,
                   help="the quasi-identifier columns: the record the claim protects")
    g.add_argument("--columns", metavar="NAMES|SPEC.json", default=None,
                   help="column names of a CSV without a header row: comma-separated, or a JSON "
                        "file with a 'columns' list (e.g. examples/real/adult_recoding.json)")
    g.add_argument("--missing", default="?", metavar="TEXT",
                   help="rows with this value in a QI column are dropped (default '?')")
    g.add_argument("--question", default="both", choices=QUESTIONS,
                   help="this table, every table, or both (default)")
    g.add_argument("--table-format", default=None, choices=TABLE_FORMATS,
                   help="how the pipeline takes its table (default: its table_format attribute, "
                        "a DataFrame annotation, else a list of tuples)")
    g.add_argument("--alpha", type=float, default=0.05, help="1 - confidence of a statistical FAIL")
    g.add_argument("--targets", type=int, default=DEFAULT_TARGETS, help="target rows screened")
    g.add_argument("--screen-trials", type=int, default=DEFAULT_SCREEN_TRIALS,
                   help="screening trials (each runs the pipeline once plus once per target)")
    g.add_argument("--trials", type=int, default=DEFAULT_MAX_TRIALS,
                   help="largest number of confirmation runs of the pipeline (default "
                        f"{DEFAULT_MAX_TRIALS}); a claim that even this many cannot refute is "
                        "INCONCLUSIVE at once")
    g.add_argument("--workers", type=int, default=None,
                   help="Dask LocalCluster worker processes (default: serial for small jobs, "
                        "one per core otherwise; 1 = serial)")
    g.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the trials on an existing Dask cluster (tcp://host:8786)")
    g.add_argument("--checkpoint", metavar="FILE.json", default=None,
                   help="keep finished trial tasks here and resume from them")
    g.add_argument("--html", metavar="DIR", default=None,
                   help="also write DIR/index.html: witness, event frequencies with their "
                        "confidence intervals against e^eps, per-row delta histogram")


def cli_run(args: Any) -> int:
    """``dps-verify audit FILE.py:NAME --data ...``: load, audit, print, write JSON/HTML."""
    from dps_verify.audit.loader import load_callable
    from dps_verify.core import fsio
    from dps_verify.engine.calls import audited_code

    if args.qi is None:
        raise UsageError("--data needs --qi COL,COL,... (the quasi-identifier columns)")
    if args.domain is not None:
        raise UsageError("give either --domain (synthetic datasets) or --data (a real table), not both")
    for opt, v in (("--targets", args.targets), ("--screen-trials", args.screen_trials),
                   ("--trials", args.trials)):
        if v < 1:
            raise UsageError(f"{opt} must be >= 1, got {v}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be >= 1, got {args.workers}")
    if args.json:
        fsio.check_output_file(args.json, option="--json", force=args.force)
    html_path = None
    if args.html:
        d = Path(args.html)
        if d.exists() and not d.is_dir():
            raise UsageError(f"--html {d}: exists and is not a directory")
        html_path = d / "index.html"
        if d.is_dir():
            fsio.check_output_file(html_path, option="--html", force=args.force)
    qi = [c.strip() for c in args.qi.split(",") if c.strip()]
    table = load_table(args.data, qi, columns=columns_option(args.columns), missing=args.missing or None)
    with audited_code():
        pipeline, _module = load_callable(args.target)
    _LOADED[args.target] = pipeline
    show = sys.__stderr__ is not None and sys.__stderr__.isatty()
    with audited_code():
        rep = audit_data(
            pipeline, data=table, beta=args.beta, epsilon=args.epsilon, delta=args.delta,
            definition=args.definition, question=args.question, table_format_=args.table_format,
            seed=args.seed if args.seed is not None else 0, alpha=args.alpha,
            targets=args.targets, screen_trials=args.screen_trials, max_trials=args.trials,
            workers=args.workers, scheduler=args.scheduler, checkpoint=args.checkpoint,
            progress=show, pipeline_ref=("file", args.target),
        )
    if args.json:
        written = fsio.write_output_file(args.json, rep.to_json() + "\n", option="--json",
                                         force=args.force, what="audit report")
        print(f"wrote {written}")
    if html_path is not None:
        from dps_verify.audit.data_html import render_html

        html_path.parent.mkdir(parents=True, exist_ok=True)
        written = fsio.write_output_file(html_path, render_html(rep), option="--html",
                                         force=args.force, what="HTML report")
        print(f"wrote {written}")
    print(rep.summary())
    print(rep.verdict_line())
    return rep.exit_code


__all__ = [
    "QUESTIONS",
    "TABLE_FORMATS",
    "add_data_arguments",
    "cli_run",
    "DataAuditReport",
    "Table",
    "as_table",
    "audit_data",
    "columns_option",
    "confirmation_task",
    "load_table",
    "make_table",
    "run_pipeline",
    "screening_task",
    "table_format",
]
