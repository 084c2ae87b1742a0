"""One id per numbered item of the paper: ``cp.theorem5``, ``tr.theorem6``, ``cp.definition3`` …

CP is the ASIACCS 2012 paper, TR the 2011 technical report.  Canonical ids are
``<version>.<kind><number>`` with ``kind`` one of theorem, proposition, corollary, definition,
algorithm, section, table, figure, appendix (``cp.section2.6``, ``cp.figure4``,
``cp.appendixA.2``).  :func:`canonical` reads the other spellings in use — the proof ids of
``dps-verify prove`` (``cp-theorem-5``), the claim ids of ``dps-verify paper`` (``cp.fig4.…``,
``cp.sec3.3.…``, ``cp.def3.…``, ``cp.appA2.…``, ``cp.intro.…``) and the citations in prose
(``CP Thm 5``, ``TR §6 Thm 6``, ``CP §2.6``) — and maps them to the canonical id.

Numbering facts worth knowing: TR has no Theorem 4 (its fourth numbered result is Corollary 4);
CP has no Theorem 4 either (its fourth is Proposition 4).  TR §4 Thm 1 is the result CP states
as Thm 5; TR Thm 3 is the result CP strengthens as Thm 1.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

VERSIONS = {"cp": "CP", "tr": "TR"}

#: kind -> short label used in citations ("CP Thm 5").
KINDS: dict[str, str] = {
    "theorem": "Thm",
    "proposition": "Prop.",
    "corollary": "Cor.",
    "definition": "Def.",
    "algorithm": "Alg.",
    "section": "§",
    "table": "Table",
    "figure": "Fig.",
    "appendix": "App.",
    "abstract": "Abstract",
}

_KIND_ALIASES: dict[str, str] = {
    "theorem": "theorem", "thm": "theorem", "th": "theorem",
    "proposition": "proposition", "prop": "proposition",
    "corollary": "corollary", "cor": "corollary",
    "definition": "definition", "def": "definition", "defn": "definition",
    "algorithm": "algorithm", "alg": "algorithm", "algo": "algorithm",
    "section": "section", "sec": "section", "§": "section",
    "table": "table", "tab": "table",
    "figure": "figure", "fig": "figure",
    "appendix": "appendix", "app": "appendix",
}


@dataclass(frozen=True)
class Ref:
    """One numbered item of one version of the paper."""

    id: str
    title: str

    @property
    def version(self) -> str:
        """"CP" or "TR"."""
        return VERSIONS[self.id.split(".", 1)[0]]

    @property
    def kind(self) -> str:
        return re.match(r"[a-z]+", self.id.split(".", 1)[1]).group(0)  # type: ignore[union-attr]

    @property
    def number(self) -> str:
        return self.id.split(".", 1)[1][len(self.kind):]

    @property
    def label(self) -> str:
        """The citation form used in prose and reports: "CP Thm 5", "TR §6", "CP App. A.2"."""
        if self.id in READINGS:
            base, _, reading = READINGS[self.id]
            return f"{BY_ID[base].label} ({reading})"
        if self.kind == "abstract":
            return f"{self.version} Abstract"
        sep = "" if self.kind == "section" else " "
        return f"{self.version} {KINDS[self.kind]}{sep}{self.number}"


def _r(id_: str, title: str) -> Ref:
    return Ref(id_, title)


#: Every item, CP first, in the paper's order within each kind.
REFS: tuple[Ref, ...] = (
    # ---- CP (ASIACCS 2012) -------------------------------------------------------------------
    _r("cp.abstract", "Abstract"),
    _r("cp.section1", "Introduction"),
    _r("cp.section2", "Differential privacy under sampling"),
    _r("cp.section2.1", "Differential privacy"),
    _r("cp.section2.2", "Uncertain background knowledge; the XOR non-composition example"),
    _r("cp.section2.3", "Differential privacy under sampling (DPS)"),
    _r("cp.section2.4", "The amplification effect of sampling"),
    _r("cp.section2.5", "Properties of DPS"),
    _r("cp.section2.6", "More non-composability: a DPS release next to an ε-DP one"),
    _r("cp.section2.7", "Benefiting from sampling"),
    _r("cp.section3", "Safe k-anonymization meets differential privacy"),
    _r("cp.section3.1", "An analysis of k-anonymity (CLR, Mondrian)"),
    _r("cp.section3.2", "Towards safe k-anonymization"),
    _r("cp.section3.3", "Privacy of strongly-safe k-anonymization"),
    _r("cp.section3.4", "ε-safe k-anonymization"),
    _r("cp.section3.5", "Remarks on the result"),
    _r("cp.section4", "Related work"),
    _r("cp.section5", "Conclusions"),
    _r("cp.definition1", "ε-differential privacy"),
    _r("cp.definition2", "(ε, δ)-differential privacy (hockey-stick form)"),
    _r("cp.definition3", "(β, ε, δ)-differential privacy under sampling"),
    _r("cp.definition4", "k-anonymity as a privacy notion"),
    _r("cp.definition5", "strongly-safe k-anonymization"),
    _r("cp.definition6", "ε-safe k-anonymization"),
    _r("cp.algorithm1", "Clustering and local recoding (CLR)"),
    _r("cp.theorem1", "Amplification: (β1, ε1, δ1)-DPS implies (β2, ε2, δ2)-DPS for β2 < β1"),
    _r("cp.theorem2", "DPS is closed under post-processing"),
    _r("cp.theorem3", "DPS is closed under mixtures of mechanisms"),
    _r("cp.proposition4", "No strongly-safe k-anonymizer is (ε, δ)-DP for δ < 1 without sampling"),
    _r("cp.theorem5", "Sampling + strongly-safe k-anonymization is (β, ε, d(k, β, ε))-DPS"),
    _r("cp.theorem6", "Sampling + ε1-safe k-anonymization is (β, ε, d(k, β, ε − ε1))-DPS"),
    _r("cp.theorem6.full-data", "CP Thm 6 when the recoding is chosen on the unsampled D"),
    _r("cp.table1", "Amplification of ε and δ for two sampling rates"),
    _r("cp.table2", "d(k, β, ε): the k needed for small δ"),
    _r("cp.figure1", "The saw-tooth of the binomial tail in n"),
    _r("cp.figure2", "δ against ε for several k (β = 0.2)"),
    _r("cp.figure3", "δ against ε for several β (k = 20)"),
    _r("cp.figure4", "Doubling β and compensating with k"),
    _r("cp.figure5", "δ for small k at β = 0.025"),
    _r("cp.figure6", "The (β, ε) frontier for a target δ"),
    _r("cp.appendixA.1", "Proof of CP Thm 1"),
    _r("cp.appendixA.2", "Proof of CP Thm 5"),
    _r("cp.appendixA.3", "Proof of CP Thm 6"),
    # ---- TR (2011 technical report) ----------------------------------------------------------
    _r("tr.abstract", "Abstract"),
    _r("tr.section1", "Introduction"),
    _r("tr.section2", "Differential privacy"),
    _r("tr.section3", "An analysis of k-anonymity"),
    _r("tr.section4", "k-anonymity meets differential privacy (the SDGS algorithm)"),
    _r("tr.section5", "Differential privacy with uncertain background knowledge (UDP)"),
    _r("tr.section6", "Smooth error bound"),
    _r("tr.section7", "Related work"),
    _r("tr.section8", "Conclusions and future work"),
    _r("tr.definition1", "ε-differential privacy"),
    _r("tr.definition2", "(ε, δ)-differential privacy (pointwise form)"),
    _r("tr.definition3", "k-anonymity"),
    _r("tr.definition4", "(β, ε, δ)-UDP: differential privacy under β-sampling"),
    _r("tr.definition5", "f-smooth (ε, δ)-differential privacy"),
    _r("tr.algorithm1", "k-duplication"),
    _r("tr.algorithm2", "Clustering and local recoding (CLR)"),
    _r("tr.algorithm3", "Data-independent generalization + k-suppression (k-DGS)"),
    _r("tr.algorithm4", "β-sampling + k-DGS ((k, β)-SDGS)"),
    _r("tr.algorithm5", "δ-sampling"),
    _r("tr.theorem1", "(k, β)-SDGS is (ε, δ)-DP (the result CP states as Thm 5)"),
    _r("tr.theorem2", "Composition of UDP mechanisms"),
    _r("tr.theorem3", "Lower sampling rates give stronger UDP (CP Thm 1's ancestor)"),
    _r("tr.corollary4", "An ε-DP algorithm is (β, ε')-UDP"),
    _r("tr.theorem5", "Composition of f-smooth (ε, δ)-DP mechanisms"),
    _r("tr.theorem6", "(k, β)-SDGS satisfies an f-smooth (ε0, δ0) bound (Chernoff form)"),
    _r("tr.table1", "Example table for k-anonymity"),
    _r("tr.figure7", "The smooth bound f of TR Thm 6"),
)

BY_ID: dict[str, Ref] = {r.id: r for r in REFS}

#: Items that are one reading of a numbered item (a theorem whose verdict depends on how a
#: definition is read): id -> (the item, the ``prove`` id suffix, the reading in words).
READINGS: dict[str, tuple[str, str, str]] = {
    "cp.theorem6.full-data": ("cp.theorem6", "full-data",
                              "App. A.3 reading: the recoding is chosen on the unsampled D"),
}
#: Every accepted spelling of a reading item (``cp-theorem-6-full-data`` as ``prove`` names it).
_READING_SPELLINGS: dict[str, str] = {
    spelling: rid for rid, (base, suffix, _) in READINGS.items()
    for spelling in (rid, f"{base}-{suffix}", f"{base.replace('.theorem', '-theorem-')}-{suffix}")
}

#: Ids that look right but name nothing, with the reason (so ``where`` can say why).
MISSING: dict[str, str] = {
    "cp.theorem4": "CP has no Theorem 4: its fourth numbered result is Proposition 4 (cp.proposition4)",
    "tr.theorem4": "TR has no Theorem 4: its fourth numbered result is Corollary 4 (tr.corollary4)",
}


#: Claim ids about a whole family of items rather than one (no single id fits them).
GROUPS: dict[str, str] = {
    "cp.definitions": "the definitions of CP taken together (Defs 1–6)",
    "tr.definitions": "the definitions and algorithms of TR taken together (Defs 1–5, Algs 1–5)",
}


class UnknownRef(KeyError):
    """An id that names no item of CP or TR."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


_SPLIT = re.compile(
    r"""^\s*(?P<v>cp|tr)\s*[.\-_ ]?\s*
        (?P<kind>theorem|thm|th|proposition|prop|corollary|cor|definition|defn|def|algorithm|algo|
                 alg|section|sec|§|table|tab|figure|fig|appendix|app|intro(?:duction)?|abstract)
        \s*[.\-_ ]?\s*(?P<num>[a-z]?\.?[0-9]+(?:[.\-_][0-9]+)*)?\s*$""",
    re.VERBOSE | re.IGNORECASE,
)


def parse(text: str) -> str:
    """The canonical spelling of ``text`` (whether or not it names an item).

    Accepts ``cp.theorem5``, ``cp-theorem-5``, ``CP Thm 5``, ``cp thm5``, ``TR §6``,
    ``cp.sec2.6``, ``cp.fig4``, ``cp.def3``, ``cp.appA2`` / ``cp.appendixA.2``, ``cp.intro``.
    Raises :class:`UnknownRef` if it cannot be read at all.
    """
    if text.strip().lower() in _READING_SPELLINGS:
        return _READING_SPELLINGS[text.strip().lower()]
    t = re.sub(r"§\s*[0-9.]+\s+(?=(thm|theorem|def|prop|cor|alg))", "", text.strip(), flags=re.I)
    m = _SPLIT.match(t)
    if not m:
        raise UnknownRef(f"cannot read {text!r} as a paper reference (try e.g. cp.theorem5, "
                         "'CP Thm 5', tr.theorem6, cp.section2.6, cp.figure4)")
    v, kind, num = m.group("v").lower(), m.group("kind").lower(), (m.group("num") or "")
    if kind.startswith("intro"):
        return f"{v}.section1"
    if kind == "abstract":
        return f"{v}.abstract"
    kind = _KIND_ALIASES[kind]
    if not num:
        raise UnknownRef(f"{text!r}: which {kind}? (a number is missing)")
    num = num.replace("-", ".").replace("_", ".")
    if kind == "appendix":
        num = num.upper()
        if re.fullmatch(r"[A-Z][0-9]+(\.[0-9]+)*", num):  # appA2 -> A.2
            num = f"{num[0]}.{num[1:]}"
    return f"{v}.{kind}{num}"


def canonical(text: str) -> str:
    """The canonical id of the item ``text`` names; :class:`UnknownRef` if there is none."""
    cid = parse(text)
    if cid in MISSING:
        raise UnknownRef(f"{text!r}: {MISSING[cid]}")
    if cid not in BY_ID:
        raise UnknownRef(f"{text!r} ({cid}) names no numbered item of "
                         f"{VERSIONS[cid.split('.')[0]]}; `dps-verify where --list` lists them")
    return cid


def get(text: str) -> Ref:
    """The :class:`Ref` that ``text`` names (any accepted spelling)."""
    return BY_ID[canonical(text)]


@functools.lru_cache(maxsize=4096)
def ref_of_claim(claim_id: str) -> str | None:
    """The item a claim id of ``dps-verify paper`` is about: the longest leading part of the
    id that names an item (``cp.sec2.4.smith-comparison`` -> ``cp.section2.4``,
    ``cp.table2.beta0.05.eps0.25`` -> ``cp.table2``).  Claims labelled ``beyond.<rest>`` (our
    additions) are about the CP item ``<rest>`` names.  ``None`` if no leading part does.
    Remembered per id (a function of the id and this module's fixed tables only): the paper
    index asks it of every claim id for each of its ~150 entries."""
    parts = claim_id.split(".")
    if parts[0] == "beyond":
        parts = ["cp", *parts[1:]]
    for n in range(len(parts), 1, -1):
        try:
            return canonical(".".join(parts[:n]))
        except UnknownRef:
            continue
    return None


def proof_id(ref_id: str) -> str:
    """The ``dps-verify prove`` spelling of a theorem id: ``cp.theorem5`` -> ``cp-theorem-5``."""
    r = BY_ID[canonical(ref_id)]
    if r.id in READINGS:
        base, suffix, _ = READINGS[r.id]
        return f"{proof_id(base)}-{suffix}"
    return f"{r.id.split('.')[0]}-{r.kind}-{r.number}"


__all__ = ["BY_ID", "GROUPS", "KINDS", "MISSING", "READINGS", "REFS", "Ref", "UnknownRef", "canonical", "get", "parse",
           "proof_id", "ref_of_claim"]
