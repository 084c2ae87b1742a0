"""Claim and result records shared by the registry.

A :class:`Claim` is one statement of the paper (CP = ASIACCS 2012, TR = the 2011 technical
report) or one clearly labelled addition of ours ("beyond the paper").  Its ``check`` recomputes
a :class:`Result` from scratch; the runner compares ``Result.verdict`` with ``Claim.expected``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from typing import Any

from dps_verify.core.types import ClaimVerdict

# The claim verdicts are :class:`dps_verify.core.types.ClaimVerdict` members (str-valued).
CONFIRMED = ClaimVerdict.CONFIRMED
REFUTED = ClaimVerdict.REFUTED
CORRECTED = ClaimVerdict.CORRECTED
NMC = ClaimVerdict.NOT_MACHINE_CHECKABLE
VERDICTS = (CONFIRMED, REFUTED, CORRECTED, NMC)


@dataclass(frozen=True)
class Result:
    """What one check found.

    ``figure`` is the key number (short, for the terminal table); ``detail`` says how it was
    certified, what the correction is, or gives the witness of a refutation; ``data`` carries
    machine-readable numbers for the JSON report.
    """

    verdict: str
    figure: str
    detail: str = ""
    data: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {self.verdict!r}")


@dataclass(frozen=True)
class Claim:
    """One registry entry.

    ``source`` is "CP", "TR" or "beyond" (our additions, labelled as such in every report);
    ``artefact`` names the table/figure the claim supports (``"table2"``, ``"fig3"`` …) so the
    report can place the regenerated artefact beside it; ``proofs`` lists the ``proofs`` ids the
    check consults (the runner starts them early, in parallel).
    """

    id: str
    where: str
    statement: str
    method: str
    expected: str
    check: Callable[[], Result] = field(compare=False, repr=False)
    source: str = "CP"
    artefact: str | None = None
    proofs: tuple[str, ...] = ()
    control: Callable[[], Result] | None = field(default=None, compare=False, repr=False)
    control_expected: str | None = None
    #: a reading-dependent verdict names its reading (short, shown before the key figure on
    #: every line the verdict appears) and the other reading's verdict and entry
    #: (``other_reading``); see docs/verdict-policy.md.
    reading: str = ""
    other_reading: str = ""
    #: the corrected statement of a CONFIRMED-WITH-CORRECTION entry (docs/verdict-policy.md).
    corrected: str = ""

    def __post_init__(self) -> None:
        if self.expected not in VERDICTS:
            raise ValueError(f"{self.id}: unknown expected verdict {self.expected!r}")
        if (self.control is None) != (self.control_expected is None):
            raise ValueError(f"{self.id}: a negative control needs its expected verdict (and vice versa)")
        if self.control_expected is not None and self.control_expected not in VERDICTS:
            raise ValueError(f"{self.id}: unknown control verdict {self.control_expected!r}")
        if self.expected == NMC and not self.method.startswith("not machine-checkable"):
            raise ValueError(f"{self.id}: a NOT-MACHINE-CHECKABLE entry's method must give the reason")
        if self.expected == CORRECTED and not self.corrected:
            raise ValueError(f"{self.id}: a CONFIRMED-WITH-CORRECTION entry must state its corrected statement")
        if bool(self.reading) != bool(self.other_reading):
            raise ValueError(f"{self.id}: a reading-dependent entry names both readings")

    def with_reading(self, r: Result) -> Result:
        """``r`` with this entry's reading shown on every line the verdict appears: before the
        key figure (terminal row, findings, JSON, Markdown, HTML), at the start of the detail,
        and as ``data['reading']``; a correction's statement as ``data['corrected']``."""
        data = dict(r.data)
        figure, detail = r.figure, r.detail
        if self.reading:
            data["reading"] = {"this": self.reading, "other": self.other_reading}
            figure = f"{self.reading}: {figure}"
            detail = f"reading: {self.reading}; other reading: {self.other_reading}. {detail}"
        if r.verdict == CORRECTED and self.corrected:
            data["corrected"] = self.corrected
            if "corrected statement:" not in detail:
                detail = f"{detail}; corrected statement: {self.corrected}"
        return Result(r.verdict, figure, detail, data)


def sig(x: Fraction | float | int, digits: int = 3) -> str:
    """``x`` rounded half-even to ``digits`` significant digits, in ``1.23e-17`` style.

    Exact for Fractions: rounding goes through :mod:`decimal` with enough precision that the
    printed digits never depend on binary floating point.
    """
    if x == 0:
        return "0"
    fx = Fraction(x)
    with localcontext() as ctx:
        ctx.prec = 80
        d = Decimal(fx.numerator) / Decimal(fx.denominator)
        exp = d.adjusted()
        q = Decimal(1).scaleb(exp - digits + 1)
        r = d.quantize(q, rounding=ROUND_HALF_EVEN)
        if r.adjusted() != exp:  # 9.995 -> 10.0
            exp = r.adjusted()
            r = d.quantize(Decimal(1).scaleb(exp - digits + 1), rounding=ROUND_HALF_EVEN)
        mant = r.scaleb(-exp)
    return f"{mant:.{digits - 1}f}e{exp:+03d}"


def fmt(x: Any, digits: int = 4) -> str:
    """Short human formatting of a number (Fraction, mpf or float)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return str(x)
    if v == 0:
        return "0"
    if 1e-3 <= abs(v) < 1e4:
        return f"{v:.{digits}g}"
    return f"{v:.{digits - 1}e}"


def printed_interval(printed: str) -> tuple[Fraction, Fraction]:
    """The values that round to ``printed`` (a decimal as the paper prints it: ``"6.83e-10"``,
    ``"0.159"``, ``"2.40"``, ``"1e-06"``): its value ± half a unit of its last printed digit.

    This is the tolerance every numeric check uses, derived from the printed precision alone,
    and on both sides: a value outside this closed interval does not round to what is printed.
    """
    text = printed.strip().lower()
    mant, _, exp = text.partition("e")
    digits_after = len(mant.split(".")[1]) if "." in mant else 0
    e10 = int(exp) if exp else 0
    value = Fraction(mant) * Fraction(10) ** e10
    half_unit = Fraction(1, 2) * Fraction(10) ** (e10 - digits_after)
    return value - half_unit, value + half_unit


def agrees_with_printed(lower: Any, upper: Any, printed: str) -> bool:
    """True when the certified enclosure [lower, upper] lies inside :func:`printed_interval`.

    ``lower``/``upper`` may be Fractions, ints or mpmath numbers (mpf or an interval's ends);
    mpmath numbers are converted exactly (binary floats are exact rationals).
    """
    lo, hi = printed_interval(printed)
    try:
        return lo <= exact_rational(lower) and exact_rational(upper) <= hi
    except ValueError:  # an infinite or NaN end lies inside no printed interval
        return False


def exact_rational(x: Any) -> Fraction:
    """``x`` (Fraction, int, mpf or float) as an exact Fraction (binary floats are rationals),
    sign included; a non-finite value raises ValueError."""
    if isinstance(x, Fraction | int):
        return Fraction(x)
    import mpmath

    from dps_verify.core.numbers import mpf_value_fraction

    v = mpmath.mpf(x)  # exact for a binary float
    if not mpmath.isfinite(v):
        raise ValueError(f"not a finite number: {x!r}")
    return mpf_value_fraction(v._mpf_)
