"""Finite encodings shared by the (beta, eps, delta)-DPS closure proofs (CP Thm 2, Thm 3,
TR Def 2, CP Thm 6): probability vectors over an output space of size m as z3 reals, the
hockey-stick condition (CP Def 2) over every subset O, and the pointwise condition (TR Def 2).
"""

from __future__ import annotations

from itertools import product

import z3

Vec = list[z3.ArithRef]


def prob_vector(name: str, m: int) -> tuple[Vec, list[z3.BoolRef]]:
    """m symbolic probabilities with their simplex constraints."""
    v = [z3.Real(f"{name}{i}") for i in range(m)]
    return v, [x >= 0 for x in v] + [z3.Sum(v) == 1]


def subsets(m: int) -> list[tuple[int, ...]]:
    return [tuple(bits) for bits in product((0, 1), repeat=m)]


def mass(v: Vec, bits: tuple[int, ...]) -> z3.ArithRef:
    terms = [x for x, b in zip(v, bits) if b]
    return z3.Sum(terms) if terms else z3.RealVal(0)


def hockey(p: Vec, q: Vec, e: z3.ArithRef, d: z3.ArithRef) -> list[z3.BoolRef]:
    """CP Def 2 for one ordered pair, every O: p(O) <= e q(O) + d."""
    return [mass(p, o) <= e * mass(q, o) + d for o in subsets(len(p))]


def hockey_both(p: Vec, q: Vec, e: z3.ArithRef, d: z3.ArithRef) -> list[z3.BoolRef]:
    return hockey(p, q, e, d) + hockey(q, p, e, d)


def pointwise(p: Vec, q: Vec, e: z3.ArithRef, d: z3.ArithRef, tag: str) -> list[z3.BoolRef]:
    """TR Def 2 (weakened to "some set B with mass < d under both contains every output whose
    ratio leaves [1/e, e]"), which every pointwise-(eps, delta) pair satisfies."""
    bad = [z3.Bool(f"bad_{tag}{i}") for i in range(len(p))]
    cons = [z3.Or(bi, z3.And(pi <= e * qi, qi <= e * pi)) for bi, pi, qi in zip(bad, p, q)]
    cons.append(z3.Sum([z3.If(bi, pi, 0) for bi, pi in zip(bad, p)]) < d)
    cons.append(z3.Sum([z3.If(bi, qi, 0) for bi, qi in zip(bad, q)]) < d)
    return cons
