"""Every parameter error is a :class:`ParameterError` (a ``ValueError``, for callers who catch
that) in the API as in the CLI (exit 2, one line): β = 1.5, k = 0, β = 'x', ε = 'nan' used to
raise a bare ``ValueError`` through the API."""

from __future__ import annotations

import math

import pytest

from dps_verify import bounds, exact
from dps_verify.cli import main
from dps_verify.errors import ParameterError

BAD = {
    "beta 1.5": lambda: exact.sdgs_delta(5, 1.5, 1),
    "beta 0": lambda: exact.sdgs_delta(5, 0, 1),
    "beta x": lambda: exact.sdgs_delta(5, "x", 1),
    "beta bool": lambda: exact.sdgs_delta(5, True, 1),
    "k 0": lambda: exact.sdgs_delta(0, "0.1", 1),
    "k -3": lambda: bounds.d(-3, "0.1", 1),
    "k 2.5": lambda: bounds.d(2.5, "0.1", 1),
    "epsilon 'nan'": lambda: exact.sdgs_delta(5, "0.1", "nan"),
    "epsilon nan float": lambda: bounds.d(5, "0.1", math.nan),
    "epsilon 'inf' string (not a number here)": lambda: bounds.d(5, "0.1", "-inf"),
    "epsilon -1": lambda: bounds.d(5, "0.1", -1),
    "epsilon 'ln(0.5)'": lambda: bounds.d(5, "0.1", "ln(0.5)"),
    "delta 2": lambda: bounds.min_k("0.1", 1, 2),
    "delta -0.1": lambda: bounds.min_k("0.1", 1, "-0.1"),
    "delta 'abc'": lambda: bounds.min_k("0.1", 1, "abc"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_api_bad_parameter_is_a_parameter_error(case):
    with pytest.raises(ParameterError) as info:
        BAD[case]()
    assert isinstance(info.value, ValueError)  # compatible with callers catching ValueError
    assert str(info.value)


@pytest.mark.parametrize("argv, fragment", [
    (["delta", "--k", "5", "--beta", "1.5", "--epsilon", "1"], "beta must satisfy"),
    (["delta", "--k", "0", "--beta", "0.1", "--epsilon", "1"], "k must be an integer >= 1"),
    (["delta", "--k", "5", "--beta", "x", "--epsilon", "1"], "beta must be a number"),
    (["delta", "--k", "5", "--beta", "0.1", "--epsilon", "nan"], "epsilon must be finite"),
])
def test_cli_bad_parameter_is_exit_2_one_line(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err


def test_good_parameters_still_work():
    """Negative control: the validation does not refuse valid input at the edges."""
    assert exact.sdgs_delta(1, "0.5", 1) > 0
    assert bounds.d(5, "0.5", "ln(2)") >= 0  # exactly on the regime edge
    assert bounds.d(5, "1e-9", "ln(2)") >= 0


def test_epsilon_zero_does_not_suggest_beta_edge(capsys):
    """At epsilon = 0 the regime edge is beta = 0: suggesting --beta edge would be useless."""
    with pytest.raises(ParameterError) as info:
        bounds.d(5, "0.1", 0)
    msg = str(info.value)
    assert "edge" not in msg.replace("regime", "") and "epsilon > 0" in msg
    assert main(["delta", "--k", "5", "--beta", "0.1", "--epsilon", "0"]) == 2
    err = capsys.readouterr().err
    assert "--beta edge" not in err and "epsilon > 0" in err


def test_epsilon_positive_still_suggests_beta_edge():
    """Negative control: above 0 the suggestion is useful and stays."""
    with pytest.raises(ParameterError, match="--beta edge"):
        bounds.d(5, "0.9", "0.1")


@pytest.mark.parametrize("value", ["0", "-2", "x", "1.5"])
def test_releases_zero_names_the_option_not_an_internal_parameter(value, capsys):
    with pytest.raises(SystemExit) as stop:  # argparse: one line, exit 2
        main(["delta", "--k", "5", "--beta", "0.1", "--epsilon", "1", "--releases", value])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "--releases" in err and "times" not in err


@pytest.mark.parametrize("eps", ["1e30", "1e309", "1e400"])
def test_audit_huge_epsilon_is_exit_5_not_an_internal_error(eps, tmp_path, capsys):
    """e^epsilon cannot be enclosed by exact rationals there: a stated limit (exit 5), not an
    OverflowError reported as a bug (exit 70)."""
    src = tmp_path / "a.py"
    src.write_text("def anonymize(sample):\n    return 'x'\n")
    dom = tmp_path / "d.json"
    dom.write_text('{"records": [1, 2], "max_size": 3}')
    rc = main(["audit", f"{src}:anonymize", "--beta", "0.5", "--epsilon", eps, "--delta", "0.1",
               "--domain", str(dom)])
    err = capsys.readouterr().err
    assert rc == 5 and err.count("\n") == 1 and "too large to enclose e^epsilon" in err


def test_exp_interval_limit_both_sides():
    from fractions import Fraction

    from dps_verify.core.numbers import EXP_INTERVAL_MAX_EPS, exp_interval
    from dps_verify.errors import CertificationError

    lo, hi = exp_interval(Fraction(EXP_INTERVAL_MAX_EPS))
    assert 0 < lo <= hi
    with pytest.raises(CertificationError):
        exp_interval(Fraction(EXP_INTERVAL_MAX_EPS) + Fraction(1, 10**9))
