"""Where each item of the paper lives in this repository (``dps-verify where ID``).

For every id of :mod:`dps_verify.paper.refs` the index names its machine-checked proof
(``dps-verify prove``), its Hypothesis property tests (``properties/``), other tests, the claims
of ``dps-verify paper`` about it, the teaching notebooks, the docs and the code.  Where one of
these is absent the entry says so and why (:class:`Absent`), so a gap is a decision on record
rather than an oversight.  ``tests/test_where.py`` keeps the index true: every path exists,
every named function is defined, every id used by a proof module or a claim is indexed.

Claims are not listed by hand: :func:`claims_for` reads them from the registry, matching each
claim id to the item it is about (:func:`dps_verify.paper.refs.ref_of_claim`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from dps_verify.paper.refs import BY_ID, REFS, canonical, proof_id, ref_of_claim

#: The repository root (the index names paths relative to it).
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Absent:
    """An explicit "none, because …"."""

    reason: str

    def __str__(self) -> str:
        return f"none, because {self.reason}"


Paths = tuple[str, ...] | Absent


@dataclass(frozen=True)
class Entry:
    """Everything about one item of the paper.

    Paths are relative to the repository root; code is ``path::name``.  ``related`` lists other
    ids that carry this item's checks (a figure's theorem, a theorem's appendix proof).
    ``no_claims`` is the reason when no claim of the registry is about this item.
    """

    id: str
    proof: str | Absent
    properties: Paths
    notebooks: Paths
    docs: Paths
    code: Paths
    tests: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    related: tuple[str, ...] = ()
    no_claims: str | None = None
    note: str = ""


def _a(reason: str) -> Absent:
    return Absent(reason)


# Paths used many times.
NB1 = "notebooks/01_dp_definitions.py"
NB2 = "notebooks/02_amplification_theorem1.py"
NB3 = "notebooks/03_k_anonymity_fails.py"
NB4 = "notebooks/04_theorem5_safe_k_anonymization.py"
NB5 = "notebooks/05_non_composition.py"
NB6 = "notebooks/06_exercises.py"
P_THM1 = "properties/test_cp_theorem_1.py"
P_THM23 = "properties/test_cp_theorem_2_3.py"
P_THM5 = "properties/test_cp_theorem_5.py"
P_THM6 = "properties/test_cp_theorem_6.py"
P_S31 = "properties/test_cp_section_3_1.py"
P_COMP = "properties/test_cp_composition_2_2_2_6.py"
P_TR6 = "properties/test_tr_theorem_6.py"
PROOFS_DOC = "docs/proofs.md"
PAPER_DOC = "docs/paper.md"
TEACH_DOC = "docs/teachers.md"
TEST_DOC = "docs/testing.md"
AUDIT_DOC = "docs/audit.md"
BOUNDS = "dps_verify/worstcase/closed_forms.py"
INVERSE = "dps_verify/inverse/questions.py"
DIV = "dps_verify/measures/divergence.py"
KANON = "dps_verify/mechanisms/k_anonymization.py"
EXAMPLES = "dps_verify/mechanisms/examples.py"
ENGINE = "dps_verify/engine/distribution.py"
FIGS = "dps_verify/paper/figures.py"

_NO_PROOF_DEF = "a definition is stated, not proved; its meaning is fixed by the code below"
_NO_PROOF_ALG = "an algorithm is implemented and measured, not proved"
_NO_NB_TR = ("the notebooks teach the CP version; the TR variant is covered by the proof module "
             "and the claim check")


def _theorems() -> list[Entry]:
    return [
        Entry("cp.theorem1",
              proof="proofs/cp_theorem_1.py",
              properties=(P_THM1,), notebooks=(NB2,), docs=(PROOFS_DOC, PAPER_DOC),
              code=("dps_verify/worstcase/amplification.py::amplify",
                    "dps_verify/paper/walkthroughs.py::THEOREM_1"),
              tests=("tests/test_bounds.py", "tests/test_explore.py"),
              commands=("dps-verify prove cp-theorem-1", "dps-verify explore cp-theorem-1"),
              related=("cp.appendixA.1", "cp.section2.4", "cp.table1", "tr.theorem3")),
        Entry("cp.theorem2",
              proof="proofs/cp_theorem_2.py",
              properties=(P_THM23,),
              notebooks=_a("post-processing is a one-line argument; notebook 5 uses it in passing "
                           "but no notebook is devoted to it"),
              docs=(PROOFS_DOC,),
              code=_a("post-processing needs no code of its own: any function of an output "
                      "law is computed by the engine (dps_verify/engine/distribution.py)"),
              commands=("dps-verify prove cp-theorem-2",), related=("cp.section2.5",)),
        Entry("cp.theorem3",
              proof="proofs/cp_theorem_3.py",
              properties=(P_THM23,),
              notebooks=_a("mixtures are covered by the property test; no notebook is devoted to "
                           "them"),
              docs=(PROOFS_DOC,),
              code=_a("a mixture is an ordinary randomized anonymizer; the engine "
                      "(dps_verify/engine/distribution.py::randomized) computes it"),
              commands=("dps-verify prove cp-theorem-3",), related=("cp.section2.5",)),
        Entry("cp.proposition4",
              proof="proofs/cp_proposition_4.py",
              properties=(P_THM5,), notebooks=(NB3, NB4), docs=(PROOFS_DOC,),
              code=(f"{KANON}::StronglySafeKAnonymizer",),
              commands=("dps-verify prove cp-proposition-4",),
              note="the CP Thm 5 property suite checks δ = 1 without sampling (β = 1) as its "
                   "Prop. 4 edge", related=("cp.section3.2", "cp.definition5")),
        Entry("cp.theorem5",
              proof="proofs/cp_theorem_5.py",
              properties=(P_THM5,), notebooks=(NB4, NB6),
              docs=(PROOFS_DOC, PAPER_DOC, TEACH_DOC),
              code=(f"{BOUNDS}::d", f"{BOUNDS}::d_certified", f"{INVERSE}::min_k",
                    "dps_verify/worstcase/sdgs.py::sdgs_delta",
                    "dps_verify/worstcase/sdgs.py::scan_paper_regime",
                    f"{KANON}::StronglySafeKAnonymizer",
                    "dps_verify/paper/walkthroughs.py::THEOREM_5"),
              tests=("tests/test_bounds.py", "tests/test_sdgs.py", "tests/test_explore.py"),
              commands=("dps-verify prove cp-theorem-5", "dps-verify explore cp-theorem-5",
                        "dps-verify delta --k 20 --beta 0.1 --epsilon 1"),
              related=("cp.appendixA.2", "cp.section3.3", "cp.table2", "cp.figure1",
                       "cp.figure2", "cp.figure3", "cp.figure4", "cp.figure5", "cp.figure6",
                       "tr.theorem1")),
        Entry("cp.theorem6",
              proof="proofs/cp_theorem_6.py",
              properties=(P_THM6,),
              notebooks=_a("notebook 4 teaches CP Thm 5, of which Thm 6 is the ε1-shifted form; "
                           "`dps-verify explore cp-theorem-6` is its interactive walkthrough"),
              docs=(PROOFS_DOC, PAPER_DOC),
              code=(f"{BOUNDS}::d_safe", f"{KANON}::EpsilonSafeKAnonymizer",
                    "dps_verify/paper/walkthroughs.py::THEOREM_6",
                    "dps_verify/paper/cp6_witness.py::check",
                    "dps_verify/paper/cp6_search.py::screen"),
              tests=("tests/test_explore.py",),
              commands=("dps-verify prove cp-theorem-6", "dps-verify explore cp-theorem-6"),
              related=("cp.appendixA.3", "cp.section3.4", "cp.definition6")),
        Entry("cp.theorem6.full-data",
              proof="proofs/cp_theorem_6_full_data.py",
              properties=(P_THM6,),
              notebooks=_a("see cp.theorem6: no notebook covers ε-safe anonymization"),
              docs=(PROOFS_DOC, "docs/verdict-policy.md"),
              code=(f"{KANON}::EpsilonSafeKAnonymizer", "dps_verify/paper/cp6_witness.py::check"),
              commands=("dps-verify prove cp-theorem-6-full-data",
                        "dps-verify paper --only cp.theorem6.full-data"),
              related=("cp.theorem6", "cp.appendixA.3", "tr.section4"),
              note="CP Thm 6 read as App. A.3 (and TR §4) state the model: PROVED there; under "
                   "CP Def 3 (A_m sees the sample) cp.theorem6 is REFUTED"),
        Entry("tr.theorem1",
              proof=_a("it is the result CP states (and proves, App. A.2) as Thm 5; the proof "
                       "module proofs/cp_theorem_5.py covers it"),
              properties=(P_THM5,), notebooks=(NB4,), docs=(PROOFS_DOC,),
              code=(f"{BOUNDS}::d", "dps_verify/worstcase/sdgs.py::sdgs_delta"),
              no_claims="the registry checks this result once, under its CP name cp.theorem5",
              related=("cp.theorem5", "tr.algorithm4")),
        Entry("tr.theorem2",
              proof="proofs/tr_theorem_2.py",
              properties=(P_COMP,), notebooks=(NB5,), docs=(PROOFS_DOC, PAPER_DOC),
              code=(f"{EXAMPLES}::xor_pair",),
              commands=("dps-verify prove tr-theorem-2",),
              related=("tr.definition4", "cp.section2.2")),
        Entry("tr.theorem3",
              proof="proofs/tr_theorem_3.py",
              properties=(P_THM1,), notebooks=(NB2,), docs=(PROOFS_DOC,),
              code=("dps_verify/worstcase/amplification.py::amplify",),
              commands=("dps-verify prove tr-theorem-3",),
              note="TR Thm 3 is the δ = 0 ancestor of CP Thm 1; the CP Thm 1 property covers it",
              related=("cp.theorem1",)),
        Entry("tr.corollary4",
              proof=_a("the corollary is CP Thm 1 with β1 = 1 and δ1 = 0; the cp-theorem-1 proof "
                       "module covers that case and the claim check recomputes it"),
              properties=(P_THM1,), notebooks=(NB2,), docs=(PAPER_DOC,),
              code=("dps_verify/worstcase/amplification.py::amplify",),
              related=("cp.theorem1", "tr.theorem3")),
        Entry("tr.theorem5",
              proof="proofs/tr_theorem_5.py",
              properties=_a("f-smooth composition is an inequality between closed forms, proved "
                            "symbolically; there is no mechanism family to sample from"),
              notebooks=_a(_NO_NB_TR), docs=(PROOFS_DOC,),
              code=_a("the f-smooth notion is not used by any API; only the proof module "
                      "states it"),
              commands=("dps-verify prove tr-theorem-5",), related=("tr.definition5",)),
        Entry("tr.theorem6",
              proof="proofs/tr_theorem_6.py",
              properties=(P_TR6,),
              notebooks=_a(_NO_NB_TR + "; notebook 4 plots CP Thm 5's d, which TR Thm 6 bounds"),
              docs=(PROOFS_DOC, PAPER_DOC),
              code=("dps_verify/worstcase/chernoff.py::chernoff_delta",),
              tests=("tests/test_bounds.py",),
              commands=("dps-verify prove tr-theorem-6",),
              related=("tr.figure7", "tr.section6", "cp.theorem5")),
    ]


def _definitions() -> list[Entry]:
    return [
        Entry("cp.definition1", proof=_a(_NO_PROOF_DEF), properties=(P_THM23,),
              notebooks=(NB1,), docs=(TEST_DOC,), code=(f"{DIV}::epsilon",),
              no_claims="ε-DP is the δ = 0 case of CP Def. 2, checked under cp.definition2's "
                        "claims and every δ = 0 check"),
        Entry("cp.definition2", proof=_a(_NO_PROOF_DEF),
              properties=(P_THM23, P_THM1), notebooks=(NB1,),
              docs=(TEST_DOC, AUDIT_DOC),
              code=(f"{DIV}::delta", f"{DIV}::delta_certified", f"{DIV}::measure"),
              tests=("tests/test_exact.py", "tests/test_pld.py"),
              no_claims="a definition is not a claim; every δ the registry reports is "
                        "measured under it",
              note="default definition everywhere: Definition.HOCKEY_STICK "
                   "(dps_verify/core/types.py)"),
        Entry("cp.definition3", proof=_a(_NO_PROOF_DEF), properties=(P_THM1, P_THM5),
              notebooks=(NB1, NB2), docs=(TEST_DOC, AUDIT_DOC),
              code=(f"{ENGINE}::distribution", f"{ENGINE}::pairs"),
              tests=("tests/test_exact.py",)),
        Entry("cp.definition4", proof=_a(_NO_PROOF_DEF), properties=(P_S31,), notebooks=(NB3,),
              docs=_a("k-anonymity as a notion is background; docs discuss the safe variants "
                      "(Defs 5–6)"),
              code=(f"{KANON}::apply_step",),
              no_claims="the paper argues informally (CP §3.1) that the notion is inadequate; "
                        "the checkable part is cp.section3.1's claim"),
        Entry("cp.definition5", proof=_a(_NO_PROOF_DEF), properties=(P_THM5,), notebooks=(NB3, NB4),
              docs=(TEST_DOC,), code=(f"{KANON}::StronglySafeKAnonymizer",),
              no_claims="claims about strongly-safe k-anonymization are filed under "
                        "cp.proposition4 and cp.theorem5",
              related=("cp.theorem5", "cp.proposition4")),
        Entry("cp.definition6", proof=_a(_NO_PROOF_DEF), properties=(P_THM6,),
              notebooks=_a("see cp.theorem6: no notebook covers ε-safe anonymization"),
              docs=(PROOFS_DOC,), code=(f"{KANON}::EpsilonSafeKAnonymizer",),
              no_claims="claims about ε-safe k-anonymization are filed under cp.theorem6",
              related=("cp.theorem6",)),
        Entry("tr.definition1", proof=_a(_NO_PROOF_DEF), properties=(P_THM23,), notebooks=(NB1,),
              docs=(TEST_DOC,), code=(f"{DIV}::epsilon",),
              no_claims="the same definition as CP Def. 1 (cp.definition1)",
              related=("cp.definition1",)),
        Entry("tr.definition2",
              proof="proofs/tr_definition_2.py",
              properties=(P_THM5,), notebooks=(NB1,),
              docs=(PROOFS_DOC, TEST_DOC),
              code=(f"{DIV}::pointwise_delta", f"{DIV}::pointwise_delta_exact"),
              tests=("tests/test_exact.py",),
              commands=("dps-verify prove tr-definition-2",),
              note="chosen with definition=Definition.POINTWISE (dps_verify/core/types.py)"),
        Entry("tr.definition3", proof=_a(_NO_PROOF_DEF), properties=(P_S31,), notebooks=(NB3,),
              docs=_a("the same notion as CP Def. 4 (cp.definition4)"),
              code=(f"{KANON}::apply_step",),
              no_claims="the same notion as CP Def. 4 (cp.definition4)",
              related=("cp.definition4",)),
        Entry("tr.definition4", proof=_a(_NO_PROOF_DEF), properties=(P_COMP,), notebooks=(NB5,),
              docs=(PAPER_DOC,), code=(f"{ENGINE}::distribution",),
              no_claims="UDP is CP Def. 3 under another name; its claims are tr.theorem2, "
                        "tr.theorem3 and tr.corollary4",
              related=("cp.definition3", "tr.theorem2")),
        Entry("tr.definition5", proof=_a(_NO_PROOF_DEF),
              properties=_a("f-smoothness is only used by TR Thms 5–6; see tr.theorem6's "
                            "property"),
              notebooks=_a(_NO_NB_TR), docs=(PROOFS_DOC,),
              code=("dps_verify/worstcase/chernoff.py::chernoff_delta",),
              no_claims="the definition's use is checked in tr.theorem5 and tr.theorem6",
              related=("tr.theorem5", "tr.theorem6")),
    ]


def _algorithms() -> list[Entry]:
    return [
        Entry("cp.algorithm1", proof=_a(_NO_PROOF_ALG), properties=(P_S31,), notebooks=(NB3,),
              docs=(AUDIT_DOC,), code=(f"{KANON}::ClusterLocalRecoding", f"{KANON}::Mondrian"),
              no_claims="its failure is claim cp.sec3.1.clr-mondrian (cp.section3.1)",
              related=("cp.section3.1", "tr.algorithm2")),
        Entry("tr.algorithm1", proof=_a(_NO_PROOF_ALG),
              properties=_a("k-duplication is a fixed example whose δ the claim computes "
                            "exactly; there is no family to sample"),
              notebooks=_a(_NO_NB_TR), docs=(PAPER_DOC,), code=(f"{EXAMPLES}::KDuplication",)),
        Entry("tr.algorithm2", proof=_a(_NO_PROOF_ALG), properties=(P_S31,), notebooks=(NB3,),
              docs=(AUDIT_DOC,), code=(f"{KANON}::ClusterLocalRecoding",),
              no_claims="the same algorithm as CP Alg. 1; its claim is under cp.section3.1",
              related=("cp.algorithm1",)),
        Entry("tr.algorithm3", proof=_a(_NO_PROOF_ALG), properties=(P_THM5,), notebooks=(NB4,),
              docs=(TEST_DOC,), code=(f"{KANON}::StronglySafeKAnonymizer",),
              no_claims="k-DGS without sampling is CP Prop. 4's case (cp.proposition4)",
              related=("cp.proposition4", "cp.definition5")),
        Entry("tr.algorithm4", proof=_a(_NO_PROOF_ALG), properties=(P_THM5,), notebooks=(NB4,),
              docs=(TEST_DOC,),
              code=(f"{KANON}::StronglySafeKAnonymizer", "dps_verify/worstcase/sdgs.py::sdgs_delta"),
              no_claims="SDGS's privacy is claimed in tr.theorem1 = cp.theorem5",
              related=("cp.theorem5", "tr.theorem1")),
        Entry("tr.algorithm5", proof=_a(_NO_PROOF_ALG),
              properties=_a("δ-sampling is a fixed counterexample whose δ the claim computes "
                            "exactly; there is no family to sample"),
              notebooks=_a(_NO_NB_TR), docs=(PAPER_DOC,), code=(f"{EXAMPLES}::DeltaSampling",)),
    ]


def _sections_and_artefacts() -> list[Entry]:
    """Sections, tables, figures and appendices: their checks are the claims about them; the
    proof, properties and code are those of the result they state or illustrate."""
    def art(id_: str, related: tuple[str, ...], *, notebooks: Paths | None = None,
            code: Paths | None = None, no_claims: str | None = None,
            properties: Paths | None = None, docs: Paths = (PAPER_DOC,)) -> Entry:
        see = ", ".join(related)
        return Entry(id_,
                     proof=_a(f"it states or illustrates results proved elsewhere: see {see}"),
                     properties=properties or _a(f"the property tests of {see} cover it"),
                     notebooks=notebooks or _a(f"no notebook is devoted to it; see {see}"),
                     docs=docs, code=code or _a(f"it has no code of its own; see {see}"),
                     related=related, no_claims=no_claims)

    nc = "the section only introduces or discusses; its checkable statements are filed under "
    return [
        art("cp.abstract", ("cp.theorem1", "cp.theorem5"), notebooks=(NB2, NB4)),
        art("cp.section1", ("cp.theorem1",), notebooks=(NB2,)),
        art("cp.section2", ("cp.section2.1",), no_claims=nc + "its subsections"),
        art("cp.section2.1", ("cp.definition1", "cp.definition2"), notebooks=(NB1,),
            no_claims=nc + "cp.definition1 and cp.definition2"),
        art("cp.section2.2", ("tr.theorem2",), notebooks=(NB5,), properties=(P_COMP,),
            code=(f"{EXAMPLES}::xor_pair",)),
        art("cp.section2.3", ("cp.definition3",), notebooks=(NB2,),
            no_claims=nc + "cp.definition3"),
        art("cp.section2.4", ("cp.theorem1",), notebooks=(NB2,),
            code=("dps_verify/worstcase/amplification.py::amplify",)),
        art("cp.section2.5", ("cp.theorem2", "cp.theorem3"), properties=(P_THM23,),
            no_claims=nc + "cp.theorem2 and cp.theorem3"),
        art("cp.section2.6", ("cp.theorem2",), notebooks=(NB5,), properties=(P_COMP,),
            code=(f"{EXAMPLES}::gender_pair",)),
        art("cp.section2.7", ("cp.theorem1",), notebooks=(NB5,)),
        art("cp.section3", ("cp.section3.1",), no_claims=nc + "its subsections"),
        art("cp.section3.1", ("cp.algorithm1",), notebooks=(NB3,), properties=(P_S31,),
            code=(f"{KANON}::ClusterLocalRecoding", f"{KANON}::Mondrian")),
        art("cp.section3.2", ("cp.definition5", "cp.proposition4"), notebooks=(NB3,),
            no_claims=nc + "cp.proposition4"),
        art("cp.section3.3", ("cp.theorem5",), notebooks=(NB4,), properties=(P_THM5,),
            code=("dps_verify/worstcase/sdgs.py::n_min",)),
        art("cp.section3.4", ("cp.theorem6",), no_claims=nc + "cp.theorem6"),
        art("cp.section3.5", ("cp.theorem5", "cp.theorem6"),
            no_claims="a discussion of the results, with no new statement to check"),
        art("cp.section4", ("cp.section1",), docs=_a("related work has nothing to check"),
            no_claims="related work states nothing checkable about this paper"),
        art("cp.section5", ("cp.theorem5",), docs=_a("the conclusions restate checked results"),
            no_claims="the conclusions restate results checked under their own ids"),
        art("cp.table1", ("cp.theorem1",), notebooks=(NB2,),
            code=("dps_verify/worstcase/amplification.py::amplify",)),
        art("cp.table2", ("cp.theorem5",), notebooks=(NB4,), code=(f"{INVERSE}::min_k",)),
        art("cp.figure1", ("cp.theorem5",), notebooks=(NB4,), code=(f"{FIGS}::draw",),
            no_claims="the figure is a schematic of the binomial tail; what it shows is "
                      "claimed under cp.section3.3"),
        art("cp.figure2", ("cp.theorem5",), notebooks=(NB4,), code=(f"{FIGS}::curve",)),
        art("cp.figure3", ("cp.theorem5",), notebooks=(NB4,), code=(f"{FIGS}::curve",)),
        art("cp.figure4", ("cp.theorem5",), notebooks=(NB4,), code=(f"{FIGS}::fig4_match",)),
        art("cp.figure5", ("cp.theorem5",), notebooks=(NB4,), code=(f"{FIGS}::curve",)),
        art("cp.figure6", ("cp.theorem5",), notebooks=(NB4,), code=(f"{FIGS}::min_epsilon",)),
        art("cp.appendixA.1", ("cp.theorem1",), notebooks=(NB2,), properties=(P_THM1,),
            docs=(PROOFS_DOC,)),
        art("cp.appendixA.2", ("cp.theorem5",), notebooks=(NB4,), properties=(P_THM5,),
            docs=(PROOFS_DOC,)),
        art("cp.appendixA.3", ("cp.theorem6",), properties=(P_THM6,), docs=(PROOFS_DOC,)),
        art("tr.abstract", ("tr.theorem1",), docs=_a("the abstract states no new result"),
            no_claims="the abstract's results are filed under their theorem ids"),
        art("tr.section1", ("tr.theorem1",), docs=_a("the introduction states no new result"),
            no_claims="the introduction's results are filed under their theorem ids"),
        art("tr.section2", ("tr.definition1", "tr.definition2"),
            no_claims=nc + "tr.definition2"),
        art("tr.section3", ("tr.algorithm2",), no_claims=nc + "cp.section3.1 (same content)"),
        art("tr.section4", ("tr.theorem1",), no_claims=nc + "tr.theorem1 = cp.theorem5"),
        art("tr.section5", ("tr.theorem2", "tr.theorem3"), notebooks=(NB5,)),
        art("tr.section6", ("tr.theorem5", "tr.theorem6"), no_claims=nc + "tr.theorem6"),
        art("tr.section7", ("tr.section1",), docs=_a("related work has nothing to check"),
            no_claims="related work states nothing checkable about this paper"),
        art("tr.section8", ("tr.section5",), docs=_a("the conclusions restate checked results"),
            no_claims="the conclusions restate results checked under their own ids"),
        art("tr.table1", ("tr.definition3",), docs=_a("a worked example of the notion only"),
            no_claims="an illustrative table of the k-anonymity notion, nothing to check"),
        art("tr.figure7", ("tr.theorem6",), code=(f"{FIGS}::fig7_f",), properties=(P_TR6,)),
    ]


ENTRIES: dict[str, Entry] = {
    e.id: e for e in (*_theorems(), *_definitions(), *_algorithms(), *_sections_and_artefacts())
}


def entry(ref: str) -> Entry:
    """The entry of any accepted spelling of an id (``UnknownRef`` if it names nothing)."""
    return ENTRIES[canonical(ref)]


def claims_for(ref: str, claim_ids: Iterable[str] | None = None) -> list[str]:
    """Ids of the registered claims about ``ref`` (read from the claim registry)."""
    cid = canonical(ref)
    if claim_ids is None:
        from dps_verify.paper.claims import REGISTRY  # heavy: only when asked

        claim_ids = [c.id for c in REGISTRY]
    return [c for c in claim_ids if ref_of_claim(c) == cid]


def proof_command_id(ref: str) -> str | None:
    """The ``dps-verify prove`` id of ``ref`` if it has a proof module."""
    e = entry(ref)
    return None if isinstance(e.proof, Absent) else proof_id(e.id)


def as_dict(ref: str, claim_ids: Iterable[str] | None = None) -> dict[str, object]:
    """The entry as plain data (what ``dps-verify where --json`` prints)."""
    e = entry(ref)
    r = BY_ID[e.id]

    def show(v: str | tuple[str, ...] | Absent) -> object:
        return str(v) if isinstance(v, Absent) else (list(v) if isinstance(v, tuple) else v)

    claims = claims_for(e.id, claim_ids)
    return {
        "id": e.id, "label": r.label, "title": r.title,
        "proof": show(e.proof),
        "properties": show(e.properties),
        "tests": list(e.tests),
        "claims": claims or str(Absent(e.no_claims or "no claim of the registry is about it yet")),
        "notebooks": show(e.notebooks),
        "docs": show(e.docs),
        "code": show(e.code),
        "commands": list(e.commands),
        "related": list(e.related),
        "note": e.note,
    }


def all_paths(e: Entry) -> list[str]:
    """Every file path an entry names (code entries without their ``::name``)."""
    out: list[str] = []
    for v in (e.properties, e.notebooks, e.docs, e.code, e.tests):
        if isinstance(v, tuple):
            out += [p.split("::")[0] for p in v]
    if isinstance(e.proof, str):
        out.append(e.proof)
    return out


if set(ENTRIES) != {r.id for r in REFS}:  # pragma: no cover - caught by tests/test_where.py
    raise RuntimeError(f"index and refs disagree: {sorted(set(ENTRIES) ^ {r.id for r in REFS})}")

__all__ = ["ENTRIES", "ROOT", "Absent", "Entry", "all_paths", "as_dict", "claims_for", "entry",
           "proof_command_id"]


def _md_cell(v: object) -> str:
    if isinstance(v, list):
        return "<br>".join(f"`{x}`" for x in v) if v else "—"
    s = str(v)
    return s if s.startswith(("none,", "not ")) else f"`{s}`"


def markdown(claim_ids: Iterable[str] | None = None) -> str:
    """docs/paper-map.md: the whole index as Markdown (``dps-verify where --markdown``)."""
    if claim_ids is None:
        from dps_verify.paper.claims import REGISTRY

        claim_ids = [c.id for c in REGISTRY]
    ids = list(claim_ids)
    out = [
        "# Paper map: where each item of CP and TR lives",
        "",
        "<!-- generated by `dps-verify where --markdown > docs/paper-map.md`; "
        "tests/test_where.py fails when it is stale -->",
        "",
        "CP = Li, Qardaji & Su, ASIACCS 2012; TR = their 2011 technical report.  Every id is "
        "accepted by `dps-verify where ID` (also as `cp-theorem-5` or `\"CP Thm 5\"`).  "
        "\"none, because …\" marks a deliberate gap.  Source: `dps_verify/paper/index.py`.",
        "",
        "TR has no Theorem 4 (its fourth result is Corollary 4); CP has no Theorem 4 either "
        "(its fourth is Proposition 4).",
    ]
    for version in ("cp", "tr"):
        out += ["", f"## {'CP (ASIACCS 2012)' if version == 'cp' else 'TR (2011 report)'}", ""]
        for r in REFS:
            if not r.id.startswith(version + "."):
                continue
            d = as_dict(r.id, ids)
            out += [f"### `{r.id}` — {r.label}: {r.title}", "", "| | |", "|---|---|"]
            for key, label in (("proof", "proof"), ("properties", "property tests"),
                               ("tests", "other tests"), ("claims", "claims"),
                               ("notebooks", "notebooks"), ("docs", "docs"), ("code", "code"),
                               ("commands", "try"), ("related", "see also"), ("note", "note")):
                v = d[key]
                if v in ("", []):
                    continue
                out.append(f"| {label} | {_md_cell(v) if key != 'note' else v} |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":  # pragma: no cover
    print(markdown(), end="")
