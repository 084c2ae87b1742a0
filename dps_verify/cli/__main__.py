"""``python -m dps_verify.cli``."""

import sys

from dps_verify.cli import main

sys.exit(main())
