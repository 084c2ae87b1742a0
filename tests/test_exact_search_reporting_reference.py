"""What the exact searches report beside the verdict: the coverage sentence and the reduction by a
sufficient statistic, the leak shape that produced a shape-search witness, the thresholds taken
from the anonymizer, and the clean-up of the bar and of the executors the searches make."""

from __future__ import annotations

from fractions import Fraction as F

from dps_verify.core.types import Claim
from dps_verify.verdict import exact_search as es
from tests.test_exact_search_pairs_reference import DOMAIN, _repeated


def _decade(v: int) -> int:
    return v // 10


def _by_decade(sample: tuple) -> tuple:
    """Publishes the decades held at least twice (depends on records only through their decade)."""
    keys = [_decade(v) for v in sample]
    return tuple(sorted(k for k in set(keys) if keys.count(k) >= 2))


_by_decade.sufficient_statistic = _decade  # type: ignore[attr-defined]


def test_coverage_names_pairs_values_sizes_samples_and_the_reduction():
    plain = es.exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), max_size=2,
                                 executor="serial")
    assert plain.reduction is None
    assert plain.coverage() == (f"{plain.pairs} neighbouring pairs over 3 domain values, every "
                                f"dataset of 1..2 records; {plain.samples} distinct samples "
                                f"anonymized; {plain.exact_checks} pairs decided in exact "
                                "arithmetic")
    grouped = es.exhaustive_search(_by_decade, [3, 7, 15, 18, 25], Claim(F(1, 2), 1, 1),
                                   max_size=2, executor="serial")
    assert grouped.atoms == 3  # decades 0, 1, 2
    assert grouped.reduction == ("records grouped by the anonymizer's sufficient_statistic "
                                 "into 3 classes")
    assert f"over 3 domain values ({grouped.reduction}), every" in grouped.coverage()


def test_shape_search_witness_names_the_shape_that_produced_it():
    from dps_verify.engine.count_vectors import Atoms
    from dps_verify.verdict.shapes import leak_shapes

    res = es.shape_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, F(1, 100)), ks=[2],
                          max_records=6, executor="serial")
    w = res.witness
    assert w is not None
    big = w.dataset if len(w.dataset) > len(w.neighbour) else w.neighbour
    counts = {i: big.count(v) for i, v in enumerate(DOMAIN) if big.count(v)}
    names = {shape for shape, c, _t in leak_shapes(Atoms(_repeated, list(DOMAIN)).values, ks=[2],
                                                   beta=F(1, 2), eps=F(1), max_records=6)
             if c == counts}
    assert w.shape in names


def test_shape_search_takes_a_threshold_of_one_from_the_anonymizer():
    from dps_verify.engine.count_vectors import Atoms
    from dps_verify.verdict.shapes import leak_shapes

    def one(sample: tuple) -> tuple:
        return _repeated(sample)

    one.threshold = 1  # type: ignore[attr-defined]
    res = es.shape_search(one, list(DOMAIN), Claim(F(1, 2), 1, 1), max_records=8,
                          executor="serial")
    family = list(leak_shapes(Atoms(one, list(DOMAIN)).values, ks=[1], beta=F(1, 2), eps=F(1),
                              max_records=8))
    assert res.datasets == len(family)


def test_searches_stop_their_bar_and_close_the_executors_they_make(monkeypatch):
    from dps_verify.verdict.executor import SerialExecutor

    events: list[str] = []

    class Bar:
        def __init__(self, total: int):
            events.append("bar")

        def advance(self, n: int) -> None:
            pass

        def stop(self) -> None:
            events.append("stop")

    monkeypatch.setattr(es, "_Bar", Bar)
    monkeypatch.setattr(SerialExecutor, "close", lambda self: events.append("close"))
    es.exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), max_size=2,
                         executor="serial", progress=True)
    assert events == ["bar", "stop", "close"]
    events.clear()
    es.shape_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), ks=[2], max_records=4,
                    executor="serial")
    assert events == ["close"]
    events.clear()
    ex = SerialExecutor()  # the caller's executor: the caller closes it
    es.exhaustive_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), max_size=2, executor=ex)
    es.shape_search(_repeated, list(DOMAIN), Claim(F(1, 2), 1, 1), ks=[2], max_records=4,
                    executor=ex)
    assert events == []


def test_searches_default_to_twelve_records_and_shapes_of_up_to_96():
    res = es.exhaustive_search(_repeated, [0], Claim(F(1, 2), 1, 1), executor="serial")
    assert res.requested_size == 12 == res.max_size and res.sizes == list(range(1, 13))
    res = es.shape_search(_repeated, [0], Claim(F(1, 2), 1, 1), ks=[2], executor="serial")
    assert res.requested_size == 96 and max(res.sizes) <= 96


def test_progress_bar_is_transient_and_counts_to_the_estimated_work(monkeypatch):
    """The bar disappears when the search ends (transient) and its total is the work estimate."""
    import io

    from rich.console import Console

    monkeypatch.setattr(es, "_console", lambda: Console(file=io.StringIO(), force_terminal=True))
    bar = es._Bar(1234)
    try:
        assert bar.progress.live.transient
        assert bar.progress.tasks[0].total == 1234
        bar.advance(34)
        assert bar.progress.tasks[0].completed == 34
    finally:
        bar.stop()
