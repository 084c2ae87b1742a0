"""Load ``path/to/file.py:name`` for the ``audit`` command.

Importing the file runs the code under audit: it happens inside
:func:`dps_verify.engine.calls.audited_code`, so ``sys.exit`` or any other exception at import
is :class:`~dps_verify.core.errors.AuditedCodeError` (CLI exit 4), never a verdict or an exit
code the file chose.  A path that does not name a readable file, or a missing attribute, is bad
usage (:class:`~dps_verify.core.errors.UsageError`, exit 2)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

from dps_verify.core.errors import AuditedCodeError, UsageError


def load_callable(spec: str) -> tuple[Any, Any]:
    """Import ``file.py`` and return ``(object named name, module)``.

    Raises :class:`UsageError` (one line) when the file is unreadable or has no callable of
    that name, :class:`AuditedCodeError` when importing it raises or exits (any
    ``BaseException``, ``sys.exit`` included).
    """
    from dps_verify.engine import calls
    from dps_verify.engine.calls import audited_code

    path_s, sep, name = spec.rpartition(":")
    if not sep or not path_s or not name:
        raise UsageError(f"expected path/to/file.py:function, got {spec!r}")
    path = Path(path_s)
    if not path.is_file():
        raise UsageError(f"cannot read {path_s}: no such file")
    mod_name = f"_dps_audit_{abs(hash(str(path.resolve())))}"
    spec_obj = importlib.util.spec_from_file_location(mod_name, path)
    if spec_obj is None or spec_obj.loader is None:
        raise UsageError(f"cannot import {path_s} as a Python module")
    module = importlib.util.module_from_spec(spec_obj)
    sys.modules[mod_name] = module
    here = str(path.resolve().parent)
    sys.path.insert(0, here)  # sibling imports work as when the file is run as a script
    try:
        with audited_code():
            spec_obj.loader.exec_module(module)
    except AuditedCodeError as exc:  # sys.exit, os._exit, KeyboardInterrupt raised by the file
        sys.modules.pop(mod_name, None)
        why = str(exc).replace("the code under audit ", "", 1)
        raise AuditedCodeError(f"importing {path_s} {why}", original=exc.original) from exc
    except Exception as exc:  # noqa: BLE001 - the file's own code raised: a fault of the audited code
        sys.modules.pop(mod_name, None)
        msg = " ".join(str(exc).split())
        raise AuditedCodeError(f"importing {path_s} raised {type(exc).__name__}" + (f": {msg}" if msg else ""),
                               original=exc) from exc
    except BaseException as exc:  # inside an outer audited_code block (the CLI): name the import
        sys.modules.pop(mod_name, None)
        if isinstance(exc, KeyboardInterrupt) and calls._real_interrupt():
            raise  # a real Ctrl-C
        raise AuditedCodeError(f"importing {path_s} {calls._escape(exc)}", original=exc) from exc
    finally:
        if sys.path and sys.path[0] == here:
            sys.path.pop(0)
    obj = getattr(module, name, None)
    if obj is None:
        raise UsageError(f"{path_s} has no attribute {name!r}")
    from dps_verify.engine.distribution import randomized

    if not callable(obj) and not isinstance(obj, randomized):
        raise UsageError(f"{path_s}:{name} is not callable")
    return obj, module
