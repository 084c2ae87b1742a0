"""Every mutant the mutation tool lists changes the code it runs: a site that is numbered but not
applied (as default values and decorators once were) would survive every test and count against
the module's score.  Checked on a source with a site of each kind, in every place one can sit."""

import ast

from benchmarks.mutation.operators import mutants, mutated_source

SOURCE = '''
LIMIT = 10 ** 12


def deco(n=2):
    return lambda f: f


@deco(n=3)
def f(x, y=0, *, z=-1, w=None, flag=True):
    """docstring"""
    total = 0
    for v in (x, y):
        if v < 0 and not flag:
            total -= v
        elif v >= LIMIT or v == z:
            total += max(v, 1)
    while total > 100:
        total = total // 2
    g = lambda t=5: t * 2
    return total if total != 0 else min(x, g())


class C:
    k: int = 4

    def m(self, a=1.5, b=7):
        return a * b
'''


def test_every_listed_mutant_changes_the_unparsed_source() -> None:
    base = ast.unparse(ast.parse(SOURCE))
    ms = mutants("x.py", SOURCE)
    assert len(ms) > 40
    unchanged = [m.describe() for m in ms if mutated_source(SOURCE, m.index) == base]
    assert unchanged == []


def test_default_values_and_decorator_arguments_are_mutated_in_place() -> None:
    ms = {(m.function, m.before, m.after): m for m in mutants("x.py", SOURCE)}
    new = mutated_source(SOURCE, ms[("f", "0", "-1")].index)  # y=0 -> y=-1
    assert "y=-1" in new
    new = mutated_source(SOURCE, ms[("f", "3", "4")].index)  # @deco(n=3) -> @deco(n=4)
    assert "@deco(n=4)" in new
    new = mutated_source(SOURCE, ms[("C.m", "7", "8")].index)  # b=7 -> b=8
    assert "b=8" in new
