"""pytest plugin (entry point ``pytest11``: ``dps_verify``) for testing anonymizers.

pytest imports this module in every run of every environment where dps_verify is installed, so
it imports nothing heavy: no Hypothesis, numpy, mpmath or exact engine until a test asks for them
(``tests/test_testing_plugin.py`` checks it; ``benchmarks/bench_plugin_startup.py`` measures
pytest's start-up with and without it).

- Hypothesis profiles ``dps-ci`` / ``dps-deep`` (:mod:`dps_verify.testing.profiles`) are
  registered when Hypothesis is imported (this package's ``hypothesis`` entry point), and here
  in ``pytest_configure`` if Hypothesis is already loaded; nothing is loaded unless asked, so a
  user's own Hypothesis settings are untouched.
- Options: ``--dps-profile NAME`` loads a profile (``ci``/``deep`` are accepted as aliases of
  ``dps-ci``/``dps-deep``); ``--dps-max-examples N`` overrides its example budget (both import
  Hypothesis, since they configure it); ``--dps-max-size N`` sets the exhaustive dataset size of
  :func:`assert_dp`.
- Fixture ``dp_check``: :func:`dps_verify.testing.assert_dp` with those options applied, imported
  when the fixture is first used, so a user's test is three lines::

      def test_my_anonymizer(dp_check):
          dp_check(MyAnonymizer(k=5), beta=0.1, epsilon=1.0, delta=0.02, domain=DOMAIN)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from dps_verify.testing.profiles import (
    ALIASES,
    CI_MAX_EXAMPLES,
    DEEP_MAX_EXAMPLES,
    PROFILES,
    load_default_profile,
    profile_name,
    register_profiles,
)

__all__ = [
    "ALIASES",
    "CI_MAX_EXAMPLES",
    "DEEP_MAX_EXAMPLES",
    "PROFILES",
    "dp_check",
    "load_default_profile",
    "profile_name",
    "register_profiles",
]


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dps_verify", "dps_verify: (beta, epsilon, delta)-DPS checks")
    group.addoption(
        "--dps-profile",
        default=None,
        help="Hypothesis profile to load: dps-ci (derandomized, bounded) or dps-deep "
        "(aliases: ci, deep)",
    )
    group.addoption(
        "--dps-max-examples",
        type=int,
        default=None,
        help="override the Hypothesis example budget (per property / per dp_check search)",
    )
    group.addoption(
        "--dps-max-size",
        type=int,
        default=None,
        help="largest dataset size that dp_check enumerates exhaustively (default 4)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "dps: a (beta, epsilon, delta)-DPS property")
    name = config.getoption("--dps-profile", default=None)
    budget = config.getoption("--dps-max-examples", default=None)
    if name is None and budget is None:
        if "hypothesis" in sys.modules:  # already paid for: make the profiles available
            register_profiles()
        return
    from hypothesis import settings  # the user asked to configure Hypothesis

    register_profiles()
    if name is not None:
        settings.load_profile(profile_name(name))
    if budget is not None:
        settings.register_profile("dps-cli", parent=settings.default, max_examples=budget)
        settings.load_profile("dps-cli")


def pytest_report_header(config: pytest.Config) -> str | None:
    hypothesis = sys.modules.get("hypothesis")
    if hypothesis is None:  # not loaded: say nothing rather than import it for a header
        return None
    # Hypothesis loads its "default" profile at import, so settings.default is never None here
    return f"dps_verify: hypothesis max_examples={hypothesis.settings.default.max_examples}"


@pytest.fixture
def dp_check(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``dp_check(anonymizer, *, beta, epsilon, delta, domain, definition="hockey-stick", ...)``:
    :func:`dps_verify.testing.assert_dp` with the command-line budget applied."""
    from dps_verify.testing.checks import assert_dp

    size = request.config.getoption("--dps-max-size", default=None)

    def check(anonymizer: Any, **kwargs: Any) -> None:
        if size is not None:
            kwargs.setdefault("max_size", size)
        assert_dp(anonymizer, **kwargs)

    return check
