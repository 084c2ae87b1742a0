"""FAULTY: top-coded records exempted from suppression.

Ages 80 and over are top-coded to "80+", and the author skips suppression for that group
because "top-coding already anonymizes".  A lone 90-year-old is then published whenever sampled.
"""

from collections import Counter

from _common import decade, domain, paper_d

K = 5
EXPECTED = "FAIL"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=paper_d(K, 0.2, 1.0))
DOMAIN = domain("ages.json")


def recode(age):
    return "80+" if age >= 80 else decade(age)


def anonymize(sample):
    counts = Counter(recode(a) for a in sample)
    return tuple(sorted((g, c) for g, c in counts.items() if c >= K or g == "80+"))
