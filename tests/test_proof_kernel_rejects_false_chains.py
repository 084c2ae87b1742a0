"""The proof kernel (dps_verify/paper/kernel/core.py) never proves a false chain.

Each test builds a small theorem whose final claim is FALSE with the public helpers (an induction
whose conclusion or step does not match, a fixed parameter used as an index, a substitution into a
bound variable, an identity off its domain, a certificate not tied to what it concludes) and
checks that the kernel rejects it (ERROR or not PROVED), never PROVED; honest versions still prove.  The solver-backed steps are real
(z3 + cvc5), but each formula is tiny.
"""

from __future__ import annotations

import sympy as sp

from dps_verify.paper.kernel.core import (
    Fact,
    Step,
    Verdict,
    aggregate,
    check_chain,
    given,
    induction,
    prove_sym,
)

y = sp.Symbol("y", real=True)
k = sp.Symbol("k", integer=True, nonnegative=True)
A = sp.Function("A")  # A(k) = k y, opaque to the solvers


def adef(x: sp.Expr) -> sp.Basic:
    return sp.Eq(A(x), x * y)


AFACT = given("definition", "A(k) = k y for every k", adef(k), over=(k,))
YPOS = given("hypothesis", "y >= 0", y >= 0)


def verdict_of(steps: list[Step], facts: list[Fact]) -> Verdict:
    check_chain(steps, facts)
    return aggregate(steps)


def le3(x: sp.Expr) -> sp.Basic:
    """P(k): k y <= 3 y, false for k >= 4 when y > 0."""
    return A(x) <= 3 * y


# ------------------------------------------ induction: the conclusion is the formula, guarded


def test_induction_override_with_an_arbitrary_formula_is_an_error():
    """base 0 y >= 0 and step k y >= 0 => (k+1) y >= 0 cannot conclude y <= -1."""
    form = lambda kk: kk * y >= 0  # noqa: E731
    base = prove_sym("base", "", form(0), [y >= 0])
    step = prove_sym("step", "", form(k + 1), [form(k), y >= 0], local=[form(k)], over=(k,))
    ind = induction("P(k) for every k", "", form, k, 0, base, step, over=(k,),
                    concludes=(y <= -1))
    final = prove_sym("final: y <= -1", "", y <= -1, [y <= -1])
    assert ind.verdict is Verdict.ERROR
    assert verdict_of([base, step, ind, final], YPOS) is Verdict.ERROR
    assert final.verdict is Verdict.ERROR


def _down_parts(top_at):
    """A downward induction T(n) <= T(n_m) from n_m with the step n -> n - 1 (CP Thm 5's max
    over n), T(n - 1) <= T(n) given for every n >= 1."""
    T = sp.Function("T")
    nn = sp.Symbol("n", integer=True, positive=True)
    nm = sp.Symbol("n_m", integer=True, positive=True)
    m = sp.Symbol("m", integer=True, nonnegative=True)

    def below(x):
        return T(x) <= T(nm)

    facts = given("hypothesis", "T non-decreasing", T(nn) >= T(nn - 1), over=(nn,))
    top = prove_sym("top", "", below(nm))
    down = prove_sym("down", "", below(nn - 1), [below(nn), T(nn) >= T(nn - 1)],
                     local=[below(nn)], over=(nn,))
    ind = induction("every n <= n_m", "", below, nn, nm, top, down, direction=-1,
                    concludes=sp.Implies(m <= top_at(nm), below(m)), over=(m,))
    return facts, [top, down, ind]


def test_downward_override_renamed_with_its_guard_is_accepted():
    facts, steps = _down_parts(lambda nm: nm)
    assert verdict_of(steps, facts) is Verdict.PROVED


def test_downward_override_widened_past_the_start_is_an_error():
    """Mutant M4b: the guard m <= n_m + 1 claims T(n_m + 1) <= T(n_m)."""
    facts, steps = _down_parts(lambda nm: nm + 1)
    assert steps[-1].verdict is Verdict.ERROR
    assert verdict_of(steps, facts) is Verdict.ERROR


# ------------------------------------------------- induction: base and step are matched


def test_inductive_step_with_an_extra_local_hypothesis_is_an_error():
    """local = [P(k), k <= 2] would prove P(5) (so y <= 0) from y >= 0."""
    base = prove_sym("base", "", le3(0), [adef(0), y >= 0])
    step = prove_sym("step", "", le3(k + 1), [le3(k), k <= 2, adef(k), adef(k + 1), y >= 0],
                     local=[le3(k), k <= 2], over=(k,))
    ind = induction("P(k) for every k", "", le3, k, 0, base, step, over=(k,))
    final = prove_sym("final: y <= 0", "", y <= 0, [le3(5), adef(5), y >= 0])
    assert ind.verdict is Verdict.ERROR
    assert verdict_of([base, step, ind, final], YPOS + AFACT) is Verdict.ERROR


def test_induction_from_above_the_minimum_carries_its_guard():
    """from start = 1 the conclusion is k >= 1 => P(k); its use at k = 0 is unlinked."""
    form = lambda kk: A(kk) >= y  # noqa: E731
    base = prove_sym("base k = 1", "", form(1), [adef(1), y >= 0])
    step = prove_sym("step", "", form(k + 1), [form(k), adef(k), adef(k + 1), y >= 0],
                     local=[form(k)], over=(k,))
    ind = induction("P(k) for every k >= 1", "", form, k, 1, base, step, over=(k,))
    assert ind.concludes == sp.Implies(k >= 1, form(k))
    final = prove_sym("final: y <= 0", "", y <= 0, [form(0), adef(0)])
    assert verdict_of([base, step, ind, final], YPOS + AFACT) is Verdict.ERROR
    assert final.verdict is Verdict.ERROR
    # an explicit unguarded conclusion is refused
    bad = induction("P(k) for every k", "", form, k, 1, base, step, over=(k,),
                    concludes=form(k))
    assert bad.verdict is Verdict.ERROR


def test_upward_induction_below_the_declared_range_is_an_error():
    """A positive variable: the step does not cover 0 -> 1, so a base at 0 proves nothing."""
    kp = sp.Symbol("k", integer=True, positive=True)
    form = lambda kk: A(kk) >= 0  # noqa: E731
    base = prove_sym("base", "", form(0), [adef(0)])
    step = prove_sym("step", "", form(kp + 1), [form(kp), adef(kp), adef(kp + 1), y >= 0],
                     local=[form(kp)], over=(kp,))
    assert induction("all", "", form, kp, 0, base, step, over=(kp,)).verdict is Verdict.ERROR


def test_inductive_step_matched_only_by_name_is_an_error():
    """a listed harmless step named 'step' must not stand for the hidden one."""
    base = prove_sym("base", "", le3(0), [adef(0), y >= 0])
    listed = prove_sym("step", "", y >= 0, [y >= 0])
    hidden = prove_sym("step", "", le3(k + 1), [le3(k), k <= 2, adef(k), adef(k + 1), y >= 0],
                       local=[le3(k)], over=(k,))
    ind = induction("P(k) for every k", "", le3, k, 0, base, hidden, over=(k,))
    final = prove_sym("final: y <= 0", "", y <= 0, [le3(5), adef(5), y >= 0])
    assert verdict_of([base, listed, ind, final], YPOS + AFACT) is Verdict.ERROR
    assert ind.verdict is Verdict.ERROR


def test_honest_induction_still_proves():
    form = lambda kk: A(kk) >= 0  # noqa: E731
    base = prove_sym("base", "", form(0), [adef(0)])
    step = prove_sym("step", "", form(k + 1), [form(k), adef(k), adef(k + 1), y >= 0],
                     local=[form(k)], over=(k,))
    ind = induction("P(k) for every k", "", form, k, 0, base, step, over=(k,))
    use = prove_sym("use at 5", "", 5 * y >= 0, [form(5), adef(5)])
    assert ind.concludes == form(k)
    assert verdict_of([base, step, ind, use], YPOS + AFACT) is Verdict.PROVED


# ------------------------------------------------- fixed parameters are never instantiated


def test_fixed_parameter_is_not_an_index_variable():
    """k <= 2 about the fixed k, re-proved by a step stated for every m, must not serve a
    step stated for every k."""
    m = sp.Symbol("m", integer=True, nonnegative=True)
    facts = given("hypothesis", "k <= 2 (fixed k)", k <= 2) + YPOS + AFACT
    s1 = prove_sym("s1: for every m, k <= 2 and m >= 0", "", sp.And(k <= 2, m >= 0), [k <= 2],
                   over=(m,))
    base = prove_sym("base", "", le3(0), [adef(0), y >= 0])
    step = prove_sym("step (for every k)", "", le3(k + 1),
                     [le3(k), k <= 2, adef(k), adef(k + 1), y >= 0], local=[le3(k)], over=(k,))
    ind = induction("P(k) for every k", "", le3, k, 0, base, step, over=(k,))
    final = prove_sym("final: y <= 0", "", y <= 0, [le3(5), adef(5), y >= 0])
    assert verdict_of([s1, base, step, ind, final], facts) is Verdict.ERROR
    assert step.verdict is Verdict.ERROR


# --------------------------------------------- substitution never captures a bound variable


def test_substitution_never_captures_a_bound_variable():
    """G(n) = sum_i a(i) n at n := i is not G(i) = sum_i a(i) i."""
    i, n = sp.symbols("i n", integer=True, nonnegative=True)
    a, G = sp.Function("a"), sp.Function("G")
    fact = sp.Eq(G(n), sp.Sum(a(i) * n, (i, 0, 2)))
    target = sp.Eq(G(i), sp.Sum(a(i) * i, (i, 0, 2)))
    from dps_verify.paper.kernel.core import _seal, instance_of
    assert instance_of(fact, (n,), target) is None
    assert instance_of(fact, (n,), fact.xreplace({n: 3})) == {"n": "3"}  # a proper instance
    # a step (sealed as a constructor would) that assumes the captured 'instance'
    s = _seal(Step("uses the captured instance", "", verdict=Verdict.PROVED, assumes=(target,),
                   concludes=sp.Eq(G(i), G(i), evaluate=False)))
    assert verdict_of([s], [Fact(fact, "definition of G", "definition", over=(n,))]) \
        is Verdict.ERROR


# ---------------------------------------------- sympy identities only where both sides exist

_n, _k = sp.symbols("n k", integer=True)
_x = sp.Symbol("x", real=True)
_np = sp.Symbol("n", integer=True, positive=True)
_n0, _k0, _i0 = sp.symbols("n k i", integer=True, nonnegative=True)
_bp = sp.Symbol("beta", positive=True)


def _identity(lhs, rhs):
    from dps_verify.paper.kernel.core import sympy_identity
    return sympy_identity(lhs, rhs)[0]


def test_false_identities_on_integer_and_real_domains_are_refused():
    """cert_probe.py: each is false (or undefined) somewhere on the declared domain."""
    false = [
        (sp.binomial(_n, _k), sp.binomial(_n, _n - _k)),  # n = -1, k = 0: 1 vs 0
        (sp.gamma(_n + 1) / sp.gamma(_n), _n),  # poles at n <= 0
        (sp.factorial(_n) / sp.factorial(_n - 1), _n),  # (-1)! at n = 0
        (sp.gamma(_n0 + 1) / sp.gamma(_n0), _n0),  # gamma(0) at n = 0
        (sp.Mul(_x, sp.Pow(_x, -1, evaluate=False), evaluate=False), sp.Integer(1)),  # x = 0
        ((_n - _k) * sp.binomial(_n, _k), _n * sp.binomial(_n - 1, _k)),  # C(-1, k): not stated
    ]
    for lhs, rhs in false:
        assert _identity(lhs, rhs) is not Verdict.PROVED, (lhs, rhs)


def test_true_identities_with_their_assumptions_stated_still_pass():
    assert _identity(sp.binomial(_n0, _k0), sp.binomial(_n0, _n0 - _k0)) is Verdict.PROVED
    assert _identity(sp.factorial(_np) / sp.factorial(_np - 1), _np) is Verdict.PROVED
    # Pascal's rule for n >= 1 (CP Thm 5)
    j = sp.Symbol("j", integer=True)
    assert _identity(sp.binomial(_np, j),
                     sp.binomial(_np - 1, j) + sp.binomial(_np - 1, j - 1)) is Verdict.PROVED
    # the pmf ratio f(i; n) (n - i) = n (1 - b) f(i; n - 1), closed forms divided by the
    # common factor b^i (1 - b)^(n - i) (as CP Thm 5 states it)
    def pmf(a, m):
        return sp.binomial(m, a) * _bp ** a * (1 - _bp) ** (m - a)
    scale = _bp ** _i0 * (1 - _bp) ** (_np - _i0)
    assert _identity(sp.powsimp(pmf(_i0, _np) * (_np - _i0) / scale),
                     sp.powsimp(_np * (1 - _bp) * pmf(_i0, _np - 1) / scale)) is Verdict.PROVED
    # CP Thm 1's factorisation: 1/E on both sides (a common denominator)
    E, b = sp.symbols("E beta", real=True)
    assert _identity((E + 1 / E - 2) * (b - b ** 2),
                     (E - 1) ** 2 * b * (1 - b) / E) is Verdict.PROVED


# ------------------------------------------------ certificates are tied to their conclusions

_p, _q = sp.Function("p"), sp.Function("q")
_s = sp.Symbol("s", integer=True, nonnegative=True)
_b = sp.Symbol("beta", real=True)
_P_CLOSED = sp.Eq(_p(_s), _b ** _s * (1 - _b))
_Q_CLOSED = sp.Eq(_q(_s), _b ** (_s + 1) * (1 - _b))


def test_untied_sympy_conclusion_is_an_error():
    """a certificate of 1 = 1 recorded as y = -1, then y <= -1 'follows'."""
    from dps_verify.paper.kernel.core import sympy_step
    s = sympy_step("certificate 1 = 1", "", sp.Integer(1), sp.Integer(1), concludes=sp.Eq(y, -1))
    final = prove_sym("final: y <= -1", "", y <= -1, [sp.Eq(y, -1)])
    assert s.verdict is Verdict.ERROR
    assert verdict_of([s, final], YPOS) is Verdict.ERROR


def test_trivial_certificate_does_not_certify_a_nontrivial_conclusion():
    """The shape of a support fact widened to x >= m: sympy evaluated the certified sides to 0 = 0 at construction."""
    from dps_verify.paper.kernel.core import sympy_step
    m = sp.Symbol("m", integer=True, nonnegative=True)
    s = sympy_step("0 = 0", "", sp.Integer(0), sp.Integer(0),
                   concludes=sp.Implies(_s >= m, sp.Eq(_p(_s), 0)), over=(_s, m))
    assert s.verdict is Verdict.ERROR


def test_closed_form_certificate_is_tied_to_its_conclusion():
    """CP Thm 1's split: q(s) = b p(s) is certified with p, q replaced by their closed forms;
    a mutant with the weights changed in the conclusion only is an ERROR."""
    from dps_verify.paper.kernel.core import sympy_instance, sympy_step
    facts = given("definition", "closed forms", _P_CLOSED, _Q_CLOSED, over=(_s,))
    good = sympy_instance("split", "", sp.Eq(_q(_s), _b * _p(_s)),
                          definitions=[_P_CLOSED, _Q_CLOSED], over=(_s,))
    assert verdict_of([good], facts) is Verdict.PROVED
    # the same certified sides recorded with another weight
    lhs, rhs = _b ** (_s + 1) * (1 - _b), _b * _b ** _s * (1 - _b)
    bad = sympy_step("split (1 - b)", "", lhs, rhs, concludes=sp.Eq(_q(_s), (1 - _b) * _p(_s)),
                     definitions=[_P_CLOSED, _Q_CLOSED], over=(_s,))
    assert bad.verdict is Verdict.ERROR
    wrong = sympy_instance("split (1 - b)", "", sp.Eq(_q(_s), (1 - _b) * _p(_s)),
                           definitions=[_P_CLOSED, _Q_CLOSED], over=(_s,))
    assert wrong.verdict is not Verdict.PROVED
    # the closed forms must be given (for every s), not merely stated by the step
    assert verdict_of([sympy_instance("split", "", sp.Eq(_q(_s), _b * _p(_s)),
                                      definitions=[_P_CLOSED, _Q_CLOSED], over=(_s,))],
                      YPOS) is Verdict.ERROR


def test_support_range_change_of_variable_is_checked():
    """CP Thm 5's 'pmf above its support': x > m via x = m + 1 + r; the mutant widened to x >= m is an
    ERROR."""
    from dps_verify.paper.kernel.core import sympy_instance
    f = sp.Function("f")
    x = sp.Symbol("x", integer=True)
    m = sp.Symbol("m", integer=True, nonnegative=True)
    r = sp.Symbol("r", integer=True, nonnegative=True)
    closed = sp.Eq(f(x, m), sp.binomial(m, x) * _b ** x * (1 - _b) ** (m - x))
    facts = given("definition", "f's closed form", closed, over=(x, m))
    good = sympy_instance("support", "", sp.Implies(x > m, sp.Eq(f(x, m), 0)),
                          definitions=[closed], change=(x, m + 1 + r), over=(x, m))
    assert verdict_of([good], facts) is Verdict.PROVED
    m8 = sympy_instance("support (x >= m)", "", sp.Implies(x >= m, sp.Eq(f(x, m), 0)),
                        definitions=[closed], change=(x, m + 1 + r), over=(x, m))
    assert m8.verdict is Verdict.ERROR


def test_timed_certificate_is_tied_to_its_conclusion():
    """TR Thm 6's phi step: a custom certificate of (expr > 0) may conclude phi > 0 only if
    expr is phi's definition."""
    from dps_verify.paper.kernel.core import timed
    g, bb = sp.symbols("gamma beta", real=True)
    phi = sp.Function("phi")
    phi_def = sp.Eq(phi(g, bb), g * sp.log(g / bb) - g + bb)
    region = sp.And(bb > 0, g > bb)

    def ok():
        return Verdict.PROVED, None, "certificate"

    def deciding(formula):
        return lambda: (Verdict.PROVED, None, "certificate", formula)

    concl = sp.Implies(region, phi(g, bb) > 0)
    good = timed("phi > 0", "", "custom", deciding(sp.Implies(region, phi_def.rhs > 0)),
                 concludes=concl, definitions=[phi_def])
    assert good.verdict is Verdict.PROVED
    facts = given("definition", "phi", phi_def)
    assert verdict_of([good], facts) is Verdict.PROVED
    other = sp.Implies(region, phi_def.rhs + (g - bb) ** 2 > 0)  # certified something else
    bad = timed("phi > 0", "", "custom", deciding(other), concludes=concl,
                definitions=[phi_def])
    assert bad.verdict is Verdict.ERROR
    assert timed("phi > 0", "", "custom", ok, concludes=concl).verdict is Verdict.ERROR


def test_tr_theorem_6_phi_step_concludes_only_what_it_certifies():
    """_phi_step certifies its displayed claim; it may conclude phi > 0 only when that claim
    is phi's definition (here a different expression, beta h(gamma/beta) > 0, is certified)."""
    from dps_verify_proofs import tr_theorem_6 as t6
    assert t6._phi_step().verdict is Verdict.PROVED
    other = sp.Gt(t6.b_ * t6.h_true(t6.g_ / t6.b_), 0)
    assert t6._phi_step("other claim", claim=other).verdict is Verdict.ERROR


def test_conclusion_changed_after_the_check_is_an_error():
    """A step's conclusion (or its index variables, or a dropped assumption) set by hand after
    its check ran is not what was certified."""
    from dataclasses import replace
    s1 = prove_sym("y >= 0", "", y >= 0, [y >= 0])
    s1.concludes = y <= -1
    final = prove_sym("final", "", y <= -1, [y <= -1])
    assert verdict_of([s1, final], YPOS) is Verdict.ERROR
    s2 = replace(prove_sym("y >= 0", "", y >= 0, [y >= 0]), concludes=y <= -1)
    assert verdict_of([s2], YPOS) is Verdict.ERROR
    s3 = prove_sym("y >= 0", "", y >= 0, [y >= 0])
    s3.assumes = ()
    assert verdict_of([s3], []) is Verdict.ERROR
    s4 = prove_sym("y >= 0", "", y >= 0, [y >= 0])
    assert verdict_of([s4], YPOS) is Verdict.PROVED
