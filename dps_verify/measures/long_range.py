"""Suprema over group sizes that do not walk n one by one (CP Thm 5's d for tiny β or ε, huge k).

CP Thm 5's d(k, β, ε) = max_{n ≥ n_m} T(n), T(n) = Pr[Bin(n, β) > γn], γ = 1 − (1−β)e^{−ε}.
When β or ε is tiny the maximising n is ~k/γ (10^12 … 10^40 and beyond), and near the edge
ε = −ln(1−β) with huge k the proven stopping point is thousands of group sizes of 10^6+ records
away; the exact integer scan of :func:`dps_verify.measures.sdgs.scan` is out of reach there.

**Runs of equal threshold (proof).**  Write J(n) for the least integer j > γn, so T(n) =
Pr[Bin(n, β) ≥ J(n)].  J(n) is non-decreasing in n and grows by at most one per step (γ < 1).
For a fixed threshold J, Pr[Bin(n, β) ≥ J] is non-decreasing in n (Bin(n+1) = Bin(n) +
Bernoulli(β) is stochastically larger).  So on each run {n : J(n) = J} T is largest at the run's
last element N_J = max{n : γn < J} = ⌈J/γ⌉ − 1.  The run of J = k ends at n_m = N_k (J(n_m) = k,
since γ(n_m+1) ≥ k > γn_m and γ < 1), and the runs of J > k cover every n > n_m, hence

    d(k, β, ε) = max_{J ≥ k} U(J),   U(J) = Pr[Bin(N_J, β) ≥ J].

N_J is decided exactly: γn < J ⇔ n ≤ J or (n − J)·e^ε < n(1 − β), compared with e^ε enclosed
(:class:`dps_verify.measures.sdgs._Exp`, exact fallback); a ball value of J/γ only supplies the
starting guess.  U(J) is enclosed in ball arithmetic (:mod:`dps_verify.measures.ball_binomial`).

**Stopping rule (proof).**  For n > N_J, T(n) ≤ Pr[Bin(n, β) ≥ γn] ≤ exp(−n·KL(γ‖β))
(Chernoff–Hoeffding, γ > β when ε > 0), which decreases in n; with κ ≤ KL(γ‖β) certified and
ℓ ≥ −ln(best lower value) certified, once (N_J + 1)·κ ≥ ℓ no later group size beats the best
value, and the maximum over the runs seen so far is d.

**Work estimate.**  After U(k), a float screen predicts the last run, J ≈ γ·ℓ/κ; past
:data:`RUN_BUDGET` runs a :class:`CertificationError` names the parameter that makes the count
large (k, or ε close to the edge −ln(1−β)) and the estimate, before the loop starts.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dps_verify.core.errors import CertificationError
from dps_verify.core.numbers import Certified
from dps_verify.measures.ball_binomial import (
    BallBinomial,
    arb_fraction,
    arb_to_fractions,
    rel_bits,
)

#: Most threshold runs one evaluation of d may visit (about 50–100 µs each).
RUN_BUDGET = 40_000
#: Relative bits wanted for the maximum (single-value APIs need 1e-15 ≈ 50 bits).
WANT_BITS = 64


def _flint() -> Any:
    import flint

    return flint


def gamma_ball(beta: Fraction, eps: Fraction, prec: int) -> Any:
    """A ball around γ = β + (1−β)(1 − e^{−ε}) (no cancellation for tiny β, ε)."""
    flint = _flint()
    with flint.ctx.workprec(prec):
        b = arb_fraction(beta)
        e = arb_fraction(min(eps, Fraction(1 << 20)))  # γ − 1 < 2^−10^6 beyond: same ball
        return b - arb_fraction(1 - beta) * (-e).expm1()


class Thresholds:
    """N_J = max{n : γn < J}, decided exactly (module docstring)."""

    def __init__(self, beta: Fraction, eps: Fraction, E: Any) -> None:
        self.beta, self.eps, self.E = beta, eps, E
        self.q, self.r = beta.denominator, beta.denominator - beta.numerator
        # bits of 1/γ ≤ bits of 1/β + 1
        self.inv_bits = self.q.bit_length() - beta.numerator.bit_length() + 2

    def below(self, n: int, J: int) -> bool:
        """γn < J, decided exactly: n ≤ J, or (n − J)·q·e^ε < n·(q − p)."""
        return n <= J or self.E.less((n - J) * self.q, n * self.r)

    _inv: tuple[int, Any] = (0, None)

    def last_below(self, J: int) -> int:
        flint = _flint()
        prec = J.bit_length() + self.inv_bits + 40
        if self._inv[0] < prec:  # 1/γ, cached at a precision good for J up to 2^(prec − …)
            prec += 32
            with flint.ctx.workprec(prec):
                self._inv = (prec, 1 / gamma_ball(self.beta, self.eps, prec))
        with flint.ctx.workprec(self._inv[0]):
            x = J * self._inv[1]
            lo, _ = arb_to_fractions(x)
        n = max(int(lo) - 1, J)
        steps = 0
        while self.below(n + 1, J):
            n += 1
            steps += 1
            if steps > 64:  # the guess was poor: gallop
                n = self._gallop(n, J)
                break
        while not self.below(n, J):
            n -= 1
        return n

    def _gallop(self, n: int, J: int) -> int:
        step = 1
        while self.below(n + step, J):
            n += step
            step *= 2
        while step > 1:
            step //= 2
            if self.below(n + step, J):
                n += step
        return n


def _estimate_runs(k: int, beta: Fraction, eps: Fraction, kl: Fraction, first_log: float, N_k: int) -> float:
    """Float screen: the number of runs the stopping rule will need (first_log = −ln U(k))."""
    b = float(beta) if beta > Fraction(1, 10**300) else 1e-300
    g = b - (1 - b) * math.expm1(-min(float(eps), 700.0))
    kf = float(kl)
    if kf <= 0:
        return math.inf
    n_stop = max(first_log, 0.0) / kf
    return max(0.0, g * (n_stop - N_k)) + 1


def d_by_runs(k: int, beta: Fraction, eps: Fraction, E: Any, kl: Fraction, budget: int = RUN_BUDGET) -> Certified:
    """CP Thm 5's d(k, β, ε) as max_{J ≥ k} Pr[Bin(N_J, β) ≥ J] (module docstring), in ball
    arithmetic, stopped by the Chernoff–Hoeffding rule.  Requires ε ≥ −ln(1−β) (checked by the
    caller) and a certified κ = ``kl`` ≤ KL(γ‖β), κ > 0."""
    flint = _flint()
    arb = flint.arb
    th = Thresholds(beta, eps, E)
    prec = 96
    B = BallBinomial(beta, prec)
    kl_ball = arb_fraction(kl)
    values: dict[int, tuple[int, Any]] = {}  # J -> (N_J, ball)
    best_lo = arb(0)
    J = k
    N = th.last_below(k)
    est = None
    stop_note = ""
    while True:
        v = B.upper_tail(J, N)
        values[J] = (N, v)
        with flint.ctx.workprec(2 * prec):
            v_lo = v.lower()
        if v_lo > best_lo:
            best_lo = v_lo
        if best_lo > 0:
            with flint.ctx.workprec(prec):
                ell = -(best_lo.log())
                if (N + 1) * kl_ball >= ell.upper():
                    stop_note = (
                        f"stopped after run J = {J} (n = {N}): for every n > {N}, "
                        "exp(−n·KL(γ‖β)) (Chernoff–Hoeffding) is below the best value found"
                    )
                    break
        if est is None:
            first_log = -float(v.log().mid()) if v > 0 else math.inf
            est = _estimate_runs(k, beta, eps, kl, first_log, N)
            if est > budget:
                raise _runs_error(k, beta, eps, kl, est, budget)
        if len(values) > budget:
            raise _runs_error(k, beta, eps, kl, float(len(values)), budget)
        J += 1
        N = th.last_below(J)
    # tighten: every run whose ball reaches above the best lower end, at rising precision
    lo, hi = _enclosure(values)
    p = prec
    while hi > 0 and (hi - lo) * (1 << WANT_BITS) > hi:
        p *= 2
        if p > 1 << 14:
            break
        Bp = BallBinomial(beta, p)
        for JJ, (NN, vv) in list(values.items()):
            if vv.upper() >= best_lo:
                values[JJ] = (NN, Bp.upper_tail(JJ, NN))
        best_lo = max((vv.lower() for _, vv in values.values()), key=lambda a: a.mid())
        lo, hi = _enclosure(values)
    best_J = max(values, key=lambda JJ: values[JJ][1].mid())
    return Certified(
        lower=max(lo, Fraction(0)),
        upper=max(hi, lo, Fraction(0)),
        how=(
            "runs of equal threshold: d = max over J ≥ k of Pr[Bin(N_J, β) ≥ J], N_J decided "
            f"exactly; tails in ball arithmetic (python-flint arb, ≥ {prec} bits, geometric "
            f"remainder bound); {len(values)} runs; {stop_note}"
        ),
        details={"argmax_n": values[best_J][0], "argmax_J": best_J, "runs": len(values), "n_start": values[k][0]},
    )


def _enclosure(values: dict) -> tuple[Fraction, Fraction]:
    """[max of the lower ends, max of the upper ends] over all runs (exact rationals)."""
    balls = [v for _, v in values.values()]
    top_lo = max(balls, key=lambda v: v.mid())
    lo, _ = arb_to_fractions(top_lo)
    hi = Fraction(0)
    for v in balls:
        if v.upper() >= top_lo.lower() or v is top_lo:  # (53-bit ends: a coarse pre-filter)
            hi = max(hi, arb_to_fractions(v)[1])
    return lo, hi


def _runs_error(k: int, beta: Fraction, eps: Fraction, kl: Fraction, est: float, budget: int) -> CertificationError:
    edge = -math.log1p(-float(beta)) if float(beta) < 1 else math.inf
    e = float(eps)
    if e > 0 and edge > 0 and abs(e - edge) < 0.5 * edge:
        why = (
            f"epsilon = {e:.6g} is close to the edge -ln(1-beta) = {edge:.6g}, so the Chernoff "
            f"exponent KL(γ‖β) ≈ {float(kl):.3g} is small"
        )
    else:
        why = f"k = {k} makes the best value tiny, so the proven stopping rule needs many runs"
    return CertificationError(
        f"d: work limit reached (RUN_BUDGET = {budget} threshold runs, estimated {est:.3g}): {why}"
        f" (beta = {float(beta):.4g})"
    )


__all__ = ["d_by_runs", "Thresholds", "gamma_ball", "RUN_BUDGET", "rel_bits"]
