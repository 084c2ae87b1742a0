"""FAULT: raises KeyboardInterrupt by itself (no Ctrl-C was pressed), which a naive audit would
take for the user stopping it (exit 130); dps-verify tells a real SIGINT apart and reports exit 4."""


def anonymize(sample):
    if len(sample) >= 3:
        raise KeyboardInterrupt
    return "no release"
