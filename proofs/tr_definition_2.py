"""TR Definition 2 (§2, pointwise: the outputs whose ratio leaves [e^-eps, e^eps] have mass
< delta under both D and D_-t) versus CP Definition 2 (hockey-stick, every event O).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import sympy as sp
import z3

from dps_verify.paper.kernel.core import (
    Step,
    Verdict,
    exists_sym,
    given,
    induction,
    prove_sym,
    timed,
    z3_all,
)
from dps_verify.paper.kernel.finite import hockey_both, pointwise, prob_vector
from dps_verify.paper.kernel.statement import Statement, formulas_of

CLAIM = "TR Def 2 (pointwise) implies CP Def 2 (hockey-stick) with the same (eps, delta)."
REFERENCE = "TR Def 2, §2; CP Def 2, §2.1"
EXPECTED = Verdict.PROVED
SUMMARY = ("Pointwise => hockey-stick proved for every finite output space (termwise, sum, "
           "split of O along the bad set; size 2 as a CHECKED-BOUNDED cross-check); the converse "
           "fails (exact witness with eps = ln 2, delta = 1/10 whose bad set has mass 3/5).")


def _queries(m: int, swap_strict: bool = False) -> list:
    e, d = z3.Real("E"), z3.Real("delta")
    p, cp = prob_vector("p", m)
    q, cq = prob_vector("q", m)
    hyp = [e >= 1, d >= 0, *cp, *cq, *pointwise(p, q, e, d, "")]
    if swap_strict:  # wrong variant: conclude the pointwise property from hockey-stick
        hyp = [e >= 1, d > 0, *cp, *cq, *hockey_both(p, q, e, d)]
        bad = [z3.Or(pi > e * qi, qi > e * pi) for pi, qi in zip(p, q)]
        mass = z3.Sum([z3.If(bi, pi, 0) for bi, pi in zip(bad, p)])
        return [(mass < d, hyp)]
    return [(goal, hyp) for goal in hockey_both(p, q, e, d)]


def _converse_witness() -> tuple[Verdict, dict[str, str] | None, str]:
    e, d = Fraction(2), Fraction(1, 10)
    p, q = [Fraction(3, 5), Fraction(2, 5)], [Fraction(1, 4), Fraction(3, 4)]
    hockey = all(
        sum(pi for pi, o in zip(p, bits) if o) <= e * sum(qi for qi, o in zip(q, bits) if o) + d
        and sum(qi for qi, o in zip(q, bits) if o) <= e * sum(pi for pi, o in zip(p, bits) if o) + d
        for bits in product((0, 1), repeat=2))
    bad = [pi > e * qi or qi > e * pi for pi, qi in zip(p, q)]
    bad_mass = sum(pi for pi, b in zip(p, bad) if b)
    refuted = hockey and bad_mass >= d
    return (Verdict.REFUTED if refuted else Verdict.OPEN), {
        "E": "2", "delta": "1/10", "p": "(3/5, 2/5)", "q": "(1/4, 3/4)",
        "hockey-stick holds": str(hockey), "pointwise bad mass under p": str(bad_mass)}, (
        "exact Fractions; output 1 has ratio 12/5 > 2")


E, d, pi, qi = sp.symbols("E delta p_i q_i", real=True)
#: p(O and B), p(O minus B), q(O and B), q(O minus B), p(B) for an event O and bad set B.
pOB, pOG, qOB, qOG, pB = sp.symbols("p_OB p_OG q_OB q_OG p_B", real=True)
HYPS = [E >= 1, d >= 0, pOB >= 0, pOG >= 0, qOB >= 0, qOG >= 0, pOB <= pB, pB < d,
        pOG <= E * qOG]
lam = sp.Symbol("lambda", real=True)


def cp_def2(e: sp.Expr, delta: sp.Expr) -> sp.Basic:
    """CP Def 2's inequality for the event O: p(O) <= e q(O) + delta."""
    return pOB + pOG <= e * (qOB + qOG) + delta


#: the conclusion (one definition for the step, its pins and the controls).
CONCLUSION = cp_def2(E, d)
#: tightness: the constant delta cannot be lowered to 99/100 delta, nor e^eps to 99/100 e^eps
#: (TR Def 2's "< delta" makes equality unattainable, so the pins use a fixed factor < 1).
ALMOST = sp.Rational(99, 100)
#: the pins' points must be genuine probabilities: masses of O at most 1.
PROB = [pOB + pOG <= 1, qOB + qOG <= 1]
#: outputs of O minus B enumerated by an index i: p(i), q(i); PL(N), QL(N) their partial sums
#: over the first N of them (opaque functions for z3).
p_, q_, PL, QL = (sp.Function(x) for x in ("p", "q", "PL", "QL"))
i_, N_ = sp.symbols("i N", integer=True, nonnegative=True)
K_ = sp.Symbol("K", integer=True, nonnegative=True)  # |O minus B|


def off_b(x: sp.Expr) -> sp.Basic:
    """Output x is off the bad set B: its ratio lies in [1/E, E] (TR Def 2), or both masses are 0."""
    px, qx = p_(x), q_(x)
    return sp.Or(sp.And(qx > 0, px / qx <= E, px / qx >= 1 / E), sp.And(sp.Eq(px, 0), sp.Eq(qx, 0)))


def summed(n: sp.Expr) -> sp.Basic:
    return sp.Le(PL(n), E * QL(n))


SUM_DEFS = [sp.Eq(PL(0), 0), sp.Eq(QL(0), 0), sp.Eq(PL(N_ + 1), PL(N_) + p_(N_)),
            sp.Eq(QL(N_ + 1), QL(N_) + q_(N_))]
TOTALS = [sp.Eq(pOG, PL(K_)), sp.Eq(qOG, QL(K_))]
#: what the equivalence takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "e^eps >= 1, delta >= 0, probabilities non-negative",
               E >= 1, d >= 0, pOB >= 0, pOG >= 0, qOB >= 0, qOG >= 0)
         + given("definition", "B is the bad set of TR Def 2: the i-th output of O minus B "
                 "has probabilities p(i), q(i) >= 0 and is off B",
                 p_(i_) >= 0, q_(i_) >= 0, off_b(i_), over=(i_,))
         + given("definition", "PL(N), QL(N): p and q summed over the first N outputs of O "
                 "minus B (empty sums 0)", *SUM_DEFS, over=(N_,))
         + given("definition", "over all K outputs of O minus B: p(O minus B) = PL(K), "
                 "q(O minus B) = QL(K)", *TOTALS)
         + given("definition", "O and B is inside B", pOB <= pB)
         + given("hypothesis", "TR Def 2: the bad set B has mass < delta", pB < d))


#: TR Def 2 => CP Def 2 as proved, for one event O split along the bad set B.
STATEMENT = Statement(
    "TR Def 2, §2; CP Def 2, §2.1",
    "A pair satisfying the pointwise definition (outputs whose probability ratio leaves "
    "[e^-eps, e^eps] have total mass < delta) satisfies the hockey-stick one: "
    "p(O) <= e^eps q(O) + delta for every event O.",
    hypotheses=(E >= 1, d >= 0, pOB >= 0, pOG >= 0, qOB >= 0, qOG >= 0, pB < d),
    definitions=formulas_of(GIVEN, "definition"),
    conclusion=pOB + pOG <= E * (qOB + qOG) + d)


def steps() -> list[Step]:
    base = prove_sym("sum over O minus B: base N = 0", "Empty sums: PL(0) = 0 <= E * 0.",
                     summed(0), [E >= 1, *SUM_DEFS[:2]])
    step = prove_sym(
        "sum over O minus B: N -> N + 1",
        "PL(N) <= E QL(N) (induction hypothesis) and p(N) <= E q(N) (termwise) give "
        "PL(N + 1) <= E QL(N + 1).", summed(N_ + 1),
        [summed(N_), p_(N_) <= E * q_(N_), *SUM_DEFS[2:]], local=[summed(N_)], over=(N_,))
    out = [
        prove_sym("termwise: outputs off the bad set",
                  "An output i outside B has ratio p_i/q_i in [1/E, E] (or p_i = q_i = 0); "
                  "so p_i <= E q_i and q_i <= E p_i.",
                  sp.And(p_(i_) <= E * q_(i_), q_(i_) <= E * p_(i_)),
                  [E >= 1, q_(i_) >= 0, p_(i_) >= 0, off_b(i_)], over=(i_,)),
        base, step,
        induction("sum over O minus B: every N", "Induction on the number N of outputs summed.",
                  summed, N_, 0, base, step, over=(N_,)),
        prove_sym("assembled: hockey-stick for every event O",
                  "p(O) = p(O and B) + p(O minus B) <= p(B) + E q(O minus B) < delta + E q(O).  "
                  "The other direction is the same with p and q exchanged (TR Def 2 is "
                  "symmetric).", CONCLUSION, HYPS[:-1] + TOTALS + [summed(K_)],
                  derived=[summed(K_)]),
        exists_sym("pin: delta cannot be lowered",
                   "Some pointwise-(eps, delta) pair has p(O) > E q(O) + (99/100) delta: the "
                   "conclusion's delta is (up to 1%) the best constant.",
                   sp.Not(CONCLUSION.subs(d, ALMOST * d)), HYPS + PROB + [E > 1, d > 0]),
        exists_sym("pin: e^eps cannot be lowered",
                   "Some pointwise-(eps, delta) pair has p(O) > (99/100) E q(O) + delta.",
                   sp.Not(CONCLUSION.subs(E, ALMOST * E)), HYPS + PROB + [E > 1, d > 0]),
    ]
    out += [z3_all(f"pointwise => hockey-stick, |Range| = {m}",
                   "Bad set B with p(B), q(B) < delta and ratios in [1/E, E] off B give "
                   "p(O) <= E q(O) + delta and q(O) <= E p(O) + delta for every O (cross-check).",
                   _queries(m), bound=f"|Range| = {m}", role="remark",
                   expected=Verdict.BOUNDED) for m in (2,)]
    out.append(timed("converse (hockey-stick => pointwise)",
                     "Every hockey-stick-(eps, delta) pair is pointwise-(eps, delta).",
                     "exact witness (Fraction)", _converse_witness,
                     expected=Verdict.REFUTED, role="remark"))
    return out


#: the control's output-space size (its text and bound are printed from it).
CONTROL_SIZE = 2


def negative_controls() -> list[Step]:
    return [z3_all("control: hockey-stick => pointwise (z3)",
                   f"The wrong direction, asked of z3 for |Range| = {CONTROL_SIZE}.",
                   _queries(CONTROL_SIZE, swap_strict=True), expected=Verdict.REFUTED,
                   bound=f"|Range| = {CONTROL_SIZE}"),
            prove_sym("control: delta dropped", "p(O) <= E q(O) from the same steps.",
                      cp_def2(E, 0), HYPS, expected=Verdict.REFUTED),
            exists_sym("control: pin of a weakened conclusion (2 delta)",
                       "The delta pin against p(O) <= E q(O) + 2 delta: no pair comes near "
                       "2 delta, so the pin must fail (a weakened conclusion is noticed).",
                       sp.Not(cp_def2(E, ALMOST * 2 * d)), HYPS + PROB + [E > 1, d > 0],
                       expected=Verdict.REFUTED),
            exists_sym("control: pin under a strengthened hypothesis (p(B) < delta/2)",
                       "With the bad set's mass below delta/2 the delta pin must fail.",
                       sp.Not(CONCLUSION.subs(d, ALMOST * d)),
                       HYPS + PROB + [pB < d / 2, E > 1, d > 0],
                       expected=Verdict.REFUTED)]
