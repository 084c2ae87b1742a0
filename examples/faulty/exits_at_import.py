"""FAULT: raises SystemExit(0) while the module is imported, before any anonymizer exists;
dps-verify reports exit 4 ("importing ... called sys.exit(0)"), never exit 0."""

raise SystemExit(0)


def anonymize(sample):  # never reached
    return "no release"
