"""CP Theorem 6 under the App. A.3 reading (also TR §4, "Towards practical k-anonymization"):
the recoding g is chosen by an eps1-DP mechanism A_m run on the *unsampled* dataset D, then D
is sampled with probability beta, then the strongly-safe k-anonymization Apply(g, ., k) runs on
the sample.  Then the whole is (eps, d(k, beta, eps - eps1))-DP (hockey-stick, CP Def 2) for
eps >= eps1 - ln(1 - beta).

Proof (the appendix's idea, made exact for the hockey-stick form): for an event O write
w_g = Pr[A_m(D) = g], w'_g = Pr[A_m(D_-t) = g], P_g = Pr[Apply(g, sample of D) in O], Q_g the
same on D_-t.  Under this reading the choice is independent of the sample, so
S = Pr[A(D) in O] = sum_g w_g P_g and T = sum_g w'_g Q_g.  CP Thm 5 (proved in cp-theorem-5)
gives P_g <= e^eps' Q_g + delta with eps' = eps - eps1, delta = d(k, beta, eps'), and A_m's
eps1-DP gives w_g <= e^eps1 w'_g; so w_g P_g <= e^eps1 e^eps' w'_g Q_g + w_g delta termwise,
and summing over g (induction on the number of recodings) with sum_g w_g = 1 gives
S <= e^eps T + delta.  The other direction is the same chain with D and D_-t exchanged
(w'_g <= e^eps1 w_g and Q_g <= e^eps' P_g + delta give T <= e^eps S + delta); both are proved
and the statement concludes both.  CP Thm 5 is used as a lemma with its precondition stated:
it gives the two per-recoding bounds when eps' >= -ln(1 - beta) (encoded Eprime (1 - beta) >= 1,
0 < beta < 1) and delta = d(k, beta, eps') (an opaque function d of k, beta and Eprime =
e^eps'); these are the statement's hypotheses, so the theorem's regime and its delta are part
of what is proved, not assumed away.

Under CP Def 3 (A_m sees the sample) the statement is false: ``cp-theorem-6`` refutes it with
an exact instance, and that instance's full-data variant is checked here numerically (exact
delta 1/64 <= d = 1/32), together with a family around it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import sympy as sp

from dps_verify.paper import cp6_witness
from dps_verify.paper.kernel.core import (
    Step,
    Verdict,
    exists_sym,
    induction,
    prove_sym,
    timed,
    z3_all,
)

# bound as a module, its names read when the steps are built: the kernel's registry may import
# this module while cp_theorem_6 itself is still being initialised (a direct first import of
# cp_theorem_6 loads the registry, which loads this module)
from . import cp_theorem_6 as cp6

CLAIM = ("eps1-safe k-anonymization with the recoding chosen on the unsampled D is "
         "(eps, d(k, beta, eps - eps1))-DP after sampling.")
REFERENCE = "CP Thm 6 under CP App. A.3's reading (TR §4, 'Towards practical k-anonymization')"
EXPECTED = Verdict.PROVED
SUMMARY = ("PROVED for the App. A.3 reading (A_m runs once on the unsampled D, independently of "
           "the sample): termwise w_g P_g <= e^eps1 e^eps' w'_g Q_g + w_g d from CP Thm 5 and "
           "A_m's eps1-DP, summed over the recodings by induction.  Checked numerically on the "
           "CP Def 3 witness family with A_m moved to the full data (exact delta <= d).  Under "
           "CP Def 3 itself the theorem is refuted (cp-theorem-6).")

#: CP Thm 5's parameters: beta, k and d(k, beta, eps') as an opaque function of (k, beta, e^eps').
beta_ = sp.Symbol("beta", real=True)
k_ = sp.Symbol("k", integer=True, positive=True)
dfun = sp.Function("d")
#: CP Thm 5's regime eps' >= -ln(1 - beta) (as Eprime (1 - beta) >= 1) and 0 < beta < 1.
REGIME = [beta_ > 0, beta_ < 1, cp6.E2 * (1 - beta_) >= 1]
#: the theorem's delta is CP Thm 5's d at (k, beta, eps - eps1).
LINK = sp.Eq(cp6.d, dfun(k_, beta_, cp6.E2))


def _swap(expr: Any, x: Any) -> Any:
    """``expr`` (in the plain symbols w, w', P, Q) for recoding x with D and D_-t exchanged."""
    return expr.subs({cp6.wg: cp6.w2_(x), cp6.wg2: cp6.w_(x), cp6.Pg: cp6.Q_(x), cp6.Qg: cp6.P_(x)},
                     simultaneous=True)


def _thm5(swapped: bool) -> Any:
    """CP Thm 5 for recoding g with its precondition: regime and delta = d(k, beta, eps') imply
    P(g) <= e^eps' Q(g) + delta (``swapped``: Q(g) <= e^eps' P(g) + delta)."""
    h = cp6.TERM_HYPS[8]
    return sp.Implies(sp.And(*REGIME, LINK), _swap(h, cp6.g_) if swapped else cp6.at(h, cp6.g_),
                      evaluate=False)


#: the swapped sums: SL2(N), SR2(N) are the swapped termwise lemma's two sides over the first N
#: recodings; over all G, T = SL2(G) and SR2(G) = e^eps1 e^eps' S + W' delta, W' = sum w' = 1.
SL2, SR2 = sp.Function("SL2"), sp.Function("SR2")
W2 = sp.Symbol("W'", real=True)


def _sum_defs2() -> list[Any]:
    N_ = cp6.N_
    return [sp.Eq(SL2(0), 0), sp.Eq(SR2(0), 0),
            sp.Eq(SL2(N_ + 1), SL2(N_) + _swap(cp6.wg * cp6.Pg, N_)),
            sp.Eq(SR2(N_ + 1), SR2(N_) + _swap(cp6.TERMWISE_RHS, N_))]


def _totals2() -> list[Any]:
    return [sp.Eq(cp6.T, SL2(cp6.G_)), sp.Eq(SR2(cp6.G_), cp6.E1 * cp6.E2 * cp6.S + W2 * cp6.d), sp.Eq(W2, 1)]


def termwise2(x: Any) -> Any:
    """The swapped termwise lemma for recoding x: w' Q <= e^eps1 e^eps' w P + w' delta."""
    return sp.Le(_swap(cp6.wg * cp6.Pg, x), _swap(cp6.TERMWISE_RHS, x))


def summed2(n: Any) -> Any:
    return sp.Le(SL2(n), SR2(n))


def conclusion() -> Any:
    """Both directions of the hockey-stick bound."""
    S, T, E1, E2, d = cp6.S, cp6.T, cp6.E1, cp6.E2, cp6.d
    return sp.And(S <= E1 * E2 * T + d, T <= E1 * E2 * S + d)


@cache
def _given() -> list[Any]:
    """The facts of cp-theorem-6's appendix reading, without the Def 3 witness's definitions,
    with CP Thm 5 as a lemma under its stated precondition (regime and delta = d) and both
    directions of A_m's eps1-DP and of CP Thm 5."""
    from dps_verify.paper.kernel.core import given

    from .engine_checks import sdgs_within_d

    g_ = cp6.g_
    plain_thm5 = cp6.at(cp6.TERM_HYPS[8], g_)
    kept = [f for f in cp6.GIVEN if not f.formula.has(cp6.pc) and f.formula != plain_thm5]
    return (
        kept
        + given("hypothesis", "CP Thm 5's regime for the anonymization: 0 < beta < 1 and "
                "eps - eps1 >= -ln(1 - beta), i.e. e^(eps - eps1) (1 - beta) >= 1", *REGIME)
        + given("hypothesis", "delta is CP Thm 5's d(k, beta, eps - eps1)", LINK)
        + given("hypothesis", "A_m is eps1-DP (CP Def 6), the other direction: w'(g) <= e^eps1 w(g)",
                _swap(cp6.TERM_HYPS[5], g_), over=(g_,))
        + given("lemma", "for a fixed recoding g, in CP Thm 5's regime, the sampled strongly-safe "
                "anonymization is (eps', d(k, beta, eps'))-DP, both directions: CP Thm 5, proved "
                "in cp-theorem-5", _thm5(False), _thm5(True), over=(g_,),
                label="CP Thm 5 for each recoding (cp-theorem-5)",
                source="CP Thm 5, PROVED from its reviewed statement by cp-theorem-5 in this suite",
                spot=sdgs_within_d)
        + given("definition", "SL2(N), SR2(N): the swapped termwise lemma's two sides summed over "
                "the first N recodings (empty sums 0)", *_sum_defs2(), over=(cp6.N_,))
        + given("definition", "over all G recodings, D and D_-t exchanged: T = SL2(G), SR2(G) = "
                "e^eps1 e^eps' S + W' delta with W' = sum w' = 1", *_totals2())
    )


@cache
def _statement() -> Any:
    """The kernel's statement (dps_verify.paper.kernel.statement), or None on a kernel without
    statements."""
    try:
        from dps_verify.paper.kernel.statement import Statement, formulas_of
    except ImportError:  # pragma: no cover - older kernels without statements
        return None
    given = _given()
    return Statement(
        "CP Thm 6, §3.4, under App. A.3's reading",
        "When the recoding is chosen by an eps1-DP mechanism on the unsampled dataset, and the "
        "dataset is then Bernoulli(beta)-sampled and strongly-safe k-anonymized with that "
        "recoding, every event O has Pr[A(D) in O] <= e^eps Pr[A(D_-t) in O] + d(k, beta, "
        "eps - eps1) and Pr[A(D_-t) in O] <= e^eps Pr[A(D) in O] + d(k, beta, eps - eps1), for "
        "0 < beta < 1 and eps >= eps1 - ln(1 - beta).",
        reading="App. A.3 / TR §4: A_m sees the unsampled D, independently of the sample",
        hypotheses=formulas_of(given, "hypothesis", "setting"),
        definitions=formulas_of(given, "definition"),
        lemmas=formulas_of(given, "lemma"),
        conclusion=conclusion())


def __getattr__(name: str) -> Any:
    """``GIVEN`` and ``STATEMENT``, built on first use (see the import of cp_theorem_6)."""
    if name == "GIVEN":
        return _given()
    if name == "STATEMENT":
        st = _statement()
        if st is None:
            raise AttributeError(name)
        return st
    raise AttributeError(name)


def _family(on_sample: bool = False) -> tuple[Verdict, dict[str, str] | None, str]:
    """Exact hockey-stick delta of the CP Def 3 witness's mechanism with A_m run on the
    unsampled D (``on_sample=False``, this theorem's reading) against the certified
    d(k, beta, eps - eps1), over :data:`dps_verify.paper.cp6_witness.FAMILY`;
    ``on_sample=True`` (CP Def 3) is the negative control: there the witness exceeds d, so the
    same check must fail."""
    ok, rows = cp6_witness.full_data_family(on_sample)
    if ok:
        return Verdict.BOUNDED, None, ("exact delta <= d on every member: " + "; ".join(rows))
    return Verdict.REFUTED, {"rows": "; ".join(rows)}, "some member exceeds d"


def steps() -> list[Step]:
    E1, E2, G_, N_, S, T, d, g_ = cp6.E1, cp6.E2, cp6.G_, cp6.N_, cp6.S, cp6.T, cp6.d, cp6.g_
    SUM_DEFS, TERM_HYPS, TERMWISE_RHS, TOTALS = cp6.SUM_DEFS, cp6.TERM_HYPS, cp6.TERMWISE_RHS, cp6.TOTALS
    Pg, Qg, wg, wg2, at, summed, termwise = cp6.Pg, cp6.Qg, cp6.wg, cp6.wg2, cp6.at, cp6.summed, cp6.termwise
    base = prove_sym("sum over recodings: base N = 0", "Empty sums: SL(0) = 0 <= 0 = SR(0).",
                     summed(0), SUM_DEFS[:2])
    step = prove_sym(
        "sum over recodings: N -> N + 1",
        "SL(N) <= SR(N) (induction hypothesis) and the termwise lemma for recoding N give "
        "SL(N + 1) <= SR(N + 1).", summed(N_ + 1), [summed(N_), termwise(N_), *SUM_DEFS[2:]],
        local=[summed(N_)], over=(N_,))
    defs2, totals2 = _sum_defs2(), _totals2()
    base2 = prove_sym("swapped sum: base N = 0", "Empty sums: SL2(0) = 0 <= 0 = SR2(0).",
                      summed2(0), defs2[:2])
    step2 = prove_sym(
        "swapped sum: N -> N + 1",
        "SL2(N) <= SR2(N) (induction hypothesis) and the swapped termwise lemma for recoding N "
        "give SL2(N + 1) <= SR2(N + 1).", summed2(N_ + 1), [summed2(N_), termwise2(N_), *defs2[2:]],
        local=[summed2(N_)], over=(N_,))
    nonneg = [at(h, g_) for h in TERM_HYPS[:5] + TERM_HYPS[6:8]]
    return [
        prove_sym("termwise lemma (A_m on the unsampled D)",
                  "w_g P_g <= e^eps1 e^eps' w'_g Q_g + w_g delta for every recoding g: CP Thm 5 "
                  "for g (in its regime, delta = d(k, beta, eps')) and A_m's eps1-DP on the "
                  "unsampled neighbours.",
                  termwise(g_), [*nonneg, at(TERM_HYPS[5], g_), *REGIME, LINK, _thm5(False)],
                  over=(g_,)),
        prove_sym("swapped termwise lemma (D and D_-t exchanged)",
                  "w'_g Q_g <= e^eps1 e^eps' w_g P_g + w'_g delta for every recoding g: CP Thm 5's "
                  "other direction and A_m's eps1-DP the other way.",
                  termwise2(g_), [*nonneg, _swap(TERM_HYPS[5], g_), *REGIME, LINK, _thm5(True)],
                  over=(g_,)),
        exists_sym("pin: the termwise bound is attained",
                   "w = e^eps1 w' > 0 and P = e^eps' Q + delta give equality: neither factor "
                   "nor delta can be lowered.", sp.Eq(wg * Pg, TERMWISE_RHS),
                   TERM_HYPS + [E1 > 1, E2 > 1, d > 0, wg > 0, wg <= 1, wg2 <= 1, Pg <= 1, Qg <= 1]),
        base, step, induction("sum over recodings: every N",
                              "Induction on the number N of recodings summed.",
                              summed, N_, 0, base, step, over=(N_,)),
        prove_sym("theorem: hockey-stick bound with A_m on the unsampled D",
                  "Over all G recodings S = SL(G) <= SR(G) = e^eps1 e^eps' T + W delta with "
                  "W = sum_g w_g = 1: S <= e^eps T + delta (the other direction: D and D_-t "
                  "exchanged, the same chain).",
                  S <= E1 * E2 * T + d,
                  [E1 >= 1, E2 >= 1, d >= 0, S >= 0, T >= 0, *TOTALS, summed(G_)],
                  derived=[summed(G_)]),
        base2, step2, induction("swapped sum: every N", "Induction on the number N of recodings summed.",
                                summed2, N_, 0, base2, step2, over=(N_,)),
        prove_sym("theorem: the other direction (D and D_-t exchanged)",
                  "Over all G recodings T = SL2(G) <= SR2(G) = e^eps1 e^eps' S + W' delta with "
                  "W' = sum_g w'_g = 1: T <= e^eps S + delta.",
                  T <= E1 * E2 * S + d,
                  [E1 >= 1, E2 >= 1, d >= 0, S >= 0, T >= 0, *totals2, summed2(G_)],
                  derived=[summed2(G_)]),
        timed("numeric: the witness family with A_m on the unsampled D",
              "Exact hockey-stick delta of the CP Def 3 witness's mechanism, A_m moved to the "
              "unsampled D, is at most the certified d(k, beta, eps - eps1) on "
              f"{len(cp6_witness.FAMILY)} members.",
              "exact law (Fraction), certified d", _family, expected=Verdict.BOUNDED,
              role="remark", bound=f"the {len(cp6_witness.FAMILY)} members of "
              "cp6_witness.FAMILY"),
    ]


def negative_controls() -> list[Step]:
    E1, E2, d, Pg, Qg, wg, wg2 = cp6.E1, cp6.E2, cp6.d, cp6.Pg, cp6.Qg, cp6.wg, cp6.wg2
    TERM_HYPS, TERMWISE_RHS, _hockey_queries = cp6.TERM_HYPS, cp6.TERMWISE_RHS, cp6._hockey_queries
    ref = Verdict.REFUTED
    return [
        timed("control: the witness family with A_m on the sample (CP Def 3)",
              "The same numeric check on CP Def 3's model must fail (the witness has delta "
              "17/384 > d = 1/32).", "exact law (Fraction), certified d",
              lambda: _family(on_sample=True), expected=ref, role="remark"),
        exists_sym("control: pin of a weakened termwise bound (2 delta)",
                   "w P <= e^eps1 e^eps' w' Q + 2 w delta is never attained with w, delta > 0.",
                   sp.Eq(wg * Pg, TERMWISE_RHS + wg * d),
                   TERM_HYPS + [E1 > 1, E2 > 1, d > 0, wg > 0, wg <= 1, wg2 <= 1, Pg <= 1, Qg <= 1],
                   expected=ref),
        z3_all("control: e^eps1 factor dropped", "sum w P <= e^eps' sum w' Q + delta.",
               _hockey_queries(2, with_e1=False), expected=ref, bound="|G| = 2"),
        z3_all("control: delta dropped", "sum w P <= e^eps1 e^eps' sum w' Q.",
               _hockey_queries(2, delta=False), expected=ref, bound="|G| = 2"),
    ]
