"""CP §3 (safe k-anonymization): the CLR/Mondrian weakness (§3.1), Prop 4, Thm 5, the remarks
of §3.3 (γ > β, where the maximum sits), the statements about Figures 2–6, and Thm 6."""

from __future__ import annotations

import math
from fractions import Fraction

from dps_verify import bounds, exact, mechanisms
from dps_verify.measures import sdgs
from dps_verify.paper import figures
from dps_verify.paper.claims.base import CONFIRMED, CORRECTED, REFUTED, Claim, Result, fmt
from dps_verify.paper.claims.common import from_proof


# --------------------------------------------------------------------------- §3.1
def check_clr() -> Result:
    """An outlier's presence is visible in CLR/Mondrian output: δ at a large ε stays near β."""
    beta = Fraction(1, 2)
    ds = [(v,) for v in (1, 2, 3, 4, 5, 6)]
    outlier = (35,)
    rows = {}
    for name, m in (("CLR", mechanisms.ClusterLocalRecoding(2)), ("Mondrian", mechanisms.Mondrian(2))):
        p = exact.distribution(m, [*ds, outlier], beta).exact
        q = exact.distribution(m, ds, beta).exact
        rows[name] = exact.delta_certified(p, q, 5).lower
    # Pr[outlier sampled and published] = β·Pr[≥ 1 of the 6 others sampled] = (1/2)(63/64).
    expect = beta * (1 - Fraction(1, 64))
    ok = all(v >= expect for v in rows.values())
    return Result(CONFIRMED if ok else REFUTED,
                  ", ".join(f"{n}: δ(ε=5) = {fmt(v, 4)}" for n, v in rows.items()) + " (β = 0.5)",
                  "exact output laws; 6 records plus an outlier (35), k = 2: every output whose "
                  "range reaches 35 is impossible without the outlier, so δ ≥ β·Pr[another record "
                  f"sampled] = {expect} at every ε — not (β, ε, δ)-DPS for any δ below that")


# --------------------------------------------------------------------------- Prop 4, Thm 5
def _prop4_exact() -> Result:
    m = mechanisms.StronglySafeKAnonymizer(lambda r: r[0], 3)
    ds = [("a", i) for i in range(4)]
    p = exact.distribution(m, [*ds, ("a", 9)], 1).exact
    q = exact.distribution(m, ds, 1).exact
    d = exact.delta_certified(p, q, 50).lower
    return Result(CONFIRMED if d == 1 else REFUTED, f"δ(ε=50) = {d} without sampling",
                  "exact: 5 vs 4 records in one group, k = 3, no sampling — outputs disjoint")


def check_prop4() -> Result:
    return from_proof("cp-proposition-4", _prop4_exact, _prop4_exact)


def _thm5_exact() -> Result:
    worst = 0.0
    n = 0
    for k in (2, 5, 10, 20):
        for b in ("0.05", "0.2", "0.4"):
            for e in ("0.75", "1", "2"):
                dd = bounds.d_certified(k, b, e).lower
                for meas in ("hockey-stick", "pointwise"):
                    x = exact.sdgs_delta_certified(k, b, e, meas).upper
                    if x > dd:
                        return Result(REFUTED, f"exact δ > d at k={k}, β={b}, ε={e}", meas)
                    worst = max(worst, float(x / dd) if dd else 0.0)
                    n += 1
    return Result(CONFIRMED, f"{n} cases, max exact/d = {fmt(worst, 4)}",
                  "exact worst-case δ (hockey-stick and pointwise) of sampled strongly-safe "
                  "k-anonymization never exceeds d(k, β, ε) on the grid k ∈ {2,5,10,20}, "
                  "β ∈ {0.05,0.2,0.4}, ε ∈ {0.75,1,2}")


def check_thm5() -> Result:
    return from_proof("cp-theorem-5", _thm5_exact, _thm5_exact)


def check_gamma() -> Result:
    import sympy as sp
    e, b = sp.symbols("epsilon beta", positive=True)
    g = (sp.exp(e) - 1 + b) / sp.exp(e)
    diff = sp.simplify(g - b - (sp.exp(e) - 1) * (1 - b) / sp.exp(e))
    return Result(CONFIRMED if diff == 0 else REFUTED, "γ − β = (e^ε − 1)(1 − β)/e^ε",
                  "sympy identity; positive for ε > 0 and β < 1")


def check_argmax() -> Result:
    """CP §3.3: the maximum need not be at n_m, but at one of ⌈(k+i)/γ − 1⌉."""
    wit, off_form, n = [], [], 0
    for k in (5, 10, 20, 30):
        for b in ("0.05", "0.1", "0.2", "0.3", "0.4"):
            for e in ("0.5", "0.75", "1", "1.5", "2"):
                bb, ee = Fraction(b), Fraction(e)
                if math.exp(float(ee)) * (1 - float(bb)) <= 1:
                    continue
                c = bounds.d_certified(k, b, e)
                n += 1
                nm = sdgs.n_min(k, bb, ee)
                am = c.details["argmax_n"]
                if am != nm:
                    wit.append((k, b, e, nm, am))
                    cands = {sdgs.n_min(k + i, bb, ee) for i in range(0, 10)}
                    if am not in cands:
                        off_form.append((k, b, e, am))
    if not wit:
        return Result(REFUTED, "argmax always n_m", f"{n} grid points")
    k, b, e, nm, am = wit[0]
    return Result(CONFIRMED, f"{len(wit)}/{n} grid points; e.g. k={k}, β={b}, ε={e}: n_m={nm}, argmax n={am}",
                  "exact d with its maximising n versus n_m = ⌈k/γ − 1⌉; "
                  + ("every argmax is one of ⌈(k+i)/γ − 1⌉, as the paper says"
                     if not off_form else f"argmax off the stated points at {off_form}"),
                  {"witnesses": [list(map(str, w)) for w in wit]})


# --------------------------------------------------------------------------- figures
def check_fig2_trend() -> Result:
    ok = True
    for k in figures.FIG2_KS:
        ys = [y for _, y in figures.curve(k, "0.2")]
        ok &= all(a >= b for a, b in zip(ys, ys[1:]))
    for k1, k2 in zip(figures.FIG2_KS, figures.FIG2_KS[1:]):
        ok &= all(figures.delta(k2, "0.2", e) < figures.delta(k1, "0.2", e) for e in figures.eps_grid("0.2"))
    return Result(CONFIRMED if ok else REFUTED, "1/δ increases with ε and with k on the grid",
                  "paper d on ε ∈ (−ln 0.8, 2] in steps of 0.05 for k ∈ {5,10,20,30,50}",
                  artefact_data("fig2"))


def artefact_data(name: str) -> dict:
    return {"artefact": name}


def check_fig2_k10() -> Result:
    ratios = [figures.delta(k, "0.2", Fraction(2)) / figures.delta(k + 10, "0.2", Fraction(2))
              for k in range(5, 45)]
    lo, hi = min(ratios), max(ratios)
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    ok = 10**4 < lo and hi < 10**6
    return Result(CORRECTED if ok else REFUTED,
                  f"δ(k)/δ(k+10) ∈ [{fmt(lo, 2)}, {fmt(hi, 2)}], geometric mean {fmt(gm, 2)}",
                  "correction: the text says δ decreases 'by 10^-5'; it is divided by about 10^5 "
                  "(multiplied by ~10^-5). Exact d at ε = 2, β = 0.2 for k = 5…44 vs k + 10",
                  {"ratios": ratios})


def check_fig3() -> Result:
    ok = True
    for b1, b2 in zip(figures.FIG3_BETAS, figures.FIG3_BETAS[1:]):
        ok &= all(figures.delta(20, b1, e) < figures.delta(20, b2, e) for e in figures.eps_grid(b2))
    span = figures.delta(20, "0.4", Fraction(1)) / figures.delta(20, "0.05", Fraction(1))
    return Result(CONFIRMED if ok else REFUTED, f"δ(β=0.4)/δ(β=0.05) at ε=1: {fmt(span, 3)}",
                  "paper d at k = 20: for every ε on the grid, δ strictly increases with β")


def check_fig4() -> Result:
    got = {b: figures.fig4_match(b) for b in figures.FIG4_BETAS}
    printed = figures.FIG4_PRINTED
    gaps_printed = {b: figures.log_gap(printed[b], b, figures.FIG4_START) for b in printed}
    close = all(abs(got[b][0] - printed[b]) <= 1 for b in ("0.1", "0.2"))
    off = abs(got["0.4"][0] - printed["0.4"]) > 1
    seq = " → ".join(str(got[b][0]) for b in figures.FIG4_BETAS)
    verdict = CORRECTED if close and off else (CONFIRMED if close else REFUTED)
    return Result(verdict, f"15 → {seq} (printed 15 → 22 → 35 → 60)",
                  "criterion: the k minimising max_ε |log10 d(k,β,ε) − log10 d(15,0.05,ε)| over "
                  "ε ∈ {0.6, 0.7, …, 2.0}; gaps (orders of magnitude) ours/printed: "
                  + ", ".join(f"β={b}: {got[b][1]:.2f}/{gaps_printed[b]:.2f}" for b in printed)
                  + ". 22 and 35 are within 1 of our choice; for β = 0.4 the best k is "
                  f"{got['0.4'][0]} (60 matches only near ε ≈ 1.8), and no k is within 3 orders of "
                  "magnitude over the whole ε range, because the curves' slopes differ",
                  {"ours": {b: got[b][0] for b in got}, "printed": printed})


def check_fig5_k1() -> Result:
    beta = Fraction(1, 40)
    grid = figures.eps_grid("0.025")
    ratios = [(e, Fraction(bounds.d_certified(1, beta, e).lower) / beta) for e in grid]
    below = [e for e, r in ratios if r < 1]
    above = [e for e, r in ratios if r > 1]
    # d(1, β, ε) = β exactly once γ ≥ 1/2, i.e. ε ≥ ln(2(1 − β)) = ln 1.95.
    thr = math.log(2 * (1 - 0.025))
    eq_ok = all(r == 1 for e, r in ratios if float(e) > thr + 1e-9)
    verdict = CORRECTED if not below and above and eq_ok else REFUTED
    return Result(verdict, f"d(1, 0.025, ε) ≥ β on the grid; = β for ε ≥ ln 1.95 ≈ {thr:.3f}",
                  "correction: for k = 1 the text says δ is less than β; in fact d ≥ β for every ε "
                  f"(equal to β above ε ≈ {thr:.3f}, larger below, e.g. {fmt(ratios[0][1], 3)}·β at "
                  f"ε = {float(ratios[0][0])}). The point — with k = 1 all protection comes from "
                  "sampling — stands")


def check_fig5_k2() -> Result:
    vals = {k: bounds.d_certified(k, "0.025", 2).upper for k in range(2, 6)}
    ok = all(v < Fraction(1, 1000) for v in vals.values())
    return Result(CONFIRMED if ok else REFUTED, f"max over k=2..5 of d(k, 0.025, 2) = {fmt(max(vals.values()))}",
                  "exact: " + ", ".join(f"k={k}: {fmt(v)}" for k, v in vals.items()))


def check_fig6() -> Result:
    tab = {b: [figures.min_epsilon(k, b) for k in figures.FIG6_KS] for b in figures.FIG6_BETAS}
    dec = all(all(a >= c for a, c in zip(v, v[1:])) for v in tab.values())
    inc = all(tab[b1][i] < tab[b2][i] for b1, b2 in zip(figures.FIG6_BETAS, figures.FIG6_BETAS[1:])
              for i in range(len(figures.FIG6_KS)))
    i20 = figures.FIG6_KS.index(20)
    ok = dec and inc
    return Result(CONFIRMED if ok else REFUTED,
                  f"k=20: ε = {tab['0.05'][i20]:.3f} (β=0.05) … {tab['0.4'][i20]:.3f} (β=0.4)",
                  "smallest ε with d(k, β, ε) ≤ 10^-6 by bisection on exact d (tolerance 1e-4); "
                  "non-increasing in k, strictly increasing in β",
                  {"min_epsilon": {b: v for b, v in tab.items()}, "ks": list(figures.FIG6_KS)})


# --------------------------------------------------------------------------- Thm 6
def _thm6_exact() -> Result:
    """Exact δ of a small ε1-safe k-anonymizer, choice made on the sample (CP Def 3) and on the
    unsampled data (App. A.3's model), against d(k, β, ε − ε1)."""
    recodings = [lambda r: r // 2, lambda r: r % 2]

    def scores(s):
        return [sum(1 for r in s if r < 2), sum(1 for r in s if r >= 2)]
    m = mechanisms.EpsilonSafeKAnonymizer(recodings, scores, 2, weight_base=Fraction(3, 2))
    e1 = 2 * math.log(1.5)
    beta = Fraction(1, 5)
    ds = [0, 1, 1, 2, 3, 3]
    rows = []
    ok = True
    for eps in (Fraction(3, 2), Fraction(2)):
        bound = bounds.d_safe(2, beta, eps, Fraction(e1).limit_denominator(10**9) + Fraction(1, 10**8))
        for t in (1, 3):
            p = exact.distribution(m, [*ds, t], beta).exact
            q = exact.distribution(m, ds, beta).exact
            on_sample = exact.delta_certified(p, q, eps).upper
            pf = m.choice_on_full_data([*ds, t], beta)
            qf = m.choice_on_full_data(ds, beta)
            on_full = exact.delta_certified(pf, qf, eps).upper
            ok &= float(on_sample) <= float(bound) and float(on_full) <= float(bound)
            rows.append((float(eps), t, float(on_sample), float(on_full), float(bound)))
    return Result(CORRECTED if ok else REFUTED, f"max exact δ / bound = {fmt(max(max(a, b) / c for *_, a, b, c in rows), 3)}",
                  "correction: App. A.3 runs A_m on the unsampled D (its factorisation); under CP "
                  "Def 3 A_m sees the sample and the printed argument does not apply. Exact δ on "
                  "6 records ± one, ε1 = 2 ln 1.5, k = 2, β = 0.2, both models: " + "; ".join(
                      f"ε={e}, t={t}: {fmt(a)} / {fmt(b)} ≤ {fmt(c)}" for e, t, a, b, c in rows))


def check_thm6() -> Result:
    r = from_proof("cp-theorem-6", _thm6_exact, _thm6_exact)
    return r


def claims() -> list[Claim]:
    C = Claim
    return [
        C("cp.sec3.1.clr-mondrian", "CP §3.1 (Alg 1, CLR)",
          "Clustering-and-local-recoding algorithms such as Mondrian reveal an outlier's presence "
          "and so are not (β, ε, δ)-DPS for δ < β (up to the chance its cluster is published).",
          "exact output laws of sampled CLR and Mondrian", CONFIRMED, check_clr),
        C("cp.proposition4", "CP §3.2, Prop 4",
          "No strongly-safe k-anonymization is (ε, δ)-DP for any δ < 1 (without sampling).",
          "z3/sympy (proofs.cp-proposition-4) + exact instance", CONFIRMED, check_prop4,
          proofs=("cp-proposition-4",)),
        C("cp.theorem5", "CP §3.3, Thm 5 (App. A.2; = TR Thm 1)",
          "Sampled strongly-safe k-anonymization is (β, ε, d(k, β, ε))-DPS for ε ≥ −ln(1 − β).",
          "proof (proofs.cp-theorem-5) + exact worst-case δ on a grid", CONFIRMED, check_thm5,
          proofs=("cp-theorem-5",)),
        C("cp.sec3.3.gamma-gt-beta", "CP §3.3",
          "γ − β = (e^ε − 1)(1 − β)/e^ε > 0, so the sum in d is a tail beyond the mean.",
          "sympy", CONFIRMED, check_gamma),
        C("cp.sec3.3.argmax-not-at-nm", "CP §3.3",
          "The maximum over n in d(k, β, ε) is not always at n_m = ⌈k/γ − 1⌉ but at one of "
          "⌈(k+i)/γ − 1⌉.", "exact d with its maximising n on a grid", CONFIRMED, check_argmax),
        C("cp.fig2.trend", "CP §3.3, Fig 2",
          "At β = 0.2, 1/δ grows with ε and (close to exponentially) with k.",
          "exact d series", CONFIRMED, check_fig2_trend, artefact="fig2"),
        C("cp.fig2.k-plus-10", "CP §3.3, Fig 2",
          "At ε = 2 (β = 0.2), adding 10 to k lowers δ by a factor of about 10^5.",
          "exact d ratios for k = 5…44", CORRECTED, check_fig2_k10, artefact="fig2"),
        C("cp.fig3.beta", "CP §3.3, Fig 3",
          "At k = 20, smaller β gives much smaller δ for every ε.", "exact d series",
          CONFIRMED, check_fig3, artefact="fig3"),
        C("cp.fig4.k-matching", "CP §3.3, Fig 4",
          "Starting from (k, β) = (15, 0.05), doubling β needs k = 22, 35, 60 for similar δ.",
          "exact d, explicit matching criterion", CORRECTED, check_fig4, artefact="fig4"),
        C("cp.fig5.k1", "CP §3.3, Fig 5",
          "At β = 0.025 and k = 1, δ is below β (protection only from sampling).",
          "exact d", CORRECTED, check_fig5_k1, artefact="fig5"),
        C("cp.fig5.k2", "CP §3.3, Fig 5",
          "At β = 0.025, every k ≥ 2 gives δ < 0.001 at ε = 2.", "exact d", CONFIRMED,
          check_fig5_k2, artefact="fig5"),
        C("cp.fig6.frontier", "CP §3.3, Fig 6",
          "Under δ ≤ 10^-6 the ε needed falls as k grows and depends strongly on β.",
          "bisection on exact d", CONFIRMED, check_fig6, artefact="fig6"),
        C("cp.theorem6", "CP §3.4, Thm 6 (App. A.3)",
          "ε1-safe k-anonymization is (β, ε, d(k, β, ε − ε1))-DPS for ε ≥ −ln(1 − β) + ε1.",
          "proofs.cp-theorem-6 + exact δ of a concrete ε1-safe anonymizer", CORRECTED,
          check_thm6, proofs=("cp-theorem-6",)),
    ]
