"""FAULT: never returns on samples with 2 or more records (audit it with ``--timeout``).

Otherwise it publishes a constant, so skipping the slow samples would look like a PASS."""


def anonymize(sample):
    n = 0
    while len(sample) >= 2:  # spins forever
        n += 1
    return "no release"
