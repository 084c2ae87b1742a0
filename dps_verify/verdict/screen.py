"""Float screen of neighbouring pairs, vectorised with numpy, with a rigorous error bound.

For a dataset with count vector c (over the atoms of :mod:`.samples`) the law of A^β(D) is
Σ_{s ≤ c} Π_i C(c_i, s_i) β^{s_i} (1−β)^{c_i−s_i} · law(A(s)) (independent Bernoulli(β) sampling
per record, CP Def. 3).  The law of the neighbour D − x uses the same sub-samples with c_x − 1
in place of c_x, so one enumeration of the grid {s ≤ c} serves D and all its neighbours D − x.

Error bound (standard floating-point analysis, unit roundoff u = 2^-53, all summands ≥ 0): each
binomial factor is the exact value rounded once; a weight is a product of at most ``ms`` factors
(and one output probability), so it carries relative error ≤ γ_{ms+2}; summing K non-negative
terms into P(y) adds relative error ≤ γ_K.  Hence |P̂(y) − P(y)| ≤ γ_G P(y) with
G = K + ms + 2, and the same for Q.  The hockey-stick sum Σ max(0, P − e Q) is 1-Lipschitz in
each term, e is the float nearest e^ε (relative error ≤ 2u after the interval), and the final
sum over the L outputs that occur adds γ_L (an exact zero term adds no rounding).  Altogether
|δ̂ − δ| ≤ γ_{G+L+8} (ΣP + e^ε ΣQ)·(1 + 4u) and we report
``err = 2 (G + L + 8) u (1 + e)`` (twice the first-order bound, so the γ_n = nu/(1−nu)
denominator and the e^ε rounding are covered for every n < 2^40).
"""

from __future__ import annotations

from typing import Any

import numpy as np

U = 2.0**-53


def _keys_to_rows(tab: dict, S: np.ndarray) -> np.ndarray:
    if "keys_sorted" in tab:
        keys = S @ tab["pow"]
        ks = tab["keys_sorted"]
        pos = np.minimum(np.searchsorted(ks, keys), len(ks) - 1)
        if not np.array_equal(ks[pos], keys):
            # every sub-sample must have been anonymized before screening (never a silent
            # wrong row: a missing sample would make the screen's law wrong)
            raise RuntimeError("screen: a sub-sample is missing from the sample table")
        return tab["rows_sorted"][pos]
    pw = tab["pow_py"]
    rk = tab["row_of_key"]
    return np.array([rk[sum(int(a) * b for a, b in zip(row, pw))] for row in S.tolist()],
                    dtype=np.int64)


def screen_batch(tab: dict, pmf: np.ndarray, C: np.ndarray, e: float, d: float,
                 pointwise: bool, exact_int: dict | None = None) -> tuple:
    """Screen every pair (D, D − x) of a batch of datasets of one size, vectorised over the
    batch.  ``C`` is (B, m) count vectors.  Returns (dataset index, atom, δ̂, err, status,
    terms) as flat arrays over the pairs, where ``status`` is 1 (certainly a violation), 0
    (certainly within the claim) or 2 (to be decided in exact arithmetic).

    In integer mode (``exact_int`` given: deterministic anonymizer and q^n < 2^53 for
    β = p/q) ``pmf`` holds the integers C(c, s) p^s (q − p)^(c − s): every weight and every sum
    is an integer below 2^53, hence exact in float64, and only the comparison with e^ε is
    enclosed (ties such as "δ equals the claim with no Q-mass on the bad set" are decided
    exactly).  Otherwise the float error bound of the module docstring applies.
    """
    B, m = C.shape
    if B == 0:  # no dataset, no pair
        none = np.zeros(0, dtype=np.int64)
        return none, none, np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int8), 0
    C = C.astype(np.int64)
    n = int(C[0].sum())  # every dataset of the batch has n records
    radix = C + 1
    K = radix.prod(axis=1)
    strides = np.cumprod(np.hstack([np.ones((B, 1), dtype=np.int64), radix[:, :-1]]), axis=1)
    b_row = np.repeat(np.arange(B), K)
    local = np.arange(int(K.sum())) - np.repeat(np.cumsum(K) - K, K)
    Cr = C[b_row]
    S = (local[:, None] // strides[b_row]) % (Cr + 1)  # (R, m) sub-sample counts
    rows = _keys_to_rows(tab, S)
    F = pmf[Cr, S]  # (R, m) binomial factors
    R = len(rows)
    pre = np.ones((R, m + 1))
    np.cumprod(F, axis=1, out=pre[:, 1:])  # pre[:, j] = Π_{i<j} F[:, i]
    suf = np.ones((R, m + 1))
    np.cumprod(F[:, ::-1], axis=1, out=suf[:, 1:])  # suf[:, t] = Π of the last t factors
    wP = pre[:, m]
    if tab["deterministic"]:
        out = tab["flat_ids"][tab["starts"][rows]]
        rep = None
        pr = None
        b_term = b_row
    else:
        lens = tab["lens"][rows]
        rep = np.repeat(np.arange(R), lens)
        offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        out = tab["flat_ids"][tab["starts"][rows][rep] + offs]
        pr = tab["flat_p"][tab["starts"][rows][rep] + offs]
        b_term = b_row[rep]
    n_out = int(tab["n_outputs"])
    groups, inv = np.unique(b_term * n_out + out, return_inverse=True)
    b_grp = groups // n_out
    G_n = len(groups)

    def law(w: np.ndarray) -> np.ndarray:
        if rep is not None:
            w = w[rep] * pr
        return np.bincount(inv, weights=w, minlength=G_n)

    P = law(wP)
    zero_ok = exact_int is not None or underflow_free(
        pmf, n, m, float(tab["min_p_log2"]))
    terms_b = np.bincount(b_term, minlength=B)
    L_b = np.bincount(b_grp, minlength=B)
    res_b, res_x, res_d, res_e, res_s = [], [], [], [], []
    for x in range(m):
        has = C[:, x] > 0
        if not has.any():
            continue
        Cx = np.maximum(Cr[:, x] - 1, 0)
        # rows of datasets without record x get some weight here: only the pairs of datasets
        # holding x (``has``) are kept
        wQ = pre[:, x] * suf[:, m - 1 - x] * pmf[Cx, S[:, x]]
        Q = law(wQ)
        idx = np.flatnonzero(has)
        if exact_int is not None:
            st, dh = _decide_int(P, Q * exact_int["q"], b_grp, B, exact_int, n, pointwise)
            dh = dh / float(exact_int["q"]) ** n
            er = np.where(st == 2, 1.0, 0.0)
        else:
            st, dh, er = _decide_float(P, Q, b_grp, B, e, d, pointwise, terms_b, L_b, m,
                                       zero_ok)
        res_b.append(idx)
        res_x.append(np.full(len(idx), x, dtype=np.int64))
        res_d.append(dh[idx])
        res_e.append(er[idx])
        res_s.append(st[idx])
    order = np.lexsort((np.concatenate(res_x), np.concatenate(res_b)))
    return (np.concatenate(res_b)[order], np.concatenate(res_x)[order],
            np.concatenate(res_d)[order], np.concatenate(res_e)[order],
            np.concatenate(res_s)[order], int(len(out)) * (m + 1))


#: Below this (as log2) a float product may have left the normal range; the relative-error
#: model of the module docstring then no longer holds for single outputs.
_TINY_LOG2 = -900.0


def underflow_free(pmf: np.ndarray, n: int, factors: int, min_p_log2: float = 0.0) -> bool:
    """True if no weight of a dataset of ≤ ``n`` records can leave float's normal range: every
    binomial factor C(c, s) β^s (1−β)^{c−s} with s ≤ c ≤ n is either an exact 0/1 (β = 1) or a
    positive float, and ``factors`` of the smallest, times the smallest output probability
    (2^``min_p_log2``, a lower bound), stay above 2^-900.  Only then may the screen declare
    "no output on the bad side" (δ = 0 exactly) from relative comparisons; otherwise such pairs
    go to exact arithmetic (a subnormal or flushed-to-zero probability would fool it).
    ``pmf`` is a :func:`binomial_table` of at least ``n`` records (rows c = 0..n are read)."""
    tri = pmf[np.tril_indices(n + 1)]
    pos = tri[tri > 0]
    if pos.size == 0:
        return False
    if pos.size != tri.size and not np.all(pos == 1.0):  # a true positive factor flushed to 0
        return False
    return bool(factors * float(np.log2(pos.min())) + min_p_log2 > _TINY_LOG2)


def _per(b_grp: np.ndarray, B: int, v: np.ndarray) -> np.ndarray:
    return np.bincount(b_grp, weights=v, minlength=B)


def _decide_float(P: np.ndarray, Q: np.ndarray, b_grp: np.ndarray, B: int, e: float, d: float,
                  pointwise: bool, terms_b: np.ndarray, L_b: np.ndarray, m: int,
                  zero_ok: bool = True) -> tuple:
    G = terms_b + m + 2
    if not pointwise:
        dh = np.maximum(_per(b_grp, B, np.maximum(P - e * Q, 0.0)),
                        _per(b_grp, B, np.maximum(Q - e * P, 0.0)))
        er = 2.0 * (G + L_b + 8) * U * (1.0 + e)
        # No output can be on the bad side of e^ε (relative errors ≤ r per probability, e^ε
        # within 2u of e): then δ = 0 exactly, which settles claims with δ = 0.
        r = (2.0 * G * U)[b_grp]
        lo_e = e * (1 - 4 * U)
        poss = ((P * (1 + r) >= lo_e * Q * (1 - r)) | (Q * (1 + r) >= lo_e * P * (1 - r))) \
            & ((P > 0) | (Q > 0))
        zero = (_per(b_grp, B, poss.astype(float)) == 0) & zero_ok
        dh = np.where(zero, 0.0, dh)
        er = np.where(zero, 0.0, er)
    else:
        r = (2.0 * G * U)[b_grp]
        lo_e, hi_e = e * (1 - 2 * U), e * (1 + 2 * U)
        cert = (P * (1 - r) > hi_e * Q * (1 + r)) | (Q * (1 - r) > hi_e * P * (1 + r))
        poss = (P * (1 + r) > lo_e * Q * (1 - r)) | (Q * (1 + r) > lo_e * P * (1 - r))
        rb = 2.0 * G * U
        lo = np.maximum(_per(b_grp, B, P * cert), _per(b_grp, B, Q * cert)) * (1 - rb) - L_b * U
        hi = np.maximum(_per(b_grp, B, P * poss), _per(b_grp, B, Q * poss)) * (1 + rb) + L_b * U
        dh = (lo + hi) / 2
        er = (hi - lo) / 2 + 4 * U
    st = np.where(dh - er > d, 1, np.where(dh + er <= d, 0, 2)).astype(np.int8)
    return st, dh, er


def _decide_int(P: np.ndarray, qQ: np.ndarray, b_grp: np.ndarray, B: int, ex: dict, n: int,
                pointwise: bool) -> tuple[np.ndarray, np.ndarray]:
    """Status and scaled δ for integer laws P·q^n and Q·q^n (exact float64 integers).

    With T = claimed δ · q^n: a direction whose bad set carries no Q-mass has δ·q^n = A exactly
    (compared with ⌊T⌋); otherwise A − e^ε B is enclosed with e^ε ∈ [e_lo, e_hi] and a relative
    margin of 4u for the float products.  Outputs whose side of the bad set the float enclosure
    cannot decide send the pair to exact arithmetic (status 2).
    """
    e_lo, e_hi = ex["e_lo"], ex["e_hi"]
    T, Tf = ex["T"][n], ex["Tfloor"][n]
    margin = 0.0 if e_lo == e_hi == 1.0 else 4 * U  # ε = 0: e^ε = 1 exactly
    amb = np.zeros(B, dtype=bool)
    viol = np.zeros(B, dtype=bool)
    unsure = np.zeros(B, dtype=bool)
    best = np.zeros(B)
    bad_any = np.zeros(len(P), dtype=bool)
    for A_, B_ in ((P, qQ), (qQ, P)):
        with np.errstate(over="ignore"):  # e^ε clamped to the largest float: e·B may be inf
            cert = A_ > e_hi * B_ * (1 + margin)
            poss = A_ > e_lo * B_ * (1 - margin)
        amb |= _per(b_grp, B, (poss & ~cert).astype(float)) > 0
        bad_any |= cert
        A = _per(b_grp, B, A_ * cert)
        Bm = _per(b_grp, B, B_ * cert)
        if pointwise:
            continue
        zero = Bm == 0
        lo = (A - e_hi * Bm) - margin * (A + e_hi * Bm)
        hi = (A - e_lo * Bm) + margin * (A + e_lo * Bm)
        best = np.maximum(best, np.where(zero, A, (lo + hi) / 2))
        # T = float(δ·q^n) is rounded to nearest: compare with a 4u margin on T even when
        # e^ε = 1 exactly (ε = 0), so a near-tie goes to exact arithmetic (status 2); T ± 4uT
        # is T(1 ± 4u) rounded once
        viol |= np.where(zero, A > Tf, lo > T + 4 * U * T)
        unsure |= ~zero & (hi > T - 4 * U * T)
    if pointwise:
        v = np.maximum(_per(b_grp, B, P * bad_any), _per(b_grp, B, qQ * bad_any))
        best = v
        viol = v > Tf
    st = np.where(amb, 2, np.where(viol, 1, np.where(unsure, 2, 0))).astype(np.int8)
    return st, best


def screen_chunk(job: tuple) -> tuple:
    """Screen a chunk of datasets (a module-level function of plain data: runs in workers).

    ``job = (tab, pmf, counts, e, d, pointwise, exact_int)``; returns flat arrays (dataset row
    in chunk, atom, δ̂, err, status) over every neighbouring pair (D, D − x), and the number of
    terms done.
    """
    tab, pmf, counts, e, d, pointwise, exact_int = job
    return screen_batch(tab, pmf, np.asarray(counts), e, d, pointwise, exact_int)


def rank_table(m: int, n: int) -> np.ndarray:
    """T[j, p] = C(p + j, j + 1) for j < m, p ≤ n + 1: the colex rank of a count vector c over
    m atoms with total ≤ n is Σ_j T[j, c_0 + … + c_j] (the partial sums plus j form an
    increasing sequence, a combination of m out of n + m), a dense index in [0, C(n+m, m))."""
    from math import comb

    t = np.zeros((m, n + 2), dtype=np.int64)
    for j in range(m):
        for p in range(n + 2):
            t[j, p] = comb(p + j, j + 1)
    return t


def count_ranks(C: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Dense ranks (see :func:`rank_table`) of the rows of ``C``."""
    P = np.cumsum(C, axis=1)
    return T[np.arange(C.shape[1]), P].sum(axis=1)


#: Largest B × L dense block (datasets × distinct outputs) built by :func:`screen_parents`;
#: beyond it only the groups that occur are kept (the same numbers: a memory limit only).
DENSE_LIMIT = 4_000_000


def screen_parents(job: tuple) -> tuple:
    """Screen every pair (E + x, E) for a batch of datasets E of one size n − 1 and every atom
    x — the pairs of level n, each dataset D = E + x with its record x removed (deterministic
    anonymizers; a module-level function of plain data, runs in workers).

    Sampling is independent per record (CP Def. 3), so with W(y) = Pr[A(S) = y] and
    R_x(y) = Pr[A(S + x) = y] over the samples S of E, Pr[A^β(E + x) = y] = (1 − β) W(y) +
    β R_x(y): one enumeration of E's sub-samples serves all m neighbours.  Sub-samples are
    looked up by their dense rank (:func:`rank_table`), S + x by adding 1 to the partial sums
    from x on.

    ``job = (tab, pmf, E, e, d, pointwise, exact_int, n)`` with ``tab`` holding ``rank_T`` and
    ``out_of_rank`` (output id of every sample of ≤ n records).  Integer mode as in
    :func:`screen_batch` (weights C(c, s) p^s (q − p)^{c−s}; laws of E + x scaled by q^n are
    (q − p) W + p R_x, of E by q·W); float mode adds the two extra roundings of the mixture to
    the error bound.  Returns (E row, atom, δ̂, err, status, terms) like :func:`screen_chunk`.

    With a 9th job element ``"replace-one"`` the pairs are (E + x, E + y) for x < y instead
    (replace-one neighbours of size n), the "atom" column holding x·m + y.
    """
    tab, pmf, E, e, d, pointwise, ex, n = job[:8]
    replace = len(job) > 8 and job[8] == "replace-one"
    E = np.asarray(E, dtype=np.int64)
    B, m = E.shape
    T, oor = tab["rank_T"], tab["out_of_rank"]
    radix = E + 1
    K = radix.prod(axis=1)
    strides = np.cumprod(np.hstack([np.ones((B, 1), dtype=np.int64), radix[:, :-1]]), axis=1)
    b_row = np.repeat(np.arange(B), K)
    local = np.arange(int(K.sum())) - np.repeat(np.cumsum(K) - K, K)
    S = (local[:, None] // strides[b_row]) % radix[b_row]
    idx = np.cumsum(S, axis=1)  # partial sums P_j, as flat indices into T
    idx += np.arange(m, dtype=np.int64) * T.shape[1]
    Tf = T.ravel()
    A = Tf.take(idx)  # T[j, P_j]
    Bp = Tf.take(idx + 1)  # T[j, P_j + 1]
    prefA = np.cumsum(A, axis=1)
    rank0 = prefA[:, -1].copy()
    prefA -= A  # Σ_{j<x} T[j, P_j]
    sufB = np.cumsum(Bp[:, ::-1], axis=1)[:, ::-1]  # Σ_{j≥x} T[j, P_j + 1]
    out0 = oor[rank0]
    outx = oor[prefA + sufB]
    w = pmf[E[b_row], S].prod(axis=1)
    present = np.zeros(int(tab["n_outputs"]), dtype=bool)
    present[out0] = True
    present[outx.ravel()] = True
    L = int(present.sum())
    loc = np.cumsum(present) - 1
    base = b_row * L
    g0 = base + loc[out0]
    gx = base[:, None] + loc[outx]
    if B * L <= (DENSE_LIMIT // m if replace else DENSE_LIMIT):  # one dense block B × L
        G = B * L
        b_grp = np.repeat(np.arange(B), L)
    else:  # many outputs: only the (dataset, output) groups that occur
        groups, inv = np.unique(np.concatenate((g0, gx.ravel())), return_inverse=True)
        G = len(groups)
        g0, gx = inv[:len(g0)], inv[len(g0):].reshape(gx.shape)
        b_grp = groups // L
    W = np.bincount(g0, weights=w, minlength=G)
    terms_b = 2 * K
    # L per dataset: the groups that occur.  A group of the dense block that no sample reaches
    # holds exact zeros, which add no rounding to a sum, so both branches give the same bits.
    occurs = np.zeros(G, dtype=bool)
    occurs[g0] = True
    occurs[gx] = True
    L_b = np.bincount(b_grp[occurs], minlength=B)
    res_d, res_e, res_s = [], [], []
    zero_ok = ex is not None or underflow_free(pmf, n, m + 1)  # deterministic: outputs have mass 1
    if ex is not None:  # integer mode: q, p and the law of E scaled by q^n
        q, p = ex["q"], ex["p"]
        Qs = q * W
    else:  # float mode: the mixture weights
        beta_f, one_m = tab["beta_f"], tab["one_minus_beta_f"]

    def mix(x: int) -> np.ndarray:  # law of E + x (scaled by q^n in integer mode)
        Rx = np.bincount(gx[:, x], weights=w, minlength=G)
        return (q - p) * W + p * Rx if ex is not None else one_m * W + beta_f * Rx

    def decide(Ps: np.ndarray, Qs: np.ndarray, terms: np.ndarray) -> None:
        if ex is not None:  # exact integers < 2^53 (total q^n)
            st, dh = _decide_int(Ps, Qs, b_grp, B, ex, n, pointwise)
            dh = dh / float(q) ** n
            er = np.where(st == 2, 1.0, 0.0)
        else:
            st, dh, er = _decide_float(Ps, Qs, b_grp, B, e, d, pointwise, terms, L_b, m + 4,
                                       zero_ok)
        res_d.append(dh)
        res_e.append(er)
        res_s.append(st)

    if not replace:
        for x in range(m):
            decide(mix(x), Qs if ex is not None else W, terms_b)
        codes = np.arange(m)
    else:  # replace-one (TR's variant): the pairs (E + x, E + y), x < y (δ is symmetric)
        mixes = [mix(x) for x in range(m)]
        pairs = [(x, y) for x in range(m) for y in range(x + 1, m)]
        for x, y in pairs:
            decide(mixes[x], mixes[y], 3 * K)
        codes = np.array([x * m + y for x, y in pairs], dtype=np.int64)
    # pairs ordered by (E row, atom code)
    k = len(codes)
    di = np.repeat(np.arange(B), k)
    xi = np.tile(codes, B)
    return (di, xi, np.stack(res_d, axis=1).ravel(), np.stack(res_e, axis=1).ravel(),
            np.stack(res_s, axis=1).ravel(), int(len(w)) * (m + 1))


def binomial_table(beta_num: int, beta_den: int, n: int, integer: bool = False) -> np.ndarray:
    """pmf[c, s] = C(c, s) β^s (1−β)^{c−s}, each rounded once from the exact rational; with
    ``integer`` the exact integers C(c, s) p^s (q − p)^{c−s} (β = p/q) instead."""
    from fractions import Fraction
    from math import comb

    t = np.zeros((n + 2, n + 2))
    p, q = beta_num, beta_den
    for c in range(n + 1):
        den = q**c
        for s in range(c + 1):
            v = comb(c, s) * p**s * (q - p) ** (c - s)
            t[c, s] = float(v) if integer else float(Fraction(v, den))
    return t


__all__: list[Any] = ["binomial_table", "count_ranks", "rank_table", "screen_batch", "screen_chunk",
                      "screen_parents"]
