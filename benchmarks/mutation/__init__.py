"""Mutation testing of the certified core (``python -m benchmarks.mutation``): single-site
mutants of the modules whose numbers and verdicts the project certifies, each run against the
tests that guard it, with a report of every survivor and its judgement."""
