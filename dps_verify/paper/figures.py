"""Data series and drawings for CP Figures 2–6 and TR Figure 7.

The series are computed by :mod:`dps_verify.bounds` (the paper's d, exact and certified) and,
"beyond the paper", by :func:`dps_verify.exact.sdgs_delta_certified` (the exact hockey-stick δ
of sampled strongly-safe k-anonymization).  Claims use the series; matplotlib (Agg backend) is
imported only by :func:`draw`, which the report writers call.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache, partial
from pathlib import Path

import mpmath

from dps_verify.core.errors import CertificationError, ParameterError
from dps_verify.core.numbers import (
    Certified,
    iv_from_fraction,
    iv_lower,
    iv_precision,
    iv_upper,
    to_fraction,
)
from dps_verify.core.params import in_paper_regime, neg_log1m_float
from dps_verify.core.search import boundary_rational
from dps_verify.core.types import BoundLike, bound_param, definition_param
from dps_verify.inverse.questions import min_epsilon as certified_min_epsilon
from dps_verify.worstcase.chernoff import chernoff_delta
from dps_verify.worstcase.closed_forms import d_certified, neg_log1m_upper
from dps_verify.worstcase.sdgs import sdgs_delta_certified

FIG2_KS = (5, 10, 20, 30, 50)
FIG3_BETAS = ("0.05", "0.1", "0.2", "0.3", "0.4")
FIG4_START = (15, "0.05")
FIG4_BETAS = ("0.1", "0.2", "0.4")
FIG4_PRINTED = {"0.1": 22, "0.2": 35, "0.4": 60}
FIG4_GRID = tuple(Fraction(x, 10) for x in range(6, 21))  # ε ∈ [0.6, 2.0]: every curve defined
FIG5_BETA = "0.025"
FIG6_BETAS = ("0.05", "0.1", "0.2", "0.4")
FIG6_KS = tuple(range(10, 55, 5))
FIG7_EPS0 = ("0.25", "0.5", "1", "1.5", "2")
FIG7_BETA = "0.1"
FIG7_Z = tuple(Fraction(z, 20) for z in range(20, 61, 2))  # z ∈ [1, 3]


def edge(beta: str | Fraction) -> float:
    """−ln(1 − β), the smallest ε CP Thm 5 allows, as a float — for drawing only
    (:func:`dps_verify.core.params.neg_log1m_float`).  Which ε are inside the regime is decided
    exactly by :func:`dps_verify.core.params.in_paper_regime`."""
    return neg_log1m_float(Fraction(beta))


def eps_grid(beta: str, top: Fraction | float | str = 2, step: Fraction = Fraction(1, 20)) -> list[Fraction]:
    """ε ∈ {step, 2·step, …, ≤ top} inside CP Thm 5's regime ε ≥ −ln(1−β) (exact rationals;
    membership decided exactly by :func:`dps_verify.core.params.in_paper_regime` — the edge is
    irrational for rational β, so every selected ε lies strictly above it)."""
    b, t = Fraction(beta), Fraction(top)
    return [step * i for i in range(1, int(t / step) + 1) if in_paper_regime(b, step * i)]


@cache
def delta_certified(k: int, beta: str, eps: Fraction, measure: BoundLike = "paper") -> Certified:
    """The certified enclosure of δ: CP's d ("paper") or the exact "hockey-stick"/"pointwise" δ.
    Claims compare these enclosures (lower vs upper ends), never the floats of :func:`delta`."""
    if measure == "paper":
        return d_certified(k, beta, eps)
    return sdgs_delta_certified(k, beta, eps, definition_param(measure))


def delta(k: int, beta: str, eps: Fraction, measure: BoundLike = "paper") -> float:
    """Certified upper end of δ as a float, for drawing and distances between curves."""
    return float(delta_certified(k, beta, eps, measure).upper)


def curve(k: int, beta: str, measure: BoundLike = "paper", top: Fraction | float | str = 2) -> list[tuple[float, float]]:
    return [(float(e), delta(k, beta, e, measure)) for e in eps_grid(beta, top)]


Enclosure = tuple[Fraction, Fraction]


def _ratio(k: int, beta: str, ref: tuple[int, str], eps: Fraction) -> Enclosure:
    """R = max(d/d_ref, d_ref/d) at ε, so |log10 d − log10 d_ref| = log10 R: an exact rational
    enclosure from the certified enclosures of both d's (a point when both are exact)."""
    a, r = delta_certified(k, beta, eps), delta_certified(ref[0], ref[1], eps)
    return max(a.lower / r.upper, r.lower / a.upper), max(a.upper / r.lower, r.upper / a.lower)


def _log10_up(x: Fraction) -> float:  # display only
    return math.log10(x.numerator) - math.log10(x.denominator)


def log_gap(k: int, beta: str, ref: tuple[int, str], grid: tuple[Fraction, ...] = FIG4_GRID) -> Enclosure:
    """The minimax criterion's key: max over the grid of R (its log10 is the largest
    |log10 d(k, β, ε) − log10 d(ref, ε)|), an exact rational enclosure."""
    rs = [_ratio(k, beta, ref, e) for e in grid]
    return max(r[0] for r in rs), max(r[1] for r in rs)


def _gap_at_one(k: int, beta: str, ref: tuple[int, str]) -> Enclosure:
    return _ratio(k, beta, ref, Fraction(1))


def _gap_l2(k: int, beta: str, ref: tuple[int, str], grid: tuple[Fraction, ...] = FIG4_GRID) -> Enclosure:
    """The RMS criterion's key: the mean of (log10 R)² over the grid, an enclosure from
    outward-rounded interval arithmetic."""
    with iv_precision(96):
        lo = hi = mpmath.iv.mpf(0)
        for e in grid:
            r = _ratio(k, beta, ref, e)
            lo += mpmath.iv.log10(iv_from_fraction(r[0])) ** 2
            hi += mpmath.iv.log10(iv_from_fraction(r[1])) ** 2
        return iv_lower(lo) / len(grid), iv_upper(hi) / len(grid)


#: The reasonable readings of CP Fig 4's "a k that gives a similar level of privacy protection",
#: each a distance between log10 d(k, β, ·) and log10 d(15, 0.05, ·) on ε ∈ [0.6, 2] (all curves
#: are defined there).  The paper does not say which it used.  Each entry: (description, key,
#: key → distance in orders of magnitude); the key orders the k's like the distance and is
#: certified (exact rationals for the first two), so the matching is decided exactly.
FIG4_CRITERIA: dict[str, tuple[str, Callable[..., Enclosure], Callable[[Fraction], float]]] = {
    "minimax": ("max over ε ∈ {0.6, 0.7, …, 2.0} of |Δ log10 δ|", log_gap, _log10_up),
    "at-eps-1": ("|Δ log10 δ| at ε = 1 only", _gap_at_one, _log10_up),
    "l2": ("root-mean-square of Δ log10 δ over ε ∈ {0.6, …, 2.0}", _gap_l2, lambda x: math.sqrt(x)),
}
FIG4_DEFAULT_CRITERION = "minimax"


@cache
def fig4_matching_k(beta: str, criterion: str = FIG4_DEFAULT_CRITERION, width: int = 25) -> tuple[int, float]:
    """THE rule for CP Fig 4 (used by the claim, the drawing and the notebooks): the k whose
    paper-d curve at rate ``beta`` is closest to (k, β) = (15, 0.05) under ``criterion`` (a key
    of :data:`FIG4_CRITERIA`); returns (k, distance in orders of magnitude, upper end).

    Decided on certified keys: every other k is certified farther (its key's lower end above
    the winner's upper end) or, for a larger k, exactly tied (both keys the same exact
    rational: ties go to the smaller k — at β = 0.4 under minimax, d(69, ·) and d(70, ·) are
    equal at ε = 0.6, where both attain the maximum).  Anything else raises
    :class:`CertificationError`.  The search window is the printed k ± ``width`` (at least
    k = 15); a minimum on the window's edge raises instead of being silently accepted.
    """
    if criterion not in FIG4_CRITERIA:
        raise ParameterError(f"unknown Fig 4 criterion {criterion!r}; one of {sorted(FIG4_CRITERIA)}")
    _, key, to_distance = FIG4_CRITERIA[criterion]
    lo, hi = max(FIG4_START[0], FIG4_PRINTED[beta] - width), FIG4_PRINTED[beta] + width
    ks = {k: key(k, beta, FIG4_START) for k in range(lo, hi + 1)}
    best = min(ks, key=lambda k: (ks[k][1], k))
    if best in (lo, hi):
        raise AssertionError(f"Figure 4 match for beta={beta} ({criterion}) on the search window's edge")
    b_lo, b_hi = ks[best]

    def settled(k: int) -> bool:
        k_lo, k_hi = ks[k]
        return k_lo > b_hi or (k > best and k_lo == k_hi == b_lo == b_hi)
    undecided = [k for k in ks if k != best and not settled(k)]
    if undecided:
        raise CertificationError(f"Figure 4 match for beta={beta} ({criterion}): k = {best} not certified "
                                 f"closer than k = {undecided}")
    return best, to_distance(b_hi)


def fig4_sequences() -> dict[str, list[int]]:
    """The matched k for β = 0.1, 0.2, 0.4 under every criterion of :data:`FIG4_CRITERIA`."""
    return {c: [fig4_matching_k(b, c)[0] for b in FIG4_BETAS] for c in FIG4_CRITERIA}


def fig4_match(beta: str, width: int = 15) -> tuple[int, float]:
    """Backward-compatible name: :func:`fig4_matching_k` under the default (minimax) criterion."""
    return fig4_matching_k(beta)


@cache
def min_epsilon(k: int, beta: str, target: Fraction = Fraction(1, 10**6), measure: BoundLike = "paper",
                tol: str = "1e-4") -> float:
    """Smallest ε (to ``tol``, rounded up) with δ(k, β, ε) ≤ target — CP Fig 6's frontier.

    Delegates to the certified inverse :func:`dps_verify.bounds.min_epsilon`: at the returned ε
    the bound δ ≤ target is certified (exact rationals / outward-rounded intervals).

    Returns ``math.inf`` when no ε can reach the target for CP's d: once γ ≥ k/(k+1) the group
    size n = k is admissible and contributes f(k; k, β) = β^k, and d does not increase in ε, so
    β^k > target rules every ε out (exact comparison)."""
    if measure == "paper" and Fraction(beta) ** k > target:
        return math.inf
    return float(certified_min_epsilon(k, beta, target, bound=bound_param(measure), tol=tol))


def d_reaches_beta(k: int, beta: str, eps: Fraction) -> bool | None:
    """Is CP Thm 5's d(k, β, ε) ≥ β (so Def 3's β > δ fails)?  True/False when the certified
    enclosure decides it, None when it straddles β."""
    c = d_certified(k, beta, eps)
    b = Fraction(beta)
    if c.lower >= b:
        return True
    if c.upper < b:
        return False
    return None


def _is(decide: Callable[[Fraction], bool | None], value: bool) -> Callable[[Fraction], bool]:
    """The certified predicate "decide(x) is certified to be ``value``"."""
    return lambda x: decide(x) is value


def sign_changes(decide: Callable[[Fraction], bool | None], grid: list[Fraction],
                 tol: Fraction = Fraction(1, 10**4)) -> list[tuple[Fraction, Fraction, bool]]:
    """Every certified change of a certified predicate along ``grid`` (increasing rationals),
    each refined by :func:`dps_verify.core.search.boundary_rational` to a bracket
    ``(a, b, value_before)`` with b − a ≤ 2·``tol`` for a single crossing in the grid gap (wider
    only when undecided points sit next to it): ``decide`` is certified to give ``value_before`` at a and ``not value_before`` at b.
    ``decide`` returns True/False when it is certified and None when undecided; undecided grid
    points are skipped (a change across them is still reported, with the wider bracket).
    Changes between two grid points with the same value are invisible to a grid scan — callers
    either prove monotonicity or choose the grid accordingly."""
    known = [(x, v) for x in grid if (v := decide(x)) is not None]
    out = []
    for (a, va), (b, vb) in zip(known, known[1:]):
        if va == vb:
            continue
        hi = boundary_rational(_is(decide, vb), a, b, tol, want="least", what="crossing")
        lo = boundary_rational(_is(decide, va), a, hi, tol, want="greatest", what="crossing")
        out.append((lo, hi, va))
    return out


def beta_gt_delta_crossings(k: int, beta: str, top: Fraction = Fraction(3), points: int = 24,
                            tol: Fraction = Fraction(1, 10**4)) -> list[tuple[Fraction, Fraction, bool]]:
    """All certified crossings of d(k, β, ε) = β for ε between the regime edge −ln(1−β) (a
    certified rational within 2^−64 above it) and ``top``, from a grid of ``points`` + 1 values
    refined to ``tol`` (see :func:`sign_changes`); (a, b, True) means d ≥ β is certified at a and
    d < β at b.

    There is exactly one crossing at most: d(k, β, ·) is non-increasing in ε.  Proof: write
    U_n(ε) = Pr[Bin(n, β) ≥ max(k, ⌊γn⌋ + 1)] with γ = 1 − (1 − β)e^(−ε).  γ increases with ε, so
    each U_n does not increase.  For n ≥ n_m every j > γn is ≥ k (γn ≥ γn_m ≥ k − γ > k − 1), so
    U_n is CP Thm 5's term for n; for n < n_m, U_n ≤ Pr[Bin(n, β) ≥ k] ≤ Pr[Bin(n_m, β) ≥ k], which
    is the n_m term (⌊γn_m⌋ = k − 1 since k − γ ≤ γn_m < k).  Hence d(ε) = sup_n U_n(ε), a
    supremum of non-increasing functions over a set that does not depend on ε.
    tests/test_claims.py checks this on grids with certified enclosures (no certified increase)."""
    b = Fraction(beta)
    lo = neg_log1m_upper(b)
    step = (top - lo) / points
    grid = [lo + i * step for i in range(points + 1)]
    return sign_changes(lambda e: d_reaches_beta(k, beta, e), grid, tol)


def beta_gt_delta_boundary(k: int, beta: str, top: Fraction = Fraction(3)) -> tuple[float, float]:
    """The ε-bracket [lo, hi] where d(k, β, ε) drops below β (CP Thm 5 versus the β > δ of CP
    Def 3), for the chart: d ≥ β is certified at lo and d < β at hi; the region d ≥ β is
    (−ln(1−β), lo] (d is non-increasing in ε, see :func:`beta_gt_delta_crossings`).  Returns
    (edge, edge) when d < β already just above the edge, and (top, inf) when d ≥ β at ``top``.
    More than one crossing would contradict the monotonicity proof and raises
    :class:`CertificationError`."""
    cs = beta_gt_delta_crossings(k, beta, top)
    if len(cs) > 1 or (cs and cs[0][2] is not True):
        raise CertificationError(f"d({k}, {beta}, ε) crosses β {len(cs)} times or upwards: {cs}; "
                                 "the region chart assumes one downward crossing")
    if cs:
        return float(cs[0][0]), float(cs[0][1])
    if d_reaches_beta(k, beta, top):
        return float(top), math.inf
    return edge(beta), edge(beta)


BETA_GT_DELTA_KS = (1, 2, 3, 4)
BETA_GT_DELTA_BETAS = ("0.02", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.4", "0.5")


#: Relative accuracy of :func:`dps_verify.bounds.chernoff_delta` used for enclosures: it returns
#: the upper end of an interval of relative width ≤ 2^-64 (``core.numbers.iv_adaptive``), so the
#: true value lies in [u·(1 − 2^-60), u].
CHERNOFF_REL = Fraction(1, 2**60)


@cache
def _chernoff_enclosure(k: int, beta: str, eps: Fraction) -> tuple[Fraction, Fraction]:
    u = to_fraction(chernoff_delta(k, beta, eps))
    return u * (1 - CHERNOFF_REL), u


def fig7_f_certified(eps0: str, z: Fraction, k: int = 20, beta: str = FIG7_BETA) -> tuple[Fraction, Fraction]:
    """An enclosure [lo, hi] of TR Thm 6's f(z) = δ_C(ε0·z)/δ_C(ε0), δ_C the closed-form
    Chernoff bound (see :data:`CHERNOFF_REL`)."""
    e0 = Fraction(eps0)
    n_lo, n_hi = _chernoff_enclosure(k, beta, e0 * z)
    d_lo, d_hi = _chernoff_enclosure(k, beta, e0)
    return n_lo / d_hi, n_hi / d_lo


def fig7_f(eps0: str, z: Fraction, k: int = 20, beta: str = FIG7_BETA) -> float:
    """TR Thm 6's f(z) as a float, for drawing (claims use :func:`fig7_f_certified`)."""
    return float(fig7_f_certified(eps0, z, k, beta)[1])


# ----------------------------------------------------------------------------- drawing
#: What a figure point that cannot be computed raises (a search or certification limit, a
#: parameter outside a bound's domain): the point is left out and the figure says so.
_MISSING = (CertificationError, ValueError, ArithmeticError)


class _Notes:
    """Collects what a drawing could not compute; each part of a figure is computed under
    :meth:`point` / :meth:`series`, so one missing point never aborts the figure."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def _add(self, what: str, exc: BaseException) -> None:
        why = " ".join(str(exc).split()) or type(exc).__name__
        self.lines.append(f"{what}: not drawn ({why})")

    def point(self, what: str, fn: Callable[[], float]) -> float:
        """``fn()``, or NaN (a gap in the line) with a note when it cannot be computed or is
        infinite (no finite value exists)."""
        try:
            v = float(fn())
        except _MISSING as exc:
            self._add(what, exc)
            return math.nan
        if math.isinf(v):
            self.lines.append(f"{what}: not drawn (no finite value: no ε reaches the target)")
            return math.nan
        return v

    def series(self, what: str, fn: Callable[[], object]) -> bool:
        """Run ``fn()`` (which plots one series); False with a note if it cannot be computed."""
        try:
            fn()
        except _MISSING as exc:
            self._add(what, exc)
            return False
        return True


def _boundary_top(k: int, beta: str) -> float:
    return beta_gt_delta_boundary(k, beta)[1]


def draw(name: str, outdir: Path) -> Path:
    """Draw one figure (``fig2`` … ``fig7``) as PNG into ``outdir``; returns the path.

    Points or series that cannot be computed are left out and listed on the figure itself
    (:func:`draw_with_notes` also returns the list)."""
    return draw_with_notes(name, outdir)[0]


def draw_with_notes(name: str, outdir: Path) -> tuple[Path, list[str]]:
    """:func:`draw`, plus one line for every point or series left out (empty when the figure
    is complete).  A figure is drawn with whatever data can be computed; it never raises for
    a missing point (CP Fig. 6 at β = 0.4, k = 10, 15: no ε brings the exact δ to 10⁻⁶)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if name not in FIGURES:
        raise ParameterError(f"unknown figure {name!r}; one of {FIGURES}")
    notes = _Notes()
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]

    def line(k: int, beta: str, label: str, c: str, measure: BoundLike = "paper", ls: str = "-") -> None:
        def plot() -> None:
            xs, ys = zip(*curve(k, beta, measure))
            ax.semilogy(xs, [1 / y for y in ys], color=c, ls=ls, label=label)
        notes.series(label, plot)

    def pair(k: int, beta: str, label: str, c: str) -> None:
        line(k, beta, f"{label}: paper d", c)
        line(k, beta, f"{label}: exact δ", c, "hockey-stick", "--")

    try:
        if name == "fig2":
            for i, k in enumerate(FIG2_KS):
                pair(k, "0.2", f"k={k}", colors[i])
            ax.set_title("CP Fig. 2: 1/δ vs ε, β = 0.2")
        elif name == "fig3":
            for i, b in enumerate(FIG3_BETAS):
                pair(20, b, f"β={b}", colors[i])
            ax.set_title("CP Fig. 3: 1/δ vs ε, k = 20")
        elif name == "fig4":
            pair(FIG4_START[0], FIG4_START[1], f"k={FIG4_START[0]}, β={FIG4_START[1]}", colors[0])
            for i, b in enumerate(FIG4_BETAS, 1):
                def matched(b: str = b, c: str = colors[i]) -> None:
                    k, _ = fig4_matching_k(b)
                    line(k, b, f"k={k} ({FIG4_DEFAULT_CRITERION}), β={b}", c)
                notes.series(f"matching k for β={b}", matched)
                line(FIG4_PRINTED[b], b, f"k={FIG4_PRINTED[b]} (paper), β={b}", colors[i], ls=":")
            ax.set_title("CP Fig. 4: doubling β, matching k (paper d)")
        elif name == "fig5":
            for i, k in enumerate(range(1, 6)):
                pair(k, FIG5_BETA, f"k={k}", colors[i])
            ax.axhline(1 / 0.025, color="grey", lw=0.8)
            ax.set_title("CP Fig. 5: small k, β = 0.025 (grey: 1/β)")
        elif name == "fig6":
            for i, b in enumerate(FIG6_BETAS):
                for measure, ls, what in (("paper", "-", "paper d"), ("hockey-stick", "--", "exact δ")):
                    ys = [notes.point(f"β={b}, k={k} ({what})",
                                      partial(min_epsilon, k, b, measure=measure))
                          for k in FIG6_KS]
                    ax.plot(FIG6_KS, ys, color=colors[i], ls=ls, marker="o" if ls == "-" else None,
                            label=f"β={b}: {what}")
            ax.set_xlabel("k")
            ax.set_ylabel("smallest ε with δ ≤ 1e-6")
            ax.set_title("CP Fig. 6: ε needed for δ ≤ 10⁻⁶")
        elif name == "fig-beta-gt-delta":
            bs = [float(b) for b in BETA_GT_DELTA_BETAS]
            ax.plot(bs, [edge(b) for b in BETA_GT_DELTA_BETAS], color="black", lw=1,
                    label="−ln(1−β): Thm 5's regime edge")
            for i, k in enumerate(BETA_GT_DELTA_KS):
                if k == 1:
                    continue  # d(1, β, ε) ≥ β for every ε: the whole regime is in the region
                edge_ys = [notes.point(f"k={k}, β={b}", partial(_boundary_top, k, b))
                           for b in BETA_GT_DELTA_BETAS]
                ax.plot(bs, edge_ys, color=colors[i], marker="o", label=f"k={k}: d ≥ β below this ε")
                ax.fill_between(bs, [edge(b) for b in BETA_GT_DELTA_BETAS], edge_ys, color=colors[i], alpha=0.12)
            ax.set_xlabel("β")
            ax.set_ylabel("ε")
            ax.set_title("CP Thm 5 vs Def 3: where d(k, β, ε) ≥ β (k = 1: everywhere)")
        elif name == "fig7":
            for i, e0 in enumerate(FIG7_EPS0):
                ax.semilogy([float(z) for z in FIG7_Z],
                            [notes.point(f"ε0={e0}, z={z}", partial(fig7_f, e0, z)) for z in FIG7_Z],
                            color=colors[i], label=f"ε0={e0}")
            ax.set_xlabel("z")
            ax.set_ylabel("f(z)")
            ax.set_title(f"TR Fig. 7: smooth bound f(z), k = 20, β = {FIG7_BETA}")
        if name not in ("fig6", "fig7", "fig-beta-gt-delta"):
            ax.set_xlabel("ε")
            ax.set_ylabel("1/δ")
        ax.grid(True, which="major", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6.5, ncol=2)
        if notes.lines:
            shown = notes.lines[:4] + ([f"… and {len(notes.lines) - 4} more"] if len(notes.lines) > 4 else [])
            fig.text(0.01, 0.01, "\n".join(shown), fontsize=5.5, color="firebrick", va="bottom", wrap=True)
            fig.tight_layout(rect=(0, 0.04 + 0.025 * len(shown), 1, 1))
        else:
            fig.tight_layout()
        path = Path(outdir) / f"{name}.png"
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path, notes.lines


FIGURES = ("fig2", "fig3", "fig4", "fig5", "fig6", "fig7", "fig-beta-gt-delta")
