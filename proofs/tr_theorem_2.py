"""TR Theorem 2 (§5): composition of (beta, eps_i, delta_i)-UDP algorithms run on one sample.

The proof factorises Pr[(A1; A2)^beta(D) = (S1, S2)] as a product, assuming A1^beta and
A2^beta are conditionally independent given D -- but both read the *same* sample.  CP §2.2
and §2.6 withdraw composition.  Witness: A_i(T) = randomized response on "t in T" with
flip probability 1/(1 + e^eps) (eps-DP, hence (beta, ln(1 + beta(e^eps - 1)))-UDP by TR
Cor 4), beta = 1/2, e^eps = 3, D = {t, a}, D_-t = {a}; probabilities by enumerating samples.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import cast

import mpmath as mp
import sympy as sp

from dps_verify.paper.kernel.core import Step, Verdict, timed
from dps_verify.paper.kernel.statement import Counterexample, Evidence, Statement

CLAIM = "(A1; A2) is (beta, eps1 + eps2, delta1 + delta2)-UDP when A1, A2 are (on one sample)."
REFERENCE = "TR Thm 2, §5 (withdrawn by CP §2.2, §2.6)"
EXPECTED = Verdict.REFUTED
SUMMARY = ("Refuted: two randomized-response releases on one sample, each (1/2, ln 2, 0)-UDP, "
           "compose to ratio 5 > e^{2 ln 2} = 4 on output (1, 1).  With independent samples "
           "the same pair composes (ratio exactly 4).")

_r1, _r2, _r12, _E1, _E2 = sp.symbols("r1 r2 r12 E1 E2", positive=True)
_b = sp.Symbol("beta", real=True)
#: TR Thm 2 as printed (delta1 = delta2 = 0, pointwise ratio form): each A_i^beta is
#: (beta, eps_i)-UDP -- r_i, its worst output ratio over all neighbouring datasets (both
#: directions), is at most E_i = e^eps_i; the claim is that the pair run on one sample has ratio
#: r12 <= e^(eps1 + eps2) at every output of every neighbouring pair.  Refuted by an exact
#: witness (WITNESS): r12 is the pair's ratio at one output of one pair.
STATEMENT = Statement(
    "TR Thm 2, §5",
    "Running two (beta, eps_i, delta_i)-UDP algorithms on the same sample gives a "
    "(beta, eps1 + eps2, delta1 + delta2)-UDP pair.",
    reading="delta1 = delta2 = 0, pointwise ratio form; both algorithms read one shared sample",
    hypotheses=(_b > 0, _b < 1, _E1 >= 1, _E2 >= 1, _r1 <= _E1, _r2 <= _E2),
    conclusion=_r12 <= _E1 * _E2)


BETA, E = Fraction(1, 2), Fraction(3)
FLIP = 1 / (1 + E)  # randomized-response flip probability: eps-DP with e^eps = 3


def _rr(bit: int, out: int) -> Fraction:
    return 1 - FLIP if out == bit else FLIP


def _dist(dataset: tuple[str, ...], shared: bool) -> dict[tuple[int, int], Fraction]:
    """Exact law of (A1, A2) with one shared sample (or two independent samples)."""
    def samples() -> list[tuple[Fraction, int]]:
        out = []
        for keep in product((0, 1), repeat=len(dataset)):
            pr = Fraction(1)
            for kbit in keep:
                pr *= BETA if kbit else 1 - BETA
            has_t = int(any(kbit and x == "t" for kbit, x in zip(keep, dataset)))
            out.append((pr, has_t))
        return out

    law: dict[tuple[int, int], Fraction] = {}
    for o1, o2 in product((0, 1), repeat=2):
        if shared:
            # samples() is never empty, so each sum is a Fraction
            law[(o1, o2)] = cast(Fraction, sum(pr * _rr(h, o1) * _rr(h, o2) for pr, h in samples()))
        else:
            m1 = cast(Fraction, sum(pr * _rr(h, o1) for pr, h in samples()))
            m2 = cast(Fraction, sum(pr * _rr(h, o2) for pr, h in samples()))
            law[(o1, o2)] = m1 * m2
    return law


def _single_udp_eps() -> Fraction:
    """e^{eps'} of each A_i^beta on the witness pair (max ratio both ways, exact)."""
    worst = Fraction(1)
    for ds, dm in ((("t", "a"), ("a",)),):
        for o in (0, 1):
            def law(dset: tuple[str, ...], o: int = o) -> Fraction:
                return cast(Fraction, sum(v for (o1, _), v in _dist(dset, True).items() if o1 == o))
            a, b = law(ds), law(dm)
            worst = max(worst, a / b, b / a)
    return worst


#: copies of t for which udp_worst_ratio computes the exact ratios (a bound covers the rest).
UDP_SCAN = 8


def udp_worst_ratio() -> tuple[Fraction, str, bool]:
    """The worst output ratio of each A_i^beta over ALL neighbouring datasets (multisets, one
    record added or removed), both directions (TR Def 2 with delta = 0).  A_i reads only whether
    t is in its sample, so under a dataset with m copies of t its law is the mixture
    (1 - q_m) RR(0) + q_m RR(1), q_m = 1 - (1 - beta)^m, whatever the other records; a
    neighbouring pair changes m by one or not at all (ratio 1).  Exact for m <= UDP_SCAN; for
    every m >= 1 the two laws differ by beta (1 - beta)^m |RR(1) - RR(0)| <= beta (1 - beta)
    |RR(1) - RR(0)| while both are >= min RR, so their ratio is at most 1 + that / min RR:
    ``complete`` when this bound does not exceed the exact worst (found at m = 0)."""
    def law(mm: int, o: int) -> Fraction:
        qm = 1 - (1 - BETA) ** mm
        return (1 - qm) * _rr(0, o) + qm * _rr(1, o)

    worst = max(max(law(mm + 1, o) / law(mm, o), law(mm, o) / law(mm + 1, o))
                for mm in range(UDP_SCAN + 1) for o in (0, 1))
    gap = max(abs(_rr(1, o) - _rr(0, o)) for o in (0, 1))
    tail = 1 + BETA * (1 - BETA) * gap / min(_rr(b, o) for b in (0, 1) for o in (0, 1))
    complete = tail <= worst
    return worst, (f"exact over m = 0..{UDP_SCAN + 1} copies of t (A_i reads only whether t is "
                   "sampled; other records leave its law unchanged), both outputs, both "
                   f"directions; every m >= 1: ratio <= {tail} (bound)"), complete


def _witness_values() -> dict[sp.Symbol, Evidence]:
    """The witness's values, every constant read from BETA and E above."""
    ratio, how, complete = udp_worst_ratio()
    claimed = 1 + BETA * (E - 1)  # TR Cor 4: the UDP guarantee of an eps-DP A_i at rate beta
    p, q = _dist(("t", "a"), True), _dist(("a",), True)
    return {_b: Evidence(BETA, "BETA"),
            _E1: Evidence(claimed, f"1 + beta (e^eps - 1) with e^eps = {E} (TR Cor 4)"),
            _E2: Evidence(claimed, f"1 + beta (e^eps - 1) with e^eps = {E} (TR Cor 4)"),
            _r1: Evidence(ratio, how, complete), _r2: Evidence(ratio, how, complete),
            _r12: Evidence(p[(1, 1)] / q[(1, 1)], "Pr[(1, 1) | D = {t, a}] / Pr[(1, 1) | "
                           "D_-t = {a}], exact enumeration of the shared samples")}


#: the counterexample the kernel checks against STATEMENT (dps_verify.paper.kernel.statement).
WITNESS = Counterexample(
    "A_i = randomized response on 't in the sample' with flip probability 1/(1 + e^eps), "
    "e^eps = 3, beta = 1/2, D = {t, a}, D_-t = {a}, output (1, 1)", _witness_values)


def _witness(shared: bool) -> tuple[Verdict, dict[str, str] | None, str]:
    e_single = 1 + BETA * (E - 1)  # TR Cor 4 bound for each A_i, valid for every D
    p = _dist(("t", "a"), shared)
    q = _dist(("a",), shared)
    ratio = p[(1, 1)] / q[(1, 1)]
    bound = e_single ** 2  # e^{eps1' + eps2'}, delta1 + delta2 = 0
    with mp.workdps(30):
        recheck = mp.mpf(ratio.numerator) / ratio.denominator > mp.mpf(bound.numerator) / bound.denominator
        cex = {"beta": str(BETA), "e^eps (each A_i)": str(E),
               "e^eps' (each A_i^beta, TR Cor 4)": str(e_single),
               "observed e^eps' on witness": str(_single_udp_eps()),
               "Pr[(1,1) | D={t,a}]": str(p[(1, 1)]), "Pr[(1,1) | D_-t={a}]": str(q[(1, 1)]),
               "ratio": str(ratio), "claimed bound e^(eps1'+eps2')": str(bound),
               "mpmath re-check ratio > bound": str(recheck)}
        refuted = ratio > bound and recheck
    return (Verdict.REFUTED if refuted else Verdict.BOUNDED), cex, (
        "shared sample" if shared else "independent samples: the product formula holds")


def steps() -> list[Step]:
    return [timed("composition on one shared sample",
                  "Pointwise (and hockey-stick, event {(1,1)}) bound e^(eps1+eps2) with "
                  "delta1 + delta2 = 0 for (A1; A2)^beta.",
                  "exact enumeration (Fraction) + mpmath", lambda: _witness(True),
                  expected=Verdict.REFUTED)]


def negative_controls() -> list[Step]:
    # Wrong variant of the refutation: the same witness claimed against independent samples.
    return [timed("control: witness with independent samples",
                  "The shared-sample witness also breaks composition when each A_i draws its "
                  "own sample (a wrong refutation; must be rejected: only checked on this instance, not REFUTED).",
                  "exact enumeration (Fraction) + mpmath", lambda: _witness(False),
                  expected=Verdict.BOUNDED)]
