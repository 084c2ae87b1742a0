"""The sparse composition (inverse.pld_sparse.sparse_delta) takes only a valid exact PLD and a
release count within the package's budget: its enclosure proof (module doc) assumes a
(sub-)probability law, and a negative mass or a total above 1 would let a negative "δ" out as a
certified value.  Each refusal has a control just inside the boundary that is accepted, and the
accepted cases are checked against the δ that the definition gives by hand.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from dps_verify.core.errors import ParameterError
from dps_verify.inverse.pld_discrete import MAX_RELEASES
from dps_verify.inverse.pld_sparse import sparse_delta
from dps_verify.measures.pld import PrivacyLossDistribution as PLD


@pytest.mark.parametrize("pld, what", [
    (PLD({F(2): F(2), F(1, 2): F(-1)}), "mass >= 0"),            # negative mass, total 1
    (PLD({F(2): F(1, 2)}, F(-1, 2)), "infinity_mass must be >= 0"),
    (PLD({}, F(-1)), "infinity_mass must be >= 0"),
    (PLD({F(2): F(1, 2)}, F(1, 2) + F(1, 10**30)), "exceeds 1"),  # total just above 1
    (PLD({F(2): F(3, 4), F(1, 2): F(1, 4) + F(1, 10**30)}), "exceeds 1"),
    (PLD({F(0): F(1, 2)}), "ratio > 0"),                          # ratio 0: loss -inf
    (PLD({F(-2): F(1, 2)}), "ratio > 0"),
    (PLD({F(2): 0.5}), "exact"),                                  # float mass
    (PLD({2.0: F(1, 2)}), "exact"),                               # float ratio
    (PLD({F(2): F(1, 2)}, 0.25), "exact infinity_mass"),
    (PLD({F(2): True}), "exact"),
])
def test_an_invalid_law_is_refused_with_one_parameter_error_line(pld, what):
    with pytest.raises(ParameterError, match=what) as info:
        sparse_delta(pld, F(1, 10), 3)
    assert "\n" not in str(info.value)


def test_the_negative_delta_of_a_negative_mass_is_not_certified():
    # unvalidated, this law gives a "δ" of about -0.78 with the sparse proof's own arithmetic
    with pytest.raises(ParameterError):
        sparse_delta(PLD({F(2): F(2), F(1, 2): F(-1)}, F(1, 10)), F(1, 10), 3)


@pytest.mark.parametrize("times", [0, -1, True, 2.0, F(3), MAX_RELEASES + 1, 2**130,
                                   pytest.param(10**5000, id="10^5000")])
def test_a_release_count_outside_one_to_the_budget_is_refused(times):
    with pytest.raises(ParameterError, match=r"times must be an integer in \[1, 10\^9\]") as info:
        sparse_delta(PLD({F(2): F(1, 2)}, F(1, 2)), 0, times)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def _one_release_delta(pld, eps_exp):
    """δ of one release by the definition: p_inf + Σ p·max(0, 1 − e^ε / r), with e^ε rational."""
    return pld.infinity_mass + sum((p * max(F(0), 1 - eps_exp / r) for r, p in pld.ratios.items()),
                                   F(0))


@pytest.mark.parametrize("pld", [
    PLD({F(2): F(1, 2)}, F(1, 2)),                        # total exactly 1
    PLD({F(3): F(1, 2), F(1, 3): F(1, 2)}),               # total exactly 1, no infinite loss
    PLD({F(3): F(1, 2), F(1, 3): F(0)}, F(0)),            # a zero-mass atom
    PLD({F(5, 2): F(1, 3), F(1): F(1, 3)}),               # a sub-probability (total 2/3)
    PLD({F(2): 1}),                                       # int mass
    PLD({}, F(1)),                                        # all mass at infinite loss
])
def test_a_valid_law_at_the_boundary_is_accepted_and_enclosed(pld):
    # ε = ln(3/2) is not representable, so the check uses ε = 0 (e^ε = 1) on one release
    c = sparse_delta(pld, 0, 1, rtol=0)
    exact = _one_release_delta(pld, F(1))
    assert 0 <= c.lower <= exact <= c.upper <= 1


def test_the_budget_itself_is_accepted():
    # T = 10^9 releases (the largest accepted), one off-dominant atom of mass 1e-10 and loss
    # ln 3: δ >= P[exactly one release off it]·(1 − e^(1/10)/3) > 0.09·0.63
    pld = PLD({F(1): 1 - F(1, 10**10), F(3): F(1, 10**10)})
    c = sparse_delta(pld, F(1, 10), MAX_RELEASES)
    assert F(5, 100) < c.lower <= c.upper <= 1 and c.details["times"] == MAX_RELEASES


def test_the_first_invalid_atom_is_the_one_named():
    # two invalid atoms: the message names the first in the law's order, not the last
    pld = PLD({F(0): F(1, 4), F(-3): F(1, 4)})
    with pytest.raises(ParameterError, match=r"pld atom Fraction\(0, 1\)") as info:
        sparse_delta(pld, F(1, 10), 3)
    assert "Fraction(-3, 1)" not in str(info.value)


@pytest.mark.parametrize("times, shown", [
    (2**64 - 1, str(2**64 - 1)),              # 64 bits: still printed in full
    (-(2**63), str(-(2**63))),                # 64 bits, negative
    (2**64, "an integer of 65 bits"),         # 65 bits: only its size
    (-(2**64), "a negative integer of 65 bits"),
])
def test_a_refused_release_count_is_printed_in_full_up_to_64_bits(times, shown):
    with pytest.raises(ParameterError) as info:
        sparse_delta(PLD({F(2): F(1, 2)}, F(1, 2)), 0, times)
    assert str(info.value).endswith("got " + shown)


def test_a_refused_release_count_of_another_type_is_shown_by_its_first_79_characters_and_a_mark():
    times = "7" * 100  # repr: a quote, 100 digits, a quote
    with pytest.raises(ParameterError) as info:
        sparse_delta(PLD({F(2): F(1, 2)}, F(1, 2)), 0, times)
    assert str(info.value).endswith("got " + repr(times)[:79] + "…")
    assert repr(times)[:80] not in str(info.value)
