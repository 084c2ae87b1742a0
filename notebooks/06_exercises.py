# %% [markdown]
# # 6 · Exercises with checkable answers
#
# About 30 minutes. Each exercise asks for a number. Replace `None` in the `answer = None` cell
# with your answer, then run the check cell: it recomputes the quantity with the suite and tells
# you whether you are right (an unanswered exercise is reported, not failed). The last cell shows
# what a wrong answer looks like. The answers are in `07_solutions`.

# %%
import math
from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np

from dps_verify import bounds, exact, mechanisms
from dps_verify.worstcase import sdgs

plt.rcParams["figure.figsize"] = (7, 3.6)
plt.rcParams["axes.grid"] = True


# %%
def verify(name, answer, truth, rel=1e-6):
    """Compare a student's answer with the suite's value; raise AssertionError if wrong."""
    if answer is None:
        print(f"{name}: not answered yet (replace None with your answer and re-run)")
        return False
    if isinstance(truth, bool) or isinstance(truth, int):
        ok = answer == truth
    else:
        ok = abs(float(answer) - float(truth)) <= rel * max(1.0, abs(float(truth)))
    if not ok:
        raise AssertionError(f"{name}: {answer!r} is not right; try again (hint: re-read the notebook)")
    print(f"{name}: correct ({answer!r})")
    return True


# %% [markdown]
# ## Exercise 1 — amplification (notebook 2)
#
# An algorithm is (ln 3)-DP. You run it on a 20 % sample. What ε does Theorem 1 give?

# %%
answer = None  # your answer here

# %%
verify("Exercise 1", answer, bounds.amplify(math.log(3), 0, 1, 0.2)[0])

# %% [markdown]
# ## Exercise 2 — the smallest k (notebook 4)
#
# With β = 0.1 and ε = 1, what is the smallest k for which the paper's d(k, β, ε) is at most 10⁻⁶?
# (Hint: compute `bounds.d(k, 0.1, 1)` for a few k.)

# %%
answer = None  # your answer here

# %%
verify("Exercise 2", answer, bounds.min_k(0.1, 1, 1e-6))

# %% [markdown]
# ## Exercise 3 — where the maximum sits (notebook 4)
#
# For k = 5, β = 0.3, ε = 1, at which group size n is the maximum in d attained? Is it n_m?

# %%
answer = None  # your answer here

# %%
verify("Exercise 3", answer, bounds.d_certified(5, 0.3, 1).details["argmax_n"])
print("n_m =", sdgs.n_min(5, Fraction(3, 10), Fraction(1)), "- the maximum sits two steps later")

# %% [markdown]
# ## Exercise 4 — non-composition (notebook 5)
#
# At β = 1/2, what is the exact hockey-stick δ at ε = 1 of publishing both bits of the XOR pair on
# the same sample? Give a fraction.

# %%
answer = None  # your answer here

# %%
_, _, both = mechanisms.xor_pair("t")
p = exact.distribution(both, ["t", "u", "v"], Fraction(1, 2))
q = exact.distribution(both, ["u", "v"], Fraction(1, 2))
verify("Exercise 4", answer, exact.delta_certified(p, q, 1).upper)

# %% [markdown]
# ## Exercise 5 — Proposition 4 (notebook 3)
#
# Without sampling (β = 1), what δ does a strongly-safe 5-anonymizer need at ε = 10 on a group of
# exactly five identical records versus four?

# %%
answer = None  # your answer here

# %%
anon = mechanisms.StronglySafeKAnonymizer(lambda r: "*", k=5)
verify("Exercise 5", answer, exact.delta_certified(
    exact.distribution(anon, ["x"] * 5, 1), exact.distribution(anon, ["x"] * 4, 1), 10).upper)

# %% [markdown]
# ## Exercise 6 — how loose is d? (notebook 4)
#
# For k = 20, β = 0.2, ε = 0.5, by what factor does the paper's d exceed the exact hockey-stick δ?
# Answer to three significant digits; the plot shows the factor across ε.

# %%
answer = None  # your answer here

# %%
truth = float(bounds.d(20, 0.2, 0.5)) / float(exact.sdgs_delta(20, 0.2, 0.5))
verify("Exercise 6", answer, truth, rel=5e-3)

es = [round(float(x), 3) for x in np.linspace(0.25, 3, 25)]
ratio = [float(bounds.d(20, 0.2, e)) / float(exact.sdgs_delta(20, 0.2, e)) for e in es]
fig, ax = plt.subplots()
ax.plot(es, ratio, "o-")
if answer is not None:
    ax.plot([0.5], [answer], "r*", ms=15, label="your answer")
ax.set_xlabel("epsilon")
ax.set_ylabel("d / exact hockey-stick delta")
ax.set_title("How much the paper's bound over-states delta (k = 20, beta = 0.2)")
ax.legend()
plt.show()

# %% [markdown]
# ## What a wrong answer looks like

# %%
try:
    verify("Exercise 2 (wrong on purpose)", 20, bounds.min_k(0.1, 1, 1e-6))
except AssertionError as exc:
    print("reported:", exc)
