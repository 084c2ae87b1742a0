"""TR Theorem 3 (§5) and Corollary 4: amplification for (beta, eps)-UDP, delta = 0,
pointwise (ratio) form.  E = e^eps, Z/X = (1 - b) + b Y/X with e^-eps <= Y/X <= e^eps.
"""

from __future__ import annotations

import sympy as sp

from dps_verify.paper.proofs.core import Step, Verdict, given, prove_sym, sympy_step

CLAIM = "(beta1, eps)-UDP implies (beta2, ln(1 + beta2/beta1 (e^eps - 1)))-UDP; Cor 4 for eps-DP."
REFERENCE = "TR Thm 3 and Cor 4, §5"
EXPECTED = Verdict.PROVED
SUMMARY = ("Ratio bounds and the max() simplification are proved; Cor 4 is the case beta1 = 1. "
           "TR leaves delta > 0 open; CP Thm 1 (cp-theorem-1) settles it in hockey-stick form.")

b, E, r = sp.symbols("beta E r", real=True)
DOM = [b > 0, b < 1, E >= 1, r >= 1 / E, r <= E]
RATIO = (1 - b) + b * r  # Z/X
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "0 < beta2/beta1 < 1, e^eps >= 1", *DOM[:3])
         + given("hypothesis", "(beta1, eps)-UDP: the ratio r = Y/X lies in [e^-eps, e^eps]",
                 *DOM[3:]))


def steps() -> list[Step]:
    return [
        prove_sym("upper ratio", "Z/X <= 1 + b(E - 1).", RATIO <= 1 + b * (E - 1), DOM),
        prove_sym("lower ratio", "Z/X >= 1 - b(1 - 1/E).", RATIO >= 1 - b * (1 - 1 / E), DOM),
        prove_sym("max() is the first term",
                  "1 + b(E - 1) >= 1/(1 - b(1 - 1/E)), so eps' = ln(1 + b(e^eps - 1)).",
                  1 + b * (E - 1) >= 1 / (1 - b * (1 - 1 / E)), DOM[:3]),
        prove_sym("two-sided bound", "1/(1 + b(E-1)) <= Z/X <= 1 + b(E-1).",
                  sp.And(RATIO <= 1 + b * (E - 1), RATIO * (1 + b * (E - 1)) >= 1), DOM),
        sympy_step("Cor 4 equivalent form", "(e^eps' - 1)/(e^eps - 1) = beta.",
                   ((1 + b * (E - 1)) - 1) / (E - 1), b),
    ]


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        prove_sym("control: factor b dropped", "Z/X <= 1 + b(E - 1)/2.",
                  RATIO <= 1 + b * (E - 1) / 2, DOM, expected=ref),
        prove_sym("control: max() picks the second term",
                  "1 + b(E - 1) < 1/(1 - b(1 - 1/E)).",
                  1 + b * (E - 1) < 1 / (1 - b * (1 - 1 / E)), DOM[:3], expected=ref),
    ]
