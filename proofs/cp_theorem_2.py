"""CP Theorem 2 (§2.5): post-processing preserves (beta, eps, delta)-DPS.

Finite encoding: A1^beta on D and D' has output distributions p, p' over m outputs and
satisfies CP Def 2 for every subset; a post-processing A2 is a stochastic kernel K (m x r)
and any event O of A2's range turns into q_i = Pr[A2(S_i) in O] = sum_{o in O} K[i][o].
Sampling happens before A1, so (A2 o A1)^beta = A2 o (A1^beta): the claim is exactly
post-processing of the (eps, delta)-DP pair (p, p').
"""

from __future__ import annotations

import sympy as sp
import z3

from dps_verify.paper.kernel.core import (
    Step,
    Verdict,
    exists_sym,
    given,
    induction,
    prove_sym,
    z3_all,
)
from dps_verify.paper.kernel.finite import hockey, mass, prob_vector, subsets  # noqa: F401
from dps_verify.paper.kernel.statement import Statement, formulas_of

CLAIM = "If A1 is (beta, eps, delta)-DPS then A2(A1(.)) is (beta, eps, delta)-DPS for any A2."
REFERENCE = "CP Thm 2, §2.5"
EXPECTED = Verdict.PROVED
SUMMARY = ("Proved for every finite output space: termwise lemma, sum over outputs (induction), "
           "CP Def 2 at the hockey-stick set; the bound is attained.  A kernel instance "
           "(sizes 2, 2) is a CHECKED-BOUNDED cross-check.  Not covered: continuous outputs / "
           "measurability, which the paper's proof also ignores.")

SIZES = [(2, 2), (2, 3)]


def _instance(
    m: int, r: int, *, delta_scale: str = "1", data_dependent: bool = False
) -> list[tuple[z3.BoolRef, list[z3.BoolRef]]]:
    e, d = z3.Real("E"), z3.Real("delta")
    p, cp = prob_vector("p", m)
    pp, cpp = prob_vector("pp", m)
    hyp = [e >= 1, d >= 0, *cp, *cpp, *hockey(p, pp, e, d), *hockey(pp, p, e, d)]
    kern = [[z3.Real(f"K{i}_{o}") for o in range(r)] for i in range(m)]
    kern2 = [[z3.Real(f"K'{i}_{o}") for o in range(r)] for i in range(m)] if data_dependent else kern
    for rows in (kern, kern2):
        for row in rows:
            hyp += [x >= 0 for x in row] + [z3.Sum(row) == 1]
    scale = z3.RealVal(delta_scale)
    goals = []
    for ob in subsets(r):  # every event O of A2's range, checked as one conjunction

        def q(rows: list[list[z3.ArithRef]], i: int, ob: tuple[int, ...] = ob) -> z3.ArithRef:
            terms = [rows[i][o] for o in range(r) if ob[o]]
            return z3.Sum(terms) if terms else z3.RealVal(0)

        lhs = z3.Sum([p[i] * q(kern, i) for i in range(m)])
        rhs = z3.Sum([pp[i] * q(kern2, i) for i in range(m)])
        goals.append((lhs <= e * rhs + scale * d, hyp))
    return goals


P, Q, qq, E, d = sp.symbols("P Q q E delta", real=True)
#: sum_i p_i K_i(O), sum_i p'_i K_i(O), and the hockey-stick set S1 = {p > E p'}: p(S1), p'(S1).
Pq, Ppq, pS1, ppS1, M = sp.symbols("Sum_pq Sum_ppq p_S1 pp_S1 M", real=True)
#: per output i of A1: p_i, p'_i and the kernel value q_i = K_i(O); L(N), R(N) are the sums of
#: the termwise lemma's two sides over the first N outputs (opaque functions for z3).
p_, pp_, q_, L, R = (sp.Function(x) for x in ("p", "pp", "q", "L", "R"))
i_, N_ = sp.symbols("i N", integer=True, nonnegative=True)
m_ = sp.Symbol("m", integer=True, positive=True)  # |Range(A1)|


def termwise(x: sp.Expr) -> sp.Basic:
    """The termwise lemma at output x: (p_x - E p'_x) q_x <= max(0, p_x - E p'_x)."""
    return sp.Le((p_(x) - E * pp_(x)) * q_(x), sp.Max(0, p_(x) - E * pp_(x)))


def summed(n: sp.Expr) -> sp.Basic:
    """The termwise lemma summed over the first n outputs: L(n) <= R(n)."""
    return sp.Le(L(n), R(n))


#: CP Def 2's right-hand side for the post-processed pair: the conclusion of CP Thm 2.
TARGET = E * Ppq + d
FINAL_HYPS = [E >= 1, d >= 0, Pq >= 0, Ppq >= 0, pS1 >= 0, ppS1 >= 0,
              sp.Eq(Pq - E * Ppq, L(m_)), sp.Eq(M, R(m_)), summed(m_),
              sp.Eq(M, pS1 - E * ppS1), pS1 <= E * ppS1 + d]
#: the termwise lemma with plain symbols (the form the controls use).
TERMWISE = sp.Le((P - E * Q) * qq, sp.Max(0, P - E * Q))
#: what the theorem takes as given (checked by the chaining check of proofs.core).
GIVEN = (
    given("setting", "e^eps >= 1, delta >= 0, probabilities non-negative",
          E >= 1, d >= 0, Pq >= 0, Ppq >= 0, pS1 >= 0, ppS1 >= 0)
    + given("setting", "kernel values q_i = K_i(O) lie in [0, 1]", q_(i_) >= 0, q_(i_) <= 1,
            over=(i_,))
    + given("definition", "L(N), R(N): the two sides of the termwise lemma summed over the "
            "first N outputs of A1 (empty sums 0)", sp.Eq(L(0), 0), sp.Eq(R(0), 0),
            sp.Eq(L(N_ + 1), L(N_) + (p_(N_) - E * pp_(N_)) * q_(N_)),
            sp.Eq(R(N_ + 1), R(N_) + sp.Max(0, p_(N_) - E * pp_(N_))), over=(N_,))
    + given("definition", "over all m outputs: sum p q - E sum p' q = L(m), and "
            "sum max(0, p_i - E p'_i) = p(S1) - E p'(S1) =: M = R(m) for S1 = {p > E p'}",
            FINAL_HYPS[6], FINAL_HYPS[7], FINAL_HYPS[9])
    + given("hypothesis", "A1 is (beta, eps, delta)-DPS: CP Def 2 at the event S1",
            FINAL_HYPS[10])
)


#: CP Thm 2 as proved: for one event O of A2's range, with A1's outputs i = 0..m-1 (p_i, p'_i on
#: D, D') and the post-processing's kernel values q_i = Pr[A2(i) in O] in [0, 1], CP Def 2 for
#: A1 at its hockey-stick set S1 = {p > e^eps p'} gives CP Def 2 for A2(A1) at O.
STATEMENT = Statement(
    "CP Thm 2, §2.5",
    "Post-processing keeps (beta, eps, delta)-DPS: if A1's sampled outputs satisfy CP Def 2, "
    "so do those of A2 applied to them, for every event O of A2 and every stochastic A2 that "
    "does not read the data.",
    hypotheses=(E >= 1, d >= 0, Pq >= 0, Ppq >= 0, pS1 >= 0, ppS1 >= 0, q_(i_) >= 0,
                q_(i_) <= 1, pS1 <= E * ppS1 + d),
    definitions=formulas_of(GIVEN, "definition"),
    conclusion=Pq <= E * Ppq + d)


#: the finite cross-check's output-space sizes (its name and bound are printed from these).
INSTANCE_SIZES = (2, 2)


def steps() -> list[Step]:
    out = [prove_sym(
        "termwise lemma",
        "For 0 <= q_i <= 1: (p_i - E p'_i) q_i <= max(0, p_i - E p'_i) (q_i = K_i(O)), for "
        "every output i.", termwise(i_), [q_(i_) >= 0, q_(i_) <= 1], over=(i_,))]
    base = prove_sym("sum over outputs: base N = 0", "Empty sums: L(0) = 0 <= 0 = R(0).",
                     summed(0), [sp.Eq(L(0), 0), sp.Eq(R(0), 0)])
    step = prove_sym(
        "sum over outputs: N -> N + 1",
        "L(N) <= R(N) (induction hypothesis) and the termwise lemma at output N give "
        "L(N + 1) <= R(N + 1).", summed(N_ + 1),
        [summed(N_), termwise(N_), sp.Eq(L(N_ + 1), L(N_) + (p_(N_) - E * pp_(N_)) * q_(N_)),
         sp.Eq(R(N_ + 1), R(N_) + sp.Max(0, p_(N_) - E * pp_(N_)))],
        local=[summed(N_)], over=(N_,))
    out += [base, step, induction(
        "sum over outputs: every N", "Induction on the number N of outputs summed.",
        summed, N_, 0, base, step, over=(N_,))]
    out.append(prove_sym(
        "assembled: CP Def 2 for A2(A1)",
        "Over all m outputs the summed lemma says sum p q - E sum p' q <= M, the hockey-stick "
        "mass of S1 = {p > E p'}, and CP Def 2 for A1 at O = S1 gives M <= delta; so "
        "sum p q <= E sum p' q + delta for every event O of A2.",
        Pq <= TARGET, FINAL_HYPS, derived=[summed(m_)]))
    out.append(exists_sym(
        "the conclusion is attained (delta > 0)",
        "Equality sum p q = E sum p' q + delta is possible (q = indicator of S1), so the "
        "proved conclusion is exactly CP Def 2, not a weaker one.",
        sp.Eq(Pq, TARGET), FINAL_HYPS + [d > 0, E > 1]))
    m1, m2 = INSTANCE_SIZES
    out.append(z3_all(
        f"kernel instance, |Range(A1)| = {m1}, |Range(A2)| = {m2}",
        "The whole statement over explicit symbolic kernels (every event O): a finite "
        "instance, a cross-check of the general steps above.",
        _instance(m1, m2), bound=f"|Range(A1)| = {m1}, |Range(A2)| = {m2}", role="remark",
        expected=Verdict.BOUNDED))
    return out


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    Q2 = sp.Symbol("Q'", real=True)
    return [
        prove_sym("control: delta halved", "sum p q <= E sum p' q + delta/2 from the same steps.",
                  Pq <= E * Ppq + d / 2, FINAL_HYPS, expected=ref),
        prove_sym("control: data-dependent post-processing",
                  "Termwise lemma with a different kernel value on D' (q vs q'): "
                  "P q - E Q q' <= max(0, P - E Q).",
                  P * qq - E * Q2 * sp.Symbol("q'") <= sp.Max(0, P - E * Q),
                  [qq >= 0, qq <= 1, sp.Symbol("q'") >= 0, sp.Symbol("q'") <= 1, E >= 1,
                   P >= 0, P <= 1, Q >= 0, Q <= 1, Q2 >= 0, Q2 <= 1, sp.Eq(Q2, Q)],
                  expected=ref),
        prove_sym("control: hypotheses strengthened to delta = 0 only",
                  "Attainment with delta = 0 forced and sum p q > E sum p' q: impossible.",
                  Pq <= E * Ppq, FINAL_HYPS, expected=ref),
    ]
