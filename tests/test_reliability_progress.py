"""A long search shows a progress indicator on a terminal and stays silent otherwise."""

from __future__ import annotations

import io

from dps_verify.cli import main
from dps_verify.cli._progress import working


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_gets_a_spinner_with_elapsed_time():
    tty = _Tty()
    with working("auditing f.py", stream=tty) as prog:
        assert prog is not None
        prog.refresh()
    assert "auditing f.py" in tty.getvalue() and "0:00:0" in tty.getvalue()


def test_terminal_bar_follows_the_search():
    from dps_verify.core import progress

    tty = _Tty()
    with working("auditing f.py", stream=tty) as prog:
        progress.step("exact pairs", 3, 10)
        prog.refresh()
    assert "auditing f.py: exact pairs" in tty.getvalue() and "3/10" in tty.getvalue()
    progress.step("exact pairs", 4, 10)  # no listener any more: silent, no error


def test_audit_reports_its_progress(short_recognition):
    from dps_verify.audit import audit
    from dps_verify.core import progress

    seen: list[tuple[str, int, int]] = []
    with progress.reporting(lambda phase, done, total: seen.append((phase, done, total))):
        audit(lambda s: "x", beta="0.5", epsilon=1, delta="0.1", domain=[1, 2], max_size=4, seed=0)
    assert seen and seen[0][0] == "exact pairs" and all(0 <= d < t for _, d, t in seen)


def test_not_a_terminal_stays_silent():
    pipe = io.StringIO()
    with working("auditing f.py", stream=pipe) as prog:
        assert prog is None
    assert pipe.getvalue() == ""


def test_delta_prints_nothing_on_stderr_when_not_a_terminal(capsys):
    assert main(["delta", "--k", "5", "--beta", "0.1", "--epsilon", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "exact" in out
    assert main(["delta", "--min-k", "--beta", "0.1", "--epsilon", "1", "--delta", "1e-3"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "smallest k" in out
