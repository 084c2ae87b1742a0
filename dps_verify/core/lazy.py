"""Names of a package loaded on first use (PEP 562), so that importing the package stays cheap.

``dps_verify`` (the curated API) and ``dps_verify.testing`` (home of the pytest plugin, which
pytest imports in every session) both map each public name to the module that defines it and
import that module only when the name is first read.  This module imports nothing itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_attributes(package: str, homes: dict[str, str],
                    namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``homes`` maps a public name to the module
    defining it (the name itself when that module is a submodule of ``package`` of the same
    name); a name read once is stored in ``namespace`` (the package's ``globals()``), so later
    reads skip the hook."""

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        mod = importlib.import_module(module)
        value = mod if module == f"{package}.{name}" else getattr(mod, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(homes))

    return __getattr__, __dir__
