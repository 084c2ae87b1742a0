"""FAULTY: bucket edges computed from the data.

A global recoding looks "data-independent" to its author, but the age bands are the sample's
quartiles, so the band labels (and which band a record falls in) depend on extreme records
(CP §3.1: schemes computed from the input are not safe).  The author claims CP Thm 5.
"""

from collections import Counter

from _common import domain, paper_d

K = 5
EXPECTED = "FAIL"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=paper_d(K, 0.2, 1.0))
DOMAIN = domain("ages.json")


def anonymize(sample):
    if not sample:
        return ()
    ages = sorted(sample)
    n = len(ages)
    edges = [ages[0]] + [ages[min(n - 1, (n * q) // 4)] for q in (1, 2, 3)] + [ages[-1]]
    labels = []
    for a in sample:
        i = max(j for j in range(4) if a >= edges[j])
        labels.append(f"{edges[i]}-{edges[i + 1]}")
    counts = Counter(labels)
    return tuple(sorted((g, c) for g, c in counts.items() if c >= K))
