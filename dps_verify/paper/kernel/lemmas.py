"""Spot checks of trusted lemmas: a lemma a proof takes on trust is evaluated on exact instances,
on both sides of each of its guards, before the kernel lets a theorem rest on it.

A given fact of kind ``lemma`` (see :class:`~dps_verify.paper.kernel.core.Fact`) carries its
``source`` (the citation: where the lemma is proved, with its exact form and guard) and a
``spot`` check, a callable ``spot(formula) -> (ok, note)``.  :func:`at_points` builds the usual
one: the lemma's formula as given is evaluated at listed instances, its opaque functions
interpreted by exact (or outward-rounded) implementations; each instance must make it true, and
for ``Implies(And(g1, ..., gn), body)`` the instances must include one where every guard holds
and, for each guard, one where that guard fails and the others hold.  The instances are data of
the encoding, separate from the formula: a lemma stated without a guard it needs is evaluated
there too, and fails (the multiplicative Chernoff bound without t > beta is false at t < beta).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.core.numbers import ComplexInfinity, Infinity, NaN, NegativeInfinity

Interpretation = Mapping[str, Callable[..., Any]]


def _truth(formula: Any) -> bool | None:
    """sympy's decision on a closed formula (``None`` when it cannot decide): relations
    between exact numbers (rationals, e^x and logarithms of rationals) are decided on
    construction, by sympy's sign evaluation of the difference."""
    value = formula
    if not isinstance(value, (bool, sp.logic.boolalg.BooleanAtom)):
        value = sp.simplify(value)
    if value in (True, sp.true):
        return True
    if value in (False, sp.false):
        return False
    return None


#: Applied functions nested deeper than this (an interpreted function inside the arguments of
#: another, and so on) are left unevaluated.
MAX_NESTING = 6


def evaluate(formula: Any, point: Mapping[sp.Symbol, Any], interpret: Interpretation) -> Any:
    """``formula`` at ``point`` with its applied functions replaced by ``interpret`` (by name),
    innermost first (at most :data:`MAX_NESTING` deep); returns the closed sympy formula (not
    yet decided).

    The definition is :func:`_evaluate_in_rounds`: substitute ``point``, then, round by round,
    interpret the applications that hold no other interpreted one.  The substituted formula
    is evaluated by sympy with the applications standing as opaque terms, so sympy may drop or
    reshape them (``0*F(0)`` is 0, ``F(0) - F(0)`` is 0, ``x*F(0)/F(0)`` is ``x``) before
    they are interpreted.  Most calls are answered by one bottom-up pass instead
    (:func:`_close`: each node rebuilt from its closed arguments, an application interpreted
    at its rebuilt arguments), which skips building that intermediate formula.  The pass is
    trusted only where it gives the rounds' value: sympy's automatic rewrites of opaque terms
    are identities of finite exact numbers that satisfy the assumptions the function is
    declared with (``x/x`` is 1 only off 0, and at 0 the pass meets ``zoo``), so the pass
    gives the value the rounds give unless a value falls outside them.  It hands the call to
    the rounds (:func:`_evaluate_in_rounds`, so any exception is the one that way raises) when

    * anything in the closing is not finite (``nan``, ``zoo``, ``oo``, ``-oo``: in the point,
      the formula, an interpreted value or a rebuilt node; ``0*F(0)`` with
      ``F(0) = log(0)`` is ``nan`` here but 0 in the rounds, and ``F(0)/F(0)`` with
      ``F(0) = 0`` is ``nan`` here but 1 there);
    * a floating-point number occurs in the point, the formula or an interpreted value (float
      arithmetic breaks the identities: ``x + F(0) - F(0)`` is ``x`` in the rounds, and
      ``0.1 + 10^20 - 10^20`` is not 0.1);
    * an interpreted value breaks an assumption its function is declared with (``F =
      Function("F", positive=True)`` returning -1: ``F(0) + s > 0`` at ``s = 0`` is true in
      the rounds, which see ``F(0) > 0``);
    * an interpreted value holds an interpreted application (the rounds interpret it in a
      later round, the pass would not);
    * an application reaches the nesting limit (the rounds count nesting after sympy's
      rewrites, which can remove a level: ``F(G(t) - G(s))`` at ``t = s`` has one level
      there, two here);
    * the pass raises."""
    values = {k: sp.sympify(v) for k, v in point.items()}
    try:
        if any(_unsafe(v, interpret) for v in values.values()):
            raise _UseRounds
        return _close(sp.sympify(formula), values, interpret)[0]
    except Exception:  # noqa: BLE001 - decided by the rounds below, raising as they do
        return _evaluate_in_rounds(formula, values, interpret)


#: The numbers that end the one-pass closing (see :func:`evaluate`): nan, zoo, oo, -oo.
_NONFINITE = (NaN, ComplexInfinity, Infinity, NegativeInfinity)


class _UseRounds(Exception):
    """The one-pass closing may differ from the rounds here: they decide instead."""


def _unsafe(value: Any, interpret: Interpretation) -> bool:
    """Whether ``value`` (a point's value or an interpreted one) holds a non-finite number,
    a float or an interpreted application."""
    if not value.args:
        return isinstance(value, (*_NONFINITE, sp.Float))
    for node in sp.preorder_traversal(value):
        if isinstance(node, (*_NONFINITE, sp.Float)) or (
                isinstance(node, AppliedUndef) and str(node.func) in interpret):
            return True
    return False


def _non_finite(node: Any) -> bool:
    """Whether ``node`` holds nan, zoo, oo or -oo."""
    if not node.args:
        return isinstance(node, _NONFINITE)
    return any(isinstance(n, _NONFINITE) for n in sp.preorder_traversal(node))


def _close(e: Any, values: Mapping[Any, Any], interpret: Interpretation) -> tuple[Any, int]:
    """``e`` closed (see :func:`evaluate`) and the nesting depth of the interpreted functions
    in it (0: none); raises :class:`_UseRounds` where the rounds may give another value."""
    hit = values.get(e)
    if hit is not None:
        return hit, 0
    if not e.args:
        if isinstance(e, (*_NONFINITE, sp.Float)):
            raise _UseRounds
        return e, 0
    closed = [_close(a, values, interpret) for a in e.args]
    args = [c for c, _ in closed]
    depth = max(d for _, d in closed)
    if any(a is not b for a, b in zip(args, e.args)):
        node = e.func(*args)
        if _non_finite(node):
            raise _UseRounds
    else:
        node = e
    if isinstance(e, AppliedUndef) and str(e.func) in interpret:
        if depth >= MAX_NESTING:
            raise _UseRounds
        value = sp.sympify(interpret[str(e.func)](*node.args))
        if _unsafe(value, interpret) or any(
                getattr(value, "is_" + fact) is not holds
                for fact, holds in e.func.default_assumptions.items()):
            raise _UseRounds
        return value, depth + 1
    return node, depth


def _evaluate_in_rounds(formula: Any, values: Mapping[Any, Any],
                        interpret: Interpretation) -> Any:
    """:func:`evaluate` by substituting ``values`` and then, round by round, interpreting
    the applications that hold no other interpreted one."""
    out = sp.sympify(formula).xreplace(dict(values))

    def is_known(e: Any) -> bool:
        return isinstance(e, AppliedUndef) and str(e.func) in interpret

    for _ in range(MAX_NESTING):
        apps = [e for e in sp.preorder_traversal(out) if is_known(e)
                and not any(is_known(a) for a in sp.preorder_traversal(e) if a is not e)]
        if not apps:
            break
        out = out.xreplace({e: sp.sympify(interpret[str(e.func)](*e.args)) for e in apps})
    return out


def guards(formula: Any) -> tuple[list[Any], Any]:
    """The antecedent's conjuncts and the body of ``Implies(guard, body)`` (no guard: [])."""
    if isinstance(formula, sp.Implies):
        g, body = formula.args
        return (list(g.args) if isinstance(g, sp.And) else [g]), body
    return [], formula


def at_points(points: Sequence[Mapping[sp.Symbol, Any]],
              interpret: Interpretation | Callable[[Mapping[sp.Symbol, Any]], Interpretation],
              what: str = "") -> Callable[[Any], tuple[bool, str]]:
    """A spot check: the formula true at every point, each guard covered on both sides.
    ``interpret`` maps function names to implementations, or is a callable building that map
    from the point (for functions whose law depends on a parameter of the point, such as a
    binomial tail at beta)."""

    def check(formula: Any) -> tuple[bool, str]:
        gs, _ = guards(formula)
        covered_in = False
        covered_out = [False] * len(gs)
        for pt in points:
            shown = ", ".join(f"{k}={v}" for k, v in pt.items())
            interp = interpret(pt) if callable(interpret) else interpret
            truth = _truth(evaluate(formula, pt, interp))
            if truth is not True:
                return False, (f"false at {shown}" if truth is False
                               else f"undecided at {shown}")
            gv = [_truth(evaluate(g, pt, interp)) for g in gs]
            if all(v is True for v in gv):
                covered_in = True
            for i, v in enumerate(gv):
                if v is False and all(w is True for j, w in enumerate(gv) if j != i):
                    covered_out[i] = True
        if gs and not covered_in:
            return False, "no instance where every guard holds"
        missing = [sp.sstr(g) for g, ok in zip(gs, covered_out) if not ok]
        if missing:
            return False, "no instance on the far side of the guard(s) " + "; ".join(missing)
        return True, (f"true at {len(points)} exact instances" + (f" ({what})" if what else "")
                      + (f", each of the {len(gs)} guard(s) covered on both sides" if gs else ""))

    return check
