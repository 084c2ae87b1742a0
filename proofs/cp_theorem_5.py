"""CP Theorem 5 (§3.3; proof in App. A.2): sampled strongly-safe k-anonymization is
(beta, eps, d(k, beta, eps))-DPS for eps >= -ln(1 - beta), gamma = (e^eps - 1 + beta)/e^eps.

E = e^eps with E >= 1/(1 - beta).  n = copies of g(t) in D (t included), j = copies in S.

The assembly is encoded, not prose: every sum over counts or outputs is a chained
sum proved by induction on its number of terms (``proofs.core.induction``), every step assumes
only GIVEN formulas or conclusions of earlier PROVED steps (``proofs.core.check_chain``), and
the last step concludes, for every group size n >= 1, that both hockey-stick divergences
(CP Def 2) and both out-of-band masses (TR Def 2) of the whole output are at most d, and that
d -- defined as the least upper bound of its terms P[Bin(n, beta) > gamma n], n >= n_m -- is the
max of the terms at n_m, ..., n_m + L, L computed from k, beta, eps (the cited Chernoff bound
puts every later term below the n_m term).  The exact scans are remarks (evidence), not links.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from fractions import Fraction
from math import ceil, comb, floor
from typing import Any

import sympy as sp

from dps_verify.core.binomial import upper_tail
from dps_verify.paper.kernel.consistency import Model
from dps_verify.paper.kernel.core import (
    Step,
    Verdict,
    chain_control,
    equation,
    exists_sym,
    given,
    induction,
    prove_sym,
    sympy_instance,
    sympy_step,
    timed,
)
from dps_verify.paper.kernel.lemmas import at_points
from dps_verify.paper.kernel.statement import Statement, formulas_of

from . import engine_checks
from . import tr_theorem_6 as tr6

CLAIM = ("Sampling + strongly-safe k-anonymization is (beta, eps, d(k, beta, eps))-DPS for "
         "0 < beta < 1, eps >= -ln(1 - beta).")
REFERENCE = "CP Thm 5, §3.3 and App. A.2"
EXPECTED = Verdict.PROVED
SUMMARY = ("Every step is proved for all n, k (z3 and cvc5; sympy certificates for the pmf's "
           "closed form) and the assembly is encoded: the bad mass B(n), a chained sum over "
           "counts, is <= d for every n (n <= n_m: B(n) = T(n) <= T(n_m) <= d's n_m term; "
           "n >= n_m + 1: B(n) <= d's n-th term); the group's hockey-stick divergences and "
           "out-of-band masses (sums over its outputs) are <= B(n) or B(n-1); the other groups' "
           "part factors out of the whole output. d is the least upper bound of its terms "
           "(both halves given) and is proved to be the max over n_m .. n_m + L, L computed "
           "(finite_range): every term past n_m + L is at most the n_m term by the cited "
           "Chernoff bound. The d formula's n = n_m term over-counts "
           "(sums j > gamma n_m, not j >= k): an upper bound, so harmless. The exact "
           "cross-check (its range in the remark, computed from its grid) is evidence only.")

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
    """P[Bin(nn, beta) >= lo], exact (core.binomial's integer sum over q^nn, remembered: the
    cross- and range checks ask the same tails many times)."""
    return upper_tail(lo, nn, beta)


#: the exact cross-check's grid (its remark states the range from these, never a fixed text).
CROSS_BETAS = (Fraction(1, 10), Fraction(1, 4), Fraction(1, 2))
CROSS_ES = (Fraction(2), Fraction(3), Fraction(5))
CROSS_K_MAX, CROSS_N_MAX = 6, 60


def _frac_set(xs: tuple[Fraction, ...]) -> str:
    return "{" + ", ".join(str(x) for x in xs) + "}"


def cross_check_range() -> str:
    """The cross-check's range as the code runs it."""
    return (f"beta in {_frac_set(CROSS_BETAS)}, E in {_frac_set(CROSS_ES)} (pairs with "
            f"E(1 - beta) >= 1), 1 <= k <= {CROSS_K_MAX}, 1 <= n <= {CROSS_N_MAX} (d's max "
            f"taken over n_m..{CROSS_N_MAX})")


def _cross_check() -> tuple[Verdict, dict[str, str] | None, str]:
    """Exact (Fraction) worst bad mass over n <= CROSS_N_MAX vs d, for rational beta and E."""
    worst = None
    for beta in CROSS_BETAS:
        for e in CROSS_ES:
            if e * (1 - beta) < 1:
                continue
            gam = (e - 1 + beta) / e
            for kk in range(1, CROSS_K_MAX + 1):
                n_m = ceil(kk / gam - 1)
                d = max(_tail(floor(gam * nn) + 1, nn, beta)
                        for nn in range(n_m, CROSS_N_MAX + 1))
                for nn in range(1, CROSS_N_MAX + 1):
                    # bad j: j >= k, j > gamma n and n(1-b) > E(n-j), i.e. j > n - n(1-b)/E
                    # -- an upper tail from the first such j (the conditions are monotone in j)
                    first = max(kk, floor(max(gam * nn, nn - nn * (1 - beta) / e)) + 1)
                    bad = _tail(first, nn, beta)
                    bad_minus = _tail(max(kk, floor(gam * nn) + 1), nn - 1, beta)
                    if max(bad, bad_minus) > d:
                        worst = {"beta": str(beta), "E": str(e), "k": str(kk), "n": str(nn)}
    if worst:
        return Verdict.REFUTED, worst, "bad mass exceeds d"
    return Verdict.BOUNDED, None, f"{cross_check_range()}: bad mass <= d everywhere"


def finite_range(k_: int, beta: Fraction, e_: Fraction) -> tuple[int, int]:
    """(n_m, L) of the statement for rational beta and E = e^eps: n_m = ceil(k/gamma - 1) and
    L = max(0, ceil(ell/phi) - n_m) with ell = -ln(term(n_m)) (term(n_m) exact) and phi =
    gamma ln(gamma/beta) - (gamma - beta), both enclosed by mpmath interval arithmetic at 60
    digits; L is taken from ell's upper and phi's lower end (a larger L still satisfies its
    definition (n_m + L) phi >= ell)."""
    import mpmath as mp

    gam = (e_ - 1 + beta) / e_
    n_m = ceil(k_ / gam - 1)
    t_nm = _tail(floor(gam * n_m) + 1, n_m, beta)
    iv = mp.iv
    with mp.workdps(60):
        def q(x: Fraction) -> Any:
            return iv.mpf(x.numerator) / x.denominator
        ell_ = -iv.log(q(t_nm))
        phi_ = q(gam) * iv.log(q(gam) / q(beta)) - q(gam - beta)
        if not phi_.a > 0:  # pragma: no cover - gamma > beta is proved
            raise ArithmeticError("phi not enclosed away from 0")
        upper = mp.mpf((ell_ / phi_).b)  # the enclosure's upper end: >= ell/phi
        return n_m, max(0, int(mp.ceil(upper)) - n_m)


def _range_check() -> tuple[Verdict, dict[str, str] | None, str]:
    """On the cross-check's grid: the max of the exact terms over n_m .. n_m + L (L from
    :func:`finite_range`) equals the engine's certified d (worstcase.closed_forms.d_certified),
    and no term in n_m + L + 1 .. n_m + L + CROSS_N_MAX exceeds the n_m term."""
    from dps_verify.worstcase.closed_forms import d_certified

    widest = 0
    for beta in CROSS_BETAS:
        for e_ in CROSS_ES:
            if e_ * (1 - beta) < 1:
                continue
            gam = (e_ - 1 + beta) / e_
            for k_ in range(1, CROSS_K_MAX + 1):
                n_m, L_ = finite_range(k_, beta, e_)
                widest = max(widest, L_)
                terms = {nn_: _tail(floor(gam * nn_) + 1, nn_, beta)
                         for nn_ in range(n_m, n_m + L_ + CROSS_N_MAX + 1)}
                top = max(terms[nn_] for nn_ in range(n_m, n_m + L_ + 1))
                eng = d_certified(k_, beta, f"ln({e_})")
                beyond = [nn_ for nn_, t_ in terms.items() if nn_ > n_m + L_ and t_ > terms[n_m]]
                if not (eng.lower == eng.upper == top) or beyond:
                    return Verdict.REFUTED, {"beta": str(beta), "E": str(e_), "k": str(k_),
                                             "n_m": str(n_m), "L": str(L_), "max": str(top),
                                             "engine d": f"[{eng.lower}, {eng.upper}]",
                                             "terms above term(n_m) past n_m + L": str(beyond)}, (
                        "the finite max disagrees with the engine's d")
    return Verdict.BOUNDED, None, (f"{range_check_range()}: max over n_m..n_m+L = the engine's "
                                   f"d_certified exactly (largest L: {widest})")


def range_check_range() -> str:
    """The range check's grid as the code runs it."""
    return (f"beta in {_frac_set(CROSS_BETAS)}, E in {_frac_set(CROSS_ES)} (pairs with "
            f"E(1 - beta) >= 1), 1 <= k <= {CROSS_K_MAX}; terms past n_m + L compared up to "
            f"n_m + L + {CROSS_N_MAX}")


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
    return equation(f(i_, n_), (1 - b) * f(i_, n_ - 1) + b * f(i_ - 1, n_ - 1))


def summed(K_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    """The summed identity F(K; n) = (1-b) F(K; n-1) + b F(K-1; n-1)."""
    return equation(F(K_, n_), (1 - b) * F(K_, n_ - 1) + b * F(K_ - 1, n_ - 1))


def cumulative(K_: sp.Expr, m_: sp.Expr) -> sp.Basic:
    """F(K; m) = F(K-1; m) + f(K; m) (definition of the cdf)."""
    return equation(F(K_, m_), F(K_ - 1, m_) + f(K_, m_))


def below_nm(x: sp.Expr) -> sp.Basic:
    """The max-over-n claim at x: T(x) <= T(n_m)."""
    return sp.Le(T(x), T(nmi))


# ------------------------------------------------------------------------ the assembly
# A group of m records of g(t) sampled with probability beta: f(x; m) is the probability that
# x of them are sampled.  Each quantity of the assembly is a chained sum over x of a summand
# defined by cases (opaque functions for z3, given by implications), so every sum is proved by
# induction on the number J of its terms, exactly like the sums of cp_theorem_2 / tr_definition_2.
x = sp.Symbol("x", integer=True)  # a count of g(t)'s records (any integer in the definitions)
J = sp.Symbol("J", integer=True, nonnegative=True)  # number of summed terms
d = sp.Symbol("d", real=True)  # d(k, beta, eps)
c, e, h, h2, q, u, w = (sp.Function(s_) for s_ in ("c", "e", "h", "h2", "q", "u", "w"))
SB, SD, ST, ST2, HV, HW, PU, PW = (sp.Function(s_) for s_ in (
    "SB", "SD", "ST", "ST2", "HV", "HW", "PU", "PW"))
DHS, DHSr, DPW, DPWr = (sp.Function(s_) for s_ in ("delta_hs", "delta_hs_rev", "mass_pw",
                                                     "mass_pw_rev"))


def bad(x_: sp.Expr, m_: sp.Expr) -> sp.Basic:
    """The paper's bad counts of a group of size m: x >= k (published) and x > gamma m."""
    return sp.And(x_ >= kk, x_ > g * m_)


def cases(fn: sp.Function, x_: sp.Expr, m_: sp.Expr, cond: sp.Basic, val: sp.Expr) -> list:
    """fn(x; m) = val where cond holds, 0 elsewhere."""
    return [sp.Implies(cond, equation(fn(x_, m_), val)), sp.Implies(sp.Not(cond), equation(fn(x_, m_), 0))]


def c_def(x_: sp.Expr, m_: sp.Expr) -> list:
    """c(x; m): the summand of the bad mass B(m) (f(x; m) on the bad counts)."""
    return cases(c, x_, m_, bad(x_, m_), f(x_, m_))


def e_def(x_: sp.Expr, m_: sp.Expr) -> list:
    """e(x; m): the summand of d's m-th term P[Bin(m, beta) > gamma m]."""
    return cases(e, x_, m_, x_ > g * m_, f(x_, m_))


def h_def(x_: sp.Expr, m_: sp.Expr) -> list:
    """h(x; m): the summand of T(m) = P[Bin(m, beta) >= k]."""
    return cases(h, x_, m_, x_ >= kk, f(x_, m_))


def h2_def(x_: sp.Expr, m_: sp.Expr) -> list:
    """h2(x; m): the summand of P[Bin(m, beta) >= k - 1]."""
    return cases(h2, x_, m_, x_ >= kk - 1, f(x_, m_))


def q_def(x_: sp.Expr, m_: sp.Expr) -> list:
    """q(x; m): probability that the output shows x copies of g(t) when its group has m
    records: the group is published iff at least k of them are sampled (strongly-safe
    k-anonymization suppresses the rest), so q(0) = F(k-1; m), q(x) = 0 for 0 < x < k and
    q(x) = f(x; m) for x >= k."""
    return [sp.Implies(sp.Eq(x_, 0), sp.Eq(q(x_, m_), F(kk - 1, m_))),
            sp.Implies(sp.And(x_ >= 1, x_ < kk), sp.Eq(q(x_, m_), 0)),
            sp.Implies(x_ >= kk, sp.Eq(q(x_, m_), f(x_, m_)))]


def out_of_band(x_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    """TR Def 2: output x's ratio q(x; n)/q(x; n-1) lies outside [1/E, E]."""
    return sp.Or(q(x_, n_) > E * q(x_, n_ - 1), q(x_, n_ - 1) > E * q(x_, n_))


def u_def(x_: sp.Expr, n_: sp.Expr) -> list:
    """u(x; n) / w(x; n): mass of output x under D / D_-t if it is out of band, else 0."""
    return (cases(u, x_, n_, out_of_band(x_, n_), q(x_, n_))
            + cases(w, x_, n_, out_of_band(x_, n_), q(x_, n_ - 1)))


def hs_fwd(x_: sp.Expr, n_: sp.Expr) -> sp.Expr:
    """Output x's share of the hockey-stick divergence of D from D_-t (CP Def 2)."""
    return sp.Max(q(x_, n_) - E * q(x_, n_ - 1), 0)


def hs_rev(x_: sp.Expr, n_: sp.Expr) -> sp.Expr:
    """Output x's share of the hockey-stick divergence of D_-t from D."""
    return sp.Max(q(x_, n_ - 1) - E * q(x_, n_), 0)


#: the summand of every chained sum (a function of (x, group size)).
SUMMAND = {SB: lambda x_, m_: c(x_, m_), SD: lambda x_, m_: e(x_, m_),
           ST: lambda x_, m_: h(x_, m_), ST2: lambda x_, m_: h2(x_, m_),
           HV: hs_fwd, HW: hs_rev, PU: lambda x_, m_: u(x_, m_),
           PW: lambda x_, m_: w(x_, m_)}


def sum_def(S: sp.Function, J_: sp.Expr, m_: sp.Expr) -> sp.Basic:
    """S(J + 1; m) = S(J; m) + summand(J; m)."""
    return equation(S(J_ + 1, m_), S(J_, m_) + SUMMAND[S](J_, m_))


def support(x_: sp.Expr, m_: sp.Expr) -> sp.Basic:
    """f(x; m) = 0 for x > m (no more successes than trials)."""
    return sp.Implies(x_ > m_, sp.Eq(f(x_, m_), 0))


def ratio(x_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    """The pmf ratio without division: f(x; n) (n - x) = n (1 - beta) f(x; n - 1)."""
    return equation(f(x_, n_) * (n_ - x_), n_ * (1 - b) * f(x_, n_ - 1))


def band(j_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    """For a count 0 <= j < n of a group of n >= 1 records: f(j; n) <= E f(j; n-1) when
    j <= gamma n, and f(j; n-1) <= E f(j; n) (the ratio n(1-beta)/(n-j) is >= 1 - beta)."""
    return sp.Implies(sp.And(n_ >= 1, j_ >= 0, ratio(j_, n_), f(j_, n_ - 1) >= 0),
                      sp.And(sp.Implies(j_ <= g * n_, f(j_, n_) <= E * f(j_, n_ - 1)),
                             sp.Implies(j_ < n_, f(j_, n_ - 1) <= E * f(j_, n_))))


def zero_band(n_: sp.Expr) -> list:
    """Output 0 (g(t) suppressed): F(k-1; n) and F(k-1; n-1) within a factor E."""
    return [F(kk - 1, n_) <= E * F(kk - 1, n_ - 1), F(kk - 1, n_ - 1) <= E * F(kk - 1, n_)]


def sup_d(m_: sp.Expr) -> sp.Basic:
    """d is the max (a supremum: the range n >= n_m is infinite) of the terms
    P[Bin(n, beta) > gamma n] = SD(n + 1; n), so it is at least each of them."""
    return sp.Implies(m_ >= nmi, d >= SD(m_ + 1, m_))


def split_le(J_: sp.Expr, m_: sp.Expr) -> sp.Basic:
    """n <= n_m: a count >= k exceeds gamma n (step 'n <= n_m: condition is j >= k')."""
    return sp.Implies(sp.And(m_ <= nmi, J_ >= kk), J_ > g * m_)


def split_ge(J_: sp.Expr, m_: sp.Expr) -> sp.Basic:
    """n >= n_m + 1: a count > gamma n is >= k (step 'n >= n_m + 1: ...')."""
    return sp.Implies(sp.And(m_ >= nmi + 1, J_ > g * m_), J_ >= kk)


#: the three chained sums over counts, proved by one induction on J (for every m): for
#: m >= n_m + 1 the bad mass is at most d's m-th term, for m <= n_m it is T's sum, and T's
#: n_m sum is at most d's n_m-th term.
def cmp_hi(J_: sp.Expr) -> sp.Basic:
    return sp.Implies(m >= nmi + 1, SB(J_, m) <= SD(J_, m))


def cmp_lo(J_: sp.Expr) -> sp.Basic:
    return sp.Implies(m <= nmi, sp.Eq(SB(J_, m), ST(J_, m)))


def cmp_nm(J_: sp.Expr) -> sp.Basic:
    return ST(J_, nmi) <= SD(J_, nmi)


def cmp_sums(J_: sp.Expr) -> sp.Basic:
    return sp.And(cmp_hi(J_), cmp_lo(J_), cmp_nm(J_))


def cmp_terms(J_: sp.Expr) -> sp.Basic:
    return sp.And(sp.Implies(m >= nmi + 1, c(J_, m) <= e(J_, m)),
                  sp.Implies(m <= nmi, sp.Eq(c(J_, m), h(J_, m))),
                  h(J_, nmi) <= e(J_, nmi))


#: T's summed Pascal identity and T's summand threshold k - 1 dominating k (induction on J).
def pascal_sums(J_: sp.Expr) -> sp.Basic:
    return sp.And(equation(ST(J_ + 1, m + 1), (1 - b) * ST(J_ + 1, m) + b * ST2(J_, m)),
                  ST2(J_, m) >= ST(J_, m))


#: the four output sums against the bad mass (induction on J, for every group size n >= 1).
def out_sums(J_: sp.Expr) -> sp.Basic:
    return sp.And(HV(J_, nn) <= SB(J_, nn), HW(J_, nn) <= 0, PU(J_, nn) <= SB(J_, nn),
                  PW(J_, nn) <= SB(J_, nn - 1))


def out_terms(J_: sp.Expr) -> sp.Basic:
    return sp.And(hs_fwd(J_, nn) <= c(J_, nn), hs_rev(J_, nn) <= 0, u(J_, nn) <= c(J_, nn),
                  w(J_, nn) <= c(J_, nn - 1))


#: the theorem for a group of n >= 1 records of g(t) in D (t included): both hockey-stick
#: divergences (CP Def 2) and both out-of-band masses (TR Def 2) are at most d.
FINAL_GROUP = sp.And(HV(nn + 1, nn) <= d, HW(nn + 1, nn) <= d, PU(nn + 1, nn) <= d,
                     PW(nn + 1, nn) <= d)
#: CP Thm 5's statement -- the ONE definition used by the last step, its pins, its controls and
#: the displayed text: for a group of n >= 1 records of g(t) in D, the whole output's
#: hockey-stick divergence (CP Def 2) of D from D_-t and of D_-t from D, and its out-of-band
#: masses (TR Def 2) under D and under D_-t, are all at most delta.
PAPER_DELTA = d  # the paper's delta: d(k, beta, eps), the sup over n >= n_m (see sup_d)


def statement(delta: sp.Expr) -> sp.Basic:
    """(beta, eps, delta)-DPS for the pair (D, D_-t) in both orders, CP Def 2 and TR Def 2."""
    return sp.And(DHS(nn) <= delta, DHSr(nn) <= delta, DPW(nn) <= delta, DPWr(nn) <= delta)


FINAL = statement(PAPER_DELTA)

# The whole output: (r, x) with r one of the R outputs of the other groups (probability
# rho(r), the same under D and D_-t: their records, their sampling and the data-independent
# recoding do not involve t) and x the published count of g(t), independent of r.
rr = sp.Symbol("r", integer=True, nonnegative=True)  # an output of the other groups
Qc = sp.Symbol("Q", integer=True, nonnegative=True)  # number of those summed
Rtot = sp.Symbol("R", integer=True, positive=True)  # all of them
rho, Prho, U2, W2 = (sp.Function(s_) for s_ in ("rho", "Prho", "U2", "W2"))
IHV, IHW, IPU, IPW = (sp.Function(s_) for s_ in ("IHV", "IHW", "IPU", "IPW"))
OHV, OHW, OPU, OPW = (sp.Function(s_) for s_ in ("OHV", "OHW", "OPU", "OPW"))


def pair_band(r_: sp.Expr, x_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    """TR Def 2 for the whole output (r, x): P_D = rho(r) q(x; n), P_D-t = rho(r) q(x; n-1)."""
    p1, p0 = rho(r_) * q(x_, n_), rho(r_) * q(x_, n_ - 1)
    return sp.Or(p1 > E * p0, p0 > E * p1)


def pair_defs(r_: sp.Expr, x_: sp.Expr, n_: sp.Expr) -> list:
    """U2, W2: out-of-band mass of the whole output (r, x) under D and D_-t."""
    ob = pair_band(r_, x_, n_)
    return [sp.Implies(ob, sp.Eq(U2(r_, x_, n_), rho(r_) * q(x_, n_))),
            sp.Implies(sp.Not(ob), sp.Eq(U2(r_, x_, n_), 0)),
            sp.Implies(ob, sp.Eq(W2(r_, x_, n_), rho(r_) * q(x_, n_ - 1))),
            sp.Implies(sp.Not(ob), sp.Eq(W2(r_, x_, n_), 0))]


#: the summand of each inner sum (over x, for a fixed r) and the group sum it factors into.
PAIR = {IHV: lambda r_, x_, n_: sp.Max(rho(r_) * q(x_, n_) - E * rho(r_) * q(x_, n_ - 1), 0),
        IHW: lambda r_, x_, n_: sp.Max(rho(r_) * q(x_, n_ - 1) - E * rho(r_) * q(x_, n_), 0),
        IPU: lambda r_, x_, n_: U2(r_, x_, n_), IPW: lambda r_, x_, n_: W2(r_, x_, n_)}
GROUP_SUM = {IHV: HV, IHW: HW, IPU: PU, IPW: PW}
GROUP_TERM = {IHV: hs_fwd, IHW: hs_rev, IPU: lambda x_, n_: u(x_, n_),
              IPW: lambda x_, n_: w(x_, n_)}
OUTER = {OHV: IHV, OHW: IHW, OPU: IPU, OPW: IPW}
WHOLE = {DHS: OHV, DHSr: OHW, DPW: OPU, DPWr: OPW}


def inner_def(S: sp.Function, r_: sp.Expr, J_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    return equation(S(r_, J_ + 1, n_), S(r_, J_, n_) + PAIR[S](r_, J_, n_))


def outer_def(S: sp.Function, Q_: sp.Expr, n_: sp.Expr) -> sp.Basic:
    return equation(S(Q_ + 1, n_), S(Q_, n_) + OUTER[S](Q_, n_ + 1, n_))


def pair_terms(J_: sp.Expr) -> sp.Basic:
    return sp.And(*[equation(PAIR[S](rr, J_, nn), rho(rr) * GROUP_TERM[S](J_, nn)) for S in PAIR])


def inner(J_: sp.Expr) -> sp.Basic:
    return sp.And(*[equation(S(rr, J_, nn), rho(rr) * GROUP_SUM[S](J_, nn)) for S in PAIR])


def outer(Q_: sp.Expr) -> sp.Basic:
    return sp.And(*[equation(S(Q_, nn), Prho(Q_) * GROUP_SUM[OUTER[S]](nn + 1, nn)) for S in OUTER])


def defs(*forms: sp.Basic) -> list:
    """Instances of given facts, minus those that collapse to True (k >= 1 makes 0 >= k False)."""
    return [a for f_ in forms for a in (f_ if isinstance(f_, list) else [f_]) if a is not sp.true]


#: the j = 0 step: hypotheses (the summed identity at K = k - 1 and the cdf facts) and
#: conclusion, used by the step and its controls.
Fn, Fm, G = F(kk - 1, nn), F(kk - 1, nn - 1), F(kk - 2, nn - 1)
J0_HYPS = DOM + [Fm > 0, G >= 0, G <= Fm, summed(kk - 1, nn)]
J0_LOW, J0_HIGH = 1 - b, sp.Integer(1)
J0_CLAIM = sp.And(Fn / Fm >= J0_LOW, Fn / Fm <= J0_HIGH, 1 / E <= Fn / Fm)

nr, jr = sp.symbols("n j", real=True)
kg = sp.Symbol("k_over_gamma", real=True)  # k/gamma
#: the declared ranges, stated for the solvers (sympy would evaluate k >= 1 to True).
K_RANGE = sp.Ge(kk, 1, evaluate=False)
J_RANGE = sp.Ge(J, 0, evaluate=False)
N_RANGE = sp.Ge(nn, 1, evaluate=False)
NM_RANGE = sp.Ge(nmi, 1, evaluate=False)
SUMS = (SB, SD, ST, ST2)
OUT_SUMS = (HV, HW, PU, PW)
# ------------------------------------------------ d is the least upper bound, attained
# d = sup over n >= n_m of the terms SD(n + 1; n) = P[Bin(n, beta) > gamma n], read with both
# halves of its definition: an upper bound (sup_d) and the least one (LUB_LEAST: below d some
# term exceeds any y < d; M(y) >= 0 is the offset of such a term past n_m, a Skolem function).
# The Chernoff lemma (cited, TR §6) makes the sup a max over a computed finite range
# n_m .. n_m + L: MX(o) is the max of the first o terms, and every term past n_m + L is at most
# the n_m term, so d = MX(L + 1).
MX = sp.Function("MX")
Mw = sp.Function("M", integer=True, nonnegative=True)
o = sp.Symbol("o", integer=True, nonnegative=True)  # offset of a group size past n_m
op = sp.Symbol("p", integer=True, positive=True)  # an offset, for the downward induction
Lr = sp.Symbol("L", integer=True, nonnegative=True)  # the computed range length
ell = sp.Symbol("ell", real=True)  # -ln of the n_m term
y = sp.Symbol("y")  # a number below d (no declared domain: any value may be substituted)
TERM_NM = SD(nmi + 1, nmi)  # P[Bin(n_m, beta) > gamma n_m], d's first term


def term_at(o_: sp.Expr) -> sp.Expr:
    """d's term at the group size n_m + o: SD(n_m + o + 1; n_m + o)."""
    return SD(nmi + o_ + 1, nmi + o_)


LUB_LEAST = sp.Implies(y < d, term_at(Mw(y)) > y)
MX_DEFS = [sp.Eq(MX(0), 0), sp.Eq(MX(o + 1), sp.Max(MX(o), term_at(o)))]
#: ell = -ln(term(n_m)) (term(n_m) > 0 is proved) and L >= 0 with (n_m + L) phi >= ell, i.e.
#: L = max(0, ceil(ell/phi) - n_m): computable from k, beta, eps (see :func:`finite_range`).
ELL_DEF = sp.Implies(TERM_NM > 0, sp.Eq(tr6.Exp(-ell), TERM_NM))  # -ln needs term(n_m) > 0
L_DEF = (nmi + Lr) * tr6.phi(g, b) >= ell
#: the nested events {X > gamma m} inside {X >= gamma m} (TR Thm 6's event lemma, for SD).
TERM_TAIL = SD(m + 1, m) <= tr6.tail(m, g)
#: e^x increasing, at the exponents the range step compares.
CHERN_AT = {tr6.n_: nmi + o, tr6.t_: g}  # the Chernoff lemma at the group size n_m + o, t = gamma
_X1 = tr6.CHERNOFF.args[1].rhs.args[0].xreplace(CHERN_AT)  # its exponent, -(n_m + o) phi
EXP_RANGE = sp.Implies(_X1 <= -ell, tr6.Exp(_X1) <= tr6.Exp(-ell))
#: the offsets' and L's declared ranges, stated for the solvers (sympy would evaluate o >= 0).
O_RANGE, L_RANGE = sp.Ge(o, 0, evaluate=False), sp.Ge(Lr, 0, evaluate=False)
D_MAX = sp.Eq(d, MX(Lr + 1))  # the sup is the max of the terms at n_m .. n_m + L
#: every offset o <= L + 1 has MX(o) <= MX(L + 1) (the downward induction's conclusion).
TOP_ALL = sp.Implies(o <= Lr + 1, MX(o) <= MX(Lr + 1))


def _interpret_sd(pt: Any) -> dict[str, Any]:
    """Exact meanings for the range lemmas' spot checks: SD(J; m) the sum of f(x; m) over the
    counts x < J above gamma m, tail and phi as in tr-theorem-6, Exp = e^x."""
    base = tr6._interpret(pt)
    beta, gamma = Fraction(str(pt[b])), Fraction(str(pt[g]))

    def sd(J_: Any, m_: Any) -> sp.Rational:
        J_, m_ = int(J_), int(m_)
        return sp.Rational(sum((_f(x_, m_, beta) for x_ in range(max(0, floor(gamma * m_) + 1),
                                                                   min(J_, m_ + 1))),
                               Fraction(0)))
    return {**base, "SD": sd}


def _sup_model(k_: int, beta: Fraction, e_: Fraction) -> Any:
    """The intended model of the givens about d at (k, beta, E = e^eps): gamma, n_m, k/gamma
    exact; the terms SD(n + 1; n) exact binomial sums; L from :func:`finite_range` (interval
    enclosures, rounded up); d = MX(L + 1) the max of the terms at n_m .. n_m + L; M(y) the
    offset of a term attaining it (so term(M(y)) = d > y for every y < d); ell = -ln(term(n_m))
    in closed form.  Index variables at offsets 0 .. min(L, 6) and L .. L + 2, group sizes
    n_m - 1 and n_m + those offsets, y at d, just below d, 0 and -1 (both sides of y < d)."""
    def build() -> tuple[dict, dict, dict]:
        gam = (e_ - 1 + beta) / e_
        n_m, L_ = finite_range(k_, beta, e_)
        pt = {b: sp.Rational(beta.numerator, beta.denominator), g: sp.nsimplify(gam),
              E: sp.Rational(e_.numerator, e_.denominator), kk: k_, nmi: n_m, Lr: L_,
              kg: sp.Rational(k_) / sp.nsimplify(gam), jr: 0, nr: 1}
        interp = _interpret_sd(pt)
        terms = [interp["SD"](n_m + o_ + 1, n_m + o_) for o_ in range(L_ + 1)]
        top = max(terms)
        arg = terms.index(top)

        def mx(o_: Any) -> Any:
            return max(terms[:int(o_)], default=sp.Integer(0)) if int(o_) <= L_ + 1 else \
                max([top, *(interp["SD"](n_m + j_ + 1, n_m + j_) for j_ in range(int(o_)))])

        pt.update({d: top, ell: -sp.log(terms[0])})
        interp = {**interp, "MX": mx, "M": lambda y_: sp.Integer(arg)}
        offs = sorted({*range(min(L_, 6) + 1), L_, L_ + 1, L_ + 2})  # both ends of the range
        inst = {o: offs, m: [n_m - 1, *(n_m + o_ for o_ in offs)],
                y: [top, top - sp.Rational(1, 10**6), 0, -1], J: range(3), nn: range(1, 3)}
        return pt, interp, inst
    return build


#: the concrete models of the givens checked by the kernel (see kernel.consistency): two
#: parameter points, at the regime edge E(1 - beta) = 1 and inside it.
MODELS = (Model("k = 3, beta = 1/2, E = 2 (E(1 - beta) = 1)",
                _sup_model(3, Fraction(1, 2), Fraction(2))),
          Model("k = 5, beta = 1/4, E = 3/2", _sup_model(5, Fraction(1, 4), Fraction(3, 2))))

_half, _tf = sp.Rational(1, 2), sp.Rational(3, 5)
#: the range lemmas' instances: the event comparison at a few sizes; e^x increasing on both
#: sides of its guard.
TAIL_POINTS = ({m: 7, g: _tf, b: _half}, {m: 12, g: _tf, b: sp.Rational(1, 4)},
               {m: 0, g: _tf, b: _half})
EXP_RANGE_POINTS = ({nmi: 7, o: 3, g: _tf, b: _half, ell: sp.Rational(1, 20)},
                    {nmi: 7, o: 3, g: _tf, b: _half, ell: 1})


def _sup_steps() -> list[Step]:
    """d is the least upper bound of its terms, attained within n_m .. n_m + L."""
    out: list[Step] = []
    # the n_m term is positive: f(m; m) = beta^m > 0, and the term is at least f(n_m; n_m)
    def fmm(x_: sp.Expr) -> sp.Basic:
        return f(x_, x_) > 0

    base = prove_sym("f(m; m) > 0: base m = 0", "f(0; 0) = 1.", fmm(0), [sp.Eq(f(0, 0), 1)])
    step = prove_sym("f(m; m) > 0: step m -> m + 1",
                     "Pascal's rule and f(m + 1; m) = 0: f(m+1; m+1) = beta f(m; m) > 0.",
                     fmm(m + 1), [fmm(m), pascal_pmf(m + 1, m + 1), support(m + 1, m), b > 0],
                     local=[fmm(m)], over=(m,))
    out += [base, step] + [induction("f(m; m) > 0 for every m >= 0", "Induction on m: f(m; m) = "
                                  "beta^m > 0.", fmm, m, 0, base, step, over=(m,))]
    out.append(prove_sym(
        "d's n_m term > 0",
        "SD(n_m + 1; n_m) = SD(n_m; n_m) + e(n_m; n_m) >= f(n_m; n_m) > 0, since n_m > gamma n_m "
        "(gamma < 1): so ell = -ln of it is a real number and L is finite.", TERM_NM > 0,
        defs(sum_def(SD, nmi, nmi), e_def(nmi, nmi), SD(nmi, nmi) >= 0, fmm(nmi), g > 0, g < 1,
             NM_RANGE)))
    out.append(tr6._phi_step())
    mono = sp.And(MX(o) <= MX(o + 1), term_at(o) <= MX(o + 1))
    out.append(prove_sym("finite max: MX(o) <= MX(o + 1) and term(n_m + o) <= MX(o + 1)",
                         "MX(o + 1) = max(MX(o), term(n_m + o)).", mono, [MX_DEFS[1]], over=(o,)))

    def below_top(x_: sp.Expr) -> sp.Basic:
        return MX(x_) <= MX(Lr + 1)

    top = prove_sym("finite max: base o = L + 1", "MX(L + 1) <= MX(L + 1).", below_top(Lr + 1))
    down = prove_sym("finite max: step o -> o - 1",
                     "MX(o - 1) <= MX(o) <= MX(L + 1).", below_top(op - 1),
                     [below_top(op), mono.xreplace({o: op - 1})], local=[below_top(op)],
                     over=(op,))
    out += [top, down, induction("finite max: MX(o) <= MX(L + 1) for o <= L + 1",
                                 "Induction down from L + 1.", below_top, op, Lr + 1, top, down,
                                 direction=-1, concludes=TOP_ALL,
                                 over=(o,))]

    def below_d(x_: sp.Expr) -> sp.Basic:
        return MX(x_) <= d

    base = prove_sym("finite max <= d: base o = 0", "MX(0) = 0 <= d.", below_d(0),
                     [MX_DEFS[0], d >= 0])
    step = prove_sym("finite max <= d: step o -> o + 1",
                     "MX(o + 1) = max(MX(o), term(n_m + o)) <= d: d is an upper bound of the "
                     "terms (the sup's first half).", below_d(o + 1),
                     [below_d(o), MX_DEFS[1], sup_d(m).xreplace({m: nmi + o})],
                     local=[below_d(o)], over=(o,))
    out += [base, step] + [induction("finite max <= d for every o", "Induction on o.", below_d, o,
                                  0, base, step, over=(o,))]
    every = term_at(o) <= MX(Lr + 1)
    top_all = TOP_ALL
    chern = tr6.CHERNOFF.xreplace(CHERN_AT)
    out.append(prove_sym(
        "every term of d <= the max over n_m .. n_m + L",
        "o <= L: term(n_m + o) <= MX(o + 1) <= MX(L + 1).  o > L: term(n_m + o) <= "
        "P[X >= gamma (n_m + o)] <= e^(-(n_m + o) phi) (Chernoff at gamma > beta) <= e^(-ell) "
        "(since (n_m + o) phi > (n_m + L) phi >= ell, phi > 0) = term(n_m) <= MX(1) <= "
        "MX(L + 1).", every,
        [mono, top_all.xreplace({o: o + 1}), mono.xreplace({o: 0}), top_all.xreplace({o: 1}), TERM_TAIL.xreplace({m: nmi + o}), chern,
         EXP_RANGE, ELL_DEF, TERM_NM > 0, L_DEF, tr6.PHI_POS, g > b, b > 0, NM_RANGE, O_RANGE,
         L_RANGE],
        over=(o,)))
    out.append(prove_sym(
        "d <= the max over n_m .. n_m + L (least upper bound)",
        "If MX(L + 1) < d, the sup's second half gives a term above MX(L + 1), but every term "
        "is at most MX(L + 1).", d <= MX(Lr + 1),
        [LUB_LEAST.xreplace({y: MX(Lr + 1)}), every.xreplace({o: Mw(MX(Lr + 1))})]))
    out.append(prove_sym(
        "d is attained: d = max over n_m .. n_m + L",
        "MX(L + 1) <= d and d <= MX(L + 1): the sup is the max of the finitely many terms at "
        "n_m, ..., n_m + L (L computed from k, beta, eps), so the paper's max exists.",
        D_MAX, [below_d(Lr + 1), d <= MX(Lr + 1)]))
    return out


#: what the theorem takes as given (checked by the chaining check of proofs.core).
#: f's closed form (CP Def 3: each of m records sampled with probability beta), a definition:
#: the sympy certificates about f substitute it (proofs.core.sympy_instance).
F_CLOSED = sp.Eq(f(x, m), sp.binomial(m, x) * b ** x * (1 - b) ** (m - x))
GIVEN = (
    given("hypothesis", "CP Thm 5: 0 < beta < 1 and eps >= -ln(1 - beta), i.e. E(1 - beta) >= 1",
          *DOM)
    + given("definition", "gamma = (e^eps - 1 + beta)/e^eps (CP Thm 5)", sp.Eq(g, GAMMA))
    + given("setting", "k >= 1 (the suppression threshold)", K_RANGE)
    + given("setting", "counts J >= 0 and D's group size n >= 1 (t is in D)", J_RANGE,
            N_RANGE, over=(J, nn))
    + given("definition", "n_m = ceil(k/gamma - 1): with k_over_gamma = k/gamma (times gamma: k), "
            "n_m >= k_over_gamma - 1 > n_m - 1", nmi >= kg - 1, nmi - 1 < kg - 1, sp.Eq(kg * g, kk))
    + given("setting", "for the ratio steps, j of the n copies of g(t) are sampled with "
            "0 <= j < n (j = n is bad: D_-t cannot publish n copies; the assembly counts it)",
            jr >= 0, jr < nr)
    + given("definition", "F is the binomial cdf of the pmf f: F(K; m) = F(K-1; m) + f(K; m)",
            cumulative(K, m), over=(K, m))
    + given("definition", "empty sums: F(-1; m) = 0 and f(-1; m) = 0",
            sp.Eq(F(-1, m), 0), sp.Eq(f(-1, m), 0), over=(m,))
    + given("definition", "f(K; m) = C(m, K) beta^K (1-beta)^(m-K) >= 0 (a product of "
            "non-negative factors)", f(K, m) >= 0, over=(K, m))
    + given("definition", "f's closed form: f(x; m) = C(m, x) beta^x (1-beta)^(m-x) for every "
            "count x and group size m >= 0", F_CLOSED, over=(x, m))
    + given("definition", "summands (by cases on the count x): c = f on the bad counts "
            "(x >= k and x > gamma m), e = f on x > gamma m, h = f on x >= k, h2 = f on "
            "x >= k - 1, each 0 elsewhere; q = the law of the published count of g(t) "
            "(F(k-1; m) at 0, 0 for 0 < x < k, f(x; m) for x >= k); u, w = q(x; n), q(x; n-1) "
            "on the outputs whose ratio leaves [1/E, E], 0 elsewhere",
            *c_def(x, m), *e_def(x, m), *h_def(x, m), *h2_def(x, m), *q_def(x, m),
            *u_def(x, nn), over=(x, m, nn))
    + given("definition", "chained sums over the counts 0, 1, ..., J - 1: S(0; m) = 0 and "
            "S(J+1; m) = S(J; m) + summand(J; m); B(m) = SB(m+1; m) (bad mass), SD(m+1; m) = "
            "P[Bin(m, beta) > gamma m] (d's m-th term), ST (P[X >= k]), ST2 (P[X >= k-1])",
            *[sp.Eq(S(0, m), 0) for S in SUMS], *[sum_def(S, J, m) for S in SUMS],
            over=(J, m))
    + given("definition", "sums over the outputs 0..J-1 for a group of n records (a count "
            "above n has probability 0 under D and D_-t -- the proved step 'pmf above its "
            "support' -- so J = n + 1 covers them all): PU, PW (out-of-band masses under D and "
            "D_-t, TR Def 2)", *[sp.Eq(S(0, nn), 0) for S in (PU, PW)],
            *[sum_def(S, J, nn) for S in (PU, PW)], over=(J, nn))
    + given("lemma", "hockey-stick divergence as a sum (standard): the sums HV, HW of the "
            "positive parts max(P - E P', 0) over the outputs (both directions) are CP Def 2's "
            "sup over events O of P(O) - E P'(O), attained at O = {P > E P'}",
            *[sp.Eq(S(0, nn), 0) for S in (HV, HW)], *[sum_def(S, J, nn) for S in (HV, HW)],
            over=(J, nn), label="hockey-stick = sum of positive parts (standard)",
            source="standard: sup over events O of P(O) - e^eps P'(O) is attained at O = "
            "{P > e^eps P'} and equals the sum of max(P - e^eps P', 0) over the outputs "
            "(e.g. Balle, Barthe & Gaboardi, NeurIPS 2018, Thm 1's hockey-stick form)",
            spot=engine_checks.hockey_as_sum)
    + given("definition", "T(m) = P[Bin(m, beta) >= k] = ST(m+1; m), the bad mass for "
            "m <= n_m", sp.Eq(T(m), ST(m + 1, m)), over=(m,))
    + given("definition", "d(k, beta, eps) = max over n >= n_m of SD(n+1; n) = P[Bin(n, beta) "
            "> gamma n], read as the supremum (the range is infinite; the max is proved attained "
            "below): (i) d is an upper bound, d >= every term", sup_d(m), over=(m,))
    + given("definition", "(ii) d is the least upper bound: below any y < d some term exceeds y "
            "(M(y) >= 0 is the offset past n_m of such a term, a Skolem function)", LUB_LEAST,
            over=(y,))
    + given("setting", "offsets o >= 0 past n_m and the range length L >= 0", O_RANGE, L_RANGE,
            over=(o,))
    + given("definition", "MX(o) = the max of the first o terms of d, at n_m, ..., n_m + o - 1 "
            "(MX(0) = 0)", *MX_DEFS, over=(o,))
    + given("definition", "ell = -ln(term(n_m)) (term(n_m) > 0 is proved) and the range length "
            "L = max(0, ceil(ell/phi(gamma, beta)) - n_m): (n_m + L) phi >= ell, computable "
            "from k, beta, eps (finite_range)", ELL_DEF, L_DEF)
    + [f_ for f_ in tr6.GIVEN if f_.formula in (tr6.PHI_DEF, tr6.CHERNOFF)]
    + given("lemma", "probability of nested events: {X > gamma m} lies inside {X >= gamma m}, so "
            "d's m-th term SD(m+1; m) <= tail(m, gamma) = P[Bin(m, beta) >= gamma m]", TERM_TAIL,
            over=(m,), label="events compared (standard)",
            source="standard: P is monotone on nested events",
            spot=at_points(TAIL_POINTS, _interpret_sd, "exact binomial probabilities"))
    + given("lemma", "e^x is increasing (standard), at the exponents the range step compares",
            EXP_RANGE, over=(o,), label="e^x is increasing (standard)",
            source="standard: (e^x)' = e^x > 0, so x1 <= x2 gives e^x1 <= e^x2",
            spot=at_points(EXP_RANGE_POINTS, _interpret_sd, "both sides of x1 <= x2"))
    + given("lemma", "the whole output is (r, x): r one of the R outputs of the other groups, "
            "with probability rho(r) >= 0 (summing to 1) under both D and D_-t (their records, "
            "their independent sampling and the data-independent recoding do not involve t), "
            "and x the published count of g(t), independent of r: P_D(r, x) = rho(r) q(x; n), "
            "P_D-t(r, x) = rho(r) q(x; n-1) (the reduction of CP App. A.2; rho's sum is 1, "
            "the other groups' sampling law)", rho(rr) >= 0, sp.Eq(Prho(0), 0),
            sp.Eq(Prho(Qc + 1), Prho(Qc) + rho(Qc)), sp.Eq(Prho(Rtot), 1), over=(rr, Qc),
            label="other groups' law independent of t's group (CP App. A.2)",
            source="CP App. A.2: with a data-independent recoding, records sampled independently "
            "and each group published by its own count, the other groups' output has one law "
            "under D and D_-t, independent of g(t)'s count",
            spot=engine_checks.other_groups)
    + given("definition", "the whole output's divergences and out-of-band masses: sums over x "
            "(inner, for each r) and over r (outer) of the pair terms, e.g. max(P_D(r, x) - E "
            "P_D-t(r, x), 0); U2, W2 = P_D, P_D-t on the pairs whose ratio leaves [1/E, E]",
            *pair_defs(rr, x, nn), *[sp.Eq(S(rr, 0, nn), 0) for S in PAIR],
            *[inner_def(S, rr, J, nn) for S in PAIR], *[sp.Eq(S(0, nn), 0) for S in OUTER],
            *[outer_def(S, Qc, nn) for S in OUTER],
            *[sp.Eq(D_(nn), S(Rtot, nn)) for D_, S in WHOLE.items()], over=(rr, x, J, Qc, nn))
)


#: CP Thm 5 as proved: for a group of n >= 1 records of g(t) in D, the whole output's
#: hockey-stick divergences (CP Def 2, both orders) and out-of-band masses (TR Def 2, under D
#: and D_-t) are at most d = d(k, beta, eps), the sup over n >= n_m of P[Bin(n, beta) > gamma n].
STATEMENT = Statement(
    "CP Thm 5, §3.3 and App. A.2",
    "Bernoulli(beta) sampling followed by strongly-safe k-anonymization with a "
    "data-independent recoding is (beta, eps, d(k, beta, eps))-DPS for eps >= -ln(1 - beta); "
    "d, the max over n >= n_m of P[Bin(n, beta) > gamma n], is attained at a group size at "
    "most n_m + L, L computed from k, beta and eps.",
    # written out here, not read from GIVEN: a narrowed given is then an extra hypothesis
    hypotheses=(b > 0, b < 1, E * (1 - b) >= 1, sp.Ge(kk, 1, evaluate=False),
                sp.Ge(J, 0, evaluate=False), sp.Ge(nn, 1, evaluate=False), jr >= 0, jr < nr,
                sp.Ge(o, 0, evaluate=False), sp.Ge(Lr, 0, evaluate=False)),
    definitions=formulas_of(GIVEN, "definition"),
    lemmas=formulas_of(GIVEN, "lemma"),
    conclusion=sp.And(DHS(nn) <= d, DHSr(nn) <= d, DPW(nn) <= d, DPWr(nn) <= d,
                      sp.Eq(d, MX(Lr + 1))))


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
        J0_CLAIM, J0_HYPS, derived=[summed(kk - 1, nn), G <= Fm], over=(nn,))


def _pmf_steps() -> list[Step]:
    """Facts about f read off its closed form (sympy certificates tied to the chained
    f-formulas: F_CLOSED substituted, beta and 1 - beta read as positive symbols (DOM))."""
    bp, cp = sp.Symbol("beta", positive=True), sp.Symbol("c", positive=True)  # c = 1 - beta
    r = sp.Symbol("r", integer=True, nonnegative=True)
    pos = [(1 - b, cp), (b, bp)]
    scale = bp ** i * cp ** (nn - i)
    return [
        sympy_instance("pmf ratio",
                       "f(i; n) (n - i) = n (1 - beta) f(i; n-1) for every i >= 0, n >= 1 (so "
                       "f(j; n)/f(j; n-1) = n(1 - beta)/(n - j) for j < n): checked with f "
                       "replaced by C(n, i) b^i (1-b)^(n-i), b and c = 1 - b positive, both "
                       "sides divided by b^i c^(n-i) > 0 and the powers combined (powsimp, no "
                       "force).", ratio(i, nn), definitions=[F_CLOSED], rename=pos,
                       divide_by=scale, over=(i, nn)),
        sympy_step("Pascal's rule", "C(n, j) = C(n-1, j) + C(n-1, j-1) for n >= 1.",
                   sp.binomial(nn, j), sp.binomial(nn - 1, j) + sp.binomial(nn - 1, j - 1)),
        sympy_instance(
            "Pascal's rule for the pmf",
            "f(i; n) = (1-b) f(i; n-1) + b f(i-1; n-1) for every i >= 0, n >= 1: checked with f "
            "replaced by C(n, i) b^i (1-b)^(n-i), b and c = 1 - b positive, both sides divided "
            "by b^i c^(n-i) > 0.", pascal_pmf(i, nn), definitions=[F_CLOSED], rename=pos,
            divide_by=scale, over=(i, nn)),
        sympy_instance("pmf above its support",
                       "f(x; m) = 0 for x > m: with x = m + 1 + r (r >= 0) the closed form has "
                       "the factor C(m, m + 1 + r) = 0.", support(x, m), definitions=[F_CLOSED],
                       change=(x, m + 1 + r), over=(x, m)),
        sympy_instance("pmf at m = 0", "f(0; 0) = C(0, 0) b^0 (1-b)^0 = 1.",
                       sp.Eq(f(0, 0), 1), definitions=[F_CLOSED]),
    ]


def _positivity_steps() -> list[Step]:
    """F(K-1; m) >= 0 and F(K; m) >= f(0; m) = (1-beta)^m > 0, by induction (was a given)."""
    out: list[Step] = []

    def f0(x_: sp.Expr) -> sp.Basic:
        return f(0, x_) > 0

    base = prove_sym("f(0; m) > 0: base m = 0", "f(0; 0) = 1 > 0.", f0(0), [sp.Eq(f(0, 0), 1)])
    step = prove_sym("f(0; m) > 0: step m -> m + 1",
                     "Pascal's rule at i = 0: f(0; m+1) = (1-b) f(0; m) + b f(-1; m) = "
                     "(1-b) f(0; m) > 0.", f0(m + 1),
                     [f0(m), pascal_pmf(0, m + 1), sp.Eq(f(-1, m), 0), b > 0, b < 1],
                     local=[f0(m)], over=(m,))
    out += [base, step] + [induction("f(0; m) > 0 for every m >= 0",
                                  "Induction on m: f(0; m) = (1 - beta)^m > 0.",
                                  f0, m, 0, base, step, over=(m,))]

    def nonneg(x_: sp.Expr) -> sp.Basic:
        return F(x_ - 1, m) >= 0

    base = prove_sym("F(K-1; m) >= 0: base K = 0", "F(-1; m) = 0.", nonneg(0),
                     [sp.Eq(F(-1, m), 0)], over=(m,))
    step = prove_sym("F(K-1; m) >= 0: step K -> K + 1", "F(K; m) = F(K-1; m) + f(K; m) >= 0.",
                     nonneg(K + 1), [nonneg(K), cumulative(K, m), f(K, m) >= 0],
                     local=[nonneg(K)], over=(K, m))
    out += [base, step] + [induction("F(K-1; m) >= 0 for every K >= 0",
                                  "Induction on K from the cdf definition and f >= 0.",
                                  nonneg, K, 0, base, step, over=(K, m))]

    def above_f0(x_: sp.Expr) -> sp.Basic:
        return F(x_, m) >= f(0, m)

    base = prove_sym("F(K; m) >= f(0; m): base K = 0", "F(0; m) = F(-1; m) + f(0; m) = f(0; m).",
                     above_f0(0), [cumulative(0, m), sp.Eq(F(-1, m), 0)], over=(m,))
    step = prove_sym("F(K; m) >= f(0; m): step K -> K + 1",
                     "F(K+1; m) = F(K; m) + f(K+1; m) >= F(K; m) >= f(0; m).", above_f0(K + 1),
                     [above_f0(K), cumulative(K + 1, m), f(K + 1, m) >= 0],
                     local=[above_f0(K)], over=(K, m))
    out += [base, step] + [induction("F(K; m) >= f(0; m) for every K >= 0",
                                  "Induction on K from the cdf definition and f >= 0.",
                                  above_f0, K, 0, base, step, over=(K, m)),
            prove_sym("F(K; m) > 0", "F(K; m) >= f(0; m) > 0 for every K, m >= 0.",
                      F(K, m) > 0, [above_f0(K), f0(m)], over=(K, m))]
    return out


def _monotone_steps() -> list[Step]:
    """T(m) = P[Bin(m, beta) >= k] is non-decreasing in m, as a chained sum over counts."""
    base = prove_sym(
        "T's summed Pascal: base J = 0",
        "Empty sums, and h(0; .) = 0 as 0 < k.", pascal_sums(0),
        defs(sp.Eq(ST(0, m + 1), 0), sum_def(ST, 0, m + 1), sp.Eq(ST(0, m), 0),
             sum_def(ST, 0, m), sp.Eq(ST2(0, m), 0), h_def(0, m + 1), h_def(0, m)), over=(m,))
    step = prove_sym(
        "T's summed Pascal: step J -> J + 1",
        "Termwise h(J+1; m+1) = (1-b) h(J+1; m) + b h2(J; m) (Pascal's rule when J + 1 >= k, "
        "all 0 otherwise) and h2(J; m) >= h(J; m) (thresholds k - 1 <= k, f >= 0), added to "
        "the induction hypothesis.", pascal_sums(J + 1), PASCAL_STEP_HYPS,
        local=[pascal_sums(J)], over=(J, m))
    return [base, step, induction(
        "T's summed Pascal for every J",
        "Induction on J: ST(J+1; m+1) = (1-b) ST(J+1; m) + b ST2(J; m) and ST2(J; m) >= "
        "ST(J; m) for every J >= 0.", pascal_sums, J, 0, base, step, over=(J, m)),
        prove_sym(
        "monotone for n <= n_m",
        "T(m+1) = ST(m+2; m+1) = (1-b) ST(m+2; m) + b ST2(m+1; m) >= (1-b) T(m) + b T(m) = "
        "T(m), as ST(m+2; m) = T(m) + h(m+1; m) and f(m+1; m) = 0.",
        T(m + 1) >= T(m),
        defs(sp.Eq(T(m), ST(m + 1, m)), sp.Eq(T(m + 1), ST(m + 2, m + 1)),
             *pascal_sums(m + 1).args, sum_def(ST, m + 1, m), h_def(m + 1, m),
             support(m + 1, m), b > 0, b < 1), over=(m,))]


def _assembly_steps() -> list[Step]:
    """Bad mass B(m) <= d for every m (cases n <= n_m and n >= n_m + 1), then the group's
    divergences and out-of-band masses (sums over its outputs) <= d, then the theorem."""
    out: list[Step] = []
    term = prove_sym(
        "case split, termwise",
        "For every count J: if m >= n_m + 1, c(J; m) <= e(J; m) (a bad count exceeds gamma m); "
        "if m <= n_m, c(J; m) = h(J; m) (the bad counts are those >= k); and h(J; n_m) <= "
        "e(J; n_m) (a count >= k > gamma n_m exceeds gamma n_m).", cmp_terms(J),
        defs(c_def(J, m), e_def(J, m), h_def(J, m), h_def(J, nmi), e_def(J, nmi),
             f(J, m) >= 0, f(J, nmi) >= 0, split_le(J, m), split_ge(J, m), g * nmi < kk, g > 0),
        over=(J, m))
    base = prove_sym("case split, sums: base J = 0", "Empty sums are 0.", cmp_sums(0),
                     defs(*[sp.Eq(S(0, mm), 0) for S in (SB, SD, ST) for mm in (m, nmi)]),
                     over=(m,))
    step = prove_sym(
        "case split, sums: step J -> J + 1",
        "Add the termwise comparison at J to the induction hypothesis.", cmp_sums(J + 1),
        defs(cmp_sums(J), *[sum_def(S, J, mm) for S in (SB, SD, ST) for mm in (m, nmi)],
             *cmp_terms(J).args), local=[cmp_sums(J)], over=(J, m))
    out += [term, base, step, induction(
        "case split, sums for every J", "Induction on the number J of counts summed.",
        cmp_sums, J, 0, base, step, over=(J, m))]
    out.append(prove_sym(
        "bad mass <= d for every group size",
        "m >= n_m + 1: B(m) <= SD(m+1; m), the m-th term of d's max, <= d.  m <= n_m: B(m) = "
        "T(m) <= T(n_m) <= SD(n_m+1; n_m) (gamma n_m < k), the n_m term, <= d.",
        SB(m + 1, m) <= d, BOUND_HYPS, over=(m,)))
    out.append(prove_sym(
        "pmf ratio within the band",
        "For real 0 <= j and n >= 1 with f(j; n)(n - j) = n(1-b) f(j; n-1), f >= 0: j <= gamma n "
        "gives f(j; n) <= E f(j; n-1), and j < n gives f(j; n-1) <= (1-b)^-1 f(j; n) <= "
        "E f(j; n) (stated for reals, used at integers).",
        band(jr, nr), [sp.Eq(g, GAMMA), *DOM], over=(jr, nr)))
    out.append(prove_sym(
        "output 0 within the band",
        "From the j = 0 ratio in [1 - beta, 1] and F(k-1; n-1) > 0: F(k-1; n) <= F(k-1; n-1) "
        "<= E F(k-1; n-1) and F(k-1; n-1) <= E F(k-1; n).",
        sp.And(*zero_band(nn)), [*J0_CLAIM.args, Fm > 0, *DOM], over=(nn,)))
    termo = prove_sym(
        "outputs, termwise",
        "For every output (count J of g(t)): its share of the hockey-stick divergence of D "
        "from D_-t and its out-of-band mass under D are <= c(J; n), its share of the reverse "
        "divergence is 0, and its out-of-band mass under D_-t is <= c(J; n-1): J = 0 by the "
        "j = 0 ratio, 0 < J < k is never published, k <= J < n by the pmf ratio (out of band "
        "iff J > gamma n, and then J > gamma (n-1)), J = n is bad, J > n has mass 0.",
        out_terms(J), OUT_TERM_HYPS, over=(J, nn))
    base = prove_sym("outputs, sums: base J = 0", "Empty sums are 0.", out_sums(0),
                     [sp.Eq(S(0, nn), 0) for S in OUT_SUMS]
                     + [sp.Eq(SB(0, nn), 0), sp.Eq(SB(0, nn - 1), 0)], over=(nn,))
    step = prove_sym(
        "outputs, sums: step J -> J + 1",
        "Add the termwise bounds at J to the induction hypothesis.", out_sums(J + 1),
        [out_sums(J), *[sum_def(S, J, nn) for S in OUT_SUMS], sum_def(SB, J, nn),
         sum_def(SB, J, nn - 1), *out_terms(J).args], local=[out_sums(J)], over=(J, nn))
    out += [termo, base, step, induction(
        "outputs, sums for every J", "Induction on the number J of outputs summed.",
        out_sums, J, 0, base, step, over=(J, nn))]
    out.append(prove_sym(
        "group of n: both divergences and both out-of-band masses <= d",
        "Summed over the n + 1 outputs: HV, PU <= B(n) <= d; PW <= SB(n+1; n-1) = B(n-1) + "
        "c(n; n-1) = B(n-1) <= d (f(n; n-1) = 0); HW <= 0 <= B(0) <= d.",
        FINAL_GROUP, GROUP_HYPS, over=(nn,)))
    out += _whole_output_steps()
    return out


def _whole_output_steps() -> list[Step]:
    """The other groups' part factors out (the reduction of CP App. A.2 to g(t)'s count)."""
    scale = sp.Implies(rho(rr) > 0, sp.Eq(pair_band(rr, J, nn), out_of_band(J, nn)))
    out = [prove_sym("whole output: ratio of a pair",
                     "For rho(r) > 0 the pair (r, J) leaves the band [1/E, E] iff the count J "
                     "does: rho(r) cancels from the ratio.", scale, [*DOM], over=(rr, J, nn)),
           prove_sym("whole output, termwise",
                     "Each pair's share is rho(r) times the count's: max(rho a - E rho b, 0) = "
                     "rho max(a - E b, 0) for rho >= 0, and the out-of-band masses likewise "
                     "(rho(r) = 0 gives 0 on both sides).", pair_terms(J),
                     [rho(rr) >= 0, *u_def(J, nn), *pair_defs(rr, J, nn), *DOM, scale],
                     over=(rr, J, nn))]
    base = prove_sym("whole output, sums over x: base J = 0", "Empty sums are 0.", inner(0),
                     [*[sp.Eq(S(rr, 0, nn), 0) for S in PAIR],
                      *[sp.Eq(S(0, nn), 0) for S in OUT_SUMS]], over=(rr, nn))
    step = prove_sym("whole output, sums over x: step J -> J + 1",
                     "Add rho(r) times the count's term.", inner(J + 1),
                     [inner(J), *[inner_def(S, rr, J, nn) for S in PAIR],
                      *[sum_def(S, J, nn) for S in OUT_SUMS], *pair_terms(J).args],
                     local=[inner(J)], over=(rr, J, nn))
    out += [base, step] + [induction("whole output, sums over x for every J",
                                  "Induction on J: for each r the sum over counts is rho(r) "
                                  "times the group's sum.", inner, J, 0, base, step,
                                  over=(rr, J, nn))]
    base = prove_sym("whole output, sums over r: base Q = 0", "Empty sums are 0.", outer(0),
                     [*[sp.Eq(S(0, nn), 0) for S in OUTER], sp.Eq(Prho(0), 0)], over=(nn,))
    step = prove_sym("whole output, sums over r: step Q -> Q + 1",
                     "Add the Q-th output of the other groups: rho(Q) times the group's sum.",
                     outer(Qc + 1),
                     [outer(Qc), *[outer_def(S, Qc, nn) for S in OUTER],
                      sp.Eq(Prho(Qc + 1), Prho(Qc) + rho(Qc)), *inner(nn + 1).subs(rr, Qc).args],
                     local=[outer(Qc)], over=(Qc, nn))
    out += [base, step] + [induction("whole output, sums over r for every Q",
                                  "Induction on Q: the first Q outputs of the other groups "
                                  "contribute Prho(Q) times the group's sum.", outer, Qc, 0,
                                  base, step, over=(Qc, nn))]
    out += _d_nonneg_steps()
    out += _sup_steps()
    out.append(prove_sym(
        "CP Thm 5: delta = d for every D and t",
        "Over all R outputs of the other groups (Prho(R) = 1) the whole output's divergences and "
        "out-of-band masses equal the group's: both hockey-stick divergences (CP Def 2) and "
        "both out-of-band masses (TR Def 2) of sampled strongly-safe k-anonymization are at "
        f"most d(k, beta, eps): {sp.sstr(FINAL)}; and d is that max, attained within "
        "n_m .. n_m + L.", sp.And(*FINAL.args, D_MAX), [*FINAL_HYPS, D_MAX], derived=[D_MAX],
        over=(nn,)))
    out += _statement_pins()
    return out


#: the last step's hypotheses: the group's bounds, the factorisation over the other groups'
#: outputs, their law summing to 1, the whole output's quantities, and d >= 0 (proved).
FINAL_HYPS = [*FINAL_GROUP.args, *outer(Rtot).args, sp.Eq(Prho(Rtot), 1),
              *[sp.Eq(D_(nn), S(Rtot, nn)) for D_, S in WHOLE.items()], d >= 0]


def _d_nonneg_steps() -> list[Step]:
    """d >= 0: every term of d's max is a sum of probabilities (chained, by induction on J)."""
    def nonneg(J_: sp.Expr) -> sp.Basic:
        return SD(J_, m) >= 0

    base = prove_sym("d's terms >= 0: base J = 0", "SD(0; m) = 0 (empty sum).", nonneg(0),
                     [sp.Eq(SD(0, m), 0)], over=(m,))
    step = prove_sym("d's terms >= 0: step J -> J + 1",
                     "SD(J+1; m) = SD(J; m) + e(J; m), and e(J; m) is f(J; m) >= 0 or 0.",
                     nonneg(J + 1), defs(nonneg(J), sum_def(SD, J, m), e_def(J, m), f(J, m) >= 0),
                     local=[nonneg(J)], over=(J, m))
    return [base, step,
            induction("d's terms >= 0 for every J", "Induction on the number J of counts summed.",
                      nonneg, J, 0, base, step, over=(J, m)),
            prove_sym("d >= 0", "d is at least its n_m term SD(n_m + 1; n_m), a probability "
                      ">= 0.", d >= 0, [d >= SD(nmi + 1, nmi), SD(nmi + 1, nmi) >= 0])]


def attained(delta: sp.Expr) -> sp.Basic:
    """Every bound of :func:`statement` reached: each quantity equal to ``delta``."""
    return sp.And(*[sp.Eq(c.lhs, delta) for c in statement(delta).args])


#: d's range pin: at n = n_m - 1 (below the range) d's defining property says nothing.
BELOW_RANGE = [*defs(sup_d(nmi - 1)), NM_RANGE, d >= 0]


def statement_check(formula: sp.Basic) -> tuple[Verdict, dict[str, str] | None, str]:
    """Structural pin of the conclusion against the paper: ``formula`` must bound exactly the
    whole output's four quantities the GIVEN defines (WHOLE), each by the symbol d whose
    defining property is d's sup (sup_d), and the D_-t direction of each must be the D
    direction with D and D_-t exchanged (swap q(x; n) and q(x; n-1) in the summands)."""
    want = {D_(nn) <= d for D_ in WHOLE}
    got = set(formula.args) if isinstance(formula, sp.And) else {formula}
    bad: dict[str, str] = {}
    if got != want:
        bad["conclusion"] = (f"bounds {sorted(map(sp.sstr, got))}, the paper's statement "
                             f"bounds {sorted(map(sp.sstr, want))}")
    swap = {q(x, nn): q(x, nn - 1), q(x, nn - 1): q(x, nn)}
    hv, hw = PAIR[IHV](rr, x, nn), PAIR[IHW](rr, x, nn)
    if hv.xreplace(swap) != hw:
        bad["hockey-stick"] = "D_-t's summand is not D's with D and D_-t exchanged"
    pd = pair_defs(rr, x, nn)
    if [f_.xreplace(swap).replace(U2, W2) for f_ in pd[:2]] != pd[2:]:
        bad["out-of-band"] = "W2's cases are not U2's with D and D_-t exchanged"
    if bad:
        return Verdict.REFUTED, bad, "; ".join(f"{k_}: {v}" for k_, v in bad.items())
    return Verdict.PROVED, None, (
        "structure compared: the conclusion is " + sp.sstr(formula) + ", i.e. each of "
        "delta_hs, delta_hs_rev (CP Def 2, D vs D_-t and D_-t vs D), mass_pw, mass_pw_rev "
        "(TR Def 2, under D and under D_-t) <= d, and the reverse summands are the forward "
        "ones with q(x; n) and q(x; n-1) exchanged")


def _statement_pins() -> list[Step]:
    """The conclusion pinned to CP Thm 5's statement: its shape, nothing lost by the last step,
    and d's range starting at n_m (so neither the bound nor d can be quietly weakened)."""
    return [
        timed("pin: the conclusion is the paper's statement",
              "The last step concludes (beta, eps, d)-DPS in both orders and both senses: "
              "hockey-stick divergence (CP Def 2) of D from D_-t and of D_-t from D, out-of-band "
              "masses (TR Def 2) under D and D_-t, each <= d = d(k, beta, eps).",
              "structural comparison", lambda: statement_check(FINAL), expr=FINAL),
        exists_sym("pin: the last step loses nothing",
                   "Under the last step's hypotheses each of the four quantities can equal "
                   "d > 0: the conclusion is exactly as strong as the chained bounds (a bound "
                   "d + 1 or 2d, or a lost direction, would be noticed here or above).",
                   attained(PAPER_DELTA), FINAL_HYPS + [d > 0]),
        exists_sym("pin: d's range starts at n_m",
                   "d is the sup over n >= n_m only (the paper's d): the term at n = n_m - 1 may "
                   "exceed it, as it does for beta = 1/2, e^eps = 2, k = 6 (n_m = 7: the n = 6 "
                   "term is 7/64, the terms for 7 <= n <= 60 are at most 23/256).",
                   SD(nmi, nmi - 1) > d, BELOW_RANGE),
    ]


#: T's summed Pascal, inductive step: the induction hypothesis, the sums' definitions at J and
#: J + 1, the summands' cases and Pascal's rule at (J + 1, m + 1).
PASCAL_STEP_HYPS = defs(
    pascal_sums(J), sum_def(ST, J + 1, m + 1), sum_def(ST, J + 1, m), sum_def(ST2, J, m),
    sum_def(ST, J, m), h_def(J + 1, m + 1), h_def(J + 1, m), h2_def(J, m), h_def(J, m),
    pascal_pmf(J + 1, m + 1), f(J, m) >= 0)
#: the step 'bad mass <= d': cmp_sums at J = m + 1 (both cases) and at J = n_m + 1 (third
#: conjunct), T's definition, the max over n <= n_m, and d's defining property.
BOUND_CASE_HI = [cmp_hi(m + 1), sup_d(m)]
BOUND_CASE_LO = [cmp_lo(m + 1), cmp_nm(nmi + 1), sp.Eq(T(m), ST(m + 1, m)),
                 sp.Eq(T(nmi), ST(nmi + 1, nmi)), sp.Implies(m <= nmi, below_nm(m))]
BOUND_HYPS = BOUND_CASE_HI + BOUND_CASE_LO + [d >= SD(nmi + 1, nmi)]
OUT_TERM_HYPS = defs(
    DOM, sp.Eq(g, GAMMA), g > 0, g < 1, K_RANGE, q_def(J, nn), q_def(J, nn - 1), c_def(J, nn),
    c_def(J, nn - 1), u_def(J, nn), f(J, nn) >= 0, f(J, nn - 1) >= 0, ratio(J, nn),
    support(J, nn), support(J, nn - 1), band(J, nn), *zero_band(nn), J_RANGE, N_RANGE)
GROUP_HYPS = defs(
    *out_sums(nn + 1).args, SB(nn + 1, nn) <= d, SB(nn, nn - 1) <= d, SB(1, 0) <= d,
    sum_def(SB, nn, nn - 1), c_def(nn, nn - 1), support(nn, nn - 1), sp.Eq(SB(0, 0), 0),
    sum_def(SB, 0, 0), c_def(0, 0))


def steps() -> list[Step]:
    out = [
        prove_sym("gamma > beta", "gamma - beta = (E - 1)(1 - beta)/E > 0.", GAMMA > b, DOM),
        prove_sym("gamma <= 1", "gamma <= 1 since beta <= 1.", GAMMA <= 1, DOM),
        prove_sym("0 < gamma < 1", "With gamma = (E - 1 + beta)/E: 0 < beta < gamma < 1.",
                  sp.And(g > b, g > 0, g < 1), DOM + [sp.Eq(g, GAMMA)]),
    ]
    out += _pmf_steps()
    out += _positivity_steps()
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
        J0_HYPS + [hh.subs(kk, kk + 1) for hh in J0_HYPS[3:]]))
    out.append(prove_sym(
        "bad outcomes are exactly j > gamma n",
        "For 0 <= j < n: n(1-b)/(n-j) > E  <=>  j > gamma n; the lower side never fails.",
        sp.And(sp.Eq(nr * (1 - b) > E * (nr - jr), jr > GAMMA * nr),
               nr * (1 - b) / (nr - jr) >= 1 / E),
        DOM + [jr >= 0, jr < nr]))
    out.append(prove_sym(
        "n_m = ceil(k/gamma - 1)",
        "gamma n_m < k <= gamma (n_m + 1), and gamma(n_m + 1) < k + 1 (so the first bad j at "
        "n_m + 1 is k + 1); n_m >= 1.",
        sp.And(g * nmi < kk, kk <= g * (nmi + 1), g * (nmi + 1) < kk + 1, NM_RANGE),
        [g > 0, g < 1, K_RANGE, nmi >= kg - 1, nmi - 1 < kg - 1, sp.Eq(kg * g, kk)]))
    out.append(prove_sym(
        "n <= n_m: condition is j >= k",
        "For n <= n_m and j >= k: j > gamma n (so bad set = {k <= j <= n}).",
        split_le(J, m), [g > 0, g < 1, g * nmi < kk], over=(J, m)))
    out.append(prove_sym(
        "n >= n_m + 1: condition is j > gamma n",
        "For n >= n_m + 1, j > gamma n implies j >= k.",
        split_ge(J, m), [g > 0, g < 1, kk <= g * (nmi + 1)], over=(J, m)))
    out += _monotone_steps()
    top = prove_sym("max over n: base n = n_m", "T(n_m) <= T(n_m).", below_nm(nmi))
    down = prove_sym(
        "max over n: inductive step n -> n - 1",
        "T(n) <= T(n_m) (induction hypothesis) and T(n - 1) <= T(n) (monotone) give "
        "T(n - 1) <= T(n_m).", below_nm(nn - 1), [below_nm(nn), T(nn) >= T(nn - 1)],
        local=[below_nm(nn)], over=(nn,))
    out += [top, down, induction(
        "max over n: every n <= n_m",
        "Induction down from n_m (the step holds for every n >= 1, so it reaches n = 0): for "
        "every 0 <= n <= n_m, T(n) <= T(n_m).", below_nm, nn, nmi, top, down, direction=-1,
        concludes=sp.Implies(m <= nmi, below_nm(m)), over=(m,))]
    out.append(prove_sym(
        "D_-t side is dominated",
        "Bad j for D_-t (j > gamma n) are bad at n - 1 too (j > gamma (n-1)): its mass is a "
        "term of the max over n.",
        jr > g * (nr - 1), [g > 0], premises=[jr > g * nr]))
    out += _assembly_steps()
    out.append(timed("finite range against the engine's d",
                     "d = the max over n_m .. n_m + L (L = finite_range(k, beta, E), the "
                     "statement's computed range) agrees exactly with the engine's certified d "
                     "on a grid (evidence only: the chain above proves it in general).",
                     "exact terms (Fraction) vs worstcase.closed_forms.d_certified", _range_check,
                     expected=Verdict.BOUNDED, role="remark", bound=range_check_range()))
    out.append(timed("exact cross-check", "Worst bad mass (D and D_-t) <= d on a finite grid "
                     "(evidence only: the assembly above does not use it).",
                     f"exhaustive up to n = {CROSS_N_MAX} (Fraction)", _cross_check,
                     expected=Verdict.BOUNDED, role="remark", bound=cross_check_range()))
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
        *_assembly_controls(),
    ]


def _statement_controls() -> list[Step]:
    """A weakened conclusion or a strengthened hypothesis on d, rejected by the pins."""
    ref = Verdict.REFUTED
    one_way = sp.And(DHS(nn) <= d, DPW(nn) <= d)
    return [
        exists_sym("control: pin of a weakened conclusion (d + 1)",
                   "The 'loses nothing' pin against the bound d + 1: the chained bounds never "
                   "reach it, so the pin must fail.", attained(PAPER_DELTA + 1),
                   FINAL_HYPS + [d > 0], expected=ref),
        exists_sym("control: pin of a weakened conclusion (2d)",
                   "The 'loses nothing' pin against the bound 2d (d > 0): must fail.",
                   attained(2 * PAPER_DELTA), FINAL_HYPS + [d > 0], expected=ref),
        timed("control: statement with one direction only",
              "The statement pin on D vs D_-t alone (no D_-t vs D conjuncts): must fail.",
              "structural comparison", lambda: statement_check(one_way), expr=one_way,
              expected=ref),
        timed("control: statement with the bound d + 1",
              "The statement pin on the four quantities <= d + 1: must fail.",
              "structural comparison", lambda: statement_check(statement(d + 1)),
              expr=statement(d + 1), expected=ref),
        exists_sym("control: d's defining property over every n >= 0",
                   "The range pin with d >= every term for n >= 0 (a larger d than the "
                   "paper's, i.e. a stronger hypothesis): the n_m - 1 term can no longer "
                   "exceed d, so the pin must fail.", SD(nmi, nmi - 1) > d,
                   [sp.Implies(nmi - 1 >= 0, d >= SD(nmi, nmi - 1)), NM_RANGE, d >= 0],
                   expected=ref),
    ]


def _sup_controls() -> list[Step]:
    """The sup link without its parts: d only an upper bound (no least-ness), and the range
    step without the Chernoff bound."""
    every = term_at(o) <= MX(Lr + 1)
    least = prove_sym("d <= the max over n_m .. n_m + L (least upper bound)", "(as in the proof)",
                      d <= MX(Lr + 1), [LUB_LEAST.xreplace({y: MX(Lr + 1)}),
                                        every.xreplace({o: Mw(MX(Lr + 1))})])
    no_least = [f_ for f_ in GIVEN if f_.formula != LUB_LEAST]
    hyps = [sp.And(MX(o) <= MX(o + 1), term_at(o) <= MX(o + 1)),
            TOP_ALL.xreplace({o: o + 1}), TOP_ALL.xreplace({o: 1}), ELL_DEF, TERM_NM > 0, L_DEF,
            tr6.PHI_POS,
            g > b, b > 0, NM_RANGE, O_RANGE, L_RANGE]
    return [
        chain_control("control: d attained from its upper-bound half alone",
                      "The least-upper-bound step when d is given only as an upper bound of its "
                      "terms (its least-ness removed from the givens): the step's first "
                      "assumption is then neither given nor proved (ERROR).", [least], no_least),
        prove_sym("control: every term below the finite max without the Chernoff bound",
                  "The range step without the Chernoff lemma and the event comparison: a term "
                  "past n_m + L is then unconstrained, so the step must fail.", every, hyps,
                  over=(o,), expected=Verdict.REFUTED),
    ]


def _assembly_controls() -> list[Step]:
    """Wrong variants of the assembly's steps, rejected by the same machinery."""
    ref = Verdict.REFUTED
    e1 = sp.Function("e1")
    return [
        *_statement_controls(),
        *_sup_controls(),
        prove_sym("control: n_m term with threshold j > gamma n_m + 1",
                  "T(n_m)'s summand against d's n_m summand with the threshold moved to "
                  "gamma n_m + 1: the count j = k is >= k but not above gamma n_m + 1, so the "
                  "termwise bound fails.", h(J, nmi) <= e1(J, nmi),
                  defs(h_def(J, nmi), cases(e1, J, nmi, J > g * nmi + 1, f(J, nmi)),
                       f(J, nmi) >= 0, g * nmi < kk, kk <= g * (nmi + 1), g > 0, g < 1, K_RANGE),
                  expected=ref),
        prove_sym("control: case split without n <= n_m",
                  "'bad mass <= d' from the n >= n_m + 1 case alone: a group size m <= n_m "
                  "is not covered.", SB(m + 1, m) <= d,
                  BOUND_CASE_HI + [d >= SD(nmi + 1, nmi)], expected=ref),
        prove_sym("control: d's max without its n_m term",
                  "'bad mass <= d' when d only dominates the terms n >= n_m + 1: B(n_m) = "
                  "T(n_m) is not covered.", SB(m + 1, m) <= d,
                  [cmp_hi(m + 1), sp.Implies(m >= nmi + 1, d >= SD(m + 1, m)), *BOUND_CASE_LO],
                  expected=ref),
        prove_sym("control: T's summed Pascal off by one",
                  "The inductive step claiming ST(J+2; m+1) = (1-b) ST(J+1; m) + b ST2(J+1; m) "
                  "(one count short on the right); refuted at J = 1, m = 2, k = 1, beta = 1/2.",
                  sp.Eq(ST(J + 2, m + 1), (1 - b) * ST(J + 1, m) + b * ST2(J + 1, m)),
                  PASCAL_STEP_HYPS + [sp.Eq(J, 1), sp.Eq(m, 2), sp.Eq(kk, 1),
                                      sp.Eq(b, sp.Rational(1, 2))], expected=ref),
        prove_sym("control: hockey-stick share without e^eps",
                  "max(q(J; n) - q(J; n-1), 0) <= c(J; n): a count with n beta < J <= gamma n "
                  "is not bad but its mass grows from D_-t to D (refuted at n = 5, J = 3, "
                  "k = 1, E = 3, beta = 1/2).",
                  sp.Max(q(J, nn) - q(J, nn - 1), 0) <= c(J, nn),
                  OUT_TERM_HYPS + [sp.Eq(nn, 5), sp.Eq(J, 3), sp.Eq(kk, 1), sp.Eq(E, 3),
                                   sp.Eq(b, sp.Rational(1, 2))], expected=ref),
        chain_control("control: group bound without the sums over outputs",
                      "The step 'group of n: ... <= d' alone: the output sums it assumes are "
                      "neither given nor proved, so the chaining check must reject it.",
                      [prove_sym("group of n: both divergences and both out-of-band masses <= d",
                                 "(as in the proof)", FINAL_GROUP, GROUP_HYPS, over=(nn,))],
                      GIVEN),
    ]
