"""A fixed, data-independent recoding read from a JSON spec (hierarchies and bands given by the
user), as CP Thm 5 assumes: the generalization g is chosen before any data is seen, and
strongly-safe k-anonymization publishes g(t) for every sampled record t whose group (all sampled
records with the same g(t)) has at least k members (CP §3.2, Def of strongly-safe).

Spec format (``"format": "dps-verify recoding 1"``; example: ``examples/real/adult_recoding.json``)::

    {"columns": [...],            # optional: column names of a CSV without a header row
     "missing": "?",              # optional: a record with this value in a QI column is dropped
     "qi": [...],                 # optional: default quasi-identifiers
     "hierarchies": {"NAME": {"levels": [{value: parent, ...}, ...]}},
     "recodings": {"NAME": {COLUMN: RULE, ...}, ...},
     "default_recoding": "NAME"}

A RULE is ``"keep"`` (the value itself), ``"*"`` (suppress the column), ``{"bands": [e1, e2, ...]}``
(a number x goes to ``<e1``, ``[ei,ei+1)`` or ``>=en``), ``{"hierarchy": NAME, "level": L}``
(L = 0 keeps the value, L = 1 … applies the first L levels, L = number of levels + 1 gives ``*``)
or ``{"map": {value: general, ...}, "default": "..."}``.  A value a rule does not know is an
error naming it (the spec must cover the domain: filling it from the data would make the
recoding data-dependent).  A QI column without a rule is kept as it is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from dps_verify.core.errors import ParameterError

Rule = Callable[[str], str]
SUPPRESSED = "*"


def _keep(v: str) -> str:
    return v


def _suppress(v: str) -> str:
    return SUPPRESSED


def _bands(edges: Sequence[Any], col: str) -> Rule:
    try:
        es = [Decimal(str(e)) for e in edges]
    except InvalidOperation:
        raise ParameterError(f"recoding: bands of column {col!r} must be numbers, got {list(edges)}") from None
    if not es or any(a >= b for a, b in zip(es, es[1:])):
        raise ParameterError(f"recoding: bands of column {col!r} must be a non-empty increasing list, got {list(edges)}")
    labels = [f"<{es[0]}"] + [f"[{a},{b})" for a, b in zip(es, es[1:])] + [f">={es[-1]}"]

    def rule(v: str) -> str:
        try:
            x = Decimal(v)
        except InvalidOperation:
            raise ParameterError(f"column {col!r}: value {v!r} is not a number (bands need numbers)") from None
        if not x.is_finite():
            raise ParameterError(f"column {col!r}: value {v!r} is not a finite number")
        i = sum(1 for e in es if x >= e)
        return labels[i]

    return rule


def _chain(maps: Sequence[Mapping[str, str]], col: str, what: str, default: str | None = None) -> Rule:
    def rule(v: str) -> str:
        for lvl, m in enumerate(maps, 1):
            if v in m:
                v = m[v]
            elif default is not None:
                return default
            else:
                raise ParameterError(f"column {col!r}: value {v!r} is not in {what} (level {lvl}); "
                                 "extend the recoding spec (it must not be filled in from the data)")
        return v

    return rule


def _rule(col: str, spec: Any, hierarchies: Mapping[str, Any]) -> Rule:
    if spec == "keep":
        return _keep
    if spec in ("*", "suppress"):
        return _suppress
    if isinstance(spec, dict) and "bands" in spec:
        return _bands(spec["bands"], col)
    if isinstance(spec, dict) and "hierarchy" in spec:
        name = spec["hierarchy"]
        if name not in hierarchies:
            raise ParameterError(f"recoding: column {col!r} names an unknown hierarchy {name!r}")
        levels = hierarchies[name].get("levels", [])
        lvl = spec.get("level", 1)
        if not isinstance(lvl, int) or isinstance(lvl, bool) or not 0 <= lvl <= len(levels) + 1:
            raise ParameterError(f"recoding: hierarchy {name!r} has levels 0..{len(levels) + 1}, got level {lvl!r}")
        if lvl == len(levels) + 1:
            return _suppress
        return _chain(levels[:lvl], col, f"hierarchy {name!r}")
    if isinstance(spec, dict) and "map" in spec:
        return _chain([spec["map"]], col, "its map", spec.get("default"))
    raise ParameterError(f"recoding: rule for column {col!r} must be 'keep', '*', bands, hierarchy or map; got {spec!r}")


@dataclass(frozen=True)
class Recoding:
    """One named recoding: a rule per column (columns without one are kept)."""

    name: str
    rules: Mapping[str, Rule]
    spec: Mapping[str, Any]

    def key(self, record: Mapping[str, str], qi: Sequence[str]) -> tuple[str, ...]:
        """g(t) restricted to the QI columns: the group of record t."""
        return tuple(self.rules.get(c, _keep)(record[c]) for c in qi)


@dataclass(frozen=True)
class RecodingSpec:
    """A parsed spec: optional header/missing/QI defaults and the named recodings."""

    path: str
    columns: tuple[str, ...] | None
    missing: str | None
    qi: tuple[str, ...] | None
    recodings: Mapping[str, Recoding]
    default: str

    def get(self, name: str | None) -> Recoding:
        n = name or self.default
        if n not in self.recodings:
            raise ParameterError(f"recoding {n!r} is not in {self.path} (it has: {', '.join(self.recodings)})")
        return self.recodings[n]


def parse_spec(data: Any, path: str = "<spec>") -> RecodingSpec:
    if not isinstance(data, dict) or not isinstance(data.get("recodings"), dict) or not data["recodings"]:
        raise ParameterError(f"recoding spec {path}: needs a non-empty object 'recodings'")
    hier = data.get("hierarchies", {})
    if not isinstance(hier, dict):
        raise ParameterError(f"recoding spec {path}: 'hierarchies' must be an object")
    recs = {}
    for name, rules in data["recodings"].items():
        if not isinstance(rules, dict):
            raise ParameterError(f"recoding spec {path}: recoding {name!r} must map columns to rules")
        recs[name] = Recoding(name=name, rules={c: _rule(c, r, hier) for c, r in rules.items()}, spec=rules)
    default = data.get("default_recoding", next(iter(recs)))
    if default not in recs:
        raise ParameterError(f"recoding spec {path}: default_recoding {default!r} is not a recoding")
    cols = data.get("columns")
    qi = data.get("qi")
    return RecodingSpec(path=path, columns=tuple(cols) if cols else None, missing=data.get("missing"),
                        qi=tuple(qi) if qi else None, recodings=recs, default=default)


def load_spec(path: str | os.PathLike) -> RecodingSpec:
    """Read a recoding spec (JSON); bad files raise ``ValueError`` with one line."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ParameterError(f"cannot read recoding spec {p}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ParameterError(f"recoding spec {p} is not valid JSON: {exc}") from None
    return parse_spec(data, str(p))


__all__ = ["SUPPRESSED", "Recoding", "RecodingSpec", "load_spec", "parse_spec"]
