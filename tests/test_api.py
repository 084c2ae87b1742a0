"""The curated top-level API (``dps_verify/__init__.py``): every name resolves, nothing heavy is
imported up front, and ``dps-verify --help`` stays cheap."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

import dps_verify

HEAVY = ("sympy", "z3", "scipy")


def _modules_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", sorted(dps_verify._LAZY))
def test_every_curated_name_resolves(name):
    assert getattr(dps_verify, name) is not None
    assert name in dps_verify.__all__ and name in dir(dps_verify)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_thing"):
        dps_verify.no_such_thing  # noqa: B018


def test_import_dps_verify_imports_nothing_heavy():
    mods = _modules_after("import dps_verify")
    assert not [m for m in mods if m.split(".")[0] in HEAVY]
    assert "dps_verify.engine" not in mods and "mpmath" not in mods


def test_help_imports_no_command_and_nothing_heavy():
    code = (
        "import contextlib, io\nfrom dps_verify.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main(['--help'])\n    except SystemExit:\n        pass"
    )
    mods = _modules_after(code)
    assert not [m for m in mods if m.split(".")[0] in HEAVY]
    assert not [m for m in mods if m.startswith("dps_verify.cli.") and m != "dps_verify.cli.__main__"]


def test_help_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "dps_verify.cli", "--help"], capture_output=True,
                         text=True, check=True)
    assert "paper" in out.stdout and "prove" in out.stdout


def test_curated_api_computes():
    """A small end-to-end use of the curated names (CP Def. 3 with the identity anonymizer)."""
    ident = lambda s: tuple(sorted(s))  # noqa: E731
    p = dps_verify.distribution(ident, ["a", "b"], Fraction(1, 2))
    q = dps_verify.distribution(ident, ["a"], Fraction(1, 2))
    assert dps_verify.delta(p, q, 0) > 0
    assert dps_verify.Definition.POINTWISE == "pointwise"
    assert dps_verify.Neighbouring.ADD_REMOVE == "add-remove"


def test_audit_is_the_package_and_callable():
    import dps_verify.audit as pkg

    assert dps_verify.audit is pkg and callable(pkg)
    assert pkg.audit.__module__ == "dps_verify.audit.core"
