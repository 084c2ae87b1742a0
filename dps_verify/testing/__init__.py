"""Testing API: check an anonymizer's (β, ε, δ)-DPS (CP Def. 3) from your own pytest suite.

- :func:`assert_dp` — exact check (exhaustive small datasets + Hypothesis search), raising an
  ``AssertionError`` that shows the smallest witness: D, its neighbour, the event, both
  probabilities and the implied δ.
- :func:`assert_dp_blackbox` / :func:`estimate_delta_lower` — Monte Carlo for code that can only
  be run, with Clopper–Pearson bounds and a stated false-alarm probability.
- :mod:`dps_verify.testing.strategies` (re-exported here) — Hypothesis strategies for
  neighbouring datasets, parameters and mechanisms.
- the pytest plugin :mod:`dps_verify.testing.plugin` (fixture ``dp_check``, options
  ``--dps-profile``, ``--dps-max-examples``, ``--dps-max-size``).
"""

from dps_verify.testing import strategies
from dps_verify.testing.blackbox import (
    BlackBoxReport,
    assert_dp_blackbox,
    clopper_pearson,
    estimate_delta_lower,
)
from dps_verify.testing.checks import (
    LawCache,
    Witness,
    assert_dp,
    find_witness,
    max_delta,
    pair_witness,
)
from dps_verify.testing.strategies import *  # noqa: F403

__all__ = [
    "BlackBoxReport",
    "LawCache",
    "Witness",
    "assert_dp",
    "assert_dp_blackbox",
    "clopper_pearson",
    "estimate_delta_lower",
    "find_witness",
    "max_delta",
    "pair_witness",
    "strategies",
    *strategies.__all__,
]
