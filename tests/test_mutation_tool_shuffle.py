"""The mutation tool's ``--shuffle``: an exploration stopped early should have looked at a
random part of its sample, so the run order is a seeded permutation of the jobs that does not
change which mutants are in the sample."""

from benchmarks.mutation.__main__ import run_order

JOBS = [f"job{i}" for i in range(40)]


def test_the_order_is_a_permutation_of_the_same_jobs() -> None:
    order = run_order(JOBS, 7)
    assert sorted(order) == sorted(JOBS)
    assert order != JOBS  # 40! orders: the identity would mean no shuffle happened


def test_the_same_seed_gives_the_same_order_and_another_seed_another() -> None:
    assert run_order(JOBS, 7) == run_order(JOBS, 7)
    assert run_order(JOBS, 7) != run_order(JOBS, 8)


def test_the_jobs_passed_in_are_left_as_they_were() -> None:
    jobs = list(JOBS)
    run_order(jobs, 3)
    assert jobs == JOBS
