"""FAULT: calls sys.exit(0) on samples of 2+ records, which would end a naive audit with exit 0
(PASS by the exit-code table) and no output; dps-verify reports exit 4 naming the call."""

import sys


def anonymize(sample):
    if len(sample) >= 2:
        sys.exit(0)
    return "no release"
