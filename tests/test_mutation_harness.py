"""The mutation harness itself: a mutant that changes behaviour is caught, an unchanged
package passes the same check, and a stale snippet is reported."""

import pytest

from tests.mutation import Mutant, StaleMutant, caught

CHECK = "from dps_verify.core.errors import EXIT_CERTIFICATION\nassert EXIT_CERTIFICATION == 5\n"


def test_mutant_is_caught() -> None:
    m = Mutant("exit-code", "core/errors.py", "EXIT_CERTIFICATION = 5", "EXIT_CERTIFICATION = 6")
    assert caught(m, CHECK)


def test_neutral_mutant_survives() -> None:
    m = Mutant("neutral", "core/errors.py", "EXIT_CERTIFICATION = 5", "EXIT_CERTIFICATION = 5  # same")
    assert not caught(m, CHECK)


def test_stale_mutant_reported() -> None:
    m = Mutant("stale", "core/errors.py", "no such text anywhere", "x")
    with pytest.raises(StaleMutant):
        caught(m, CHECK)
