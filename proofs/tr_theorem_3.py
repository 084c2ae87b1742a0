"""TR Theorem 3 (§5) and Corollary 4: amplification for (beta, eps)-UDP, delta = 0,
pointwise (ratio) form.  E = e^eps, Z/X = (1 - b) + b Y/X with e^-eps <= Y/X <= e^eps.
"""

from __future__ import annotations

import sympy as sp

from dps_verify.paper.kernel.core import Step, Verdict, exists_sym, given, prove_sym, sympy_step
from dps_verify.paper.kernel.selftest import kernel_controls
from dps_verify.paper.kernel.statement import Statement

CLAIM = "(beta1, eps)-UDP implies (beta2, ln(1 + beta2/beta1 (e^eps - 1)))-UDP; Cor 4 for eps-DP."
REFERENCE = "TR Thm 3 and Cor 4, §5"
EXPECTED = Verdict.PROVED
SUMMARY = ("Ratio bounds and the max() simplification are proved; Cor 4 is the case beta1 = 1. "
           "TR leaves delta > 0 open; CP Thm 1 (cp-theorem-1) settles it in hockey-stick form.")

b, E, r = sp.symbols("beta E r", real=True)
DOM = [b > 0, b < 1, E >= 1, r >= 1 / E, r <= E]
RATIO = (1 - b) + b * r  # Z/X
#: the conclusion's two ratio bounds (one definition for the steps, pins and controls).
UPPER = 1 + b * (E - 1)  # e^{eps'}
LOWER = 1 - b * (1 - 1 / E)
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "0 < beta2/beta1 < 1, e^eps >= 1", *DOM[:3])
         + given("hypothesis", "(beta1, eps)-UDP: the ratio r = Y/X lies in [e^-eps, e^eps]",
                 *DOM[3:]))


#: TR Thm 3 as proved: the probability ratio Z/X = (1 - b) + b r of the beta2-sampled algorithm
#: lies within [1/(1 + b(E - 1)), 1 + b(E - 1)] when the beta1-sampled ratio r lies in [1/E, E].
STATEMENT = Statement(
    "TR Thm 3 and Cor 4, §5",
    "Sampling at rate beta2 < beta1 turns (beta1, eps)-UDP into (beta2, eps')-UDP with "
    "e^eps' = 1 + (beta2/beta1)(e^eps - 1) (pointwise ratio form, delta = 0).",
    hypotheses=(b > 0, b < 1, E >= 1, r >= 1 / E, r <= E),
    conclusion=sp.And((1 - b) + b * r <= 1 + b * (E - 1),
                      ((1 - b) + b * r) * (1 + b * (E - 1)) >= 1))


def steps() -> list[Step]:
    return [
        prove_sym("upper ratio", "Z/X <= 1 + b(E - 1).", RATIO <= UPPER, DOM),
        exists_sym("pin: the upper ratio is attained",
                   "r = E > 1 gives Z/X = 1 + b(E - 1): e^eps' cannot be lowered.",
                   sp.Eq(RATIO, UPPER), DOM + [E > 1]),
        prove_sym("lower ratio", "Z/X >= 1 - b(1 - 1/E).", RATIO >= LOWER, DOM),
        exists_sym("pin: the lower ratio is attained",
                   "r = 1/E < 1 gives Z/X = 1 - b(1 - 1/E): the lower bound cannot be raised.",
                   sp.Eq(RATIO, LOWER), DOM + [E > 1]),
        prove_sym("max() is the first term",
                  "1 + b(E - 1) >= 1/(1 - b(1 - 1/E)), so eps' = ln(1 + b(e^eps - 1)).",
                  UPPER >= 1 / LOWER, DOM[:3]),
        prove_sym("two-sided bound", "1/(1 + b(E-1)) <= Z/X <= 1 + b(E-1).",
                  sp.And(RATIO <= UPPER, RATIO * UPPER >= 1), DOM),
        sympy_step("Cor 4 equivalent form (eps > 0)",
                   "(e^eps' - 1)/(e^eps - 1) = beta for eps > 0, written e^eps = 1 + w with "
                   "w > 0 (at eps = 0 both e^eps' - 1 and e^eps - 1 vanish: the ratio is 0/0 "
                   "and Cor 4's form says nothing there).", cor4_ratio(W), b),
    ]


#: e^eps - 1 > 0, the Cor 4 form's denominator when eps > 0.
W = sp.Symbol("w", positive=True)


def cor4_ratio(em1: sp.Expr) -> sp.Expr:
    """(e^eps' - 1)/(e^eps - 1) with e^eps' = 1 + b(e^eps - 1) and ``em1`` = e^eps - 1, as
    written (unevaluated: the pole at e^eps = 1 stays visible to the sympy back end's domain
    check instead of being cancelled on construction)."""
    with sp.evaluate(False):
        return ((1 + b * em1) - 1) / em1


def negative_controls() -> list[Step]:
    """The theorem's controls, then one control per kernel guard (run here, the cheapest
    theorem: see :mod:`dps_verify.paper.kernel.selftest`)."""
    ref = Verdict.REFUTED
    return [*_controls(ref), *kernel_controls()]


def _controls(ref: Verdict) -> list[Step]:
    return [
        prove_sym("control: factor b dropped", "Z/X <= 1 + b(E - 1)/2.",
                  RATIO <= 1 + b * (E - 1) / 2, DOM, expected=ref),
        exists_sym("control: pin of a weakened conclusion (1 + 2b(E - 1))",
                   "The upper pin against Z/X <= 1 + 2b(E - 1): never attained, so the pin "
                   "must fail.", sp.Eq(RATIO, 1 + 2 * b * (E - 1)), DOM + [E > 1],
                   expected=ref),
        exists_sym("control: pin under a strengthened hypothesis (r <= (1 + E)/2)",
                   "With the UDP ratio bound strengthened to r <= (1 + E)/2 the upper pin must "
                   "fail.", sp.Eq(RATIO, UPPER), DOM + [r <= (1 + E) / 2, E > 1], expected=ref),
        sympy_step("control: Cor 4 form at eps >= 0 (pole at eps = 0)",
                   "(e^eps' - 1)/(e^eps - 1) = beta for every E >= 1: undefined at E = 1, so the "
                   "identity must not be certified (the domain check sees the expression as "
                   "written, before sympy cancels (E - 1)/(E - 1)).",
                   cor4_ratio(E - 1), b, expected=Verdict.OPEN),
        prove_sym("control: max() picks the second term",
                  "1 + b(E - 1) < 1/(1 - b(1 - 1/E)).",
                  1 + b * (E - 1) < 1 / (1 - b * (1 - 1 / E)), DOM[:3], expected=ref),
    ]
