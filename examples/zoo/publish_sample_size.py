"""FAULTY: the release states the number of respondents.

"Based on n = 3,012 sampled respondents" accompanies a strongly-safe k-anonymized table; the
exact sample size moves by one with the target's presence.
"""

from collections import Counter

from _common import decade, domain, paper_d

K = 5
EXPECTED = "FAIL"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=paper_d(K, 0.2, 1.0))
DOMAIN = domain("ages.json")


def anonymize(sample):
    counts = Counter(decade(a) for a in sample)
    return tuple(sorted((g, c) for g, c in counts.items() if c >= K)), ("n", len(sample))
