"""CP Thm 1 and Thm 5 closed forms (dps_verify.bounds)."""

from fractions import Fraction

import mpmath
import pytest

from dps_verify import bounds
from dps_verify.core.binomial import upper_tail
from dps_verify.paper.claims.tables import TABLE2_PRINTED


@pytest.mark.parametrize("cell", sorted(TABLE2_PRINTED))
def test_table2_reproduced_to_printed_digits(cell):
    """All 18 cells of CP Table 2 agree with the exact d to the three printed digits."""
    beta, eps = cell
    c = bounds.d_certified(20, beta, eps)
    assert c.exact
    assert f"{float(c.lower):.2e}" == TABLE2_PRINTED[cell]


def _slow_d(k, beta, eps, n_max=400):
    """Straightforward reference: mpmath at 60 digits, fixed scan window; each tail
    Pr[Bin(n, β) ≥ j0] as the regularized incomplete beta function I_β(j0, n − j0 + 1) (an
    identity independent of the library's integer tail sums; 30× cheaper than summing
    mpmath binomial terms, same value to 60 digits)."""
    with mpmath.workdps(60):
        b = mpmath.mpf(beta.numerator) / beta.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator
        g = (mpmath.exp(e) - 1 + b) / mpmath.exp(e)
        nm = int(mpmath.ceil(k / g - 1))
        best = 0
        for n in range(nm, n_max):
            j0 = int(mpmath.floor(g * n)) + 1
            if j0 > n:
                continue
            s = mpmath.betainc(j0, n - j0 + 1, 0, b, regularized=True)
            best = max(best, s)
        return best


@pytest.mark.parametrize(
    "k,beta,eps",
    [(20, Fraction(1, 10), Fraction(1)), (5, Fraction(1, 5), Fraction(1, 2)), (2, Fraction(1, 40), Fraction(2)),
     (1, Fraction(1, 40), Fraction(1)), (35, Fraction(1, 5), Fraction(3, 4))],
)
def test_d_matches_high_precision_reference(k, beta, eps):
    c = bounds.d_certified(k, beta, eps)
    assert c.exact
    ref = _slow_d(k, beta, eps)
    assert abs(c.safe - ref) <= mpmath.mpf(10) ** -15 * ref
    assert c.digits() >= 15


def test_d_is_the_tail_at_argmax():
    c = bounds.d_certified(20, "0.2", "0.25")
    n = c.details["argmax_n"]
    from dps_verify.worstcase.sdgs import first_bad

    assert c.lower == upper_tail(first_bad(n, Fraction(1, 5), Fraction(1, 4)), n, Fraction(1, 5))


def test_amplify_matches_theorem1_and_table1():
    e2, d2 = bounds.amplify(1, 0, 1, "0.1")
    assert abs(float(e2) - 0.1586) < 1e-4 and d2 == 0
    e2, d2 = bounds.amplify(mpmath.log(11), "1e-5", 1, "0.1")
    assert abs(float(e2) - float(mpmath.log(2))) < 1e-12
    assert abs(float(d2) - 1e-6) < 1e-18
    # Equivalent form (e^eps2 - 1)/(e^eps1 - 1) = beta2/beta1.
    e2, _ = bounds.amplify("0.7", 0, "0.5", "0.2")
    assert abs((mpmath.exp(e2) - 1) / (mpmath.exp(mpmath.mpf("0.7")) - 1) - 0.4) < 1e-14


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: bounds.d(20, 0, 1), "0 < beta < 1"),
        (lambda: bounds.d(20, 1, 1), "0 < beta < 1"),
        (lambda: bounds.d(0, 0.1, 1), "k must be"),
        (lambda: bounds.d(20, 0.1, -1), "epsilon must be >= 0"),
        (lambda: bounds.d(20, 0.5, 0.5), "-ln(1-beta)"),
        (lambda: bounds.d_safe(20, 0.1, 0.2, 0.1), "epsilon1"),
        (lambda: bounds.amplify(1, 0, 0.1, 0.2), "beta_to must be <= beta_from"),
        (lambda: bounds.d(20, float("nan"), 1), "finite"),
    ],
)
def test_bad_parameters_raise_clear_errors(call, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        call()


def test_d_safe_is_d_at_shifted_epsilon():
    assert bounds.d_safe(20, "0.1", "1.5", "0.5") == bounds.d(20, "0.1", "1.0")


def test_min_k_boundary_is_verified():
    k = bounds.min_k("0.1", 1, "1e-6")
    assert bounds.d(k, "0.1", 1) <= 1e-6 < bounds.d(k - 1, "0.1", 1)
    k_exact = bounds.min_k("0.1", 1, "1e-6", bound="hockey-stick")
    assert k_exact <= k


def test_min_epsilon_and_max_beta_boundaries():
    e = bounds.min_epsilon(20, "0.1", "1e-6")
    assert bounds.d(20, "0.1", e) <= 1e-6
    assert bounds.d(20, "0.1", e - mpmath.mpf("1e-8")) > 1e-6
    b = bounds.max_beta(20, 1, "1e-6")
    assert bounds.d(20, b, 1) <= 1e-6
    assert bounds.d(20, b + mpmath.mpf("1e-8"), 1) > 1e-6


def test_chernoff_closed_form_value():
    # exp(-k (ln(g/b) - (g-b)/g)) evaluated independently in floats.
    import math

    b, e, k = 0.1, 1.0, 20
    g = 1 - (1 - b) * math.exp(-e)
    ref = math.exp(-k * (math.log(g / b) - (g - b) / g))
    assert abs(float(bounds.chernoff_delta(k, b, e)) - ref) < 1e-12 * ref


def test_numpy_scalars_are_read_exactly():
    import numpy as np

    from dps_verify.core.numbers import to_fraction

    assert to_fraction(np.float64(0.05)) == Fraction(1, 20)
    assert to_fraction(np.int64(3)) == 3
    assert bounds.d(np.int64(20), np.float64(0.1), 1) == bounds.d(20, "0.1", 1)


def test_inverse_questions_under_exact_measures_terminate_and_verify():
    b = bounds.max_beta(20, 1, "1e-6", bound="hockey-stick")
    assert bounds.max_beta(20, 1, "1e-6") <= b < 1 - mpmath.exp(-1)
    from dps_verify import exact

    assert exact.sdgs_delta(20, b, 1) <= 1e-6
    e = bounds.min_epsilon(20, "0.2", "1e-6", bound="hockey-stick")
    assert exact.sdgs_delta(20, "0.2", e) <= 1e-6
    assert e <= bounds.min_epsilon(20, "0.2", "1e-6")


# ---- once-failing inputs (true values checked against mpmath at 60 digits) -----------------

from dps_verify.core.errors import CertificationError  # noqa: E402


def _rel(a, b):
    return abs(mpmath.mpf(a) - mpmath.mpf(b)) / abs(mpmath.mpf(b))


def _chernoff_ref(k, b, e):
    with mpmath.workdps(60):
        b, e = mpmath.mpf(b), mpmath.mpf(e)
        g = 1 - (1 - b) * mpmath.exp(-e)
        return mpmath.exp(-k * (mpmath.log(g / b) - (g - b) / g))


@pytest.mark.parametrize("k,b,e", [(5, "1e-40", "2e-40"), (5, "1e-39", "3e-39"), (20, "0.1", "1")])
def test_chernoff_keeps_relative_accuracy_at_tiny_parameters(k, b, e):
    v = bounds.chernoff_delta(k, b, e)
    ref = _chernoff_ref(k, b, e)
    assert v >= ref and _rel(v, ref) < 1e-14 and v <= 1


def test_amplify_keeps_relative_accuracy():
    e2, _ = bounds.amplify(1, 0, 1, "1e-100")
    with mpmath.workdps(300):
        ref = mpmath.log1p(mpmath.mpf("1e-100") * (mpmath.e - 1))
    assert e2 >= ref and _rel(e2, ref) < 1e-14
    e2, _ = bounds.amplify("1e-300", 0, 1, 1)
    assert e2 >= mpmath.mpf("1e-300") and _rel(e2, "1e-300") < 1e-14


def test_iv_upper_never_reads_an_unbounded_end():
    from dps_verify.core.numbers import iv_lower, iv_upper

    with pytest.raises(CertificationError):
        iv_upper(mpmath.iv.mpf(["1", "+inf"]))
    with pytest.raises(CertificationError):
        iv_lower(mpmath.iv.mpf(["-inf", "1"]))


def test_d_at_huge_epsilon_and_huge_k():
    assert bounds.d(5, "0.5", 89) == mpmath.mpf(1) / 32
    assert bounds.d(5, 0.5, 1e30) == mpmath.mpf(1) / 32
    v = bounds.d(10000, "0.1", 1)
    assert mpmath.nstr(v, 5) == "3.3244e-6107"
    assert mpmath.nstr(bounds.d(1000, "0.1", 1), 4) == "3.468e-613"


@pytest.mark.parametrize("k,b,e,ref", [(20, "1e-3", "1.5e-3", "0.0002539")])
def test_d_small_beta_and_epsilon(k, b, e, ref):
    assert mpmath.nstr(bounds.d(k, b, e), 4) == ref


@pytest.mark.parametrize(
    "call", [lambda: bounds.d(5, 1e-12, 2e-12), lambda: bounds.d(5, "1e-40", "2e-40")]
)
def test_formerly_out_of_reach_inputs_now_have_values(call):
    """These stopped at the work budget; runs of equal threshold (measures/long_range.py) now
    certify them (reference comparison in tests/test_worstcase_extreme_parameters.py)."""
    assert mpmath.nstr(call(), 4) == "0.02754"


def test_printing_a_huge_certified_value():
    s = str(bounds.d_certified(500, 0.123456789, 1))
    assert "e-" in s and len(repr(bounds.d_certified(500, 0.123456789, 1))) < 2000


def test_inverse_answers_are_extremal():
    from dps_verify import exact

    k = bounds.min_k("1/2", "2/5", "1e-6", "hockey-stick")
    assert k <= 96
    assert exact.sdgs_delta(k, "1/2", "2/5") <= 1e-6 < exact.sdgs_delta(k - 1, "1/2", "2/5")
    k = bounds.min_k("0.7", "0.5", "0.47", "pointwise")
    assert k == 5  # pointwise is not monotone in k here: delta(5) = 0.449 < 0.47 < delta(6) = 0.506
    assert all(exact.sdgs_delta(j, "0.7", "0.5", "pointwise") > 0.47 for j in range(1, 5))
    assert exact.sdgs_delta(6, "0.7", "0.5", "pointwise") > 0.47
    e = bounds.min_epsilon(100, "1/2", "1e-6", "hockey-stick", "1e-3")
    assert abs(e - mpmath.mpf("0.3859")) < 2e-3
    assert exact.sdgs_delta(100, "1/2", e) <= 1e-6 < exact.sdgs_delta(100, "1/2", e - mpmath.mpf("1e-3"))
    b = bounds.max_beta(10, 1, "5e-8")
    assert bounds.d(10, b, 1) <= 5e-8 < bounds.d(10, b + mpmath.mpf("1e-9"), 1)
    b = bounds.max_beta(20, "2.47", "7e-7", "pointwise")
    assert exact.sdgs_delta(20, b, "2.47", "pointwise") <= 7e-7
    assert exact.sdgs_delta(20, b + mpmath.mpf("1e-9"), "2.47", "pointwise") > 7e-7


def test_min_k_grid_at_the_regime_edge():
    from dps_verify.core.params import beta_edge, in_paper_regime

    for e in ("0.5", "1", "2"):
        b = beta_edge(Fraction(e))
        assert in_paper_regime(b, Fraction(e)) and not in_paper_regime(b + Fraction(1, 10**39), Fraction(e))
        k = bounds.min_k(b, e, "1e-6")
        assert bounds.d(k, b, e) <= 1e-6 < bounds.d(k - 1, b, e)


def test_beta_edge_in_every_closed_form():
    from dps_verify.core.params import beta_edge

    b = beta_edge(Fraction(1))
    assert bounds.d(20, "edge", 1) == bounds.d(20, b, 1)
    assert bounds.d_safe(20, "edge", "1.5", "0.5") == bounds.d(20, b, 1)
    assert bounds.chernoff_delta(20, "edge", 1) == bounds.chernoff_delta(20, b, 1)
    assert bounds.chernoff_delta(20, "edge", 1) >= bounds.d(20, "edge", 1)
