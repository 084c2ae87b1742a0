"""Reading the table a plan is evaluated on (CSV), and its group sizes under a recoding.

Records are read with the standard :mod:`csv` module; cells are stripped of surrounding spaces
(UCI Adult writes ``", "``).  A CSV without a header row is read with the column names of the
recoding spec (or ``--columns``); if its first row equals those names it is taken as a header.
A record whose value in a QI column equals the spec's ``missing`` token (``?`` for Adult) is
dropped — a per-record filter that does not depend on other records, so the neighbouring
relation (add/remove one record) is unchanged.
"""

from __future__ import annotations

import csv
import gzip
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path

from dps_verify.core.errors import ParameterError
from dps_verify.plan.recoding import Recoding

#: Largest table read (rows); larger files are refused before any work.
MAX_ROWS = 5_000_000


@dataclass(frozen=True)
class Table:
    """The records kept (as tuples over ``columns``), and how many were dropped as missing."""

    path: str
    columns: tuple[str, ...]
    qi: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    dropped_missing: int

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.columns, r)) for r in self.rows]


def read_table(path: str | os.PathLike, qi: Sequence[str], *, columns: Sequence[str] | None = None,
               missing: str | None = None, max_rows: int = MAX_ROWS, columns_are_default: bool = False) -> Table:
    """Read ``path`` (``.gz`` is decompressed); ``ValueError`` (one line) for a missing file, a QI
    column that is not there, a row of the wrong length or more than ``max_rows`` rows.

    The first row is a header when no ``columns`` are given, when it equals ``columns``, or —
    with ``columns_are_default`` (the names come from a recoding spec, not from the user) — when
    it names every QI column (a file with its own header)."""
    p = Path(path)
    if p.is_dir():
        raise ParameterError(f"--data {p}: is a directory, not a table file (give the CSV inside it)")
    if not p.is_file():
        raise ParameterError(f"--data {p}: no such file")
    if not qi:
        raise ParameterError("--qi: give at least one quasi-identifier column")
    rows: list[tuple[str, ...]] = []
    dropped = 0
    try:
        opener = gzip.open if p.suffix == ".gz" else open
        with opener(p, "rt", newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            header: tuple[str, ...] | None = tuple(columns) if columns else None
            qi_idx = _qi_index(header, qi, p) if header is not None else []
            first = True
            for line_no, raw in enumerate(reader, 1):
                cells = tuple(map(str.strip, raw))
                if not cells or cells == ("",):
                    continue
                if first:
                    first = False
                    if (header is None or cells == header
                            or (columns_are_default and set(qi) <= set(cells))):  # a header row
                        header = cells
                        qi_idx = _qi_index(header, qi, p)
                        continue
                assert header is not None
                if len(cells) != len(header):
                    raise ParameterError(f"--data {p}: line {line_no} has {len(cells)} fields, expected {len(header)}")
                if missing is not None and any(cells[i] == missing for i in qi_idx):
                    dropped += 1
                    continue
                rows.append(cells)
                if len(rows) > max_rows:
                    raise ParameterError(f"--data {p}: more than {max_rows} rows (the plan's budget)")
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError):
        raise ParameterError(f"--data {p}: not UTF-8 text") from None
    except csv.Error as exc:
        raise ParameterError(f"--data {p}: not a readable CSV file ({exc})") from None
    if header is None:
        raise ParameterError(f"--data {p}: the file is empty")
    return Table(path=str(p), columns=header, qi=tuple(qi), rows=tuple(rows), dropped_missing=dropped)


def _qi_index(header: Sequence[str], qi: Sequence[str], p: Path) -> list[int]:
    missing_cols = [c for c in qi if c not in header]
    if missing_cols:
        raise ParameterError(f"--qi: column(s) {', '.join(missing_cols)} not in {p} (columns: {', '.join(header)})")
    return [list(header).index(c) for c in qi]


def group_sizes(table: Table, recoding: Recoding) -> Counter[tuple[str, ...]]:
    """n_g for every group g = g(t) over the QI columns (only non-empty groups).

    g is applied cell by cell and each rule is a function of its cell alone, so the rows are
    counted by their QI cells first and each distinct combination is recoded once, each rule
    called once per distinct value (UCI Adult: 30,162 rows, ~100 values per column).  Both go
    in order of first appearance: a value the spec does not cover raises for the same row and
    column as a row-by-row pass, and the groups come out in the same order."""
    idx = [table.columns.index(c) for c in table.qi]
    rules = [recoding.rules.get(c) for c in table.qi]
    recoded: list[dict[str, str]] = [{} for _ in rules]
    # the QI cells of each row as a tuple (itemgetter of two or more indices makes that tuple)
    cells = Counter(map(itemgetter(*idx), table.rows) if len(idx) > 1
                    else (tuple(r[i] for i in idx) for r in table.rows))
    out: Counter[tuple[str, ...]] = Counter()
    for raw, n in cells.items():
        key = []
        for v, rule, seen in zip(raw, rules, recoded):
            if rule is None:
                key.append(v)
                continue
            g = seen.get(v)
            if g is None:
                g = seen[v] = rule(v)
            key.append(g)
        out[tuple(key)] += n
    return out


def size_histogram(sizes: Counter[tuple[str, ...]]) -> Counter[int]:
    """How many groups have each size n (the utility depends on the sizes only)."""
    return Counter(sizes.values())


__all__ = ["MAX_ROWS", "Table", "group_sizes", "read_table", "size_histogram"]
