"""``dps-verify where`` and the paper index stay true.

- every path the index names exists and every ``path::name`` is defined in that file;
- every id in use — proof modules (``dps-verify prove``), walkthroughs (``explore``), claim ids
  and the proof ids claims consult, ids cited in code, docs and notebooks — is in the index;
- every spelling of an id reads back to the same id; absent items carry a reason;
- docs/paper-map.md is the generator's current output.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from dps_verify import cli
from dps_verify.paper import index, refs
from tests.test_import_graph import parsed

ROOT = Path(__file__).resolve().parents[1]
ID_IN_TEXT = re.compile(
    r"\b(cp|tr)[.-](theorem|proposition|corollary|definition|algorithm)-?([0-9]+)\b")
SCANNED = ("dps_verify", "docs", "notebooks", "properties", "README.md")


def _defined_names(path: Path) -> set[str]:
    tree = parsed(path)  # parsed once per session (many entries name the same module)
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def broken_references(entries) -> list[str]:
    """What an index entry names that does not exist (empty when the index is true)."""
    bad = []
    for e in entries:
        for p in index.all_paths(e):
            if not (ROOT / p).exists():
                bad.append(f"{e.id}: missing file {p}")
        if isinstance(e.code, tuple):
            for c in e.code:
                path, _, name = c.partition("::")
                if name and (ROOT / path).exists() and name not in _defined_names(ROOT / path):
                    bad.append(f"{e.id}: {name} is not defined in {path}")
        for rel in e.related:
            if rel not in index.ENTRIES:
                bad.append(f"{e.id}: related id {rel} is not indexed")
    return bad


def test_every_ref_has_one_entry():
    assert set(index.ENTRIES) == set(refs.BY_ID)
    assert len(refs.REFS) == len(refs.BY_ID)


def test_every_path_exists_and_every_name_is_defined():
    assert broken_references(index.ENTRIES.values()) == []


def test_negative_control_a_wrong_entry_is_caught():
    good = index.ENTRIES["cp.theorem5"]
    from dataclasses import replace

    wrong = replace(good, proof="proofs/cp_theorem_55.py",
                    code=("dps_verify/worstcase/closed_forms.py::no_such_function",),
                    related=("cp.theorem55",))
    assert len(broken_references([wrong])) == 3


def test_absent_items_give_a_reason():
    for e in index.ENTRIES.values():
        for v in (e.proof, e.properties, e.notebooks, e.docs, e.code):
            if isinstance(v, index.Absent):
                assert len(v.reason) > 15, e.id
            else:
                assert v, f"{e.id}: an empty field must be an Absent with a reason"


@pytest.mark.parametrize("ref", ["cp.theorem1", "cp.theorem2", "cp.theorem3", "cp.proposition4",
                                 "cp.theorem5", "cp.theorem6", "tr.theorem1", "tr.theorem2",
                                 "tr.theorem3", "tr.corollary4", "tr.theorem5", "tr.theorem6"])
def test_every_theorem_of_both_versions_is_answered(ref):
    d = index.as_dict(ref)
    assert d["id"] == ref and d["proof"] and d["properties"] and d["notebooks"] and d["code"]


def test_every_proof_module_and_walkthrough_id_is_indexed():
    from dps_verify.paper import kernel as proofs
    from dps_verify.paper import walkthroughs

    for pid in [*proofs._MODULES, *walkthroughs.WALKTHROUGHS]:
        cid = refs.canonical(pid)
        assert cid in index.ENTRIES
        assert refs.proof_id(cid) == pid
    for pid in proofs._MODULES:  # the index points at the same module
        e = index.ENTRIES[refs.canonical(pid)]
        assert e.proof == f"proofs/{proofs._MODULES[pid]}.py"


def test_every_claim_is_about_an_indexed_item():
    from dps_verify.paper.claims import REGISTRY

    unmapped = [c.id for c in REGISTRY
                if refs.ref_of_claim(c.id) is None and c.id not in refs.GROUPS]
    assert unmapped == []
    for c in REGISTRY:
        for pid in c.proofs:
            assert refs.canonical(pid) in index.ENTRIES, (c.id, pid)
    for cid, e in index.ENTRIES.items():
        if not index.claims_for(cid):
            assert e.no_claims, f"{cid} has no claim and no reason why"


def test_every_id_cited_in_code_docs_and_notebooks_is_indexed():
    unknown = set()
    for top in SCANNED:
        paths = [ROOT / top] if top.endswith(".md") else sorted((ROOT / top).rglob("*"))
        for path in paths:
            if path.suffix not in (".py", ".md") or path.name == "refs.py":
                continue
            for m in ID_IN_TEXT.finditer(path.read_text(encoding="utf-8", errors="replace")):
                cid = f"{m.group(1)}.{m.group(2)}{m.group(3)}"
                if cid not in index.ENTRIES:
                    unknown.add(f"{path.relative_to(ROOT)}: {m.group(0)}")
    assert not unknown, sorted(unknown)


@pytest.mark.parametrize("spelling, cid", [
    ("cp.theorem5", "cp.theorem5"), ("cp-theorem-5", "cp.theorem5"), ("CP Thm 5", "cp.theorem5"),
    ("TR §6 Thm 6", "tr.theorem6"), ("cp.sec2.6", "cp.section2.6"), ("CP §2.6", "cp.section2.6"),
    ("cp.fig4", "cp.figure4"), ("cp.def3", "cp.definition3"), ("cp.appA2", "cp.appendixA.2"),
    ("CP App. A.2", "cp.appendixA.2"), ("CP Prop. 4", "cp.proposition4"),
    ("tr-definition-2", "tr.definition2"), ("cp.intro", "cp.section1"),
])
def test_spellings_read_back(spelling, cid):
    assert refs.canonical(spelling) == cid
    assert refs.canonical(refs.BY_ID[cid].label) == cid


@pytest.mark.parametrize("bad", ["tr.theorem4", "cp.theorem4", "cp.theorem9", "cp.figure9",
                                 "nonsense", "cp.theorem"])
def test_unknown_ids_are_refused_with_a_reason(bad):
    with pytest.raises(refs.UnknownRef):
        refs.canonical(bad)


def test_cli_where_prints_the_map(capsys):
    assert cli.main(["where", "CP Thm 5"]) == 0
    out = capsys.readouterr().out
    assert "proofs/cp_theorem_5.py" in out
    assert "properties/test_cp_theorem_5.py" in out and "cp.theorem5" in out
    assert cli.main(["where", "tr.theorem6", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["properties"] == ["properties/test_tr_theorem_6.py"]


def test_cli_where_unknown_id_is_a_usage_error(capsys):
    assert cli.main(["where", "tr.theorem4"]) == 2
    assert "Corollary 4" in capsys.readouterr().err


def test_cli_where_list(capsys):
    assert cli.main(["where", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == len(refs.REFS)


def test_help_lists_where(capsys):
    """In this process (tests/test_api.py runs ``python -m dps_verify.cli --help`` itself)."""
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code in (0, None)
    assert "where" in capsys.readouterr().out


def test_paper_map_is_up_to_date():
    committed = (ROOT / "docs" / "paper-map.md").read_text(encoding="utf-8")
    assert committed == index.markdown(), (
        "docs/paper-map.md is stale: run `dps-verify where --markdown > docs/paper-map.md`")
