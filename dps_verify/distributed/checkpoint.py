"""Resume a long run: finished task results kept in a JSON file.

The file records a fingerprint of the run (pipeline, data, claim, seed, task plan); results are
reused only when the fingerprint matches, so a changed run never picks up stale trials.  The file
is rewritten atomically after each batch (:func:`dps_verify.core.fsio.write_text`), and a path
holding something this tool did not write is refused.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dps_verify.core.errors import UsageError


class Checkpoint:
    """Task results by key, for one run fingerprint; ``path=None`` keeps nothing."""

    FORMAT = "dps-verify checkpoint 1"

    def __init__(self, path: str | Path | None, fingerprint: str):
        self.path = Path(path) if path is not None else None
        self.fingerprint = fingerprint
        self.results: dict[str, Any] = {}
        self.resumed = 0
        if self.path is not None and self.path.exists():
            try:
                data = json.loads(self.path.read_text())
            except (OSError, ValueError) as exc:
                raise UsageError(f"--checkpoint {self.path}: not a readable checkpoint ({exc})") from None
            if not isinstance(data, dict) or data.get("format") != self.FORMAT:
                raise UsageError(f"--checkpoint {self.path}: exists and is not a dps-verify "
                                 "checkpoint; refusing to overwrite it")
            if data.get("fingerprint") == fingerprint:
                self.results = dict(data.get("results", {}))
                self.resumed = len(self.results)

    def get(self, key: str) -> Any:
        return self.results.get(key)

    def put_many(self, items: dict[str, Any]) -> None:
        self.results.update(items)
        self.save()

    def save(self) -> None:
        if self.path is None:
            return
        from dps_verify.core import fsio

        text = json.dumps({"format": self.FORMAT, "fingerprint": self.fingerprint,
                           "results": self.results})
        fsio.write_text(self.path, text, what="checkpoint")


__all__ = ["Checkpoint"]
