"""δ(ε) of T fresh-sample releases of sampled strongly-safe k-anonymization, worst case over
all group sizes (CP §2.7).

Each release samples the dataset afresh (CP Def. 3) and applies strongly-safe k-anonymization
(CP Def. 5), so releases are independent and their privacy losses add.  By the cancellation
theorem of :mod:`dps_verify.engine.factorised`, the neighbouring pair that matters is one group
of n records against n − 1 (all other groups cancel); its part laws are those of the sampled
count thresholded at k (:func:`group_pair`).  Write δ_T(n) for the T-fold hockey-stick δ at ε of
that pair, worst of both directions (CP Def. 2, add/remove neighbours).  The worst case over all
datasets is sup_{n ≥ 1} δ_T(n), and :func:`releases_delta` encloses it.

**Why a finite computation covers every n.**

1. *n < k.*  Both part laws are the point mass "suppressed", so δ_T(n) = 0.
2. *Thresholding only helps.*  Let U_n = Binomial(n, β) be the untruncated sampled count and
   t(c) = c if c ≥ k else "suppressed".  The thresholded pair is (t(U_n), t(U_{n−1})); applying t
   to each of the T releases is a post-processing (a Markov kernel applied to both laws), and the
   hockey-stick divergence of a pair never grows under a kernel (data processing).  Hence
   δ_T(n) ≤ δ_T^U(n), the T-fold δ of the untruncated pair (U_n, U_{n−1}).
3. *The untruncated δ is non-increasing in n.*  Let K be the kernel c ↦ c + B with an independent
   B ~ Bernoulli(β).  Then U_n = K(U_{n−1}) and U_{n−1} = K(U_{n−2}), so the pair (U_n, U_{n−1})
   is the image of (U_{n−1}, U_{n−2}) under K, in both orders; for T releases the product kernel
   K^{⊗T} does the same to the T-fold products.  By data processing again,
   δ_T^U(n) ≤ δ_T^U(n − 1) for every n ≥ 2, in each direction.
4. *Hence one number bounds the whole tail:* for every n ≥ A, δ_T(n) ≤ δ_T^U(n) ≤ δ_T^U(A).

**A cheap rigorous bound** (:func:`chernoff_bound`).  For one direction (P, Q) let p∞ = P(Q = 0)
and, on the finite part, L = ln P/Q.  For x real and λ > 0, max(0, 1 − e^(−x)) ≤ C_λ e^(λx) with
C_λ = λ^λ/(1 + λ)^(1+λ): for x ≤ 0 the left side is 0, and for x > 0 the function
(1 − e^(−x))e^(−λx) is maximal where e^(−x) = λ/(1 + λ), with value C_λ.  With x = L₁ + … + L_T − ε
and the T releases independent,

    δ_T ≤ 1 − (1 − p∞)^T + C_λ e^(−λε) M(λ)^T,    M(λ) = Σ_{finite y} P(y)·(P(y)/Q(y))^λ,

and 1 − (1 − p∞)^T is evaluated as it is (T·p∞ exceeds 1 when p∞ is large).  λ is chosen by a
float screen; the bound at that λ is evaluated in ball arithmetic (python-flint arb, 128 bits),
so it holds whatever the screen did.  At small ε the Chernoff bound is weak (at ε = 0 it never
gets small); the cheap bounds are therefore the smaller of it and :func:`tv_bound`,
δ_T(ε) ≤ δ_T(0) ≤ 1 − (1 − TV)^T with the closed-form TV of the (thresholded) binomial pair.

**Rare releases: the sparse enclosure.**  When the group is almost always suppressed (n just
above k, or β small), δ_T(n) can be 1e-18 and below, where the discretised PLD's absolute float
and tail-cut errors (≈ 1e-16) say nothing.  Such sizes are enclosed by
:func:`~dps_verify.inverse.pld_sparse.sparse_delta`: condition on the number j of releases that
do *not* land on the dominant atom ("suppressed"); the terms j ≤ J are composed exactly (in
ball arithmetic) and the rest is at most C(T, J + 1) q^(J + 1), q the off-dominant mass (union
bound over (J + 1)-subsets of releases; proof in that module).

**The screened algorithm** (default, ``method="screen"``).

1. Enclose n = k (:func:`~dps_verify.measures.pld.pair_delta_enclosure`: exact, sparse or
   discretised, width ``rtol``).  Let the *target* be the largest enclosed upper end.
2. The tail start A is the first size found (doubling, then bisection) whose cheap bound on
   δ_T^U(A) is ≤ max(target, ``ATOL``); by step 4 above every n ≥ A is covered *without raising the upper
   end*.  Such an A exists in practice because δ_T^U(n) decays exponentially in n (the T-fold
   loss of (U_n, U_{n−1}) has variance O(T/n)) — an efficiency remark only: soundness rests on
   the bound at the A actually used, whatever it is.  The search stops at ``n_limit`` (then the
   tail bound at ``n_limit + 1`` is used as it is and may set the upper end).
3. Every n in (k, A) is screened in floats (:func:`screen_delta`: one FFT power per direction
   on a mean-preserving grid, folded onto the float Chernoff window of the T-fold loss; never
   used as a bound), and the screen's argmax is enclosed
   (``rtol``); the target becomes max(largest enclosed upper end, (1 + ``rtol``)·largest
   enclosed lower end) and the tail start is searched again (it can only move down).
4. Every other n in (k, A), in decreasing screen order, gets a *certified upper bound* below
   the target — max(top, min((1 + rtol)·lower, top + rtol·(1 − lower)), tail bound at A), top
   the largest enclosed upper end: capped below 1 (else the trivial bound 1 would pass when
   (1 + rtol)·lower ≥ 1) and never below the tail bound, which is part of the upper
   end anyway — the cheapest that works: the Chernoff bound of the thresholded pair, else
   :func:`~dps_verify.inverse.pld_discrete.upper_below` (exact / sparse / the pessimistic grid
   chain alone, refined until below the target).  A size that cannot be brought below the
   target is a worst size the screen missed: it is enclosed and the target raised (at most
   2·``max_enclosures`` such enclosures; after that its best certified bound is kept and may set
   the upper end, ``upper_end_from = "bound"``).

The result encloses sup_n δ_T(n): the lower end is the largest certified lower end of a concrete
size; the upper end is the largest of every certified per-size bound on [k, A) and the tail bound
at A — each of which is a proved upper bound on δ_T(n) for the sizes it covers, and together they
cover every n ≥ 1.  ``covers_all_n`` is True and ``how`` names which part sets the upper end;
when upper > (1 + rtol)·lower, ``target_missed`` (and ``how``) says so and names it.

**The previous algorithm** (``method="scan"``, kept for comparison).  The group n = k is
enclosed first.  Let U be the largest upper end enclosed so far.  The tail start A is the first
size found whose cheap bound on δ_T^U(A) is ≤ U.  Each n in (k, A) gets the cheap bound of its
thresholded pair; those above U are enclosed, largest first: a coarse enclosure (rtol 0.2)
first, a fine one if it is still the largest; exact enclosures count once and not against the
budget ``max_enclosures`` (discretised fine ones; coarse ones up to ``COARSE_PER_FINE``× as
many).  Bounds at or below ``ATOL`` = 1e-30 are not refined (the tail start may be taken where
the tail bound is ≤ 1e-30), so when δ itself is that small the upper end may be up to 1e-30.

**Pruning sizes by dominance, considered and not used.**  If the privacy profile of size m's
pair (hockey-stick δ at every ε ∈ ℝ, equivalently its trade-off function) dominated size n's,
every T-fold composition of n would be dominated by that of m (composition preserves the order
of trade-off functions: Dong, Roth & Su, *Gaussian differential privacy*, JRSS B 2022), and n
could be skipped.  For these thresholded binomial pairs no size dominates another (checked in
floats at the breakpoints for k = 5, β = 1/10, n ∈ [5, 64]; as ε → ∞ the profile tends to the
mass β^n at infinite loss, so only a smaller size could dominate, and none did), so it would
prune nothing;
each size costs one coarse split-grid upper bound instead (about 5 ms at T = 1000).

With ``n_max`` given, only n ∈ [k, n_max] is enclosed (each size exactly as above) and the result
is the worst case *over that range only* (``covers_all_n`` False).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import fft as sfft

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import Certified, Number, log_fraction
from dps_verify.core.params import (
    beta_param,
    count_param,
    epsilon_param,
    k_param,
    rtol_param,
    shown,
)
from dps_verify.core.search import least_integer
from dps_verify.engine.protocol import thresholded_count_law
from dps_verify.inverse.pld_discrete import (
    FFT_ASSUMPTION,
    _complex_power,
    _times_param,
    check_releases_budget,
    upper_below,
)
from dps_verify.measures.pld import PrivacyLossDistribution, pair_delta_enclosure
from dps_verify.worstcase.ball_binomial import arb_epsilon, arb_fraction

#: screened values of λ for the cheap bound (the certified bound uses the best one)
LAMBDAS = 2.0 ** np.linspace(-8, 8, 65)
#: ball precision of the cheap bound
BALL_PREC = 128
#: bounds below this δ are not refined further (the reported upper end may then be up to ATOL;
#: still a correct bound, and far below any δ of practical use)
ATOL = Fraction(1, 10**30)
#: coarse (rtol 0.2) enclosures allowed per fine one
COARSE_PER_FINE = 8


@dataclass(frozen=True)
class ReleasesResult:
    """Enclosure of the worst T-fold δ over group sizes, with the maximising n and the mode.

    ``scanned`` is the range of sizes treated one by one; ``covers_all_n`` says whether the
    enclosure is of the sup over *all* n (True) or over ``scanned`` only (False, ``n_max``
    given); ``tail_from`` is the size A from which the monotone tail bound is used."""

    delta: Certified
    argmax_n: int
    scanned: tuple[int, int]
    mode: str  # "exact" or "discretised"
    covers_all_n: bool = False
    tail_from: int | None = None
    tail_bound: Fraction | None = None
    enclosed: tuple[int, ...] = ()
    bound_source: str = "enclosure"
    details: dict = field(default_factory=dict)
    #: set when the enclosure is wider than asked (upper > (1 + rtol)·lower): what sets the
    #: upper end (the result still holds)
    target_missed: str | None = None


# ---- the domain of the public functions ------------------------------------------------------
# Each public function validates its arguments once, with one ParameterError line that names the
# parameter, and then calls its private unchecked variant; the algorithms call the variants with
# arguments validated once by :func:`releases_delta`.


def _size_param(n: int) -> int:
    """A group size n >= 1: one group of n records against n − 1 (n = 1: one record against
    none); returned as a Python int."""
    return count_param(n, 1, "n must be an integer >= 1 (records in the larger group)")


def _threshold_param(k: int) -> int:
    """A suppression threshold k >= 0 (CP §3.2 Apply step; k = 0 suppresses nothing: the
    untruncated pair); returned as a Python int."""
    return count_param(k, 0, "k must be an integer >= 0 (suppression threshold, 0 for none)")


def _law_param(law: Mapping, name: str) -> dict:
    """An exact law: a mapping of outputs to masses that are ints or Fractions, each >= 0, with
    sum exactly 1; returned as a dict in the same order with every mass a Fraction."""
    if not isinstance(law, Mapping):
        raise ParameterError(f"{name} must be a mapping of outputs to exact masses, got {type(law).__name__}")
    out: dict = {}
    for y, x in law.items():
        if isinstance(x, bool) or not isinstance(x, (int, Fraction)):
            raise ParameterError(f"{name}[{y!r}] must be an exact mass (int or Fraction), got {x!r}")
        if x < 0:
            raise ParameterError(f"{name}[{y!r}] must be a mass >= 0, got {x}")
        out[y] = Fraction(x)
    total = sum(out.values(), Fraction(0))
    if total != 1:
        raise ParameterError(f"the masses of {name} must sum to 1 (a probability law), got {total}")
    return out


def group_pair(n: int, k: int, beta: Number) -> tuple[dict, dict]:
    """Part laws of one group with n versus n − 1 records (CP §3.2 Apply at threshold k).

    Domain: integers n >= 1 and k >= 0 (k = 0: nothing suppressed), 0 < β < 1 read exactly
    (:func:`~dps_verify.core.params.beta_param`); anything else raises ParameterError."""
    return _group_pair(_size_param(n), _threshold_param(k), beta_param(beta))


def _group_pair(n: int, k: int, b: Fraction) -> tuple[dict, dict]:
    """:func:`group_pair` without validation (n >= 1, k >= 0, 0 < b < 1 a Fraction)."""
    return thresholded_count_law(n, b, k), thresholded_count_law(n - 1, b, k)


def format_bound(x: Number, digits: int = 4) -> str:
    """An upper bound in scientific notation rounded UP, with more than ``digits`` significant
    digits when needed so that a bound below 1 never prints as 1.

    Domain: x a finite number >= 0 (a bound on δ, or a ratio of two), read exactly — a float
    by its binary value, so the printed number is never below it; ``digits`` an integer >= 1.
    Anything else raises ParameterError — a string too, even one that spells a fraction."""
    from dps_verify.core.numbers import format_up

    if isinstance(x, (bool, str)):
        raise ParameterError(f"x (the bound to print) must be a finite number >= 0, got {shown(x)}")
    given = x
    try:
        x = Fraction(x)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"x (the bound to print) must be a finite number >= 0, got {shown(x)}") from None
    if x < 0:
        raise ParameterError(f"x (the bound to print) must be a finite number >= 0, got {shown(given, str)}")
    digits = count_param(digits, 1, "digits must be an integer >= 1")
    s = format_up(x, digits)
    while x < 1 and Fraction(s) >= 1 and digits < 40:
        digits += 1
        s = format_up(x, digits)
    return s


# ---- the cheap bound ------------------------------------------------------------------------


def _flint() -> Any:
    import flint

    return flint


def _upper(x: Any) -> Fraction:
    from dps_verify.worstcase.ball_binomial import arb_to_fractions

    return arb_to_fractions(x)[1]


def _log_beta_pair(beta: float | Fraction) -> tuple[float, float]:
    """ln β and ln(1 − β) as floats — from the exact β when it is a Fraction, since float(β)
    rounds to 1 within 2^-54 of 1 (and to 0 below ~1e-308), where log1p(−β) or log β would fail."""
    if isinstance(beta, Fraction):
        return log_fraction(beta), log_fraction(1 - beta)
    return math.log(beta), math.log1p(-beta)


def _log_binomial_pmf(n: int, beta: float | Fraction) -> np.ndarray:
    c = np.arange(n + 1, dtype=np.float64)
    lg = math.lgamma(n + 1) - np.array([math.lgamma(x + 1) + math.lgamma(n - x + 1) for x in c])
    log_b, log_1mb = _log_beta_pair(beta)
    return lg + c * log_b + (n - c) * log_1mb


def _direction_bound(logp: np.ndarray, ell: np.ndarray, atoms: list[tuple[Any, Any]], p_inf: Fraction,
                     eps: Fraction, times: int) -> Fraction:
    """The bound of the module doc for one direction: float screen for λ over ``logp`` (log P)
    and ``ell`` (log P/Q) of the finite atoms, then a ball evaluation from ``atoms`` = [(P, ln r)]
    as arb balls."""
    flint = _flint()
    # 1 − (1 − p∞)^T, tighter than T·p∞ when p∞ is large (exactly 0 at p∞ = 0, 1 at p∞ = 1)
    with flint.ctx.workprec(BALL_PREC):
        inf_up = min(Fraction(1), times * p_inf, _upper(1 - (1 - arb_fraction(p_inf)) ** times))
    if not atoms:
        return inf_up
    e = float(arb_epsilon(eps).mid())
    X = logp[None, :] + LAMBDAS[:, None] * ell[None, :]
    m = X.max(axis=1)
    lse = m + np.log(np.exp(X - m[:, None]).sum(axis=1))
    F = LAMBDAS * np.log(LAMBDAS) - (1 + LAMBDAS) * np.log1p(LAMBDAS) - LAMBDAS * e + times * lse
    lam = float(LAMBDAS[int(np.nanargmin(F))]) if np.isfinite(F).any() else 1.0
    with flint.ctx.workprec(BALL_PREC):
        L = flint.arb(lam)
        M = flint.arb(0)
        for pr, lr in atoms:
            M += pr * (L * lr).exp()
        C = (L * L.log() - (1 + L) * (1 + L).log()).exp()
        b = C * (times * M.log() - L * arb_epsilon(eps)).exp()
        fin = _upper(b)
    return min(Fraction(1), inf_up + fin)


def chernoff_bound(p: Mapping, q: Mapping, eps: Number, times: int) -> Fraction:
    """Rigorous upper bound on the T-fold δ at ε of (p, q), worst of both directions (module
    doc; exact laws as mappings, e.g. :func:`group_pair`).

    Domain: p and q exact laws (masses int or Fraction, each >= 0, summing to exactly 1), ε >= 0
    (:func:`~dps_verify.core.params.epsilon_param`), ``times`` an integer >= 1; anything else
    raises ParameterError (a bound computed from masses that are not a law holds nothing)."""
    p, q = _law_param(p, "p"), _law_param(q, "q")
    return _chernoff_bound(p, q, epsilon_param(eps), _times_param(times))


def _chernoff_bound(p: dict, q: dict, eps_f: Fraction, times: int) -> Fraction:
    """:func:`chernoff_bound` without validation (Fraction laws, ε and times validated)."""
    flint = _flint()
    out = Fraction(0)
    for a, b in ((p, q), (q, p)):
        fin = [(x, x / b[y]) for y, x in a.items() if x > 0 and b.get(y, 0) > 0]
        # (a zero mass adds nothing: no test of x needed)
        p_inf = sum((x for y, x in a.items() if b.get(y, 0) == 0), Fraction(0))
        logp = np.array([math.log(x.numerator) - math.log(x.denominator) for x, _ in fin])
        ell = np.array([math.log(r.numerator) - math.log(r.denominator) for _, r in fin])
        with flint.ctx.workprec(BALL_PREC):
            atoms = [(arb_fraction(x), arb_fraction(r).log()) for x, r in fin]
        out = max(out, _direction_bound(logp, ell, atoms, p_inf, eps_f, times))
    return out


def _binomial_balls(n: int, beta: Any) -> list[Any]:
    """Balls for C(n, c) β^c (1 − β)^(n − c), c = 0..n (inside a workprec block)."""
    flint = _flint()
    return [flint.arb(math.comb(n, c)) * beta**c * (1 - beta) ** (n - c) for c in range(n + 1)]


def _pair_bound(n: int, k: int | None, beta: Fraction, eps: Fraction, times: int) -> Fraction:
    """Cheap bound for the pair (t(U_n), t(U_{n−1})) with t the threshold at k, or the
    untruncated pair (U_n, U_{n−1}) when ``k`` is None: the worst of both directions of
    :func:`_pair_direction_bounds`."""
    return max(_pair_direction_bounds(n, k, beta, eps, times))


def _pair_direction_bounds(n: int, k: int | None, beta: Fraction, eps: Fraction,
                           times: int) -> tuple[Fraction, Fraction]:
    """Cheap bounds (forward: U_n against U_{n−1}; backward: the reverse) for the pair of
    :func:`_pair_bound`, each a bound on its own direction's T-fold δ; laws in closed form (no
    Fractions).

    Forward: a count c ≤ n − 1 has ratio (1 − β)n/(n − c); c = n has Q = 0 (mass β^n, kept for
    n ≥ k).  Backward: the inverse ratios, no infinite loss.  Thresholded: counts c < k merge
    into one atom "suppressed" with masses S_n = P(U_n < k), S_{n−1} = P(U_{n−1} < k)."""
    kk = 0 if k is None else k
    lp_n, lp_m = _log_binomial_pmf(n, beta), _log_binomial_pmf(n - 1, beta)
    cs = np.arange(kk, n, dtype=np.float64)
    ell = _log_beta_pair(beta)[1] + math.log(n) - np.log(n - cs)
    flint = _flint()
    with flint.ctx.workprec(BALL_PREC):
        B = arb_fraction(beta)
        Pn, Pm = _binomial_balls(n, B), _binomial_balls(n - 1, B)
        lr = [((1 - B) * n / (n - c)).log() for c in range(kk, n)]
        fwd_atoms = [(Pn[c], lr[c - kk]) for c in range(kk, n)]
        bwd_atoms = [(Pm[c], -lr[c - kk]) for c in range(kk, n)]
        if kk > 0:
            Sn, Sm = sum(Pn[:kk], flint.arb(0)), sum(Pm[:kk], flint.arb(0))
            fwd_atoms.append((Sn, (Sn / Sm).log()))
            bwd_atoms.append((Sm, (Sm / Sn).log()))
    lp_fwd, lp_bwd, ell_f = lp_n[kk:n], lp_m[kk:n], ell
    if kk > 0:
        ls_n = float(np.logaddexp.reduce(lp_n[:kk]))
        ls_m = float(np.logaddexp.reduce(lp_m[:kk]))
        lp_fwd, lp_bwd = np.append(lp_fwd, ls_n), np.append(lp_bwd, ls_m)
        ell_f = np.append(ell, ls_n - ls_m)
    ell_b = -ell_f
    fwd = _direction_bound(lp_fwd, ell_f, fwd_atoms, beta**n, eps, times)
    bwd = _direction_bound(lp_bwd, ell_b, bwd_atoms, Fraction(0), eps, times)
    return fwd, bwd


def tv_bound(n: int, beta: Number, times: int, k: int = 0) -> Fraction:
    """Rigorous upper bound on δ_T^U(n) at every ε ≥ 0, from the total variation distance.

    δ_T(ε) ≤ δ_T(0) = TV(P^⊗T, Q^⊗T) ≤ 1 − (1 − TV(P, Q))^T (couple each release maximally:
    all T agree with probability ≥ (1 − TV)^T).  For P = Binomial(n, β), Q = Binomial(n − 1, β),
    P(c) > Q(c) exactly when c > nβ, and P(U_n ≥ j) − P(U_{n−1} ≥ j) = β·P(U_{n−1} = j − 1) (the
    n-th record), so TV = β·C(n − 1, m) β^m (1 − β)^(n − 1 − m) with m = ⌊nβ⌋.  With the
    threshold k ≥ 1 (:func:`group_pair`) the merged atom "suppressed" has the smaller mass under
    n (P(U_n < k) − P(U_{n−1} < k) = −β·P(U_{n−1} = k − 1)), so only counts c ≥ max(k, ⌊nβ⌋ + 1)
    count and m = max(k − 1, ⌊nβ⌋).  Unlike the Chernoff bound this one stays small at ε = 0
    (where the Chernoff route needs a huge n to reach the target).  Ball arithmetic.

    Domain: integers n >= 1 and k >= 0 (k = 0: the untruncated pair), 0 < β < 1
    (:func:`~dps_verify.core.params.beta_param`), ``times`` an integer >= 1; anything else
    raises ParameterError.  For n < k both laws are "suppressed" with certainty: 0."""
    return _tv_bound(_size_param(n), beta_param(beta), _times_param(times), _threshold_param(k))


def _tv_bound(n: int, beta: Fraction, times: int, k: int = 0) -> Fraction:
    """:func:`tv_bound` without validation (n >= 1, k >= 0, 0 < β < 1, times >= 1).  For n < k
    (both laws "suppressed") the bound is exactly 0, returned before any ball arithmetic: there
    m = k − 1 > n − 1 would give (1 − β)^(n − 1 − m) a negative exponent, and for β within the
    balls' radius of 1 the ball 1 − β contains 0.  Otherwise m <= n − 1 (⌊nβ⌋ <= n − 1 as
    β < 1)."""
    if n < k:
        return Fraction(0)
    m = max(k - 1, math.floor(n * beta))
    flint = _flint()
    with flint.ctx.workprec(BALL_PREC):
        B = arb_fraction(beta)
        tv = B * flint.arb(math.comb(n - 1, m)) * B**m * (1 - B) ** (n - 1 - m)
        out = _upper(1 - (1 - tv) ** times)
    # out is the upper end of a ball around 1 − (1 − TV)^T >= 0 (0 < β < 1): never below 0
    return min(Fraction(1), out)


def untruncated_bound(n: int, beta: Number, eps: Number, times: int) -> Fraction:
    """Cheap rigorous bound on δ_T^U(n), the T-fold δ of (Binomial(n, β), Binomial(n − 1, β)),
    both directions; by the module doc (steps 2–4) it bounds δ_T(m) for every m ≥ n.  The
    smaller of the Chernoff bound and :func:`tv_bound`.

    Domain: an integer n >= 1 (n = 1, one record against none: the trivial bound 1), 0 < β < 1
    (:func:`~dps_verify.core.params.beta_param`), ε >= 0, ``times`` an integer >= 1; anything
    else raises ParameterError."""
    n, b = _size_param(n), beta_param(beta)
    return _untruncated_bound(n, b, epsilon_param(eps), _times_param(times))


def _untruncated_bound(n: int, b: Fraction, eps: Fraction, times: int) -> Fraction:
    """:func:`untruncated_bound` without validation (n >= 1, β, ε and times validated)."""
    if n < 2:
        return Fraction(1)
    # tv_bound is the upper end of a ball around a positive number (0 < β < 1): never 0
    return min(_tv_bound(n, b, times), _pair_bound(n, None, b, eps, times))


def thresholded_bound(n: int, k: int, beta: Number, eps: Number, times: int) -> Fraction:
    """Cheap rigorous bound on δ_T(n) for the thresholded pair of :func:`group_pair` (the
    thresholded δ is at most the untruncated one, module doc step 2, so :func:`tv_bound` serves
    too).

    Domain: integers n >= 1 and k >= 0 (k = 0: the untruncated pair), 0 < β < 1
    (:func:`~dps_verify.core.params.beta_param`), ε >= 0, ``times`` an integer >= 1; anything
    else raises ParameterError.  For n < k both laws are "suppressed" with certainty: 0."""
    n, k, b = _size_param(n), _threshold_param(k), beta_param(beta)
    return _thresholded_bound(n, k, b, epsilon_param(eps), _times_param(times))


def _thresholded_bound(n: int, k: int, b: Fraction, eps: Fraction, times: int) -> Fraction:
    """:func:`thresholded_bound` without validation (n >= 1, k >= 0, β, ε, times validated)."""
    if n < k:
        return Fraction(0)
    if n == 1:  # k <= 1: one record against none
        return min(_tv_bound(n, b, times, k), _chernoff_bound(*_group_pair(n, k, b), eps, times))
    return min(_tv_bound(n, b, times, k), _pair_bound(n, k, b, eps, times))


# ---- the worst case over n --------------------------------------------------------------------


def releases_delta(k: int, beta: Number, epsilon: Number, times: int, *, n_max: int | None = None,
                   rtol: float = 0.01, max_enclosures: int = 6, n_limit: int = 1024,
                   method: str = "screen", fft: bool = True) -> ReleasesResult:
    """Enclosure of the worst δ at ε of ``times`` fresh-sample releases over group sizes.

    Without ``n_max``: the sup over **all** n (see the module doc for the proof that the finite
    computation covers every n).  With ``n_max``: the worst case over n ∈ [k, n_max] only, each
    size enclosed.  ``rtol`` is passed to the enclosures of the worst sizes; ``n_limit`` caps the
    search for the tail start.  ``method="screen"`` (default) is the float-screened algorithm of
    the module doc; ``method="scan"`` the previous one (every size above the running bound
    enclosed coarse then fine, ``max_enclosures`` fine ones at most), kept for comparison.
    ``fft=False``: every discretised enclosure composes by direct convolution with proved float
    bounds instead of the FFT power, whose error term rests on an assumed error model of
    pocketfft (:func:`~dps_verify.inverse.pld_discrete.discretised_delta`); O(L²) instead of
    O(L log L) per grid, so for small T and coarse tolerances only."""
    k = k_param(k)
    b = beta_param(beta)
    eps = epsilon_param(epsilon)
    rtol = rtol_param(rtol)
    times = _times_param(times)
    check_releases_budget(times)
    if n_max is not None:
        return _name_fft_model(_finite_scan(k, b, eps, times, n_max, rtol, fft), fft)
    if method == "screen":
        return _name_fft_model(_screened(k, b, eps, times, rtol, n_limit, max_enclosures, fft), fft)
    if method != "scan":
        raise ParameterError(f"method must be 'screen' or 'scan', got {method!r}")

    fine: dict[int, Certified] = {}
    coarse: dict[int, Certified] = {}
    bound: dict[int, Fraction] = {}  # best upper bound known for δ_T(n)

    def enclose(n: int, tol: float) -> Certified:
        c = pair_delta_enclosure(*_group_pair(n, k, b), eps, times, rtol=tol, fft=fft)
        bound[n] = min(bound.get(n, c.upper), c.upper)
        return c

    fine[k] = enclose(k, rtol)
    untr = _UntruncatedBounds(b, eps, times)

    def crit() -> Fraction:  # the tail may not raise the upper end above what is enclosed
        return max(c.upper for c in (*fine.values(), *coarse.values()))

    def tail_ok(a: int) -> bool:
        return untr(a) <= max(crit(), ATOL)

    while True:
        A = _tail_start(k + 1, n_limit, tail_ok)
        tail_from = A if A is not None else n_limit + 1
        for n in range(k + 1, tail_from):
            if n not in bound:
                bound[n] = _thresholded_bound(n, k, b, eps, times)
        # the size with the largest bound (ties: the smallest n, the first); the loop leaves
        # with it (nothing changes the bounds after the last computation)
        n_top = max(range(k, tail_from), key=bound.__getitem__)
        spent_fine = sum(c.details.get("mode") != "exact" for c in fine.values())
        spent_coarse = sum(c.details.get("mode") != "exact" for c in coarse.values())
        if (n_top in fine or bound[n_top] <= ATOL or spent_fine >= max_enclosures
                or spent_coarse >= COARSE_PER_FINE * max_enclosures
                or len(fine) + len(coarse) >= 10 * max_enclosures):
            break
        if n_top in coarse:
            fine[n_top] = enclose(n_top, rtol)
        else:
            c = enclose(n_top, max(0.2, rtol))
            if c.details.get("mode") == "exact":  # exact is exact: no second pass needed
                fine[n_top] = c
            else:
                coarse[n_top] = c

    tail = untr(tail_from)
    encs = {**coarse, **fine}
    lower = max(c.lower for c in encs.values())
    upper = max(bound[n_top], tail)
    if tail > bound[n_top]:
        source, argmax = "tail", tail_from
    else:
        source, argmax = ("enclosure" if n_top in encs else "cheap"), n_top
    best_n = max(sorted(fine), key=lambda n: fine[n].lower)  # ties: the smallest n
    modes = {c.details.get("mode") for c in encs.values()}
    mode = "exact" if modes == {"exact"} else "discretised"
    why = {
        "enclosure": f"the enclosure at n = {argmax}",
        "tail": f"the monotone tail bound for n >= {tail_from}"
                + ("" if A is not None else f" (no tail start found up to n_limit = {n_limit})"),
        "cheap": f"a Chernoff bound at n = {argmax} (enclosure budget max_enclosures = {max_enclosures} reached)",
    }[source]
    how = (
        f"worst case over ALL group sizes n: n < {k} gives 0; n in [{k}, {tail_from - 1}] enclosed "
        f"(n = {', '.join(map(str, sorted(encs)))}) or bounded by a Chernoff bound on the "
        f"thresholded pair; n >= {tail_from} by the untruncated pair at n = {tail_from} "
        f"(non-increasing in n; bound {format_bound(tail)}); upper end set by {why}; "
        f"at n = {best_n}: {fine[best_n].how}"
    )
    missed = _target_missed(lower, upper, rtol, why)
    if missed:
        how += "; " + missed
    cert = Certified(lower, upper, how, {"argmax_n": argmax, "mode": mode})
    return _name_fft_model(ReleasesResult(cert, argmax, (k, tail_from - 1), mode, True, tail_from, tail,
                          tuple(sorted(encs)), source,
                          {"cheap_bounds": len(bound) - len(encs), "untruncated_bounds": len(untr),
                           "fine_enclosures": sorted(fine), "coarse_enclosures": sorted(coarse)},
                          missed), fft)


def _name_fft_model(res: ReleasesResult, fft: bool) -> ReleasesResult:
    """The result with its ``how`` naming the FFT error-model assumption whenever a grid bound
    may have been composed by FFT (``fft`` and not all exact), so that the text of the size
    shown never hides an assumption another size's bound rests on."""
    how = res.delta.how
    if not fft or res.mode == "exact" or FFT_ASSUMPTION in how:
        return res
    how += "; where a grid bound was composed by FFT: " + FFT_ASSUMPTION
    return replace(res, delta=Certified(res.delta.lower, res.delta.upper, how, res.delta.details))


# ---- the float screen and the screened algorithm -------------------------------------------


#: cyclic length of the float screen's FFT (coarse pass over every size; fine pass for the sizes
#: within ``SCREEN_BAND`` of the coarse maximum); the T-fold loss is folded onto a window that
#: fills at most half of it, so the grid step scales with the spread of the T-fold loss
SCREEN_BINS = (1 << 12, 1 << 14)
SCREEN_BAND = 1.05
#: screen values below this are FFT noise (absolute error ≈ 1e-16 · √bins), not estimates
SCREEN_NOISE = 1e-11


def _loss_range(logp: np.ndarray, ell: np.ndarray, times: int, tau: float) -> tuple[float, float]:
    """Float Chernoff range [lo, hi] of the T-fold loss outside which each tail has about
    mass ≤ τ (an estimate for placing the screen's window, never a bound)."""
    lam = LAMBDAS[:, None]
    lt = math.log(tau)

    def log_mgf(x: np.ndarray) -> np.ndarray:
        m = x.max(axis=1)
        return m + np.log(np.exp(x - m[:, None]).sum(axis=1))

    up = log_mgf(logp[None, :] + lam * ell[None, :])
    down = log_mgf(logp[None, :] - lam * ell[None, :])
    hi = float(np.min((times * up - lt) / LAMBDAS))
    lo = float(np.max((lt - times * down) / LAMBDAS))
    return lo, max(hi, lo)


def _screen_direction(logp: np.ndarray, ell: np.ndarray, p_inf: float, e: float, times: int,
                      bins: int) -> float:
    """Float estimate of the T-fold δ at ε of one direction: finite atoms with log-masses
    ``logp`` and losses ``ell`` split between their two neighbours on a grid (mean-preserving,
    so the error is second order in the step), composed by one FFT power of length ``bins``
    folded onto a window around the Chernoff range of the T-fold loss (an estimate only: never
    used as a bound)."""
    inf = -math.expm1(times * math.log1p(-p_inf)) if p_inf < 1 else 1.0
    # atoms too light to matter at the screen's noise level would only stretch the grid
    keep = logp > max(float(logp.max()) - 60.0, math.log(SCREEN_NOISE / 100 / times))
    logp, ell = logp[keep], ell[keep]
    if len(ell) == 0:
        return inf
    w_lo, w_hi = _loss_range(logp, ell, times, SCREEN_NOISE / 100)
    lo, span = float(ell.min()), float(ell.max() - ell.min())
    h = max((w_hi - w_lo) / (bins // 2), span / (bins // 2), 1e-12)
    x = (ell - lo) / h
    j = np.floor(x).astype(np.int64)
    t = x - j  # split each atom between its two grid neighbours, keeping its mean loss
    m = int(j.max()) + 2
    p = np.exp(logp)
    base = np.bincount(j, p * (1 - t), minlength=m) + np.bincount(j + 1, p * t, minlength=m)
    total = times * (m - 1) + 1
    size = min(bins, 1 << (total - 1).bit_length())
    f = sfft.rfft(base, size)
    cyc = sfft.irfft(_complex_power(f, times), size)
    start = 0
    if total > size:  # fold: read the window of ``size`` indices around the Chernoff range
        centre = ((w_lo + w_hi) / 2 - times * lo) / h
        start = min(max(0, int(centre - size / 2)), total - size)
        cyc = np.roll(cyc, -(start % size))
    loss = times * lo + (start + np.arange(size)) * h
    w = -np.expm1(np.minimum(e - loss, 0.0))
    return inf + float(np.sum(np.maximum(cyc, 0.0) * w))


def screen_delta(n: int, k: int, beta: float | Fraction, e: float, times: int,
                 bins: int = SCREEN_BINS[1]) -> float:
    """Float estimate of δ_T(n) (both directions) for the thresholded pair of :func:`group_pair`
    (closed-form log-laws; a screen, not a bound).

    Domain: integers n >= 1 and k >= 0, 0 < β < 1 (a float or a Fraction, used as given),
    ``e`` = ε as a real number (int, float, Fraction, numpy scalar, ...; not a bool or a string)
    whose float is finite and >= 0, used as that float, ``times`` an integer >= 1, ``bins`` (the
    FFT length) an integer >= 2; anything else raises ParameterError."""
    n, k = _size_param(n), _threshold_param(k)
    beta_param(beta)
    times = _times_param(times)
    try:
        e_f = float(e) if isinstance(e, numbers.Real) and not isinstance(e, bool) else math.nan
    except OverflowError:  # an int or Fraction past the float range
        e_f = math.inf
    if not math.isfinite(e_f) or e_f < 0:
        raise ParameterError(f"e (epsilon as a float) must be a finite number >= 0, got {shown(e)}")
    bins = count_param(bins, 2, "bins (the screen's FFT length) must be an integer >= 2")
    return _screen_delta(n, k, beta, e_f, times, bins)


def _screen_delta(n: int, k: int, beta: float | Fraction, e: float, times: int,
                  bins: int = SCREEN_BINS[1]) -> float:
    """:func:`screen_delta` without validation."""
    if n < k:  # every count of either group is below k: both always suppressed, δ = 0
        return 0.0
    lp_n, lp_m = _log_binomial_pmf(n, beta), _log_binomial_pmf(n - 1, beta)
    fin_n, fin_m = lp_n[k:n], lp_m[k:n]  # counts k..n−1 are possible under both
    if k > 0:  # "suppressed": counts below k (for n = k every count of the smaller group)
        fin_n = np.append(fin_n, np.logaddexp.reduce(lp_n[:k]))
        fin_m = np.append(fin_m, np.logaddexp.reduce(lp_m[:k]))
    p_inf = math.exp(lp_n[n])  # count n: only the group with n records can show it
    fwd = _screen_direction(fin_n, fin_n - fin_m, p_inf, e, times, bins)
    bwd = _screen_direction(fin_m, fin_m - fin_n, 0.0, e, times, bins)
    return max(fwd, bwd)


def _pair_plds(n: int, k: int, b: Fraction) -> list[PrivacyLossDistribution]:
    p, q = _group_pair(n, k, b)  # exact Fraction laws of the engine
    return [PrivacyLossDistribution.from_exact_laws(p, q), PrivacyLossDistribution.from_exact_laws(q, p)]


def _screened(k: int, b: Fraction, eps: Fraction, times: int, rtol: float, n_limit: int,
              max_enclosures: int, fft: bool) -> ReleasesResult:
    """The default algorithm (module doc, "The screened algorithm")."""
    e = float(arb_epsilon(eps).mid())
    coarse_bins, fine_bins = SCREEN_BINS
    encl: dict[int, Certified] = {
        k: pair_delta_enclosure(*_group_pair(k, k, b), eps, times, rtol=rtol, fft=fft)}
    bound: dict[int, Certified] = {}  # certified per-size upper bounds (not full enclosures)
    untr = _UntruncatedBounds(b, eps, times)
    screen: dict[int, float] = {}
    fine_screened: set[int] = set()

    def top() -> Fraction:
        return max(c.upper for c in encl.values())

    def goal() -> Fraction:  # sizes bounded below this keep upper <= (1 + rtol)·lower
        lower = max(c.lower for c in encl.values())
        # capped below 1: with (1 + rtol)·lower >= 1 the trivial bound 1 would
        # pass everywhere; top + rtol·(1 − lower) stays < 1 whenever top < 1, and >= top
        return max(top(), min(lower * Fraction(1 + rtol), top() + Fraction(rtol) * (1 - lower)))

    def tail_ok(a: int) -> bool:
        return untr(a) <= max(top(), ATOL)

    def screen_below_tail() -> int:
        """Search the tail start against the current top, screen the sizes below it (coarse,
        upwards; past the screen's peak, stop once it has halved), then screen every size within
        SCREEN_BAND of the peak again at the fine length; returns the tail start."""
        A = _tail_start(k + 1, n_limit, tail_ok)
        tail_from = A if A is not None else n_limit + 1
        top_s, peak = 0.0, k
        for n in range(k + 1, tail_from):
            if n not in screen:
                screen[n] = _screen_delta(n, k, b, e, times, coarse_bins)
            if screen[n] > top_s:
                top_s, peak = screen[n], n
            elif n > peak + 3 and screen[n] < top_s / 2 and top_s > SCREEN_NOISE:
                break
        for n in list(screen):
            if n not in fine_screened and screen[n] * SCREEN_BAND >= top_s:
                screen[n] = _screen_delta(n, k, b, e, times, fine_bins)
                fine_screened.add(n)
        return tail_from

    # 1. screen the sizes below the tail start and enclose the screen's argmax (once; the tail
    #    start is then searched again against the raised target, and can only move down)
    tail_from = screen_below_tail()
    if screen:
        n_star = max(sorted(screen), key=screen.__getitem__)  # ties: the smallest n
        # below SCREEN_NOISE the FFT screen is float noise: leave those sizes to step 2
        if screen[n_star] > max(float(encl[k].lower), SCREEN_NOISE):
            encl[n_star] = pair_delta_enclosure(*_group_pair(n_star, k, b), eps, times, rtol=rtol,
                                                fft=fft)
            tail_from = screen_below_tail()
    # 2. every other size below the tail start: certify δ_T(n) ≤ the target, cheapest way first.
    #    The tail bound is part of the upper end anyway: bounding a size below it gains nothing
    #    (it is above the target only when no tail start was found up to n_limit)
    target = max(goal(), untr(tail_from))
    for n in range(k + 1, tail_from):  # the sizes step 1 did not reach
        if n not in screen:
            screen[n] = _screen_delta(n, k, b, e, times, coarse_bins)
    h_hint: list[int | None] | None = None  # grids that served the previous size (sizes are alike)
    # decreasing screen order, ties in increasing n (the sort is stable under reverse)
    for n in sorted(range(k + 1, tail_from), key=screen.__getitem__, reverse=True):
        if n in encl:
            continue
        cheap = _thresholded_bound(n, k, b, eps, times)
        if cheap <= target:
            bound[n] = Certified(Fraction(0), cheap, "Chernoff bound on the thresholded pair",
                                 {"mode": "cheap"})
            continue
        if n not in fine_screened and screen[n] * 1.03 >= float(target):  # (each n visited once)
            screen[n] = _screen_delta(n, k, b, e, times, fine_bins)
        c = upper_below(_pair_plds(n, k, b), eps, times, target, estimate=screen[n], h_exp=h_hint,
                        fft=fft)
        h_hint = c.details.get("h_exps", h_hint)
        if c.upper <= target:
            bound[n] = c
            continue
        if c.details.get("mode") in ("exact", "direct") and c.upper <= c.lower * Fraction(1 + rtol):
            encl[n] = c  # exact or a narrow direct sum in both directions: an enclosure of δ_T(n)
            target = max(goal(), untr(tail_from))
            continue
        if len(encl) < 1 + 2 * max_enclosures:  # the screen missed a worst size: enclose it
            c = pair_delta_enclosure(*_group_pair(n, k, b), eps, times, rtol=rtol, fft=fft)
            encl[n] = c
            target = max(goal(), untr(tail_from))
        else:  # budget spent: keep the best certified bound (raises the upper end)
            bound[n] = c if c.upper <= cheap else Certified(Fraction(0), cheap, "Chernoff bound", {"mode": "cheap"})
    tail = untr(tail_from)
    lower = max([c.lower for c in encl.values()] + [c.lower for c in bound.values()])
    # ties: the smallest n (max keeps the first of equal keys, the sizes sorted upwards)
    n_enc = max(sorted(encl), key=lambda n: encl[n].upper)
    n_bnd = max(sorted(bound), key=lambda n: bound[n].upper) if bound else None
    upper, source, argmax = encl[n_enc].upper, "enclosure", n_enc
    if n_bnd is not None and bound[n_bnd].upper > upper:
        upper, source, argmax = bound[n_bnd].upper, "bound", n_bnd
    if tail > upper:
        upper, source, argmax = tail, "tail", tail_from
    best_n = max(sorted(encl), key=lambda n: encl[n].lower)
    modes = {c.details.get("mode") for c in encl.values()} | {c.details.get("mode") for c in bound.values()}
    modes.discard("cheap")
    mode = ("exact" if modes <= {"exact"} else "discretised" if "discretised" in modes
            else "sparse" if "sparse" in modes else "direct")
    why = {
        "enclosure": f"the enclosure at n = {argmax}",
        "tail": f"the monotone tail bound for n >= {tail_from}",
        "bound": f"a per-size certified upper bound at n = {argmax} ({bound.get(argmax, encl[n_enc]).details.get('mode')})",
    }[source]
    how = (
        f"worst case over ALL group sizes n: n < {k} gives 0; n in [{k}, {tail_from - 1}] screened "
        f"in floats, n = {', '.join(map(str, sorted(encl)))} enclosed, every other size bounded "
        f"below the largest enclosed upper end (Chernoff, sparse or pessimistic grid); n >= "
        f"{tail_from} by the untruncated pair at n = {tail_from} (non-increasing in n; bound "
        f"{format_bound(tail)}); upper end set by {why}; at n = {best_n}: {encl[best_n].how}"
    )
    missed = _target_missed(lower, upper, rtol, why)
    if missed:
        how += "; " + missed
    cert = Certified(min(lower, upper), upper, how, {"argmax_n": argmax, "mode": mode})
    kinds: dict[str, int] = {}
    for c in bound.values():
        kinds[str(c.details.get("mode"))] = kinds.get(str(c.details.get("mode")), 0) + 1
    return ReleasesResult(cert, argmax, (k, tail_from - 1), mode, True, tail_from, tail,
                          tuple(sorted(encl)), source,
                          {"screened": len(screen), "bounds_by_kind": kinds,
                           "untruncated_bounds": len(untr), "enclosures": sorted(encl),
                           "best_lower_at": best_n}, missed)


def _target_missed(lower: Fraction, upper: Fraction, rtol: float, why: str) -> str | None:
    """The note for a result wider than asked (upper > (1 + rtol)·lower), naming what sets the
    upper end; None when the width is met."""
    if upper <= lower * Fraction(1 + rtol):
        return None
    # exact, rounded up (a float overflows past 1e308, e.g. for a tiny beta); below 2 as 1 + its
    # excess, so that a ratio within 1e-4 of 1 does not print as 1.001 or as 1
    if lower == 0:
        ratio = "inf (lower end 0)"
    elif upper < 2 * lower:
        ratio = f"1 + {format_bound(upper / lower - 1)}"
    else:
        ratio = format_bound(upper / lower)
    return f"target width missed: upper/lower = {ratio} > 1 + rtol = 1 + {rtol:g}, set by {why}"


class _UntruncatedBounds:
    """``untruncated_bound(a, b, eps, times)`` memoised per tail start a (both worst-size
    searches ask for the same starts repeatedly; arguments validated by the caller); ``len``
    counts the distinct starts."""

    def __init__(self, b: Fraction, eps: Fraction, times: int) -> None:
        self.b, self.eps, self.times = b, eps, times
        self._memo: dict[int, Fraction] = {}

    def __call__(self, a: int) -> Fraction:
        if a not in self._memo:
            self._memo[a] = _untruncated_bound(a, self.b, self.eps, self.times)
        return self._memo[a]

    def __len__(self) -> int:
        return len(self._memo)


def _tail_start(first: int, n_limit: int, ok: Any) -> int | None:
    """A size a ∈ [first, n_limit] with ``ok(a)``, searched by doubling then bisection
    (:func:`~dps_verify.core.search.least_integer`; a heuristic search: only ``ok`` at the
    returned size is relied on), or None when none is found up to ``n_limit``."""
    if n_limit < first:
        return None
    try:
        # (least_integer's monotonicity check only re-reads the failing neighbour its
        # bisection ended on: nothing more is evaluated or relied on)
        return least_integer(ok, lo=first, limit=n_limit, what="tail start")
    except CertificationError:
        return None


def _finite_scan(k: int, b: Fraction, eps: Fraction, times: int, n_max: int, rtol: float,
                 fft: bool) -> ReleasesResult:
    best: tuple[Certified, int] | None = None
    lower = Fraction(0)
    modes = set()
    for n in range(k, max(n_max, k) + 1):
        c = pair_delta_enclosure(*_group_pair(n, k, b), eps, times, rtol=rtol, fft=fft)
        modes.add(c.details.get("mode"))
        lower = max(lower, c.lower)
        if best is None or c.upper > best[0].upper:
            best = (c, n)
    assert best is not None
    mode = "exact" if modes == {"exact"} else "discretised"
    how = (f"worst case over n in [{k}, {max(n_max, k)}] only (n_max given; larger groups not "
           f"covered); at n = {best[1]}: {best[0].how}")
    missed = _target_missed(lower, best[0].upper, rtol, f"the enclosure at n = {best[1]}")
    if missed:
        how += "; " + missed
    cert = Certified(lower, best[0].upper, how, {"argmax_n": best[1], "mode": mode})
    return ReleasesResult(cert, best[1], (k, max(n_max, k)), mode, False,
                          enclosed=tuple(range(k, max(n_max, k) + 1)), target_missed=missed)


__all__ = ["ReleasesResult", "chernoff_bound", "format_bound", "group_pair", "releases_delta",
           "screen_delta", "thresholded_bound", "tv_bound", "untruncated_bound"]
