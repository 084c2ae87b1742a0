"""What a plan buys on a table: the expected number of published records, exactly.

Sample each record independently with probability β (CP Def 3), then publish the sampled records
of every recoding group with at least k sampled members (strongly-safe k-anonymization, CP §3.2,
with a fixed recoding).  A group of n records has X ~ Bin(n, β) sampled members and publishes
X·1{X ≥ k} records, so

    E[published] = Σ_g E[X_g · 1{X_g ≥ k}],   X_g ~ Bin(n_g, β),

and E[X·1{X ≥ k}] = n·β·P(Bin(n − 1, β) ≥ k − 1) (the identity j·C(n, j) = n·C(n−1, j−1)).  With
β = p/q this is computed with integers only (GMP via gmpy2): the result is an exact rational.
Only the group sizes matter, so groups are handled per distinct size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction

import gmpy2

from dps_verify.core.errors import BudgetError, ParameterError

#: Largest integer (in bits) the exact computation may build: q^(largest group) for β = p/q.
MAX_EXACT_BITS = 1 << 28


def check_exact_budget(histogram: Mapping[int, int], betas: Iterable[Fraction]) -> None:
    """Refuse, before any work, an exact computation whose integers would pass
    :data:`MAX_EXACT_BITS` (about 33 MB each): the largest group size times the bits of β's
    denominator."""
    top = max((n for n, c in histogram.items() if c > 0), default=0)
    for b in betas:
        bits = top * b.denominator.bit_length()
        if bits > MAX_EXACT_BITS:
            raise BudgetError(
                f"exact expected published records: a group of {top} records at beta = {float(b):.6g} "
                f"(denominator of {b.denominator.bit_length()} bits) needs integers of ~{bits:.3g} bits, past "
                f"the budget of {MAX_EXACT_BITS} bits; give a beta with a shorter denominator "
                "(--beta 0.63 instead of edge) or a recoding with smaller groups")


def _tail_numerators(n: int, p: int, q: int, ks: Iterable[int]) -> dict[int, gmpy2.mpz]:
    """For each k: Σ_{j ≥ k−1} C(n−1, j) p^j (q−p)^(n−1−j), the numerator of
    P(Bin(n−1, p/q) ≥ k−1) over q^(n−1)."""
    ks = sorted(set(ks))
    m = n - 1
    total = gmpy2.mpz(q) ** m
    out: dict[int, gmpy2.mpz] = {}
    below = gmpy2.mpz(0)  # Σ_{j < k−1}
    r = gmpy2.mpz(q - p)
    term = r ** m  # j = 0
    j = 0
    for k in ks:
        while j < k - 1 and j <= m:
            below += term
            term = term * (m - j) * p // ((j + 1) * r) if r != 0 else gmpy2.mpz(0)
            j += 1
        out[k] = total - below if k - 1 <= m else gmpy2.mpz(0)
    return out


def reduced_fraction(v: gmpy2.mpq) -> Fraction:
    """A :class:`Fraction` equal to the GMP rational ``v``, which GMP has already reduced.

    ``Fraction(n, d)`` would reduce again with :func:`math.gcd`, which takes seconds on the
    hundreds of thousands of bits a big group's q^n has; the reduced pair is installed directly
    (the two slots CPython's :class:`Fraction` keeps), and the constructor is used otherwise."""
    n, d = int(v.numerator), int(v.denominator)
    f = Fraction.__new__(Fraction)
    try:
        f._numerator = n  # type: ignore[attr-defined]
        f._denominator = d  # type: ignore[attr-defined]
    except AttributeError:  # pragma: no cover - another Python implementation
        return Fraction(n, d)
    if f.numerator != n or f.denominator != d:  # pragma: no cover
        return Fraction(n, d)
    return f


def expected_published_mpq(histogram: Mapping[int, int], beta: Fraction,
                           ks: Iterable[int]) -> dict[int, gmpy2.mpq]:
    """Exact E[published records] for each k in ``ks`` as GMP rationals; ``histogram`` maps a
    group size n to the number of groups of that size."""
    if not 0 < beta < 1:
        raise ParameterError(f"beta must satisfy 0 < beta < 1 (CP Def 3), got {beta}")
    kl = sorted(set(int(k) for k in ks))
    if any(k < 1 for k in kl):
        raise ParameterError("k must be >= 1 (CP §3.2)")
    check_exact_budget(histogram, [beta])
    p, q = beta.numerator, beta.denominator
    qz = gmpy2.mpz(q)
    sizes = sorted(n for n, c in histogram.items() if c > 0 and n >= 1)
    # E = Σ_n c_n·n·p·tail_n / q^n = (Σ_n c_n·n·p·tail_n·q^(top−n)) / q^top, the numerator by
    # Horner's rule over increasing n (each step multiplies by the small q^(n − previous n)).
    acc = {k: gmpy2.mpz(0) for k in kl}
    prev = 0
    for n in sizes:
        step = qz ** (n - prev)
        useful = [k for k in kl if k <= n]  # X ≤ n < k publishes nothing
        tails = _tail_numerators(n, p, q, useful) if useful else {}
        for k in kl:
            acc[k] *= step
            if k in tails:
                acc[k] += histogram[n] * n * p * tails[k]
        prev = n
    den = qz ** prev
    return {k: gmpy2.mpq(acc[k], den) for k in kl}


def expected_published(histogram: Mapping[int, int], beta: Fraction, ks: Iterable[int]) -> dict[int, Fraction]:
    """Exact E[published records] for each k in ``ks`` (see the module docstring)."""
    return {k: reduced_fraction(v) for k, v in expected_published_mpq(histogram, beta, ks).items()}


def expected_published_one(histogram: Mapping[int, int], beta: Fraction, k: int) -> Fraction:
    return expected_published(histogram, beta, [k])[k]


__all__ = ["MAX_EXACT_BITS", "check_exact_budget", "expected_published", "expected_published_mpq", "expected_published_one", "reduced_fraction"]
