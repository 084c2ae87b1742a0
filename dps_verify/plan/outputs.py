"""Files the plan writes, each atomically and never over a file dps-verify did not write.

The project's convention (:mod:`dps_verify.core.fsio`): a report file carries the generator tag
(``"generator": "dps-verify"`` first in JSON), :func:`~dps_verify.core.fsio.check_output_file`
refuses, before any work, an existing file without it unless ``--force``, and every write is
atomic.  This module applies it to the plan's files and adds the two kinds fsio does not know:

* PNG (``--plot``): ours if its ``tEXt`` chunk ``Software`` starts with ``dps-verify``;
* a release CSV (``--release``): ours if its sidecar ``OUT.csv.json`` is ours and records the
  CSV's SHA-256 (a CSV cannot carry a tag without changing the data).

A file that is not ours is refused with one line (:class:`UsageError`, exit 2) and nothing is
written; ``--force`` replaces it.  A missing file is always fine.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

from dps_verify.core.errors import UsageError
from dps_verify.core.fsio import (
    check_output_file,
    generator_json,
    write_bytes,
    write_output_file,
    written_by_us,
)

PNG_SOFTWARE = "dps-verify plan"


def _refuse(path: Path, option: str, why: str) -> UsageError:
    return UsageError(f"{option}: refusing to overwrite {path}: {why} (use --force to replace it, or "
                      "choose another name)")


def png_software(path: Path) -> str | None:
    """The ``Software`` text of a PNG file, or None (not a PNG, or no such chunk)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    if not raw.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos = 8
    while pos + 8 <= len(raw):
        (length,) = struct.unpack(">I", raw[pos:pos + 4])
        kind = raw[pos + 4:pos + 8]
        body = raw[pos + 8:pos + 8 + length]
        if kind == b"tEXt" and b"\x00" in body:
            key, _, val = body.partition(b"\x00")
            if key == b"Software":
                return val.decode("latin-1")
        if kind == b"IEND":
            break
        pos += 12 + length
    return None


def sidecar_path(csv_path: str | os.PathLike) -> Path:
    return Path(str(csv_path) + ".json")


def release_is_ours(csv_path: Path) -> bool:
    side = sidecar_path(csv_path)
    if not written_by_us(side):
        return False
    try:
        recorded = json.loads(side.read_text(encoding="utf-8")).get("release_sha256")
        return bool(recorded) and recorded == hashlib.sha256(csv_path.read_bytes()).hexdigest()
    except (OSError, ValueError, AttributeError):
        return False


def check_json(path: str | os.PathLike, *, force: bool = False) -> None:
    check_output_file(path, option="--json", force=force)


def write_json(path: str | os.PathLike, obj: dict, *, option: str = "--json", force: bool = False,
               what: str = "JSON output") -> Path:
    """Write ``obj`` with the generator tag as JSON, atomically (refusing a file not ours)."""
    return write_output_file(path, json.dumps(generator_json(obj), indent=2) + "\n", option=option,
                             force=force, what=what)


def check_png(path: str | os.PathLike, *, force: bool = False) -> None:
    p = Path(path)
    check_output_file(p, option="--plot", force=True)  # directory and file-kind checks
    if p.exists() and not force and not (png_software(p) or "").startswith("dps-verify"):
        raise _refuse(p.absolute(), "--plot", "it exists and is not a plot dps-verify wrote")


def write_png(path: str | os.PathLike, data: bytes, *, force: bool = False) -> Path:
    """Write PNG bytes (rendered with ``Software = dps-verify plan``) atomically."""
    check_png(path, force=force)
    return write_bytes(path, data, what="plot")


def check_release(csv_path: str | os.PathLike, *, force: bool = False) -> None:
    p = Path(csv_path)
    check_output_file(p, option="--release", force=True)
    if p.exists() and not force and not release_is_ours(p):
        raise _refuse(p.absolute(), "--release", "it exists and is not a release dps-verify wrote "
                      "(no sidecar of ours records its SHA-256)")
    check_output_file(sidecar_path(p), option="--release (sidecar)", force=force)


def write_release(csv_path: str | os.PathLike, csv_text: str, sidecar: dict, *,
                  force: bool = False) -> tuple[Path, Path]:
    """Write a release CSV and its JSON sidecar (which records the CSV's SHA-256), each
    atomically; the CSV first, so a sidecar never describes a CSV that is not there."""
    check_release(csv_path, force=force)
    data = csv_text.encode("utf-8")
    out = write_bytes(csv_path, data, what="release")
    side = write_json(sidecar_path(csv_path),
                      {**sidecar, "release_file": Path(csv_path).name,
                       "release_sha256": hashlib.sha256(data).hexdigest()},
                      option="--release (sidecar)", force=True, what="release sidecar")
    return out, side


__all__ = ["PNG_SOFTWARE", "check_json", "check_png", "check_release", "png_software",
           "release_is_ours", "sidecar_path", "write_json", "write_png", "write_release"]
