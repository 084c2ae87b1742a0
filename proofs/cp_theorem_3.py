"""CP Theorem 3 (§2.5): a coin-flip mixture of two (beta, eps, delta)-DPS algorithms is
(beta, eps, delta)-DPS.

The coin is independent of the sample, so A_p^beta = p A1^beta + (1 - p) A2^beta on every
event; finite encoding: output spaces of size m = 2..4, all subsets O.
"""

from __future__ import annotations

import sympy as sp
import z3

from dps_verify.paper.kernel.core import Step, Verdict, exists_sym, given, prove_sym, z3_all
from dps_verify.paper.kernel.finite import hockey_both, prob_vector
from dps_verify.paper.kernel.statement import Statement

CLAIM = "A_p = A1 w.p. p, A2 w.p. 1 - p is (beta, eps, delta)-DPS when A1, A2 are."
REFERENCE = "CP Thm 3, §2.5"
EXPECTED = Verdict.PROVED
SUMMARY = ("Proved per event symbolically (any p, E, delta, any event O) and the bound is "
           "attained; a size-2 output space is a CHECKED-BOUNDED cross-check.  Assumes the "
           "coin is independent of the sample and of D.")


def _instance(m: int, *, same_weight: bool = True) -> list[tuple[z3.BoolRef, list]]:
    e, d, w = z3.Real("E"), z3.Real("delta"), z3.Real("p")
    w2 = w if same_weight else z3.Real("p'")
    a, ca = prob_vector("a", m)
    a2, ca2 = prob_vector("a'", m)
    c, cc = prob_vector("c", m)
    c2, cc2 = prob_vector("c'", m)
    hyp = [e >= 1, d >= 0, w >= 0, w <= 1, w2 >= 0, w2 <= 1, *ca, *ca2, *cc, *cc2,
           *hockey_both(a, a2, e, d), *hockey_both(c, c2, e, d)]
    mix = [w * x + (1 - w) * y for x, y in zip(a, c)]
    mix2 = [w2 * x + (1 - w2) * y for x, y in zip(a2, c2)]
    return [(goal, hyp) for goal in hockey_both(mix, mix2, e, d)]


p, E, d, a, a2, c, c2 = sp.symbols("p E delta a a' c c'", real=True)
HYPS = [p >= 0, p <= 1, E >= 1, d >= 0, a >= 0, a2 >= 0, c >= 0, c2 >= 0,
        a <= 1, a2 <= 1, c <= 1, c2 <= 1, a <= E * a2 + d, c <= E * c2 + d]
#: Pr[A_p^beta(D) in O] and CP Def 2's right-hand side for D' (the conclusion of CP Thm 3).
MIX = p * a + (1 - p) * c
TARGET = E * (p * a2 + (1 - p) * c2) + d
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "coin weight p in [0, 1], e^eps >= 1, delta >= 0, probabilities "
               "in [0, 1]", *HYPS[:12])
         + given("hypothesis", "A1 and A2 are (beta, eps, delta)-DPS (CP Def 2 at the event O)",
                 *HYPS[12:]))


#: CP Thm 3 as proved, for one event O (both directions are this formula with D, D' exchanged).
STATEMENT = Statement(
    "CP Thm 3, §2.5",
    "Flipping an independent coin of weight p between two (beta, eps, delta)-DPS algorithms "
    "gives a (beta, eps, delta)-DPS algorithm: CP Def 2 for the mixture at every event O.",
    hypotheses=(p >= 0, p <= 1, E >= 1, d >= 0, a >= 0, a2 >= 0, c >= 0, c2 >= 0,
                a <= 1, a2 <= 1, c <= 1, c2 <= 1, a <= E * a2 + d, c <= E * c2 + d),
    conclusion=p * a + (1 - p) * c <= E * (p * a2 + (1 - p) * c2) + d)


#: the finite instances' output-space size (their names and bounds are printed from it).
INSTANCE_SIZE = 2


def steps() -> list[Step]:
    return [
        prove_sym("per-event mixture bound",
                  "For any event O (a = A1^beta(D)(O), a' on D', c, c' for A2): the coin is "
                  "independent of the sample, so A_p^beta(D)(O) = p a + (1-p) c, and "
                  "a <= E a' + delta, c <= E c' + delta give p a + (1-p) c <= "
                  "E(p a' + (1-p) c') + delta.  The swapped direction is the same formula "
                  "with D and D' exchanged.", MIX <= TARGET, HYPS),
        exists_sym("the conclusion is attained (delta > 0)",
                   "Equality is possible with 0 < p < 1, E > 1, delta > 0: the conclusion is "
                   "exactly CP Def 2 with the same (eps, delta).",
                   sp.Eq(MIX, TARGET), HYPS + [p > 0, p < 1, E > 1, d > 0]),
        z3_all(f"mixture instance, |Range| = {INSTANCE_SIZE}",
               f"Both directions, every subset O of a size-{INSTANCE_SIZE} output space "
               "(cross-check).", _instance(INSTANCE_SIZE), bound=f"|Range| = {INSTANCE_SIZE}",
               role="remark", expected=Verdict.BOUNDED),
    ]


def negative_controls() -> list[Step]:
    DOM = [p >= 0, p <= 1, E >= 1, d >= 0] + [x >= 0 for x in (a, a2, c, c2)] + [
        x <= 1 for x in (a, a2, c, c2)]
    return [
        z3_all("control: coin depends on the data", "Weight p on D but p' on D'.",
               _instance(INSTANCE_SIZE, same_weight=False), expected=Verdict.REFUTED,
               bound=f"|Range| = {INSTANCE_SIZE}"),
        prove_sym("control: delta dropped", "p a + (1-p) c <= E(p a' + (1-p) c').",
                  p * a + (1 - p) * c <= E * (p * a2 + (1 - p) * c2),
                  DOM + [a <= E * a2 + d, c <= E * c2 + d],
                  expected=Verdict.REFUTED),
    ]
