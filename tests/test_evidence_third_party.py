"""Third-party evidence beside a registry claim: CP §3.1 on anonypy's Mondrian over real Adult
records (dps_verify/paper/evidence.py), with its negative control."""

from __future__ import annotations

import pytest

pytest.importorskip("anonypy")


def test_evidence_names_a_registered_claim() -> None:
    from dps_verify.paper.claims import REGISTRY
    from dps_verify.paper.evidence import EVIDENCE

    ids = {c.id for c in REGISTRY}
    assert set(EVIDENCE) <= ids


def test_anonypy_mondrian_reveals_the_oldest_adult_record_and_the_control_is_refuted() -> None:
    from dps_verify.paper.evidence import anonypy_mondrian_inside_record, anonypy_mondrian_outlier

    res = anonypy_mondrian_outlier()
    assert res["verdict"] == "CONFIRMED" and res["outlier"][0] == 90
    assert anonypy_mondrian_inside_record()["verdict"] == "REFUTED"
