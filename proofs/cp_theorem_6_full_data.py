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
S <= e^eps T + delta.  The other direction is the same with D and D_-t exchanged.

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

@cache
def _given() -> list[Any]:
    """The facts of cp-theorem-6's appendix reading, without the Def 3 witness's definitions."""
    return [f for f in cp6.GIVEN if not f.formula.has(cp6.pc)]


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
        "eps - eps1) (and with D, D_-t exchanged), for eps >= eps1 - ln(1 - beta).",
        reading="App. A.3 / TR §4: A_m sees the unsampled D, independently of the sample",
        hypotheses=formulas_of(given, "hypothesis", "setting"),
        definitions=formulas_of(given, "definition"),
        lemmas=formulas_of(given, "lemma"),
        conclusion=cp6.S <= cp6.E1 * cp6.E2 * cp6.T + cp6.d)


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
    return [
        prove_sym("termwise lemma (A_m on the unsampled D)",
                  "w_g P_g <= e^eps1 e^eps' w'_g Q_g + w_g delta for every recoding g: CP Thm 5 "
                  "for g and A_m's eps1-DP on the unsampled neighbours.",
                  termwise(g_), [at(h, g_) for h in TERM_HYPS], over=(g_,)),
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
        timed("numeric: the witness family with A_m on the unsampled D",
              "Exact hockey-stick delta of the CP Def 3 witness's mechanism, A_m moved to the "
              "unsampled D, is at most the certified d(k, beta, eps - eps1) on six members.",
              "exact law (Fraction), certified d", _family, expected=Verdict.BOUNDED,
              role="remark", bound="the six members of cp6_witness.FAMILY"),
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
