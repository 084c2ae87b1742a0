"""Planning a release with "sample, then k-anonymize" (CP Thm 5, CP Thm 6 / App. A.3).

One module per job: :mod:`.grid` (the β values), :mod:`.arx` (ARX's rule, the project's one copy),
:mod:`.frontier` (smallest k per measure, certified), :mod:`.report` / :mod:`.plot` (JSON,
table, figure), :mod:`.outputs` (atomic writes that never overwrite what dps-verify did not
write), :mod:`.planner` (:func:`plan`, also callable as ``dps_verify.plan(...)``).
"""

import sys as _sys
import types as _types
from typing import Any as _Any

from dps_verify.plan.arx import ArxChoice, arx_beta, arx_choice, arx_k_at
from dps_verify.plan.frontier import MEASURES, Frontier, FrontierRow, MinimalK, frontier
from dps_verify.plan.planner import Plan, plan


class _CallablePackage(_types.ModuleType):
    """Lets ``dps_verify.plan(...)`` (the curated top-level API) call :func:`plan`."""

    def __call__(self, *args: _Any, **kwargs: _Any) -> Plan:
        return plan(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallablePackage

__all__ = ["MEASURES", "ArxChoice", "Frontier", "FrontierRow", "MinimalK", "Plan", "arx_beta",
           "arx_choice", "arx_k_at", "frontier", "plan"]
