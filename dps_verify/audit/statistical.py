"""Black-box Monte Carlo auditing with select-then-confirm (CP Def. 2 estimated from samples).

For a candidate pair (D, D') the sampled mechanism is run ``n_select`` times on each; the
empirical hockey-stick event E = {y : p̂(y) > e^ε q̂(y)} (the better of the two directions) is
selected.  The most promising events are then re-measured on fresh, independent runs, so the
selection cannot bias the confirmation.  One-sided Clopper–Pearson bounds at level α/(2m)
(Bonferroni over the m confirmed events and both probabilities) give a lower confidence bound
at level 1 − α: the random bound P_lower − e^ε Q_upper falls below the fixed true value

    Pr[A(D) ∈ E] − e^ε Pr[A(D') ∈ E] ≥ P_lower − e^ε Q_upper

in at least a fraction 1 − α of all confirmations together, and a witness (FAIL) is reported
only if that lower bound exceeds the claimed δ.  So if the claim were true, FAIL would be
returned with probability at most α (the test's level); it is not a probability that the true δ
exceeds the claim.  A statistical audit
can refute a claim but never prove it, so without a witness it returns INCONCLUSIVE.

The engine itself (sampling runs, event selection, confirmation, Clopper–Pearson, e^ε rounded
up) is the one shared with :mod:`dps_verify.testing`: :mod:`dps_verify.verdict.montecarlo`.
This module only adapts the audit's anonymizers to it (:func:`as_sampler`).
"""

from __future__ import annotations

import inspect
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable
from fractions import Fraction

from dps_verify.engine.distribution import randomized
from dps_verify.verdict.montecarlo import clopper_pearson


def clopper_pearson_lower(hits: int, n: int, alpha: float) -> float:
    """One-sided (1 − α) lower confidence bound (the shared engine's Clopper–Pearson)."""
    return clopper_pearson(hits, n, alpha)[0]


def clopper_pearson_upper(hits: int, n: int, alpha: float) -> float:
    """One-sided (1 − α) upper confidence bound (the shared engine's Clopper–Pearson)."""
    return clopper_pearson(hits, n, alpha)[1]


def is_black_box(fn: Callable) -> bool:
    """Whether ``fn`` takes ``(sample, rng)`` (two required positional parameters)."""
    if isinstance(fn, randomized):
        return False
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False
    required = [
        p for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(required) >= 2


def as_sampler(anonymizer: Callable) -> Callable[[tuple, random.Random], Hashable]:
    """Turn any accepted anonymizer into ``(sample, rng) -> output``."""
    if isinstance(anonymizer, randomized):
        def run_law(sample: tuple, rng: random.Random) -> Hashable:
            law = anonymizer.law(sample)
            u = Fraction(rng.random())
            acc = Fraction(0)
            last = None
            for y, p in law.items():
                acc += p
                last = y
                if u < acc:
                    return y
            return last

        return run_law
    if is_black_box(anonymizer):
        return anonymizer  # type: ignore[return-value]
    return lambda sample, rng: anonymizer(sample)


# =====================================================================================
# Coupled audit of a table pipeline (one target row t of a real table, its removal as the
# neighbouring dataset, CP §2.1): releases, distinguishing events, trials.
# =====================================================================================

#: Kinds of release features an event can test (see :func:`release_features`).
FEATURE_KINDS = ("cell", "token", "rows", "max", "min", "covers", "cover-width", "cover-count")

_RANGE = None  # compiled lazily (re)


def _cell(v: object) -> str:
    """One released cell as text: a one-element list/tuple is its element (anonypy publishes
    ``['24-37']``), a longer one its elements joined by commas."""
    if isinstance(v, (list, tuple)):
        return str(v[0]) if len(v) == 1 else ",".join(str(x) for x in v)
    return str(v)


def canonical_release(release: object) -> tuple:
    """A release as ``("table", columns, sorted rows of text cells)`` when it is a table (a
    pandas DataFrame, a list of dicts or a list of rows), else ``("opaque", repr)``.  Row order
    is dropped: a release is compared as the multiset of its rows."""
    cols: tuple | None = None
    rows: list[tuple[str, ...]]
    if hasattr(release, "itertuples") and hasattr(release, "columns"):
        cols = tuple(str(c) for c in release.columns)  # type: ignore[attr-defined]
        rows = [tuple(_cell(v) for v in r) for r in release.itertuples(index=False)]  # type: ignore[attr-defined]
    elif isinstance(release, (list, tuple)) and release and all(isinstance(r, dict) for r in release):
        names: dict[str, None] = {}
        for r in release:
            names.update(dict.fromkeys(str(k) for k in r))
        cols = tuple(names)
        rows = [tuple(_cell(r.get(c, r.get(c, ""))) for c in cols) for r in
                ({str(k): v for k, v in r.items()} for r in release)]
    elif isinstance(release, (list, tuple)) and all(isinstance(r, (list, tuple)) for r in release):
        rows = [tuple(_cell(v) for v in r) for r in release]
    else:
        return ("opaque", repr(release))
    return ("table", cols, tuple(sorted(rows)))


def _range_of(cell: str) -> tuple[float, float] | None:
    """Numeric extent of a generalized cell: ``42``, ``24-37``, ``[30,40)``, ``<20``, ``>=70``."""
    global _RANGE
    import re

    if _RANGE is None:
        num = r"(-?\d+(?:\.\d+)?)"
        _RANGE = (re.compile(rf"^\s*{num}\s*$"),
                  re.compile(rf"^\s*[\[(]?\s*{num}\s*(?:-|,|\.\.)\s*{num}\s*[\])]?\s*$"),
                  re.compile(rf"^\s*(<=?|>=?)\s*{num}\s*$"))
    single, pair, half = _RANGE
    m = single.match(cell)
    if m:
        x = float(m.group(1))
        return x, x
    m = pair.match(cell)
    if m:
        a, b = float(m.group(1)), float(m.group(2))
        if cell.rstrip().endswith(")") and cell.lstrip().startswith("["):
            b = math.nextafter(b, -math.inf)
        return (a, b) if a <= b else None
    m = half.match(cell)
    if m:
        x = float(m.group(2))
        return (-math.inf, x) if m.group(1).startswith("<") else (x, math.inf)
    return None


def _covers(cell: str, value: object) -> bool:
    text = str(value)
    if cell == text or cell == "*":
        return True
    if "," in cell and text in (tok.strip() for tok in cell.split(",")):
        return True
    rng = _range_of(cell)
    if rng is not None:
        try:
            x = float(text)
        except ValueError:
            return False
        return rng[0] <= x <= rng[1]
    return False


def release_features(canon: tuple, target: dict[str, object] | None = None) -> dict[tuple, float]:
    """Features of a canonical release that distinguishing events test (all numbers; a
    presence feature is 1.0 when present and simply missing otherwise):

    - ``("cell", column, text)`` and ``("token", column, text)``: a released cell, and each
      value of a comma-separated (set-valued) cell;
    - ``("rows",)``: number of released rows; ``("max", column)``/``("min", column)``: the
      largest upper end and smallest lower end of the numeric cells of a column;
    - with ``target`` (t's values by column name): ``("covers",)`` the number of released rows
      whose every named cell covers t's value (t's class; 0 = absent), ``("cover-count",)``
      their total ``count`` column, ``("cover-width", column)`` the narrowest numeric cell of a
      covering row.
    """
    feats: dict[tuple, float] = {}
    if canon[0] != "table":
        feats[("cell", "release", canon[1][:200])] = 1.0
        return feats
    _, cols, rows = canon
    names = cols if cols is not None else tuple(str(i) for i in range(max((len(r) for r in rows), default=0)))
    feats[("rows",)] = float(len(rows))
    tcols = [(i, target[c]) for i, c in enumerate(names) if target is not None and c in target]
    count_col = names.index("count") if "count" in names else None
    covers, cover_count = 0, 0.0
    widths: dict[str, float] = {}
    for r in rows:
        for i, cell in enumerate(r):
            c = names[i] if i < len(names) else str(i)
            feats[("cell", c, cell)] = 1.0
            if "," in cell:
                for tok in cell.split(","):
                    feats[("token", c, tok.strip())] = 1.0
            rng = _range_of(cell)
            if rng is not None and i != count_col:
                if math.isfinite(rng[1]):
                    feats[("max", c)] = max(feats.get(("max", c), -math.inf), rng[1])
                if math.isfinite(rng[0]):
                    feats[("min", c)] = min(feats.get(("min", c), math.inf), rng[0])
        if tcols and all(i < len(r) and _covers(r[i], v) for i, v in tcols):
            covers += 1
            if count_col is not None:
                try:
                    cover_count += float(r[count_col])
                except ValueError:
                    pass
            for i, _v in tcols:
                rng = _range_of(r[i])
                if rng is not None and all(map(math.isfinite, rng)):
                    c = names[i]
                    widths[c] = min(widths.get(c, math.inf), rng[1] - rng[0])
    if target is not None:
        feats[("covers",)] = float(covers)
        if count_col is not None:
            feats[("cover-count",)] = cover_count
        for c, w in widths.items():
            feats[("cover-width", c)] = w
    return feats


def event_holds(event: tuple, feats: dict[tuple, float]) -> bool:
    """Whether a release with features ``feats`` is in ``event``: ``("has", f)``,
    ``("lacks", f)``, ``("ge", f, v)`` (feature present and ≥ v) or ``("le", f, v)``."""
    op, f = event[0], tuple(event[1])
    if op == "has":
        return f in feats
    if op == "lacks":
        return f not in feats
    x = feats.get(f)
    if x is None:
        return False
    return x >= event[2] if op == "ge" else x <= event[2]


def describe_event(event: tuple) -> str:
    """The event in words (for the witness)."""
    op, f = event[0], tuple(event[1])
    kind = f[0]
    if kind in ("cell", "token"):
        what = (f"column {f[1]!r} shows the value {f[2]!r}" if kind == "cell"
                else f"column {f[1]!r} lists {f[2]!r} in a generalized set")
        return f"the release {'has' if op == 'has' else 'has no'} row where {what}"
    names = {"rows": "number of released rows", "max": f"largest value published in column {f[1]!r}" if len(f) > 1 else "",
             "min": f"smallest value published in column {f[1]!r}" if len(f) > 1 else "",
             "covers": "number of released rows covering the target's values (its class)",
             "cover-count": "size of the target's class (sum of its count column)",
             "cover-width": f"width of the target's class in column {f[1]!r}" if len(f) > 1 else ""}
    label = names.get(kind, repr(f))
    if op in ("has", "lacks"):
        return f"the release {'reports' if op == 'has' else 'does not report'} the {label}"
    return f"the {label} is {'>=' if op == 'ge' else '<='} {event[2]:g}"


def candidate_events(with_t: list[dict], without_t: list[dict]) -> list[tuple]:
    """Every event the screening runs suggest: presence/absence of each feature seen, and for
    numeric features a threshold at each value seen (both sides)."""
    seen: dict[tuple, set[float]] = {}
    for feats in (*with_t, *without_t):
        for f, x in feats.items():
            seen.setdefault(f, set()).add(x)
    events: list[tuple] = []
    for f, xs in seen.items():
        if f[0] in ("cell", "token"):
            events += [("has", f), ("lacks", f)]
        else:
            for x in sorted(xs):
                events += [("ge", f, x), ("le", f, x)]
    return events


def direction_coefficients(direction: str, beta: Fraction, e_eps_upper: Fraction
                           ) -> tuple[str, Fraction, Fraction] | None:
    """The linear bound on δ (CP Def. 2) of one target row t and one event E, as (which runs
    estimate p_A, a, b) with δ ≥ a·p_A − b·p_B; None when the direction can never refute.

    With S' a Bernoulli(β) sample of D − t (CP Def. 3), p1 = Pr[E(A(S' ∪ {t}))] and
    p0 = Pr[E(A(S'))], exactly Pr[A^β(D) ∈ E] = β·p1 + (1 − β)·p0 (t is sampled or not) and
    Pr[A^β(D − t) ∈ E] = p0, so

    - ``"add"`` (D against D − t): δ ≥ β·p1 − (e^ε − 1 + β)·p0 — p_A = p1 ("with" runs);
    - ``"remove"`` (D − t against D): δ ≥ (1 − e^ε(1 − β))·p0 − e^ε·β·p1 — p_A = p0
      ("without" runs), possible only below the regime edge e^ε(1 − β) < 1.

    ``e_eps_upper`` ≥ e^ε: a larger e^ε only lowers a and raises b, so the hypothesis
    a·p_A − b·p_B ≤ δ tested with it contains the true one (the test stays valid).
    """
    b_, e = Fraction(beta), Fraction(e_eps_upper)
    if direction == "add":
        return "with", b_, e - 1 + b_
    a = 1 - e * (1 - b_)
    if a <= 0:
        return None
    return "without", a, e * b_


def plug_in_delta(direction: str, p1: float, p0: float, beta: Fraction, e_eps: float) -> float:
    """The screening score: the linear bound of :func:`direction_coefficients` at the observed
    frequencies (no confidence — screening only ranks events; the fresh confirmation runs
    decide)."""
    b = float(beta)
    if direction == "add":
        return b * p1 - (e_eps - 1 + b) * p0
    return (1 - e_eps * (1 - b)) * p0 - e_eps * b * p1


def choose_targets(records: list[tuple], qi: tuple[str, ...], how_many: int = 4) -> list[int]:
    """Rows likely to be worst: highest self-information Σ_c −ln(freq of its value in column c),
    with every row holding a column's extreme (smallest/largest number) or rarest value counted
    first; ties by row index.  Returns row indices."""
    n = len(records)
    if n == 0:
        return []
    counts = [Counter(r[c] for r in records) for c in range(len(qi))]
    # per distinct value, not per row (a table of 32,561 rows has a few hundred values)
    surprise = [{v: -math.log(k / n) for v, k in cnt.items()} for cnt in counts]
    info = [sum(surprise[c][r[c]] for c in range(len(qi))) for r in records]
    special: set[int] = set()
    for c in range(len(qi)):
        vals = [r[c] for r in records]
        if all(_is_number(v) for v in counts[c]):
            as_float = {v: float(v) for v in counts[c]}
            lo = min(as_float, key=lambda v: as_float[v])
            hi = max(as_float, key=lambda v: as_float[v])
            special.add(vals.index(lo))  # first row holding the smallest value
            special.add(vals.index(hi))  # first row holding the largest value
        rarest = min(counts[c].items(), key=lambda kv: (kv[1], repr(kv[0])))[0]
        special.add(vals.index(rarest))
    order = sorted(range(n), key=lambda i: (i not in special, -info[i], i))
    chosen: list[int] = []
    seen: set[tuple] = set()
    for i in order:
        if records[i] not in seen:
            chosen.append(i)
            seen.add(records[i])
        if len(chosen) == how_many:
            break
    return chosen


def _is_number(v: object) -> bool:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return True
    try:
        float(str(v))
        return True
    except ValueError:
        return False
