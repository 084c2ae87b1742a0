"""FAULT: an exact randomized anonymizer whose probabilities sum to 9/10, not 1."""

from dps_verify.exact import randomized


@randomized
def anonymize(sample):
    n = len(sample)
    return {n: 0.5, n + 1: 0.4}
