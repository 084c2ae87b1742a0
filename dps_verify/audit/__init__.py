"""Audit a claimed (ε, δ) for "sample at rate β, then anonymize" (CP Def. 3).

:func:`audit` either confirms the claim over the datasets it covered (or over all datasets when
the mechanism's worst case is known in closed form) or returns a concrete witness: two
neighbouring datasets and an event whose probabilities break CP Def. 2 (or TR Def. 2).
"""

import functools as _functools
import sys as _sys
import types as _types
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from dps_verify.audit.budget import check_audit_budget as _check_audit_budget
from dps_verify.audit.budget import is_cheap as _is_cheap
from dps_verify.audit.core import DEFAULT_EXACT_BUDGET, METHODS, closed_form_kind
from dps_verify.audit.core import audit as _audit_unguarded
from dps_verify.audit.domain import Domain, domain_from_dict, load_domain
from dps_verify.audit.loader import load_callable
from dps_verify.audit.report import EXIT_CODES, VERDICTS, AuditReport, Witness
from dps_verify.engine.calls import audit_entry_point as _audit_entry_point

if _TYPE_CHECKING:
    from dps_verify.audit.data import DataAuditReport

#: :func:`dps_verify.audit.core.audit` run inside the audited code's world
#: (:func:`dps_verify.engine.calls.audited_code`): ``sys.exit``, ``os._exit``, a
#: ``KeyboardInterrupt`` the code raises itself, or any other escape of the code under audit is
#: :class:`~dps_verify.errors.AuditedCodeError`, never a verdict; what it prints is captured in
#: the report's ``output``.
_audit_guarded = _audit_entry_point(_audit_unguarded)


@_functools.wraps(_audit_unguarded)
def audit(anonymizer: _Any, *args: _Any, **kwargs: _Any) -> "AuditReport | DataAuditReport":
    if "data" in kwargs:  # a pipeline on a real table: audit.data (both questions)
        from dps_verify.audit.data import audit_data

        return _audit_entry_point(audit_data)(anonymizer, *args, **kwargs)
    # the domain is read once (a path is a domain file: audit.domain.Domain.of) and the run's
    # work and memory estimated before it starts (audit.budget: BudgetError, exit 5)
    if "domain" in kwargs:
        kwargs["domain"] = Domain.of(kwargs["domain"], kwargs.pop("max_size", None))
        _check_audit_budget(kwargs["domain"], option="max_size", cheap=_is_cheap(anonymizer))
    return _audit_guarded(anonymizer, *args, **kwargs)


class _CallablePackage(_types.ModuleType):
    """Lets ``dps_verify.audit(...)`` (the curated top-level API) call :func:`audit`."""

    def __call__(self, *args: _Any, **kwargs: _Any) -> "AuditReport | DataAuditReport":
        return audit(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallablePackage

__all__ = [
    "DEFAULT_EXACT_BUDGET",
    "EXIT_CODES",
    "METHODS",
    "VERDICTS",
    "AuditReport",
    "Domain",
    "Witness",
    "audit",
    "closed_form_kind",
    "domain_from_dict",
    "load_callable",
    "load_domain",
]
