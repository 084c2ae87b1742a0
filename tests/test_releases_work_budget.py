"""Work estimates of the release accountants made from T before any work: a number of releases,
a grid or an exact composition past its budget is refused with one CertificationError naming T
and the budget (never a hang, a numpy size error or a float overflow), and the budgets are
enforced exactly at their boundaries."""

from fractions import Fraction as F

import pytest

from dps_verify.core.errors import CertificationError
from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse.releases import _pair_plds, releases_delta
from dps_verify.measures.pld import PrivacyLossDistribution as PLD

PAIR = _pair_plds(5, 3, F(1, 4))[0]  # three finite atoms and mass at +inf


def test_releases_delta_refuses_astronomic_times_at_once() -> None:
    with pytest.raises(CertificationError, match=r"times = about 10\^30 releases.*MAX_RELEASES"):
        releases_delta(3, F(1, 4), 1, 10**30)
    with pytest.raises(CertificationError, match="times = 1000000001 releases"):
        releases_delta(3, F(1, 4), 1, D.MAX_RELEASES + 1)


def test_releases_delta_refuses_too_many_releases_before_any_enclosure_or_bound(monkeypatch) -> None:
    # the refusal comes from the estimate made from T alone: no enclosure, cheap bound or
    # float screen is started first (each would be work past the budget)
    from dps_verify.inverse import releases as R

    def no_work(*a, **kw):  # type: ignore[no-untyped-def]
        raise AssertionError("work started before the releases budget was checked")

    for name in ("pair_delta_enclosure", "_thresholded_bound", "_screen_delta", "_untruncated_bound"):
        monkeypatch.setattr(R, name, no_work)
    for method in ("screen", "scan"):
        with pytest.raises(CertificationError, match="MAX_RELEASES"):
            R.releases_delta(3, F(1, 4), 1, D.MAX_RELEASES + 1, method=method)
    with pytest.raises(CertificationError, match="MAX_RELEASES"):
        R.releases_delta(3, F(1, 4), 1, D.MAX_RELEASES + 1, n_max=5)


@pytest.mark.parametrize("times", [0, -2, 2.0, True, "3"])
def test_releases_delta_refuses_a_number_of_releases_that_is_not_a_positive_integer_before_any_work(
        monkeypatch, times: object) -> None:
    # one ParameterError line naming times, on every route, before any enclosure, cheap bound
    # or float screen is started
    from dps_verify.core.errors import ParameterError
    from dps_verify.inverse import releases as R

    def no_work(*a, **kw):  # type: ignore[no-untyped-def]
        raise AssertionError("work started before the number of releases was checked")

    for name in ("pair_delta_enclosure", "_thresholded_bound", "_screen_delta", "_untruncated_bound",
                 "check_releases_budget"):
        monkeypatch.setattr(R, name, no_work)
    for kw in ({"method": "screen"}, {"method": "scan"}, {"n_max": 5}):
        with pytest.raises(ParameterError, match="times must be an integer >= 1") as e:
            R.releases_delta(3, F(1, 4), 1, times, **kw)  # type: ignore[arg-type]
        assert "\n" not in str(e.value)


def test_the_releases_budget_is_enforced_exactly_at_its_boundary() -> None:
    D.check_releases_budget(D.MAX_RELEASES)  # at the budget: accepted
    with pytest.raises(CertificationError, match="MAX_RELEASES"):
        D.check_releases_budget(D.MAX_RELEASES + 1)


def test_enclose_delta_refuses_times_beyond_a_double_with_one_line() -> None:
    with pytest.raises(CertificationError, match=r"times = about 10\^320 releases") as e:
        D.enclose_delta(PAIR, 1, 10**320)
    assert "\n" not in str(e.value)


def test_discretised_delta_refuses_a_grid_whose_single_release_exceeds_max_bins() -> None:
    with pytest.raises(CertificationError, match=r"times = about 10\^200 .*one release alone needs"):
        D.discretised_delta(PAIR, 1, 10**200, -60)
    # boundary: the one-release vector of this grid has L bins; max_bins = L - 1 is refused by
    # the estimate, max_bins = L is not (the T = 1 window, a power of two >= L, then decides)
    r0, idx = D._indices(PAIR, -20)
    length = max(j for _, j in idx.values()) - min(i for i, _ in idx.values()) + 1
    with pytest.raises(CertificationError, match=f"one release alone needs {length} bins"):
        D.discretised_delta(PAIR, 1, 1, -20, max_bins=length - 1)
    try:
        c = D.discretised_delta(PAIR, 1, 1, -20, max_bins=length)
    except CertificationError as e:
        assert "one release alone" not in str(e)
    else:
        assert c.lower <= c.upper


def test_discretised_delta_refuses_times_past_the_float_window_estimate() -> None:
    with pytest.raises(CertificationError, match=r"about 10\^320 releases: .*2\^1000"):
        D.discretised_delta(PAIR, 1, 10**320, -8)
    # the limit is the 2^1000 its message names: one release more is refused by it, while at
    # 2^1000 the estimate runs (and the window is then too big for max_bins)
    with pytest.raises(CertificationError, match=r"at most 2\^1000 releases"):
        D.discretised_delta(PAIR, 1, 2**1000 + 1, -8)
    with pytest.raises(CertificationError) as e:
        D.discretised_delta(PAIR, 1, 2**1000, -8)
    assert "2^1000" not in str(e.value) and "max_bins" in str(e.value)


def test_exact_bits_estimate_bounds_the_composed_numbers() -> None:
    one = PLD({F(3, 2): F(3, 4)}, F(1, 4))
    for pld in (PAIR, one):
        for t in (1, 2, 3, 5):
            composed = pld.self_compose(t)
            bits = max(x.numerator.bit_length() + x.denominator.bit_length()
                       for r, p in composed.ratios.items() for x in (r, p))
            assert bits <= D.exact_bits_estimate(pld, t)


def test_exact_composition_past_the_bits_budget_is_costed_past_every_budget() -> None:
    one = PLD({F(3, 2): F(3, 4)}, F(1, 4))  # one ratio: the product count stays 1, the bits grow
    t = D.EXACT_BITS_BUDGET // D.exact_bits_estimate(one, 1)
    assert D.exact_compose_cost(one, t) <= D.EXACT_COST_BUDGET
    assert D.exact_compose_cost(one, t + 1) > 10**18
    c = D.enclose_delta(one, F(1, 2), t + 1)  # so the exact route is not taken there
    assert c.details.get("mode") != "exact" and c.lower <= c.upper


def test_the_exact_route_is_taken_exactly_up_to_its_cost_budget() -> None:
    times = 2
    cost = D.exact_compose_cost(PAIR, times)
    exact = PAIR.self_compose(times).delta_certified(1)
    (at,) = D.enclose_deltas([PAIR], 1, times, exact_budget=cost)
    assert at.details["mode"] == "exact" and (at.lower, at.upper) == (exact.lower, exact.upper)
    (below,) = D.enclose_deltas([PAIR], 1, times, exact_budget=cost - 1)
    assert below.details.get("mode") != "exact"
    assert below.lower <= exact.lower and exact.upper <= below.upper


def test_a_refused_number_of_releases_is_written_in_full_up_to_twenty_digits() -> None:
    # twenty digits in full, twenty-one as "about 10^20" (the message stays one short line)
    with pytest.raises(CertificationError, match=r"times = 10000000000000000000 releases exceeds"):
        D.check_releases_budget(10**19)
    with pytest.raises(CertificationError, match=r"times = about 10\^20 releases exceeds"):
        D.check_releases_budget(10**20)
