"""FAULT: publishes nothing on samples of fewer than 3 records, but tags larger ones with
``random.random()``, so it is not a function of its sample (it was neither wrapped with
``exact.randomized`` nor declared a black box ``(sample, rng)``).

A check of the first sample alone would miss it; dps-verify re-runs a few samples of each size
and reports exit 4."""

import random


def anonymize(sample):
    if len(sample) < 3:
        return "no release"
    return ("no release", random.random())
