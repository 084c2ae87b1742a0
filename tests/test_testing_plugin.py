"""The pytest plugin costs nothing until used.

pytest imports the ``pytest11`` entry point ``dps_verify.testing.plugin`` in every session of
every environment where dps_verify is installed, so importing it must not load Hypothesis, numpy,
mpmath, SymPy or the exact engines.  Each check runs in a fresh interpreter (this process has
long since imported all of them) and has a negative control that shows it can fail.  The
start-up time itself is measured in ``benchmarks/bench_plugin_startup.py``, not asserted here.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["pytester"]

#: Modules the plugin must not pull in (each costs tens to hundreds of milliseconds).
HEAVY = ("hypothesis", "numpy", "mpmath", "sympy", "scipy", "dps_verify.worstcase.sdgs",
         "dps_verify.verdict.exact_search", "dps_verify.engine.distribution")


#: What each probe imports, in this order, in one fresh interpreter: the two imports that must
#: load nothing come first; the two that must load something (the negative controls) follow.
PROBES = {
    "plugin": "import dps_verify.testing.plugin",
    "testing package": "import dps_verify.testing, dps_verify",
    "exact check": "import dps_verify.testing.checks",
    "strategies": "from dps_verify.testing import strategies",
}


def _loaded_after_each(steps: dict[str, str], env: dict[str, str] | None = None,
                       then: str = "") -> dict[str, Any]:
    """Which HEAVY modules each step of ``steps`` adds to ``sys.modules``, the steps run in
    order in one fresh interpreter (a step's list is what it loaded beyond the steps before it);
    ``then`` runs after the steps and may add entries of its own to ``added``."""
    probe = "import json, sys\nseen, added = set(), {}\n"
    for name, code in steps.items():
        probe += textwrap.dedent(f"""
            {code}
            now = {{m for m in {HEAVY!r} if m in sys.modules}}
            added[{name!r}] = sorted(now - seen)
            seen |= now
        """)
    probe += then
    probe += "print(json.dumps(added))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, **(env or {})})
    return json.loads(out.stdout.strip().splitlines()[-1])


#: Run after the probes, in their interpreter, where the strategies have imported Hypothesis and
#: no dps_verify code has registered a profile (only the pytest plugin's hooks and
#: ``load_default_profile`` do, and neither runs there): a ``dps-ci`` profile Hypothesis knows
#: there can only have been registered by the ``hypothesis`` entry point.
PROFILE_PROBE = ("from hypothesis import settings\n"
                 "added['dps-ci max_examples'] = settings.get_profile('dps-ci').max_examples\n")


@pytest.fixture(scope="module")
def probed() -> dict[str, Any]:
    """The HEAVY modules each of PROBES loads, and the ``dps-ci`` profile's ``max_examples``
    after them (PROFILE_PROBE): one interpreter for all, shared."""
    return _loaded_after_each(PROBES, then=PROFILE_PROBE)


def test_importing_the_plugin_loads_nothing_heavy(probed):
    assert probed["plugin"] == []


def test_importing_the_testing_package_loads_nothing_heavy(probed):
    assert probed["testing package"] == []


def test_the_probe_sees_heavy_imports(probed):
    """Negative control: the same probe reports what the exact check and the strategies really
    import (each beyond what the imports before it loaded)."""
    assert "mpmath" in probed["exact check"] and "dps_verify.engine.distribution" in probed["exact check"]
    assert "hypothesis" in probed["strategies"]


def test_testing_names_load_on_first_use():
    import dps_verify.testing as T
    from dps_verify.testing import strategies

    assert tuple(strategies.__all__) == T.STRATEGY_NAMES  # the static copy has not drifted
    for name in T.__all__:
        assert getattr(T, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        T.nope  # noqa: B018


def test_plugin_is_the_pytest11_entry_point_and_profiles_register_with_hypothesis(probed):
    """The installed metadata points pytest at the plugin and Hypothesis at the profile hook,
    and a fresh interpreter that imports Hypothesis knows the profile (the probes' one, where
    nothing else registers it: PROFILE_PROBE)."""
    eps = importlib.metadata.entry_points()
    pytest11 = {e.name: e.value for e in eps.select(group="pytest11")}
    assert pytest11.get("dps_verify") == "dps_verify.testing.plugin"
    hyp = {e.name: e.value for e in eps.select(group="hypothesis")}
    assert hyp.get("dps_verify") == "dps_verify.testing.profiles:register_profiles"
    from dps_verify.testing.profiles import CI_MAX_EXAMPLES

    assert probed["dps-ci max_examples"] == CI_MAX_EXAMPLES
    # negative control: with Hypothesis' plugins switched off, the profile is unknown
    code = ("from hypothesis import settings\n"
            "print(settings.get_profile('dps-ci').max_examples)\n")
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "HYPOTHESIS_NO_PLUGINS": "1"})
    assert off.returncode != 0 and "dps-ci" in off.stderr


#: The user sessions below run with ``--assert=plain``: pytest assert-rewrites every module of
#: every installed distribution that provides a ``pytest11`` plugin, Hypothesis' ~60 included,
#: and where bytecode is not written (``PYTHONDONTWRITEBYTECODE``) each session parsed and
#: rewrote them from source again (~1.5 s of CPU per session that imports Hypothesis).  A plain
#: ``assert`` in a user's test still fails; how failures are displayed is not what is tested.
USER_SESSION_ARGS = ("-q", "-p", "no:cacheprovider", "--assert=plain")


def _pytest_in(tmp_path: Path, test_source: str, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_user.py").write_text(textwrap.dedent(test_source))
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *USER_SESSION_ARGS, "--rootdir", str(tmp_path),
         *args, str(tmp_path / "test_user.py")],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)


USER_TEST_RECORDS_HEAVY = """
    import json, os, sys
    HEAVY = {heavy!r}

    def test_record_heavy_modules(request):
        with open(os.environ["DPS_HEAVY_OUT"], "w") as f:
            json.dump({{"plugin": request.config.pluginmanager.has_plugin("dps_verify"),
                        "heavy": [m for m in HEAVY if m in sys.modules]}}, f)
"""


def _heavy_in_session(tmp_path: Path, *args: str) -> dict:
    """The HEAVY modules loaded when a user's test runs.  Hypothesis' own pytest plugin is
    switched off in these sessions: it imports Hypothesis in its end-of-session summary, after
    the record is taken (1.5 s of CPU per session, telling nothing about this plugin)."""
    out = tmp_path / "heavy.json"
    os.environ["DPS_HEAVY_OUT"] = str(out)
    try:
        res = _pytest_in(tmp_path, USER_TEST_RECORDS_HEAVY.format(heavy=HEAVY), "-p",
                         "no:hypothesispytest", *args)
    finally:
        del os.environ["DPS_HEAVY_OUT"]
    assert res.returncode == 0, res.stdout + res.stderr
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def heavy_without_plugin(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The baseline of both session checks: a session with the plugin switched off (one
    pytest subprocess, shared)."""
    return _heavy_in_session(tmp_path_factory.mktemp("without-plugin"), "-p", "no:dps_verify")


def test_a_pytest_session_with_the_plugin_loads_nothing_heavy(tmp_path, heavy_without_plugin):
    """The heavy modules in a session with the plugin are among those of a session without it
    (other installed plugins may load some; this one adds none)."""
    with_plugin = _heavy_in_session(tmp_path)
    without = heavy_without_plugin
    assert with_plugin["plugin"] and not without["plugin"]
    assert set(with_plugin["heavy"]) <= set(without["heavy"])


def test_a_pytest_session_with_dps_profile_loads_hypothesis(tmp_path, heavy_without_plugin):
    """Negative control of the session check: asking for a profile does load Hypothesis, and the
    comparison above sees it."""
    with_profile = _heavy_in_session(tmp_path, "--dps-profile", "ci")
    without = heavy_without_plugin
    assert "hypothesis" in set(with_profile["heavy"]) - set(without["heavy"])


def _pytest_in_this_process(pytester: pytest.Pytester, sources: dict[str, str],
                            *args: str) -> pytest.RunResult:
    """A user's pytest session in this process (pytester; its modules are dropped again after):
    pytest loads the installed plugin from its ``pytest11`` entry point as in a fresh session,
    without a fresh interpreter's ~2 s of CPU importing pytest, Hypothesis, numpy and dps_verify
    again.  The Hypothesis profile the session's options load is put back after.  (Whether the
    plugin imports anything heavy needs a fresh interpreter: the sessions above.)"""
    from hypothesis import settings

    pytester.makepyfile(**{name: textwrap.dedent(src) for name, src in sources.items()})
    before = settings.get_current_profile_name()
    try:
        return pytester.runpytest_inprocess(*USER_SESSION_ARGS, *args)
    finally:
        settings.load_profile(before)


def test_dps_profile_option_and_dp_check_fixture_work(pytester):
    source = """
        from hypothesis import settings
        from dps_verify.mechanisms import StronglySafeKAnonymizer

        def test_profile_loaded():
            assert settings.default.max_examples == 7
            assert settings.get_profile("dps-deep").deadline is None

        def test_dp_check(dp_check):
            dp_check(StronglySafeKAnonymizer(lambda r: r, 2), beta=0.5, epsilon=1.0, delta=1.0,
                     domain=[0, 1])
    """
    res = _pytest_in_this_process(pytester, {"test_user": source}, "--dps-profile", "deep",
                                  "--dps-max-examples", "7", "--dps-max-size", "2")
    assert res.ret == 0, res.stdout.str() + res.stderr.str()
    assert "2 passed" in res.stdout.str()
