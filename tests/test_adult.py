"""The UCI Adult worked example (examples/adult/run_adult.py) and its shipped data."""

from __future__ import annotations

import csv
from pathlib import Path

from dps_verify.audit.loader import load_callable
from dps_verify.data import load_adult_qi

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "adult" / "run_adult.py"


def test_shipped_data():
    rows = load_adult_qi()
    assert len(rows) == 30162
    assert set(rows[0]) == {"age", "education", "education-num", "marital-status", "race", "sex"}
    assert max(r["age"] for r in rows) == 90


def test_adult_example(tmp_path):
    run, _ = load_callable(f"{EXAMPLE}:run")
    res = run(tmp_path, verbose=False)
    assert res["records"] == 30162
    assert res["k_exact"] <= res["k_paper"]
    for rel in res["releases"].values():
        assert rel["verdict"] == "PASS" and rel["method"] == "closed-form"
        assert rel["pycanon_k"] >= rel["k"]
        assert rel["worst_delta"] <= 1e-6
        with open(rel["csv"]) as fh:
            body = list(csv.reader(fh))[1:]
        assert len(body) == res["sample"]
        assert sum(all(v == "*" for v in r) for r in body) == rel["suppressed"]
    assert res["below_k_verdict"] == "FAIL"
    m = res["mondrian"]
    assert m["verdict"] == "FAIL" and m["pycanon_k"] >= m["k"]
    assert m["top_with"] != m["top_without"]
    assert m["oldest_pair_delta"] > 1e-6
    # utility: the exact k never suppresses more than the paper's k
    by = {(u["levels"], u["k"]): u["suppressed"] for u in res["utility"]}
    for lv in {u["levels"] for u in res["utility"]}:
        assert by[(lv, res["k_exact"])] <= by[(lv, res["k_paper"])]
