"""Counterexamples whose premises are checked over all datasets (docs/verdict-policy.md).

Each witness here refutes (or, as a negative control, fails to refute) a statement whose
hypothesis is a privacy property of a mechanism.  The hypothesis is established over every
dataset by :func:`dps_verify.paper.claims.premises.over_all_datasets` plus a stated argument for
the datasets beyond the enumeration; only then is the conclusion tested on one pair.

- TR Thm 2 (UDP composes on one sample): two presence randomized responses, each
  (1/2, ln 2, η)-UDP over all datasets for every η > 0 (no output leaves the ratio band, so the
  bad mass is 0 < η; the parts are stated with δ1 = δ2 = η = 1/64 because under TR Def 2 read
  literally, bad mass "< δ", δ = 0 is met by no mechanism), whose pair has probability ratio
  5 > 4 = e^(ε1+ε2) on an output of mass 5/16 (against 1/16): not (β, ε1+ε2, 2η)-UDP for any
  0 < η < 5/32 (TR Def 2) or 0 < η < 1/32 (hockey-stick, CP Def 2; its δ there is 1/16).
  The XOR pair of CP §2.2, which the registry used before, is the negative control: its A1 is
  not (1/2, 1, 0)-UDP (D = {a} versus ∅ gives δ = 1/2), and the same check rejects it.
- CP §2.2 (the XOR pair): as printed, A1 (size parity) leaks at tiny datasets (δ = β at
  D = {x} versus ∅); with a size floor (as CP §2.6 uses) both parts are DPS over all datasets,
  and the pair still reveals presence.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

from dps_verify import mechanisms
from dps_verify.engine.distribution import distribution, randomized
from dps_verify.paper.claims import premises
from dps_verify.paper.claims.base import CONFIRMED, CORRECTED, NMC, REFUTED, Result

# --------------------------------------------------------------------------- TR Thm 2
#: β and e^ε of each part of the TR Thm 2 witness (e^ε' = 1 + β(3 − 1) = 2 after sampling).
THM2_BETA, THM2_E_PART = Fraction(1, 2), Fraction(2)
#: δ1 = δ2 = η of each part: positive, so the premise is satisfiable under TR Def 2's strict
#: "bad mass < δ"; the refutation holds for 0 < η < 5/32 (TR Def 2) and 0 < η < 1/32 (CP Def 2).
THM2_ETA = Fraction(1, 64)


def bad_mass(p: Any, q: Any, e_eps: Fraction) -> Fraction:
    """TR Def 2's δ of p against q at e^ε: the p-mass of the outputs y with p(y) > e^ε q(y)."""
    return sum((v for y, v in p.items() if v > e_eps * Fraction(q.get(y, 0))), Fraction(0))


def presence_rr(target: Hashable, p: Fraction = Fraction(3, 4)) -> randomized:
    """Randomized response on "``target`` is in the sample": ln(p/(1−p))-DP unsampled."""
    return randomized(lambda s: {True: p, False: 1 - p} if target in s else {True: 1 - p, False: p})


def thm2_premise(variant: str = "rr") -> premises.Premise:
    """TR Thm 2's hypothesis for one part, checked over all datasets (TR Def 4).

    "rr": A_i = presence randomized response (truth probability 3/4), claimed (1/2, ln 2, η)-UDP
    with η = :data:`THM2_ETA` > 0: checked with δ = 0 (p ≤ e^ε q on every output, both
    directions), so its bad mass is 0 < η under TR Def 2's strict reading and 0 ≤ η under CP
    Def 2, for every η > 0.
    Exhaustive over every multiset of {t, a, b} up to 5 records; beyond that, A_i reads only
    [t ∈ T], so unsampled it is ln 3-DP on every neighbouring pair (two laws, ratio 3), and CP
    Thm 1 / TR Cor 4 (proved, ``proofs.cp-theorem-1``) give e^ε' ≤ 1 + β(3 − 1) = 2, δ' = 0.
    "xor": CP §2.2's A1 (size parity) claimed (1/2, 1, 0)-UDP, as the old one-pair check had it:
    rejected at D = {a} versus ∅ even with e^ε enlarged to 2.72 > e (negative control)."""
    if variant == "rr":
        rr = presence_rr("t")
        return premises.over_all_datasets(
            "A_i is (1/2, ln 2, η)-UDP for every η > 0 (no output outside the ratio band)",
            lambda ds: distribution(rr, ds, THM2_BETA).exact,
            ("t", "a", "b"), 5, THM2_E_PART,
            beyond="A_i reads only [t ∈ T]: unsampled it is ln 3-DP on every pair (two laws, "
                   "ratio 3), and CP Thm 1 / TR Cor 4 (proofs.cp-theorem-1) give "
                   "e^ε' = 1 + β(e^ε − 1) = 2, δ' = 0, for every dataset")
    a1, _, _ = mechanisms.xor_pair("t")
    return premises.over_all_datasets(
        "A1 (size parity) is (1/2, 1, 0)-UDP", lambda ds: distribution(a1, ds, THM2_BETA).exact,
        ("t", "a"), 4, Fraction(272, 100), beyond="")


def thm2_check(variant: str = "rr") -> Result:
    """TR Thm 2 on one shared sample: do (β, ε1, δ1)- and (β, ε2, δ2)-UDP parts compose to
    (β, ε1 + ε2, δ1 + δ2)?  REFUTED only with a witness meeting every hypothesis over all
    datasets (:func:`thm2_premise`) and an exact pair whose δ at e^(ε1+ε2) exceeds δ1 + δ2.

    Witness ("rr"): A1 = A2 = presence randomized response, each (1/2, ln 2, η)-UDP with
    δ1 = δ2 = η = 1/64 (its ratio bound 2 is attained and no output leaves the band, so this
    holds for every η > 0; δ = 0 itself is met by no mechanism under TR Def 2's strict "< δ").
    On D = {t, a} versus {a} the output (1, 1) has ratio 5 > e^(ln 2 + ln 2) = 4: its mass 5/16
    is TR Def 2's δ of the pair, ≥ 2η, and the hockey-stick δ 1/16 > 2η, so the pair is not
    (1/2, ε1 + ε2, δ1 + δ2)-UDP under either reading (any 0 < η < 1/32 works for both, any
    0 < η < 5/32 for TR Def 2).  ``variant="xor"`` is the negative
    control: the old XOR witness, whose premise held only on the pair it was checked on; the
    global check rejects it and nothing is refuted (NOT-MACHINE-CHECKABLE)."""
    prem = thm2_premise(variant)
    if not prem.holds:
        return Result(NMC, "witness rejected: its premise fails over all datasets", prem.text(),
                      {"premises": [prem.to_dict()]})
    rr = presence_rr("t")
    pair = randomized(lambda smp: {(y1, y2): v1 * v2 for y1, v1 in rr.law(smp).items()
                                   for y2, v2 in rr.law(smp).items()})
    p = distribution(pair, ("t", "a"), THM2_BETA).exact
    q = distribution(pair, ("a",), THM2_BETA).exact
    e_sum, eta = THM2_E_PART * THM2_E_PART, THM2_ETA
    d_sum = 2 * eta
    dp = max(premises.delta_at(p, q, e_sum), premises.delta_at(q, p, e_sum))  # CP Def 2
    bad = max(bad_mass(p, q, e_sum), bad_mass(q, p, e_sum))  # TR Def 2
    top = (True, True)
    ratio = p[top] / q[top]
    witness = {"D": "{t, a}", "D_-t": "{a}", "beta": str(THM2_BETA),
               "A1 = A2": "randomized response on [t in sample], truth probability 3/4",
               "Pr[(1,1) | D]": str(p[top]), "Pr[(1,1) | D_-t]": str(q[top]), "ratio": str(ratio),
               "e^(eps1+eps2)": str(e_sum), "delta1 = delta2 = eta": str(eta),
               "delta1 + delta2": str(d_sum), "pair delta (hockey-stick, CP Def 2)": str(dp),
               "pair delta (bad mass, TR Def 2)": str(bad),
               "refuted for": f"0 < eta < {bad / 2} (TR Def 2), 0 < eta < {dp / 2} (CP Def 2)",
               "hypotheses": [prem.to_dict()]}
    # TR Def 2 asks bad mass < δ: fails when bad ≥ δ1 + δ2; CP Def 2 asks δ(e^ε) ≤ δ: fails when dp > δ1 + δ2
    if bad >= d_sum and dp > d_sum:
        return Result(REFUTED, f"(1/2, ln 2, {eta})-UDP parts; pair ratio {ratio} > e^(ε1+ε2) = {e_sum}",
                      "witness meeting every hypothesis: A1 = A2 = presence randomized response "
                      f"(truth probability 3/4) on one shared sample, β = 1/2, δ1 = δ2 = η = {eta} "
                      "(δ = 0 is met by no mechanism under TR Def 2's strict '< δ'); "
                      f"{prem.text()}. On D = {{t, a}} versus {{a}} the output (1, 1) has "
                      f"probabilities {p[top]} and {q[top]} (ratio {ratio}), so at e^(ε1+ε2) = {e_sum} "
                      f"the pair's TR Def 2 δ (bad mass) is {bad} ≥ δ1 + δ2 = {d_sum} and its "
                      f"hockey-stick δ is {dp} > {d_sum}: refuted for every 0 < η < {bad / 2} (TR "
                      f"Def 2) and 0 < η < {dp / 2} (CP Def 2). The proof's 'conditionally "
                      "independent given D' fails: both parts read the same sample", {"witness": witness})
    return Result(CONFIRMED, f"pair δ = {dp} (bad mass {bad}) within δ1 + δ2 = {d_sum}", "exact",
                  {"witness": witness})


# --------------------------------------------------------------------------- CP §2.2
#: The size floor of the corrected XOR pair (CP §2.6's A1 uses such a floor, "say 1000"):
#: below it both parts publish nothing.  β = 1/2 as in the registry's instance.
XOR_FLOOR, XOR_BETA, XOR_SCAN = 10, Fraction(1, 2), 40


def _floored_xor(floor: int) -> tuple[Any, Any, Any]:
    """CP §2.2's pair with a size floor, as mechanisms for the engine (the reference the
    count-state laws are tested against): below ``floor`` sampled records both publish None."""
    a1, a2, _ = mechanisms.xor_pair("t")

    def f1(smp: tuple) -> bool | None:
        return a1(smp) if len(smp) >= floor else None

    def f2(smp: tuple) -> bool | None:
        return a2(smp) if len(smp) >= floor else None

    def both(smp: tuple) -> tuple[bool | None, bool | None]:
        return f1(smp), f2(smp)
    return f1, f2, both


@lru_cache(maxsize=256)
def _parity_tails(n: int) -> list[tuple[int, int]]:
    """For x0 = 0..n+1: (Σ_{x ≥ x0, x even} C(n, x), Σ_{x ≥ x0, x odd} C(n, x))."""
    out = [(0, 0)] * (n + 2)
    for x in range(n, -1, -1):
        e, o = out[x + 1]
        out[x] = (e + comb(n, x), o) if x % 2 == 0 else (e, o + comb(n, x))
    return out


@lru_cache(maxsize=8192)
def _floored_law(n_other: int, m: int, part: int, floor: int) -> dict[Any, Fraction]:
    """Exact law at β = 1/2 of floored A1 (part 1: parity of |T|) or A2 (part 2: parity XOR
    [t ∈ T]) on a dataset of ``m`` copies of t and ``n_other`` other records; with S ~ Bin(m, 1/2)
    sampled copies and X ~ Bin(n_other, 1/2) others, nothing (None) is published when S + X <
    ``floor``.  Both parts read only (S, X), so the law depends on the dataset only through
    (n_other, m)."""
    return {y: Fraction(v, 2 ** (m + n_other)) for y, v in _floored_counts(n_other, m, part, floor).items()}


@lru_cache(maxsize=8192)
def _floored_counts(n_other: int, m: int, part: int, floor: int) -> dict[Any, int]:
    """:func:`_floored_law` times 2^(n_other + m), as integers."""
    tails = _parity_tails(n_other)  # tails[x0][r]: Σ C(n_other, x) over x ≥ x0, x ≡ r (mod 2)
    num: dict[Any, int] = {}
    for s_ in range(m + 1):
        x0 = min(max(0, floor - s_), n_other + 1)
        c = comb(m, s_)
        num[None] = num.get(None, 0) + c * (2 ** n_other - tails[x0][0] - tails[x0][1])
        for r in (0, 1):  # published: size = s_ + x with x ≡ r
            y = ((s_ + r) % 2 == 1) ^ (part == 2 and s_ >= 1)
            num[y] = num.get(y, 0) + c * tails[x0][r]
    return {y: v for y, v in num.items() if v}





def floored_xor_premise(part: int, floor: int = XOR_FLOOR, n_max: int = XOR_SCAN,
                        e_eps: Fraction = Fraction(2)) -> premises.Premise:
    """Floored A_part is (1/2, ln e_eps, δ)-DPS over all datasets, δ the returned ``worst``
    (exact maximum over every dataset of at most ``n_max`` records) joined with the bound for
    larger ones.  Write a_n = Pr[Bin(n, 1/2) ≤ floor − 1] (non-increasing in n).  Unfloored, A1
    and A2 publish 1 with probability exactly 1/2 unless every record is a copy of t (the parity
    of Bin(j, 1/2) is uniform for j ≥ 1 and independent of the other count), and then within
    Pr[S = 0] ≤ a_n of it; the floor removes mass a_n.  So each published bit has probability in
    [1/2 − 2a_n, 1/2 + a_n] and "nothing" has a_n: two neighbours, the smaller with at least
    ``n_max`` records, differ in total variation by at most 3.5·a_(n_max) ≤ 4·a_(n_max), a bound
    on δ at every ε ≥ 0."""
    if e_eps.denominator != 1:
        raise ValueError("the integer scan needs a whole e^ε")
    e = int(e_eps)
    worst_num, pairs = [Fraction(0)] * (n_max + 1), 0
    for n in range(1, n_max + 1):  # counts: p over 2^n, q over 2^(n-1)
        for m in range(n + 1):
            p = _floored_counts(n - m, m, part, floor)
            for q in ((_floored_counts(n - m - 1, m, part, floor),) if n - m >= 1 else ()) + (
                    (_floored_counts(n - m, m - 1, part, floor),) if m >= 1 else ()):
                pairs += 1
                up = sum(max(0, v - 2 * e * q.get(y, 0)) for y, v in p.items())  # p - e q
                down = sum(max(0, 2 * v - e * p.get(y, 0)) for y, v in q.items())  # q - e p
                worst_num[n] = max(worst_num[n], Fraction(max(up, down), 2 ** n))
    worst = max(worst_num)
    tail = 4 * sum((Fraction(comb(n_max, j), 2 ** n_max) for j in range(floor)), Fraction(0))
    delta = max(worst, tail)
    return premises.Premise(
        f"A{part} with a floor of {floor} sampled records is (1/2, ln {e_eps}, {float(delta):.3g})-DPS",
        True, f"exact laws of every dataset with at most {n_max} records (the law depends only on "
        f"the number of copies of t and of other records; {pairs} neighbouring pairs, both "
        f"directions): largest δ {float(worst):.4g}",
        f"for larger datasets δ ≤ 4·Pr[Bin({n_max}, 1/2) ≤ {floor - 1}] = {float(tail):.3g} (each "
        "output within 2·Pr[Bin(n, 1/2) < floor] of (1/2, 1/2, nothing 0): parities of Bin(j, 1/2), "
        "j ≥ 1, are uniform)",
        delta, None, pairs, {"delta": str(delta), "scan_worst": str(worst)})


def xor_check(variant: str = "paper") -> Result:
    """CP §2.2's pair on one sample at β = 1/2: A1 = size parity, A2 = parity XOR presence.

    As printed, neither part is (β, ε, δ)-DPS for any δ < β: D = {a} versus ∅ gives δ = β = 1/2
    at every ε (found by the exhaustive check over every multiset of {t, a, b} up to 4 records).
    With a size floor (nothing published below ``XOR_FLOOR`` sampled records, as CP §2.6's A1
    does) each part is DPS with small δ over all datasets (:func:`floored_xor_premise`), and the
    pair still reveals presence: on 30 records ± t its exact δ is ≥ β·Pr[|T − t| ≥ floor].
    Hence CONFIRMED-WITH-CORRECTION (a missing side condition).  ``variant="leaky"`` (A2
    publishes presence itself, floored) is the negative control and must be REFUTED: its A2 is
    not DPS with small δ."""
    beta, e_reject = XOR_BETA, Fraction(272, 100)  # e^1 < 2.72: rejection at a larger allowance
    a1, a2, _ = mechanisms.xor_pair("t")
    def sampled(m: Any) -> Any:
        return lambda ds: distribution(m, ds, beta).exact
    as_printed = [premises.over_all_datasets(
        f"A{i} (no floor) is (1/2, 1, δ)-DPS with δ < 1/2", sampled(m),
        ("t", "a", "b"), 4, e_reject, beta - Fraction(1, 10**9)) for i, m in ((1, a1), (2, a2))]
    floored = [floored_xor_premise(1), floored_xor_premise(2)]
    small = beta / 10  # "private": δ at most a tenth of β
    if variant == "leaky":  # A2 := [t in T]: not DPS for any small δ (D = {t} vs ∅: δ = 1/2)
        leak = randomized(lambda smp: {"t" in smp: Fraction(1)})
        floored[1] = premises.over_all_datasets(
            "leaky A2 is (1/2, ln 2, 1/20)-DPS", lambda ds: distribution(leak, ds, beta).exact,
            ("t", "a"), 3, Fraction(2), small, beyond="(none)")
    n_big = 30
    pair_law: list[dict[Any, Fraction]] = [{}, {}]
    for i, has_t in enumerate((1, 0)):
        # the pair (A1, A2) = (parity, parity XOR s) reveals s exactly when published
        for s_ in range(has_t + 1):
            for x in range(n_big + 1):
                size = s_ + x
                y = None if size < XOR_FLOOR else (size % 2 == 1, (size % 2 == 1) ^ (s_ >= 1))
                pair_law[i][y] = pair_law[i].get(y, Fraction(0)) + Fraction(
                    comb(has_t, s_) * comb(n_big, x), 2 ** (n_big + has_t))
    pair_delta = premises.delta_at(pair_law[0], pair_law[1], e_reject)
    reveal = beta * sum((Fraction(comb(n_big, x), 2 ** n_big) for x in range(XOR_FLOOR, n_big + 1)),
                        Fraction(0))
    data = {"as_printed": [x.to_dict() for x in as_printed], "floored": [x.to_dict() for x in floored],
            "pair_delta_30_records": str(pair_delta)}
    parts_ok = all(x.holds and x.worst <= small for x in floored)
    if not parts_ok or pair_delta < reveal:
        return Result(REFUTED, "floored parts not DPS with small δ, or the pair reveals nothing",
                      "; ".join(x.text() for x in (*as_printed, *floored)), data)
    if all(x.holds for x in as_printed):
        return Result(CONFIRMED, "each part DPS over all datasets as printed", "", data)
    bad = next(x for x in as_printed if not x.holds)
    assert bad.witness is not None
    return Result(CORRECTED, f"no floor: δ = {bad.worst} = β at D = {{{bad.witness[0][0]}}} vs ∅; floor {XOR_FLOOR}: "
                  f"parts δ ≤ {float(max(x.worst for x in floored)):.2g}, pair δ ≥ {float(reveal):.3f}",
                  f"correction: {bad.text()}. With a floor of {XOR_FLOOR} sampled records (CP §2.6's "
                  f"A1 has one): {floored[0].text()}; {floored[1].text()}. The floored pair on "
                  f"{n_big} records ± t has exact δ = {float(pair_delta):.4f} at e^ε = 2.72 > e (≥ "
                  f"β·Pr[|T − t| ≥ {XOR_FLOOR}] = {float(reveal):.4f}): together they reveal whether "
                  "t was sampled", data)


# --------------------------------------------------------------------------- CP §3.4 + Thm 6
#: CP §3.4's construction on the CP Thm 6 witness layout: the exponential mechanism picks g1
#: (a, b -> X) or g2 (a, b -> *) with Pr[g] proportional to EM_BASE^q(g, S), qualities
#: q(g1, S) = -dist(S), q(g2, S) = +dist(S), dist = |1 - #b| + |4 - #a| (each quality changes by
#: at most 1 between neighbours, so the mechanism is 2 ln EM_BASE-DP: e^eps1 = 9); k = 5,
#: beta = 1/2, e^(eps - eps1) = 4, D = {t = b, a, a, a, a, a}.
EM_BASE, EM_K, EM_BETA, EM_E_PRIME = Fraction(3), 5, Fraction(1, 2), Fraction(4)
EM_DATASET = ("b",) + ("a",) * 5


def _em_dist(s: tuple) -> int:
    return abs(1 - s.count("b")) + abs(4 - s.count("a"))


def em_choice(s: tuple, scale: int = 1) -> Fraction:
    """Pr[EM(S) = g1]: weights EM_BASE^(∓ scale·dist); ``scale`` = 2 doubles the qualities'
    sensitivity (the premise's negative control)."""
    up, down = EM_BASE ** (-scale * _em_dist(s)), EM_BASE ** (scale * _em_dist(s))
    return up / (up + down)


def em_premise(scale: int = 1, scan: int = 12) -> premises.Premise:
    """The exponential mechanism is ε1-DP, e^ε1 = EM_BASE², over all datasets: the recognised
    closed form (weights base^q with every quality of sensitivity ≤ 1 give 2 ln base-DP), whose
    sensitivity condition is checked on every neighbouring pair of count states (#a, #b) up to
    ``scan`` (other raw values move no quality) — beyond, dist moves by exactly 1 per a or b
    record; and the choice probabilities themselves are compared exactly on the same pairs."""
    e1 = EM_BASE ** 2
    worst, pairs = Fraction(0), 0
    for a in range(scan + 1):
        for b in range(scan + 1):
            s = ("a",) * a + ("b",) * b
            for s2 in (s + ("a",), s + ("b",)):
                pairs += 1
                sens = abs(scale * (_em_dist(s2) - _em_dist(s)))
                x, y = em_choice(s, scale), em_choice(s2, scale)
                bad = sens > 1 or not all(u <= e1 * v for u, v in ((x, y), (y, x), (1 - x, 1 - y), (1 - y, 1 - x)))
                if bad:
                    ratio = max(x / y, y / x, (1 - x) / (1 - y), (1 - y) / (1 - x))
                    return premises.Premise(
                        f"the exponential mechanism is (ln {e1})-DP", False,
                        f"count states up to {scan}: quality sensitivity {sens}, probability ratio "
                        f"{ratio} > {e1}", "", ratio - e1, (s2, s), pairs)
    return premises.Premise(
        f"the exponential mechanism is (ln {e1})-DP", True,
        f"every neighbouring pair of count states with #a, #b <= {scan + 1}: qualities move by "
        f"at most 1 and the choice probabilities stay within e^ε1 = {e1} (exact)",
        "the exponential mechanism's closed form: qualities of sensitivity 1 (dist moves by "
        "exactly 1 per a or b record, 0 otherwise) give 2 ln(base)-DP on every dataset",
        worst, None, pairs)


def em_check(on_sample: bool = True, scale: int = 1) -> Result:
    """CP §3.4's exponential-mechanism construction under CP Def 3 (the mechanism sees the
    sample): exact hockey-stick δ at e^ε = e^ε1 · e^ε' against the certified d(k, β, ε − ε1).
    REFUTED when the premise holds over all datasets and δ > d.  ``on_sample=False`` (the
    choice made once on the unsampled D, App. A.3's model) is the negative control: within d,
    as ``cp.theorem6.full-data`` proves; ``scale=2`` (qualities of sensitivity 2) must fail the
    premise."""
    from dps_verify.measures.divergence import delta_certified
    from dps_verify.worstcase.closed_forms import d_certified

    prem = em_premise(scale)
    if not prem.holds:
        return Result(NMC, "witness rejected: its premise fails over all datasets", prem.text())

    def apply(size: int, p1: Fraction) -> dict:
        if size < EM_K:
            return {("empty",): Fraction(1)}
        return {("X", size): p1, ("*", size): 1 - p1}

    def law(ds: tuple) -> dict:
        if on_sample:
            an = randomized(lambda smp: apply(len(smp), em_choice(smp, scale)))
        else:
            p1 = em_choice(ds, scale)
            an = randomized(lambda smp: apply(len(smp), p1))
        return distribution(an, ds, EM_BETA).exact
    e1 = EM_BASE ** 2
    got = delta_certified(law(EM_DATASET), law(EM_DATASET[1:]), f"ln({e1 * EM_E_PRIME})")
    d = d_certified(EM_K, EM_BETA, f"ln({EM_E_PRIME})")
    model = "A_m on the sample (CP Def 3)" if on_sample else "A_m on the unsampled D (App. A.3)"
    witness = {"D": "{t=b, a, a, a, a, a}", "D_-t": "{a, a, a, a, a}", "beta": str(EM_BETA),
               "k": str(EM_K), "e^eps1": str(e1), "e^eps": str(e1 * EM_E_PRIME),
               "exponential mechanism": f"Pr[g] ∝ {EM_BASE}^q(g, S), q(g1) = -dist, q(g2) = +dist",
               "exact delta": str(got.lower), "d": str(d.upper),
               "hypotheses": [prem.to_dict(),
                              {"statement": "ε ≥ ε1 − ln(1 − β)", "holds": EM_E_PRIME >= 1 / (1 - EM_BETA),
                               "covered": f"e^(ε − ε1) = {EM_E_PRIME} ≥ 1/(1 − β) = 2"}]}
    if got.lower > d.upper:
        return Result(REFUTED, f"δ = {got.lower} > d = {d.upper} (e^ε1 = {e1}, e^ε = {e1 * EM_E_PRIME})",
                      f"{model}: CP §3.4's exponential mechanism choosing the recoding; {prem.text()}. "
                      f"Exact hockey-stick δ = {got.lower} ({float(got.lower):.5f}) > d({EM_K}, 1/2, "
                      f"ln {EM_E_PRIME}) = {d.upper}: removing t and adding a class-mate moves both "
                      "qualities, so the choice changes by e^ε1 per step and by e^(2ε1) between the "
                      "two samples that give the same table", {"witness": witness})
    return Result(CONFIRMED, f"δ = {got.lower} ≤ d = {d.upper}", f"{model}: exact", {"witness": witness})


# --------------------------------------------------------------------------- CP §2.6, §2.7
def sec26_a2_premise(alpha: Fraction = Fraction(9, 10), span: int = 60,
                     claimed: Fraction | None = None) -> premises.Premise:
    """CP §2.6's A2 (is M − F + Z ≥ 0, Z discrete Laplace Pr[Z = z] ∝ α^|z|) is ln(1/α)-DP over
    all datasets.  A2 reads only c = #male − #female, which a neighbour moves by exactly 1; every
    pair (c, c + 1) with |c| ≤ ``span`` is compared exactly (both outputs, both directions).
    Beyond: the recognised closed form of the geometric mechanism — for c ≥ 0, Pr[false] =
    α^(c+1)/(1+α) (ratio exactly 1/α) and Pr[true] rises towards 1 (ratio in [1, 1 + α − α²]);
    for c < 0 the mirror image, Pr[true](c) = 1 − Pr[true](−c − 1).  ``claimed`` (default 1/α)
    is the e^ε to establish; a smaller one is the negative control."""
    from dps_verify.mechanisms.examples import two_sided_geometric_tail as tail

    e = 1 / alpha if claimed is None else claimed
    pairs = 0
    for c in range(-span, span + 1):
        x, y = tail(c, alpha), tail(c + 1, alpha)
        pairs += 1
        ratio = max(x / y, y / x, (1 - x) / (1 - y), (1 - y) / (1 - x))
        if ratio > e:
            return premises.Premise(f"A2 is ln(1/{alpha})-DP", False, f"c = {c}: ratio {ratio} > {e}",
                                    "", ratio - e, ((c + 1,), (c,)), pairs)
    return premises.Premise(
        f"A2 is ln({e})-DP", True,
        f"every pair of count differences (c, c + 1) with |c| ≤ {span}, both outputs, exact",
        "the geometric mechanism's closed form: for |c| > span one output's ratio is exactly "
        f"1/α = {e} and the other's lies in [1, 1 + α − α²]", Fraction(0), None, pairs)


#: CP §2.7's concrete (0.2, 0.02, 0)-DPS mechanism: presence randomized response with truth
#: probability 0.524 (e^ε = 131/119) sampled at β = 1/5: e^ε' = 1 + β(131/119 − 1) = 607/595.
SEC27_E_PRIME = 1 + Fraction(1, 5) * (Fraction(131, 119) - 1)


def sec27_premise() -> premises.Premise:
    """The §2.7 instance is (0.2, ln(607/595), 0)-DPS over all datasets (and ln(607/595) ≤ 0.02,
    decided exactly): exhaustive over every multiset of {t, a, b} up to 5 records; beyond, it
    reads only [t ∈ T], is ln(131/119)-DP unsampled, and CP Thm 1 gives 607/595 everywhere."""
    from dps_verify.core.numbers import exp_compare

    rr = presence_rr("t", Fraction(524, 1000))
    prem = premises.over_all_datasets(
        "presence RR (truth 0.524) is (1/5, ln(607/595), 0)-DPS",
        lambda ds: distribution(rr, ds, Fraction(1, 5)).exact, ("t", "a", "b"), 5, SEC27_E_PRIME,
        beyond="it reads only [t ∈ T]: unsampled ln(131/119)-DP on every pair, and CP Thm 1 "
               "(proofs.cp-theorem-1) gives e^ε' = 1 + β(e^ε − 1) = 607/595 for every dataset")
    small = exp_compare(Fraction(2, 100), SEC27_E_PRIME) >= 0  # e^0.02 ≥ 607/595
    if not small:
        return premises.Premise(prem.statement + " with ln(607/595) ≤ 0.02", False, prem.covered,
                                "", prem.worst, prem.witness, prem.pairs)
    return prem


__all__ = ["em_check", "em_premise", "floored_xor_premise", "sec26_a2_premise", "sec27_premise", "presence_rr", "thm2_check", "thm2_premise", "xor_check"]
