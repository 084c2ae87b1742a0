"""``dps-verify where ID``: where a theorem (or definition, section, figure …) of the paper lives
in this repository — its proof module, property tests, claims, notebooks, docs and code, with
the reason whenever one of them is absent (:mod:`dps_verify.paper.index`).

``ID`` may be spelled ``cp.theorem5``, ``cp-theorem-5`` or ``"CP Thm 5"``; ``--list`` lists
every id.  Exit code 2 for an id that names nothing (with the reason, e.g. TR has no Thm 4).
"""

from __future__ import annotations

import argparse
import json

from dps_verify.cli import COMMANDS
from dps_verify.core.errors import UsageError

NAME = "where"
HELP = COMMANDS[NAME]

_FIELDS = (("proof", "proof"), ("properties", "property tests"), ("tests", "other tests"),
           ("claims", "claims"), ("notebooks", "notebooks"), ("docs", "docs"), ("code", "code"),
           ("commands", "try"), ("related", "see also"), ("note", "note"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", nargs="?", help="e.g. cp.theorem5, 'CP Thm 5', tr.theorem6, cp.figure4")
    p.add_argument("--list", action="store_true", help="list every id with its citation and title")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--markdown", action="store_true",
                   help="print the whole map as Markdown (docs/paper-map.md is generated so)")
    p.add_argument("--no-claims", action="store_true",
                   help="do not load the claim registry (faster; claims are then not listed)")


def render(d: dict[str, object]) -> str:
    """The entry as aligned text."""
    lines = [f"{d['id']} — {d['label']}: {d['title']}"]
    width = max(len(label) for _, label in _FIELDS)
    for key, label in _FIELDS:
        v = d.get(key)
        if v in (None, "", []):
            continue
        items = v if isinstance(v, list) else [v]
        for i, item in enumerate(items):
            lines.append(f"  {(label if i == 0 else ''):<{width}}  {item}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from dps_verify.paper import index, refs

    if args.markdown:
        print(index.markdown(), end="")
        return 0
    if args.list or not args.id:
        rows = [{"id": r.id, "label": r.label, "title": r.title} for r in refs.REFS]
        if args.json:
            print(json.dumps(rows, indent=2, ensure_ascii=False))
        else:
            w = max(len(r["id"]) for r in rows)
            for r in rows:
                print(f"{r['id']:<{w}}  {r['label']:<12}  {r['title']}")
        return 0
    try:
        cid = refs.canonical(args.id)
    except refs.UnknownRef as exc:
        raise UsageError(str(exc)) from None
    claim_ids: list[str] | None = [] if args.no_claims else None
    d = index.as_dict(cid, claim_ids)
    if args.no_claims:
        d["claims"] = "not loaded (--no-claims)"
    if args.json:
        print(json.dumps(d, indent=2, ensure_ascii=False))
    else:
        print(render(d))
    return 0
