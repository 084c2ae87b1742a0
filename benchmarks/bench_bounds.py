"""Benchmarks of the bounds and the exact engine (the speed targets of the project).

1. CP Table 2 (k = 20, 18 cells): certified ``d`` and exact ``sdgs_delta`` versus a
   straightforward mpmath scan over n (30 digits, n from n_m to a fixed n_max = 150,
   twice the largest maximiser in the table) in one process.
2. ``min_k`` at β = edge (1 − e^{−ε} rounded down to 40 digits, core.params.beta_edge) over
   ε ∈ {0.5, 1, 1.5, 2} and δ ∈ {1e-5, 1e-6, 1e-8}.
2b. d and sdgs_delta at k = 10, 100, 1000, 10 000, and sdgs outside the regime.
3. ``distribution`` of sampled strongly-safe k-anonymization on 60 records in 4 recoding groups.
"""

from __future__ import annotations

import time
from fractions import Fraction

import mpmath

from dps_verify import bounds, exact
from dps_verify import mechanisms as M

BETAS = ("0.05", "0.1", "0.2")
EPSILONS = ("0.25", "0.5", "0.75", "1.0", "1.5", "2.0")


def naive_d(k: int, beta: str, eps: str, n_max: int = 150) -> mpmath.mpf:
    """The straightforward computation: mpmath binomial sums for every n up to n_max."""
    with mpmath.workdps(30):
        b, e = mpmath.mpf(beta), mpmath.mpf(eps)
        g = (mpmath.exp(e) - 1 + b) / mpmath.exp(e)
        best = mpmath.mpf(0)
        for n in range(int(mpmath.ceil(k / g - 1)), n_max):
            j0 = int(mpmath.floor(g * n)) + 1
            best = max(best, mpmath.fsum(
                mpmath.binomial(n, j) * b**j * (1 - b) ** (n - j) for j in range(j0, n + 1)))
        return best


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def _scaling() -> dict:
    """d and sdgs_delta (hockey-stick) at k = 10 … 10 000 (β = 0.1, ε = 1) and outside the
    regime (k = 40, β = 0.25, ε = 0.28): cost growth with k."""
    out = {}
    for k in (10, 100, 1000, 10000):
        v, t = _timed(lambda k=k: bounds.d_certified(k, "0.1", 1))
        h, th = _timed(lambda k=k: exact.sdgs_delta_certified(k, "0.1", 1))
        out[f"k={k}"] = {"d_s": round(t, 4), "sdgs_s": round(th, 4), "argmax_n": v.details["argmax_n"]}
    c, t = _timed(lambda: exact.sdgs_delta_certified(40, "0.25", "0.28"))
    out["outside_regime_k40_b0.25_e0.28"] = {"s": round(t, 4), "value": float(c.upper)}
    c, t = _timed(lambda: exact.sdgs_delta_certified(61, "edge", 1))
    out["edge_k61_e1"] = {"s": round(t, 4), "value": float(c.upper)}
    return out


def run() -> dict:
    from dps_verify.core.params import beta_edge

    cells = [(b, e) for b in BETAS for e in EPSILONS]
    _, t_d = _timed(lambda: [bounds.d_certified(20, b, e) for b, e in cells])
    _, t_hs = _timed(lambda: [exact.sdgs_delta_certified(20, b, e) for b, e in cells])
    _, t_pw = _timed(lambda: [exact.sdgs_delta_certified(20, b, e, "pointwise") for b, e in cells])
    _, t_naive = _timed(lambda: [naive_d(20, b, e) for b, e in cells])

    grid = [(e, dl) for e in ("0.5", "1", "1.5", "2") for dl in ("1e-5", "1e-6", "1e-8")]
    import scipy.special  # noqa: F401  # one-time import of min_k's float screen (see min_k_grid)

    ks, t_mink = _timed(
        lambda: {f"eps={e},delta={dl}": bounds.min_k(beta_edge(Fraction(e)), e, dl) for e, dl in grid}
    )

    A = M.StronglySafeKAnonymizer(lambda r: r // 100, 5)
    data = [g * 100 + (i % 7) for g in range(4) for i in range(15)]
    dist, t_dist = _timed(lambda: exact.distribution(A, data, Fraction(1, 10)))
    return {
        "table2_d_18_cells_s": round(t_d, 4),
        "table2_sdgs_hockey_stick_18_cells_s": round(t_hs, 4),
        "table2_sdgs_pointwise_18_cells_s": round(t_pw, 4),
        "table2_naive_mpmath_scan_s": round(t_naive, 3),
        "speedup_d_vs_naive": round(t_naive / t_d, 1),
        "speedup_sdgs_vs_naive_d": round(t_naive / t_hs, 1),
        "min_k_grid_beta_edge_12_queries_s": round(t_mink, 4),
        "min_k_values": ks,
        "target_min_k_under_0.1s": t_mink < 0.1,
        "scaling": _scaling(),
        "min_k_grid_by_measure": min_k_grid(),
        "tail_backends": tail_backends(),
        "inverse_eps_beta": inverse_eps_beta(),
        "table2_vs_float": table2_vs_float(),
        "distribution_60_records_4_groups_s": round(t_dist, 3),
        "distribution_outputs": len(dist),
    }


# ---- backends for the exact tail sums (P2) --------------------------------------------------
#: (k, β) cases: the tail Pr[Bin(n, β) ≥ T] at n ≈ k/γ, T = ⌊γn⌋ + 1, γ = 1 − (1−β)/e (ε = 1).
TAIL_CASES = ((10_000, "0.1"), (10_000, "1e-6"), (100_000, "0.1"), (100_000, "1e-6"))


def _tail_terms(n: int, T: int, p: int, q: int, ops, rel_bits: int = 140):
    """Σ_{j≥T} C(n,j) p^j (q−p)^(n−j) by the term recurrence of sdgs.tail_enclosure, in the
    integer type given by ``ops`` = (from_int, comb, exact_div); stops at a 2^−rel_bits
    geometric remainder (same rule as production)."""
    mk, comb, div = ops
    r = q - p
    term = comb(n, T) * mk(p) ** T * mk(r) ** (n - T)
    total, j = mk(0), T
    while True:
        total += term
        if j == n:
            return total, 0
        num, den = (n - j) * p, (j + 1) * r
        if num < den:
            rem = term * num // (den - num) + 1
            if (rem << rel_bits) <= total:
                return total, j - T + 1
        term = div(term * num, den)
        j += 1


def tail_backends(cases=TAIL_CASES, reps: int = 1) -> dict:
    """One exact (or ball) upper tail per case in each backend, same process; ratios against
    gmpy2 (the production path, sdgs.tail_enclosure) and against fractions.Fraction.

    Backends: Python int, gmpy2 mpz, python-flint fmpz (integers over q^n, exact division);
    Fraction and flint fmpq (sums of rational pmf terms); mpmath.iv and flint arb balls at
    200 bits (certified enclosures, cost independent of the size of q^n).  Fraction/fmpq are
    skipped where one evaluation would take minutes (marked "skipped").
    """
    return {f"k={k},beta={beta}": _tail_case(k, beta, reps) for k, beta in cases}


def _best_time(fn, reps: int) -> float:
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best




def _tail_case(k: int, beta: str, reps: int) -> dict:
    import math

    import flint
    import gmpy2

    from dps_verify.worstcase.ball_binomial import BallBinomial
    from dps_verify.worstcase.sdgs import tail_enclosure

    b = Fraction(beta)
    p, q = b.numerator, b.denominator
    g = 1 - (1 - float(b)) / math.e
    n = math.ceil(k / g)
    T = math.floor(g * n) + 1
    row: dict = {"n": n, "T": T, "bits_of_q^n": n * q.bit_length()}
    row["gmpy2_s"] = _best_time(lambda: tail_enclosure(n, T, p, q), reps)
    row["python_int_s"] = _best_time(lambda: _tail_terms(n, T, p, q, (int, math.comb, lambda a, d: a // d)), reps)
    fm = (flint.fmpz, lambda a, c: flint.fmpz.bin_uiui(a, c), lambda a, d: a // d)
    row["flint_fmpz_s"] = _best_time(lambda: _tail_terms(n, T, p, q, fm), reps)
    _, terms = _tail_terms(n, T, p, q, (gmpy2.mpz, gmpy2.comb, gmpy2.divexact))
    row["terms"] = terms

    def frac_sum(mk):
        bb, cc = mk(p, q), mk(q - p, q)
        return sum((math.comb(n, j) * bb**j * cc ** (n - j) for j in range(T, T + terms)), mk(0, 1))

    small = row["bits_of_q^n"] * terms <= 5 * 10**6  # Fraction: ~70 s at k = 10^5, β = 0.1
    row["fraction_s"] = _best_time(lambda: frac_sum(Fraction), reps) if small else "skipped"
    row["flint_fmpq_s"] = _best_time(lambda: frac_sum(flint.fmpq), reps) if small else "skipped"

    def iv_tail():
        iv = mpmath.iv
        old = iv.prec
        iv.prec = 200
        try:
            bb = iv.mpf(p) / q
            lt = (iv.loggamma(n + 1) - iv.loggamma(T + 1) - iv.loggamma(n - T + 1)
                  + T * iv.log(bb) + (n - T) * iv.log(1 - bb))
            t, s = iv.exp(lt), iv.mpf(0)
            for j in range(T, T + terms):
                s += t
                t = t * (n - j) * bb / ((j + 1) * (1 - bb))
            return s
        finally:
            iv.prec = old

    row["mpmath_iv_200bit_s"] = _best_time(iv_tail, reps)
    row["flint_arb_200bit_s"] = _best_time(lambda: BallBinomial(b, 200).upper_tail(T, n), reps)
    times = {key[:-2]: v for key, v in row.items() if key.endswith("_s") and isinstance(v, float)}
    for key in list(row):
        if key.endswith("_s") and isinstance(row[key], float):
            row[key] = round(row[key], 5)
    row["ratio_vs_gmpy2"] = {name: round(v / times["gmpy2"], 2) for name, v in times.items()}
    if "fraction" in times:
        row["speedup_vs_fraction"] = {name: round(times["fraction"] / v, 1) for name, v in times.items()}
    return row


def min_k_grid(reps: int = 3) -> dict:
    """The 12-cell min-k grid at β = edge (ε ∈ {0.5, 1, 1.5, 2} × δ ∈ {1e-5, 1e-6, 1e-8}) for
    each measure: the first call (includes importing scipy for the float screen), the best of
    ``reps`` warm calls, and the same grid without the float screen (the previous search: an
    exact secant guess, then certified neighbours) in the same process, interleaved, with the
    ratio of the best times.  The answers are checked extremal by
    tests/test_search_inverse_screen.py and must agree here."""
    from dps_verify.core.params import beta_edge
    from dps_verify.inverse import screen as inverse_screen

    grid = [(e, dl) for e in ("0.5", "1", "1.5", "2") for dl in ("1e-5", "1e-6", "1e-8")]
    out: dict = {}
    screen = inverse_screen.min_k_screen
    for bound in ("paper", "hockey-stick", "pointwise"):
        def go(bound=bound):
            return {f"eps={e},delta={dl}": bounds.min_k(beta_edge(Fraction(e)), e, dl, bound) for e, dl in grid}

        ks, first = _timed(go)
        warm, base = [], []
        for _ in range(reps):
            warm.append(_timed(go)[1])
            inverse_screen.min_k_screen = lambda *a, **kw: None  # type: ignore[assignment]
            try:
                ks0, t0 = _timed(go)
            finally:
                inverse_screen.min_k_screen = screen
            base.append(t0)
        assert ks0 == ks, "the screen changed an answer"
        out[bound] = {"first_call_s": round(first, 4), "warm_best_s": round(min(warm), 4),
                      "without_screen_best_s": round(min(base), 4), "speedup": round(min(base) / min(warm), 1),
                      "k": ks}
    out["target_paper_under_0.1s"] = out["paper"]["warm_best_s"] < 0.1
    return out


def inverse_eps_beta() -> dict:
    """min_epsilon and max_beta with and without the float guess (same process): seconds for a
    few queries per measure, and the ratio.  Answers are equal within tol in both runs."""
    from dps_verify.inverse import screen as inverse_screen

    eps_q = [(20, "0.1", "1e-6"), (61, "0.3", "1e-8"), (100, "0.5", "1e-6")]
    beta_q = [(20, "1", "1e-6"), (61, "ln(11)", "1e-8"), (100, "0.5", "1e-6")]
    real = (inverse_screen.min_epsilon_guess, inverse_screen.max_beta_guess)
    out: dict = {}
    for bound in ("paper", "hockey-stick", "pointwise"):
        def go(bound=bound):
            return ([bounds.min_epsilon(*q, bound=bound) for q in eps_q],
                    [bounds.max_beta(*q, bound=bound) for q in beta_q])

        go()  # warm-up: caches of e^ε enclosures etc. are shared by both variants
        t1 = t0 = float("inf")
        for _ in range(2):  # interleaved, best of 2
            (e1, b1), t = _timed(go)
            t1 = min(t1, t)
            inverse_screen.min_epsilon_guess = inverse_screen.max_beta_guess = lambda *a, **kw: None  # type: ignore[assignment]
            try:
                (e0, b0), t = _timed(go)
            finally:
                inverse_screen.min_epsilon_guess, inverse_screen.max_beta_guess = real
            t0 = min(t0, t)
        assert all(abs(x - y) <= 2e-9 for x, y in zip(e1 + b1, e0 + b0)), "answers moved by more than tol"
        out[bound] = {"with_guess_s": round(t1, 4), "without_guess_s": round(t0, 4), "speedup": round(t0 / t1, 1)}
    return out


# ---- certified Table 2 against the float limit (P3) ----------------------------------------


def float_d_cell(k: int, b: float, e: float) -> float:
    """The float limit of CP Thm 5's d: scipy ``bdtrc`` over n ≥ n_m in vectorised chunks of 64,
    with the certified scan's stopping rule (n·KL(γ‖β) ≥ −ln best); floats only, no guarantee."""
    import math

    import numpy as np
    from scipy.special import bdtrc

    g = 1 - (1 - b) * math.exp(-e)
    kl = g * math.log(g / b) + (1 - g) * math.log((1 - g) / (1 - b))
    n, best = max(math.ceil(k / g - 1), 1), 0.0
    while True:
        ns = np.arange(n, n + 64)
        best = max(best, float(bdtrc(np.floor(g * ns), ns, b).max()))
        if (n + 64) * kl >= -math.log(best):
            return best
        n += 64


def float_sdgs_cell(k: int, b: float, e: float) -> float:
    """The float limit of the exact hockey-stick worst case in CP Thm 5's regime: Pr[X_n ≥ T] −
    e^ε Pr[X_{n−1} ≥ T], T = max(k, ⌊γn⌋ + 1), n ≥ k, same stopping rule (floats only)."""
    import math

    import numpy as np
    from scipy.special import bdtrc

    g = 1 - (1 - b) * math.exp(-e)
    kl = g * math.log(g / b) + (1 - g) * math.log((1 - g) / (1 - b))
    x = math.exp(e)
    n, best = k, 0.0
    while True:
        ns = np.arange(n, n + 64)
        T = np.maximum(k, np.floor(g * ns) + 1)
        best = max(best, float((bdtrc(T - 1, ns, b) - x * bdtrc(T - 1, ns - 1, b)).max()))
        if best > 0 and (n + 64) * kl >= -math.log(best):
            return best
        n += 64


def float_chernoff_cell(k: int, b: float, e: float) -> float:
    """The float limit of TR Thm 6's closed form exp(−k(ln(γ/β) − (γ−β)/γ)) (floats only)."""
    import math

    gm = (1 - b) * -math.expm1(-e)
    return math.exp(-k * (math.log1p(gm / b) - gm / (b + gm)))


def table2_vs_float(reps: int = 5) -> dict:
    """Certified d, hockey-stick sdgs_delta and chernoff_delta on CP Table 2's grid (k = 20,
    18 cells) against the float limits above, in this process.

    Timing, garbage collection off (as in ``timeit``): a variant's time is the sum over the
    cells of its best of ``reps`` consecutive calls per cell.  Each measured call is far
    shorter than a scheduler time slice, so on a shared machine a preemption (≈4 ms here)
    rarely spoils all of them, whereas a whole certified table (≈3 ms) is often cut and its
    float counterpart (≈0.5 ms) seldom; the best whole table over ``reps`` interleaved rounds
    (``..._whole_table``) is reported too.
    The certified runs are cold: the bounded caches (:func:`dps_verify.worstcase.sdgs.
    clear_caches`, core.numbers.exp_interval's) are emptied before every cell
    (``..._warm_caches_s`` is d with them kept).  Also the certified d with the KL exponent in
    mpmath.iv instead of arb (the earlier setup)."""
    import gc

    from dps_verify.core import numbers as core_numbers
    from dps_verify.worstcase import sdgs

    cells = [(b, e) for b in BETAS for e in EPSILONS]
    clear = getattr(sdgs, "clear_caches", lambda: None)  # absent in older trees

    def cold(fn):
        def run(b, e):
            core_numbers.exp_interval.cache_clear()
            clear()
            fn(b, e)
        return run

    def no_arb_kl(b, e):
        real = sdgs._kl_lower_arb
        sdgs._kl_lower_arb = lambda *a: None  # type: ignore[assignment]
        try:
            cold(lambda b, e: bounds.d_certified(20, b, e))(b, e)
        finally:
            sdgs._kl_lower_arb = real

    variants = {
        "fd": lambda b, e: float_d_cell(20, float(b), float(e)),
        "fs": lambda b, e: float_sdgs_cell(20, float(b), float(e)),
        "fc": lambda b, e: float_chernoff_cell(20, float(b), float(e)),
        "cd": cold(lambda b, e: bounds.d_certified(20, b, e)),
        "cs": cold(lambda b, e: exact.sdgs_delta_certified(20, b, e)),
        "cc": cold(lambda b, e: bounds.chernoff_delta(20, b, e)),
        "cd_warm": lambda b, e: bounds.d_certified(20, b, e),
        "cd_iv": no_arb_kl,
    }
    per_cell = {name: [float("inf")] * len(cells) for name in variants}
    whole = dict.fromkeys(variants, float("inf"))
    gc.collect()
    gc.disable()
    try:
        for name, fn in variants.items():
            for i, (b, e) in enumerate(cells):
                fn(b, e)  # warm the CPU caches for this variant (its own caches stay cold)
                per_cell[name][i] = _best_time(lambda fn=fn, b=b, e=e: fn(b, e), reps)
        for _ in range(reps):
            for name, fn in variants.items():
                whole[name] = min(whole[name], _best_time(lambda fn=fn: [fn(b, e) for b, e in cells], 1))
    finally:
        gc.enable()
    best = {name: sum(v) for name, v in per_cell.items()}
    t_fd, t_fs, t_fc, t_cd, t_cs, t_cc = (best[x] for x in ("fd", "fs", "fc", "cd", "cs", "cc"))
    t_cd_warm, t_cd_iv = best["cd_warm"], best["cd_iv"]
    fcells = [(float(b), float(e)) for b, e in cells]
    worst = max(abs(float(bounds.d(20, b, e)) / float_d_cell(20, fb, fe) - 1)
                for (b, e), (fb, fe) in zip(cells, fcells))
    return {
        "float_d_18_cells_s": round(t_fd, 5),
        "certified_d_18_cells_s": round(t_cd, 5),
        "ratio_d_certified_over_float": round(t_cd / t_fd, 1),
        "certified_d_with_mpmath_kl_s": round(t_cd_iv, 5),
        "float_sdgs_hs_18_cells_s": round(t_fs, 5),
        "certified_sdgs_hs_18_cells_s": round(t_cs, 5),
        "ratio_sdgs_certified_over_float": round(t_cs / t_fs, 1),
        "float_chernoff_18_cells_s": round(t_fc, 6),
        "certified_chernoff_18_cells_s": round(t_cc, 6),
        "ratio_chernoff_certified_over_float": round(t_cc / t_fc, 1),
        "certified_d_18_cells_warm_caches_s": round(t_cd_warm, 5),
        "ratio_d_whole_table": round(whole["cd"] / whole["fd"], 1),
        "ratio_sdgs_whole_table": round(whole["cs"] / whole["fs"], 1),
        "certified_d_whole_table_s": round(whole["cd"], 5),
        "float_d_whole_table_s": round(whole["fd"], 5),
        "max_rel_diff_float_vs_certified_d": f"{worst:.2g}",
        "target_within_10x": t_cd / t_fd <= 10 and t_cs / t_fs <= 10,
        "chernoff_within_10x": t_cc / t_fc <= 10,
    }
