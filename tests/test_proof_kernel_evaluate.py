"""The lemma spot checks' evaluation (``lemmas.evaluate``): its one bottom-up pass gives what
the definition -- substitute the point, then interpret the applications round by round
(``_evaluate_in_rounds``) -- gives, and hands the call to the rounds wherever sympy's rewriting
of the substituted formula (applications still opaque) could make the two differ: a zero factor
or a cancellation in front of a non-finite value, a division of an application by itself at
0, float arithmetic, a value breaking its function's declared assumptions, a value holding
another application, and a nesting level that the rewriting removes."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
import sympy as sp

from dps_verify.paper.kernel import lemmas
from dps_verify.paper.kernel.lemmas import MAX_NESTING, _evaluate_in_rounds, _truth, evaluate

t, s, x = sp.symbols("t s x")
F, G, H = sp.Function("F"), sp.Function("G"), sp.Function("H")
Pos = sp.Function("Pos", positive=True)

LOG = {"F": sp.log}
PLUS_ONE = {"F": lambda a: a + 1}


def _rounds(formula: Any, point: Mapping[Any, Any], interpret: Mapping[str, Any]) -> Any:
    return _evaluate_in_rounds(formula, {k: sp.sympify(v) for k, v in point.items()}, interpret)


def _nest(f: Callable[[Any], Any], times: int, inner: Any) -> Any:
    for _ in range(times):
        inner = f(inner)
    return inner


def _raises(*_: Any) -> Any:
    raise ValueError("outside the interpretation's domain")


#: Calls where the one pass could differ from the rounds (they must decide): formula, point,
#: interpretation, the rounds' truth.
EDGES: list[tuple[Any, dict, dict, bool | None]] = [
    # a zero factor in front of log(0): 0 in the rounds, nan in one pass
    (sp.Eq(t * F(t), 0), {t: 0}, LOG, True),
    (sp.Ne(t * F(t), 0), {t: 0}, LOG, False),
    (sp.Implies(t >= 0, sp.Eq(t * F(t), 0)), {t: 0}, LOG, True),
    # a cancellation of two non-finite values (oo - oo is nan)
    (sp.Eq(F(t) - F(s), 0), {t: 0, s: 0}, {"F": lambda a: -sp.log(a)}, True),
    # an application divided by itself at 0
    (sp.Eq(F(t) / F(s), 1), {t: 0, s: 0}, {"F": lambda a: a}, True),
    # float arithmetic: x + F(1) - F(1) is x in the rounds; 0.1 + 10^20 - 10^20 is not 0.1
    (sp.Eq(x + F(t) - F(s), x), {x: sp.Float(0.1), t: 1, s: 1},
     {"F": lambda a: sp.Integer(10) ** 20}, True),
    (sp.Eq(sp.Float(0.1) + F(t) - F(s), sp.Float(0.1)), {t: 1, s: 1},
     {"F": lambda a: sp.Integer(10) ** 20}, True),
    (sp.Eq(x + F(t) - F(s), x), {x: 1, t: 1, s: 1},
     {"F": lambda a: sp.sqrt(2) + sp.Float(1e20)}, True),
    # a zero factor in front of nan
    (sp.Eq(s * F(t), 0), {t: 1, s: 0}, {"F": lambda a: sp.nan}, True),
    # a value breaking the declared assumption (positive): Pos(0) + 0 > 0 holds in the rounds
    (Pos(t) + s > 0, {t: 0, s: 0}, {"Pos": lambda a: sp.Integer(-1)}, True),
    # a value holding another interpreted application, interpreted in a later round
    (sp.Eq(F(t), 6), {t: 2}, {"F": lambda a: G(a + 1), "G": lambda a: 2 * a}, True),
    # a nesting level that the rounds' rewriting removes: MAX_NESTING levels there, one more here
    (sp.Eq(_nest(F, MAX_NESTING, G(t) - G(s)), MAX_NESTING), {t: 0, s: 0},
     {**PLUS_ONE, "G": lambda a: sp.Integer(5)}, True),
]

#: Calls where the one pass answers by itself: formula, point, interpretation.
ORDINARY: list[tuple[Any, dict, dict]] = [
    (sp.Eq(t * F(t), 0), {t: 1}, LOG),
    (sp.Ne(t * F(t), 0), {t: 2}, LOG),
    (sp.Implies(sp.And(t > 0, s > t), F(s) > F(t)), {t: 1, s: 3}, LOG),
    (sp.Max(F(t), F(s)) <= 2 * F(s), {t: sp.Rational(1, 3), s: 3}, LOG),
    (sp.Piecewise((F(t), t > 1), (G(t), True)) >= 0, {t: 1}, {**LOG, "G": lambda a: a ** 2}),
    (sp.Eq(_nest(F, MAX_NESTING, t), MAX_NESTING + 2), {t: 2}, PLUS_ONE),
    (sp.Eq(F(G(t), H(s)), 7), {t: 1, s: 2},
     {"F": lambda a, b: a + b, "G": lambda a: 2 * a}),  # H is left opaque
    (sp.exp(F(t)) - F(s) > 1, {t: sp.Rational(1, 2), s: sp.Rational(1, 2)}, {"F": sp.sqrt}),
    (sp.Eq(F(t) - F(s), 0), {t: 4, s: 4}, LOG),
    (Pos(t) + s > 0, {t: 0, s: 0}, {"Pos": lambda a: sp.Integer(1)}),
]


def _outcome(call: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    try:
        return "value", call(*args)
    except Exception as exc:  # noqa: BLE001 - the type is what is compared
        return "raises", type(exc)


@pytest.mark.parametrize("formula, point, interpret", [(sp.Eq(t * F(t), 0), {t: 0}, LOG),
                                                       (sp.Ne(t * F(t), 0), {t: 0}, LOG)])
def test_a_zero_factor_times_an_interpreted_log_of_zero_is_decided_as_by_the_rounds(
        formula: Any, point: dict, interpret: dict) -> None:
    closed = evaluate(formula, point, interpret)
    assert closed == _rounds(formula, point, interpret)
    assert _truth(closed) is isinstance(formula, sp.Eq)


def test_an_interpretation_returning_an_application_is_interpreted_again() -> None:
    interpret = {"F": lambda a: G(a + 1), "G": lambda a: 2 * a}
    closed = evaluate(sp.Eq(F(t), 6), {t: 2}, interpret)
    assert closed is sp.true
    assert closed == _rounds(sp.Eq(F(t), 6), {t: 2}, interpret)


def test_the_nesting_limit_counts_levels_as_the_rounds_do() -> None:
    # F applied MAX_NESTING times to G(t) - G(s): at t = s the difference is 0 before any
    # interpretation, so the rounds interpret every F; a level over the limit stays unevaluated
    interpret = {**PLUS_ONE, "G": lambda a: sp.Integer(5)}
    inside = sp.Eq(_nest(F, MAX_NESTING, G(t) - G(s)), MAX_NESTING)
    assert evaluate(inside, {t: 0, s: 0}, interpret) is sp.true
    over = _nest(F, MAX_NESTING + 1, t)
    assert evaluate(over, {t: 0}, PLUS_ONE) == F(MAX_NESTING) == _rounds(over, {t: 0}, PLUS_ONE)
    deep = _nest(F, MAX_NESTING + 1, G(t) - G(s))
    assert evaluate(deep, {t: 0, s: 0}, interpret) == _rounds(deep, {t: 0, s: 0}, interpret)


def test_the_one_pass_agrees_with_the_rounds_and_hands_them_every_call_it_could_get_wrong(
        monkeypatch: pytest.MonkeyPatch) -> None:
    handed: list[Any] = []

    def rounds(formula: Any, values: Mapping[Any, Any], interpret: Mapping[str, Any]) -> Any:
        handed.append(formula)
        return _evaluate_in_rounds(formula, values, interpret)

    monkeypatch.setattr(lemmas, "_evaluate_in_rounds", rounds)
    cases = [(f, p, i, True) for f, p, i, _ in EDGES] + [(*c, False) for c in ORDINARY]
    cases += [(sp.Eq(F(t), 1), {t: 0}, {"F": _raises}, True),   # raises, as the rounds do
              # a non-finite number or a float in the formula or the point: no rewrite in
              # front of the value here, but the pass does not go on
              (F(t) < sp.oo, {t: 1}, LOG, True),
              (sp.Eq(F(t), s), {t: 1, s: sp.oo}, LOG, True),
              (sp.Eq(F(t), s), {t: 1, s: sp.Float(0.5)}, LOG, True),
              # a non-finite value, alone or inside an expression
              (F(t), {t: 0}, LOG, True),
              (F(t), {t: 1}, {"F": lambda a: sp.oo}, True),
              (F(t), {t: 1}, {"F": lambda a: -sp.oo}, True),
              (F(t), {t: 1}, {"F": lambda a: sp.nan}, True),
              (F(t), {t: 1}, {"F": lambda a: sp.oo * x}, True),
              # a rebuilt product that meets a pole left unevaluated in the formula: zoo*x
              (sp.Mul(F(t), x, sp.Pow(0, -1, evaluate=False), evaluate=False), {t: 1},
               {"F": lambda a: sp.Integer(1)}, True),
              (sp.Eq(s * F(t), 0), {t: 0, s: 0}, {"F": _raises}, True)]  # the rounds never call F
    for formula, point, interpret, to_rounds in cases:
        handed.clear()
        got = _outcome(evaluate, formula, point, interpret)
        want = _outcome(_rounds, formula, point, interpret)
        assert got == want, (formula, point)
        if got[0] == "value":
            assert _truth(got[1]) == _truth(want[1]), (formula, point)
        # the one pass answers the ordinary calls itself and hands every other one on
        assert bool(handed) is to_rounds, (formula, point)
    for formula, point, interpret, truth in EDGES:
        assert _truth(evaluate(formula, point, interpret)) is truth, (formula, point)
