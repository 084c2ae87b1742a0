"""Claim and result records shared by the registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

VERDICTS = ("CONFIRMED", "REFUTED", "CONFIRMED-WITH-CORRECTION", "NOT-MACHINE-CHECKABLE")


@dataclass(frozen=True)
class Result:
    verdict: str
    figure: str  # the key number, short
    detail: str = ""  # witness, correction or how it was certified

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")


@dataclass(frozen=True)
class Claim:
    id: str
    where: str  # e.g. "CP §3.3, Table 2"
    statement: str  # the claim in our own words
    method: str  # e.g. "exact rational arithmetic"
    expected: str
    check: Callable[[], Result] = field(compare=False)
