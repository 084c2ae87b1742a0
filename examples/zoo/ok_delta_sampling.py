"""CORRECT: δ-sampling (TR Alg. 5) after β-sampling publishes each record with probability βδ₀,
independently; that is (ε, βδ₀)-DP for every ε ≥ 0.  Claim: β = 0.2, δ₀ = 0.01, (0.1, 0.002)."""


from dps_verify.mechanisms import DeltaSampling

EXPECTED = "PASS"
CLAIM = dict(beta=0.2, epsilon=0.1, delta=0.002)
DOMAIN = {"records": [18, 35, 90], "max_size": 12}

anonymize = DeltaSampling(0.01)
