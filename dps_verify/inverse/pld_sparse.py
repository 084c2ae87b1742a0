"""δ(ε) of T releases when one outcome dominates: composition by the number of rare releases
(CP §2.7's fresh-sample releases of a group that is almost always suppressed).

When one finite privacy-loss atom (ratio r_d, mass p_d) carries almost all the mass — the
"suppressed" output of a group just above the threshold k — the T-fold δ is a sum over how many
of the T releases land elsewhere.  The exact PLD enumerates every count vector and the
discretised PLD's absolute float and tail errors (≈ 1e-16) swamp a δ of 1e-18; here the first
few terms of that sum are enclosed exactly and the rest is bounded.

**Proof of the enclosure** (one direction (P, Q), CP Def. 2).  Let the T releases be
independent, each with loss ℓ_i = ln P/Q of its output (+∞ when Q = 0), and
f(x) = max(0, 1 − e^(ε − x)), which lies in [0, 1].  Then

    δ_T = Pr[some ℓ_i = +∞] + E[f(ℓ₁ + … + ℓ_T) ; all finite].

Split the finite atoms into the dominant one (loss ln r_d, mass p_d) and the rest R (a
sub-probability of mass q).  On the event "all finite, exactly j releases in R" (probability
C(T, j) p_d^(T−j) q^j, the j releases chosen by symmetry), the loss is (T − j) ln r_d plus the
sum of j independent draws from R; so the expectation is Σ_j C(T, j) p_d^(T−j) E_{R^{*j}}[f((T −
j) ln r_d + ·)] with R^{*j} the j-fold composition of the sub-probability R (mass q^j).  Keeping
the terms j ≤ J and bounding f by 0 and 1 on the rest gives

    Σ_{j ≤ J} term_j  ≤  E[f ; all finite]  ≤  Σ_{j ≤ J} term_j + Pr[more than J releases in R],

and Pr[more than J releases in R] ≤ C(T, J + 1) q^(J + 1) (union bound over the (J + 1)-subsets
of releases).  The first term is 1 − (1 − p∞)^T.  Every term is evaluated in ball arithmetic
(python-flint ``arb``, 128 bits) from the exact rational ratios and masses; where a ball of
(T − j) ln r_d + ln r − ε straddles 0, f is bounded below by 0 and above by the upper end of
1 − e^(ε − x), so the enclosure is outward whatever the ball width.

J grows until the union bound is at most ``rtol``/4 of the lower end (or of ``floor``, a lower
bound on the quantity the caller maximises), until j = T (then the sum is complete and the
remainder 0), or until R^{*j} would exceed ``max_atoms`` atoms or one step ``MAX_PRODUCTS`` ratio products; the result is an enclosure in
every case, possibly a wide one.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Certified, Number
from dps_verify.core.params import count_param, epsilon_param, rtol_param
from dps_verify.worstcase.ball_binomial import arb_fraction

#: ball precision (bits)
PREC = 128
#: most atoms one R^{*j} may have
MAX_ATOMS = 20_000
#: most ratio products one composition step R^{*j} * R may take
MAX_PRODUCTS = 50_000
#: :func:`sparse_promising` asks for an expected number of releases off the dominant atom ≤ this
PROMISING = Fraction(1, 20)


def _flint() -> Any:
    import flint

    return flint


def _ends(x: Any) -> tuple[Fraction, Fraction]:
    from dps_verify.worstcase.ball_binomial import arb_to_fractions

    return arb_to_fractions(x)


def dominant_share(pld: Any) -> tuple[Fraction, Fraction]:
    """(p_d, q): mass of the heaviest finite atom and of the other finite atoms."""
    if not pld.ratios:
        return Fraction(0), Fraction(0)
    pd = max(pld.ratios.values())
    return pd, sum(pld.ratios.values(), Fraction(0)) - pd


def arb_one_minus_power(p: Fraction, times: int) -> Any:
    """A ball containing 1 − (1 − p)^T, the chance that at least one of T independent releases
    has infinite loss (p = the mass at infinite loss, 0 ≤ p ≤ 1), at the context precision.

    The intersection of two balls that each contain the value for every p: −expm1(T·log1p(−p))
    (no cancellation: its relative radius stays near 2^-prec for every tiny p, where the direct
    1 − (1 − p)^T loses 2^-prec absolute and p = 1e-45 came out as [0, 6e-39]) and 1 − (1 − p)^T
    from the exact rational 1 − p (tight where 1 − p is tiny, which log1p(−p) loses: there its
    ball reaches −1 and is not finite, and only the second ball is used).  Whichever is tighter
    at an end wins, so no threshold on p decides between them."""
    direct = 1 - arb_fraction(1 - p) ** times
    smooth = -((-arb_fraction(p)).log1p() * times).expm1()
    return smooth.intersection(direct) if smooth.is_finite() else direct


def _exact(x: Any) -> bool:
    return isinstance(x, (Fraction, int)) and not isinstance(x, bool)


def _check_pld(pld: Any) -> None:
    """ParameterError unless ``pld`` is a valid exact PLD: ratios (e^loss) exact rationals > 0,
    masses exact rationals >= 0, finite masses plus the mass at infinite loss at most 1 — the
    proof of the enclosure (module doc) assumes a (sub-)probability law, and a negative mass
    would let a negative "δ" out as certified."""
    ratios: Any = getattr(pld, "ratios", None)
    inf: Any = getattr(pld, "infinity_mass", None)
    if not isinstance(ratios, dict) or not _exact(inf):
        raise ParameterError("pld must be a PrivacyLossDistribution with a dict of exact ratios "
                             "and an exact infinity_mass (Fraction or int)")
    bad = [(r, p) for r, p in ratios.items()
           if not (_exact(r) and _exact(p) and r > 0 and p >= 0)]
    if bad:
        r, p = bad[0]
        raise ParameterError(f"pld atom {r!r}: {p!r} is not an exact ratio > 0 with an exact "
                             f"mass >= 0 (Fraction or int)")
    if inf < 0:
        raise ParameterError(f"pld infinity_mass must be >= 0, got {float(inf):.6g}")
    total = sum(ratios.values(), Fraction(inf))
    if total > 1:
        raise ParameterError(f"pld is not a (sub-)probability law: its total mass (incl. infinite "
                             f"loss) exceeds 1 by {float(total - 1):.3g}")


#: The package's release budget (every route of T-fold composition refuses more releases;
#: :mod:`dps_verify.inverse.pld_discrete` uses the same limit).
MAX_RELEASES = 10**9


def _times_param(times: Any) -> int:
    """``times`` as a Python int in [1, MAX_RELEASES] (an int or a numpy integer; the package's
    release budget); ParameterError otherwise (past it the ball ends T·ln r_d and p_d^T leave
    the range this route handles)."""
    return count_param(times, 1, "times must be an integer in [1, 10^9] (number of releases)", MAX_RELEASES)


def sparse_delta(pld: Any, epsilon: Number, times: int, *, rtol: float = 0.01,
                 floor: Fraction = Fraction(0), max_atoms: int = MAX_ATOMS) -> Certified:
    """Enclosure of the ``times``-fold δ at ε of one direction ``pld`` (an exact
    :class:`~dps_verify.measures.pld.PrivacyLossDistribution`), by the number of releases off
    the dominant atom (module doc).  ``details``: ``mode`` = ``"sparse"``, ``terms`` = J + 1,
    ``remainder`` = the union bound used.  ``rtol`` must be finite and >= 0; 0 sums until j = T
    or a work budget stops it.  ``pld`` must be a valid exact law (ratios > 0, masses >= 0, total
    mass incl. infinite loss <= 1) and ``times`` an int in [1, 10^9]; otherwise, and for a bad
    ``rtol``, :class:`~dps_verify.core.errors.ParameterError` before any work."""
    from dps_verify.worstcase.ball_binomial import arb_epsilon

    flint = _flint()
    eps = epsilon_param(epsilon)
    rtol = rtol_param(rtol)
    T = _times_param(times)
    _check_pld(pld)
    with flint.ctx.workprec(PREC):
        e = arb_epsilon(eps)
        # 1 - (1 - p_inf)^T without cancellation, so a tiny p_inf keeps its relative precision
        inf_ball = arb_one_minus_power(pld.infinity_mass, T)
        inf_lo, inf_hi = _ends(inf_ball)
        inf_lo = max(inf_lo, Fraction(0))
        if not pld.ratios:
            return Certified(inf_lo, min(inf_hi, Fraction(1)), "only mass at infinite loss",
                             {"mode": "sparse", "terms": 0, "remainder": 0.0})
        rd = max(pld.ratios, key=lambda r: (pld.ratios[r], r))
        pd = pld.ratios[rd]
        rest = {r: p for r, p in pld.ratios.items() if r != rd}
        q = sum(rest.values(), Fraction(0))
        log_rd = arb_fraction(rd).log()
        cur: dict[Fraction, Fraction] = {Fraction(1): Fraction(1)}  # R^{*0}
        lo_sum, hi_sum = inf_lo, inf_hi
        j = 0
        while True:  # every pass sets remainder before any break
            w = flint.arb(comb(T, j)) * arb_fraction(pd) ** (T - j)
            shift = (T - j) * log_rd - e
            t_lo, t_hi = Fraction(0), Fraction(0)
            for r, pr in cur.items():
                g = 1 - (-(shift + arb_fraction(r).log())).exp()  # 1 − e^(ε − loss)
                g_lo, g_hi = _ends(g)
                if g_hi <= 0:
                    continue
                c_lo, c_hi = _ends(w * arb_fraction(pr))
                t_hi += c_hi * min(g_hi, Fraction(1))
                if g_lo > 0:
                    # c_lo * g_lo <= c * g whatever c_lo's sign (c >= 0 exactly, g >= g_lo > 0),
                    # so no clamp at 0 is needed; and c_lo > 0 anyway for every accepted T: the
                    # ball C(T, j) pd^(T - j) pr of positive factors keeps a relative radius of
                    # about T 2^-127 <= 2^-97 (pr = 0 or pd = 0 give the exact ball 0)
                    t_lo += c_lo * g_lo
            lo_sum += t_lo
            hi_sum += t_hi
            if j >= T or q == 0:
                remainder = Fraction(0)
                break
            remainder = remainder_bound(T, j, q)
            # j < T and q > 0 here, so the remainder is > 0 and this needs a positive lower end
            if remainder <= Fraction(rtol) / 4 * max(lo_sum, floor):
                break
            if len(cur) * len(rest) > MAX_PRODUCTS:
                break
            nxt = _compose(cur, rest)
            if len(nxt) > max_atoms:
                break
            cur, j = nxt, j + 1
    upper = min(Fraction(1), hi_sum + remainder)
    lower = min(lo_sum, upper)
    how = (f"sparse composition: {T} releases by the number j <= {j} off the dominant atom "
           f"(mass {float(pd):.6g}), ball arithmetic ({PREC} bits), remainder <= C(T, J+1) q^(J+1) "
           f"= {float(remainder):.3g}")
    return Certified(lower, upper, how, {"mode": "sparse", "terms": j + 1,
                                         "remainder": float(remainder), "times": T})


def remainder_bound(times: int, j: int, q: Fraction) -> Fraction:
    """Pr[more than j of ``times`` independent releases land off the dominant atom] ≤
    C(T, j + 1)·q^(j + 1) (union bound over the (j + 1)-subsets of releases)."""
    return comb(times, j + 1) * q ** (j + 1)


def _compose(a: dict[Fraction, Fraction], b: dict[Fraction, Fraction]) -> dict[Fraction, Fraction]:
    out: dict[Fraction, Fraction] = {}
    for r1, p1 in a.items():
        for r2, p2 in b.items():
            r = r1 * r2
            out[r] = out.get(r, Fraction(0)) + p1 * p2
    return out


def sparse_promising(pld: Any, times: int) -> bool:
    """Whether the off-dominant mass is small enough for :func:`sparse_delta` to be tight
    quickly (expected number of releases off the dominant atom at most ``PROMISING``)."""
    pd, q = dominant_share(pld)
    return bool(pld.ratios) and q * times <= PROMISING


__all__ = ["dominant_share", "remainder_bound", "sparse_delta", "sparse_promising"]
