"""A user's function recognised as strongly-safe k-anonymization by exhaustive
comparison with StronglySafeKAnonymizer on every small sample, with negative controls."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify.core.numbers import to_fraction
from dps_verify.testing import assert_dp
from dps_verify.verdict import exhaustive_search
from dps_verify.verdict.recognise import recognise, recognise_table

DOM = list(range(6))
BETA, EPS = Fraction(1, 5), Fraction(1)
N = 6


def safe_plain(s):
    c = Counter(x // 2 for x in s)
    return tuple(sorted((g, n) for g, n in c.items() if n >= 3))


def renamed(s):
    """The same mechanism with another output encoding (a one-to-one renaming)."""
    c = Counter(x // 2 for x in s)
    return "|".join(f"{g}:{n}" for g, n in sorted(c.items()) if n >= 3)


def differs_above_n(s):
    return ("size",) if len(s) == N + 1 else safe_plain(s)


def rare_input(s):
    return ("rare",) if Counter(s) == Counter([5, 5, 5, 0]) else safe_plain(s)


def median_recoding(s):
    """Groups by 'below the sample median': the recoding depends on the data."""
    if not s:
        return ()
    med = sorted(s)[len(s) // 2]
    c = Counter(x < med for x in s)
    return tuple(sorted((g, n) for g, n in c.items() if n >= 3))


def threshold_two(s):
    c = Counter(x // 2 for x in s)
    return tuple(sorted((g, n) for g, n in c.items() if n >= 2))


def _recognised(anon, size=N):
    res = exhaustive_search(anon, DOM, beta=BETA, epsilon=EPS, delta=1, max_size=size,
                            executor="serial")
    assert res.witness is None and res.table is not None
    return recognise_table(res.table, res.max_size)


@pytest.mark.parametrize("anon", [safe_plain, renamed], ids=lambda f: f.__name__)
def test_recognises_strongly_safe_written_by_hand(anon):
    rec = _recognised(anon)
    assert rec is not None and rec.k == 3
    assert sorted(map(sorted, rec.groups)) == [[0, 1], [2, 3], [4, 5]]
    assert rec.samples == 924  # C(6 + 6, 6): every sample of <= 6 records
    text = rec.describe()
    assert "k = 3" in text and "size <= 6" in text and "checked exhaustively" in text


def test_function_differing_only_above_n_is_recognised_up_to_n_only():
    rec = _recognised(differs_above_n, N)
    assert rec is not None and rec.max_size == N and f"size <= {N}" in rec.describe()
    assert _recognised(differs_above_n, N + 1) is None


@pytest.mark.parametrize("anon", [rare_input, median_recoding], ids=lambda f: f.__name__)
def test_rare_difference_and_data_dependent_recoding_are_not_recognised(anon):
    assert _recognised(anon) is None


def test_randomized_and_constant_are_not_recognised():
    coin = exact.randomized(lambda s: {len(s) % 2: Fraction(1, 2), 2: Fraction(1, 2)})
    assert _recognised(coin) is None
    assert _recognised(lambda s: "nothing") is None


def test_off_by_one_threshold_is_recognised_with_its_own_k_and_the_claim_is_flagged():
    rec = _recognised(threshold_two)
    assert rec is not None and rec.k == 2
    d3 = to_fraction(exact.sdgs_delta(3, BETA, EPS))
    text = rec.closed_form(BETA, EPS, d3)
    assert "BELOW" in text and "CP Thm 5" in text


def test_closed_form_statement_covers_the_claim_for_k3():
    rec = _recognised(safe_plain)
    d3 = exact.sdgs_delta_certified(3, BETA, EPS).upper
    text = rec.closed_form(BETA, EPS, d3)
    assert "proof applies to the reference mechanism" in text and "not beyond" in text
    assert "d(k, beta, eps)" in text


def test_assert_dp_report_says_recognised_and_keeps_finite_wording():
    d3 = exact.sdgs_delta_certified(3, BETA, EPS).upper
    rep = assert_dp(safe_plain, beta=BETA, epsilon=EPS, delta=d3, domain=DOM, max_size=N,
                    max_examples=0, shapes=False)
    text = rep.summary()
    assert "recognised: behaves as strongly-safe k-anonymization" in text
    assert "not a proof for all datasets" in text
    rep2 = assert_dp(median_recoding, beta=BETA, epsilon=EPS, delta=1, domain=DOM, max_size=N,
                     max_examples=0, shapes=False)
    assert rep2.recognised is None and "recognised" not in rep2.summary()


def test_recognise_builds_its_own_table_within_a_budget():
    rec = recognise(safe_plain, DOM, sample_budget=2000)
    assert rec is not None and rec.max_size == 7  # C(7 + 6, 6) = 1716 <= 2000 < C(8 + 6, 6)
    assert recognise(rare_input, DOM, sample_budget=2000) is None


# ---------------------------------------------------------------- item 3: level-by-parents screen
@pytest.mark.parametrize("beta", [Fraction(1, 5), Fraction(3, 1000), Fraction(1)])
@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_parent_screen_gives_the_same_search_as_the_dataset_screen(monkeypatch, beta, definition):
    """The level-by-parents screen (one enumeration of E's sub-samples for every E + x) and the
    per-dataset screen return the same pairs, witnesses and exact checks (integer mode at
    beta = 1/5, float mode at 3/1000 where q^n > 2^53, beta = 1)."""
    from dps_verify.verdict import exact_search as es

    def size_gate(s):
        return tuple(sorted(s)) if len(s) >= 4 else len(s) // 3

    def first_group(s):
        c = Counter(x // 2 for x in s)
        return tuple(sorted((g, n) for g, n in c.items() if n >= 2 and g == 0))

    d = to_fraction(exact.sdgs_delta(2, Fraction(1, 5), EPS))
    for anon in (safe_plain, threshold_two, size_gate, first_group, median_recoding):
        runs = []
        for dense in (False, True):
            if not dense:
                monkeypatch.setattr(es.PairChecker, "dense_ok", lambda self, size: False)
            else:
                monkeypatch.undo()
            r = exhaustive_search(anon, DOM[:5], beta=beta, epsilon=EPS, delta=d, max_size=6,
                                  definition=definition, executor="serial")
            runs.append((r.witness, r.pairs, r.sizes, r.exact_checks, r.samples))
        assert runs[0] == runs[1], anon.__name__


def test_dense_rank_is_a_bijection():
    import math

    import numpy as np

    from dps_verify.verdict.exact_search import level_counts
    from dps_verify.verdict.screen import count_ranks, rank_table

    m, n = 4, 6
    T = rank_table(m, n)
    allc = np.vstack([level_counts(m, k) for k in range(n + 1)])
    r = count_ranks(allc, T)
    assert sorted(r.tolist()) == list(range(math.comb(n + m, m)))


def test_audit_pass_says_recognised_only_for_the_reference_behaviour(deep_profile):
    """The default run caps the candidate datasets at 12 (recognition, on samples of <= 13
    records, and the leak shapes are unchanged; ~4 s of CPU less); deep uses the domain's 40."""
    from dps_verify.audit import audit

    size = {} if deep_profile else {"max_size": 12}
    d3 = exact.sdgs_delta_certified(3, BETA, EPS).upper
    rep = audit(safe_plain, beta=BETA, epsilon=EPS, delta=d3, domain=DOM, method="exact", **size)
    assert rep.verdict == "PASS"
    rec = rep.coverage["recognised"]
    assert rec["k"] == 3 and rec["max_sample_size"] >= 3
    assert any(r.startswith("recognised: behaves as strongly-safe") for r in rep.reasons)
    assert "recognised" in rep.summary() and rep.coverage["closed_form"] is None
    rep2 = audit(median_recoding, beta=BETA, epsilon=EPS, delta=1, domain=DOM[:4], method="exact",
                 **size)
    assert rep2.verdict == "PASS" and "recognised" not in rep2.coverage


# ---------------------------------------------------------------- item 4: replace-one on the engine
def _old_replace_one(anon, dom, size, beta, eps, d, definition):
    from dps_verify.testing import find_witness
    from dps_verify.testing import strategies as S

    pairs = [(D, S.canonical(S._remove_one(D, r) + (r2,)))
             for D in S.all_datasets(dom, size) for r in sorted(set(D), key=repr)
             for r2 in dom if r2 != r]
    return find_witness(anon, pairs, beta=beta, epsilon=eps, delta=d, definition=definition)


def _sample_size(s):
    return len(s)


def _sum_gate(s):
    return sum(s) if len(s) >= 3 else None


@pytest.mark.parametrize("anon", [safe_plain, threshold_two, median_recoding, _sample_size,
                                  _sum_gate], ids=lambda f: f.__name__)
@pytest.mark.parametrize("beta,definition", [(Fraction(1, 2), "hockey-stick"),
                                             (Fraction(1, 5), "pointwise"),
                                             (Fraction(1), "hockey-stick")])
def test_replace_one_search_reproduces_the_old_per_pair_verdicts(anon, beta, definition):
    dom, size, d = DOM[:4], 4, Fraction(1, 20)
    old = _old_replace_one(anon, dom, size, beta, EPS, d, definition)
    new = exhaustive_search(anon, dom, beta=beta, epsilon=EPS, delta=d, max_size=size,
                            definition=definition, relation="replace-one", executor="serial")
    assert (old is None) == (new.witness is None)
    if old is not None:
        w = new.witness
        assert len(w.dataset) == len(w.neighbour) <= len(old.dataset)
        assert w.implied_delta > d and w.minimal


def test_replace_one_randomized_goes_through_the_exact_path():
    coin = exact.randomized(lambda s: {min(s, default=-1): Fraction(1, 2), "x": Fraction(1, 2)})
    old = _old_replace_one(coin, DOM[:3], 3, Fraction(1, 2), EPS, Fraction(1, 20), "hockey-stick")
    new = exhaustive_search(coin, DOM[:3], beta=Fraction(1, 2), epsilon=EPS, delta=Fraction(1, 20),
                            max_size=3, relation="replace-one")
    assert (old is None) == (new.witness is None)


def test_assert_dp_replace_one_returns_a_report():
    rep = assert_dp(_sample_size, beta=BETA, epsilon=EPS, delta=0, domain=DOM, max_size=5,
                    relation="replace-one", max_examples=0)
    assert "replace-one" in rep.summary() and rep.exhaustive.max_size == 5
    with pytest.raises(AssertionError, match="replace-one"):
        assert_dp(_sum_gate, beta=BETA, epsilon=EPS, delta=Fraction(1, 100), domain=DOM,
                  max_size=5, relation="replace-one", max_examples=0)


# ---------------------------------------------------------------- item 5: progress bar
def test_progress_bar_shows_when_asked_and_never_in_non_tty_or_ci(monkeypatch, capsys):
    import io
    import sys

    from rich.console import Console

    from dps_verify.verdict import exact_search as es

    monkeypatch.setattr(es, "PROGRESS_THRESHOLD", 0)
    monkeypatch.delenv("CI", raising=False)
    # default (progress=None) under pytest: stderr is captured, not a TTY -> no bar, no output
    exhaustive_search(safe_plain, DOM, beta=BETA, epsilon=EPS, delta=1, max_size=3)
    assert capsys.readouterr().err == ""
    buf = io.StringIO()
    monkeypatch.setattr(es, "_console", lambda: Console(file=buf, force_terminal=True, width=80))

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Tty())
    monkeypatch.setenv("CI", "true")
    assert es._progress(10, None) is None  # a terminal in CI: no bar unless asked
    monkeypatch.delenv("CI")
    bar = es._progress(10, None)  # an interactive terminal, work above the threshold
    assert bar is not None
    bar.stop()
    monkeypatch.undo()
    monkeypatch.setattr(es, "PROGRESS_THRESHOLD", 0)
    # asked: the bar runs, advances by the terms screened, and renders on a terminal console
    buf = io.StringIO()
    monkeypatch.setattr(es, "_console", lambda: Console(file=buf, force_terminal=True, width=80))
    advanced = []
    real = es._Bar.advance
    monkeypatch.setattr(es._Bar, "advance", lambda self, n: (advanced.append(n), real(self, n)))
    res = exhaustive_search(safe_plain, DOM, beta=BETA, epsilon=EPS, delta=1, max_size=4,
                            progress=True)
    assert res.witness is None and sum(advanced) > 0
    assert "exact search" in buf.getvalue()
    # progress=False never builds a bar
    monkeypatch.setattr(es, "_Bar", lambda total: pytest.fail("bar built"))
    exhaustive_search(safe_plain, DOM, beta=BETA, epsilon=EPS, delta=1, max_size=3,
                      progress=False)


@settings(max_examples=20, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 3), st.integers(0, 2)), st.integers(0, 2),
                       max_size=8),
       st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(1)]),
       st.sampled_from([Fraction(0), Fraction(1)]),
       st.sampled_from([Fraction(0), Fraction(1, 10)]),
       st.sampled_from(["hockey-stick", "pointwise"]))
def test_replace_one_property_new_engine_agrees_with_old(table, beta, eps, d, definition):
    """Anonymizers given by a random table (sample size, smallest record) -> output."""
    def anon(s):
        return table.get((len(s), min(s) if s else 0), -1)

    old = _old_replace_one(anon, [0, 1, 2], 3, beta, eps, d, definition)
    new = exhaustive_search(anon, [0, 1, 2], beta=beta, epsilon=eps, delta=d, max_size=3,
                            definition=definition, relation="replace-one", executor="serial")
    assert (old is None) == (new.witness is None)
    if old is not None:
        assert len(new.witness.dataset) <= len(old.dataset)


@settings(max_examples=20, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 2)), st.integers(0, 2),
                       max_size=8),
       st.sampled_from([Fraction(1, 10**6), Fraction(999_999, 10**6), Fraction(7, 10**5)]),
       st.sampled_from([Fraction(0), Fraction(1, 2)]),
       st.sampled_from([Fraction(0), Fraction(1, 10**6), Fraction(1, 3)]),
       st.sampled_from(["hockey-stick", "pointwise"]))
def test_float_mode_parent_screen_agrees_with_brute_force(table, beta, eps, d, definition):
    """beta with a large denominator: q^n > 2^53 from n = 3 on, so the level-by-parents screen
    runs in float mode with its error bound; the verdict matches the old exact per-pair path."""
    from dps_verify.testing import find_witness
    from dps_verify.testing import strategies as S

    def anon(s):
        return table.get((len(s), min(s) if s else 0), -1)

    new = exhaustive_search(anon, [0, 1, 2], beta=beta, epsilon=eps, delta=d, max_size=4,
                            definition=definition, executor="serial")
    old = find_witness(anon, S.all_pairs([0, 1, 2], 4), beta=beta, epsilon=eps, delta=d,
                       definition=definition)
    assert (new.witness is None) == (old is None)


def test_size_12_plain_function_fits_the_default_budget():
    from dps_verify.verdict.exact_search import DEFAULT_WORK_BUDGET, estimate_work

    # the per-dataset estimate cut it to 11; the level-by-parents estimate fits 12
    assert estimate_work(8, 12) > DEFAULT_WORK_BUDGET >= estimate_work(8, 12, parents=True)
    assert estimate_work(8, 13, parents=True) > DEFAULT_WORK_BUDGET


def test_screen_refuses_a_missing_sub_sample():
    """Negative control of the guard: screening a dataset whose sub-samples were never
    anonymized raises instead of reading a wrong row."""
    import numpy as np

    from dps_verify.engine.count_vectors import Atoms, SampleTable
    from dps_verify.verdict.screen import binomial_table, screen_batch

    atoms = Atoms(safe_plain, DOM)
    table = SampleTable(safe_plain, atoms, radix=8)
    C = np.array([[3, 0, 0, 0, 2, 0]])
    table.ensure([[0] * 6])
    table.ensure(C)  # the dataset only, not its sub-samples
    pmf = binomial_table(1, 5, 16)
    with pytest.raises(RuntimeError, match="missing"):
        screen_batch(table.arrays(), pmf, C, 2.72, 0.01, False)
    table.ensure_subsamples(C)
    assert len(screen_batch(table.arrays(), pmf, C, 2.72, 0.01, False)[0]) == 2
