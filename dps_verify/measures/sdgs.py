"""Worst-case δ of sampled strongly-safe k-anonymization ("(k,β)-SDGS", TR Alg. 4).

Reduction (CP App. A.2).  Fix a data-independent recoding g, a dataset D and a record t ∈ D,
and let n be the number of records of D that g maps to g(t).  Other recoding groups are sampled
independently and appear identically under D and D−t, so they drop out of every divergence.  The
group of g(t) is published as j copies when j ≥ k records of it are sampled, and suppressed
(output "0") otherwise.  So the two output laws are

    P_n(j) = f(j; n, β) for j ≥ k,  P_n(0) = F(k−1; n, β)          (under D)
    Q_n(j) = f(j; n−1, β) for j ≥ k, Q_n(0) = F(k−1; n−1, β)      (under D−t)

and the worst case over all datasets is a supremum over n ≥ 1 of a divergence of (P_n, Q_n).

For j ≥ k the likelihood ratio is f(j;n)/f(j;n−1) = n(1−β)/(n−j), which exceeds e^ε exactly
when n − j < n(1−β)e^{−ε}, i.e. j > γn with γ = 1 − (1−β)e^{−ε}.

This module scans n upward with exact integer arithmetic and stops by a proven rule: the
Chernoff–Hoeffding bound Pr[Bin(n,β) ≥ γn] ≤ exp(−n·KL(γ‖β)) (γ > β) decreases in n and bounds
every later term; once it falls below the best value found, the supremum is attained.  In the
regime ε < −ln(1−β) (outside CP Thm 5) the scan uses the generic engine on (P_n, Q_n) and the
bound TV(P_n, Q_n) ≤ β·max_j f(j; n−1, β), which is non-increasing in n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from dps_verify.core.binomial import cdf, max_pmf, pmf, pmf_num
from dps_verify.core.numbers import (
    BASE_PREC,
    Certified,
    Number,
    exp_affine_enclosure,
    exp_compare,
    fraction_to_mpf,
    iv_from_fraction,
    iv_lower,
    iv_precision,
    iv_upper,
)
from dps_verify.core.params import beta_param, epsilon_param, in_paper_regime, k_param
from dps_verify.measures.divergence import DEFINITIONS, delta_certified, pointwise_delta_exact

#: Default cap on the group sizes scanned before giving up with an honest enclosure.
DEFAULT_MAX_N = 20_000


def slack(n: int, beta: Fraction, eps: Fraction) -> int:
    """Largest m ≥ 0 with m < n(1−β)e^{−ε}: outcomes j ≥ n − m are the bad ones (j > γn)."""
    c_n = n * (1 - beta)
    guess = int(float(c_n) * math.exp(-float(eps)))
    m = max(guess - 2, 0)
    while _slack_ok(m + 1, c_n, eps):
        m += 1
    while m > 0 and not _slack_ok(m, c_n, eps):
        m -= 1
    return m


def _slack_ok(m: int, c_n: Fraction, eps: Fraction) -> bool:
    """m < c_n·e^{−ε}  ⇔  e^ε < c_n / m (m ≥ 1); m = 0 always qualifies."""
    return m == 0 or exp_compare(eps, c_n / m) < 0


def first_bad(n: int, beta: Fraction, eps: Fraction) -> int:
    """Smallest j with j > γn (CP Thm 5's threshold), computed exactly."""
    return n - slack(n, beta, eps)


def n_min(k: int, beta: Fraction, eps: Fraction) -> int:
    """n_m = ⌈k/γ − 1⌉: the least n with γ(n+1) ≥ k (CP App. A.2), computed exactly."""

    def ok(n: int) -> bool:  # γ(n+1) ≥ k  ⇔  (n+1−k)e^ε ≥ (n+1)(1−β)
        if n + 1 - k <= 0:
            return False
        return exp_compare(eps, Fraction((n + 1) * (1 - beta)) / (n + 1 - k)) >= 0

    gamma = 1 - float(1 - beta) * math.exp(-float(eps))
    n = max(int(math.ceil(k / gamma - 1)), 0)
    while not ok(n):
        n += 1
    while n > 0 and ok(n - 1):
        n -= 1
    return n


def kl_lower(beta: Fraction, eps: Fraction, prec: int = BASE_PREC) -> Fraction:
    """A certified lower bound on KL(γ‖β), γ = 1 − (1−β)e^{−ε} (Chernoff exponent)."""
    with iv_precision(prec):
        iv = mpmath.iv
        b = iv_from_fraction(beta)
        g = 1 - iv_from_fraction(1 - beta) * iv.exp(-iv_from_fraction(eps))
        kl = g * iv.log(g / b) + (1 - g) * iv.log((1 - g) / (1 - b))
        lo = iv_lower(kl) if iv_lower(kl) > 0 else None
    return lo if lo is not None else Fraction(0)


def neg_log_upper(x: Fraction, prec: int = BASE_PREC) -> Fraction:
    """A certified upper bound on −ln(x) for 0 < x ≤ 1."""
    with iv_precision(prec):
        v = -mpmath.iv.log(iv_from_fraction(x))
        return iv_upper(v)


class _Tails:
    """Integer tails A = Σ_{j≥J} N(n, j) and B = Σ_{j≥J} N(n−1, j) over q^n and q^(n−1)."""

    def __init__(self, n: int, J: int, p: int, q: int) -> None:
        self.n, self.J, self.p, self.q = n, J, p, q
        self.A = sum(pmf_num(n, j, p, q) for j in range(J, n + 1))
        self.B = sum(pmf_num(n - 1, j, p, q) for j in range(J, n))

    def advance(self, J_new: int) -> None:
        n, J, p, q = self.n, self.J, self.p, self.q
        if J_new not in (J, J + 1):
            raise AssertionError("threshold moved by more than one")
        # Bin(n+1) = Bin(n) + Bernoulli(β):  Pr[X_{n+1} ≥ J] = Pr[X_n ≥ J] + β Pr[X_n = J−1].
        A_next = q * self.A + p * pmf_num(n, J - 1, p, q)
        B_next = self.A
        if J_new == J + 1:
            A_next -= pmf_num(n + 1, J, p, q)
            B_next -= pmf_num(n, J, p, q)
        self.n, self.J, self.A, self.B = n + 1, J_new, A_next, B_next


@dataclass
class _Best:
    lower: Fraction = Fraction(-1)
    upper: Fraction = Fraction(-1)
    n: int = 0


def _exp_scaled_interval(eps: Fraction, A: int, qB: int, den: int) -> tuple[Fraction, Fraction]:
    """Enclosure of (A − e^ε·qB)/den (see :func:`~dps_verify.numbers.exp_affine_enclosure`)."""
    lo, hi = exp_affine_enclosure(Fraction(A), Fraction(qB), eps)
    return lo / den, hi / den


def scan_paper_regime(
    k: int,
    beta: Fraction,
    eps: Fraction,
    *,
    measure: str,
    max_n: int = DEFAULT_MAX_N,
) -> Certified:
    """Supremum over group sizes n of a per-n measure, for ε ≥ −ln(1−β) (checked by caller).

    ``measure``:
      - ``"paper-d"``: CP Thm 5's d — Σ_{j>γn}^{n} f(j;n,β) over n ≥ n_m;
      - ``"pointwise"``: mass under D of outcomes with |ln P/Q| > ε, over all n ≥ 1
        (equal to ``paper-d`` if CP's monotonicity argument is right);
      - ``"hockey-stick"``: Σ_{bad} (P_n − e^ε Q_n), over all n ≥ 1.
    """
    p, q = beta.numerator, beta.denominator
    if measure == "paper-d":
        n0 = n_min(k, beta, eps)
    else:
        n0 = k  # for n < k nothing is ever published from t's group
    n0 = max(n0, 1)

    def threshold(n: int) -> int:
        j0 = first_bad(n, beta, eps)
        return j0 if measure == "paper-d" else max(k, j0)

    kl = kl_lower(beta, eps)
    if kl <= 0:
        from dps_verify.core.errors import CertificationError

        raise CertificationError(
            "Chernoff exponent not certified positive (TR §6 Thm 6 scan); epsilon too close to the "
            "regime edge -ln(1-beta)"
        )
    tails = _Tails(n0, threshold(n0), p, q)
    best = _Best()
    n_stop = None
    n = n0
    while True:
        den = q**n
        if measure == "hockey-stick":
            lo, hi = _exp_scaled_interval(eps, tails.A, q * tails.B, den)
        else:
            lo = hi = Fraction(tails.A, den)
        if lo > best.lower:
            best.lower, best.n = lo, n
            n_stop = math.floor(neg_log_upper(lo) / kl) + 1 if lo > 0 else None
        best.upper = max(best.upper, hi)
        if n_stop is not None and n + 1 >= n_stop:
            tail_note = (
                f"scan stopped at n = {n + 1}: for every n' ≥ {n + 1} the Chernoff–Hoeffding "
                f"bound exp(−n'·KL(γ‖β)) < best value found"
            )
            upper = best.upper
            break
        if n >= max_n:
            # Honest enclosure: later terms are bounded by the Chernoff bound at n + 1.
            with iv_precision(BASE_PREC):
                u = mpmath.iv.exp(-iv_from_fraction(kl * (n + 1)))
                ub = iv_upper(u)
            upper = max(best.upper, ub)
            tail_note = f"scan capped at n = {max_n}; later n bounded by Chernoff ({float(ub):.3g})"
            break
        tails.advance(threshold(n + 1))
        n += 1
    how = (
        "exact rational arithmetic over integers (binomial numerators over q^n)"
        if measure != "hockey-stick"
        else "exact rational tails; e^ε enclosed by mpmath interval arithmetic (≥128 bits), "
        "outward rounding"
    )
    return Certified(
        lower=max(best.lower, Fraction(0)),
        upper=max(upper, Fraction(0)),
        how=f"{how}; {tail_note}",
        details={"argmax_n": best.n, "n_start": n0, "n_scanned": n - n0 + 1},
    )


def output_laws(n: int, k: int, beta: Fraction) -> tuple[dict, dict]:
    """The exact output laws (P_n, Q_n) of t's recoding group (see module docstring)."""
    P: dict[int, Fraction] = {0: cdf(k - 1, n, beta)}
    Q: dict[int, Fraction] = {0: cdf(k - 1, n - 1, beta)}
    for j in range(k, n + 1):
        P[j] = pmf(j, n, beta)
        if j <= n - 1:
            Q[j] = pmf(j, n - 1, beta)
    return P, Q


def scan_generic(
    k: int,
    beta: Fraction,
    eps: Fraction,
    *,
    definition: str,
    max_n: int = 400,
) -> Certified:
    """Supremum over n of δ(P_n, Q_n) using the generic exact engine (any ε ≥ 0).

    Slow (O(n) per group size) but obviously faithful to the definitions; it is the oracle the
    fast scan is tested against, and the only path for ε < −ln(1−β).
    """

    best = _Best()
    stop_note = None
    for n in range(1, max_n + 1):
        P, Q = output_laws(n, k, beta)
        if definition == "hockey-stick":
            c = delta_certified(P, Q, eps)
            lo, hi = c.lower, c.upper
        else:
            lo = hi = pointwise_delta_exact(P, Q, eps)
        if lo > best.lower:
            best.lower, best.n = lo, n
        best.upper = max(best.upper, hi)
        bound = _generic_tail_bound(n + 1, k, beta, eps, definition)
        if bound <= best.lower:
            stop_note = f"stopped at n = {n + 1}: a bound non-increasing in n fell below the best value"
            break
    upper = best.upper
    if stop_note is None:
        upper = max(upper, min(_generic_tail_bound(max_n + 1, k, beta, eps, definition), 1))
        stop_note = f"scan capped at n = {max_n}; enclosure includes a bound for larger n"
    return Certified(
        lower=max(best.lower, Fraction(0)),
        upper=upper,
        how=f"generic exact engine on the group's output laws; {stop_note}",
        details={"argmax_n": best.n},
    )


def _generic_tail_bound(
    n: int, k: int, beta: Fraction, eps: Fraction, definition: str
) -> Fraction:
    """An upper bound, valid for every n' ≥ n, on the per-n divergence (1 if nothing better)."""
    if definition == "hockey-stick":
        # H_ε ≤ TV(P_n, Q_n) ≤ TV(Bin(n), Bin(n−1)) = β·max pmf of Bin(n−1), non-increasing in n.
        return beta * max_pmf(n - 1, beta)
    # Pointwise: bad outputs lie in {X ≥ γn} (ratio above e^ε) or {X ≤ a_n}, a_n = max(k−1, γ'n)
    # with γ' = 1 − (1−β)e^ε (ratio below e^−ε).  Chernoff–Hoeffding bounds both masses, under
    # Bin(n) and under the stochastically smaller Bin(n−1); each bound is non-increasing in n.
    if n < 2 or eps == 0:
        return Fraction(1)
    with iv_precision(BASE_PREC):
        iv = mpmath.iv
        b = iv_from_fraction(beta)
        e = iv.exp(iv_from_fraction(eps))
        g_hi = 1 - iv_from_fraction(1 - beta) / e
        total = iv.exp(-n * _kl(g_hi, b))
        g_lo = 1 - iv_from_fraction(1 - beta) * e
        x_lo, x_hi = Fraction(k - 1, n - 1), Fraction(k - 1, n - 1)
        if iv_upper(g_lo) > 0:
            y = g_lo * n / (n - 1)
            x_lo, x_hi = max(x_lo, iv_lower(y)), max(x_hi, iv_upper(y))
        if x_hi >= iv_lower(b) or x_lo <= 0:
            return Fraction(1)
        x = iv.mpf([fraction_to_mpf(x_lo, "d"), fraction_to_mpf(x_hi, "u")])
        total += iv.exp(-(n - 1) * _kl(x, b))
        return iv_upper(total)


def _kl(a, b):  # interval KL(a‖b) for Bernoulli laws
    iv = mpmath.iv
    return a * iv.log(a / b) + (1 - a) * iv.log((1 - a) / (1 - b))


def sdgs_delta_certified(
    k: Number, beta: Number, epsilon: Number, definition: str = "hockey-stick"
) -> Certified:
    """Exact worst case of sampled strongly-safe k-anonymization, as an enclosure."""
    kk = k_param(k)
    b = beta_param(beta)
    eps = epsilon_param(epsilon)
    if definition not in DEFINITIONS:
        raise ValueError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    if eps > 0 and in_paper_regime(b, eps):
        return scan_paper_regime(kk, b, eps, measure=definition)
    return scan_generic(kk, b, eps, definition=definition)


def sdgs_delta(
    k: Number, beta: Number, epsilon: Number, definition: str = "hockey-stick"
) -> mpmath.mpf:
    """Exact worst-case δ, over all datasets and records, of sampled strongly-safe
    k-anonymization (the δ actually needed, versus the paper's upper bound ``bounds.d``).

    Valid for every ε ≥ 0; returned rounded up.  See :mod:`dps_verify.sdgs` for the reduction
    to one recoding group and the proven stopping rule.
    """
    return sdgs_delta_certified(k, beta, epsilon, definition).safe
