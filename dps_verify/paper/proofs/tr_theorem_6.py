"""TR Theorem 6 (§6): the Chernoff-based f-smooth bound for (k, beta)-SDGS:
d(k, beta, eps) <= exp(-k (ln(gamma/beta) - (gamma - beta)/gamma)) for eps >= eps0.

Uses the multiplicative Chernoff bound P[X >= gamma n] <= exp(-n(gamma ln(gamma/beta) -
(gamma - beta))) for X ~ Bin(n, beta), gamma > beta, as a cited lemma (not re-proved here).
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, comb, floor

import mpmath as mp
import sympy as sp

from dps_verify.core.params import in_paper_regime
from dps_verify.measures.sdgs import n_min
from dps_verify.paper.proofs.core import Step, Verdict, given, prove_sym, sympy_step, timed

CLAIM = "d(k, beta, eps) <= exp(-k(ln(gamma/beta) - (gamma - beta)/gamma)) (f-smooth SDGS)."
REFERENCE = "TR Thm 6, §6"
EXPECTED = Verdict.PROVED
SUMMARY = ("The final bound is proved (given the Chernoff lemma): at n = n_m < k/gamma the "
           "tail is P[X >= k] and k/n_m > gamma, so the bound still holds.  The printed "
           "approximation step 'd ~ max_{n >= k/gamma}' is refuted as an inequality (exact "
           "witness).  delta0 in the statement has a typo: gamma(1 - beta) for gamma(1) - beta.")

u, gm, bt, nn, kk = sp.symbols("u gamma beta n k", positive=True)


#: the 'WolframAlpha' fact of TR §6 as displayed and as checked (one definition).
PHI_CLAIM = sp.Gt(gm * sp.log(gm / bt) - (gm - bt), 0)


def _phi_positive(claim: sp.Basic = PHI_CLAIM) -> tuple[Verdict, dict[str, str] | None, str]:
    """Reads ``claim`` (lhs > 0 with lhs = beta h(gamma/beta), h(u) = u ln u - u + 1) and
    proves it for gamma != beta: h(1) = 0, h' = ln u, so h > 0 off u = 1.  A flipped or
    altered display is checked as displayed (and refuted at gamma = 1/2, beta = 1/4)."""
    h = u * sp.log(u) - u + 1
    d1 = sp.simplify(sp.diff(h, u))
    v, w = sp.symbols("v w", positive=True)
    shape = sp.expand(sp.expand_log(claim.lhs - claim.rhs - bt * h.subs(u, gm / bt), force=False))
    calculus = (h.subs(u, 1) == 0 and d1 == sp.log(u)
                and sp.log(1 + v).is_positive and sp.log(1 / (1 + w)).is_negative)
    if isinstance(claim, sp.StrictGreaterThan) and shape == 0 and calculus:
        return Verdict.PROVED, None, (
            "gamma ln(gamma/beta) - (gamma - beta) = beta h(gamma/beta) (sympy expand, positive "
            "symbols); h strictly decreasing on (0,1), increasing on (1,inf), h(1) = 0")
    pt = {gm: sp.Rational(1, 2), bt: sp.Rational(1, 4)}
    with mp.workdps(30):
        value = bool(claim.subs(pt).evalf(30))
    if not value:
        return Verdict.REFUTED, {"gamma": "1/2", "beta": "1/4",
                                 "claim at the point": str(claim.subs(pt))}, "false as displayed"
    return Verdict.OPEN, None, "the displayed claim is not the form this check proves"


def _f(j: int, n: int, b: Fraction) -> Fraction:
    return comb(n, j) * b ** j * (1 - b) ** (n - j)


def _approx_witness() -> tuple[Verdict, dict[str, str] | None, str]:
    """k = 2, beta = 1/10, E = 2: exact d >= tail at n_m = 3 = 7/250 = 0.028, while every
    n >= k/gamma has tail_{j >= gamma n} <= 0.00856 (exact up to n = 40, Chernoff beyond)."""
    k, b, e = 2, Fraction(1, 10), Fraction(2)
    g = (e - 1 + b) / e
    # n_m = ceil(k/gamma - 1) in the E = e^eps form: E is rational here, so eps = ln E is not and
    # measures.sdgs.n_min (which takes a rational eps) cannot serve; gamma is an exact Fraction.
    n_m = ceil(k / g - 1)
    d_low = sum(_f(j, n_m, b) for j in range(floor(g * n_m) + 1, n_m + 1))
    lo = ceil(k / g)
    approx = max(sum(_f(j, n, b) for j in range(ceil(g * n), n + 1)) for n in range(lo, 41))
    with mp.workdps(30):
        gm_, bm = mp.mpf(g.numerator) / g.denominator, mp.mpf(1) / 10
        c = gm_ * mp.log(gm_ / bm) - (gm_ - bm)
        tail_beyond = mp.e ** (-41 * c)  # Chernoff bound for every n > 40
        refuted = d_low > approx and mp.mpf(d_low.numerator) / d_low.denominator > tail_beyond
    return (Verdict.REFUTED if refuted else Verdict.OPEN), {
        "k": "2", "beta": "1/10", "E": "2", "gamma": str(g), "n_m": str(n_m),
        "d >= tail at n_m": str(d_low), "max_{n>=k/gamma} tail_{j>=gamma n}": str(approx),
        "Chernoff bound for n > 40": mp.nstr(tail_beyond, 6)}, "n_m < k/gamma is dropped"


def _grid() -> tuple[Verdict, dict[str, str] | None, str]:
    with mp.workdps(30):
        for k in range(1, 11):
            for bq in (Fraction(1, 20), Fraction(1, 5), Fraction(1, 2)):
                b = mp.mpf(bq.numerator) / bq.denominator
                for eq in (Fraction(x, 4) for x in range(1, 13)):
                    if not in_paper_regime(bq, eq):  # the one regime-edge check (core.params)
                        continue
                    eps = mp.mpf(eq.numerator) / eq.denominator
                    e = mp.e ** eps
                    g = (e - 1 + b) / e
                    n_m = n_min(k, bq, eq)  # the one n_m (measures.sdgs), exact
                    bound = mp.e ** (-k * (mp.log(g / b) - (g - b) / g))
                    for n in range(n_m, n_m + 8):
                        j0 = int(mp.floor(g * n)) + 1
                        t = mp.fsum(mp.binomial(n, j) * b ** j * (1 - b) ** (n - j)
                                    for j in range(j0, n + 1))
                        if t > bound:
                            return Verdict.REFUTED, {"k": str(k), "beta": str(b),
                                                     "eps": str(eps), "n": str(n)}, ""
    return Verdict.BOUNDED, None, "k <= 10, beta in {1/20,1/5,1/2}, eps in {1/4..3}, n = n_m..n_m+7"


g_ = sp.Symbol("gamma", real=True)
n_, k_, nm_, c_ = sp.symbols("n k n_m c", real=True)
#: the repair's defining inequalities of n_m (CP Thm 5's n_m step) and its setting.
NM_DEF = [g_ * nm_ < k_, k_ <= g_ * (nm_ + 1)]
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "0 < gamma < 1, k >= 1, n_m >= 1", g_ > 0, g_ < 1, k_ >= 1, k_ > 0,
               nm_ >= 1)
         + given("definition", "n_m = ceil(k/gamma - 1): gamma n_m < k <= gamma (n_m + 1) "
                 "(cp-theorem-5, step 'n_m = ceil(k/gamma - 1)')", *NM_DEF)
         + given("prose-link", "c = gamma ln(gamma/beta) - (gamma - beta), positive by step 1",
                 c_ > 0))


def steps() -> list[Step]:
    return [
        timed("gamma ln(gamma/beta) - (gamma - beta) > 0 (gamma != beta)",
              "The 'WolframAlpha' fact, via h(u) = u ln u - u + 1 with u = gamma/beta.",
              "sympy (derivative + sign)", _phi_positive, expr=PHI_CLAIM),
        sympy_step("Chernoff rewriting",
                   "beta n((g/b) ln(g/b) - (g/b - 1)) = n(g ln(g/b) - (g - b)).",
                   bt * nn * ((gm / bt) * sp.log(gm / bt) - (gm / bt - 1)),
                   nn * (gm * sp.log(gm / bt) - (gm - bt))),
        sympy_step("exponent at n = k/gamma",
                   "(k/g)(g ln(g/b) - (g - b)) = k(ln(g/b) - (g - b)/g).",
                   (kk / gm) * (gm * sp.log(gm / bt) - (gm - bt)),
                   kk * (sp.log(gm / bt) - (gm - bt) / gm)),
        timed("approximation step as an inequality",
              "d(k,b,eps) <= max_{n >= k/gamma} sum_{j >= gamma n} f(j; n, b).",
              "exact witness (Fraction) + Chernoff tail", _approx_witness,
              expected=Verdict.REFUTED, role="remark"),
        prove_sym("repair: n_m tail is P[X >= k]",
                  "gamma n_m < k and gamma n_m >= k - gamma >= k - 1: the first j > gamma n_m "
                  "is k, so the n_m term is P[X >= k] with threshold ratio k/n_m > gamma.",
                  sp.And(g_ * nm_ >= k_ - 1, k_ / nm_ > g_),
                  [g_ > 0, g_ < 1, k_ >= 1, nm_ >= 1, *NM_DEF]),
        sympy_step("repair: exponent increasing in the threshold",
                   "d/dg [ln(g/b) - (g - b)/g] = (g - b)/g^2 > 0 for g > b, so a larger "
                   "threshold k/n_m only shrinks the Chernoff bound below exp(-k phi(gamma)).",
                   sp.diff(sp.log(gm / bt) - (gm - bt) / gm, gm), (gm - bt) / gm ** 2),
        prove_sym("repair: n >= k/gamma",
                  "For n >= k/gamma: exp(-n c) <= exp(-(k/gamma) c) as c > 0 (on exponents).",
                  n_ * c_ >= (k_ / g_) * c_, [g_ > 0, k_ > 0, c_ > 0],
                  premises=[n_ >= k_ / g_]),
        timed("numeric cross-check", "exact d terms vs the bound on a grid.",
              "mpmath grid", _grid, expected=Verdict.BOUNDED, role="remark"),
    ]


def negative_controls() -> list[Step]:
    g_ = sp.Symbol("gamma", real=True)
    k_, nm = sp.symbols("k n_m", integer=True)
    return [
        sympy_step("control: Chernoff rewriting with beta dropped",
                   "beta n(...) = n(g ln(g/b) - g).",
                   bt * nn * ((gm / bt) * sp.log(gm / bt) - (gm / bt - 1)),
                   nn * (gm * sp.log(gm / bt) - gm), expected=Verdict.REFUTED,
                   at={bt: sp.Rational(1, 2), gm: 1, nn: 1}),
        prove_sym("control: n_m >= k/gamma", "Claim n_m >= k/gamma (false: n_m may be below).",
                  nm >= k_ / g_,
                  [g_ > 0, g_ < 1, k_ >= 1, nm >= 1, g_ * nm < k_, k_ <= g_ * (nm + 1)],
                  expected=Verdict.REFUTED),
    ]
