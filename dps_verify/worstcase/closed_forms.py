"""The paper's closed-form bounds for sampled k-anonymization, computed exactly or with
certified rounding.

- :func:`d` / :func:`d_certified` — CP Thm 5's δ = d(k, β, ε) for sampled strongly-safe
  k-anonymization.
- :func:`d_safe` — the bound CP Thm 6 states for ε₁-safe k-anonymization, d(k, β, ε − ε₁).
- :func:`neg_log1m_upper` — a certified rational just above −ln(1−β), the edge of CP Thm 5's regime.

Results are ``mpmath.mpf`` rounded up; ``d_certified`` returns a
:class:`~dps_verify.core.numbers.Certified` enclosure that says how it was obtained.  CP Thm 1's
amplification is :mod:`dps_verify.worstcase.amplification`, TR Thm 6's Chernoff bound
:mod:`dps_verify.worstcase.chernoff`, the inverse questions :mod:`dps_verify.inverse.questions`.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import (
    BASE_PREC,
    Certified,
    Number,
    iv_from_fraction,
    iv_precision,
    iv_upper,
    single_value,
)
from dps_verify.core.params import (
    beta_param,
    epsilon_param,
    in_paper_regime,
    k_param,
    resolve_beta,
)
from dps_verify.worstcase.sdgs import is_infinite_epsilon, limit_at_infinite_epsilon, scan


def d_certified(k: Number, beta: Number, epsilon: Number) -> Certified:
    """CP Thm 5's d(k, β, ε) = max_{n ≥ ⌈k/γ−1⌉} Σ_{j>γn}^{n} f(j; n, β), γ = (e^ε−1+β)/e^ε.

    Exact: each candidate is a rational computed with integers; the threshold ⌊γn⌋ and n_m are
    decided exactly; the infinite maximum is cut by a Chernoff–Hoeffding bound that decreases in
    n (see :mod:`dps_verify.sdgs`).  ``details['argmax_n']`` is the maximising group size.

    Near the float limit: floats (the KL exponent, −ln of the best value, the
    start and threshold guesses) only propose where to start and stop; the stop itself is one
    python-flint ball evaluation of N·KL(γ‖β) + ln(best) ≥ 0, and every candidate value and
    comparison is exact, so a wrong screen costs time, never correctness.  When the tails are
    truncated (huge denominators) or the long-range path runs, the result is an enclosure and
    ``how`` says so.  ``epsilon = inf`` gives the limit ε → ∞, β^k.  CP Table 2 (18 cells) is about 4–8× the time of a scipy ``bdtrc``
    evaluation with the same stopping rule (``benchmarks/bench_bounds.py:table2_vs_float``).
    """
    if is_infinite_epsilon(epsilon):  # the limit ε → ∞ (at ε = ∞ itself γ = 1 and d would be 0)
        return limit_at_infinite_epsilon(k, beta, "CP Thm 5's d")
    kk = k_param(k)
    eps = epsilon_param(epsilon)
    b = resolve_beta(beta, eps)
    return scan(kk, b, eps, measure="paper-d")  # raises require_paper_regime's error outside CP Thm 5's regime


def d(k: Number, beta: Number, epsilon: Number) -> mpmath.mpf:
    """CP Thm 5's δ = d(k, β, ε), exact (or enclosed to relative width ≤ 1e-15) and rounded up
    to the working precision."""
    return single_value(d_certified(k, beta, epsilon), "d")


def d_safe(k: Number, beta: Number, epsilon: Number, epsilon1: Number) -> mpmath.mpf:
    """The bound CP Thm 6 states, d(k, β, ε − ε₁), for ε₁-safe k-anonymization when
    ε ≥ −ln(1−β) + ε₁.

    **Caution (claim ``cp.theorem6``, REFUTED):** read as stated — CP Def 3, where the ε₁-DP
    choice of recoding A_m runs on the *sample* — the theorem is false: an exact instance
    (k = 5, β = 1/2, e^{ε₁} = 3, e^ε = 12) has hockey-stick δ = 17/384 > d(5, 1/2, ln 4) = 1/32
    (``dps-verify prove cp-theorem-6``, ``dps_verify/paper/cp6_witness.py``).  The bound does
    hold when A_m runs on the unsampled dataset, the model of the proof in CP App. A.3.  This
    function returns the paper's number; it is not a certificate for the Def 3 mechanism.
    """
    eps = epsilon_param(epsilon)
    e1 = epsilon_param(epsilon1, "epsilon1")
    b = resolve_beta(beta, eps - e1) if eps > e1 else beta_param(beta)
    if eps < e1 or not in_paper_regime(b, eps - e1):
        raise ParameterError(
            "epsilon must satisfy epsilon >= -ln(1-beta) + epsilon1 (CP Thm 6); "
            f"got epsilon = {float(eps):g}, epsilon1 = {float(e1):g}, beta = {float(b):g}"
        )
    return d(k, b, eps - e1)



def neg_log1m_upper(b: Fraction) -> Fraction:
    """A short rational just above −ln(1−β) (the edge of CP Thm 5's regime), certified."""
    with iv_precision(BASE_PREC):
        v = -mpmath.iv.log(iv_from_fraction(1 - b))
        x = iv_upper(v)
    return Fraction(int(x * 2**64) + 1, 2**64)


_neg_log1m_upper = neg_log1m_upper
