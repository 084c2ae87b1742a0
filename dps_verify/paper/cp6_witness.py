"""The exact counterexample to CP Thm 6 under CP Def 3 (issue #12 item 7), in one place for the
proof (:mod:`dps_verify_proofs.cp_theorem_6`) and the claim ``cp.theorem6``.

CP Thm 6 says an ε1-safe k-anonymizer (A_m ε1-DP, then Apply with suppression of classes below
k) is (β, ε, d(k, β, ε − ε1))-DPS.  Under CP Def 3 the whole of A, A_m included, runs on the
sample.  Instance: D = {t, a, a, a, a, a} (t has raw value ``b``), D_-t = five ``a``'s, β = 1/2,
k = 5, e^ε1 = 3, e^ε = 12 (so ε − ε1 = ln 4 ≥ −ln(1 − β) = ln 2).  Two recodings put ``a`` and
``b`` in one class under different generalised values (X or *).  A_m picks the first with
probability (3/4)·3^−dist, dist = |1 − #b| + |4 − #a|: one record more or less moves dist by
exactly 1, so the two probabilities change by at most the factor 3 (exactly ln 3-DP).  The
exact hockey-stick δ of A^β at ε = ln 12 is 17/384 > d(5, 1/2, ln 4) = 1/32.

Why the appendix misses it: removing t and adding a class-mate changes A_m's choice by
e^(2 ε1), while the appendix's factorisation (A_m on the unsampled data) pays e^ε1 once.  With
the choice made once on the unsampled dataset (``on_sample=False``) the same instance has
δ = 1/64, within the bound.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, floor
from typing import Any

K, BETA = 5, Fraction(1, 2)
EPS, EPS1 = "ln(12)", "ln(3)"  # e^eps = 12, e^eps1 = 3, so eps - eps1 = ln 4
DATASET = ("b",) + ("a",) * 5  # t = "b" first; D_-t = DATASET[1:]


def choice(sample: tuple, base: int = 3) -> Fraction:
    """Pr[A_m(S) = g1] = (3/4) base^-dist, dist = |1 - #b| + |4 - #a|."""
    dist = abs(1 - sample.count("b")) + abs(4 - sample.count("a"))
    return Fraction(3, 4) / base ** dist


def apply_mixed(size: int, p1: Fraction) -> dict:
    """Apply(g, S, k) mixed over A_m's choice (probability p1 of g1): g1 recodes a, b to X, g2
    recodes them to * (the same partition, different generalised values); a class with fewer
    than k records is removed, leaving the empty table."""
    if size < K:
        return {("empty",): Fraction(1)}
    return {("X", size): p1, ("*", size): 1 - p1}


def dp_holds(base: int = 3, factor: int = 3, box: tuple[int, int] = (9, 3)) -> bool:
    """A_m's choice probabilities within ``factor`` on every pair of neighbouring count states
    (#a, #b) of the box, exactly (both choices)."""
    def pr(a: int, b: int) -> Fraction:
        return choice(("a",) * a + ("b",) * b, base)

    return all(x <= factor * y and (1 - x) <= factor * (1 - y)
               for a in range(box[0]) for b in range(box[1])
               for a2, b2 in ((a + 1, b), (a, b + 1))
               for x, y in ((pr(a, b), pr(a2, b2)), (pr(a2, b2), pr(a, b))))


def d_bound() -> tuple[Fraction, str]:
    """d(5, 1/2, ln 4) exactly, in the E-form (e^(eps - eps1) = 4 is rational, so gamma = 7/8 is;
    no logarithm is needed): exact tails P[Bin(n, 1/2) > 7n/8] for n_m = 5 <= n <= 15, and the
    Chernoff-Hoeffding bound P[X >= gamma n] <= ((beta/gamma)^gamma ((1-beta)/(1-gamma))^(1-gamma))^n
    = (4^8/7^7)^(n/8) <= (4^8/7^7)^2 for every n >= 16, below the best exact tail."""
    from dps_verify.core.params import epsilon_param
    from dps_verify.worstcase.sdgs import n_min

    gamma = (4 - 1 + BETA) / 4
    n_m = n_min(K, BETA, epsilon_param("ln(4)"))  # the one n_m, exact (here 5)
    tails = [sum(comb(n, j) for j in range(floor(gamma * n) + 1, n + 1)) * BETA ** n
             for n in range(n_m, 16)]
    beyond = (Fraction(4) ** 8 / Fraction(7) ** 7) ** 2
    best = max(tails)
    if not beyond < best:  # pragma: no cover - the certificate would not close
        raise ArithmeticError("Chernoff bound beyond n = 15 does not certify d")
    return best, (f"exact tails for n = {n_m}..15; for n >= 16 Chernoff-Hoeffding gives "
                  f"<= (4^8/7^7)^2 = {float(beyond):.5f} < {best}")


def check(base: int = 3, on_sample: bool = True) -> dict[str, Any]:
    """Exact δ of the instance against the certified d(5, 1/2, ln 4): ``refuted`` is True when
    A_m is exactly ln 3-DP on the box and δ's lower end exceeds d's upper end."""
    from dps_verify.engine.distribution import distribution, randomized
    from dps_verify.measures.divergence import delta_certified

    def law(ds: tuple) -> dict:
        if on_sample:  # CP Def 3: A_m sees the sample
            anonymizer = randomized(lambda s: apply_mixed(len(s), choice(s, base)))
        else:  # App. A.3's model: A_m chooses once, on the unsampled dataset
            p1 = choice(ds, base)
            anonymizer = randomized(lambda s: apply_mixed(len(s), p1))
        return distribution(anonymizer, ds, BETA).exact

    got = delta_certified(law(DATASET), law(DATASET[1:]), EPS)
    bound, how = d_bound()
    dp_ok = dp_holds(base)
    return {"refuted": dp_ok and got.lower > bound, "dp": dp_ok, "delta": got,
            "d": bound, "d_how": how, "on_sample": on_sample}


def summary(res: dict[str, Any]) -> dict[str, str]:
    """The counterexample as printable fields."""
    got, bound = res["delta"], res["d"]
    return {"D": "{t=b, a, a, a, a, a}", "D_-t": "{a, a, a, a, a}", "beta": "1/2", "k": "5",
            "e^eps1": "3", "e^eps": "12", "A_m: Pr[g1 | S]": "(3/4) 3^-(|1-#b| + |4-#a|)",
            "recodings": "g1: a, b -> X; g2: a, b -> *; classes < k removed",
            "exact hockey-stick delta": f"{got.lower} ({float(got.lower):.6f}, {got.how})",
            "d(5, 1/2, ln 4)": f"{bound} ({res['d_how']})",
            "ratio": f"{float(got.lower / bound):.4f}",
            "A_m ln 3-DP on (#a <= 9, #b <= 3)": str(res["dp"])}
