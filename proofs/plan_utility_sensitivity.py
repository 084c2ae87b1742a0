"""The sensitivity of ``dps-verify plan --select-with``'s utility (expected published records)
under add/remove-one-record neighbours: adding a record changes it by a value in [0, beta*k].

Utility of a candidate (fixed recoding, beta, k) on a dataset D: u(D) = sum over the recoding's
groups of E[G(X_g)], X_g ~ Bin(n_g, beta), G(x) = x 1{x >= k} (the sampled records of a group are
published iff there are at least k of them: strongly-safe k-anonymization after Bernoulli(beta)
sampling, CP §3.2 and Def 3).  D' = D + t puts t into exactly one group (the recoding is fixed),
whose size goes from n to n + 1; every other term is unchanged.

Proof: (1) pointwise, for integers x >= 0 and k >= 1, G(x + 1) - G(x) is 1 for x >= k, k for
x = k - 1 and 0 below, so 0 <= G(x + 1) - G(x) <= k; (2) X_{n+1} has the law of X_n + B with
B ~ Bernoulli(beta) independent (Pascal's rule), so E[G(X_{n+1})] = (1 - beta) E[G(X_n)] +
beta E[G(X_n + 1)] and the increment is beta E[G(X_n + 1) - G(X_n)]; (3) an expectation lies
between the smallest and the largest value of its quantity on the support, both in [0, k]; so the increment, and u(D') - u(D), lies in [0, beta*k].  The
exponential mechanism over candidates then uses Delta = max_c beta_c k_c (McSherry & Talwar 2007);
removing a record is the same step read backwards, so |u(D) - u(D')| <= beta*k both ways.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from math import comb
from typing import Any

import sympy as sp

from dps_verify.paper.kernel.core import Fact, Step, Verdict, given, prove_sym

CLAIM = ("Adding one record changes the expected number of published records of sampled "
         "strongly-safe k-anonymization by a value in [0, beta*k].")
REFERENCE = "dps-verify plan --select-with (utility of the exponential mechanism; CP §3.2, Def 3)"
EXPECTED = Verdict.PROVED
SUMMARY = ("PROVED: the pointwise increment G(x+1) - G(x) of G(x) = x 1{x >= k} is in [0, k] (z3 + "
           "cvc5, by the three cases), the binomial coupling X_{n+1} = X_n + B gives the increment "
           "beta E[G(X_n+1) - G(X_n)], and with a fixed recoding only one group changes.  Trusted: "
           "the coupling (Pascal's rule), linearity of expectation, an expectation lies between the "
           "extremes of its quantity on the support.")

# integers without sign assumptions: their ranges are stated facts (x >= 0, k >= 1), which
# sympy would otherwise fold to True before the solvers see them
x = sp.Symbol("x", integer=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
k = sp.Symbol("k", integer=True)
b = sp.Symbol("beta", real=True)
U0, U1, R = sp.symbols("U0 U1 R", real=True)
#: G(x) = x 1{x >= k} (k fixed); EG(n) = E[G(X_n)], EGs(n) = E[G(X_n + 1)],
#: ED(n) = E[G(X_n + 1) - G(X_n)], X_n ~ Bin(n, beta).
G = sp.Function("G", real=True)
EG = sp.Function("EG", real=True)
EGs = sp.Function("EGs", real=True)
ED = sp.Function("ED", real=True)
#: xl, xh: points of the support {0, ..., n} of X_n (n the group size of t, fixed) where
#: G(x + 1) - G(x) is smallest / largest (a finite support: both exist).
xl, xh = sp.symbols("x_lo x_hi", integer=True)

DEF_HIGH = sp.Implies(x >= k, sp.Eq(G(x), x))
DEF_LOW = sp.Implies(x < k, sp.Eq(G(x), 0))
INC = G(x + 1) - G(x)
POINTWISE = sp.And(INC >= 0, INC <= k)
COUPLING = sp.Eq(EG(n + 1), (1 - b) * EG(n) + b * EGs(n))
LINEARITY = sp.Eq(ED(n), EGs(n) - EG(n))
POINTWISE_FOR_COUNTS = sp.Implies(x >= 0, POINTWISE)
SUPPORT = sp.And(xl >= 0, xh >= 0)
EXTREMES = sp.And(G(xl + 1) - G(xl) <= ED(n), ED(n) <= G(xh + 1) - G(xh))
U_BEFORE = sp.Eq(U0, R + EG(n))
U_AFTER = sp.Eq(U1, R + EG(n + 1))
CONCLUSION = sp.And(U1 - U0 >= 0, U1 - U0 <= b * k)

def _pmf(j: int, m: int, beta: Fraction) -> Fraction:
    return Fraction(comb(m, j)) * beta**j * (1 - beta) ** (m - j) if 0 <= j <= m else Fraction(0)


def _interpret(pt: Mapping[Any, Any]) -> dict[str, Any]:
    """Exact implementations of G, EG, EGs, ED at the point's beta and k (for the spot checks)."""
    beta, kk = Fraction(str(pt[b])), int(pt[k])

    def g_(v: Any) -> Fraction:
        return Fraction(int(v)) if int(v) >= kk else Fraction(0)

    def expect(m: Any, h: Any) -> sp.Rational:
        m = int(m)
        v = sum((_pmf(j, m, beta) * h(j) for j in range(m + 1)), Fraction(0))
        return sp.Rational(v.numerator, v.denominator)

    def rat(v: Fraction) -> sp.Rational:
        return sp.Rational(v.numerator, v.denominator)

    return {"G": lambda v: rat(g_(v)), "EG": lambda m: expect(m, g_),
            "EGs": lambda m: expect(m, lambda j: g_(j + 1)),
            "ED": lambda m: expect(m, lambda j: g_(j + 1) - g_(j))}


def _points() -> list[dict[Any, Any]]:
    """Exact instances: n in {0, 1, 3, 7}, k in {1, 2, 4}, beta in {1/3, 3/4}; x_lo, x_hi the
    argmin / argmax of G(x + 1) - G(x) over the support {0, ..., n}."""
    out = []
    for nn in (0, 1, 3, 7):
        for kk in (1, 2, 4):
            for bb in (sp.Rational(1, 3), sp.Rational(3, 4)):
                inc = [(j + 1 if j + 1 >= kk else 0) - (j if j >= kk else 0) for j in range(nn + 1)]
                out.append({n: nn, k: kk, b: bb, xl: inc.index(min(inc)), xh: inc.index(max(inc))})
    return out


def _lemma(formula: Any, why: str, label: str, source: str, over: tuple[sp.Symbol, ...] = ()) -> list[Fact]:
    """A trusted lemma with its source and an exact spot check, where the kernel has them."""
    kw: dict[str, Any] = {}
    try:
        from dps_verify.paper.kernel.lemmas import at_points  # type: ignore[import-not-found,unused-ignore]

        kw = {"source": source, "spot": at_points(_points(), _interpret, "exact binomial expectations")}
    except ImportError:  # pragma: no cover - older kernels without lemma checks
        pass
    return given("lemma", why, formula, over=over, label=label, **kw)


GIVEN = (
    given("setting", "sampling probability 0 < beta < 1 (CP Def 3)", b > 0, b < 1)
    + given("setting", "suppression threshold k >= 1 (CP §3.2)", k >= 1)
    + given("definition", "G(x) = x 1{x >= k}: a group whose sampled count x reaches k publishes "
            "its x records, else none (strongly-safe k-anonymization, CP §3.2)",
            DEF_HIGH, DEF_LOW, over=(x,))
    + given("hypothesis", "add/remove one record with a fixed recoding: t joins one group, of size "
            "n in D and n + 1 in D' = D + t; R is the (unchanged) utility of every other group",
            U_BEFORE, U_AFTER)
    + given("definition", "x_lo, x_hi are points of the support {0, ..., n} of X_n (where the "
            "increment G(x + 1) - G(x) is smallest / largest)", SUPPORT)
    + _lemma(COUPLING, "binomial coupling: X_{n+1} has the law of X_n + B, B ~ Bernoulli(beta) "
             "independent (Pascal's rule f(j; n+1) = (1-beta) f(j; n) + beta f(j-1; n)), so "
             "E[h(X_{n+1})] = (1-beta) E[h(X_n)] + beta E[h(X_n + 1)] for every h",
             "binomial coupling (Pascal's rule)",
             "Pascal's rule for the binomial pmf (proved as a sympy identity in proofs/cp_theorem_5.py), "
             "summed against h; exact for every n >= 0, 0 < beta < 1", over=(n,))
    + _lemma(LINEARITY, "linearity of expectation", "linearity of expectation",
             "linearity of a finite sum: E[G(X+1) - G(X)] = E[G(X+1)] - E[G(X)] (X has finite support)",
             over=(n,))
    + _lemma(EXTREMES, "an expectation lies between the smallest and the largest value its quantity "
             "takes on the support (probabilities are >= 0 and sum to 1)",
             "expectation between the extremes",
             "a convex combination of values lies between their minimum and maximum (weights >= 0, "
             "summing to 1); x_lo, x_hi are the argmin and argmax over the support {0, ..., n}")
)

try:  # the kernel's statement requirement (dps_verify.paper.kernel.statement), when present
    from dps_verify.paper.kernel.statement import Statement, formulas_of  # type: ignore[import-not-found,unused-ignore]

    STATEMENT = Statement(
        "dps-verify plan --select-with: sensitivity of the expected published records",
        "For a fixed recoding, beta in (0, 1) and k >= 1, adding one record to a dataset raises "
        "the expected number of records that Bernoulli(beta) sampling followed by strongly-safe "
        "k-anonymization publishes by at least 0 and at most beta*k.",
        hypotheses=formulas_of(GIVEN, "hypothesis", "setting"),
        definitions=formulas_of(GIVEN, "definition"),
        lemmas=formulas_of(GIVEN, "lemma"),
        conclusion=CONCLUSION)
except ImportError:  # pragma: no cover - older kernels without statements
    pass

_DEFS_AT_X = [k >= 1, DEF_HIGH, DEF_LOW, DEF_HIGH.xreplace({x: x + 1}), DEF_LOW.xreplace({x: x + 1})]


def steps() -> list[Step]:
    return [
        prove_sym("increment above the threshold",
                  "x >= k: both x and x + 1 are published, G(x + 1) - G(x) = 1.",
                  sp.Eq(INC, 1), _DEFS_AT_X, premises=[x >= 0, x >= k], over=(x,)),
        prove_sym("increment at the threshold",
                  "x = k - 1: nothing is published from x, all k from x + 1: G(x + 1) - G(x) = k.",
                  sp.Eq(INC, k), _DEFS_AT_X, premises=[x >= 0, sp.Eq(x, k - 1)], over=(x,)),
        prove_sym("increment below the threshold",
                  "x <= k - 2: neither is published, G(x + 1) - G(x) = 0.",
                  sp.Eq(INC, 0), _DEFS_AT_X, premises=[x >= 0, x <= k - 2], over=(x,)),
        prove_sym("pointwise increment in [0, k]",
                  "For every integer x >= 0 (k >= 1): 0 <= G(x + 1) - G(x) <= k.",
                  POINTWISE, _DEFS_AT_X, premises=[x >= 0], over=(x,)),
        prove_sym("expected increment is beta times the expected pointwise increment",
                  "Coupling and linearity: E[G(X_{n+1})] - E[G(X_n)] = beta E[G(X_n + 1) - G(X_n)].",
                  sp.Eq(EG(n + 1) - EG(n), b * ED(n)), [COUPLING, LINEARITY]),
        prove_sym("expected pointwise increment in [0, k]",
                  "The expectation lies between the increment's values at two support points, "
                  "each in [0, k] by the pointwise bound.",
                  sp.And(ED(n) >= 0, ED(n) <= k),
                  [POINTWISE_FOR_COUNTS.xreplace({x: xl}), POINTWISE_FOR_COUNTS.xreplace({x: xh}),
                   SUPPORT, EXTREMES]),
        prove_sym("one group's expected published records rise by a value in [0, beta*k]",
                  "0 < beta < 1 and the two previous steps.",
                  sp.And(EG(n + 1) - EG(n) >= 0, EG(n + 1) - EG(n) <= b * k),
                  [sp.Eq(EG(n + 1) - EG(n), b * ED(n)), sp.And(ED(n) >= 0, ED(n) <= k), b > 0, b < 1]),
        prove_sym("the utility's sensitivity",
                  "Only t's group changes (fixed recoding): u(D + t) - u(D) is in [0, beta*k].",
                  CONCLUSION,
                  [U_BEFORE, U_AFTER, sp.And(EG(n + 1) - EG(n) >= 0, EG(n + 1) - EG(n) <= b * k)]),
    ]


def negative_controls() -> list[Step]:
    ref = Verdict.REFUTED
    return [
        prove_sym("control: increment at most k - 1",
                  "At x = k - 1 the increment is k, so k - 1 is not a pointwise bound.",
                  INC <= k - 1, _DEFS_AT_X, premises=[x >= 0], expected=ref),
        prove_sym("control: sensitivity beta*(k - 1)",
                  "The chain's facts allow an increment of beta*k, so beta*(k - 1) is not proved.",
                  U1 - U0 <= b * (k - 1),
                  [U_BEFORE, U_AFTER, sp.Eq(EG(n + 1) - EG(n), b * ED(n)), sp.And(ED(n) >= 0, ED(n) <= k),
                   k >= 1, b > 0, b < 1], expected=ref),
        prove_sym("control: without the threshold definition below k",
                  "Dropping G(x) = 0 for x < k, the pointwise bound no longer follows.",
                  POINTWISE, [k >= 1, DEF_HIGH, DEF_HIGH.xreplace({x: x + 1})], premises=[x >= 0],
                  expected=ref),
    ]
