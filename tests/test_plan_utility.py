"""Expected published records (exact) against a brute force that enumerates every sample, on
hand-made tables and on a small extract of UCI Adult under the shipped recoding."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dps_verify.plan.recoding import load_spec, parse_spec
from dps_verify.plan.table import group_sizes, read_table, size_histogram
from dps_verify.plan.utility import expected_published

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "examples" / "real" / "adult_recoding.json"
ADULT = Path("/work/shared/data/adult.data")


def brute_force(keys: list[tuple], beta: Fraction, k: int) -> Fraction:
    """Σ over all 2^N samples of P(sample) · (records in groups with >= k sampled members)."""
    return brute_force_each(keys, beta, [k])[k]


def brute_force_each(keys: list[tuple], beta: Fraction, ks: list[int]) -> dict[int, Fraction]:
    """:func:`brute_force` for each k in ``ks``, in one pass over the 2^N samples."""
    n = len(keys)
    weight = [beta**m * (1 - beta) ** (n - m) for m in range(n + 1)]  # P(one sample of size m)
    # published records summed over the samples of each size m (integers), weighted at the end:
    # the same exact sum as adding weight[m] * published sample by sample
    by_size = {k: [0] * (n + 1) for k in ks}
    for mask in itertools.product((0, 1), repeat=n):
        counts = Counter(key for key, s in zip(keys, mask) if s)
        m = sum(mask)
        for k in ks:
            by_size[k][m] += sum(c for c in counts.values() if c >= k)
    return {k: sum((w * p for w, p in zip(weight, by_size[k]) if p), Fraction(0)) for k in ks}


@pytest.mark.parametrize("beta", [Fraction(1, 3), Fraction(7, 10), Fraction(1, 100)])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 6])
def test_hand_made_groups_against_brute_force(beta, k):
    keys = [("a",)] * 5 + [("b",)] * 3 + [("c",)] + [("d",)] * 2
    hist = size_histogram(Counter(keys))
    assert expected_published(hist, beta, [k])[k] == brute_force(keys, beta, k)


def test_boundaries_k1_and_k_above_every_group():
    hist = Counter({5: 2, 3: 1})
    b = Fraction(2, 5)
    assert expected_published(hist, b, [1])[1] == b * 13  # k = 1: every sampled record
    assert expected_published(hist, b, [6])[6] == 0  # no group can reach k
    assert expected_published(hist, b, [5])[5] == 2 * 5 * b**5  # n = k: all sampled


def test_a_wrong_tail_is_caught_by_the_brute_force(monkeypatch):
    """Negative control: an off-by-one tail (P(Bin(n-1, β) >= k) instead of >= k-1) is caught."""
    from dps_verify.plan import utility

    keys = [("a",)] * 4 + [("b",)] * 2
    b, k = Fraction(1, 2), 2
    hist = size_histogram(Counter(keys))
    assert expected_published(hist, b, [k])[k] == brute_force(keys, b, k)
    real = utility._tail_numerators
    monkeypatch.setattr(utility, "_tail_numerators",
                        lambda n, p, q, ks: {kk: real(n, p, q, [kk + 1])[kk + 1] for kk in ks})
    assert utility.expected_published(hist, b, [k])[k] != brute_force(keys, b, k)


SHIPPED = ROOT / "dps_verify" / "data" / "adult_qi.csv.gz"
SHIPPED_QI = ["age", "education", "marital-status", "race", "sex"]


@functools.cache
def _shipped_table():
    """The shipped extract read once for the module (it is only read, never changed)."""
    spec = load_spec(SPEC)
    return read_table(SHIPPED, SHIPPED_QI, columns=spec.columns, missing=spec.missing,
                      columns_are_default=True)


@functools.cache
def _shipped_records() -> list[dict[str, str]]:
    return _shipped_table().records()


@pytest.mark.parametrize("recoding", ["fine", "medium", "coarse"])
def test_adult_extract_under_shipped_recoding_against_brute_force(recoding):
    """13 records of the shipped Adult extract (taken in file order into the first four groups
    met, at most 6, 4, 2 and 1 of them), grouped as the plan groups them under each shipped
    recoding: exact expected published records = the sum over all 2^13 samples."""
    rec = load_spec(SPEC).get(recoding)
    caps: dict[tuple, int] = {}
    keys: list[tuple] = []
    for r in _shipped_records():
        key = rec.key(r, SHIPPED_QI)
        if key not in caps and len(caps) < 4:
            caps[key] = (6, 4, 2, 1)[len(caps)]
        if key in caps and keys.count(key) < caps[key]:
            keys.append(key)
        if len(keys) == 13:
            break
    hist = size_histogram(Counter(keys))
    assert hist == Counter({6: 1, 4: 1, 2: 1, 1: 1})  # sizes on both sides of k = 1, 2, 3
    beta = Fraction(6321, 10000)
    assert expected_published(hist, beta, [1, 2, 3]) == brute_force_each(keys, beta, [1, 2, 3])


def test_recoding_rules_and_errors():
    spec = parse_spec({
        "hierarchies": {"h": {"levels": [{"a": "A", "b": "A", "c": "C"}, {"A": "X", "C": "X"}]}},
        "recodings": {"r": {"age": {"bands": [20, 30]}, "x": {"hierarchy": "h", "level": 2},
                            "y": "*", "z": {"map": {"u": "U"}, "default": "other"}}},
    })
    r = spec.get("r")
    rec = {"age": "19", "x": "b", "y": "anything", "z": "v"}
    assert r.key(rec, ["age", "x", "y", "z"]) == ("<20", "X", "*", "other")
    assert r.key({"age": "30"}, ["age"]) == (">=30",)
    assert r.key({"age": "25"}, ["age"]) == ("[20,30)",)
    with pytest.raises(ValueError, match="not in hierarchy"):
        r.key({"x": "q"}, ["x"])
    with pytest.raises(ValueError, match="not a number"):
        r.key({"age": "old"}, ["age"])
    for bad in ({"recodings": {}}, {"recodings": {"r": {"a": {"bands": [3, 2]}}}},
                {"recodings": {"r": {"a": {"hierarchy": "nope"}}}}, {"recodings": {"r": {"a": 5}}}):
        with pytest.raises(ValueError):
            parse_spec(bad)


@pytest.mark.skipif(not ADULT.is_file(), reason="UCI Adult reference data not present")
def test_adult_reads_groups_and_the_shipped_spec_covers_its_domain():
    spec = load_spec(SPEC)
    assert set(spec.recodings) >= {"fine", "medium", "coarse"}
    table = read_table(ADULT, spec.qi, columns=spec.columns, missing=spec.missing)
    assert len(table.rows) + table.dropped_missing == 32561
    for rec in spec.recodings.values():
        sizes = group_sizes(table, rec)  # raises on a value the spec does not cover
        assert sum(sizes.values()) == len(table.rows)
    e = expected_published(size_histogram(sizes), Fraction(1, 2), [1])[1]
    assert e == Fraction(len(table.rows), 2)


def _tiny_csv(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("age,sex,job\n" + "23,F,x\n24,F,x\n25,M,y\n31,M,y\n33,M,?\n" * 3)
    spec = tmp_path / "spec.json"
    spec.write_text('{"missing": "?", "recodings": {"r": {"age": {"bands": [30]}, "job": "*"}}}')
    return p, spec


def test_cli_on_a_table_json_has_exact_values_and_warning(tmp_path, capsys):
    import json

    from dps_verify.cli import main

    data, spec = _tiny_csv(tmp_path)
    out = tmp_path / "plan.json"
    rc = main(["plan", "--epsilon", "2", "--delta", "0.2", "--no-grid", "--data", str(data),
               "--qi", "age,sex,job", "--recoding", f"{spec}:r", "--json", str(out)])
    text = capsys.readouterr().out
    assert rc == 0 and "does not cover" in text
    doc = json.loads(out.read_text())["on_table"]
    assert doc["records"] == 12 and doc["dropped_missing"] == 3 and "data-dependent" in doc["warning"]
    (row,) = doc["rows"]
    hist = Counter({int(n): c for n, c in doc["group_size_histogram"].items()})
    beta = Fraction(row["beta"])
    for m, k in row["k"].items():
        assert Fraction(row["expected_published"][m]["rational"]) == expected_published(hist, beta, [k])[k]


@pytest.mark.parametrize("extra,needle", [
    (["--data", "/nonexistent.csv", "--recoding", "SPEC", "--qi", "age"], "no such file"),
    (["--data", "DATA", "--recoding", "SPEC"], "no quasi-identifier"),
    (["--data", "DATA"], "needs --recoding"),
    (["--recoding", "SPEC"], "need --data"),
    (["--data", "DATA", "--recoding", "SPEC:nope"], "not in"),
    (["--data", "DATA", "--recoding", "SPEC", "--qi", "age,height"], "height"),
])
def test_cli_table_bad_input_one_line_exit_2(extra, needle, tmp_path, capsys):
    from dps_verify.cli import main

    data, spec = _tiny_csv(tmp_path)
    extra = [str(data) if a == "DATA" else a.replace("SPEC", str(spec)) for a in extra]
    rc = main(["plan", "--epsilon", "1", "--delta", "0.01", "--no-grid", *extra])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and needle in err


def test_shipped_gzip_extract_with_its_own_header():
    spec = load_spec(SPEC)
    assert SHIPPED == ROOT / "dps_verify" / "data" / "adult_qi.csv.gz"
    assert SHIPPED_QI == ["age", "education", "marital-status", "race", "sex"]
    table = _shipped_table()
    assert len(table.rows) == 30162 and table.columns[0] == "age"
    sizes = group_sizes(table, spec.get("medium"))
    assert sum(sizes.values()) == 30162


def test_readme_numbers_for_adult_medium_at_the_edge():
    """README and docs/plan.md quote these (epsilon = 1, delta = 1e-6, beta = edge, 'medium')."""
    from dps_verify.plan import plan

    p = plan("1", "1e-6", default_grid=False, data=ROOT / "dps_verify" / "data" / "adult_qi.csv.gz",
             qi=["age", "education", "marital-status", "race", "sex"], recoding=SPEC, recoding_name="medium")
    assert p.utility is not None
    (row,) = p.utility.rows
    assert row.ks == {"paper": 74, "hockey-stick": 58, "pointwise": 74, "arx": 75}
    got = {m: round(float(v), 1) for m, v in row.expected.items()}
    assert got == {"paper": 16869.3, "hockey-stick": 17172.0, "pointwise": 16869.3, "arx": 16837.7}


@pytest.mark.parametrize("beta", [Fraction(1, 10**9), Fraction(10**9 - 1, 10**9)])
def test_beta_near_0_and_1_against_brute_force(beta):
    keys = [("a",)] * 4 + [("b",)] * 2 + [("c",)]
    hist = size_histogram(Counter(keys))
    got = expected_published(hist, beta, [1, 2, 3, 5])
    for k in (1, 2, 3, 5):
        assert got[k] == brute_force(keys, beta, k)
    assert got[5] == 0 and got[1] == 7 * beta


@given(keys=st.lists(st.integers(0, 3), min_size=1, max_size=8),
       beta=st.fractions(min_value=Fraction(1, 20), max_value=Fraction(19, 20), max_denominator=20),
       k=st.integers(1, 6))
def test_property_exact_utility_equals_brute_force(keys, beta, k):
    ks = [(x,) for x in keys]
    assert expected_published(size_histogram(Counter(ks)), beta, [k])[k] == brute_force(ks, beta, k)


def test_exact_utility_past_its_budget_is_refused_before_any_work(monkeypatch):
    from dps_verify.core.errors import BudgetError
    from dps_verify.plan import utility

    monkeypatch.setattr(utility, "MAX_EXACT_BITS", 1000)
    hist = Counter({200: 1})
    with pytest.raises(BudgetError, match="shorter denominator"):
        utility.expected_published(hist, Fraction(6321205588285576784044762298385391325541, 10**40), [3])
    assert utility.expected_published(hist, Fraction(1, 2), [3])[3] > 0  # 200 * 2 bits: within


def test_a_directory_given_as_data_is_called_a_directory(tmp_path, capsys):
    from dps_verify.cli import main

    _data, spec = _tiny_csv(tmp_path)
    rc = main(["plan", "--epsilon", "1", "--delta", "0.01", "--no-grid", "--data", str(tmp_path),
               "--recoding", str(spec), "--qi", "age"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "is a directory" in err and "no such file" not in err


def test_a_small_positive_expectation_never_prints_as_zero():
    from dps_verify.plan.report import _records

    assert _records(Fraction(0)) == "0"
    for x in (Fraction(1, 10**30), Fraction(3, 100), Fraction(1, 11)):
        text = _records(x)
        assert Fraction(text) >= x and Fraction(text) > 0
    assert _records(Fraction(12345, 10)) == "1,234.5"


def test_utility_json_says_exact_only_when_it_gives_the_exact_rational():
    from types import SimpleNamespace

    from dps_verify.plan.report import utility_json

    small, huge = Fraction(7, 3), Fraction(3**9000 + 1, 2**14000)
    row = SimpleNamespace(row=SimpleNamespace(beta=Fraction(1, 2), point=SimpleNamespace(label="0.5")),
                          ks={"paper": 3, "hockey-stick": 2}, expected={"paper": small, "hockey-stick": huge},
                          gain=lambda a, b: None)
    u = SimpleNamespace(data_path="t.csv", recoding="r", qi=("age",), records=1, dropped_missing=0, groups=1,
                        histogram={1: 1}, rows=[row], best=lambda m: None)
    got = utility_json(u)["rows"][0]["expected_published"]
    assert got["paper"]["exact"] is True and Fraction(got["paper"]["rational"]) == small
    h = got["hockey-stick"]
    assert h["exact"] is False and "rational" not in h
    assert Fraction(h["lower"]) <= huge <= Fraction(h["upper"])
