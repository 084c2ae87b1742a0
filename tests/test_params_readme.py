"""README "How numbers are certified": the exact-log / edge examples are run as they are printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dps_verify.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def _section() -> str:
    text = README.read_text()
    start = text.index("## How numbers are certified")
    return text[start:text.index("\n## ", start + 1)]


def test_the_exact_log_python_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", _section(), flags=re.S)
    example = next(b for b in blocks if "ln(11)" in b)
    exec(compile(example, "README.md", "exec"), {})  # its asserts are the checks


def _console_runs() -> list[tuple[list[str], list[str]]]:
    """(argv, expected output lines) of each ``$ dps-verify delta …`` in the section's console
    blocks (the rest of the line after the command, up to the next ``$``)."""
    runs = []
    for block in re.findall(r"```console\n(.*?)```", _section(), flags=re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            cmd, *out = chunk.rstrip("\n").split("\n")
            runs.append((cmd, out))
    return runs


@pytest.mark.parametrize("cmd,out", [r for r in _console_runs() if "ln(11)" in r[0] or "edge" in r[0]])
def test_the_console_examples_print_what_the_readme_shows(cmd, out, capsys):
    import shlex

    argv = shlex.split(cmd)
    assert argv[0] == "dps-verify"
    assert main(argv[1:]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got[: len(out)] == out
