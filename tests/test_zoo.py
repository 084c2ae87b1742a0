"""The zoo of examples/zoo: every faulty anonymizer must FAIL, every correct one PASS."""

from __future__ import annotations

from pathlib import Path

import pytest

from dps_verify.audit.zoo import zoo_entries

ZOO = Path(__file__).resolve().parent.parent / "examples" / "zoo"
ENTRIES = zoo_entries(ZOO)


def test_zoo_size():
    from dps_verify.audit.loader import load_callable

    expected = [load_callable(f"{p}:anonymize")[1].EXPECTED for p in ENTRIES]
    assert expected.count("FAIL") >= 8
    assert expected.count("PASS") >= 4


@pytest.mark.parametrize("path", ENTRIES, ids=[p.stem for p in ENTRIES])
def test_zoo_entry(path, zoo_entry_run):
    r = zoo_entry_run(path)
    assert r["verdict"] == r["expected"], r["report"].summary()
    rep = r["report"]
    if r["expected"] == "FAIL":
        w = rep.witness
        # D holds the target; the witness's first dataset may be D or D' (w.direction)
        assert w is not None and len(w.with_target) == len(w.without_target) + 1
        assert {w.dataset, w.neighbour} == {w.with_target, w.without_target}
        assert float(w.implied_delta) > float(rep.claim["delta"])
