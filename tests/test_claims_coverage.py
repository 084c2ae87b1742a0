"""docs/claims-coverage.md: every item of both versions maps to registry ids, every
registry id is in the document, and the document is the current rendering."""

from __future__ import annotations

from pathlib import Path

from dps_verify.paper.claims import REGISTRY
from dps_verify.paper.claims.coverage import ITEMS, render

DOC = Path(__file__).resolve().parents[1] / "docs" / "claims-coverage.md"


def test_every_listed_item_maps_to_existing_ids():
    ids = {c.id for c in REGISTRY}
    missing = [(v, item, i) for v, item, _, its in ITEMS for i in its if i not in ids]
    assert not missing
    assert all(its for *_, its in ITEMS)


def test_every_paper_claim_is_listed_as_an_item():
    listed = {i for *_, its in ITEMS for i in its}
    unlisted = [c.id for c in REGISTRY if c.source != "beyond" and c.id not in listed]
    assert not unlisted


def test_every_registry_id_appears_in_the_document():
    text = DOC.read_text()
    assert all(f"`{c.id}`" in text for c in REGISTRY)


def test_document_is_current():
    assert DOC.read_text() == render(), "regenerate: python -m dps_verify.paper.claims.coverage > docs/claims-coverage.md"


def test_readme_findings_and_summary_match_the_registry():
    """README "What the checks found" (and docs/paper.md "Findings") list exactly the findings `dps-verify paper` prints (every
    entry expected REFUTED or CONFIRMED-WITH-CORRECTION, with that label), and its excerpt's
    summary line has the registry's counts (the runner exits 1 unless every verdict is the
    expected one, so expected verdicts are what the command prints)."""
    import re
    from collections import Counter

    from dps_verify.paper.claims.base import CORRECTED, NMC, REFUTED

    findings = {c.id: ("REFUTED" if c.expected == REFUTED else "CORRECTION")
                for c in REGISTRY if c.expected in (REFUTED, CORRECTED)}
    counts = Counter(c.expected for c in REGISTRY)
    for doc, heading in (("README.md", "### What the checks found"), ("docs/paper.md", "## Findings")):
        text = (DOC.parents[1] / doc).read_text()
        section = text.split(heading)[1].split("\n## ")[0]
        listed = {cid: label for label, cid in
                  re.findall(r"^- \*\*(REFUTED|CORRECTION)\*\* `([^`]+)`", section, re.M)}
        assert listed == findings, doc
        assert f"NOT-MACHINE-CHECKABLE ({counts[NMC]}," in section, doc
        summary = re.search(r"^(\d+) claims in [\d.]+ s: (.*); (\d+) as expected, 0 unexpected$", text, re.M)
        assert summary and int(summary[1]) == int(summary[3]) == len(REGISTRY), doc
        shown = {v: int(n) for n, v in re.findall(r"(\d+) ([A-Z-]+)", summary[2])}
        assert shown == {v: n for v, n in counts.items() if n}, doc
    assert f"findings ({len(findings)})" in (DOC.parents[1] / "README.md").read_text()
