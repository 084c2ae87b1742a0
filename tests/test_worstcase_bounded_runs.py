"""Every worst-case δ run is bounded: tiny β and ε inside CP Thm 5's regime, huge k, ε past
the float range.  Each case answers (checked against an independent route) or refuses with a
:class:`BudgetError` (exit 5) naming the option, never an internal error.

No timing assertions: where the old behaviour was a walk of tens of thousands of group sizes,
the test caps the exact walk by a work budget (a count of per-n values offered to the running
maximum) and checks the answer comes from a bounded path.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from functools import cache

import pytest

from dps_verify.cli import main
from dps_verify.core.errors import BudgetError
from dps_verify.core.numbers import format_down, format_up
from dps_verify.worstcase import sdgs
from dps_verify.worstcase.closed_forms import d_certified
from dps_verify.worstcase.sdgs import sdgs_delta_certified

#: Most per-n values the exact walk may offer in these tests (the tiny-β cases below need
#: 10^4–10^5 group sizes on the exact walk; the bounded paths offer none).
WALK_BUDGET = 500


@pytest.fixture
def walk_budget(monkeypatch):
    """Fail the test (instead of running for minutes) once the exact walk over group sizes
    offers (or screens out) more than WALK_BUDGET values."""
    calls = {"n": 0}
    offer, below = sdgs._Best.offer, sdgs._hs_below_best

    def count() -> None:
        calls["n"] += 1
        if calls["n"] > WALK_BUDGET:
            raise AssertionError(f"exact walk over group sizes past {WALK_BUDGET} values")

    def counted_offer(self, lo, hi, den, n):
        count()
        return offer(self, lo, hi, den, n)

    def counted_below(*args):
        count()
        return below(*args)

    monkeypatch.setattr(sdgs._Best, "offer", counted_offer)
    monkeypatch.setattr(sdgs, "_hs_below_best", counted_below)
    return calls


# (k, β, ε, hockey-stick δ from the exact walk over n (one slow run, kept as the reference))
TINY_BETA_CASES = [
    (62, "2e-04", "1.18287e-03", 6.091624448480788e-36),
    (14, "2.78e-05", "1.28e-04", 2.455505155193747e-12),
]


@pytest.mark.parametrize("k,beta,eps,hs_ref", TINY_BETA_CASES)
def test_tiny_beta_and_epsilon_inside_the_regime_answer_within_a_work_budget(walk_budget, k, beta, eps, hs_ref):
    hs = sdgs_delta_certified(k, beta, eps, "hockey-stick")
    pw = sdgs_delta_certified(k, beta, eps, "pointwise")
    d = d_certified(k, beta, eps)
    assert 0 < hs.lower <= hs.upper and hs.upper - hs.lower <= hs.upper * Fraction(1, 10**15)
    assert abs(float(hs.upper) / hs_ref - 1) < 1e-12
    # independent routes agree: inside CP Thm 5's regime the pointwise δ is the paper's d
    # (segments of constant bad set vs runs of equal threshold)
    assert pw.lower <= d.upper and d.lower <= pw.upper
    assert hs.upper <= pw.upper  # hockey-stick ≤ pointwise


def test_the_walk_budget_fixture_can_fail(walk_budget):
    """Negative control: the exact walk, forced, trips the fixture on the tiny-β case."""
    with pytest.raises(AssertionError, match="exact walk over group sizes"):
        sdgs.scan(62, Fraction("2e-04"), Fraction("1.18287e-03"), measure="hockey-stick", long_range=False)


@pytest.mark.parametrize("eps", ["1e309", "1e400", Fraction(10**1000)])
@pytest.mark.parametrize("measure", ["hockey-stick", "pointwise"])
def test_epsilon_past_the_float_range_gives_beta_to_the_k(eps, measure):
    """For ε this large only the outcome 'all k sampled' is bad, at n = k: δ = β^k exactly."""
    assert sdgs_delta_certified(5, "0.3", eps, measure).upper == Fraction(3, 10) ** 5
    assert d_certified(5, "0.3", eps).upper == Fraction(3, 10) ** 5


@pytest.mark.parametrize("eps", ["1e309", "1e400"])
def test_cli_delta_at_epsilon_past_the_float_range_exits_0(eps, capsys):
    assert main(["delta", "--k", "5", "--beta", "0.5", "--epsilon", eps]) == 0
    assert "3.125000e-02" in capsys.readouterr().out


@pytest.mark.parametrize("k", [10**9, 10**12])
def test_huge_k_is_refused_before_any_work_naming_the_option(k):
    with pytest.raises(BudgetError, match="--k"):
        sdgs_delta_certified(k, "0.5", 1, "hockey-stick")
    with pytest.raises(BudgetError, match="MAX_VALUE_BITS"):
        d_certified(k, "0.5", 1)


def test_cli_huge_k_exits_5_with_one_line(capsys):
    assert main(["delta", "--k", str(10**12), "--beta", "0.5", "--epsilon", "1"]) == 5
    err = capsys.readouterr().err
    assert "--k" in err and err.count("\n") == 1


@pytest.mark.deep
def test_k_ten_million_answers_on_bounded_paths(walk_budget):
    """k = 10^7 (3 s): segments of constant bad set for both measures, runs of equal threshold
    for d, under the walk budget.  Deep profile only: by default the tiny-β cases above take
    the same bounded routes (sdgs_by_segments, d_by_runs) under the same budget, and
    tests/test_long_range_reference.py::test_segment_estimate_counts_the_first_segment reaches
    the segment scan's work-estimate branch that this case also reaches."""
    hs = sdgs_delta_certified(10**7, "0.5", 1, "hockey-stick")
    pw = sdgs_delta_certified(10**7, "0.5", 1, "pointwise")
    d = d_certified(10**7, "0.5", 1)
    assert format_up(d.upper, 7) == "1.818448e-1148628"
    assert format_up(hs.upper, 7) == "7.046523e-1148635"
    assert pw.lower <= d.upper and d.lower <= pw.upper


@cache
def _exact_decimal(n: int) -> Decimal:
    """``Decimal(n)``, exact whatever the context; remembered (the 20,000- to 50,000-digit
    integers below took ~0.1 s per conversion, six conversions per value)."""
    return Decimal(n)


def _decimal_reference(x: Fraction, digits: int, up: bool) -> str:
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_CEILING if up else ROUND_FLOOR
        ctx.Emin, ctx.Emax = -(10**9), 10**9
        v = _exact_decimal(x.numerator) / _exact_decimal(x.denominator)
    t = v.as_tuple()
    ds = "".join(map(str, t.digits)).ljust(digits, "0")[:digits]
    e = len(t.digits) - 1 + int(t.exponent)
    return f"{ds[0]}.{ds[1:]}e{e:+03d}" if digits > 1 else f"{ds}e{e:+03d}"


@pytest.mark.parametrize(
    "x",
    [
        Fraction(3468, 10**616),
        Fraction(1, 3),
        Fraction(999999, 10**6),
        Fraction(10**20 - 1, 10**20),
        Fraction(10**20 + 1),
        Fraction(1, 2**100000),
        Fraction(3**40000, 7**60000),
        Fraction(1),
    ],
)
@pytest.mark.parametrize("digits", [1, 4, 7])
def test_format_up_and_down_match_decimal_rounding(x, digits):
    assert format_up(x, digits) == _decimal_reference(x, digits, up=True)
    assert format_down(x, digits) == _decimal_reference(x, digits, up=False)


@pytest.mark.parametrize("inf", [float("inf"), "inf", "Infinity", "+inf"])
@pytest.mark.parametrize("k,beta", [(1, "0.5"), (5, "0.3"), (20, "0.1")])
def test_epsilon_inf_is_the_limit_computed_at_huge_epsilon(inf, k, beta):
    """ε = ∞ gives the limit ε → ∞, and it equals what the scans compute at ε = 1e400."""
    at_huge = {
        "paper": d_certified(k, beta, "1e400"),
        "hockey-stick": sdgs_delta_certified(k, beta, "1e400", "hockey-stick"),
        "pointwise": sdgs_delta_certified(k, beta, "1e400", "pointwise"),
    }
    at_inf = {
        "paper": d_certified(k, beta, inf),
        "hockey-stick": sdgs_delta_certified(k, beta, inf, "hockey-stick"),
        "pointwise": sdgs_delta_certified(k, beta, inf, "pointwise"),
    }
    for name in at_inf:
        assert at_inf[name].lower == at_inf[name].upper == at_huge[name].upper == Fraction(beta) ** k
        assert "limit epsilon -> inf" in at_inf[name].how


def test_epsilon_inf_with_beta_edge_is_refused():
    from dps_verify.core.errors import ParameterError

    with pytest.raises(ParameterError, match="edge"):
        d_certified(5, "edge", "inf")


def test_cli_delta_at_epsilon_inf_prints_the_limit(capsys):
    assert main(["delta", "--k", "5", "--beta", "0.3", "--epsilon", "inf", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["epsilon"] == "inf"
    for name in ("paper_d", "exact_hockey_stick", "exact_pointwise"):
        assert data[name]["value"] == "2.430000e-03" and "limit epsilon -> inf" in data[name]["certified"]


@pytest.mark.parametrize(
    "argv",
    [
        ["delta", "--k", "5", "--beta", "edge", "--epsilon", "inf"],
        ["delta", "--k", "5", "--beta", "0.3", "--epsilon", "inf", "--releases", "3"],
        ["delta", "--min-k", "--beta", "0.3", "--epsilon", "inf", "--delta", "1e-5"],
    ],
)
def test_cli_epsilon_inf_without_a_limit_is_one_line_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
