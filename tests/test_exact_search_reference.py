"""What an exact search reports it covered, against what it was asked and did.

A PASS is only as good as the coverage it states (the largest dataset size whose pairs were
all checked): a search that checks sizes 1..n must say n, not less and not more.
"""

from __future__ import annotations

from dps_verify.core.types import Claim
from dps_verify.mechanisms import StronglySafeKAnonymizer
from dps_verify.verdict.exact_search import shape_search


def _decade(age: int) -> int:
    return age // 10


def test_shape_search_pass_states_the_largest_size_it_checked():
    res = shape_search(StronglySafeKAnonymizer(_decade, 2), [3, 17, 25], Claim(0.5, 1, 1),
                       max_records=6, executor="serial")
    assert res.witness is None
    assert res.sizes == [1, 2, 3, 4, 5, 6]  # every size up to the one asked, in order
    assert res.max_size == 6 == res.requested_size
