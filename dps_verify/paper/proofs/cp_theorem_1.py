"""CP Theorem 1 (§2.4; proof in App. A.1): amplification by sampling.

If A is (beta1, eps1, delta1)-DPS then it is (beta2, eps2, delta2)-DPS for beta2 < beta1 with
e^{eps2} = 1 + (beta2/beta1)(e^{eps1} - 1) and delta2 = (beta2/beta1) delta1.

Encoding: b = beta2/beta1 in (0, 1), E = e^{eps1} >= 1, X, Y, Z in [0, 1] are the
probabilities of the appendix (Z on D, X on D_{-t}, Y the "t forced in" term), d1 = delta1.
"""

from __future__ import annotations

import mpmath as mp
import sympy as sp

from dps_verify.paper.proofs.core import (
    Step,
    Verdict,
    exists_sym,
    given,
    prove_sym,
    sympy_step,
    timed,
)

CLAIM = ("Sampling with rate beta2 < beta1 turns (beta1, eps1, delta1)-DPS into "
         "(beta2, ln(1 + beta2/beta1 (e^eps1 - 1)), beta2/beta1 delta1)-DPS.")
REFERENCE = "CP Thm 1, §2.4 and App. A.1"
EXPECTED = Verdict.PROVED
SUMMARY = ("Both directions, the delta part and the equivalent form are proved (E = e^eps1). "
           "The statement as reprinted in App. A.1 (eps1 in place of e^eps1) is a typo: "
           "it gives negative eps2 for eps1 < 1 and is refuted with an mpmath witness.")

b, E, X, Y, Z, d1 = sp.symbols("beta E X Y Z delta1", real=True)
m, s = sp.symbols("m s", integer=True, nonnegative=True)

BASE = [b > 0, b < 1, E >= 1, X >= 0, X <= 1, Y >= 0, Y <= 1, d1 >= 0,
        sp.Eq(Z, (1 - b) * X + b * Y)]
#: what the theorem takes as given (checked by the chaining check of proofs.core):
GIVEN = (
    given("setting", "0 < beta2/beta1 < 1, e^eps1 >= 1, probabilities in [0, 1], delta1 >= 0",
          *BASE[:8])
    + given("prose-link", "CP App. A.1's decomposition of Pr[A^beta2(D) in O] over whether t "
            "is sampled (the sampling split, steps 1-2)", BASE[8])
    + given("hypothesis", "A is (beta1, eps1, delta1)-DPS (CP Def 2, both directions)",
            Y <= E * X + d1, X <= E * Y + d1)
)
#: the conclusion of CP Thm 1 (one definition for the steps, the pins and the text):
E2 = 1 + b * (E - 1)  # e^{eps2}
D2 = b * d1  # delta2


def steps() -> list[Step]:
    out: list[Step] = []
    # Sampling split: Pr[Lambda(D)=T] factorises through D_{-t} (sizes m+1 vs m).
    out.append(sympy_step(
        "sampling split (t sampled)",
        "A sample T of D containing t has probability beta * Pr[Lambda(D_-t) = T - t] "
        "(|D_-t| = m, |T - t| = s).",
        b ** (s + 1) * (1 - b) ** ((m + 1) - (s + 1)), b * (b ** s * (1 - b) ** (m - s))))
    out.append(sympy_step(
        "sampling split (t not sampled)",
        "A sample T of D without t has probability (1 - beta) * Pr[Lambda(D_-t) = T].",
        b ** s * (1 - b) ** ((m + 1) - s), (1 - b) * (b ** s * (1 - b) ** (m - s))))
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
    ]
