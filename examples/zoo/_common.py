"""Helpers shared by the zoo entries (not an entry itself)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from dps_verify import bounds, exact

HERE = Path(__file__).parent


def domain(name: str) -> dict:
    return json.loads((HERE / name).read_text())


def paper_d(k: int, beta: float, epsilon: float) -> float:
    """CP Thm 5's d(k, β, ε) as a float rounded up (what a practitioner would write down)."""
    return math.nextafter(float(bounds.d_certified(k, beta, epsilon).upper), 1.0)


def exact_delta(k: int, beta: float, epsilon: float, definition: str = "hockey-stick") -> float:
    """The exact worst case (``dps-verify delta``) as a float rounded up."""
    return math.nextafter(float(exact.sdgs_delta_certified(k, beta, epsilon, definition).upper), 1.0)


def decade(age: int) -> str:
    """A data-independent recoding: the age's decade, e.g. 37 -> '30-39'."""
    lo = age // 10 * 10
    return f"{lo}-{lo + 9}"
