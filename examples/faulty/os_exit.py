"""FAULT: calls os._exit(0), which skips every handler and would end the process with exit 0;
dps-verify traps the call while the audited code runs and reports exit 4."""

import os


def anonymize(sample):
    if len(sample) >= 2:
        os._exit(0)
    return "no release"
