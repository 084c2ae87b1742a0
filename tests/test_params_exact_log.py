"""Exact-log ε: ``"ln(11)"`` makes e^ε = 11 rational and everything downstream exact.

CP §2.4 Table 1 starts from ε = ln 11.  The brute forces below use only Fractions and the
definitions (CP Def. 2, TR Def. 2, CP Thm 5's d), with e^ε = x as a rational: they share no code
with the engine.
"""

import functools
from collections.abc import Mapping
from fractions import Fraction
from math import comb
from types import MappingProxyType

import mpmath
import pytest

from dps_verify import bounds, exact
from dps_verify.cli import main
from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import (
    ExactLog,
    exact_log,
    exp_affine_enclosure,
    exp_compare,
    exp_dyadic,
    exp_interval,
    fraction_to_mpf,
)
from dps_verify.core.params import beta_edge, epsilon_param, in_paper_regime, resolve_beta

LN11 = ExactLog(Fraction(11))


# ---- parsing -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,want",
    [("ln(11)", LN11), (" ln( 22/2 ) ", LN11), ("LN(11)", LN11), ("ln(2.5)", ExactLog(Fraction(5, 2))),
     ("ln(1)", Fraction(0)), ("ln(1.0)", Fraction(0))],
)
def test_ln_strings_are_read_as_exact_logs(text, want):
    got = epsilon_param(text)
    assert got == want and type(got) is type(want)
    assert epsilon_param(got) is got  # an ExactLog passes through unchanged


@pytest.mark.parametrize(
    "text,needle",
    [("ln(0)", "needs x > 0"), ("ln(-3)", "needs x > 0"), ("ln(1/2)", "must be >= 0"),
     ("ln(0.999999)", "must be >= 0"), ("ln(abc)", "decimal or p/q"), ("ln()", "decimal or p/q")],
)
def test_bad_logs_are_one_line_parameter_errors(text, needle):
    with pytest.raises(ParameterError, match=needle) as e:
        epsilon_param(text)
    assert "\n" not in str(e.value)


def test_printing_shows_the_log():
    assert str(LN11) == "ln(11)" and repr(LN11) == "ExactLog('ln(11)')"
    assert str(LN11 - Fraction(1, 2)) == "ln(11) - 1/2"
    assert str(epsilon_param("ln(11/2)")) == "ln(11/2)"


# ---- exact arithmetic ------------------------------------------------------------------------
def test_exp_of_an_exact_log_is_exact():
    assert exp_interval(LN11) == (11, 11)
    assert exp_dyadic(LN11) == (11, 11, 0)
    assert exp_compare(LN11, Fraction(11)) == 0  # a true tie, decided exactly
    assert exp_compare(LN11, Fraction(11) + Fraction(1, 10**60)) == -1
    assert exp_compare(LN11, Fraction(11) - Fraction(1, 10**60)) == 1
    assert exp_affine_enclosure(Fraction(1), Fraction(1, 11), LN11) == (0, 0)
    lo, hi, s = exp_dyadic(ExactLog(Fraction(11, 3)))  # non-dyadic rational: outward rounded
    assert Fraction(lo, 2**s) <= Fraction(11, 3) <= Fraction(hi, 2**s) and hi - lo <= 1


def test_comparisons_agree_with_500_bit_logs():
    with mpmath.workprec(500):
        v = mpmath.log(11)
        for q in (Fraction(2), Fraction(23979, 10**4), Fraction(23980, 10**4), Fraction(0)):
            assert (LN11 > q) == (v > mpmath.mpf(q.numerator) / q.denominator)
    assert LN11 != Fraction(2) and LN11 != 2.3978952727983707 and LN11 == ExactLog(Fraction(22, 2))
    assert min(LN11, Fraction(64)) is LN11 and max(LN11, Fraction(2)) is LN11
    assert epsilon_param("ln(22)") - epsilon_param("ln(2)") == LN11
    assert LN11 - LN11 == 0 and isinstance(LN11 - LN11, Fraction)
    assert LN11 - Fraction(1, 2) > 1 and -LN11 < 0 and 1 - LN11 < 0
    assert fraction_to_mpf(LN11, "d") <= mpmath.log(11) <= fraction_to_mpf(LN11, "u")


def test_an_exact_log_is_never_silently_rounded():
    with pytest.raises(AttributeError):
        LN11.numerator  # type: ignore[attr-defined]  # noqa: B018
    with pytest.raises(TypeError):
        Fraction(LN11)  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        LN11 * 2  # type: ignore[operator]  # noqa: B018


# ---- beta="edge" at ε = ln 11 is exactly 10/11 -------------------------------------------------
def test_edge_at_ln11_is_exactly_ten_elevenths():
    assert resolve_beta("edge", LN11) == Fraction(10, 11)
    assert beta_edge(LN11) == Fraction(10, 11)  # no 40-digit rounding needed
    assert in_paper_regime(Fraction(10, 11), LN11)
    assert not in_paper_regime(Fraction(10, 11) + Fraction(1, 10**60), LN11)
    assert bounds.d(20, "edge", "ln(11)") == bounds.d(20, Fraction(10, 11), "ln(11)")
    with pytest.raises(ParameterError, match='beta="edge"'):
        bounds.d(20, Fraction(10, 11) + Fraction(1, 10**60), "ln(11)")


# ---- brute force with e^ε = x rational ---------------------------------------------------------
def _pmf(j: int, n: int, b: Fraction) -> Fraction:
    return comb(n, j) * b**j * (1 - b) ** (n - j) if 0 <= j <= n else Fraction(0)


@functools.cache
def _laws(n: int, k: int, b: Fraction) -> tuple[Mapping, Mapping]:
    """t's recoding group under D (n records) and D − t (n − 1); "0" = suppressed.  Exact, from
    the integer numerators C(m, j)·p^j·(q−p)^(m−j) over q^m (b = p/q); computed once per (n, k, b)
    and shared read-only by both definitions and every case."""
    p, q = b.numerator, b.denominator

    def numerators(m: int) -> list[int]:
        return [comb(m, j) * p**j * (q - p) ** (m - j) for j in range(m + 1)]

    num_p, num_q = numerators(n), numerators(n - 1)
    P = {j: Fraction(num_p[j], q**n) for j in range(k, n + 1)}
    Q = {j: Fraction(num_q[j], q ** (n - 1)) for j in range(k, n)}
    P[0] = Fraction(sum(num_p[:k]), q**n)
    Q[0] = Fraction(sum(num_q[:k]), q ** (n - 1))
    return MappingProxyType(P), MappingProxyType(Q)


def _hockey(P: Mapping, Q: Mapping, E: Fraction) -> Fraction:
    one = sum((max(P.get(o, 0) - E * Q.get(o, 0), Fraction(0)) for o in P.keys() | Q.keys()), Fraction(0))
    two = sum((max(Q.get(o, 0) - E * P.get(o, 0), Fraction(0)) for o in P.keys() | Q.keys()), Fraction(0))
    return max(one, two)


def _pointwise(P: Mapping, Q: Mapping, E: Fraction) -> Fraction:
    bad = {o for o in P.keys() | Q.keys() if P.get(o, 0) > E * Q.get(o, 0) or Q.get(o, 0) > E * P.get(o, 0)}
    return max(sum((P.get(o, 0) for o in bad), Fraction(0)), sum((Q.get(o, 0) for o in bad), Fraction(0)))


def _paper_d(n: int, k: int, b: Fraction, E: Fraction) -> Fraction:
    g = (E - 1 + b) / E  # γ of CP Thm 5
    if g * (n + 1) < k:  # n < n_m
        return Fraction(0)
    return sum((_pmf(j, n, b) for j in range(n + 1) if j > g * n), Fraction(0))


@pytest.mark.parametrize(
    "k,beta,x",
    [(3, Fraction(10, 11), 11), (3, Fraction(9, 10), 11), (5, Fraction(1, 2), 11), (2, Fraction(1, 2), 2),
     (4, Fraction(1, 2), 3), (4, Fraction(2, 3), 3), (6, Fraction(3, 4), 4), (2, Fraction(1, 3), Fraction(3, 2)),
     # outside CP Thm 5's regime (β > 1 − 1/x): backward bad sets and the suppressed outcome
     (3, Fraction(11, 12), 11), (4, Fraction(3, 4), 3), (2, Fraction(1, 2), Fraction(3, 2)), (1, Fraction(4, 5), 2),
     # β → 1: the edge 1 − 10^-6 at ε = ln 10^6, on it and just past it
     (2, Fraction(999999, 10**6), 10**6), (3, Fraction(9999999, 10**7), 10**6)],
)
def test_sdgs_and_d_at_an_exact_log_equal_a_brute_force(k, beta, x):
    """Both sides of the edge β = 1 − 1/x (and on it): every value is exact and equals the
    maximum over group sizes of the brute-force per-n value (ties j = γn are not bad)."""
    eps = f"ln({x})"
    E = Fraction(x)
    for definition, per_n in (("hockey-stick", _hockey), ("pointwise", _pointwise)):
        c = exact.sdgs_delta_certified(k, beta, eps, definition)
        n_arg = c.details["argmax_n"]
        brute = [per_n(*_laws(n, k, beta), E) for n in range(1, max(n_arg, 40) + 1)]
        if beta.denominator <= 12:  # the exact integer scan: equal to the last bit
            assert c.exact and max(brute) == c.upper, (definition, float(max(brute)), float(c.upper))
        else:  # β → 1 may be routed to ball arithmetic (measures.long_range): contained, tight
            assert c.lower <= max(brute) <= c.upper and c.relative_width() < 1e-15, (definition, c)
    if in_paper_regime(beta, epsilon_param(eps)):
        c = bounds.d_certified(k, beta, eps)
        brute = [_paper_d(n, k, beta, E) for n in range(1, max(c.details["argmax_n"], 40) + 1)]
        assert c.lower <= max(brute) <= c.upper and (c.exact or beta.denominator > 12)
    else:
        with pytest.raises(ParameterError):
            bounds.d(k, beta, eps)


def test_a_tie_that_a_decimal_epsilon_cannot_express():
    """β = 1/2, e^ε = 11: γ = 21/22, so at n = 22m the outcome j = 21m has ratio exactly e^ε and
    is not bad.  The exact log gets this right; a decimal a hair below ln 11 does not, one a hair
    above agrees with it (d is right-continuous in ε)."""
    below, above = "2.397895272798370544061943", "2.397895272798370544061944"
    assert Fraction(below) < LN11 < Fraction(above)
    v = bounds.d(20, "0.5", "ln(11)")
    assert v == bounds.d(20, "0.5", above)
    assert v < bounds.d(20, "0.5", below)


def test_every_closed_form_accepts_an_exact_log():
    b = Fraction(10, 11)
    assert bounds.d_safe(20, "edge", "ln(22)", "ln(2)") == bounds.d(20, b, "ln(11)")
    assert bounds.chernoff_delta(20, "edge", "ln(11)") >= bounds.d(20, "edge", "ln(11)")
    e2, d2 = bounds.amplify("ln(11)", "1e-5", 1, "0.1")  # CP Table 1: ε2 = ln(1 + 0.1·10) = ln 2
    assert mpmath.log(2) <= e2 <= mpmath.log(2) * (1 + mpmath.mpf(2) ** -50)
    k = bounds.min_k("edge", "ln(11)", "1e-6")
    assert bounds.d(k, "edge", "ln(11)") <= 1e-6 < bounds.d(k - 1, "edge", "ln(11)")
    beta = bounds.max_beta(20, "ln(11)", "1e-6")
    assert bounds.d(20, beta, "ln(11)") <= 1e-6 < bounds.d(20, beta + mpmath.mpf("1e-9"), "ln(11)")
    assert exact_log(11) == LN11 and exact_log(1) == 0


def test_cli_accepts_and_prints_an_exact_log(capsys):
    assert main(["delta", "--k", "20", "--beta", "edge", "--epsilon", "ln(11)"]) == 0
    out = capsys.readouterr().out
    assert "epsilon = ln(11)" in out and "10/11 exactly" in out
    assert main(["delta", "--k", "20", "--beta", "0.5", "--epsilon", "ln(1/2)"]) == 2
    err = capsys.readouterr().err
    assert "must be >= 0" in err and len(err.strip().splitlines()) == 1


def test_explore_takes_beta_edge_and_an_exact_log(capsys):
    assert main(["explore", "cp-theorem-5", "--set", "epsilon=ln(11)", "--set", "beta=edge", "--set", "k=175",
                 "--no-input"]) == 0
    out = capsys.readouterr().out
    assert "10/11 exactly" in out and "beta = 10/11, epsilon = ln(11)" in out and "9.6472e-07" in out
    assert main(["explore", "cp-theorem-6", "--set", "epsilon=1.5", "--set", "epsilon1=0.5", "--set", "beta=edge",
                 "--no-input"]) == 0
    assert "rounded down to 40 digits = 6.3212055882855767840" in capsys.readouterr().out
    assert main(["explore", "cp-theorem-5", "--set", "epsilon=0", "--set", "beta=edge", "--no-input"]) == 2
    assert 'beta="edge" needs epsilon > 0' in capsys.readouterr().err


def test_divergences_and_assert_dp_take_an_exact_log():
    import dps_verify as dv
    from dps_verify import mechanisms as M

    P = {0: Fraction(11, 12), 1: Fraction(1, 12)}
    Q = {0: Fraction(1, 12), 1: Fraction(11, 12)}
    assert exact.delta_certified(P, Q, "ln(11)").upper == 0  # ratio exactly e^ε: not bad
    assert exact.delta_certified(P, Q, "2.3978952727983705").lower > 0  # a decimal below ln 11
    assert exact.pointwise_delta_exact(P, Q, "ln(11)") == 0
    assert exact.pointwise_delta_exact(P, Q, "ln(10)") == 1
    A = M.StronglySafeKAnonymizer(lambda r: r // 100, 2)
    with pytest.raises(AssertionError, match="not"):
        dv.assert_dp(A, beta="0.5", epsilon="ln(11)", delta="1e-9", domain=[1, 2, 101], max_size=2,
                     search_size=3, max_examples=3)


def test_a_tiny_exact_log_goes_through_the_ball_arithmetic_path():
    """ε = ln(1.000001) at β = edge puts the worst group near n ≈ 10^6 (measures.long_range,
    Arb balls): the exact log is enclosed by Arb's logarithm there, never read as a rational."""
    lo, hi = "0.00000099999950000033333", "0.00000099999950000033334"  # around ln(1.000001)
    assert Fraction(lo) < epsilon_param("ln(1.000001)") < Fraction(hi)
    b = beta_edge(epsilon_param("ln(1.000001)"))
    assert b == Fraction(1, 1000001)
    v = bounds.d_certified(5, b, "ln(1.000001)")
    w = bounds.d_certified(5, b, hi)  # d is right-continuous in ε: the enclosures overlap
    assert w.lower <= v.upper and v.lower <= w.upper and v.relative_width() < 1e-15
    with pytest.raises(ParameterError):  # just below ln(1.000001), β = 1/1000001 is past the edge
        bounds.d(5, b, lo)


def test_edge_on_a_grid_stays_exact_when_short_and_rounds_down_when_long():
    assert beta_edge(LN11, grid_bits=48) == Fraction(10, 11)
    big = epsilon_param("ln(3e30)")
    b = beta_edge(big, grid_bits=48)
    assert b.denominator == 2**48 and b <= 1 - Fraction(1, 3 * 10**30) < b + Fraction(1, 2**48)
    assert in_paper_regime(b, big)
