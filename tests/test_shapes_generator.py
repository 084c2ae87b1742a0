"""The one generator of leaking dataset shapes (verdict/shapes.py) behind both the audit's
candidates and the leak shapes of assert_dp: each (counts, target) once, within its family's
cap, in the order of its families."""

from __future__ import annotations

from fractions import Fraction

from dps_verify.audit.domain import Domain
from dps_verify.audit.search import candidates
from dps_verify.verdict.shapes import crowds, generate, leak_shapes, singletons

AGES = {"records": [18, 22, 27, 35, 41, 58, 90], "max_size": 40}


def test_generate_emits_each_shape_once_within_its_cap():
    items = [*singletons([0, 1]), *crowds([0], [1, 2, 50])]
    got = [(s.name, s.runs) for s in generate(items, lambda name: 10)]
    # crowd of one copy = the singleton already emitted; 50 records is over the cap
    assert got == [("singleton", ((0, 1),)), ("singleton", ((1, 1),)), ("crowd", ((0, 2),))]


def test_generate_without_a_cap_check_would_emit_more():
    """Negative control: the same items with a larger cap and no repeats filtered by hand
    differ from generate's output (the dedupe and the cap are what make it)."""
    items = [*singletons([0, 1]), *crowds([0], [1, 2, 50])]
    assert len(items) == 5 and len(list(generate(items, lambda name: 100))) == 4


def test_audit_candidates_are_built_from_the_shared_families():
    dom = Domain.of(AGES, None)
    cands = list(candidates(dom, [5], Fraction(1, 5), Fraction(1)))
    assert {c.shape for c in cands} == {"singleton", "crowd", "beside-bulk", "outlier", "random"}
    assert cands[0].dataset == (18,) and cands[0].shape == "singleton"
    keys = [(tuple(sorted(c.dataset)), c.target) for c in cands]
    assert len(keys) == len(set(keys)) and all(1 <= len(c.dataset) <= 40 for c in cands)


def test_leak_shapes_are_built_from_the_shared_families():
    values = sorted(AGES["records"])
    shapes = list(leak_shapes(values, ks=[5], beta=Fraction(1, 5), eps=Fraction(1),
                              max_records=24, max_multi=8))
    assert {s for s, _, _ in shapes} == {"crowd", "beside-bulk", "two-bulk", "three-bulk"}
    assert shapes[0] == ("crowd", {0: 1}, 0)
    assert all(sum(c.values()) <= (24 if s in ("crowd", "beside-bulk") else 8)
               for s, c, _ in shapes)
