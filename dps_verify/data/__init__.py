"""Data shipped with the package (see ``README.md`` in this folder for sources and licences)."""

from __future__ import annotations

import csv
import gzip
import io
from importlib import resources


def load_adult_qi() -> list[dict[str, str | int]]:
    """The UCI Adult quasi-identifiers (Becker & Kohavi 1996, CC BY 4.0): 30,162 records with
    ``age`` and ``education-num`` as integers and the other columns as strings."""
    raw = resources.files(__package__).joinpath("adult_qi.csv.gz").read_bytes()
    text = gzip.decompress(raw).decode()
    rows: list[dict[str, str | int]] = []
    for rec in csv.DictReader(io.StringIO(text)):
        rows.append({k: int(v) if k in ("age", "education-num") else v for k, v in rec.items()})
    return rows
