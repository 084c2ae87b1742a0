"""Files the plan writes, each atomically and never over a file dps-verify did not write.

:mod:`dps_verify.core.fsio` makes every write atomic; this module adds the ownership test for a
single file the user names (``--json``, ``--plot``, ``--release``):

* JSON: ours if it parses and its top level has ``"tool": "dps-verify"``;
* PNG: ours if its ``tEXt`` chunk ``Software`` starts with ``dps-verify``;
* a release CSV: ours if its sidecar ``OUT.csv.json`` is ours and records the CSV's SHA-256.

A file that is not ours is refused with one line (:class:`UsageError`, exit 2); nothing is
written.  A missing file is always fine.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from pathlib import Path

from dps_verify.core.errors import UsageError
from dps_verify.core.fsio import write_bytes, write_text

TOOL = "dps-verify"
PNG_SOFTWARE = "dps-verify plan"


def _refuse(path: Path, why: str) -> UsageError:
    return UsageError(f"refusing to overwrite {path}: {why}; choose another name or move it away")


def json_is_ours(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and data.get("tool") == TOOL


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


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sidecar_path(csv_path: str | os.PathLike) -> Path:
    return Path(str(csv_path) + ".json")


def release_is_ours(csv_path: Path) -> bool:
    side = sidecar_path(csv_path)
    if not json_is_ours(side):
        return False
    try:
        recorded = json.loads(side.read_text(encoding="utf-8")).get("release_sha256")
        return bool(recorded) and recorded == sha256_file(csv_path)
    except OSError:
        return False


def _check(path: Path, ours: bool, what: str) -> None:
    if os.path.lexists(path):
        if not path.is_file():
            raise _refuse(path, "it exists and is not a regular file")
        if not ours:
            raise _refuse(path, f"it is not a {what} dps-verify wrote")


def write_json(path: str | os.PathLike, obj: dict, *, what: str = "JSON output") -> Path:
    """Write ``obj`` (which gets ``"tool": "dps-verify"``) as JSON, atomically."""
    p = Path(path)
    _check(p, os.path.lexists(p) and json_is_ours(p), "JSON file")
    return write_text(p, json.dumps({"tool": TOOL, **obj}, indent=2) + "\n", what=what)


def check_png(path: str | os.PathLike) -> None:
    p = Path(path)
    _check(p, os.path.lexists(p) and (png_software(p) or "").startswith(TOOL), "PNG file")


def write_png(path: str | os.PathLike, data: bytes) -> Path:
    """Write PNG bytes (rendered with ``Software = dps-verify plan``) atomically."""
    check_png(path)
    return write_bytes(path, data, what="plot")


def check_release(csv_path: str | os.PathLike) -> None:
    p = Path(csv_path)
    _check(p, os.path.lexists(p) and release_is_ours(p), "release")
    side = sidecar_path(p)
    _check(side, os.path.lexists(side) and json_is_ours(side), "release sidecar")


def write_release(csv_path: str | os.PathLike, csv_text: str, sidecar: dict) -> tuple[Path, Path]:
    """Write a release CSV and its JSON sidecar (which records the CSV's SHA-256), each
    atomically; the CSV first, so a sidecar never describes a CSV that is not there."""
    check_release(csv_path)
    data = csv_text.encode("utf-8")
    out = write_bytes(csv_path, data, what="release")
    side = write_json(sidecar_path(csv_path),
                      {**sidecar, "release_file": Path(csv_path).name,
                       "release_sha256": hashlib.sha256(data).hexdigest()},
                      what="release sidecar")
    return out, side


__all__ = ["PNG_SOFTWARE", "TOOL", "check_png", "check_release", "json_is_ours", "png_software",
           "release_is_ours", "sidecar_path", "write_json", "write_png", "write_release"]
