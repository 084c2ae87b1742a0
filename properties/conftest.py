"""Property suites for CP Thm 1–3, 5, 6, §2.2, §2.6 and §3.1.

Profiles come from the dps_verify pytest plugin: ``ci`` (default, derandomized, bounded) and
``deep``; choose with ``HYPOTHESIS_PROFILE=deep`` or ``--dps-profile deep``.  Tests marked
``deep`` run only under the deep profile (the repository-root conftest.py).
"""

from __future__ import annotations

from dps_verify.testing.plugin import load_default_profile

load_default_profile()
