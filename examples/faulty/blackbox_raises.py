"""FAULT: a black box ``(sample, rng)`` that raises KeyError on samples containing record 3."""

TABLE = {1: "a", 2: "b"}


def anonymize(sample, rng):
    codes = [TABLE[r] for r in sample]  # KeyError: 3
    return "no release" if rng.random() < 2 or codes else "never"
