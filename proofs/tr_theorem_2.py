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
from dps_verify.paper.kernel.statement import Statement

CLAIM = "(A1; A2) is (beta, eps1 + eps2, delta1 + delta2)-UDP when A1, A2 are (on one sample)."
REFERENCE = "TR Thm 2, §5 (withdrawn by CP §2.2, §2.6)"
EXPECTED = Verdict.REFUTED
SUMMARY = ("Refuted: two randomized-response releases on one sample, each (1/2, ln 2, 0)-UDP, "
           "compose to ratio 5 > e^{2 ln 2} = 4 on output (1, 1).  With independent samples "
           "the same pair composes (ratio exactly 4).")

_r1, _r2, _r12, _E1, _E2 = sp.symbols("r1 r2 r12 E1 E2", positive=True)
#: TR Thm 2 as printed (delta1 = delta2 = 0, pointwise ratio form): each A_i^beta's output
#: ratio between D and D_-t is at most e^eps_i; the claim is that the pair's joint ratio is at
#: most e^(eps1 + eps2).  Refuted by an exact witness (the samples are shared).
STATEMENT = Statement(
    "TR Thm 2, §5",
    "Running two (beta, eps_i, delta_i)-UDP algorithms on the same sample gives a "
    "(beta, eps1 + eps2, delta1 + delta2)-UDP pair.",
    reading="delta1 = delta2 = 0, pointwise ratio form; both algorithms read one shared sample",
    hypotheses=(_E1 >= 1, _E2 >= 1, _r1 <= _E1, _r2 <= _E2),
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
