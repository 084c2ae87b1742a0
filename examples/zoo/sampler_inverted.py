"""FAULTY: the pipeline's own sampling step keeps each record with probability 1 − β.

``rng.random() > BETA`` instead of ``< BETA``: the "10 % sample" keeps 90 % of the records,
so the k-anonymized table inherits almost none of the uncertainty CP Thm 5 relies on.  The
pipeline samples by itself, so it is audited as a black box ``(data, rng) -> output`` with
audit β = 1 (no extra sampling) against the claim d(5, 0.1, 1).
"""

from collections import Counter

from _common import decade, domain, paper_d

K = 5
BETA = 0.1
EXPECTED = "FAIL"
CLAIM = dict(beta=1, epsilon=1.0, delta=paper_d(K, BETA, 1.0))
DOMAIN = domain("ages.json")


def anonymize(data, rng):
    sample = [r for r in data if rng.random() > BETA]  # BUG: should be < BETA
    counts = Counter(decade(a) for a in sample)
    return tuple(sorted((g, c) for g, c in counts.items() if c >= K))
