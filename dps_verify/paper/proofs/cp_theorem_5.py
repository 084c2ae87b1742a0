"""CP Theorem 5 (§3.3; proof in App. A.2): sampled strongly-safe k-anonymization is
(beta, eps, d(k, beta, eps))-DPS for eps >= -ln(1 - beta), gamma = (e^eps - 1 + beta)/e^eps.

E = e^eps with E >= 1/(1 - beta).  n = copies of g(t) in D (t included), j = copies in S.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, comb, floor

import sympy as sp

from dps_verify.paper.proofs.core import Step, Verdict, prove_sym, sympy_step, timed

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


def _f(jj: int, nn: int, beta: Fraction) -> Fraction:
    return comb(nn, jj) * beta ** jj * (1 - beta) ** (nn - jj) if 0 <= jj <= nn else Fraction(0)


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
                d = max(sum(_f(x, nn, beta) for x in range(floor(gam * nn) + 1, nn + 1))
                        for nn in range(n_m, 61))
                for nn in range(1, 61):
                    bad = sum(_f(x, nn, beta) for x in range(kk, nn + 1)
                              if x > gam * nn and nn * (1 - beta) > e * (nn - x))
                    bad_minus = sum(_f(x, nn - 1, beta) for x in range(kk, nn)
                                    if x > gam * nn)
                    if max(bad, bad_minus) > d:
                        worst = {"beta": str(beta), "E": str(e), "k": str(kk), "n": str(nn)}
    if worst:
        return Verdict.REFUTED, worst, "bad mass exceeds d"
    return Verdict.BOUNDED, None, ("beta in {1/10,1/4,1/2}, E in {2,3,5}, k <= 6, n <= 60 "
                                   "(d's max taken over n_m..60): bad mass <= d everywhere")


Fn, Fm, G = sp.symbols("F_n F_n1 G", real=True)
#: the j = 0 step: hypotheses (the summed Pascal identity) and conclusion, used by the step
#: and its controls.
J0_HYPS = DOM + [Fm > 0, G >= 0, G <= Fm, sp.Eq(Fn, (1 - b) * Fm + b * G)]
J0_CLAIM = sp.And(Fn / Fm >= 1 - b, Fn / Fm <= 1, 1 / E <= Fn / Fm)


def steps() -> list[Step]:
    out = [
        prove_sym("gamma > beta", "gamma - beta = (E - 1)(1 - beta)/E > 0.", GAMMA > b, DOM),
        prove_sym("gamma <= 1", "gamma <= 1 since beta <= 1.", GAMMA <= 1, DOM),
        sympy_step("pmf ratio", "f(j; n, beta)/f(j; n-1, beta) = n(1 - beta)/(n - j).",
                   sp.combsimp(sp.binomial(n, j) * (1 - b) ** (n - j)
                               / (sp.binomial(n - 1, j) * (1 - b) ** (n - 1 - j))),
                   n * (1 - b) / (n - j)),
        sympy_step("Pascal's rule", "f(i; n, b) = (1-b) f(i; n-1, b) + b f(i-1; n-1, b); summed "
                   "over i <= k-1: F(k-1; n) = F(k-1; n-1) - b f(k-1; n-1).",
                   sp.binomial(n, j), sp.binomial(n - 1, j) + sp.binomial(n - 1, j - 1)),
    ]
    bp = sp.Symbol("beta", positive=True)
    ip, npos = sp.symbols("i n", integer=True, positive=True)

    def pmf(jj: sp.Expr, mm: sp.Expr) -> sp.Expr:
        return sp.binomial(mm, jj) * bp ** jj * (1 - bp) ** (mm - jj)

    scale = bp ** ip * (1 - bp) ** (npos - ip)
    out.append(sympy_step(
        "Pascal's rule for the pmf",
        "f(i; n) = (1-b) f(i; n-1) + b f(i-1; n-1), both sides divided by the factor "
        "b^i (1-b)^(n-i), positive for 0 < b < 1.",
        pmf(ip, npos) / scale, ((1 - bp) * pmf(ip, npos - 1) + bp * pmf(ip - 1, npos - 1)) / scale))
    out.append(sympy_step(
        "summed Pascal, base K = 0",
        "F(0; n) = f(0; n) = (1-b)^n = (1-b) F(0; n-1) + b F(-1; n-1) with F(-1) = 0.",
        (1 - bp) ** npos, (1 - bp) * (1 - bp) ** (npos - 1)))
    FK, FKm, FKm1, fK1, fK1m, fKm, FK1, FK1m = sp.symbols(
        "F_K_n F_K_n1 F_Km1_n1 f_K1_n f_K1_n1 f_K_n1 F_K1_n F_K1_n1", real=True)
    out.append(prove_sym(
        "summed Pascal, induction step K -> K + 1",
        "F(K; n) = (1-b) F(K; n-1) + b F(K-1; n-1) and Pascal's rule for f(K+1; n) give "
        "F(K+1; n) = (1-b) F(K+1; n-1) + b F(K; n-1): the identity the j = 0 step uses.",
        sp.Eq(FK1, (1 - b) * FK1m + b * FKm),
        [b > 0, b < 1, sp.Eq(FK, (1 - b) * FKm + b * FKm1),
         sp.Eq(fK1, (1 - b) * fK1m + b * fKm),
         sp.Eq(FK1, FK + fK1), sp.Eq(FK1m, FKm + fK1m), sp.Eq(FKm, FKm1 + fKm)]))
    out.append(prove_sym(
        "j = 0 ratio in [1 - beta, 1]",
        "F(k-1;n) = (1-b) F(k-1;n-1) + b F(k-2;n-1) with 0 <= F(k-2;n-1) <= F(k-1;n-1): "
        "the ratio F(k-1;n)/F(k-1;n-1) lies in [1 - beta, 1] (so in [e^-eps, e^eps]).",
        J0_CLAIM, J0_HYPS))
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
        jr > g * nr, [g > 0, g < 1, nr <= nm, g * nm < k, jr >= k]))
    out.append(prove_sym(
        "n >= n_m + 1: condition is j > gamma n",
        "For n >= n_m + 1, j > gamma n implies j >= k.",
        jr >= k, [g > 0, g < 1, nr >= nm + 1, k <= g * (nm + 1), jr > g * nr]))
    fk = sp.Symbol("f_k1", real=True)
    out.append(prove_sym(
        "monotone for n <= n_m",
        "P[Bin(n+1) >= k] - P[Bin(n) >= k] = b f(k-1; n) >= 0 (from Pascal's rule).",
        sp.Symbol("T_n1") >= sp.Symbol("T_n"),
        [b > 0, b < 1, fk >= 0, sp.Eq(sp.Symbol("T_n1"), sp.Symbol("T_n") + b * fk)]))
    Tn, Tn1, Tnm = sp.symbols("T_n T_n1 T_nm", real=True)
    out.append(prove_sym(
        "max over n: induction down from n_m",
        "T(n+1) = T(n) + b f(k-1; n) >= T(n) and T(n+1) <= T(n_m) give T(n) <= T(n_m): for every "
        "n <= n_m the bad mass is at most the n_m term of d's max (induction on n_m - n).",
        Tn <= Tnm, [b > 0, b < 1, fk >= 0, sp.Eq(Tn1, Tn + b * fk), Tn1 <= Tnm]))
    out.append(prove_sym(
        "D_-t side is dominated",
        "Bad j for D_-t (j > gamma n) are bad at n - 1 too (j > gamma (n-1)): its mass is a "
        "term of the max over n.",
        jr > g * (nr - 1), [g > 0, jr > g * nr]))
    out.append(timed("exact cross-check", "Worst bad mass (D and D_-t) <= d on a finite grid.",
                     "exhaustive up to n = 60 (Fraction)", _cross_check,
                     expected=Verdict.BOUNDED, role="remark"))
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
        prove_sym("control: contradictory hypotheses in the j = 0 step",
                  "The j = 0 step with G > F(k-1;n-1) added to G <= F(k-1;n-1): vacuous, so "
                  "the machinery must report an ERROR, never PROVED.",
                  J0_CLAIM, J0_HYPS + [G > Fm], expected=Verdict.ERROR),
        prove_sym("control: n_m = floor(k/gamma - 1)",
                  "With floor instead of ceil, gamma n_m' < k <= gamma(n_m'+1) still holds.",
                  sp.And(g * nmr < kr, kr <= g * (nmr + 1)),
                  [g > 0, g < 1, kr >= 1, nmr <= kr / g - 1, nmr + 1 > kr / g - 1],
                  expected=ref),
    ]
