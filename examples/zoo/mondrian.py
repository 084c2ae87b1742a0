"""FAULTY: Mondrian (LeFevre et al. 2006) presented as k-anonymization with CP Thm 5's δ.

The output is k-anonymous, but each partition's published range depends on its extreme records
(CP §3.1, Alg. 1 CLR), so one outlier changes the release.
"""

from _common import domain, paper_d

from dps_verify.mechanisms import Mondrian

K = 4
EXPECTED = "FAIL"
CLAIM = dict(beta=0.2, epsilon=1.0, delta=paper_d(K, 0.2, 1.0))
DOMAIN = domain("people.json")

anonymize = Mondrian(K)
