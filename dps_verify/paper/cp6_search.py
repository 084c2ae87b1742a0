"""The float screen that found the CP Thm 6 counterexample.  Evidence only:
every verdict rests on the exact check in :mod:`dps_verify.paper.cp6_witness`.

Model (CP Def 3: A, A_m included, runs on the sample).  D = t + (n - 1) records ``a`` (a raw
value other than t's) + m records ``c``; D_-t drops t.  Recoding g1 puts t and the a's in a
class X and the c's in Y; g2 merges everything into one class *; Apply removes classes with
fewer than k records.  The sample is described by (h, #a, #c) with h = [t sampled], and A_m is
*any* ε1-DP choice p(h, #a, #c) = Pr[g1]: neighbouring states (one count ±1) keep p and 1 − p
within the factor e^ε1 (linear constraints).  For a fixed output event O the hockey-stick excess
Pr[A^β(D) ∈ O] − e^ε Pr[A^β(D_-t) ∈ O] is linear in p, so the screen alternates "O = outputs
with positive excess" and "p = LP maximiser" (scipy HiGHS) from a few starts, both directions.

The excess is compared with the certified d (``bounds.d`` / ``cp6_witness.d_bound``).
Result (β = 1/2, e^ε1 = 3, e^(ε−ε1) = 4, k = 5, n = 6, m = 2): excess 0.0355 > d = 1/32; the
maximiser's pattern (p triples per step towards "t and 4 a's") gave the clean witness.  Larger
e^ε1 gives larger ratios (e^ε1 = 8, β = 1/4, k = 8, n = 25, m = 0: excess / d ≈ 5.8).
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import lil_matrix

State = tuple[int, int, int]


def _pmf(n: int, b: float) -> np.ndarray:
    return np.array([comb(n, j) * b**j * (1 - b) ** (n - j) for j in range(n + 1)])


def _output(h: int, a: int, c: int, k: int, g: int) -> tuple:
    if g == 1:
        x, y = h + a, c
        if x < k and y < k:
            return ("empty",)
        return ("X", x if x >= k else 0, y if y >= k else 0)
    s = h + a + c
    return ("*", s) if s >= k else ("empty",)


def _laws(n: int, m: int, k: int, b: float, states: dict[State, int]
          ) -> list[tuple[dict[tuple, np.ndarray], dict[tuple, float]]]:
    """For D and D_-t: output -> (coefficients on p, constant), Pr[output] = coef @ p + const."""
    fa, fc = _pmf(n - 1, b), _pmf(m, b)
    out = []
    for with_t in (True, False):
        lin: dict[tuple, np.ndarray] = {}
        const: dict[tuple, float] = {}
        for (h, a, c), i in states.items():
            if h and not with_t:
                continue
            w = ((b if h else 1 - b) if with_t else 1.0) * fa[a] * fc[c]
            o1, o2 = _output(h, a, c, k, 1), _output(h, a, c, k, 2)
            for o in (o1, o2):
                lin.setdefault(o, np.zeros(len(states)))
                const.setdefault(o, 0.0)
            lin[o1][i] += w
            lin[o2][i] -= w
            const[o2] += w
        out.append((lin, const))
    return out


def _dp_constraints(states: dict[State, int], r1: float) -> tuple:
    rows, rhs = [], []
    for (h, a, c), i in states.items():
        for s2 in ((1, a, c) if h == 0 else None, (h, a + 1, c), (h, a, c + 1)):
            j = states.get(s2) if s2 is not None else None
            if j is None:
                continue
            for x, y in ((i, j), (j, i)):
                rows.append(((x, 1.0), (y, -r1)))  # p_x <= r1 p_y
                rhs.append(0.0)
                rows.append(((x, -1.0), (y, r1)))  # 1 - p_x <= r1 (1 - p_y)
                rhs.append(r1 - 1)
    mat = lil_matrix((len(rows), len(states)))
    for r, entries in enumerate(rows):
        for col, v in entries:
            mat[r, col] = v
    return mat.tocsr(), np.array(rhs)


def screen(b: float, e1: float, e_prime: float, k: int, n: int, m: int, starts: int = 3,
           seed: int = 0) -> tuple[float, dict[State, float]]:
    """Largest hockey-stick excess found (floats) and the eps1-DP choice table reaching it."""
    rng = np.random.default_rng(seed)
    states = {s: i for i, s in enumerate(itertools.product((0, 1), range(n), range(m + 1)))}
    (lin_d, c_d), (lin_m, c_m) = _laws(n, m, k, b, states)
    A, rhs = _dp_constraints(states, e1)
    E = e1 * e_prime
    best: tuple[float, dict[State, float]] = (0.0, {})
    for la, ca, lb, cb in ((lin_d, c_d, lin_m, c_m), (lin_m, c_m, lin_d, c_d)):
        def value(p: np.ndarray, la: dict = la, ca: dict = ca, lb: dict = lb, cb: dict = cb
                  ) -> tuple[float, list]:
            vals = {o: la[o] @ p + ca[o] - E * ((lb[o] @ p + cb[o]) if o in lb else 0.0)
                    for o in la}
            pos = [o for o, v in vals.items() if v > 1e-18]
            return float(sum(vals[o] for o in pos)), pos

        for s in range(starts):
            if s == 0:
                p = np.full(len(states), 0.5)
            else:  # a random smooth start: logistic in the counts
                w = rng.normal(size=3) * np.log(e1)
                p = np.array([1 / (1 + np.exp(-(w[0] * h + w[1] * a + w[2] * c + rng.normal())))
                              for (h, a, c) in states])
            val, pos = value(p)
            found = False
            for _ in range(10):
                obj = np.zeros(len(states))
                for o in pos:
                    obj += la[o] - E * lb.get(o, 0)
                res = linprog(-obj, A_ub=A, b_ub=rhs, bounds=[(0, 1)] * len(states),
                              method="highs")
                if res.status != 0:
                    break
                new_val, new_pos = value(res.x)
                if found and new_val <= val + 1e-15:
                    break
                p, val, pos, found = res.x, new_val, new_pos, True
            if found and val > best[0]:
                best = (val, {st: float(p[i]) for st, i in states.items()})
    return best
