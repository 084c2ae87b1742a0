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
import os
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dps_verify.core.errors import ParameterError, UsageError

#: Default largest dataset size (records in D, the target included).
DEFAULT_MAX_SIZE = 40
#: Refuse domains larger than this (the search is quadratic in the number of records).
MAX_DOMAIN_RECORDS = 400


def _hashable(x: Any) -> Hashable:
    if isinstance(x, list | tuple):
        return tuple(_hashable(v) for v in x)
    if isinstance(x, dict):
        raise ParameterError("domain records must be scalars or lists, not objects")
    return x


@dataclass(frozen=True)
class Domain:
    """A finite set of records plus the largest dataset size the audit will build."""

    records: tuple
    max_size: int = DEFAULT_MAX_SIZE
    attributes: tuple[str, ...] | None = field(default=None)

    def __post_init__(self) -> None:
        if not self.records:
            raise ParameterError("domain must contain at least one record")
        if len(set(self.records)) != len(self.records):
            raise ParameterError("domain records must be distinct")
        if len(self.records) > MAX_DOMAIN_RECORDS:
            raise ParameterError(f"domain has {len(self.records)} records; at most {MAX_DOMAIN_RECORDS}")
        if isinstance(self.max_size, bool) or not isinstance(self.max_size, int) or self.max_size < 1:
            raise ParameterError(f"max_size must be an integer >= 1, got {self.max_size!r}")

    @classmethod
    def of(cls, domain: Domain | Iterable | dict | str | os.PathLike, max_size: int | None = None) -> Domain:
        """Coerce a :class:`Domain`, a JSON-like dict, an iterable of records, or the path of a
        domain JSON file (a ``str`` or ``Path`` is read as a file, never iterated: the records
        of ``"domain.json"`` are not its characters)."""
        if isinstance(domain, str | os.PathLike):
            if isinstance(domain, str) and domain.lstrip().startswith(("{", "[")):
                raise ParameterError("domain is a string of JSON text; pass json.loads(text) (a dict) "
                                     "or the path of a domain file")
            return load_domain(domain, max_size)
        if isinstance(domain, bytes | bytearray):
            raise ParameterError("domain must be a Domain, a dict, an iterable of records or a file path, not bytes")
        if isinstance(domain, Domain):
            if max_size is not None:
                return cls(domain.records, max_size, domain.attributes)
            return domain
        if isinstance(domain, dict):
            return domain_from_dict(domain, max_size)
        try:
            recs = tuple(dict.fromkeys(_hashable(r) for r in domain))
        except TypeError:
            raise ParameterError("domain must be a Domain, a dict, an iterable of records or the path of a "
                                 "domain file") from None
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
        raise ParameterError("domain JSON must be an object with 'records' or 'attributes'")
    ms = obj.get("max_size", DEFAULT_MAX_SIZE) if max_size is None else max_size
    if "records" in obj:
        recs = obj["records"]
        if not isinstance(recs, list):
            raise ParameterError("domain 'records' must be a list")
        return Domain(tuple(dict.fromkeys(_hashable(r) for r in recs)), ms)
    if "attributes" in obj:
        attrs = obj["attributes"]
        if not isinstance(attrs, dict) or not attrs or not all(isinstance(v, list) and v for v in attrs.values()):
            raise ParameterError("domain 'attributes' must map names to non-empty lists of values")
        values = [[_hashable(v) for v in vals] for vals in attrs.values()]
        size = 1
        for v in values:
            size *= len(v)
        if size > MAX_DOMAIN_RECORDS:
            raise ParameterError(f"attribute product has {size} records; at most {MAX_DOMAIN_RECORDS}")
        return Domain(tuple(itertools.product(*values)), ms, tuple(attrs))
    raise ParameterError("domain JSON must have a 'records' list or an 'attributes' object")


def load_domain(path: str | os.PathLike, max_size: int | None = None) -> Domain:
    """Read a domain JSON file (format in the module docstring)."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise UsageError(f"cannot read domain file {path}: {exc.strerror}") from None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"domain file {path} is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    return domain_from_dict(obj, max_size)
