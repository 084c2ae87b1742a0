"""CORRECT: hand-written strongly-safe k-anonymization claiming the exact δ.

The same mechanism as ``ok_safe_kanon_paper_d`` written as a plain function (so the audit must
search rather than recognise it), with the tight claim δ = exact worst case
(``dps-verify delta --k 5 --beta 0.2 --epsilon 1``), about 6x below the paper's d.
"""

from collections import Counter

from _common import decade, domain, exact_delta

K = 5
EXPECTED = "PASS"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=exact_delta(K, 0.2, 1.0))
DOMAIN = domain("ages.json")


def anonymize(sample):
    counts = Counter(decade(a) for a in sample)
    return tuple(sorted((g, c) for g, c in counts.items() if c >= K))
