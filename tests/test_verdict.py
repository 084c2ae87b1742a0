"""The verdict engine: smallest witness first, exact confirmation, identical serial and
parallel results, the leak shapes, and a zoo of faulty anonymizers written for these tests."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dps_verify import exact
from dps_verify.core.errors import AuditedCodeError
from dps_verify.mechanisms import StronglySafeKAnonymizer
from dps_verify.testing import assert_dp, find_witness
from dps_verify.testing import strategies as S
from dps_verify.verdict import exhaustive_search
from dps_verify.verdict.exact_search import estimate_work, shape_search
from dps_verify.verdict.executor import SerialExecutor
from dps_verify.verdict.montecarlo import exp_upper_float

DOM = list(range(8))
BETA, EPS = Fraction(1, 5), 1


# ---------------------------------------------------------------- the zoo of leak shapes
def two_bulk(s):
    """Publishes the records outside the large groups once two different groups are large."""
    c = Counter(s)
    big = [v for v, n in c.items() if n >= 4]
    return tuple(sorted(v for v in c if v not in big)) if len(big) >= 2 else ()


def median_split(s):
    """Publishes how many records fall below the sample median (a data-dependent split)."""
    if len(s) < 6:
        return ()
    med = sorted(s)[len(s) // 2]
    return (sum(x < med for x in s), med)


def large_gate(s):
    """Publishes the raw sample, but only once it holds at least 24 records."""
    return tuple(sorted(s)) if len(s) >= 24 else ()


def minmax(s):
    """Publishes the range of the sample when it has at least 5 records."""
    return (min(s), max(s)) if len(s) >= 5 else ()


def safe_plain(s):
    """Strongly-safe 3-anonymization with recoding x // 2, written by hand."""
    c = Counter(x // 2 for x in s)
    return tuple(sorted((g, n) for g, n in c.items() if n >= 3))


def constant(s):
    return "nothing"


FAULTY = [two_bulk, median_split, large_gate, minmax]
CORRECT = [safe_plain, constant, StronglySafeKAnonymizer(lambda x: x // 2, 3)]


def claim():
    return exact.sdgs_delta(3, BETA, EPS)


def gate_domain(deep_profile):
    """The domain of the 24-record gate's searches: its leak needs ~96 records (a target beside
    a bulk), found over 3 values by the default run (every shape family still tried: singleton,
    crowd, beside-bulk, outlier, random; ~10x cheaper) and over all of DOM under deep."""
    return DOM if deep_profile else DOM[:3]


@pytest.mark.parametrize("anon", FAULTY, ids=lambda f: f.__name__)
def test_assert_dp_detects_every_leak_shape_with_defaults(anon, deep_profile):
    dom = gate_domain(deep_profile) if anon is large_gate else DOM
    with pytest.raises(AssertionError, match="smallest witness"):
        assert_dp(anon, beta=BETA, epsilon=EPS, delta=claim(), domain=dom, max_examples=0)


#: Largest leak shape of a PASS in the default run (the default, 96 records, under deep): the
#: same phases (budget plan, exhaustive search, recognition, every shape family) at ~1/6 the cost.
PASS_SHAPE_RECORDS = 24


@pytest.mark.parametrize("anon", CORRECT, ids=lambda f: getattr(f, "__name__", "ssk"))
def test_assert_dp_flags_no_correct_anonymizer(anon, deep_profile):
    from dps_verify.testing.checks import SHAPE_RECORDS

    records = SHAPE_RECORDS if deep_profile else PASS_SHAPE_RECORDS
    rep = assert_dp(anon, beta=BETA, epsilon=EPS, delta=claim(), domain=DOM, max_examples=0,
                    shape_records=records)
    text = rep.summary()
    assert "PASS" in text and "neighbouring pairs" in text
    assert ("closed form" in text) or ("not a proof" in text)


@pytest.mark.parametrize("anon", FAULTY, ids=lambda f: f.__name__)
def test_audit_detects_every_leak_shape(anon, deep_profile):
    from dps_verify.audit import audit

    # default domain (max_size 40): the 24-record gate needs ~96 records at beta = 1/5, reached
    # by the geometric crowd / beside-bulk shapes, which grow beyond max_size
    dom = gate_domain(deep_profile) if anon is large_gate else DOM
    rep = audit(anon, beta=BETA, epsilon=EPS, delta=claim(), domain=dom, method="exact")
    assert rep.verdict == "FAIL", rep.summary()
    if anon is large_gate:
        assert len(rep.witness.dataset) > 40 and "verdict.shapes" in str(rep.coverage["shapes"])


# ---------------------------------------------------------------- exhaustive search properties
def test_witness_is_minimal_and_confirmed_exactly():
    def publish_if_four(s):
        return tuple(sorted(s)) if len(s) >= 4 else ()

    res = exhaustive_search(publish_if_four, DOM, beta=Fraction(1, 2), epsilon=EPS,
                            delta=Fraction(1, 100), max_size=6)
    w = res.witness
    assert w is not None and w.minimal and len(w.dataset) + len(w.neighbour) == 7
    assert res.sizes == [1, 2, 3, 4]
    assert w.implied_delta > Fraction(1, 100)
    # every smaller pair passes (brute force with the old per-pair evaluation)
    assert find_witness(publish_if_four, S.all_pairs(DOM[:3], 3), beta=Fraction(1, 2),
                        epsilon=EPS, delta=Fraction(1, 100)) is None
    assert "minimal" in w.describe()


def test_ties_at_the_exact_claim_pass_and_just_below_fail():
    A = StronglySafeKAnonymizer(lambda x: x // 2, 3)
    d = exact.sdgs_delta_certified(3, BETA, EPS)
    assert exhaustive_search(A, DOM, beta=BETA, epsilon=EPS, delta=d.upper, max_size=8).witness is None
    w = exhaustive_search(A, DOM, beta=BETA, epsilon=EPS, delta=d.lower * Fraction(999, 1000),
                          max_size=8).witness
    assert w is not None


def test_serial_and_process_pool_agree():
    from dps_verify.verdict.executor import ProcessExecutor

    for anon, d in ((safe_plain, claim()), (minmax, Fraction(1, 1000))):
        a = exhaustive_search(anon, DOM[:5], beta=BETA, epsilon=EPS, delta=d, max_size=6,
                              executor=SerialExecutor())
        ex = ProcessExecutor(2)
        try:
            b = exhaustive_search(anon, DOM[:5], beta=BETA, epsilon=EPS, delta=d, max_size=6,
                                  executor=ex)
        finally:
            ex.close()
        assert (a.witness, a.pairs, a.sizes, a.exact_checks) == (b.witness, b.pairs, b.sizes,
                                                                 b.exact_checks)


def test_each_sample_anonymized_once():
    calls = Counter()

    def counted(s):
        calls[tuple(sorted(s))] += 1
        return len(s) // 3

    res = exhaustive_search(counted, DOM[:4], beta=BETA, epsilon=EPS, delta=1, max_size=5)
    assert res.samples == len(calls)
    # once each, except the spot checks (engine.calls.SpotChecks): a few samples of each size are
    # called again and with their records reordered (at most 4 calls of one multiset)
    assert max(calls.values()) <= 4
    assert sum(calls.values()) - len(calls) <= 4 + 5 * (3 * 2 + 4)


def test_budget_cuts_the_search_with_a_message():
    with pytest.warns(UserWarning, match="searching every dataset up to"):
        res = exhaustive_search(constant, DOM, beta=BETA, epsilon=EPS, delta=0, max_size=12,
                                work_budget=estimate_work(8, 5))
    assert res.max_size == 5 and res.notes


def test_user_fault_is_audited_code_error_not_a_verdict():
    def crashes(s):
        if len(s) == 3:
            raise ValueError("boom")
        return 0

    with pytest.raises(AuditedCodeError):
        exhaustive_search(crashes, DOM, beta=BETA, epsilon=EPS, delta=0, max_size=4)


def test_pointwise_and_beta_one_and_epsilon_zero():
    for kw in (dict(definition="pointwise"), dict(beta=1), dict(epsilon=0)):
        args = dict(beta=BETA, epsilon=EPS, delta=claim(), definition="hockey-stick") | kw
        new = exhaustive_search(minmax, DOM[:4], max_size=5, **args).witness
        old = find_witness(minmax, S.all_pairs(DOM[:4], 5), **args)
        assert (new is None) == (old is None)
        if new is not None:
            assert len(new.dataset) + len(new.neighbour) <= len(old.dataset) + len(old.neighbour)


def test_shape_search_reaches_large_thresholds(deep_profile):
    res = shape_search(large_gate, gate_domain(deep_profile), beta=BETA, epsilon=EPS, delta=claim())
    assert res.witness is not None and len(res.witness.dataset) >= 24


def test_exp_upper_float_rounds_up():
    import math

    for e in (Fraction(1), Fraction(1, 3), Fraction(5, 2)):
        assert exp_upper_float(e) >= math.exp(float(e))


# ---------------------------------------------------------------- new search vs brute force
@st.composite
def table_anonymizers(draw):
    """Anonymizers defined by a random table from (sample size, sorted sample's min) to outputs."""
    table = draw(st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 2)),
                                 st.integers(0, 2), max_size=8))

    def anon(s):
        return table.get((len(s), min(s) if s else 0), -1)

    return anon


@settings(max_examples=25, deadline=None)
@given(table_anonymizers(), st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(1)]),
       st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1)]),
       st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 3)]),
       st.sampled_from(["hockey-stick", "pointwise"]))
def test_new_search_agrees_with_brute_force(anon, beta, eps, d, definition):
    dom = [0, 1, 2]
    new = exhaustive_search(anon, dom, beta=beta, epsilon=eps, delta=d, max_size=4,
                            definition=definition, executor="serial")
    pairs = S.all_pairs(dom, 4)
    old = find_witness(anon, pairs, beta=beta, epsilon=eps, delta=d, definition=definition)
    assert (new.witness is None) == (old is None)
    if old is not None:
        # the new witness is minimal: no old witness is smaller
        assert len(new.witness.dataset) + len(new.witness.neighbour) <= \
            len(old.dataset) + len(old.neighbour)


def test_hypothesis_leak_shapes_strategy_finds_the_two_bulk_leak():
    """The strategy generates a leaking pair within its budget; the first one found is the
    answer (Hypothesis' shrinking of it -- three quarters of the CPU -- is not what is tested)."""
    from hypothesis import Phase, find

    from dps_verify.core.numbers import to_fraction
    from dps_verify.testing import LawCache, pair_witness

    laws = LawCache(two_bulk, BETA)
    d = to_fraction(claim())
    pair = find(S.leak_shapes(DOM, max_records=32),
                lambda p: pair_witness(laws, p[0], p[1], EPS).implied_delta > d,
                settings=settings(max_examples=3000, database=None, derandomize=True,
                                  phases=[Phase.generate]))
    assert len(set(pair[0])) >= 3
