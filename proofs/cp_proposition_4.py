"""CP Proposition 4 (§3.2): no strongly-safe k-anonymization is (eps, delta)-DP for delta < 1.

g is fixed (deterministic, data-independent).  D holds n > k tuples mapped to g(t) (t among
them), D' = D_-t holds n - 1 >= k; Apply keeps a class iff its count is >= k.  The proof's event
is O = {A(D)}: A is deterministic, so Pr[A(D) in O] = 1, and A(D') lands in O only if it
publishes the same count of g(t) -- it publishes n - 1, not n -- so Pr[A(D') in O] = 0, and
1 <= e^eps * 0 + delta fails for every delta < 1.
"""

from __future__ import annotations

import sympy as sp

from dps_verify.paper.kernel.core import Step, Verdict, given, prove_sym
from dps_verify.paper.kernel.statement import Statement, formulas_of

CLAIM = "A strongly-safe k-anonymizer violates (eps, delta)-DP for every eps and delta < 1."
REFERENCE = "CP Prop 4, §3.2"
EXPECTED = Verdict.PROVED
SUMMARY = ("Proved for a deterministic data-independent g (the paper's setting): the published "
           "count of g(t)'s class (suppressed below k) is n under D and n - 1 under D_-t, so the "
           "event O = {A(D)} has probability 1 vs 0 and CP Def 2 fails there for every eps and "
           "delta < 1.  A randomised but data-independent g is not covered by the printed proof.")

n, k = sp.symbols("n k", integer=True)
E, d = sp.symbols("E delta", real=True)
c = sp.Symbol("c", integer=True)  # a class size
#: pub(c): the count of g(t) that Apply publishes when its class has c records (c if c >= k,
#: else the class is suppressed: 0).
pub = sp.Function("pub")
#: P1 = Pr[A(D) in O], P0 = Pr[A(D') in O] for the event O = {A(D)}.
P1, P0 = sp.symbols("P1 P0", real=True)

PUB_DEF = [sp.Implies(c >= k, sp.Eq(pub(c), c)), sp.Implies(c < k, sp.Eq(pub(c), 0))]
#: A is deterministic and D, D' differ only in g(t)'s class: A(D') is in O = {A(D)} iff it
#: publishes the same count of g(t).
EVENT_DEF = [sp.Eq(P1, 1), sp.Implies(sp.Eq(pub(n - 1), pub(n)), sp.Eq(P0, 1)),
             sp.Implies(sp.Ne(pub(n - 1), pub(n)), sp.Eq(P0, 0))]
#: the proposition's parameter region, and CP Def 2 failing at O (one definition).
REGION = [E >= 1, d >= 0, d < 1]
BROKEN = P1 > E * P0 + d
#: what the proposition takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "the proof's choice: k >= 1 and n > k copies of g(t) in D", k >= 1, n > k)
         + given("setting", "e^eps >= 1, delta >= 0 (any DP parameters)", E >= 1, d >= 0)
         + given("hypothesis", "the (eps, delta)-DP region the proposition speaks of: "
                 "e^eps >= 1, 0 <= delta < 1", *REGION)
         + given("definition", "strongly-safe k-anonymization (CP Def 5, Apply): a class of c "
                 "records is published with its c records if c >= k, suppressed (0) otherwise",
                 *PUB_DEF, over=(c,))
         + given("definition", "the event O = {A(D)}: A is deterministic, so Pr[A(D) in O] = 1, "
                 "and Pr[A(D') in O] is 1 if A(D') publishes the same count of g(t), else 0",
                 *EVENT_DEF))


#: CP Prop 4 as proved: with n > k >= 1 copies of g(t) in D, the event O = {A(D)} violates
#: CP Def 2 for every e^eps >= 1 and 0 <= delta < 1: Pr[A(D) in O] > e^eps Pr[A(D') in O] + delta.
STATEMENT = Statement(
    "CP Prop 4, §3.2",
    "A strongly-safe k-anonymization (deterministic, data-independent recoding) is not "
    "(eps, delta)-DP for any eps and any delta < 1: for D with n > k records in g(t)'s class and "
    "D' = D_-t, the event O = {A(D)} has Pr[A(D) in O] > e^eps Pr[A(D') in O] + delta.",
    hypotheses=(k >= 1, n > k, E >= 1, d >= 0, d < 1),
    definitions=formulas_of(GIVEN, "definition"),
    conclusion=P1 > E * P0 + d)


def steps() -> list[Step]:
    return [
        prove_sym("the class is published from both datasets",
                  "n > k >= 1: g(t)'s class has n >= k records in D and n - 1 >= k in D', so "
                  "Apply publishes n and n - 1 copies.",
                  sp.And(sp.Eq(pub(n), n), sp.Eq(pub(n - 1), n - 1)),
                  [k >= 1, n > k, *[f.xreplace({c: n}) for f in PUB_DEF],
                   *[f.xreplace({c: n - 1}) for f in PUB_DEF]]),
        prove_sym("A(D') misses the event O = {A(D)}",
                  "The published counts n and n - 1 differ, so Pr[A(D') in O] = 0.",
                  sp.Eq(P0, 0), [sp.Eq(pub(n), n), sp.Eq(pub(n - 1), n - 1), *EVENT_DEF[1:]]),
        prove_sym("the event O breaks (eps, delta)-DP",
                  "Pr[A(D) in O] = 1 > e^eps * 0 + delta for every e^eps >= 1 and delta < 1.",
                  BROKEN, [EVENT_DEF[0], sp.Eq(P0, 0), *REGION]),
        prove_sym("pin: delta < 1 is exactly the region",
                  "Outside the region (delta >= 1) the same event no longer breaks "
                  "(eps, delta)-DP, so the proof assumes nothing stronger than the paper.",
                  sp.Not(BROKEN), [EVENT_DEF[0], sp.Eq(P0, 0), E >= 1, d >= 0],
                  premises=[sp.Not(sp.And(*REGION))]),
    ]


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        prove_sym("control: n <= k",
                  "With n <= k the class is suppressed under D' (and under D when n < k): the "
                  "outputs may agree, so the event need not break (eps, delta)-DP.", BROKEN,
                  [k >= 1, n <= k, n >= 1, *[f.xreplace({c: n}) for f in PUB_DEF],
                   *[f.xreplace({c: n - 1}) for f in PUB_DEF], *EVENT_DEF, *REGION],
                  expected=ref),
        prove_sym("control: delta = 1", "The same event also breaks (eps, 1)-DP.",
                  BROKEN, [EVENT_DEF[0], sp.Eq(P0, 0), E >= 1, sp.Eq(d, 1)], expected=ref),
    ]
