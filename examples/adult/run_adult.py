"""Worked example on the UCI Adult data: sample, strongly-safe k-anonymize, release,
audit — and Mondrian on the same data, where the audit finds a witness.

    python examples/adult/run_adult.py [OUT_DIR]        # default ./adult_out

Steps (CP §3.2–3.3):
1. A generalization hierarchy fixed before looking at the data (so the recoding g is
   data-independent, CP Def. 5) for five quasi-identifiers.
2. Sampling with β = 0.1 (CP Def. 3), then suppression of every generalized value seen fewer
   than k times (CP §3.2 Apply).  The release is written to CSV, suppressed rows as '*'.
3. k is chosen for the claim (ε, δ) = (1, 1e-6) twice: by the paper's d (CP Thm 5) and by the
   exact worst case (``sdgs_delta``); the utility of both is compared.
4. ``dps_verify.audit`` recognises the mechanism and checks the claim against the exact worst
   case over all datasets (a proof, not a search).
5. Every released table is checked to be k-anonymous by pycanon, an independent library.
6. Mondrian (CP §3.1) on (age, education-num) of the same sample: the audit finds a witness on a
   small domain of real Adult records, and the effect is shown on the real sample with and
   without the oldest person.
"""

from __future__ import annotations

import csv
import random
import sys
import time
from collections import Counter
from pathlib import Path

from dps_verify import bounds, exact
from dps_verify.audit import audit
from dps_verify.data import load_adult_qi
from dps_verify.mechanisms import Mondrian, StronglySafeKAnonymizer

BETA = 0.1
EPSILON = 1.0
DELTA = 1e-6
SEED = 2012
QI = ["age", "sex", "race", "education", "marital-status"]

# ----------------------------------------------------------------- data-independent hierarchy
EDU_L1 = {
    "Preschool": "No-HS", "1st-4th": "No-HS", "5th-6th": "No-HS", "7th-8th": "No-HS",
    "9th": "No-HS", "10th": "No-HS", "11th": "No-HS", "12th": "No-HS",
    "HS-grad": "HS-grad", "Some-college": "College", "Assoc-voc": "College",
    "Assoc-acdm": "College", "Bachelors": "Bachelors", "Masters": "Graduate",
    "Prof-school": "Graduate", "Doctorate": "Graduate",
}
MARITAL_L1 = {
    "Married-civ-spouse": "Married", "Married-AF-spouse": "Married",
    "Married-spouse-absent": "Married", "Never-married": "Never-married",
    "Divorced": "Was-married", "Separated": "Was-married", "Widowed": "Was-married",
}


def gen_age(a: int, level: int) -> str:
    if level == 0:
        return str(a)
    if level == 4:
        return "*"
    w = {1: 5, 2: 10, 3: 20}[level]
    lo = a // w * w
    return f"{lo}-{lo + w - 1}"


def gen_sex(s: str, level: int) -> str:
    return s if level == 0 else "*"


def gen_race(r: str, level: int) -> str:
    return r if level == 0 else ("White" if r == "White" else "Non-white") if level == 1 else "*"


def gen_edu(e: str, level: int) -> str:
    if level == 0:
        return e
    if level == 1:
        return EDU_L1[e]
    if level == 2:
        return "Bachelors+" if EDU_L1[e] in ("Bachelors", "Graduate") else "Below-bachelors"
    return "*"


def gen_marital(m: str, level: int) -> str:
    return m if level == 0 else MARITAL_L1[m] if level == 1 else "*"


GEN = {"age": gen_age, "sex": gen_sex, "race": gen_race, "education": gen_edu,
       "marital-status": gen_marital}
#: Generalization levels (age, sex, race, education, marital-status), fixed in advance.
LEVELS = {
    "fine": (1, 0, 0, 1, 1),
    "release": (2, 0, 1, 1, 1),
    "coarse": (3, 0, 1, 2, 1),
}


def recoder(levels: tuple[int, ...]):
    """The data-independent recoding g for a level vector (CP Def. 5)."""

    def g(rec: tuple) -> tuple:
        return tuple(GEN[q](v, lv) for q, v, lv in zip(QI, rec, levels))

    g.__name__ = "recode_" + "".join(map(str, levels))
    return g


# ----------------------------------------------------------------- helpers
def bernoulli_sample(rows: list, beta: float, seed: int) -> list:
    rng = random.Random(seed)
    return [r for r in rows if rng.random() < beta]


def release_rows(sample: list[tuple], g, k: int) -> tuple[list[tuple], int]:
    """Generalized rows in sample order, suppressed ones as '*' (CP §3.2 Apply)."""
    counts = Counter(g(r) for r in sample)
    out, suppressed = [], 0
    for r in sample:
        y = g(r)
        if counts[y] >= k:
            out.append(y)
        else:
            out.append(("*",) * len(y))
            suppressed += 1
    return out, suppressed


def write_csv(path: Path, header: list[str], rows: list) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def pycanon_k(rows: list[tuple], header: list[str]) -> int:
    """k-anonymity of the released rows by pycanon, after dropping suppressed rows."""
    import pandas as pd
    from pycanon import anonymity

    kept = [r for r in rows if not all(v == "*" for v in r)]
    df = pd.DataFrame([[str(v) for v in r] for r in kept], columns=header)
    return int(anonymity.k_anonymity(df, header))


# ----------------------------------------------------------------- the example
def run(out_dir: str | Path = "adult_out", verbose: bool = True) -> dict:
    """Run the whole example; write CSVs to ``out_dir``; return the key numbers."""
    t0 = time.perf_counter()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    say = print if verbose else (lambda *a, **k: None)
    data = load_adult_qi()
    rows = [tuple(d[q] for q in QI) for d in data]
    sample = bernoulli_sample(rows, BETA, SEED)
    say(f"UCI Adult: {len(rows)} records; Bernoulli sample at beta = {BETA}: {len(sample)} records")

    k_paper = bounds.min_k(BETA, EPSILON, DELTA, bound="paper")
    k_exact = bounds.min_k(BETA, EPSILON, DELTA, bound="hockey-stick")
    say(f"claim (epsilon, delta) = ({EPSILON}, {DELTA}): k by the paper's d = {k_paper}, "
        f"k by the exact delta = {k_exact}")

    # utility of both k over the fixed lattice points
    utility = []
    for name, lv in LEVELS.items():
        g = recoder(lv)
        for k in sorted({k_exact, k_paper}):
            _, sup = release_rows(sample, g, k)
            utility.append({"levels": name, "level_vector": lv, "k": k, "suppressed": sup,
                            "suppressed_pct": round(100 * sup / len(sample), 2)})
    say("\nutility: records suppressed per generalization level (age, sex, race, edu, marital)")
    for u in utility:
        say(f"  {u['levels']:<8} {u['level_vector']}  k = {u['k']:>2}: {u['suppressed']:>4} "
            f"suppressed ({u['suppressed_pct']}%)")

    # the release at the fixed level, with k chosen by the exact delta, and its audit
    lv = LEVELS["release"]
    g = recoder(lv)
    releases = {}
    for label, k in (("exact", k_exact), ("paper", k_paper)):
        rel, sup = release_rows(sample, g, k)
        path = out / f"adult_release_k{k}.csv"
        write_csv(path, QI, rel)
        kk = pycanon_k(rel, QI)
        anon = StronglySafeKAnonymizer(g, k)
        rep = audit(anon, beta=BETA, epsilon=EPSILON, delta=DELTA, domain=[sample[0]])
        releases[label] = {"k": k, "csv": str(path), "suppressed": sup,
                           "released": len(rel) - sup, "pycanon_k": kk,
                           "verdict": rep.verdict, "method": rep.method,
                           "worst_delta": float(rep.worst_delta["upper"]),
                           "paper_d": float(bounds.d(k, BETA, EPSILON))}
        assert kk >= k, f"pycanon finds k = {kk} < {k}"
        say(f"\nrelease with k = {k} (chosen by the {label} delta) -> {path}")
        say(f"  {len(rel) - sup} rows released, {sup} suppressed; pycanon k-anonymity = {kk}")
        say(f"  paper d = {releases[label]['paper_d']:.3e}, exact worst-case delta = "
            f"{releases[label]['worst_delta']:.3e}")
        say("  audit: " + rep.summary().replace("\n", "\n  "))
    # one k below the exact choice breaks the claim; the audit shows where
    low = audit(StronglySafeKAnonymizer(g, k_exact - 1), beta=BETA, epsilon=EPSILON,
                delta=DELTA, domain=[sample[0]])
    say(f"\nk = {k_exact - 1} (one below): audit {low.verdict}; " + low.witness.summary())

    # ------------------------------------------------------------- Mondrian on the same data
    k_m = k_exact
    num = [(d["age"], d["education-num"]) for d in data]
    num_sample = bernoulli_sample(num, BETA, SEED)
    oldest = max(num, key=lambda r: (r[0], r[1]))
    mond = Mondrian(k_m)
    # a small domain of real Adult records: the median person, neighbours, and the oldest
    ages = sorted(num)
    median = ages[len(ages) // 2]
    with_sample = num_sample if oldest in num_sample else num_sample + [oldest]
    without_sample = list(with_sample)
    without_sample.remove(oldest)  # exactly one person differs (CP §2.1 neighbours)
    with_o, without_o = mond(with_sample), mond(without_sample)
    top_with = max(rng for rng, _ in with_o)
    top_without = max(rng for rng, _ in without_o)
    mrows = [rng for rng, c in with_o for _ in range(c)]
    mheader = ["age_range", "education-num_range"]
    mflat = [(f"{a[0]}-{a[1]}", f"{e[0]}-{e[1]}") for a, e in mrows]
    mpath = out / f"adult_mondrian_k{k_m}.csv"
    write_csv(mpath, mheader, mflat)
    mk = pycanon_k(mflat, mheader)
    assert mk >= k_m
    dom_recs = list(dict.fromkeys([median, ages[len(ages) // 4], ages[3 * len(ages) // 4], oldest]))
    mrep = audit(mond, beta=BETA, epsilon=EPSILON, delta=DELTA,
                 domain={"records": [list(r) for r in dom_recs], "max_size": 40})
    say(f"\nMondrian (k = {k_m}) on (age, education-num) of the same sample -> {mpath}")
    say(f"  pycanon k-anonymity = {mk}; yet one person, the oldest {oldest}, moves the top "
        f"partition:")
    say(f"  with them in the sample its ranges are {top_with}, without them {top_without}")
    # the same effect as an exact (epsilon, delta) witness: the oldest beside a crowd of medians
    pair_d = tuple([median] * 11 + [oldest])
    P = exact.distribution(mond, pair_d, BETA)
    Q = exact.distribution(mond, pair_d[:-1], BETA)
    pair_delta = exact.delta_certified(P, Q, EPSILON)
    say(f"  exact: D = 11 x {median} + {oldest} vs D without the oldest: delta at epsilon = "
        f"{EPSILON} is {float(pair_delta.lower):.3e} > claimed {DELTA}")
    say(f"  audit on real records {dom_recs}: " + mrep.summary().replace("\n", "\n  "))

    seconds = time.perf_counter() - t0
    say(f"\ndone in {seconds:.1f} s")
    return {
        "records": len(rows), "sample": len(sample), "k_paper": k_paper, "k_exact": k_exact,
        "utility": utility, "releases": releases,
        "below_k_verdict": low.verdict,
        "mondrian": {"k": k_m, "csv": str(mpath), "pycanon_k": mk, "verdict": mrep.verdict,
                     "oldest": oldest, "top_with": top_with, "top_without": top_without,
                     "oldest_pair_delta": float(pair_delta.lower),
                     "witness": mrep.witness.summary() if mrep.witness else None},
        "seconds": seconds,
    }


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "adult_out")
