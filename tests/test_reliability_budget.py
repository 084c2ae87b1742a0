"""Every audit is bounded before it starts; API inputs are what they look like.

``audit`` with ``"max_size": 1000000`` used to run for minutes and take 1.4 GB; it is now refused
at once (exit 5, naming the option that lowers it).  ``audit(f, domain="domain.json")`` used to
audit the characters of the path; a ``str``/``Path`` domain is now read as a domain file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dps_verify.audit import Domain, audit
from dps_verify.audit import budget as audit_budget
from dps_verify.cli import main
from dps_verify.errors import BudgetError, ParameterError, UsageError

SAFE = "def anonymize(sample):\n    return 'nothing'\n"


def _files(tmp_path: Path, max_size: int, records=(1, 2, 3)) -> tuple[str, str]:
    src = tmp_path / "safe.py"
    src.write_text(SAFE)
    dom = tmp_path / "domain.json"
    dom.write_text(json.dumps({"records": list(records), "max_size": max_size}))
    return f"{src}:anonymize", str(dom)


def test_huge_max_size_is_refused_at_once(tmp_path, capsys):
    target, dom = _files(tmp_path, 1_000_000)
    imported = tmp_path / "imported"
    Path(target.rsplit(":", 1)[0]).write_text(f"open({str(imported)!r}, 'w').close()\n" + SAFE)
    rc = main(["audit", target, "--beta", "0.5", "--epsilon", "1", "--delta", "0.1", "--domain", dom])
    assert not imported.exists()  # refused before the code under audit was even imported
    err = capsys.readouterr().err
    assert rc == 5 and err.count("\n") == 1
    assert "--max-size" in err and "max_size = 1000000" in err and "at most about" in err
    assert "--traceback" not in err  # a refusal before any work: nothing to trace


def test_max_size_option_too(tmp_path, capsys):
    target, dom = _files(tmp_path, 10)
    rc = main(["audit", target, "--beta", "0.5", "--epsilon", "1", "--delta", "0.1", "--domain", dom,
               "--max-size", "100000000"])
    assert rc == 5 and "--max-size" in capsys.readouterr().err


def test_api_budget_is_a_budget_error():
    with pytest.raises(BudgetError, match="max_size"):
        audit(lambda s: "x", beta="0.5", epsilon=1, delta="0.1", domain=[1, 2, 3], max_size=10**6)


def test_budget_boundary_both_sides():
    """The largest max_size the message names fits; one more does not (both sides of the edge)."""
    dom = Domain((1, 2, 3), 10**6)
    with pytest.raises(BudgetError) as info:
        audit_budget.check_audit_budget(dom, cheap=False)
    largest = int(str(info.value).rsplit("at most about ", 1)[1].split()[0].rstrip(")"))
    audit_budget.check_audit_budget(Domain((1, 2, 3), largest), cheap=False)
    with pytest.raises(BudgetError):
        audit_budget.check_audit_budget(Domain((1, 2, 3), largest + 1), cheap=False)
    audit_budget.check_audit_budget(Domain((1, 2, 3), 40), cheap=True)  # the default fits


def test_budget_error_is_exit_5_and_not_usage():
    assert BudgetError.exit_code == 5 and not issubclass(BudgetError, ValueError)


# ---------------------------------------------------------------------------- domain paths


@pytest.mark.parametrize("as_path", [str, Path])
def test_domain_path_is_read_as_a_file(tmp_path, as_path):
    _, dom = _files(tmp_path, 4)
    d = Domain.of(as_path(dom))
    assert d.records == (1, 2, 3) and d.max_size == 4
    rep = audit(lambda s: len(s), beta="0.5", epsilon=1, delta="0.1", domain=as_path(dom), seed=0)
    assert rep.coverage["domain"]["records"] == 3  # not the characters of the path
    assert rep.verdict == "FAIL"


def test_missing_domain_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="cannot read domain file"):
        audit(lambda s: "x", beta="0.5", epsilon=1, delta="0.1", domain=str(tmp_path / "nope.json"))


def test_json_text_domain_is_refused_with_a_message():
    with pytest.raises(ParameterError, match="string of JSON text"):
        Domain.of('{"records": [1, 2]}')


def test_bytes_domain_is_refused():
    with pytest.raises(ParameterError, match="not bytes"):
        Domain.of(b"12")


def test_recognition_after_a_pass_is_bounded_in_records():
    """A one-record domain used to make the post-PASS recognition anonymize every sample of up
    to ~30000 records (~4.5e8 records in all: the audit never finished)."""
    import math

    from dps_verify.verdict.recognise import DEFAULT_RECORD_BUDGET, largest_checkable_size

    for m in (1, 2, 3, 8):
        n = largest_checkable_size(m, 30_000)
        assert m * math.comb(n + m, m + 1) <= DEFAULT_RECORD_BUDGET
        assert math.comb(n + m, m) <= 30_000
        # the bound is the largest such n (both sides of the edge)
        assert math.comb(n + 1 + m, m) > 30_000 or m * math.comb(n + 1 + m, m + 1) > DEFAULT_RECORD_BUDGET
    rep = audit(lambda s: len(s) > 10, beta="0.1", epsilon=1, delta="0.00074", domain=[1], max_size=20, seed=0)
    assert rep.verdict == "PASS"
