"""Exact output distributions of "sample each record with probability β, then anonymize"."""
