"""`dps-verify delta`: output, JSON, inverse questions and one-line errors with exit code 2."""

import json

import pytest

from dps_verify.cli import main


def test_delta_prints_paper_and_exact_values(capsys):
    assert main(["delta", "--k", "20", "--beta", "0.1", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "4.072506e-14" in out  # CP Table 2, beta = 0.1, epsilon = 1
    assert "hockey-stick" in out and "certified" in out


def test_delta_json(capsys):
    assert main(["delta", "--k", "20", "--beta", "0.2", "--epsilon", "0.25", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["paper_d"]["value"] == "2.158278e-03"  # 2.1582771…e-03 rounded UP
    assert float(data["exact_hockey_stick"]["value"]) <= float(data["paper_d"]["value"])
    assert data["exact_pointwise"]["value"] == data["paper_d"]["value"]


def test_min_k(capsys):
    assert main(["delta", "--min-k", "--beta", "0.1", "--epsilon", "1", "--delta", "1e-6", "--json"]) == 0
    ans = json.loads(capsys.readouterr().out)["answers"]
    assert ans["paper"] == 9 and ans["hockey-stick"] <= ans["paper"]


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["delta", "--k", "20", "--beta", "1.5", "--epsilon", "1"], "0 < beta < 1"),
        (["delta", "--k", "0", "--beta", "0.1", "--epsilon", "1"], "k must be"),
        (["delta", "--k", "20", "--beta", "0.1", "--epsilon", "-1"], "epsilon must be >= 0"),
        (["delta", "--k", "20", "--beta", "0.5", "--epsilon", "0.1"], "-ln(1-beta)"),
        (["delta", "--k", "20", "--beta", "0.1"], "missing --epsilon"),
        (["delta", "--min-k", "--beta", "0.1", "--epsilon", "1"], "missing --delta"),
    ],
)
def test_bad_input_is_one_line_exit_2(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_unknown_option_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["delta", "--bogus"])
    assert exc.value.code == 2


@pytest.mark.parametrize("k,needle", [(1000, "3.468197e-613"), (10000, "3.324440e-6107")])
def test_tiny_delta_is_never_printed_as_zero(k, needle, capsys):
    assert main(["delta", "--k", str(k), "--beta", "0.1", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert needle in out and "0.000000e+00" not in out
    assert main(["delta", "--k", str(k), "--beta", "0.1", "--epsilon", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["paper_d"]["value"] == needle  # the safe (upper) end, rounded up
    for name in ("paper_d", "exact_hockey_stick", "exact_pointwise"):
        assert not data[name]["value"].startswith("0")


def test_beta_edge_is_accepted_and_printed(capsys):
    assert main(["delta", "--k", "61", "--beta", "edge", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "6.321205588285576784044762298385391325541e-01" in out and "6.098836e-07" in out


def test_float_past_the_edge_names_beta_edge(capsys):
    assert main(["delta", "--k", "61", "--beta", "0.6321205588285577", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert 'beta="edge"' in err and "6.3212055882855767840e-01" in err


def test_inverse_questions_print_the_pointwise_answer(capsys):
    assert main(["delta", "--max-beta", "--k", "20", "--epsilon", "1", "--delta", "1e-6", "--json"]) == 0
    ans = json.loads(capsys.readouterr().out)["answers"]
    assert set(ans) == {"paper", "hockey-stick", "pointwise"}
