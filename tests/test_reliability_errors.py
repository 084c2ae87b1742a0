"""One error hierarchy, one exit-code table, ``--traceback``."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dps_verify import errors as public_errors
from dps_verify.cli import main
from dps_verify.core import errors, numbers
from dps_verify.worstcase import sdgs


def test_public_errors_are_the_core_classes():
    for name in ("DPSVerifyError", "UsageError", "ParameterError", "CertificationError", "AuditedCodeError"):
        assert getattr(public_errors, name) is getattr(errors, name)
    assert issubclass(errors.UsageError, ValueError)
    assert not issubclass(errors.CertificationError, ValueError)  # never reported as bad usage
    assert not issubclass(errors.AuditedCodeError, ValueError)
    assert {c: errors.EXIT_CODES[c] for c in range(6)}  # the table covers 0..5


def test_exp_compare_precision_limit_is_a_certification_error(monkeypatch):
    monkeypatch.setattr(numbers, "MAX_PREC", numbers.BASE_PREC // 2)
    with pytest.raises(errors.CertificationError, match="cannot separate"):
        numbers.exp_compare(Fraction(1), Fraction(2))


def test_chernoff_not_certified_is_a_certification_error_exit_5(monkeypatch, capsys):
    monkeypatch.setattr(sdgs, "kl_lower", lambda *a, **k: Fraction(0))
    monkeypatch.setattr(sdgs, "_chernoff_below", lambda *a: False)  # the ball stop test fails too
    with pytest.raises(errors.CertificationError, match="not certified positive"):
        sdgs.scan_paper_regime(20, Fraction(1, 10), Fraction(1), measure="paper-d")
    rc = main(["delta", "--k", "20", "--beta", "0.1", "--epsilon", "1"])
    err = capsys.readouterr().err
    assert rc == 5, err
    assert err.count("\n") == 1 and "not certified positive" in err and "--traceback" in err


def _raising_run(exc):
    def run(args):
        raise exc
    return run


@pytest.mark.parametrize("exc, code", [
    (errors.CertificationError("work budget of 10 terms reached"), 5),
    (errors.AuditedCodeError("anonymizer raised RuntimeError: boom on sample ()"), 4),
    (errors.ParameterError("beta must be in (0, 1] (CP Def. 3)"), 2),
    (ValueError("bad option"), 2),
    (RuntimeError("a bug in dps_verify"), 70),
    (KeyboardInterrupt(), 130),
])
def test_exit_code_table(monkeypatch, capsys, exc, code):
    import dps_verify.cli.delta as delta_cmd

    monkeypatch.setattr(delta_cmd, "run", _raising_run(exc))
    assert main(["delta", "--k", "20"]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dps-verify delta: error: ")
    assert "Traceback" not in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_traceback_option_shows_the_chain(monkeypatch, capsys, where):
    import dps_verify.cli.delta as delta_cmd

    def run(args):
        try:
            raise ZeroDivisionError("user division")
        except ZeroDivisionError as user:
            raise errors.AuditedCodeError("anonymizer raised ZeroDivisionError", original=user) from user

    monkeypatch.setattr(delta_cmd, "run", run)
    argv = ["--traceback", "delta", "--k", "20"] if where == "before" else ["delta", "--k", "20", "--traceback"]
    assert main(argv) == 4
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: user division" in err
    assert err.rstrip().splitlines()[-1].startswith("dps-verify delta: error: anonymizer raised")


def test_internal_bug_has_its_own_exit_code(monkeypatch, capsys):
    """A bug inside dps_verify is exit 70, distinct from FAIL (1) and bad usage (2)."""
    from dps_verify import cli
    from dps_verify.core.errors import EXIT_FAIL, EXIT_INTERNAL, EXIT_USAGE

    mod = cli.load_command("delta")

    def boom(args):
        raise KeyError("simulated bug")

    monkeypatch.setattr(mod, "run", boom)
    rc = cli.main(["delta", "--k", "5", "--beta", "0.1", "--epsilon", "1"])
    err = capsys.readouterr().err
    assert rc == EXIT_INTERNAL and rc not in (EXIT_FAIL, EXIT_USAGE)
    assert "internal error: KeyError" in err


def test_readme_exit_code_table_is_the_one_table():
    """README's table lists exactly the codes of core.errors.EXIT_CODES, and the audit report's
    verdict codes come from the same module."""
    import re
    from pathlib import Path

    from dps_verify.audit.report import EXIT_CODES as AUDIT_CODES

    text = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    codes = {int(m) for m in re.findall(r"^\| (\d+) \|", section, re.M)}
    assert codes == set(errors.EXIT_CODES)
    assert AUDIT_CODES is errors.VERDICT_EXIT_CODES
    assert set(errors.VERDICT_EXIT_CODES.values()) <= set(errors.EXIT_CODES)
