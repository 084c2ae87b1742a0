"""The encodings' definitions agree with the engine's own implementation on random instances, so
an encoding cannot drift from what the rest of dps-verify computes (CP = ASIACCS 2012).

Each check evaluates the formula the encoding states (its closed form, its defining inequalities)
and compares it with the engine (engine.distribution, measures.divergence, core.binomial,
worstcase.sdgs, worstcase.closed_forms); each has a negative control: a wrong variant of the
definition must disagree.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import mpmath as mp
import sympy as sp
from dps_verify_proofs import cp_theorem_1 as c1
from dps_verify_proofs import cp_theorem_5 as c5
from dps_verify_proofs import engine_checks

from dps_verify.core.binomial import pmf, upper_tail
from dps_verify.engine.distribution import distribution
from dps_verify.worstcase.closed_forms import d_certified
from dps_verify.worstcase.sdgs import n_min

RNG = random.Random(20120502)


def _sampling_law_matches(closed: list) -> bool:
    """CP Thm 1's closed forms pX (D_-t), p0 (D, t not kept), p1 (D, t kept) at every sample of
    m records against the engine's exact law of 'sample, then output the sample'."""
    for _ in range(6):
        m = RNG.randint(0, 4)
        b = Fraction(RNG.randint(1, 9), 10)
        rest = tuple(f"r{i}" for i in range(m))
        law_minus = distribution(lambda s: tuple(sorted(s)), rest, b).exact
        law_full = distribution(lambda s: tuple(sorted(s)), ("t",) + rest, b).exact
        for keep in product((0, 1), repeat=m):
            sample = tuple(sorted(r for r, k in zip(rest, keep) if k))
            sub = {c1.b: sp.Rational(b.numerator, b.denominator), c1.m: m,
                   c1.size(c1.i_): sum(keep)}
            px, p0, p1 = (sp.Rational(eq.rhs.xreplace(sub)) for eq in closed)
            with_t = tuple(sorted(("t",) + sample))
            if (px, p0, p1) != (law_minus[sample], law_full[sample], law_full[with_t]):
                return False
    return True


def test_cp1_sampling_law_is_the_engines():
    assert _sampling_law_matches(c1.CLOSED)
    wrong = [c1.CLOSED[0], c1.CLOSED[1], sp.Eq(c1.CLOSED[2].lhs, c1.CLOSED[2].rhs / c1.b)]
    assert not _sampling_law_matches(wrong)  # negative control: t kept without its factor


def _pmf_matches(closed: sp.Eq) -> bool:
    for _ in range(20):
        mm = RNG.randint(0, 12)
        x = RNG.randint(0, mm)
        b = Fraction(RNG.randint(1, 9), 10)
        got = closed.rhs.xreplace({c5.m: mm, c5.x: x, c5.b: sp.Rational(b.numerator, b.denominator)})
        if sp.Rational(got) != pmf(x, mm, b):
            return False
    return True


def test_cp5_binomial_pmf_is_the_cores():
    assert _pmf_matches(c5.F_CLOSED)
    assert not _pmf_matches(sp.Eq(c5.F_CLOSED.lhs, c5.F_CLOSED.rhs * (1 - c5.b)))


def _gamma(beta: Fraction, eps: Fraction) -> mp.mpf:
    e = mp.e ** (mp.mpf(eps.numerator) / eps.denominator)
    return (e - 1 + mp.mpf(beta.numerator) / beta.denominator) / e


def _nm_inequalities_hold(k: int, beta: Fraction, eps: Fraction, nm: int) -> bool:
    """The encodings' definition of n_m: gamma n_m < k <= gamma (n_m + 1)."""
    with mp.workdps(60):
        g = _gamma(beta, eps)
        return bool(g * nm < k <= g * (nm + 1))


def test_n_m_definition_is_worstcase_n_min():
    for _ in range(25):
        k = RNG.randint(1, 30)
        beta = Fraction(RNG.randint(1, 9), 10)
        eps = Fraction(RNG.randint(1, 40), 10)
        if (1 - beta) * mp.e ** float(eps) < 1:  # outside CP Thm 5's regime
            continue
        nm = n_min(k, beta, eps)
        assert _nm_inequalities_hold(k, beta, eps, nm), (k, beta, eps, nm)
        assert not _nm_inequalities_hold(k, beta, eps, nm + 1)  # control: off by one


def test_d_is_at_least_each_term_the_encoding_defines():
    """d's defining property in the encodings (sup_d: d >= P[Bin(n, beta) > gamma n] for every
    n >= n_m) against the certified d of worstcase.closed_forms; and d is one of the terms
    (attained), so a d below the max would fail."""
    for k, beta, eps in ((3, Fraction(1, 2), Fraction(1)), (5, Fraction(1, 4), Fraction(1, 2)),
                         (2, Fraction(1, 10), Fraction(3, 10))):
        d = d_certified(k, beta, eps)
        nm = n_min(k, beta, eps)
        with mp.workdps(60):
            g = _gamma(beta, eps)
            terms = [upper_tail(int(mp.floor(g * n)) + 1, n, beta) for n in range(nm, nm + 40)]
        assert all(t <= d.upper for t in terms)
        assert max(terms) >= d.lower  # the sup is attained within the scanned range here
        assert not all(t <= d.lower / 2 for t in terms)  # control: half of d is too small


def test_divergences_are_the_engines():
    assert engine_checks.hockey_as_sum()[0]
    assert engine_checks.pointwise_vs_engine()[0]
    assert engine_checks.sampling_law()[0]
    assert engine_checks.other_groups()[0]
    assert engine_checks.binomial_pmf()[0]
    assert engine_checks.sdgs_within_d()[0]
