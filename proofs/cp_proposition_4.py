"""CP Proposition 4 (§3.2): no strongly-safe k-anonymization is (eps, delta)-DP for delta < 1.

g is fixed (deterministic, data-independent).  D holds n > k tuples mapped to g(t) (t among
them), D' = D_-t holds n - 1 >= k; Apply keeps a class iff its count is >= k.
"""

from __future__ import annotations

import sympy as sp

from dps_verify.paper.kernel.core import Step, Verdict, given, prove_sym
from dps_verify.paper.kernel.statement import Statement

CLAIM = "A strongly-safe k-anonymizer violates (eps, delta)-DP for every eps and delta < 1."
REFERENCE = "CP Prop 4, §3.2"
EXPECTED = Verdict.PROVED
SUMMARY = ("Proved for a deterministic data-independent g (the paper's setting); a randomised "
           "but data-independent g is not covered by the printed proof.")

n, k = sp.symbols("n k", integer=True)
E, d = sp.symbols("E delta", real=True)


#: the proposition's parameter region and the inequality that fails there (one definition).
REGION = [E >= 1, d >= 0, d < 1]
BROKEN = sp.Not(1 <= E * 0 + d)
#: what the proposition takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "the proof's choice: k >= 1 and n > k copies of g(t) in D", k >= 1, n > k)
         + given("setting", "e^eps >= 1, delta >= 0 (any DP parameters)", E >= 1, d >= 0)
         + given("hypothesis", "the (eps, delta)-DP region the proposition speaks of: "
                 "e^eps >= 1, 0 <= delta < 1", *REGION))


#: CP Prop 4 as proved: with n > k >= 1 copies of g(t) in D the class is published with n
#: copies from D and n - 1 from D_-t, so the event {A(D)} has probability 1 vs 0, and
#: 1 <= e^eps * 0 + delta fails for every delta < 1.
STATEMENT = Statement(
    "CP Prop 4, §3.2",
    "A strongly-safe k-anonymization (deterministic, data-independent recoding) is not "
    "(eps, delta)-DP for any eps and any delta < 1.",
    hypotheses=(k >= 1, n > k, E >= 1, d >= 0, d < 1),
    conclusion=sp.And(n >= k, n - 1 >= k, sp.Ne(n, n - 1), sp.Not(1 <= E * 0 + d)))


def steps() -> list[Step]:
    return [
        prove_sym("class sizes differ after suppression",
                  "n > k >= 1: the g(t) class is kept in both outputs, with n vs n - 1 copies.",
                  sp.And(n >= k, n - 1 >= k, sp.Ne(n, n - 1)), [k >= 1, n > k]),
        prove_sym("probability-one event breaks (eps, delta)",
                  "O = {A(D)}: Pr[A(D) in O] = 1, Pr[A(D') in O] = 0, and 1 <= E*0 + delta "
                  "fails for every E >= 1 and delta < 1.",
                  BROKEN, REGION),
        prove_sym("pin: delta < 1 is exactly the region",
                  "Outside the region (delta >= 1) the same event no longer breaks "
                  "(eps, delta)-DP, so the proof assumes nothing stronger than the paper.",
                  sp.Not(BROKEN), [E >= 1, d >= 0], premises=[sp.Not(sp.And(*REGION))]),
    ]


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        prove_sym("control: n < k", "With n < k both outputs suppress the class, so they differ.",
                  sp.Ne(_min0(n), _min0(n - 1)), [k >= 1, n < k, n >= 1], expected=ref),
        prove_sym("control: delta = 1", "The same event also breaks (eps, 1)-DP.",
                  sp.Not(1 <= E * 0 + d), [E >= 1, sp.Eq(d, 1)], expected=ref),
    ]


def _min0(c: sp.Expr) -> sp.Expr:
    """Kept count when c < k (the class is suppressed): always 0; written as 0*c."""
    return 0 * c
