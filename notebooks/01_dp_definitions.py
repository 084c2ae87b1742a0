# %% [markdown]
# # 1 · Differential privacy, and two ways to allow a failure probability δ
#
# *Covers CP §2.1 (Definitions 1–2) and TR §2 (Definition 2).* About 10 minutes.
#
# Differential privacy compares the output law of a mechanism on two **neighbouring** datasets:
# here, as in the paper, `D` and `D − t` differ by one record `t`. Plain ε-DP bounds the ratio of
# the two laws everywhere by `e^ε`. The relaxations allow some failure of size δ, and the paper's
# two versions measure that failure differently:
#
# * **hockey-stick** (CP Def. 2): for every event `O`, `Pr[A(D) ∈ O] ≤ e^ε Pr[A(D') ∈ O] + δ`.
#   The smallest such δ is `Σ_y max(0, p(y) − e^ε q(y))`.
# * **pointwise** (TR Def. 2): the probability of drawing an output whose privacy loss
#   `|ln p(y)/q(y)|` exceeds ε must be at most δ.
#
# The pointwise version is stricter. We will see by how much on two toy mechanisms.

# %%
import math
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np

from dps_verify import exact, mechanisms

plt.rcParams["figure.figsize"] = (7, 3.6)
plt.rcParams["axes.grid"] = True

# %% [markdown]
# ## A toy mechanism: randomized response about one person
#
# The mechanism answers "is `t` in the data?" truthfully with probability 3/4 and lies otherwise.
# `exact.randomized` wraps a function from the sample to an output law; `exact.distribution`
# gives the exact law after sampling (β = 1 means no sampling).

# %%
rr = exact.randomized(
    lambda s: {"yes": Fraction(3, 4), "no": Fraction(1, 4)} if "t" in s
    else {"yes": Fraction(1, 4), "no": Fraction(3, 4)}
)
p = exact.distribution(rr, ["t", "a", "b"], 1)   # D contains t
q = exact.distribution(rr, ["a", "b"], 1)        # D - t
print("p =", p.exact)
print("q =", q.exact)
print("smallest eps with delta = 0:", exact.epsilon(p, q, 0), " (ln 3 =", math.log(3), ")")

# %% [markdown]
# ## A mechanism where the two definitions disagree
#
# A strongly-safe 3-anonymizer (CP Def. 5) on a group of six identical records, one of them `t`,
# after sampling with β = 0.3. The published count can be any `j ≥ 3`, or 0 when suppressed.
# Publishing all six copies is impossible without `t`: the privacy loss of that output is infinite.

# %%
anon = mechanisms.StronglySafeKAnonymizer(lambda r: "group", k=3)
P = exact.distribution(anon, ["x"] * 6, 0.3)
Q = exact.distribution(anon, ["x"] * 5, 0.3)
for y in sorted(set(P.exact) | set(Q.exact)):
    py, qy = P.exact.get(y, 0), Q.exact.get(y, 0)
    loss = math.inf if qy == 0 else math.log(py / qy)
    print(f"output {str(y):22}  p = {float(py):.5f}  q = {float(qy):.5f}  loss = {loss:+.3f}")

# %% [markdown]
# ## The privacy-loss distribution
#
# Draw the output `y` from `p` and record the loss `ln p(y)/q(y)`: that random variable is the
# **privacy-loss distribution** (PLD). Both definitions read δ off it: the hockey-stick δ is
# `E[max(0, 1 − e^(ε − loss))]`, the pointwise δ is `Pr[loss > ε]` (for the direction shown).

# %%
try:
    from dps_verify.measures.pld import PrivacyLossDistribution
    pld = PrivacyLossDistribution.from_pair(P, Q)
    losses = [math.log(r) for r in pld.support]
    masses = [float(pld.ratios[r]) for r in pld.support]
    inf_mass = float(pld.infinity_mass)
except ImportError:  # compute the PLD directly from the two laws
    losses, masses, inf_mass = [], [], 0.0
    for y, py in P.exact.items():
        qy = Q.exact.get(y, 0)
        if qy == 0:
            inf_mass += float(py)
        else:
            losses.append(math.log(py / qy))
            masses.append(float(py))

fig, ax = plt.subplots()
ax.bar(losses, masses, width=0.05, label="finite loss")
right = max(losses) + 0.6
ax.bar([right], [inf_mass], width=0.05, color="crimson", label="loss = +inf (drawn at the edge)")
ax.axvline(1.0, color="k", ls="--", lw=1, label="eps = 1")
ax.set_xlabel("privacy loss ln p(y)/q(y)")
ax.set_ylabel("probability under D")
ax.set_title("Privacy-loss distribution: 3-anonymizer, group of 6, beta = 0.3")
ax.legend()
plt.show()

# %% [markdown]
# ## δ as a function of ε, under both definitions
#
# Both curves fall as ε grows; the hockey-stick curve is never above the pointwise one, and the
# infinite-loss output keeps both above a floor. Move `beta` or `k` above and re-run to see the
# floor and the gap change.

# %%
eps_grid = [round(float(x), 3) for x in np.linspace(0.05, 3, 40)]
hs = [float(exact.delta(P, Q, e)) for e in eps_grid]
pw = [float(exact.pointwise_delta(P, Q, e)) for e in eps_grid]
assert all(h <= w for h, w in zip(hs, pw))
fig, ax = plt.subplots()
ax.plot(eps_grid, pw, label="pointwise (TR Def. 2)")
ax.plot(eps_grid, hs, label="hockey-stick (CP Def. 2)")
ax.set_yscale("log")
ax.set_xlabel("epsilon")
ax.set_ylabel("smallest delta")
ax.set_title("Same mechanism, two definitions of delta")
ax.legend()
plt.show()
print("floor = mass of the infinite-loss output:", float(P.exact[(("group", 6),)]))
