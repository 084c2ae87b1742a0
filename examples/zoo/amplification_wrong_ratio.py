"""FAULTY: CP Thm 1 applied with β₂ instead of β₂/β₁.

A vendor's noisy count (count of flagged records plus two-sided geometric noise, α = 1/2) is
certified (β₁ = 1/2, ε₁ = ln 1.5, 0)-DPS.  The team runs it on a 10 % sample (β₂ = 1/10) and
amplifies with ε₂ = ln(1 + β₂(e^ε₁ − 1)) = ln 1.05.  CP Thm 1's factor is β₂/β₁ = 1/5, giving
ln 1.1: the claimed ε is too small.
"""

import math
from fractions import Fraction
from functools import cache

from _common import domain

from dps_verify.engine.distribution import randomized
from dps_verify.mechanisms import two_sided_geometric_tail

ALPHA = Fraction(1, 2)
LO, HI = -6, 46  # published range (fixed in advance; values outside are clamped)
BETA1, BETA2 = 0.5, 0.1
EPS1 = math.log(1.5)
EXPECTED = "FAIL"
# BUG: the factor should be BETA2 / BETA1
CLAIM = dict(beta=BETA2, epsilon=math.log1p(BETA2 * (math.exp(EPS1) - 1)), delta=1e-6)
DOMAIN = domain("bits.json")


def noisy_count_law(sample):
    return _law_of_count(sum(1 for r in sample if r))


@cache
def _law_of_count(c):
    law = {}
    for y in range(LO + 1, HI):
        law[y] = ALPHA ** abs(y - c) * (1 - ALPHA) / (1 + ALPHA)
    law[HI] = two_sided_geometric_tail(c - HI, ALPHA)
    law[LO] = 1 - two_sided_geometric_tail(c - LO - 1, ALPHA)
    return law


anonymize = randomized(noisy_count_law)
