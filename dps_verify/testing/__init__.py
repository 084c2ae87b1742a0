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

Every name loads on first use (PEP 562): the pytest plugin lives in this package and is imported
in every pytest run of an environment where dps_verify is installed, so importing the package
must not load Hypothesis, numpy or the exact engines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dps_verify.core.lazy import lazy_attributes

_CHECKS = "dps_verify.testing.checks"
_BLACKBOX = "dps_verify.testing.blackbox"
_STRATEGIES = "dps_verify.testing.strategies"

#: The names :mod:`dps_verify.testing.strategies` exports (its ``__all__``; a test keeps the two
#: equal), re-exported here without importing Hypothesis before they are used.
STRATEGY_NAMES: tuple[str, ...] = (
    "RELATIONS", "SHAPES", "AdditiveScores", "Kernel", "Recoding", "TableMechanism",
    "WEIGHT_BASES", "all_datasets", "all_pairs", "betas", "canonical", "leak_shapes", "datasets",
    "domains", "epsilon1_upper", "epsilon_safe_anonymizers", "epsilons", "finite_mechanisms",
    "kernels", "ks", "mix", "mixture_weights", "mixtures", "n_near_threshold", "neighbours",
    "recodings", "regime_floor", "sdgs_params", "stochastic_matrices", "strongly_safe_anonymizers",
)

#: public name -> module defining it.
_LAZY: dict[str, str] = {
    "BlackBoxReport": _BLACKBOX,
    "assert_dp_blackbox": _BLACKBOX,
    "clopper_pearson": _BLACKBOX,
    "estimate_delta_lower": _BLACKBOX,
    "LawCache": _CHECKS,
    "Witness": _CHECKS,
    "assert_dp": _CHECKS,
    "find_witness": _CHECKS,
    "max_delta": _CHECKS,
    "pair_witness": _CHECKS,
    "strategies": _STRATEGIES,
    **{name: _STRATEGIES for name in STRATEGY_NAMES},
}

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
    *STRATEGY_NAMES,
]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load lazily
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


#: PEP 562: each name above is imported from its module on first access.
__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
