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
regime ε < −ln(1−β) (outside CP Thm 5) the walk adds the backward bad set (ratio below e^−ε) and
its own Chernoff bound (:func:`scan`).  The slow reference scan of the same supremum, the generic
divergence engine on (P_n, Q_n) (:func:`scan_generic`, :func:`output_laws`, re-exported), lives
in :mod:`dps_verify.worstcase.sdgs_generic`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

# GMP integers (about 10-50x faster than Python ints at these sizes); gmpy2 is a dependency
import gmpy2
import mpmath
from gmpy2 import mpz
from mpmath import libmp

from dps_verify.core.binomial import max_pmf
from dps_verify.core.errors import BudgetError, CertificationError, ParameterError
from dps_verify.core.numbers import (
    BASE_PREC,
    Certified,
    Number,
    exp_compare,
    exp_dyadic,
    iv_adaptive,
    iv_exp,
    iv_from_fraction,
    iv_lower,
    iv_precision,
    iv_upper,
    log_fraction,
    round_outward,
    single_value,
)
from dps_verify.core.params import (
    epsilon_param,
    k_param,
    require_paper_regime,
    resolve_beta,
)
from dps_verify.core.types import DefinitionLike, WorstCaseMeasureLike
from dps_verify.measures.divergence import DEFINITIONS
from dps_verify.worstcase.gamma_gap import (  # noqa: F401 - re-exported names
    _EPS_FLOAT_CAP,
    eps_float,
    gamma_minus_beta_ball,
    gamma_minus_beta_float,
    gamma_minus_beta_iv,
)

# the reference scan (the generic divergence engine on each group size's output laws) is a test
# oracle, not part of the certified walk: it lives in its own module, re-exported here by name
from dps_verify.worstcase.sdgs_generic import output_laws, scan_generic  # noqa: F401


def slack(n: int, beta: Fraction, eps: Fraction) -> int:
    """Largest m ≥ 0 with m < n(1−β)e^{−ε}: outcomes j ≥ n − m are the bad ones (j > γn)."""
    c_n = n * (1 - beta)
    # a float start (≥ 0) close to the answer; the two exact walks correct it either way
    m = int(float(c_n) * math.exp(-eps_float(eps)))
    while _slack_ok(m + 1, c_n, eps):
        m += 1
    while m > 0 and not _slack_ok(m, c_n, eps):
        m -= 1
    return m


def _slack_ok(m: int, c_n: Fraction, eps: Fraction) -> bool:
    """m < c_n·e^{−ε}  ⇔  e^ε < c_n / m, for m ≥ 1 (slack asks only those; m = 0 always
    qualifies, and its walk down stops there)."""
    return exp_compare(eps, c_n / m) < 0


def first_bad(n: int, beta: Fraction, eps: Fraction) -> int:
    """Smallest j with j > γn (CP Thm 5's threshold), computed exactly."""
    return n - slack(n, beta, eps)


def n_min(k: int, beta: Fraction, eps: Fraction) -> int:
    """n_m = ⌈k/γ − 1⌉: the least n with γ(n+1) ≥ k (CP App. A.2), computed exactly.

    Raises :class:`ParameterError` unless k ≥ 1 (the suppression threshold, CP §3.2)."""
    if k < 1:
        raise ParameterError(f"n_min needs k >= 1 (the suppression threshold), got {k}")

    def ok(n: int) -> bool:  # γ(n+1) ≥ k  ⇔  (n+1−k)e^ε ≥ (n+1)(1−β)
        if n + 1 - k <= 0:
            return False
        return exp_compare(eps, Fraction((n + 1) * (1 - beta)) / (n + 1 - k)) >= 0

    gamma = 1 - float(1 - beta) * math.exp(-eps_float(eps))
    n = math.ceil(k / gamma - 1)  # ≥ k − 1 ≥ 0, as γ ≤ 1
    while not ok(n):
        n += 1
    while ok(n - 1):  # stops at n = k at the latest: ok(k − 1) is false
        n -= 1
    return n


def _n_min_E(k: int, beta: Fraction, eps: Fraction, E: Any) -> int:
    """:func:`n_min` with e^ε's dyadic enclosure E (integer comparisons; exact fallback inside
    ``E.less``): γ(n+1) ≥ k ⇔ (n+1−k)·q·e^ε ≥ (n+1)·(q−p), for k ≥ 1 (:func:`scan`'s callers
    validate k)."""
    q, r = beta.denominator, beta.denominator - beta.numerator

    def ok(n: int) -> bool:
        return n + 1 - k > 0 and not E.less((n + 1 - k) * q, (n + 1) * r)

    gamma = 1 - (1 - float(beta)) * math.exp(-min(eps_float(eps), 700.0))
    n = math.ceil(k / gamma - 1) if gamma > 0 else k  # ≥ k − 1 ≥ 0 for k ≥ 1, as γ ≤ 1
    while not ok(n):
        n += 1
    while ok(n - 1):  # stops at n = k at the latest: ok(k − 1) is false
        n -= 1
    return n


def _first_bad_E(n: int, beta: Fraction, eps: Fraction, fwd_bad: Any) -> int:
    """:func:`first_bad` through the scan's exact test ``fwd_bad(n, j)`` ⇔ j > γn."""
    gamma = 1 - (1 - float(beta)) * math.exp(-min(eps_float(eps), 700.0))
    j = min(max(int(gamma * n), 0), n)
    while not fwd_bad(n, j):
        j += 1
    while j > 0 and fwd_bad(n, j - 1):
        j -= 1
    return j


#: Work budget of one scan, in "bit-steps" (group sizes scanned × bits of q^n).  About one
#: nanosecond each with GMP integers; past it a :class:`CertificationError` names the parameter.
WORK_BUDGET = 6 * 10**10
#: CP Thm 5's d switches from the exact walk over n to runs of equal threshold in ball
#: arithmetic (:mod:`dps_verify.worstcase.long_range`) past this estimated work (≈ 0.2 s).
EXACT_D_WORK = 2 * 10**8
#: The exact measures (hockey-stick, pointwise) switch from the exact walk over n to segments
#: of constant bad set in ball arithmetic (:mod:`dps_verify.worstcase.long_range`) past this
#: estimated work (≈ 1–2 s of walk; each step is a few linear operations on q^n-sized integers).
EXACT_SDGS_WORK = 10**9
#: Largest −log2 of a worst-case δ this module computes: its exact rational ends would need
#: that many bits each (2^26 bits = 8 MiB; k = 10^8 at β = 1/2, ε = 1 needs 3.8·10^7 bits and
#: a few seconds, k = 10^9 would need ten times both).
MAX_VALUE_BITS = 1 << 26
#: Most bits of e^ε the hockey-stick walk's enclosure of e^ε is refined to (from BASE_PREC,
#: doubling) while a value A − e^ε·B has fewer than CERTAIN_BITS certain bits (:meth:`_Exp.affine`).
EXP_PREC_LIMIT = 1 << 14
#: Tails are summed to the last term (exact) when (terms × bits) is below this.
EXACT_TAIL_WORK = 10**8
#: Guard bits of the python-flint ball of e^ε above the precision asked (:func:`_exp_dyadic_arb`).
EXP_BALL_GUARD_BITS = 8
#: Certain bits of each hockey-stick value A − e^ε·B: e^ε's enclosure is refined until the
#: value's enclosure has this many (relative), or EXP_PREC_LIMIT bits of e^ε are reached.
CERTAIN_BITS = 60
#: Relative accuracy, in bits, a ball or interval of a KL exponent needs before its lower end
#: is used (:func:`kl_lower`, :func:`kl_lower_below`).
KL_REL_BITS = 20
#: Most e^ε enclosures cached (one per ε and precision, a few hundred bits each).
EXP_CACHE_SIZE = 256
#: Significant bits of the dyadic ends a scan's exact ends are rounded outward to when their
#: denominators are long (:func:`~dps_verify.core.numbers.round_outward`).
END_BITS = 256
#: Relative bits kept by truncated geometric tail sums (see :func:`tail_enclosure`).
TAIL_BITS = 140
#: At ε = 0 the hockey-stick walk checks its TV stop at N, then again from N + max(1, N // this)
#: on (the bound β·max pmf of Bin(N−1) costs a binomial coefficient of N-bit numbers).
TV_CHECK_SPACING = 16
#: Below CP Thm 5's edge the walk tries its backward Chernoff stop at N, then again from
#: N + max(1, N // this) on (each try is a certified lower-tail exponent, :func:`kl_lower_below`).
BACKWARD_CHECK_SPACING = 64
_LN2_UP = Fraction(6931471805599454, 10**16)  # > ln 2
_LN2_F = math.log(2)
def _ln_f(x: Any) -> float:
    """ln x in floats for an integer x > 0 of any size (screens only): MPFR's 53-bit logarithm
    (its exponent range holds any integer; math.log would overflow converting a long mpz)."""
    return float(gmpy2.log(x))


def tail_enclosure(n: int, T: int, p: int, q: int, rel_bits: int = TAIL_BITS) -> tuple[Any, Any]:
    """Integers (lo, hi) with lo ≤ Σ_{j≥T} N(n, j) ≤ hi, N(n, j) = C(n,j) p^j (q−p)^(n−j).

    Proof of the truncation: the term ratio N(n, j+1)/N(n, j) = (n−j)p/((j+1)(q−p)) =: ρ_j is
    decreasing in j, so once ρ_j < 1 every later term is at most N(n, j)·ρ_j^i and the
    remainder Σ_{i>j} N(n, i) ≤ N(n, j)·ρ_j/(1−ρ_j).  Summation stops when that bound is at most
    2^−rel_bits of the partial sum, or at j = n (exact; always when the full sum is cheap,
    EXACT_TAIL_WORK).
    """
    r = q - p
    if T <= 0:
        v = mpz(q) ** n
        return v, v
    exact = (n - T + 1) * (n * q.bit_length()) <= EXACT_TAIL_WORK
    if T > n:
        return mpz(0), mpz(0)
    term = gmpy2.comb(n, T) * mpz(p) ** T * mpz(r) ** (n - T)
    total = mpz(0)
    j = T
    while True:
        total += term
        if j == n:
            return total, total
        num, den = (n - j) * p, (j + 1) * r
        if num < den and not exact:
            rem = term * num // (den - num) + 1
            if (rem << rel_bits) <= total:
                return total, total + rem
        term = gmpy2.divexact(term * num, den)
        j += 1


def _exp_dyadic_arb(eps: Fraction, prec: int) -> tuple[int, int, int] | None:
    """:func:`~dps_verify.core.numbers.exp_dyadic` (lo/2^s ≤ e^ε ≤ hi/2^s) from a python-flint
    ball at ``prec`` + :data:`EXP_BALL_GUARD_BITS` bits: Arb's exp is a rigorous enclosure and ``lower()``/``upper()``
    round its ends outward, so the integers bracket e^ε exactly as the mpmath.iv version does
    (about 10× cheaper; Arb's exponents are unbounded, so the ball is finite).  None (use the
    mpmath.iv version) without python-flint or for ε outside (0, 4096).  Cached per (ε, prec): at
    most :data:`EXP_CACHE_SIZE` entries.
    """
    if not 0 < eps < 4096:
        return None
    return _exp_dyadic_arb_ints(int(eps.numerator), int(eps.denominator), prec)


@lru_cache(maxsize=EXP_CACHE_SIZE)
def _exp_dyadic_arb_ints(num: int, den: int, prec: int) -> tuple[int, int, int] | None:
    flint = _flint_or_none()
    if flint is None:
        return None
    ctx = flint.ctx
    old = ctx.prec
    ctx.prec = prec + EXP_BALL_GUARD_BITS  # what ctx.workprec does, without its context-manager overhead
    try:
        x = flint.arb(flint.fmpq(num, den)).exp()
        lo_m, lo_e = x.lower().man_exp()
        hi_m, hi_e = x.upper().man_exp()
    finally:
        ctx.prec = old
    lo_m, lo_e, hi_m, hi_e = int(lo_m), int(lo_e), int(hi_m), int(hi_e)
    s = max(0, -lo_e, -hi_e)
    return lo_m << (lo_e + s), hi_m << (hi_e + s), s


class _Exp:
    """e^ε as a dyadic enclosure lo/2^s ≤ e^ε ≤ hi/2^s, refined on demand, for ε ≥ 0
    (ValueError otherwise: :meth:`less` relies on e^ε ≥ 1)."""

    def __init__(self, eps: Fraction) -> None:
        if eps < 0:
            raise ValueError("_Exp needs epsilon >= 0")
        self.eps = eps
        self.prec = BASE_PREC
        self._set()

    def _set(self) -> None:
        fast = _exp_dyadic_arb(self.eps, self.prec) if type(self.eps) is Fraction else None
        lo, hi, s = fast if fast is not None else exp_dyadic(self.eps, self.prec)
        self.lo, self.hi, self.s = mpz(lo), (None if hi is None else mpz(hi)), s

    def refine(self) -> bool:
        if self.hi is None or self.prec >= EXP_PREC_LIMIT:
            return False
        self.prec *= 2
        self._set()
        return True

    def less(self, X: Any, Y: Any) -> bool:
        """Whether e^ε·X < Y, for integers X ≥ 0 (ValueError otherwise) and Y (decided exactly)."""
        if X < 0:
            raise ValueError("_Exp.less needs X >= 0")
        if X == 0:
            return Y > 0
        if Y <= 0:
            return False
        if self.hi is not None and self.hi * X < (mpz(Y) << self.s):
            return True
        if self.lo * X >= (mpz(Y) << self.s):
            return False
        return exp_compare(self.eps, Fraction(int(Y), int(X))) < 0

    def affine(self, A: Any, B: Any) -> tuple[Any, Any, int]:
        """Numerators (lo, hi) over 2^s of A − e^ε·B (A, B ≥ 0 integers), clipped below at 0.

        Only used on bad sets, where A − e^ε·B ≥ 0 holds exactly, so the clip is sound.  The
        precision of e^ε is doubled until CERTAIN_BITS bits of the result are certain (or it is ≤ 0, or
        EXP_PREC_LIMIT bits are reached: then the wider enclosure is returned)."""
        while True:
            if B == 0:
                v = mpz(A) << self.s
                return v, v, self.s
            lo = mpz(0) if self.hi is None else (mpz(A) << self.s) - self.hi * B
            hi = (mpz(A) << self.s) - self.lo * B
            lo = max(lo, mpz(0))
            hi = max(hi, lo)
            if hi == 0 or ((hi - lo) << CERTAIN_BITS) <= hi or not self.refine():
                return lo, hi, self.s


def in_regime_fast(beta: Fraction, eps: Fraction) -> bool:
    """Whether ε > 0 and ε ≥ −ln(1−β) (CP Thm 5's regime), i.e. e^ε·(q−p) ≥ q for β = p/q,
    decided exactly by the cached dyadic enclosure of e^ε (:class:`_Exp`, exact fallback);
    same answer as :func:`~dps_verify.core.params.in_paper_regime` for ε > 0."""
    return eps > 0 and not _Exp(eps).less(beta.denominator - beta.numerator, beta.denominator)


def kl_lower(beta: Fraction, eps: Fraction, prec: int = BASE_PREC) -> Fraction:
    """A certified lower bound on KL(γ‖β), γ = 1 − (1−β)e^{−ε} (Chernoff exponent; CP Thm 5).

    KL(γ‖β) increases with γ on (β, 1) and γ increases with ε, so ε is capped at 64 (a lower
    bound stays a lower bound).  γ − β = (1−β)(1 − e^{−ε}) is formed without cancellation and
    the precision is raised until the enclosure is positive with KL_REL_BITS certain bits; 0 (no usable
    bound, which every caller refuses) when the precision limit is reached first.

    Raises :class:`ParameterError` unless ε > 0 (at ε = 0, γ = β and KL = 0: no exponent) and
    0 < β < 1 (at β = 1, γ = 1 = β and KL = 0 again; CP Thm 5 assumes β < 1).
    """
    if not eps > 0:
        raise ParameterError(f"the Chernoff exponent KL(gamma||beta) needs epsilon > 0, got {eps_float(eps):.4g}")
    if not 0 < beta < 1:
        raise ParameterError(f"the Chernoff exponent KL(gamma||beta) needs 0 < beta < 1, got {float(beta):.4g}")
    e = min(eps, Fraction(64))
    fast = _kl_lower_arb(beta, e, prec)
    if fast is not None:
        return fast

    def f() -> Any:
        iv = mpmath.iv
        b = iv_from_fraction(beta)
        gm = gamma_minus_beta_iv(beta, e)
        g = b + gm
        return g * iv.log(g / b) + (1 - g) * iv.log((1 - g) / (1 - b))

    try:
        v = iv_adaptive(f, rel_bits=KL_REL_BITS, start=prec)
    except CertificationError:
        return Fraction(0)
    # positive: with ε > 0, KL > 0, and iv_adaptive returns only an enclosure of it with relative
    # width ≤ 2^-KL_REL_BITS (which excludes 0) or an exact point; the fast route above needs no fallback
    return iv_lower(v)


_FLINT: list = []


def _flint_or_none() -> Any:
    if not _FLINT:
        mod: Any = None
        try:
            import flint as mod
        except ImportError:  # pragma: no cover
            pass
        _FLINT.append(mod)
    return _FLINT[0]


def _kl_lower_arb(beta: Fraction, e: Fraction, prec: int) -> Fraction | None:
    """:func:`kl_lower` in python-flint ball arithmetic (about 50× faster than mpmath.iv):
    KL(γ‖β) = γ ln(1 + (γ−β)/β) − (1−γ)ε, since (1−γ)/(1−β) = e^{−ε} exactly; γ − β =
    (1−β)(−expm1(−ε)) and 1 − γ = (1−β)e^{−ε} carry no cancellation.  None when the ball is
    not positive with KL_REL_BITS certain bits (the caller then uses mpmath.iv), or without python-flint.
    For ε > 0 and 0 < β < 1 (:func:`kl_lower`'s domain; ValueError otherwise)."""
    if not (e > 0 and 0 < beta < 1):
        raise ValueError(f"the Chernoff exponent's ball needs epsilon > 0 and 0 < beta < 1, got {e}, {beta}")
    flint = _flint_or_none()
    if flint is None:
        return None
    with flint.ctx.workprec(prec):
        b = flint.arb(flint.fmpq(int(beta.numerator), int(beta.denominator)))
        one_m_b = flint.arb(flint.fmpq(int(beta.denominator - beta.numerator), int(beta.denominator)))
        from dps_verify.worstcase.ball_binomial import arb_epsilon

        ea = arb_epsilon(e)
        gm = gamma_minus_beta_ball(one_m_b, ea)
        one_m_g = one_m_b * (-ea).exp()
        kl = (b + gm) * (gm / b).log1p() - one_m_g * ea
        if not (kl > 0) or kl.rel_accuracy_bits() < KL_REL_BITS:
            return None
    from dps_verify.worstcase.ball_binomial import arb_to_fractions

    return arb_to_fractions(kl)[0]  # the ball's exact lower end (> 0: the whole ball is)


def clear_caches() -> None:
    """Empty this module's bounded cache of e^ε enclosures (per ε and precision); benchmarks
    call it to time cold computations."""
    _exp_dyadic_arb_ints.cache_clear()


def _float_kl_gamma(beta: Fraction, eps: Fraction) -> float:
    """Float screen of KL(γ‖β), γ = 1 − (1−β)e^{−ε} (no guarantee; the scan's stop is decided
    by :func:`kl_lower`).  NaN when floats cannot represent it: γ − β rounds to 0 (ε or 1 − β
    below the doubles), γ rounds to 1, or β rounds to 0 (the division fails)."""
    try:
        b, e = float(beta), eps_float(eps)
        gm = gamma_minus_beta_float(b, e)
        g = b + gm
        if not (gm > 0 and g < 1):
            return math.nan
        return g * math.log1p(gm / b) - (1 - g) * e
    except (OverflowError, ValueError, ZeroDivisionError):
        return math.nan


def kl_lower_below(c: Fraction, beta: Fraction) -> Fraction:
    """A certified lower bound on KL(c‖β) for 0 ≤ c < β (lower-tail Chernoff exponent)."""
    if c <= 0:
        return _neg_log1m_lower(beta)

    def f() -> Any:
        iv = mpmath.iv
        a, b = iv_from_fraction(c), iv_from_fraction(beta)
        return a * iv.log(a / b) + (1 - a) * iv.log((1 - a) / (1 - b))

    try:
        lo = iv_lower(iv_adaptive(f, rel_bits=KL_REL_BITS))
    except CertificationError:
        return Fraction(0)
    return max(lo, Fraction(0))


def _neg_log1m_lower(beta: Fraction) -> Fraction:
    """A lower bound on −ln(1−β) = KL(0‖β)."""
    with iv_precision(BASE_PREC):
        return max(iv_lower(-mpmath.iv.log(iv_from_fraction(1 - beta))), Fraction(0))


def neg_log_upper(x: Fraction, prec: int = BASE_PREC) -> Fraction:
    """A certified upper bound on −ln(x) for 0 < x ≤ 1."""
    with iv_precision(prec):
        v = -mpmath.iv.log(iv_from_fraction(x))
        return iv_upper(v)


def _chernoff_below(N: int, beta: Fraction, eps: Fraction, num: Any, den: Any) -> bool:
    """Whether exp(−N·KL(γ‖β)) ≤ num/den is certain (γ = 1 − (1−β)e^{−ε}, ε > 0, num > 0).

    One python-flint ball evaluation of N·KL(γ‖β) + ln num − ln den, true only when the whole
    ball is ≥ 0 (first at 64 bits plus the bits of N, then once more at 4× that).  KL is taken
    at min(ε, 64): KL(γ‖β) increases with γ on (β, 1) and γ with ε, so that is a lower bound;
    γ − β = (1−β)(−expm1(−ε)) and 1 − γ = (1−β)e^{−ε} carry no cancellation, and
    KL = γ ln(1 + (γ−β)/β) − (1−γ)ε because (1−γ)/(1−β) = e^{−ε}.  False (the caller then
    keeps scanning or uses the rational route) when undecided or without python-flint.
    """
    flint = _flint_or_none()
    if flint is None:
        return False
    e = eps if eps <= 64 else Fraction(64)
    if type(e) is Fraction:
        e_q: Any = flint.fmpq(int(e.numerator), int(e.denominator))
    else:
        from dps_verify.worstcase.ball_binomial import arb_epsilon

        e_q = None
    p, q = int(beta.numerator), int(beta.denominator)
    best = flint.fmpq(int(num), int(den))
    prec = 64 + N.bit_length()
    ctx = flint.ctx
    old = ctx.prec
    try:
        for wp in (prec, 4 * prec):
            ctx.prec = wp  # what ctx.workprec does, without its context-manager overhead
            b = flint.arb(flint.fmpq(p, q))
            one_m_b = 1 - b
            ea = flint.arb(e_q) if e_q is not None else arb_epsilon(e)
            gm = gamma_minus_beta_ball(one_m_b, ea)
            kl = (b + gm) * (gm / b).log1p() - one_m_b * (-ea).exp() * ea
            v = N * kl + flint.arb(best).log()
            if v >= 0:
                return True
            if v < 0:
                return False
    finally:
        ctx.prec = old
    return False


def _neg_ln_upper(num: Any, den: Any) -> Fraction:
    """A certified upper bound on −ln(num/den) for 0 < num ≤ den: num/den is rounded down to
    64 bits (mpmath ``from_rational``, direction 'f') and ln taken in interval arithmetic."""
    flint = _flint_or_none()
    if flint is not None:  # num/den ≥ x·2^−t with x = ⌊num·2^t/den⌋ (64 bits): −ln ≤ t ln 2 − ln x
        num, den = int(num), int(den)
        # t ≥ 64 (num ≤ den), and x ≥ 2^63: num·2^t ≥ 2^(bits(den) + 63) > den·2^63
        t = den.bit_length() - num.bit_length() + 64
        x = (num << t) // den
        with flint.ctx.workprec(BASE_PREC):
            v = t * flint.arb.const_log2() - flint.arb(x).log()
        from dps_verify.worstcase.ball_binomial import arb_to_fractions

        return arb_to_fractions(v)[1]  # the ball's exact upper end (≥ −ln(num/den) ≥ 0)
    v = libmp.from_rational(int(num), int(den), 64, "f")
    with iv_precision(BASE_PREC):
        x = mpmath.iv.mpf((mpmath.mp.make_mpf(v), mpmath.mp.make_mpf(v)))
        return iv_upper(-mpmath.iv.log(x))  # ≥ −ln(num/den) ≥ 0: x ≤ num/den ≤ 1


def _float_kl(a: float, b: float) -> float:
    """KL(a‖b) of Bernoulli laws in floats (screen only), accurate when a ≈ b; b = 0.0 (a β
    below the smallest double) gives ∞ for a > 0."""
    if b <= 0:
        return 0.0 if a <= 0 else math.inf
    if a <= 0:
        return -math.log1p(-b)
    if a >= 1:
        return -math.log(b)
    d = a - b
    return a * math.log1p(d / b) + (1 - a) * math.log1p(-d / (1 - b))


def _estimate(k: int, beta: Fraction, eps: Fraction, measure: WorstCaseMeasureLike, backward: bool) -> dict:
    """Float screen: start n, expected stop n and work, before any exact arithmetic.

    Its numbers choose the route (exact walk or long-range segments) and the budget refusals,
    never a certified value.  In floats, with γ = 1 − (1−β)e^−ε (ε as :func:`eps_float` gives it):

    * ``kl`` = KL(γ‖β) (−ln β when γ is 1.0 as a double; 0 when γ ≤ β: no forward stop);
    * ``n0`` = max(k/γ − 1, 1), the float n_m; k for the exact measures below CP Thm 5's edge
      and at ε = 0 (and when γ ≤ 0);
    * L = max(−ln f(k; n*, β), 0) at n* = max(k/γ, k) (binomial coefficient by lgamma; −kl·n*
      from 10^300 on), plus −ln β for the hockey-stick (its worst case is about β times the tail):
      the expected −ln δ; ``value_bits`` = L / ln 2;
    * ``n_stop`` = max(n0, (L + 1)/kl) (∞ when kl = 0); below the edge at least the backward
      stop too: max(nb, (L + 1)/KL(c‖β) + 1) from nb = max(n_stop, 2k/β + 2) and
      c = k/(nb − 1): one step of the iteration nb ← (L + 1)/KL(c_nb‖β) + 1 towards the least
      N with (N − 1)·KL(c_N‖β) ≥ L + 1 (∞ if KL underflows to 0);
    * at ε = 0: ``n0`` = k and ``n_stop`` = 16(k/β + 2) for the hockey-stick (its TV bound
      decays like 1/√n), k for pointwise (the value 1 at n = k);
    * ``bits`` = n_stop·log2 q (β = p/q), ``work`` = (n_stop − n0 + 1 + 200)·bits bit-steps
      (the group sizes walked plus about 200 linear set-up passes).
    """
    b, e = float(beta), eps_float(eps)
    # ln β from the exact β, and a floor for divisions: float(β) is 0.0 below 2^-1074
    log_b = log_fraction(beta)
    b_div = max(b, 1e-300)
    gm = gamma_minus_beta_float(b, e)
    g = b + gm
    if gm <= 0:  # ε = 0.0, or β = 1.0 as a double (g = b + gm ≤ 0 only when gm ≤ 0)
        n0 = float(k)
        kl = 0.0
    else:
        n0 = max(k / g - 1, 1.0)
        kl = _float_kl(g, b) if g < 1 else -log_b
    if backward:  # the exact measures below CP Thm 5's edge start at n = k
        n0 = float(k)
    # log of the value near the start: log f(k; n, β) ≤ log of the tail (float screen only);
    # ln(1 − β) from the exact 1 − β > 0 (β close to 1 rounds to 1.0 as a double)
    log1m_b = log_fraction(1 - beta)
    nn = max(k / g, float(k)) if g > 0 else float(k)
    if nn < 1e300:
        ls = (
            math.lgamma(nn + 1) - math.lgamma(k + 1) - math.lgamma(nn - k + 1)
            + k * log_b + (nn - k) * log1m_b
        )
    else:
        ls = -kl * nn
    L = max(-ls, 0.0)
    if measure == "hockey-stick":
        # the hockey-stick value is at most TV(P_n, Q_n) ≤ β·max pmf: its best is about β times
        # the tail, so the proven stop comes ln(1/β)/KL group sizes later (tiny β: many)
        L += -log_b
    if kl > 0:
        n_stop = max(n0, (L + 1) / kl)
    else:
        n_stop = float("inf")
    if backward and math.isfinite(n_stop):
        # the backward rule stops at the least N with (N − 1)·KL(c_N‖β) ≥ L + 1, an increasing
        # function of N (c_N = max(k, γ'N)/(N − 1) falls); one step from nb gives a point at or
        # past that N, and nb is already past it when the step does not raise it.  The γ'N part
        # of c_N is left out: where it is the larger, the backward exponent KL(γ'‖β) exceeds the
        # forward KL(γ‖β) (β − γ' = (1−β)(e^ε − 1) > γ − β = (1−β)(1 − e^−ε)), so the forward
        # stop already covers it (it moved the estimate by at most a relative 7e-7, float noise,
        # over 2700 cases below the edge).  c ≤ β/2 (nb ≥ 2k/β + 2); klb is ∞ at β = 0.0
        nb = max(n_stop, 2 * k / b_div + 2)
        klb = _float_kl(k / (nb - 1), b)
        n_stop = max(nb, (L + 1) / klb + 1) if klb > 0 else math.inf
    if e == 0:  # (n0 = k already: γ = β as doubles) hockey-stick: polynomial tail bound; pointwise: 1 at n = k
        n_stop = 16 * (k / b_div + 2) if measure == "hockey-stick" else float(k)
    steps = n_stop - n0 + 1
    bits = n_stop * math.log2(beta.denominator) if math.isfinite(n_stop) else float("inf")
    # + the set-up: binomial coefficients and powers of q-sized numbers with `bits` bits
    # (about 200 linear passes; dominant when few group sizes are scanned at huge k)
    return {
        "n0": n0,
        "n_stop": n_stop,
        "kl": kl,
        "work": (steps + 200) * bits,
        "bits": bits,
        "value_bits": L / _LN2_F,
    }


def _budget_error(k: int, beta: Fraction, eps: Fraction, est: dict, budget: float) -> CertificationError:
    n0, n_stop = est["n0"], est["n_stop"]
    if not math.isfinite(n_stop) or est["kl"] == 0 or (n_stop - n0) > 50 * max(n0, 1):
        why = (
            f"epsilon = {eps_float(eps):.4g} and beta = {float(beta):.4g} make the Chernoff exponent "
            f"KL(γ‖β) ≈ {est['kl']:.3g} tiny, so the proven stopping rule needs group sizes up to "
            f"n ≈ {n_stop:.3g}"
        )
        if eps == 0:
            why = "epsilon = 0: the tail bound decays only like 1/sqrt(n)"
    elif float(beta) < 1e-3 and n0 > 1e6:
        why = f"beta = {float(beta):.4g} puts the worst group size near n ≈ {n0:.3g}"
    else:
        why = f"k = {k} puts the worst group size near n ≈ {n0:.3g} (numbers of {est['bits']:.3g} bits)"
    return CertificationError(
        f"work limit reached (WORK_BUDGET = {budget:.3g} bit-steps, estimated {est['work']:.3g}): {why}"
    )


def _value_size_error(k: int, beta: Fraction, eps: Fraction, est: dict) -> BudgetError:
    bits = est["value_bits"]
    k_max = max(int(k * MAX_VALUE_BITS / bits), 1)
    return BudgetError(
        f"k = {k}, beta = {float(beta):.4g}, epsilon = {eps_float(eps):.4g}: the worst-case delta is "
        f"about 10^-{bits * 0.30103:.3g}, and each exact end of its enclosure would take about "
        f"{bits:.3g} bits (limit MAX_VALUE_BITS = {MAX_VALUE_BITS}); use a smaller k (--k, about "
        f"{k_max} or less at these beta and epsilon)"
    )


@dataclass
class _Best:
    lo_num: Any = mpz(0)
    lo_den: Any = mpz(1)
    hi_num: Any = mpz(0)
    hi_den: Any = mpz(1)
    n: int = 0

    def offer(self, lo: Any, hi: Any, den: Any, n: int) -> None:
        if lo == hi and self.lo_den == self.hi_den and self.lo_num == self.hi_num:
            # exact value and exact best so far (the common case): one comparison decides both
            if self.n == 0 or _cmp(lo, den, self.lo_num, self.lo_den) > 0:
                self.lo_num, self.lo_den, self.n = lo, den, n
                self.hi_num, self.hi_den = lo, den
            return
        if self.n == 0 or _cmp(lo, den, self.lo_num, self.lo_den) > 0:
            self.lo_num, self.lo_den, self.n = lo, den, n
        if _cmp(hi, den, self.hi_num, self.hi_den) > 0:
            self.hi_num, self.hi_den = hi, den

    def exact(self) -> bool:
        """Whether the best value is known exactly (lower end = upper end)."""
        return bool(self.lo_num == self.hi_num and self.lo_den == self.hi_den)

    def equals(self, num: Any, den: Any) -> bool:
        """Whether the best value is known exactly and equals num/den (exact comparison)."""
        return self.n != 0 and self.exact() and _cmp(num, den, self.lo_num, self.lo_den) == 0

    def offer_earlier(self, lo: Any, hi: Any, den: Any, n: int) -> None:
        """:meth:`offer` for a walk over decreasing n: an exact value equal to an exact best
        moves the maximiser to the smaller n (argmax_n is the smallest maximiser)."""
        if lo == hi and n < self.n and self.equals(lo, den):
            self.n = n
            return
        self.offer(lo, hi, den, n)


# the float screen's band of _cmp (an untyped gmpy2 mpfr)
_SLOP: Any = gmpy2.mpfr(2) ** -40


def _cmp(a: Any, b: Any, c: Any, d: Any) -> int:
    """Sign of a/b − c/d for integers a, c of either sign and b, d > 0 (ValueError otherwise):
    exact cross-multiplication when the products are short (cheaper than any screen); for long
    ones a 53-bit float screen (relative error < 2^−50 each way) decides unless the two differ
    by at most 2^−40·|c/d|, then exact.  The screen's band is taken from |y|, so it holds for
    either sign of c (for y ≥ 0, y ± |y|·2^−40 is the same double as y·(1 ± 2^−40): one
    correctly rounded operation on the same real).  A zero needs no case of its own: its
    product is 0 and its float quotient exactly 0."""
    if b <= 0 or d <= 0:
        raise ValueError("_cmp needs positive denominators b and d")
    if a.bit_length() + d.bit_length() <= 8192:
        u, v = a * d, c * b
        return (u > v) - (u < v)
    x = gmpy2.mpfr(a) / gmpy2.mpfr(b)
    y = gmpy2.mpfr(c) / gmpy2.mpfr(d)
    band = abs(y) * _SLOP
    if x > y + band:
        return 1
    if x < y - band:
        return -1
    u, v = a * d, c * b
    return (u > v) - (u < v)


def scan(
    k: int,
    beta: Fraction,
    eps: Fraction,
    *,
    measure: WorstCaseMeasureLike,
    max_n: int | None = None,
    budget: float = WORK_BUDGET,
    long_range: bool = True,
) -> Certified:
    """Supremum over group sizes n of the per-n measure, for every ε ≥ 0 and 0 < β < 1.

    Past the work budget (or, for CP Thm 5's d, past :data:`EXACT_D_WORK`) the supremum is
    taken by the long-range paths of :mod:`dps_verify.worstcase.long_range` (runs of equal
    threshold for d, segments of constant bad set for the exact measures, ball arithmetic),
    unless ``long_range`` is False (then the budget raises :class:`CertificationError`).

    ``measure``: ``"paper-d"`` (CP Thm 5's d, n ≥ n_m, requires ε ≥ −ln(1−β)),
    ``"hockey-stick"`` or ``"pointwise"`` (the exact worst case of (P_n, Q_n), all n ≥ 1).

    Per n the bad outcomes are (module docstring) the *forward* set j ≥ max(k, J_n), J_n the
    least j > γn, and, only when ε < −ln(1−β), the *backward* set: published j with
    k ≤ j < γ'n, γ' = 1 − (1−β)e^ε (ratio below e^−ε), plus the suppressed outcome when
    F(k−1; n−1) > e^ε F(k−1; n).  All masses are integers over q^n, updated from n to n+1 with
    Bin(n+1) = Bin(n) + Bernoulli(β): Pr[X_{n+1} ≥ T] = Pr[X_n ≥ T] + β f(T−1; n) and
    Pr[X_{n+1} ≤ m] = Pr[X_n ≤ m] − β f(m; n).  Thresholds move by at most one per step
    (γ, γ' < 1).

    Stopping rule (proved).  For every n' ≥ N:

    * forward: both masses of the forward set are ≤ Pr[Bin(n', β) > γn'] ≤ exp(−n'·KL(γ‖β))
      (Chernoff–Hoeffding; γ > β for ε > 0; Bin(n'−1) is stochastically smaller than Bin(n'));
    * backward: the set is {X < max(k, γ'n')}; under Bin(n'−1) (the larger of the two masses)
      it is ≤ Pr[Bin(n'−1) ≤ c_N(n'−1)] ≤ exp(−(N−1)·KL(c_N‖β)), c_N = max(k, γ'⁺N)/(N−1),
      because c_n is non-increasing in n; valid once c_N < β.

    A per-n value (hockey-stick or pointwise) is at most the sum of the two bounds, so once each
    is ≤ best/2 (best = the largest certified lower value so far) no later n can exceed the
    maximum found, and the supremum is attained in the scanned range.  −ln(best) is bounded
    from bit lengths.  At ε = 0 the hockey-stick value is ≤ TV(Bin(n), Bin(n−1)) = β·max_j
    f(j; n−1), non-increasing in n; the pointwise value is 1 already at n = k.

    Screens and certificates.  Floats only order the work: the start n_m and the
    thresholds J_n are float guesses corrected by exact comparisons with e^ε (a dyadic
    enclosure from a python-flint ball, exact :func:`~dps_verify.core.numbers.exp_compare` on
    a tie); a float KL(γ‖β) and a float −ln(best) propose when to stop, and the stop is taken
    only when one ball evaluation certifies N·KL(γ‖β) + ln(best) ≥ 0 (:func:`_chernoff_below`;
    the rational route with :func:`kl_lower` backs it, and the backward rule keeps it).  A
    wrong screen can only make the scan run longer (tests/test_sdgs.py forces lying screens
    and checks the answer is unchanged).  Per-n values are exact integers over q^n (d, the
    pointwise δ) or integer enclosures of A − e^ε·B (hockey-stick); comparisons between them
    are exact.  e^ε enclosures are memoised per (ε, precision) in a bounded LRU cache
    (:func:`clear_caches`).

    Skipped range (ε ≥ −ln(1−β), start at n_m > k): for k ≤ n < n_m the bad set is [k, n], so
    pointwise(n) = Pr[X_n ≥ k], increasing in n (checked against best at n_m − 1), and
    hockey-stick(n) ≤ Pr[X_n ≥ k] − Pr[X_{n−1} ≥ k] = β f(k−1; n−1), maximised over the range in
    closed form; if either check fails the scan restarts at n = k.

    ``details['argmax_n']`` (exact walk) is the *smallest* maximising group size whenever the
    maximum is known exactly (exact integers; hockey-stick values are exact when e^ε is
    rational, ε = ln x): the walk upward keeps the first n on ties, the walk down the skipped
    range moves it to a smaller n with an exactly equal value (:meth:`_Best.offer_earlier`).
    When the values are enclosures it is a group size with the largest certified lower end.
    The long-range paths report the group size with the largest certified lower end (ball
    arithmetic does not decide ties).
    """
    if measure not in ("paper-d", "hockey-stick", "pointwise"):
        raise ParameterError(f"measure must be paper-d, hockey-stick or pointwise, got {measure!r}")
    if k < 1:
        raise ParameterError(f"the scan needs k >= 1 (the suppression threshold), got {k}")
    if not 0 < beta < 1:
        raise ParameterError(f"the scan needs 0 < beta < 1 (the sampling probability), got {beta}")
    if eps < 0:
        raise ParameterError(f"the scan needs epsilon >= 0, got {eps_float(eps):.6g}")
    # Python-int terms always (a Fraction built from GMP integers, e.g. beta_edge's grid, may
    # hold mpz terms, and python-flint takes Python ints only)
    beta = Fraction(int(beta.numerator), int(beta.denominator))
    E = _Exp(eps)
    regime = in_regime_fast(beta, eps)  # ε > 0 and ε ≥ −ln(1−β), decided exactly
    if measure == "paper-d" and not regime:
        require_paper_regime(beta, eps, "CP Thm 5")
    backward = measure != "paper-d" and not regime
    est = _estimate(k, beta, eps, measure, backward)
    if est["value_bits"] > MAX_VALUE_BITS:
        raise _value_size_error(k, beta, eps, est)
    if long_range and measure == "paper-d" and max_n is None and est["work"] > EXACT_D_WORK:
        # Too many group sizes (or too large ones) for the exact walk over n: CP Thm 5's d by
        # runs of equal threshold, in ball arithmetic (proof in worstcase/long_range.py).
        from dps_verify.worstcase.long_range import d_by_runs

        kl = kl_lower(beta, eps)
        if kl <= 0:
            raise CertificationError(
                "Chernoff exponent KL(γ‖β) not certified positive within the precision limit "
                f"(epsilon = {eps_float(eps):.3g}, beta = {float(beta):.3g})"
            )
        return d_by_runs(k, beta, eps, E, kl)
    if (
        long_range
        and measure != "paper-d"
        and max_n is None
        and eps > 0
        and (est["work"] > min(budget, EXACT_SDGS_WORK) or est["n0"] > 1e9)
    ):
        # Group sizes out of reach of the exact walk: segments of constant bad set, in ball
        # arithmetic (proofs in worstcase/long_range.py).
        from dps_verify.worstcase.long_range import sdgs_by_segments

        kl = kl_lower(beta, eps)
        if kl <= 0:
            raise CertificationError(
                "Chernoff exponent KL(γ‖β) not certified positive within the precision limit "
                f"(epsilon = {eps_float(eps):.3g}, beta = {float(beta):.3g})"
            )
        # the Chernoff stopping point of the estimate; the hockey-stick's TV cut may stop far
        # earlier (β ≫ ε), so its estimate is only used when TV cannot help (β·max pmf small)
        n_stop = est["n_stop"] if measure == "pointwise" or not backward else None
        return sdgs_by_segments(k, beta, eps, measure, E, kl, kl_lower_below, est_n_stop=n_stop)
    if max_n is None and est["work"] > budget:
        raise _budget_error(k, beta, eps, est, budget)
    if est["n0"] > 1e9:
        raise _budget_error(k, beta, eps, est, budget)
    # in the regime (always for paper-d) the walk starts at n_m, which is >= k (gamma <= 1);
    # below it the exact measures start at k
    n0 = _n_min_E(k, beta, eps, E) if regime else k
    result = _scan_from(k, beta, eps, measure, n0, E, backward, max_n, budget)
    if result is None:  # skipped-range check failed: scan everything from n = k
        est = {**est, "n0": float(k)}
        est["work"] = (est["n_stop"] - k + 1) * est["bits"]
        if max_n is None and est["work"] > budget:
            raise _budget_error(k, beta, eps, est, budget)
        result = _scan_from(k, beta, eps, measure, k, E, backward, max_n, budget)
        assert result is not None
    return result


def _require_walk_start(k: int, n0: int, beta: Fraction) -> None:
    """ValueError unless 1 ≤ k ≤ n0 and 0 < β < 1: the walk's first group size n0 holds at
    least k records (a smaller group is never published), k ≥ 1 is the suppression threshold,
    and β is a sampling probability strictly between 0 and 1 (:func:`scan`'s domain)."""
    if not 1 <= k <= n0:
        raise ValueError(f"the walk needs 1 <= k <= n0, got k = {k}, n0 = {n0}")
    if not 0 < beta < 1:
        raise ValueError(f"the walk needs 0 < beta < 1, got {beta}")


def _scan_from(
    k: int,
    beta: Fraction,
    eps: Fraction,
    measure: WorstCaseMeasureLike,
    n0: int,
    E: _Exp,
    backward: bool,
    max_n: int | None,
    budget: float,
) -> Certified | None:
    """The walk over group sizes n ≥ n0 for :func:`scan` (and, when n0 > k, the skipped range
    k ≤ n < n0), for 1 ≤ k ≤ n0 and 0 < β < 1 (ValueError otherwise,
    :func:`_require_walk_start`); None when the skipped-range check fails (the caller then
    walks from n0 = k)."""
    _require_walk_start(k, n0, beta)
    p, q = beta.numerator, beta.denominator
    r = q - p
    P, Q, R = mpz(p), mpz(q), mpz(r)
    paper = measure == "paper-d"

    def fwd_bad(n: int, j: int) -> bool:  # j > γn ⇔ (n−j)·q·e^ε < n·r
        return j >= n or E.less((n - j) * q, n * r)

    def bwd_bad(n: int, j: int) -> bool:  # j < γ'n ⇔ e^ε·n·r < (n−j)·q
        return j < n and E.less(n * r, (n - j) * q)

    J = _first_bad_E(n0, beta, eps, fwd_bad)
    T = J if paper else max(k, J)
    UPl, UPh = tail_enclosure(n0, T, p, q)
    # CP Thm 5's d reads only the tails under Bin(n): the Bin(n−1) tails are not needed
    UQl, UQh = (mpz(0), mpz(0)) if paper else tail_enclosure(n0 - 1, T, p, q)
    # the walk keeps these tails' widths: they are truncated iff an end differs here.  Both are
    # read: tail_enclosure decides each tail's truncation on its own terms, and its contract (an
    # enclosure) does not tie the Bin(n0 − 1) tail's to the Bin(n0) one's
    tails_truncated = UPl != UPh or UQl != UQh
    a = gmpy2.comb(n0, T - 1) * P ** (T - 1) * R ** (n0 - T + 1) if T >= 1 else mpz(0)
    qn = Q**n0
    if backward:
        # n0 == k here.  The backward threshold m = max(M_n, k − 1), M_n the largest j < γ'n:
        # at n = k, M_k ≤ k − 1 (j < n), so m = k − 1; it is tracked directly (see the step).
        F = qn - P**k
        FQ = Q ** (k - 1)
        f = mpz(k) * P ** (k - 1) * R
        m = k - 1
        G, GQ, g = F, FQ, f
    # The Chernoff exponent: a float screen kl_f proposes when to stop; the certified lower
    # bound (ball arithmetic, kl_lower) is computed only when a stop is proposed (or when the
    # screen is unusable) and alone decides.
    kl_box: list[Fraction] = []

    def kl_cert() -> Fraction:  # asked only for ε > 0 (kl_lower refuses ε = 0)
        if not kl_box:
            v = kl_lower(beta, eps)
            if v <= 0:
                raise CertificationError(
                    "Chernoff exponent KL(γ‖β) not certified positive within the precision limit "
                    f"(epsilon = {eps_float(eps):.3g}, beta = {float(beta):.3g})"
                )
            kl_box.append(v)
        return kl_box[0]

    kl_f = _float_kl_gamma(beta, eps)  # (NaN at ε = 0, where the TV rule stops and kl_f is unread)
    if eps > 0 and not (math.isfinite(kl_f) and kl_f > 1e-280):
        kl_f = float(kl_cert())
    gp_hi: Fraction | None = None
    if backward:
        gp_hi = 1 - (1 - beta) * Fraction(int(E.lo), 1 << E.s)  # γ' ≤ this (e^ε ≥ lo/2^s)
    best = _Best()
    n = n0
    next_bwd_check = 0
    next_tv_check = n0
    stop_note = None
    work = 0
    ln2 = _LN2_UP
    L, L_for = Fraction(0), None
    need_f, need_f_for = 0.0, None
    eps_zero = eps == 0
    while True:
        # ---- value at n -------------------------------------------------------------
        if paper:
            lo, hi, den = UPl, UPh, qn
        elif measure == "hockey-stick":
            # (a best lower end of 0 needs no case of its own: the screen then skips only values ≤ 0)
            if not backward and best.n and _hs_below_best(E, UPh, Q * UQl, qn, best):
                lo = hi = None  # certainly ≤ the best lower end: changes neither end
            else:
                flo, fhi, s = _affine_iv(E, UPl, UPh, Q * UQl, Q * UQh)
                lo, hi, den = flo, fhi, qn << s
            if backward:
                z = E.less(F, Q * FQ)
                BP = (G - F) + (F if z else 0)
                BQ = (GQ - FQ) + (FQ if z else 0)
                blo, bhi, s2 = E.affine(Q * BQ, BP)
                lo, hi, den = _max_pair((lo, hi, den), (blo, bhi, qn << s2))
        else:
            PB = QB = mpz(0)
            if backward:
                z = E.less(F, Q * FQ)
                PB = (G - F) + (F if z else 0)
                QB = (GQ - FQ) + (FQ if z else 0)
            # both ends by one formula: max(P's bad mass, Q's bad mass) over q^n
            lo, hi = (max(UP + PB, Q * (UQ + QB)) for UP, UQ in ((UPl, UQl), (UPh, UQh)))
            den = qn
        if lo is not None:
            best.offer(lo, hi, den, n)
        # ---- stopping rule ------------------------------------------------------------
        N = n + 1
        if best.lo_num > 0:
            if best.lo_num >= best.lo_den and not paper:
                stop_note = f"stopped at n = {n}: the value 1 (the largest possible) is attained"
                break
            if eps_zero:
                if measure == "hockey-stick" and N >= next_tv_check:
                    mode = (N * p) // q  # mode of Bin(N−1, β) is ⌊Nβ⌋
                    mode = min(mode, N - 1)
                    tv = P * gmpy2.comb(N - 1, mode) * P**mode * R ** (N - 1 - mode)  # over q^N
                    if tv * best.lo_den <= best.lo_num * (Q**N):
                        stop_note = (
                            f"stopped at n = {N}: for every n' ≥ {N}, δ ≤ TV(Bin(n'), Bin(n'−1)) = "
                            "β·max pmf of Bin(n'−1), non-increasing in n', is below the best value"
                        )
                        break
                    next_tv_check = N + max(1, N // TV_CHECK_SPACING)
            else:
                # float screen: −ln(best) in floats; only a clear "not yet" skips the certified
                # comparison (stopping later is always sound)
                if need_f_for is not best.lo_num:
                    need_f = _ln_f(best.lo_den) - _ln_f(best.lo_num) + (_LN2_F if backward else 0.0)
                    need_f_for = best.lo_num
                if backward and N * kl_f >= need_f * (1 - 2.0**-30) - 1e-9 and L_for is not best.lo_num:
                    L, L_for = _neg_ln_upper(best.lo_num, best.lo_den), best.lo_num
                if not backward and N * kl_f >= need_f * (1 - 2.0**-30) - 1e-9:
                    # one ball evaluation decides exp(−N·KL(γ‖β)) ≤ best (no rational detour)
                    if _chernoff_below(N, beta, eps, best.lo_num, best.lo_den):
                        stop_note = (
                            f"stopped at n = {N}: for every n' ≥ {N} the Chernoff–Hoeffding bound "
                            "exp(−n'·KL(γ‖β)) is below the best value found (ball arithmetic)"
                        )
                        break
                    if L_for is not best.lo_num:
                        L, L_for = _neg_ln_upper(best.lo_num, best.lo_den), best.lo_num
                need = L + ln2 if backward else L
                if L_for is best.lo_num and N * kl_f >= float(need) * (1 - 2.0**-30) and N * kl_cert() >= need:
                    if not backward:
                        stop_note = (
                            f"stopped at n = {N}: for every n' ≥ {N} the Chernoff–Hoeffding bound "
                            "exp(−n'·KL(γ‖β)) is below the best value found"
                        )
                        break
                    if N >= next_bwd_check:
                        assert gp_hi is not None  # set above whenever backward
                        c = _backward_rate(N, k, gp_hi)
                        if c < beta and (N - 1) * kl_lower_below(c, beta) >= need:
                            stop_note = (
                                f"stopped at n = {N}: for every n' ≥ {N}, exp(−n'·KL(γ‖β)) + "
                                "exp(−(N−1)·KL(c_N‖β)) (upper and lower Chernoff–Hoeffding bounds) "
                                "is below the best value found"
                            )
                            break
                        next_bwd_check = N + max(1, N // BACKWARD_CHECK_SPACING)
        if max_n is not None and n >= max_n:
            tail = _tail_bound(N, k, beta, eps, kl_cert, gp_hi, backward, measure)
            best.hi_num, best.hi_den = _max_frac(best.hi_num, best.hi_den, tail)
            stop_note = f"scan capped at n = {max_n}; later n bounded by {float(tail):.3g} (enclosure widened)"
            break
        work += qn.bit_length()
        if max_n is None and work > 4 * budget:
            raise CertificationError(
                f"work limit reached (WORK_BUDGET = {budget:.3g} bit-steps) at group size n = {n}; "
                f"epsilon = {eps_float(eps):.4g}, beta = {float(beta):.4g}, k = {k}"
            )
        # ---- advance n → n+1 -------------------------------------------------------------
        J2 = J if fwd_bad(n + 1, J) else J + 1
        T2 = J2 if paper else max(k, J2)
        if T2 == T + 1:
            b = gmpy2.divexact(a * (n - T + 1) * P, T * R)  # N(n, T)
            c_ = gmpy2.divexact(b * (n + 1) * R, n + 1 - T)  # N(n+1, T)
            UQl, UQh = UPl - b, UPh - b
            UPl, UPh = Q * UPl + P * a - c_, Q * UPh + P * a - c_
            a = c_
        else:  # T2 == T: J2 is J or J + 1 by construction, so T2 is T or T + 1
            UQl, UQh = UPl, UPh
            UPl, UPh = Q * UPl + P * a, Q * UPh + P * a
            a = gmpy2.divexact(a * (n + 1) * R, n + 2 - T)
        if backward:
            f_next = gmpy2.divexact(f * (n + 1) * R, n + 2 - k)  # N(n+1, k−1)
            F, FQ = Q * F - P * f, F
            f = f_next
            # m rises by one exactly when m + 1 < γ'(n+1): M_{n+1} is M_n or M_n + 1 (γ' < 1);
            # if M_n ≥ k − 1 then m = M_n and that is the test; if M_n < k − 1 then
            # M_{n+1} ≤ k − 1, so k ≥ γ'(n+1): no rise, and m stays k − 1, as the test says
            if bwd_bad(n + 1, m + 1):
                h = gmpy2.divexact(g * (n - m) * P, (m + 1) * R)  # N(n, m+1)
                c2 = gmpy2.divexact(h * (n + 1) * R, n - m)  # N(n+1, m+1)
                G, GQ = Q * G - P * g + c2, G + h
                g = c2
                m += 1
            else:
                G, GQ = Q * G - P * g, G
                g = gmpy2.divexact(g * (n + 1) * R, n + 1 - m)
        J, T = J2, T2
        qn *= Q
        n += 1
    # ---- skipped range k ≤ n < n0 (only for the exact measures in the regime) ---------------
    if not paper and n0 > k:
        if measure == "pointwise":
            _, tl_hi = tail_enclosure(n0 - 1, k, p, q)  # < the value at n0: no tie possible
            if _cmp(tl_hi, Q ** (n0 - 1), best.lo_num, best.lo_den) > 0:
                return None
            stop_note += (
                f"; for {k} ≤ n < {n0} the value is Pr[Bin(n, β) ≥ k], increasing in n, and at "
                f"n = {n0 - 1} below the best value"
            )
        else:
            n_low, below_truncated = _hockey_stick_below(k, beta, E, n0, best)
            tails_truncated = tails_truncated or below_truncated
            if n_low > k:  # name only ranges that hold a group size
                stop_note += (f"; for {k} ≤ n < {n_low} the value is ≤ β·f(k−1; n−1), increasing "
                              "in n there and below the best value")
            if n0 > n_low:
                stop_note += f"; {n_low} ≤ n < {n0} computed exactly"
    lower, upper, widened = _outward_ends(best)
    exact_note = (
        "exact integer arithmetic (GMP) over q^n"
        if measure != "hockey-stick"
        else "integer tails over q^n; e^ε enclosed by python-flint arb balls (mpmath.iv for exact logs "
        f"and ε ≥ 4096; ≥{BASE_PREC} bits, raised until {CERTAIN_BITS} bits of each value are certain or "
        f"{EXP_PREC_LIMIT} bits are reached), outward rounding"
    )
    if tails_truncated:
        exact_note += f"; tails truncated with a geometric remainder bound (2^-{TAIL_BITS} relative)"
    if widened:
        exact_note += f"; ends rounded outward to {END_BITS}-bit dyadics"
    return Certified(
        lower=lower,
        upper=upper,  # ≥ lower: every offered pair has lo ≤ hi, and rounding is outward
        how=f"{exact_note}; {stop_note}",
        details={"argmax_n": best.n, "n_start": n0, "n_scanned": n - n0 + 1},
    )


def _outward_ends(best: _Best) -> tuple[Fraction, Fraction, bool]:
    """The ends of ``best``'s enclosure as Fractions, each rounded outward to an END_BITS-bit
    dyadic where :func:`~dps_verify.core.numbers.round_outward` rounds (a denominator longer
    than 4·END_BITS bits), and whether either end differs from its exact rational (decided by
    exact cross-multiplication): what the how-text's rounding note reports."""
    lower, _ = round_outward(best.lo_num, best.lo_num, best.lo_den, END_BITS)
    _, upper = round_outward(best.hi_num, best.hi_num, best.hi_den, END_BITS)
    widened = lower.numerator * best.lo_den != best.lo_num * lower.denominator or (
        upper.numerator * best.hi_den != best.hi_num * upper.denominator
    )
    return lower, upper, widened


def _hockey_stick_below(k: int, beta: Fraction, E: _Exp, n0: int, best: _Best) -> tuple[int, bool]:
    """Hockey-stick values for k ≤ n < n0 = n_m (ε ≥ −ln(1−β)), walking n downward.

    There the bad set is [k, n], so HS(n) = Pr[X_n ≥ k] − e^ε Pr[X_{n−1} ≥ k] ≤ Pr[X_n ≥ k] −
    Pr[X_{n−1} ≥ k] = β f(k−1; n−1).  f(k−1; m) increases in m while m ≤ (k−1)/β − 1 (ratio
    f(k−1; m+1)/f(k−1; m) = (m+1)(1−β)/(m+2−k) ≥ 1 ⇔ k−1 ≥ β(m+1)), so once n−1 is in that range
    and β f(k−1; n−1) ≤ best, every smaller n is bounded too.  Otherwise HS(n) is computed
    exactly (tails walked down with Pr[X_{n−1} ≥ k] = Pr[X_n ≥ k] − β f(k−1; n−1)) and offered.
    Returns the smallest n computed (n0 if none) and whether a value offered came from a
    truncated tail (:func:`tail_enclosure`: then an enclosure, not exact).

    Ties (argmax_n is the smallest maximiser): values computed here are offered with
    :meth:`_Best.offer_earlier`.  Below the returned n only n = k can tie with the best: for
    k < n' the value is strictly below its bound (Pr[X_{n'−1} ≥ k] > 0, e^ε > 1), and the
    bound is at most the best; HS(k) = β^k exactly (Pr[X_{k−1} ≥ k] = 0), compared exactly.
    """
    p, q = beta.numerator, beta.denominator
    P, Q, R = mpz(p), mpz(q), mpz(q - p)
    peak = ((k - 1) * q) // p  # m ≤ peak − 1 ⇔ m ≤ (k−1)/β − 1 (increasing range), for m ≥ 0
    n = n0 - 1
    Vl, Vh = tail_enclosure(n, k, p, q)  # Pr[X_n ≥ k]·q^n
    truncated = False  # whether an offered value came from a truncated tail
    Nm = gmpy2.comb(n - 1, k - 1) * P ** (k - 1) * R ** (n - k) if n - 1 >= k - 1 else mpz(0)  # N(n−1, k−1)
    qn = Q**n
    while n >= k:
        # bound β f(k−1; n−1) = p·N(n−1, k−1) / q^n
        if n - 1 <= peak and _cmp(P * Nm, qn, best.lo_num, best.lo_den) <= 0:
            if best.equals(P**k, Q**k):
                best.n = k  # HS(k) = β^k ties with the best (the only possible tie, docstring)
            return n + 1, truncated
        # exact HS(n): V(n−1) = (V(n) − p·N(n−1, k−1))/q
        Wl = (Vl - P * Nm) // Q
        Wh = -((-(Vh - P * Nm)) // Q)
        lo, hi, s = _affine_iv(E, Vl, Vh, Q * Wl, Q * Wh)
        best.offer_earlier(lo, hi, qn << s, n)
        truncated = Vl != Vh  # the same at every n: floor and ceil of the walk keep lo < hi
        # step down: N(n−2, k−1) = N(n−1, k−1)·(n−k)/((n−1)·r)
        if n - 2 >= k - 1:  # (at n = k the loop ends here: no N(k − 2, k − 1) is needed)
            Nm = gmpy2.divexact(Nm * (n - k), (n - 1) * R)
        Vl, Vh = Wl, Wh
        qn //= Q
        n -= 1
    return k, truncated


def _hs_below_best(E: _Exp, Ah: Any, Bl: Any, qn: Any, best: _Best) -> bool:
    """Whether (Ah − e^ε·Bl)/qn ≤ best.lo is certain, with e^ε ≥ E.lo/2^s (integers only).

    A per-n hockey-stick value lies below (Ah − e^ε·Bl)/qn ≤ (Ah − (E.lo/2^s)·Bl)/qn; when that
    is at most the best certified lower end, offering the value could move neither end of the
    enclosure of the maximum, so the scan skips its 60-bit enclosure (a screen that is itself
    a proof: exact cross-multiplication)."""
    top = (mpz(Ah) << E.s) - E.lo * Bl
    # _cmp: exact cross-multiplication for short numbers, a float screen with an exact
    # fallback for long ones (two products of million-bit integers per n made this the cost
    # of the whole walk at tiny β and ε)
    # (a top ≤ 0 needs no case of its own: _cmp gives its sign against best.lo ≥ 0)
    return _cmp(top, qn << E.s, best.lo_num, best.lo_den) <= 0


def _clipped_affine(E: _Exp, As: Any, B: Any) -> tuple[Any, Any]:
    """Numerators (lo, hi) over 2^s of A − e^ε·B for exact A = As/2^s, B ≥ 0: lo from e^ε's
    upper end (0 when e^ε has none), hi from its lower end, both clipped below at 0."""
    lo = mpz(0) if E.hi is None else max(As - E.hi * B, mpz(0))
    return lo, max(As - E.lo * B, lo)


def _affine_iv(E: _Exp, Al: Any, Ah: Any, Bl: Any, Bh: Any) -> tuple[Any, Any, int]:
    """Numerators (lo, hi) over 2^s with lo ≤ A − e^ε·B ≤ hi for A ∈ [Al, Ah], B ∈ [Bl, Bh]
    (B ≥ 0), clipped below at 0 (used on bad sets only, see :meth:`_Exp.affine`): lo is the
    lower end of Al − e^ε·Bh and hi the upper end of Ah − e^ε·Bl, each computed as in
    ``E.affine`` and at one common precision, raised until both ends are CERTAIN_BITS-bit accurate."""
    while True:
        if Bh == 0:  # then B = 0 exactly
            return mpz(Al) << E.s, mpz(Ah) << E.s, E.s
        l1, h1 = _clipped_affine(E, mpz(Al) << E.s, Bh)
        l2, h2 = _clipped_affine(E, mpz(Ah) << E.s, Bl)
        ok = (h1 == 0 or ((h1 - l1) << CERTAIN_BITS) <= h1) and (h2 == 0 or ((h2 - l2) << CERTAIN_BITS) <= h2)
        if ok or not E.refine():
            return l1, (h2 if h2 > l1 else l1), E.s


def _max_pair(x: tuple, y: tuple) -> tuple:
    (l1, h1, d1), (l2, h2, d2) = x, y
    # common denominator by cross-multiplication
    lo = (l1, d1) if l1 * d2 >= l2 * d1 else (l2, d2)
    hi = (h1, d1) if h1 * d2 >= h2 * d1 else (h2, d2)
    if lo[1] == hi[1]:
        return lo[0], hi[0], lo[1]
    return lo[0] * hi[1], hi[0] * lo[1], lo[1] * hi[1]


def _max_frac(num: Any, den: Any, x: Fraction) -> tuple[Any, Any]:
    if x.numerator * den > num * x.denominator:
        return mpz(x.numerator), mpz(x.denominator)
    return num, den


def _backward_rate(N: int, k: int, gp_hi: Fraction | None) -> Fraction:
    """c_N = max(k, γ'·N)/(N − 1), with γ' ≤ ``gp_hi`` clipped at 0 (``None``: 0): for every
    n' ≥ N, max(k, γ'·n')/(n' − 1) ≤ c_N (n'/(n' − 1) falls as n' grows and k/(n' − 1) falls too),
    the rate the backward bad counts of a group of n' records stay below; both backward stops
    bound their probability by the lower Chernoff–Hoeffding tail exp(−(N − 1)·KL(c_N‖β)) when
    c_N < β."""
    return max(Fraction(k), max(gp_hi or Fraction(0), Fraction(0)) * N) / (N - 1)


def _tail_bound(
    N: int,
    k: int,
    beta: Fraction,
    eps: Fraction,
    kl: Callable[[], Fraction],
    gp_hi: Fraction | None,
    backward: bool,
    measure: WorstCaseMeasureLike,
) -> Fraction:
    """A rational upper bound, valid for every n' ≥ N, on the per-n value (1 if none).

    ``kl()`` gives a certified lower bound on KL(γ‖β), asked only for ε > 0.  At ε = 0 the
    hockey-stick value is ≤ TV(Bin(n'), Bin(n'−1)) = β·max pmf of Bin(n'−1), non-increasing in
    n'; the pointwise one has no bound below 1 (it is 1 already at n = k)."""
    if eps == 0:
        return beta * max_pmf(N - 1, beta) if measure == "hockey-stick" else Fraction(1)
    total = Fraction(0)
    with iv_precision(BASE_PREC):
        total += iv_upper(iv_exp(-iv_from_fraction(kl() * N)))
        if backward:
            c = _backward_rate(N, k, gp_hi)
            if c >= beta:
                return Fraction(1)
            klb = kl_lower_below(c, beta)
            total += iv_upper(iv_exp(-iv_from_fraction(klb * (N - 1))))
    return min(total, Fraction(1))


def scan_paper_regime(
    k: int,
    beta: Fraction,
    eps: Fraction,
    *,
    measure: WorstCaseMeasureLike,
    max_n: int | None = None,
) -> Certified:
    """Supremum over group sizes n of a per-n measure for ε ≥ −ln(1−β) (compatibility name of
    :func:`scan`, which also covers ε < −ln(1−β))."""
    return scan(k, beta, eps, measure=measure, max_n=max_n)


def is_infinite_epsilon(epsilon: Any) -> bool:
    """Whether ``epsilon`` is +∞ (a float inf, or the text "inf" / "infinity", any case)."""
    if isinstance(epsilon, float):
        return epsilon == math.inf
    return isinstance(epsilon, str) and epsilon.strip().lower().lstrip("+") in ("inf", "infinity")


def limit_at_infinite_epsilon(k: Number, beta: Number, what: str) -> Certified:
    """The limit ε → ∞ of CP Thm 5's d and of both exact worst cases: β^k, exactly.

    As ε grows, γ = 1 − (1−β)e^{−ε} → 1 and the bad outcomes of a group of n records shrink to
    "all n sampled" (probability β^n, impossible under the neighbour without t), largest at the
    smallest published size n = k; every other bad mass vanishes.  From some finite ε on the
    value is exactly β^k (e.g. ε = 1e400 gives it), so the limit is attained."""
    kk = k_param(k)
    b = resolve_beta(beta, Fraction(1)) if not (isinstance(beta, str) and beta.strip().lower() == "edge") else None
    if b is None:
        from dps_verify.core.errors import ParameterError

        raise ParameterError('beta="edge" is 1 at epsilon = inf: give 0 < beta < 1 (CP Thm 5)')
    v = b**kk
    return Certified(
        lower=v,
        upper=v,
        how=f"{what}: limit epsilon -> inf, exact: beta^k (only 'all k records sampled' at group size n = k "
        "stays bad; every other bad mass vanishes)",
        details={"argmax_n": kk, "epsilon": "inf"},
    )


def sdgs_delta_certified(
    k: Number, beta: Number, epsilon: Number, definition: DefinitionLike = "hockey-stick"
) -> Certified:
    """Exact worst case of sampled strongly-safe k-anonymization, as an enclosure.

    Every k ≥ 1, 0 < β < 1, ε ≥ 0, on both sides of CP Thm 5's edge ε = −ln(1−β); see
    :func:`scan` for the bounds that make the supremum over group sizes finite and proven.
    Raises :class:`~dps_verify.core.errors.CertificationError` past the work budget.
    ``epsilon = inf`` (float or text) gives the limit ε → ∞, β^k (:func:`limit_at_infinite_epsilon`).
    """
    if is_infinite_epsilon(epsilon):
        if definition not in DEFINITIONS:
            raise ParameterError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
        return limit_at_infinite_epsilon(k, beta, f"exact worst case ({definition})")
    kk = k_param(k)
    eps = epsilon_param(epsilon)
    b = resolve_beta(beta, eps)
    if definition not in DEFINITIONS:
        raise ParameterError(f"definition must be one of {DEFINITIONS}, got {definition!r}")
    return scan(kk, b, eps, measure=definition)


def sdgs_delta(
    k: Number, beta: Number, epsilon: Number, definition: DefinitionLike = "hockey-stick"
) -> mpmath.mpf:
    """Exact worst-case δ, over all datasets and records, of sampled strongly-safe
    k-anonymization (the δ actually needed, versus the paper's upper bound ``bounds.d``).

    Valid for every ε ≥ 0; returned rounded up, from an enclosure of relative width ≤ 1e-15
    (else :class:`~dps_verify.core.errors.CertificationError`).  See :func:`scan` for the
    reduction to one recoding group and the proven stopping rule.
    """
    return single_value(sdgs_delta_certified(k, beta, epsilon, definition), "sdgs_delta")


def scan_segments_for_test(k: int, beta: Fraction, eps: Fraction, measure: WorstCaseMeasureLike) -> Certified:
    """:func:`scan`'s long-range path (segments of constant bad set) forced on any input with
    ε > 0, for the property tests that compare it with the exact walk over n."""
    from dps_verify.worstcase.long_range import sdgs_by_segments

    return sdgs_by_segments(k, beta, eps, measure, _Exp(eps), kl_lower(beta, eps), kl_lower_below)
