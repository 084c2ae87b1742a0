"""The informal statements of both versions, registered as NOT-MACHINE-CHECKABLE with the reason,
so that "every claim has an entry" is literally true and counted.

Each entry's ``check`` returns NOT-MACHINE-CHECKABLE with the one-line reason; its formal core,
when it has one, is checked elsewhere (named in the reason).
"""

from __future__ import annotations

from dps_verify.paper.claims.base import NMC, Claim, Result

#: (id, where, paraphrase, reason)
_INFORMAL: tuple[tuple[str, str, str, str], ...] = (
    # ---------------------------------------------------------------- CP
    ("cp.abstract.summary", "CP abstract",
     "Safe k-anonymization after sampling is (ε, δ)-DP; sampling amplifies DP; uncertainty-based "
     "notions do not compose.",
     "a summary; its formal content is checked under cp.theorem1, cp.theorem5, cp.theorem6, cp.sec2.2.*"),
    ("cp.sec2.1.definitions", "CP §2.1 Defs 1–2, §3.1 Def 4, §3.2 Def 5, §3.4 Def 6",
     "ε-DP, (ε, δ)-DP (hockey-stick form), k-anonymity, strongly-safe and ε-safe anonymization.",
     "definitions: implemented (definition='hockey-stick', StronglySafeKAnonymizer, "
     "EpsilonSafeKAnonymizer), nothing to verify; their consequences have their own entries"),
    ("cp.fig1.illustration", "CP §3.3 Fig 1 (also TR §4 Fig 1)",
     "A binomial curve with βn and γn marked.", "an illustration, no data"),
    ("cp.intro.first-link", "CP §1 and §3.5 (also TR abstract, §1, §4, §8)",
     "The result is the first to link k-anonymization with differential privacy.",
     "a priority claim about the literature, not a mathematical statement"),
    ("cp.intro.k-anon-weak-known", "CP §1",
     "k-anonymization methods have been known to lack strong privacy guarantees.",
     "a statement about the field's opinion"),
    ("cp.intro.new-way-to-dp", "CP §1 and §3.5 (also TR §1, §4)",
     "Sampling first and pruning results sensitive to one tuple is an alternative to output "
     "perturbation for achieving DP.",
     "a methodological suggestion; its formal instance is cp.theorem5"),
    ("cp.intro.practical-advice", "CP §1 (approaches) and §2.7",
     "With sampled data one may use a larger budget, apply a DPS mechanism once, or resample "
     "freshly for each release.",
     "advice; the quantitative parts are cp.theorem1 and cp.sec2.7.*"),
    ("cp.sec2.2.uncertainty-not-composable", "CP §2.2",
     "Any privacy notion that exploits the adversary's uncertainty admits an uncertain predicate, "
     "so two releases can be built that leak together.",
     "quantifies over all conceivable privacy definitions; the concrete instance is cp.sec2.2.xor-noncomposition"),
    ("cp.sec2.2.non-interactive-ok", "CP §2.2 and §2.6",
     "Non-composability may be acceptable for one-shot non-interactive publishing but rules out "
     "the interactive setting.", "a judgment about use cases"),
    ("cp.sec2.3.nontrivial-relaxation", "CP §2.3 (after Def 3)",
     "When β is much larger than δ, DPS is both non-trivial to satisfy and a non-trivial "
     "relaxation of (ε, δ)-DP.",
     "'much larger' is informal; the formal parts are cp.def3.beta-gt-delta, cp.proposition4, cp.theorem5"),
    ("cp.sec2.6.interpretation", "CP §2.6 (discussion)",
     "An ε-DP answer can remove the uncertainty a DPS mechanism relies on, because the candidate "
     "datasets are not all adjacent.",
     "an explanation; the checked example is cp.sec2.6.probabilities"),
    ("cp.sec2.6.weak-composition-expected", "CP §2.6 (opening)",
     "One would expect a DPS mechanism to compose with an ε-DP one at a weaker ε.",
     "a statement of expectation; its refutation is the §2.6 example (cp.sec2.6.*)"),
    ("cp.sec2.7.sampling-in-practice", "CP §1 and §2.7 (also TR §1)",
     "Census microdata samples and research releases already involve (explicit or implicit) "
     "random sampling.", "a factual statement about practice"),
    ("cp.sec3.1.gic-incident", "CP §3.1 (also TR §3.1)",
     "The GIC re-identification (zip code, birth date, gender) motivated k-anonymity.",
     "a historical fact"),
    ("cp.sec3.1.qid-separation", "CP §3.1 (also TR §3.1, §7)",
     "Separating quasi-identifiers from sensitive attributes is hard in practice, so all "
     "attributes should be treated as QIDs.", "an argument about adversaries' knowledge"),
    ("cp.sec3.1.l-diversity-t-closeness", "CP §3.1 and §4",
     "ℓ-diversity and t-closeness keep the QID/SA split and so do not fix k-anonymity correctly.",
     "a judgment about other definitions"),
    ("cp.sec3.1.hiding-intuition-wrong", "CP §3.1 (also TR §3.2)",
     "'k − 1 identical tuples' does not prevent re-identification: k-fold duplication of chosen "
     "tuples satisfies the syntax.",
     "informal; the mechanism is checked as tr.algorithm1.k-duplication"),
    ("cp.sec3.1.data-dependent-recodings", "CP §3.1",
     "The same weakness exists for algorithms that compute a global recoding from the data "
     "(e.g. He–Naughton).",
     "about an unspecified family of published algorithms; CLR/Mondrian are checked as cp.sec3.1.clr-mondrian"),
    ("cp.sec3.2.definition-not-intuition", "CP §3.2 (also TR §3.2)",
     "What fails is the definition of k-anonymity, not the 'hiding in a crowd' intuition.",
     "a belief; Thm 5 (cp.theorem5) is the supporting evidence"),
    ("cp.sec3.2.all-anonymizers-am-apply", "CP §3.2",
     "Every existing k-anonymization algorithm can be written as A_m (choose g) followed by Apply.",
     "a universal statement about the literature's algorithms (the lookup-table g argument is informal)"),
    ("cp.sec3.2.global-recoding-is-strongly-safe", "CP §3.2 (after Def 5; TR Alg 3)",
     "Always using the same global recoding scheme gives a strongly-safe k-anonymizer.",
     "true by definition (Def 5); nothing to compute"),
    ("cp.sec3.3.law-of-large-numbers", "CP §3.3 (also TR §4)",
     "Intuitively the tail beyond γn shrinks with n, so n_m should maximise the sum.",
     "an intuition the paper itself withdraws; the checked statement is cp.sec3.3.argmax-not-at-nm"),
    ("cp.sec3.3.privacy-utility", "CP §3.3 (Figs 2–3)",
     "The figures show an intricate relationship between privacy and utility.", "interpretation"),
    ("cp.sec3.5.crowd-principle-elsewhere", "CP §3.5 (also TR §4)",
     "'Hiding in a crowd of k' is used in location privacy, social networks and network traces.",
     "a statement about other fields"),
    ("cp.sec3.5.count-queries", "CP §3.5",
     "On sampled data, count queries can be answered accurately provided the result is large enough.",
     "no accuracy notion or threshold is specified"),
    ("cp.sec4.related-work", "CP §4",
     "Related work: weaker notions, the DP literature, Chaudhuri–Mishra's sampling result (δ linear "
     "in β; sampling last), Machanavajjhala et al., Korolova et al., Götz et al., Blum et al., "
     "Kifer–Lin's axioms.",
     "statements about other papers; the axioms themselves are cp.theorem2 and cp.theorem3"),
    ("cp.sec4.sampling-first-benefits-more", "CP §4",
     "Sampling first and then k-anonymizing benefits more from sampling than anonymizing then sampling.",
     "compares with an approach whose parameters are not given"),
    ("cp.sec5.conclusions", "CP §5",
     "Summary; open question whether other sources of uncertainty tolerate ε-DP queries.",
     "a summary and an open question"),
    # ---------------------------------------------------------------- TR
    ("tr.definitions", "TR §3.1 Def 3 (k-anonymity), §5 Def 4 (UDP), Algs 2–4 (CLR, k-DGS, SDGS)",
     "The TR's definitions and algorithm descriptions.",
     "definitions; UDP is CP's DPS without β > δ, k-DGS/SDGS are CP's strongly-safe anonymizer "
     "without/with sampling (checked as cp.proposition4, cp.theorem5, cp.sec3.2.crowd-of-k)"),
    ("tr.sec1.microdata-needed", "TR §1",
     "Interactive query answering cannot replace microdata publishing (budgets, many users, "
     "exploration, test data).", "an argument about practice"),
    ("tr.sec1.aol-incident", "TR §1", "AOL's 2006 search-log release led to a re-identification.",
     "a historical fact"),
    ("tr.sec1.breach-delta-n", "TR §1 and §6",
     "Under (ε, δ)-DP a breach happens with probability up to about δn, not δ.",
     "informal; the quantitative example (5 of 5·10^7 records) is tr.algorithm5.delta-sampling"),
    ("tr.sec2.standard-neighbours", "TR §2",
     "The paper uses the add/remove-one-tuple reading of neighbouring datasets.",
     "a modelling choice (dps_verify uses the same, CP §2.1)"),
    ("tr.sec2.worst-case-senses", "TR §2 (after Def 1)",
     "DP is worst-case over datasets/tuples and over outcomes.", "an explanation"),
    ("tr.sec3.2.same-attack-everywhere", "TR §3.2",
     "The outlier attack applies to almost every existing k-anonymization algorithm.",
     "about the literature; the concrete algorithms are checked as cp.sec3.1.clr-mondrian"),
    ("tr.sec3.2.syntactic", "TR §3.2",
     "k-anonymity is syntactic: it checks outputs one at a time, not the algorithm's behaviour.",
     "a conceptual remark"),
    ("tr.sec4.vertical-partitioning", "TR §4 ('Towards practical', second idea)",
     "The curse of dimensionality can be handled by vertical partitioning published separately.",
     "no mechanism or parameters are specified"),
    ("tr.sec5.udp-starting-point", "TR §5",
     "(β, ε, δ)-UDP can be a starting point for notions with uncertain adversaries.",
     "future work"),
    ("tr.sec5.other-anonymizers-fail", "TR §5 (opening)",
     "Other k-anonymization techniques do not satisfy (ε, δ)-DP even with sampling.",
     "about unspecified algorithms; CLR/Mondrian are checked as cp.sec3.1.clr-mondrian"),
    ("tr.sec6.delta-much-less-than-1-over-n", "TR §6",
     "It is known that (ε, δ)-DP needs δ ≪ 1/n to be meaningful.",
     "a cited folklore fact with an informal '≪'"),
    ("tr.sec6.fig7-reason-unknown", "TR §6 (after Fig 7)",
     "The authors are unsure why the ε0 = 0.25 curve crosses the others.",
     "the authors' uncertainty; the crossing itself is checked in tr.figure7"),
    ("tr.sec7.related-work", "TR §7",
     "Related work, including 'the only work on sampling for DP is Chaudhuri–Mishra, where δ is "
     "bounded below by β', synthetic data and search-log publishing.", "statements about other papers"),
    ("tr.sec8.conclusions", "TR §8",
     "Summary and future work: practical safe anonymizers, DP global recoding, safe Mondrian.",
     "a summary and plans"),
)


def _nmc(reason: str):
    def check() -> Result:
        return Result(NMC, "informal", reason)
    return check


def claims() -> list[Claim]:
    """One NOT-MACHINE-CHECKABLE entry per informal statement (CP first, then TR)."""
    return [Claim(i, where, statement, f"not machine-checkable: {reason}", NMC, _nmc(reason),
                  source="TR" if i.startswith("tr.") else "CP")
            for i, where, statement, reason in _INFORMAL]
