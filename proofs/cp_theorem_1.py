"""CP Theorem 1 (§2.4; proof in App. A.1): amplification by sampling.

If A is (beta1, eps1, delta1)-DPS then it is (beta2, eps2, delta2)-DPS for beta2 < beta1 with
e^{eps2} = 1 + (beta2/beta1)(e^{eps1} - 1) and delta2 = (beta2/beta1) delta1.

Encoding: b = beta2/beta1 in (0, 1), E = e^{eps1} >= 1, d1 = delta1.  As in the appendix,
A^{beta2} is sampling at rate b followed by A^{beta1} (per record, two independent Bernoulli
stages keep a record with probability b beta1 = beta2: steps 1-2).  D_-t has m records and K
samples T_0, ..., T_{K-1} (K = 2^m); the samples of D are the T_i (t not sampled) and the
T_i + t (t sampled).  Per sample i (opaque functions for z3): pX(i) = Pr[Lambda_b(D_-t) = T_i],
p0(i) = Pr[Lambda_b(D) = T_i], p1(i) = Pr[Lambda_b(D) = T_i + t], q(i) = Pr[A^{beta1}(T_i) in O],
qt(i) = Pr[A^{beta1}(T_i + t) in O].  Then X = sum pX q (= Pr[A^{beta2}(D_-t) in O]),
Y = sum pX qt (the appendix's "t forced in" term) and Z = sum (p0 q + p1 qt)
(= Pr[A^{beta2}(D) in O]); the decomposition Z = (1 - b) X + b Y and the DPS bounds between
X and Y are chained inductions over the samples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import mpmath as mp
import sympy as sp

from dps_verify.paper.kernel.core import (
    Step,
    Verdict,
    chain_control,
    equation,
    exists_sym,
    given,
    induction,
    prove_sym,
    sympy_step,
    timed,
)
from dps_verify.paper.kernel.statement import Statement, formulas_of

from . import engine_checks

CLAIM = ("Sampling with rate beta2 < beta1 turns (beta1, eps1, delta1)-DPS into "
         "(beta2, ln(1 + beta2/beta1 (e^eps1 - 1)), beta2/beta1 delta1)-DPS.")
REFERENCE = "CP Thm 1, §2.4 and App. A.1"
EXPECTED = Verdict.PROVED
SUMMARY = ("Both directions, the delta part and the equivalent form are proved (E = e^eps1); "
           "the decomposition Z = (1 - b)X + bY and the bounds Y <= E X + delta1, "
           "X <= E Y + delta1 are inductions over the samples of D_-t, from the per-sample "
           "sampling split and the per-sample DPS hypothesis.  The statement as reprinted in "
           "App. A.1 (eps1 in place of e^eps1) is a typo: it gives negative eps2 for eps1 < 1 "
           "and is refuted with an mpmath witness.")

b, E, X, Y, Z, d1 = sp.symbols("beta E X Y Z delta1", real=True)
m, s = sp.symbols("m s", integer=True, nonnegative=True)
#: beta1 and beta2 themselves (only the two-stage sampling steps use them; b = beta2/beta1).
b1, b2 = sp.symbols("beta1 beta2", positive=True)

#: the appendix's decomposition of Z over whether t is sampled (a PROVED step's conclusion).
DECOMP = sp.Eq(Z, (1 - b) * X + b * Y)
#: A^{beta1} is (eps1, delta1)-DP, summed over the samples of D_-t (a PROVED step's conclusion).
DPS_XY = [Y <= E * X + d1, X <= E * Y + d1]
BASE = [b > 0, b < 1, E >= 1, X >= 0, X <= 1, Y >= 0, Y <= 1, d1 >= 0, DECOMP]

# ------------------------------------------------------------------ the sum over samples
i_, N_ = sp.symbols("i N", integer=True, nonnegative=True)
K_ = sp.Symbol("K", integer=True, positive=True)  # the number of samples of D_-t (2^m)
size = sp.Function("s", integer=True, nonnegative=True)  # size(i) = |T_i|
pX, p0, p1, q, qt = (sp.Function(x) for x in ("pX", "p0", "p1", "q", "qt"))
XS, YS, ZS, PS = (sp.Function(x) for x in ("XS", "YS", "ZS", "PS"))


def px_closed(x: sp.Expr) -> sp.Expr:
    """Pr[Lambda_b(D_-t) = T_x] (CP Def 3: each of the m records kept with probability b)."""
    return b ** size(x) * (1 - b) ** (m - size(x))


def p0_closed(x: sp.Expr) -> sp.Expr:
    """Pr[Lambda_b(D) = T_x]: D has the m + 1 records, t not kept."""
    return b ** size(x) * (1 - b) ** ((m + 1) - size(x))


def p1_closed(x: sp.Expr) -> sp.Expr:
    """Pr[Lambda_b(D) = T_x + t]: t kept, |T_x + t| = s + 1 of m + 1."""
    return b ** (size(x) + 1) * (1 - b) ** ((m + 1) - (size(x) + 1))


#: the sampling law's closed forms, a definition (CP Def 3); symbolic powers: never sent to z3.
CLOSED = [equation(pX(i_), px_closed(i_)), equation(p0(i_), p0_closed(i_)),
          equation(p1(i_), p1_closed(i_))]


def split0(x: sp.Expr) -> sp.Basic:
    """Sampling split, t not sampled: p0(x) = (1 - b) pX(x)."""
    return equation(p0(x), (1 - b) * pX(x))


def split1(x: sp.Expr) -> sp.Basic:
    """Sampling split, t sampled: p1(x) = b pX(x)."""
    return equation(p1(x), b * pX(x))


def decomp(n: sp.Expr) -> sp.Basic:
    """The decomposition over the first n samples: ZS(n) = (1 - b) XS(n) + b YS(n)."""
    return equation(ZS(n), (1 - b) * XS(n) + b * YS(n))


def dps_summed(n: sp.Expr) -> sp.Basic:
    """The per-sample DPS hypothesis summed over the first n samples."""
    return sp.And(YS(n) <= E * XS(n) + d1 * PS(n), XS(n) <= E * YS(n) + d1 * PS(n))


def dps_at(x: sp.Expr) -> list[sp.Basic]:
    """A is (beta1, eps1, delta1)-DPS at the neighbours T_x + t, T_x (both directions)."""
    return [qt(x) <= E * q(x) + d1, q(x) <= E * qt(x) + d1]


SUM_ZERO = [sp.Eq(XS(0), 0), sp.Eq(YS(0), 0), sp.Eq(ZS(0), 0), sp.Eq(PS(0), 0)]
SUM_NEXT = [sp.Eq(XS(N_ + 1), XS(N_) + pX(N_) * q(N_)),
            sp.Eq(YS(N_ + 1), YS(N_) + pX(N_) * qt(N_)),
            sp.Eq(ZS(N_ + 1), ZS(N_) + p0(N_) * q(N_) + p1(N_) * qt(N_)),
            sp.Eq(PS(N_ + 1), PS(N_) + pX(N_))]
TOTALS = [sp.Eq(X, XS(K_)), sp.Eq(Y, YS(K_)), sp.Eq(Z, ZS(K_))]
#: what the theorem takes as given (checked by the chaining check of proofs.core):
GIVEN = (
    given("setting", "0 < beta2/beta1 < 1, e^eps1 >= 1, probabilities in [0, 1], delta1 >= 0",
          *BASE[:8])
    + given("definition", "CP Def 3's sampling law at rate b: |T_i| = s(i) of the m records of "
            "D_-t kept; in D (m + 1 records) T_i without t, and T_i + t", *CLOSED, over=(i_,))
    + given("setting", "sampling probabilities are non-negative", pX(i_) >= 0, over=(i_,))
    + given("definition", "XS, YS, ZS, PS: the sums over the first N samples T_i of D_-t of "
            "pX q, pX qt, p0 q + p1 qt (the samples of D are the T_i and the T_i + t) and pX "
            "(empty sums 0)", *SUM_ZERO, *SUM_NEXT, over=(N_,))
    + given("definition", "over all K samples: X = Pr[A^beta2(D_-t) in O] = XS(K), the "
            "appendix's Y = YS(K), Z = Pr[A^beta2(D) in O] = ZS(K) (A^beta2 read as sampling at "
            "b, then A^beta1, as the appendix does; steps 1-2 show the two stages are one "
            "Bernoulli(beta2) sampling per record)", *TOTALS)
    + given("lemma", "Lambda_b(D_-t) is a probability law over its K samples: PS(K) = 1 -- the "
            "sum over the subsets T of the m records of b^|T| (1-b)^(m-|T|) is (b + (1 - b))^m "
            "= 1 (binomial theorem; the abstract sample index of this encoding does not carry "
            "the subsets, so it is not re-proved here)", sp.Eq(PS(K_), 1),
            label="sampling law sums to 1 (binomial theorem)",
            source="binomial theorem: the sum over the subsets T of m records of b^|T| "
            "(1 - b)^(m - |T|) is (b + (1 - b))^m = 1",
            spot=engine_checks.sampling_law)
    + given("hypothesis", "A is (beta1, eps1, delta1)-DPS: A^beta1 is (eps1, delta1)-DP on "
            "the neighbours T_i + t and T_i (CP Def 2, both directions), for every sample i",
            *dps_at(i_), over=(i_,))
)
#: the conclusion of CP Thm 1 (one definition for the steps, the pins and the text):
E2 = 1 + b * (E - 1)  # e^{eps2}
D2 = b * d1  # delta2


#: CP Thm 1 as proved, for one event O (Z = Pr[A^beta2(D) in O], X = Pr[A^beta2(D_-t) in O]):
#: both directions of CP Def 2 with e^eps2 = 1 + b(e^eps1 - 1) and delta2 = b delta1.
STATEMENT = Statement(
    "CP Thm 1, §2.4 and App. A.1",
    "If A is (beta1, eps1, delta1)-DPS then, for beta2 < beta1 and b = beta2/beta1, A is "
    "(beta2, eps2, delta2)-DPS with e^eps2 = 1 + b(e^eps1 - 1) and delta2 = b delta1.",
    hypotheses=(b > 0, b < 1, E >= 1, X >= 0, X <= 1, Y >= 0, Y <= 1, d1 >= 0, pX(i_) >= 0,
                qt(i_) <= E * q(i_) + d1, q(i_) <= E * qt(i_) + d1),
    definitions=formulas_of(GIVEN, "definition"),
    lemmas=(sp.Eq(PS(K_), 1),),
    conclusion=sp.And(Z <= (1 + b * (E - 1)) * X + b * d1, X <= (1 + b * (E - 1)) * Z + b * d1))


def _split_step(name: str, statement: str, lhs: sp.Expr, rhs: sp.Expr,
                concludes: sp.Basic) -> Step:
    """A sampling split for every sample i: the chained formula (``concludes``) with pX, p0,
    p1 replaced by their closed forms (the given definitions, recorded as its assumptions)."""
    step = sympy_step(name, statement, lhs, rhs, concludes=concludes, over=(i_,),
                      definitions=CLOSED)
    step.assumes = tuple(CLOSED)
    return step


def _decomp_parts(formula: Callable[[sp.Expr], sp.Basic] = decomp,
                  extra: Sequence[sp.Basic] = ()) -> tuple[Step, Step]:
    base = prove_sym("decomposition over samples: base N = 0",
                     "Empty sums: ZS(0) = 0 = (1 - b) XS(0) + b YS(0).",
                     formula(0), SUM_ZERO[:3])
    step = prove_sym(
        "decomposition over samples: N -> N + 1",
        "ZS(N) = (1 - b) XS(N) + b YS(N) (induction hypothesis) and the sampling splits at "
        "sample N, p0(N) = (1 - b) pX(N) and p1(N) = b pX(N), give the same for N + 1.",
        formula(N_ + 1), [formula(N_), split0(N_), split1(N_), *SUM_NEXT[:3], *extra],
        local=[formula(N_)], over=(N_,))
    return base, step


def weighted(x: sp.Expr) -> list[sp.Basic]:
    """The DPS hypothesis at sample x weighted by its probability pX(x) >= 0."""
    w = pX(x)
    return [w * qt(x) <= E * (w * q(x)) + d1 * w, w * q(x) <= E * (w * qt(x)) + d1 * w]


def _dps_parts() -> tuple[Step, Step]:
    base = prove_sym("DPS over samples: base N = 0", "Empty sums: 0 <= E * 0 + delta1 * 0.",
                     dps_summed(0), [sp.Eq(XS(0), 0), sp.Eq(YS(0), 0), sp.Eq(PS(0), 0)])
    step = prove_sym(
        "DPS over samples: N -> N + 1",
        "The bounds for the first N samples (induction hypothesis) and the weighted DPS "
        "hypothesis at sample N give them for N + 1.",
        dps_summed(N_ + 1), [dps_summed(N_), *weighted(N_), SUM_NEXT[0], SUM_NEXT[1],
                             SUM_NEXT[3]],
        local=[dps_summed(N_)], over=(N_,))
    return base, step


def steps() -> list[Step]:
    out: list[Step] = []
    # A^beta2 = A^beta1 after sampling at b: per record, two independent Bernoulli stages.
    out.append(sympy_step(
        "two-stage sampling: a record is kept",
        "Kept by sampling at b = beta2/beta1 and then at beta1 (independent stages) with "
        "probability b beta1 = beta2.", sp.Mul(b2 / b1, b1, evaluate=False), b2))
    out.append(sympy_step(
        "two-stage sampling: a record is dropped",
        "Dropped with probability (1 - b) + b (1 - beta1) = 1 - beta2; records are independent "
        "in both stages, so the two-stage sample is CP Def 3's Bernoulli(beta2) sample.",
        (1 - b2 / b1) + (b2 / b1) * (1 - b1), 1 - b2))
    # Sampling split: Pr[Lambda(D)=T] factorises through D_{-t} (sizes m+1 vs m), per sample.
    out.append(_split_step(
        "sampling split (t sampled)",
        "For every sample T_i of D_-t: Pr[Lambda(D) = T_i + t] = beta Pr[Lambda(D_-t) = T_i] "
        "(|D_-t| = m, |T_i| = s(i)), i.e. p1(i) = b pX(i).",
        p1_closed(i_), b * px_closed(i_), split1(i_)))
    out.append(_split_step(
        "sampling split (t not sampled)",
        "For every sample T_i of D_-t: Pr[Lambda(D) = T_i] = (1 - beta) Pr[Lambda(D_-t) = T_i], "
        "i.e. p0(i) = (1 - b) pX(i).",
        p0_closed(i_), (1 - b) * px_closed(i_), split0(i_)))
    base, step = _decomp_parts()
    out += [base, step, induction(
        "decomposition over samples: every N",
        "Induction on the number N of samples summed.", decomp, N_, 0, base, step,
        over=(N_,))]
    out.append(prove_sym(
        "decomposition Z = (1 - b) X + b Y",
        "Over all K samples of D_-t: Z = ZS(K) = (1 - b) XS(K) + b YS(K) = (1 - b) X + b Y "
        "(App. A.1's split over whether t is sampled).",
        DECOMP, TOTALS + [decomp(K_)], derived=[decomp(K_)]))
    out.append(prove_sym(
        "DPS weighted by the sampling probability",
        "For every sample i: pX(i) >= 0 and the DPS hypothesis at T_i give "
        "pX qt <= E pX q + delta1 pX and pX q <= E pX qt + delta1 pX.",
        sp.And(*weighted(i_)), [*dps_at(i_), pX(i_) >= 0], over=(i_,)))
    dbase, dstep = _dps_parts()
    out += [dbase, dstep, induction(
        "DPS over samples: every N", "Induction on the number N of samples summed.",
        dps_summed, N_, 0, dbase, dstep, over=(N_,))]
    out.append(prove_sym(
        "DPS summed: Y <= E X + delta1 and X <= E Y + delta1",
        "Over all K samples (the sampling law sums to PS(K) = 1): the appendix's "
        "Y <= e^eps1 X + delta1, and X <= e^eps1 Y + delta1.",
        sp.And(*DPS_XY), [*TOTALS[:2], sp.Eq(PS(K_), 1), dps_summed(K_)],
        derived=[dps_summed(K_)]))
    out.append(prove_sym(
        "upper direction",
        "Z = (1-b)X + bY and Y <= E X + delta1 give Z <= e^eps2 X + delta2.",
        Z <= E2 * X + D2, BASE + [Y <= E * X + d1]))
    out.append(exists_sym(
        "pin: the upper bound is attained",
        "With 0 < b < 1, E > 1, X > 0, delta1 > 0, Z = e^eps2 X + delta2 happens "
        "(Y = E X + delta1): neither e^eps2 nor delta2 can be replaced by a larger value.",
        sp.Eq(Z, E2 * X + D2), BASE + [Y <= E * X + d1, E > 1, X > 0, d1 > 0]))
    out.append(prove_sym(
        "lower direction (rearranged)",
        "X <= E Y + delta1 gives X <= Z/(1 - b + b/E) + (b/E)/(1 - b + b/E) delta1.",
        X <= Z / (1 - b + b / E) + (b / E) / (1 - b + b / E) * d1,
        BASE + [X <= E * Y + d1]))
    out.append(sympy_step(
        "identity behind 1/(1-b+b e^-eps1) <= e^eps2",
        "(1 + b(E-1))(1 - b(1 - 1/E)) - 1 expands to (E + 1/E - 2)(b - b^2).",
        (1 + b * (E - 1)) * (1 - b * (1 - 1 / E)) - 1, (E + 1 / E - 2) * (b - b ** 2)))
    out.append(sympy_step(
        "non-negative factorisation",
        "(E + 1/E - 2)(b - b^2) = (E - 1)^2 b (1 - b) / E, a product of non-negative factors.",
        (E + 1 / E - 2) * (b - b ** 2), (E - 1) ** 2 * b * (1 - b) / E))
    out.append(prove_sym(
        "lower factor bound",
        "1/(1 - b + b/E) <= 1 + b(E - 1) = e^eps2.",
        1 / (1 - b + b / E) <= E2, [b > 0, b < 1, E >= 1]))
    out.append(prove_sym(
        "delta part",
        "(b/E)/(1 - b + b/E) * delta1 <= b delta1 = delta2.",
        (b / E) / (1 - b + b / E) * d1 <= D2, [b > 0, b < 1, E >= 1, d1 >= 0]))
    out.append(prove_sym(
        "lower direction (final)",
        "X <= e^eps2 Z + delta2 under the DPS hypothesis on D_-t vs D.",
        X <= E2 * Z + D2, BASE + [X <= E * Y + d1]))
    eps1 = sp.Symbol("epsilon1", positive=True)
    out.append(sympy_step(
        "equivalent form",
        "With eps2 = ln(1 + b(e^eps1 - 1)): (e^eps2 - 1)/(e^eps1 - 1) = b = beta2/beta1.",
        (sp.exp(sp.log(1 + b * (sp.exp(eps1) - 1))) - 1) / (sp.exp(eps1) - 1), b))
    out.append(timed(
        "App. A.1 restatement (eps1 for e^eps1)",
        "The appendix restates eps2 = ln(1 + b(eps1 - 1)); claim: this value is implied "
        "(equals the §2.4 value / is a valid guarantee).",
        "mpmath witness", _typo_witness,
        expr=sp.Eq(sp.Symbol("epsilon2"), sp.log(1 + b * (eps1 - 1))),
        expected=Verdict.REFUTED, role="remark"))
    return out


def _typo_witness() -> tuple[Verdict, dict[str, str] | None, str]:
    """eps1 = 1/2, beta1 = 1, beta2 = 1/2, delta1 = 0: the typo gives e^{eps2} = 3/4 < 1, so
    O = Range(A) would need 1 <= 3/4 * 1 + 0 -- false for every algorithm."""
    with mp.workdps(30):
        eps1, beta = mp.mpf(1) / 2, mp.mpf(1) / 2
        typo = mp.log(1 + beta * (eps1 - 1))
        true = mp.log(1 + beta * (mp.e ** eps1 - 1))
        lhs, rhs = mp.mpf(1), mp.e ** typo * 1 + 0  # Pr[A(D) in Range] vs e^eps2 Pr[...] + delta2
        refuted = typo < 0 and lhs > rhs and abs(typo - true) > mp.mpf("1e-10")
        cex = {"eps1": "1/2", "beta2/beta1": "1/2", "delta1": "0",
               "eps2 (typo)": mp.nstr(typo, 12), "eps2 (§2.4)": mp.nstr(true, 12),
               "O = Range(A): 1 <= e^eps2 * 1 + 0 ?": f"1 <= {mp.nstr(rhs, 12)} is false"}
    return (Verdict.REFUTED if refuted else Verdict.OPEN), cex, (
        "typo: eps2 < 0 is impossible for any algorithm; §2.4 has e^eps1")


_a, _c = sp.symbols("a c", real=True)


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        prove_sym("control: dropped delta term", "Z <= (1 - b + bE) X (b delta1 dropped).",
                  Z <= (1 - b + b * E) * X, BASE + [Y <= E * X + d1], expected=ref),
        prove_sym("control: flipped inequality", "Z >= (1 - b + bE) X + b delta1.",
                  Z >= (1 - b + b * E) * X + b * d1, BASE + [Y <= E * X + d1], expected=ref),
        prove_sym("control: wrong constant", "1/(1 - b + b/E) <= 1 + b(E - 1)/2.",
                  1 / (1 - b + b / E) <= 1 + b * (E - 1) / 2, [b > 0, b < 1, E >= 1],
                  expected=ref),
        sympy_step("control: sqrt(a c) = sqrt(a) sqrt(c) for real a, c",
                   "A false identity (a = c = -1) that a forced power simplification would "
                   "'prove'; the sympy back end must reject it.",
                   sp.sqrt(_a * _c), sp.sqrt(_a) * sp.sqrt(_c), expected=ref,
                   at={_a: -1, _c: -1}),
        sympy_step("control: wrong factorisation",
                   "(E + 1/E - 2)(b - b^2) = (E - 1)^2 b (1 - b) (missing 1/E).",
                   (E + 1 / E - 2) * (b - b ** 2), (E - 1) ** 2 * b * (1 - b), expected=ref,
                   at={E: 2, b: sp.Rational(1, 2)}),
        *_decomposition_controls(),
    ]


def _swapped(n: sp.Expr) -> sp.Basic:
    """A wrong decomposition: Z = (1 - b) Y + b X (the weights on the wrong terms)."""
    return equation(ZS(n), (1 - b) * YS(n) + b * XS(n))


def _decomposition_controls() -> list[Step]:
    """The assembly's negative controls: a wrong decomposition, a wrong per-sample factor, the
    DPS sum without delta1's weight, two-stage sampling at the wrong rate, and the upper
    direction with its decomposition unproved (the former prose link)."""
    ref = Verdict.REFUTED
    domain = [b > 0, b < 1, pX(N_) >= 0, q(N_) >= 0, q(N_) <= 1, qt(N_) >= 0, qt(N_) <= 1]
    wrong_step = _decomp_parts(_swapped, domain)[1]
    wrong_step.name = "control: decomposition Z = (1 - b) Y + b X, inductive step"
    wrong_step.statement = ("The sum over samples with the weights exchanged: the inductive "
                            "step must fail (t sampled goes with qt, not q).")
    wrong_step.expected = ref
    upper = prove_sym("upper direction (decomposition not proved)",
                      "Z = (1-b)X + bY taken without its proof.", Z <= E2 * X + D2,
                      BASE + [Y <= E * X + d1])
    return [
        wrong_step,
        sympy_step("control: sampling split with the factors exchanged",
                   "p0(i) = b pX(i) (t not sampled with probability b): false.",
                   p0_closed(i_), b * px_closed(i_), expected=ref,
                   at={b: sp.Rational(1, 3), size(i_): 1, m: 2}),
        prove_sym("control: DPS summed without delta1's weight",
                  "YS(N + 1) <= E XS(N + 1) + delta1 (delta1 counted once, not weighted by "
                  "the sampling probabilities): the inductive step must fail.",
                  YS(N_ + 1) <= E * XS(N_ + 1) + d1,
                  [YS(N_) <= E * XS(N_) + d1, *weighted(N_), SUM_NEXT[0], SUM_NEXT[1],
                   E >= 1, d1 >= 0, *domain], expected=ref),
        sympy_step("control: two-stage sampling kept with probability b",
                   "A record kept by both stages with probability beta2/beta1 (beta1 "
                   "forgotten): false.", sp.Mul(b2 / b1, b1, evaluate=False), b2 / b1, expected=ref,
                   at={b1: sp.Rational(1, 2), b2: sp.Rational(1, 4)}),
        chain_control("control: upper direction without the decomposition's proof",
                      "Z = (1 - b) X + b Y is no longer a given: the upper direction alone "
                      "must be rejected by the chaining check (ERROR).", [upper], GIVEN),
    ]
