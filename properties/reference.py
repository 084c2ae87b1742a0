"""An independent, slow, high-precision reference for the numeric API.

Written from the paper's formulas, *not* from dps_verify's code (nothing here imports
``dps_verify``).  Everything is plain loops over the definitions, evaluated with ``mpmath`` at
:data:`DPS` (≥ 60) significant digits inside ``workdps`` (never a global precision) or with
exact ``Fraction``/integer arithmetic.  Inputs are exact ``Fraction``s (the tests hand the same
values to the code under test as strings or fractions).

When a decision is too close to call at the working precision (a threshold within 10^-(DPS-10)
of an integer, a ratio that close to e^ε) or a work budget runs out, the reference raises
:class:`ReferenceGaveUp`: the tests then only check that the code answers in bounded time with
a number in range or a documented error.  Inputs outside a theorem's domain raise
:class:`OutsideDomain` (the code must then raise a ``ValueError``).

Formulas and where the infinite suprema are cut (every cut is a proven upper bound, applied
with a generous factor 2 so rounding in the bound itself cannot matter):

- **CP Thm 5**, d(k, β, ε) = max_{n ≥ n_m} T(n), T(n) = Pr[Bin(n, β) > γn],
  γ = (e^ε − 1 + β)/e^ε = β + (1−β)(1 − e^−ε), n_m = ⌈k/γ − 1⌉.
  *Runs.*  Write J(n) for the least integer > γn.  For fixed J, Pr[Bin(n, β) ≥ J] does not
  decrease in n (add one more Bernoulli).  So on each run of n with the same J(n), T is largest
  at the last n of the run, N_J = ⌈J/γ⌉ − 1 (the largest n with γn < J); n_m = N_k, J(n_m) = k.
  Hence d = max_{J ≥ k} Pr[Bin(N_J, β) ≥ J], a loop over J (this lets β, ε go down to 1e-40,
  where n_m ~ 10^40).  :func:`d_by_n` is the literal loop over n, for cross-checking.
  *Cut.*  For γ > β, Chernoff–Hoeffding gives T(n) ≤ exp(−n·KL(γ‖β)), decreasing in n; the
  loop stops once exp(−(N_J + 1)·KL) < best/2.
  *Tail sum.*  For j ≥ J > γN the term ratio f(j+1)/f(j) = (N−j)β/((j+1)(1−β)) is at most
  βe^−ε/γ ≤ 1/2 in CP Thm 5's regime, so the tail is summed until the geometric remainder
  t·ρ/(1−ρ) is below 10^-(DPS-5) of the sum, and that remainder is added (an upper bound).
- **CP Thm 6**, d_safe = d(k, β, ε − ε₁) when ε − ε₁ ≥ −ln(1−β).
- **TR Thm 6**, exp(−k(ln(γ/β) − (γ−β)/γ)), with γ−β = (1−β)(1−e^−ε) formed without
  cancellation.
- **CP Thm 1**, ε₂ = ln(1 + (β₂/β₁)(e^ε₁ − 1)) via expm1/log1p, δ₂ = (β₂/β₁)δ₁ (exact).
- **Exact worst case of sampled strongly-safe k-anonymization** (one recoding group, CP App.
  A.2): D has n identical records, D' has n−1; output = the count c of sampled records if
  c ≥ k, else "suppressed".  δ = sup_{n ≥ 1} of the hockey-stick (CP Def. 2) or pointwise
  (TR Def. 2) divergence of the two output laws, both directions, computed literally from the
  full laws (Pascal's rule n−1 → n).  Cuts, for the per-n divergence δ(n):
  (a) ε ≥ −ln(1−β): every output has Q ≤ e^ε P (Q/P ≤ 1/(1−β) for counts and for the
      suppressed output), so only counts j > γn are bad and δ(n) ≤ Pr[Bin(n) ≥ γn]
      ≤ exp(−n·KL(γ‖β));
  (b) hockey-stick, any ε: δ(n) ≤ TV(Bin(n), Bin(n−1)) = β·max_j f(j; n−1, β), which does not
      increase in n;
  (c) pointwise, 0 < ε < −ln(1−β): bad counts lie in {j > γn} ∪ {j ≤ max(k−1, γ'n)},
      γ' = 1 − (1−β)e^ε, so for all n' ≥ N, δ(n') ≤ exp(−(N−1)KL(γ‖β)) + exp(−(N−1)KL(X‖β))
      with X = max((k−1)/(N−1), γ'N/(N−1)) < β (KL(·‖β) decreases on [0, β]).
  ε = 0 pointwise outside the regime has no cut (the supremum is a limit): the reference
  gives up there.
- **Hockey-stick δ / pointwise δ / ε of two finite laws**: Σ_y max(0, P − e^ε Q) per
  direction, the masses of {y : |ln P/Q| > ε}, and ε by bisection on the reference δ.
- **PLD self-composition**: the ``times``-fold product laws built outright (tuples of outputs)
  and measured as above.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction

import mpmath

#: Significant decimal digits of every mpmath evaluation here.
DPS = 80
#: Default work budgets (loop iterations) before :class:`ReferenceGaveUp`.
MAX_RUNS = 4000
MAX_GROUP = 1500


class ReferenceGaveUp(Exception):
    """The reference cannot decide this input within its precision or work budget."""


class OutsideDomain(Exception):
    """The input is outside the theorem's domain (the code under test must raise ValueError)."""


def _mp(x: Fraction) -> mpmath.mpf:
    if isinstance(x, mpmath.mpf):
        return x
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _gamma(beta: Fraction, eps: Fraction) -> mpmath.mpf:
    """γ = β + (1−β)(1 − e^−ε), no cancellation, at the caller's working precision."""
    return _gamma_at(beta, eps, mpmath.mp.prec)


@functools.lru_cache(maxsize=4096)
def _gamma_at(beta: Fraction, eps: Fraction, prec: int) -> mpmath.mpf:
    """:func:`_gamma` at ``prec`` bits (the working precision it is called under), remembered:
    a pure function of its arguments, asked for again at every threshold of a run (J(n), N_J
    and their adaptive ceilings), so every call returns the value a fresh evaluation gives."""
    b = _mp(beta)
    return b - (1 - b) * mpmath.expm1(-_mp(eps))


def _kl(x: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """KL(Bern(x) ‖ Bern(b)) with 0·ln 0 = 0."""
    out = mpmath.mpf(0)
    if x > 0:
        out += x * mpmath.log(x / b)
    if x < 1:
        out += (1 - x) * (mpmath.log1p(-x) - mpmath.log1p(-b))
    return out


def in_regime(beta: Fraction, eps: Fraction) -> bool:
    """ε ≥ −ln(1−β) (CP Thm 5), decided at DPS digits (equality is impossible for rational
    β ∈ (0,1) and ε, −ln(1−β) being irrational there)."""
    with mpmath.workdps(DPS):
        edge = -mpmath.log1p(-_mp(beta))
        e = _mp(eps)
        if abs(e - edge) <= edge * mpmath.mpf(10) ** (-(DPS - 10)):
            raise ReferenceGaveUp("epsilon too close to -ln(1-beta)")
        return e > edge


def _check_beta(beta: Fraction, allow_one: bool = False) -> None:
    if not (0 < beta < 1 or (allow_one and beta == 1)):
        raise OutsideDomain("beta")


def _ceil_adaptive(fn: Callable[[], mpmath.mpf]) -> int:
    """⌈fn()⌉ for fn() > 0, evaluating fn at DPS digits and, if the value is too close to an
    integer to decide, at 2, 4 and 8 times that (a value within 10^-(DPS-10) relative of an
    integer at 8·DPS digits gives up)."""
    for scale in (1, 2, 4, 8):
        with mpmath.workdps(DPS * scale):
            x = fn()
            c = int(mpmath.ceil(x))
            gap = min(abs(x - c), abs(x - (c - 1)))
            if gap > (abs(x) + 1) * mpmath.mpf(10) ** (-(DPS * scale - 10)):
                return c
    raise ReferenceGaveUp("a threshold is too close to an integer to decide")


def _one_minus_gamma(beta: Fraction, eps: Fraction) -> mpmath.mpf:
    """1 − γ = (1−β)e^−ε, with full relative precision, at the caller's working precision
    (remembered as :func:`_gamma` is)."""
    return _one_minus_gamma_at(beta, eps, mpmath.mp.prec)


@functools.lru_cache(maxsize=4096)
def _one_minus_gamma_at(beta: Fraction, eps: Fraction, prec: int) -> mpmath.mpf:
    return (1 - _mp(beta)) * mpmath.exp(-_mp(eps))


def _first_bad(n: int, beta: Fraction, eps: Fraction) -> int:
    """J(n) = least integer j > γn.  Decided on whichever of γn and s = n(1−γ) is known to full
    relative precision without being huge next to its distance to an integer: γn if γ ≤ 1/2,
    else through j > n − s ⇔ n − j < s, i.e. J = n − ⌈s⌉ + 1."""
    if _gamma(beta, eps) <= mpmath.mpf(1) / 2:
        if _gamma(beta, eps) * n < mpmath.mpf(1) / 2:
            return 1
        return _ceil_adaptive(lambda: _gamma(beta, eps) * n)  # ⌊γn⌋ + 1, γn not an integer
    if n * _one_minus_gamma(beta, eps) < mpmath.mpf(1) / 2:
        return n
    return n - _ceil_adaptive(lambda: n * _one_minus_gamma(beta, eps)) + 1


def _last_below(J: int, beta: Fraction, eps: Fraction) -> int:
    """N_J = ⌈J/γ⌉ − 1, the largest n with γn < J, computed as J + ⌈J(1−γ)/γ⌉ − 1 (the
    fractional part J(1−γ)/γ is formed without cancellation, even when γ is within 10^-30 of 1)."""
    def u() -> mpmath.mpf:
        return J * _one_minus_gamma(beta, eps) / _gamma(beta, eps)

    if u() < mpmath.mpf(1) / 2:
        return J
    return J + _ceil_adaptive(u) - 1


def _log_pmf(j: int, n: int, b: mpmath.mpf) -> mpmath.mpf:
    """ln f(j; n, β) (0 ≤ j ≤ n), working precision raised by the digits of n."""
    return (
        mpmath.loggamma(n + 1) - mpmath.loggamma(j + 1) - mpmath.loggamma(n - j + 1)
        + (j * mpmath.log(b) if j else 0) + ((n - j) * mpmath.log1p(-b) if n - j else 0)
    )


@functools.lru_cache(maxsize=4096)
def upper_tail(n: int, J: int, beta: Fraction) -> mpmath.mpf:
    """Pr[Bin(n, β) ≥ J] for J > βn/(1−β)·… (term ratio ≤ 1/2 from J on: see module doc).

    Sums terms until the geometric remainder bound is negligible and adds that bound, so the
    value is accurate to ~10^-(DPS-5) relative.  Raises ReferenceGaveUp if the ratio is not < 1.

    A pure function of its arguments (its own working precision, whatever the caller's), so
    its values are remembered: the runs of :func:`d` at k and k − 1 share every tail from J = k
    on, and so do :func:`sdgs_delta`'s group sizes past n_m, and its hockey-stick reuses the
    tail of n − 1 at the same threshold (an exception is raised afresh, never remembered).
    """
    if J > n:
        return mpmath.mpf(0)
    if J <= 0:
        return mpmath.mpf(1)
    extra = len(str(n)) + 10
    with mpmath.workdps(DPS + extra):
        b = _mp(beta)
        t = mpmath.exp(_log_pmf(J, n, b))
        total = mpmath.mpf(0)
        j = J
        odds = b / (1 - b)
        # the loop's two constants, at the same working precision as inside it (computed once)
        ratio_cap, negligible = mpmath.mpf(3) / 4, mpmath.mpf(10) ** (-(DPS - 5))
        while True:
            total += t
            if j == n:
                return +total
            rho = (n - j) * odds / (j + 1)
            if rho >= ratio_cap:
                raise ReferenceGaveUp("tail term ratio not bounded below 1")
            nxt = t * rho
            if nxt * 4 <= total * negligible:
                return total + nxt * 4  # ≥ geometric remainder nxt/(1−ρ), ρ < 3/4
            t = nxt
            j += 1


def d(k: int, beta: Fraction, eps: Fraction, *, max_runs: int = MAX_RUNS) -> mpmath.mpf:
    """CP Thm 5's d(k, β, ε), by runs of equal threshold (see module doc)."""
    if k < 1:
        raise OutsideDomain("k")
    _check_beta(beta)
    if eps < 0 or not in_regime(beta, eps):
        raise OutsideDomain("epsilon < -ln(1-beta)")
    with mpmath.workdps(DPS):
        g = _gamma(beta, eps)
        kl = _kl(g, _mp(beta))
        if not kl > 0:
            raise ReferenceGaveUp("KL not positive at this precision")
        n_m = _last_below(k, beta, eps)
        if _first_bad(n_m, beta, eps) != k:
            raise AssertionError("reference: J(n_m) != k")
        best = mpmath.mpf(0)
        J = k
        for _ in range(max_runs):
            N = _last_below(J, beta, eps)
            if _first_bad(N, beta, eps) != J:
                raise AssertionError("reference: J(N_J) != J")
            best = max(best, upper_tail(N, J, beta))
            if best > 0 and mpmath.exp(-(N + 1) * kl) < best / 2:
                return best
            J += 1
    raise ReferenceGaveUp(f"d: more than {max_runs} runs")


def d_by_n(k: int, beta: Fraction, eps: Fraction, *, max_n: int = 5000) -> mpmath.mpf:
    """CP Thm 5's d(k, β, ε) as the literal loop over n ≥ n_m (slow; for cross-checks)."""
    if k < 1:
        raise OutsideDomain("k")
    _check_beta(beta)
    if eps < 0 or not in_regime(beta, eps):
        raise OutsideDomain("epsilon < -ln(1-beta)")
    with mpmath.workdps(DPS):
        g = _gamma(beta, eps)
        kl = _kl(g, _mp(beta))
        n = _last_below(k, beta, eps)
        best = mpmath.mpf(0)
        for _ in range(max_n):
            J = _first_bad(n, beta, eps)
            b = _mp(beta)
            tail = mpmath.fsum(mpmath.exp(_log_pmf(j, n, b)) for j in range(J, n + 1))
            best = max(best, tail)
            if best > 0 and mpmath.exp(-(n + 1) * kl) < best / 2:
                return best
            n += 1
    raise ReferenceGaveUp("d_by_n: budget")


def d_safe(k: int, beta: Fraction, eps: Fraction, eps1: Fraction) -> mpmath.mpf:
    """CP Thm 6: d(k, β, ε − ε₁), for ε − ε₁ ≥ −ln(1−β)."""
    if eps1 < 0 or eps < eps1:
        raise OutsideDomain("epsilon1")
    return d(k, beta, eps - eps1)


def chernoff_delta(k: int, beta: Fraction, eps: Fraction) -> mpmath.mpf:
    """TR §6 Thm 6: exp(−k(ln(γ/β) − (γ−β)/γ)) (defined on CP Thm 5's regime)."""
    if k < 1:
        raise OutsideDomain("k")
    _check_beta(beta)
    if eps < 0 or not in_regime(beta, eps):
        raise OutsideDomain("epsilon < -ln(1-beta)")
    with mpmath.workdps(DPS):
        b = _mp(beta)
        gap = -(1 - b) * mpmath.expm1(-_mp(eps))  # γ − β
        g = b + gap
        return mpmath.exp(-k * (mpmath.log1p(gap / b) - gap / g))


def amplify(eps1: Fraction, delta1: Fraction, beta1: Fraction, beta2: Fraction):
    """CP Thm 1: (ε₂, δ₂) = (ln(1 + (β₂/β₁)(e^ε₁ − 1)), (β₂/β₁)δ₁)."""
    if eps1 < 0 or not 0 <= delta1 <= 1:
        raise OutsideDomain("epsilon/delta")
    _check_beta(beta1, allow_one=True)
    _check_beta(beta2, allow_one=True)
    if beta2 > beta1:
        raise OutsideDomain("beta_to > beta_from")
    r = beta2 / beta1
    with mpmath.workdps(DPS):
        return mpmath.log1p(_mp(r) * mpmath.expm1(_mp(eps1))), r * delta1


# --- finite laws -------------------------------------------------------------------------


def _hs_dir(P: Mapping, Q: Mapping, x: mpmath.mpf) -> mpmath.mpf:
    return mpmath.fsum(max(mpmath.mpf(0), _mp(p) - x * _mp(Q.get(y, 0))) for y, p in P.items())


def hockey_stick(P: Mapping, Q: Mapping, eps: Fraction) -> mpmath.mpf:
    """CP Def. 2: max over both directions of Σ_y max(0, P(y) − e^ε Q(y))."""
    with mpmath.workdps(DPS):
        x = mpmath.exp(_mp(eps))
        return max(_hs_dir(P, Q, x), _hs_dir(Q, P, x))


def pointwise(P: Mapping, Q: Mapping, eps: Fraction) -> Fraction:
    """TR Def. 2: max(P(B), Q(B)), B = {y : |ln P(y)/Q(y)| > ε} (Q = 0 < P counts as ∞)."""
    bad = []
    with mpmath.workdps(DPS):
        x = mpmath.exp(_mp(eps))
        tiny = mpmath.mpf(10) ** (-(DPS - 10))
        for y in set(P) | set(Q):
            p, q = Fraction(P.get(y, 0)), Fraction(Q.get(y, 0))
            if p == q:
                continue
            if p == 0 or q == 0:
                bad.append(y)
                continue
            r = _mp(max(p, q) / min(p, q))
            if abs(r - x) <= x * tiny:
                raise ReferenceGaveUp("likelihood ratio too close to e^epsilon")
            if r > x:
                bad.append(y)
    return max(sum((Fraction(P.get(y, 0)) for y in bad), Fraction(0)),
               sum((Fraction(Q.get(y, 0)) for y in bad), Fraction(0)))


def epsilon(P: Mapping, Q: Mapping, delta: Fraction, *, iterations: int = 400) -> mpmath.mpf:
    """Least ε ≥ 0 with hockey-stick δ(ε) ≤ delta (∞ if none), by bisection on the reference δ
    (δ(ε) is non-increasing; the bracket's top is ln of the largest finite likelihood ratio,
    where only the mass at infinite loss remains)."""
    inf_mass = max(
        sum((Fraction(p) for y, p in P.items() if p > 0 and Fraction(Q.get(y, 0)) == 0), Fraction(0)),
        sum((Fraction(q) for y, q in Q.items() if q > 0 and Fraction(P.get(y, 0)) == 0), Fraction(0)),
    )
    if inf_mass > delta:
        return mpmath.inf
    with mpmath.workdps(DPS):
        if hockey_stick(P, Q, Fraction(0)) <= _mp(delta):
            return mpmath.mpf(0)
        ratios = [Fraction(a) / Fraction(b) for A, B in ((P, Q), (Q, P)) for y, a in A.items()
                  if a > 0 and Fraction(B.get(y, 0)) > 0 for b in [B[y]]]
        lo, hi = mpmath.mpf(0), mpmath.log(_mp(max(ratios)))
        dl = _mp(delta)
        # the probabilities as mpf once, at this working precision (each step converted them
        # all again; _mp returns an mpf unchanged)
        Pm, Qm = ({y: _mp(p) for y, p in L.items()} for L in (P, Q))
        for _ in range(iterations):
            mid = (lo + hi) / 2
            if mid == lo or mid == hi:
                break  # lo, hi adjacent at the working precision: no later step moves hi
            if _hs_at(Pm, Qm, mid) <= dl:
                hi = mid
            else:
                lo = mid
        return hi


def _hs_at(P: Mapping, Q: Mapping, e: mpmath.mpf) -> mpmath.mpf:
    x = mpmath.exp(e)
    return max(_hs_dir(P, Q, x), _hs_dir(Q, P, x))


def product_law(P: Mapping, times: int) -> dict:
    """Law of ``times`` independent draws (tuples of outputs)."""
    out: dict = {}
    for combo in itertools.product(P.items(), repeat=times):
        y = tuple(c[0] for c in combo)
        pr = Fraction(1)
        for c in combo:
            pr *= Fraction(c[1])
        out[y] = pr
    return out


def composed_delta(P: Mapping, Q: Mapping, eps: Fraction, times: int) -> mpmath.mpf:
    """Hockey-stick δ of ``times`` independent releases of (P, Q), from the product laws."""
    return hockey_stick(product_law(P, times), product_law(Q, times), eps)


def composed_epsilon(P: Mapping, Q: Mapping, delta: Fraction, times: int) -> mpmath.mpf:
    return epsilon(product_law(P, times), product_law(Q, times), delta)


def distribution(anonymizer: Callable[[tuple], Hashable], dataset: Sequence, beta: Fraction) -> dict:
    """Law of "keep each record independently with probability β, then anonymize" by
    enumerating all 2^N subsets (records passed in dataset order)."""
    out: dict = {}
    N = len(dataset)
    for mask in range(1 << N):
        sample = tuple(dataset[i] for i in range(N) if mask >> i & 1)
        w = beta ** len(sample) * (1 - beta) ** (N - len(sample))
        if w:
            y = anonymizer(sample)
            out[y] = out.get(y, Fraction(0)) + w
    return out


# --- exact worst case of sampled strongly-safe k-anonymization ---------------------------


def group_laws(n: int, k: int, pmf_n: list) -> dict:
    """Output law of one group of n records, given Bin(n, β)'s pmf: count if ≥ k else 'S'."""
    law = {"S": mpmath.fsum(pmf_n[:k])}
    for j in range(k, n + 1):
        law[j] = pmf_n[j]
    return law


def sdgs_delta(k: int, beta: Fraction, eps: Fraction, definition: str = "hockey-stick",
               *, max_n: int = 20000) -> mpmath.mpf:
    """sup_n of the divergence of the output laws of n vs n−1 identical records.

    In CP Thm 5's regime, by cut (a) of the module doc the bad outputs of group size n are
    exactly the counts j ≥ m(n) = max(k, J(n)) and nothing is bad in the reverse direction, so
    δ(n) = Pr[Bin(n) ≥ m] − e^ε·Pr[Bin(n−1) ≥ m] (hockey-stick) or Pr[Bin(n) ≥ m] (pointwise):
    two tail sums per n instead of two whole laws (checked against :func:`sdgs_delta_literal`
    by the tests).  Elsewhere the literal computation is used.
    """
    if definition not in ("hockey-stick", "pointwise"):
        raise OutsideDomain("definition")
    if k < 1:
        raise OutsideDomain("k")
    _check_beta(beta)
    if eps < 0:
        raise OutsideDomain("epsilon")
    if not (eps > 0 and in_regime(beta, eps)):
        return sdgs_delta_literal(k, beta, eps, definition)
    with mpmath.workdps(DPS):
        b = _mp(beta)
        x = mpmath.exp(_mp(eps))
        kl_g = _kl(_gamma(beta, eps), b)
        best = mpmath.mpf(0)
        n = k
        for _ in range(max_n):
            m = max(k, _first_bad(n, beta, eps))
            tail_p = upper_tail(n, m, beta)
            v = tail_p if definition == "pointwise" else tail_p - x * upper_tail(n - 1, m, beta)
            best = max(best, v)
            if best > 0 and mpmath.exp(-(n + 1) * kl_g) < best / 2:
                return best
            n += 1
    raise ReferenceGaveUp(f"sdgs: more than {max_n} group sizes")


def sdgs_delta_literal(k: int, beta: Fraction, eps: Fraction, definition: str = "hockey-stick",
                       *, max_n: int = MAX_GROUP) -> mpmath.mpf:
    """sup_n of the divergence of the output laws of n vs n−1 identical records, from the whole
    laws of every group size (module doc; O(n²), slow)."""
    if k < 1:
        raise OutsideDomain("k")
    _check_beta(beta)
    if eps < 0:
        raise OutsideDomain("epsilon")
    regime = in_regime(beta, eps)
    with mpmath.workdps(DPS):
        b = _mp(beta)
        x = mpmath.exp(_mp(eps))
        tiny = mpmath.mpf(10) ** (-(DPS - 15))
        g = _gamma(beta, eps)
        kl_g = _kl(g, b) if eps > 0 else mpmath.mpf(0)
        gp = 1 - (1 - b) * x  # γ'
        prev = [mpmath.mpf(1)]  # Bin(0)
        best = mpmath.mpf(0)
        for n in range(1, max_n + 1):
            cur = [(1 - b) * prev[j] if j < len(prev) else mpmath.mpf(0) for j in range(n + 1)]
            for j in range(1, n + 1):
                cur[j] += b * prev[j - 1]
            if n >= k:
                P, Q = group_laws(n, k, cur), group_laws(n - 1, k, prev)
                if definition == "hockey-stick":
                    v = max(_hs_dir(P, Q, x), _hs_dir(Q, P, x))
                elif definition == "pointwise":
                    v = _pointwise_mp(P, Q, x, tiny)
                else:
                    raise OutsideDomain("definition")
                best = max(best, v)
            prev = cur
            # cut: a bound valid for every n' >= n + 1
            if best > 0 and _cut(n + 1, k, b, kl_g, gp, regime, definition, eps, cur) < best / 2:
                return best
    raise ReferenceGaveUp(f"sdgs: group size above {max_n}")


def _pointwise_mp(P: dict, Q: dict, x: mpmath.mpf, tiny: mpmath.mpf) -> mpmath.mpf:
    bad = []
    for y in set(P) | set(Q):
        p, q = P.get(y, mpmath.mpf(0)), Q.get(y, mpmath.mpf(0))
        if p == 0 and q == 0:
            continue
        if p == 0 or q == 0:
            bad.append(y)
            continue
        r = max(p, q) / min(p, q)
        if abs(r - x) <= x * tiny:
            raise ReferenceGaveUp("ratio too close to e^epsilon")
        if r > x:
            bad.append(y)
    return max(mpmath.fsum(P.get(y, 0) for y in bad), mpmath.fsum(Q.get(y, 0) for y in bad))


def _cut(N: int, k: int, b, kl_g, gp, regime: bool, definition: str, eps: Fraction, pmf_prev: list):
    """An upper bound on the per-n divergence valid for every n ≥ N (module doc, (a)–(c))."""
    if regime:
        return mpmath.exp(-N * kl_g)
    if definition == "hockey-stick":
        return b * max(pmf_prev)  # pmf_prev is Bin(N−1)'s pmf: β·max f(·; N−1)
    if eps == 0 or N < 2:
        return mpmath.inf
    X = max(mpmath.mpf(k - 1) / (N - 1), max(gp, 0) * N / (N - 1))
    if X >= b:
        return mpmath.inf
    return mpmath.exp(-(N - 1) * kl_g) + mpmath.exp(-(N - 1) * _kl(X, b))


def sdgs_generic_small(k: int, beta: Fraction, eps: Fraction, n: int, definition: str):
    """Per-n divergence from exact Fraction laws (for tiny cross-checks of :func:`sdgs_delta`)."""
    def law(m: int) -> dict:
        pm = [math.comb(m, j) * beta**j * (1 - beta) ** (m - j) for j in range(m + 1)]
        out: dict = {"S": sum(pm[:k], Fraction(0))}
        for j in range(k, m + 1):
            out[j] = pm[j]
        return out

    P, Q = law(n), law(n - 1)
    return hockey_stick(P, Q, eps) if definition == "hockey-stick" else pointwise(P, Q, eps)


# --- a time limit for calls into the code under test -------------------------------------


class Hang(Exception):
    """A call into the code under test exceeded its time limit (a test failure)."""


def call_limited(fn: Callable, *args, seconds: float = 20.0, wall_seconds: float | None = None,
                 **kwargs):
    """``fn(*args, **kwargs)`` under a time limit: a hang becomes :class:`Hang` (main thread,
    POSIX).  ``seconds`` bounds the process's CPU time in the call (``ITIMER_PROF``), so a
    loaded machine does not turn a slow-but-bounded call into a failure; ``wall_seconds``
    (default ``10 * seconds``) bounds the wall clock too, for a call that blocks without using
    CPU.  Long C-level operations are interrupted when they return to Python."""
    import signal

    wall = 10 * seconds if wall_seconds is None else wall_seconds

    def on_cpu(signum, frame):  # noqa: ARG001
        raise Hang(f"{getattr(fn, '__name__', fn)}{args} used more than {seconds} s of CPU")

    def on_wall(signum, frame):  # noqa: ARG001
        raise Hang(f"{getattr(fn, '__name__', fn)}{args} took more than {wall} s of wall time")

    old_prof = signal.signal(signal.SIGPROF, on_cpu)
    old_alarm = signal.signal(signal.SIGALRM, on_wall)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, wall)
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, old_alarm)
        signal.signal(signal.SIGPROF, old_prof)


def as_mpf(x) -> mpmath.mpf:
    """A value returned by the code under test (mpf, Fraction, int, float) as an exact mpf."""
    if isinstance(x, mpmath.mpf):
        return x
    with mpmath.workdps(DPS):
        return _mp(Fraction(x)) if not isinstance(x, float) else mpmath.mpf(x)


def example_budget(ci: int, profile_budget: int) -> int:
    """Examples per fuzz property: ``$DPS_FUZZ_EXAMPLES`` if set, else ``ci`` under the ci
    profile (budget ≤ 100), else the profile's own budget (deep)."""
    import os

    env = os.environ.get("DPS_FUZZ_EXAMPLES")
    if env:
        return int(env)
    return ci if profile_budget <= 100 else profile_budget
