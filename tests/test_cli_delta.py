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
    assert data["paper_d"]["value"] == "2.158277e-03"
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
