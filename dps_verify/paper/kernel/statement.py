"""One formal statement per theorem, and the kernel's decision that a chain proves it.

A theorem module of ``proofs/`` declares ``STATEMENT``, a :class:`Statement`: the paper
reference and a paraphrase, its hypotheses, the definitions it is stated with, the lemmas it is
allowed to rest on, and its conclusion.  :func:`decide` (run by
:func:`~dps_verify.paper.kernel.runner.run_module` after the chaining check) turns a chain whose
claim steps are all PROVED into a PROVED theorem only when

* some PROVED claim step concludes exactly the statement's conclusion (sympy's structural
  equality after the statement's definitions are unfolded), or every conjunct of it is the
  conclusion of a PROVED claim step (conjunction introduction);
* every given fact those steps rest on, followed through the chain graph, is one of the
  statement's hypotheses, definitions or lemmas (so a narrowed or extra hypothesis, a fact the
  statement does not list, is visible);
* the statement's fingerprint (a hash of its text) is the reviewed one recorded in
  :mod:`.reviewed` (changing a statement is a visible, reviewed act).

Anything else makes the theorem an ERROR whose message names the step.  The facts and steps the
final conclusion depends on form its *trust base* (:func:`trust_base`), the analogue of Lean's
``#print axioms``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from dps_verify.paper.kernel.core import Fact, Step, Verdict, _conjuncts, _printed


def _domain(sym: Any) -> str:
    """The declared domain of a symbol (or of an applied function's values)."""
    if isinstance(sym, sp.Symbol):
        a = sym.assumptions0
    else:
        a = {f: getattr(sym(sp.Dummy()), f"is_{f}") for f in
             ("integer", "positive", "nonnegative", "real")}
    kind = ("integer" if a.get("integer") else "real" if a.get("real") else
            "real (opaque function)" if not isinstance(sym, sp.Symbol) else "complex")
    if a.get("positive"):
        return f"{kind} > 0"
    if a.get("nonnegative"):
        return f"{kind} >= 0"
    return kind


@dataclass(frozen=True)
class Statement:
    """A theorem's formal statement: under ``hypotheses`` (and with ``definitions`` unfolded,
    ``lemmas`` cited), ``conclusion`` holds.  ``reference`` is the paper's numbering and
    section; ``paraphrase`` says it in words (never the paper's text); ``reading`` names the
    reading encoded when the printed statement needs one (a corrected typo, an appendix)."""

    reference: str
    paraphrase: str
    hypotheses: tuple[Any, ...]
    conclusion: Any
    definitions: tuple[Any, ...] = ()
    lemmas: tuple[Any, ...] = ()
    reading: str = ""

    def __post_init__(self) -> None:
        for name in ("hypotheses", "definitions", "lemmas"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def variables(self) -> list[tuple[str, str]]:
        """Every symbol and applied function of the statement, with its declared domain."""
        formulas = [*self.hypotheses, *self.definitions, *self.lemmas, self.conclusion]
        syms: set[Any] = set()
        funcs: set[Any] = set()
        for f in formulas:
            f = sp.sympify(f)
            syms |= {s for s in f.free_symbols if isinstance(s, sp.Symbol)}
            funcs |= {e.func for e in f.atoms(AppliedUndef)}
        out = sorted((s.name, _domain(s)) for s in syms)
        out += sorted((f"{fn}(...)", _domain(fn)) for fn in funcs)
        return out

    def text(self) -> str:
        """The canonical text the fingerprint hashes (one item per line)."""
        lines = [f"reference: {self.reference}", f"paraphrase: {self.paraphrase}"]
        if self.reading:
            lines.append(f"reading: {self.reading}")
        lines.append("variables: " + ", ".join(f"{n} in {d}" for n, d in self.variables()))
        lines += [f"hypothesis: {_printed(h)}" for h in self.hypotheses]
        lines += [f"definition: {_printed(h)}" for h in self.definitions]
        lines += [f"lemma: {_printed(h)}" for h in self.lemmas]
        lines.append(f"conclusion: {_printed(self.conclusion)}")
        return "\n".join(lines)

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 of :meth:`text`, first 16 hex digits (computed once per statement: its
        fields are immutable)."""
        return hashlib.sha256(self.text().encode("utf-8")).hexdigest()[:16]

    def unfold(self, formula: Any) -> Any:
        """``formula`` with the statement's definitions of functions ``F(v1, ..., vn) =
        closed`` (distinct symbols, non-recursive) and of symbols ``x = expr`` substituted
        (remembered per statement and formula: :func:`decide` unfolds each step's conclusion
        and its conjuncts several times)."""
        out = sp.sympify(formula)
        memo = self._unfolded
        hit = memo.get(out)
        if hit is None:
            hit = memo[out] = self._unfold(out)
        return hit

    @cached_property
    def _unfolded(self) -> dict[Any, Any]:
        return {}

    def _unfold(self, out: Any) -> Any:
        for _ in range(8):
            before = out
            for d in self.definitions:
                if not isinstance(d, sp.Eq):
                    continue
                head = d.lhs
                if isinstance(head, sp.Symbol) and not d.rhs.has(head):
                    out = out.xreplace({head: d.rhs})
                elif (isinstance(head, AppliedUndef)
                      and all(isinstance(v, sp.Symbol) for v in head.args)
                      and len(set(head.args)) == len(head.args)
                      and not d.rhs.has(head.func)):
                    out = out.replace(head.func, sp.Lambda(head.args, d.rhs))
            if out == before:
                break
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "paraphrase": self.paraphrase,
            "reading": self.reading,
            "variables": [{"name": n, "domain": d} for n, d in self.variables()],
            "hypotheses": [_printed(h) for h in self.hypotheses],
            "definitions": [_printed(h) for h in self.definitions],
            "lemmas": [_printed(h) for h in self.lemmas],
            "conclusion": _printed(self.conclusion),
            "fingerprint": self.fingerprint,
        }


def formulas_of(facts: Iterable[Fact], *kinds: str) -> tuple[Any, ...]:
    """The formulas of the given facts of the listed kinds (for a statement whose hypotheses or
    definitions are exactly a module's given facts of those kinds)."""
    return tuple(f.formula for f in facts if f.kind in kinds)


@dataclass
class Decision:
    """What :func:`decide` found: the steps concluding the statement, the problems (empty: the
    chain proves the statement) and the trust base."""

    final: list[Step] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    reviewed: bool = False
    #: for a REFUTED theorem: the kernel's check of its witness against the statement
    refutation: Any = None
    #: the givens checked on the theorem's concrete models (see :mod:`.consistency`)
    consistency: Any = None

    def trust(self) -> dict[str, Any]:
        return trust_base(self)


def _closure(final: Sequence[Step]) -> tuple[list[Step], list[Fact]]:
    """Every step and given fact the ``final`` steps depend on, through the chain graph (the
    sources :func:`~dps_verify.paper.kernel.core.check_chain` recorded, and an induction's base
    and inductive step)."""
    seen_s: list[Step] = []
    seen_f: list[Fact] = []
    stack = list(final)
    while stack:
        s = stack.pop()
        if any(s is t for t in seen_s):
            continue
        seen_s.append(s)
        for src in s.sources:  # duck-typed: a Fact has a formula, a Step a verdict
            if hasattr(src, "formula"):
                if not any(src is g for g in seen_f):
                    seen_f.append(src)
            elif hasattr(src, "verdict"):
                stack.append(src)
        stack.extend(s.uses_steps)
    return seen_s, seen_f


def _matches(statement: Statement, step: Step, target: Any) -> bool:
    return step.concludes is not None and statement.unfold(step.concludes) == target


def decide(statement: Statement | None, steps: Sequence[Step], reviewed: str | None,
           *, prove: bool = True) -> Decision:
    """Whether the checked chain ``steps`` proves ``statement`` from exactly its hypotheses,
    definitions and lemmas (see the module docstring); ``reviewed`` is the fingerprint recorded
    for it (``None``: never reviewed).  With ``prove=False`` (a theorem whose chain is not all
    PROVED: refuted, open) only the declaration and the fingerprint are checked."""
    dec = Decision()
    if statement is None:
        dec.problems.append("the theorem declares no STATEMENT: nothing to prove")
        return dec
    dec.reviewed = reviewed == statement.fingerprint
    if not dec.reviewed:
        dec.problems.append(
            f"statement fingerprint {statement.fingerprint} is not the reviewed one "
            f"({reviewed or 'none recorded'}): the statement changed since it was checked "
            "against the paper")
    if not prove:
        return dec
    claims = [(i, s) for i, s in enumerate(steps, 1) if s.role == "claim"]
    target = statement.unfold(statement.conclusion)
    # the last PROVED claim step concluding the whole conclusion, else the last one concluding
    # it at all: searched from the end, so the steps before the last PROVED match are not
    # unfolded (the final step of a chain is usually its last)
    last_whole: tuple[int, Step] | None = None
    proved: Step | None = None
    for i, s in reversed(claims):
        if _matches(statement, s, target):
            last_whole = last_whole or (i, s)
            if s.verdict is Verdict.PROVED:
                proved = s
                break
    if proved is not None:
        dec.final = [proved]
    elif last_whole is not None:
        i, s = last_whole
        dec.problems.append(f"step {i} ({s.name}) concludes the statement's conclusion but is "
                            f"{s.verdict.value}")
    else:
        parts = _conjuncts(target)
        found: list[Step] = []
        missing: list[Any] = []
        for part in parts:
            hit = [s for _, s in claims if s.verdict is Verdict.PROVED and s.concludes is not None
                   and any(statement.unfold(c) == part for c in _conjuncts(s.concludes))]
            if hit:
                found.append(hit[-1])
            else:
                missing.append(part)
        if len(parts) > 1 and not missing:
            dec.final = list({id(s): s for s in found}.values())
        else:
            last = next(((i, s) for i, s in reversed(claims) if s.concludes is not None),
                        None)
            where = (f"the last chained step, step {last[0]} ({last[1].name}), concludes "
                     f"{sp.sstr(last[1].concludes)}") if last else "no claim step concludes anything"
            miss = "; ".join(sp.sstr(m) for m in missing) if len(parts) > 1 else sp.sstr(target)
            dec.problems.append(f"no PROVED step concludes the statement's conclusion "
                                f"({miss}); {where}")
    if dec.final:
        dec.steps, dec.facts = _closure(dec.final)
        allowed = {*statement.hypotheses, *statement.definitions, *statement.lemmas}
        index = {id(s): i for i, s in enumerate(steps, 1)}
        for s in dec.steps:
            for src in s.sources:
                if hasattr(src, "formula") and src.formula not in allowed:
                    dec.problems.append(
                        f"step {index.get(id(s), '?')} ({s.name}) rests on the given "
                        f"{sp.sstr(src.formula)} [{src.kind}: {src.short}], which is not a "
                        "hypothesis, definition or lemma of the statement")
        for f in dec.facts:
            if f.kind == "lemma":
                dec.problems += lemma_problems(f)
        for s in dec.steps:
            if s.verdict is not Verdict.PROVED:
                dec.problems.append(f"step {index.get(id(s), '?')} ({s.name}) in the chain is "
                                    f"{s.verdict.value}")
    return dec


_SPOT_CACHE: dict[int, tuple[Any, tuple[bool, str]]] = {}


def spot_result(fact: Fact) -> tuple[bool, str]:
    """The lemma's spot check on its own formula (once per fact object and process)."""
    hit = _SPOT_CACHE.get(id(fact))
    if hit is not None and hit[0] is fact:
        return hit[1]
    if fact.spot is None:
        res = (False, "no spot check")
    else:
        try:
            ok, note = fact.spot(fact.formula)
            res = (bool(ok), str(note))
        except Exception as exc:  # noqa: BLE001 - a crashing check is a failed check
            res = (False, f"spot check raised {type(exc).__name__}: {exc}")
    _SPOT_CACHE[id(fact)] = (fact, res)
    return res


def lemma_problems(fact: Fact) -> list[str]:
    """Why the theorem may not rest on this trusted lemma (empty: it may): a lemma cites its
    source and passes its spot check (see :mod:`.lemmas`)."""
    out = []
    name = fact.label or fact.short
    if not fact.source:
        out.append(f"lemma '{name}' ({sp.sstr(fact.formula)}) cites no source")
    ok, note = spot_result(fact)
    if not ok:
        out.append(f"lemma '{name}' ({sp.sstr(fact.formula)}) fails its spot check: {note}")
    return out


def trust_base(dec: Decision) -> dict[str, Any]:
    """The facts the final conclusion depends on, grouped by kind, and how its steps were
    checked (z3 + cvc5, sympy certificate, induction rule, exact computation)."""
    kinds: dict[str, list[dict[str, str]]] = {}
    for f in dec.facts:
        entry = {"formula": sp.sstr(f.formula), "why": f.why}
        if f.label:
            entry["label"] = f.label
        if f.kind == "lemma":
            entry["source"] = f.source or "NONE"
            entry["spot check"] = ("passed: " if spot_result(f)[0] else "FAILED: ") + \
                spot_result(f)[1]
        kinds.setdefault(f.kind, []).append(entry)
    methods: dict[str, int] = {}
    for s in dec.steps:
        key = ("z3 + cvc5" if s.solvers is not None else
               "sympy certificate" if s.method == "sympy" else s.method or "unspecified")
        methods[key] = methods.get(key, 0) + 1
    cons = dec.consistency
    return {"steps": len(dec.steps), "methods": methods, "facts": kinds,
            "consistency": cons.line if cons is not None else "not checked",
            "trusted": sorted({f"{f.kind}: {f.short}" for f in dec.facts if f.trusted})}


def summary(dec: Decision) -> str:
    """One line: the trust base's size by kind (for the README table)."""
    counts: dict[str, int] = {}
    for f in dec.facts:
        counts[f.kind] = counts.get(f.kind, 0) + 1
    parts = [f"{n} {k}" for k, n in sorted(counts.items())]
    return (f"{len(dec.steps)} steps; " + ", ".join(parts)) if dec.final else "-"


# ------------------------------------------------------------------------- refutations


@dataclass(frozen=True)
class Evidence:
    """One value of a witness: exact (an int, a Fraction or a sympy number), ``how`` the
    project's certified code computed it, and whether it is established over everything the
    statement quantifies over (a worst case over all datasets: proved, or exhaustive up to a
    stated size plus an argument); ``complete=False`` makes the refutation an ERROR."""

    value: Any
    how: str
    complete: bool = True


@dataclass(frozen=True)
class Counterexample:
    """A counterexample to a :class:`Statement`: ``values()`` gives an :class:`Evidence` for
    every variable of the statement's hypotheses, definitions and conclusion (computed when the
    kernel asks, each constant read from the one place the witness sets it), and ``interpret``
    the certified implementations of the statement's opaque functions (by name).  The kernel
    (:func:`refute`) checks each hypothesis and definition at these values and the conclusion's
    failure there."""

    description: str
    values: Any  # Callable[[], Mapping[sp.Symbol, Evidence]]
    interpret: Any = None  # Mapping[str, Callable[..., Any]] | None


@dataclass
class Refutation:
    """The kernel's decision on a witness: REFUTED only when every hypothesis and definition
    holds at it and the conclusion fails there; anything else is an ERROR (``problems``)."""

    verdict: Any
    problems: list[str] = field(default_factory=list)
    checks: list[dict[str, str]] = field(default_factory=list)
    values: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict.value, "problems": list(self.problems),
                "checks": list(self.checks), "values": dict(self.values)}


def _shown(truth: bool | None) -> str:
    return "undecided" if truth is None else ("true" if truth else "FALSE")


def refute(statement: Statement, witness: Counterexample) -> Refutation:
    """Whether ``witness`` refutes ``statement``: every variable has a value established over
    all it quantifies over, every hypothesis and definition is true at the values (opaque
    functions evaluated by the witness's certified implementations), and the conclusion is
    false there.  Exact decisions only (sympy on exact numbers); an undecided formula is an
    ERROR, never a refutation."""
    from dps_verify.paper.kernel.lemmas import _truth, evaluate

    out = Refutation(Verdict.ERROR)
    try:
        values = dict(witness.values())
    except Exception as exc:  # noqa: BLE001 - a crashing witness refutes nothing
        out.problems.append(f"the witness's values raised {type(exc).__name__}: {exc}")
        return out
    interp = dict(witness.interpret or {})
    point = {}
    for sym, ev in values.items():
        v = ev.value
        point[sym] = sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) \
            else sp.sympify(v)
        out.values[str(sym)] = f"{sp.sstr(point[sym])} ({ev.how})"
        if not ev.complete:
            out.problems.append(f"the value of {sym} ({ev.how}) is not established over all it "
                                "quantifies over")
    formulas = [("hypothesis", h) for h in statement.hypotheses] + \
        [("definition", h) for h in statement.definitions]
    needed = set().union(*[sp.sympify(f).free_symbols for _, f in formulas],
                         sp.sympify(statement.conclusion).free_symbols)
    missing = sorted(str(s) for s in needed if s not in point)
    if missing:
        out.problems.append("the witness gives no value for " + ", ".join(missing))
        return out

    def decide_at(f: Any) -> bool | None:
        try:
            return _truth(evaluate(f, point, interp))
        except Exception:  # noqa: BLE001 - an implementation that raises decides nothing
            return None

    for kind, f in formulas:
        truth = decide_at(f)
        out.checks.append({"kind": kind, "formula": sp.sstr(f),
                           "at the witness": _shown(truth)})
        if truth is not True:
            out.problems.append(f"the witness {'misses' if truth is False else 'cannot decide'} "
                                f"the {kind} {sp.sstr(f)}")
    truth = decide_at(statement.conclusion)
    out.checks.append({"kind": "conclusion", "formula": sp.sstr(statement.conclusion),
                       "at the witness": _shown(truth)})
    if truth is True:
        out.problems.append("the conclusion holds at the witness: it refutes nothing")
    elif truth is None:
        out.problems.append("the conclusion is undecided at the witness")
    if not out.problems:
        out.verdict = Verdict.REFUTED
    return out
