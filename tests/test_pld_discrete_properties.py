"""Property: the certified discretised PLD encloses the exact δ_T(ε).

The discretised path is *forced* (``exact_budget=0``, small ``max_bins``, coarse grids and large
tail budgets, so that the Chernoff tail cuts are active) on random 2–5-outcome laws P, Q —
including outcomes with Q = 0 < P and P = 0 < Q (infinite losses in either direction) — composed
T = 6–24 times, and compared with an exact reference that does not use the discretised code:

- :func:`multinomial_delta`: δ_T(ε) = 1 − (1 − p∞)^T + Σ_c w_c·max(0, 1 − e^ε/R_c) over the
  count vectors c of the finite ratios (w_c multinomial, R_c = Π r_i^{c_i}), exact Fractions with
  e^ε enclosed by :func:`~dps_verify.core.numbers.exp_affine_enclosure`;
- :func:`product_delta`: for tiny cases, the hockey-stick divergence Σ_y max(0, P^T(y) − e^ε Q^T(y))
  over all product outcomes y (no PLD at all), which checks the reference itself.

Containment is checked as "the two enclosures intersect" (the true δ lies in both) and, since
the reference's width is ≤ 2⁻⁶⁰ relative, also ``lower ≤ ref.upper`` and ``ref.lower ≤ upper``
on each side separately.  Negative controls run the same check on wrong variants (grid rounding
in the wrong direction; tail cuts whose mass is not charged to the upper bound) and must see a
violation.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from math import factorial

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from dps_verify.core.errors import CertificationError
from dps_verify.core.numbers import exp_affine_enclosure, exp_compare, exp_interval
from dps_verify.inverse import pld_discrete as D
from dps_verify.measures.pld import PrivacyLossDistribution


def _compositions(total: int, parts: int):
    if parts == 1:
        yield (total,)
        return
    for c in range(total + 1):
        for rest in _compositions(total - c, parts - 1):
            yield (c, *rest)


def multinomial_delta(pld: PrivacyLossDistribution, eps: Fraction, times: int) -> tuple[Fraction, Fraction]:
    """Exact enclosure of δ_T(ε) of one direction by summing over count vectors (see module doc).

    With r_i = a_i/b_i and p_i = u_i/v_i, the terms are summed as integers over common
    denominators: w_c = T!/Π c_i! · Π u_i^c_i v_i^(T−c_i) / Π v_i^T and w_c/R_c = w_c · Π b_i^c_i
    a_i^(T−c_i) / Π a_i^T (the same rationals as adding the Fractions term by term)."""
    items = list(pld.ratios.items())
    A = 1 - (1 - pld.infinity_mass) ** times
    if not items:
        return A, A
    e_lo, e_hi = exp_interval(eps, 256)

    def powers(x: int) -> list[int]:
        return [x**c for c in range(times + 1)]

    a = [powers(r.numerator) for r, _ in items]
    b = [powers(r.denominator) for r, _ in items]
    u = [powers(p.numerator) for _, p in items]
    v = [powers(p.denominator) for _, p in items]
    fact = [factorial(c) for c in range(times + 1)]
    a_num = b_num = 0
    for cs in _compositions(times, len(items)):
        RN = RD = 1  # R_c = RN / RD
        for i, c in enumerate(cs):
            RN *= a[i][c]
            RD *= b[i][c]
        if RN * e_lo.denominator <= e_lo.numerator * RD:
            continue
        if RN * e_hi.denominator < e_hi.numerator * RD and exp_compare(eps, Fraction(RN, RD)) >= 0:
            continue  # ambiguous at 256 bits: decided exactly
        x = fact[times]
        for c in cs:
            x //= fact[c]  # the multinomial coefficient (each partial quotient is an integer)
        for i, c in enumerate(cs):
            x *= u[i][c] * v[i][times - c]
        a_num += x
        for i, c in enumerate(cs):
            x *= b[i][c] * a[i][times - c]
        b_num += x
    V = math.prod(vi[times] for vi in v)
    A += Fraction(a_num, V)
    B = Fraction(b_num, V * math.prod(ai[times] for ai in a))
    lo, hi = exp_affine_enclosure(A, B, eps)
    return max(lo, Fraction(0)), hi


def product_delta(p: dict, q: dict, eps: Fraction, times: int) -> tuple[Fraction, Fraction]:
    """Σ_y max(0, P^T(y) − e^ε Q^T(y)) over all product outcomes (tiny cases only)."""
    A = B = Fraction(0)
    for ys in itertools.product(list(p), repeat=times):
        pv = qv = Fraction(1)
        for y in ys:
            pv *= p[y]
            qv *= q.get(y, Fraction(0))
        if pv == 0:
            continue
        if qv == 0 or exp_compare(eps, pv / qv) < 0:
            A += pv
            B += qv
    lo, hi = exp_affine_enclosure(A, B, eps)
    return max(lo, Fraction(0)), hi


@st.composite
def law_pairs(draw):
    """P, Q on 2–5 outcomes; weights may be 0 on either side (infinite losses both ways)."""
    m = draw(st.integers(2, 5))
    weight = st.sampled_from([0, 1, 1, 2, 3, 5, 7, 20, 1000, 10**6])
    ws = draw(st.lists(weight, min_size=m, max_size=m).filter(any))
    vs = draw(st.lists(weight, min_size=m, max_size=m).filter(any))
    p = {i: Fraction(w, sum(ws)) for i, w in enumerate(ws)}
    q = {i: Fraction(v, sum(vs)) for i, v in enumerate(vs)}
    return p, q


EPS = st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2),
                       Fraction(5), Fraction(12)])


def _contains(enc, ref) -> bool:
    lo, hi = ref
    return enc.lower <= hi and lo <= enc.upper and enc.lower <= enc.upper


def _check_enclose(p, q, eps, times, **kw) -> list[str]:
    """Violations of containment for both directions of (p, q) under ``enclose_delta``."""
    bad = []
    for a, b in ((p, q), (q, p)):
        pld = PrivacyLossDistribution.from_pair(a, b)
        if not pld.ratios and pld.infinity_mass == 0:
            continue
        enc = D.enclose_delta(pld, eps, times, **kw)
        ref = multinomial_delta(pld, eps, times)
        if not _contains(enc, ref):
            bad.append(f"{a} vs {b}, T={times}, eps={eps}: [{float(enc.lower)!r}, "
                       f"{float(enc.upper)!r}] misses {float(ref[0])!r} ({enc.how})")
    return bad


def _check_grid(p, q, eps, times, h_exp, tail) -> list[str]:
    """Same, for one fixed grid 2^h_exp and tail budget (cuts active when ``tail`` is large)."""
    bad = []
    for a, b in ((p, q), (q, p)):
        pld = PrivacyLossDistribution.from_pair(a, b)
        if not pld.ratios:
            continue
        try:
            enc = D.discretised_delta(pld, eps, times, h_exp, tail_mass=tail, max_bins=1 << 14)
        except CertificationError:  # over the work budget: no enclosure, nothing claimed
            continue
        ref = multinomial_delta(pld, eps, times)
        if not _contains(enc, ref):
            bad.append(f"{a} vs {b}, T={times}, eps={eps}, h=2^{h_exp}, tail={tail}: "
                       f"[{float(enc.lower)!r}, {float(enc.upper)!r}] misses {float(ref[0])!r}")
    return bad


# explicit cases: a binary law with a rare outcome of huge loss, infinite losses both ways, a law
# whose only finite ratio is a single atom (the refinement loop used to run h down to 2^-1074 and
# overflow), ε = 0, and ε beyond every composed loss (true δ = 0 or only the infinite part)
HAND = [
    ({0: Fraction(1, 2), 1: Fraction(1, 2)}, {0: Fraction(1, 4), 1: Fraction(3, 4)}),
    ({0: Fraction(999, 1000), 1: Fraction(1, 1000)}, {0: Fraction(1, 2), 1: Fraction(1, 2)}),
    ({0: Fraction(0), 1: Fraction(1)}, {0: Fraction(1, 6), 1: Fraction(5, 6)}),
    ({0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)},
     {0: Fraction(1, 2), 1: Fraction(1, 2), 2: Fraction(0)}),
    ({0: Fraction(1, 10**6), 1: Fraction(999999, 10**6), 2: Fraction(0)},
     {0: Fraction(1, 7), 1: Fraction(5, 7), 2: Fraction(1, 7)}),
]


@given(law_pairs(), st.integers(6, 24), EPS)
@example(HAND[0], 24, Fraction(1))
@example(HAND[1], 20, Fraction(2))
@example(HAND[2], 22, Fraction(43, 5))
@example(HAND[3], 16, Fraction(0))
@example(HAND[4], 12, Fraction(12))
def test_forced_discretised_enclosure_contains_exact(pq, times, eps):
    p, q = pq
    assert _check_enclose(p, q, eps, times, exact_budget=0, max_bins=1 << 14) == []


@given(law_pairs(), st.integers(6, 24), EPS, st.sampled_from([-1, -3, -6]),
       st.sampled_from([1e-3, 1e-6, 1e-12]))
@example(HAND[1], 24, Fraction(1), -1, 1e-3)
@example(HAND[4], 9, Fraction(0), -3, 1e-3)
def test_coarse_grid_with_active_tail_cuts_contains_exact(pq, times, eps, h_exp, tail):
    p, q = pq
    assert _check_grid(p, q, eps, times, h_exp, tail) == []


@pytest.mark.parametrize("times", [1, 2, 3])
@pytest.mark.parametrize("case", range(len(HAND)))
def test_reference_matches_product_brute_force(case, times):
    p, q = HAND[case]
    for eps in (Fraction(0), Fraction(1, 2), Fraction(2)):
        for a, b in ((p, q), (q, p)):
            ref = multinomial_delta(PrivacyLossDistribution.from_pair(a, b), eps, times)
            assert ref == product_delta(a, b, eps, times)


def test_reference_matches_exact_pld():
    p, q = HAND[3]
    pld = PrivacyLossDistribution.from_pair(p, q)
    ex = pld.self_compose(7).delta_certified(Fraction(1, 2))
    assert multinomial_delta(pld, Fraction(1, 2), 7) == (ex.lower, ex.upper)


def test_infinite_loss_only_direction():
    p = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    q = {0: Fraction(1), 1: Fraction(0)}
    assert _check_enclose(p, q, Fraction(1), 10, exact_budget=0, max_bins=1 << 12) == []
    enc = D.enclose_delta(PrivacyLossDistribution.from_pair(p, q), 1, 10, exact_budget=0)
    assert enc.lower <= 1 - Fraction(1, 2**10) <= enc.upper


# ---- negative controls: the same checks must reject wrong variants ----------------------------

CONTROL_CASES = [(HAND[0], 12, Fraction(1, 2)), (HAND[1], 16, Fraction(1)),
                 (HAND[3], 10, Fraction(1, 10))]


def test_negative_control_wrong_rounding_direction_is_rejected(monkeypatch):
    """Rounding the upper chain's losses *down* (and the lower chain's up) must be caught."""
    real = D._indices

    def swapped(pld, h_exp):
        r0, idx = real(pld, h_exp)
        return r0, {r: (hi, lo) for r, (lo, hi) in idx.items()}

    monkeypatch.setattr(D, "_indices", swapped)
    found = []
    for (p, q), times, eps in CONTROL_CASES:
        try:
            found += _check_grid(p, q, eps, times, -2, 1e-12)
        except ValueError:  # lower > upper detected outright by Certified
            found.append("lower > upper")
    assert found


def test_negative_control_uncharged_tail_cut_is_rejected(monkeypatch):
    """Cutting tails without adding their mass to the upper bound must be caught."""
    monkeypatch.setattr(D._Tails, "bound", lambda self, n, lo, hi: 0.0)
    found = []
    for (p, q), times, eps in CONTROL_CASES:
        found += _check_grid(p, q, eps, times, -6, 0.2)
    assert found


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fft_power_error_bound_holds_against_long_double_reference(seed):
    """Lemma (c) of pld_discrete's module doc, checked empirically: the error of the one-FFT
    T-fold power against a long-double direct T-fold convolution stays below the charged bound
    (by a wide margin); the tails are not cut here (τ tiny), so the window is the whole range."""
    import numpy as np

    rng = np.random.default_rng(seed)
    for n, times in ((5, 2), (40, 7), (200, 3), (9, 60)):
        x = rng.exponential(size=n) ** 4
        x = x / x.sum()
        probs = [Fraction(float(v)) for v in x]
        x = np.array([float(p) for p in probs])
        tails = D._Tails(list(range(n)), probs, 2.0**-4)
        got, kept = D._power(D._Vec(x, 3, 0.0, 0.0), times, tails, 1e-300, 1 << 16)
        ref = x.astype(np.longdouble)
        for _ in range(times - 1):
            ref = np.convolve(ref, x.astype(np.longdouble))
        assert got.offset == 3 * times and kept <= len(ref) <= len(got.data)
        assert got.extra == 0.0  # the window holds the whole range: nothing folded, no charge
        err = float(np.sqrt(np.sum((got.data[: len(ref)].astype(np.longdouble) - ref) ** 2)
                            + np.sum(got.data[len(ref):].astype(np.longdouble) ** 2)))
        assert err <= got.err2
        assert err <= got.err2 / 5  # the bound is not tight to the last bit
        assert got.err2 <= 1e-11  # nor loose by orders of magnitude (errors here ≈ 1e-17)


def test_fft_power_window_charges_the_aliased_tails():
    """A window shorter than the T-fold range: the cyclic power folds the tails into it, and
    their mass (Chernoff bound) is charged as ``extra``; the entries in the window are at
    least the true law there (aliasing only adds mass)."""
    import numpy as np

    probs = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    x = np.array([0.5, 0.25, 0.25])
    tails = D._Tails([0, 1, 2], probs, 1.0)
    got, kept = D._power(D._Vec(x, 0, 0.0, 0.0), 40, tails, 1e-3, 1 << 16)
    assert len(got.data) < 81  # shorter than the full range 0..80: the tails were folded
    ref = x.astype(np.longdouble)
    for _ in range(39):
        ref = np.convolve(ref, x.astype(np.longdouble))
    inside = ref[got.offset: got.offset + len(got.data)]
    outside = float(ref.sum() - inside.sum())
    assert 0 < outside <= got.extra
    assert np.all(got.data + got.err2 >= inside.astype(np.float64))
    assert abs(float(got.data.sum()) - 1.0) < 1e-9  # the folded mass is still in the window


def test_split_chain_keeps_each_atoms_p_and_q_mass():
    """Lemma (a'): the split one-release vector has the P-mass of the law and, read with the
    grid losses a + jh, its Q-mass Σ p/r too (within the stated float error); every atom lands
    on its two grid neighbours only."""
    import numpy as np

    for p, q in HAND[:2] + HAND[3:]:
        pld = PrivacyLossDistribution.from_pair(p, q)
        for h_exp in (-1, -4, -9):
            r0, idx = D._indices(pld, h_exp)
            v = D._split_base(pld, r0, idx, h_exp)
            js = np.arange(v.offset, v.offset + len(v.data))
            total_p = float(sum(pld.ratios.values()))
            total_q = float(sum(pr / r for r, pr in pld.ratios.items()))
            loss = float(np.log(float(r0))) + js * 2.0**h_exp
            assert abs(float(v.data.sum()) - total_p) <= 1e-12
            assert abs(float(np.sum(v.data * np.exp(-loss))) - total_q) <= 1e-12
            lo = min(i for i, _ in idx.values())
            hi = max(c for _, c in idx.values())
            assert v.offset >= lo and v.offset + len(v.data) - 1 <= hi


def test_split_chain_is_tighter_than_rounding_up():
    """The split upper end is never above the rounded-up one on the same grid (it moves each
    atom by less) and, being second order in h, is within a tenth of its excess here."""
    p, q = HAND[0]
    pld = PrivacyLossDistribution.from_pair(p, q)
    exact = pld.self_compose(20).delta_certified(Fraction(1, 2))
    split = D.discretised_delta(pld, Fraction(1, 2), 20, -4)

    def round_up(pld, r0, idx, h_exp):
        return D._base_vector(pld, idx, 1)

    import unittest.mock as um

    with um.patch.object(D, "_split_base", round_up):
        rounded = D.discretised_delta(pld, Fraction(1, 2), 20, -4)
    assert exact.upper <= split.upper <= rounded.upper
    assert split.upper - exact.upper <= (rounded.upper - exact.upper) / 10


def test_negative_control_split_to_the_nearest_point_is_rejected(monkeypatch):
    """Moving each atom whole to its NEAREST grid point (half of them move down; P-mass kept,
    Q-mass not) is not a dominating pair: the same containment check must catch it."""
    import numpy as np

    def nearest(pld, r0, idx, h_exp):
        x = {r: (np.log(float(r)) - np.log(float(r0))) / 2.0**h_exp for r in pld.ratios}
        return D._base_vector(pld, {r: (round(v), round(v)) for r, v in x.items()}, 1)

    monkeypatch.setattr(D, "_split_base", nearest)
    found = []
    for (p, q), times, eps in CONTROL_CASES:
        found += _check_grid(p, q, eps, times, -2, 1e-12)
    assert found


def test_exact_log_epsilon_is_enclosed_not_approximated():
    """ε = ln(11) (an ExactLog, CP §2.4) goes through interval code, never via .numerator."""
    from dps_verify.core.params import epsilon_param

    eps = epsilon_param("ln(11)")
    p, q = HAND[1]
    for a, b in ((p, q), (q, p)):
        pld = PrivacyLossDistribution.from_pair(a, b)
        enc = D.enclose_delta(pld, eps, 12, exact_budget=0, max_bins=1 << 14)
        assert _contains(enc, multinomial_delta(pld, eps, 12))


def test_lower_only_chain_and_a_settled_upper_end_still_enclose():
    """``lower_only`` composes the rounded-down chain alone (upper end 1); once the split upper
    end has converged the refinement keeps it and refines the lower end alone (here from the
    grid 2^-14 to 2^-16, past the 6-halving jump cap): the result still contains the exact δ
    (multinomial reference) and says where its upper end comes from."""
    from dps_verify.inverse.releases import group_pair

    p, q = group_pair(8, 3, Fraction(1, 4))
    pld = PrivacyLossDistribution.from_pair(p, q)
    eps, times = Fraction(1, 2), 10
    ref = multinomial_delta(pld, eps, times)
    low = D.discretised_delta(pld, eps, times, -9, lower_only=True)
    assert low.upper == 1 and low.lower <= ref[1]
    enc = D.enclose_delta(pld, eps, times, rtol=1e-6, exact_budget=0)
    assert _contains(enc, ref)
    assert enc.details["upper_h_exp"] > enc.details["h_exp"]
    assert "upper end from the split chain on the grid" in enc.how
    assert enc.upper - enc.lower < Fraction(1, 10**4)
    with pytest.raises(ValueError):
        D.discretised_delta(pld, eps, times, -3, upper_only=True, lower_only=True)


def test_negative_control_folded_mass_not_taken_off_the_lower_end_is_rejected(monkeypatch):
    """The folded window adds the mass outside it to entries inside (lemma (b)); a lower end
    that does not subtract that mass can exceed the exact δ, and the containment check must
    see it (coarse grids, large tail budgets so that much mass is folded)."""
    import dataclasses

    for (p, q), times, eps in CONTROL_CASES:  # the real code passes the same checks
        for tail in (0.2, 0.05):
            assert _check_grid(p, q, eps, times, -6, tail) == []
    real = D._final

    def lower_keeps_folded_mass(vec, times, anchor, eps, h, upper):
        return real(vec if upper else dataclasses.replace(vec, extra=0.0), times, anchor, eps, h, upper)

    monkeypatch.setattr(D, "_final", lower_keeps_folded_mass)
    found = []
    for (p, q), times, eps in CONTROL_CASES:
        for tail in (0.2, 0.05):
            found += _check_grid(p, q, eps, times, -6, tail)
    assert found
