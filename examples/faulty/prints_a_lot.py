"""Not a fault of the contract, but noisy: prints a line per call (and one at import), which would
flood the terminal ahead of the verdict.  dps-verify captures it: a one-line summary before the
report (--show-output prints it), the verdict line last.  The anonymizer itself is honest."""

print("anonymizer module loaded")


def anonymize(sample):
    print(f"anonymizing {len(sample)} records")
    return "no release"
