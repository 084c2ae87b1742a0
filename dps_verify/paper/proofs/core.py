"""Shared machinery for the symbolic proofs (issue #3).

Every theorem module builds a list of :class:`Step` objects; :func:`aggregate` turns the
verdicts of its *claim* steps into a whole-theorem verdict.  Two back ends discharge steps:

* :func:`z3_prove` -- proves ``assumptions => claim`` by asking z3 for a model of
  ``assumptions and not claim``; ``unsat`` means PROVED, a model means REFUTED (the model is
  the counterexample) and ``unknown``/timeout means OPEN.  A timeout is never PROVED.
* :func:`sympy_identity` -- shows ``lhs == rhs`` by simplifying/factorising ``lhs - rhs``.

Because z3 has no exponential, e^eps is always written as a real ``E >= 1``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import sympy as sp
import z3

#: Per-query z3 timeout in milliseconds (a timeout is reported as OPEN).
Z3_TIMEOUT_MS = 10_000


class Verdict(StrEnum):
    """Outcome of one step or of a whole theorem."""

    PROVED = "PROVED"
    #: every instance in a stated finite range was checked exactly -- not a proof.
    BOUNDED = "CHECKED-BOUNDED"
    REFUTED = "REFUTED"
    OPEN = "OPEN"


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

    @property
    def ok(self) -> bool:
        return self.verdict == self.expected

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "statement": self.statement,
            "expr": None if self.expr is None else sp.sstr(self.expr),
            "latex": None if self.expr is None else sp.latex(self.expr),
            "method": self.method,
            "verdict": self.verdict.value,
            "expected": self.expected.value,
            "ok": self.ok,
            "seconds": round(self.seconds, 4),
            "counterexample": self.counterexample,
            "note": self.note,
            "role": self.role,
        }


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
            "steps": [s.to_dict() for s in self.steps],
            "negative_controls": [c.to_dict() for c in self.negative_controls],
        }


def aggregate(steps: Iterable[Step]) -> Verdict:
    """Whole-theorem verdict from the *claim* steps: any REFUTED wins, then OPEN, then
    CHECKED-BOUNDED; PROVED only if every claim step is PROVED."""
    verdicts = [s.verdict for s in steps if s.role == "claim"]
    for v in (Verdict.REFUTED, Verdict.OPEN, Verdict.BOUNDED):
        if v in verdicts:
            return v
    return Verdict.PROVED if verdicts else Verdict.OPEN


# ----------------------------------------------------------------------------- z3


def _model_dict(model: z3.ModelRef) -> dict[str, str]:
    out: dict[str, str] = {}
    for d in model.decls():
        if d.arity() > 0 or d.name().startswith("/"):
            continue  # z3's internal division-by-zero interpretation etc.
        val = model[d]
        if z3.is_rational_value(val):
            out[d.name()] = str(val.as_fraction())
        elif z3.is_algebraic_value(val):
            out[d.name()] = val.approx(20).as_decimal(20).rstrip("?")
        else:
            out[d.name()] = str(val)
    return dict(sorted(out.items()))


def z3_prove(
    claim: z3.BoolRef,
    assumptions: Sequence[z3.BoolRef] = (),
    timeout_ms: int = Z3_TIMEOUT_MS,
) -> tuple[Verdict, dict[str, str] | None, float]:
    """Prove ``And(assumptions) => claim`` by refuting its negation.

    Returns ``(verdict, model, seconds)``: PROVED when the negation is unsat, REFUTED with
    the counterexample model when it is sat, OPEN on ``unknown`` (including timeouts).
    """
    solver = z3.SolverFor("QF_NRA") if _is_pure_real(claim, assumptions) else z3.Solver()
    solver.set("timeout", timeout_ms)
    solver.add(*assumptions)
    solver.add(z3.Not(claim))
    t0 = time.perf_counter()
    res = solver.check()
    secs = time.perf_counter() - t0
    if res == z3.unsat:
        return Verdict.PROVED, None, secs
    if res == z3.sat:
        return Verdict.REFUTED, _model_dict(solver.model()), secs
    return Verdict.OPEN, None, secs


def _is_pure_real(claim: z3.BoolRef, assumptions: Sequence[z3.BoolRef]) -> bool:
    seen: set[int] = set()
    todo: list[z3.ExprRef] = [claim, *assumptions]
    while todo:
        e = todo.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if z3.is_quantifier(e):
            return False
        if z3.is_const(e) and not (z3.is_true(e) or z3.is_false(e)):
            if e.sort() != z3.RealSort() and not z3.is_rational_value(e):
                return False
        todo.extend(e.children())
    return True


def to_z3(expr: Any, env: dict[str, z3.ExprRef] | None = None) -> Any:
    """Translate a polynomial/rational sympy expression or relation into z3.

    Symbols become z3 ``Real`` constants (``Int`` when declared ``integer=True``); powers must
    have integer exponents (negative ones become divisions) -- there is no exp/log in z3.
    """
    env = {} if env is None else env

    def tr(e: Any) -> Any:
        if isinstance(e, bool) or e is sp.true or e is sp.false:
            return z3.BoolVal(bool(e))
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
            return out if n >= 0 else 1 / out
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
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
    extra_z3: Sequence[z3.BoolRef] = (),
    env: dict[str, z3.ExprRef] | None = None,
) -> Step:
    """z3 step stated in sympy: proves ``And(assumptions) => claim`` (both sympy relations).
    The printed expression is the implication itself."""
    env = {} if env is None else env
    zc = to_z3(claim, env)
    za = [to_z3(a, env) for a in assumptions] + list(extra_z3)
    expr = sp.Implies(sp.And(*assumptions), claim, evaluate=False) if assumptions else claim
    return z3_step(name, statement, zc, za, expr=expr, expected=expected, note=note,
                   role=role)


def z3_all(
    name: str,
    statement: str,
    queries: Sequence[tuple[z3.BoolRef, Sequence[z3.BoolRef]]],
    *,
    expr: Any = None,
    expected: Verdict = Verdict.PROVED,
    note: str = "",
    role: str = "claim",
) -> Step:
    """One step made of several z3 obligations (e.g. one per event O): PROVED iff all are,
    REFUTED with the first counterexample if any is refuted, otherwise OPEN."""
    total, verdict, model = 0.0, Verdict.PROVED, None
    for claim, hyp in queries:
        v, mdl, secs = z3_prove(claim, hyp)
        total += secs
        if v is Verdict.REFUTED:
            verdict, model = v, mdl
            break
        if v is Verdict.OPEN:
            verdict = Verdict.OPEN
    note = note or f"{len(queries)} z3 obligations"
    return Step(name, statement, expr, "z3", verdict, expected, total, model, note, role)


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
    timeout_ms: int = Z3_TIMEOUT_MS,
) -> Step:
    """Build a :class:`Step` discharged by :func:`z3_prove`."""
    verdict, model, secs = z3_prove(claim, assumptions, timeout_ms)
    if verdict is Verdict.OPEN and not note:
        note = f"z3 returned unknown within {timeout_ms / 1000:g} s"
    return Step(name, statement, expr, "z3", verdict, expected, secs, model, note, role)


# -------------------------------------------------------------------------- sympy


def sympy_identity(lhs: sp.Expr, rhs: sp.Expr) -> tuple[Verdict, float]:
    """Show ``lhs == rhs`` symbolically: PROVED if ``lhs - rhs`` simplifies (after
    expansion, factorisation, gamma/combinatorial simplification) to 0, else OPEN."""
    t0 = time.perf_counter()
    diff = sp.expand(lhs - rhs)
    ok = diff == 0
    if not ok and rhs != 0:
        try:
            ok = sp.simplify(sp.powsimp(lhs / rhs, force=True)) == 1
        except (TypeError, ValueError, NotImplementedError):  # pragma: no cover
            ok = False
    if not ok:
        for simp in (sp.factor, sp.simplify, sp.combsimp, sp.gammasimp):
            try:
                if sp.simplify(simp(diff)) == 0:
                    ok = True
                    break
            except (TypeError, ValueError, NotImplementedError):  # pragma: no cover
                continue
    return (Verdict.PROVED if ok else Verdict.OPEN), time.perf_counter() - t0


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
) -> Step:
    """Build a :class:`Step` discharged by :func:`sympy_identity`; a non-identity is
    REFUTED when a rational point where both sides differ is found (re-checked exactly).
    ``at`` gives an in-domain point to try first."""
    verdict, secs = sympy_identity(lhs, rhs)
    cex = None
    if verdict is not Verdict.PROVED:
        cex = _sympy_witness(lhs, rhs, at)
        if cex is not None:
            verdict = Verdict.REFUTED
    return Step(name, statement, sp.Eq(lhs, rhs, evaluate=False), "sympy", verdict,
                expected, secs, cex, note, role)


def _sympy_witness(
    lhs: sp.Expr, rhs: sp.Expr, at: dict[sp.Symbol, Any] | None = None
) -> dict[str, str] | None:
    syms = sorted((lhs - rhs).free_symbols, key=lambda s: s.name)
    trials: list[dict[sp.Symbol, Any]] = [at] if at else []
    for trial in ((sp.Rational(1, 3), sp.Rational(7, 5), 3, 5), (sp.Rational(2, 7), 2, 4, 9)):
        trials.append({s: trial[i % len(trial)] for i, s in enumerate(syms)})
    for sub in trials:
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
    check: Callable[[], tuple[Verdict, dict[str, str] | None, str]],
    *,
    expr: Any = None,
    expected: Verdict = Verdict.PROVED,
    role: str = "claim",
) -> Step:
    """Run an arbitrary check returning ``(verdict, counterexample, note)`` and time it."""
    t0 = time.perf_counter()
    verdict, cex, note = check()
    return Step(name, statement, expr, method, verdict, expected,
                time.perf_counter() - t0, cex, note, role)


def run_module(theorem_id: str, module: Any) -> ProofResult:
    """Run one theorem module (``CLAIM``, ``REFERENCE``, ``EXPECTED``, ``steps()``,
    ``negative_controls()``) and aggregate."""
    t0 = time.perf_counter()
    steps = list(module.steps())
    controls = list(module.negative_controls())
    return ProofResult(
        theorem_id=theorem_id,
        claim=module.CLAIM,
        reference=module.REFERENCE,
        expected=module.EXPECTED,
        verdict=aggregate(steps),
        steps=steps,
        negative_controls=controls,
        seconds=time.perf_counter() - t0,
        summary=getattr(module, "SUMMARY", ""),
    )
