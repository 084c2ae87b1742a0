"""Symbolic proofs of the claims of Li, Qardaji & Su (CP = ASIACCS 2012, TR = 2011).

``THEOREMS`` maps CLI ids (``dps-verify prove <id>``) to theorem modules; ``run(id)`` runs
one and returns a :class:`~proofs.core.ProofResult`, ``run_all()`` runs every module.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from dps_verify.paper.proofs.core import ProofResult, Step, Verdict, run_module

_MODULES: dict[str, str] = {
    "cp-theorem-1": "cp_theorem_1",
    "cp-theorem-2": "cp_theorem_2",
    "cp-theorem-3": "cp_theorem_3",
    "cp-proposition-4": "cp_proposition_4",
    "cp-theorem-5": "cp_theorem_5",
    "cp-theorem-6": "cp_theorem_6",
    "tr-definition-2": "tr_definition_2",
    "tr-theorem-2": "tr_theorem_2",
    "tr-theorem-3": "tr_theorem_3",
    "tr-theorem-5": "tr_theorem_5",
    "tr-theorem-6": "tr_theorem_6",
}


def _load() -> dict[str, ModuleType]:
    out: dict[str, ModuleType] = {}
    for key, mod in _MODULES.items():
        try:
            out[key] = importlib.import_module(f"{__name__}.{mod}")
        except ModuleNotFoundError as exc:  # module not written yet in this checkout
            if exc.name != f"{__name__}.{mod}":
                raise
    return out


THEOREMS: dict[str, ModuleType] = _load()


def run(theorem_id: str) -> ProofResult:
    """Run one theorem module by CLI id (``KeyError`` for an unknown id)."""
    return run_module(theorem_id, THEOREMS[theorem_id])


def run_all() -> list[ProofResult]:
    """Run every registered theorem module, in registry order."""
    return [run(t) for t in THEOREMS]


__all__ = ["THEOREMS", "ProofResult", "Step", "Verdict", "run", "run_all"]
