"""Full-domain generalization whose level is chosen on the data (as ARX does), on UCI Adult.

Every QI column is generalized to one level of Adult's usual hierarchies (age bands, then the
hierarchies of ``adult_recoding.json``); the level vector is the *least* one (fewest steps, then
left to right) under which the sample is K-anonymous, and the whole sample is published at that
level.  The release is K-anonymous (checked with pycanon in the tests), but the level depends on
the data: one unusual person can force a coarser level, so the release tells whether they were
sampled (CP §3.1; compare CP Thm 6, where the choice itself must be ε₁-DP).

    dps-verify audit examples/real/adult_full_domain.py:release \\
        --data ../shared/data/adult.data --columns examples/real/adult_recoding.json \\
        --qi age,sex,race,marital-status --beta 0.1 --epsilon 1 --delta 1e-6

Expected: FAIL, with a witness.
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from functools import cache
from pathlib import Path

K = 9
_SPEC = json.loads(Path(__file__).with_name("adult_recoding.json").read_text())
#: Age bands from fine to coarse (then '*'), as in the recoding spec's named recodings.
AGE_BANDS = [r["age"]["bands"] for r in (_SPEC["recodings"][n] for n in ("fine", "medium", "coarse"))]


def _age_level(level: int):
    if level == 0:
        return str
    if level > len(AGE_BANDS):
        return lambda v: "*"
    edges = AGE_BANDS[level - 1]

    def band(v) -> str:
        i = sum(1 for e in edges if int(v) >= e)
        return f"<{edges[0]}" if i == 0 else f">={edges[-1]}" if i == len(edges) else f"[{edges[i - 1]},{edges[i]})"

    return band


def _hierarchy_level(col: str, level: int):
    maps = _SPEC["hierarchies"].get(col, {}).get("levels", [])
    if level > len(maps):
        return lambda v: "*"

    def up(v) -> str:
        v = str(v)
        for m in maps[:level]:
            v = m.get(v, v)
        return v

    return up


def levels_of(col: str) -> int:
    """Number of levels of a column (level 0 = the value itself, the last = '*')."""
    if col == "age":
        return len(AGE_BANDS) + 2
    return len(_SPEC["hierarchies"].get(col, {}).get("levels", [])) + 2


@cache
def generalizer(col: str, level: int):
    return _age_level(level) if col == "age" else _hierarchy_level(col, level)


def lattice(cols: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every level vector, least first: by total height, then left to right."""
    nodes = itertools.product(*(range(levels_of(c)) for c in cols))
    return sorted(nodes, key=lambda v: (sum(v), v))


def release(table: list[dict]) -> list[dict]:
    """The sample generalized at the least K-anonymous level (nothing if none is)."""
    if not table:
        return []
    cols = tuple(table[0])
    for node in lattice(cols):
        gens = [generalizer(c, lv) for c, lv in zip(cols, node)]
        rows = [tuple(g(r[c]) for g, c in zip(gens, cols)) for r in table]
        if min(Counter(rows).values()) >= K:
            return [dict(zip(cols, r)) for r in sorted(rows)]
    return []


release.table_format = "dicts"  # type: ignore[attr-defined]
