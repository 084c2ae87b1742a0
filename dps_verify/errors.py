"""Public home of the exception hierarchy and exit codes (see :mod:`dps_verify.core.errors`)."""

from dps_verify.core.errors import *  # noqa: F403
from dps_verify.core.errors import __all__  # noqa: F401
