"""The divergences of measures/divergence.py against the laws they are defined on, on the paths the
other tests reach rarely: two product laws that differ in more than one group (the cancellation
of the shared groups, without which the joint law would be expanded), each function checked
against the same measure of the expanded laws of only the differing groups (CP Def. 2,
TR Def. 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dps_verify
from dps_verify.measures.divergence import (
    delta_certified,
    delta_exceeds,
    epsilon,
    pointwise_delta_exact,
)
from dps_verify.mechanisms import StronglySafeKAnonymizer


def _group(r: int) -> int:
    return r % 16


ANON = StronglySafeKAnonymizer(_group, 2)
DATA = list(range(16 * 6))  # 16 groups of 6 records: 7^16 joint outputs, far past the budget
BETA = Fraction(1, 2)


@pytest.fixture(scope="module")
def pairs():
    """(P, Q) over all 16 groups, differing in groups 0 and 1 (records 0 and 1 removed), and the
    expanded laws of those two groups alone (the reference)."""
    P = dps_verify.distribution(ANON, DATA, BETA)
    Q = dps_verify.distribution(ANON, DATA[2:], BETA)
    two = [r for r in DATA if _group(r) in (0, 1)]
    Pr = dict(dps_verify.distribution(ANON, two, BETA).expand())
    Qr = dict(dps_verify.distribution(ANON, two[2:], BETA).expand())
    return P, Q, Pr, Qr


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 2), Fraction(1)])
def test_measures_of_product_laws_differing_in_two_groups_cancel_the_shared_ones(pairs, eps):
    """Every measure cancels the 14 shared groups (expanding them would be refused)."""
    P, Q, Pr, Qr = pairs
    ref = delta_certified(Pr, Qr, eps)
    assert delta_certified(P, Q, eps) == ref
    assert pointwise_delta_exact(P, Q, eps) == pointwise_delta_exact(Pr, Qr, eps)
    assert epsilon(P, Q, Fraction(1, 2)) == epsilon(Pr, Qr, Fraction(1, 2))
    # delta_exceeds on both sides of the value
    assert delta_exceeds(P, Q, eps, ref.lower - Fraction(1, 10**9))
    assert not delta_exceeds(P, Q, eps, ref.upper + Fraction(1, 10**9))


@pytest.mark.parametrize("d", [Fraction(0), Fraction(1, 64), Fraction(1, 30), Fraction(1, 10), Fraction(1, 5)])
def test_epsilon_of_product_laws_differing_in_one_group_equals_the_expanded_one(d):
    """The segments path (one differing group): finite ε, and ∞ when the mass at infinite loss
    exceeds δ, as for the expanded laws of that group."""
    small = [r for r in DATA if _group(r) in (0, 1)]
    P = dps_verify.distribution(ANON, DATA, BETA)
    Q = dps_verify.distribution(ANON, DATA[1:], BETA)  # record 0 removed: group 0 differs
    Pr = dict(dps_verify.distribution(ANON, small, BETA).expand())
    Qr = dict(dps_verify.distribution(ANON, small[1:], BETA).expand())
    assert epsilon(P, Q, d) == epsilon(Pr, Qr, d)
    assert epsilon(Q, P, d) == epsilon(Qr, Pr, d)


def test_epsilon_walks_the_likelihood_ratios_down_to_one():
    """least x = e^ε with Σ max(0, P − xQ) ≤ δ, against the brute force over the ratios."""
    from dps_verify.measures.divergence import least_exp_for_delta

    segs = [(Fraction(3), Fraction(3, 10), Fraction(1, 10)), (Fraction(3, 2), Fraction(3, 10),
                                                              Fraction(1, 5))]

    def delta_at(x):  # hockey-stick mass of the segments at e^ε = x, from the definition
        return sum(max(Fraction(0), a - x * b) for _, a, b in segs)

    for d in (Fraction(0), Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(2, 5)):
        x = least_exp_for_delta(segs, Fraction(0), d)
        assert x >= 1 and delta_at(x) <= d
        assert x == 1 or delta_at(x - Fraction(1, 10**9)) > d  # least
    assert least_exp_for_delta(segs, Fraction(1, 10), Fraction(1, 20)) is None


def test_measure_refuses_an_unknown_definition():
    from dps_verify.core.errors import ParameterError
    from dps_verify.measures.divergence import measure

    with pytest.raises(ParameterError, match="definition"):
        measure({0: 1}, {0: 1}, 1, "pointwize")


def test_float32_probabilities_get_the_float_tolerance_and_exact_ones_none():
    """Two float32 values whose exact sum is 1 + 2e-17 (binary rounding): accepted as a law given
    in floating point (tolerance 1e-12), refused when the same numbers are given exactly."""
    import numpy as np

    from dps_verify.core.errors import ParameterError
    from dps_verify.core.numbers import to_fraction

    a = np.float32(0.13436425)
    b = np.float32(1 - float(a))
    exact = to_fraction(a) + to_fraction(b)
    assert 1 < exact <= 1 + Fraction(1, 10**12)
    assert delta_certified({0: a, 1: b}, {0: a, 1: b}, 0).upper == 0
    with pytest.raises(ParameterError, match="sum to at most 1"):
        delta_certified({0: to_fraction(a), 1: to_fraction(b)}, {0: Fraction(1)}, 0)
    with pytest.raises(ParameterError, match="sum to at most 1"):  # numpy integers are exact
        delta_certified({0: np.int64(1), 1: np.int64(1)}, {0: Fraction(1)}, 0)


def test_delta_at_epsilon_zero_is_the_total_variation_distance():
    """ε = 0: hockey-stick δ = Σ max(0, P − Q) (the exact shortcut of e^0 = 1 ≥ r for r ≤ 1)."""
    P = {0: Fraction(1, 2), 1: Fraction(1, 3), 2: Fraction(1, 6)}
    Q = {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
    tv = sum(max(Fraction(0), P[y] - Q[y]) for y in P)
    c = delta_certified(P, Q, 0)
    assert c.lower == c.upper == tv
    assert delta_exceeds(P, Q, 0, tv - Fraction(1, 10**12)) and not delta_exceeds(P, Q, 0, tv)


def test_a_huge_likelihood_ratio_below_e_to_a_huge_epsilon_is_decided_without_enclosing_it():
    """ε = 1050000 and a ratio r = 2^1499999 (b = 1500000 bits, ε = 0.7·b exactly): e^ε > 2^ε·1.44
    > r, which the bit-length bound decides at once; e^ε itself is too large to enclose
    (|ε| > 2^20), so a weaker shortcut would refuse instead of answering."""
    tiny = Fraction(1, 2**1499999)
    P, Q = {0: Fraction(1)}, {0: tiny, 1: 1 - tiny}
    c = delta_certified(P, Q, 1050000)
    assert c.lower == c.upper == 1 - tiny  # only output 1 (P = 0 there) is bad, from Q's side
    assert not delta_exceeds(P, Q, 1050000, 1 - tiny) and delta_exceeds(P, Q, 1050000, 1 - 2 * tiny)


# ---- epsilon of plain laws: the least e^ε from the definition, by brute force over bad sets ----


def _hs_one(P: dict, Q: dict, x: Fraction) -> Fraction:
    """Σ_y max(0, P(y) − x·Q(y)) (CP Def. 2, one direction, e^ε = x), exactly."""
    return sum((max(Fraction(0), pv - x * Q.get(y, Fraction(0))) for y, pv in P.items()),
               Fraction(0))


def _least_x_brute(P: dict, Q: dict, d: Fraction) -> Fraction | None:
    """Least x ≥ 1 with max of both directions' δ(x) ≤ d, or None.  δ is continuous and
    non-increasing in x, so the least x is 1 or a point where a direction's δ equals d, where it
    is A_S − x·B_S for its bad set S: x = (A_S − d)/B_S for some subset S of the outputs.  Every
    subset is tried (tiny laws), and the least candidate meeting d is the answer."""
    ys = sorted(set(P) | set(Q), key=repr)
    cands = {Fraction(1)}
    for X, Y in ((P, Q), (Q, P)):
        for mask in range(1, 2 ** len(ys)):
            S = [y for i, y in enumerate(ys) if mask >> i & 1]
            A = sum((X.get(y, Fraction(0)) for y in S), Fraction(0))
            B = sum((Y.get(y, Fraction(0)) for y in S), Fraction(0))
            if B > 0 and (A - d) / B >= 1:
                cands.add((A - d) / B)
    ok = [x for x in cands if max(_hs_one(P, Q, x), _hs_one(Q, P, x)) <= d]
    return min(ok) if ok else None


EPS_LAWS = [
    # infinite loss 1/4 (output 2) beside a ratio 2 (output 0); the reverse direction has ratio 3
    ({0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}, {0: Fraction(1, 4), 1: Fraction(3, 4)}),
    # infinite loss 1/2 and no finite ratio above 1
    ({0: Fraction(1, 2), 1: Fraction(1, 2)}, {0: Fraction(1)}),
    ({0: Fraction(1, 7), 1: Fraction(2, 7), 2: Fraction(4, 7)},
     {0: Fraction(1, 7), 1: Fraction(4, 7), 3: Fraction(2, 7)}),
    # a sub-probability law with an output of mass 0 on one side and ratio exactly 1 on another
    ({"a": Fraction(3, 5), "b": Fraction(1, 5), "c": Fraction(0)},
     {"a": Fraction(1, 5), "b": Fraction(1, 5), "c": Fraction(1, 2)}),
]


@pytest.mark.parametrize("P, Q", EPS_LAWS)
def test_epsilon_of_plain_laws_is_the_least_e_to_the_eps_meeting_delta(P, Q):
    import mpmath

    ds = {Fraction(0), Fraction(1, 100), Fraction(1, 10), Fraction(1, 5), Fraction(1, 2),
          Fraction(7, 10), Fraction(1)}
    # each direction's mass at infinite loss, exactly at and just around it (None / finite edge)
    for X, Y in ((P, Q), (Q, P)):
        inf = sum((v for y, v in X.items() if v > 0 and Y.get(y, 0) == 0), Fraction(0))
        ds |= {inf, inf + Fraction(1, 10**9), max(Fraction(0), inf - Fraction(1, 10**9))}
    for d in sorted(ds):
        x = _least_x_brute(P, Q, d)
        got = epsilon(P, Q, d)
        if x is None:
            assert got == mpmath.inf, d
            continue
        with mpmath.workdps(60):
            ln_x = mpmath.log(mpmath.mpf(x.numerator) / x.denominator)
            assert ln_x <= got <= ln_x + mpmath.mpf(2) ** -45 * max(1, ln_x), (d, x, got)
        assert x > 1 or got == 0


def test_delta_certified_names_an_enclosure_unless_both_directions_are_exact():
    """At e^1 one direction's bad set is empty (δ = 0 exactly), the other's is {0} with Q-mass:
    δ = 1/2 − e/10, an enclosure, which must not be labelled exact rational arithmetic."""
    P, Q = {0: Fraction(1, 2), 1: Fraction(1, 2)}, {0: Fraction(1, 10), 1: Fraction(9, 10)}
    for a, b in ((P, Q), (Q, P)):  # the inexact direction first, then second
        c = delta_certified(a, b, 1)
        e_lo, e_hi = Fraction(2718281828, 10**9), Fraction(2718281829, 10**9)  # e within
        assert c.lower < c.upper and c.lower <= Fraction(1, 2) - e_lo / 10
        assert c.upper >= Fraction(1, 2) - e_hi / 10 and c.upper - c.lower < Fraction(1, 10**9)
        assert "interval" in c.how
    c = delta_certified(P, Q, 0)  # both exact at e^0 = 1: the total variation distance
    assert c.lower == c.upper == Fraction(2, 5) and c.how == "exact rational arithmetic"


def test_bad_sets_hold_only_outputs_p_produces():
    """The bad set (a witness event) lists the outputs with P(y) > e^ε Q(y): an output of P-mass
    0 is never in it, even where Q is 0 too."""
    from dps_verify.measures.divergence import _bad_set_forward

    P = {0: Fraction(1, 2), 1: Fraction(0), 2: Fraction(1, 2), 3: Fraction(0)}
    Q = {0: Fraction(1, 10), 1: Fraction(0), 2: Fraction(9, 10)}
    for eps in (Fraction(0), Fraction(1)):
        assert sorted(_bad_set_forward(P, Q, eps)) == [0]
    assert sorted(_bad_set_forward(P, Q, Fraction(2))) == []
    assert sorted(_bad_set_forward(P, {}, Fraction(2))) == [0, 2]


def test_epsilon_defaults_to_delta_zero_and_refuses_a_negative_delta():
    from dps_verify.core.errors import ParameterError

    P, Q = EPS_LAWS[2]
    assert epsilon(P, Q) == epsilon(P, Q, 0) == epsilon(P, Q, Fraction(0))
    assert epsilon(Q, Q) == 0  # δ = 0 at ε = 0: the least ε is 0, not refused
    with pytest.raises(ParameterError, match="delta"):
        epsilon(P, Q, -Fraction(1, 10**9))


# ---- the law's total mass: the float tolerance is exactly 1e-12 and only for floats ------------


def test_the_float_mass_tolerance_is_one_part_in_ten_to_the_twelve():
    import numpy as np

    from dps_verify.core.errors import ParameterError

    q = {0: Fraction(1)}
    # binary floats whose exact sum is 1 + 5e-13 (accepted) and 1 + 1.5e-12 (refused)
    for excess, ok in ((5e-13, True), (1.5e-12, False), (0.0, True)):
        p = {0: 0.5, 1: 0.5 + excess}
        total = sum(Fraction(v) for v in p.values())
        assert abs(total - 1 - Fraction(excess)) < Fraction(1, 10**15)
        if ok:
            assert delta_certified(p, q, 0).upper <= 1
        else:
            with pytest.raises(ParameterError, match="sum to at most 1"):
                delta_certified(p, q, 0)
    # exact values get no tolerance, also beside a numpy integer (an exact type)
    for p in ({0: Fraction(1), 1: Fraction(1, 10**13)}, {0: np.int64(1), 1: Fraction(1, 10**13)}):
        with pytest.raises(ParameterError, match="sum to at most 1"):
            delta_certified(p, q, 0)
    assert delta_certified({0: np.int64(1)}, q, 0).upper == 0


# ---- e^ε against a ratio: the exact shortcuts at their edges ----------------------------------


def _mp(x: Fraction):
    import mpmath

    return mpmath.mpf(x.numerator) / x.denominator


def test_a_ratio_just_above_e_to_the_eps_below_the_bit_length_shortcut():
    """r = 2^40 − 1 (b = 40 bits) and ε = 27.7 < ln r ≈ 27.726: e^ε < r, so output 0 is bad.
    ε is above 0.6·b, 0.64·b and 0.7·39, so a weaker factor than ln 2 < 0.7 (or one bit fewer)
    would call it good; the exact comparison must run.  Reference: δ at 120 digits."""
    import mpmath

    n = 2**40
    P = {0: Fraction(n - 1, n), 1: Fraction(1, n)}
    Q = {0: Fraction(1, n), 1: Fraction(n - 1, n)}
    eps = Fraction(277, 10)
    with mpmath.workdps(120):
        ref = _mp(P[0]) - mpmath.exp(_mp(eps)) * _mp(Q[0])
        assert ref > 0
        c = delta_certified(P, Q, eps)
        assert _mp(c.lower) <= ref <= _mp(c.upper) and c.upper - c.lower < Fraction(1, 10**15)
    assert pointwise_delta_exact(P, Q, eps) == 1  # both outputs: loss ±ln r, beyond ±ε
    assert delta_exceeds(P, Q, eps, c.lower - Fraction(1, 10**20))
    assert not delta_exceeds(P, Q, eps, c.upper)


def test_a_likelihood_ratio_equal_to_e_to_the_eps_is_not_a_violation():
    """ε = ln 2 exactly and P(0)/Q(0) = 2: P(0) > e^ε Q(0) is false (CP Def. 2 and TR Def. 2 count
    only strict excess), so δ = 0 under both definitions; just below ln 2 output 0 is bad."""
    P = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    Q = {0: Fraction(1, 4), 1: Fraction(3, 4)}
    c = delta_certified(P, Q, "ln(2)")
    assert c.lower == c.upper == 0
    assert pointwise_delta_exact(P, Q, "ln(2)") == 0
    assert not delta_exceeds(P, Q, "ln(2)", 0)
    below = Fraction(69, 100)  # < ln 2 = 0.6931…
    assert pointwise_delta_exact(P, Q, below) == Fraction(1, 2)
    assert delta_exceeds(P, Q, below, 0)


def test_a_ratio_of_exactly_one_plus_a_tiny_eps_is_decided_without_enclosing_e_to_the_eps():
    """ε = 2^-20000 and P(0)/Q(0) = 1 + ε exactly: e^ε ≥ 1 + ε decides it (not bad) at once; e^ε
    exceeds 1 + ε by only about ε²/2 = 2^-40001, beyond the 2^15-bit limit of the interval
    comparison, which would refuse.  δ = 0 under both definitions."""
    eps = Fraction(1, 2**20000)
    P = {0: (1 + eps) / 4, 1: 1 - (1 + eps) / 4}
    Q = {0: Fraction(1, 4), 1: Fraction(3, 4)}
    assert P[0] / Q[0] == 1 + eps and Q[1] / P[1] < 1 + eps
    c = delta_certified(P, Q, eps)
    assert c.lower == c.upper == 0
    assert pointwise_delta_exact(P, Q, eps) == 0 and not delta_exceeds(P, Q, eps, 0)


def test_a_delta_unresolvable_in_both_directions_keeps_a_lower_end_of_zero():
    """P(0)/Q(0) = Q(1)/P(1) above e by about e·2^-16500, far below what 2^14 bits of e^1
    resolve: both directions' enclosures of mass − e·mass straddle 0 at the precision cap; the
    lower end of δ is still 0 (a δ is never negative), the upper end positive."""
    import mpmath

    k = 16500
    with mpmath.workprec(k + 200):
        num = int(mpmath.ceil(mpmath.e * 2**k)) + 1
    scale = 4 * 2**k
    P = {0: Fraction(num, scale), 1: Fraction(2**k, scale)}
    Q = {0: Fraction(2**k, scale), 1: Fraction(num, scale)}
    c = delta_certified(P, Q, 1)
    assert c.lower == 0 < c.upper < Fraction(1, 2**100)


def test_exact_law_objects_get_no_float_tolerance():
    """A law given as the engine's exact objects (ExactDistribution) holds Fractions: its total
    mass may not exceed 1 at all (the 1e-12 tolerance is only for binary floats)."""
    from dps_verify.core.errors import ParameterError
    from dps_verify.engine.distribution import ExactDistribution

    over = ExactDistribution({0: Fraction(1, 2), 1: Fraction(1, 2) + Fraction(1, 10**13)})
    with pytest.raises(ParameterError, match="sum to at most 1"):
        delta_certified(over, {0: Fraction(1)}, 0)
    ok = ExactDistribution({0: Fraction(1, 2), 1: Fraction(1, 2)})
    assert delta_certified(ok, {0: Fraction(1)}, 0).upper == Fraction(1, 2)


def test_measure_names_each_definition_and_its_value():
    """measure() under each named definition (given as the enum or its string) equals the
    function of that definition; an unknown name is refused with the list of known ones."""
    from dps_verify.core.errors import ParameterError
    from dps_verify.core.types import Definition
    from dps_verify.measures.divergence import DEFINITIONS, measure

    P, Q = EPS_LAWS[0]
    eps = Fraction(1, 3)
    hs, pw = delta_certified(P, Q, eps), pointwise_delta_exact(P, Q, eps)
    assert hs.upper < pw  # the two definitions differ here, so a swap is seen
    for name in ("hockey-stick", Definition.HOCKEY_STICK):
        assert measure(P, Q, eps, name) == hs
    assert measure(P, Q, eps) == hs  # the default
    for name in ("pointwise", Definition.POINTWISE):
        c = measure(P, Q, eps, name)
        assert c.lower == c.upper == pw and c.how == "exact rational arithmetic"
    assert set(DEFINITIONS) == {"hockey-stick", "pointwise"}
    with pytest.raises(ParameterError, match="hockey-stick.*pointwise"):
        measure(P, Q, eps, "hockey stick")


def test_a_law_must_be_a_mapping_and_the_refusal_says_which_tolerance_applied():
    from dps_verify.core.errors import ParameterError

    with pytest.raises(ParameterError, match="p must be a mapping output -> probability, got list"):
        delta_certified([Fraction(1, 2), Fraction(1, 2)], {0: Fraction(1)}, 0)
    with pytest.raises(ParameterError, match="q must be a mapping"):
        delta_certified({0: Fraction(1)}, (1,), 0)
    with pytest.raises(ParameterError, match=r"tolerance of 1e-12"):
        delta_certified({0: 0.5, 1: 0.5 + 1.5e-12}, {0: Fraction(1)}, 0)
    with pytest.raises(ParameterError) as refused:
        delta_certified({0: Fraction(1), 1: Fraction(1, 10**13)}, {0: Fraction(1)}, 0)
    assert "tolerance" not in str(refused.value)
    with pytest.raises(ParameterError, match=r"must be >= 0.*-1/10 for output 1"):
        delta_certified({0: Fraction(1), 1: Fraction(-1, 10)}, {0: Fraction(1)}, 0)
