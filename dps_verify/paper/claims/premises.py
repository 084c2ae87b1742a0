"""Premises checked the way the paper states them: over every dataset, never on one pair.

A witness against a theorem whose hypothesis is "M is (ε, δ)-DP" (CP Def 2 / TR Def 1), "M is
(β, ε, δ)-DPS" (CP Def 3) or "(β, ε, δ)-UDP" (TR Def 4) must establish that hypothesis for *all*
neighbouring datasets (add/remove one record, multisets).  :func:`over_all_datasets` does the
finite part: it enumerates every multiset over a declared ``domain`` up to ``max_size`` records
and every record that can be removed from it, computes both exact output laws (Fractions) and
decides the (ε, δ) inequality exactly in both directions.  What covers datasets larger than
``max_size`` is stated in ``beyond`` — a proof, a recognised closed form, or a written argument
— and the result names both parts, so a reader sees what was checked and what was argued.

Negative controls: a premise that holds only on the pair used for the conclusion (the XOR pair
of CP §2.2, an A_m that is ε1-DP only on a box of count states) is rejected by the same
function; ``tests/test_claims_policy.py`` runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement
from typing import Any

Law = Mapping[Hashable, Fraction]


def delta_at(p: Law, q: Law, e_eps: Fraction) -> Fraction:
    """Exact hockey-stick δ of p against q at e^ε = ``e_eps`` (CP Def 2, one direction):
    Σ_y max(0, p(y) − e^ε q(y))."""
    return sum((max(Fraction(0), v - e_eps * Fraction(q.get(y, 0))) for y, v in p.items()),
               Fraction(0))


def neighbour_pairs(domain: Sequence[Hashable], max_size: int) -> Iterator[tuple[tuple, tuple]]:
    """Every (D, D − x): D a multiset over ``domain`` with 1 ≤ |D| ≤ ``max_size``, x a record
    of D (one pair per distinct x; add/remove neighbours are the same pairs read backwards)."""
    for n in range(1, max_size + 1):
        for ds in combinations_with_replacement(domain, n):
            for x in dict.fromkeys(ds):
                i = ds.index(x)
                yield ds, ds[:i] + ds[i + 1:]


@dataclass(frozen=True)
class Premise:
    """The outcome of checking one premise globally.

    ``holds`` is the verdict; ``covered`` says what the exhaustive part enumerated, ``beyond``
    what covers larger datasets (empty when nothing does: then ``holds`` is False, a premise
    checked only on a finite set is not established); ``worst`` is the largest δ found (both
    directions) and ``witness`` the first neighbouring pair violating the premise, if any."""

    statement: str
    holds: bool
    covered: str
    beyond: str
    worst: Fraction
    witness: tuple[tuple, tuple] | None = None
    pairs: int = 0
    data: dict[str, Any] = field(default_factory=dict)

    def text(self) -> str:
        if self.witness is not None:
            d, dm = self.witness
            return (f"premise '{self.statement}' FAILS over all datasets: D = {_show(d)} vs "
                    f"D − x = {_show(dm)} gives δ = {self.worst} ({self.covered})")
        if not self.holds:
            return f"premise '{self.statement}' not established: {self.covered}; nothing covers larger datasets"
        return f"premise '{self.statement}' holds over all datasets: {self.covered}; beyond: {self.beyond}"

    def to_dict(self) -> dict[str, Any]:
        return {"statement": self.statement, "holds": self.holds, "covered": self.covered,
                "beyond": self.beyond, "worst_delta": str(self.worst), "pairs": self.pairs,
                "witness": None if self.witness is None else [_show(w) for w in self.witness]}


def _show(ds: tuple) -> str:
    return "{" + ", ".join(map(str, ds)) + "}" if ds else "∅"


def over_all_datasets(statement: str, law: Callable[[tuple], Law], domain: Sequence[Hashable],
                      max_size: int, e_eps: Fraction, delta: Fraction = Fraction(0), *,
                      beyond: str = "") -> Premise:
    """Decide "for every neighbouring pair, both directions, δ(e^ε) ≤ ``delta``" exactly over
    every multiset of ``domain`` up to ``max_size`` records (``law(D)`` is the exact output law
    of the mechanism as the premise states it: sampled for DPS/UDP, unsampled for DP).

    ``e_eps`` is e^ε as a rational: pass e^ε itself when it is rational, an upper bound when
    the check is used to *reject* a premise (a rejection at a larger allowance is sound), never
    an upper bound to *establish* one.  With ``delta = 0`` the inequality is the ratio bound of
    CP Def 1 / TR Def 4's (β, ε)-UDP.  The premise holds only if no pair violates it AND
    ``beyond`` (a proof, closed form or argument for the larger datasets) is given."""
    laws: dict[tuple, Law] = {}

    def get(ds: tuple) -> Law:
        key = tuple(sorted(ds, key=repr))
        if key not in laws:
            laws[key] = law(ds)
        return laws[key]

    worst, n = Fraction(0), 0
    for d, dm in neighbour_pairs(domain, max_size):
        p, q = get(d), get(dm)
        n += 1
        here = max(delta_at(p, q, e_eps), delta_at(q, p, e_eps))
        worst = max(worst, here)
        if here > delta:
            covered = (f"exhaustive exact search, every multiset over {{{', '.join(map(str, domain))}}} "
                       f"with at most {max_size} records, both directions, e^ε = {e_eps}")
            return Premise(statement, False, covered, beyond, here, (d, dm), n)
    covered = (f"exhaustive exact search over every multiset of {{{', '.join(map(str, domain))}}} "
               f"with at most {max_size} records ({n} neighbouring pairs, both directions, exact "
               f"rationals, e^ε = {e_eps}, largest δ {worst} ≤ {delta})")
    return Premise(statement, bool(beyond), covered, beyond, worst, None, n)
