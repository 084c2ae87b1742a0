"""FAULTY: two k-anonymous releases computed from one sample.

Partner A receives ages by decade, partner B by five-year band; each release alone is
strongly-safe k-anonymization, and the author composes them as (2ε, 2δ).  CP §2.7: the guarantee
needs a fresh sample per release.  Differencing the two tables isolates a lone record
(e.g. decade 20-29 minus band 20-24 = the band 25-29 that B suppressed).
"""

from collections import Counter

from _common import decade, domain, paper_d

K = 5
EXPECTED = "FAIL"
CLAIM = dict(beta=0.2, epsilon=2.0, delta=2 * paper_d(K, 0.2, 1.0))
DOMAIN = domain("ages.json")


def band(age):
    lo = age // 5 * 5
    return f"{lo}-{lo + 4}"


def _k_anon(values):
    counts = Counter(values)
    return tuple(sorted((g, c) for g, c in counts.items() if c >= K))


def anonymize(sample):
    return _k_anon(decade(a) for a in sample), _k_anon(band(a) for a in sample)
