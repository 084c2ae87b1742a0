"""The record domain an audit searches over, and its JSON form.

CP §2.1 compares neighbouring datasets D and D' = D ± t.  An audit cannot range over every
dataset, so the user names a finite domain of records and a largest dataset size; the search
(:mod:`dps_verify.audit.search`) builds its candidate datasets from these records only.

JSON format (either form; ``max_size`` is optional)::

    {"records": [[30, "M"], [45, "F"], ...], "max_size": 40}
    {"attributes": {"age": [20, 30, 90], "sex": ["M", "F"]}, "max_size": 40}

Lists inside records become tuples (records must be hashable).  With ``attributes`` the domain is
the Cartesian product, each record a tuple in the order the attributes are listed.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Default largest dataset size (records in D, the target included).
DEFAULT_MAX_SIZE = 40
#: Refuse domains larger than this (the search is quadratic in the number of records).
MAX_DOMAIN_RECORDS = 400


def _hashable(x: Any) -> Hashable:
    if isinstance(x, list | tuple):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        raise ValueError("domain records must be scalars or lists, not objects")
    return x


@dataclass(frozen=True)
class Domain:
    """A finite set of records plus the largest dataset size the audit will build."""

    records: tuple
    max_size: int = DEFAULT_MAX_SIZE
    attributes: tuple[str, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        if not self.records:
            raise ValueError("domain must contain at least one record")
        if len(set(self.records)) != len(self.records):
            raise ValueError("domain records must be distinct")
        if len(self.records) > MAX_DOMAIN_RECORDS:
            raise ValueError(f"domain has {len(self.records)} records; at most {MAX_DOMAIN_RECORDS}")
        if isinstance(self.max_size, bool) or not isinstance(self.max_size, int) or self.max_size < 1:
            raise ValueError(f"max_size must be an integer >= 1, got {self.max_size!r}")

    @classmethod
    def of(cls, domain: Domain | Iterable | dict, max_size: int | None = None) -> Domain:
        """Coerce a :class:`Domain`, a JSON-like dict, or an iterable of records."""
        if isinstance(domain, Domain):
            if max_size is not None:
                return cls(domain.records, max_size, domain.attributes)
            return domain
        if isinstance(domain, dict):
            return domain_from_dict(domain, max_size)
        try:
            recs = tuple(dict.fromkeys(_hashable(r) for r in domain))
        except TypeError:
            raise ValueError("domain must be a Domain, a dict or an iterable of records") from None
        return cls(recs, DEFAULT_MAX_SIZE if max_size is None else max_size)

    def describe(self) -> dict:
        return {
            "records": len(self.records),
            "attributes": list(self.attributes) if self.attributes else None,
            "max_size": self.max_size,
            "sample": [repr(r) for r in self.records[:5]],
        }


def domain_from_dict(obj: dict, max_size: int | None = None) -> Domain:
    """Build a :class:`Domain` from the JSON structure described in the module docstring."""
    if not isinstance(obj, dict):
        raise ValueError("domain JSON must be an object with 'records' or 'attributes'")
    ms = obj.get("max_size", DEFAULT_MAX_SIZE) if max_size is None else max_size
    if "records" in obj:
        recs = obj["records"]
        if not isinstance(recs, list):
            raise ValueError("domain 'records' must be a list")
        return Domain(tuple(dict.fromkeys(_hashable(r) for r in recs)), ms)
    if "attributes" in obj:
        attrs = obj["attributes"]
        if not isinstance(attrs, dict) or not attrs or not all(isinstance(v, list) and v for v in attrs.values()):
            raise ValueError("domain 'attributes' must map names to non-empty lists of values")
        values = [[_hashable(v) for v in vals] for vals in attrs.values()]
        size = 1
        for v in values:
            size *= len(v)
        if size > MAX_DOMAIN_RECORDS:
            raise ValueError(f"attribute product has {size} records; at most {MAX_DOMAIN_RECORDS}")
        return Domain(tuple(itertools.product(*values)), ms, tuple(attrs))
    raise ValueError("domain JSON must have a 'records' list or an 'attributes' object")


def load_domain(path: str | Path, max_size: int | None = None) -> Domain:
    """Read a domain JSON file (format in the module docstring)."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise ValueError(f"cannot read domain file {path}: {exc.strerror}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"domain file {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    return domain_from_dict(obj, max_size)
