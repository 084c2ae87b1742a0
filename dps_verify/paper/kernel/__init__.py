"""The proof kernel and the registry of theorem encodings (Li, Qardaji & Su; CP = ASIACCS 2012,
TR = 2011).

The kernel (:mod:`.core`, :mod:`.smt`, :mod:`.finite`, :mod:`.export`, :mod:`.table`) checks proof
chains; the encodings themselves live in the repository's top-level ``proofs/`` folder, one module
per theorem, installed as the package :mod:`dps_verify_proofs`.  ``THEOREMS`` maps CLI ids
(``dps-verify prove <id>``) to those modules; ``run(id)`` runs one and returns a
:class:`~dps_verify.paper.kernel.core.ProofResult`, ``run_all()`` runs every module.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from dps_verify.paper.kernel.core import ProofResult, Step, Verdict
from dps_verify.paper.kernel.runner import run_module

PROOFS_PACKAGE = "dps_verify_proofs"  # the top-level proofs/ folder, as installed

_MODULES: dict[str, str] = {
    "cp-theorem-1": "cp_theorem_1",
    "cp-theorem-2": "cp_theorem_2",
    "cp-theorem-3": "cp_theorem_3",
    "cp-proposition-4": "cp_proposition_4",
    "cp-theorem-5": "cp_theorem_5",
    "cp-theorem-6": "cp_theorem_6",
    "cp-theorem-6-full-data": "cp_theorem_6_full_data",  # CP Thm 6 under App. A.3's reading
    "tr-definition-2": "tr_definition_2",
    "tr-theorem-2": "tr_theorem_2",
    "tr-theorem-3": "tr_theorem_3",
    "tr-theorem-5": "tr_theorem_5",
    "tr-theorem-6": "tr_theorem_6",
}


#: Lemmas of the project's own tools (not numbered items of the paper), checked by the same
#: kernel and run with the theorems (``dps-verify prove <id>``).
_PROJECT_MODULES: dict[str, str] = {
    "plan-utility-sensitivity": "plan_utility_sensitivity",  # dps-verify plan --select-with
}


def _load() -> dict[str, ModuleType]:
    out: dict[str, ModuleType] = {}
    for key, mod in {**_MODULES, **_PROJECT_MODULES}.items():
        try:
            out[key] = importlib.import_module(f"{PROOFS_PACKAGE}.{mod}")
        except ModuleNotFoundError as exc:  # module not written yet in this checkout
            if exc.name != f"{PROOFS_PACKAGE}.{mod}":
                raise
    return out


_LOADED: dict[str, ModuleType] | None = None


def theorems() -> dict[str, ModuleType]:
    """The registry, loaded on first use: a theorem module imports the kernel, so loading every
    module while the kernel package itself is being imported would hand one module a partly
    initialised other (cp_theorem_6_full_data imports names of cp_theorem_6)."""
    global _LOADED
    if _LOADED is None:
        _LOADED = _load()
    return _LOADED


if TYPE_CHECKING:  # for the type checker; at run time __getattr__ loads it
    THEOREMS: dict[str, ModuleType]


def __getattr__(name: str) -> Any:
    if name == "THEOREMS":  # ``from dps_verify.paper.kernel import THEOREMS``
        return theorems()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(theorem_id: str) -> ProofResult:
    """Run one theorem module by CLI id (``KeyError`` for an unknown id)."""
    return run_module(theorem_id, theorems()[theorem_id])


def run_all() -> list[ProofResult]:
    """Run every registered theorem module, in registry order."""
    return [run(t) for t in theorems()]


__all__ = ["THEOREMS", "ProofResult", "Step", "Verdict", "run", "run_all", "theorems"]
