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


class _RecordingExecutor:
    """Serial executor that records, per map call, the screen function and its chunk sizes."""

    workers = 1

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, list[int]]] = []

    def map(self, fn, items):
        items = list(items)
        if fn.__name__ in ("screen_chunk", "screen_parents"):
            n = items[0][7] if fn.__name__ == "screen_parents" else int(sum(items[0][2][0]))
            self.calls.append((fn.__name__, n, [len(job[2]) for job in items]))
        return [fn(x) for x in items]

    def close(self) -> None:
        pass


def _chunks(total: int, step: int) -> list[int]:
    return [min(step, total - i) for i in range(0, total, step)]


@pytest.mark.parametrize("chunk_terms", [4, 40, 400])
@pytest.mark.parametrize("name, relation", [("squares", "add-remove"), ("largest", "add-remove"),
                                            ("largest", "replace-one")])
def test_screen_chunks_hold_chunk_terms_over_the_documented_work_per_dataset(
        monkeypatch, chunk_terms, name, relation):
    """How many datasets go into one executor task: CHUNK_TERMS over the work of one dataset,
    at least one.  Per-dataset screen (randomized code): the work bound (min(n, m) + 1)·
    C(n + 2m, 2m) over the C(n + m, m) − 1 datasets of 1..n records; parents screen: m + 1
    lookups times the average Π (E_i + 1) sub-samples of a parent E of n − 1 records (brute
    force over the parents), times m for replace-one.  Recomputed here from those definitions,
    for chunk sizes from one dataset per task up to a whole level."""
    import math

    from tests.test_exact_search_pairs_reference import _vectors

    m = len(DOMAIN)
    monkeypatch.setattr(es, "CHUNK_TERMS", chunk_terms)
    rec = _RecordingExecutor()
    es.exhaustive_search(ANONYMIZERS[name], list(DOMAIN), Claim(F(1, 2), F(1, 2), F(1)),
                         max_size=3, executor=rec, progress=False, relation=relation)
    assert [n for _, n, _ in rec.calls] == [1, 2, 3]
    for fn, n, sizes in rec.calls:
        if fn == "screen_chunk":
            per = (min(n, m) + 1) * math.comb(n + 2 * m, 2 * m) // (math.comb(n + m, m) - 1)
            total = len(_vectors(n))
        else:
            parents = _vectors(n - 1)
            per = (m + 1) * sum(math.prod(c + 1 for c in E) for E in parents) // len(parents)
            per *= m if relation == "replace-one" else 1
            total = len(parents)
        assert fn == ("screen_chunk" if name == "squares" else "screen_parents")
        assert sizes == _chunks(total, max(1, chunk_terms // per)), (fn, n)


def test_screen_candidates_name_the_same_datasets_whatever_the_chunk_size(monkeypatch):
    """The per-dataset screen's candidates (status, −δ̂, dataset row, atom) index the batch the
    caller passed, across chunks: one dataset per chunk gives the same list as one chunk, and
    every candidate row is a dataset holding its atom."""
    import numpy as np

    from dps_verify.engine.count_vectors import Atoms, SampleTable
    from dps_verify.verdict.executor import SerialExecutor
    from tests.test_exact_search_pairs_reference import _vectors

    anon = ANONYMIZERS["squares"]
    counts = np.array(_vectors(2), dtype=np.int64)

    def candidates() -> list:
        table = SampleTable(anon, Atoms(anon, list(DOMAIN)), radix=3)
        chk = es.PairChecker(table, F(1, 2), F(0), F(0), "hockey-stick", SerialExecutor())
        return chk.screen(counts)

    whole = candidates()
    monkeypatch.setattr(es, "CHUNK_TERMS", 1)
    assert candidates() == whole and len(whole) > 1
    assert all(counts[row][x] > 0 for _, _, row, x in whole)
    assert len({row for _, _, row, _ in whole}) > 1
