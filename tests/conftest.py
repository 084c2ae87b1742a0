"""Hypothesis profiles ``ci`` (default, derandomized) and ``deep`` come from the dps_verify pytest
plugin (``dps_verify.testing.plugin``); ``HYPOTHESIS_PROFILE`` or ``--dps-profile`` pick one."""

from dps_verify.testing.plugin import load_default_profile

load_default_profile()
