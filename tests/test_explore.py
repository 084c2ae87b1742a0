"""The ``dps-verify explore`` walkthroughs, driven with scripted input."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from dps_verify import bounds, cli
from dps_verify.paper import walkthroughs as explore


def _scripted(answers: list[str]) -> tuple[list[str], object]:
    """An ``input`` replacement that replays ``answers`` then raises EOFError, recording prompts."""
    prompts: list[str] = []
    it: Iterator[str] = iter(answers)

    def fake_input(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return prompts, fake_input


def _run(theorem: str, answers: list[str], steps: bool = False) -> tuple[str, list[str], int]:
    out: list[str] = []
    prompts, fake = _scripted(answers)
    rounds = explore.session(explore.get(theorem), steps=steps, input_fn=fake, print_fn=out.append)
    return "\n".join(out), prompts, rounds


@pytest.mark.usefixtures("proof_results")  # the session's proofs, run once (tests/conftest.py)
def test_theorem5_walkthrough_shows_steps_and_default_numbers() -> None:
    text, prompts, rounds = _run("cp-theorem-5", ["q"], steps=True)
    assert "1. Claim" in text and "n(1 - beta)/(n - j)" in text
    assert f"{float(bounds.d(20, 0.1, 1)):.4e}" in text
    assert "maximising group size n" in text and "29" in text
    assert prompts == ["k [20]: "]
    assert rounds == 0


def test_theorem5_change_parameters_shows_effect() -> None:
    text, prompts, rounds = _run("cp-theorem-5", ["30", "", "0.5", "q"])
    assert rounds == 1
    assert prompts[:3] == ["k [20]: ", "beta [0.1]: ", "epsilon [1]: "]
    assert prompts[3] == "k [30]: "  # the new value is the next default
    new_d = f"{float(bounds.d(30, 0.1, 0.5)):.4e}"
    assert f"{float(bounds.d(20, 0.1, 1)):.4e}  ->  {new_d}" in text


def test_bad_value_is_reported_and_reasked() -> None:
    text, prompts, rounds = _run("cp-theorem-5", ["0", "-3", "21", "", "", "q"])
    assert "! k must be an integer >= 1" in text
    assert prompts[:3] == ["k [20]: ", "k [20]: ", "k [20]: "]
    assert rounds == 1


def test_outside_regime_keeps_old_values() -> None:
    # beta = 0.5 needs epsilon >= ln 2; epsilon = 0.1 is outside CP Thm 5's regime.
    text, _, rounds = _run("cp-theorem-5", ["", "0.5", "0.1", "q"])
    assert "epsilon must satisfy epsilon >= -ln(1-beta)" in text
    assert "keeping k = 20, beta = 0.1, epsilon = 1" in text
    assert rounds == 0


def test_eof_quits_cleanly() -> None:
    _, prompts, rounds = _run("cp-theorem-1", [])
    assert rounds == 0 and len(prompts) == 1


def test_theorem1_tightness_matches_bound() -> None:
    out: list[str] = []
    explore.session(explore.get("cp-theorem-1"), interactive=False, print_fn=out.append)
    rows = {line.split("  ")[1].strip(): line.split()[-1] for line in out if line.startswith("  ") and not line.startswith("  1")}
    assert rows["tightness: exact eps after sampling"] == rows["tightness: Thm 1 for that mechanism"]
    assert rows["eps2 (Thm 1, rounded up)"] == "0.158565"


def test_theorem6_runs_and_uses_d_safe() -> None:
    text, _, rounds = _run("cp-theorem-6", ["", "", "", "0.25", "q"])
    assert rounds == 1
    assert f"{float(bounds.d_safe(20, 0.1, 1.5, 0.25)):.4e}" in text


def test_unknown_theorem_lists_known() -> None:
    with pytest.raises(ValueError, match="known: cp-theorem-1, cp-theorem-5, cp-theorem-6"):
        explore.get("cp-theorem-99")


def test_parse_assignments() -> None:
    w = explore.get("cp-theorem-5")
    assert explore.parse_assignments(w, ["k=30"]) == {"k": "30", "beta": "0.1", "epsilon": "1"}
    with pytest.raises(ValueError, match="NAME=VALUE"):
        explore.parse_assignments(w, ["gamma=2"])


def test_cli_unknown_theorem_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explore", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "known:" in err


def test_cli_no_input_prints_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explore", "cp-theorem-5", "--no-input", "--set", "k=25"]) == 0
    out = capsys.readouterr().out
    assert "At k = 25, beta = 0.1, epsilon = 1:" in out and "[25]:" not in out


def test_cli_lists_theorems(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explore"]) == 0
    assert "cp-theorem-5" in capsys.readouterr().out


def test_cli_non_tty_stdin_does_not_prompt(monkeypatch, capsys) -> None:
    """In this process, stdin an empty non-TTY stream (as a pipe is; the subprocess
    test at the end of this module drives a real one)."""
    import io

    stdin = io.StringIO("")
    assert not stdin.isatty()
    monkeypatch.setattr(sys, "stdin", stdin)
    assert cli.main(["explore", "cp-theorem-1"]) == 0
    out = capsys.readouterr().out
    first_prompt = "epsilon1 [1]:"  # the walkthrough's first question
    assert first_prompt not in out and "[0.1]:" not in out and "Try:" in out
    # negative control: with --interactive the same stream is read, and the prompt shows
    assert cli.main(["explore", "cp-theorem-1", "--interactive"]) == 0
    assert first_prompt in capsys.readouterr().out


def test_steps_come_from_the_proof_module(proof_results) -> None:
    text, _, _ = _run("cp-theorem-1", ["q"], steps=True)
    for s in proof_results.results["cp-theorem-1"].steps:
        assert s.statement in text and s.name in text


@pytest.mark.usefixtures("proof_results")  # the session's proofs, run once (tests/conftest.py)
def test_theorem6_says_refuted() -> None:
    text, _, _ = _run("cp-theorem-6", ["q"], steps=True)
    assert "Verdict of `dps-verify prove cp-theorem-6`: REFUTED" in text
    assert "This theorem is REFUTED" in text and "REFUTED under CP Def 3" in text
    assert "17/384" in text  # the exact witness is quoted


@pytest.mark.usefixtures("proof_results")  # the session's proofs, run once (tests/conftest.py)
def test_numbers_come_first_and_steps_only_on_request() -> None:
    text, _, _ = _run("cp-theorem-5", ["q"])
    assert text.index("paper d(k, beta, eps)") < text.index("--steps")
    assert "1. Claim" not in text and "Verdict of" not in text
    text, _, _ = _run("cp-theorem-5", ["q"], steps=True)
    assert text.index("paper d(k, beta, eps)") < text.index("1. Claim")


def test_theorem6_cautions_without_steps() -> None:
    text, _, _ = _run("cp-theorem-6", ["q"])
    assert "REFUTED" in text.split("At k")[0]


@pytest.mark.parametrize(
    "assignment,needle",
    [("k=0", "k must be"), ("beta=1.5", "beta"), ("epsilon=0.01", "-ln(1-beta)"), ("epsilon=x", "epsilon")],
)
def test_cli_bad_set_is_rejected_before_anything_prints(assignment, needle, capsys) -> None:
    assert cli.main(["explore", "cp-theorem-5", "--no-input", "--set", assignment]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert needle in captured.err and captured.err.count("\n") == 1


@pytest.mark.usefixtures("proof_results")  # the session's proofs, run once (tests/conftest.py)
def test_cli_steps_option_prints_the_proof_after_the_numbers(capsys) -> None:
    assert cli.main(["explore", "cp-theorem-1", "--no-input", "--steps"]) == 0
    out = capsys.readouterr().out
    assert out.index("eps2 (Thm 1, rounded up)") < out.index("1. Claim")


def test_first_answers_load_no_proof_kernel_and_a_piped_stdin_drives_the_prompts() -> None:
    """In one fresh interpreter (one process start instead of two): the work of the first
    answer, no SymPy/z3 proof kernel imported for the list of theorems or for the numbers (it
    loads only with --steps); then ``--interactive`` reading a real pipe (the scripted answers)."""
    code = (
        "import sys\n"
        "from dps_verify.cli import main\n"
        "assert main(['explore']) == 0\n"
        "assert main(['explore', 'cp-theorem-5', '--no-input']) == 0\n"
        "print('KERNEL', 'dps_verify.paper.kernel' in sys.modules, 'sympy' in sys.modules)\n"
        "print('--- interactive ---', flush=True)\n"
        "sys.exit(main(['explore', 'cp-theorem-5', '--interactive']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], input="21\n\n\nq\n", capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    first, sep, interactive = proc.stdout.partition("--- interactive ---\n")
    assert sep and "KERNEL False False" in first
    assert "At k = 21, beta = 0.1, epsilon = 1:" in interactive
    assert "->" in interactive
