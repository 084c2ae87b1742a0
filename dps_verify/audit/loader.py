"""Load ``path/to/file.py:name`` for the ``audit`` command."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any


def load_callable(spec: str) -> tuple[Any, Any]:
    """Import ``file.py`` and return ``(object named name, module)``.

    Raises ``ValueError`` (one line) when the file is unreadable, fails to import, or has no
    callable of that name.
    """
    path_s, sep, name = spec.rpartition(":")
    if not sep or not path_s or not name:
        raise ValueError(f"expected path/to/file.py:function, got {spec!r}")
    path = Path(path_s)
    if not path.is_file():
        raise ValueError(f"cannot read {path_s}: no such file")
    mod_name = f"_dps_audit_{abs(hash(str(path.resolve())))}"
    spec_obj = importlib.util.spec_from_file_location(mod_name, path)
    if spec_obj is None or spec_obj.loader is None:
        raise ValueError(f"cannot import {path_s} as a Python module")
    module = importlib.util.module_from_spec(spec_obj)
    sys.modules[mod_name] = module
    here = str(path.resolve().parent)
    sys.path.insert(0, here)  # sibling imports work as when the file is run as a script
    try:
        spec_obj.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - report any import failure as bad usage
        sys.modules.pop(mod_name, None)
        raise ValueError(f"importing {path_s} failed: {type(exc).__name__}: {exc}") from None
    finally:
        if sys.path and sys.path[0] == here:
            sys.path.pop(0)
    obj = getattr(module, name, None)
    if obj is None:
        raise ValueError(f"{path_s} has no attribute {name!r}")
    from dps_verify.engine.distribution import randomized

    if not callable(obj) and not isinstance(obj, randomized):
        raise ValueError(f"{path_s}:{name} is not callable")
    return obj, module
