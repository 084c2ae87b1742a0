"""A judgement is applied to a survivor only when its recorded description still names that
mutant.  Keys count occurrences inside a function, so an edit above a mutant (or a key moved by
hand) can make a key of an older saved campaign name another mutant: that judgement must not
count the survivor as equivalent (or harmless); the survivor is reported unjudged, with both
descriptions."""

from __future__ import annotations

from pathlib import Path

import pytest

import benchmarks.mutation.__main__ as tool
from benchmarks.mutation.judgement_match import mismatch, statement_text
from benchmarks.mutation.operators import Mutant, mutants
from benchmarks.mutation.runner import Outcome

MODULE = "dps_verify/x.py"
SOURCE = """def f(j, T, q, c_lo, t_lo):
    t_lo += max(c_lo, 0) * 2
    if j >= T or q == 0:
        return t_lo
    return -t_lo
"""


def _sibling_pair() -> tuple[Mutant, Mutant]:
    """The two '0' -> '-1' mutants of f: one in the clamp, one in the exit test (same function,
    operator and text, so their keys differ only by the occurrence count)."""
    found = [m for m in mutants(MODULE, SOURCE) if (m.before, m.after) == ("0", "-1")]
    assert [m.line for m in found] == [2, 3]
    return found[0], found[1]


EXIT_TEXT = "x.py f: 'if j >= T or q == 0' -> 'if j >= T or q == -1'"
CLAMP_TEXT = "x.py f: 't_lo += max(c_lo, 0)' -> 'max(c_lo, -1)'"


def test_a_judgement_whose_key_matches_but_whose_mutant_differs_is_not_applied(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clamp, exit_test = _sibling_pair()
    # the exit test's equivalent judgement filed under the clamp's key (as after a re-keying)
    judgements = {clamp.key: {"kind": "equivalent", "reason": "q is never -1",
                              "mutant": EXIT_TEXT}}
    monkeypatch.setattr(tool, "load_judgements", lambda path=tool.JUDGEMENTS: judgements)
    outcomes = [Outcome(clamp, False, "survived", 0.1), Outcome(exit_test, True, "failed", 0.1)]
    judged = tool.judgements_for(outcomes, {MODULE: SOURCE})
    assert judged[clamp.key]["kind"] == "unjudged"
    s = tool.score(outcomes, judged)[MODULE]
    assert (s["equivalent"], s["n"], [o.mutant.key for o in s["survivors"]]) == (0, 2, [clamp.key])
    text = tool.module_section(MODULE, s, 9, 2, 1, "cmd", 1.0, 1, "green", judged, 1.0)
    line = next(x for x in text.splitlines() if x.startswith(f"- `{clamp.key}`"))
    assert "**unjudged**" in line and "**equivalent**" not in line
    assert clamp.key in line.split("**unjudged**")[1]  # the key named in the explanation
    assert EXIT_TEXT in line and clamp.describe() in line  # both descriptions


def test_the_same_judgement_under_its_own_key_is_applied(monkeypatch: pytest.MonkeyPatch) -> None:
    clamp, exit_test = _sibling_pair()
    judgements = {exit_test.key: {"kind": "equivalent", "reason": "q is never -1",
                                  "mutant": EXIT_TEXT},
                  clamp.key: {"kind": "harmless", "reason": "a clamp", "mutant": CLAMP_TEXT}}
    monkeypatch.setattr(tool, "load_judgements", lambda path=tool.JUDGEMENTS: judgements)
    outcomes = [Outcome(clamp, False, "survived", 0.1), Outcome(exit_test, False, "survived", 0.1)]
    judged = tool.judgements_for(outcomes, {MODULE: SOURCE})
    assert judged == judgements
    s = tool.score(outcomes, judged)[MODULE]
    assert (s["equivalent"], s["n"], [o.mutant.key for o in s["survivors"]]) == (1, 1, [clamp.key])


def test_a_rescore_does_not_apply_a_judgement_moved_onto_another_mutant(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end through ``--rescore`` on a saved campaign: the section shows the survivor
    unjudged and the exit status is 1 (an unjudged survivor)."""
    import json
    from dataclasses import asdict

    clamp, _ = _sibling_pair()
    (tmp_path / "outcomes").mkdir()
    rows = [{**asdict(clamp), "killed": False, "how": "survived", "seconds": 0.1, "tests": 1}]
    campaign = {"command": "cmd", "sample": 1, "seed": 1, "seconds": 1.0, "workers": 1,
                "rate": 1.0, "mutants": 9, "baseline": "green", "commit": "c0ffee"}
    (tmp_path / "outcomes" / "dps_verify.x.py.json").write_text(
        json.dumps({"campaign": campaign, "outcomes": rows}), encoding="utf-8")
    monkeypatch.setattr(tool, "OUTCOMES", tmp_path / "outcomes")
    monkeypatch.setattr(tool, "TARGETS", {MODULE: ("tests/test_x.py",)})
    monkeypatch.setattr(tool, "source_at", lambda commit, module: SOURCE)
    monkeypatch.setattr(tool, "load_judgements", lambda path=tool.JUDGEMENTS: {
        clamp.key: {"kind": "equivalent", "reason": "q is never -1", "mutant": EXIT_TEXT}})
    report = tmp_path / "report.md"
    assert tool.main(["--rescore", "--module", "x", "--report", str(report)]) == 1
    text = report.read_text(encoding="utf-8")
    assert "**unjudged** — the judgement recorded under key" in text
    assert '"equivalent": 0' in text


@pytest.mark.parametrize("text, before, after, operator, function", [
    # the hand-written forms of judgements.toml: quoted statement, prose around it, the after
    # side abbreviated, module-level constants with digit separators, a dropped statement
    ("core/numbers.py fraction_to_mpf: refinement step 'work *= 2' -> 'work *= 3'",
     "2", "3", "constant", "fraction_to_mpf"),
    ("inverse/pld_discrete.py EXACT_COST_BUDGET = 20_000 -> 19_999",
     "20000", "19999", "constant", "<module>"),
    ("inverse/pld_discrete.py upper_below: 'estimate >= float(target)' -> 'estimate > float(target)'",
     "estimate >= float(target)", "estimate > float(target)", "comparison", "upper_below"),
    ("worstcase/sdgs.py _kl_lower_arb: 'if flint is None: return None' -> 'if not flint is None'",
     "flint is None", "not flint is None", "negated condition", "_kl_lower_arb"),
    ("measures/divergence.py: '__all__ = [...]' -> 'pass'",
     "__all__ = ['a', 'b']", "pass", "drop statement", "<module>"),
    ("inverse/releases.py _screened: step 2's fine refresh 'screen[n] * 1.03 >= t' -> '>'",
     "screen[n] * 1.03 >= t", "screen[n] * 1.03 > t", "comparison", "_screened"),
])
def test_the_hand_written_forms_of_current_judgements_match_their_mutant(
        text: str, before: str, after: str, operator: str, function: str) -> None:
    module = "dps_verify/" + text.split(" ", 1)[0].rstrip(":")
    m = Mutant(module, 0, function, operator, 1, before, after, "k")
    assert mismatch(text, m) is None


def test_a_description_of_another_change_or_function_or_module_does_not_match() -> None:
    m = Mutant("dps_verify/core/numbers.py", 0, "fraction_to_mpf", "constant", 1, "2", "3", "k")
    good = "core/numbers.py fraction_to_mpf: 'work *= 2' -> 'work *= 3'"
    assert mismatch(good, m) is None
    assert mismatch(good.replace("3'", "4'"), m) is not None  # another change
    assert mismatch(good.replace("fraction_to_mpf", "iv_exp"), m) is not None
    assert mismatch(good.replace("core/numbers", "core/other"), m) is not None
    # the statement check: the quoted code must be the mutant's statement
    clamp, exit_test = _sibling_pair()
    assert mismatch(EXIT_TEXT, exit_test, statement_text(SOURCE, exit_test.line)) is None
    assert mismatch(EXIT_TEXT, clamp, statement_text(SOURCE, clamp.line)) is not None
    assert mismatch(CLAMP_TEXT, clamp, statement_text(SOURCE, clamp.line)) is None
