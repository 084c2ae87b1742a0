"""Shared by both test folders (tests/ and properties/): the ``deep`` marker, and the
``deep_profile`` fixture (a test's full-size case under the deep profile, a smaller one by default).

Tests marked ``deep`` (slow exhaustive cases) run only under the deep profile
(``HYPOTHESIS_PROFILE=deep`` or ``--dps-profile deep``); the default ``ci`` run skips them and
says how to run them.  It lives here, at the repository root, rather than in the dps_verify
pytest plugin, so that installing dps_verify never changes what a user's own ``deep`` marker means.
"""

from __future__ import annotations

import os
from typing import Any

import pytest


class _DeepProfileOnly:
    """Tests marked ``deep`` (slow exhaustive cases) run only under the deep profile
    (``HYPOTHESIS_PROFILE=deep`` or ``--dps-profile deep``); the default ``ci`` run skips
    them, saying how to run them.  Registered as a plugin so that it covers tests/ and
    properties/ whichever conftest is loaded first."""

    def __init__(self, config: Any):
        from dps_verify.testing.profiles import profile_name

        name = config.getoption("--dps-profile", default=None) or os.environ.get("HYPOTHESIS_PROFILE", "dps-ci")
        self.deep = profile_name(name) == "dps-deep"

    def pytest_collection_modifyitems(self, config: Any, items: list) -> None:
        if self.deep:
            return
        import pytest

        skip = pytest.mark.skip(reason="slow case of the deep profile: runs with HYPOTHESIS_PROFILE=deep (or --dps-profile deep)")
        for item in items:
            if item.get_closest_marker("deep") is not None:
                item.add_marker(skip)


def register_deep_marker(config: Any) -> None:
    config.addinivalue_line("markers", "deep: slow exhaustive case, run only under the deep profile")
    if not config.pluginmanager.has_plugin("dps-deep-only"):
        config.pluginmanager.register(_DeepProfileOnly(config), "dps-deep-only")


def pytest_configure(config: Any) -> None:
    register_deep_marker(config)


def running_deep(config: Any) -> bool:
    """Whether this session runs the deep profile (``deep`` tests not skipped)."""
    plugin = config.pluginmanager.get_plugin("dps-deep-only")
    return bool(plugin is not None and plugin.deep)


@pytest.fixture(scope="session")
def deep_profile(request: Any) -> bool:
    """True under the deep profile: a test that runs a smaller case by default (both sides of
    each boundary kept) then runs its full-size case."""
    return running_deep(request.config)
