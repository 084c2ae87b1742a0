"""The audit hands its exact engine the user's plain function behind the guard (the engine's
sample tables guard every call themselves); objects and anything that merely looks guarded are
passed on unchanged."""

from __future__ import annotations

from dps_verify.audit.core import engine_callable
from dps_verify.engine.calls import guard
from dps_verify.engine.distribution import randomized


def _count(sample):
    return len(sample)


def test_the_guarded_plain_function_is_unwrapped_to_the_users_function() -> None:
    g = guard(_count)
    assert g is not _count and g.__name__ == _count.__name__
    assert engine_callable(g) is _count


def test_objects_unguarded_functions_and_look_alikes_are_passed_on_unchanged() -> None:
    class Anon:
        def __call__(self, sample):
            return len(sample)

    obj = guard(Anon())
    assert engine_callable(obj) is obj
    r = randomized(lambda s: {0: 1})
    assert engine_callable(guard(r)) is r
    assert engine_callable(_count) is _count

    def look_alike(sample):  # claims to be guarded and wraps another function: not our wrapper
        return 0

    look_alike._dps_guarded = True  # type: ignore[attr-defined]
    look_alike.__wrapped__ = _count  # type: ignore[attr-defined]
    assert engine_callable(look_alike) is look_alike
