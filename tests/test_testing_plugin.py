"""The pytest plugin costs nothing until used.

pytest imports the ``pytest11`` entry point ``dps_verify.testing.plugin`` in every session of
every environment where dps_verify is installed, so importing it must not load Hypothesis, numpy,
mpmath, SymPy or the exact engines.  Each check runs in a fresh interpreter (this process has
long since imported all of them; the fresh ones are forked from one that imported only pytest,
see FORKING_DRIVER) and has a negative control that shows it can fail.  The start-up time
itself is measured in ``benchmarks/bench_plugin_startup.py``, not asserted here.
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


#: The fresh interpreters of this module come from ONE interpreter that imports pytest (what
#: ``python -m pytest`` imports first) and then forks one child per run, one after the other:
#: the probes, each user pytest session (pytest's ``__main__`` run as ``python -m pytest`` runs
#: it, in the session's own directory, argv and environment) and the Hypothesis negative
#: control.  pytest loads none of HEAVY and no dps_verify module (the driver lists what it had
#: loaded before forking, asserted empty in
#: :func:`test_each_fresh_run_starts_from_an_interpreter_that_imported_only_pytest`), so what a
#: child finds in ``sys.modules`` beyond that is what its own run loaded: the same checks as in
#: a fresh interpreter per run, with pytest imported once (~0.3 s of CPU) instead of per run.
#: So every child starts with pytest and its dependencies imported: the probes cover HEAVY and
#: the dps_verify modules, not pytest-side modules (a plugin pulling in one of those would not
#: show).  The guard's negative control:
#: :func:`test_a_driver_that_imported_a_heavy_module_first_is_reported`.
FORKING_DRIVER = r"""
import json, os, runpy, sys, traceback
import pytest
HEAVY = {heavy!r}
preloaded = sorted(m for m in sys.modules
                   if m in HEAVY or m == "dps_verify" or m.startswith("dps_verify."))
codes = {{}}
for job in json.loads(sys.argv[1]):
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
                f = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(f, fd)
                os.close(f)
            os.chdir(job["cwd"])
            sys.path[0] = job["cwd"]
            for name in job["unset"]:
                os.environ.pop(name, None)
            os.environ.update(job["env"])
            if job["pytest"] is not None:  # as python -m pytest: raises SystemExit(code)
                sys.argv = ["pytest", *job["pytest"]]
                runpy.run_module("pytest", run_name="__main__", alter_sys=True)
            else:
                sys.argv = ["-c"]
                exec(compile(job["code"], "<string>", "exec"), {{"__name__": "__main__"}})
                code = 0
        except SystemExit as stop:
            if stop.code is None or isinstance(stop.code, int):
                code = stop.code or 0
            else:
                print(stop.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    codes[job["name"]] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
print(json.dumps({{"preloaded": preloaded, "codes": codes}}))
"""


def _run_forked(jobs: list[dict[str, Any]], workdir: Path,
                driver: str = FORKING_DRIVER) -> dict[str, Any]:
    """Run ``jobs`` (each: ``name``, ``cwd``, ``env`` to set, ``unset`` names, and ``pytest``
    arguments or Python ``code``) as children of one ``driver`` interpreter (FORKING_DRIVER);
    returns the modules it had loaded before forking (``preloaded``), and each job's exit
    ``code``, ``stdout`` and ``stderr``."""
    for job in jobs:
        job.setdefault("env", {})
        job.setdefault("unset", [])
        job.setdefault("pytest", None)
        job["stdout"] = str(workdir / f"{job['name']}.out")
        job["stderr"] = str(workdir / f"{job['name']}.err")
    out = subprocess.run([sys.executable, "-c", driver.format(heavy=HEAVY), json.dumps(jobs)],
                         capture_output=True, text=True, check=True, timeout=600)
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    return {"preloaded": summary["preloaded"],
            "runs": {job["name"]: {"code": summary["codes"][job["name"]],
                                   "stdout": Path(job["stdout"]).read_text(),
                                   "stderr": Path(job["stderr"]).read_text()} for job in jobs}}


def _probe_code(steps: dict[str, str], then: str = "") -> str:
    """Python code that prints, as JSON, which HEAVY modules each step of ``steps`` adds to
    ``sys.modules``, the steps run in order in one interpreter (a step's list is what it loaded
    beyond the steps before it); ``then`` runs after the steps and may add entries of its own
    to ``added``."""
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
    return probe


#: Run after the probes, in their interpreter, where the strategies have imported Hypothesis and
#: no dps_verify code has registered a profile (only the pytest plugin's hooks and
#: ``load_default_profile`` do, and neither runs there): a ``dps-ci`` profile Hypothesis knows
#: there can only have been registered by the ``hypothesis`` entry point.
PROFILE_PROBE = ("from hypothesis import settings\n"
                 "added['dps-ci max_examples'] = settings.get_profile('dps-ci').max_examples\n")

#: The negative control of PROFILE_PROBE: with Hypothesis' plugins switched off, the profile is
#: unknown.
PROFILE_UNKNOWN_WITHOUT_PLUGINS = ("from hypothesis import settings\n"
                                   "print(settings.get_profile('dps-ci').max_examples)\n")


#: The user sessions below run with ``--assert=plain``: pytest assert-rewrites every module of
#: every installed distribution that provides a ``pytest11`` plugin, Hypothesis' ~60 included,
#: and where bytecode is not written (``PYTHONDONTWRITEBYTECODE``) each session parsed and
#: rewrote them from source again (~1.5 s of CPU per session that imports Hypothesis).  A plain
#: ``assert`` in a user's test still fails; how failures are displayed is not what is tested.
USER_SESSION_ARGS = ("-q", "-p", "no:cacheprovider", "--assert=plain")


USER_TEST_RECORDS_HEAVY = """
    import json, os, sys
    HEAVY = {heavy!r}

    def test_record_heavy_modules(request):
        with open(os.environ["DPS_HEAVY_OUT"], "w") as f:
            json.dump({{"plugin": request.config.pluginmanager.has_plugin("dps_verify"),
                        "heavy": [m for m in HEAVY if m in sys.modules]}}, f)
"""


#: The user sessions: name -> extra pytest arguments.  Hypothesis' own pytest plugin is switched
#: off in them: it imports Hypothesis in its end-of-session summary, after the record is taken
#: (1.5 s of CPU per session, telling nothing about this plugin).  The session without the
#: plugin is the baseline of both session checks.
SESSIONS = {
    "without plugin": ("-p", "no:dps_verify"),
    "with plugin": (),
    "with profile": ("--dps-profile", "ci"),
}


def _session_job(name: str, directory: Path, args: tuple[str, ...]) -> dict[str, Any]:
    """A user's pytest session over USER_TEST_RECORDS_HEAVY in ``directory`` (its own rootdir,
    PYTEST_ADDOPTS unset), recording the HEAVY modules loaded when the test runs."""
    directory.mkdir()
    (directory / "test_user.py").write_text(textwrap.dedent(USER_TEST_RECORDS_HEAVY.format(heavy=HEAVY)))
    return {"name": name, "cwd": str(directory), "unset": ["PYTEST_ADDOPTS"],
            "env": {"DPS_HEAVY_OUT": str(directory / "heavy.json")},
            "pytest": [*USER_SESSION_ARGS, "--rootdir", str(directory), "-p", "no:hypothesispytest",
                       *args, str(directory / "test_user.py")]}


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every fresh run of the module, made once and shared (:func:`_run_forked`): the probes
    (``probes``: the HEAVY modules each of PROBES loads, and the ``dps-ci`` profile's
    ``max_examples`` after them, PROFILE_PROBE), the negative control of the profile
    (``no plugins``), and each user session of SESSIONS (``sessions``: its record)."""
    base = tmp_path_factory.mktemp("fresh")
    jobs: list[dict[str, Any]] = [
        {"name": "probes", "cwd": os.getcwd(), "code": _probe_code(PROBES, then=PROFILE_PROBE)},
        {"name": "no plugins", "cwd": os.getcwd(), "env": {"HYPOTHESIS_NO_PLUGINS": "1"},
         "code": PROFILE_UNKNOWN_WITHOUT_PLUGINS},
    ]
    jobs += [_session_job(name, base / f"session-{i}", args) for i, (name, args) in enumerate(SESSIONS.items())]
    res = _run_forked(jobs, base)
    runs = res["runs"]
    assert runs["probes"]["code"] == 0, runs["probes"]["stdout"] + runs["probes"]["stderr"]
    sessions = {}
    for i, name in enumerate(SESSIONS):
        run = runs[name]
        assert run["code"] == 0, run["stdout"] + run["stderr"]
        sessions[name] = json.loads((base / f"session-{i}" / "heavy.json").read_text())
    return {"preloaded": res["preloaded"],
            "probes": json.loads(runs["probes"]["stdout"].strip().splitlines()[-1]),
            "no plugins": runs["no plugins"], "sessions": sessions}


@pytest.fixture(scope="module")
def probed(fresh: dict[str, Any]) -> dict[str, Any]:
    return fresh["probes"]


def test_each_fresh_run_starts_from_an_interpreter_that_imported_only_pytest(fresh):
    """The interpreter every fresh run is forked from had loaded none of HEAVY and no dps_verify
    module: each run's findings are its own.  (It had loaded pytest and its dependencies, so
    the children start with those: the probes watch HEAVY and dps_verify, not pytest-side
    modules.)"""
    assert fresh["preloaded"] == []


def test_a_driver_that_imported_a_heavy_module_first_is_reported(tmp_path):
    """Negative control of the check above: a driver that imports mpmath (one of HEAVY) before
    forking lists it in ``preloaded``; a probe forked from it would blame its first step for
    mpmath (a step that imports nothing heavy), so findings would not be the run's own."""
    driver = FORKING_DRIVER.replace("import pytest\n", "import pytest\nimport mpmath\n", 1)
    assert driver != FORKING_DRIVER
    job = {"name": "probe", "cwd": os.getcwd(), "code": _probe_code({"json": "import json"})}
    res = _run_forked([job], tmp_path, driver)
    assert res["runs"]["probe"]["code"] == 0, res["runs"]["probe"]["stderr"]
    assert res["preloaded"] == ["mpmath"]
    assert json.loads(res["runs"]["probe"]["stdout"].strip().splitlines()[-1]) == {"json": ["mpmath"]}


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


def test_plugin_is_the_pytest11_entry_point_and_profiles_register_with_hypothesis(fresh, probed):
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
    off = fresh["no plugins"]
    assert off["code"] != 0 and "dps-ci" in off["stderr"]


def test_a_pytest_session_with_the_plugin_loads_nothing_heavy(fresh):
    """The heavy modules in a session with the plugin are among those of a session without it
    (other installed plugins may load some; this one adds none)."""
    with_plugin, without = fresh["sessions"]["with plugin"], fresh["sessions"]["without plugin"]
    assert with_plugin["plugin"] and not without["plugin"]
    assert set(with_plugin["heavy"]) <= set(without["heavy"])


def test_a_pytest_session_with_dps_profile_loads_hypothesis(fresh):
    """Negative control of the session check: asking for a profile does load Hypothesis, and the
    comparison above sees it."""
    with_profile, without = fresh["sessions"]["with profile"], fresh["sessions"]["without plugin"]
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
