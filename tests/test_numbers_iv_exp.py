"""``iv_exp``: an outward enclosure of e^x for mpmath intervals, replacing ``mpmath.iv.exp``
(which returns a point, not an enclosure, for many small arguments)."""

from __future__ import annotations

import re
from pathlib import Path

import mpmath
import pytest
from mpmath import iv, mpf

from dps_verify.core.errors import CertificationError
from dps_verify.core.numbers import iv_exp, iv_lower, iv_precision, iv_upper

ROOT = Path(__file__).resolve().parent.parent

POWERS = [s * mpf(2) ** -j for j in range(1, 401) for s in (1, -1)]
ORDINARY = [mpf(0), mpf(1), mpf(-1), mpf("0.1"), mpf(-7) / 3, mpf(50), mpf(-700), mpf(2) ** 40, -mpf(2) ** 40]


def _true_exp(x: mpf) -> mpf:
    with mpmath.workprec(1000):
        return mpmath.exp(x)


def _check_encloses(x: mpf) -> None:
    e = iv_exp(iv.mpf(x))
    lo, hi = e._mpi_
    with mpmath.workprec(1000):
        t = _true_exp(x)
        lo_v, hi_v = mpmath.mpf(lo), mpmath.mpf(hi)
        assert lo_v <= t <= hi_v, (x, lo_v, t, hi_v)
        if x != 0:  # e^x is irrational: a point cannot enclose it
            assert lo_v < hi_v, x
        else:
            assert lo_v == hi_v == 1


@pytest.mark.parametrize("prec", [53, 128])
def test_iv_exp_encloses_powers_of_two_and_ordinary_values(prec: int) -> None:
    with iv_precision(prec):
        for x in POWERS + ORDINARY:
            _check_encloses(x)


@pytest.mark.parametrize("prec", [53, 128])
def test_iv_exp_is_tight_within_a_few_ulps(prec: int) -> None:
    with iv_precision(prec):
        for x in (mpf(2) ** -22, mpf(1), mpf(-700)):
            e = iv_exp(iv.mpf(x))
            width = iv_upper(e) - iv_lower(e)
            assert 0 < width <= iv_upper(e) / 2 ** (prec - 3)  # at most 8 ulps wide


def test_iv_exp_encloses_over_a_whole_interval() -> None:
    with iv_precision(53):
        e = iv_exp(iv.mpf([-1, 2]))
        with mpmath.workprec(1000):
            assert mpmath.mpf(e._mpi_[0]) <= _true_exp(mpf(-1))
            assert mpmath.mpf(e._mpi_[1]) >= _true_exp(mpf(2))


def test_iv_exp_huge_and_unbounded_ends_stay_sound() -> None:
    with iv_precision(53):
        tiny = iv_exp(iv.mpf(mpf("-1e300")))
        lo, hi = tiny._mpi_  # e^-1e300: an upper end far below any float, still positive
        assert lo == mpmath.libmp.fzero and hi[0] == 0 and hi[1] > 0 and hi[2] < -(10**30)
        assert iv_exp(iv.mpf([-mpmath.inf, 0]))._mpi_[0] == mpmath.libmp.fzero
        assert iv_exp(iv.mpf(mpf("1e300")))._mpi_[1] == mpmath.libmp.finf
        with pytest.raises(CertificationError):  # a NaN end is never read as a number
            iv_lower(iv_exp(iv.make_mpf((mpmath.libmp.fnan, mpmath.libmp.fnan))))
        assert iv_exp(iv.mpf(mpmath.nan))._mpi_ == (mpmath.libmp.fzero, mpmath.libmp.finf)  # iv reads nan as (-inf, inf)


def test_raw_mpmath_iv_exp_returns_a_point_at_2_pow_minus_22() -> None:
    """Negative control: why the helper exists.  mpmath's iv.exp gives the point 1 + 2^-22 at 53
    bits, which cannot enclose the irrational e^(2^-22); iv_exp gives a proper interval."""
    with iv_precision(53):
        x = iv.mpf(mpf(2) ** -22)
        raw = iv.exp(x)
        assert raw.a == raw.b
        with mpmath.workprec(1000):
            assert mpmath.mpf(raw._mpi_[0]) != _true_exp(mpf(2) ** -22)
        fixed = iv_exp(x)
        assert fixed.a < fixed.b


def test_no_module_calls_mpmath_iv_exp_directly() -> None:
    pattern = re.compile(r"\biv\.exp\s*\(")
    offenders = [
        f"{path.relative_to(ROOT)}:{n}"
        for base in ("dps_verify", "proofs")
        for path in sorted((ROOT / base).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []
    assert pattern.search("total = mpmath.iv.exp(-x)") and pattern.search("iv.exp (x)")  # the scan can fail
