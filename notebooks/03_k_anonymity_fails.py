# %% [markdown]
# # 3 · Why k-anonymity alone does not protect (CP §3.1–3.2, Proposition 4)
#
# *Covers CP §3.1 (Algorithm 1, CLR), §3.2 (Definition 5) and Proposition 4; TR §3.* About 15 minutes.
#
# A k-anonymous table has every row at least k times, yet the *way* rows are grouped can depend
# on a single person. Clustering and local recoding (CLR), e.g. Mondrian, draws group boundaries
# from the data: one extreme value stretches a published range and announces itself.

# %%
import csv
import gzip
import importlib.resources
import io
import random

import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle

from dps_verify import exact, mechanisms

plt.rcParams["figure.figsize"] = (7, 3.6)
plt.rcParams["axes.grid"] = True

# %% [markdown]
# ## A small table with an outlier
#
# Net worth (in $1000s) of nine people; `t` is the one rich person. Mondrian with k = 3 cuts the
# data at medians; CLR cuts the sorted list into blocks of k.

# %%
others = [120, 150, 180, 200, 260, 310, 340, 420]
t = 35000
D, D_minus = others + [t], others
for name, algo in [("Mondrian", mechanisms.Mondrian(3)), ("CLR", mechanisms.ClusterLocalRecoding(3))]:
    print(name)
    print("   with t   :", algo(tuple(D)))
    print("   without t:", algo(tuple(D_minus)))

# %% [markdown]
# With `t` present, one published range ends at 35000; without it, no range does. Anyone who sees
# that range learns that `t` is in the data and what `t`'s value is — although every published row
# appears at least three times.
#
# ## Does sampling rescue Mondrian?
#
# Sampling makes `t` present only with probability β, so one might hope for (ε, δ)-DP with small δ.
# It does not: whenever `t` is sampled the 35000 endpoint appears, and no output of `D − t` has it.
# The exact δ stays at about β for **every** ε. Compare the strongly-safe anonymizer (a fixed
# recoding into bands, CP Def. 5), whose δ falls fast.

# %%
beta = 0.5
mond = mechanisms.Mondrian(3)
Pm, Qm = exact.distribution(mond, D, beta), exact.distribution(mond, D_minus, beta)

def band(v):
    return "under 250" if v < 250 else ("250-999" if v < 1000 else "1000+")


safe = mechanisms.StronglySafeKAnonymizer(band, k=3)
Ps, Qs = exact.distribution(safe, D, beta), exact.distribution(safe, D_minus, beta)

eps_grid = [0.25, 0.5, 1, 1.5, 2, 3, 4, 6]
d_mond = [float(exact.delta(Pm, Qm, e)) for e in eps_grid]
d_safe = [float(exact.delta(Ps, Qs, e)) for e in eps_grid]
fig, ax = plt.subplots()
ax.plot(eps_grid, d_mond, "o-", label="Mondrian (k = 3), sampled")
ax.plot(eps_grid, d_safe, "s-", label="strongly-safe bands (k = 3), sampled")
ax.axhline(beta, color="grey", ls=":", label="beta")
ax.set_yscale("symlog", linthresh=1e-4)
ax.set_xlabel("epsilon")
ax.set_ylabel("exact delta")
ax.set_title(f"Sampling at beta = {beta}: data-dependent groups keep leaking")
ax.legend()
plt.show()

# %% [markdown]
# ### The witness
#
# The outputs that are possible with `t` and impossible without it carry the whole δ. Here they are,
# most likely first: an auditor would report the top one as the counterexample.

# %%
witness = sorted(((pv, y) for y, pv in Pm.exact.items() if Qm.exact.get(y, 0) == 0), reverse=True)
print(f"{len(witness)} outputs impossible without t; together they have probability "
      f"{float(sum(pv for pv, _ in witness)):.4f} under D")
pv, y = witness[0]
print("most likely witness:", y, " Pr[with t] =", pv, " Pr[without t] = 0")

# %% [markdown]
# The suite's auditor (`dps-verify audit`, module `dps_verify.audit`) searches small datasets over
# a domain of values for such a witness by itself. It returns the first one it finds, which may be
# smaller than ours: any outcome that exists only because one record was there breaks the claim.

# %%
try:
    from dps_verify.audit import audit
    report = audit(mechanisms.Mondrian(3), beta=0.5, epsilon=1, delta=0.001,
                   domain=[120, 260, 35000], max_size=5, method="exact")
    w = report.witness
    print("verdict:", report.verdict)
    # w.dataset is the first dataset of the comparison; w.direction says whether it is D (with
    # the extra record) or D'
    print("first =", w.dataset, " second =", w.neighbour, f"({w.direction})",
          " event:", w.event_sample)
    print("Pr[first in event] =", w.prob_first, " Pr[second in event] =", w.prob_second,
          " forces delta >=", float(w.implied_delta))
except ImportError:
    print("dps_verify.audit is not installed in this checkout")

# %% [markdown]
# ## The same effect on a census-like table
#
# The audit module ships the quasi-identifiers of the UCI Adult data
# (`dps_verify/data/adult_qi.csv.gz`, see its README for source and licence). If it is present we
# use age and years of education from its first 400 rows; otherwise a clearly marked synthetic stand-in with
# the same shape is generated, so the notebook always runs. We remove the oldest person and see
# which Mondrian boxes move.

# %%


def load_rows(limit=400):
    try:
        res = importlib.resources.files("dps_verify") / "data" / "adult_qi.csv.gz"
        if res.is_file():
            text = gzip.decompress(res.read_bytes()).decode()
            reader = csv.DictReader(io.StringIO(text))
            cols = reader.fieldnames or []
            records = list(reader)
            wanted = ("age", "education-num", "hours-per-week")
            numeric = [c for c in cols if all(r[c].strip().isdigit() for r in records[:50])]
            pick = ([c for c in wanted if c in numeric] + [c for c in numeric if c not in wanted])[:2]
            rows = [tuple(int(r[c]) for c in pick) for r in records[:limit]]
            if len(pick) == 2 and rows:
                return rows, "Adult extract shipped with dps_verify", pick
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    rng = random.Random(7)
    rows = [(max(17, min(90, int(rng.gauss(38, 13)))), max(1, min(16, int(rng.gauss(10, 2.5)))))
            for _ in range(limit - 1)] + [(90, 16)]
    return rows, "SYNTHETIC stand-in (Adult extract not installed)", ["age", "education-num"]

rows, source, cols = load_rows()
print("data source:", source, "| columns:", cols, "| rows:", len(rows))

# %%

k_adult = 25
oldest = max(rows, key=lambda r: (r[0], r[1]))
without = list(rows)
without.remove(oldest)
boxes_with = {g for g, _ in mechanisms.Mondrian(k_adult)(tuple(rows))}
boxes_without = {g for g, _ in mechanisms.Mondrian(k_adult)(tuple(without))}
changed = boxes_with - boxes_without
print(f"{len(boxes_with)} boxes; {len(changed)} change when the record {oldest} is removed")

fig, ax = plt.subplots(figsize=(7, 4.5))
xs, ys = zip(*rows)
ax.scatter(xs, ys, s=4, color="grey")
for g in boxes_with:
    (x0, x1), (y0, y1) = g
    hit = g in changed
    ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=(1, 0, 0, 0.2) if hit else "none",
                           edgecolor="crimson" if hit else "steelblue", lw=1.2 if hit else 0.5))
ax.scatter([oldest[0]], [oldest[1]], marker="*", s=200, color="crimson", label="removed record")
ax.set_xlabel(cols[0])
ax.set_ylabel(cols[1] if len(cols) > 1 else "")
ax.set_title(f"Mondrian (k = {k_adult}) boxes; red boxes depend on one person")
ax.legend()
plt.show()

# %% [markdown]
# ## Proposition 4: even safe k-anonymization needs the sampling
#
# A strongly-safe anonymizer's grouping does not depend on the data, but **without** sampling its
# output is a deterministic function of the dataset. Take a group of exactly k records that map to
# the same value: with `t` it is published, without `t` it is suppressed. The two outputs never
# coincide, so δ = 1 for every ε.

# %%
k = 4
anon = mechanisms.StronglySafeKAnonymizer(lambda r: "*", k=k)
P1, Q1 = exact.distribution(anon, ["x"] * k, 1), exact.distribution(anon, ["x"] * (k - 1), 1)
print("without sampling:", P1.exact, "vs", Q1.exact)
print("delta at eps = 10:", exact.delta(P1, Q1, 10))
try:
    from dps_verify.paper import kernel as proofs
    print("proofs:", proofs.run("cp-proposition-4").verdict)
except (ImportError, KeyError):
    pass

betas = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0]
worst = [float(exact.sdgs_delta(k, b, 1)) if b < 1 else 1.0 for b in betas]
fig, ax = plt.subplots()
ax.plot(betas, worst, "o-")
ax.set_yscale("log")
ax.set_xlabel("sampling rate beta")
ax.set_ylabel("worst-case delta at eps = 1")
ax.set_title(f"Strongly-safe k = {k}: delta = 1 without sampling, small with it")
plt.show()
