"""Shared machinery for the symbolic proofs: steps, certificates and the chain check.

Every theorem module builds a list of :class:`Step` objects; :func:`aggregate` turns the
verdicts of its *claim* steps into a whole-theorem verdict.  Back ends:

* SMT (:func:`prove_sym`, :func:`z3_step`, :func:`z3_all`, :func:`exists_sym`) -- each
  obligation goes through :mod:`.smt`: the hypotheses must be satisfiable (else the step is an
  ERROR: vacuous), z3 *and* cvc5 must both answer ``unsat`` for PROVED, a re-checked model gives
  REFUTED, a contradiction between the solvers is an ERROR, anything else is OPEN.  A step over
  finitely many instances (``bounded=...``) is at best CHECKED-BOUNDED, never PROVED.
* sympy (:func:`sympy_step`) -- an identity ``lhs = rhs`` is PROVED only when ``lhs - rhs``
  reduces to 0 by rewrites that are valid under the symbols' declared assumptions (no
  ``force=True``); the certificate names the rewrite.  Anything else is REFUTED at an exactly
  re-checked point or OPEN.

Chaining (:func:`check_chain`, run by :func:`~dps_verify.paper.kernel.runner.run_module` on every theorem): a claim step may
assume only the theorem's ``GIVEN`` facts and conclusions of earlier PROVED steps (or instances
of those stated for every value of an index variable); :func:`induction` turns a base case and
an inductive step into a conclusion for every value.  Anything unlinked is an ERROR.

Because z3 has no exponential, e^eps is always written as a real ``E >= 1``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product
from typing import Any

import sympy as sp
import z3
from sympy.core.function import AppliedUndef
from sympy.logic.boolalg import BooleanAtom

from dps_verify.core.types import ProofVerdict
from dps_verify.paper.kernel import smt
from dps_verify.paper.kernel.smt import HANG_GUARD_MS, Z3_RLIMIT, Query

#: Outcome of one step or of a whole theorem (PROVED, CHECKED-BOUNDED, REFUTED, OPEN, and ERROR
#: for a vacuous step or a solver disagreement): the proof vocabulary of
#: :mod:`dps_verify.core.types`.
Verdict = ProofVerdict


#: Kinds of given facts a reader needs to accept only as the theorem's statement and its
#: encoding.  ``hypothesis``: stated by the theorem; ``definition``: defines the encoding's
#: symbols; ``setting``: the model's ranges (parameters, probabilities in [0, 1]).  Every
#: other kind is *trusted* and listed as such in the README's proof table: ``lemma`` (a fact
#: proved elsewhere or cited, taken on trust here) and ``prose-link`` (results of earlier
#: steps linked only in words).
PLAIN_KINDS = ("hypothesis", "definition", "setting")


@dataclass(frozen=True)
class Fact:
    """A formula a theorem takes as given (its ``kind``: see :data:`PLAIN_KINDS`).  ``over`` lists
    index variables the fact holds for every value of (their sympy assumptions give the
    range), so a step may use an instance; ``label`` is a short name (for trusted kinds)."""

    formula: Any
    why: str
    kind: str = "hypothesis"
    over: tuple[sp.Symbol, ...] = ()
    label: str = ""
    #: for a lemma: where it is proved or cited (its exact form and guard) ...
    source: str = ""
    #: ... and its spot check, ``spot(formula) -> (ok, note)`` (see
    #: :mod:`dps_verify.paper.kernel.lemmas`), run before a theorem may rest on it.
    spot: Any = field(default=None, compare=False, hash=False, repr=False)

    @property
    def trusted(self) -> bool:
        """Taken on trust beyond the statement and the encoding (see :data:`PLAIN_KINDS`)."""
        return self.kind not in PLAIN_KINDS

    @property
    def short(self) -> str:
        """The label, or the justification's first clause."""
        text = self.label or self.why.split(":")[0].split(";")[0]
        return text if len(text) <= 60 else text[:57].rstrip() + "..."

    def to_dict(self) -> dict[str, str]:
        out = {"formula": _printed(self.formula), "kind": self.kind, "why": self.why}
        if self.label:
            out["label"] = self.label
        if self.source:
            out["source"] = self.source
        return out


def equation(lhs: Any, rhs: Any) -> Any:
    """The equation ``lhs = rhs`` as written, for a theorem module's definitions: sympy is
    not asked to decide it.  Its attempt never decides an equation between values of opaque
    functions (``F(K; m) = F(K - 1; m) + f(K; m)``) and cost ~1 s of CPU per run of CP Thm 5,
    so there the formula is the one sympy's evaluating ``Eq`` returns; an equation sympy could
    decide (``x = 0`` at x = 0) keeps ``sp.Eq``."""
    return sp.Eq(lhs, rhs, evaluate=False)


def given(kind: str, why: str, *formulas: Any, over: tuple[sp.Symbol, ...] = (),
          label: str = "", source: str = "", spot: Any = None) -> list[Fact]:
    """Several :class:`Fact` s with one justification (a lemma: with its ``source`` and
    ``spot`` check)."""
    return [Fact(f, why, kind, over, label, source, spot) for f in formulas]


@dataclass
class Step:
    """One machine-checked step of a proof (or one negative control)."""

    name: str
    statement: str
    expr: Any = None  # sympy expression/relational for pretty/latex printing
    method: str = ""
    verdict: Verdict = Verdict.OPEN
    expected: Verdict = Verdict.PROVED
    seconds: float = 0.0
    counterexample: dict[str, str] | None = None
    note: str = ""
    #: "claim" steps decide the theorem verdict; "remark" steps report findings about the
    #: printed text/proof (typos, broken intermediate steps) without deciding it.
    role: str = "claim"
    #: per-solver answers on the negated claim(s), e.g. {"z3": "unsat", "cvc5": "unsat"}.
    solvers: dict[str, str] | None = None
    #: answers on the hypotheses alone (the vacuity check), e.g. {"z3": "sat"}.
    vacuity: dict[str, str] | None = None
    #: how a solver-free PROVED verdict can be re-checked by a reader.
    certificate: str | None = None
    #: the finite range a CHECKED-BOUNDED step covers ("" when general).
    bound: str = ""
    queries: list[Query] = field(default_factory=list, repr=False)
    #: chaining (see :func:`check_chain`): the formulas the step takes as established facts,
    #: its conclusion (``Implies(premises, claim)`` when it has premises), the induction
    #: hypotheses it leaves to an :func:`induction` step, and the index variables over which
    #: its conclusion holds for every value (so a later step may instantiate them).
    assumes: tuple[Any, ...] | None = None
    concludes: Any = None
    local: tuple[Any, ...] = ()
    over: tuple[sp.Symbol, ...] = ()
    #: where each assumed formula comes from ("given: ..." or "step N: ..."), set by the check.
    links: list[dict[str, str]] | None = None
    #: names of the steps whose induction hypotheses (``local``) this induction step discharges.
    discharges: tuple[str, ...] = ()
    #: the very Step objects of its base and inductive step (compared by identity, never by
    #: name, in :func:`check_chain`: both must be earlier PROVED steps of the same list).
    uses_steps: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    #: (conclusion, assumptions, index variables) as the constructor's check certified them;
    #: :func:`check_chain` refuses a step whose fields were changed afterwards (by hand or by
    #: ``dataclasses.replace``): a certificate covers only what it checked.
    sealed: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)
    #: assumptions that must be conclusions of earlier PROVED steps (never given facts).
    derived: tuple[Any, ...] = ()
    #: the chain graph: the given :class:`Fact` s and earlier :class:`Step` s its assumptions
    #: were linked to, set by :func:`check_chain` (the trust base follows these edges).
    sources: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.verdict == self.expected

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "statement": self.statement,
            "expr": None if self.expr is None else _printed(self.expr),
            "latex": None if self.expr is None else _printed(self.expr, latex=True),
            "method": self.method,
            "verdict": self.verdict.value,
            "expected": self.expected.value,
            "ok": self.ok,
            "seconds": round(self.seconds, 4),
            "counterexample": self.counterexample,
            "note": self.note,
            "role": self.role,
        }
        if self.solvers is not None:
            out["solvers"] = self.solvers
            out["vacuity"] = self.vacuity
        if self.certificate is not None:
            out["certificate"] = self.certificate
        if self.bound:
            out["bound"] = self.bound
        if self.concludes is not None:
            out["concludes"] = _printed(self.concludes)
        if self.links is not None:
            out["assumes"] = self.links
        return out


@dataclass
class ProofResult:
    """Result of running one theorem module."""

    theorem_id: str
    claim: str
    reference: str
    expected: Verdict
    verdict: Verdict
    steps: list[Step] = field(default_factory=list)
    negative_controls: list[Step] = field(default_factory=list)
    seconds: float = 0.0
    summary: str = ""
    given: list[Fact] = field(default_factory=list)
    #: the theorem's formal statement and the kernel's decision about it (see
    #: :mod:`dps_verify.paper.kernel.statement`).
    statement: Any = None
    decision: Any = None

    @property
    def ok(self) -> bool:
        """True iff the theorem verdict and every step/control verdict is as recorded."""
        return (
            self.verdict == self.expected
            and all(s.ok for s in self.steps)
            and all(c.ok for c in self.negative_controls)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.theorem_id,
            "claim": self.claim,
            "reference": self.reference,
            "expected": self.expected.value,
            "verdict": self.verdict.value,
            "ok": self.ok,
            "seconds": round(self.seconds, 4),
            "summary": self.summary,
            "given": [g.to_dict() for g in self.given],
            **self._statement_dict(),
            "steps": [s.to_dict() for s in self.steps],
            "negative_controls": [c.to_dict() for c in self.negative_controls],
        }

    def _statement_dict(self) -> dict[str, Any]:
        if self.statement is None and self.decision is None:
            return {}
        out: dict[str, Any] = {"statement": None if self.statement is None
                               else self.statement.to_dict()}
        if self.decision is not None:
            out["statement"] = out["statement"] and {**out["statement"],
                                                     "reviewed": self.decision.reviewed}
            out["statement_problems"] = list(self.decision.problems)
            if getattr(self.decision, "refutation", None) is not None:
                out["refutation"] = self.decision.refutation.to_dict()
            if getattr(self.decision, "consistency", None) is not None:
                out["consistency"] = self.decision.consistency.to_dict()
            out["trust_base"] = self.decision.trust() if self.decision.final else None
        return out


def _seal(step: Step) -> Step:
    """Record what the step's check certified (see :attr:`Step.sealed`)."""
    step.sealed = (step.concludes, tuple(step.assumes or ()), tuple(step.over))
    return step


def _seal_broken(s: Step) -> bool:
    """The step's conclusion, index variables or assumptions differ from the sealed ones."""
    if s.sealed is None:
        return True
    concl, assumes, over = s.sealed
    return (s.concludes is not concl or tuple(s.over) != over
            or not all(a in (s.assumes or ()) for a in assumes))


def aggregate(steps: Iterable[Step]) -> Verdict:
    """Whole-theorem verdict from the *claim* steps: an ERROR (vacuous step, solver
    disagreement) wins, then REFUTED, OPEN, CHECKED-BOUNDED; PROVED only if every claim step
    is PROVED."""
    verdicts = [s.verdict for s in steps if s.role == "claim"]
    for v in (Verdict.ERROR, Verdict.REFUTED, Verdict.OPEN, Verdict.BOUNDED):
        if v in verdicts:
            return v
    return Verdict.PROVED if verdicts else Verdict.OPEN


# ----------------------------------------------------------------------------- SMT


def _summarise(answers: list[str]) -> str:
    kinds = sorted(set(answers))
    if len(kinds) == 1:
        return kinds[0]
    return ", ".join(f"{k} x{answers.count(k)}" for k in kinds)


def smt_step(
    name: str,
    statement: str,
    queries: Sequence[Query],
    *,
    expr: Any = None,
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
    bound: str = "",
    cvc5_rlimit: int = smt.CVC5_RLIMIT,
    z3_rlimit: int = Z3_RLIMIT,
) -> Step:
    """Discharge every query (vacuity, z3, cvc5) and turn the answers into one verdict.

    PROVED needs every query proved by both solvers on a satisfiable hypothesis set (with
    ``bound`` set, the best verdict is CHECKED-BOUNDED and z3 alone suffices: cvc5 gets the
    same query but may answer unknown); a vacuous hypothesis set or a solver disagreement is an
    ERROR; a re-checked z3 model is REFUTED; anything else is OPEN."""
    if bound:
        cvc5_rlimit = min(cvc5_rlimit, smt.CVC5_BOUNDED_RLIMIT)
    qs = [smt.discharge(q, cvc5_rlimit=cvc5_rlimit, z3_rlimit=z3_rlimit) for q in queries]
    secs = sum(q.seconds for q in qs)
    kinds = [smt.verdict_of(q) for q in qs]
    model = None
    if "vacuous" in kinds:
        verdict = Verdict.ERROR
        note = f"vacuous: the hypotheses of obligation {kinds.index('vacuous') + 1} are unsatisfiable"
    elif "disagree" in kinds:
        i = kinds.index("disagree")
        verdict = Verdict.ERROR
        note = f"{smt.DISAGREE} on obligation {i + 1}: {qs[i].answers}"
    elif "refuted" in kinds:
        i = kinds.index("refuted")
        verdict, model = Verdict.REFUTED, qs[i].model
        if qs[i].kind == "exists":
            model = {"both solvers": "unsat (no such point)"}
    elif all(k == "proved" for k in kinds):
        verdict = Verdict.BOUNDED if bound else Verdict.PROVED
    elif bound and all(q.vacuity.get("z3") == smt.SAT and q.answers.get("z3") == smt.UNSAT
                       for q in qs):
        verdict = Verdict.BOUNDED
    else:
        verdict = Verdict.OPEN
        note = note or ("no verdict: " + "; ".join(
            f"obligation {i + 1}: {q.answers or q.vacuity}" for i, q in enumerate(qs)
            if kinds[i] != "proved"))
    if verdict is Verdict.BOUNDED:
        note = (note + "; " if note else "") + f"checked only for {bound} (z3 unsat)"
    if len(qs) > 1 and not note:
        note = f"{len(qs)} obligations"
    if verdict is Verdict.PROVED and any(q.kind == "exists" for q in qs):
        model = None
    solvers = {s: _summarise([q.answers.get(s, "not run") for q in qs]) for s in ("z3", "cvc5")}
    vacuity = {"z3": _summarise([q.vacuity.get("z3", "not run") for q in qs])}
    method = "z3 + cvc5" if not bound else "z3 (finite instances)"
    if any(q.kind == "exists" for q in qs):
        method += ", witness"
        if verdict is Verdict.PROVED:
            wit = next((q.model for q in qs if q.model), None)
            note = (note + "; " if note else "") + f"witness (re-checked by evaluation): {wit}"
    return Step(name, statement, expr, method, verdict, expected, secs, model, note, role,
                solvers=solvers, vacuity=vacuity, bound=bound, queries=list(qs))


def z3_prove(
    claim: z3.BoolRef,
    assumptions: Sequence[z3.BoolRef] = (),
    timeout_ms: int = HANG_GUARD_MS,
    rlimit: int = Z3_RLIMIT,
) -> tuple[Verdict, dict[str, str] | None, float]:
    """z3 alone on ``And(assumptions) => claim`` (a screen; steps use :func:`smt_step`):
    PROVED on unsat, REFUTED with a re-checked model, OPEN on unknown (a limit reached)."""
    t0 = time.perf_counter()
    ans, model = smt.z3_check([*assumptions, z3.Not(claim)], rlimit, timeout_ms)
    secs = time.perf_counter() - t0
    if ans == smt.UNSAT:
        return Verdict.PROVED, None, secs
    if ans == smt.SAT:
        return Verdict.REFUTED, model, secs
    return Verdict.OPEN, None, secs


#: Translations of sympy terms into z3 made so far in this process (:func:`to_z3`), each with
#: the z3 constants of its names (:func:`_z3_names`); used for a term whose names the caller's
#: ``env`` maps to those same constants or not at all, which is when a translation afresh would
#: give the same z3 term.  Cleared at :data:`_Z3_OF_LIMIT` entries.
_Z3_OF: dict[Any, tuple[Any, tuple[tuple[str, Any], ...]]] = {}
_Z3_OF_LIMIT = 50_000


def _z3_names(e: Any) -> tuple[tuple[str, Any], ...]:
    """The ``env`` keys :func:`to_z3` gives the names of ``e`` (symbols by name, applied
    functions by their text) with the constants a translation in an empty ``env`` makes for
    them, in the order it first meets them."""
    out: dict[str, Any] = {}
    todo = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, AppliedUndef):
            key = _sstr(x)
            if key not in out:
                out[key] = z3.Real(key)
        elif isinstance(x, sp.Symbol):
            if x.name not in out:
                out[x.name] = z3.Int(x.name) if x.is_integer else z3.Real(x.name)
        elif isinstance(x, sp.Basic):
            todo.extend(reversed(x.args))
    return tuple(out.items())


def to_z3(expr: Any, env: dict[str, z3.ExprRef] | None = None) -> Any:
    """Translate a polynomial/rational sympy expression or relation into z3.

    Symbols become z3 ``Real`` constants (``Int`` when declared ``integer=True``); powers must
    have integer exponents (negative ones become divisions) -- there is no exp/log in z3.
    """
    env = {} if env is None else env

    def tr(e: Any) -> Any:
        if isinstance(e, bool) or e is sp.true or e is sp.false:
            return z3.BoolVal(bool(e))
        if not isinstance(e, sp.Basic):
            return tr_node(e)
        hit = _Z3_OF.get(e)
        if hit is not None and all(n not in env or env[n].eq(z) for n, z in hit[1]):
            for n, z in hit[1]:
                env.setdefault(n, z)
            return hit[0]
        out = tr_node(e)
        names = _z3_names(e)
        if all(env[n].eq(z) for n, z in names):
            if len(_Z3_OF) >= _Z3_OF_LIMIT:
                _Z3_OF.clear()
            _Z3_OF[e] = (out, names)
        return out

    def tr_node(e: Any) -> Any:
        if isinstance(e, AppliedUndef):  # F(k - 1, n): an opaque real named by its text
            key = _sstr(e)
            if key not in env:
                env[key] = z3.Real(key)
            return env[key]
        if isinstance(e, sp.Symbol):
            if e.name not in env:
                env[e.name] = z3.Int(e.name) if e.is_integer else z3.Real(e.name)
            return env[e.name]
        if isinstance(e, sp.Integer):
            return z3.RealVal(int(e))
        if isinstance(e, sp.Rational):
            return z3.RealVal(f"{e.p}/{e.q}")
        if isinstance(e, sp.Add):
            return z3.Sum([tr(a) for a in e.args])
        if isinstance(e, sp.Mul):
            return z3.Product([tr(a) for a in e.args])
        if isinstance(e, sp.Pow):
            base, ex = e.args
            if not (isinstance(ex, sp.Integer)):
                raise ValueError(f"z3 translation needs integer exponents, got {e}")
            b = tr(base)
            n = int(ex)
            out = z3.RealVal(1)
            for _ in range(abs(n)):
                out = out * b
            return out if n >= 0 else z3.RealVal(1) / out
        rel = {sp.Le: lambda a, b: a <= b, sp.Lt: lambda a, b: a < b,
               sp.Ge: lambda a, b: a >= b, sp.Gt: lambda a, b: a > b,
               sp.Eq: lambda a, b: a == b, sp.Ne: lambda a, b: a != b}
        for cls, fn in rel.items():
            if isinstance(e, cls):
                return fn(tr(e.lhs), tr(e.rhs))
        if isinstance(e, (sp.Max, sp.Min)):
            args = [tr(a) for a in e.args]
            out_ = args[0]
            for x in args[1:]:
                out_ = z3.If(x > out_, x, out_) if isinstance(e, sp.Max) else z3.If(
                    x < out_, x, out_)
            return out_
        if isinstance(e, sp.And):
            return z3.And(*[tr(a) for a in e.args])
        if isinstance(e, sp.Or):
            return z3.Or(*[tr(a) for a in e.args])
        if isinstance(e, sp.Not):
            return z3.Not(tr(e.args[0]))
        if isinstance(e, sp.Implies):
            return z3.Implies(tr(e.args[0]), tr(e.args[1]))
        raise ValueError(f"cannot translate {e!r} ({type(e).__name__}) to z3")

    return tr(expr)


def prove_sym(
    name: str,
    statement: str,
    claim: Any,
    assumptions: Sequence[Any] = (),
    *,
    premises: Sequence[Any] = (),
    local: Sequence[Any] = (),
    derived: Sequence[Any] = (),
    over: Sequence[sp.Symbol] = (),
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
    env: dict[str, z3.ExprRef] | None = None,
    bound: str = "",
) -> Step:
    """SMT step stated in sympy: proves ``And(assumptions, premises) => claim`` (sympy
    relations).  The printed expression is built from the same objects, so the text cannot
    drift from the checked formula.

    For the chaining check (:func:`check_chain`) the ``assumptions`` are facts the step takes
    as established (each must be given or an earlier step's conclusion), ``premises`` are the
    antecedent of what it proves (its conclusion is ``Implies(And(premises), claim)``), and
    ``local`` (a subset of ``assumptions``) are induction hypotheses a later
    :func:`induction` step discharges; ``derived`` (a subset too) must be conclusions of
    earlier PROVED steps, never given facts.

    The solvers see exactly the translations of ``assumptions`` and ``premises`` (no other
    channel): every formula an obligation rests on is recorded, and chained, in the step."""
    env = {} if env is None else env
    hyps = [*assumptions, *premises]
    zc = to_z3(claim, env)
    za = [to_z3(a, env) for a in hyps]
    expr = sp.Implies(sp.And(*hyps), claim, evaluate=False) if hyps else claim
    step = smt_step(name, statement, [Query(za, zc)], expr=expr, expected=expected, note=note,
                    role=role, bound=bound)
    step.assumes = tuple(assumptions)
    step.concludes = sp.Implies(sp.And(*premises), claim, evaluate=False) if premises else claim
    step.local = tuple(local)
    step.derived = tuple(derived)
    step.over = tuple(over)
    return _seal(step)


def exists_sym(
    name: str,
    statement: str,
    claim: Any,
    assumptions: Sequence[Any] = (),
    *,
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
) -> Step:
    """Existence step: some point satisfies ``assumptions`` and ``claim`` (e.g. a bound is
    attained, so the conclusion cannot be weakened).  PROVED by a z3 model re-checked by
    evaluation (cvc5 must not say unsat); REFUTED when both solvers say unsat."""
    env: dict[str, z3.ExprRef] = {}
    zc = to_z3(claim, env)
    za = [to_z3(a, env) for a in assumptions]
    expr = sp.And(*assumptions, claim, evaluate=False)
    step = smt_step(name, statement, [Query(za, zc, kind="exists")], expr=expr,
                    expected=expected, note=note, role=role)
    step.assumes = ()  # a point to exhibit, not facts taken as established
    return step


def z3_all(
    name: str,
    statement: str,
    queries: Sequence[tuple[z3.BoolRef, Sequence[z3.BoolRef]]],
    *,
    expr: Any = None,
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
    bound: str = "",
    cvc5_rlimit: int = smt.CVC5_RLIMIT,
) -> Step:
    """One step made of several obligations ``(claim, hypotheses)`` (e.g. one per event O)."""
    return smt_step(name, statement, [Query(list(h), c) for c, h in queries], expr=expr,
                    expected=expected, note=note, role=role, bound=bound,
                    cvc5_rlimit=cvc5_rlimit)


def z3_step(
    name: str,
    statement: str,
    claim: z3.BoolRef,
    assumptions: Sequence[z3.BoolRef] = (),
    *,
    expr: Any = None,
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
    bound: str = "",
    cvc5_rlimit: int = smt.CVC5_RLIMIT,
) -> Step:
    """Step with one obligation stated directly in z3."""
    return smt_step(name, statement, [Query(list(assumptions), claim)], expr=expr,
                    expected=expected, note=note, role=role, bound=bound,
                    cvc5_rlimit=cvc5_rlimit)


# -------------------------------------------------------------------------- sympy

_REWRITES: tuple[tuple[str, Callable[[sp.Expr], sp.Expr]], ...] = (
    ("expand", sp.expand),
    ("cancel", sp.cancel),
    ("powsimp", lambda e: sp.expand(sp.powsimp(sp.expand(e)))),
    ("powsimp-factor", lambda e: sp.factor(sp.powsimp(e))),
    ("factor", sp.factor),
    ("combsimp", lambda e: sp.expand(sp.combsimp(e))),
    ("gammasimp", lambda e: sp.expand(sp.gammasimp(e))),
    ("simplify", sp.simplify),
)


def _assumptions_text(expr: sp.Expr) -> str:
    """The declared assumptions of the symbols and of the applied functions (``s(i)``)."""
    parts = []
    atoms = sorted(expr.free_symbols, key=lambda x: x.name) + sorted(
        {e.func for e in expr.atoms(AppliedUndef)}, key=lambda f: str(f))
    for s in atoms:
        flags = [f for f in ("positive", "nonnegative", "integer", "real")
                 if (s.assumptions0.get(f) if isinstance(s, sp.Symbol)
                     else getattr(s(sp.Dummy()), f"is_{f}") is True)]
        parts.append(f"{s}: {flags[0] if flags else 'complex'}" + (
            ", integer" if "integer" in flags and flags[0] != "integer" else ""))
    return "; ".join(parts)


def _poles(expr: Any) -> tuple[set[Any], str | None]:
    """The bases of ``expr``'s denominators not known non-zero (powers whose exponent is not
    known non-negative), and why ``expr`` is otherwise not defined on its symbols' declared
    domain (``None``: it is): factorial and binomial need a top argument known to be a
    non-negative integer (binomial's bottom one an integer), gamma an argument known positive
    (combsimp/gammasimp are valid only away from poles and negative integers)."""
    dens: set[Any] = set()
    for e in sp.preorder_traversal(expr):
        if isinstance(e, sp.Pow) and e.exp.is_nonnegative is not True \
                and e.base.is_nonzero is not True:
            dens.add(e.base)
        if isinstance(e, sp.factorial) and not (e.args[0].is_integer and
                                                e.args[0].is_nonnegative):
            return dens, f"{e}: argument not known a non-negative integer"
        if isinstance(e, sp.binomial) and not (e.args[0].is_integer and e.args[0].is_nonnegative
                                               and e.args[1].is_integer):
            return dens, f"{e}: not known C(non-negative integer, integer)"
        if isinstance(e, sp.gamma) and e.args[0].is_positive is not True:
            return dens, f"{e}: argument not known positive"
    return dens, None


def _domain_problem(lhs: Any, rhs: Any) -> tuple[str | None, str]:
    """Why the identity ``lhs = rhs`` cannot be certified by rewriting (``None``: it can), and
    the condition it is certified under: a denominator not known non-zero must be one of both
    sides (x/x = 1 is refused for a real x; a common factor (1-b)^(m-s) on both sides is
    accepted 'where 1 - b != 0', both sides being undefined at the same points)."""
    dl, wl = _poles(lhs)
    dr, wr = _poles(rhs)
    if wl or wr:
        return wl or wr, ""
    if dl != dr:
        return "denominator(s) " + ", ".join(sorted(sp.sstr(x) for x in dl ^ dr)) + \
            " not known non-zero and not common to both sides", ""
    return None, ("; where " + ", ".join(sorted(f"{sp.sstr(x)} != 0" for x in dl))) if dl else ""


def sympy_identity(lhs: sp.Expr, rhs: sp.Expr) -> tuple[Verdict, float, str | None]:
    """Show ``lhs == rhs``: PROVED if ``lhs - rhs`` reduces to 0 under one of sympy's
    assumption-respecting rewrites (expand, cancel, factor, combsimp, gammasimp, simplify --
    never ``force=True``, so sqrt(a*c) = sqrt(a)*sqrt(c) is proved only for a, c declared
    positive); returns the certificate (which rewrite, under which symbol assumptions)."""
    t0 = time.perf_counter()
    problem, where = _domain_problem(lhs, rhs)
    if problem:  # only where both sides are defined on the declared domain
        return Verdict.OPEN, time.perf_counter() - t0, None
    diff = lhs - rhs
    shown = sp.Add(lhs, rhs, evaluate=False)
    for label, rewrite in _REWRITES:
        try:
            if rewrite(diff) == 0:
                cert = f"sympy {label}(lhs - rhs) == 0 [{_assumptions_text(shown)}{where}]"
                return Verdict.PROVED, time.perf_counter() - t0, cert
        except (TypeError, ValueError, NotImplementedError):  # pragma: no cover
            continue
    return Verdict.OPEN, time.perf_counter() - t0, None


def _rename_fact(old: Any, new: sp.Symbol) -> Any:
    """The fact that licenses reading ``old`` as the positive (non-negative) symbol ``new``:
    ``old > 0`` (``>= 0``), as ``s < c`` / ``s > c`` when ``old`` is ``c -/+ s``."""
    strict = bool(new.is_positive)
    rel = (old > 0) if strict else (old >= 0)
    syms = old.free_symbols
    if not isinstance(old, sp.Symbol) and len(syms) == 1:
        (v,) = syms
        a = sp.diff(old, v)
        c = sp.expand(old - a * v)
        if a == -1 and not c.has(v):
            return sp.Lt(v, c) if strict else sp.Le(v, c)
        if a == 1 and not c.has(v):
            return sp.Gt(v, -c) if strict else sp.Ge(v, -c)
    return rel


def _tied_sides(concludes: Any, definitions: Sequence[Any], rename: Sequence[tuple[Any, Any]],
                divide_by: Any, change: tuple[sp.Symbol, Any] | None
                ) -> tuple[Any, Any, list[Any], str | None]:
    """The identity a certificate must show so that ``concludes`` follows:
    ``concludes`` (an equation, or ``Implies(x > a, equation)`` with ``change = (x, a + 1 +
    r)``, r a fresh non-negative integer) with each applied function replaced by its
    definition (an equation ``F(v1, ..., vn) = closed``; each instance used is recorded as an
    assumption for the chaining check), each ``old`` of ``rename`` replaced by a positive
    (non-negative) symbol (the fact ``old > 0`` recorded as an assumption), and both sides
    divided by ``divide_by`` (known non-zero) and power-combined.  Returns ``(lhs, rhs,
    assumptions, problem)``."""
    assumes: list[Any] = []
    body = concludes
    if change is not None:
        x, val = change
        if not (isinstance(concludes, sp.Implies) and isinstance(concludes.args[0],
                                                                 (sp.Gt, sp.Ge))):
            return None, None, [], "a change of variable needs a conclusion Implies(x > a, ...)"
        guard, body = concludes.args
        fresh = sp.sympify(val).free_symbols - concludes.free_symbols
        a: Any = guard.rhs
        r: Any = next(iter(fresh)) if len(fresh) == 1 else sp.nan
        ok = guard.lhs == x and bool(x.is_integer and a.is_integer and r.is_integer
                                     and r.is_nonnegative)
        if not ok or sp.expand(val - ((a + 1 + r) if isinstance(guard, sp.Gt) else a + r)) != 0:
            return None, None, [], (f"the change of variable {x} = {val} does not cover "
                                    f"exactly the range {guard}")
        body = body.xreplace({x: val})
    if not isinstance(body, sp.Eq):
        return None, None, [], "the conclusion is not an equation"
    sides = [body.lhs, body.rhs]
    for d in definitions:
        head = d.lhs if isinstance(d, sp.Eq) else None
        if not (isinstance(head, AppliedUndef) and all(isinstance(v, sp.Symbol)
                                                        for v in head.args)
                and len(set(head.args)) == len(head.args)):
            return None, None, [], f"not a definition F(v1, ..., vn) = closed form: {d}"
        lam = sp.Lambda(head.args, d.rhs)
        for e in sorted({e for side in sides for e in side.atoms(AppliedUndef)
                         if e.func == head.func}, key=sp.default_sort_key):
            assumes.append(sp.Eq(e, lam(*e.args)))
        sides = [side.replace(head.func, lam) for side in sides]
    for old, new in rename:
        if not (isinstance(new, sp.Symbol) and (new.is_positive or new.is_nonnegative)):
            return None, None, [], f"a rename must be to a positive symbol: {new}"
        assumes.append(_rename_fact(old, new))
        sides = [side.xreplace({old: new}) for side in sides]
    if divide_by is not None:
        if any(bb.is_nonzero is not True for bb in (
                f.base if isinstance(f, sp.Pow) else f for f in sp.Mul.make_args(divide_by))):
            return None, None, [], f"the divisor {divide_by} is not known non-zero"
        sides = [sp.powsimp(side / divide_by) for side in sides]
    return sides[0], sides[1], assumes, None


def sympy_step(
    name: str,
    statement: str,
    lhs: sp.Expr,
    rhs: sp.Expr,
    *,
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
    at: dict[sp.Symbol, Any] | None = None,
    concludes: Any = None,
    over: Sequence[sp.Symbol] = (),
    definitions: Sequence[Any] = (),
    rename: Sequence[tuple[Any, Any]] = (),
    divide_by: Any = None,
    change: tuple[sp.Symbol, Any] | None = None,
) -> Step:
    """Build a :class:`Step` discharged by :func:`sympy_identity`; a non-identity is
    REFUTED when a point (in the symbols' declared domain) where both sides differ is found
    and re-checked exactly.  ``at`` gives a point to try first.  The step concludes
    ``Eq(lhs, rhs)``; a different ``concludes`` is recorded only when ``lhs``/``rhs`` are
    exactly what :func:`_tied_sides` derives from it with the stated ``definitions``,
    ``rename``, ``divide_by`` and ``change`` (the instances and facts used become the step's
    assumptions, checked by :func:`check_chain`); otherwise the step is an ERROR (a
    certificate says nothing about a formula it is not tied to)."""
    verdict, secs, cert = sympy_identity(lhs, rhs)
    cex = None
    if verdict is not Verdict.PROVED:
        cex = _sympy_witness(lhs, rhs, at)
        if cex is not None:
            verdict = Verdict.REFUTED
    eq = sp.Eq(lhs, rhs, evaluate=False)
    assumes: list[Any] = []
    tied = concludes is None or concludes in (eq, sp.Eq(lhs, rhs))
    if not tied:
        tl, tr, assumes, problem = _tied_sides(concludes, definitions, rename, divide_by,
                                               change)
        if problem is None and (tl != lhs or tr != rhs):
            problem = (f"the certified sides are not the conclusion's (expected {sp.sstr(tl)} "
                       f"= {sp.sstr(tr)})")
        if problem is not None and verdict is Verdict.PROVED:
            verdict, cert = Verdict.ERROR, None
            note = f"certificate not tied to the recorded conclusion: {problem}" + (
                f" [{note}]" if note else "")
        elif cert is not None:
            steps_ = [f"{len(assumes)} definition/range fact(s) used"] + (
                [f"renamed {', '.join(f'{o} -> {n}' for o, n in rename)}"] if rename else []) + (
                [f"both sides divided by {sp.sstr(divide_by)}"] if divide_by is not None
                else []) + ([f"{change[0]} = {sp.sstr(change[1])}"] if change else [])
            cert += "; tied to the conclusion: " + ", ".join(steps_)
    return _seal(Step(name, statement, eq, "sympy", verdict, expected, secs, cex, note, role,
                      certificate=cert, assumes=tuple(assumes),
                      concludes=eq if concludes is None else concludes, over=tuple(over)))


def sympy_instance(
    name: str,
    statement: str,
    concludes: Any,
    *,
    definitions: Sequence[Any] = (),
    rename: Sequence[tuple[Any, Any]] = (),
    divide_by: Any = None,
    change: tuple[sp.Symbol, Any] | None = None,
    **kwargs: Any,
) -> Step:
    """A :func:`sympy_step` whose identity is derived from ``concludes`` by
    :func:`_tied_sides` (closed forms substituted from ``definitions``, positive renames, a
    common non-zero divisor, a change of variable for a range ``x > a``): the certificate is
    about exactly the recorded conclusion.  A conclusion that does not fit is an ERROR."""
    lhs, rhs, _, problem = _tied_sides(concludes, definitions, rename, divide_by, change)
    if problem is not None:
        return Step(name, statement, concludes, "sympy", Verdict.ERROR,
                    kwargs.get("expected", Verdict.PROVED), 0.0, None,
                    f"certificate not tied to the recorded conclusion: {problem}",
                    kwargs.get("role", "claim"), assumes=(), concludes=concludes,
                    over=tuple(kwargs.get("over", ())))
    return sympy_step(name, statement, lhs, rhs, concludes=concludes, definitions=definitions,
                      rename=rename, divide_by=divide_by, change=change, **kwargs)


def _in_domain(s: sp.Symbol, v: Any) -> bool:
    v = sp.sympify(v)
    checks = {"positive": v.is_positive, "nonnegative": v.is_nonnegative,
              "integer": v.is_integer, "real": v.is_real}
    return all(checks[f] for f in checks if s.assumptions0.get(f))


def _sympy_witness(
    lhs: sp.Expr, rhs: sp.Expr, at: dict[sp.Symbol, Any] | None = None
) -> dict[str, str] | None:
    syms = sorted((lhs - rhs).free_symbols, key=lambda s: s.name)
    trials: list[dict[sp.Symbol, Any]] = [at] if at else []
    for trial in ((sp.Rational(1, 3), sp.Rational(7, 5), 3, 5), (sp.Rational(2, 7), 2, 4, 9)):
        trials.append({s: trial[i % len(trial)] for i, s in enumerate(syms)})
    for sub in trials:
        if not all(_in_domain(s, v) for s, v in sub.items()):
            continue
        try:
            a, b = sp.nsimplify(lhs.subs(sub)), sp.nsimplify(rhs.subs(sub))
        except (TypeError, ValueError, ZeroDivisionError):  # pragma: no cover
            continue
        if a.is_finite and b.is_finite and sp.simplify(a - b) != 0:
            d = {s.name: str(v) for s, v in sub.items()}
            d["lhs"], d["rhs"] = str(sp.simplify(a)), str(sp.simplify(b))
            return d
    return None


def timed(
    name: str,
    statement: str,
    method: str,
    check: Callable[[], tuple[Any, ...]],
    *,
    expr: Any = None,
    expected: Verdict = Verdict.PROVED,
    role: str = "claim",
    bound: str = "",
    concludes: Any = None,
    definitions: Sequence[Any] = (),
    over: Sequence[sp.Symbol] = (),
) -> Step:
    """Run an arbitrary check returning ``(verdict, counterexample, note)`` or ``(verdict,
    counterexample, note, decided)`` and time it.  A check may only return PROVED with a
    certificate in its note (exact arithmetic).

    A chained conclusion (``concludes``) needs ``decided``, the formula the check itself says
    it decided (built inside the check from what it verified, never handed in by the caller):
    ``concludes`` with the applied functions of ``definitions`` (``F(v1, ..., vn) = closed``)
    replaced by their closed forms must be exactly ``decided``; otherwise the step is an ERROR.
    The definitions become its assumptions (checked by :func:`check_chain`)."""
    t0 = time.perf_counter()
    result = check()
    verdict, cex, note = result[0], result[1], result[2]
    decided = result[3] if len(result) > 3 else None
    problem = None
    if concludes is not None:
        shown = concludes
        for d in definitions:
            head = d.lhs
            if not (isinstance(d, sp.Eq) and isinstance(head, AppliedUndef)):
                problem = f"not a definition F(v1, ..., vn) = closed form: {d}"
                break
            shown = shown.replace(head.func, sp.Lambda(head.args, d.rhs))
        if problem is None and (decided is None or shown != decided):
            problem = (f"the formula the check decided, {sp.sstr(decided)}, is not the "
                       f"conclusion {sp.sstr(concludes)} with its definitions substituted")
    if problem is not None and verdict is Verdict.PROVED:
        verdict, note = Verdict.ERROR, f"certificate not tied to the recorded conclusion: {problem}"
    cert = note if verdict is Verdict.PROVED else None
    if cert is not None and decided is not None:
        cert += f" [decided: {sp.sstr(decided)}]"
    return _seal(Step(name, statement, expr, method, verdict, expected,
                      time.perf_counter() - t0, cex, note, role, certificate=cert, bound=bound,
                      assumes=tuple(definitions) if concludes is not None else None,
                      concludes=concludes, over=tuple(over)))


# ------------------------------------------------------------------------ chaining


def _conjuncts(f: Any) -> list[Any]:
    if isinstance(f, sp.And):
        return [c for a in f.args for c in _conjuncts(a)]
    return [f]


@lru_cache(maxsize=65536)
def _fits(var: sp.Symbol, value: Any) -> bool:
    """``value`` lies in ``var``'s declared range (sympy must *know* it, not merely allow it).
    Cached, as the helpers below: the chaining check asks about the same pieces many times."""
    flags = ("integer", "nonnegative", "positive", "real")
    return all(getattr(sp.sympify(value), f"is_{f}") is True
               for f in flags if var.assumptions0.get(f))


@lru_cache(maxsize=65536)
def _solve_linear(pattern: Any, v: sp.Symbol, target: Any) -> Any:
    """``x`` with ``pattern.subs(v, x) == target`` when ``pattern = a v + c`` (``a != 0``
    constant), else ``None``."""
    form = _linear_form(pattern, v)
    if form is None:
        return None
    a, c = form
    return sp.expand((target - c) / a)


@lru_cache(maxsize=8192)
def _linear_form(pattern: Any, v: sp.Symbol) -> tuple[Any, Any] | None:
    """``(a, c)`` with ``pattern = a v + c``, ``a`` a non-zero number and ``c`` free of ``v``
    (``None``: ``pattern`` is not of that form)."""
    a = sp.diff(pattern, v)
    if not a.is_number or a == 0:
        return None
    c = sp.expand(pattern - a * v)
    return None if c.has(v) else (a, c)


@lru_cache(maxsize=65536)
def _free(expr: Any) -> frozenset[Any]:
    """``expr.free_symbols``."""
    return frozenset(expr.free_symbols)


@lru_cache(maxsize=8192)
def _heads(expr: Any) -> frozenset[Any]:
    """The functions applied in ``expr``."""
    return frozenset(e.func for e in _applied(expr))


@lru_cache(maxsize=8192)
def _applied(expr: Any) -> tuple[Any, ...]:
    """The applied functions in ``expr`` (``F(K - 1, m)``), cached: the chaining check asks
    about the same formulas many times."""
    return tuple(e for e in sp.preorder_traversal(expr) if isinstance(e, AppliedUndef))


def instance_of(fact: Any, over: Sequence[sp.Symbol], target: Any) -> dict[str, str] | None:
    """The substitution of the index variables ``over`` turning ``fact`` into exactly
    ``target`` (sympy's structural equality: the same formula object), each value inside its
    variable's declared range; ``None`` when there is none.  Candidate values are read off the
    arguments of the applied functions (``F(K - 1, m)`` against ``F(k - 2, n - 1)``).  A pure
    function of its arguments, cached (the chaining check asks the same pairs many times)."""
    found = _instance_of(fact, tuple(over), target)
    return None if found is None else dict(found)


@lru_cache(maxsize=65536)
def _instance_of(fact: Any, over: tuple[sp.Symbol, ...], target: Any
                 ) -> tuple[tuple[str, str], ...] | None:
    if fact == target:
        return ()
    # no early type check: an instance may collapse (Implies(n > n - 1, P) is P)
    if not over:
        return None
    pats, tgts = _applied(fact), _applied(target)
    # every function of the fact occurs in the instance; the instance may have more, carried in
    # by the values (SD(n_m + M(u) + 1, n_m + M(u)) is an instance of SD(n_m + r + 1, n_m + r)
    # at r = M(u)): the final identity test below decides
    if not pats or not _heads(fact) <= _heads(target):
        return None
    cands: dict[sp.Symbol, set[Any]] = {v: {v} for v in over}
    for pe in pats:
        for te in tgts:
            if pe.func != te.func or len(pe.args) != len(te.args):
                continue
            for pa, ta in zip(pe.args, te.args):
                for v in over:
                    if pa.has(v):
                        x = _solve_linear(pa, v, ta)
                        if x is not None:
                            cands[v].add(x)
    # a substitution never creates symbols: the target's must come from the fact's own (index
    # variables excluded) or from the values (a cheap filter before the costly rebuild)
    fixed, wanted = _free(fact) - set(over), _free(target)
    # xreplace does not rename bound variables (Sum, Lambda, ...): refuse a substitution that
    # could capture one or reach inside its scope
    bound = _symbol_nodes(fact) - _free(fact)
    if bound & set(over):
        return None
    for combo in product(*[sorted(cands[v], key=sp.default_sort_key) for v in over]):
        values = [_free(sp.sympify(x)) for x in combo]
        if not wanted <= fixed.union(*values) or any(bound & vs for vs in values):
            continue
        sub = dict(zip(over, combo))
        if all(_fits(v, x) for v, x in sub.items()) and _may_become(fact, sub, target) \
                and fact.xreplace(sub) == target:
            return tuple((v.name, sp.sstr(x)) for v, x in sub.items() if x != v)
    return None


#: The relations whose evaluated rebuild is either the same relation of the rebuilt sides or
#: ``true``/``false`` (sympy's ``Relational`` constructors never reorder or rewrite the sides).
_RELATIONS = (sp.Eq, sp.Ne, sp.Lt, sp.Le, sp.Gt, sp.Ge)


@lru_cache(maxsize=65536)
def _symbol_nodes(expr: Any) -> frozenset[Any]:
    """The symbols among ``expr``'s nodes (its ``args`` tree, bound ones included: the nodes
    :meth:`~sympy.core.basic.Basic.xreplace` looks up)."""
    return frozenset(expr.atoms(sp.Symbol))


@lru_cache(maxsize=65536)
def _float_free(expr: Any) -> bool:
    """No ``Float`` in ``expr`` (an applied function of floats is re-evaluated numerically)."""
    return not expr.atoms(sp.Float)


def _may_become(fact: Any, sub: dict[Any, Any], target: Any) -> bool:
    """A cheap necessary condition for ``fact.xreplace(sub) == target``: ``False`` only when
    the rebuilt formula certainly differs from ``target``, so the costly rebuild (every
    relation re-evaluated under the symbols' assumptions) runs only for candidates that can
    match.  It follows ``xreplace`` node by node (:func:`_node_may_become`) and the rules by
    which sympy rebuilds each kind of node; whatever it cannot rule out is left to the
    rebuild."""
    if not (_float_free(fact) and _float_free(target)
            and all(_float_free(sp.sympify(x)) for x in sub.values())):
        return True  # an applied function of floats is re-evaluated numerically
    return _node_may_become(fact, sub, target)


def _node_may_become(e: Any, sub: dict[Any, Any], t: Any) -> bool:
    """Whether ``e.xreplace(sub)`` may equal ``t`` (``False``: it certainly does not).  A node
    holding no key is kept as it is and a key becomes its value (both compared exactly); an
    applied function ``F(a, b)`` stays ``F`` of the rebuilt arguments; a relation stays the
    same relation of the rebuilt sides or becomes ``true``/``false``; any other expression is
    rebuilt exactly (arithmetic: cheap).  A conjunction's rebuilt conjuncts (flattened, ``true``
    dropped, duplicates removed) are drawn from its rebuilt parts, else it is ``true``/``false``;
    ``Implies(A, B)`` rebuilds to ``Implies(A', B')``, ``true``, ``B'`` or the negation of
    ``A'`` (sympy's ``Implies.eval``).  Anything else may become anything."""
    if e in sub:
        return bool(sub[e] == t)
    if _symbol_nodes(e).isdisjoint(sub):
        return bool(e == t)
    if type(e) in _RELATIONS:
        if isinstance(t, BooleanAtom):
            return True
        return type(t) is type(e) and all(
            _node_may_become(a, sub, b) for a, b in zip(e.args, t.args))
    if isinstance(e, AppliedUndef):
        return (isinstance(t, AppliedUndef) and t.func == e.func and len(t.args) == len(e.args)
                and all(_node_may_become(a, sub, b) for a, b in zip(e.args, t.args)))
    if isinstance(e, sp.Expr):
        return bool(e.xreplace(sub) == t)
    if isinstance(t, BooleanAtom):
        return True
    if type(e) is sp.And:  # t: the one conjunct left, or a conjunction of conjuncts
        return any(_may_supply(x, sub, t) for x in e.args) or (type(t) is sp.And and all(
            any(_may_supply(x, sub, w) for x in e.args) for w in t.args))
    if type(e) is sp.Implies and len(e.args) == 2:
        a, b = e.args
        if type(t) is sp.Implies and _node_may_become(a, sub, t.args[0]) \
                and _node_may_become(b, sub, t.args[1]):
            return True
        # the collapsed forms: B' (as it is, or as the only part of Or(false, B')) and Not(A')
        # (from Or(Not(A'), false)) -- ruled out only for relations and conjunctions of them
        if not _relations_only(b) or _node_may_become(b, sub, t):
            return True
        return not _relations_only(a) or _may_negate_to(a, sub, t)
    return True


#: The negation of each relation: the same sides under the complementary relation.
_NEGATED = {sp.Eq: sp.Ne, sp.Ne: sp.Eq, sp.Lt: sp.Ge, sp.Ge: sp.Lt, sp.Le: sp.Gt, sp.Gt: sp.Le}


def _may_negate_to(a: Any, sub: dict[Any, Any], t: Any) -> bool:
    """Whether ``Not(a.xreplace(sub))`` may equal ``t`` (not ``true``/``false``), for a
    relation or a conjunction of relations ``a``: a relation negates to the complementary
    relation of the same sides, a conjunction of two or more to ``Not(And(...))``."""
    if type(a) is sp.And and type(t) is sp.Not:
        return True
    parts = a.args if type(a) is sp.And else (a,)
    return any(type(t) is _NEGATED[type(x)] and all(
        _node_may_become(s, sub, u) for s, u in zip(x.args, t.args)) for x in parts)


def _relations_only(e: Any) -> bool:
    """``e`` is a relation or a conjunction of relations: rebuilt, it is one of those or
    ``true``/``false``, never a disjunction or a negation."""
    return type(e) in _RELATIONS or (type(e) is sp.And
                                     and all(type(x) in _RELATIONS for x in e.args))


def _may_supply(x: Any, sub: dict[Any, Any], w: Any) -> bool:
    """Whether ``w`` may be one of the conjuncts that the part ``x`` of a conjunction brings
    to its rebuild: ``x`` rebuilt, or one of its conjuncts when that is a conjunction."""
    kept = sub[x] if x in sub else x if _symbol_nodes(x).isdisjoint(sub) else None
    if kept is not None:
        return bool(kept == w) or (type(kept) is sp.And and w in kept.args)
    if type(x) in _RELATIONS or isinstance(x, sp.Expr):
        return _node_may_become(x, sub, w)  # never rebuilt into a conjunction
    return True


@lru_cache(maxsize=65536)
def _sstr(expr: Any) -> str:
    """``sp.sstr(expr)``, cached: the chaining check writes the same assumptions for many
    steps (equal formulas print alike)."""
    return sp.sstr(expr)


@lru_cache(maxsize=16384)
def _latex(expr: Any) -> str:
    """``sp.latex(expr)``, cached like :func:`_sstr`."""
    return sp.latex(expr)


def _printed(expr: Any, latex: bool = False) -> str:
    """``sp.sstr(expr)`` (``sp.latex`` with ``latex``) through the caches above: a result's
    ``to_dict()`` prints every formula of its steps and givens, most of them already printed
    by the chaining check or by an earlier ``to_dict()``; an unhashable ``expr`` is printed
    directly."""
    try:
        return _latex(expr) if latex else _sstr(expr)
    except TypeError:
        return sp.latex(expr) if latex else sp.sstr(expr)


def _link(a: Any, s: Step, known: Sequence[tuple[Any, tuple[sp.Symbol, ...], str, Any]],
          derived: bool = False, found: list[Any] | None = None) -> str | None:
    """Where the assumption ``a`` of step ``s`` comes from (``None``: nowhere).  A step stated
    for every value of its index variables may only use facts that hold for every value too
    (a fact or conclusion with index variables); a ``derived`` assumption only steps."""
    schematic = any(a.has(v) for v in s.over)
    derived = derived or a in s.derived
    for formula, over, label, source in known:
        if (schematic and not over) or (derived and not label.startswith("step")):
            continue
        # a source in which one of the step's index variables is a *fixed* parameter holds
        # for that one value only, never for every value
        if set(s.over) & (_free(formula) - set(over)):
            continue
        # without index variables only the formula itself is an instance (as instance_of says,
        # without its call: most known facts are of this kind)
        sub = ({} if formula == a else None) if not over else instance_of(formula, over, a)
        if sub is not None:
            if found is not None:
                found.append(source)
            return label + (f" at {sub}" if sub else "")
    return None


def check_chain(steps: Sequence[Step], facts: Sequence[Fact]) -> list[str]:
    """Theorem assembly, checked: every *claim* step may assume only formulas that are the
    theorem's given facts or conclusions of *earlier* PROVED claim steps (the same formula, or
    an instance over the index variables the fact/conclusion is stated for), plus induction
    hypotheses that a later :func:`induction` step discharges; a ``derived`` assumption must
    come from a step, never from a given fact.  A step assuming anything else
    becomes an ERROR (never PROVED).  An SMT claim step must state its assumptions as
    formulas.  Records each step's ``links``; returns the problems found."""
    known: list[tuple[Any, tuple[sp.Symbol, ...], str, Any]] = [
        (f.formula, f.over, f"given ({f.kind}): {f.why}", f) for f in facts]
    problems: list[str] = []
    for idx, s in enumerate(steps, 1):
        if s.role != "claim":
            continue
        missing: list[str] = []
        for used in s.uses_steps:  # an induction step: its base and inductive step (the same
            # objects, not merely steps of the same name) must still stand, earlier in the list
            if not any(t is used for t in steps[:idx - 1]) or used.verdict is not Verdict.PROVED:
                missing.append(f"(the step object '{used.name}' it relies on is not an earlier "
                               "PROVED step of this list)")
        if s.discharges and not s.uses_steps:
            missing.append("(an induction step without the step objects it relies on)")
        if s.verdict is Verdict.PROVED and s.concludes is not None and _seal_broken(s):
            missing.append("(its conclusion, index variables or assumptions are not those its "
                           "check certified: changed after the step was built)")
        if s.assumes is None and s.solvers is not None:
            missing.append("(hypotheses not stated as formulas)")
        elif s.assumes is not None:
            links: list[dict[str, str]] = []
            sources: list[Any] = []
            for a in s.assumes:
                if a in s.local:
                    ok = any(any(u is s for u in t.uses_steps[1:]) for t in steps[idx:])
                    links.append({"formula": _sstr(a), "from": "induction hypothesis, "
                                  + ("discharged by a later induction step" if ok
                                     else "NOT DISCHARGED")})
                    if not ok:
                        missing.append(_sstr(a))
                    continue
                src = _link(a, s, known, found=sources)
                if src is None and isinstance(a, sp.And):  # a conjunction: every conjunct
                    parts = [_link(c, s, known, a in s.derived, sources) for c in _conjuncts(a)]
                    if all(parts):
                        src = "; ".join(dict.fromkeys(str(x) for x in parts))
                links.append({"formula": _sstr(a), "from": src or "UNLINKED"})
                if src is None:
                    missing.append(_sstr(a))
            s.links = links
            s.sources = tuple(sources)
        if missing:
            msg = ("unlinked: assumes " + "; ".join(missing) + ", which is neither a stated "
                   "hypothesis of the theorem nor the conclusion of an earlier PROVED step")
            problems.append(f"step {idx} ({s.name}): {msg}")
            s.verdict = Verdict.ERROR
            s.note = msg + (f" [{s.note}]" if s.note else "")
            continue
        if s.verdict is Verdict.PROVED and s.concludes is not None and not s.local:
            # the conclusion as a whole (an induction's base is its formula at the start)
            # and each conjunct
            known += [(c, s.over, f"step {idx}: {s.name}", s)
                      for c in dict.fromkeys([s.concludes, *_conjuncts(s.concludes)])]
    return problems


def _range_min(v: sp.Symbol) -> Any:
    """The least value of an integer symbol's declared range (``None``: unbounded below)."""
    if v.is_positive:
        return sp.Integer(1)
    if v.is_nonnegative:
        return sp.Integer(0)
    return None


def _induction_conclusions(formula: Callable[[Any], Any], var: sp.Symbol, start: Any,
                           direction: int, concludes: Any) -> tuple[Any, str | None]:
    """The conclusion the induction rule licenses (``concludes`` checked against it), or an
    error.  Upward from ``start`` (``start`` >= var's declared minimum) it covers every
    ``v >= start``; downward (the step holding for every ``var`` in its declared range) every
    ``v <= start`` down to that minimum less one.  Accepted: ``formula(var)`` when ``start`` is
    var's declared minimum (upward), else ``Implies(v >= start, formula(v))`` /
    ``Implies(v <= start, formula(v))`` for ``var`` or a renamed integer symbol ``v`` whose
    declared range lies in the covered one (so an induction never concludes more than its base
    and step cover)."""
    lo = _range_min(var)
    start = sp.sympify(start)
    if var.is_integer is not True or start.is_integer is not True:
        return None, "the induction variable and its start must be declared integers"
    if direction > 0 and lo is not None and (start - lo).is_nonnegative is not True:
        return None, (f"start {start} is not known to lie in {var}'s declared range, so the "
                      "inductive step does not cover the first move")
    plain = direction > 0 and lo is not None and start == lo

    def guarded(v: sp.Symbol) -> Any:
        return sp.Implies(v >= start if direction > 0 else v <= start, formula(v))

    if concludes is None:
        return (formula(var) if plain else guarded(var)), None
    if plain and concludes == formula(var):
        return concludes, None
    for v in sorted(concludes.free_symbols, key=lambda x: x.name):
        if not isinstance(v, sp.Symbol) or v.is_integer is not True:
            continue
        if v != var:
            lo_v = _range_min(v)
            if direction > 0:
                ok = lo_v is not None and (lo_v - start).is_nonnegative is True
                if ok and concludes == formula(v):
                    return concludes, None
            # the guarded form needs v's range inside the covered one (downward: >= lo - 1)
            ok = direction > 0 or lo is None or (lo_v is not None and lo_v >= lo - 1)
            if not ok:
                continue
        if concludes == guarded(v):
            return concludes, None
    return None, ("the stated conclusion is not the formula for every value on the proved "
                  f"side of {start} (expected {sp.sstr(guarded(var))})")


def induction(
    name: str,
    statement: str,
    formula: Callable[[Any], Any],
    var: sp.Symbol,
    start: Any,
    base: Step,
    step: Step,
    *,
    direction: int = 1,
    concludes: Any = None,
    over: Sequence[sp.Symbol] = (),
) -> Step:
    """The induction rule as a step: from ``base`` proving ``formula(start)`` and ``step``
    proving ``formula(var + direction)`` under exactly one local assumption, the induction
    hypothesis ``formula(var)``, for every ``var`` in its declared range, conclude
    ``formula(var)`` for every ``var`` on that side of ``start``.  The recorded conclusion
    carries the range guard (``var >= start`` / ``var <= start``) unless ``start`` is var's
    declared minimum; ``concludes`` may only restate it (or rename the variable, see
    :func:`_induction_conclusions`), anything else is an ERROR.  The formula objects are
    compared, not the text; PROVED only if both steps are (and :func:`check_chain` checks that
    these very objects are earlier PROVED steps of the list)."""
    t0 = time.perf_counter()
    concl, why = _induction_conclusions(formula, var, start, direction, concludes)
    bound_var = next((v for v in (concl.free_symbols if concl is not None else ())
                      if v in over and v != var and v not in base.over + step.over), None)
    wanted = [("base proves P(start)", base.concludes == formula(start)),
              ("base has no induction hypothesis", not base.local),
              ("inductive step proves P(next)", step.concludes == formula(var + direction)),
              ("inductive step's only local assumption is the induction hypothesis P(var)",
               tuple(step.local) == (formula(var),)),
              # so that the chaining check lets it use only facts true for every value of var
              ("inductive step is stated for every value of var", var in step.over),
              ("every other index variable of the conclusion is one of the base's and the "
               "inductive step's", all(
                   w in part.over for w in over if w != var and w != bound_var
                   for part in (base, step)
                   if w in part.concludes.free_symbols or any(
                       w in sp.sympify(a).free_symbols for a in (part.assumes or ())))),
              (f"conclusion: {why}", why is None)]
    bad = [w for w, ok in wanted if not ok]
    if bad:
        verdict, note = Verdict.ERROR, "induction does not fit: " + "; ".join(bad)
    elif base.verdict is Verdict.PROVED and step.verdict is Verdict.PROVED:
        verdict, note = Verdict.PROVED, (
            f"induction on {var} ({'up' if direction > 0 else 'down'} from {start}): base "
            f"'{base.name}' and inductive step '{step.name}' both PROVED (formula objects "
            "compared; conclusion checked against the rule)")
    else:
        verdict, note = Verdict.OPEN, "base or inductive step not PROVED"
    if concl is None:
        concl = concludes if concludes is not None else formula(var)
    return _seal(Step(name, statement, concl, "induction rule", verdict, Verdict.PROVED,
                      time.perf_counter() - t0, None, note,
                      certificate=note if verdict is Verdict.PROVED else None,
                      assumes=(formula(start),), concludes=concl, over=tuple(over),
                      discharges=(step.name,), uses_steps=(base, step)))


def chain_control(name: str, statement: str, steps: Sequence[Step],
                  facts: Sequence[Fact]) -> Step:
    """Negative control of :func:`check_chain`: ``steps`` assume something unproved, so the
    check must turn one into an ERROR (the control's verdict; PROVED if it let them pass)."""
    t0 = time.perf_counter()
    problems = check_chain(steps, facts)
    verdict = Verdict.ERROR if problems else Verdict.PROVED
    note = problems[0] if problems else "the chaining check accepted an unproved assumption"
    return Step(name, statement, None, "chaining check", verdict, Verdict.ERROR,
                time.perf_counter() - t0, None, note)
