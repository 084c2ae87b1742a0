"""Certified discretised privacy-loss distributions: an enclosure [lower, upper] of δ(ε) for many
independent releases (CP §2.7's fresh-sample releases).

The exact PLD (:mod:`dps_verify.measures.pld`) keeps every composed loss; its support grows like
C(T + m − 1, m − 1) for m distinct losses and T releases.  Here the losses are put on a grid
instead, in two ways, and both are composed by FFT (default) or by direct convolution
(``fft=False``):

- **pessimistic** (for the upper bound): every finite atom of loss ℓ is *split* between its two
  neighbours on the lattice a + hℤ (h a power of two, the anchor a the loss of the heaviest
  atom, which is not moved at all) so that both its P-mass and its Q-mass are kept — the
  "connect the dots" construction of Doroshenko, Ghazi, Kamath, Kumar and Manurangsi (PETS
  2022), here with its proof by post-processing (lemma (a')); its error is of second order in h;
- **optimistic** (for the lower bound): every finite loss is rounded *down* to the same lattice
  (first order in h: the lower end sets the width).

Why this encloses δ: for T releases the hockey-stick divergence of one direction (CP Def. 2) is

    δ_T(ε) = Pr[some release has loss +∞] + E[ f(ℓ₁ + … + ℓ_T) ; all finite ],
    f(x) = max(0, 1 − e^(ε − x)),

and f is non-decreasing and takes values in [0, 1].  Coupling each release's loss with its
rounded value, rounding up can only increase every sum (so δ can only grow) and rounding down
can only decrease it.  The T-fold law of the grid indices is computed by ONE FFT power: the
one-release vector is transformed once at a cyclic length N (a power of two), raised to the T-th
power entrywise, and transformed back.  That gives the T-fold law folded modulo N onto a window
of N consecutive indices chosen around the range where a Chernoff bound (M(λ)^T e^(−λt),
evaluated in interval arithmetic from the exact one-release law) leaves mass ≤ ``tail_mass``
on each side; the folded-in mass is charged to both bounds (lemma (b)).  The mass at loss +∞ is
handled exactly: 1 − (1 − p∞)^T.

**Proofs of the bounds used** (each step below is a lemma the code relies on).

*(a) Grid rounding.*  Couple each release's loss ℓ with ⌈ℓ⌉_h (its value rounded up to the
lattice) and ⌊ℓ⌋_h.  Sums of rounded-up losses dominate the true sums pointwise, and f is
non-decreasing, so E[f(Σ⌊ℓ⌋_h)] ≤ E[f(Σℓ)] ≤ E[f(Σ⌈ℓ⌉_h)].  The lattice indices come from a
128-bit ball logarithm (python-flint ``arb``) of r/r0 (floor of its lower end, ceiling of its upper end), so the
rounding is outward whatever the float error.

*(a') Splitting keeps an upper bound.*  Let an output y have loss ℓ = ln P(y)/Q(y) with
ℓ_i = a + ih ≤ ℓ ≤ ℓ_{i+1}.  Replace y by two outputs y⁻, y⁺ with P-masses
P(y)·s and P(y)·(1 − s), s = (e^(−(ℓ−ℓ_i)) − e^(−h))/(1 − e^(−h)) ∈ [0, 1], and Q-masses
P(y)·s·e^(−ℓ_i) and P(y)·(1 − s)·e^(−ℓ_{i+1}); these add up to P(y) and Q(y), so the two new
outputs have losses exactly ℓ_i and ℓ_{i+1}, and merging y⁻, y⁺ back into y (a deterministic
map) sends the new pair (P', Q') to (P, Q).  For T releases the merge acts on every coordinate,
so (P^⊗T, Q^⊗T) is a post-processing of (P'^⊗T, Q'^⊗T), and the hockey-stick divergence never
grows under post-processing (data processing): δ_T(ε) of (P, Q) ≤ that of (P', Q') at every ε.
The split is computed in 128-bit balls; an atom whose ball of (ℓ − a)/h is not inside one cell
goes whole to the upper index (lemma (a) then applies to it).  Under the coupling of each
release's split index with its floor and ceiling, the split sums lie between the rounded-down
and rounded-up sums, so the Chernoff bounds of those two chains bound the split chain's lower
and upper tails (``_Tails`` with ``idx_low``).

*(b) The folded window.*  Let y be the exact law of the T-fold index sum S (a sub-probability
vector) and W = [lo, lo + N) the window.  The exact cyclic T-fold convolution of length N, read
on W, is y_W + a with a ≥ 0 entrywise and Σa = y(outside W) =: m (every index outside W lands
on exactly one index of W).  By Markov's inequality for e^(±λhS), m ≤ M(λ)^T e^(−λh·hi) +
M(−λ)^T e^(λh·lo) for any λ > 0 (``_Tails.bound``, 128-bit balls; a side the window does not
cut contributes 0).  Since 0 ≤ f ≤ 1: E[f(S)] ≤ Σ_W (y + a)f + m (the mass outside W as if at
loss +∞) and E[f(S)] ≥ Σ_W y f ≥ Σ_W (y + a)f − m.  So m is added to the upper bound and
subtracted from the lower one (``_Vec.extra``).  The window is placed where the float Chernoff
estimate says the mass is; that is a heuristic only, m is bounded rigorously wherever W lies.

*(c) Float error of the FFT power — an ASSUMED error model, not a proof.*  Higham's Thm 24.2
(below) is proved for the radix-2 Cooley–Tukey complex FFT with twiddles accurate to μ_tw.
scipy's pocketfft ``rfft``/``irfft`` runs real-input radix-4/radix-2 passes with its own twiddle
generation; no published bound for that code is used here.  The code *assumes* that its error
obeys Higham's first-order bound with twice the charge (μ = (2ℓ + 4)η), and
``tests/test_pld_discrete_properties.py`` checks the charged bound against a long-double
reference on a few random cases (observed errors lie far below the charge).  That is evidence, not
a proof, so every ``how`` of an FFT-composed enclosure names the assumption
(:data:`FFT_ASSUMPTION`); everything else — (a), (a'), (b), the complex power, (d) — is proved,
and ``fft=False`` replaces this step by (c'), which is proved too.  The derivation under the
assumption: let x̂ be the float one-release vector and x the ideal one,
‖x̂ − x‖₂ ≤ err, ‖x‖₁, ‖x̂‖₁ ≤ s₁ and ‖x̂‖₂ ≤ s₂ (``norm1``/``norm2``: float sums with γ_n
margins plus √n·err).  The computed transform ẑ of x̂ (length N = 2^ℓ, zero padded) satisfies
‖ẑ − Fx̂‖₂ ≤ μ‖Fx̂‖₂ = μ√N‖x̂‖₂ (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd
ed., Thm 24.2, radix-2: μ = ℓη/(1 − ℓη), η = μ_tw + γ₄(√2 + μ_tw) ≤ 8u for twiddles within
μ_tw ≤ u; the code charges μ = (2ℓ + 4)η, twice the first-order term, for pocketfft's
real-input radix-4/2 passes), and ‖Fx̂ − Fx‖₂ = √N‖x̂ − x‖₂; so ‖ẑ − z‖₂ ≤ √N·e with z = Fx and
e = μs₂ + err, and every |z_j|, |ẑ_j| ≤ r := s₁ + √N·e (|z_j| ≤ ‖x‖₁).  Then
|ẑ_j^T − z_j^T| ≤ T r^(T−1) |ẑ_j − z_j|.  The power is computed by binary exponentiation; each
complex multiplication errs by a relative ε ≤ 8u (≥ √2·γ₂, Higham Lemma 3.5), and each
rounding is raised at most to the power of the multiplicity of its product in the result, so
the computed p̂_j is within ((1 + ε)^(2T) − 1)·r^T of ẑ_j^T.  The inverse real transform maps a
half spectrum v to a vector of 2-norm ≤ √2‖v‖₂/√N and adds at most μ times that.  In total the
computed T-fold vector is within

    √2·[ T r^(T−1) e + ((1 + ε)^(2T) − 1) r^T + μ r^T (1 + ε)^(2T) ]

of the ideal cyclic power (2-norm); ``_power_error`` evaluates this in floats with a factor
(1 + 2⁻²⁰) for the few ulps of that evaluation.  ``tests/test_pld_discrete_properties.py``
checks the charged bound against a long-double reference convolution.  Clipping negative
outputs to 0 never increases the error (the ideal entries are ≥ 0); flushing entries below
1e-290 to 0 adds ≤ √N·1e-290.

*(c') Float error of direct convolution (``fft=False``, proved).*  For stored float vectors
â, b̂ ≥ 0 with ‖â − a‖₂ ≤ e_a, ‖b̂ − b‖₂ ≤ e_b:  â∗b̂ − a∗b = (â − a)∗b̂ + a∗(b̂ − b), and Young's
inequality ‖f∗g‖₂ ≤ ‖f‖₂‖g‖₁ gives ‖â∗b̂ − a∗b‖₂ ≤ e_a‖b̂‖₁ + ‖a‖₁e_b.  Each computed entry of
``numpy.convolve`` is a float sum of at most m = min(len) float products, in whatever order
(BLAS dot kernels use several accumulators; any summation tree of m terms has depth ≤ m − 1), so
it errs by at most γ_m·(â∗b̂)_k plus m·2⁻¹⁰⁷⁴ for products that underflow (Higham §3.1; all
terms are ≥ 0); in 2-norm that is ≤ γ_m‖â‖₂‖b̂‖₁ + √n·m·2⁻¹⁰⁷⁴ (Young again), with
γ_m ≤ 1.01(m + 1)u.  The T-fold law is built by binary exponentiation of such products, over
the whole support (no window, so lemma (b) charges nothing); flushing works as in (c).  Cost:
O(L²) per product for L = T·(n − 1) + 1 bins, against O(L log L) for the FFT power.

*(d) The final sum.*  Σ_j c_j f(x_j) with f evaluated in floats: x_j = e_shift − (offset + j)h is
one rounded subtraction of exact values (sign exact, relative error ≤ u), and ``expm1`` is within
a few ulp, so every weight is within relative 2⁻⁴⁰ of f at the rounded shift; the shift itself is
rounded outward from a 128-bit interval (down for the upper chain: smaller shift, larger weights).
The float sum of n non-negative products is within (n + 2)·1.01u relative, and the vector error
contributes ≤ ‖e‖₂‖w‖₂ (Cauchy–Schwarz).

The result is a :class:`~dps_verify.core.numbers.Certified` whose ``how`` states the grid step,
the number of releases, how the T-fold law was composed (naming the FFT error-model assumption
when the FFT was used) and the width.  :func:`enclose_delta` picks the exact PLD when its
composed support is small, the sparse enclosure (:mod:`dps_verify.inverse.pld_sparse`) when one
atom dominates and that is tight, and otherwise refines the grid until ``upper ≤ (1 + rtol/3)·lower``
(so that the first-order lower end is at least as tight as outward rounding of both ends with
``upper ≤ (1 + rtol)·lower`` made it) or the work budget ``max_bins`` is reached.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import mpmath
import numpy as np
from scipy import fft as sfft

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import Certified, Number, iv_from_fraction, iv_precision
from dps_verify.core.params import count_param, epsilon_param, rtol_param
from dps_verify.inverse.pld_sparse import MAX_RELEASES as _SPARSE_MAX_RELEASES
from dps_verify.worstcase.ball_binomial import arb_fraction

#: an exact PLD (:class:`dps_verify.measures.pld.PrivacyLossDistribution`; duck-typed here so
#: that this module does not import pld, which calls into it)
PLD = Any

U = 2.0**-53
CMUL = 8 * U  # ≥ the relative error of one complex float multiplication (√2·γ₂ ≈ 2.8u)
ETA = 8 * U  # ≥ Higham's η = μ + γ₄(√2 + μ) ≈ 6.7u for twiddles accurate to μ ≤ u (radix 2;
#              for pocketfft an assumed model, lemma (c))
WEIGHT_MARGIN = 2.0**-40
#: what the FFT power's float-error term rests on, named in every ``how`` that uses it
FFT_ASSUMPTION = (
    "FFT rounding error bounded by an ASSUMED error model of scipy's pocketfft (Higham's radix-2 "
    "bound, Thm 24.2, doubled; checked against long double, not proved); grid rounding, tail "
    "and infinite-loss mass and the final sum are proved (fft=False: no assumption)")
#: cost (ratio products, see :func:`exact_compose_cost`) up to which the exact PLD is used
EXACT_COST_BUDGET = 20_000
#: cost up to which the exact PLD is still used when the target lies below DISCRETE_FLOOR (the
#: grid cannot reach it; about 2 s at cost 27 000 for T = 2, n = 362)
EXACT_FALLBACK_BUDGET = 5 * EXACT_COST_BUDGET
#: absolute width below which a discretised enclosure is not expected to get (float error of the
#: FFT ≈ 1e-16 per unit of mass, tail cuts ≥ 1e-18 each): a target below it goes exact when the
#: cost is at most EXACT_FALLBACK_BUDGET
DISCRETE_FLOOR = Fraction(1, 10**12)
#: default cap on the length of one discretised vector (the work budget)
DEFAULT_MAX_BINS = 1 << 20
#: most multiply-adds the direct convolutions of ``fft=False`` may take for one chain (about
#: 1e8 per second here: a few seconds)
DIRECT_CONVOLVE_BUDGET = 3 * 10**8
DEFAULT_TAIL_MASS = 1e-16
#: finest grid step 2^MIN_H_EXP that :func:`enclose_deltas` refines to
MIN_H_EXP = -60


def _flint() -> Any:
    import flint

    return flint


def _arb_ends(x: Any) -> tuple[Fraction, Fraction]:
    from dps_verify.worstcase.ball_binomial import arb_to_fractions

    return arb_to_fractions(x)


def _arb_upper(x: Any) -> Fraction:
    return _arb_ends(x)[1]


def _round_up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _round_down(x: float) -> float:
    return math.nextafter(x, -math.inf)


@dataclass
class _Vec:
    """A discretised sub-probability vector: entry j is the mass at loss n·a + (offset + j)·h
    (n = number of releases composed).  ``err2`` bounds the 2-norm of its float error;
    ``extra`` bounds the mass folded into the window from outside it (lemma (b)): added to the
    upper bound as if at loss +∞, subtracted from the lower bound."""

    data: np.ndarray
    offset: int
    err2: float
    extra: float

    def norm1(self) -> float:
        """Upper bound on the 1-norm of the true vector."""
        return _round_up(_norm1_sum(self.data) + math.sqrt(len(self.data)) * self.err2)

    def norm2(self) -> float:
        """Upper bound on the 2-norm of the true vector."""
        return _round_up(_norm2_upper(self.data) + self.err2)


def _norm1_sum(x: np.ndarray) -> float:
    """‖x‖₁ of a non-negative float vector from its float sum: pairwise summation of n terms
    errs by at most γ_n ≤ 1.01·n·u relative (not yet rounded up; callers add their terms)."""
    return float(np.sum(x)) * (1 + 1.01 * len(x) * U)


def _norm2_upper(x: np.ndarray) -> float:
    """Upper bound on ‖x‖₂ for x ≥ 0 (sub-probability vectors and weights).

    The entries are scaled by 2^500 (exact) so that squares of entries down to 1e-300 stay
    normal floats (subnormal arithmetic makes numpy crawl).  Each square then has relative error
    ≤ u, or absolute error ≤ 2^-1075 if it underflows; pairwise summation of n non-negative terms
    adds relative error ≤ γ_n ≤ 1.01·n·u; so ‖x‖₂² ≤ (1 + 1.01(n + 2)u)·S + n·2^-1074 for the
    computed sum S, and √ and the unscaling add one rounding each (covered by (1 + 4u)).  The
    scaling is skipped when n·max² > 2^20 (never for a probability vector or weights of at most
    2^20 bins): the scaled sum, at most 2^1000·n·max², then could overflow, and squares that
    underflow unscaled are far below the rounding of a sum of at least max²."""
    n = len(x)
    if n == 0:
        return 0.0
    if float(x.max()) ** 2 * n > 2.0**20:
        scale = 1.0
    else:
        scale = 2.0**500
    y = x * scale
    ssq = float(np.sum(y * y)) * (1 + 1.01 * (n + 2) * U)
    s = math.sqrt(ssq) * (1 + 4 * U) / scale
    return _round_up(s + math.sqrt(n) * 2.0**-537)


class _Tails:
    """Chernoff bounds on the tails of the n-fold sum of one chain's grid indices.

    For λ > 0, Pr[J₁ + … + J_n > t ; all finite] ≤ M(λ)^n e^(−λt) with M(λ) = Σ_i p_i e^(λ j_i)
    over the finite atoms (a sub-probability), and symmetrically for the lower tail.  The cut
    points are chosen in floats; the mass bound of each cut is then evaluated in 128-bit ball
    arithmetic (python-flint ``arb``), so it holds whatever the float vector contains there.
    """

    LAMBDAS = [2.0**k for k in range(-6, 9)]

    def __init__(self, idx: list[int], probs: list[Fraction], h: float,
                 idx_low: list[int] | None = None):
        """``idx``: the grid index of each atom (mass ``probs``) for the upper tail;
        ``idx_low`` (default ``idx``) for the lower tail.  A chain whose atom sits at an index
        between idx_low and idx (the split chain: at either neighbour) has its upper tail
        bounded by that of ``idx`` and its lower tail by that of ``idx_low`` (the sums are
        ordered pointwise under the coupling of lemma (a'))."""
        self.idx, self.probs, self.h = idx, probs, h
        self.idx_low = idx if idx_low is None else idx_low
        # log-probabilities from the exact integers: a probability below the float range (β^400)
        # must not become 0 and zero out the whole sum (ln 0 = −∞ made the cut infinite)
        logp = np.array([math.log(p.numerator) - math.log(p.denominator) for p in probs])
        self._logm: dict[float, float] = {}
        for sgn, js in ((1.0, self.idx), (-1.0, self.idx_low)):
            jf = np.array(js, dtype=np.float64)
            for lam in self.LAMBDAS:
                x = logp + sgn * lam * h * jf
                m = x.max()
                self._logm[sgn * lam] = float(m + np.log(np.sum(np.exp(x - m))))

    def _log_mgf(self, lam: float) -> tuple[Any, Any]:
        """(λh, ln M(λ)) as 128-bit balls (python-flint ``arb``, outward rounded; cached; call
        inside ``flint.ctx.workprec(128)``)."""
        if not hasattr(self, "_iv_cache"):
            self._iv_cache: dict = {}
        if lam not in self._iv_cache:
            flint = _flint()
            lh = flint.arb(lam) * flint.arb(self.h)  # both dyadic: exact
            m = flint.arb(0)
            for p, j in zip(self.probs, self.idx if lam > 0 else self.idx_low):
                m += arb_fraction(p) * (lh * j).exp()
            self._iv_cache[lam] = (lh, m.log())
        return self._iv_cache[lam]

    def cut(self, n: int, tau: float) -> tuple[int, int]:
        """Index range [lo, hi] outside which each tail has (float-estimated) mass ≤ τ.

        A float heuristic (the mass outside is bounded rigorously in :meth:`bound`).  Both ends
        are finite floats (every ln M(±λ) is finite, 0 < τ and λh ≥ 2^-6·h > 0), so floor and
        ceil are exact integers of any size; :func:`_window` clips them to the full range."""
        lt = math.log(tau)
        hi = min((n * self._logm[lam] - lt) / (lam * self.h) for lam in self.LAMBDAS)
        lo = max((lt - n * self._logm[-lam]) / (lam * self.h) for lam in self.LAMBDAS)
        return math.floor(lo), math.ceil(hi)

    def bound(self, n: int, lo: int | None, hi: int | None) -> float:
        """Rigorous upper bound on the mass of the n-fold sum below ``lo`` plus above ``hi``
        (a side given as None is not cut and contributes 0).  For each side the λ with the
        smallest float estimate is chosen, and M(λ)^n e^(∓λ h t) is evaluated at that λ in
        128-bit ball arithmetic: every λ > 0 gives a valid bound, so a poor float choice
        can only loosen it."""
        total = 0.0
        flint = _flint()
        with flint.ctx.workprec(128):
            for sgn, t in ((1, hi), (-1, lo)):
                if t is None:
                    continue
                lam = min(self.LAMBDAS,
                          key=lambda la: n * self._logm[sgn * la] - sgn * la * self.h * t)
                lh, logm = self._log_mgf(sgn * lam)
                x = ((n * logm) - lh * t).exp()
                b = min(Fraction(1), _arb_upper(x)) if x.is_finite() else Fraction(1)  # mass ≤ 1
                total += _round_up(float(b)) * (1 + 4 * U)
        return _round_up(total * (1 + 4 * U))


def _indices(pld: PLD, h_exp: int) -> tuple[Fraction, dict[Fraction, tuple[int, int]]]:
    """Anchor ratio r0 (heaviest atom) and, per ratio r, (floor, ceil) of ln(r/r0)/h, h = 2^h_exp,
    from a 128-bit ball logarithm (python-flint ``arb``, outward rounded)."""
    r0 = max(pld.ratios, key=lambda r: (pld.ratios[r], r))
    out = {}
    flint = _flint()
    with flint.ctx.workprec(128):
        scale = flint.arb(2) ** (-h_exp)
        l0 = arb_fraction(r0).log()
        for r in pld.ratios:
            if r == r0:
                out[r] = (0, 0)
                continue
            x = (arb_fraction(r).log() - l0) * scale
            # lower()/upper() are ends rounded outward; floor/ceil of an exact end is exact
            out[r] = (int(x.lower().floor().unique_fmpz()), int(x.upper().ceil().unique_fmpz()))
    return r0, out


def _base_vector(pld: PLD, idx: dict, which: int) -> _Vec:
    js = [idx[r][which] for r in pld.ratios]
    lo = min(js)
    data = np.zeros(max(js) - lo + 1)
    for r, pr in pld.ratios.items():
        data[idx[r][which] - lo] += float(pr)
    # each float(pr) is within u·pr, and a bin of c atoms summed in turn errs by at most
    # (c − 1)·u times its mass (each addition rounds within u of a partial sum <= the bin's mass):
    # 2-norm error <= 1-norm <= c·u·‖p‖₁ for the largest c, charged as max(3, c)·u·‖p‖₁
    # (+ 2^-1000 per atom covers any underflow of a tiny probability)
    c = max(Counter(js).values())
    err = max(3, c) * U * float(sum(pld.ratios.values())) * (1 + 4 * U) + len(js) * 2.0**-1000
    return _Vec(data, lo, err, 0.0)


def _split_base(pld: PLD, r0: Fraction, idx: dict, h_exp: int) -> _Vec:
    """The one-release vector of the split chain (lemma (a')): an atom with ratio r strictly
    between two grid points i < i + 1 (``idx[r]`` = (i, i + 1)) is split between them so that
    its P-mass and its Q-mass are both kept; an atom on the grid (i = i) stays; an atom whose
    ball is not inside one cell goes whole to the upper index (rounded up, lemma (a)).  The
    split fractions are 128-bit balls; each float entry's error (ball radius, rounding, the
    float sums into a bin) is bounded in ``err2`` (1-norm ≥ 2-norm)."""
    flint = _flint()
    js: list[int] = []
    ms: list[float] = []
    err = 0.0
    with flint.ctx.workprec(128):
        h = flint.arb(2) ** h_exp
        e_h = (-h).exp()
        l0 = arb_fraction(r0).log()
        for r, pr in pld.ratios.items():
            lo, hi = idx[r]
            p = arb_fraction(pr)
            if hi == lo + 1:  # strictly inside one cell: t = ln(r/r0) − i·h ∈ [0, h]
                t = arb_fraction(r).log() - l0 - lo * h
                frac = ((-t).exp() - e_h) / (1 - e_h)  # share at i: keeps P and Q mass
                parts = [(lo, p * frac), (hi, p * (1 - frac))]
            else:
                parts = [(hi, p)]
            for j, m in parts:
                mid = max(float(m.mid()), 0.0)  # the true mass is >= 0: clipping only helps
                js.append(j)
                ms.append(mid)
                # an arb radius has a 30-bit mantissa: exact as a float in the normal range,
                # and below it off by at most 2^-1074, which the 2^-1000 per atom covers
                err += float(m.rad()) + 2 * U * mid + 2.0**-1000
    jj = np.array(js, dtype=np.int64)
    first = int(jj.min())
    data = np.bincount(jj - first, weights=np.array(ms))
    # sums into one bin: at most (c − 1)·u relative for c terms
    c = int(np.bincount(jj - first).max())
    err += (c - 1) * U * float(data.sum()) * (1 + 4 * U)
    return _Vec(data, first, _round_up(err * (1 + 4 * U)), 0.0)


def _window(base: _Vec, times: int, tails: _Tails, tau: float) -> tuple[int, int, int]:
    """(lo, size, kept) of the T-fold power of ``base``: the cyclic length ``size`` (a power of
    two, at least the base's length), the first grid index ``lo`` of the window [lo, lo + size)
    it stands for, and ``kept``, the bins of the Chernoff range for tail mass τ per side (the
    work measure compared with ``max_bins``)."""
    full_lo = times * base.offset
    full_hi = full_lo + times * (len(base.data) - 1)
    cut_lo, cut_hi = tails.cut(times, tau)
    cut_lo, cut_hi = max(cut_lo, full_lo), min(cut_hi, full_hi)
    if cut_lo > cut_hi:  # the float range is empty (a heuristic): fall back to the whole range
        cut_lo, cut_hi = full_lo, full_hi
    kept = cut_hi - cut_lo + 1
    size = 1 << (max(kept, len(base.data)) - 1).bit_length()
    lo = cut_lo - (size - kept) // 2  # centre the range in the window (equal room for both tails)
    # inside the T-fold support [full_lo, full_hi]; a support shorter than the window gets
    # full_lo (then full_hi - size + 1 < full_lo)
    lo = max(full_lo, min(lo, full_hi - size + 1))
    return lo, size, kept


def _power(base: _Vec, times: int, tails: _Tails, tau: float, max_bins: int,
           fft: bool = True) -> tuple[_Vec, int]:
    """The T-fold self-convolution of ``base`` on the window of :func:`_window`, by one FFT
    power (module doc, (b) and (c)); also the kept bins.  Raises :class:`_TooBig` before any
    transform when the Chernoff range is longer than ``max_bins``.  ``fft=False``: the whole
    T-fold law by direct convolutions instead (:func:`_direct_power`, lemma (c')), no window."""
    if times == 1:
        return base, len(base.data)
    if not fft:
        return _direct_power(base, times, max_bins)
    lo, size, kept = _window(base, times, tails, tau)
    if kept > max_bins:
        raise _TooBig
    full_lo = times * base.offset
    full_hi = full_lo + times * (len(base.data) - 1)
    # the ideal cyclic power holds, on the window, the true law plus the mass outside it
    # (aliased, non-negative); that mass is bounded by the Chernoff bound (lemma (b))
    below = lo if lo > full_lo else None
    above = lo + size - 1 if lo + size - 1 < full_hi else None
    misplaced = 0.0 if below is None and above is None else tails.bound(times, below, above)
    s1, s2 = base.norm1(), base.norm2()
    z = sfft.rfft(base.data, size)
    w = _complex_power(z, times)
    cyc = sfft.irfft(w, size)
    data = np.roll(cyc, -((lo - full_lo) % size))
    np.maximum(data, 0.0, out=data)  # true entries are >= 0: clipping never increases the error
    # flush tiny entries (subnormals make numpy arithmetic crawl): at most 1e-290 per entry
    data[data < 1e-290] = 0.0
    err = _power_error(s1, s2, base.err2, size, times) + math.sqrt(size) * 1e-290
    return _Vec(data, lo, _round_up(err * (1 + 8 * U)), misplaced), kept


def _direct_power(base: _Vec, times: int, max_bins: int) -> tuple[_Vec, int]:
    """The whole T-fold self-convolution of ``base`` (no window, no folded mass) by binary
    exponentiation with :func:`numpy.convolve`, with the proved error bound of lemma (c');
    O(L²) work per product for L = T·(n − 1) + 1 bins (the FFT power's is O(L log L)).
    Raises :class:`_TooBig` when L exceeds ``max_bins`` or the products' multiply-adds exceed
    :data:`DIRECT_CONVOLVE_BUDGET`."""
    full = times * (len(base.data) - 1) + 1
    if full > max_bins or direct_convolve_cost(len(base.data), times) > DIRECT_CONVOLVE_BUDGET:
        raise _TooBig
    result: _Vec | None = None
    sq = base
    t = times
    while t:
        if t & 1:
            result = sq if result is None else _convolve(result, sq)
        t >>= 1
        if t:
            sq = _convolve(sq, sq)
    assert result is not None
    return result, full


def direct_convolve_cost(n: int, times: int) -> int:
    """Multiply-adds of :func:`_direct_power` for a base of ``n`` bins (Σ len_a·len_b).
    ParameterError unless ``times`` is an integer >= 1."""
    cost, acc, sq, t = 0, 0, n, _times_param(times)
    while t:
        if t & 1:
            if acc:
                cost += acc * sq
            acc = sq if not acc else acc + sq - 1
        t >>= 1
        if t:
            cost += sq * sq
            sq = 2 * sq - 1
    return cost


def _convolve(a: _Vec, b: _Vec) -> _Vec:
    """a ∗ b by :func:`numpy.convolve` with a proved 2-norm error bound (module doc, (c'))."""
    data = np.convolve(a.data, b.data)
    n = len(data)
    m = min(len(a.data), len(b.data))  # terms per output entry (at most)
    a1 = a.norm1()
    # ‖â‖₂‖b̂‖₁ ≥ ‖â ∗ b̂‖₂ (Young): â, b̂ are the stored float vectors (their own norms, err 0)
    ahat2 = _norm2_upper(a.data)
    bhat1 = _round_up(_norm1_sum(b.data))
    rounding = 1.01 * (m + 1) * U * ahat2 * bhat1 + math.sqrt(n) * m * 2.0**-1074
    err = a.err2 * bhat1 + a1 * b.err2 + rounding
    np.maximum(data, 0.0, out=data)
    small = data < 1e-290  # flush: subnormals make numpy crawl (≤ 1e-290 per entry)
    data[small] = 0.0
    err += math.sqrt(n) * 1e-290
    # no window: nothing is folded in (the base vectors carry extra = 0)
    assert a.extra == 0 and b.extra == 0
    return _Vec(data, a.offset + b.offset, _round_up(err * (1 + 8 * U)), 0.0)


def _complex_power(z: np.ndarray, times: int) -> np.ndarray:
    """z^T entrywise by binary exponentiation (complex multiplications only; lemma (c))."""
    result: np.ndarray | None = None
    base = z
    while times:
        if times & 1:
            result = base if result is None else result * base
        times >>= 1
        if times:
            base = base * base
    assert result is not None
    return result


def _power_error(s1: float, s2: float, err2: float, size: int, times: int) -> float:
    """Bound on the 2-norm of (computed − ideal) T-fold cyclic power, for a base vector with
    1-norm ≤ ``s1``, 2-norm ≤ ``s2`` and error ≤ ``err2`` (module doc, lemma (c)); float
    evaluation, each step within a few ulps, covered by the final factor (1 + 2^-20)."""
    ell = math.log2(size)
    # one transform: Higham Thm 24.2 (radix 2) with twice the first-order term, ASSUMED to hold
    # for pocketfft's real radix-4/2 passes (lemma (c): checked against long double, not proved)
    mu = (2 * ell + 4) * ETA
    e = mu * s2 + err2  # ‖ẑ − z‖₂ / √N
    r = s1 + math.sqrt(size) * e  # ≥ every |ẑ_j| and |z_j|
    grow = math.expm1(2 * times * math.log1p(CMUL))  # (1 + ε)^(2T) − 1
    rt = r**times
    bound = math.sqrt(2) * (times * r ** (times - 1) * e + grow * rt + mu * rt * (1 + grow))
    return bound * (1 + 2.0**-20)


class _TooBig(Exception):
    pass


def _weights(n: int, offset: int, h: float, e_shift: float) -> np.ndarray:
    """f(x_j) = max(0, 1 − e^(x_j)) = −expm1(min(x_j, 0)) with x_j = e_shift − (offset + j)·h,
    in floats (a zero weight may be −0.0)."""
    x = e_shift - (offset + np.arange(n, dtype=np.float64)) * h
    return -np.expm1(np.minimum(x, 0.0))


def _inf_mass(p_inf: Fraction, times: int) -> tuple[float, float]:
    """Enclosure of 1 − (1 − p∞)^T (128-bit interval arithmetic)."""
    if p_inf == 0:
        return 0.0, 0.0
    with iv_precision(128):
        q = mpmath.iv.mpf(1) - iv_from_fraction(p_inf)
        v = mpmath.iv.mpf(1) - q**times
        lo = float(mpmath.mpf(v.a))
        hi = float(mpmath.mpf(v.b))
    return max(0.0, _round_down(lo)), min(1.0, _round_up(hi))


def _final(vec: _Vec, times: int, anchor_loss: mpmath.mpf, eps: Fraction, h: float,
           upper: bool) -> float:
    """Upper (or lower) bound on E[f(loss); finite] + extra for one discretised chain."""
    with iv_precision(128):
        shift = iv_from_fraction(eps) - times * anchor_loss
        # larger shift => smaller weights; upper side uses the smallest shift
        e_shift = float(mpmath.mpf(shift.a)) if upper else float(mpmath.mpf(shift.b))
    e_shift = _round_down(e_shift) if upper else _round_up(e_shift)
    # f vanishes at every grid loss ≤ ε: entries before j0 (x_j ≥ h > 0, far from any
    # rounding) have weight 0 and are left out of the sums
    j0 = min(len(vec.data), max(0, math.floor(e_shift / h) - vec.offset - 1))
    data = vec.data[j0:]
    w = _weights(len(data), vec.offset + j0, h, e_shift)
    n = len(w)
    s = float(np.sum(data * w))  # (np.dot goes through BLAS threads: 100× slower here)
    wn = _norm2_upper(w) * (1 + WEIGHT_MARGIN)
    slack = 1.01 * (n + 2) * U + 2 * WEIGHT_MARGIN
    if upper:
        return _round_up(s * (1 + slack) + vec.err2 * wn + vec.extra)
    return max(0.0, _round_down(s * (1 - slack) - vec.err2 * wn - vec.extra))


def exact_support_estimate(pld: PLD, times: int) -> int:
    """Upper bound on the composed exact support: C(T + m − 1, m − 1) for m distinct ratios.
    ParameterError unless ``times`` is an integer >= 1."""
    times = _times_param(times)
    m = len(pld.ratios)
    if m <= 1:
        return 1
    return comb(times + m - 1, m - 1)


#: most bits (numerator + denominator) one composed exact ratio or mass may need: beyond about
#: 2^21 bits a single Fraction product takes seconds (its gcd is quadratic), so such a
#: composition is costed past every budget
EXACT_BITS_BUDGET = 1 << 20


def exact_bits_estimate(pld: PLD, times: int) -> int:
    """Upper bound on the bits of one composed exact number: ``times`` × the largest
    numerator + denominator bit length among the one-release ratios and masses (a product of T
    fractions has at most the sum of their sizes).  ParameterError unless ``times`` is an
    integer >= 1."""
    times = _times_param(times)
    sizes = [x.numerator.bit_length() + x.denominator.bit_length()
             for r, p in pld.ratios.items() for x in (r, p)]
    return times * max(sizes, default=1)


def exact_compose_cost(pld: PLD, times: int) -> int:
    """Upper bound on the ratio products :meth:`~dps_verify.measures.pld.PrivacyLossDistribution.self_compose` performs
    (repeated squaring; each step costs |A|·|B| with |A| bounded by the support estimate);
    more than 10^18 (past every budget) when a composed number would exceed
    :data:`EXACT_BITS_BUDGET` bits, whatever the count.  ParameterError unless ``times`` is an
    integer >= 1 (raised by :func:`exact_bits_estimate`, called first)."""
    if exact_bits_estimate(pld, times) > EXACT_BITS_BUDGET:
        return 10**18 + 1
    m = max(len(pld.ratios), 1)

    def est(n: int) -> int:
        return 1 if m == 1 else comb(n + m - 1, m - 1)

    cost, acc, base_n, t = 0, 0, 1, times
    while t:
        if t & 1:
            if acc:
                cost += est(acc) * est(base_n)
            acc += base_n
        t >>= 1
        if t:
            cost += est(base_n) ** 2
            base_n *= 2
        if cost > 10**18:
            break
    return cost


def discretised_delta(
    pld: PLD,
    epsilon: Number,
    times: int,
    h_exp: int,
    *,
    tail_mass: float = DEFAULT_TAIL_MASS,
    max_bins: int = DEFAULT_MAX_BINS,
    upper_only: bool = False,
    lower_only: bool = False,
    fft: bool = True,
) -> Certified:
    """Enclosure of δ_T(ε) (one direction) from a grid of step h = 2^h_exp (see module doc).

    ``fft=True`` (default): the T-fold law by one FFT power, whose float-error term rests on an
    *assumed* error model of scipy's pocketfft (lemma (c): Higham's radix-2 bound doubled,
    checked against long double, not proved).  ``fft=False``: by direct convolutions
    (:func:`numpy.convolve`) with a proved error bound (lemma (c')) and no window, O(L²) work
    for L = T·(n − 1) + 1 bins instead of O(L log L) (``max_bins`` caps L).

    ``upper_only``: compose only the pessimistic (split) chain (half the work); the lower end is
    then the infinite-loss part 1 − (1 − p∞)^T alone (still a lower bound, f ≥ 0).
    ``lower_only``: compose only the rounded-down chain; the upper end is then 1 (f ≤ 1)."""
    eps = epsilon_param(epsilon)
    times = _times_param(times)
    if upper_only and lower_only:
        raise ParameterError("discretised_delta: upper_only and lower_only exclude each other")
    h = 2.0**h_exp
    inf_lo, inf_hi = _inf_mass(pld.infinity_mass, times)
    if not pld.ratios:
        return Certified(Fraction(inf_lo), Fraction(inf_hi), "only mass at infinite loss")
    r0, idx = _indices(pld, h_exp)
    _check_grid_work(times, h_exp, idx, max_bins)
    with iv_precision(128):
        # r0 enclosed by iv_from_fraction (as every other exact rational here): its ends are r0
        # rounded outward once, so the anchor interval is never wider than before
        anchor = mpmath.iv.log(iv_from_fraction(r0))
    probs = list(pld.ratios.values())
    ups, downs = [idx[r][1] for r in pld.ratios], [idx[r][0] for r in pld.ratios]
    up: _Vec | None = None
    lo: _Vec | None = None
    bins = 0
    try:
        if not lower_only:
            split = _split_base(pld, r0, idx, h_exp)
            up, bins = _power(split, times, _Tails(ups, probs, h, idx_low=downs), tail_mass, max_bins,
                              fft)
        if not upper_only:
            low = _base_vector(pld, idx, 0)
            lo, kept = _power(low, times, _Tails(downs, probs, h), tail_mass, max_bins, fft)
            bins = max(bins, kept)
    except _TooBig:
        budget = "" if fft else f" or {DIRECT_CONVOLVE_BUDGET:.1e} multiply-adds (fft=False)"
        raise CertificationError(
            f"discretised PLD for times = {_short_int(times)} at grid step h = 2^{h_exp} needs more than "
            f"max_bins = {max_bins} bins{budget}; lower times or use a coarser grid (larger h_exp)"
        ) from None
    upper = 1.0 if up is None else min(1.0, _round_up(inf_hi + _final(up, times, anchor, eps, h, True)))
    if lo is None:
        lower = min(upper, inf_lo)
    else:
        lower = min(upper, max(0.0, _round_down(inf_lo + _final(lo, times, anchor, eps, h, False))))
    if times == 1:
        composed = "a single release (no composition, proved float error bounds)"
    elif fft:
        composed = (
            f"composed by one FFT power on a window whose outside mass (Chernoff, "
            f"{tail_mass:.1g} per side) is charged to both ends; {FFT_ASSUMPTION}")
    else:
        composed = ("composed by direct convolutions (numpy.convolve, no window) with proved "
                    "float error bounds (gamma_m per entry, Young's inequality)")
    how = (
        f"discretised PLD enclosure: {times} releases, losses on a grid of step 2^{h_exp} "
        f"anchored at the heaviest atom (upper end: each atom split between its two grid "
        f"neighbours keeping its P and Q mass; lower end: losses rounded down), {composed}; "
        f"width {upper - lower:.3g}"
    )
    if lo is None:
        how = how.replace("discretised PLD enclosure:", "discretised PLD upper bound (pessimistic chain only):")
    if up is None:
        how = how.replace("discretised PLD enclosure:", "discretised PLD lower bound (rounded-down chain only):")
    return Certified(Fraction(lower), Fraction(upper), how, {"h_exp": h_exp, "times": times,
                                                            "bins": bins, "fft": fft})


#: most releases :func:`enclose_deltas` (and so ``releases_delta``) takes on: every route holds
#: numbers that grow with T (exact: T × the one-release bits; sparse: losses T·ln r as exact
#: dyadic ball ends; grid: a window ∝ √T bins), and past 10^9 one of them leaves its budget or
#: its number range (measured: T = 10^12 on a k = 3 group pair ran for minutes in the sparse
#: route, T = 10^9 answered in 0.3 s); defined in pld_sparse, whose input check uses it too
MAX_RELEASES = _SPARSE_MAX_RELEASES


def check_releases_budget(times: int) -> None:
    """CertificationError, before any work, when ``times`` exceeds :data:`MAX_RELEASES`."""
    if times > MAX_RELEASES:
        raise CertificationError(
            f"times = {_short_int(times)} releases exceeds the work budget of "
            f"MAX_RELEASES = 10^9 (the composed law grows with T on every route); lower times")


#: largest number of releases whose grid window is placed by float Chernoff estimates
#: (T·ln M(λ) must be a finite double)
MAX_GRID_TIMES = 1 << 1000


def _check_grid_work(times: int, h_exp: int, idx: dict, max_bins: int) -> None:
    """Refuse, before any vector is allocated, a grid whose one-release vector alone is longer
    than ``max_bins`` (the T-fold vector is at least as long), or a ``times`` too large for the
    float window estimates (:data:`MAX_GRID_TIMES`)."""
    if times > MAX_GRID_TIMES:
        raise CertificationError(
            f"discretised PLD for times = {_short_int(times)} releases: more than the grid's "
            f"float window estimate can place (at most 2^1000 releases; work budget max_bins = "
            f"{max_bins} bins); lower times")
    first = min(i for i, _ in idx.values())
    last = max(j for _, j in idx.values())
    if last - first + 1 > max_bins:
        raise CertificationError(
            f"discretised PLD for times = {_short_int(times)} at grid step h = 2^{h_exp}: one "
            f"release alone needs {last - first + 1} bins, more than the work budget max_bins = "
            f"{max_bins}; use a coarser grid (larger h_exp)")


def _short_int(n: int) -> str:
    """``n`` in full up to 20 digits, else as about 10^d (a message stays one short line)."""
    s = str(n)
    return s if len(s) <= 20 else f"about 10^{len(s) - 1}"


def _times_param(times: Any) -> int:
    """``times`` (a number of releases) as a Python int >= 1: an int or a numpy integer;
    ParameterError for anything else (a bool, a float such as 3.0, a string)."""
    return count_param(times, 1, "times must be an integer >= 1 (number of releases)")


def _loss_span(pld: PLD) -> float:
    ls = [math.log(r.numerator) - math.log(r.denominator) for r in pld.ratios]
    return max(ls) - min(ls) if ls else 0.0


def _cuts(times: int) -> int:
    return 2 * times.bit_length() + 2


def _tail_for(lower: Fraction, rtol: float, times: int) -> float:
    """Tail mass per cut so that all cuts together cost at most 1/50 of the allowed width."""
    if lower <= 0:
        return 1e-15
    return min(1e-10, max(1e-18, float(lower) * rtol / 50 / _cuts(times)))


def _halvings_within(c: Certified, max_bins: int) -> int:
    """How many halvings of the grid of ``c`` stay within ``max_bins`` (bins double per
    halving), at least 1: a jump past the budget would be refused and retried one halving at a
    time, paying for the grids in between (a T = 1000 enclosure paid 0.8 s so)."""
    bins = c.details.get("bins") or 0
    if bins <= 0:
        return 6
    return max(1, int(math.floor(math.log2(max_bins / bins))))


def enclose_deltas(
    plds: list[PLD],
    epsilon: Number,
    times: int = 1,
    *,
    rtol: float = 0.01,
    max_bins: int = DEFAULT_MAX_BINS,
    exact_budget: int = EXACT_COST_BUDGET,
    fallback_budget: int = EXACT_FALLBACK_BUDGET,
    fft: bool = True,
) -> list[Certified]:
    """Enclosures of δ_T(ε) for several directions whose *maximum* is wanted.

    Each direction is exact when cheap (:func:`exact_compose_cost` ≤ ``exact_budget``); else,
    when one atom dominates (:func:`~dps_verify.inverse.pld_sparse.sparse_promising`), the
    sparse enclosure of :mod:`~dps_verify.inverse.pld_sparse`, kept if its upper end is within
    ``rtol`` of the largest lower end; else discretised (intersected with the sparse enclosure
    when both ran: each contains δ, so their intersection does); the direction(s) whose upper bound keeps the maximum's enclosure wider than
    ``upper ≤ (1 + rtol/3)·lower`` (see the module doc) get a finer grid, until the next grid would exceed
    ``max_bins``.  When the target (1 + rtol)·lower is below :data:`DISCRETE_FLOOR` a
    discretised direction over it is made exact instead, if its cost is at most
    ``fallback_budget``.  :class:`CertificationError` (naming ``times``) if the coarsest grid
    already does.  ``fft``: see :func:`discretised_delta` (False: direct convolution, proved
    float bounds, O(L²) per grid).
    """
    times = _times_param(times)
    check_releases_budget(times)
    eps = epsilon_param(epsilon)
    rtol = rtol_param(rtol)  # finite and >= 0; 0 refines until the work budget stops it
    results: list[Certified | None] = [None] * len(plds)
    h_exps: dict[int, int] = {}  # grid exponent of each discretised direction
    tails = [1e-11] * len(plds)
    from dps_verify.inverse.pld_sparse import sparse_delta, sparse_promising

    for i, pld in enumerate(plds):
        if exact_compose_cost(pld, times) <= exact_budget:
            c = pld.self_compose(times).delta_certified(eps)
            results[i] = Certified(c.lower, c.upper, "exact PLD (" + c.how + ")",
                                   {"mode": "exact", "times": times})
    # a dominant atom (e.g. "suppressed"): count the releases off it (pld_sparse), twice so that
    # every direction stops against the largest lower end known
    sparse = [i for i, pld in enumerate(plds) if results[i] is None and sparse_promising(pld, times)]
    for rnd in range(2 if len(sparse) > 1 else 1):
        for i in sparse:
            floor = max((c.lower for c in results if c is not None), default=Fraction(0))
            results[i] = sparse_delta(plds[i], eps, times, rtol=rtol, floor=floor,
                                      max_atoms=500 if rnd == 0 and len(sparse) > 1 else 20_000)
    floor = max((c.lower for c in results if c is not None), default=Fraction(0))
    sparse_res = {i: results[i] for i in sparse}
    for i, pld in enumerate(plds):
        old_c = results[i]
        if old_c is not None and (old_c.details.get("mode") == "exact"
                                  or old_c.upper <= max(floor * Fraction(1 + rtol), old_c.lower)):
            continue
        # coarsest grid: about 256 bins across one release's losses
        h_exps[i] = math.floor(math.log2(max(_loss_span(pld), 1e-3) / 256))
        try:
            results[i] = _discrete(pld, eps, times, h_exps[i], tails[i], max_bins, fft=fft)
        except CertificationError:
            if old_c is not None:  # the sparse enclosure stands (valid, if wide)
                results[i] = old_c
                continue
            raise CertificationError(
                f"times = {_short_int(times)} releases: even the coarsest grid (h = 2^{h_exps[i]}) needs "
                f"more than max_bins = {max_bins} bins"
                + ("" if fft else f" or {DIRECT_CONVOLVE_BUDGET:.1e} multiply-adds (fft=False)")
                + " (the work budget); lower times"
            ) from None
    final: set[int] = set()
    # the grid's upper end is of second order in h (split chain) and its lower end of first
    # order: asking upper <= (1 + rtol/3)·lower keeps the lower end at least where rounding
    # both ends outward with upper <= (1 + rtol)·lower put it (that width was about twice the
    # lower end's error, and the refinement's jumps overshoot), and the upper end closer
    grid_rtol = rtol / 3
    settled: set[int] = set()  # directions whose upper end has converged: refine the lower only
    while True:
        done = [c for c in results if c is not None]
        lo = max(c.lower for c in done)
        target = lo * Fraction(1 + grid_rtol)
        todo = [i for i, c in enumerate(results)
                if c is not None and c.details.get("mode") == "discretised" and c.upper > target
                and i not in final]
        if target < DISCRETE_FLOOR:  # beneath any grid's width floor: exact if affordable
            made = []
            for i in todo:
                old_i = results[i]
                assert old_i is not None
                if direct_tuples(plds[i], times) <= DIRECT_MAX_TUPLES:
                    c = _intersect(direct_delta(plds[i], eps, times), old_i)
                    if c.upper <= target or c.upper - c.lower <= (old_i.upper - old_i.lower) / 100:
                        results[i] = Certified(c.lower, c.upper, c.how, dict(c.details, mode="direct"))
                        made.append(i)
                        continue
                if exact_compose_cost(plds[i], times) <= fallback_budget:
                    e = plds[i].self_compose(times).delta_certified(eps)
                    results[i] = Certified(e.lower, e.upper, "exact PLD (" + e.how + ")",
                                           {"mode": "exact", "times": times})
                    made.append(i)
            if made:
                continue  # the largest lower end may have moved: recompute the target
        todo = [i for i in todo if results[i].details["bins"] * 2 <= max_bins]  # type: ignore[union-attr]
        if not todo:
            return [_intersect(c, sparse_res.get(i)) for i, c in enumerate(results) if c is not None]
        for i in todo:
            old = results[i]
            assert old is not None
            # the rounding part of the width is about proportional to h: jump (at most 6
            # halvings) towards the grid that should reach the target width
            width = old.upper - old.lower
            jump = 1
            if lo > 0 and width > 0 and grid_rtol > 0:
                jump = min(6, max(1, math.ceil(math.log2(float(width / (lo * Fraction(grid_rtol) * Fraction(7, 10)))))))
            jump = min(jump, _halvings_within(old, max_bins))
            tails[i] = _tail_for(lo, grid_rtol, times)
            new = None
            for step in sorted({jump, 1}, reverse=True):
                try:
                    new = _discrete(plds[i], eps, times, h_exps[i] - step, tails[i], max_bins,
                                    lower_only=i in settled, fft=fft)
                    h_exps[i] -= step
                    break
                except CertificationError:  # over the work budget: try one halving, then stop
                    continue
            if new is None:  # even the next grid is over the budget: keep the coarser one
                final.add(i)
                continue
            if i in settled:  # the upper end stays the coarser grid's (both ends hold)
                hi = min(new.upper, old.upper)
                how = new.how.rsplit("; width", 1)[0].replace(
                    "discretised PLD lower bound (rounded-down chain only):",
                    f"discretised PLD enclosure (upper end from the split chain on the grid "
                    f"2^{old.details.get('upper_h_exp', old.details.get('h_exp'))}):")
                new = Certified(new.lower, hi, f"{how}; width {float(hi - new.lower):.3g}",
                                dict(new.details, upper_h_exp=old.details.get(
                                    "upper_h_exp", old.details.get("h_exp"))))
            elif _upper_settled(old, new, step, lo * Fraction(grid_rtol)):
                settled.add(i)
            # Stop refining a direction whose width no longer shrinks (e.g. a single finite
            # atom, or a width made of tail and float terms only): otherwise h would run down
            # to the float underflow.  The narrower of the two enclosures is kept; both hold.
            if new.upper - new.lower > (old.upper - old.lower) * Fraction(3, 4) or h_exps[i] < MIN_H_EXP:
                final.add(i)
            if new.upper - new.lower <= old.upper - old.lower:
                results[i] = new


def upper_below(
    plds: list[PLD],
    epsilon: Number,
    times: int,
    target: Fraction,
    *,
    estimate: float = 0.0,
    h_exp: list[int | None] | None = None,
    max_bins: int = DEFAULT_MAX_BINS,
    exact_budget: int = EXACT_COST_BUDGET,
    fallback_budget: int = EXACT_FALLBACK_BUDGET,
    fft: bool = True,
) -> Certified:
    """A certified upper bound on max over ``plds`` of δ_T(ε), worked on only until it is
    ≤ ``target`` (the lower end is whatever came for free).  Each direction: exact when very
    cheap (cost ≤ ``exact_budget``/16), :func:`~dps_verify.inverse.pld_sparse.sparse_delta`
    when a dominant atom makes it tight, else the pessimistic discretised chain alone on finer
    and finer grids, and the exact PLD (cost ≤ ``exact_budget``) if those miss the target; a target below
    :data:`DISCRETE_FLOOR` (out of any grid's reach) goes exact at once when the cost is at most
    ``fallback_budget``; ``estimate`` (a float
    screen of the true value, not relied on) sets how many halvings to jump.  Stops early,
    returning the bound reached, when the grid would exceed ``max_bins`` or ``estimate`` is
    itself ≥ ``target`` (then no grid can certify the target).  ``h_exp``: a grid exponent that
    worked for a similar law, per direction (the first grid tried is one step coarser; the result
    holds whatever the hint).  Without a hint the first grid is about 256·√T bins across one
    release's losses.  ``details['h_exps']``: the grid that served each direction (None if
    none).  ``fft``: see :func:`discretised_delta`."""
    from dps_verify.inverse.pld_sparse import sparse_delta, sparse_promising

    times = _times_param(times)
    check_releases_budget(times)
    eps = epsilon_param(epsilon)
    estimate = float(estimate) if math.isfinite(estimate) else 0.0  # not relied on: NaN/inf say nothing
    out: list[Certified] = []
    hints = list(h_exp) if h_exp is not None else [None] * len(plds)

    def exact(pld: PLD) -> Certified:
        c = pld.self_compose(times).delta_certified(eps)
        return Certified(c.lower, c.upper, "exact PLD (" + c.how + ")", {"mode": "exact"})

    for pld, hint in zip(plds, hints):
        cost = exact_compose_cost(pld, times)
        if cost <= exact_budget // 16:  # exact and cheaper than one grid
            out.append(exact(pld))
            continue
        below_floor = target < DISCRETE_FLOOR  # no grid gets there: direct sum, else exact
        direct_c: Certified | None = None
        if below_floor and direct_tuples(pld, times) <= DIRECT_QUICK_TUPLES:  # milliseconds
            direct_c = direct_delta(pld, eps, times)
            if direct_c.upper <= target:
                out.append(direct_c)
                continue
        if sparse_promising(pld, times):
            c = sparse_delta(pld, eps, times, rtol=0.1, floor=target)
            if c.upper <= target:
                out.append(c)
                continue
        if below_floor:
            if direct_c is None and direct_tuples(pld, times) <= DIRECT_MAX_TUPLES:
                direct_c = direct_delta(pld, eps, times)
            if cost <= fallback_budget and (direct_c is None or direct_c.upper > target):
                out.append(exact(pld))
                continue
            if direct_c is not None:
                out.append(direct_c)
                continue
        coarsest = math.floor(math.log2(max(_loss_span(pld), 1e-3) / 256))
        h = coarsest - math.floor(math.log2(times) / 2) if hint is None else min(coarsest, hint + 1)
        tail = max(1e-18, min(1e-10, float(target) / 100 / _cuts(times)))
        best: Certified | None = None
        while True:
            try:
                c = discretised_delta(pld, eps, times, h, tail_mass=tail, max_bins=max_bins,
                                      upper_only=True, fft=fft)
            except CertificationError:  # over the bin budget: coarser, unless a grid already worked
                if best is None and h < coarsest:
                    h += 1
                    continue
                break
            c = Certified(c.lower, c.upper, c.how, dict(c.details, mode="discretised"))
            if best is None or c.upper < best.upper:
                best = c
            if c.upper <= target or estimate >= float(target) or h <= MIN_H_EXP:
                break
            # here c.upper > target > estimate (else the loop stopped above), so over/room >
            # 1/0.8 and the jump is at least 1 halving; the jump only sets work, and the ratio is
            # clamped before its log: an estimate within about 1e-308 of the target leaves a
            # subnormal room and an infinite over/room, which has no integer log
            over = float(c.upper) - estimate
            room = (float(target) - estimate) * 0.8
            jump = min(6, math.ceil(math.log2(min(over / room, 64.0))))
            jump = min(jump, _halvings_within(c, max_bins))
            if best is not c:  # the last finer grid did not help: stop
                break
            h -= jump
        if (best is None or best.upper > target) and cost <= exact_budget:
            best = exact(pld)  # the grid could not certify the target; the exact PLD is affordable
        if best is None:
            raise CertificationError(
                f"times = {times} releases: even the grid h = 2^{h} needs more "
                f"than max_bins = {max_bins} bins (the work budget); lower times")
        out.append(best)
    lo = max(c.lower for c in out)
    worst = max(out, key=lambda c: c.upper)
    modes = {c.details.get("mode") for c in out}
    mode = ("exact" if modes == {"exact"} else "discretised" if "discretised" in modes
            else "sparse" if "sparse" in modes else "direct")
    return Certified(lo, worst.upper, worst.how,
                     {"mode": mode, "h_exps": [c.details.get("h_exp") for c in out]})


#: most T-tuples of finite atoms :func:`direct_delta` sums (memory ≈ 48 bytes per tuple)
DIRECT_MAX_TUPLES = 1 << 20
#: up to this many tuples the direct sum takes milliseconds: tried before the sparse enclosure
DIRECT_QUICK_TUPLES = 1 << 17


def direct_tuples(pld: PLD, times: int) -> int:
    """Number of T-tuples of finite atoms :func:`direct_delta` would sum (m^T).
    ParameterError unless ``times`` is an integer >= 1."""
    return len(pld.ratios) ** _times_param(times)


def direct_delta(pld: PLD, epsilon: Number, times: int) -> Certified:
    """Enclosure of δ_T(ε) (one direction) by summing over every T-tuple of finite atoms in
    float interval arithmetic, without a grid (it reaches values far below the
    discretised enclosure's absolute floor ≈ 1e-14, e.g. 6e-29, at relative width ≈ 1e-12).

    δ_T = 1 − (1 − p∞)^T + Σ_tuples Π p_i · max(0, 1 − e^(ε − Σ ln r_i)) (CP Def. 2 for
    independent releases).  Each ln r_i and ε are 128-bit balls rounded outward to floats; the
    masses are correctly rounded floats (Fraction → float) widened by one ulp; every sum and
    product of endpoints is widened by one ulp (round-to-nearest errs by at most half an ulp,
    also in the subnormal range); −expm1 is trusted to 2^-40 relative (as the grid weights are);
    the final float sums of N non-negative terms err by at most γ_N ≤ 1.01·N·u relative, plus
    N·2^-1074 for products that underflow.  For m^T ≤ :data:`DIRECT_MAX_TUPLES` only."""
    from dps_verify.worstcase.ball_binomial import arb_epsilon

    eps = epsilon_param(epsilon)
    times = _times_param(times)
    flint = _flint()
    with flint.ctx.workprec(128):
        from dps_verify.inverse.pld_sparse import arb_one_minus_power

        inf_lo, inf_hi = _arb_ends(arb_one_minus_power(pld.infinity_mass, times))
        e_lo, e_hi = _arb_ends(arb_epsilon(eps))
        ends = [_arb_ends(arb_fraction(r).log()) for r in pld.ratios]
    inf_lo = max(inf_lo, Fraction(0))
    how = (f"direct sum over all {len(pld.ratios)}^{times} tuples of finite atoms in float "
           "interval arithmetic (outward ulps, 128-bit ball logarithms)")
    if not pld.ratios:
        return Certified(inf_lo, min(Fraction(1), inf_hi), how, {"mode": "direct", "times": times})
    if direct_tuples(pld, times) > DIRECT_MAX_TUPLES:
        raise CertificationError(f"direct sum for times = {times}: more than "
                                 f"{DIRECT_MAX_TUPLES} tuples of finite atoms")
    down, up = -math.inf, math.inf
    probs = np.array([float(p) for p in pld.ratios.values()])
    p1_lo = np.maximum(np.nextafter(probs, down), 0.0)
    p1_hi = np.nextafter(probs, up)
    l1_lo = np.nextafter(np.array([float(a) for a, _ in ends]), down)
    l1_hi = np.nextafter(np.array([float(b) for _, b in ends]), up)
    p_lo, p_hi, l_lo, l_hi = p1_lo, p1_hi, l1_lo, l1_hi
    for _ in range(times - 1):
        p_lo = np.maximum(np.nextafter(np.multiply.outer(p_lo, p1_lo).ravel(), down), 0.0)
        p_hi = np.nextafter(np.multiply.outer(p_hi, p1_hi).ravel(), up)
        l_lo = np.nextafter(np.add.outer(l_lo, l1_lo).ravel(), down)
        l_hi = np.nextafter(np.add.outer(l_hi, l1_hi).ravel(), up)
    d_lo = np.nextafter(l_lo - math.nextafter(float(e_hi), up), down)
    d_hi = np.nextafter(l_hi - math.nextafter(float(e_lo), down), up)
    g_hi = np.minimum(np.maximum(-np.expm1(-d_hi), 0.0) * (1 + WEIGHT_MARGIN), 1.0)
    g_lo = np.maximum(-np.expm1(-d_lo), 0.0) * (1 - WEIGHT_MARGIN)
    n = len(p_hi)
    gamma = 1.01 * (n + 4) * U
    s_hi = _round_up(float(np.sum(p_hi * g_hi)) * (1 + gamma) + n * 2.0**-1074)
    s_lo = max(0.0, _round_down(float(np.sum(p_lo * g_lo)) * (1 - gamma) - n * 2.0**-1074))
    upper = min(Fraction(1), inf_hi + Fraction(s_hi))
    lower = min(upper, inf_lo + Fraction(s_lo))
    return Certified(lower, upper, how, {"mode": "direct", "times": times})


def _intersect(c: Certified, other: Certified | None) -> Certified:
    """Both enclose the same δ: so does their intersection (the narrower one's text)."""
    if other is None or other is c:
        return c
    lo, hi = max(c.lower, other.lower), min(c.upper, other.upper)
    if lo > hi:  # cannot happen for two valid enclosures; never hide it
        raise AssertionError(f"disjoint enclosures [{c.lower}, {c.upper}] and [{other.lower}, {other.upper}]")
    best = c if c.upper - c.lower <= other.upper - other.lower else other
    return Certified(lo, hi, best.how, dict(best.details))


def _upper_settled(old: Certified, new: Certified, halvings: int, room: Fraction) -> bool:
    """Whether the split chain's upper end has converged: its error is of second order in h,
    so after ``halvings`` halvings it is about |old − new|/(4^halvings − 1); settled when that
    is below a tenth of ``room`` (the width allowed).  A heuristic for where to spend work: the
    upper end kept is a certified bound either way."""
    change = abs(old.upper - new.upper)
    return change <= room / 10 * (4**halvings - 1)


def _discrete(pld: PLD, eps: Fraction, times: int, h_exp: int, tail: float,
              max_bins: int, lower_only: bool = False, fft: bool = True) -> Certified:
    c = discretised_delta(pld, eps, times, h_exp, tail_mass=tail, max_bins=max_bins,
                          lower_only=lower_only, fft=fft)
    return Certified(c.lower, c.upper, c.how, dict(c.details, mode="discretised"))


def enclose_delta(pld: PLD, epsilon: Number, times: int = 1, **kw) -> Certified:
    """δ at ε of ``times`` independent releases (one direction), as an enclosure (exact when
    cheap, else discretised; see :func:`enclose_deltas`)."""
    return enclose_deltas([pld], epsilon, times, **kw)[0]


__all__ = [
    "DEFAULT_MAX_BINS",
    "DIRECT_MAX_TUPLES",
    "DISCRETE_FLOOR",
    "direct_delta",
    "EXACT_COST_BUDGET",
    "EXACT_FALLBACK_BUDGET",
    "check_releases_budget",
    "exact_bits_estimate",
    "MAX_RELEASES",
    "exact_compose_cost",
    "discretised_delta",
    "enclose_delta",
    "enclose_deltas",
    "exact_support_estimate",
    "upper_below",
]
