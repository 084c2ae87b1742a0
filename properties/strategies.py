"""Re-export of :mod:`dps_verify.testing.strategies` (the installed, importable home)."""

from dps_verify.testing.strategies import *  # noqa: F403
from dps_verify.testing.strategies import __all__  # noqa: F401
