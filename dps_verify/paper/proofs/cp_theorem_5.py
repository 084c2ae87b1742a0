"""CP Theorem 5 (§3.3; proof in App. A.2): sampled strongly-safe k-anonymization is
(beta, eps, d(k, beta, eps))-DPS for eps >= -ln(1 - beta), gamma = (e^eps - 1 + beta)/e^eps.

E = e^eps with E >= 1/(1 - beta).  n = copies of g(t) in D (t included), j = copies in S.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from fractions import Fraction
from math import ceil, comb, floor

import sympy as sp

from dps_verify.paper.proofs.core import (
    Step,
    Verdict,
    chain_control,
    exists_sym,
    given,
    induction,
    prove_sym,
    sympy_step,
    timed,
)

CLAIM = ("Sampling + strongly-safe k-anonymization is (beta, eps, d(k, beta, eps))-DPS for "
         "0 < beta < 1, eps >= -ln(1 - beta).")
REFERENCE = "CP Thm 5, §3.3 and App. A.2"
EXPECTED = Verdict.PROVED
SUMMARY = ("Every step is proved for all n, k (z3 over reals/integers, sympy for the binomial "
           "ratio and Pascal's rule); the worst-case bad mass equals the d formula. The d "
           "formula's n = n_m term over-counts (sums j > gamma n_m, not j >= k): an upper "
           "bound, so harmless.  Cross-check: exact max bad mass <= d for small cases.")

b, E, g = sp.symbols("beta E gamma", real=True)
n, j, k, nm = sp.symbols("n j k n_m", integer=True)
nr, jr = sp.symbols("n j", real=True)
kr, nmr = sp.symbols("k n_m", real=True)  # the n_m steps need no integrality
GAMMA = (E - 1 + b) / E
DOM = [b > 0, b < 1, E * (1 - b) >= 1]  # E >= 1/(1-beta)


@functools.cache
def _f(jj: int, nn: int, beta: Fraction) -> Fraction:
    return comb(nn, jj) * beta ** jj * (1 - beta) ** (nn - jj) if 0 <= jj <= nn else Fraction(0)


@functools.cache
def _tail(lo: int, nn: int, beta: Fraction) -> Fraction:
    """P[Bin(nn, beta) >= lo], exact."""
    return sum((_f(x, nn, beta) for x in range(max(lo, 0), nn + 1)), Fraction(0))


def _cross_check() -> tuple[Verdict, dict[str, str] | None, str]:
    """Exact (Fraction) worst bad mass over n <= 60 vs d, for rational beta and E."""
    worst = None
    for beta in (Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)):
        for e in (Fraction(2), Fraction(3), Fraction(5)):
            if e * (1 - beta) < 1:
                continue
            gam = (e - 1 + beta) / e
            for kk in range(1, 7):
                n_m = ceil(kk / gam - 1)
                d = max(_tail(floor(gam * nn) + 1, nn, beta) for nn in range(n_m, 61))
                for nn in range(1, 61):
                    # bad j: j >= k, j > gamma n and n(1-b) > E(n-j) -- an upper tail from
                    # the first such j (the conditions are monotone in j)
                    first = next((x for x in range(kk, nn + 1)
                                  if x > gam * nn and nn * (1 - beta) > e * (nn - x)), nn + 1)
                    bad = _tail(first, nn, beta)
                    first_minus = next((x for x in range(kk, nn) if x > gam * nn), nn)
                    bad_minus = _tail(first_minus, nn - 1, beta)
                    if max(bad, bad_minus) > d:
                        worst = {"beta": str(beta), "E": str(e), "k": str(kk), "n": str(nn)}
    if worst:
        return Verdict.REFUTED, worst, "bad mass exceeds d"
    return Verdict.BOUNDED, None, ("beta in {1/10,1/4,1/2}, E in {2,3,5}, k <= 6, n <= 60 "
                                   "(d's max taken over n_m..60): bad mass <= d everywhere")


# ------------------------------------------------------------- the chained formulas
# F(K, m) = F(K; m, beta) and f(i, m) = f(i; m, beta) are opaque functions here (z3 sees each
# application as a real); every formula below is built once by these functions and used by the
# step that proves it, the steps that assume it, and the controls.
F, f, T = sp.Function("F"), sp.Function("f"), sp.Function("T")
K, i = sp.symbols("K i", integer=True, nonnegative=True)
m = sp.Symbol("m", integer=True, nonnegative=True)
nn = sp.Symbol("n", integer=True, positive=True)
kk, nmi = sp.symbols("k n_m", integer=True, positive=True)


def pascal_pmf(i_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    """Pascal's rule for the pmf: f(i; n) = (1-b) f(i; n-1) + b f(i-1; n-1)."""
    return sp.Eq(f(i_, n_), (1 - b) * f(i_, n_ - 1) + b * f(i_ - 1, n_ - 1))


def summed(K_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    """The summed identity F(K; n) = (1-b) F(K; n-1) + b F(K-1; n-1)."""
    return sp.Eq(F(K_, n_), (1 - b) * F(K_, n_ - 1) + b * F(K_ - 1, n_ - 1))


def cumulative(K_: sp.Expr, m_: sp.Expr) -> sp.Basic:
    """F(K; m) = F(K-1; m) + f(K; m) (definition of the cdf)."""
    return sp.Eq(F(K_, m_), F(K_ - 1, m_) + f(K_, m_))


def tail(m_: sp.Expr) -> sp.Basic:
    """T(m) = P[Bin(m, beta) >= k] = 1 - F(k-1; m)."""
    return sp.Eq(T(m_), 1 - F(kk - 1, m_))


def below_nm(x: sp.Expr) -> sp.Basic:
    """The max-over-n claim at x: T(x) <= T(n_m)."""
    return sp.Le(T(x), T(nmi))


#: the j = 0 step: hypotheses (the summed identity at K = k - 1 and the cdf facts) and
#: conclusion, used by the step and its controls.
Fn, Fm, G = F(kk - 1, nn), F(kk - 1, nn - 1), F(kk - 2, nn - 1)
J0_HYPS = DOM + [Fm > 0, G >= 0, G <= Fm, summed(kk - 1, nn)]
J0_LOW, J0_HIGH = 1 - b, sp.Integer(1)
J0_CLAIM = sp.And(Fn / Fm >= J0_LOW, Fn / Fm <= J0_HIGH, 1 / E <= Fn / Fm)

nr, jr = sp.symbols("n j", real=True)
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (
    given("hypothesis", "CP Thm 5: 0 < beta < 1 and eps >= -ln(1 - beta), i.e. E(1 - beta) >= 1",
          *DOM)
    + given("definition", "gamma = (e^eps - 1 + beta)/e^eps (CP Thm 5)", sp.Eq(g, GAMMA))
    + given("setting", "k >= 1 (the suppression threshold)", kr >= 1)
    + given("definition", "n_m = ceil(k/gamma - 1): n_m >= k/gamma - 1 > n_m - 1",
            nmr >= kr / g - 1, nmr - 1 < kr / g - 1)
    + given("setting", "j of the n copies of g(t) are sampled: 0 <= j < n (j = n never "
            "breaks the ratio: the D_-t sample has at most n - 1)", jr >= 0, jr < nr)
    + given("definition", "F is the binomial cdf of the pmf f: F(K; m) = F(K-1; m) + f(K; m)",
            cumulative(K, m), over=(K, m))
    + given("definition", "empty sums: F(-1; m) = 0 and f(-1; m) = 0",
            sp.Eq(F(-1, m), 0), sp.Eq(f(-1, m), 0), over=(m,))
    + given("setting", "f(K; m) >= 0 and F(K-1; m) >= 0 (probabilities); F(K; m) >= "
            "f(0; m) = (1 - beta)^m > 0 for K >= 0", f(K, m) >= 0, F(K - 1, m) >= 0,
            F(K, m) > 0, over=(K, m))
    + given("definition", "T(m) = P[Bin(m, beta) >= k] = 1 - F(k-1; m), the bad mass for "
            "m <= n_m", tail(m), over=(m,))
)


@functools.cache
def _parts() -> tuple[Step, Step, Step]:
    """The summed identity's base and inductive step and the j = 0 step, discharged once per
    process; :func:`steps` and the controls use copies (the chaining check writes to them)."""
    return _summed_base(), _summed_step(), _j0_step()


def _fresh() -> tuple[Step, Step, Step]:
    base, step, j0 = _parts()
    return replace(base), replace(step), replace(j0)


def _summed_base() -> Step:
    return prove_sym(
        "summed Pascal, base K = 0",
        "F(0; n) = f(0; n) = (1-b) f(0; n-1) + b f(-1; n-1) = (1-b) F(0; n-1) + b F(-1; n-1).",
        summed(0, nn),
        [cumulative(0, nn), cumulative(0, nn - 1), sp.Eq(F(-1, nn), 0), sp.Eq(F(-1, nn - 1), 0),
         pascal_pmf(0, nn), sp.Eq(f(-1, nn - 1), 0)], over=(nn,))


def _summed_step() -> Step:
    return prove_sym(
        "summed Pascal, inductive step K -> K + 1",
        "F(K; n) = (1-b) F(K; n-1) + b F(K-1; n-1) (induction hypothesis) and Pascal's rule "
        "for f(K+1; n) give F(K+1; n) = (1-b) F(K+1; n-1) + b F(K; n-1).",
        summed(K + 1, nn),
        [summed(K, nn), pascal_pmf(K + 1, nn), cumulative(K + 1, nn), cumulative(K + 1, nn - 1),
         cumulative(K, nn - 1)], local=[summed(K, nn)], over=(K, nn))


def _j0_step() -> Step:
    return prove_sym(
        "j = 0 ratio in [1 - beta, 1]",
        "The summed identity at K = k - 1 (proved above, for every K >= 0), F(k-1; n-1) > 0 and "
        "0 <= F(k-2; n-1) <= F(k-1; n-1): the ratio F(k-1;n)/F(k-1;n-1) lies in "
        "[1 - beta, 1] (so in [e^-eps, e^eps]).",
        J0_CLAIM, J0_HYPS, derived=[summed(kk - 1, nn), G <= Fm])


def steps() -> list[Step]:
    out = [
        prove_sym("gamma > beta", "gamma - beta = (E - 1)(1 - beta)/E > 0.", GAMMA > b, DOM),
        prove_sym("gamma <= 1", "gamma <= 1 since beta <= 1.", GAMMA <= 1, DOM),
        prove_sym("0 < gamma < 1", "With gamma = (E - 1 + beta)/E: 0 < beta < gamma < 1.",
                  sp.And(g > b, g > 0, g < 1), DOM + [sp.Eq(g, GAMMA)]),
        sympy_step("pmf ratio", "f(j; n, beta)/f(j; n-1, beta) = n(1 - beta)/(n - j).",
                   sp.combsimp(sp.binomial(n, j) * (1 - b) ** (n - j)
                               / (sp.binomial(n - 1, j) * (1 - b) ** (n - 1 - j))),
                   n * (1 - b) / (n - j)),
        sympy_step("Pascal's rule", "C(n, j) = C(n-1, j) + C(n-1, j-1).",
                   sp.binomial(n, j), sp.binomial(n - 1, j) + sp.binomial(n - 1, j - 1)),
    ]
    # Pascal's rule for the pmf: the chained formula with f replaced by its closed form, both
    # sides divided by b^i (1-b)^(n-i) > 0 (beta declared positive: DOM gives 0 < beta < 1).
    bp = sp.Symbol("beta", positive=True)
    x, y = sp.symbols("x y")
    closed = sp.Lambda((x, y), sp.binomial(y, x) * bp ** x * (1 - bp) ** (y - x))
    rule = pascal_pmf(i, nn)
    scale = bp ** i * (1 - bp) ** (nn - i)
    out.append(sympy_step(
        "Pascal's rule for the pmf",
        "f(i; n) = (1-b) f(i; n-1) + b f(i-1; n-1) for every i >= 0, n >= 1: checked with f "
        "replaced by C(n, i) b^i (1-b)^(n-i) and both sides divided by b^i (1-b)^(n-i) > 0.",
        rule.lhs.replace(f, closed).subs(b, bp) / scale,
        rule.rhs.replace(f, closed).subs(b, bp) / scale, concludes=rule, over=(i, nn)))
    base, step, j0 = _fresh()
    out += [base, step, induction(
        "summed Pascal for every K >= 0",
        "Induction on K: the base K = 0 and the inductive step above give F(K; n) = "
        "(1-b) F(K; n-1) + b F(K-1; n-1) for every K >= 0 and n >= 1.",
        lambda x_: summed(x_, nn), K, 0, base, step, over=(K, nn))]
    out.append(prove_sym(
        "cdf is non-decreasing", "F(K-1; m) <= F(K; m), as f(K; m) >= 0.",
        F(K - 1, m) <= F(K, m), [cumulative(K, m), f(K, m) >= 0], over=(K, m)))
    out.append(j0)
    out.append(exists_sym(
        "pin: the j = 0 bounds are attained",
        "Both ends occur: F(k-2; n-1) = 0 (k = 1) gives the ratio 1 - beta, and F(k-2; n-1) = "
        "F(k-1; n-1) gives 1; the interval [1 - beta, 1] cannot be narrowed.",
        sp.And(sp.Eq(Fn / Fm, J0_LOW), sp.Eq(Fn.subs(kk, kk + 1) / Fm.subs(kk, kk + 1), J0_HIGH)),
        J0_HYPS + [h.subs(kk, kk + 1) for h in J0_HYPS[3:]]))
    out.append(prove_sym(
        "bad outcomes are exactly j > gamma n",
        "For 0 <= j < n: n(1-b)/(n-j) > E  <=>  j > gamma n; the lower side never fails.",
        sp.And(sp.Eq(nr * (1 - b) > E * (nr - jr), jr > GAMMA * nr),
               nr * (1 - b) / (nr - jr) >= 1 / E),
        DOM + [jr >= 0, jr < nr]))
    out.append(prove_sym(
        "n_m = ceil(k/gamma - 1)",
        "gamma n_m < k <= gamma (n_m + 1), and gamma(n_m + 1) < k + 1 (so the first bad j at "
        "n_m + 1 is k + 1).",
        sp.And(g * nmr < kr, kr <= g * (nmr + 1), g * (nmr + 1) < kr + 1),
        [g > 0, g < 1, kr >= 1, nmr >= kr / g - 1, nmr - 1 < kr / g - 1]))
    out.append(prove_sym(
        "n <= n_m: condition is j >= k",
        "For n <= n_m and j >= k: j > gamma n (so bad set = {k <= j <= n}).",
        jr > g * nr, [g > 0, g < 1, g * nmr < kr], premises=[nr <= nmr, jr >= kr]))
    out.append(prove_sym(
        "n >= n_m + 1: condition is j > gamma n",
        "For n >= n_m + 1, j > gamma n implies j >= k.",
        jr >= kr, [g > 0, g < 1, kr <= g * (nmr + 1)], premises=[nr >= nmr + 1, jr > g * nr]))
    out.append(prove_sym(
        "monotone for n <= n_m",
        "T(m+1) - T(m) = F(k-1; m) - F(k-1; m+1) = b f(k-1; m) >= 0, by the summed identity "
        "at (k - 1, m + 1) and the cdf definition.",
        sp.And(sp.Eq(T(m + 1), T(m) + b * f(kk - 1, m)), T(m + 1) >= T(m)),
        [b > 0, tail(m), tail(m + 1), summed(kk - 1, m + 1), cumulative(kk - 1, m),
         f(kk - 1, m) >= 0], over=(m,)))
    top = prove_sym("max over n: base n = n_m", "T(n_m) <= T(n_m).", below_nm(nmi))
    down = prove_sym(
        "max over n: inductive step n -> n - 1",
        "T(n) <= T(n_m) (induction hypothesis) and T(n - 1) <= T(n) (monotone) give "
        "T(n - 1) <= T(n_m).", below_nm(nn - 1), [below_nm(nn), T(nn) >= T(nn - 1)],
        local=[below_nm(nn)], over=(nn,))
    out += [top, down, induction(
        "max over n: every n <= n_m",
        "Induction down from n_m: for every n <= n_m the bad mass T(n) is at most the n_m term "
        "of d's max.", below_nm, nn, nmi, top, down, direction=-1,
        concludes=sp.Implies(nn <= nmi, below_nm(nn)))]
    out.append(prove_sym(
        "D_-t side is dominated",
        "Bad j for D_-t (j > gamma n) are bad at n - 1 too (j > gamma (n-1)): its mass is a "
        "term of the max over n.",
        jr > g * (nr - 1), [g > 0], premises=[jr > g * nr]))
    out.append(timed("exact cross-check", "Worst bad mass (D and D_-t) <= d on a finite grid.",
                     "exhaustive up to n = 60 (Fraction)", _cross_check,
                     expected=Verdict.BOUNDED, role="remark"))
    return out


def _mismatched_induction() -> Step:
    """The induction rule fed an inductive step that proves P(K + 2) (a relabelled copy of the
    proved step): the rule must report an ERROR, never conclude P(K) for every K."""
    base, step, _ = _fresh()
    wrong = replace(step, name="inductive step proving P(K + 2)", concludes=summed(K + 2, nn))
    out = induction("control: induction rule with a step that proves P(K + 2)",
                    "Base P(0) and a step P(K) -> P(K + 2) do not give P(K) for every K.",
                    lambda x_: summed(x_, nn), K, 0, base, wrong)
    out.expected = Verdict.ERROR
    return out


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        prove_sym("control: gamma > beta without eps >= -ln(1-beta)",
                  "gamma > 1 claimed (wrong constant).", GAMMA > 1, DOM, expected=ref),
        sympy_step("control: wrong pmf ratio", "f(j;n)/f(j;n-1) = n/(n - j).",
                   sp.combsimp(sp.binomial(n, j) * (1 - b) ** (n - j)
                               / (sp.binomial(n - 1, j) * (1 - b) ** (n - 1 - j))),
                   n / (n - j), expected=ref, at={n: 5, j: 2, b: sp.Rational(1, 2)}),
        chain_control("control: j = 0 step without the step proving its identity",
                      "The j = 0 step alone: its summed identity is neither given nor the "
                      "conclusion of an earlier proved step, so the chaining check must "
                      "reject it (ERROR), never PROVED.", [_fresh()[2]], GIVEN),
        chain_control("control: induction left open",
                      "Pascal's rule given, base and inductive step of the summed identity, "
                      "then the j = 0 step, but no induction rule: the induction hypothesis "
                      "is never discharged and the j = 0 step's identity is unproved.",
                      list(_fresh()), GIVEN + given("hypothesis", "(control) Pascal's rule",
                                                    pascal_pmf(i, nn), over=(i, nn))),
        _mismatched_induction(),
        prove_sym("control: contradictory hypotheses in the j = 0 step",
                  "The j = 0 step with G > F(k-1;n-1) added to G <= F(k-1;n-1): vacuous, so "
                  "the machinery must report an ERROR, never PROVED.",
                  J0_CLAIM, J0_HYPS + [G > Fm], expected=Verdict.ERROR),
        exists_sym("control: pin of a weakened j = 0 bound (ratio 1 - 2 beta)",
                   "The j = 0 pin against [1 - 2 beta, 1]: the ratio never reaches 1 - 2 beta, "
                   "so the pin must fail.", sp.Eq(Fn / Fm, J0_LOW - b), J0_HYPS,
                   expected=ref),
        prove_sym("control: n_m = floor(k/gamma - 1)",
                  "With floor instead of ceil, gamma n_m' < k <= gamma(n_m'+1) still holds.",
                  sp.And(g * nmr < kr, kr <= g * (nmr + 1)),
                  [g > 0, g < 1, kr >= 1, nmr <= kr / g - 1, nmr + 1 > kr / g - 1],
                  expected=ref),
    ]
