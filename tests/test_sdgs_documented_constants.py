"""The precision and size constants of the exact worst-case walk (worstcase/sdgs.py), each named
once, pinned to its documented value, and checked to be the one the code uses.

A precision constant only changes how wide a certified enclosure is (or a cache's size, or a
message), so a value test within a tolerance cannot see it.  Each test below therefore reads the
constant where it acts, against a reference computed here:

* the python-flint ball of e^ε is evaluated at the asked precision + EXP_BALL_GUARD_BITS bits
  (the working precision recorded during the call);
* ``_Exp.affine`` and ``_affine_iv`` return at the first precision of e^ε at which CERTAIN_BITS
  bits of A − e^ε·B are certain: inputs built here put exactly CERTAIN_BITS certain bits at one
  precision, or one unit less, so one bit more or less in the rule moves the answer;
* the KL ball is used from KL_REL_BITS bits of relative accuracy on (the same ball recomputed
  here at every precision from 10 to 40 bits, crossing that boundary);
* the e^ε cache holds EXP_CACHE_SIZE entries; WORK_BUDGET is the one the refusals print;
* the ends of a scan are rounded outward to END_BITS-bit dyadics (a reference rounding by
  integer shifts), and the how-text says so exactly when an end differs from its exact value;
* a truncated tail stops at the first term whose geometric remainder bound is at most 2^−TAIL_BITS
  of the partial sum (the rule of ``tail_enclosure``'s docstring, summed here term by term);
* ``scan`` refuses k < 1 (the suppression threshold, CP §3.2) with one ParameterError line;
* at ε = 0 the hockey-stick walk stops at the first N of its check schedule (N, then
  N + max(1, N // TV_CHECK_SPACING)) where β·max pmf of Bin(N−1) is at most the best value
  (values and bound from the output laws, exact Fractions); below CP Thm 5's edge the backward
  Chernoff stop is tried at N, N + max(1, N // BACKWARD_CHECK_SPACING), ... (recorded).
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import flint
import mpmath
import pytest

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.worstcase import sdgs
from dps_verify.worstcase.ball_binomial import arb_epsilon
from dps_verify.worstcase.gamma_gap import gamma_minus_beta_ball
from dps_verify.worstcase.sdgs_generic import output_laws

F = Fraction


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("WORK_BUDGET", 6 * 10**10),  # one nanosecond per bit-step: about a minute
        ("EXACT_D_WORK", 2 * 10**8),
        ("EXACT_SDGS_WORK", 10**9),
        ("MAX_VALUE_BITS", 1 << 26),
        ("EXP_PREC_LIMIT", 1 << 14),
        ("EXACT_TAIL_WORK", 10**8),
        ("TAIL_BITS", 140),
        ("EXP_BALL_GUARD_BITS", 8),
        ("CERTAIN_BITS", 60),
        ("KL_REL_BITS", 20),
        ("EXP_CACHE_SIZE", 256),
        ("END_BITS", 256),
        ("TV_CHECK_SPACING", 16),
        ("BACKWARD_CHECK_SPACING", 64),
    ],
)
def test_documented_constant_has_its_documented_value(name, value):
    assert getattr(sdgs, name) == value


class _RecordingBall:
    """A python-flint ball whose exp() records the working precision it runs at."""

    def __init__(self, seen: list[int], x: flint.arb) -> None:
        self._seen, self._x = seen, x

    def exp(self) -> flint.arb:
        self._seen.append(flint.ctx.prec)
        return self._x.exp()


class _RecordingFlint:
    def __init__(self, seen: list[int]) -> None:
        self.ctx, self.fmpq = flint.ctx, flint.fmpq
        self.arb = lambda v: _RecordingBall(seen, flint.arb(v))


@pytest.mark.parametrize("prec", [64, 128, 300])
def test_exp_ball_runs_at_the_asked_precision_plus_the_guard_bits(monkeypatch, prec):
    """The ball of e^1 is evaluated at prec + EXP_BALL_GUARD_BITS bits, the context's precision
    is restored, and the integers bracket e (60 digits)."""
    seen: list[int] = []
    monkeypatch.setattr(sdgs, "_FLINT", [_RecordingFlint(seen)])
    sdgs.clear_caches()
    old = flint.ctx.prec
    try:
        lo, hi, s = sdgs._exp_dyadic_arb_ints(1, 1, prec)
    finally:
        sdgs.clear_caches()  # nothing made through the recording module stays cached
    assert seen == [prec + sdgs.EXP_BALL_GUARD_BITS] == [prec + 8]
    assert flint.ctx.prec == old
    with mpmath.workdps(60):
        e = mpmath.e
        assert mpmath.mpf(lo) / 2**s <= e <= mpmath.mpf(hi) / 2**s


def test_exp_cache_holds_the_documented_number_of_entries():
    info = sdgs._exp_dyadic_arb_ints.cache_info()
    assert info.maxsize == sdgs.EXP_CACHE_SIZE == 256


def _exp_steps(eps: Fraction, count: int) -> list[tuple[int, int, int, int]]:
    """(precision, lo, hi, s) of e^ε's enclosure at the first ``count`` precisions of _Exp."""
    E = sdgs._Exp(eps)
    steps = [(E.prec, int(E.lo), int(E.hi), E.s)]
    while len(steps) < count:
        assert E.refine()
        steps.append((E.prec, int(E.lo), int(E.hi), E.s))
    return steps


def _affine_input(step: tuple[int, int, int, int], short: int) -> tuple[int, int]:
    """Integers A, B ≥ 1 with A·2^s − lo·B = B·(width·2^CERTAIN_BITS − short) at this enclosure
    (lo, hi, s) of e^ε: the upper end of A − e^ε·B is exactly (short = 0) or one unit of B less
    than (short = 1) 2^CERTAIN_BITS times its width B·(hi − lo)."""
    _, lo, hi, s = step
    X = lo + ((hi - lo) << 60) - short
    B = (1 << s) // math.gcd(X, 1 << s)
    A = B * X >> s
    assert A << s == B * X
    return A, B


@pytest.mark.parametrize("use_iv", [False, True], ids=["affine", "affine_iv"])
def test_affine_returns_at_the_first_precision_with_exactly_the_certain_bits(use_iv):
    """At e^1's second precision A − e·B gets exactly CERTAIN_BITS certain bits (width·2^60 equal
    to the upper end): the refinement stops there, not at the first precision (fewer than 59
    bits) nor at the third.  With one unit less the rule fails by a hair (59 bits pass) and the
    answer comes from the third precision.  Both ends of the answer contain the true A − e·B."""
    steps = _exp_steps(F(1), 4)
    for short, want in ((0, 1), (1, 2)):
        A, B = _affine_input(steps[1], short)
        E = sdgs._Exp(F(1))
        if use_iv:
            lo, hi, s = sdgs._affine_iv(E, A, A, B, B)
        else:
            lo, hi, s = E.affine(A, B)
        assert (E.prec, s) == (steps[want][0], steps[want][3])
        assert ((hi - lo) << sdgs.CERTAIN_BITS) <= hi
        if short == 0:
            assert ((hi - lo) << 60) == hi  # exactly 60 certain bits: 61 would refine further
        else:
            _, l1, h1, s1 = steps[1]
            top, bot = (A << s1) - l1 * B, (A << s1) - h1 * B
            assert ((top - bot) << 59) <= top < ((top - bot) << 60)  # 59 bits would have stopped
        _, l0, h0, s0 = steps[0]
        top, bot = (A << s0) - l0 * B, (A << s0) - h0 * B
        assert ((top - bot) << 59) > top
        with mpmath.workdps(700):
            v = mpmath.mpf(A) - mpmath.e * B
            assert mpmath.mpf(lo) / 2**s <= v <= mpmath.mpf(hi) / 2**s


def _kl_ball_accuracy(beta: Fraction, e: Fraction, prec: int) -> int:
    """Relative accuracy in bits of the ball of KL(γ‖β) (the module's formula, ball arithmetic)."""
    with flint.ctx.workprec(prec):
        b = flint.arb(flint.fmpq(beta.numerator, beta.denominator))
        one_m_b = flint.arb(flint.fmpq(beta.denominator - beta.numerator, beta.denominator))
        ea = arb_epsilon(e)
        gm = gamma_minus_beta_ball(one_m_b, ea)
        kl = (b + gm) * (gm / b).log1p() - one_m_b * (-ea).exp() * ea
        assert kl > 0
        return int(kl.rel_accuracy_bits())


@pytest.mark.parametrize(("beta", "e"), [(F(1, 3), F(1, 2)), (F(1, 10), F(1))])
def test_kl_ball_is_used_from_the_documented_relative_accuracy_on(beta, e):
    """From 10 to 40 bits the ball route answers exactly when its ball has at least KL_REL_BITS
    bits of relative accuracy, and then with a lower bound of KL(γ‖β) (50 digits); the range
    meets a ball of exactly KL_REL_BITS and one of KL_REL_BITS − 1 bits."""
    accuracies = set()
    with mpmath.workdps(50):
        b = mpmath.mpf(beta.numerator) / beta.denominator
        g = 1 - (1 - b) * mpmath.exp(-mpmath.mpf(e.numerator) / e.denominator)
        kl = g * mpmath.log(g / b) + (1 - g) * mpmath.log((1 - g) / (1 - b))
    for prec in range(10, 41):
        acc = _kl_ball_accuracy(beta, e, prec)
        accuracies.add(acc)
        got = sdgs._kl_lower_arb(beta, e, prec)
        assert (got is not None) == (acc >= sdgs.KL_REL_BITS), (prec, acc)
        if got is not None:
            assert 0 < got and mpmath.mpf(got.numerator) / got.denominator <= kl
    assert {sdgs.KL_REL_BITS - 1, sdgs.KL_REL_BITS} <= accuracies


def test_budget_refusal_prints_the_documented_work_budget():
    """k = 10^5, β = 1/3, ε = 1/10 (pointwise, below CP Thm 5's edge) without the long-range
    route: its estimated work lies past WORK_BUDGET, and the refusal names 6e+10."""
    est = sdgs._estimate(10**5, F(1, 3), F(1, 10), "pointwise", True)
    assert est["work"] > sdgs.WORK_BUDGET
    with pytest.raises(CertificationError) as err:
        sdgs.scan(10**5, F(1, 3), F(1, 10), measure="pointwise", long_range=False)
    assert "WORK_BUDGET = 6e+10 bit-steps" in str(err.value)
    assert "\n" not in str(err.value)


def _dyadic_ends(num: int, den: int, bits: int) -> tuple[Fraction, Fraction]:
    """num/den rounded down and up to dyadics of ``bits`` significant bits (integer shifts)."""
    if num == 0:
        return F(0), F(0)
    t = bits - (num.bit_length() - den.bit_length())
    while (num << t if t >= 0 else num >> -t) // den >= 1 << bits:
        t -= 1
    while (num << t if t >= 0 else num >> -t) // den < 1 << (bits - 1):
        t += 1
    assert t >= 0
    m, r = divmod(num << t, den)
    return F(m, 1 << t), F(m + (r > 0), 1 << t)


def _best(lo_num: int, lo_den: int, hi_num: int, hi_den: int) -> sdgs._Best:
    return sdgs._Best(lo_num=lo_num, lo_den=lo_den, hi_num=hi_num, hi_den=hi_den, n=1)


def test_outward_ends_round_long_denominators_to_the_documented_dyadics():
    """Ends over 3^700 (1110 bits > 4·END_BITS) become END_BITS-bit dyadics, outward, and are
    reported widened; short denominators stay exact.  Only one end widened is still reported
    (either one); a long denominator whose value is a short dyadic (3^700 / (2·3^700)) is
    rounded to exactly 1/2, which is no widening."""
    long = 3**700
    lo_ref = _dyadic_ends(1, long, 256)[0]
    hi_ref = _dyadic_ends(long - 1, long, 256)[1]
    assert lo_ref < F(1, long) and hi_ref > F(long - 1, long)
    assert sdgs._outward_ends(_best(1, long, long - 1, long)) == (lo_ref, hi_ref, True)
    assert sdgs._outward_ends(_best(1, long, 1, long)) == (lo_ref, _dyadic_ends(1, long, 256)[1], True)
    x = 5**200  # one numerator object over two denominators: each end from its own
    assert sdgs._outward_ends(_best(x, 3 * long, x, 2 * long))[:2] == (
        _dyadic_ends(x, 3 * long, 256)[0], _dyadic_ends(x, 2 * long, 256)[1])
    assert sdgs._outward_ends(_best(1, 3, 2, 3)) == (F(1, 3), F(2, 3), False)
    assert sdgs._outward_ends(_best(1, 3, long - 1, long)) == (F(1, 3), hi_ref, True)
    assert sdgs._outward_ends(_best(1, long, 2, 3)) == (lo_ref, F(2, 3), True)
    assert sdgs._outward_ends(_best(long, 2 * long, long, 2 * long)) == (F(1, 2), F(1, 2), False)


def test_scan_rounding_note_and_end_bits():
    """CP Thm 5's d at k = 1000, β = 1/2, ε = 2 has an exact value over 2^n with n > 1024, so
    its ends are rounded outward: the how-text names END_BITS, and each end is a dyadic with a
    numerator of at most 256 bits, the two within 2^−255 of the upper end (the rounding itself
    is compared with the integer-shift reference in the test above)."""
    c = sdgs.scan(1000, F(1, 2), F(2), measure="paper-d")
    assert "ends rounded outward to 256-bit dyadics" in c.how
    assert c.lower < c.upper
    assert c.lower.denominator & (c.lower.denominator - 1) == 0
    assert c.lower.numerator.bit_length() <= 256 and c.upper.numerator.bit_length() <= 256
    assert (c.upper - c.lower) * 2**255 <= c.upper


def _tail_reference(n: int, T: int, p: int, q: int, rel_bits: int) -> tuple[int, int]:
    """tail_enclosure's documented truncation, term by term: sum N(n, j) from j = T and stop at
    the first j whose remainder bound ⌊N(n, j)·ρ_j/(1 − ρ_j)⌋ + 1 (ρ_j < 1) is at most 2^−rel_bits
    of the partial sum; (partial, partial + bound)."""
    total = 0
    for j in range(T, n + 1):
        term = comb(n, j) * p**j * (q - p) ** (n - j)
        total += term
        num, den = (n - j) * p, (j + 1) * (q - p)
        if num < den:
            rem = term * num // (den - num) + 1
            if rem << rel_bits <= total:
                return total, total + rem
    return total, total


@pytest.mark.parametrize(("n", "T", "p", "q"), [(1200, 450, 1, 3), (1000, 500, 1, 2), (500, 400, 3, 4)])
def test_truncated_tail_stops_at_the_documented_remainder_bound(monkeypatch, n, T, p, q):
    monkeypatch.setattr(sdgs, "EXACT_TAIL_WORK", 0)
    lo, hi = sdgs.tail_enclosure(n, T, p, q)
    ref = _tail_reference(n, T, p, q, sdgs.TAIL_BITS)
    assert (int(lo), int(hi)) == ref
    exact = sum(comb(n, j) * p**j * (q - p) ** (n - j) for j in range(T, n + 1))
    assert lo <= exact <= hi and lo < hi


@pytest.mark.parametrize(("n", "T"), [(9, 2), (41, 3)])
def test_tail_from_below_the_mode_passes_a_term_ratio_of_exactly_one(monkeypatch, n, T):
    """β = 1/2, n odd: the term ratio (n − j)/(j + 1) is exactly 1 at j = (n − 1)/2, where no
    geometric remainder bound exists (it needs a ratio below 1); the sum goes on past it and
    equals the term-by-term reference (truncation allowed from the start, EXACT_TAIL_WORK = 0)."""
    monkeypatch.setattr(sdgs, "EXACT_TAIL_WORK", 0)
    lo, hi = sdgs.tail_enclosure(n, T, 1, 2)
    assert (int(lo), int(hi)) == _tail_reference(n, T, 1, 2, sdgs.TAIL_BITS)
    exact = sum(comb(n, j) for j in range(T, n + 1))
    assert lo <= exact <= hi


@pytest.mark.parametrize(("n", "T", "p", "q", "rel_bits"), [(4, 3, 1, 2, 1), (8, 7, 1, 2, 2), (2, 1, 1, 3, 1)])
def test_truncated_tail_stops_where_the_remainder_bound_equals_its_share(monkeypatch, n, T, p, q, rel_bits):
    """At the first term whose remainder bound is exactly 2^−rel_bits of the partial sum the
    sum stops ("at most", not "below"): e.g. n = 4, T = 3, β = 1/2, rel_bits = 1 gives the
    partial sum 4 and the bound ⌊4·(1/4)/(3/4)⌋ + 1 = 2 = 4/2, so (4, 6), an enclosure of the
    exact 5 (one more term would give (5, 5)); the reference sums term by term."""
    monkeypatch.setattr(sdgs, "EXACT_TAIL_WORK", 0)
    lo, hi = sdgs.tail_enclosure(n, T, p, q, rel_bits)
    assert (int(lo), int(hi)) == _tail_reference(n, T, p, q, rel_bits)
    assert (int(hi) - int(lo)) << rel_bits == int(lo)  # the tie itself
    exact = sum(comb(n, j) * p**j * (q - p) ** (n - j) for j in range(T, n + 1))
    assert lo < exact <= hi


@pytest.mark.parametrize("measure", ["paper-d", "hockey-stick", "pointwise"])
@pytest.mark.parametrize("k", [0, -1])
def test_scan_refuses_a_suppression_threshold_below_one(measure, k):
    with pytest.raises(ParameterError) as err:
        sdgs.scan(k, F(1, 2), F(2), measure=measure)
    assert "k >= 1" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("measure", ["paper-d", "hockey-stick", "pointwise"])
def test_scan_at_k_one_starts_at_the_least_group_size(measure):
    """k = 1 is allowed: at β = 1/2, ε = 2 (in CP Thm 5's regime) the walk starts at n_m =
    ⌈1/γ − 1⌉ = 1 (γ = 1 − e^−2/2 > 1/2), and CP Thm 5's d there is the whole
    Pr[X_1 ≥ 1] = 1/2 at n = 1."""
    c = sdgs.scan(1, F(1, 2), F(2), measure=measure)
    assert c.details["n_start"] == sdgs.n_min(1, F(1, 2), F(2)) == 1
    if measure == "paper-d":
        assert c.lower == c.upper == F(1, 2) and c.details["argmax_n"] == 1


def test_ln2_constants_are_a_close_upper_bound_and_the_double():
    """_LN2_UP, added to −ln(best) by the backward stop, is above ln 2 (a lower value would make
    the stop unsound) and within 10^-16 of it; _LN2_F, the screens' ln 2, is the double ln 2."""
    with mpmath.workdps(40):
        gap = mpmath.mpf(sdgs._LN2_UP.numerator) / sdgs._LN2_UP.denominator - mpmath.log(2)
        assert 0 < gap < mpmath.mpf(10) ** -16
    assert sdgs._LN2_F == math.log(2)


@pytest.mark.parametrize("binding", ["lower", "upper"])
def test_affine_iv_refines_until_each_end_has_the_certain_bits(binding):
    """_affine_iv(E, Al, Ah, Bl, Bh) encloses A − e·B over A ∈ [Al, Ah], B ∈ [Bl, Bh] and checks
    the CERTAIN_BITS rule on each end alone.  Here one end is exactly at the boundary at e^1's
    second precision and the other is either far from it (lower end binding: Ah = A·2^100) or
    exactly 0 (upper end binding: Al = 0 clips the lower end to 0): the answer comes from the
    second precision, not the first, whichever end binds."""
    steps = _exp_steps(F(1), 3)
    A, B = _affine_input(steps[1], 0)
    Al, Ah = (A, A << 100) if binding == "lower" else (0, A)
    E = sdgs._Exp(F(1))
    lo, hi, s = sdgs._affine_iv(E, Al, Ah, B, B)
    assert (E.prec, s) == (steps[1][0], steps[1][3])
    with mpmath.workdps(700):
        assert mpmath.mpf(lo) / 2**s <= max(Al - mpmath.e * B, 0)
        assert Ah - mpmath.e * B <= mpmath.mpf(hi) / 2**s


def _tv(n: int, k: int, beta: Fraction) -> Fraction:
    """TV(P_n, Q_n) of the output laws (the hockey-stick value at ε = 0), exactly."""
    P, Q = output_laws(n, k, beta)
    return sum((max(P.get(o, F(0)) - Q.get(o, F(0)), F(0)) for o in set(P) | set(Q)), F(0))


def _tv_stop(k: int, beta: Fraction) -> tuple[int, Fraction]:
    """(stop N, best) of the ε = 0 hockey-stick walk from n = k by its documented rule: after
    the value at n, N = n + 1 is checked when N has reached the next check (first k, then
    N + max(1, N // 16)); the walk stops when β·max_j f(j; N − 1, β) ≤ the best value."""
    best, nxt, n = F(0), k, k
    while True:
        best = max(best, _tv(n, k, beta))
        N = n + 1
        if best > 0 and N >= nxt:
            bound = beta * max(F(comb(N - 1, j)) * beta**j * (1 - beta) ** (N - 1 - j) for j in range(N))
            if bound <= best:
                return N, best
            nxt = N + max(1, N // 16)
        n += 1


def test_tv_stop_at_epsilon_zero_follows_the_documented_check_spacing():
    """k = 20, β = 1/3 stops at N = 60 (a spacing of 17 or 15 checks 58 first, and stops
    there): the how-text's N and the exact maximum are those of the rule above, so the spacing
    the walk uses is the documented 16."""
    k, beta = 20, F(1, 3)
    got = sdgs.scan(k, beta, F(0), measure="hockey-stick", long_range=False)
    N, best = _tv_stop(k, beta)
    assert f"stopped at n = {N}: for every n' ≥ {N}, δ ≤ TV" in got.how
    assert got.lower == got.upper == best
@pytest.mark.parametrize(("k", "beta", "eps", "some"), [
    (30, F(1, 10), F(1, 20), [452, 459, 466, 473, 480, 487]),  # a spacing of 65 steps by 6
    (20, F(1, 5), F(1, 5), [125, 126, 127, 128, 130]),  # of 63: by 2 from 126 (65: 1 at 128)
])
def test_backward_stop_is_tried_at_the_documented_spacing(monkeypatch, k, beta, eps, some):
    """Pointwise, below the edge: the backward stop's rate point c_N is asked at N, then at
    N + max(1, N // 64) (a walk past the first try never meets a smaller best), and the walk
    stops at the last try (its how-text's N); the tries include the group sizes listed."""
    calls: list[int] = []
    real = sdgs._backward_rate

    def spy(N, k, gp_hi):
        calls.append(N)
        return real(N, k, gp_hi)

    monkeypatch.setattr(sdgs, "_backward_rate", spy)
    got = sdgs.scan(k, beta, eps, measure="pointwise", long_range=False)
    assert set(some) <= set(calls)
    assert all(b == a + max(1, a // 64) for a, b in zip(calls, calls[1:]))
    assert f"stopped at n = {calls[-1]}: for every n' ≥ {calls[-1]}, exp(−n'·KL(γ‖β)) + " in got.how
