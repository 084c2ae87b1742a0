"""docs/claims-coverage.md (issue #13): every item of both versions maps to registry ids, every
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
