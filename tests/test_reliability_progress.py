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
