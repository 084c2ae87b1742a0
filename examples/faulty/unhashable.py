"""FAULT: returns a list, which cannot be an output of a distribution (outputs must be hashable)."""


def anonymize(sample):
    return sorted(set(sample))
