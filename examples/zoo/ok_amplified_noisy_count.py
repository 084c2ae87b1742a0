"""CORRECT: the noisy count of ``amplification_wrong_ratio`` with CP Thm 1 applied correctly.

(β₁ = 1/2, ε₁ = ln 1.5, 0)-DPS amplified to β₂ = 1/10 with the factor β₂/β₁ = 1/5:
ε₂ = ln(1 + (1/5)(0.5)) = ln 1.1 ≈ 0.09531, claimed as 0.0954 (rounded up), δ = 0.
"""

from _common import domain
from amplification_wrong_ratio import BETA1, BETA2, noisy_count_law

from dps_verify.engine.distribution import randomized

EXPECTED = "PASS"
CLAIM = dict(beta=BETA2, epsilon=0.0954, delta=0)
DOMAIN = domain("bits.json")

anonymize = randomized(noisy_count_law)
assert BETA2 / BETA1 == 0.2
