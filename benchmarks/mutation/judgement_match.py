"""Does a recorded judgement still describe the mutant its key now names?

A mutant's key counts the occurrences of its (function, operator, before, after) text inside its
function, so an edit above a mutant can give it another key, and a key moved by hand in
``judgements.toml`` can name a different mutant of an older saved campaign.  Before a judgement
is applied to a survivor, its hand-written ``mutant = "..."`` text is compared with the mutant
itself (:func:`mismatch`); a judgement that does not describe it is not applied and the
survivor is reported unjudged, naming both descriptions (:func:`applicable`).

The hand-written text is free (``"inverse/pld_sparse.py sparse_delta: 'if j >= T or q == 0' ->
'if j >= T or q == 1'"``), so the comparison is by tokens, not by string equality.  It must:

* name the module (its path under ``dps_verify/``) and, except at module level, the function;
* show the change: the tokens that differ between the mutant's before and after text (common
  leading and trailing tokens removed) appear left and right of the text's last ``->``
  (a dropped statement: its first two tokens on the left); a text with no ``->`` names the
  changed tokens of the after text, or says ``negated`` / ``pass`` / ``dropped``;
* point at the mutant's statement: at least half of the names in the quoted code left of the
  ``->`` (the whole left side when nothing is quoted; no check for a text with neither quoted
  code nor ``->``, e.g. "condition negated") occur in the source of the statement holding
  the mutant's line (a compound statement's header with its body's first line; when that
  source is known).
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping

from benchmarks.mutation.coverage_map import statement_lines
from benchmarks.mutation.operators import Mutant

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d[\d_]*(?:\.\d+)?(?:e-?\d+)?|\*\*|//|<<|>>|[<>=!]=|"
                    r"[-+*/%<>()\[\],.:&|^~=]")
_QUOTED = re.compile(r"(?<![\w'])'([^']*)'(?![\w'])")


def _tokens(text: str) -> list[str]:
    return [t.replace("_", "") if t[0].isdigit() else t for t in _TOKEN.findall(text)]


def _names(text: str) -> set[str]:
    return {t for t in _tokens(text) if t.isidentifier() and not keyword.iskeyword(t)}


def _changed(before: list[str], after: list[str]) -> tuple[list[str], list[str]]:
    """The tokens of ``before`` and of ``after`` left when their common ends are removed."""
    i = 0
    while i < min(len(before), len(after)) and before[i] == after[i]:
        i += 1
    j = 0
    while j < min(len(before), len(after)) - i and before[-1 - j] == after[-1 - j]:
        j += 1
    return before[i:len(before) - j], after[i:len(after) - j]


def statement_text(source: str, line: int) -> str:
    """The source of the innermost statement holding ``line`` (for a compound statement: its
    header and the first line of its body)."""
    lines = source.splitlines()
    span = statement_lines(source).get(line, (line,))
    if 0 < span[-1] <= len(lines) and lines[span[-1] - 1].rstrip().endswith(":"):
        span = (*span, span[-1] + 1)  # a compound statement's header: and its body's first line
    return "\n".join(lines[k - 1] for k in span if 0 < k <= len(lines))


def mismatch(text: str, mutant: Mutant, statement: str | None = None) -> str | None:
    """Why the judgement text ``text`` does not describe ``mutant`` (None: it does).
    ``statement``: the source of the statement holding the mutant, when known."""
    module = mutant.module.removeprefix("dps_verify/")
    if module not in text:
        return f"it does not name {module}"
    if mutant.function != "<module>" and mutant.function not in text:
        return f"it does not name the function {mutant.function}"
    body = text.split(module, 1)[1]
    gone, new = _changed(_tokens(mutant.before), _tokens(mutant.after))
    if mutant.operator == "drop statement":
        gone = gone[:2]
    if " -> " in body:
        left, right = body.rsplit(" -> ", 1)
        lt, rt = _tokens(left), _tokens(right)
        if not all(t in lt for t in gone) or not all(t in rt for t in new):
            return f"its change is not {' '.join(gone)!r} -> {' '.join(new)!r}"
    else:
        left, words = body, _tokens(body)
        named = (new and all(t in words for t in new)) or any(
            w in words for w in ("negated", "pass", "dropped"))
        if not named:
            return f"it does not show the change {' '.join(gone)!r} -> {' '.join(new)!r}"
    if statement is not None and (_QUOTED.search(left) or " -> " in body):
        quoted = " ".join(_QUOTED.findall(left)) or left
        asked = _names(quoted) - {mutant.function, *mutant.function.split(".")}
        found = asked & _names(statement)
        if asked and 2 * len(found) < len(asked):
            return (f"its code ({', '.join(sorted(asked))}) is not the mutant's statement "
                    f"{statement.strip().splitlines()[0][:80]!r}")
    return None


def applicable(survivors: Iterable[Mutant], judged: Mapping[str, Mapping[str, str]],
               sources: Mapping[str, str | None]) -> dict[str, dict[str, str]]:
    """``judged`` with the judgement of each survivor whose text does not describe it replaced
    by an *unjudged* entry that says why (its reason names the key and both descriptions).
    ``sources``: module -> the source the mutants were made from (None: unknown)."""
    out = {k: dict(v) for k, v in judged.items()}
    for m in survivors:
        j = judged.get(m.key)
        if j is None:
            continue
        src = sources.get(m.module)
        why = mismatch(j.get("mutant", ""), m, statement_text(src, m.line) if src else None)
        if why is not None:
            out[m.key] = {"kind": "unjudged", "mutant": j.get("mutant", ""),
                          "reason": f"the judgement recorded under key {m.key} "
                                    f"({j.get('kind')}) describes {j.get('mutant', '')!r}, not "
                                    f"this mutant {m.describe()!r} ({why}): not applied"}
    return out
