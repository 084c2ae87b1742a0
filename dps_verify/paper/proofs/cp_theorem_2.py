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

from dps_verify.paper.proofs.core import Step, Verdict, z3_all, z3_step
from dps_verify.paper.proofs.finite import hockey, mass, prob_vector, subsets

CLAIM = "If A1 is (beta, eps, delta)-DPS then A2(A1(.)) is (beta, eps, delta)-DPS for any A2."
REFERENCE = "CP Thm 2, §2.5"
EXPECTED = Verdict.PROVED
SUMMARY = ("Proved for every finite output space by a z3 termwise lemma plus linearity of "
           "sums, and directly by z3 with symbolic kernels for |Range(A1)| = 2..4, "
           "|Range(A2)| = 2..3 (z3 times out on larger explicit kernels, so the event-vector form, "
           "which covers every kernel, is used for |Range(A1)| = 2..4).  Not covered: continuous outputs / measurability, which the "
           "paper's proof also ignores.")

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


def steps() -> list[Step]:
    P, Q, qq, E = sp.symbols("P Q q E", real=True)
    out = [z3_step(
        "termwise lemma",
        "For 0 <= q <= 1: (P - E Q) q <= max(0, P - E Q); summing over outputs bounds "
        "sum p q - E sum p' q by the hockey-stick mass of S1 = {p > E p'} <= delta.",
        (lambda pz, qz, ez, xz: xz * (pz - ez * qz) <= z3.If(pz - ez * qz > 0, pz - ez * qz, 0))(
            z3.Real("P"), z3.Real("Q"), z3.Real("E"), z3.Real("q")),
        [z3.Real("q") >= 0, z3.Real("q") <= 1],
        expr=sp.Le((P - E * Q) * qq, sp.Max(0, P - E * Q)),
        note="with linearity of finite sums this covers every finite/countable range")]
    for m, r in SIZES:
        out.append(z3_all(
            f"kernel, |Range(A1)|={m}, |Range(A2)|={r}",
            "p, p' (eps, delta)-close on every subset; any stochastic kernel K and event O: "
            "sum_i p_i K_i(O) <= E sum_i p'_i K_i(O) + delta.",
            _instance(m, r)))
    for m in (2, 3, 4):
        out.append(z3_step(
            f"event vector, |Range(A1)|={m}",
            "Any kernel and event O give q_i = K_i(O) in [0,1] (and every such q arises); "
            "with u = E p' (so sum u = E): sum p q <= sum u q + delta.",
            *_event_form(m)))
    return out


def _event_form(m: int, delta_scale: str = "1") -> tuple[z3.BoolRef, list[z3.BoolRef]]:
    e, d = z3.Real("E"), z3.Real("delta")
    p, cp = prob_vector("p", m)
    u = [z3.Real(f"u{i}") for i in range(m)]
    q = [z3.Real(f"q{i}") for i in range(m)]
    hyp = [e >= 1, d >= 0, *cp, *[x >= 0 for x in u], z3.Sum(u) == e,
           *[mass(p, o) <= mass(u, o) + d for o in subsets(m)],
           *[x >= 0 for x in q], *[x <= 1 for x in q]]
    goal = z3.Sum([a * b for a, b in zip(p, q)]) <= (
        z3.Sum([a * b for a, b in zip(u, q)]) + z3.RealVal(delta_scale) * d)
    return goal, hyp


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        z3_all("control: delta halved", "Post-processed pair is (eps, delta/2)-close.",
               _instance(2, 2, delta_scale="1/2"), expected=ref),
        z3_all("control: data-dependent post-processing",
               "A different kernel on D and D' (post-processing that reads the data).",
               _instance(2, 2, data_dependent=True), expected=ref),
        z3_step("control: event form, delta halved", "sum p q <= sum u q + delta/2, m = 3.",
                *_event_form(3, "1/2"), expected=ref),
    ]
