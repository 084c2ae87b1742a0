"""pytest plugin (entry point ``pytest11``: ``dps_verify``) for testing anonymizers.

- Registers the Hypothesis profiles ``dps-ci`` (derandomized, bounded, no deadline) and
  ``dps-deep`` in ``pytest_configure`` (namespaced, and nothing is loaded unless asked, so a
  user's own Hypothesis settings are untouched).
- Options: ``--dps-profile NAME`` loads a profile (``ci``/``deep`` are accepted as aliases of
  ``dps-ci``/``dps-deep``); ``--dps-max-examples N`` overrides its
  example budget; ``--dps-max-size N`` sets the exhaustive dataset size of :func:`assert_dp`.
- Fixture ``dp_check``: :func:`dps_verify.testing.assert_dp` with those options applied, so a
  user's test is three lines::

      def test_my_anonymizer(dp_check):
          dp_check(MyAnonymizer(k=5), beta=0.1, epsilon=1.0, delta=0.02, domain=DOMAIN)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, settings

PROFILES = ("dps-ci", "dps-deep")
ALIASES = {"ci": "dps-ci", "deep": "dps-deep"}
CI_MAX_EXAMPLES = 40
DEEP_MAX_EXAMPLES = 2000


def register_profiles() -> None:
    """Register ``dps-ci`` (derandomized, ``CI_MAX_EXAMPLES`` examples, no deadline, no example
    database) and ``dps-deep`` (random, ``DEEP_MAX_EXAMPLES`` examples, no deadline).
    Idempotent."""
    settings.register_profile(
        "dps-ci",
        derandomize=True,
        max_examples=CI_MAX_EXAMPLES,
        deadline=None,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    settings.register_profile(
        "dps-deep",
        max_examples=DEEP_MAX_EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def profile_name(name: str) -> str:
    """``ci``/``deep`` → ``dps-ci``/``dps-deep``; other names unchanged."""
    return ALIASES.get(name, name)


def load_default_profile() -> None:
    """Load ``$HYPOTHESIS_PROFILE`` if set, else ``dps-ci`` (what this project's conftests
    call; ``ci``/``deep`` are accepted as aliases)."""
    register_profiles()
    settings.load_profile(profile_name(os.environ.get("HYPOTHESIS_PROFILE", "dps-ci")))


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
    register_profiles()
    name = config.getoption("--dps-profile", default=None)
    budget = config.getoption("--dps-max-examples", default=None)
    if name is None and budget is None:
        return
    if name is not None:
        settings.load_profile(profile_name(name))
    if budget is not None:
        settings.register_profile("dps-cli", parent=settings.default, max_examples=budget)
        settings.load_profile("dps-cli")


def pytest_report_header(config: pytest.Config) -> str:
    # Hypothesis loads its "default" profile at import, so settings.default is never None here
    return f"dps_verify: hypothesis max_examples={cast(settings, settings.default).max_examples}"


@pytest.fixture
def dp_check(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``dp_check(anonymizer, *, beta, epsilon, delta, domain, definition="hockey-stick", ...)``:
    :func:`dps_verify.testing.assert_dp` with the command-line budget applied."""
    from dps_verify.testing import assert_dp

    size = request.config.getoption("--dps-max-size", default=None)

    def check(anonymizer: Any, **kwargs: Any) -> None:
        if size is not None:
            kwargs.setdefault("max_size", size)
        assert_dp(anonymizer, **kwargs)

    return check
