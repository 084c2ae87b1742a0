"""FAULT: a ValueError raised by the user's code (the largest value of an empty sample).

It must be reported as an error of the audited code (exit 4), not as bad usage (exit 2)."""


def anonymize(sample):
    return max(sample) >= 2  # ValueError: max() arg is an empty sequence, when nothing is sampled
