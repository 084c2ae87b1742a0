"""Rebuild ``dps_verify/data/adult_qi.csv.gz`` from the UCI Adult training file.

    python examples/adult/make_data.py ../shared/data/adult.data

Keeps the quasi-identifiers used by the worked example (age, education, education-num,
marital-status, race, sex) and drops every record with a missing value ('?') in any of the
15 attributes, leaving the usual 30,162 records.
"""

from __future__ import annotations

import csv
import gzip
import io
import sys
from pathlib import Path

COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
           "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
           "hours-per-week", "native-country", "income"]
KEEP = ["age", "education", "education-num", "marital-status", "race", "sex"]
OUT = Path(__file__).resolve().parents[2] / "dps_verify" / "data" / "adult_qi.csv.gz"


def main(src: str) -> None:
    rows = []
    with open(src, newline="") as fh:
        for rec in csv.reader(fh, skipinitialspace=True):
            if len(rec) != len(COLUMNS) or any(v.strip() == "?" for v in rec):
                continue
            d = dict(zip(COLUMNS, (v.strip() for v in rec)))
            rows.append([d[c] for c in KEEP])
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(KEEP)
    w.writerows(rows)
    with gzip.GzipFile(OUT, "wb", mtime=0) as gz:
        gz.write(buf.getvalue().encode())
    print(f"wrote {len(rows)} records to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/adult.data")
