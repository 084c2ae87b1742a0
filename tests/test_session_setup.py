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


def test_automatic_garbage_collection_is_back_on_after_collection():
    """The root conftest pauses Python's automatic collections only while the session imports
    its modules; the tests run with them on (unless DPS_TEST_NO_GC_FREEZE left them alone)."""
    import gc

    assert gc.isenabled()
