"""TR Definition 2 (§2, pointwise: the outputs whose ratio leaves [e^-eps, e^eps] have mass
< delta under both D and D_-t) versus CP Definition 2 (hockey-stick, every event O).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import sympy as sp
import z3

from dps_verify.paper.proofs.core import (
    Step,
    Verdict,
    exists_sym,
    given,
    prove_sym,
    sum_assembly,
    timed,
    z3_all,
)
from dps_verify.paper.proofs.finite import hockey_both, pointwise, prob_vector

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
#: an output i off the bad set B: its ratio lies in [1/E, E] (TR Def 2), or both masses are 0.
OFF_B = sp.Or(sp.And(qi > 0, pi / qi <= E, pi / qi >= 1 / E), sp.And(sp.Eq(pi, 0), sp.Eq(qi, 0)))
#: what the equivalence takes as given (checked by the chaining check of proofs.core).
GIVEN = (given("setting", "e^eps >= 1, delta >= 0, probabilities non-negative",
               E >= 1, d >= 0, pi >= 0, qi >= 0, pOB >= 0, pOG >= 0, qOB >= 0, qOG >= 0)
         + given("definition", "O and B is inside B", pOB <= pB)
         + given("hypothesis", "TR Def 2: the bad set B has mass < delta", pB < d)
         + given("prose-link", "the termwise bound summed over O minus B (steps 1-2)",
                 pOG <= E * qOG))


def steps() -> list[Step]:
    out = [
        prove_sym("termwise: outputs off the bad set",
                  "An output i outside B has ratio p_i/q_i in [1/E, E] (or p_i = q_i = 0); "
                  "so p_i <= E q_i and q_i <= E p_i.",
                  sp.And(pi <= E * qi, qi <= E * pi), [E >= 1, qi >= 0, pi >= 0],
                  premises=[OFF_B]),
        sum_assembly("the outputs of O outside B",
                     "Summing p_i <= E q_i over O minus B (induction on its size): "
                     "p(O minus B) <= E q(O minus B)."),
        prove_sym("assembled: hockey-stick for every event O",
                  "p(O) = p(O and B) + p(O minus B) <= p(B) + E q(O minus B) < delta + E q(O).  "
                  "The other direction is the same with p and q exchanged (TR Def 2 is "
                  "symmetric).", CONCLUSION, HYPS),
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


def negative_controls() -> list[Step]:
    return [z3_all("control: hockey-stick => pointwise (z3)",
                   "The wrong direction, asked of z3 for |Range| = 2.",
                   _queries(2, swap_strict=True), expected=Verdict.REFUTED,
                   bound="|Range| = 2"),
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
