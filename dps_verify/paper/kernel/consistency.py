"""Consistency of a theorem's givens: a concrete model on which they are all true.

A chain proves its statement *from* the given facts (hypotheses, definitions, settings, lemmas).
Each SMT step's own hypotheses are checked satisfiable (the vacuity check of :mod:`.smt`), but
that sees only the instances the step uses.  A definition stated for every value of an index
variable -- above all a Skolemised one, such as "below any y < d some term M(y) exceeds y" --
can contradict another given at an instance no step uses (with ``y <= d`` in place of ``y < d``
the sup's two halves clash at y = d), and contradictory givens prove anything.

:func:`check` is the guard: a theorem module declares ``MODELS``, each a :class:`Model` -- exact
values of the statement's symbols at a certified parameter point, exact implementations of its
opaque functions (by name), and finitely many instances of each index variable.  Every given
fact whose symbols and functions the model covers is evaluated there, exactly (sympy on exact
numbers), at every combination of its index variables' instances; one that is false (or
undecided) makes the theorem an ERROR naming it.  A model exhibits the covered givens as
jointly satisfiable (at those instances); facts outside a model's vocabulary are listed, not
silently passed.  A theorem without ``MODELS`` is reported as not model-checked (its steps'
vacuity checks remain).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from dps_verify.paper.kernel.core import _printed
from dps_verify.paper.kernel.lemmas import _truth, evaluate

#: at most this many instances of one fact per model (the product of its index variables').
MAX_INSTANCES = 400


@dataclass(frozen=True)
class Model:
    """A concrete model of a theorem's givens: ``build()`` returns ``(point, interpret,
    instances)``: exact values of the symbols, the opaque functions' exact implementations (by
    name) and, for each index variable, the values a fact stated for all of them is checked at.
    ``description`` says where the point comes from (how each value is certified)."""

    description: str
    build: Callable[[], tuple[Mapping[sp.Symbol, Any], Mapping[str, Callable[..., Any]],
                              Mapping[sp.Symbol, Sequence[Any]]]]


@dataclass
class Consistency:
    """The kernel's check of the givens against the theorem's models: ``checks`` one line per
    (model, fact) covered, ``outside`` the facts no model covers, ``problems`` the givens false
    or undecided in a model (each an ERROR of the theorem)."""

    models: int = 0
    checks: list[dict[str, str]] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def line(self) -> str:
        """One line for the ``prove`` output and the trust base."""
        if not self.models:
            return ("givens not model-checked (no MODELS declared): only each step's own "
                    "hypotheses are checked satisfiable")
        ok = sum(c["result"] == "true" for c in self.checks)
        where = sum(int(c["instances"]) for c in self.checks)
        head = (f"{ok} of {len(self.checks)} (model, given) pairs true at {where} exact "
                f"instances in {self.models} concrete model(s)")
        tail = f"; {len(self.outside)} given(s) outside every model's vocabulary" \
            if self.outside else "; every given covered"
        return head + tail + ("" if not self.problems else "; CONTRADICTED")

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.line, "checks": list(self.checks), "outside": list(self.outside),
                "problems": list(self.problems)}


def _functions(formula: Any) -> set[str]:
    return {str(e.func) for e in sp.preorder_traversal(sp.sympify(formula))
            if isinstance(e, AppliedUndef)}


def check(facts: Sequence[Any], models: Sequence[Model]) -> Consistency:
    """Every given fact (a :class:`~dps_verify.paper.kernel.core.Fact`) each model covers is
    true there at every instance (see the module docstring)."""
    out = Consistency(models=len(models))
    covered: set[int] = set()
    for k, model in enumerate(models, 1):
        try:
            point, interp, instances = model.build()
        except Exception as exc:  # noqa: BLE001 - a model that cannot be built shows nothing
            out.problems.append(f"model {k} ({model.description}) raised "
                                f"{type(exc).__name__}: {exc}")
            continue
        point = {s: sp.sympify(v) for s, v in point.items()}
        for i, fact in enumerate(facts):
            free = sp.sympify(fact.formula).free_symbols
            index = [s for s in fact.over if s in free]
            if not _functions(fact.formula) <= set(interp) or \
                    not free <= set(point) | {s for s in index if s in instances}:
                continue
            covered.add(i)
            combos = list(product(*[[sp.sympify(v) for v in instances[s]] for s in index]))
            if len(combos) > MAX_INSTANCES:
                combos = combos[:MAX_INSTANCES]
            result = "true"
            for combo in combos:
                at = {**point, **dict(zip(index, combo))}
                try:
                    truth = _truth(evaluate(fact.formula, at, interp))
                except Exception:  # noqa: BLE001 - an implementation that raises decides nothing
                    truth = None
                if truth is not True:
                    shown = ", ".join(f"{s} = {sp.sstr(v)}" for s, v in zip(index, combo))
                    result = "FALSE" if truth is False else "undecided"
                    out.problems.append(
                        f"the givens are contradictory or mis-stated: the {fact.kind} "
                        f"'{fact.short}' ({sp.sstr(fact.formula)}) is {result} in model {k} "
                        f"({model.description})" + (f" at {shown}" if shown else "")
                        + " (definitions no model satisfies prove anything)")
                    break
            out.checks.append({"model": str(k), "kind": fact.kind, "given": fact.short,
                               "formula": _printed(fact.formula), "instances": str(len(combos)),
                               "result": result})
    out.outside = [f"[{f.kind}] {f.short}" for i, f in enumerate(facts) if i not in covered]
    return out
