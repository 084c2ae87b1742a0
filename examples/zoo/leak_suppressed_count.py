"""FAULTY: the release reports how many records were suppressed.

The table itself is strongly-safe k-anonymization, but a footer "n records suppressed" is a
count of the sampled records in small groups: one rare record changes it from 0 to 1.
"""

from collections import Counter

from _common import decade, domain, paper_d

K = 5
EXPECTED = "FAIL"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=paper_d(K, 0.2, 1.0))
DOMAIN = domain("ages.json")


def anonymize(sample):
    counts = Counter(decade(a) for a in sample)
    table = tuple(sorted((g, c) for g, c in counts.items() if c >= K))
    suppressed = sum(c for c in counts.values() if c < K)
    return table, ("suppressed", suppressed)
