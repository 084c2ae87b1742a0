"""What the repository-root conftest.py sets up for every test session."""

from __future__ import annotations

import os
import sys

import pytest


def _rewritten(module_name: str) -> bool:
    return type(sys.modules[module_name].__loader__).__name__ == "AssertionRewritingHook"


def test_hypothesis_is_imported_without_assert_rewriting_and_tests_still_are(request):
    """Hypothesis' modules are loaded from their bytecode (root conftest NOT_REWRITTEN); conftests
    are rewritten; a test module is rewritten when named on the command line (or with
    DPS_TEST_REWRITE_ALL=1), not in a run of whole folders.  Run both ways, this module is the
    control that the probe sees rewriting: ``pytest tests/test_session_setup.py`` (rewritten)
    and ``pytest tests -k session_setup`` (not)."""
    if request.config.getoption("assertmode") != "rewrite":
        pytest.skip("assert rewriting is off in this session (--assert=plain)")
    import hypothesis.core  # noqa: F401 - the module whose loader is read

    named = request.session.isinitpath(request.path)
    assert _rewritten(__name__) == (named or bool(os.environ.get("DPS_TEST_REWRITE_ALL")))
    assert _rewritten("tests.conftest")
    assert not _rewritten("hypothesis.core")


def test_dps_verify_modules_are_imported_without_assert_rewriting_but_its_plugin_is(request):
    """dps_verify's modules imported by the session (root conftest NOT_REWRITTEN) are compiled
    as usual; its pytest plugin, loaded by its entry point before any conftest, is rewritten as
    pytest does for every plugin (the control that the probe sees rewriting)."""
    if request.config.getoption("assertmode") != "rewrite":
        pytest.skip("assert rewriting is off in this session (--assert=plain)")
    if not request.config.pluginmanager.has_plugin("dps_verify"):
        pytest.skip("dps_verify's pytest plugin is not loaded in this session (-p no:dps_verify)")
    import dps_verify.engine.calls  # noqa: F401 - a module the plugin does not import
    import dps_verify.testing.checks  # noqa: F401 - the module behind assert_dp

    assert _rewritten("dps_verify.testing.plugin")
    assert not _rewritten("dps_verify.engine.calls")
    assert not _rewritten("dps_verify.testing.checks")


def test_automatic_garbage_collection_is_back_on_after_collection():
    """The root conftest pauses Python's automatic collections only while the session imports
    its modules; the tests run with them on (unless DPS_TEST_NO_GC_FREEZE left them alone)."""
    import gc

    assert gc.isenabled()
