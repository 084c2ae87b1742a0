"""The chaining check's instance matching (``instance_of``): its cheap filter (``_may_become``)
rules a candidate substitution out only when rebuilding the fact with it could never give the
target, so it never changes which instance is found -- checked against sympy's own rebuild
(``xreplace``), including the rebuilds that collapse (a premise that becomes true, a
conclusion that becomes false, a conjunct that becomes true)."""

from __future__ import annotations

from itertools import product

import sympy as sp

from dps_verify.paper.kernel.core import _may_become, instance_of

x = sp.Symbol("x", integer=True)
y = sp.Symbol("y", integer=True)
a = sp.Symbol("a", real=True)
F = sp.Function("F")
G = sp.Function("G")


def _facts() -> list:
    """Formulas of every shape the filter has a rule for, some of which collapse when y takes
    a value (y > 0 becomes true or false, and so does y < 0)."""
    rels = [sp.Eq(F(x), 0), F(x) >= a, F(x + 1) > F(x), y > 0, y < 0, sp.Ne(G(x, y), 1),
            F(x) <= G(x, y), sp.Eq(F(x) + a, G(x - 1, y))]
    out = list(rels)
    out += [sp.And(p, q) for p, q in product(rels[2:5], rels[:6]) if p != q]
    out += [sp.Implies(p, q) for p, q in product(rels[2:6], rels[:5]) if p != q]
    out += [sp.Implies(sp.And(rels[3], rels[2]), rels[0]),
            sp.Implies(rels[2], sp.And(rels[0], rels[1])),
            sp.Implies(sp.Or(rels[2], rels[5]), rels[0]), F(x) * a + x]
    return out


def _subs() -> list[dict]:
    return [{x: v, y: w} for v in (sp.Integer(2), y + 1) for w in (y, sp.Integer(2), sp.Integer(-1))]


def test_filter_never_rules_out_a_rebuild_equal_to_the_target():
    facts, subs = _facts(), _subs()
    near = [f.xreplace(s) for f in facts[:8] for s in subs[::3]]  # plain relations' instances
    candidates = tried = 0
    for f in facts:
        # targets: every instance of the fact (the matches) and of the plain relations, their
        # negations (a collapsed Implies) and the atoms
        targets = {f.xreplace(s) for s in subs} | set(near) | {sp.true, sp.false}
        targets |= {sp.Not(t) for t in list(targets) if isinstance(t, sp.core.relational.Relational)}
        for s in subs:
            rebuilt = f.xreplace(s)
            for t in targets:
                may = _may_become(f, s, t)
                if rebuilt == t:
                    assert may, (f, s, t)
                else:
                    tried += 1
                    candidates += may
    # the filter does its job: most candidates that cannot match are ruled out
    assert candidates < tried / 5


def test_collapsed_instances_are_still_found():
    # premise true at y = 2: Implies(2 > 0, F(2) = 0) is F(2) = 0
    assert instance_of(sp.Implies(y > 0, sp.Eq(F(y), 0)), (y,), sp.Eq(F(2), 0)) == {"y": "2"}
    # conclusion false at y = 2: Implies(F(2) > 0, 2 < 0) is F(2) <= 0
    assert instance_of(sp.Implies(F(y) > 0, y < 0), (y,), F(2) <= 0) == {"y": "2"}
    # a conjunct true at y = 2: And(2 > 0, F(2) >= a) is F(2) >= a
    assert instance_of(sp.And(y > 0, F(y) >= a), (y,), F(2) >= a) == {"y": "2"}


def test_filter_rules_out_what_cannot_match():
    # another relation, another function, other sides: ruled out without a rebuild
    assert not _may_become(sp.Eq(F(x), 0), {x: sp.Integer(2)}, F(2) >= 0)
    assert not _may_become(sp.Eq(F(x), 0), {x: sp.Integer(2)}, sp.Eq(G(2, y), 0))
    assert not _may_become(sp.Eq(F(x), 0), {x: sp.Integer(2)}, sp.Eq(F(3), 0))
    # the premise's negation is another relation than the target's
    assert not _may_become(sp.Implies(x > 0, sp.Eq(F(x), 0)), {x: y}, F(y) > 0)
    # the negation of the premise and of a conjunction of premises may match
    assert _may_become(sp.Implies(x > a, sp.Eq(F(x), 0)), {x: y}, y <= a)
    assert _may_become(sp.Implies(sp.And(x > a, F(x) > 0), sp.Eq(F(x), 0)), {x: y},
                       sp.Not(sp.And(y > a, F(y) > 0), evaluate=False))
    # with a float anywhere nothing is ruled out (an applied function of floats is evaluated)
    assert _may_become(sp.Eq(F(x), 0), {x: sp.Float(2)}, F(3) >= 0)
