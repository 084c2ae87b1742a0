"""No user file is overwritten: ``paper --json``, ``paper --markdown`` and ``audit --json`` refuse
an existing file that dps-verify did not write (exit 2, naming ``--force``) before any work, and
replace one it wrote (or any, with ``--force``) atomically.  An unwritable path is found before
the work starts, not after the verdict."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dps_verify.cli import main
from dps_verify.core import fsio
from dps_verify.paper import claims as claims_pkg
from dps_verify.paper import figures
from dps_verify.paper.claims import Claim, Result
from dps_verify.paper.claims.base import CONFIRMED

RAN: list[str] = []


def _check() -> Result:
    RAN.append("ran")
    return Result(CONFIRMED, "1 = 1")


FAKE = [Claim("test.plain", "CP §1", "a plain claim", "none", CONFIRMED, _check)]
FAULTY = Path(__file__).resolve().parent.parent / "examples" / "faulty"
AUDIT = ["audit", f"{FAULTY}/raises_on_some.py:anonymize", "--beta", "0.5", "--epsilon", "1",
         "--delta", "0.1", "--domain", str(FAULTY / "domain.json")]


@pytest.fixture(autouse=True)
def fake_claims(monkeypatch):
    RAN.clear()
    monkeypatch.setattr(claims_pkg, "REGISTRY", list(FAKE))
    monkeypatch.setattr(figures, "draw_with_notes", lambda name, outdir: (_png(outdir, name), []))


def _png(outdir: Path, name: str) -> Path:
    p = Path(outdir) / f"{name}.png"
    p.write_bytes(b"\x89PNG fake")
    return p


def _leaky_audit_target(tmp_path: Path) -> list[str]:
    """An anonymizer that publishes the sample's size: its audit FAILs in milliseconds (a PASS
    runs the recognition phase, ~0.5 s of CPU; the report file is written the same either way,
    and tests/test_reliability_outputs.py writes a PASS report)."""
    src = tmp_path / "leaky.py"
    src.write_text("def anonymize(sample):\n    return len(sample)\n")
    return ["audit", f"{src}:anonymize", *AUDIT[2:]]


@pytest.mark.parametrize("option", ["--json", "--markdown"])
def test_paper_refuses_a_users_file_before_running(option, tmp_path, capsys):
    mine = tmp_path / ("mine.json" if option == "--json" else "mine.md")
    mine.write_text("my own notes\n")
    assert main(["paper", option, str(mine)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refusing to overwrite" in err and "--force" in err and option in err
    assert mine.read_text() == "my own notes\n"
    assert RAN == []  # refused before any claim ran


@pytest.mark.parametrize("option", ["--json", "--markdown"])
def test_paper_replaces_its_own_file_and_force_replaces_any(option, tmp_path, capsys):
    out = tmp_path / ("r.json" if option == "--json" else "r.md")
    assert main(["paper", option, str(out)]) == 0
    assert fsio.written_by_us(out)
    assert main(["paper", option, str(out)]) == 0  # ours: replaced without --force
    out.write_text("user edit\n")
    assert main(["paper", option, str(out)]) == 2
    assert main(["paper", option, str(out), "--force"]) == 0
    assert fsio.written_by_us(out)
    capsys.readouterr()


def test_paper_json_is_tagged_and_still_the_report(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["paper", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert next(iter(data)) == "generator" and data["generator"] == "dps-verify"
    assert data["summary"]["claims"] == 1
    capsys.readouterr()


def test_audit_json_refuses_a_users_file_before_importing(tmp_path, capsys):
    mine = tmp_path / "audit_mine.json"
    mine.write_text('{"mine": 1}')
    assert main([*AUDIT, "--json", str(mine)]) == 2  # exit 2, not the 4 of the faulty anonymizer
    err = capsys.readouterr().err
    assert "refusing to overwrite" in err and "--force" in err
    assert mine.read_text() == '{"mine": 1}'


def test_audit_json_written_then_replaced(tmp_path, capsys):
    out = tmp_path / "a.json"
    argv = [*_leaky_audit_target(tmp_path), "--json", str(out)]
    assert main(argv) == 1
    assert json.loads(out.read_text())["verdict"] == "FAIL"
    out.write_text(out.read_text().replace('"FAIL"', '"FAIL (old run)"', 1))
    assert main(argv) == 1  # ours: replaced without --force
    assert json.loads(out.read_text())["verdict"] == "FAIL"
    out.write_text("{}")
    assert main(argv) == 2
    assert out.read_text() == "{}"
    assert main([*argv, "--force"]) == 1
    assert json.loads(out.read_text())["verdict"] == "FAIL"
    text = capsys.readouterr().out
    assert text.rstrip().splitlines()[-1].startswith("verdict: FAIL")  # 'wrote ...' comes before it


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_json_is_found_before_the_work(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert main([*AUDIT, "--json", str(ro / "a.json")]) == 2
        assert "not writable" in capsys.readouterr().err
    finally:
        ro.chmod(0o700)


def test_unwritable_json_is_found_before_the_work_any_user(tmp_path, capsys, monkeypatch):
    """The directory check runs before the audit (simulated for a root test runner)."""
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real(p, mode))
    assert main([*AUDIT, "--json", str(tmp_path / "a.json")]) == 2  # not 4: the code never ran
    assert "is not writable" in capsys.readouterr().err


def test_missing_directory_is_usage(tmp_path, capsys):
    assert main([*AUDIT, "--json", str(tmp_path / "nope" / "a.json")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_paper_summary_is_the_last_line(tmp_path, capsys):
    assert main(["paper", "--json", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "r.md")]) == 0
    lines = capsys.readouterr().out.rstrip().splitlines()
    assert lines[-1].startswith("1 claims in") and "1 as expected, 0 unexpected" in lines[-1]
    assert any(line.startswith("wrote ") for line in lines[:-1])
