"""Tests of dps_verify.audit and ``dps-verify audit``: every verdict and exit code."""

from __future__ import annotations

import json
import textwrap
from fractions import Fraction

import pytest

from dps_verify import exact
from dps_verify.audit import Domain, audit, closed_form_kind, domain_from_dict, load_domain
from dps_verify.audit.statistical import clopper_pearson_lower, clopper_pearson_upper
from dps_verify.cli import main
from dps_verify.mechanisms import Mondrian, StronglySafeKAnonymizer


def decade(a: int) -> int:
    return a // 10


AGES = {"records": [18, 22, 27, 35, 90], "max_size": 20}
D5 = float(exact.sdgs_delta_certified(5, 0.2, 1).upper) * (1 + 1e-12)


def test_closed_form_pass_is_a_proof():
    rep = audit(StronglySafeKAnonymizer(decade, 5), beta=0.2, epsilon=1, delta=D5, domain=AGES)
    assert rep.verdict == "PASS" and rep.exit_code == 0
    assert rep.method == "closed-form"
    assert "ALL datasets" in rep.summary()
    assert rep.worst_delta["upper"] <= Fraction(D5)


def test_closed_form_fail_has_exact_witness():
    rep = audit(StronglySafeKAnonymizer(decade, 5), beta=0.2, epsilon=1, delta=1e-4, domain=AGES)
    assert rep.verdict == "FAIL" and rep.exit_code == 1
    w = rep.witness
    assert len(w.dataset) == len(w.neighbour) + 1
    assert w.implied_delta > Fraction(1, 10**4)
    assert w.prob_first > w.prob_second


def test_threshold_other_than_k_is_not_recognised():
    assert closed_form_kind(StronglySafeKAnonymizer(decade, 5)) == "strongly-safe"
    assert closed_form_kind(StronglySafeKAnonymizer(decade, 5, threshold=4)) is None
    rep = audit(StronglySafeKAnonymizer(decade, 5, threshold=4), beta=0.2, epsilon=1, delta=D5,
                domain=AGES)
    assert rep.verdict == "FAIL"
    # the witness is the paper's weak shape: the target's group holds about n_m records
    assert rep.witness.shape == "crowd"


def test_search_pass_states_coverage(short_recognition):
    """The coverage of a searched PASS (the recognition that follows it, which only adds a note,
    runs at the short budget: see the ``short_recognition`` fixture)."""

    def kanon(sample):
        from collections import Counter

        c = Counter(decade(a) for a in sample)
        return tuple(sorted((g, n) for g, n in c.items() if n >= 5))

    # datasets of up to 12 records (AGES allows 20): the worst group (n = 6) and every shape
    # family of the 20-record audit are still searched, in about 55 % of its CPU time
    rep = audit(kanon, beta=0.2, epsilon=1, delta=D5, domain={**AGES, "max_size": 12}, seed=1)
    assert rep.verdict == "PASS"
    assert rep.coverage["closed_form"] is None
    assert rep.coverage["pairs_exact"] > 50
    assert {"singleton", "crowd", "beside-bulk"} <= set(rep.coverage["shapes"])
    assert "not a proof" in rep.summary()
    # the search reaches the worst group size: its largest delta is the exact worst case
    # (two enclosures of the same irrational number: equal to 1e-30, not to the last bit)
    assert abs(rep.worst_delta["upper"] - exact.sdgs_delta_certified(5, 0.2, 1).upper) <= Fraction(1, 10**33)


def test_mondrian_fails_with_outlier():
    dom = {"records": [[25, 9], [37, 10], [90, 16]], "max_size": 20}
    rep = audit(Mondrian(3), beta=0.2, epsilon=1, delta=1e-3, domain=dom)
    assert rep.verdict == "FAIL"
    assert rep.witness.prob_second == 0


def test_pointwise_definition_and_json_roundtrip():
    rep = audit(StronglySafeKAnonymizer(decade, 3, threshold=2), beta=0.2, epsilon=1,
                delta=1e-3, domain=AGES, definition="pointwise")
    assert rep.verdict == "FAIL"
    d = json.loads(rep.to_json())
    assert d["verdict"] == "FAIL" and d["claim"]["definition"] == "pointwise"
    assert d["witness"]["implied_delta"]["float"] > 1e-3


def test_black_box_statistical_fail_and_inconclusive():
    def leaky(sample, rng):  # publishes the sample size
        return len(sample)

    # four pairs (both singletons and two crowds) instead of the default 24, and a tenth of the
    # default trials per pair (select then confirm): the same code paths
    few = {"max_statistical_pairs": 4, "n_select": 300, "n_confirm": 3000}
    rep = audit(leaky, beta=0.3, epsilon=0.5, delta=1e-3, domain=[1, 2], seed=3, **few)
    assert rep.coverage["shapes"] == {"singleton (statistical)": 2, "crowd (statistical)": 2}
    assert rep.verdict == "FAIL" and rep.witness.method == "statistical"
    assert rep.witness.confidence == pytest.approx(0.95)

    def constant(sample, rng):
        return "nothing"

    rep = audit(constant, beta=0.3, epsilon=0.5, delta=1e-3, domain=[1, 2], seed=3, **few)
    assert rep.verdict == "INCONCLUSIVE" and rep.exit_code == 3


def test_statistical_method_on_exact_anonymizer():
    # a tenth of the default trials per pair, as in the black-box test: the same code paths
    few = {"n_select": 300, "n_confirm": 3000}
    rep = audit(lambda s: len(s), beta=0.5, epsilon=0.1, delta=0.01, domain=[7],
                method="statistical", seed=0, **few)
    assert rep.verdict == "FAIL" and rep.witness.method == "statistical"


def test_bad_parameters():
    with pytest.raises(ValueError, match="beta"):
        audit(lambda s: 0, beta=1.5, epsilon=1, delta=0, domain=[1])
    with pytest.raises(ValueError, match="delta"):
        audit(lambda s: 0, beta=0.5, epsilon=1, delta=2, domain=[1])
    with pytest.raises(ValueError, match="definition"):
        audit(lambda s: 0, beta=0.5, epsilon=1, delta=0, domain=[1], definition="renyi")
    with pytest.raises(ValueError, match="black box"):
        audit(lambda s, r: 0, beta=0.5, epsilon=1, delta=0, domain=[1], method="exact")


def test_clopper_pearson_bounds():
    assert clopper_pearson_lower(0, 10, 0.05) == 0.0
    assert clopper_pearson_upper(10, 10, 0.05) == 1.0
    assert clopper_pearson_lower(50, 100, 0.05) < 0.5 < clopper_pearson_upper(50, 100, 0.05)
    # the one-sided upper bound for 0 hits is 1 - alpha^(1/n)
    assert clopper_pearson_upper(0, 100, 0.05) == pytest.approx(1 - 0.05 ** (1 / 100))


def test_domain_formats(tmp_path):
    d = domain_from_dict({"attributes": {"age": [20, 90], "sex": ["M", "F"]}, "max_size": 7})
    assert d.records == ((20, "M"), (20, "F"), (90, "M"), (90, "F")) and d.max_size == 7
    assert Domain.of([[1, 2], [1, 2], [3, 4]]).records == ((1, 2), (3, 4))
    p = tmp_path / "d.json"
    p.write_text('{"records": [1, 2]}')
    assert load_domain(p).records == (1, 2)
    for bad in ({}, {"records": []}, {"records": 5}, {"attributes": {"a": []}},
                {"records": [1], "max_size": 0}):
        with pytest.raises(ValueError):
            domain_from_dict(bad)


# ---------------------------------------------------------------- CLI: every exit code

ANON = textwrap.dedent(
    """
    from collections import Counter

    from dps_verify.mechanisms import StronglySafeKAnonymizer

    def table(sample):
        c = Counter(a // 10 for a in sample)
        return tuple(sorted((g, n) for g, n in c.items() if n >= 5))

    # recognised in closed form, so the CLI's PASS (exit 0) needs no search; the search's PASS
    # of a plain function is test_search_pass_states_coverage's
    kanon = StronglySafeKAnonymizer(lambda a: a // 10, 5)

    def leaky(sample):
        return table(sample), len(sample)

    def blackbox(sample, rng):
        return "constant"

    not_callable = 3
    """
)


@pytest.fixture
def files(tmp_path):
    f = tmp_path / "anon.py"
    f.write_text(ANON)
    dom = tmp_path / "dom.json"
    dom.write_text(json.dumps({"records": [18, 22, 35, 90], "max_size": 12}))
    return f, dom


def _run(f, dom, name, *extra):
    return main(["audit", f"{f}:{name}", "--beta", "0.2", "--epsilon", "1", "--delta",
                 str(D5), "--domain", str(dom), "--seed", "0", *extra])


def test_cli_pass_fail_inconclusive(files, tmp_path, capsys):
    f, dom = files
    out = tmp_path / "r.json"
    assert _run(f, dom, "kanon", "--json", str(out)) == 0
    assert json.loads(out.read_text())["verdict"] == "PASS"
    assert _run(f, dom, "leaky") == 1
    assert "witness" in capsys.readouterr().out
    assert _run(f, dom, "blackbox") == 3


@pytest.mark.parametrize(
    "target, extra, msg",
    [
        ("missing.py:kanon", (), "no such file"),
        ("{f}:nothere", (), "no attribute"),
        ("{f}:not_callable", (), "not callable"),
        ("{f}", (), "FILE.py:function"),
        ("{f}:kanon", ("--beta", "1.5"), "beta"),
        ("{f}:kanon", ("--delta", "-1"), "delta"),
    ],
)
def test_cli_bad_usage_exit_2(files, capsys, target, extra, msg):
    f, dom = files
    t = target.format(f=f)
    if t == str(f):
        t = str(f)
        msg = "path/to/file.py:function"
    argv = ["audit", t, "--beta", "0.2", "--epsilon", "1", "--delta", "1e-3",
            "--domain", str(dom), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_cli_bad_domain_exit_2(files, tmp_path, capsys):
    f, _ = files
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    argv = ["audit", f"{f}:kanon", "--beta", "0.2", "--epsilon", "1", "--delta", "1e-3",
            "--domain", str(bad)]
    assert main(argv) == 2
    assert "not valid JSON" in capsys.readouterr().err
    argv[-1] = str(tmp_path / "absent.json")
    assert main(argv) == 2
