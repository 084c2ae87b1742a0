"""Run a zoo of anonymizers with known verdicts and measure the audit's detection and false-alarm
rates.

A zoo entry is a Python file defining ``anonymize`` (the anonymizer), ``CLAIM`` (keyword
arguments ``beta``, ``epsilon``, ``delta`` and optionally ``definition``), ``DOMAIN`` (domain JSON
dict) and ``EXPECTED`` (``"FAIL"`` for a faulty anonymizer or an over-claim, ``"PASS"`` for a
correct one).  Files whose name starts with ``_`` are helpers.
"""

from __future__ import annotations

import time
from pathlib import Path

from dps_verify.audit.core import audit
from dps_verify.audit.loader import load_callable


def zoo_entries(directory: str | Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.py") if not p.name.startswith(("_", "run_")))


def run_entry(path: str | Path, seed: int = 0) -> dict:
    """Audit one entry; returns its name, expected and actual verdicts, time and witness."""
    anon, mod = load_callable(f"{path}:anonymize")
    t0 = time.perf_counter()
    rep = audit(anon, domain=mod.DOMAIN, seed=seed, **mod.CLAIM)
    return {
        "name": Path(path).stem,
        "expected": mod.EXPECTED,
        "verdict": rep.verdict,
        "method": rep.method,
        "seconds": round(time.perf_counter() - t0, 3),
        "witness": rep.witness.summary() if rep.witness else None,
        "report": rep,
    }


def run_zoo(directory: str | Path, seed: int = 0) -> dict:
    """Audit every entry; detection rate = FAILs among faulty entries, false-alarm rate = non-PASS
    verdicts among correct entries."""
    rows = [run_entry(p, seed) for p in zoo_entries(directory)]
    faulty = [r for r in rows if r["expected"] == "FAIL"]
    correct = [r for r in rows if r["expected"] == "PASS"]
    detected = sum(r["verdict"] == "FAIL" for r in faulty)
    alarms = sum(r["verdict"] != "PASS" for r in correct)
    return {
        "entries": rows,
        "faulty": len(faulty),
        "correct": len(correct),
        "detected": detected,
        "false_alarms": alarms,
        "detection_rate": detected / len(faulty) if faulty else None,
        "false_alarm_rate": alarms / len(correct) if correct else None,
        "seconds": round(sum(r["seconds"] for r in rows), 3),
    }


def format_zoo(result: dict) -> str:
    lines = [f"{'entry':<28} {'expected':<9} {'verdict':<13} {'method':<18} seconds"]
    for r in result["entries"]:
        mark = "ok " if r["verdict"] == r["expected"] else "BAD"
        lines.append(f"{r['name']:<28} {r['expected']:<9} {r['verdict']:<13} {r['method']:<18} "
                     f"{r['seconds']:>7.2f} {mark}")
    lines.append(
        f"detection rate {result['detected']}/{result['faulty']}, false alarms "
        f"{result['false_alarms']}/{result['correct']}, total {result['seconds']:.1f} s"
    )
    return "\n".join(lines)
