"""dps_verify's Hypothesis profiles, registered under their own names so that a user's own
Hypothesis settings are untouched.

- ``dps-ci``: derandomized, :data:`CI_MAX_EXAMPLES` examples, no deadline, no example database
  (the default of this project's test runs; repeatable on 2 cores);
- ``dps-deep``: random, :data:`DEEP_MAX_EXAMPLES` examples, no deadline (long runs).

``ci``/``deep`` are accepted as aliases.  The profiles are registered when Hypothesis is first
imported (the ``hypothesis`` entry point of this package calls :func:`register_profiles`), and
again by the pytest plugin and :func:`load_default_profile`; registering is idempotent.  This
module imports nothing at import time: Hypothesis is imported inside the functions.
"""

from __future__ import annotations

import os

PROFILES = ("dps-ci", "dps-deep")
ALIASES = {"ci": "dps-ci", "deep": "dps-deep"}
CI_MAX_EXAMPLES = 40
DEEP_MAX_EXAMPLES = 2000


def register_profiles() -> None:
    """Register ``dps-ci`` and ``dps-deep`` with Hypothesis.  Idempotent."""
    from hypothesis import HealthCheck, settings

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
    from hypothesis import settings

    register_profiles()
    settings.load_profile(profile_name(os.environ.get("HYPOTHESIS_PROFILE", "dps-ci")))
