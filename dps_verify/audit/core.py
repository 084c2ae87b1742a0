"""``audit``: confirm or refute a claimed (ε, δ) for "sample at β, then anonymize" (CP Def. 3)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import CodeType, FunctionType
from typing import Any, cast

from dps_verify.audit import statistical as st
from dps_verify.audit.domain import Domain
from dps_verify.audit.report import AuditReport
from dps_verify.audit.search import Candidate, candidates, enumeration_cost, plausible_ks
from dps_verify.core import progress
from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import Certified, Number
from dps_verify.core.types import AuditMethod, Claim, Definition, method_param
from dps_verify.engine.count_vectors import SampleMemo
from dps_verify.engine.distribution import distribution, randomized
from dps_verify.engine.law_cache import LawCache
from dps_verify.measures.divergence import delta_certified, delta_exceeds
from dps_verify.mechanisms import StronglySafeKAnonymizer
from dps_verify.verdict import montecarlo as mc
from dps_verify.verdict.witness import EXACT_DECISION_NOTE, Witness, witness_from_laws
from dps_verify.worstcase.sdgs import sdgs_delta_certified

METHODS = ("auto", "exact", "statistical")
#: Largest count-vector enumeration (Π(c_i+1)) done exactly for one dataset.
DEFAULT_EXACT_BUDGET = 20_000
#: Total enumeration terms over the whole exact search before it stops (coverage says so).
DEFAULT_TOTAL_BUDGET = 2_000_000
#: The crowd and beside-bulk leak shapes grow geometrically up to this many records, beyond the
#: domain's ``max_size`` if need be (a DP claim covers datasets of every size);
#: the multi-bulk shapes stay within ``max_size``.
SHAPE_MAX_RECORDS = 96
#: Samples anonymized (every sample up to the size that fits) to recognise strongly-safe
#: k-anonymization written by hand after a PASS (then the closed form of the reference mechanism
#: is stated beside the finite search).
RECOGNITION_SAMPLES = 30_000


def engine_callable(anonymizer: Any) -> Any:
    """The user's plain function behind the audit's guard (:func:`dps_verify.engine.calls.guard`),
    for the exact engine's sample tables only; anything else unchanged.

    Those tables call the anonymizer through :func:`~dps_verify.engine.calls.call_anonymizer`
    themselves (exceptions, exits, timeouts, unhashable outputs, spot re-checks), so the guard's
    own second ``call_anonymizer`` around each call only doubled its cost: the same calls, the
    same errors with the same messages (the guard keeps the function's name).  The wrapper is
    recognised by its code object and the function read from its closure, never from attributes
    the audited code could set."""
    from dps_verify.engine.calls import guard

    global _GUARD_CODE
    if _GUARD_CODE is None:
        _GUARD_CODE = guard(_probe).__code__
    code = getattr(anonymizer, "__code__", None)
    if code is None or code is not _GUARD_CODE or not isinstance(anonymizer, FunctionType):
        return anonymizer
    cells = anonymizer.__closure__ or ()
    inner = dict(zip(code.co_freevars, cells, strict=True))["anonymizer"].cell_contents
    return inner if isinstance(inner, FunctionType) else anonymizer


def _probe(sample: Any) -> Any:  # only its guarded wrapper's code object is used
    return sample


_GUARD_CODE: CodeType | None = None


def closed_form_kind(anonymizer: Any) -> str | None:
    """Name the closed form that covers ``anonymizer``, if any.

    Only an unmodified :class:`~dps_verify.mechanisms.StronglySafeKAnonymizer` whose suppression
    threshold equals its k is recognised: its worst case over all datasets is the exact
    ``sdgs_delta`` (CP App. A.2 reduction to one recoding group, computed exactly).  A threshold
    other than k is an off-by-one bug, not the mechanism of CP Def. 5.
    """
    if (
        isinstance(anonymizer, StronglySafeKAnonymizer)
        and type(anonymizer).__call__ is StronglySafeKAnonymizer.__call__
        and type(anonymizer).from_counts is StronglySafeKAnonymizer.from_counts
        and anonymizer.threshold == anonymizer.k
    ):
        return "strongly-safe"
    return None


def _claim(beta: Fraction, eps: Fraction, delta: Fraction, definition: Definition) -> dict:
    return {
        "beta": str(beta),
        "epsilon": str(eps),
        "delta": f"{float(delta):.6g}",
        "definition": definition,
    }


#: How each definition's witness event is chosen (shown with the witness).
_NOTES = {
    "hockey-stick": "hockey-stick (CP Def. 2): E = {y : Pr[first = y] > e^eps Pr[second = y]}",
    "pointwise": "pointwise (TR Def. 2): E is the set of outputs with |ln P/Q| > epsilon; "
                 "implied delta is its mass",
}


def exact_witness(
    P: dict, Q: dict, eps: Fraction, definition: Definition, cand: Candidate
) -> tuple[Certified, Witness]:
    """δ of the pair under ``definition`` and the event that attains it (the one witness builder,
    :func:`dps_verify.verdict.witness.witness_from_laws`, on the one bad-set function)."""
    w = witness_from_laws(P, Q, eps, tuple(cand.dataset), tuple(cand.neighbour), definition,
                          target=cand.target, shape=cand.shape, note=_NOTES.get(definition, ""))
    if definition == "pointwise":
        val = Fraction(w.implied_delta)  # a mass of the exact laws: a Fraction already
        return Certified(val, val, "exact rational arithmetic"), w
    return delta_certified(P, Q, eps), w


def audit(
    anonymizer: Callable,
    claim: Claim | None = None,
    *,
    domain: Domain | dict | Iterable,
    beta: Number | None = None,
    epsilon: Number | None = None,
    delta: Number | None = None,
    definition: Definition | str | None = None,
    max_size: int | None = None,
    method: AuditMethod | str = AuditMethod.AUTO,
    seed: int | None = None,
    exact_budget: int = DEFAULT_EXACT_BUDGET,
    total_budget: int = DEFAULT_TOTAL_BUDGET,
    alpha: float = 0.05,
    n_select: int = 1000,
    n_confirm: int = 10_000,
    max_statistical_pairs: int = 24,
    exhaustive: bool = False,
) -> AuditReport:
    """Audit the claim "sampling at rate β, then ``anonymizer``, is (ε, δ)-DP" (CP Def. 3).

    The claim is a :class:`~dps_verify.core.types.Claim` (``audit(A, Claim(0.1, 1, 1e-6),
    domain=...)``) or, equivalently, the keyword arguments ``beta``, ``epsilon``, ``delta`` and
    ``definition`` (hockey-stick, CP Def. 2, by default; pointwise, TR Def. 2).

    ``anonymizer`` is what :func:`dps_verify.engine.distribution.distribution` takes
    (deterministic ``sample -> output`` or :class:`~dps_verify.engine.distribution.randomized`),
    or, for the statistical method, a black box ``(sample, rng) -> output``.  β = 1 audits a
    pipeline that samples by itself.  ``domain`` is a :class:`Domain`, its JSON dict, or an
    iterable of records.

    Methods (:class:`~dps_verify.core.types.AuditMethod`): ``"exact"`` enumerates count vectors
    for every candidate dataset whose enumeration is at most ``exact_budget`` terms;
    ``"statistical"`` runs Monte Carlo select-then-confirm with Clopper–Pearson bounds
    (Bonferroni, overall level ``alpha``); ``"auto"`` uses the closed form when the mechanism is
    recognised (:func:`closed_form_kind`), the exact search when possible, and the statistical
    search for black boxes and datasets too large to enumerate.

    The search stops at the first witness unless ``exhaustive``.  The steps:
    :func:`_closed_form` (recognised mechanisms), :func:`_exact_phase` (candidates within the
    budget, then the leak shapes), :func:`_statistical_phase` (the rest), :func:`_conclude`.
    """
    t0 = time.perf_counter()
    c = Claim.of(claim, beta=beta, epsilon=epsilon, delta=delta, definition=definition)
    how = method_param(method)
    if not callable(anonymizer) and not isinstance(anonymizer, randomized):
        raise ParameterError("anonymizer must be callable")
    dom = Domain.of(domain, max_size)
    run = _AuditRun(anonymizer, c, dom, how, seed)
    kind = closed_form_kind(anonymizer) if c.beta < 1 else None
    if kind and how in (AuditMethod.AUTO, AuditMethod.EXACT):
        # closed_form_kind is non-None only for a StronglySafeKAnonymizer
        rep = _closed_form(cast(StronglySafeKAnonymizer, anonymizer), c.beta, c.epsilon, c.delta,
                           c.definition, dom, run.claim, run.cov)
    else:
        if how == AuditMethod.EXACT and run.black_box:
            raise ParameterError("method='exact' needs an anonymizer sample -> output (or "
                             "exact.randomized); a (sample, rng) black box can only be audited "
                             "statistically")
        if how in (AuditMethod.AUTO, AuditMethod.EXACT) and not run.black_box:
            _exact_phase(run, exact_budget, total_budget, exhaustive)
        else:
            run.leftovers = run.candidates
        if run.witness is None and run.leftovers and (
                how == AuditMethod.STATISTICAL or how == AuditMethod.AUTO):
            _statistical_phase(run, alpha, n_select, n_confirm, max_statistical_pairs)
        rep = _conclude(run)
    rep.seconds = time.perf_counter() - t0
    return rep


@dataclass
class _AuditRun:
    """What one audit has found so far: the claim, the candidates, coverage, the largest δ seen,
    the witness, the pairs it could not decide and why."""

    anonymizer: Callable
    c: Claim
    dom: Domain
    method: AuditMethod
    seed: int | None
    black_box: bool = False
    candidates: list[Candidate] = field(default_factory=list)
    leftovers: list[Candidate] = field(default_factory=list)
    cov: dict[str, Any] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    worst: dict | None = None
    witness: Witness | None = None
    undecided: int = 0
    used_method: str = ""

    def __post_init__(self) -> None:
        self.claim = _claim(self.c.beta, self.c.epsilon, self.c.delta, self.c.definition)
        self.cov = {"domain": self.dom.describe(), "closed_form": None, "shapes": {},
                    "pairs_exact": 0, "pairs_statistical": 0, "skipped_over_budget": 0,
                    "max_size_used": 0}
        self.used_method = str(self.method)
        if closed_form_kind(self.anonymizer) and self.c.beta < 1 \
                and self.method != AuditMethod.STATISTICAL:
            return  # the closed form decides: no candidates needed
        self.black_box = st.is_black_box(self.anonymizer)
        key = getattr(self.anonymizer, "sufficient_statistic", None)
        self.key = key
        cheap = callable(key) and hasattr(self.anonymizer, "from_counts")
        self.candidates = list(candidates(self.dom, plausible_ks(self.anonymizer), self.c.beta,
                                          self.c.epsilon, cheap=cheap, seed=self.seed))

    def count_pair(self, cand: Candidate) -> None:
        cov = self.cov
        cov["pairs_exact"] += 1
        cov["shapes"][cand.shape] = cov["shapes"].get(cand.shape, 0) + 1
        cov["max_size_used"] = max(cov["max_size_used"], len(cand.dataset))


def _exact_phase(run: _AuditRun, exact_budget: int, total_budget: int, exhaustive: bool) -> None:
    """Every candidate pair whose count-vector enumeration fits the budgets, decided exactly;
    those over budget are left for the statistical phase; then the leak shapes."""
    cands, cov = run.candidates, run.cov
    laws: _LawCache | None = None
    spent = 0
    for i, cand in enumerate(cands):
        progress.step("exact pairs", i, len(cands))
        cost = enumeration_cost(cand.dataset, run.key) + enumeration_cost(cand.neighbour, run.key)
        if cost > exact_budget or spent + cost > total_budget:
            cov["skipped_over_budget"] += 1
            run.leftovers.append(cand)
            if spent + cost > total_budget and cost <= exact_budget:
                run.leftovers.extend(cands[i + 1 :])
                cov["skipped_over_budget"] += len(cands) - i - 1
                run.reasons.append(f"exact search stopped after {spent} enumeration terms "
                                   f"(total_budget = {total_budget})")
                break
            continue
        if laws is None:
            laws = _LawCache(engine_callable(run.anonymizer), run.dom, run.c.beta)
        spent += cost
        if _decide_pair(run, laws, cand) and not exhaustive:
            break
    run.used_method = "exact"
    if run.witness is None:
        run.witness, shape_undecided = _shape_search(
            engine_callable(run.anonymizer), run.dom, run.c.beta, run.c.epsilon, run.c.delta, run.c.definition,
            cov, memo=laws.memo if laws is not None else None)
        run.undecided += shape_undecided


def _decide_pair(run: _AuditRun, laws: _LawCache, cand: Candidate) -> bool:
    """Decide one candidate pair exactly; True when it is a witness against the claim.

    A crash of the audited code, or code that is not a function of its sample, raises
    :class:`AuditedCodeError` and is never a verdict; a randomized anonymizer must say so
    (``randomized``, or a ``(sample, rng)`` black box for the statistical method)."""
    eps, d, definition = run.c.epsilon, run.c.delta, run.c.definition
    ub = (laws.delta_upper(cand.dataset, cand.neighbour, eps)
          if definition == Definition.HOCKEY_STICK else None)
    P = Q = None
    if ub is None:
        P, Q = laws(cand.dataset), laws(cand.neighbour)
    run.count_pair(cand)
    if ub is not None and ub <= d and run.worst is not None and ub < run.worst["lower"]:
        # a rigorous integer upper bound on this pair's delta: within the claim and strictly
        # below the largest delta found, so it is neither a witness, nor undecided, nor the
        # worst pair (the exact laws are not needed)
        return False
    if P is None or Q is None:
        P, Q = laws(cand.dataset), laws(cand.neighbour)
    cert, w = exact_witness(P, Q, eps, definition, cand)
    if run.worst is None or cert.upper > run.worst["upper"]:
        run.worst = {"lower": cert.lower, "upper": cert.upper,
                     "where": w.summary().split(";")[0],
                     "dataset": [repr(r) for r in cand.dataset], "target": repr(cand.target)}
    if cert.lower > d:
        if run.witness is None or w.implied_delta > run.witness.implied_delta:
            run.witness = w
        return True
    if cert.upper > d:
        # the enclosure straddles the claim: hockey-stick δ > d is decided exactly
        # (measures.divergence.delta_exceeds); pointwise values are exact already
        if definition != Definition.POINTWISE and delta_exceeds(P, Q, eps, d):
            if run.witness is None:
                run.witness = replace(w, note=EXACT_DECISION_NOTE)
            return True
        if definition == Definition.POINTWISE:
            run.undecided += 1
    return False


def _statistical_phase(run: _AuditRun, alpha: float, n_select: int, n_confirm: int,
                       max_pairs: int) -> None:
    """Monte Carlo over the candidates the exact phase left (or all, for a black box)."""
    sw, sworst, n_pairs = _statistical(
        run.anonymizer, run.leftovers, run.c.beta, run.c.epsilon, run.c.delta, run.seed, alpha,
        n_select, n_confirm, max_pairs, run.cov)
    run.cov["pairs_statistical"] = n_pairs
    run.used_method = ("statistical" if run.used_method != "exact" or run.cov["pairs_exact"] == 0
                       else "exact+statistical")
    if sw is not None:
        run.witness = sw
    if sworst is not None and (run.worst is None or sworst["upper"] > run.worst["upper"]):
        run.worst = sworst
    if run.c.definition == Definition.POINTWISE and n_pairs:
        run.reasons.append("statistical method estimates the hockey-stick delta, which is at most "
                           "the pointwise one; a hockey-stick witness also breaks a pointwise claim")


def _conclude(run: _AuditRun) -> AuditReport:
    """The verdict from what the phases found: FAIL with a witness; PASS only when every pair
    was decided exactly; INCONCLUSIVE with the reason otherwise."""
    cov, reasons = run.cov, run.reasons
    if run.witness is not None:
        verdict = "FAIL"
        run.worst = _worst_with_witness(run.worst, run.witness)
    elif cov["pairs_statistical"] and not cov["pairs_exact"]:
        verdict = "INCONCLUSIVE"
        reasons.append("a statistical audit can refute a claim but not confirm it")
    elif run.undecided:
        verdict = "INCONCLUSIVE"
        reasons.append(f"{run.undecided} pair(s) whose certified delta enclosure straddles the "
                       "claim")
    elif cov["pairs_exact"] == 0:
        verdict = "INCONCLUSIVE"
        reasons.append("no candidate dataset was small enough to enumerate exactly")
    else:
        verdict = "PASS"
        if cov["pairs_statistical"]:
            reasons.append("datasets beyond the exact budget were only checked statistically")
        if run.c.beta < 1 and not run.black_box and not isinstance(run.anonymizer, randomized):
            _recognise(engine_callable(run.anonymizer), run.dom, run.c.beta, run.c.epsilon, run.c.delta,
                       run.c.definition, cov, reasons)
    return AuditReport(verdict, run.claim, run.used_method, run.witness, run.worst, cov, reasons)


def _worst_with_witness(worst: dict | None, witness: Witness) -> dict:
    """The largest δ found is at least the witness's implied δ (a witness found by the leak
    shapes or the statistical search is not among the pairs ``worst`` was taken over)."""
    implied = witness.implied_delta
    if worst is not None and worst["upper"] >= implied:
        return worst
    return {"lower": implied, "upper": implied, "where": witness.summary().split(";")[0],
            "dataset": [repr(r) for r in witness.dataset], "target": repr(witness.target),
            "note": "from the witness: its implied delta, a lower bound on this pair's delta"
                    + (" (statistical, at the stated confidence)" if witness.method == "statistical" else "")}


def _recognise(
    anonymizer: Callable, dom: Domain, b: Fraction, eps: Fraction, d: Fraction, definition: Definition,
    cov: dict, reasons: list[str],
) -> None:
    """After a PASS, check whether the code behaves as strongly-safe
    k-anonymization on every sample up to the size that fits :data:`RECOGNITION_SAMPLES`
    (:mod:`dps_verify.verdict.recognise`); if so, say so and state the closed form for the
    reference mechanism — the PASS itself stays a finite search."""
    from dps_verify.verdict.recognise import recognise

    rec = recognise(anonymizer, dom.records, sample_budget=RECOGNITION_SAMPLES)
    if rec is None:
        return
    text = rec.closed_form(b, eps, d, definition)
    cov["recognised"] = {"k": rec.k, "groups": [[repr(r) for r in g] for g in rec.groups],
                         "samples_checked": rec.samples, "max_sample_size": rec.max_size,
                         "statement": text}
    reasons.append("recognised: " + text)


class _LawCache(LawCache):
    """The one law cache (:mod:`dps_verify.engine.law_cache`) over the domain's records, on the
    count-vector backend: each distinct sample is anonymized once across all pairs, each
    dataset's law computed once (bounded); plus a rigorous integer upper bound on δ."""

    def __init__(self, anonymizer: Callable, dom: Domain, b: Fraction):
        super().__init__(anonymizer, b, dom.records, factorised=False)
        self._lo_e: tuple[Fraction, Fraction] | None = None

    def delta_upper(self, dataset: tuple, neighbour: tuple, eps: Fraction) -> Fraction | None:
        """A rigorous upper bound on the hockey-stick δ of the pair, in integer arithmetic:
        max over both directions of Σ_y max(0, X(y) − lo·Y(y)) with lo ≤ e^ε (rational); None
        for a randomized anonymizer."""
        if self.table is None or self.table.is_randomized:
            return None
        if self._lo_e is None:
            from dps_verify.core.numbers import exp_interval

            self._lo_e = exp_interval(eps) if eps else (Fraction(1), Fraction(1))
        lo = self._lo_e[0]
        ln, ld = lo.numerator, lo.denominator
        A, den = self.weights(dataset)
        B, den2 = self.weights(neighbour)
        f = den // den2  # q: both laws over q^|D|
        best = 0
        for X, Y, fx, fy in ((A, B, 1, f), (B, A, f, 1)):
            tot = 0
            for o, xv in X.items():
                v = int(xv) * fx * ld - ln * int(Y.get(o, 0)) * fy
                if v > 0:
                    tot += v
            best = max(best, tot)
        return Fraction(best, ld * den)


def _shape_search(
    anonymizer: Callable, dom: Domain, b: Fraction, eps: Fraction, d: Fraction, definition: Definition,
    cov: dict, memo: SampleMemo | None = None,
) -> tuple[Witness | None, int]:
    """The leak shapes of :mod:`dps_verify.verdict.shapes` (multi-bulk, median movers, geometric
    sizes), checked with the shared exact engine (``memo``: the candidates' sample memo, so no
    sample is anonymized twice); its witness (with the audit's note) or None, and the number of
    pairs it could not decide (they make a PASS INCONCLUSIVE)."""
    from dps_verify.verdict.exact_search import shape_search

    # Beyond max_size only for deterministic code: a randomized anonymizer's law on a large
    # sample is costly, and its pairs tie with a tight claim (each one decided exactly).
    beyond = not isinstance(anonymizer, randomized)
    top = max(SHAPE_MAX_RECORDS, dom.max_size) if beyond else dom.max_size
    res = shape_search(anonymizer, dom.records, beta=b, epsilon=eps, delta=d, definition=definition,
                       max_records=top, max_multi=dom.max_size, memo=memo)
    cov["pairs_exact"] += res.pairs
    cov["shapes"]["leak shapes (verdict.shapes)"] = res.datasets
    cov["max_size_used"] = max(cov["max_size_used"], res.max_size)
    w = res.witness
    if w is None:
        return None, len(res.undecided)
    note = _NOTES.get(definition, "")
    if w.note == EXACT_DECISION_NOTE:  # decided exactly by delta_exceeds
        note = f"{note}; {w.note}" if note else w.note
    return replace(w, note=note), 0


def _closed_form(
    anon: StronglySafeKAnonymizer, b: Fraction, eps: Fraction, d: Fraction, definition: Definition,
    dom: Domain, claim: dict, cov: dict,
) -> AuditReport:
    """Strongly-safe k-anonymization: compare with the exact worst case over all datasets."""
    cert = sdgs_delta_certified(anon.k, b, eps, definition)
    n = int(cert.details.get("argmax_n", 1) or 1)
    t = dom.records[0]
    cov["closed_form"] = (
        f"StronglySafeKAnonymizer(k={anon.k}) with threshold = k is sampled strongly-safe "
        f"k-anonymization (CP Def. 5); its worst case over ALL datasets is the exact sdgs_delta "
        f"(CP App. A.2 reduction to one recoding group), attained by a group of n = {n} records"
    )
    worst = {"lower": cert.lower, "upper": cert.upper,
             "where": f"any dataset whose target's recoding group holds n = {n} records",
             "certified": cert.how}
    reasons: list[str] = []
    if cert.upper <= d:
        return AuditReport("PASS", claim, "closed-form", None, worst, cov, reasons)
    if cert.lower <= d:
        reasons.append("the certified worst-case enclosure straddles the claimed delta")
        return AuditReport("INCONCLUSIVE", claim, "closed-form", None, worst, cov, reasons)
    cand = Candidate((t,) * n, t, "crowd")
    P = distribution(anon, cand.dataset, b).exact
    Q = distribution(anon, cand.neighbour, b).exact
    _, w = exact_witness(P, Q, eps, definition, cand)
    cov["pairs_exact"] = 1
    cov["shapes"] = {"crowd": 1}
    cov["max_size_used"] = n
    return AuditReport("FAIL", claim, "closed-form", w, worst, cov, reasons)


def _statistical(
    anon: Callable, cands: list[Candidate], b: Fraction, eps: Fraction, d: Fraction,
    seed: int | None, alpha: float, n_select: int, n_confirm: int, max_pairs: int, cov: dict,
) -> tuple[Witness | None, dict | None, int]:
    """Select-then-confirm over the first ``max_pairs`` candidates (the one Monte-Carlo engine,
    :mod:`dps_verify.verdict.montecarlo`).  ``rng`` (from ``seed``) is never handed to the
    audited code: each batch of :func:`~dps_verify.verdict.montecarlo.run_sampled` takes its
    seeds from it, draws the samples from a generator of its own and gives a black box a fresh
    generator per run, so the black box cannot steer which records later samples include."""
    run = st.as_sampler(anon)
    rng = random.Random(seed)
    bf = float(b)
    e_eps = mc.exp_upper_float(eps)  # e^ε rounded up: the δ lower bound stays safe
    pool = cands[:max_pairs]
    selected: list[tuple[float, Candidate, bool, tuple]] = []
    for j, cand in enumerate(pool):
        progress.step("statistical pairs", j, len(pool))
        p = mc.run_sampled(run, cand.dataset, bf, n_select, rng)
        q = mc.run_sampled(run, cand.neighbour, bf, n_select, rng)
        fwd, ev, est = mc.select_event(p, q, e_eps)
        cov["shapes"][cand.shape + " (statistical)"] = cov["shapes"].get(cand.shape + " (statistical)", 0) + 1
        cov["max_size_used"] = max(cov["max_size_used"], len(cand.dataset))
        if est > 0:
            selected.append((est, cand, fwd, ev))
    selected.sort(key=lambda s: -s[0])
    top = selected[:3]
    worst: dict[str, Any] | None = None
    witness = None
    m = max(len(top), 1)
    alpha_each = alpha / (2 * m)
    for _est, cand, fwd, ev in top:
        first, second = (cand.dataset, cand.neighbour) if fwd else (cand.neighbour, cand.dataset)
        ph, qh, p_lo, q_hi, dlo = mc.confirm_event(run, first, second, ev, bf, e_eps, n_confirm, alpha_each, rng)
        if worst is None or dlo > worst["lower"]:
            worst = {"lower": max(dlo, 0.0), "upper": max(ph - e_eps * qh, 0.0),
                     "where": f"{cand.shape}: |D| = {len(cand.dataset)}, target {cand.target!r}",
                     "dataset": [repr(r) for r in cand.dataset],
                     "note": "statistical: 'upper' is the point estimate, 'lower' the "
                             f"{1 - alpha:.0%}-confidence lower bound"}
        if dlo > d and (witness is None or dlo > witness.implied_delta):
            witness = Witness(
                tuple(first), tuple(second), tuple(ev), ph, qh, eps, dlo, "hockey-stick",
                target=cand.target, shape=cand.shape, method="statistical", confidence=1 - alpha,
                note=(f"event selected on {n_select} runs, confirmed on {n_confirm} fresh runs; "
                      f"implied delta is the Clopper-Pearson lower bound P_lo - e^eps Q_hi = "
                      f"{p_lo:.4g} - e^eps*{q_hi:.4g} (Bonferroni, overall level {alpha})"),
            )
    return witness, worst, len(pool)
