"""FAULTY: suppression threshold off by one.

The author reads "each record must be indistinguishable from k-1 others" and keeps groups with
at least k-1 records, while claiming the exact δ of a k-threshold (CP Thm 5, computed exactly by
``dps-verify delta --k 5``).  The claim is for threshold 5; the code implements threshold 4.
"""

from collections import Counter

from _common import decade, domain, exact_delta

K = 5
EXPECTED = "FAIL"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=exact_delta(K, 0.2, 1.0))
DOMAIN = domain("ages.json")


def anonymize(sample):
    counts = Counter(decade(a) for a in sample)
    # BUG: "k-1 other records" means count >= k, not count >= k - 1
    return tuple(sorted((g, c) for g, c in counts.items() if c >= K - 1))
