"""The exact search's chunking of its screen: work is cut into chunks of about CHUNK_TERMS terms
for the executor; the verdict, the pairs counted, the screened worst pair and the error bound do
not depend on it — down to one dataset (or one parent) per chunk."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.types import Claim
from dps_verify.verdict import exact_search as es
from tests.test_exact_search_pairs_reference import ANONYMIZERS, DOMAIN


def _summary(res: es.SearchResult) -> tuple:
    w = res.witness
    return (None if w is None else (w.dataset, w.neighbour, w.implied_delta), res.sizes,
            res.pairs, res.datasets, res.exact_checks, res.error_bound,
            None if res.worst is None else sorted(res.worst.items(), key=repr))


@pytest.mark.parametrize("name, relation", [("repeated", "add-remove"), ("squares", "add-remove"),
                                            ("largest", "replace-one")])
@pytest.mark.parametrize("claim", [F(1, 10), F(1)])
def test_search_does_not_depend_on_its_chunk_size(monkeypatch, name, relation, claim):
    kwargs = {"max_size": 3, "executor": "serial", "progress": False, "relation": relation}
    c = Claim(F(1, 2), F(1, 2), claim)
    ref = _summary(es.exhaustive_search(ANONYMIZERS[name], list(DOMAIN), c, **kwargs))
    monkeypatch.setattr(es, "CHUNK_TERMS", 1)  # one dataset (or parent) per chunk
    assert _summary(es.exhaustive_search(ANONYMIZERS[name], list(DOMAIN), c, **kwargs)) == ref
