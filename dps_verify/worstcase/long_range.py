"""Suprema over group sizes that do not walk n one by one (CP Thm 5's d for tiny β or ε, huge k).

CP Thm 5's d(k, β, ε) = max_{n ≥ n_m} T(n), T(n) = Pr[Bin(n, β) > γn], γ = 1 − (1−β)e^{−ε}.
When β or ε is tiny the maximising n is ~k/γ (10^12 … 10^40 and beyond), and near the edge
ε = −ln(1−β) with huge k the proven stopping point is thousands of group sizes of 10^6+ records
away; the exact integer scan of :func:`dps_verify.worstcase.sdgs.scan` is out of reach there.

**Runs of equal threshold (proof).**  Write J(n) for the least integer j > γn, so T(n) =
Pr[Bin(n, β) ≥ J(n)].  J(n) is non-decreasing in n and grows by at most one per step (γ < 1).
For a fixed threshold J, Pr[Bin(n, β) ≥ J] is non-decreasing in n (Bin(n+1) = Bin(n) +
Bernoulli(β) is stochastically larger).  So on each run {n : J(n) = J} T is largest at the run's
last element N_J = max{n : γn < J} = ⌈J/γ⌉ − 1.  The run of J = k ends at n_m = N_k (J(n_m) = k,
since γ(n_m+1) ≥ k > γn_m and γ < 1), and the runs of J > k cover every n > n_m, hence

    d(k, β, ε) = max_{J ≥ k} U(J),   U(J) = Pr[Bin(N_J, β) ≥ J].

N_J is decided exactly: γn < J ⇔ n ≤ J or (n − J)·e^ε < n(1 − β), compared with e^ε enclosed
(:class:`dps_verify.worstcase.sdgs._Exp`, exact fallback); a ball value of J/γ only supplies the
starting guess.  U(J) is enclosed in ball arithmetic (:mod:`dps_verify.worstcase.ball_binomial`).

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

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import Certified
from dps_verify.core.params import neg_log1m_float
from dps_verify.core.search import least_integer
from dps_verify.core.types import WorstCaseMeasureLike
from dps_verify.worstcase.ball_binomial import (
    BallBinomial,
    arb_epsilon,
    arb_fraction,
    arb_to_fractions,
)
from dps_verify.worstcase.gamma_gap import eps_float, gamma_minus_beta_ball, gamma_minus_beta_float

#: Largest group size the monotone searches (doubling, then bisection) look at.
_SEARCH_LIMIT = 1 << 400
#: Most threshold runs one evaluation of d may visit (about 50–100 µs each).
RUN_BUDGET = 40_000


def _flint() -> Any:
    import flint

    return flint


def gamma_ball(beta: Fraction, eps: Fraction, prec: int) -> Any:
    """A ball around γ = β + (1−β)(1 − e^{−ε}) (no cancellation for tiny β, ε)."""
    flint = _flint()
    with flint.ctx.workprec(prec):
        return arb_fraction(beta) + gamma_minus_beta_ball(arb_fraction(1 - beta), arb_epsilon(eps))


class Thresholds:
    """N_J = max{n : γn < J}, decided exactly (module docstring)."""

    def __init__(self, beta: Fraction, eps: Fraction, E: Any) -> None:
        self.beta, self.eps, self.E = beta, eps, E
        self.q, self.r = beta.denominator, beta.denominator - beta.numerator

    def below(self, n: int, J: int) -> bool:
        """γn < J, decided exactly: n ≤ J, or (n − J)·q·e^ε < n·(q − p)."""
        return n <= J or self.E.less((n - J) * self.q, n * self.r)

    def last_below(self, J: int) -> int:
        """N_J: a ball of J/γ at as many bits as (J + 1)·q² has (γ ≥ β ≥ 1/q, so the ball of γ
        keeps away from 0 and its lower end lo is within a unit or so of J/γ); since lo ≤ J/γ,
        ⌈lo⌉ is at most ⌈J/γ⌉, the least n with γn ≥ J, which the exact test finds from ⌈lo⌉ on
        (:func:`least_integer`, certified: the answer's predecessor is checked too); N_J is the
        one before it.  The ball only places the start: any start at or below ⌈J/γ⌉ gives
        this N_J."""
        prec = ((J + 1) * self.q * self.q).bit_length()
        with _flint().ctx.workprec(prec):
            lo, _ = arb_to_fractions(J / gamma_ball(self.beta, self.eps, prec))
        return least_integer(lambda n: not self.below(n, J), lo=math.ceil(lo), limit=_SEARCH_LIMIT, what="run end") - 1


def _estimate_runs(k: int, beta: Fraction, eps: Fraction, kl: Fraction, first_log: float, N_k: int) -> float:
    """Float screen: the number of runs the stopping rule will need (first_log = −ln U(k),
    κ = ``kl`` > 0)."""
    b = float(beta)
    g = b + gamma_minus_beta_float(b, eps_float(eps))
    n_stop = max(first_log, 0.0) / float(kl)
    return max(0.0, g * (n_stop - N_k)) + 1


def d_by_runs(k: int, beta: Fraction, eps: Fraction, E: Any, kl: Fraction, budget: int = RUN_BUDGET) -> Certified:
    """CP Thm 5's d(k, β, ε) as max_{J ≥ k} Pr[Bin(N_J, β) ≥ J] (module docstring), in ball
    arithmetic, stopped by the Chernoff–Hoeffding rule.  Requires ε ≥ −ln(1−β) (checked by the
    caller) and a certified κ = ``kl`` ≤ KL(γ‖β), κ > 0."""
    if not kl > 0:
        raise ParameterError(f"d_by_runs: the Chernoff exponent bound must be positive (kl = {kl})")
    flint = _flint()
    th = Thresholds(beta, eps, E)
    prec = 96
    B = BallBinomial(beta, prec)
    values: dict[int, tuple[int, Any]] = {}  # J -> (N_J, ball)
    best_lo = Fraction(0)  # the largest certified lower end so far
    J = k
    N = th.last_below(k)
    est = None
    stop_note = ""
    while True:
        v = B.upper_tail(J, N)
        values[J] = (N, v)
        best_lo = max(best_lo, arb_to_fractions(v)[0])
        if best_lo > 0:
            # ℓ = the upper end of a ball of −ln(best_lo) (rounded up at prec); κ and ℓ are
            # compared as exact rationals
            with flint.ctx.workprec(prec):
                ell = arb_to_fractions((-arb_fraction(best_lo).log()).upper())[1]
            if (N + 1) * kl >= ell:
                stop_note = (
                    f"stopped after run J = {J} (n = {N}): for every n > {N}, "
                    "exp(−n·KL(γ‖β)) (Chernoff–Hoeffding) is below the best value found"
                )
                break
        if est is None:
            first_log = -float(v.log().mid())  # v > 0: a tight ball of a positive probability
            est = _estimate_runs(k, beta, eps, kl, first_log, N)
            if est > budget:
                raise _runs_error(k, beta, eps, kl, est, budget)
        if len(values) >= budget:  # the next run would be one past the budget
            raise _runs_error(k, beta, eps, kl, float(len(values) + 1), budget)
        J += 1
        N = th.last_below(J)
    # every ball is tight to about 2^−prec relative (BallBinomial's precision contract), so the
    # enclosure below is tight to about 90 bits (single-value APIs need 1e-15 ≈ 50)
    lo, hi = _enclosure(values)
    best_J = max(values, key=lambda JJ: values[JJ][1].mid())
    return Certified(  # lo > 0: tight balls of positive probabilities; hi ≥ lo: max of upper ends
        lower=lo,
        upper=hi,
        how=(
            "runs of equal threshold: d = max over J ≥ k of Pr[Bin(N_J, β) ≥ J], N_J decided "
            f"exactly; tails in ball arithmetic (python-flint arb, ≥ {prec} bits, geometric "
            f"remainder bound); {len(values)} runs; {stop_note}"
        ),
        details={"argmax_n": values[best_J][0], "argmax_J": best_J, "runs": len(values), "n_start": values[k][0]},
    )


def _enclosure(values: dict) -> tuple[Fraction, Fraction]:
    """[max of the lower ends, max of the upper ends] over all runs (exact rationals)."""
    ends = [arb_to_fractions(v) for _, v in values.values()]
    return max(lo for lo, _ in ends), max(hi for _, hi in ends)


def _runs_error(k: int, beta: Fraction, eps: Fraction, kl: Fraction, est: float, budget: int) -> CertificationError:
    edge = neg_log1m_float(beta)  # > 0 (0 < β < 1), and ε > 0
    e = eps_float(eps)
    if abs(e - edge) < 0.5 * edge:
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




# --- the exact worst case of sampled strongly-safe k-anonymization over segments ------------
#
# Notation of :func:`dps_verify.worstcase.sdgs.scan`: for group size n the forward bad set is the
# published counts j ≥ T_n = max(k, J_n), J_n the least j > γn; outside CP Thm 5's regime the
# backward bad set is the published counts k ≤ j ≤ m_n, m_n = max(M_n, k − 1), M_n the largest
# j < γ'n (γ' = 1 − (1−β)e^ε > 0), plus the suppressed outcome when z_n: F(k−1; n−1) >
# e^ε F(k−1; n).  Write S_T(n) = Pr[X_n ≥ T], F(m; n) = Pr[X_n ≤ m], X_n ~ Bin(n, β).
#
# Breakpoints.  T_n changes only at n = N_J + 1 (N_J as in d); m_n only where γ'n crosses an
# integer; z_n at most once (false, then true): z_n ⇔ 1/(1 − β h(n−1)) > e^ε with h(m) =
# f(k−1; m)/F(k−1; m), and h is non-decreasing because Bin(m+1) conditioned on {X ≤ k−1}
# dominates Bin(m) conditioned likewise in likelihood ratio (f(j; m+1)/f(j; m) increases in j),
# which raises the probability of the top point k−1.  Between breakpoints (a *segment*) T, m, z
# are constant, and:
#
# * Fwd(n) = S_T(n) − e^ε S_T(n−1) (hockey-stick, forward) has Fwd(n+1) − Fwd(n) =
#   β[f(T−1; n) − e^ε f(T−1; n−1)] ≥ 0 ⇔ n(1−β) ≥ e^ε(n − T + 1) ⇔ γn ≤ T − 1: unimodal, largest
#   at the least n with γn > T − 1 (N_{T−1} + 1), clamped to the segment.
# * b_m(n) = F(m; n−1) − e^ε F(m; n) has b_m(n+1) − b_m(n) = β[e^ε f(m; n) − f(m; n−1)] ≥ 0 ⇔
#   γ'n ≤ m: unimodal, largest at the least n with γ'n > m, clamped.
# * Pointwise: the P-mass of the bad set is S_T(n) + F(m; n) = 1 − W(n) (z true), W(n) =
#   Pr[m < X_n < T]; W(n+1) − W(n) = β[f(m; n) − f(T−1; n)] changes sign at most once (+ to −,
#   since f(T−1; n)/f(m; n) increases in n), so 1 − W is largest at an end of the segment; the
#   Q-mass is the same at n − 1.  With z false it is S_T(n), non-decreasing in n.
#
# A non-empty published backward set forces z (m_n ≥ k ⇒ z_n).  m_n ≥ k means k < γ'n, so every
# j ≤ k − 1 has j < γ'n, i.e. f(j; n−1) > e^ε f(j; n) (the ratio is (n − j)/(n(1−β))); summing
# over j ≤ k − 1 gives F(k−1; n−1) > e^ε F(k−1; n).  So z false means m_n = k − 1: the backward
# hockey-stick sum is 0 and the pointwise bad set is {j ≥ T}.  Every segment's maximum is
# therefore at one of the closed-form candidates above (no branch and bound).  Stopping rules
# are those of ``scan``: TV(Bin(N), Bin(N−1)) = β·max_j f(j; N−1), non-increasing in N, for the
# hockey-stick; Chernoff–Hoeffding on both tails otherwise.

#: Most segments one evaluation may visit.
SEGMENT_BUDGET = 20_000
#: Segments probed when the estimate is over budget (the scan may still stop early).
PROBE = 300
#: Largest k for which an undecided suppressed-outcome test falls back to exact integers.
EXACT_TIE_MAX_K = 2_000


class _SegmentScan:
    def __init__(self, k: int, beta: Fraction, eps: Fraction, measure: WorstCaseMeasureLike, E: Any, backward: bool, prec: int) -> None:
        flint = _flint()
        self.flint = flint
        self.k, self.beta, self.eps, self.measure, self.E, self.backward = k, beta, eps, measure, E, backward
        self.prec = prec
        self.B = BallBinomial(beta, prec)
        self.th = Thresholds(beta, eps, E)
        self.q, self.r = beta.denominator, beta.denominator - beta.numerator
        with flint.ctx.workprec(prec + 64):
            # e^ε − 1 from the true ε.  Arb's exp gives [±inf] past ε ≈ 2^(2·precision) (2^320 at
            # 160 bits); it then only ever multiplies an exactly-zero tail (:meth:`_em1_times`).
            self.em1 = arb_epsilon(eps).expm1()
            self.b = arb_fraction(beta)
        self.cache: dict[tuple, Any] = {}

    # exact threshold decisions ---------------------------------------------------------------
    def fwd_T(self, n: int) -> int:
        """T_n = max(k, J_n), J_n = least j > γn: the least J ≥ k with γn < J (exact tests,
        certified by :func:`least_integer`; J = n always qualifies, γ < 1; a float γn only
        supplies the start)."""
        guess = int(self._gamma_float() * n) + 1
        return least_integer(lambda J: self.th.below(n, J), lo=self.k, guess=guess, limit=max(n, self.k),
                             what="segment scan: forward threshold")

    def _gamma_float(self) -> float:
        b = float(self.beta)
        return b + gamma_minus_beta_float(b, eps_float(self.eps))

    def bwd_bad(self, n: int, j: int) -> bool:
        """j < γ'n ⇔ e^ε·n·(q−p) < (n − j)·q (exact)."""
        return j < n and self.E.less(n * self.r, (n - j) * self.q)

    def bwd_m(self, n: int) -> int:
        """m_n = max(M_n, k − 1), M_n = largest j < γ'n: one less than the least j ≥ k with
        j ≥ γ'n (exact tests, certified by :func:`least_integer`; j = n always qualifies; a float
        γ'n only supplies the start)."""
        if not self.backward:
            return self.k - 1
        gp = 1 - (1 - float(self.beta)) * math.exp(min(float(self.eps), 700.0))
        return least_integer(lambda j: not self.bwd_bad(n, j), lo=self.k, guess=int(gp * n), limit=max(n, self.k),
                             what="segment scan: backward threshold") - 1

    def least_n_bwd_bad(self, j: int, lo: int) -> int:
        """Least n ≥ lo with j < γ'n (monotone in n)."""
        return least_integer(
            lambda n: self.bwd_bad(n, j), lo=lo, limit=lo + _SEARCH_LIMIT, what="segment scan: backward threshold n"
        )

    # ball values ----------------------------------------------------------------------------
    def _c(self, key: tuple, fn: Any) -> Any:
        """The memoised ball ``fn()`` for ``key``, whose last entry is the group size n: the
        combination is rounded at n's working precision (prec + 2·log2 n bits, as the tails)."""
        v = self.cache.get(key)
        if v is None:
            with self.flint.ctx.workprec(self.B._wp(key[-1])):
                v = fn()
            self.cache[key] = v
        return v

    def S(self, T: int, n: int) -> Any:
        return self._c(("S", T, n), lambda: self.B.upper_tail(T, n))

    def F(self, m: int, n: int) -> Any:
        return self._c(("F", m, n), lambda: self.B.lower_cdf(m, n))

    def _em1_times(self, em1: Any, x: Any) -> Any:
        """(e^ε − 1)·x, exactly 0 when the ball x is exactly 0.

        An exact-zero tail times e^ε − 1 is 0 for every finite ε, but Arb's exp of a huge ε
        (past about 2^(2·precision), at least 2^128) is the non-finite ball [±inf], and [±inf]·0
        is [±inf]: the scan would refuse where the answer is known.  Where e^ε − 1 is non-finite
        nothing else meets it.  CP Thm 5's regime holds (outside it ε < −ln(1−β), which for
        ε ≥ 2^64 needs a β whose denominator has more than 2^64 bits), so the backward terms (bm,
        z) are never asked.  The forward threshold T_n = max(k, J_n) is n for every group size
        n ≤ e^ε/(1−β) (J_n = least j > γn and n − γn = n(1−β)e^{−ε} ≤ 1), i.e. for every n
        a scan can reach, so the forward tail S_T(n−1) = Pr[X_{n−1} ≥ n] is the exact ball 0
        (:meth:`BallBinomial.upper_tail` past n) and Fwd(n) = β·f(n−1; n−1) = β^n."""
        return self.flint.arb(0) if x.is_zero() else em1 * x

    def fwd(self, T: int, n: int) -> Any:
        """S_T(n) − e^ε S_T(n−1) = β f(T−1; n−1) − (e^ε−1) S_T(n−1)."""
        return self._c(("fwd", T, n), lambda: self.b * self.B.pmf(T - 1, n - 1) - self._em1_times(self.em1, self.S(T, n - 1)))

    def bm(self, m: int, n: int) -> Any:
        """F(m; n−1) − e^ε F(m; n) = β f(m; n−1) − (e^ε−1) F(m; n)."""
        return self._c(("bm", m, n), lambda: self.b * self.B.pmf(m, n - 1) - self._em1_times(self.em1, self.F(m, n)))

    def z(self, n: int) -> bool:
        """Suppressed outcome bad backward: F(k−1; n−1) > e^ε F(k−1; n), strictly (a tie is not
        bad: it adds 0 to the hockey-stick sum and is no pointwise violation).  Decided in ball
        arithmetic, at up to 16 times the working precision; a ball that still straddles 0 (an
        exact tie, e.g. ε = ln x with x the ratio itself) goes to :meth:`z_exact`.  Never true in
        CP Thm 5's regime (F(k−1; n−1) ≤ F(k−1; n)/(1−β) ≤ e^ε F(k−1; n)); the scan asks only
        outside it."""
        k = self.k
        v = self._c(("z", n), lambda: self.b * self.B.pmf(k - 1, n - 1) - self._em1_times(self.em1, self.F(k - 1, n)))
        p = self.prec
        while True:
            if v > 0:
                return True
            if v <= 0:
                return False
            p *= 2
            if p > 16 * self.prec:
                decided = self.cache.get(("z exact", n))
                if decided is None:
                    decided = self.cache[("z exact", n)] = self.z_exact(n)
                return bool(decided)
            Bp = BallBinomial(self.beta, p)
            with self.flint.ctx.workprec(Bp._wp(n)):
                em1 = arb_epsilon(self.eps).expm1()
                v = arb_fraction(self.beta) * Bp.pmf(k - 1, n - 1) - self._em1_times(em1, Bp.lower_cdf(k - 1, n))

    def z_exact(self, n: int) -> bool:
        """z_n decided exactly.  With β = p/q, r = q − p and A(n) = Σ_{j ≤ k−1} C(n, j) p^j r^{k−1−j}
        (an integer), F(k−1; n) = r^{n−k+1} A(n) / q^n, so z_n ⇔ e^ε·r·A(n) < q·A(n−1), which
        the e^ε enclosure decides exactly (``E.less``: :func:`~dps_verify.core.numbers.exp_compare`
        when its dyadic ball cannot; exact for an exact-log ε, ties included).  A(n) costs about
        k² multiplications of k-digit integers, so k is capped at :data:`EXACT_TIE_MAX_K`."""
        k = self.k
        if k > EXACT_TIE_MAX_K:
            raise CertificationError(
                f"segment scan: cannot decide the suppressed outcome at n = {n} in ball arithmetic "
                f"(an exact tie F(k−1; n−1) = e^epsilon·F(k−1; n)?) and the exact check is limited "
                f"to k ≤ {EXACT_TIE_MAX_K} (k = {k}, beta = {float(self.beta):.4g}, "
                f"epsilon = {float(self.eps):.4g})"
            )
        p, q, r = self.beta.numerator, self.q, self.r

        def A(size: int) -> int:  # Horner: acc_i = Σ_{j ≤ i} C(size, j) p^j r^{i−j} (size ≥ k − 1)
            acc = c = pp = 1
            for i in range(k - 1):
                c = c * (size - i) // (i + 1)
                pp *= p
                acc = acc * r + c * pp
            return acc

        return bool(self.E.less(r * A(n), q * A(n - 1)))

    def value(self, n: int, T: int, m: int, z: bool) -> Any:
        """The per-n value of the measure with the bad set (T, m, z); z false implies m = k − 1
        (segment notes)."""
        arb = self.flint.arb
        with self.flint.ctx.workprec(self.B._wp(n)):
            if self.measure == "hockey-stick":
                f = self.fwd(T, n)
                return f.max(self.bm(m, n)) if z else f
            if z and m >= T - 1:  # every output is bad: P- and Q-masses are exactly 1
                return arb(1)
            out = arb(0)
            for nn in (n, n - 1):
                mass = self.S(T, nn)
                if z:
                    mass = mass + self.F(m, nn)
                out = out.max(mass)
            return out

    def candidates(self, a: int, b: int, T: int, m: int, z: bool) -> list[int]:
        """The group sizes of the segment [a, b] (T, m, z constant) among which the value is
        largest (segment notes): the hockey-stick's forward maximiser N_{T−1} + 1 and, with z,
        the backward one (least n with γ'n > m), each clamped to [a, b]; the pointwise ends."""
        if self.measure == "hockey-stick":
            out = [min(max(self.th.last_below(T - 1) + 1, a), b)]
            if z:
                out.append(min(max(self.least_n_bwd_bad(m, 1), a), b))
            return out
        return [a, b]


    def stop_note(self, N: int, best: Fraction, kl: Fraction, kl_below: Any) -> str:
        """Why no group size n ≥ N has a value above ``best`` (> 0), or "" when no rule proves it:
        the value 1 is the largest possible; the hockey-stick δ(n) ≤ TV(Bin(n), Bin(n−1)) =
        β·max_j f(j; n−1), non-increasing in n; the forward bad set has P-mass
        ≤ exp(−n·KL(γ‖β)) (Chernoff–Hoeffding, κ = ``kl`` ≤ KL(γ‖β)); outside the regime the
        backward one adds ≤ exp(−(N−1)·KL(c_N‖β)) with c_N ≥ max(k, γ'n)/(n−1) for n ≥ N
        (``kl_below(c, β)`` ≤ KL(c‖β), c < β), hence the ln 2."""
        if best >= 1:
            return f"stopped at n = {N}: the value 1 (the largest possible) is attained"
        beta = self.beta
        with self.flint.ctx.workprec(self.prec):
            if self.measure == "hockey-stick":
                mode = min(N * beta.numerator // beta.denominator, N - 1)  # a mode of Bin(N−1, β)
                if arb_to_fractions(self.b * self.B.pmf(mode, N - 1))[1] <= best:
                    return (f"stopped at n = {N}: for every n' ≥ {N}, δ ≤ TV(Bin(n'), Bin(n'−1)) = "
                            "β·max pmf of Bin(n'−1), non-increasing in n', is below the best value")
            # need = the upper end of a ball of −ln(best) (+ ln 2), rounded up at the scan's
            # precision; the exponents are compared with it as exact rationals
            ball = -arb_fraction(best).log() + (self.flint.arb(2).log() if self.backward else 0)
            need = arb_to_fractions(ball.upper())[1]
            if not N * kl >= need:
                return ""
            if not self.backward:
                return (f"stopped at n = {N}: for every n' ≥ {N} the Chernoff–Hoeffding bound "
                        "exp(−n'·KL(γ‖β)) is below the best value found")
            gp_hi = 1 - (1 - beta) * Fraction(int(self.E.lo), 1 << self.E.s)  # ≥ γ' > 0
            c_N = max(Fraction(self.k), gp_hi * N) / (N - 1)
            if c_N < beta and (N - 1) * kl_below(c_N, beta) >= need:
                return (f"stopped at n = {N}: for every n' ≥ {N}, exp(−n'·KL(γ‖β)) + "
                        "exp(−(N−1)·KL(c_N‖β)) (Chernoff–Hoeffding, both tails) is below the best value")
        return ""


def sdgs_by_segments(
    k: int,
    beta: Fraction,
    eps: Fraction,
    measure: WorstCaseMeasureLike,
    E: Any,
    kl: Fraction,
    kl_below: Any,
    budget: int = SEGMENT_BUDGET,
    prec: int = 96,
    est_n_stop: float | None = None,
) -> Certified:
    """sup_{n ≥ k} of the hockey-stick or pointwise value of one recoding group (see the
    segment notes above), visiting segments of constant bad set instead of single group sizes.
    ε > 0, ``E`` the enclosure of e^ε (:class:`dps_verify.worstcase.sdgs._Exp`).  The backward
    bad set is added exactly outside CP Thm 5's regime (ε < −ln(1−β)), decided here from ``E``
    (the test of :func:`dps_verify.worstcase.sdgs.in_regime_fast`), so no caller can ask for the
    wrong one.  ``kl`` ≤ KL(γ‖β) certified; ``kl_below(c, β)`` ≤ KL(c‖β) certified for c < β.
    ``details['argmax_n']`` is the smallest group size with the largest certified lower end
    (candidates are visited in increasing n and only a strictly larger lower end replaces the
    best): on an exact tie that the balls show, such as the pointwise value 1 over a segment, it
    is the smallest maximiser, as in the exact walk of ``scan``; balls do not decide other ties."""
    if measure not in ("hockey-stick", "pointwise"):
        raise ParameterError(f"segment scan: measure must be hockey-stick or pointwise, got {measure!r}")
    # outside the regime ⇔ e^ε·(q − p) < q for β = p/q (exact; ε > 0)
    backward = E.less(beta.denominator - beta.numerator, beta.denominator)
    over_estimate: CertificationError | None = None
    if est_n_stop is not None:  # work estimate before starting (segments ≈ (γ + γ')·range)
        bf, ef = float(beta), min(eps_float(eps), 700.0)
        g = bf + gamma_minus_beta_float(bf, ef)
        gp = max(1 - (1 - bf) * math.exp(ef), 0.0) if backward else 0.0
        segs = (g + gp) * max(est_n_stop - k, 0.0) + 1
        if segs > budget:
            # Over budget by estimate.  The scan may still end early (pointwise value 1, the
            # hockey-stick's TV cut), so a short probe of PROBE segments runs first; past it the
            # estimate is the error.
            over_estimate = CertificationError(
                f"sdgs ({measure}): work limit reached (SEGMENT_BUDGET = {budget} segments, estimated "
                f"{segs:.3g}): k = {k}, beta = {float(beta):.4g} and epsilon = {eps_float(eps):.4g} make the "
                f"Chernoff stopping point n ≈ {est_n_stop:.3g} far from the first group size"
            )
            budget = min(budget, PROBE)
    sc = _SegmentScan(k, beta, eps, measure, E, backward, prec)
    # z_n: false, then true from n_z on (module notes); found by doubling and bisection
    n_z: int | None = None
    if backward:  # z decided exactly, ties not bad (_SegmentScan.z)
        n_z = least_integer(sc.z, lo=k, limit=_SEARCH_LIMIT, what="segment scan: n where the suppressed outcome turns bad")
    best_lo = Fraction(0)  # the largest certified lower end so far, at group size best_n
    best_n = k
    hi = Fraction(0)  # the largest upper end so far
    visited = 0
    a = k
    while True:
        visited += 1
        if visited > budget:
            raise over_estimate or CertificationError(
                f"sdgs ({measure}): work limit reached (SEGMENT_BUDGET = {budget} segments) near "
                f"group size n ≈ {a:.3g}: beta = {float(beta):.4g} and epsilon = {eps_float(eps):.4g} "
                "make the worst group size huge and the stopping bounds slow"
            )
        T = sc.fwd_T(a)
        m = sc.bwd_m(a)
        z = n_z is not None and a >= n_z
        # segment end: the next change of T (the run of T ends at N_T), of m, or of z
        b = sc.th.last_below(T)
        if n_z is not None:
            b = min(b, sc.least_n_bwd_bad(m + 1, a) - 1)
            if a < n_z:
                b = min(b, n_z - 1)
        for c in sorted(set(sc.candidates(a, b, T, m, z))):  # increasing n: ties keep the smallest
            lo_c, hi_c = arb_to_fractions(sc.value(c, T, m, z))
            if lo_c > best_lo:
                best_lo, best_n = lo_c, c
            hi = max(hi, hi_c)
        a = b + 1
        stop_note = sc.stop_note(a, best_lo, kl, kl_below) if best_lo > 0 else ""
        if stop_note:
            break
    return Certified(
        lower=best_lo,
        upper=max(min(hi, Fraction(1)), best_lo),  # a divergence of probability laws is ≤ 1
        how=(
            "segments of constant bad set (closed-form maximiser or end points per segment; "
            f"proofs in worstcase/long_range.py); ball arithmetic "
            f"(python-flint arb, {prec}-bit working precision); {visited} segments; {stop_note}"
        ),
        details={"argmax_n": best_n, "segments": visited, "n_start": k},
    )


__all__ = ["d_by_runs", "sdgs_by_segments", "Thresholds", "gamma_ball", "RUN_BUDGET", "SEGMENT_BUDGET"]
