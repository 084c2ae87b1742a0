"""One exception hierarchy for the library and one exit-code table for the CLI.

=====  ==========================================================================
code   meaning
=====  ==========================================================================
0      PASS / every verdict as expected
1      FAIL / a verdict that is not the one expected
2      bad usage: parameters, options, unreadable files (:class:`UsageError`)
3      INCONCLUSIVE: the evidence decides neither way
4      the code under audit raised, or broke the anonymizer contract
       (:class:`AuditedCodeError`)
5      a limit was reached: a certification limit (precision, scan length) while
       working (:class:`CertificationError`), or a work/memory estimate past its
       budget before starting (:class:`BudgetError`; the message names the option
       that raises the budget)
70     an internal error of dps_verify itself (a bug), never a verdict
130    interrupted (Ctrl-C; 128 + SIGINT, as shells report it)
=====  ==========================================================================

The audit verdicts map onto it through :data:`VERDICT_EXIT_CODES` (PASS 0, FAIL 1,
INCONCLUSIVE 3); the CLI (:mod:`dps_verify.cli`), the audit report
(:mod:`dps_verify.audit.report`) and README's table all read this module.

:class:`UsageError` subclasses :class:`ValueError` so that callers who catch ``ValueError`` for
bad parameters keep working.
"""

from __future__ import annotations

from typing import Any

EXIT_OK = 0
EXIT_FAIL = 1
EXIT_USAGE = 2
EXIT_INCONCLUSIVE = 3
EXIT_AUDITED_CODE = 4
EXIT_CERTIFICATION = 5
EXIT_INTERNAL = 70  # a bug in dps_verify itself (BSD EX_SOFTWARE); never a verdict
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT

EXIT_CODES: dict[int, str] = {
    EXIT_OK: "PASS / as expected",
    EXIT_FAIL: "FAIL / unexpected verdict",
    EXIT_USAGE: "bad usage (parameters, options, files)",
    EXIT_INCONCLUSIVE: "INCONCLUSIVE",
    EXIT_AUDITED_CODE: "error in the code under audit",
    EXIT_CERTIFICATION: "certification limit or work budget reached",
    EXIT_INTERNAL: "internal error of dps_verify (a bug; please report it)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}

#: Exit code of each audit verdict.
VERDICT_EXIT_CODES: dict[str, int] = {"PASS": EXIT_OK, "FAIL": EXIT_FAIL, "INCONCLUSIVE": EXIT_INCONCLUSIVE}


class DPSVerifyError(Exception):
    """Base class of every error dps_verify raises on purpose."""

    exit_code: int = EXIT_USAGE


class UsageError(DPSVerifyError, ValueError):
    """Bad input: a parameter outside its domain, a bad option, an unreadable file."""

    exit_code = EXIT_USAGE


class ParameterError(UsageError):
    """A parameter violates a precondition of the paper (the message names it and cites where)."""


class CertificationError(DPSVerifyError):
    """A number could not be certified within the stated limits (precision, scan length, work
    budget).  The message says which limit was hit; never a silent loose value."""

    exit_code = EXIT_CERTIFICATION


class BudgetError(CertificationError):
    """The work or memory a run would need, estimated before it starts, is past its budget.
    Raised before any work is done; the message names the option (or argument) that changes
    the estimate or raises the budget."""


class AuditedCodeError(DPSVerifyError):
    """The code under audit raised, or broke the anonymizer contract (unhashable output, not a
    function of its sample, timeout).  ``original`` is the user's exception (if any) and
    ``sample`` the input that triggered it."""

    exit_code = EXIT_AUDITED_CODE

    def __init__(self, message: str, *, original: BaseException | None = None, sample: Any = None):
        super().__init__(message)
        self.original = original
        self.sample = sample


__all__ = [
    "EXIT_AUDITED_CODE",
    "EXIT_CERTIFICATION",
    "EXIT_CODES",
    "EXIT_FAIL",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "VERDICT_EXIT_CODES",
    "AuditedCodeError",
    "BudgetError",
    "CertificationError",
    "DPSVerifyError",
    "ParameterError",
    "UsageError",
]
