"""FAULT: raises RuntimeError on some samples (those with 3 or more records).

On every other sample it publishes nothing that depends on the data, so an auditor that skipped
the crashing samples would report a PASS on partial evidence; dps-verify reports exit 4."""


def anonymize(sample):
    if len(sample) >= 3:
        raise RuntimeError("buffer of 2 records overflowed")
    return "no release"
