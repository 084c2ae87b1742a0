"""The documented constants and defaults of inverse.pld_discrete and inverse.releases — the
float error model (u, the complex-multiplication and FFT charges, the weight margin), the work
budgets, the grid floor, the screen's sizes, the ball precision, the defaults of the public
functions — hold the values their docstrings and the docs state (docs/accounting.md quotes the
budgets and rtol).  A change to any of them changes what a certified number rests on or what a
run costs, so it must be made on purpose, here too."""

import inspect
from fractions import Fraction

import numpy as np

from dps_verify.inverse import pld_discrete as D
from dps_verify.inverse import releases as R


def _defaults(f) -> dict:  # type: ignore[no-untyped-def]
    return {k: v.default for k, v in inspect.signature(f).parameters.items()
            if v.default is not inspect.Parameter.empty}


def test_pld_discrete_error_model_constants() -> None:
    assert D.U == 2.0**-53  # unit roundoff of binary64
    assert D.CMUL == D.ETA == 8 * 2.0**-53  # ≥ √2·γ₂ and ≥ Higham's η ≈ 6.7u (lemma (c))
    assert D.WEIGHT_MARGIN == 2.0**-40  # expm1 trusted to 2^-40 relative (lemma (d))
    assert D._Tails.LAMBDAS == [2.0**k for k in range(-6, 9)]


def test_pld_discrete_budgets_and_floor() -> None:
    assert D.EXACT_COST_BUDGET == 20_000 and D.EXACT_FALLBACK_BUDGET == 100_000
    assert D.DISCRETE_FLOOR == Fraction(1, 10**12)
    assert D.DEFAULT_MAX_BINS == 2**20 and D.DEFAULT_TAIL_MASS == 1e-16
    assert D.DIRECT_CONVOLVE_BUDGET == 3 * 10**8 and D.MIN_H_EXP == -60
    assert D.DIRECT_MAX_TUPLES == 2**20 and D.DIRECT_QUICK_TUPLES == 2**17
    for f in (D.enclose_deltas, D.upper_below):
        d = _defaults(f)
        assert (d["max_bins"], d["exact_budget"], d["fallback_budget"], d["fft"]) == (
            2**20, 20_000, 100_000, True)
    assert _defaults(D.enclose_deltas)["rtol"] == 0.01 and _defaults(D.enclose_deltas)["times"] == 1
    assert _defaults(D.upper_below)["estimate"] == 0.0 and _defaults(D.upper_below)["h_exp"] is None
    assert _defaults(D.discretised_delta) == {"tail_mass": 1e-16, "max_bins": 2**20,
                                             "upper_only": False, "lower_only": False, "fft": True}
    assert _defaults(D.enclose_delta) == {"times": 1}


def test_releases_constants_and_defaults() -> None:
    assert R.BALL_PREC == 128 and R.ATOL == Fraction(1, 10**30) and R.COARSE_PER_FINE == 8
    assert np.array_equal(R.LAMBDAS, 2.0 ** np.linspace(-8, 8, 65)) and len(R.LAMBDAS) == 65
    assert R.LAMBDAS[0] == 2.0**-8 and R.LAMBDAS[-1] == 2.0**8 and R.LAMBDAS[32] == 1.0
    assert R.SCREEN_BINS == (4096, 16384) and R.SCREEN_BAND == 1.05 and R.SCREEN_NOISE == 1e-11
    assert _defaults(R.releases_delta) == {"n_max": None, "rtol": 0.01, "max_enclosures": 6,
                                          "n_limit": 1024, "method": "screen", "fft": True}
    assert _defaults(R.format_bound) == {"digits": 4} and _defaults(R.tv_bound) == {"k": 0}
    assert _defaults(R.screen_delta) == {"bins": 16384}
