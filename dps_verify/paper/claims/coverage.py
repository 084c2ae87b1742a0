"""Coverage of both versions by the registry: a hand-kept list of every numbered item
and quantitative remark of CP and TR, each mapped to the registry ids that check it, rendered
with the registry itself into ``docs/claims-coverage.md`` (``python -m
dps_verify.paper.claims.coverage > docs/claims-coverage.md``; a test keeps the file current)."""

from __future__ import annotations

#: (version, item as the paper numbers it, short description, registry ids)
ITEMS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("CP", "Abstract", "summary of results", ("cp.abstract.summary",)),
    ("CP", "§1", "first link of k-anonymization and DP", ("cp.intro.first-link",)),
    ("CP", "§1", "k-anonymization methods known to be weak", ("cp.intro.k-anon-weak-known",)),
    ("CP", "§1", "sampling + pruning as an alternative to output perturbation", ("cp.intro.new-way-to-dp",)),
    ("CP", "§1", "sampling reduces 'ε − 1' and δ by a factor β", ("cp.intro.factor-beta",)),
    ("CP", "§1", "ln 2 ≈ 0.69 at β = 0.1 gives ln 1.1 ≈ 0.095", ("cp.intro.amplification-example",)),
    ("CP", "§1", "practical approaches (larger budget, apply once, resample)", ("cp.intro.practical-advice",)),
    ("CP", "§2.1 Defs 1–2", "ε-DP, (ε, δ)-DP", ("cp.sec2.1.definitions",)),
    ("CP", "§2.2", "A1 = parity, A2 = parity XOR presence: each private, pair not",
     ("cp.sec2.2.xor-noncomposition",)),
    ("CP", "§2.2", "'the composition leaks r(D)'", ("cp.sec2.2.leaks-r",)),
    ("CP", "§2.2", "any uncertainty-based notion fails to compose", ("cp.sec2.2.uncertainty-not-composable",)),
    ("CP", "§2.2", "non-interactive one-shot use acceptable", ("cp.sec2.2.non-interactive-ok",)),
    ("CP", "§2.3 Def 3", "DPS requires β > δ; β ≤ δ is trivial", ("cp.def3.beta-gt-delta",)),
    ("CP", "§2.3", "β ≫ δ: non-trivial relaxation", ("cp.sec2.3.nontrivial-relaxation",)),
    ("CP", "§2.4 Thm 1", "amplification by sampling", ("cp.theorem1",)),
    ("CP", "§2.4 Table 1", "ε, δ at β = 0.1, 0.01 (six cells)",
     ("cp.table1.ln11.beta0.1.eps", "cp.table1.ln11.beta0.1.delta", "cp.table1.ln11.beta0.01.eps",
      "cp.table1.ln11.beta0.01.delta", "cp.table1.one.beta0.1.eps", "cp.table1.one.beta0.01.eps")),
    ("CP", "§2.4 Table 1", "ln 11 ≈ 2.40", ("cp.table1.ln11-value",)),
    ("CP", "§2.4", "(e^ε2 − 1)/(e^ε1 − 1) = β2/β1", ("cp.sec2.4.equivalent-form",)),
    ("CP", "§2.4", "0.159 versus Smith's 2β = 0.2 at β = 0.1", ("cp.sec2.4.smith-comparison",)),
    ("CP", "§2.4", "Thm 1 tighter than Smith's lemma (every β)", ("cp.sec2.4.smith-every-beta",)),
    ("CP", "§2.5 Thm 2", "post-processing", ("cp.theorem2",)),
    ("CP", "§2.5 Thm 2 proof", "strict '>' where q(S) = 1 needs '≥'", ("cp.theorem2.proof-strictness",)),
    ("CP", "§2.5 Thm 3", "privacy axiom of choice", ("cp.theorem3",)),
    ("CP", "§2.6", "weak composition expected", ("cp.sec2.6.weak-composition-expected",)),
    ("CP", "§2.6", "A1 alone is DPS", ("cp.sec2.6.a1-alone-dps",)),
    ("CP", "§2.6", "10,000 records, β = 0.5: ≈ 0 versus ≈ 1/4", ("cp.sec2.6.probabilities",)),
    ("CP", "§2.6", "interpretation (candidates not adjacent)", ("cp.sec2.6.interpretation",)),
    ("CP", "§2.7", "sampling in practice (census, Netflix)", ("cp.sec2.7.sampling-in-practice",)),
    ("CP", "§2.7", "50 releases of (0.2, 0.02, 0)-DPS are (1, 0)-DP", ("cp.sec2.7.fifty-releases",)),
    ("CP", "§2.7", "every tuple in some sample w.h.p.", ("cp.sec2.7.coverage",)),
    ("CP", "§3.1", "GIC incident", ("cp.sec3.1.gic-incident",)),
    ("CP", "§3.1 Def 4", "k-anonymity", ("cp.sec2.1.definitions",)),
    ("CP", "§3.1", "QID/SA separation hard", ("cp.sec3.1.qid-separation",)),
    ("CP", "§3.1", "'k − 1 others' intuition wrong (k-duplication)", ("cp.sec3.1.hiding-intuition-wrong",
                                                                    "tr.algorithm1.k-duplication")),
    ("CP", "§3.1", "ℓ-diversity / t-closeness did not fix it", ("cp.sec3.1.l-diversity-t-closeness",)),
    ("CP", "§3.1 Alg 1", "CLR / Mondrian reveal outliers; not DPS for δ < β", ("cp.sec3.1.clr-mondrian",)),
    ("CP", "§3.1", "[900K, 35M] example, k = 20", ("cp.sec3.1.clr-mondrian",)),
    ("CP", "§3.1", "same weakness for data-dependent global recodings", ("cp.sec3.1.data-dependent-recodings",)),
    ("CP", "§3.2", "the definition, not the intuition, fails", ("cp.sec3.2.definition-not-intuition",)),
    ("CP", "§3.2 (Apply)", "all k-anonymizers are A_m + Apply", ("cp.sec3.2.all-anonymizers-am-apply",)),
    ("CP", "§3.2 Def 5", "strongly-safe anonymization", ("cp.sec2.1.definitions",)),
    ("CP", "§3.2", "same global recoding is strongly safe", ("cp.sec3.2.global-recoding-is-strongly-safe",)),
    ("CP", "§3.2", "a published tuple has ≥ k − 1 others with the same image", ("cp.sec3.2.crowd-of-k",)),
    ("CP", "§3.2 Prop 4", "strongly-safe not (ε, δ)-DP for δ < 1", ("cp.proposition4",)),
    ("CP", "§3.3 Thm 5", "sampled strongly-safe is (β, ε, d)-DPS", ("cp.theorem5",)),
    ("CP", "§3.3 Thm 5 + Def 3", "β > δ fails at k = 1 and near the edge", ("cp.theorem5.beta-gt-delta",)),
    ("CP", "§3.3", "γ > β", ("cp.sec3.3.gamma-gt-beta",)),
    ("CP", "§3.3", "law-of-large-numbers intuition", ("cp.sec3.3.law-of-large-numbers",)),
    ("CP", "§3.3", "maximum not always at n_m", ("cp.sec3.3.argmax-not-at-nm",)),
    ("CP", "§3.3 Fig 1", "binomial illustration", ("cp.fig1.illustration",)),
    ("CP", "§3.3 Table 2", "d(20, β, ε), 18 cells", tuple(
        f"cp.table2.beta{b}.eps{e}" for b in ("0.05", "0.1", "0.2")
        for e in ("0.25", "0.5", "0.75", "1.0", "1.5", "2.0"))),
    ("CP", "§3.3", "Table 2 trends in ε and β", ("cp.sec3.3.table2-trends",)),
    ("CP", "§3.3 Fig 2", "1/δ grows with ε and k", ("cp.fig2.trend",)),
    ("CP", "§3.3 Fig 2", "k + 10 'decreases δ by 10^-5'", ("cp.fig2.k-plus-10",)),
    ("CP", "§3.3 Figs 2–3", "privacy/utility relationship", ("cp.sec3.3.privacy-utility",)),
    ("CP", "§3.3 Fig 3", "smaller β, smaller δ", ("cp.fig3.beta",)),
    ("CP", "§3.3 Fig 4", "15 → 22 → 35 → 60", ("cp.fig4.k-matching",)),
    ("CP", "§3.3 Fig 5", "k = 1: δ below β", ("cp.fig5.k1",)),
    ("CP", "§3.3 Fig 5", "k ≥ 2: δ < 0.001 at ε = 2", ("cp.fig5.k2",)),
    ("CP", "§3.3 Fig 6", "ε needed for δ ≤ 10^-6", ("cp.fig6.frontier",)),
    ("CP", "§3.4 Def 6", "ε-safe anonymization", ("cp.sec2.1.definitions",)),
    ("CP", "§3.4", "exponential-mechanism construction", ("cp.sec3.4.exponential-mechanism",)),
    ("CP", "§3.4 Thm 6", "ε1-safe is (β, ε, d(k, β, ε − ε1))-DPS", ("cp.theorem6",)),
    ("CP", "§3.4 Thm 6, App. A.3 reading", "A_m on the unsampled D", ("cp.theorem6.full-data",)),
    ("CP", "§3.5", "first link (repeated)", ("cp.intro.first-link",)),
    ("CP", "§3.5", "crowd principle used elsewhere", ("cp.sec3.5.crowd-principle-elsewhere",)),
    ("CP", "§3.5", "new method of satisfying DP", ("cp.intro.new-way-to-dp",)),
    ("CP", "§3.5", "count queries accurate", ("cp.sec3.5.count-queries",)),
    ("CP", "§4", "related work", ("cp.sec4.related-work",)),
    ("CP", "§4", "sampling first benefits more", ("cp.sec4.sampling-first-benefits-more",)),
    ("CP", "§5", "conclusions", ("cp.sec5.conclusions",)),
    ("CP", "App. A.1", "Thm 1 restated with ε1 − 1", ("cp.appA1.statement",)),
    ("CP", "App. A.1", "proof algebra", ("cp.appA1.steps",)),
    ("CP", "App. A.2", "Thm 5 restated; j = 0 ratio", ("cp.appA2.j0-ratio",)),
    ("CP", "App. A.2", "proof steps (monotone below n_m, first bad j = k + 1)", ("cp.appA2.steps",)),
    ("CP", "App. A.3", "proof of Thm 6 (factorisation, per-outcome bound)", ("cp.appA3.steps",)),
    ("TR", "Abstract / §1", "first link; δn breach; f-smooth DP", ("cp.intro.first-link", "tr.sec1.breach-delta-n")),
    ("TR", "§1", "microdata publishing needed", ("tr.sec1.microdata-needed",)),
    ("TR", "§1", "AOL incident", ("tr.sec1.aol-incident",)),
    ("TR", "§1", "ln 2 at β = 0.1 gives ln 1.1", ("tr.corollary4",)),
    ("TR", "§2", "add/remove neighbours", ("tr.sec2.standard-neighbours",)),
    ("TR", "§2 Def 1", "two-sided ratio", ("tr.definition1.two-sided",)),
    ("TR", "§2", "worst case in two senses", ("tr.sec2.worst-case-senses",)),
    ("TR", "§2 Def 2", "pointwise (ε, δ)-DP implies hockey-stick", ("tr.definition2",)),
    ("TR", "§3.1 Def 3", "k-anonymity", ("tr.definitions",)),
    ("TR", "§3.1", "QID/SA separation", ("cp.sec3.1.qid-separation",)),
    ("TR", "§3.2 Alg 1", "k-duplication", ("tr.algorithm1.k-duplication",)),
    ("TR", "§3.2 Alg 2", "CLR", ("cp.sec3.1.clr-mondrian",)),
    ("TR", "§3.2", "same attack on almost every algorithm", ("tr.sec3.2.same-attack-everywhere",)),
    ("TR", "§3.2", "k-anonymity is syntactic", ("tr.sec3.2.syntactic",)),
    ("TR", "§3.3 Alg 3", "k-DGS; k − 1 others; not (ε, δ)-DP", ("tr.definitions", "cp.sec3.2.crowd-of-k",
                                                               "cp.proposition4")),
    ("TR", "§4 Alg 4", "(k, β)-SDGS", ("tr.definitions",)),
    ("TR", "§4", "F(j; n, β) = Σ f(j; …) typo", ("tr.sec4.F-definition",)),
    ("TR", "§4 Thm 1", "SDGS is (ε, d)-DP (= CP Thm 5)", ("cp.theorem5",)),
    ("TR", "§4 Thm 1 + Def 2", "strict '< δ' at δ = d", ("tr.theorem1.strict",)),
    ("TR", "§4", "γ > β; argmax remark", ("cp.sec3.3.gamma-gt-beta", "cp.sec3.3.argmax-not-at-nm")),
    ("TR", "§4 Table 1", "= CP Table 2", ("cp.table2.beta0.05.eps0.25",)),
    ("TR", "§4 Figs 2–6", "= CP Figs 2–6", ("cp.fig2.trend", "cp.fig2.k-plus-10", "cp.fig3.beta",
                                            "cp.fig4.k-matching", "cp.fig5.k1", "cp.fig5.k2", "cp.fig6.frontier")),
    ("TR", "§4", "towards practical: ε-DP scheme, then sample/apply/suppress", ("tr.sec4.towards-practical",)),
    ("TR", "§4", "vertical partitioning", ("tr.sec4.vertical-partitioning",)),
    ("TR", "§5", "other anonymizers fail even with sampling", ("tr.sec5.other-anonymizers-fail",)),
    ("TR", "§5 Def 4", "(β, ε, δ)-UDP", ("tr.definitions",)),
    ("TR", "§5", "UDP as a starting point", ("tr.sec5.udp-starting-point",)),
    ("TR", "§5 Thm 2", "UDP composes", ("tr.theorem2",)),
    ("TR", "§5 Thm 3", "amplification for ε-DP", ("tr.theorem3",)),
    ("TR", "§5 Cor 4", "ε-DP is (β, ln(1 + β(e^ε − 1)))-UDP; e^ε' = 1.1", ("tr.corollary4",)),
    ("TR", "§5", "δ ≠ 0 left open", ("tr.sec5.open-question",)),
    ("TR", "§6", "δ ≪ 1/n", ("tr.sec6.delta-much-less-than-1-over-n",)),
    ("TR", "§6 Alg 5", "δ-sampling; 5·10^7 · 10^-7 = 5", ("tr.algorithm5.delta-sampling",)),
    ("TR", "§6 Def 5", "f-smooth DP; constant f gives (ε, δ)-DP", ("tr.definition5.constant-f",)),
    ("TR", "§6", "δ-sampling is f-smooth for no f → 0", ("tr.algorithm5.delta-sampling",)),
    ("TR", "§6 Thm 5", "f-smooth composition", ("tr.theorem5",)),
    ("TR", "§6 Thm 6", "SDGS is f-smooth (Chernoff)", ("tr.theorem6",)),
    ("TR", "§6", "γ ln(γ/β) − (γ − β) > 0 for all γ, β", ("tr.sec6.chernoff-positivity",)),
    ("TR", "§6 Fig 7", "f(z) decays; ε0 = 0.25 crosses", ("tr.figure7",)),
    ("TR", "§6", "reason for the crossing unknown", ("tr.sec6.fig7-reason-unknown",)),
    ("TR", "§7", "related work", ("tr.sec7.related-work",)),
    ("TR", "§8", "conclusions and future work", ("tr.sec8.conclusions",)),
)


def render() -> str:
    """The Markdown of ``docs/claims-coverage.md``: the item list, then every registry id."""
    from dps_verify.paper.claims import REGISTRY

    by_id = {c.id: c for c in REGISTRY}
    lines = [
        "# Claims coverage (generated)",
        "",
        "Generated by `python -m dps_verify.paper.claims.coverage > docs/claims-coverage.md` from the",
        "hand-kept item list in `dps_verify/paper/claims/coverage.py` and the registry.",
        "`tests/test_claims_coverage.py` checks that every listed item maps to registry ids, that every",
        "registry id appears below, and that this file is current.",
        "",
        "## Every numbered item and quantitative remark of both versions",
        "",
        "| version | item | what | registry id(s) | expected verdict(s) |",
        "|---|---|---|---|---|",
    ]
    for ver, item, what, ids in ITEMS:
        verdicts = ", ".join(dict.fromkeys(by_id[i].expected for i in ids if i in by_id))
        lines.append(f"| {ver} | {item} | {what} | {', '.join(f'`{i}`' for i in ids)} | {verdicts} |")
    lines += ["", "## Every registry entry", "", "| id | where | expected | method |", "|---|---|---|---|"]
    for c in REGISTRY:
        lines.append(f"| `{c.id}` | {c.where} | {c.expected} | {c.method} |")
    counts: dict[str, int] = {}
    for c in REGISTRY:
        counts[c.expected] = counts.get(c.expected, 0) + 1
    lines += ["", f"{len(REGISTRY)} entries: " + ", ".join(f"{n} {v}" for v, n in counts.items()) + "."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render(), end="")
