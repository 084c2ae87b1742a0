"""CP Theorem 6 (§3.4; proof in App. A.3): eps1-safe k-anonymization (A_m is eps1-DP) with
sampling is (beta, eps, d(k, beta, eps - eps1))-DPS for eps >= -ln(1 - beta) + eps1.

The appendix factorises Pr[A(D) = S] = sum_g Pr[A_m(D) = g] Pr[g(Lambda(D)) = S], i.e. A_m
sees the unsampled D, independently of the sample; CP Def 3 applies all of A (A_m included)
to the sample.  For each g the strongly-safe analysis (CP Thm 5) gives an
(eps' = eps - eps1, delta) pair (P_g, Q_g); w, w' are A_m's laws on D, D_-t.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import cast

import mpmath as mp
import sympy as sp
import z3

from dps_verify.paper import cp6_witness
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
from dps_verify.paper.kernel.statement import Counterexample, Evidence, Statement, refute

from . import engine_checks

CLAIM = "eps1-safe k-anonymization is (beta, eps, d(k, beta, eps - eps1))-DPS."
REFERENCE = "CP Thm 6, §3.4 and App. A.3"
EXPECTED = Verdict.REFUTED
SUMMARY = ("REFUTED under CP Def 3, where A (A_m included) runs on the sample: an exact "
           "instance (k = 5, beta = 1/2, e^eps1 = 3, e^eps = 12, six records) has hockey-stick "
           "delta 17/384 > d(5, 1/2, ln 4) = 1/32, with A_m exactly ln 3-DP.  PROVED when A_m "
           "runs on the unsampled D (the appendix's factorisation, which is false under "
           "Def 3: exact witness).  The appendix's pointwise step ('ratio <= e^eps1 r(g)' per g) "
           "is refuted too: a mixture's bad set is not inside each component's (bad mass 5/12 "
           ">> delta = 1/10).")


def _hockey_queries(G: int, *, with_e1: bool = True, delta: bool = True) -> list:
    e1, e2, d = z3.Real("E1"), z3.Real("Eprime"), z3.Real("delta")
    w = [z3.Real(f"w{i}") for i in range(G)]
    w2 = [z3.Real(f"w'{i}") for i in range(G)]
    P = [z3.Real(f"P{i}") for i in range(G)]
    Q = [z3.Real(f"Q{i}") for i in range(G)]
    hyp = [e1 >= 1, e2 >= 1, d >= 0, z3.Sum(w) == 1, z3.Sum(w2) == 1]
    for i in range(G):
        hyp += [w[i] >= 0, w2[i] >= 0, w[i] <= e1 * w2[i], w2[i] <= e1 * w[i],
                P[i] >= 0, P[i] <= 1, Q[i] >= 0, Q[i] <= 1,
                P[i] <= e2 * Q[i] + d, Q[i] <= e2 * P[i] + d]
    big = e1 * e2 if with_e1 else e2
    dd = d if delta else z3.RealVal(0)
    mp_ = z3.Sum([a * b for a, b in zip(w, P)])
    mq = z3.Sum([a * b for a, b in zip(w2, Q)])
    return [(mp_ <= big * mq + dd, hyp), (mq <= big * mp_ + dd, hyp)]


S, T, W, E1, E2, d = sp.symbols("S T W E1 Eprime delta", real=True)
#: the witness's A_m: probability pc(dist) of choosing g1 at distance dist from the state
#: (t in, 4 a's); an opaque function defined by its recurrence.
pc = sp.Function("pc")
dist_ = sp.Symbol("dist", integer=True, nonnegative=True)
PC_DEF = [sp.Eq(pc(0), sp.Rational(3, 4)), sp.Eq(pc(dist_ + 1), pc(dist_) / 3)]


def pc_range(x: sp.Expr) -> sp.Basic:
    """0 < pc(x) <= 3/4."""
    return sp.And(pc(x) > 0, pc(x) <= sp.Rational(3, 4))
wg, wg2, Pg, Qg = sp.symbols("w w' P Q", real=True)
TERM_HYPS = [E1 >= 1, E2 >= 1, d >= 0, wg >= 0, wg2 >= 0, wg <= E1 * wg2, Pg >= 0, Qg >= 0,
             Pg <= E2 * Qg + d]
#: the termwise conclusion's right-hand side (one definition for the step, pin and control).
TERMWISE_RHS = E1 * E2 * wg2 * Qg + wg * d
#: per recoding g (an index): w(g), w'(g) = A_m's laws on D, D_-t, and P(g), Q(g); SL(N), SR(N)
#: are the termwise lemma's two sides summed over the first N recodings (opaque for z3).
w_, w2_, P_, Q_, SL, SR = (sp.Function(x) for x in ("w", "w'", "P", "Q", "SL", "SR"))
g_, N_ = sp.symbols("g N", integer=True, nonnegative=True)
G_ = sp.Symbol("G", integer=True, positive=True)  # the number of recodings


def at(expr: sp.Expr, x: sp.Expr) -> sp.Expr:
    """``expr`` (in the plain symbols w, w', P, Q) for recoding x."""
    return expr.subs({wg: w_(x), wg2: w2_(x), Pg: P_(x), Qg: Q_(x)}, simultaneous=True)


def termwise(x: sp.Expr) -> sp.Basic:
    """The termwise lemma for recoding x: w P <= e^eps1 e^eps' w' Q + w delta."""
    return sp.Le(at(wg * Pg, x), at(TERMWISE_RHS, x))


def summed(n: sp.Expr) -> sp.Basic:
    return sp.Le(SL(n), SR(n))


SUM_DEFS = [sp.Eq(SL(0), 0), sp.Eq(SR(0), 0), sp.Eq(SL(N_ + 1), SL(N_) + at(wg * Pg, N_)),
            sp.Eq(SR(N_ + 1), SR(N_) + at(TERMWISE_RHS, N_))]
TOTALS = [sp.Eq(S, SL(G_)), sp.Eq(SR(G_), E1 * E2 * T + W * d), sp.Eq(W, 1)]
#: what the theorem (in the appendix's reading) takes as given (chaining check, proofs.core).
GIVEN = (
    given("setting", "e^eps1, e^eps' >= 1, delta >= 0, probabilities non-negative",
          E1 >= 1, E2 >= 1, d >= 0, S >= 0, T >= 0)
    + given("setting", "A_m's laws and the per-recoding probabilities are non-negative",
            *[at(h, g_) for h in TERM_HYPS[3:5] + TERM_HYPS[6:8]], over=(g_,))
    + given("hypothesis", "A_m is eps1-DP (CP Def 6), run on the unsampled D (App. A.3)",
            at(TERM_HYPS[5], g_), over=(g_,))
    + given("lemma", "for a fixed recoding g, the sampled strongly-safe anonymization is "
            "(eps', delta)-DP with eps' = eps - eps1: CP Thm 5, proved in cp-theorem-5",
            at(TERM_HYPS[8], g_), over=(g_,), label="CP Thm 5 for each recoding (cp-theorem-5)",
            source="CP Thm 5, PROVED from its reviewed statement by cp-theorem-5 in this suite",
            spot=engine_checks.sdgs_within_d)
    + given("definition", "SL(N), SR(N): the termwise lemma's two sides summed over the first "
            "N recodings (empty sums 0)", *SUM_DEFS, over=(N_,))
    + given("definition", "over all G recodings: S = SL(G), SR(G) = e^eps1 e^eps' T + W delta "
            "with T = sum w' Q and W = sum w = 1", *TOTALS)
    + given("definition", "the witness's choice probability Pr[A_m(S) = g1] = pc(dist(S)) = "
            "(3/4) 3^-dist(S): pc(0) = 3/4 and pc(dist + 1) = pc(dist)/3", *PC_DEF,
            over=(dist_,))
)


#: CP Thm 6 as printed, under CP Def 3 (the whole of A, A_m included, runs on the sample), for
#: one event O: S = Pr[A^beta(D) in O], T = Pr[A^beta(D_-t) in O].  Its variables: beta, k, the
#: eps1 of A_m (E1 = e^eps1) and R_Am, A_m's worst probability ratio over all neighbouring
#: datasets (A_m is eps1-DP: R_Am <= E1), eps' = eps - eps1 in CP Thm 5's regime (E2 = e^eps'),
#: e^eps = E1 E2, and d = CP Thm 5's d(k, beta, eps').  Refuted by an exact instance (WITNESS).
b6, E6, R_am = sp.symbols("beta E R_Am", real=True)
k6 = sp.Symbol("k", integer=True)
d_cp5 = sp.Function("d_CP5")  # CP Thm 5's d(k, beta, eps') at E2 = e^eps'
STATEMENT = Statement(
    "CP Thm 6, §3.4 and App. A.3",
    "eps1-safe k-anonymization (an eps1-DP choice of recoding, then strongly-safe "
    "k-anonymization) after Bernoulli(beta) sampling is (beta, eps, d(k, beta, eps - eps1))-DPS "
    "for eps >= eps1 - ln(1 - beta).",
    reading="CP Def 3: the recoding choice A_m runs on the sample, as the rest of A does",
    hypotheses=(b6 > 0, b6 < 1, k6 >= 1, E1 >= 1, R_am <= E1, E2 * (1 - b6) >= 1, S >= 0,
                T >= 0),
    definitions=(sp.Eq(E6, E1 * E2), sp.Eq(d, d_cp5(k6, b6, E2))),
    conclusion=S <= E6 * T + d)


def _witness_values() -> dict[sp.Symbol, Evidence]:
    """The exact counterexample's values, every constant read from :mod:`cp6_witness`."""
    w = cp6_witness
    s_, t_, how = w.event_masses()
    ratio, rhow, complete = w.am_worst_ratio()
    dval, dhow = w.d_bound()
    return {b6: Evidence(w.BETA, "cp6_witness.BETA"), k6: Evidence(w.K, "cp6_witness.K"),
            E6: Evidence(w.E_EPS, f"e^eps, eps = {w.EPS} (cp6_witness.EPS)"),
            E1: Evidence(w.E_EPS1, f"e^eps1, eps1 = {w.EPS1} (cp6_witness.EPS1)"),
            E2: Evidence(w.E_EPS / w.E_EPS1, "e^(eps - eps1) from cp6_witness.EPS, EPS1"),
            R_am: Evidence(ratio, rhow, complete),
            d: Evidence(dval, f"cp6_witness.d_bound: {dhow}"),
            S: Evidence(s_, how), T: Evidence(t_, how)}


def _d_exact(k_: object, beta: object, e2: object) -> Fraction:
    """d(k, beta, ln e2) by the engine's certified d_certified (exact for rational e2)."""
    from dps_verify.worstcase.closed_forms import d_certified

    c = d_certified(int(str(k_)), Fraction(str(beta)), f"ln({e2})")
    if c.lower != c.upper:
        raise ArithmeticError(f"d not exact: [{c.lower}, {c.upper}]")
    return Fraction(c.upper)


#: the counterexample the kernel checks against STATEMENT (dps_verify.paper.kernel.statement).
WITNESS = Counterexample(
    "D = {t, a, a, a, a, a}, beta = 1/2, k = 5, e^eps1 = 3, e^eps = 12; A_m picks recoding g1 "
    "with probability (3/4) 3^-dist on the sample (cp6_witness)", _witness_values,
    {"d_CP5": _d_exact})


def _factorisation() -> tuple[Verdict, dict[str, str] | None, str]:
    """D = {t, a}, beta = 1/2, k = 1.  A_m(T) = g1 w.p. 2/3 if |T| odd else 1/3 (ln 2-DP);
    g1(t) = x, g2(t) = y.  Event S = {x} (t sampled alone, mapped by g1)."""
    beta = Fraction(1, 2)

    def am(size: int) -> Fraction:
        return Fraction(2, 3) if size % 2 else Fraction(1, 3)

    true = Fraction(0)
    for keep_t, keep_a in product((0, 1), repeat=2):
        pr = (beta if keep_t else 1 - beta) * (beta if keep_a else 1 - beta)
        if keep_t and not keep_a:
            true += pr * am(1)
    factorised = am(2) * (beta * (1 - beta))
    refuted = true != factorised
    return (Verdict.REFUTED if refuted else Verdict.OPEN), {
        "Pr[A^beta(D) = {x}] (Def 3)": str(true),
        "sum_g Pr[A_m(D)=g] Pr[g(Lambda(D))={x}]": str(factorised)}, (
        "A_m reads the sample, so g and the sample are dependent")


def _def3_witness(base: int = 3, on_sample: bool = True
                  ) -> tuple[Verdict, dict[str, str] | None, str]:
    """The exact counterexample of :mod:`dps_verify.paper.cp6_witness` (D = {t, a, a, a, a, a},
    beta = 1/2, k = 5, e^eps1 = 3, e^eps = 12): exact hockey-stick delta 17/384 > d(5, 1/2,
    ln 4) = 1/32.  ``base`` != 3 (A_m not ln 3-DP) and ``on_sample=False`` (A_m run on the
    unsampled data, the appendix's model) are the negative controls: neither may refute.

    A witness that does not meet the theorem's hypotheses is an ERROR, never a refutation nor a
    pass: A_m must be eps1-DP over all datasets (the premise check of :mod:`cp6_witness`), and
    eps - eps1 must lie in CP Thm 6's regime e^(eps - eps1) (1 - beta) >= 1, both read from the
    witness's one set of constants."""
    res = cp6_witness.check(base, on_sample)
    got, bound = res["delta"], res["d"]
    regime = (cp6_witness.E_EPS / cp6_witness.E_EPS1) * (1 - cp6_witness.BETA) >= 1
    if not (res["dp"] and regime):
        why = [] if res["dp"] else [f"A_m is not eps1-DP over all datasets ({res['dp_how']})"]
        why += [] if regime else ["eps - eps1 is below -ln(1 - beta)"]
        return Verdict.ERROR, None, ("the witness does not meet CP Thm 6's hypotheses: "
                                     + "; ".join(why))
    if not res["refuted"]:
        return (Verdict.BOUNDED if got.upper <= bound else Verdict.OPEN), None, (
            f"not a counterexample: A_m ln 3-DP {res['dp']}, exact delta {got.upper} vs d "
            f"{bound} ({'A_m on the sample' if on_sample else 'A_m on the unsampled D'})")
    return Verdict.REFUTED, cp6_witness.summary(res), (
        "A_m favours g1 when t is in the sample with 4 class-mates and disfavours it with 5 "
        "class-mates and no t: removing t and adding a class-mate costs e^(2 eps1), while the "
        "appendix's bound pays e^eps1 once (its factorisation treats A_m's choice as "
        "independent of the sample).  Found by an LP over all eps1-DP choices between two "
        "recodings (scipy, float screen), then verified exactly here")


def _pointwise_mixture() -> tuple[Verdict, dict[str, str] | None, str]:
    F = Fraction
    e1, e2, d = F(2), F(2), F(1, 10)
    P = [[F(3, 5), F(2, 5)], [F(1, 20), F(19, 20)]]
    Q = [[F(3, 10), F(7, 10)], [F(0), F(1)]]
    w, w2 = [F(2, 3), F(1, 3)], [F(1, 3), F(2, 3)]

    def bad(p: Fraction, q: Fraction, e: Fraction) -> bool:
        return p > e * q or q > e * p

    comp_ok = all(sum(P[g][s] for s in range(2) if bad(P[g][s], Q[g][s], e2)) < d
                  and sum(Q[g][s] for s in range(2) if bad(P[g][s], Q[g][s], e2)) < d
                  for g in range(2))
    am_ok = all(w[g] <= e1 * w2[g] and w2[g] <= e1 * w[g] for g in range(2))
    # sums of two Fractions are Fractions (sum's int start only matters when empty)
    mixP = [cast(Fraction, sum(w[g] * P[g][s] for g in range(2))) for s in range(2)]
    mixQ = [cast(Fraction, sum(w2[g] * Q[g][s] for g in range(2))) for s in range(2)]
    mix_bad = sum(mixP[s] for s in range(2) if bad(mixP[s], mixQ[s], e1 * e2))
    with mp.workdps(30):
        recheck = mp.mpf(mix_bad.numerator) / mix_bad.denominator >= mp.mpf(1) / 10
    refuted = comp_ok and am_ok and mix_bad >= d and recheck
    return (Verdict.REFUTED if refuted else Verdict.OPEN), {
        "e^eps1": "2", "e^(eps-eps1)": "2", "delta": "1/10",
        "P_g (D)": "g1 (3/5, 2/5), g2 (1/20, 19/20)", "Q_g (D_-t)": "g1 (3/10, 7/10), g2 (0, 1)",
        "w (D)": "(2/3, 1/3)", "w' (D_-t)": "(1/3, 2/3)",
        "mixture on output 1": f"{mixP[0]} vs {mixQ[0]} (ratio {mixP[0] / mixQ[0]} > 4)",
        "mixture bad mass under D": str(mix_bad)}, "each component is pointwise-(ln 2, 1/10)"


def steps() -> list[Step]:
    base = prove_sym("sum over recodings: base N = 0", "Empty sums: SL(0) = 0 <= 0 = SR(0).",
                     summed(0), SUM_DEFS[:2])
    step = prove_sym(
        "sum over recodings: N -> N + 1",
        "SL(N) <= SR(N) (induction hypothesis) and the termwise lemma for recoding N give "
        "SL(N + 1) <= SR(N + 1).", summed(N_ + 1), [summed(N_), termwise(N_), *SUM_DEFS[2:]],
        local=[summed(N_)], over=(N_,))
    pbase = prove_sym("witness: pc(0) = 3/4 is in (0, 3/4]", "pc(0) = 3/4.", pc_range(0),
                      PC_DEF[:1])
    pstep = prove_sym("witness: pc(dist) in (0, 3/4] -> pc(dist + 1) in (0, 3/4]",
                      "pc(dist + 1) = pc(dist)/3 keeps 0 < pc <= 3/4.", pc_range(dist_ + 1),
                      [pc_range(dist_), PC_DEF[1]], local=[pc_range(dist_)], over=(dist_,))
    return [
        prove_sym("termwise lemma (A_m on unsampled D)",
                  "w_g P_g <= e^eps1 e^eps' w'_g Q_g + w_g delta for every recoding g.",
                  termwise(g_), [at(h, g_) for h in TERM_HYPS], over=(g_,)),
        exists_sym("pin: the termwise bound is attained",
                   "w = e^eps1 w' > 0 and P = e^eps' Q + delta give equality: neither factor "
                   "nor delta can be lowered.", sp.Eq(wg * Pg, TERMWISE_RHS),
                   TERM_HYPS + [E1 > 1, E2 > 1, d > 0, wg > 0, wg <= 1, wg2 <= 1, Pg <= 1, Qg <= 1]),
        base, step, induction("sum over recodings: every N",
                              "Induction on the number N of recodings summed.",
                              summed, N_, 0, base, step, over=(N_,)),
        prove_sym("assembled: hockey-stick, A_m on unsampled D",
                  "Over all G recodings S = SL(G) <= SR(G) = e^eps1 e^eps' T + W delta, and "
                  "W = sum_g w_g = 1: S <= e^eps1 e^eps' T + delta (the other direction: D "
                  "and D_-t exchanged).",
                  S <= E1 * E2 * T + d,
                  [E1 >= 1, E2 >= 1, d >= 0, S >= 0, T >= 0, *TOTALS, summed(G_)],
                  derived=[summed(G_)]),
        timed("factorisation under CP Def 3", "Pr[A^beta(D) = S] = sum_g Pr[A_m(D) = g] "
              "Pr[g(Lambda(D)) = S] when A (A_m included) runs on the sample.",
              "exact witness (Fraction)", _factorisation, expected=Verdict.REFUTED,
              role="remark"),
        pbase, pstep, induction("witness: 0 < pc(dist) <= 3/4 for every dist",
                                "Induction on dist.", pc_range, dist_, 0, pbase, pstep,
                                over=(dist_,)),
        prove_sym("witness: A_m is eps1-DP (e^eps1 = 3)",
                  "Pr[g1 | S] = pc(dist(S)) = (3/4) 3^-dist(S), dist(S) = |1 - #b(S)| + "
                  "|4 - #a(S)|: adding or removing one record moves dist by exactly 1, so for "
                  "neighbours the probabilities are p = pc(dist) and pc(dist + 1) = p/3 with "
                  "0 < p <= 3/4; then p/(p/3) = 3 and (1 - p/3)/(1 - p) <= 3: both choices "
                  "within the factor e^eps1 = 3 (the whole instance is also checked exactly).",
                  sp.And(pc(dist_) <= 3 * pc(dist_ + 1), pc(dist_ + 1) <= 3 * pc(dist_),
                         1 - pc(dist_ + 1) <= 3 * (1 - pc(dist_)),
                         1 - pc(dist_) <= 3 * (1 - pc(dist_ + 1))),
                  [pc(dist_) > 0, pc(dist_) <= sp.Rational(3, 4), PC_DEF[1]], over=(dist_,)),
        timed("theorem under CP Def 3 (A_m on the sample)",
              "The DPS guarantee with delta = d(k, beta, eps - eps1) when A (A_m included) runs "
              "on the sample: fails on an exact instance.",
              "exact witness (engine law, exact hockey-stick, certified d)", _def3_witness,
              expected=Verdict.REFUTED),
        timed("appendix pointwise step",
              "A mixture (weights eps1-close) of pointwise-(eps', delta) components is "
              "pointwise-(eps' + eps1, delta).", "exact witness (Fraction) + mpmath",
              _pointwise_mixture, expected=Verdict.REFUTED, role="remark"),
    ]


def _bad_witness_values(what: str) -> dict[sp.Symbol, Evidence]:
    """WITNESS's values with one part wrong: ``dp`` -- A_m's choice a factor 9 apart (not
    ln 3-DP); ``d`` -- d computed at eps instead of eps - eps1 (a wrong constant)."""
    vals = _witness_values()
    if what == "dp":
        ratio, rhow, complete = cp6_witness.am_worst_ratio(base=9)
        vals[R_am] = Evidence(ratio, rhow, complete)
    else:
        from dps_verify.worstcase.closed_forms import d_certified

        e2 = cp6_witness.E_EPS / cp6_witness.E_EPS1
        vals[d] = Evidence(d_certified(cp6_witness.K - 1, cp6_witness.BETA, f"ln({e2})").upper,
                           "d at k - 1 (wrong constant)")
    return vals


def _kernel_witness_check(what: str) -> tuple[Verdict, dict[str, str] | None, str]:
    ref = refute(STATEMENT, Counterexample(f"WITNESS with a wrong {what}",
                                    lambda: _bad_witness_values(what), WITNESS.interpret))
    return ref.verdict, None, "; ".join(ref.problems) or "the kernel accepted the witness"


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        timed("control: kernel's witness check, A_m not ln 3-DP",
              "The statement's witness with A_m's choice probabilities a factor 9 apart: the "
              "kernel must find the hypothesis R_Am <= E1 false (ERROR), never REFUTED.",
              "kernel witness check (statement.refute)", lambda: _kernel_witness_check("dp"),
              expected=Verdict.ERROR),
        timed("control: kernel's witness check, d at k - 1",
              "The statement's witness with d computed at k - 1: the kernel must find "
              "d's definition d = d_CP5(k, beta, e^(eps - eps1)) false (ERROR).",
              "kernel witness check (statement.refute)", lambda: _kernel_witness_check("d"),
              expected=Verdict.ERROR),
        timed("control: the witness with A_m run on the unsampled D",
              "The same instance under the appendix's model (A_m chooses once, on D): the "
              "bound holds there, so the witness must not refute it.",
              "exact law, exact hockey-stick, certified d",
              lambda: _def3_witness(on_sample=False), expected=Verdict.BOUNDED),
        timed("control: the witness with an A_m that is not ln 3-DP",
              "Choice probabilities (3/4) 9^-dist: the witness's premise check (A_m eps1-DP "
              "over all datasets) fails, so the witness is an ERROR, never a refutation.",
              "exact DP check",
              lambda: _def3_witness(base=9), expected=Verdict.ERROR),
        prove_sym("control: witness A_m with pc(dist + 1) = pc(dist)/9",
                  "Neighbouring choice probabilities a factor 9 apart: not within e^eps1 = 3.",
                  sp.And(pc(dist_) <= 3 * pc(dist_ + 1), pc(dist_ + 1) <= 3 * pc(dist_)),
                  [pc(dist_) > 0, pc(dist_) <= sp.Rational(3, 4),
                   sp.Eq(pc(dist_ + 1), pc(dist_) / 9)], expected=ref),
        exists_sym("control: pin of a weakened termwise bound (2 delta)",
                   "The termwise pin against w P <= e^eps1 e^eps' w' Q + 2 w delta: never "
                   "attained with w > 0, delta > 0, so the pin must fail.",
                   sp.Eq(wg * Pg, TERMWISE_RHS + wg * d),
                   TERM_HYPS + [E1 > 1, E2 > 1, d > 0, wg > 0, wg <= 1, wg2 <= 1, Pg <= 1, Qg <= 1], expected=ref),
        z3_all("control: e^eps1 factor dropped", "sum w P <= e^eps' sum w' Q + delta.",
               _hockey_queries(2, with_e1=False), expected=ref, bound="|G| = 2"),
        z3_all("control: delta dropped", "sum w P <= e^eps1 e^eps' sum w' Q.",
               _hockey_queries(2, delta=False), expected=ref, bound="|G| = 2"),
    ]
