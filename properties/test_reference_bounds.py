"""Differential fuzzing of the paper's bounds against the independent reference (properties/reference.py).

Functions (owner H1): ``d``, ``d_certified``, ``d_safe``, ``chernoff_delta``, ``amplify``,
``sdgs_delta`` (both definitions), and the inverse questions ``min_k`` / ``min_epsilon`` /
``max_beta`` checked for extremality (the answer satisfies the bound, its neighbour does not).

Each call runs under a time limit; it must return a value the reference confirms (a safe value
≥ the reference and tight to ≥ 12 digits, an enclosure containing it) or raise a documented
error (``ValueError`` subclasses, ``CertificationError``).  Where the theorem's domain excludes
the input (reference :class:`~reference.OutsideDomain`), a ``ValueError`` is required.  Inputs
span a log scale: k up to 10^6, β and ε down to 1e-40, ε up to 1e30, and both sides of the edge
ε = −ln(1−β).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import reference as R
from hypothesis import given, settings
from hypothesis import strategies as st

from dps_verify import bounds, exact
from dps_verify.core.errors import CertificationError

DOCUMENTED = (ValueError, CertificationError)
REL = mpmath.mpf(10) ** -12
SECONDS = 10.0


def examples(ci: int) -> int:
    """``ci`` examples under the ci profile; $DPS_FUZZ_EXAMPLES or the deep profile's budget
    otherwise (see benchmarks/bench_fuzz_deep.py)."""
    return R.example_budget(ci, settings.default.max_examples)


def log_fraction(lo: int, hi: int) -> st.SearchStrategy[Fraction]:
    return st.builds(lambda m, e: Fraction(m) * Fraction(10) ** e, st.integers(1, 9),
                     st.integers(lo, hi))


BETAS = st.one_of(log_fraction(-40, -1), st.sampled_from([Fraction(1, 2), Fraction(16, 25),
                                                          Fraction(9, 10), Fraction(999, 1000)]))
SMALL_K = st.integers(1, 12)
LOG_K = st.one_of(SMALL_K, st.builds(lambda m, e: m * 10**e, st.integers(1, 9), st.integers(1, 5)),
                  st.just(10**6))


def _edge(beta: Fraction) -> mpmath.mpf:
    with mpmath.workdps(R.DPS):
        return -mpmath.log1p(-R._mp(beta))


#: Strategies the composites below draw from, built once (built inside them they were built
#: anew for every example; the draws are the same).
EPS_KINDS = st.sampled_from(["near", "above", "far", "below"])
FAR_EPS = st.sampled_from([Fraction(1), Fraction(89), Fraction(10**30)])


@st.composite
def regime_eps(draw, beta):
    """ε on either side of −ln(1−β): edge·(1 ± 10^-m), or far above (up to 1e30)."""
    kind = draw(EPS_KINDS)
    edge = _edge(beta)
    with mpmath.workdps(R.DPS):
        if kind == "far":
            return draw(FAR_EPS)
        m = draw(st.integers(1, 30))
        factor = {"near": 1 + mpmath.mpf(10) ** -m, "above": 1 + draw(st.integers(1, 50)),
                  "below": 1 - mpmath.mpf(10) ** -m}[kind]
        v = edge * factor
        return Fraction(int(v * mpmath.mpf(10) ** 60), 10**60) + Fraction(1, 10**60)


def _call(fn, *args):
    """(value, None) or (None, exception) for a documented error; anything else propagates."""
    try:
        return R.call_limited(fn, *args, seconds=SECONDS), None
    except DOCUMENTED as exc:
        return None, exc


def _check_safe(value, ref, rel=REL):
    with mpmath.workdps(R.DPS):
        v = R.as_mpf(value)
        assert v >= ref * (1 - mpmath.mpf(10) ** -50), f"unsafe: {v} < reference {ref}"
        assert v <= ref * (1 + rel), f"loose: {v} > reference {ref}"


def _reference(fn, *args):
    """(ref, 'ok') / (None, 'outside') / (None, 'gave-up')."""
    try:
        return fn(*args), "ok"
    except R.OutsideDomain:
        return None, "outside"
    except R.ReferenceGaveUp:
        return None, "gave-up"


def _differential(code_fn, ref_fn, args, ref_args=None, *, check=_check_safe):
    ref, status = _reference(ref_fn, *(ref_args or args))
    got, err = _call(code_fn, *args)
    if status == "outside":
        assert err is not None and isinstance(err, ValueError), f"accepted {args} outside domain"
        return
    if err is not None or status == "gave-up":
        if got is not None:
            with mpmath.workdps(R.DPS):
                assert 0 <= R.as_mpf(got) <= 1
        return
    check(got, ref)


# --- CP Thm 5 / Thm 6, TR Thm 6, CP Thm 1 --------------------------------------------------

@st.composite
def d_cases(draw, k=SMALL_K):
    beta = draw(BETAS)
    return draw(k), beta, draw(regime_eps(beta))


@settings(max_examples=examples(40))
@given(case=d_cases())
def test_d_matches_reference(case):
    k, beta, eps = case
    _differential(bounds.d, R.d, (k, beta, eps))


@settings(max_examples=examples(15))
@given(case=d_cases(LOG_K))
def test_d_large_k(case):
    k, beta, eps = case
    _differential(bounds.d, R.d, (k, beta, eps))


@settings(max_examples=examples(20))
@given(case=d_cases(), eps1=st.one_of(st.just(Fraction(0)), log_fraction(-40, 0)))
def test_d_safe_matches_reference(case, eps1):
    k, beta, eps = case
    _differential(bounds.d_safe, R.d_safe, (k, beta, eps + eps1, eps1))


@settings(max_examples=examples(40))
@given(case=d_cases(LOG_K))
def test_chernoff_matches_reference(case):
    k, beta, eps = case
    ref, status = _reference(R.chernoff_delta, k, beta, eps)
    got, err = _call(bounds.chernoff_delta, k, beta, eps)
    if status == "outside":
        assert isinstance(err, ValueError)
        return
    if err is not None or status == "gave-up":
        return
    _check_safe(got, ref)  # the closed form may exceed 1; it is checked as written


AMP_EPS = st.one_of(st.just(Fraction(0)), log_fraction(-300, 1),
                    st.sampled_from([Fraction(89), Fraction(10**30)]))


@settings(max_examples=examples(40))
@given(eps1=AMP_EPS, delta1=st.one_of(st.just(Fraction(0)), log_fraction(-40, 0)),
       b1=st.one_of(st.just(Fraction(1)), log_fraction(-40, -1)),
       r=st.one_of(st.just(Fraction(1)), log_fraction(-100, -1)))
def test_amplify_matches_reference(eps1, delta1, b1, r):
    b2 = b1 * r
    ref, status = _reference(R.amplify, eps1, delta1, b1, b2)
    got, err = _call(bounds.amplify, eps1, delta1, b1, b2)
    if status == "outside":
        assert isinstance(err, ValueError)
        return
    assert err is None or isinstance(err, CertificationError), err
    if err is not None:
        return
    e2, d2 = got
    with mpmath.workdps(R.DPS):
        _check_safe(e2, ref[0])
        _check_safe(d2, R.as_mpf(ref[1]))


# --- exact worst case of sampled strongly-safe k-anonymization ----------------------------

SDGS_BETAS = st.sampled_from([Fraction(1, 10), Fraction(1, 4), Fraction(1, 3), Fraction(1, 2),
                              Fraction(16, 25), Fraction(9, 10)])


SDGS_FIXED_EPS = st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(2)])
SDGS_DEFINITIONS = st.sampled_from(["hockey-stick", "pointwise"])


@st.composite
def sdgs_cases(draw):
    beta = draw(SDGS_BETAS)
    eps = draw(st.one_of(regime_eps(beta), SDGS_FIXED_EPS))
    return draw(st.integers(1, 6)), beta, eps, draw(SDGS_DEFINITIONS)


@settings(max_examples=examples(25))
@given(case=sdgs_cases())
def test_sdgs_matches_reference(case):
    k, beta, eps, definition = case
    if not R.in_regime(beta, eps):
        return  # outside the regime the reference is the O(n²) literal scan: deep run only
    _differential(exact.sdgs_delta, R.sdgs_delta, (k, beta, eps, definition))


@settings(max_examples=examples(3))
@given(k=st.integers(1, 3), beta=st.sampled_from([Fraction(1, 2), Fraction(1, 3)]),
       eps=st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 3)]),
       definition=st.sampled_from(["hockey-stick", "pointwise"]))
def test_sdgs_outside_regime_matches_literal_reference(k, beta, eps, definition):
    _differential(exact.sdgs_delta, R.sdgs_delta, (k, beta, eps, definition))


@pytest.mark.parametrize("k,beta,eps", [(3, Fraction(1, 2), Fraction(1)), (2, Fraction(1, 3), Fraction(1, 2)),
                                         (5, Fraction(1, 10), Fraction(1, 5))])
@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_reference_tail_form_agrees_with_literal_laws(k, beta, eps, definition):
    """Self-check of the reference: the regime's two-tail form equals the whole-law scan, and
    the run form of d equals the literal loop over n."""
    with mpmath.workdps(R.DPS):
        a, b = R.sdgs_delta(k, beta, eps, definition), R.sdgs_delta_literal(k, beta, eps, definition)
        assert abs(a - b) <= a * mpmath.mpf(10) ** -60
        a, b = R.d(k, beta, eps), R.d_by_n(k, beta, eps)
        assert abs(a - b) <= a * mpmath.mpf(10) ** -60


# --- inverse questions: extremality --------------------------------------------------------

def _ref_delta(bound: str):
    if bound == "paper":
        return R.d
    return lambda k, b, e: R.sdgs_delta(k, b, e, bound)


@settings(max_examples=examples(6))
@given(beta=st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]),
       eps_over=st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(2)]),
       delta=log_fraction(-8, -1), bound=st.sampled_from(["paper", "hockey-stick", "pointwise"]))
def test_min_k_is_minimal(beta, eps_over, delta, bound):
    eps = _above_edge(beta, eps_over)
    got, err = _call(bounds.min_k, beta, eps, delta, bound)
    if err is not None:
        return
    f = _ref_delta(bound)
    try:
        assert f(got, beta, eps) <= R._mp(delta), "min_k's answer does not meet delta"
        if got > 1:
            assert f(got - 1, beta, eps) > R._mp(delta), "min_k - 1 already meets delta"
    except (R.ReferenceGaveUp, R.OutsideDomain):
        return


def _above_edge(beta: Fraction, over: Fraction) -> Fraction:
    with mpmath.workdps(R.DPS):
        return Fraction(int(_edge(beta) * (1 + R._mp(over)) * 10**30), 10**30)


@settings(max_examples=examples(4))
@given(k=st.integers(1, 8), beta=st.sampled_from([Fraction(1, 2), Fraction(1, 4)]),
       delta=log_fraction(-6, -1), bound=st.sampled_from(["paper", "pointwise"]))
def test_min_epsilon_is_minimal(k, beta, delta, bound):
    tol = Fraction(1, 10**3)
    got, err = _call(bounds.min_epsilon, k, beta, delta, bound, tol)
    if err is not None:
        return
    f = _ref_delta(bound)
    with mpmath.workdps(R.DPS):
        e = R.as_mpf(got)
        ef = _exact(e)
        try:
            assert f(k, beta, ef) <= R._mp(delta), "min_epsilon's answer does not meet delta"
            nb = ef - tol - Fraction(1, 10**12)
            if nb > 0 and (bound != "paper" or R.in_regime(beta, nb)):
                assert f(k, beta, nb) > R._mp(delta), "epsilon - tol already meets delta"
        except (R.ReferenceGaveUp, R.OutsideDomain):
            return


@settings(max_examples=examples(4))
@given(k=st.integers(1, 8), eps=st.sampled_from([Fraction(1), Fraction(2), Fraction(1, 2)]),
       delta=log_fraction(-6, -1), bound=st.sampled_from(["paper", "pointwise"]))
def test_max_beta_is_maximal(k, eps, delta, bound):
    tol = Fraction(1, 10**3)
    got, err = _call(bounds.max_beta, k, eps, delta, bound, tol)
    if err is not None:
        return
    f = _ref_delta(bound)
    with mpmath.workdps(R.DPS):
        b = _exact(R.as_mpf(got))
        try:
            assert f(k, b, eps) <= R._mp(delta), "max_beta's answer does not meet delta"
            nb = b + tol + Fraction(1, 2**40)
            if nb < 1 and R.in_regime(nb, eps):
                assert f(k, nb, eps) > R._mp(delta), "beta + tol still meets delta"
        except (R.ReferenceGaveUp, R.OutsideDomain):
            return


def _exact(x: mpmath.mpf) -> Fraction:
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


# --- inputs that once gave a wrong value, a crash or a hang, each against the reference ------

F = Fraction


def _gives_up(*args):
    """Stands in for the reference where its literal O(n²) scan is too slow for CI: the case
    then checks bounded time and a value in [0, 1] or a documented error."""
    raise R.ReferenceGaveUp("not compared")


REPROS = [
    (bounds.chernoff_delta, R.chernoff_delta, (5, F("1e-40"), F("2e-40"))),
    (bounds.chernoff_delta, R.chernoff_delta, (5, F("1e-39"), F("3e-39"))),
    (bounds.d, R.d, (5, F(1, 2), F(89))),
    (exact.sdgs_delta, R.sdgs_delta, (5, F(1, 2), F(89))),
    (bounds.d, R.d, (5, F(1, 2), F(10**30))),
    (bounds.d, R.d, (5, F("1e-40"), F("2e-40"))),
    (bounds.d, R.d, (5, F("1e-12"), F("2e-12"))),
    (bounds.d, R.d, (20, F("1e-3"), F("1.5e-3"))),
    (bounds.d, R.d, (2, F("1e-4"), F("1.2e-4"))),
    (bounds.d, R.d, (10**6, F(1, 2), F(1))),
    (bounds.d, R.d, (500, F("0.123456789"), F(1))),
    (exact.sdgs_delta, _gives_up, (5, F("1e-12"), F("1e-13"))),  # bounded time only
]


@pytest.mark.parametrize("code_fn,ref_fn,args", REPROS,
                         ids=[f"{c.__name__}{a}" for c, _, a in REPROS])
def test_once_failing_inputs_against_reference(code_fn, ref_fn, args):
    _differential(code_fn, ref_fn, args)


@pytest.mark.parametrize("args", [(1, 0, 1, F("1e-100")), (F("1e-300"), 0, 1, 1)])
def test_amplify_relative_accuracy(args):
    got, err = _call(bounds.amplify, *args)
    assert err is None
    _check_safe(got[0], R.amplify(*map(F, args))[0])


def test_max_beta_large_epsilon_bounded():
    """max_beta(20, 100, 1e-6) crashed: now a value meeting delta or a documented error."""
    got, err = _call(bounds.max_beta, 20, 100, F("1e-6"))
    if err is None:
        assert R.d(20, _exact(R.as_mpf(got)), F(100)) <= R._mp(F("1e-6"))


def test_negative_control_rejects_wrong_values():
    """The comparisons can fail: d at the wrong ε, or a value rounded down, is rejected."""
    ref = R.d(3, F(1, 2), F(1))
    with pytest.raises(AssertionError):
        _check_safe(bounds.d(3, F(1, 4), F(1)), ref)
    with mpmath.workdps(R.DPS):
        with pytest.raises(AssertionError):
            _check_safe(ref * (1 - mpmath.mpf(10) ** -20), ref)
        with pytest.raises(AssertionError):
            _check_safe(ref * (1 + mpmath.mpf(10) ** -6), ref)


@pytest.mark.deep
def test_d_huge_k_near_edge_bounded_time():
    """Found by the deep fuzz run (was > 5 s): now CP Thm 5's d by runs of equal threshold,
    about 4300 runs in ball arithmetic (measures/long_range.py), well under the limit.  Deep
    profile only (about 1 s): by default the same lines of d's run route are reached by this
    file's d tests and by tests/test_worstcase_bounded_runs.py, whose tiny-beta cases also
    bound the route's work (the walk budget)."""
    eps = Fraction(7598530806880350757259371800458401885083634912474950820909983, 10**60)
    R.call_limited(bounds.d, 10**6, Fraction(999, 1000), eps, seconds=5)
