"""Randomized anonymizers given by their exact output law (the ``randomized`` marker).

A randomized anonymizer is a function ``sample -> {output: probability}``; the engine computes
the law of "sample at β, then anonymize" (CP Def. 3) from these per-sample laws
(:mod:`dps_verify.engine.count_vectors`).  Kept in its own module so that the count-vector
backend and :func:`dps_verify.engine.distribution.distribution` (which re-exports the name for
users) can both use it without importing each other.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction

from dps_verify.core.numbers import Number, to_fraction


class randomized:  # noqa: N801 - used like a decorator / marker, lower-case by design
    """Mark ``fn(sample) -> {output: probability}`` as a randomized anonymizer.

    Probabilities are read exactly (floats by their shortest decimal form) and must sum to 1.
    """

    def __init__(self, fn: Callable[[tuple], Mapping[Hashable, Number]]):
        self.fn = fn
        self.sufficient_statistic = getattr(fn, "sufficient_statistic", None)
        self.__name__ = getattr(fn, "__name__", "randomized")

    def law(self, sample: tuple) -> dict[Hashable, Fraction]:
        raw = self.fn(sample)
        out: dict[Hashable, Fraction] = {}
        for y, pr in raw.items():
            v = pr if type(pr) is Fraction else to_fraction(pr, "output probability")
            if v.numerator < 0:
                raise ValueError(f"randomized anonymizer gave a negative probability for {y!r}")
            if v.numerator:
                old = out.get(y)
                out[y] = v if old is None else old + v
        # the exact total over one common denominator (integers, not a chain of Fractions)
        lcd = math.lcm(*(v.denominator for v in out.values())) if out else 1
        total = sum(v.numerator * (lcd // v.denominator) for v in out.values())
        if total != lcd:
            raise ValueError(f"randomized anonymizer's probabilities sum to "
                             f"{Fraction(total, lcd)}, not 1")
        return out


__all__ = ["randomized"]
