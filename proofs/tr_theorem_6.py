"""TR Theorem 6 (§6): the Chernoff-based f-smooth bound for (k, beta)-SDGS:
d(k, beta, eps) <= exp(-k (ln(gamma/beta) - (gamma - beta)/gamma)) for eps >= eps0.

Uses the multiplicative Chernoff bound P[X >= gamma n] <= exp(-n(gamma ln(gamma/beta) -
(gamma - beta))) for X ~ Bin(n, beta), gamma > beta, as a cited lemma (not re-proved here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from math import ceil, comb, floor
from typing import Any

import mpmath as mp
import sympy as sp

from dps_verify.core.params import in_paper_regime
from dps_verify.paper.kernel.consistency import Model
from dps_verify.paper.kernel.core import (
    Step,
    Verdict,
    chain_control,
    given,
    prove_sym,
    sympy_step,
    timed,
)
from dps_verify.paper.kernel.lemmas import at_points
from dps_verify.paper.kernel.statement import Statement, formulas_of
from dps_verify.worstcase.sdgs import n_min

CLAIM = "d(k, beta, eps) <= exp(-k(ln(gamma/beta) - (gamma - beta)/gamma)) (f-smooth SDGS)."
REFERENCE = "TR Thm 6, §6"
EXPECTED = Verdict.PROVED
SUMMARY = ("The bound is chained: phi(gamma, beta) > 0 by a sympy certificate "
           "(h(1) = 0, h' = ln u > 0), c = phi > 0, and the last step concludes every term of "
           "d's max <= e^(-k phi/gamma) (z3 + cvc5): for n >= n_m + 1 (so n >= k/gamma) from the "
           "Chernoff lemma at gamma and e^x increasing; for n = n_m, whose term is P[X >= k] "
           "(threshold k/n_m > gamma), from the lemma at k/n_m and phi(t)/t non-decreasing "
           "(sympy certificate).  e^(-k phi/gamma) is the displayed exp(-k(ln(gamma/beta) - "
           "(gamma - beta)/gamma)) (certificate); d <= bound is a step from the supremum's "
           "least-upper-bound property (d is defined as the sup: upper bound and least).  "
           "Taken on trust (lemmas): the multiplicative Chernoff bound (cited by TR §6; "
           "spot-checked exactly at 3 points, a remark), e^x increasing, and the event comparisons P[X > gamma n] <= P[X >= gamma n], "
           "term(n_m) = P[X >= k].  The printed approximation step 'd ~ max_{n >= k/gamma}' is "
           "refuted as an inequality (exact witness).  delta0 in the statement has a typo: "
           "gamma(1 - beta) for gamma(1) - beta.")

u, gm, bt, nn, kk = sp.symbols("u gamma beta n k", positive=True)


g_, b_, E_ = sp.symbols("gamma beta E", real=True)
n_, k_, nm_, c_ = sp.symbols("n k n_m c", real=True)
#: phi(gamma, beta) = gamma ln(gamma/beta) - (gamma - beta), the Chernoff exponent per record
#: (an opaque function for z3, defined by PHI_DEF; its logarithm never reaches a solver).
phi = sp.Function("phi")
#: the 'WolframAlpha' fact of TR §6 as displayed and as checked (one definition).
PHI_CLAIM = sp.Gt(g_ * sp.log(g_ / b_) - (g_ - b_), 0)
PHI_DEF = sp.Eq(phi(g_, b_), PHI_CLAIM.lhs)
#: where the fact is claimed: 0 < beta < gamma (TR §6 says "all positive gamma and beta", but
#: phi(beta, beta) = 0; gamma > beta is what the theorem has, step '0 < beta < gamma < 1').
PHI_REGION = [b_ > 0, g_ > b_]
PHI_POS = sp.Implies(sp.And(*PHI_REGION), phi(g_, b_) > 0)
#: the assembly's opaque quantities: tail(n, t) = P[Bin(n, beta) >= t n] for a
#: threshold ratio t, term(n) = P[Bin(n, beta) > gamma n] (d's n-th term) and Exp(x) = e^x.
#: index variables of the lemmas, with no declared range (their guards state it): t is a
#: threshold ratio, x1, x2 exponents.
t_, x1, x2 = sp.symbols("t x1 x2")
tail, term, Exp = sp.Function("tail"), sp.Function("term"), sp.Function("Exp")


def chernoff(n: sp.Expr, t: sp.Expr) -> sp.Basic:
    """The cited multiplicative Chernoff bound (TR §6) for n records and threshold ratio t."""
    return sp.Implies(sp.And(t > b_, n > 0), tail(n, t) <= Exp(-n * phi(t, b_)))


CHERNOFF = chernoff(n_, t_)
#: e^x is increasing (used on exponents: z3 has no exponential).
EXP_UP = sp.Implies(x1 <= x2, Exp(x1) <= Exp(x2))
#: d's n-th term against the tail at gamma: {X > gamma n} is inside {X >= gamma n}.
TERM_LE_TAIL = term(n_) <= tail(n_, g_)
#: at n = n_m (gamma n_m < k <= gamma n_m + 1) the counts above gamma n_m are those >= k.
TERM_AT_NM = sp.Implies(sp.And(g_ * nm_ < k_, g_ * nm_ >= k_ - 1),
                        sp.Eq(term(nm_), tail(nm_, k_ / nm_)))
#: phi(t)/t = ln(t/beta) - (t - beta)/t is non-decreasing in t > beta (certificate below).
MONO = sp.Implies(sp.And(b_ > 0, g_ > b_, t_ >= g_), phi(t_, b_) / t_ >= phi(g_, b_) / g_)
#: TR Thm 6's bound, exp(-k (ln(gamma/beta) - (gamma - beta)/gamma)) = e^(-k phi/gamma).
BOUND_EXPONENT = -k_ * phi(g_, b_) / g_
BOUND = Exp(BOUND_EXPONENT)
#: the two comparisons of exponents the assembly uses (n >= n_m + 1, and n = n_m).
EXP_USED = [EXP_UP.xreplace({x1: -n_ * phi(g_, b_), x2: BOUND_EXPONENT}),
            EXP_UP.xreplace({x1: -nm_ * phi(k_ / nm_, b_), x2: BOUND_EXPONENT})]
#: the theorem: every term of d's max (n = n_m and every n >= n_m + 1) is at most the bound.
FINAL = sp.And(term(nm_) <= BOUND, sp.Implies(n_ >= nm_ + 1, term(n_) <= BOUND))
#: d = d(k, beta, eps), the supremum of its terms over the admissible group sizes (n = n_m and
#: every integer n >= n_m + 1), defined by both halves: an upper bound of every term, and the
#: least one -- below any y < d the n_m term or a term at some integer size M(y) >= n_m + 1
#: exceeds y (M a Skolem function).
d_ = sp.Symbol("d", real=True)
y_ = sp.Symbol("y")  # a number below d (no declared domain: any value may be substituted)
Mw = sp.Function("M", integer=True, positive=True)
SUP_UPPER = [d_ >= term(nm_), sp.Implies(n_ >= nm_ + 1, d_ >= term(n_))]
SUP_LEAST = sp.Implies(y_ < d_, sp.Or(term(nm_) > y_,
                                      sp.And(Mw(y_) >= nm_ + 1, term(Mw(y_)) > y_)))
#: TR Thm 6 as printed: d(k, beta, eps) <= exp(-k(ln(gamma/beta) - (gamma - beta)/gamma)).
D_BOUND = d_ <= BOUND
#: c is the Chernoff exponent: a definition, so c > 0 is chained from the proved phi > 0.
C_DEF = sp.Eq(c_, phi(g_, b_))


def h_true(x: sp.Expr) -> sp.Expr:
    """h(u) = u ln u - u + 1, with phi(gamma, beta) = beta h(gamma/beta)."""
    return x * sp.log(x) - x + 1


#: points (gamma, beta) at which a claim that is not certified is evaluated exactly.
_POINTS = ((sp.Rational(1, 2), sp.Rational(1, 4)), (sp.Rational(1, 2), sp.Rational(1, 2)),
           (sp.Rational(1, 4), sp.Rational(1, 2)))


def _phi_positive(claim: sp.Basic = PHI_CLAIM, h: Callable[[sp.Expr], sp.Expr] = h_true,
                  region: Sequence[sp.Basic] = tuple(PHI_REGION)
                  ) -> tuple[Verdict, dict[str, str] | None, str, sp.Basic | None]:
    """Certificate for ``claim`` (displayed as ``lhs > 0``) on ``region``, checkable by a
    reader without a solver, each part an exact sympy computation under stated assumptions:

    1. the region states beta > 0 and gamma > beta, so u = gamma/beta > 1 and beta > 0;
    2. lhs = beta h(gamma/beta) (sympy expand of expand_log, gamma and beta positive);
    3. h(1) = 0 and h'(u) is positive for u = 1 + v, v > 0 (sympy's assumption system: for
       h = u ln u - u + 1, h' = ln(1 + v) > 0);
    4. hence h(u) = h(1) + integral_1^u h'(t) dt > 0 for u > 1, and lhs = beta h(u) > 0.

    If a part fails (a flipped or altered display, an h of the wrong sign, a region that
    allows gamma = beta) the claim is evaluated exactly at points of the region: REFUTED at
    one where it is false, else OPEN."""
    gp, bp, uu, v = sp.symbols("gamma_p beta_p u v", positive=True)
    parts = []
    if isinstance(claim, sp.StrictGreaterThan) and claim.rhs == 0:
        parts.append("displayed as lhs > 0")
    if (b_ > 0) in region and (g_ > b_) in region:
        parts.append("region: beta > 0, gamma > beta")
    lhs = claim.lhs.subs({g_: gp, b_: bp}, simultaneous=True)
    if sp.expand(sp.expand_log(lhs - bp * h(gp / bp))) == 0:
        parts.append("lhs = beta h(gamma/beta) (sympy expand_log + expand, positive symbols)")
    dh = sp.diff(h(uu), uu)
    if sp.simplify(h(sp.Integer(1))) == 0 and dh.subs(uu, 1 + v).is_positive is True:
        parts.append(f"h(1) = 0 and h'(u) = {dh} > 0 for u = 1 + v, v > 0 (sympy assumptions)")
    if len(parts) == 4:  # decided: the claim on exactly 0 < beta < gamma, as verified above
        return Verdict.PROVED, None, "; ".join(parts) + (
            "; so h(u) = h(1) + int_1^u h'(t) dt > 0 for u > 1 and lhs = beta h(u) > 0"), \
            sp.Implies(sp.And(b_ > 0, g_ > b_), claim)
    for gv, bv in _POINTS:
        sub = {g_: gv, b_: bv}
        if all(bool(r.subs(sub)) for r in region) and not bool(claim.subs(sub)):
            lhs_v = claim.lhs.subs(sub)
            return Verdict.REFUTED, {"gamma": str(gv), "beta": str(bv), "lhs": str(lhs_v),
                                     "lhs (30 digits)": str(sp.N(lhs_v, 30)),
                                     "claim at the point": str(claim.subs(sub))}, (
                "false at a point of the region (sympy decides the sign of the exact value)"), None
    return Verdict.OPEN, None, "not certified: " + "; ".join(parts), None


def _phi_step(name: str = "phi(gamma, beta) > 0 for 0 < beta < gamma",
              claim: sp.Basic = PHI_CLAIM, h: Callable[[sp.Expr], sp.Expr] = h_true,
              region: Sequence[sp.Basic] = tuple(PHI_REGION),
              expected: Verdict = Verdict.PROVED,
              statement: str = ("The 'WolframAlpha' fact, via h(u) = u ln u - u + 1 with "
                                "u = gamma/beta: phi(gamma, beta) = beta h(u) > 0.")) -> Step:
    """The 'WolframAlpha' fact as a chained step: it reads phi's definition (a given) and
    concludes phi(gamma, beta) > 0 on the region."""
    return timed(name, statement, "sympy certificate (identity, h(1) = 0, sign of h')",
                 lambda: _phi_positive(claim, h, region), expr=claim, expected=expected,
                 concludes=sp.Implies(sp.And(*region), phi(g_, b_) > 0), definitions=[PHI_DEF])


def _f(j: int, n: int, b: Fraction) -> Fraction:
    return comb(n, j) * b ** j * (1 - b) ** (n - j)


#: the approximation witness's exact range (Chernoff's bound covers every larger n).
APPROX_N_MAX = 40


def _approx_witness() -> tuple[Verdict, dict[str, str] | None, str]:
    """k = 2, beta = 1/10, E = 2: exact d >= tail at n_m = 3 = 7/250 = 0.028, while every
    n >= k/gamma has tail_{j >= gamma n} <= 0.00856 (exact up to n = APPROX_N_MAX, Chernoff
    beyond)."""
    k, b, e = 2, Fraction(1, 10), Fraction(2)
    g = (e - 1 + b) / e
    # n_m = ceil(k/gamma - 1) in the E = e^eps form: E is rational here, so eps = ln E is not and
    # worstcase.sdgs.n_min (which takes a rational eps) cannot serve; gamma is an exact Fraction.
    n_m = ceil(k / g - 1)
    d_low = sum(_f(j, n_m, b) for j in range(floor(g * n_m) + 1, n_m + 1))
    lo = ceil(k / g)
    approx = max(sum(_f(j, n, b) for j in range(ceil(g * n), n + 1))
                 for n in range(lo, APPROX_N_MAX + 1))
    with mp.workdps(30):
        gm_, bm = mp.mpf(g.numerator) / g.denominator, mp.mpf(1) / 10
        c = gm_ * mp.log(gm_ / bm) - (gm_ - bm)
        tail_beyond = mp.e ** (-(APPROX_N_MAX + 1) * c)  # Chernoff bound for every larger n
        refuted = d_low > approx and mp.mpf(d_low.numerator) / d_low.denominator > tail_beyond
    return (Verdict.REFUTED if refuted else Verdict.OPEN), {
        "k": "2", "beta": "1/10", "E": "2", "gamma": str(g), "n_m": str(n_m),
        "d >= tail at n_m": str(d_low), "max_{n>=k/gamma} tail_{j>=gamma n}": str(approx),
        f"Chernoff bound for n > {APPROX_N_MAX}": mp.nstr(tail_beyond, 6)}, (
        f"n_m < k/gamma is dropped (exact tails for n <= {APPROX_N_MAX}, Chernoff beyond)")


#: the numeric cross-check's grid (its remark states the range from these).
GRID_K_MAX = 10
GRID_BETAS = (Fraction(1, 20), Fraction(1, 5), Fraction(1, 2))
GRID_EPS = tuple(Fraction(x, 4) for x in range(1, 13))
GRID_N_EXTRA = 8


def grid_range() -> str:
    """The numeric cross-check's range as the code runs it."""
    return (f"1 <= k <= {GRID_K_MAX}, beta in {{{', '.join(map(str, GRID_BETAS))}}}, eps in "
            f"{{{GRID_EPS[0]}, {GRID_EPS[1]}, ..., {GRID_EPS[-1]}}} inside the regime, "
            f"n = n_m..n_m+{GRID_N_EXTRA - 1}")


def _grid() -> tuple[Verdict, dict[str, str] | None, str]:
    # each tail P[Bin(n, beta) >= j0] at 30 digits, summed once per (beta, n, j0): many (k, eps)
    # of the grid reach the same one (the same terms in the same order: the same value)
    tails: dict[tuple[Fraction, int, int], Any] = {}
    with mp.workdps(30):
        for k in range(1, GRID_K_MAX + 1):
            for bq in GRID_BETAS:
                b = mp.mpf(bq.numerator) / bq.denominator
                for eq in GRID_EPS:
                    if not in_paper_regime(bq, eq):  # the one regime-edge check (core.params)
                        continue
                    eps = mp.mpf(eq.numerator) / eq.denominator
                    e = mp.e ** eps
                    g = (e - 1 + b) / e
                    n_m = n_min(k, bq, eq)  # the one n_m (worstcase.sdgs), exact
                    bound = mp.e ** (-k * (mp.log(g / b) - (g - b) / g))
                    for n in range(n_m, n_m + GRID_N_EXTRA):
                        j0 = int(mp.floor(g * n)) + 1
                        if (bq, n, j0) not in tails:
                            tails[bq, n, j0] = mp.fsum(mp.binomial(n, j) * b ** j * (1 - b) ** (n - j)
                                                       for j in range(j0, n + 1))
                        t = tails[bq, n, j0]
                        if t > bound:
                            return Verdict.REFUTED, {"k": str(k), "beta": str(b),
                                                     "eps": str(eps), "n": str(n)}, ""
    return Verdict.BOUNDED, None, grid_range()


def _lemma_spot_check() -> tuple[Verdict, dict[str, str] | None, str]:
    """The given Chernoff formula (the one definition, read here) at a few exact points:
    REFUTED if an exact binomial tail exceeds its right-hand side."""
    pts = LEMMA_POINTS
    with mp.workdps(40):
        for n, b, t in pts:
            rhs = CHERNOFF.args[1].rhs.subs({n_: n, t_: sp.Rational(t.numerator, t.denominator)})
            x = rhs.args[0].subs(phi(sp.Rational(t.numerator, t.denominator), b_),
                                 PHI_DEF.rhs.subs(g_, sp.Rational(t.numerator, t.denominator)))
            x = x.subs(b_, sp.Rational(b.numerator, b.denominator))
            bound = mp.e ** mp.mpf(sp.N(x, 45))
            exact = sum((_f(j, n, b) for j in range(ceil(t * n), n + 1)), Fraction(0))
            if mp.mpf(exact.numerator) / exact.denominator > bound * (1 + mp.mpf(10) ** -30):
                return Verdict.REFUTED, {"n": str(n), "beta": str(b), "t": str(t),
                                         "tail": mp.nstr(mp.mpf(exact.numerator)
                                                         / exact.denominator, 8),
                                         "lemma's bound": mp.nstr(bound, 8)}, (
                    "the given lemma is false at this point")
    shown = ", ".join(f"({n}, {b}, {t})" for n, b, t in pts)
    return Verdict.BOUNDED, None, (f"{len(pts)} points (n, beta, t): {shown}: exact tail <= "
                                   "the lemma's bound")


#: the remark's points (inside the lemma's guard; the kernel's spot check also covers the far
#: side of each guard).
LEMMA_POINTS = ((200, Fraction(1, 10), Fraction(1, 5)), (60, Fraction(1, 2), Fraction(3, 5)),
                (100, Fraction(1, 4), Fraction(1, 2)))


#: where the cited Chernoff bound is proved, in the form used (with its guard).
CHERNOFF_SOURCE = (
    "Mitzenmacher & Upfal, Probability and Computing (2005), Thm 4.4(1): for X ~ Bin(n, beta), "
    "mu = n beta and delta > 0, P[X >= (1 + delta) mu] <= (e^delta / (1 + delta)^(1 + delta))^mu; "
    "with 1 + delta = t/beta (guard t > beta) the right-hand side is exp(-n phi(t, beta)), "
    "phi(t, beta) = t ln(t/beta) - (t - beta); cited by TR §6")


def _interpret(pt: Mapping[Any, Any]) -> dict[str, Any]:
    """Exact meanings of the assembly's opaque functions at a spot-check point (beta, gamma
    read from the point): binomial tails as exact rationals, Exp and phi in closed form."""
    beta = Fraction(str(pt[b_]))
    gamma = Fraction(str(pt.get(g_, 0)))

    def tail_at(n: Any, t: Any) -> sp.Rational:
        n, t = int(n), Fraction(str(t))
        lo = max(0, ceil(t * n))
        return sp.Rational(sum((_f(j, n, beta) for j in range(lo, n + 1)), Fraction(0)))

    def term_at(n: Any) -> sp.Rational:
        n = int(n)
        lo = floor(gamma * n) + 1
        return sp.Rational(sum((_f(j, n, beta) for j in range(max(lo, 0), n + 1)), Fraction(0)))

    return {"tail": tail_at, "term": term_at, "Exp": sp.exp,
            "phi": lambda t, b: PHI_DEF.rhs.xreplace({g_: t, b_: b})}


_h, _q, _t, _f5 = sp.Rational(1, 2), sp.Rational(1, 4), sp.Rational(3, 5), sp.Rational(1, 5)
#: the Chernoff lemma's instances: inside its guard (t > beta, n > 0) and beyond each side of
#: it (t <= beta, where the bound is false; n = 0).
CHERNOFF_POINTS = ({n_: 60, b_: _h, t_: _t}, {n_: 200, b_: sp.Rational(1, 10), t_: _f5},
                   {n_: 100, b_: _q, t_: _h}, {n_: 20, b_: _h, t_: _q}, {n_: 30, b_: _h, t_: _h},
                   {n_: 0, b_: _h, t_: _t})
#: e^x increasing, at the exponents the assembly compares: both sides of x1 <= x2.
EXP_POINTS = ({n_: 10, k_: 5, g_: _t, b_: _h, nm_: 7}, {n_: 5, k_: 5, g_: _t, b_: _h, nm_: 10})
#: the event comparisons: term(n) <= tail(n, gamma) anywhere; term(n_m) = tail(n_m, k/n_m)
#: inside gamma n_m < k <= gamma n_m + 1 and beyond each side of it (where it is false).
TERM_POINTS = ({n_: 7, nm_: 7, k_: 5, g_: _t, b_: _h}, {n_: 12, nm_: 9, k_: 5, g_: _t, b_: _h},
               {n_: 20, nm_: 5, k_: 5, g_: _t, b_: _q})
#: the repair's defining inequalities of n_m (CP Thm 5's n_m step) and its setting.
NM_DEF = [g_ * nm_ < k_, k_ <= g_ * (nm_ + 1)]
#: TR Thm 6's hypothesis eps >= eps0 >= -ln(1 - beta) in the E = e^eps form, and gamma.
HYP = [b_ > 0, b_ < 1, E_ * (1 - b_) >= 1]
GAMMA_DEF = sp.Eq(g_, (E_ - 1 + b_) / E_)
#: 0 < beta < gamma < 1 (a PROVED step's conclusion, used by the later steps).
ORDER = [b_ > 0, g_ > b_, g_ > 0, g_ < 1]
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("hypothesis", "TR Thm 6: 0 < beta < 1 and eps >= eps0 >= -ln(1 - beta), i.e. "
               "E(1 - beta) >= 1 with E = e^eps", *HYP)
         + given("definition", "gamma = (e^eps - 1 + beta)/e^eps (TR §6)", GAMMA_DEF)
         + given("setting", "k >= 1 (the suppression threshold)", k_ >= 1, k_ > 0)
         + given("definition", "n_m = ceil(k/gamma - 1): gamma n_m < k <= gamma (n_m + 1) "
                 "(cp-theorem-5, step 'n_m = ceil(k/gamma - 1)')", *NM_DEF)
         + given("definition", "phi(gamma, beta) = gamma ln(gamma/beta) - (gamma - beta), the "
                 "exponent of the Chernoff bound per record", PHI_DEF)
         + given("definition", "c = phi(gamma, beta) (the Chernoff exponent of TR §6)", C_DEF)
         + given("lemma", "the multiplicative Chernoff bound, cited by TR §6 and not re-proved: "
                 "tail(n, t) = P[Bin(n, beta) >= t n] <= exp(-n phi(t, beta)) for every group "
                 "size n >= 1 and threshold ratio t > beta", CHERNOFF, over=(n_, t_),
                 label="multiplicative Chernoff bound (cited)", source=CHERNOFF_SOURCE,
                 spot=at_points(CHERNOFF_POINTS, _interpret, "exact binomial tails"))
         + given("lemma", "e^x is increasing (standard), at the two pairs of exponents the "
                 "assembly compares (the first for every group size n)", *EXP_USED, over=(n_,),
                 label="e^x is increasing (standard)",
                 source="standard: (e^x)' = e^x > 0, so x1 <= x2 gives e^x1 <= e^x2",
                 spot=at_points(EXP_POINTS, _interpret, "both sides of x1 <= x2"))
         + given("lemma", "probability of nested events: {X > gamma n} lies inside "
                 "{X >= gamma n}, so term(n) = P[X > gamma n] <= tail(n, gamma); and equal events "
                 "have equal probability: for gamma n_m < k <= gamma n_m + 1 an integer count "
                 "exceeds gamma n_m iff it is >= k, so term(n_m) = P[X >= k] = tail(n_m, k/n_m)",
                 TERM_LE_TAIL, TERM_AT_NM, over=(n_,),
                 label="events compared (standard)",
                 source="standard: P is monotone on nested events; for an integer count X, "
                 "X > gamma n_m iff X >= k exactly when gamma n_m < k <= gamma n_m + 1",
                 spot=at_points(TERM_POINTS, _interpret, "exact binomial probabilities"))
         + given("definition", "d(k, beta, eps) = sup of its terms term(n) = P[Bin(n, beta) > "
                 "gamma n] over n = n_m and every integer n >= n_m + 1: (i) an upper bound of "
                 "every term", *SUP_UPPER, over=(n_,))
         + given("definition", "(ii) the least upper bound: below any y < d the n_m term or the "
                 "term at some integer size M(y) >= n_m + 1 exceeds y (M a Skolem function)",
                 SUP_LEAST, over=(y_,)))


def _sup_model(k: int, beta: Fraction, e: Fraction) -> Any:
    """The intended model of the givens at (k, beta, E = e^eps): gamma exact, n_m = ceil(k/gamma)
    - 1, c = phi(gamma, beta) in closed form, the terms exact binomial sums, d their max over
    n_m .. n_m + L (L from CP Thm 5's finite_range: past it no term exceeds the n_m term) and
    M(y) the size attaining it (n_m + 1 when n_m does).  Index variables: group sizes n_m ..
    n_m + min(L, 6) and n_m + L .. n_m + L + 2, y at d, just below d, 0 and -1."""
    def build() -> tuple[dict, dict, dict]:
        from .cp_theorem_5 import finite_range

        gam = (e - 1 + beta) / e
        n_m, L_ = finite_range(k, beta, e)
        pt: dict[Any, Any] = {b_: sp.Rational(beta.numerator, beta.denominator),
                              g_: sp.Rational(gam.numerator, gam.denominator),
                              E_: sp.Rational(e.numerator, e.denominator), k_: k, nm_: n_m}
        pt[c_] = PHI_DEF.rhs.xreplace(pt)
        interp = _interpret(pt)
        sizes = sorted({*range(n_m, n_m + min(L_, 6) + 1), *range(n_m + L_, n_m + L_ + 3)})
        terms = {n: interp["term"](n) for n in range(n_m, n_m + L_ + 1)}
        top = max(terms.values())
        arg = max(n_m + 1, min(n for n, v in terms.items() if v == top))
        pt[d_] = top
        return pt, {**interp, "M": lambda y: sp.Integer(arg)}, \
            {n_: sizes, y_: [top, top - sp.Rational(1, 10**6), 0, -1]}
    return build


#: the concrete models of the givens checked by the kernel (see kernel.consistency).
MODELS = (Model("k = 3, beta = 1/2, E = 2 (E(1 - beta) = 1)", _sup_model(3, Fraction(1, 2),
                                                                          Fraction(2))),
          Model("k = 5, beta = 1/4, E = 3/2", _sup_model(5, Fraction(1, 4), Fraction(3, 2))))


#: TR Thm 6 as proved: d <= the displayed bound, from every term of d's sup <= the bound and
#: the supremum's least-upper-bound property (a step, not prose).
STATEMENT = Statement(
    "TR Thm 6, §6",
    "For eps >= -ln(1 - beta) and gamma = (e^eps - 1 + beta)/e^eps, d(k, beta, eps) <= "
    "exp(-k(ln(gamma/beta) - (gamma - beta)/gamma)).",
    reading="d is the supremum of its terms P[Bin(n, beta) > gamma n] over n = n_m and every "
    "integer n >= n_m + 1 (both halves of the supremum's definition are given); every term is "
    "bounded first, then d <= bound is a step from the least-upper-bound property",
    # written out here, not read from GIVEN: a narrowed given is then an extra hypothesis
    hypotheses=(b_ > 0, b_ < 1, E_ * (1 - b_) >= 1, k_ >= 1, k_ > 0),
    definitions=formulas_of(GIVEN, "definition"),
    lemmas=formulas_of(GIVEN, "lemma"),
    conclusion=d_ <= BOUND)


def _mono_certificate() -> tuple[Verdict, dict[str, str] | None, str, sp.Basic | None]:
    """phi(t, beta)/t = ln(t/beta) - (t - beta)/t has derivative (t - beta)/t^2 > 0 for
    t = beta + v, v > 0 (sympy, positive symbols): so it is non-decreasing on t > beta, and
    for 0 < beta < gamma <= t the value at t is at least the one at gamma.  Returns the formula
    decided, built here from phi's definition and the guard the argument covers (never from
    the recorded conclusion)."""
    tp, bp, v = sp.symbols("t_p beta_p v", positive=True)
    psi = (PHI_DEF.rhs / g_).subs({g_: tp, b_: bp}, simultaneous=True)
    parts = []
    if sp.expand(sp.expand_log(psi - (sp.log(tp / bp) - (tp - bp) / tp))) == 0:
        parts.append("phi(t)/t = ln(t/beta) - (t - beta)/t (expand_log, positive symbols)")
    dpsi = sp.diff(psi, tp)
    if sp.simplify(dpsi - (tp - bp) / tp ** 2) == 0 and \
            ((tp - bp) / tp ** 2).subs(tp, bp + v).is_positive is True:
        parts.append("d/dt = (t - beta)/t^2 > 0 at t = beta + v, v > 0 (sympy assumptions)")
    if len(parts) == 2:
        def psi_of(x: sp.Expr) -> sp.Expr:
            return PHI_DEF.rhs.xreplace({g_: x}) / x

        decided = sp.Implies(sp.And(b_ > 0, g_ > b_, t_ >= g_), psi_of(t_) >= psi_of(g_))
        return Verdict.PROVED, None, "; ".join(parts) + (
            "; so for t >= gamma > beta: phi(t)/t - phi(gamma)/gamma = int_gamma^t (s - beta)/s^2 "
            "ds >= 0"), decided
    return Verdict.OPEN, None, "not certified: " + "; ".join(parts), None


def _assembly() -> list[Step]:
    """TR Thm 6's bound chained: Chernoff at n >= n_m + 1 (n >= k/gamma, c > 0,
    e^x increasing) and at n = n_m with the threshold k/n_m > gamma (phi(t)/t non-decreasing)."""
    mono = timed("phi(t)/t is non-decreasing in t > beta",
                 "phi(t, beta)/t = ln(t/beta) - (t - beta)/t has derivative (t - beta)/t^2 > 0: "
                 "a larger threshold ratio only shrinks the Chernoff bound per k.",
                 "sympy certificate (identity, sign of the derivative)", _mono_certificate,
                 expr=MONO, concludes=MONO, definitions=[PHI_DEF], over=(t_,))
    shown = sp.Eq(-BOUND_EXPONENT, k_ * (sp.log(g_ / b_) - (g_ - b_) / g_))
    gp, bp, kp = sp.symbols("gamma_p beta_p k_p", positive=True)
    pos = {g_: gp, b_: bp, k_: kp}
    sides = [side.replace(phi, sp.Lambda((g_, b_), PHI_DEF.rhs)).xreplace(pos)
             for side in (shown.lhs, shown.rhs)]
    disp = sympy_step("the bound as displayed",
                      "k phi(gamma, beta)/gamma = k(ln(gamma/beta) - (gamma - beta)/gamma): the "
                      "exponent e^(-k phi/gamma) is TR Thm 6's exp(-k(ln(gamma/beta) - (gamma - "
                      "beta)/gamma)) (phi replaced by its definition).", sides[0], sides[1],
                      concludes=shown, definitions=[PHI_DEF],
                      rename=[(g_, gp), (b_, bp), (k_, kp)])
    t_nm = k_ / nm_
    hi = [chernoff(n_, g_), TERM_LE_TAIL, PHI_POS, *ORDER, NM_DEF[1], nm_ > 0,
          EXP_USED[0]]
    lo = [chernoff(nm_, t_nm), TERM_AT_NM, MONO.subs(t_, t_nm), *ORDER, NM_DEF[0], nm_ > 0,
          sp.And(g_ * nm_ >= k_ - 1, k_ / nm_ > g_), k_ > 0,
          EXP_USED[1]]
    final = prove_sym(
        "TR Thm 6: every term of d's max <= exp(-k(ln(gamma/beta) - (gamma - beta)/gamma))",
        "n >= n_m + 1: n >= k/gamma, so term(n) <= tail(n, gamma) <= e^(-n phi) <= e^(-k phi/"
        "gamma) (Chernoff, phi > 0, e^x increasing).  n = n_m: term(n_m) = tail(n_m, k/n_m) "
        "<= e^(-n_m phi(k/n_m)) = e^(-k phi(k/n_m)/(k/n_m)) <= e^(-k phi/gamma) (k/n_m > gamma, "
        "phi(t)/t non-decreasing).  So every term of d = sup_{n >= n_m} term(n) is at most the "
        f"bound {sp.sstr(BOUND)} = exp(-k(ln(gamma/beta) - (gamma - beta)/gamma)) (d itself: "
        "next step).",
        FINAL, [*dict.fromkeys(hi + lo)], over=(n_,))
    lub = prove_sym(
        "TR Thm 6: d <= exp(-k(ln(gamma/beta) - (gamma - beta)/gamma)) (least upper bound)",
        "If the bound were below d, the supremum's second half would give a term above it: the "
        "n_m term or the term at an integer size M >= n_m + 1; but every term is at most the "
        "bound (previous step, at n = M).  So d, the least upper bound of the terms, is at most "
        f"{sp.sstr(BOUND)}.", D_BOUND,
        [SUP_LEAST.xreplace({y_: BOUND}), FINAL.args[0],
         FINAL.args[1].xreplace({n_: Mw(BOUND)})])
    return [mono, disp, final, lub]


def _c_step() -> Step:
    return prove_sym("c > 0", "c = phi(gamma, beta) (definition) and phi(gamma, beta) > 0 for "
                     "0 < beta < gamma (proved above).", c_ > 0, [C_DEF, PHI_POS, *PHI_REGION])


def steps() -> list[Step]:
    return [
        prove_sym("0 < beta < gamma < 1",
                  "gamma - beta = (E - 1)(1 - beta)/E > 0 as E >= 1/(1 - beta) > 1, and "
                  "gamma = 1 - (1 - beta)/E < 1.", sp.And(*ORDER), [*HYP, GAMMA_DEF]),
        _phi_step(),
        _c_step(),
        prove_sym("n_m > 0", "k <= gamma (n_m + 1) with gamma < 1 <= k: n_m + 1 > 1.",
                  nm_ > 0, [g_ > 0, g_ < 1, k_ >= 1, NM_DEF[1]]),
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
                  [g_ > 0, g_ < 1, k_ >= 1, nm_ > 0, *NM_DEF]),
        sympy_step("repair: exponent increasing in the threshold",
                   "d/dg [ln(g/b) - (g - b)/g] = (g - b)/g^2 > 0 for g > b, so a larger "
                   "threshold k/n_m only shrinks the Chernoff bound below exp(-k phi(gamma)).",
                   sp.diff(sp.log(gm / bt) - (gm - bt) / gm, gm), (gm - bt) / gm ** 2),
        prove_sym("repair: n >= k/gamma",
                  "For n >= k/gamma: exp(-n c) <= exp(-(k/gamma) c) as c > 0 (on exponents).",
                  n_ * c_ >= (k_ / g_) * c_, [g_ > 0, k_ > 0, c_ > 0],
                  premises=[n_ >= k_ / g_]),
        *_assembly(),
        timed("Chernoff lemma spot-checked", "The cited lemma as given (CHERNOFF), evaluated "
              "exactly against binomial tails at points (evidence for a trusted lemma).",
              "exact tails (Fraction) vs 40-digit bound", _lemma_spot_check,
              expected=Verdict.BOUNDED, role="remark"),
        timed("numeric cross-check", "exact d terms vs the bound on a grid.",
              "mpmath grid", _grid, expected=Verdict.BOUNDED, role="remark",
              bound=grid_range()),
    ]


def negative_controls() -> list[Step]:
    g_ = sp.Symbol("gamma", real=True)
    k_, nm = sp.symbols("k n_m", integer=True)
    ref = Verdict.REFUTED
    return [
        _phi_step("control: h with the wrong sign", sp.Gt(-PHI_CLAIM.lhs, 0),
                  lambda x: -h_true(x), expected=ref,
                  statement="-phi(gamma, beta) > 0 via h(u) = -(u ln u - u + 1): the identity "
                  "and h(1) = 0 hold, but h' = -ln u < 0, so the certificate must fail."),
        _phi_step("control: phi > 0 claimed for gamma >= beta",
                  region=(b_ > 0, g_ >= b_), expected=ref,
                  statement="The same fact on 0 < beta <= gamma: phi(beta, beta) = 0."),
        chain_control("control: c > 0 without the proof of phi > 0",
                      "The step 'c > 0' alone: phi(gamma, beta) > 0 is neither given nor "
                      "proved earlier, so the chaining check must reject it (ERROR).",
                      [_c_step()], GIVEN),
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
