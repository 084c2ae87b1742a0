"""FAULT: draws its own randomness on every call, so it is not a function of its sample.

(Wrap an exact law with ``dps_verify.exact.randomized``, or declare a black box ``(sample, rng)``.)"""

import random

_rng = random.Random()


def anonymize(sample):
    return len(sample) + _rng.randint(0, 1000)
