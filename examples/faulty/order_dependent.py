"""FAULT: takes a shortcut when the records arrive already sorted, and its output shows which
path ran, so the output depends on the order of the records, not only on the multiset that was
sampled (CP §2.1: datasets and samples are multisets).

dps-verify hands samples over in one canonical (sorted) order, where this output never changes:
without a check it would get a PASS.  It re-runs a few samples of each size with their records
reversed and rotated, and reports exit 4 instead."""


def anonymize(sample):
    arrived_sorted = all(a <= b for a, b in zip(sample, sample[1:]))
    return "fast path" if arrived_sorted else "slow path"
