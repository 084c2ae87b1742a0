"""Auditing a pipeline on a real table (audit/data.py): loading, the exact "this table" answer
through the product law against a brute force, the coupled statistical audit (a leak is found, a
safe pipeline stays INCONCLUSIVE), determinism of verdict and witness across 1 and 2 Dask
workers, checkpoint resume, and the CLI on the documented Adult extract."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import dps_verify
from dps_verify.audit import statistical as st
from dps_verify.audit.data import Table, audit_data, load_table
from dps_verify.core.errors import UsageError
from dps_verify.distributed import DaskBackend, SerialBackend
from dps_verify.mechanisms import StronglySafeKAnonymizer

ROOT = Path(__file__).resolve().parents[1]
EXTRACT = ROOT / "tests" / "data" / "adult_extract.csv"
SPEC = ROOT / "examples" / "real" / "adult_recoding.json"


def _decade(r: tuple) -> tuple:
    return (r[0] // 10, r[1])


def test_load_table_types_columns_and_drops_missing() -> None:
    t = load_table(EXTRACT, ["age", "workclass"])
    assert isinstance(t.records[0][0], int) and isinstance(t.records[0][1], str)
    assert t.dropped_missing > 0 and all("?" not in r for r in t.records)
    with pytest.raises(UsageError, match="not in the data's columns"):
        load_table(EXTRACT, ["age", "no-such-column"])
    with pytest.raises(UsageError, match="cannot read"):
        load_table(ROOT / "no-such-file.csv", ["age"])


def test_columns_from_a_recoding_spec(tmp_path: Path) -> None:
    from dps_verify.audit.data import columns_option

    lines = EXTRACT.read_text().splitlines()[1:]  # the same rows without their header
    f = tmp_path / "noheader.csv"
    f.write_text("\n".join(lines) + "\n")
    t = load_table(f, ["age", "sex"], columns=columns_option(str(SPEC)))
    assert t.records == load_table(EXTRACT, ["age", "sex"]).records


# --------------------------------------------------------------------- this table, exact
SMALL = [(23, "M"), (27, "M"), (25, "M"), (41, "F"), (44, "F"), (61, "M"), (29, "M"), (47, "F")]


@pytest.mark.parametrize("threshold", [1, 2, 3])
@pytest.mark.parametrize("definition", ["hockey-stick", "pointwise"])
def test_exact_this_table_matches_brute_force_per_row(threshold: int, definition: str) -> None:
    anon = StronglySafeKAnonymizer(_decade, 3, threshold=threshold)
    beta, eps = Fraction(1, 2), Fraction(1, 2)
    rep = audit_data(anon, data=SMALL, qi=["age", "sex"], beta=beta, epsilon=eps, delta=0.01,
                     definition=definition, question="this")
    logs = rep.this_table["per_row_log10_delta"]
    measure = dps_verify.delta if definition == "hockey-stick" else dps_verify.pointwise_delta
    for i in range(len(SMALL)):
        P = dps_verify.distribution(anon, SMALL, beta, factorised=False)  # brute force
        Q = dps_verify.distribution(anon, SMALL[:i] + SMALL[i + 1:], beta, factorised=False)
        want = float(measure(P, Q, eps))
        got = 0.0 if logs[i] == float("-inf") else 10 ** logs[i]
        assert got == pytest.approx(want, rel=1e-9, abs=1e-300)
    worst_row = max(10 ** v if v > float("-inf") else 0.0 for v in logs)
    assert float(rep.this_table["worst_delta"]["upper"]) >= worst_row * (1 - 1e-9)


def test_exact_this_table_both_sides_of_the_claim() -> None:
    anon = StronglySafeKAnonymizer(_decade, 2)
    rep = audit_data(anon, data=SMALL, qi=["age", "sex"], beta=Fraction(1, 2), epsilon=1,
                     delta=0.5, question="this")
    worst = Fraction(rep.this_table["worst_delta"]["upper"])
    assert rep.this_table["verdict"] == "PASS"
    below = audit_data(anon, data=SMALL, qi=["age", "sex"], beta=Fraction(1, 2), epsilon=1,
                       delta=worst * Fraction(99, 100), question="this")
    assert below.this_table["verdict"] == "FAIL" and below.witness is not None
    assert "row" in below.witness["text"] and below.exit_code == 1


def test_leaky_threshold_fails_with_a_readable_witness() -> None:
    leaky = StronglySafeKAnonymizer(_decade, 2, threshold=1)  # publishes lone records
    rep = audit_data(leaky, data=SMALL, qi=["age", "sex"], beta=Fraction(1, 10), epsilon=1,
                     delta=1e-6)
    assert rep.verdict == "FAIL" and rep.this_table["verdict"] == "FAIL"
    assert "probability" in rep.witness["text"]


def test_strongly_safe_example_passes_on_the_extract() -> None:
    from dps_verify.audit.loader import load_callable

    rel, _ = load_callable(str(ROOT / "examples/real/adult_recoding_release.py") + ":release")
    rep = audit_data(rel, data=EXTRACT, qi=["age", "education", "marital-status", "race", "sex"],
                     beta=0.1, epsilon=1, delta=1e-6)
    assert rep.verdict == "PASS", rep.summary()
    assert rep.this_table["method"].startswith("exact") and rep.every_table["verdict"] == "PASS"


# --------------------------------------------------------------------- this table, statistical
def publish_ages(table: list[tuple]) -> list[tuple]:
    """Leaks: publishes every distinct age of the table (a person with a unique age shows)."""
    return [(a,) for a in sorted({r[0] for r in table})]


def publish_count_band(table: list[tuple]) -> list[tuple]:
    """Publishes nothing about any row: a constant release."""
    return [("released", "nothing")]


ROWS = load_table(EXTRACT, ["age", "sex"])


def _run(pipeline, backend, seed=3, **kw):
    kw = {"first_look": 24, "max_trials": 48, **kw}
    return audit_data(pipeline, data=ROWS, beta=Fraction(1, 2), epsilon=1, delta=1e-6,
                      question="this", backend=backend, seed=seed, targets=2, screen_trials=4, **kw)


@pytest.fixture(scope="module")
def ages_serial(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The serial statistical audit of ``publish_ages`` (seed 3), run once for the module (about
    12 s of CPU): its report, and the checkpoint file it wrote.  Read by the FAIL test, compared
    with the Dask runs, and resumed by the checkpoint test."""
    ck = tmp_path_factory.mktemp("ages") / "ck.json"
    return _run(publish_ages, SerialBackend(), checkpoint=ck), ck


def test_statistical_audit_finds_a_person_with_a_unique_age(ages_serial: tuple) -> None:
    rep = ages_serial[0]
    assert rep.verdict == "FAIL", rep.summary()
    w = rep.witness
    ages = [r[0] for r in ROWS.records]
    assert ages.count(w["record"]["age"]) == 1
    assert w["hits_with"] == w["n_with"] and w["hits_without"] == 0
    assert w["implied_delta"] > 1e-6 and "runs with the row" in w["text"]
    from dps_verify.audit.data_html import render_html

    page = render_html(rep)  # the two event frequencies with their intervals, against e^eps
    assert "Distinguishing event" in page and "e^eps x p0" in page
    # the frequentist meaning of FAIL (the test's level), never a posterior "the true delta
    # exceeds the claim with probability 1 - alpha"
    assert "would be returned with probability at most 0.05" in page
    doc = (Path(__file__).parent.parent / "docs" / "audit.md").read_text()
    assert "if the claim\nwere true, a FAIL would be returned with probability at most α" in doc
    assert "with probability ≥ 1 − α (`--alpha`" not in doc


def test_statistical_audit_of_a_constant_release_is_inconclusive() -> None:
    rep = _run(publish_count_band, SerialBackend())
    assert rep.verdict == "INCONCLUSIVE"


def test_same_seed_same_verdict_and_witness_on_1_and_2_dask_workers(ages_serial: tuple) -> None:
    from dask.distributed import Client, LocalCluster

    out = []
    for n in (1, 2):
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=False,
                          dashboard_address=":0") as cluster, Client(cluster) as client:
            be = DaskBackend(client=client)
            rep = _run(publish_ages, be)
            be.close()
            out.append((rep.verdict, rep.witness, rep.this_table["counts"], rep.this_table["event"]))
    serial = ages_serial[0]
    assert out[0] == out[1] == (serial.verdict, serial.witness, serial.this_table["counts"],
                                serial.this_table["event"])


def test_checkpoint_resumes_and_refuses_a_foreign_file(tmp_path: Path, ages_serial: tuple) -> None:
    first, ck = ages_serial
    again = _run(publish_ages, SerialBackend(), checkpoint=ck)
    assert again.this_table.get("resumed_tasks", 0) > 0 and again.witness == first.witness
    other = _run(publish_ages, SerialBackend(), seed=4, checkpoint=ck)  # new fingerprint
    assert "resumed_tasks" not in other.this_table
    foreign = tmp_path / "notes.json"
    foreign.write_text('{"mine": true}')
    with pytest.raises(UsageError, match="not a dps-verify checkpoint"):
        _run(publish_ages, SerialBackend(), checkpoint=foreign)


def test_direction_coefficients_are_the_beta_decomposition() -> None:
    b, e = Fraction(1, 10), Fraction(2.718281828459046)
    assert st.direction_coefficients("add", b, e) == ("with", b, e - 1 + b)
    # removing the row can refute only below the regime edge e^eps (1 - beta) < 1
    assert st.direction_coefficients("remove", b, e) is None
    side, a, bb = st.direction_coefficients("remove", Fraction(1, 2), Fraction(3, 2))
    assert (side, a, bb) == ("without", Fraction(1, 4), Fraction(3, 4))


def test_release_features_and_events() -> None:
    canon = st.canonical_release([{"age": ["24-37"], "country": "Cuba,Holand-Netherlands", "count": 12}])
    f = st.release_features(canon, {"age": 30, "country": "Cuba"})
    assert f[("token", "country", "Holand-Netherlands")] == 1.0
    assert f[("covers",)] == 1.0 and f[("cover-width", "age")] == 13.0
    assert f[("max", "age")] == 37.0 and f[("cover-count",)] == 12.0
    assert st.event_holds(("has", ("token", "country", "Holand-Netherlands")), f)
    assert not st.event_holds(("lacks", ("token", "country", "Holand-Netherlands")), f)
    assert st.event_holds(("ge", ("max", "age"), 37.0), f)
    assert not st.event_holds(("ge", ("max", "age"), 38.0), f)


# --------------------------------------------------------------------- the command line
def test_cli_strongly_safe_example_passes_and_writes_json_and_html(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    html = tmp_path / "page"
    cmd = [sys.executable, "-m", "dps_verify", "audit",
           "examples/real/adult_recoding_release.py:release", "--data", str(EXTRACT),
           "--qi", "age,education,marital-status,race,sex", "--beta", "0.1", "--epsilon", "1",
           "--delta", "1e-6", "--json", str(out), "--html", str(html)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr + r.stdout
    rep = json.loads(out.read_text())
    assert rep["verdict"] == "PASS" and rep["this_table"]["per_row_delta_histogram"]
    assert "generator: dps-verify" in (html / "index.html").read_text()


def test_cli_refuses_bad_input_in_one_line(capsys, monkeypatch) -> None:
    """The command in this process (``python -m dps_verify`` itself is run by the test above)."""
    from dps_verify.cli import main

    monkeypatch.chdir(ROOT)
    code = main(["audit", "examples/real/adult_recoding_release.py:release", "--data", str(EXTRACT),
                 "--qi", "age,nope", "--beta", "0.1", "--epsilon", "1", "--delta", "1e-6"])
    out, err = capsys.readouterr()
    assert code == 2 and "nope" in err and len(err.strip().splitlines()) == 1, out + err


def test_full_domain_example_fails_every_table_on_the_extract() -> None:
    from dps_verify.audit.loader import load_callable

    rel, _ = load_callable(str(ROOT / "examples/real/adult_full_domain.py") + ":release")
    rep = audit_data(rel, data=EXTRACT, qi=["age", "sex"], beta=0.1, epsilon=1, delta=1e-6,
                     question="every")
    assert rep.verdict == "FAIL" and rep.every_table["verdict"] == "FAIL"
    assert "target" in rep.witness["text"]


def test_full_domain_releases_are_k_anonymous_by_pycanon() -> None:
    import pandas as pd
    from pycanon import anonymity

    from dps_verify.audit.loader import load_callable

    rel, _ = load_callable(str(ROOT / "examples/real/adult_full_domain.py") + ":release")
    qi = ["age", "sex", "race"]
    t = load_table(EXTRACT, qi)
    out = rel([dict(zip(qi, r)) for r in t.records])
    df = pd.DataFrame(out)
    assert int(anonymity.k_anonymity(df, qi)) >= 9


def test_table_from_a_dataframe_and_dicts() -> None:
    import pandas as pd

    df = pd.DataFrame(SMALL, columns=["age", "sex"])
    assert Table(list(SMALL), ("age", "sex")).records == \
        __import__("dps_verify.audit.data", fromlist=["as_table"]).as_table(df, ["age", "sex"]).records


def test_mondrian_anonypy_example_fails_on_the_start_of_the_extract() -> None:
    """The third-party Mondrian reveals a one-of-a-kind country (β = 1/2 and the extract's first
    50 rows, seven of them with a country of their own, keep the test short: each of the ~20
    Mondrian runs costs in proportion to the table, 4.5 -> 1.0 -> 0.5 s of CPU against all 394,
    the first 100 and the first 50 rows; the full-data run at β = 0.1 is in
    benchmarks/bench_real_audit.py)."""
    pytest.importorskip("anonypy")
    from dps_verify.audit.loader import load_callable

    rel, _ = load_callable(str(ROOT / "examples/real/adult_mondrian_anonypy.py") + ":release")
    extract = load_table(EXTRACT, ["age", "native-country"])
    table = Table(extract.records[:50], extract.qi)
    rep = audit_data(rel, data=table, beta=Fraction(1, 2), epsilon=1, delta=1e-6,
                     question="this", backend=SerialBackend(), targets=1, screen_trials=2,
                     max_trials=64)
    assert rep.verdict == "FAIL", rep.summary()
    country = rep.witness["record"]["native-country"]
    assert [r[1] for r in table.records].count(country) == 1
    assert country in rep.witness["event"] and rep.witness["hits_without"] == 0
    # the first planned look (the smallest design that can refute the claim) was enough
    assert len(rep.this_table["looks"]) == 1 and rep.this_table["pipeline_runs"] <= 30


def test_a_pipeline_that_raises_or_exits_is_an_audited_code_error_never_a_verdict() -> None:
    from dps_verify.core.errors import AuditedCodeError

    def boom(table: list[tuple]) -> list:
        raise RuntimeError("boom")

    def leave(table: list[tuple]) -> list:
        raise SystemExit(0)

    for pipeline in (boom, leave):
        with pytest.raises(AuditedCodeError, match="the pipeline raised"):
            _run(pipeline, SerialBackend())


def test_a_pipeline_that_calls_os_exit_in_a_dask_worker_process_is_an_audited_code_error(tmp_path: Path) -> None:
    """In worker processes the pipeline runs inside audited_code too: os._exit is trapped (no
    dead worker, no verdict), and the error reaches the caller as the audited code's fault."""
    from dps_verify.core.errors import AuditedCodeError

    src = tmp_path / "leaver.py"
    src.write_text("import os\n\ndef release(table):\n    os._exit(3)\n")
    ref = ("file", f"{src}:release")
    from dps_verify.audit.data import _resolve

    be = DaskBackend(1)
    try:
        with pytest.raises(AuditedCodeError, match="os._exit"):
            audit_data(_resolve(ref), data=ROWS, beta=Fraction(1, 2), epsilon=1, delta=1e-6,
                       question="this", backend=be, targets=1, screen_trials=1,
                       pipeline_ref=ref)
        assert len(be.client.scheduler_info()["workers"]) == 1  # the worker did not die
    finally:
        be.close()


def test_each_task_seeds_the_global_generators_a_pipeline_may_use_and_restores_them() -> None:
    """A pipeline that draws from `random` without saying so gets one stream per task (runs stay
    independent across tasks, and reproducible); the caller's generator state is untouched."""
    import random

    from dps_verify.audit.data import _guarded
    from dps_verify.distributed import task_seeds

    def draw(item: tuple) -> float:
        return random.random()

    before = random.getstate()
    a, b = task_seeds(7, 2)
    first, second = _guarded(draw, ({"seed": a}, None)), _guarded(draw, ({"seed": b}, None))
    assert first != second and _guarded(draw, ({"seed": a}, None)) == first
    assert random.getstate() == before


def test_looks_are_planned_from_the_claim_and_spend_at_most_alpha() -> None:
    from dps_verify.audit import two_binomials as tb
    from dps_verify.audit.data import _look_plan

    b = Fraction(1, 10)
    e = Fraction(2718281828459046, 10**15) + Fraction(1, 10**15)
    a_, b_ = b, e - 1 + b
    looks, levels, too_big = _look_plan(a_, b_, Fraction(1, 10**6), 0.05, 1024, None)
    assert too_big is None and sum(levels) <= 0.05 and levels[0] >= 0.037
    n_a, n_b = looks[0]
    assert tb.rejects(n_a, n_a, 0, n_b, a_, b_, Fraction(1, 10**6), levels[0])  # a perfect first look refutes
    assert not tb.rejects(n_a, n_a, 0, n_b - 1, a_, b_, Fraction(1, 10**6), levels[0])  # and is the smallest
    assert all(sum(later) == 2 * sum(prev) for prev, later in zip(looks, looks[1:]))
    assert sum(looks[-1]) <= 1024


def test_the_exact_test_is_cached_by_its_arguments_and_the_modules_limits(monkeypatch) -> None:
    """``rejects`` answers a repeated question from its cache, the same as computed afresh; the
    module's search limits are part of the key (with no evaluations allowed it cannot reject)."""
    from dps_verify.audit import two_binomials as tb
    from dps_verify.audit.data import _look_plan

    a_, b_, delta = Fraction(1, 10), Fraction(1872, 1000), Fraction(1, 10**6)
    looks, levels, _ = _look_plan(a_, b_, delta, 0.05, 1024, None)
    (n_a, n_b), alpha = looks[0], levels[0]
    args = (n_a, n_a, 0, n_b, a_, b_, delta, alpha)
    assert tb.rejects(*args)
    hits = tb._rejects.cache_info().hits
    assert tb.rejects(*args) and tb._rejects.cache_info().hits == hits + 1
    limits = (tb.BITS, tb.MAX_DEPTH, tb.MAX_EVALUATIONS, tb._START_CELLS)
    assert tb._rejects.__wrapped__(*args, limits)  # uncached: the same answer
    monkeypatch.setattr(tb, "MAX_EVALUATIONS", 0)
    assert not tb.rejects(*args)


def test_a_claim_too_small_for_the_run_budget_is_inconclusive_without_confirmation_runs() -> None:
    rep = _run(publish_ages, SerialBackend(), first_look=None, max_trials=8)
    q = rep.this_table
    assert rep.verdict == "INCONCLUSIVE" and q["summary"].startswith("not run")
    assert q["pipeline_runs"] == q["screening"]["pipeline_runs"]
    assert q["detectable_delta"] is None and "cannot refute any delta" in q["summary"]


def test_histogram_decades_are_exact_at_powers_of_ten_and_tiny_deltas() -> None:
    """A row's decade is 10^e <= δ < 10^(e+1) by exact comparison (brute force below), also at
    δ exactly a power of ten, just under one, and far below the double range."""
    from dps_verify.audit.data import _exact_decade, _histogram

    def brute(v: Fraction) -> int:
        e = 0
        while Fraction(10) ** e > v:
            e -= 1
        while Fraction(10) ** (e + 1) <= v:
            e += 1
        return e

    cases = [Fraction(1, 10 ** j) for j in (1, 3, 8, 22, 23, 300, 400)]
    cases += [c - Fraction(1, 10 ** (j + 40)) for j, c in zip((1, 3, 8, 22, 23, 300, 400), cases)]
    cases += [Fraction(1), Fraction(999, 1000), Fraction(3, 7 * 10 ** 500)]
    for v in cases:
        assert _exact_decade(v) == brute(v), v
    hist = _histogram({3: (Fraction(1, 10 ** 8), 2), 4: (Fraction(0), 5), 5: (Fraction(1, 10 ** 8) - Fraction(1, 10 ** 60), 1)})
    assert hist == {"0": 5, "1e-9..1e-8": 1, "1e-8..1e-7": 2}
