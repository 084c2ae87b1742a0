"""TR Theorem 5 (§6): composition of f-smooth (eps, delta)-DP (TR Def 5, pointwise TR Def 2).

As printed, A2 is "f2-smooth (eps1, delta1)" yet the conclusion uses eps2, delta2, and the
proof's ratio formula has typos.  Provable reading: A1 f1-smooth (eps1, delta1), A2 f2-smooth
(eps2, delta2), independent randomness => (A1; A2) max(f1, f2)-smooth (eps1+eps2, delta1+delta2).
Encoding at a level x >= 1: E1 = e^{x eps1}, E2 = e^{x eps2}; a, b = bad masses.
"""

from __future__ import annotations

import sympy as sp

from dps_verify.paper.kernel.core import Step, Verdict, exists_sym, given, prove_sym
from dps_verify.paper.kernel.statement import Statement

CLAIM = ("(A1; A2) is max(f1, f2)-smooth (eps1 + eps2, delta1 + delta2)-DP (statement corrected "
         "from the printed (eps1, delta1) twice).")
REFERENCE = "TR Thm 5, §6"
EXPECTED = Verdict.PROVED
SUMMARY = ("The corrected statement is proved (independent randomness, no shared sampling); "
           "the printed one is ill-formed (eps2, delta2 unbound) and reads as the special "
           "case eps2 = eps1, delta2 = delta1.")

r1, r2, E1, E2 = sp.symbols("r1 r2 E1 E2", positive=True)
a, bb, d1, d2, f1, f2, F = sp.symbols("a b delta1 delta2 f1 f2 F", real=True)
RD = [E1 >= 1, E2 >= 1, r1 >= 1 / E1, r1 <= E1, r2 >= 1 / E2, r2 <= E2]
#: the conclusion's ratio bound e^{eps1 + eps2} at level x (one definition).
E_TARGET = E1 * E2
MD = [a >= 0, bb >= 0, a < d1 * f1, bb < d2 * f2, d1 >= 0, d2 >= 0, f1 >= 0, f2 >= 0,
      F >= f1, F >= f2]
f1x, f2x, f1y, f2y = sp.symbols("f1x f2x f1y f2y", real=True)
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("hypothesis", "A1, A2 are f_i-smooth (eps_i, delta_i)-DP at level x: ratios "
               "off the bad sets within e^{x eps_i}", *RD)
         + given("hypothesis", "bad-set masses a < delta1 f1, b < delta2 f2; F = max(f1, f2)",
                 *MD, a <= 1, bb <= 1)
         + given("hypothesis", "f1, f2 non-increasing (TR Def 5), at points x <= y",
                 f1x >= f1y, f2x >= f2y))


#: TR Thm 5 as proved (corrected reading), at a level x: the ratios multiply within
#: [1/(E1 E2), E1 E2], the bad masses add up to less than (delta1 + delta2) max(f1, f2), and
#: max(f1, f2) is non-increasing.
STATEMENT = Statement(
    "TR Thm 5, §6",
    "Running an f1-smooth (eps1, delta1)-DP and an f2-smooth (eps2, delta2)-DP algorithm with "
    "independent randomness gives a max(f1, f2)-smooth (eps1 + eps2, delta1 + delta2)-DP pair.",
    reading="the printed statement repeats (eps1, delta1) for A2; read as (eps2, delta2)",
    hypotheses=(E1 >= 1, E2 >= 1, r1 >= 1 / E1, r1 <= E1, r2 >= 1 / E2, r2 <= E2,
                a >= 0, bb >= 0, a < d1 * f1, bb < d2 * f2, d1 >= 0, d2 >= 0, f1 >= 0,
                f2 >= 0, F >= f1, F >= f2, a <= 1, bb <= 1, f1x >= f1y, f2x >= f2y),
    conclusion=sp.And(r1 * r2 <= E1 * E2, r1 * r2 * E1 * E2 >= 1,
                      1 - (1 - a) * (1 - bb) <= a + bb, a + bb < (d1 + d2) * F,
                      sp.Max(f1x, f2x) >= sp.Max(f1y, f2y)))


def steps() -> list[Step]:
    return [
        prove_sym("good x good is good",
                  "Ratios within [1/E1, E1] and [1/E2, E2] multiply to within [1/(E1 E2), E1 E2].",
                  sp.And(r1 * r2 <= E_TARGET, r1 * r2 * E_TARGET >= 1), RD),
        exists_sym("pin: the ratio bound is attained",
                   "r1 = E1 > 1, r2 = E2 gives r1 r2 = e^{eps1 + eps2}: the conclusion cannot "
                   "carry a larger constant.", sp.Eq(r1 * r2, E_TARGET), RD + [E1 > 1, E2 > 1]),
        prove_sym("union bound", "1 - (1 - a)(1 - b) <= a + b < d1 f1 + d2 f2 <= (d1 + d2) max(f1, f2).",
                  sp.And(1 - (1 - a) * (1 - bb) <= a + bb, a + bb < (d1 + d2) * F),
                  MD + [a <= 1, bb <= 1]),
        prove_sym("max(f1, f2) is admissible",
                  "max(f1, f2)(1) = 1 and it is non-increasing when f1, f2 are (at points x <= y).",
                  sp.Ge(sp.Max(f1x, f2x), sp.Max(f1y, f2y)), [f1x >= f1y, f2x >= f2y]),
    ]


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        prove_sym("control: min(f1, f2)", "a + b < (d1 + d2) min(f1, f2).",
                  a + bb < (d1 + d2) * sp.Symbol("Fmin"),
                  MD + [sp.Symbol("Fmin") <= f1, sp.Symbol("Fmin") <= f2], expected=ref),
        prove_sym("control: eps1 * eps2", "Ratios multiply to within E1 + E2 (wrong constant).",
                  r1 * r2 <= E1 + E2, RD, expected=ref),
    ]
