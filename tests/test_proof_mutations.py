"""Mutation test of the proof encodings and of the kernel's guards.

Each mutant changes one encoding in the top-level ``proofs/`` (or the kernel in
``dps_verify/paper/kernel/``) and runs only its theorem; it is
*caught* when some verdict differs from the one recorded (theorem, step or negative control).
The first seven survived an earlier skeptical review; the others weaken
conclusions, strengthen hypotheses or disable parts of the machinery (vacuity check, sound
sympy rewrites, the chaining check).  The statement-level kinds (dropped final step, weakened
conclusion, narrowed hypothesis, solver side channel, false lemma) and one mutant per kernel
guard (cvc5 consulted, derived-vs-given, induction base, certificate ties, domain check,
statement identity, extra hypothesis, fingerprint, lemma spot check, the run_module gate) are
listed by kind and required by ``test_every_kind_of_mutant_is_listed``; the kernel-guard
mutants run tr-theorem-3, whose negative controls include one per guard
(:mod:`dps_verify.paper.kernel.selftest`).

Which mutants run where: every mutant runs under the deep profile (``--dps-profile deep`` or
``HYPOTHESIS_PROFILE=deep``).  The default run keeps, for each kind of guard (statement identity,
hypothesis check, chaining, witness, model check, solver), the cheapest mutant that this guard
itself must catch (:data:`DEFAULT_BY_GUARD`; the guard's message is required in the verdict's
detail), so a broken guard still fails the default run; one unmutated baseline runs by default
(:data:`DEFAULT_BASELINES`), the others under deep.

Speed (the mutated source never touches the working tree):

* one warm parent process has sympy, z3, cvc5 and the proofs imported; each mutant runs in a
  ``fork`` of it (the parent's objects frozen out of the child's garbage collector, so the
  child does not copy the parent's heap by collecting it), where the mutant's theorem module
  is executed afresh from its source, the mutant's replacement applied in memory -- and, for
  a mutant of the kernel, the kernel's modules (``smt``, ``finite``, ``core``, ...) too.  A
  mutant of a theorem uses the parent's kernel, with what it remembers (in the default run,
  the session's proofs ran there): z3's answers and the translations of formulas it has
  already made, each keyed by the very formula, so a query the mutant changed is solved
  afresh and an unchanged one gets the answer the solver gave it (an answer a fresh run could
  only give again, or ``unknown``: never a verdict a fresh run would not reach);
* in the default run the second solver's slot is filled by z3 re-reading the exported SMT-LIB
  text (so the printer is still exercised); ``HYPOTHESIS_PROFILE=deep`` runs cvc5 as
  ``dps-verify prove`` does.  The unmutated theorems pass in the same mode (so a failure means
  "caught"), and a z3-only run can only *lose* verdicts cvc5 would have confirmed, never invent
  a PROVED: a mutant caught here is caught by the real run too, checked in the deep run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import types

import pytest

from tests.mutation import PACKAGE, Mutant, StaleMutant, fork_with_heap_frozen

P = "../proofs/"  # theorem encodings (top-level proofs/, relative to dps_verify/)
K = "paper/kernel/"  # the proof kernel
W = "paper/cp6_witness.py"  # CP Thm 6's exact counterexample, used by the proof

MUTANTS = [
    # --- the seven survivors of an earlier review
    Mutant("CP Thm 1 target e^eps2 -> e^eps1", P + "cp_theorem_1.py",
           "E2 = 1 + b * (E - 1)  # e^{eps2}", "E2 = E  # e^{eps2}"),
    Mutant("CP Thm 1 target delta2 -> delta1", P + "cp_theorem_1.py",
           "D2 = b * d1  # delta2", "D2 = d1  # delta2"),
    Mutant("CP Thm 2 conclusion with 2 delta", P + "cp_theorem_2.py",
           "TARGET = E * Ppq + d\n", "TARGET = E * Ppq + 2 * d\n"),
    Mutant("CP Prop 4 restricted to delta < 1/2", P + "cp_proposition_4.py",
           "REGION = [E >= 1, d >= 0, d < 1]", "REGION = [E >= 1, d >= 0, d < sp.Rational(1, 2)]"),
    Mutant("TR Thm 5 concludes e^(2 eps1 + eps2)", P + "tr_theorem_5.py",
           "E_TARGET = E1 * E2", "E_TARGET = E1 ** 2 * E2"),
    Mutant("TR Thm 6 displayed inequality flipped", P + "tr_theorem_6.py",
           "PHI_CLAIM = sp.Gt(", "PHI_CLAIM = sp.Lt("),
    Mutant("CP Thm 5 j = 0 step with contradictory hypotheses", P + "cp_theorem_5.py",
           "J0_HYPS = DOM + [Fm > 0, G >= 0, G <= Fm,", "J0_HYPS = DOM + [Fm > 0, G >= 0, G < 0,"),
    # --- more of our own
    Mutant("CP Thm 1 sampling split with the wrong factor", P + "cp_theorem_1.py",
           "p0_closed(i_), (1 - b) * px_closed(i_), split0(i_)))",
           "p0_closed(i_), b * px_closed(i_), split0(i_)))"),
    Mutant("CP Thm 2 sum over outputs without its induction", P + "cp_theorem_2.py",
           "    out += [base, step, induction(", "    out += [base, step] + 0 * [induction("),
    Mutant("CP Thm 3 conclusion without delta", P + "cp_theorem_3.py",
           "TARGET = E * (p * a2 + (1 - p) * c2) + d", "TARGET = E * (p * a2 + (1 - p) * c2)"),
    Mutant("CP Thm 5 gamma without beta", P + "cp_theorem_5.py",
           "GAMMA = (E - 1 + b) / E", "GAMMA = (E - 1) / E"),
    Mutant("sympy back end with force=True", K + "core.py",
           '("simplify", sp.simplify),',
           '("simplify", lambda e: sp.simplify(sp.powsimp(e, force=True))),'),
    Mutant("vacuity check disabled", K + "smt.py",
           'if q.vacuity.get("z3") == UNSAT:\n        return "vacuous"\n    if q.vacuity.get("z3") != SAT:\n        return "unknown"',
           'if False:\n        return "vacuous"'),
    # --- chaining and pins
    Mutant("chaining check disabled", K + "core.py",
           "        if missing:\n            msg = (", "        if False:\n            msg = ("),
    Mutant("CP Thm 5 induction concluded for one K only", P + "cp_theorem_5.py",
           "lambda x_: summed(x_, nn), K, 0, base, step, over=(K, nn))]",
           "lambda x_: summed(x_, nn), K, 0, base, step, over=(nn,))]"),
    Mutant("CP Thm 5 j = 0 step without its identity's proof", P + "cp_theorem_5.py",
           "    out += [base, step, induction(", "    out += [base, step] + 0 * [induction("),
    Mutant("induction rule accepts any inductive step", K + "core.py",
           '("inductive step proves P(next)", step.concludes == formula(var + direction))',
           '("inductive step proves P(next)", True)'),
    Mutant("CP Thm 5 j = 0 bound weakened to 1 - 2 beta", P + "cp_theorem_5.py",
           "J0_LOW, J0_HIGH = 1 - b, sp.Integer(1)", "J0_LOW, J0_HIGH = 1 - 2 * b, sp.Integer(1)"),
    Mutant("TR Def 2 conclusion weakened to 2 delta", P + "tr_definition_2.py",
           "CONCLUSION = cp_def2(E, d)", "CONCLUSION = cp_def2(E, 2 * d)"),
    Mutant("TR Def 2 hypothesis strengthened to p(B) < delta/2", P + "tr_definition_2.py",
           "pOB <= pB, pB < d,", "pOB <= pB, pB < d / 2,"),
    Mutant("TR Def 2 sum over O minus B: induction from the wrong base", P + "tr_definition_2.py",
           "summed, N_, 0, base, step, over=(N_,)),", "summed, N_, 1, base, step, over=(N_,)),"),
    Mutant("TR Thm 3 upper ratio weakened", P + "tr_theorem_3.py",
           "UPPER = 1 + b * (E - 1)  # e^{eps'}", "UPPER = 1 + 2 * b * (E - 1)  # e^{eps'}"),
    Mutant("TR Thm 3 UDP hypothesis strengthened", P + "tr_theorem_3.py",
           "DOM = [b > 0, b < 1, E >= 1, r >= 1 / E, r <= E]",
           "DOM = [b > 0, b < 1, E >= 1, r >= 1 / E, r <= (1 + E) / 2]"),
    Mutant("CP Thm 6 witness with an A_m that is not ln 3-DP", W,
           '    dist = abs(1 - sample.count("b")) + abs(4 - sample.count("a"))\n'
           "    return Fraction(3, 4) / base ** dist",
           '    dist = abs(1 - sample.count("b")) + abs(4 - sample.count("a"))\n'
           "    return Fraction(3, 4) / (base * base) ** dist"),
    Mutant("CP Thm 6 witness against a larger eps", W,
           'EPS, EPS1 = "ln(12)", "ln(3)"', 'EPS, EPS1 = "ln(24)", "ln(3)"'),
    Mutant("CP Thm 6 sum over recodings: induction from the wrong base", P + "cp_theorem_6.py",
           "summed, N_, 0, base, step, over=(N_,)),", "summed, N_, 1, base, step, over=(N_,)),"),
    Mutant("CP Thm 6 termwise bound weakened", P + "cp_theorem_6.py",
           "TERMWISE_RHS = E1 * E2 * wg2 * Qg + wg * d", "TERMWISE_RHS = E1 * E2 * wg2 * Qg + 2 * wg * d"),
    # --- the former prose links: CP Thm 1's sum over samples, TR Thm 6's c > 0
    Mutant("CP Thm 1 decomposition with the weights exchanged", P + "cp_theorem_1.py",
           "DECOMP = sp.Eq(Z, (1 - b) * X + b * Y)", "DECOMP = sp.Eq(Z, (1 - b) * Y + b * X)"),
    Mutant("CP Thm 1 decomposition without its induction", P + "cp_theorem_1.py",
           "    out += [base, step, induction(\n        \"decomposition over samples: every N\"",
           "    out += [base, step] + 0 * [induction(\n        \"decomposition over samples: every N\""),
    Mutant("CP Thm 1 sum over samples: t sampled paired with q", P + "cp_theorem_1.py",
           "sp.Eq(ZS(N_ + 1), ZS(N_) + p0(N_) * q(N_) + p1(N_) * qt(N_))",
           "sp.Eq(ZS(N_ + 1), ZS(N_) + p0(N_) * qt(N_) + p1(N_) * q(N_))"),
    Mutant("CP Thm 1 DPS sum without delta1's weight", P + "cp_theorem_1.py",
           "sp.And(YS(n) <= E * XS(n) + d1 * PS(n), XS(n) <= E * YS(n) + d1 * PS(n))",
           "sp.And(YS(n) <= E * XS(n) + d1, XS(n) <= E * YS(n) + d1 * PS(n))"),
    Mutant("CP Thm 1 two-stage sampling at the wrong rate", P + "cp_theorem_1.py",
           "(1 - b2 / b1) + (b2 / b1) * (1 - b1), 1 - b2))", "(1 - b2 / b1) + (b2 / b1) * (1 - b1), 1 - b2 / b1))"),
    Mutant("CP Thm 6 witness choice probabilities a factor 9 apart", P + "cp_theorem_6.py",
           "sp.Eq(pc(dist_ + 1), pc(dist_) / 3)]", "sp.Eq(pc(dist_ + 1), pc(dist_) / 9)]"),
    Mutant("CP Thm 6 witness range induction from the wrong base", P + "cp_theorem_6.py",
           "pc_range, dist_, 0, pbase, pstep,", "pc_range, dist_, 1, pbase, pstep,"),
    Mutant("TR Thm 6 h with the wrong sign", P + "tr_theorem_6.py",
           "return x * sp.log(x) - x + 1", "return x - x * sp.log(x) - 1"),
    Mutant("TR Thm 6 phi > 0 claimed for gamma >= beta", P + "tr_theorem_6.py",
           "PHI_REGION = [b_ > 0, g_ > b_]", "PHI_REGION = [b_ > 0, g_ >= b_]"),
    Mutant("TR Thm 6 c defined as -phi", P + "tr_theorem_6.py",
           "C_DEF = sp.Eq(c_, phi(g_, b_))", "C_DEF = sp.Eq(c_, -phi(g_, b_))"),
    Mutant("TR Thm 6 gamma without beta", P + "tr_theorem_6.py",
           "GAMMA_DEF = sp.Eq(g_, (E_ - 1 + b_) / E_)", "GAMMA_DEF = sp.Eq(g_, (E_ - 1) / E_)"),
    # --- CP Thm 5's assembly
    Mutant("CP Thm 5 bad set without j >= k", P + "cp_theorem_5.py",
           "    return sp.And(x_ >= kk, x_ > g * m_)", "    return sp.And(x_ > g * m_)"),
    Mutant("CP Thm 5 d's max without its n_m term", P + "cp_theorem_5.py",
           "    return sp.Implies(m_ >= nmi, d >= SD(m_ + 1, m_))",
           "    return sp.Implies(m_ >= nmi + 1, d >= SD(m_ + 1, m_))"),
    Mutant("CP Thm 5 sums over outputs without their induction", P + "cp_theorem_5.py",
           "    out += [termo, base, step, induction(",
           "    out += [termo, base, step] + 0 * [induction("),
    Mutant("CP Thm 5 hockey-stick share without e^eps", P + "cp_theorem_5.py",
           "    return sp.Max(q(x_, n_) - E * q(x_, n_ - 1), 0)",
           "    return sp.Max(q(x_, n_) - q(x_, n_ - 1), 0)"),
    Mutant("CP Thm 5 T's summand from k - 1", P + "cp_theorem_5.py",
           "    return cases(h, x_, m_, x_ >= kk, f(x_, m_))",
           "    return cases(h, x_, m_, x_ >= kk - 1, f(x_, m_))"),
    Mutant("CP Thm 5 other groups' law not shared by D_-t", P + "cp_theorem_5.py",
           "sp.Max(rho(r_) * q(x_, n_) - E * rho(r_) * q(x_, n_ - 1), 0),",
           "sp.Max(rho(r_) * q(x_, n_) - E * q(x_, n_ - 1), 0),"),
    Mutant("CP Thm 5 f(0; m) > 0 induction from the wrong base", P + "cp_theorem_5.py",
           "f0, m, 0, base, step, over=(m,))", "f0, m, 1, base, step, over=(m,))"),
    # --- TR Thm 6's bound assembled from the cited Chernoff lemma
    Mutant("TR Thm 6 Chernoff lemma removed", P + "tr_theorem_6.py",
           '         + given("lemma", "the multiplicative Chernoff bound',
           '         + 0 * given("lemma", "the multiplicative Chernoff bound'),
    Mutant("TR Thm 6 Chernoff lemma with the exponent doubled", P + "tr_theorem_6.py",
           "tail(n, t) <= Exp(-n * phi(t, b_)))", "tail(n, t) <= Exp(-2 * n * phi(t, b_)))"),
    # --- CP Thm 5's conclusion pinned to the paper
    Mutant("CP Thm 5 conclusion with 2d", P + "cp_theorem_5.py",
           "PAPER_DELTA = d  #", "PAPER_DELTA = 2 * d  #"),
    Mutant("CP Thm 5 conclusion with d + 1", P + "cp_theorem_5.py",
           "PAPER_DELTA = d  #", "PAPER_DELTA = d + 1  #"),
    Mutant("CP Thm 5 conclusion without the D_-t direction", P + "cp_theorem_5.py",
           "    return sp.And(DHS(nn) <= delta, DHSr(nn) <= delta, DPW(nn) <= delta, DPWr(nn) <= delta)",
           "    return sp.And(DHS(nn) <= delta, DPW(nn) <= delta)"),
    Mutant("CP Thm 5 d's defining property for every n >= 0", P + "cp_theorem_5.py",
           "    return sp.Implies(m_ >= nmi, d >= SD(m_ + 1, m_))",
           "    return sp.Implies(m_ >= 0, d >= SD(m_ + 1, m_))"),
    # --- certificates tied to what they conclude
    Mutant("CP Thm 5 support fact widened to x >= m", P + "cp_theorem_5.py",
           "return sp.Implies(x_ > m_, sp.Eq(f(x_, m_), 0))",
           "return sp.Implies(x_ >= m_, sp.Eq(f(x_, m_), 0))"),
    Mutant("CP Thm 1 sampling split concluded with weight 1 - b", P + "cp_theorem_1.py",
           "return equation(p1(x), b * pX(x))", "return equation(p1(x), (1 - b) * pX(x))"),
    # --- statements: dropped / weakened / re-scoped conclusions, narrowed hypotheses
    Mutant("dropped final step: CP Thm 1 lower direction (final)", P + "cp_theorem_1.py",
           '    out.append(prove_sym(\n        "lower direction (final)",',
           '    (lambda _s: None)(prove_sym(\n        "lower direction (final)",'),
    Mutant("dropped final step: TR Thm 3 two-sided bound", P + "tr_theorem_3.py",
           '        prove_sym("two-sided bound", "1/(1 + b(E-1)) <= Z/X <= 1 + b(E-1).",\n'
           '                  sp.And(RATIO <= UPPER, RATIO * UPPER >= 1), DOM),',
           '        *0 * [prove_sym("two-sided bound", "1/(1 + b(E-1)) <= Z/X <= 1 + b(E-1).",\n'
           '                  sp.And(RATIO <= UPPER, RATIO * UPPER >= 1), DOM)],'),
    Mutant("weakened conclusion: CP Thm 2 assembled step with 2 delta", P + "cp_theorem_2.py",
           "        Pq <= TARGET, FINAL_HYPS, derived=[summed(m_)]))",
           "        Pq <= TARGET + d, FINAL_HYPS, derived=[summed(m_)]))"),
    Mutant("weakened conclusion: CP Thm 5 hockey-stick at e^(2 eps) in its definitions",
           P + "cp_theorem_5.py",
           "    return sp.Max(q(x_, n_) - E * q(x_, n_ - 1), 0)",
           "    return sp.Max(q(x_, n_) - E ** 2 * q(x_, n_ - 1), 0)"),
    Mutant("narrowed hypothesis: CP Thm 2 kernel values <= 1/2", P + "cp_theorem_2.py",
           '"kernel values q_i = K_i(O) lie in [0, 1]", q_(i_) >= 0, q_(i_) <= 1,',
           '"kernel values q_i = K_i(O) lie in [0, 1]", q_(i_) >= 0, q_(i_) <= sp.Rational(1, 2),',
           also=(("termwise(i_), [q_(i_) >= 0, q_(i_) <= 1], over=(i_,))]",
                  "termwise(i_), [q_(i_) >= 0, q_(i_) <= sp.Rational(1, 2)], over=(i_,))]"),)),
    Mutant("narrowed hypothesis: CP Thm 3 coin weight p <= 1/2", P + "cp_theorem_3.py",
           "HYPS = [p >= 0, p <= 1, E >= 1,", "HYPS = [p >= 0, p <= sp.Rational(1, 2), E >= 1,"),
    Mutant("narrowed hypothesis: CP Prop 4 k >= 2", P + "cp_proposition_4.py",
           'copies of g(t) in D", k >= 1, n > k)', 'copies of g(t) in D", k >= 2, n > k)',
           also=(("[k >= 1, n > k, *[f.xreplace({c: n}) for f in PUB_DEF],",
                  "[k >= 2, n > k, *[f.xreplace({c: n}) for f in PUB_DEF],"),)),
    Mutant("weakened conclusion: CP Prop 4 event bound without delta", P + "cp_proposition_4.py",
           "                  BROKEN, [EVENT_DEF[0], sp.Eq(P0, 0), *REGION]),",
           "                  P1 > E * P0, [EVENT_DEF[0], sp.Eq(P0, 0), *REGION]),"),
    Mutant("narrowed hypothesis: CP Thm 5 k >= 2", P + "cp_theorem_5.py",
           "K_RANGE = sp.Ge(kk, 1, evaluate=False)", "K_RANGE = sp.Ge(kk, 2, evaluate=False)"),
    Mutant("narrowed hypothesis: TR Thm 6 E(1 - beta) >= 2", P + "tr_theorem_6.py",
           "HYP = [b_ > 0, b_ < 1, E_ * (1 - b_) >= 1]", "HYP = [b_ > 0, b_ < 1, E_ * (1 - b_) >= 2]"),
    # --- refutations decided by the kernel from the statement's witness
    Mutant("refutation: TR Thm 2 witness misses a hypothesis (A_i not ln 3-DP)",
           P + "tr_theorem_2.py", "FLIP = 1 / (1 + E)  #", "FLIP = 1 / (2 + E)  #"),
    Mutant("refutation: TR Thm 2 witness with a wrong constant (e^eps for e^eps_i)",
           P + "tr_theorem_2.py", "    claimed = 1 + BETA * (E - 1)  # TR Cor 4",
           "    claimed = E  # TR Cor 4"),
    Mutant("refutation: CP Thm 6 witness with a wrong constant (e^eps for e^eps')",
           P + "cp_theorem_6.py", "E2: Evidence(w.E_EPS / w.E_EPS1,", "E2: Evidence(w.E_EPS,"),
    Mutant("witness hypotheses unchecked", K + "statement.py",
           "        if truth is not True:\n            out.problems.append(f\"the witness",
           "        if False:\n            out.problems.append(f\"the witness"),
    Mutant("refutation without a witness accepted", K + "runner.py",
           "        if witness is None:\n            dec.problems.append(",
           "        if witness is None:\n            (lambda *_: None)("),
    Mutant("narrowed hypothesis: TR Thm 3 beta2/beta1 < 1/2", P + "tr_theorem_3.py",
           "DOM = [b > 0, b < 1, E >= 1, r >= 1 / E, r <= E]",
           "DOM = [b > 0, b < sp.Rational(1, 2), E >= 1, r >= 1 / E, r <= E]"),
    # --- no way around the chain
    Mutant("side channel: the claim slipped to the solvers as a hypothesis", K + "core.py",
           "    za = [to_z3(a, env) for a in hyps]\n",
           "    za = [to_z3(a, env) for a in hyps] + [zc]\n"),
    Mutant("certificate tie: TR Thm 6 monotonicity guard widened to t > beta", P + "tr_theorem_6.py",
           "MONO = sp.Implies(sp.And(b_ > 0, g_ > b_, t_ >= g_),",
           "MONO = sp.Implies(sp.And(b_ > 0, t_ > b_),"),
    # --- false trusted lemmas
    Mutant("false lemma: TR Thm 6 Chernoff bound without t > beta", P + "tr_theorem_6.py",
           "    return sp.Implies(sp.And(t > b_, n > 0), tail(n, t) <= Exp(-n * phi(t, b_)))",
           "    return sp.Implies(sp.And(n > 0), tail(n, t) <= Exp(-n * phi(t, b_)))"),
    Mutant("false lemma: TR Thm 6 term(n_m) without gamma n_m >= k - 1", P + "tr_theorem_6.py",
           "TERM_AT_NM = sp.Implies(sp.And(g_ * nm_ < k_, g_ * nm_ >= k_ - 1),",
           "TERM_AT_NM = sp.Implies(sp.And(g_ * nm_ < k_),"),
    # --- one mutant per kernel guard (caught by tr-theorem-3's kernel controls)
    Mutant("cvc5 answer copied from z3", K + "smt.py",
           'q.answers = {"z3": z, "cvc5": cvc5_check(q.smtlib(), cvc5_rlimit)}',
           'q.answers = {"z3": z, "cvc5": z}'),
    Mutant("derived-vs-given check disabled", K + "core.py",
           "    derived = derived or a in s.derived", "    derived = False"),
    Mutant("induction base unchecked", K + "core.py",
           '("base proves P(start)", base.concludes == formula(start)),',
           '("base proves P(start)", True),'),
    Mutant("certificate tie disabled (custom check)", K + "core.py",
           "        if problem is None and (decided is None or shown != decided):",
           "        if False:"),
    Mutant("certificate tie disabled (sympy)", K + "core.py",
           "        if problem is None and (tl != lhs or tr != rhs):", "        if False:"),
    Mutant("domain check disabled", K + "core.py",
           "    if problem:  # only where both sides are defined on the declared domain",
           "    if False:"),
    Mutant("statement identity not checked", K + "statement.py",
           "    return step.concludes is not None and statement.unfold(step.concludes) == target",
           "    return step.concludes is not None"),
    Mutant("extra hypothesis allowed", K + "statement.py",
           'if hasattr(src, "formula") and src.formula not in allowed:', "if False:"),
    Mutant("fingerprint not compared", K + "statement.py",
           "    dec.reviewed = reviewed == statement.fingerprint", "    dec.reviewed = True"),
    Mutant("lemma spot check skipped", K + "statement.py",
           "                dec.problems += lemma_problems(f)", "                pass"),
    # --- the givens' model check (kernel.consistency): a definition no model satisfies
    Mutant("consistency check of the givens disabled", K + "runner.py",
           "    dec.problems += dec.consistency.problems", "    pass"),
    Mutant("givens contradicted: CP Thm 5 least upper bound stated for y <= d",
           P + "cp_theorem_5.py", "LUB_LEAST = sp.Implies(y < d, term_at(Mw(y)) > y)",
           "LUB_LEAST = sp.Implies(y <= d, term_at(Mw(y)) > y)"),
    Mutant("givens contradicted: TR Thm 6 least upper bound stated for y <= d",
           P + "tr_theorem_6.py", "SUP_LEAST = sp.Implies(y_ < d_, sp.Or(",
           "SUP_LEAST = sp.Implies(y_ <= d_, sp.Or("),
    Mutant("statement gate ignored by run_module", K + "runner.py",
           "    if dec.problems:  # PROVED only for the statement itself",
           "    if False:  # PROVED only for the statement itself"),
]

#: which theorem each mutant is checked against (a mutant of the shared machinery: one that uses it).
THEOREM = {
    "core.py": "cp-theorem-1", "runner.py": "tr-theorem-3", "smt.py": "cp-theorem-5", "cp_theorem_1.py": "cp-theorem-1",
    "cp_theorem_2.py": "cp-theorem-2", "cp_theorem_3.py": "cp-theorem-3",
    "cp_proposition_4.py": "cp-proposition-4", "cp_theorem_5.py": "cp-theorem-5",
    "cp_theorem_6.py": "cp-theorem-6", "tr_definition_2.py": "tr-definition-2",
    "tr_theorem_2.py": "tr-theorem-2", "tr_theorem_3.py": "tr-theorem-3",
    "tr_theorem_5.py": "tr-theorem-5",
    "tr_theorem_6.py": "tr-theorem-6", "cp6_witness.py": "cp-theorem-6",
    # the kernel's guards: tr-theorem-3 runs one negative control per guard (kernel.selftest)
    "statement.py": "tr-theorem-3", "lemmas.py": "tr-theorem-3", "selftest.py": "tr-theorem-3",
}
OVERRIDE: dict[str, str] = {
    "chaining check disabled": "cp-theorem-5",
    "induction rule accepts any inductive step": "cp-theorem-5",
    "side channel: the claim slipped to the solvers as a hypothesis": "tr-theorem-3",
    "cvc5 answer copied from z3": "tr-theorem-3",
    "derived-vs-given check disabled": "tr-theorem-3",
    "induction base unchecked": "tr-theorem-3",
    "certificate tie disabled (custom check)": "tr-theorem-3",
    "certificate tie disabled (sympy)": "tr-theorem-3",
    "domain check disabled": "tr-theorem-3",
    "statement gate ignored by run_module": "tr-theorem-3",
    "consistency check of the givens disabled": "tr-theorem-3",
}

#: cvc5 in the mutants only in the deep run (see the module docstring).
BOTH_SOLVERS = os.environ.get("HYPOTHESIS_PROFILE", "") in ("deep", "dps-deep")
#: the proof modules re-executed in each child, in import order (then the theorem's module).
SHARED = ("smt", "finite", "core", "lemmas", "consistency", "statement", "selftest", "reviewed",
          "runner")
TIMEOUT_S = 300


def theorem_of(mutant: Mutant) -> str:
    return OVERRIDE.get(mutant.name, THEOREM[mutant.path.rsplit("/", 1)[1]])


def _z3_on_text(text: str, rlimit: int = 5_000_000) -> str:
    """Second opinion without cvc5: z3 on the exported SMT-LIB 2 text (its own resource
    limit, ``rlimit`` as cvc5's would be)."""
    import z3

    s = z3.Solver()
    s.set("rlimit", rlimit)
    s.from_string(text)
    return str(s.check())


def _child(mutant: Mutant | None, theorem_id: str, both: bool) -> list:
    """Runs in the forked child: fresh proof modules (mutated in memory), then the theorem."""
    import dps_verify_proofs as theorems

    import dps_verify.paper as paper_pkg
    from dps_verify.paper import kernel as proofs

    mod_name = proofs._MODULES[theorem_id]
    # (package, name, path relative to dps_verify/) in import order: the kernel afresh for a
    # mutant of the kernel; otherwise this process's kernel, warm (see the module docstring)
    fresh_kernel = mutant is not None and mutant.path.startswith(K)
    order = [(proofs, name, f"{K}{name}.py") for name in SHARED] if fresh_kernel else []
    if not fresh_kernel and not both:
        sys.modules["dps_verify.paper.kernel.smt"].cvc5_check = _z3_on_text  # type: ignore[attr-defined]
    if mutant is not None and mutant.path == W:
        order.append((paper_pkg, "cp6_witness", W))
    order.append((theorems, mod_name, f"{P}{mod_name}.py"))
    applied = mutant is None
    for package, name, rel in order:
        full = f"{package.__name__}.{name}"
        path = PACKAGE / rel
        src = path.read_text()
        if mutant is not None and mutant.path == rel:
            src, applied = mutant.apply_to(src), True
        module = types.ModuleType(full)
        module.__file__ = str(path)
        sys.modules[full] = module
        setattr(package, name, module)
        exec(compile(src, str(path), "exec"), module.__dict__)  # noqa: S102
        if name == "smt" and not both:
            module.cvc5_check = _z3_on_text  # type: ignore[attr-defined]
    if not applied:
        raise StaleMutant(f"{mutant.name}: {mutant.path} is not a module run here")
    r = sys.modules["dps_verify.paper.kernel.runner"].run_module(
        theorem_id, sys.modules[f"dps_verify_proofs.{mod_name}"])
    bad = [s for s in r.steps + r.negative_controls if not s.ok]
    problems = list(r.decision.problems) if r.decision is not None else []
    notes = [f"{s.name}: {s.verdict.value} ({s.note})" for s in bad]
    return [r.verdict == r.expected and not bad,
            f"{r.verdict.value}; unexpected: {notes}; statement problems: {problems}"]


def run_forked(mutant: Mutant | None, theorem_id: str, both: bool = BOTH_SOLVERS) -> tuple[bool, str]:
    """``(all verdicts as recorded, detail)`` for ``theorem_id`` with ``mutant`` applied, in a
    forked child of this (warm) process."""
    rfd, wfd = os.pipe()
    pid = fork_with_heap_frozen()  # the child's collections skip the parent's objects
    if pid == 0:  # child
        os.close(rfd)
        signal.alarm(TIMEOUT_S)
        try:
            out = _child(mutant, theorem_id, both)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            out = [False, f"{type(exc).__name__}: {exc}"]
        with os.fdopen(wfd, "w") as fh:
            json.dump(out, fh)
        os._exit(0)
    os.close(wfd)
    with os.fdopen(rfd) as fh:
        data = fh.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return False, f"child died (status {status})"
    ok, detail = json.loads(data)
    return bool(ok), str(detail)


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """Import the heavy libraries once, before the first fork."""
    import cvc5  # noqa: F401
    import sympy  # noqa: F401
    import z3  # noqa: F401

    import dps_verify.paper.kernel  # noqa: F401


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


#: Mutants that must be caught by the kernel's statement gate itself (the message it must
#: give), not by a changed fingerprint or a step's verdict: the statements' hypotheses are
#: written out, so a narrowed given is an extra hypothesis; a refutation's witness is checked
#: against the statement.  The default run's mutants name the guard that catches them here too.
KERNEL_MESSAGE = {
    "narrowed hypothesis: CP Thm 2 kernel values <= 1/2": "which is not a hypothesis",
    "narrowed hypothesis: CP Thm 3 coin weight p <= 1/2": "which is not a hypothesis",
    "narrowed hypothesis: CP Prop 4 k >= 2": "which is not a hypothesis",
    "narrowed hypothesis: TR Thm 3 beta2/beta1 < 1/2": "which is not a hypothesis",
    "narrowed hypothesis: CP Thm 5 k >= 2": "which is not a hypothesis",
    "narrowed hypothesis: TR Thm 6 E(1 - beta) >= 2": "which is not a hypothesis",
    "weakened conclusion: CP Prop 4 event bound without delta": "no PROVED step concludes",
    # caught by the givens' model check, not by the (also changed) statement fingerprint
    "givens contradicted: CP Thm 5 least upper bound stated for y <= d":
        "is FALSE in model 1",
    "givens contradicted: TR Thm 6 least upper bound stated for y <= d":
        "is FALSE in model 1",
    "refutation: TR Thm 2 witness misses a hypothesis (A_i not ln 3-DP)":
        "the witness misses the hypothesis r1 <= E1",
    "refutation: TR Thm 2 witness with a wrong constant (e^eps for e^eps_i)": "refutes nothing",
    "refutation: CP Thm 6 witness with a wrong constant (e^eps for e^eps')":
        "the witness misses the definition Eq(E, E1*Eprime)",
    # the chain check: the assembled step's sum is no longer proved by the removed induction
    "CP Thm 2 sum over outputs without its induction":
        "assembled: CP Def 2 for A2(A1): ERROR (unlinked: assumes",
    # a disabled guard: its kernel control (kernel.selftest) is no longer rejected
    "consistency check of the givens disabled": "kernel control: contradictory definitions",
    "cvc5 answer copied from z3": "kernel control: cvc5 consulted",
}

#: The default run's mutants, by the kind of guard that must catch them: the cheapest mutant
#: per kind (on the quickest theorem that exercises the guard; ~0.2-0.8 s of CPU each), each
#: named with the guard's own message in :data:`KERNEL_MESSAGE`.  The deep profile runs every
#: mutant of :data:`MUTANTS`, these included.
DEFAULT_BY_GUARD: dict[str, tuple[str, ...]] = {
    "statement identity": ("weakened conclusion: CP Prop 4 event bound without delta",),
    "hypothesis check": ("narrowed hypothesis: CP Prop 4 k >= 2",),
    "chaining": ("CP Thm 2 sum over outputs without its induction",),
    "witness": ("refutation: TR Thm 2 witness misses a hypothesis (A_i not ln 3-DP)",),
    "model check": ("consistency check of the givens disabled",),
    "solver": ("cvc5 answer copied from z3",),
}
DEFAULT = frozenset(name for names in DEFAULT_BY_GUARD.values() for name in names)
#: The unmutated baseline the default run forks: it shows the fork harness (fresh modules, z3
#: re-reading the SMT-LIB text in cvc5's slot) giving the recorded verdicts on a theorem with
#: solver steps.  The other baselines run under the deep profile: a default mutant passes only
#: with its guard's own message in the detail (:data:`KERNEL_MESSAGE`), which an unmutated run,
#: or a harness failure, cannot produce, so "caught" there never rests on a baseline.
DEFAULT_BASELINES = frozenset({"cp-proposition-4"})


@needs_fork
@pytest.mark.parametrize("theorem_id", [
    t if t in DEFAULT_BASELINES else pytest.param(t, marks=pytest.mark.deep)
    for t in sorted({theorem_of(m) for m in MUTANTS})])
def test_unmutated_checks_pass(theorem_id: str):
    """The same check passes on the unmutated package (so a failure means 'caught')."""
    ok, detail = run_forked(None, theorem_id)
    assert ok, f"{theorem_id}: {detail}"


@needs_fork
@pytest.mark.parametrize("mutant", [
    pytest.param(m, id=m.name) if m.name in DEFAULT
    else pytest.param(m, id=m.name, marks=pytest.mark.deep) for m in MUTANTS])
def test_mutant_caught(mutant: Mutant):
    ok, detail = run_forked(mutant, theorem_of(mutant))
    assert "StaleMutant" not in detail, detail
    assert not ok, f"mutant survived: {mutant.name} ({detail})"
    if mutant.name in KERNEL_MESSAGE:
        assert KERNEL_MESSAGE[mutant.name] in detail, f"not caught by the kernel: {detail}"


def test_default_run_keeps_a_mutant_of_every_guard_kind():
    """Each guard kind has a mutant in the default run, listed in :data:`MUTANTS` and required
    to be caught with that guard's own message (so the default run fails if the guard breaks)."""
    assert set(DEFAULT_BY_GUARD) == {"statement identity", "hypothesis check", "chaining",
                                     "witness", "model check", "solver"}
    names = {m.name for m in MUTANTS}
    for kind, chosen in DEFAULT_BY_GUARD.items():
        assert chosen, kind
        for name in chosen:
            assert name in names and name in KERNEL_MESSAGE, (kind, name)
    assert DEFAULT_BASELINES <= {theorem_of(m) for m in MUTANTS if m.name in DEFAULT}


def test_every_mutant_targets_a_proof_module():
    for m in MUTANTS:
        assert m.path.startswith((P, K)) or m.path == W, m.name
        m.apply_to((PACKAGE / m.path).read_text())  # each snippet exactly once


def test_every_kind_of_mutant_is_listed():
    """The kinds a review found surviving, and one mutant per kernel guard, are all here."""
    names = " | ".join(m.name for m in MUTANTS)
    for kind in ("dropped final step", "weakened conclusion", "narrowed hypothesis",
                 "side channel", "false lemma", "cvc5 answer copied", "derived-vs-given",
                 "induction base unchecked", "certificate tie", "domain check",
                 "chaining check disabled", "statement identity", "extra hypothesis",
                 "fingerprint", "spot check", "statement gate", "refutation:",
                 "witness hypotheses unchecked", "refutation without a witness",
                 "consistency check of the givens disabled", "givens contradicted"):
        assert kind in names, kind
