"""shape_search's suppression thresholds ``ks`` are validated where the caller passed them: a
threshold below 1 (k = 0 suppresses nothing, k < 0 is meaningless), a fraction or a bool is
refused with one ParameterError line naming ``ks``, not with an error of an internal helper; the
smallest valid threshold, k = 1, is searched."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.core.types import Claim
from dps_verify.verdict import exact_search as es


def _search(ks):
    return es.shape_search(len, [0, 1], Claim(F(1, 2), F(1), F(1)), ks=ks, max_records=4,
                           executor="serial")


@pytest.mark.parametrize("ks", [[0], [2, 0], [-1], [F(3, 2)], [True]])
def test_shape_search_refuses_a_threshold_below_one_or_not_an_integer_naming_ks(ks):
    with pytest.raises(ParameterError) as err:
        _search(ks)
    message = str(err.value)
    assert message.startswith("ks must be integers >= 1") and "\n" not in message
    assert "n_min" not in message


def test_shape_search_accepts_the_smallest_threshold_one():
    res = _search([1])
    assert res.pairs >= 1 and res.witness is None and res.sizes
