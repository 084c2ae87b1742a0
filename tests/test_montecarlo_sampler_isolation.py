"""The Monte-Carlo sampler keeps its draws away from the audited code (verdict/montecarlo.py).

``run_sampled(fn, dataset, beta, n, rng)`` runs ``fn`` on ``n`` Bernoulli(β) samples.  The
Clopper–Pearson statement built on its counts assumes those samples are independent Bernoulli(β)
draws, whatever ``fn`` does.  ``fn`` is code under audit, so it must not be able to steer them:
it never sees the generator that draws the samples, nor the caller's ``rng``, and gets a fresh
generator on every run.  Checked here against hostile functions that reseed, restore a state
or draw a data-dependent number of values, with the sampler of before (one ``rng`` for both
the inclusion draws and ``fn``, copied below) as the negative control that the same checks
reject.  The table audit's tasks (audit/data.py, serial or on Dask) already sample from a numpy
generator local to the task; the last two tests check that a pipeline reseeding the global
generators does not change the tables it is given.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from scipy.stats import binomtest

from dps_verify.verdict import montecarlo as mc

DATASET = tuple(range(12))
BETA = 0.3
N = 300
#: a p-value below this rejects "Bernoulli(β)" (loose: the seeds are fixed, so a pass is stable)
REJECT_BELOW = 1e-6
FIXED_STATE = random.Random(0).getstate()


def shared_rng_sampler(fn, dataset, beta, n, rng):
    """The sampler before the fix, kept only as the negative control: one ``rng`` draws each
    record's inclusion and is then handed to ``fn``."""
    out: Counter = Counter()
    draw = rng.random
    for _ in range(n):
        sample = tuple([r for r in dataset if draw() < beta])
        out[mc._key(fn(sample, rng))] += 1
    return out


def draws_once(sample, rng):  # a benign randomized mechanism: one draw per run
    rng.random()


def reseeds(sample, rng):
    rng.seed(0)


def restores_a_state(sample, rng):
    rng.setstate(FIXED_STATE)


def draws_by_the_data(sample, rng):  # how many values it draws depends on the sample
    for _ in range(1 + 5 * len(sample) + sum(sample)):
        rng.random()


def replaces_the_generators_method(sample, rng):  # an instance attribute shadowing random()
    # on the shared-generator sampler this shows only from the second batch on: that sampler
    # bound rng.random once per batch, before the first run could replace it
    rng.random = lambda: 0.99


HOSTILE = [reseeds, restores_a_state, draws_by_the_data, replaces_the_generators_method]


def samples_seen(sampler, behaviour, seed=7, batches=2):
    """The samples ``fn`` receives over ``batches`` calls sharing one caller ``rng``, the
    counts, and the caller's ``rng`` state afterwards."""
    seen: list[tuple] = []

    def fn(sample, rng):
        seen.append(sample)
        behaviour(sample, rng)
        return len(sample)

    rng = random.Random(seed)
    counts = [sampler(fn, DATASET, BETA, N, rng) for _ in range(batches)]
    return seen, counts, rng.getstate()


@pytest.mark.parametrize("behaviour", HOSTILE, ids=lambda f: f.__name__)
def test_a_hostile_fn_sees_exactly_the_samples_a_benign_one_sees(behaviour):
    # two batches from one caller rng: the second shows the tampering did not reach the caller
    benign = samples_seen(mc.run_sampled, draws_once)
    hostile = samples_seen(mc.run_sampled, behaviour)
    assert hostile[0] == benign[0]
    assert hostile[1] == benign[1]
    assert hostile[2] == benign[2]  # the caller's rng: the same state for any fn
    assert len(set(benign[0])) > 100  # (not a degenerate stream: 600 runs over 4096 subsets)


@pytest.mark.parametrize("behaviour", HOSTILE, ids=lambda f: f.__name__)
def test_negative_control_the_shared_rng_sampler_lets_the_same_fn_steer(behaviour):
    benign = samples_seen(shared_rng_sampler, draws_once)
    hostile = samples_seen(shared_rng_sampler, behaviour)
    assert hostile[0] != benign[0]
    assert hostile[2] != benign[2]


def bernoulli_rejections(samples: list[tuple]) -> list[str]:
    """Exact two-sided binomial tests of the samples against independent Bernoulli(β)
    inclusion; the names of the rejected ones.  Each record's inclusion count over the runs is
    Binomial(runs, β); over disjoint pairs of consecutive runs (2j, 2j + 1), the count of
    (record, pair) with the record in both samples is Binomial(records × pairs, β²)."""
    runs = len(samples)
    tests = {f"record {r}": binomtest(sum(r in s for s in samples), runs, BETA)
             for r in DATASET}
    pairs = runs // 2
    both = sum(r in samples[2 * j] and r in samples[2 * j + 1]
               for j in range(pairs) for r in DATASET)
    tests["consecutive runs"] = binomtest(both, pairs * len(DATASET), BETA**2)
    return [name for name, t in tests.items() if t.pvalue < REJECT_BELOW]


@pytest.mark.parametrize("behaviour", [draws_once, *HOSTILE], ids=lambda f: f.__name__)
def test_inclusion_stays_independent_bernoulli_beta_under_any_fn(behaviour):
    seen, _, _ = samples_seen(mc.run_sampled, behaviour, seed=11, batches=4)
    assert len(seen) == 4 * N
    assert bernoulli_rejections(seen) == []


@pytest.mark.parametrize("behaviour", [reseeds, restores_a_state, replaces_the_generators_method],
                         ids=lambda f: f.__name__)
def test_negative_control_the_same_check_rejects_the_steered_samples(behaviour):
    seen, _, _ = samples_seen(shared_rng_sampler, behaviour, seed=11, batches=4)
    assert bernoulli_rejections(seen) != []


def test_negative_control_the_check_rejects_a_wrong_beta():
    # the check itself can fail: honest independent samples at β = 0.4 are not Bernoulli(0.3)
    rng = random.Random(11)
    seen = [tuple(r for r in DATASET if rng.random() < 0.4) for _ in range(4 * N)]
    assert bernoulli_rejections(seen) != []


def test_every_run_gets_a_fresh_generator_of_its_own():
    first_draws: list[float] = []
    given: list[random.Random] = []

    def fn(sample, rng):
        given.append(rng)
        first_draws.append(rng.random())
        rng.seed(0)  # would fix the next run's draws if the generator were shared
        rng.random = lambda: 0.5
        return 0

    caller = random.Random(3)
    mc.run_sampled(fn, DATASET, BETA, 200, caller)
    assert all(type(g) is random.Random and g is not caller for g in given)
    assert len({id(g) for g in given}) == 200  # (all kept alive in ``given``: ids are distinct)
    assert len(set(first_draws)) == 200  # fresh streams: no repeated first draw
    assert random.Random(0).random() not in first_draws and 0.5 not in first_draws


def test_the_counts_depend_on_the_seed_only():
    """Reproducibility, a contract the shared-generator sampler had too (so no check of the
    isolation): the same seed gives the same counts, another seed other counts."""

    def noisy(sample, rng):
        return len(sample) + (rng.random() < 0.5)

    a = mc.run_sampled(noisy, DATASET, BETA, N, random.Random(5))
    assert a == mc.run_sampled(noisy, DATASET, BETA, N, random.Random(5))
    assert a != mc.run_sampled(noisy, DATASET, BETA, N, random.Random(6))
    assert sum(a.values()) == N


def seed_emptying_the_next_sample(records: int, beta: float) -> int:
    """A seed whose generator's first ``records`` draws are all ≥ β: a run that reseeds the
    shared generator with it makes the next sample empty."""
    for c in range(100_000):
        g = random.Random(c)
        if all(g.random() >= beta for _ in range(records)):
            return c
    raise AssertionError("no such seed below 100,000")


def steering_size_publisher(beta: float, records: int):
    """Publishes the sample size (a leak of every record) and reseeds its generator so that, on
    the sampler of before, every later sample is empty: D and D' then look alike."""
    c = seed_emptying_the_next_sample(records, beta)

    def fn(sample, rng):
        rng.seed(c)
        return len(sample)

    return fn


def test_a_steering_leak_is_still_found_by_the_blackbox_test(monkeypatch):
    from dps_verify.testing import blackbox

    fn = steering_size_publisher(0.5, 2)
    kw = dict(beta=0.5, epsilon=0.5, n_select=300, n_confirm=600, seed=1)
    pairs = [((1, 2), (1,))]
    rep = blackbox.estimate_delta_lower(fn, pairs, **kw)
    assert rep.delta_lower > 0.1  # the true delta of publishing |S| here is 1/4 (forward, y = 2)
    # negative control: on the sampler of before the same leak hides completely
    monkeypatch.setattr(blackbox, "run_sampled", shared_rng_sampler)
    assert blackbox.estimate_delta_lower(fn, pairs, **kw).delta_lower == 0.0


def test_a_steering_leak_is_still_found_by_the_statistical_audit(monkeypatch):
    from dps_verify.audit import audit

    fn = steering_size_publisher(0.3, 16)
    few = {"max_statistical_pairs": 4, "n_select": 300, "n_confirm": 3000}
    rep = audit(fn, beta=0.3, epsilon=0.5, delta=1e-3, domain=[1, 2], seed=3, **few)
    assert rep.verdict == "FAIL" and rep.witness.method == "statistical"
    # negative control: on the sampler of before the same leak is not found
    monkeypatch.setattr(mc, "run_sampled", shared_rng_sampler)
    rep = audit(fn, beta=0.3, epsilon=0.5, delta=1e-3, domain=[1, 2], seed=3, **few)
    assert rep.verdict != "FAIL"


# ---- the table audit's tasks (audit/data.py, run serially or as Dask tasks) draw their samples
# from a numpy generator local to the task: the pipeline sees only the rows.

def tables_seen_by_screening(behaviour):
    import numpy as np

    from dps_verify.audit import data

    seen: list[tuple] = []

    def pipeline(table):
        seen.append(tuple(table))
        behaviour(len(table))
        return [("*",)] * len(table)

    rows = [(a,) for a in range(12)]
    task = {"pipeline": pipeline, "qi": ["age"], "fmt": "records", "beta": BETA, "run": "isolation",
            "targets": [0, 5], "n": 40, "seed": np.random.SeedSequence(9).spawn(1)[0]}
    data.screening_task((task, rows))
    return seen


def draws_globally_once(size):
    random.random()


def reseeds_the_global_generators(size):
    import numpy as np

    random.seed(0)
    np.random.seed(size)
    np.random.random(size)


def test_table_audit_tasks_sample_where_the_pipeline_cannot_reach():
    benign = tables_seen_by_screening(draws_globally_once)
    assert len(benign) == 40 * 3 and len(set(benign)) > 20
    assert tables_seen_by_screening(reseeds_the_global_generators) == benign


def test_negative_control_a_task_sampling_from_numpys_global_generator_is_steered(monkeypatch):
    import numpy as np

    # the same check, with the task's sampler replaced by numpy's global generator (the one the
    # pipeline may reseed): the reseeding pipeline now changes the tables it is given
    monkeypatch.setattr(np.random, "default_rng", lambda seed: np.random.mtrand._rand)
    assert tables_seen_by_screening(reseeds_the_global_generators) != tables_seen_by_screening(
        draws_globally_once)
