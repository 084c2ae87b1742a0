"""What the repository-root conftest.py sets up for every test session."""

from __future__ import annotations

import sys

import pytest


def _rewritten(module_name: str) -> bool:
    return type(sys.modules[module_name].__loader__).__name__ == "AssertionRewritingHook"


def test_hypothesis_is_imported_without_assert_rewriting_and_tests_still_are(request):
    """Hypothesis' modules are loaded from their bytecode (root conftest NOT_REWRITTEN), while
    this test module -- the control that the probe sees rewriting -- is rewritten."""
    if request.config.getoption("assertmode") != "rewrite":
        pytest.skip("assert rewriting is off in this session (--assert=plain)")
    import hypothesis.core  # noqa: F401 - the module whose loader is read

    assert _rewritten(__name__)
    assert not _rewritten("hypothesis.core")
