"""The exact counterexample to CP Thm 6 under CP Def 3, in one place for the
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
from typing import Any

K, BETA = 5, Fraction(1, 2)
EPS, EPS1 = "ln(12)", "ln(3)"  # e^eps = 12, e^eps1 = 3, so eps - eps1 = ln 4
#: e^eps and e^eps1 read from EPS, EPS1 (the one place the parameters are set).
E_EPS, E_EPS1 = Fraction(EPS[3:-1]), Fraction(EPS1[3:-1])
DATASET = ("b",) + ("a",) * 5  # t = "b" first; D_-t = DATASET[1:]
#: the exhaustive part of the global eps1-DP check covers every count state (#a, #b) up to this
#: (other raw values do not move A_m's choice); beyond it the closed form's argument applies.
SCAN = 12


def choice(sample: tuple, base: Fraction | int = E_EPS1) -> Fraction:
    """Pr[A_m(S) = g1] = (3/4) base^-dist, dist = |1 - #b| + |4 - #a|."""
    dist = abs(1 - sample.count("b")) + abs(4 - sample.count("a"))
    return Fraction(3, 4) / base ** dist


def local_choice(sample: tuple, base: Fraction | int = E_EPS1) -> Fraction:
    """Negative control of the global premise: equal to :func:`choice` on the box #a <= 9,
    #b <= 3 that the old one-box check looked at, but 3/4 for #a >= 10 — eps1-DP on the box only."""
    if sample.count("a") >= 10:
        return Fraction(3, 4)
    return choice(sample, base)


def apply_mixed(size: int, p1: Fraction) -> dict:
    """Apply(g, S, k) mixed over A_m's choice (probability p1 of g1): g1 recodes a, b to X, g2
    recodes them to * (the same partition, different generalised values); a class with fewer
    than k records is removed, leaving the empty table."""
    if size < K:
        return {("empty",): Fraction(1)}
    return {("X", size): p1, ("*", size): 1 - p1}


def am_premise(base: Fraction | int = E_EPS1, pick=choice) -> tuple[bool, str]:
    """A_m is eps1-DP (e^eps1 = ``E_EPS1``, CP Def 6) over ALL datasets, both choices, both
    directions.  A_m reads only (#a, #b) (any other raw value leaves its law unchanged), so the
    datasets are the count states; exhaustive exact check of every neighbouring pair of states
    with #a, #b <= ``SCAN``; beyond, the argument for the closed form (3/4) base^-dist: dist =
    |1 - #b| + |4 - #a| moves by exactly 1 between neighbours, so the two probabilities are p and
    p/base with 0 < p <= 3/4, whose ratios are base and (1 - p/base)/(1 - p) <= base iff
    p <= 3/4 (proved for every dist in proofs.cp-theorem-6).  ``pick`` other than
    :func:`choice` has no such argument: it is established only if the scan is complete for it,
    which it never is (the dataset sizes are unbounded), so only a violation can be reported."""
    def pr(a: int, b: int) -> Fraction:
        return pick(("a",) * a + ("b",) * b, base)

    for a in range(SCAN + 1):
        for b in range(SCAN + 1):
            for a2, b2 in ((a + 1, b), (a, b + 1)):
                for x, y in ((pr(a, b), pr(a2, b2)), (pr(a2, b2), pr(a, b))):
                    if not (x <= E_EPS1 * y and (1 - x) <= E_EPS1 * (1 - y)):
                        return False, (f"A_m not ln {E_EPS1}-DP: (#a, #b) = ({a}, {b}) vs ({a2}, {b2}) "
                                       f"gives Pr[g1] = {pr(a, b)} vs {pr(a2, b2)}")
    scanned = (f"every neighbouring pair of count states with #a, #b <= {SCAN + 1}, both choices, "
               "both directions, exact")
    if pick is not choice or base != E_EPS1:
        return False, scanned + "; no argument covers larger datasets for this choice rule"
    return True, (scanned + "; beyond: dist moves by exactly 1 between neighbours and "
                  f"p, p/{E_EPS1} with 0 < p <= 3/4 are within e^eps1 = {E_EPS1} (both choices; "
                  "proved for every dist in proofs.cp-theorem-6)")


def d_bound() -> tuple[Fraction, str]:
    """d(K, BETA, eps - eps1) from the certified :func:`dps_verify.worstcase.closed_forms.d_certified`
    (exact here: e^(eps - eps1) = E_EPS/E_EPS1 is rational)."""
    from dps_verify.worstcase.closed_forms import d_certified

    c = d_certified(K, BETA, f"ln({E_EPS / E_EPS1})")
    if c.lower != c.upper:  # pragma: no cover - rational e^(eps - eps1): d is exact
        raise ArithmeticError(f"d not exact: [{c.lower}, {c.upper}]")
    return c.upper, c.how


def check(base: Fraction | int = E_EPS1, on_sample: bool = True, pick=choice) -> dict[str, Any]:
    """Exact δ of the instance against the certified d(K, BETA, eps - eps1): ``refuted`` is True
    when A_m is eps1-DP over all datasets (:func:`am_premise`) and δ's lower end exceeds d."""
    from dps_verify.engine.distribution import distribution, randomized
    from dps_verify.measures.divergence import delta_certified

    def law(ds: tuple) -> dict:
        if on_sample:  # CP Def 3: A_m sees the sample
            anonymizer = randomized(lambda s: apply_mixed(len(s), pick(s, base)))
        else:  # App. A.3's model: A_m chooses once, on the unsampled dataset
            p1 = pick(ds, base)
            anonymizer = randomized(lambda s: apply_mixed(len(s), p1))
        return distribution(anonymizer, ds, BETA).exact

    got = delta_certified(law(DATASET), law(DATASET[1:]), EPS)
    bound, how = d_bound()
    dp_ok, dp_how = am_premise(base, pick)
    return {"refuted": dp_ok and got.lower > bound, "dp": dp_ok, "dp_how": dp_how, "delta": got,
            "d": bound, "d_how": how, "on_sample": on_sample}


def summary(res: dict[str, Any]) -> dict[str, str]:
    """The counterexample as printable fields."""
    got, bound = res["delta"], res["d"]
    return {"D": "{t=b, a, a, a, a, a}", "D_-t": "{a, a, a, a, a}", "beta": str(BETA), "k": str(K),
            "e^eps1": str(E_EPS1), "e^eps": str(E_EPS),
            "A_m: Pr[g1 | S]": f"(3/4) {E_EPS1}^-(|1-#b| + |4-#a|)",
            "recodings": "g1: a, b -> X; g2: a, b -> *; classes < k removed",
            "exact hockey-stick delta": f"{got.lower} ({float(got.lower):.6f}, {got.how})",
            f"d({K}, {BETA}, ln {E_EPS / E_EPS1})": f"{bound} ({res['d_how']})",
            "ratio": f"{float(got.lower / bound):.4f}",
            f"A_m ln {E_EPS1}-DP over all datasets": f"{res['dp']} ({res['dp_how']})"}


#: The witness family of CP Thm 6's App. A.3 reading (``proofs.cp-theorem-6-full-data`` and the
#: claim ``cp.theorem6.full-data``): e^eps (e^eps1 = E_EPS1 throughout, so e^(eps - eps1) =
#: e^eps / 3 >= 1/(1 - beta) = 2 is the regime) and the centre of A_m's preference (t in,
#: ``centre`` class-mates).
FAMILY = ((Fraction(6), 4), (Fraction(12), 4), (Fraction(24), 4), (Fraction(12), 3),
          (Fraction(12), 5), (Fraction(48), 2))


def family_choice(centre: int):
    """Pr[A_m(S) = g1] = (3/4) E_EPS1^-dist with dist measured from (t in, ``centre`` a's)."""
    def pick(sample: tuple, base: Fraction | int = E_EPS1) -> Fraction:
        dist = abs(1 - sample.count("b")) + abs(centre - sample.count("a"))
        return Fraction(3, 4) / base ** dist
    return pick


def full_data_family(on_sample: bool = False) -> tuple[bool, list[str]]:
    """Exact hockey-stick delta of the witness's mechanism over :data:`FAMILY` against the
    certified d(K, BETA, eps - eps1): A_m run once on the unsampled D (``on_sample=False``, App.
    A.3's reading) or on the sample (CP Def 3).  Returns (every member within d, one line per
    member)."""
    from dps_verify.engine.distribution import distribution, randomized
    from dps_verify.measures.divergence import delta_certified
    from dps_verify.worstcase.closed_forms import d_certified

    rows, ok = [], True
    for e_eps, centre in FAMILY:
        pick = family_choice(centre)

        def law(data: tuple, pick=pick) -> dict:
            if on_sample:
                an = randomized(lambda s: apply_mixed(len(s), pick(s)))
            else:
                p1 = pick(data)
                an = randomized(lambda s: apply_mixed(len(s), p1))
            return distribution(an, data, BETA).exact
        got = delta_certified(law(DATASET), law(DATASET[1:]), f"ln({e_eps})")
        bound = d_certified(K, BETA, f"ln({e_eps / E_EPS1})")
        ok &= got.upper <= bound.lower
        rows.append(f"e^eps={e_eps}, centre {centre}: delta {got.upper} vs d {bound.upper}")
    return ok, rows


def am_worst_ratio(base: Fraction | int = E_EPS1, pick=choice) -> tuple[Fraction, str, bool]:
    """A_m's worst probability ratio over neighbouring datasets, both choices and both
    directions (CP Def 6 with e^eps1 = the ratio): exact over every pair of count states with
    #a, #b <= ``SCAN`` (A_m reads only (#a, #b)); ``complete`` when an argument covers the rest
    -- for :func:`choice` at base ``E_EPS1``, dist moves by exactly 1 between neighbours and the
    ratios of p and p/base (0 < p <= 3/4) are at most base (proved for every dist in
    proofs.cp-theorem-6); no other rule has such an argument."""
    def pr(a: int, b: int) -> Fraction:
        return pick(("a",) * a + ("b",) * b, base)

    worst = Fraction(1)
    for a in range(SCAN + 1):
        for b in range(SCAN + 1):
            for a2, b2 in ((a + 1, b), (a, b + 1)):
                for x, y in ((pr(a, b), pr(a2, b2)), (pr(a2, b2), pr(a, b))):
                    worst = max(worst, x / y, (1 - x) / (1 - y))
    complete = pick is choice and base == E_EPS1
    how = (f"exact over every neighbouring pair of count states with #a, #b <= {SCAN + 1}, both "
           "choices, both directions" + ("; beyond: dist moves by exactly 1 between neighbours "
                                         f"and p, p/{E_EPS1} (0 < p <= 3/4) are within "
                                         f"{E_EPS1} (proved for every dist in proofs."
                                         "cp-theorem-6)" if complete else
                                         "; no argument covers larger datasets for this rule"))
    return worst, how, complete


def event_masses(base: Fraction | int = E_EPS1, on_sample: bool = True, pick=choice
                 ) -> tuple[Fraction, Fraction, str]:
    """Pr[A^beta(D) in O] and Pr[A^beta(D_-t) in O] for O = {outputs with P_D > e^eps P_D-t}
    (the event attaining the hockey-stick divergence, CP Def 2), from the engine's exact
    laws."""
    from dps_verify.engine.distribution import distribution, randomized

    def law(ds: tuple) -> dict:
        if on_sample:
            anonymizer = randomized(lambda s: apply_mixed(len(s), pick(s, base)))
        else:
            p1 = pick(ds, base)
            anonymizer = randomized(lambda s: apply_mixed(len(s), p1))
        return distribution(anonymizer, ds, BETA).exact

    p, q = law(DATASET), law(DATASET[1:])
    event = [o for o in p if p[o] > E_EPS * q.get(o, Fraction(0))]
    s = sum((p[o] for o in event), Fraction(0))
    t = sum((q.get(o, Fraction(0)) for o in event), Fraction(0))
    return s, t, (f"exact engine laws (engine.distribution, beta = {BETA}), event O = the "
                  f"{len(event)} outputs with P_D > {E_EPS} P_D-t")
