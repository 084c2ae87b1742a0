"""Terminal walkthroughs of the paper's theorems, for readers without Jupyter.

A :class:`Walkthrough` shows the steps of the machine-checked proof (:mod:`dps_verify.paper.kernel`,
with their verdicts; a theorem that is not PROVED is announced with its verdict) plus a ``compute`` function that turns a
set of parameters into lines of numbers: the bound, the exact quantity it bounds, and the
inequality the proof discharges, evaluated at those parameters.  :func:`session` prints the
walkthrough, then (interactively) prompts for new parameters and shows how every number moved.

Everything is computed with the public API (:mod:`dps_verify.bounds`, :mod:`dps_verify.exact`,
:mod:`dps_verify.sdgs`); nothing here is a new privacy computation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from dps_verify.core.errors import ParameterError
from dps_verify.core.numbers import to_fraction
from dps_verify.core.params import (
    beta_param,
    epsilon_param,
    in_paper_regime,
    k_param,
    require_paper_regime,
)
from dps_verify.core.types import ProofVerdict

if TYPE_CHECKING:  # the proof kernel (SymPy, z3, cvc5) loads only when steps are asked for
    from dps_verify.paper.kernel.core import ProofResult

#: What a user types at a prompt to leave the session.
QUIT_WORDS = frozenset({"q", "quit", "exit"})


@dataclass(frozen=True)
class Param:
    """One tunable parameter: its name, default (as typed), meaning and validator."""

    name: str
    default: str
    meaning: str
    check: Callable[[str], object]


@dataclass(frozen=True)
class Walkthrough:
    """A theorem told as steps, with a calculator for its numbers."""

    theorem_id: str
    title: str
    reference: str
    params: tuple[Param, ...]
    compute: Callable[[dict[str, str]], list[tuple[str, str]]]
    hint: str = ""
    extra: dict = field(default_factory=dict)
    #: Printed with the numbers when the theorem as stated does not hold (its proof module's
    #: verdict, shown with ``--steps``, is the authority).
    caution: str = ""

    def defaults(self) -> dict[str, str]:
        return {p.name: p.default for p in self.params}


def _fmt(x: object) -> str:
    """Short human form of a number (mpf, Fraction, float or int)."""
    if isinstance(x, int):
        return str(x)
    try:
        v = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return str(x)
    if math.isinf(v):
        return "inf"
    if v == 0:
        return "0"
    return f"{v:.4e}" if abs(v) < 1e-3 or abs(v) >= 1e4 else f"{v:.6g}"


# --------------------------------------------------------------------------- CP Theorem 1


def _thm1(v: dict[str, str]) -> list[tuple[str, str]]:
    from dps_verify.engine.distribution import distribution, randomized
    from dps_verify.measures.divergence import epsilon
    from dps_verify.worstcase.amplification import amplify

    eps1 = epsilon_param(v["epsilon1"], "epsilon1")
    d1 = to_fraction(v["delta1"], "delta1")
    b1 = beta_param(v["beta1"], allow_one=True)
    b2 = beta_param(v["beta2"], allow_one=True)
    eps2, d2 = amplify(eps1, d1, b1, b2)
    r = b2 / b1
    e1 = math.exp(float(eps1))
    out = [
        ("ratio beta2/beta1", _fmt(r)),
        ("e^eps1 - 1", _fmt(e1 - 1)),
        ("e^eps2 - 1 = ratio * (e^eps1 - 1)", _fmt(float(r) * (e1 - 1))),
        ("eps2 (Thm 1, rounded up)", _fmt(eps2)),
        ("delta2 = ratio * delta1", _fmt(d2)),
        ("discharged: Z <= (1 - b + b e^eps1) X + b delta1", f"factor {_fmt(1 - float(r) + float(r) * e1)}"),
    ]
    # Tightness: a one-record randomized response that is exactly eps1-DP (ratio e^eps1 as an
    # exact rational close to e^eps1), sampled at rate ratio; its exact epsilon matches eps2.
    if eps1 > 0 and d1 == 0:
        ratio = Fraction(e1).limit_denominator(10**9)
        p_truth = ratio / (1 + ratio)
        mech = randomized(
            lambda s: {True: p_truth, False: 1 - p_truth}
            if "t" in s
            else {True: 1 - p_truth, False: p_truth}
        )
        p = distribution(mech, ["t"], r)
        q = distribution(mech, [], r)
        tight = epsilon(p, q, 0)
        rr_eps = math.log(ratio)
        out.append(("tightness: randomized response, eps of mechanism", _fmt(rr_eps)))
        out.append(("tightness: exact eps after sampling", _fmt(tight)))
        out.append(("tightness: Thm 1 for that mechanism", _fmt(amplify(rr_eps, 0, 1, r)[0])))
    return out


THEOREM_1 = Walkthrough(
    theorem_id="cp-theorem-1",
    title="Amplification by sampling",
    reference="CP Thm 1, §2.4; proof CP App. A.1",
    params=(
        Param("epsilon1", "1", "epsilon of the beta1-sampled algorithm", lambda s: epsilon_param(s, "epsilon1")),
        Param("delta1", "0", "delta of the beta1-sampled algorithm", lambda s: to_fraction(s, "delta1")),
        Param("beta1", "1", "original sampling rate (1 = no sampling)", lambda s: beta_param(s, allow_one=True)),
        Param("beta2", "0.1", "new, smaller sampling rate", lambda s: beta_param(s, allow_one=True)),
    ),
    compute=_thm1,
    hint="halve beta2 and watch e^eps2 - 1 halve; set delta1 > 0 and watch delta2 scale the same way.",
)


# --------------------------------------------------------------------------- CP Theorem 5


def _thm5_core(k: int, b: Fraction, eps: Fraction, label: str = "") -> list[tuple[str, str]]:
    from dps_verify.worstcase import sdgs
    from dps_verify.worstcase.closed_forms import d_certified
    from dps_verify.worstcase.sdgs import sdgs_delta_certified

    require_paper_regime(b, eps)  # the one regime-edge check (core.params), CP Thm 5
    gamma = 1 - float(1 - b) * math.exp(-float(eps))
    nm = sdgs.n_min(k, b, eps)
    paper = d_certified(k, b, eps)
    n_star = paper.details.get("argmax_n", nm)
    j0 = sdgs.first_bad(n_star, b, eps)
    hs = sdgs_delta_certified(k, b, eps, "hockey-stick")
    pw = sdgs_delta_certified(k, b, eps, "pointwise")
    ratio_bad = n_star * float(1 - b) / (n_star - j0) if j0 < n_star else math.inf
    ratio_ok = n_star * float(1 - b) / (n_star - j0 + 1)
    return [
        (f"{label}gamma = 1 - (1 - beta) e^-eps", _fmt(gamma)),
        (f"{label}n_m = ceil(k/gamma - 1)", str(nm)),
        (f"{label}paper d(k, beta, eps)", _fmt(paper.safe)),
        (f"{label}maximising group size n", str(n_star)),
        (f"{label}first bad j at that n (j > gamma n)", str(j0)),
        (f"{label}discharged: f(j;n)/f(j;n-1) = n(1-beta)/(n-j) vs e^eps",
         f"j={j0 - 1}: {_fmt(ratio_ok)} <= {_fmt(math.exp(float(eps)))} < j={j0}: {_fmt(ratio_bad)}"),
        (f"{label}exact delta, pointwise (TR Def. 2)", _fmt(pw.safe)),
        (f"{label}exact delta, hockey-stick (CP Def. 2)", _fmt(hs.safe)),
        (f"{label}paper d / exact hockey-stick", _fmt(float(paper.safe) / float(hs.safe)) if hs.safe > 0 else "inf"),
    ]


def _thm5(v: dict[str, str]) -> list[tuple[str, str]]:
    return _thm5_core(k_param(v["k"]), beta_param(v["beta"]), epsilon_param(v["epsilon"]))


THEOREM_5 = Walkthrough(
    theorem_id="cp-theorem-5",
    title="Sampling + strongly-safe k-anonymization is (eps, delta)-DP",
    reference="CP Thm 5, §3.3; proof CP App. A.2 (TR Thm 1)",
    params=(
        Param("k", "20", "suppression threshold", k_param),
        Param("beta", "0.1", "sampling probability", beta_param),
        Param("epsilon", "1", "privacy loss bound, >= -ln(1 - beta)", epsilon_param),
    ),
    compute=_thm5,
    hint="k = 21 (delta falls roughly geometrically), beta = 0.2 (it rises fast), "
    "or epsilon = 0.106 (just inside the regime edge for beta = 0.1).",
)


# --------------------------------------------------------------------------- CP Theorem 6


def _thm6(v: dict[str, str]) -> list[tuple[str, str]]:
    from dps_verify.worstcase.closed_forms import d, d_safe

    k = k_param(v["k"])
    b = beta_param(v["beta"])
    eps = epsilon_param(v["epsilon"])
    e1 = epsilon_param(v["epsilon1"], "epsilon1")
    if eps < e1:
        raise ParameterError("epsilon must be >= epsilon1 (CP Thm 6)")
    d6 = d_safe(k, b, eps, e1)
    rows = [("Thm 6 delta = d(k, beta, eps - eps1) [claimed; REFUTED under CP Def 3]", _fmt(d6))]
    if in_paper_regime(b, eps):
        rows.append(("Thm 5 delta at the same eps (eps1 = 0)", _fmt(d(k, b, eps))))
    rows += _thm5_core(k, b, eps - e1, label="[eps - eps1] ")
    return rows


THEOREM_6 = Walkthrough(
    theorem_id="cp-theorem-6",
    title="Sampling + eps1-safe k-anonymization",
    reference="CP Thm 6, §3.4; proof CP App. A.3",
    params=(
        Param("k", "20", "suppression threshold", k_param),
        Param("beta", "0.1", "sampling probability", beta_param),
        Param("epsilon", "1.5", "total privacy loss bound", epsilon_param),
        Param("epsilon1", "0.5", "privacy loss of choosing the recoding", lambda s: epsilon_param(s, "epsilon1")),
    ),
    compute=_thm6,
    caution="Caution: CP Thm 6 as stated (CP Def 3, A_m choosing the recoding on the sample) is "
    "REFUTED by an exact witness; its delta below is the paper's claim (--steps: the proof's verdict).",
    hint="raise epsilon1 toward epsilon - 0.11 and watch delta climb to Thm 5's value at a small eps.",
)

WALKTHROUGHS: dict[str, Walkthrough] = {w.theorem_id: w for w in (THEOREM_1, THEOREM_5, THEOREM_6)}


def get(theorem_id: str) -> Walkthrough:
    """The walkthrough for ``theorem_id``; ``ValueError`` naming the known ones otherwise."""
    key = theorem_id.strip().lower()
    if key not in WALKTHROUGHS:
        raise ParameterError(
            f"unknown theorem {theorem_id!r}; known: {', '.join(sorted(WALKTHROUGHS))}"
        )
    return WALKTHROUGHS[key]


#: Proof results of this process by theorem id, filled by :func:`proof` (a test session fills
#: it once for every theorem: the ``proof_results`` fixture of tests/conftest.py).
PROOF_CACHE: dict[str, ProofResult] = {}


def proof(theorem_id: str) -> ProofResult:
    """The machine-checked proof of ``theorem_id`` (:mod:`dps_verify.paper.kernel`), run once
    per process: the walkthrough's steps are the proof's steps, with their verdicts."""
    r = PROOF_CACHE.get(theorem_id)
    if r is None:
        from dps_verify.paper.kernel import run

        r = PROOF_CACHE[theorem_id] = run(theorem_id)
    return r


def render_intro(w: Walkthrough) -> list[str]:
    """Title, reference, the proof's verdict and its numbered steps (taken from the proof
    module, not re-narrated), remarks marked; a theorem that is not PROVED says so first."""
    r = proof(w.theorem_id)
    lines = [f"{w.theorem_id}: {w.title}  ({w.reference})",
             f"Verdict of `dps-verify prove {w.theorem_id}`: {r.verdict.value}"]
    if r.verdict is not ProofVerdict.PROVED:
        lines.append(f"  This theorem is {r.verdict.value}: {r.summary}")
    lines += ["", f"  1. Claim: {r.claim}"]
    for i, s in enumerate(r.steps, 2):
        tag = "remark, " if s.role == "remark" else ""
        lines.append(f"  {i}. {s.name} [{tag}{s.verdict.value}]: {s.statement}")
    return lines


def render_values(
    w: Walkthrough, values: dict[str, str], before: list[tuple[str, str]] | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """Evaluate at ``values``; with ``before``, show old -> new for every number that moved."""
    rows = w.compute(values)
    params = ", ".join(f"{k} = {v}" for k, v in values.items())
    lines = [f"At {params}:"]
    width = max(len(name) for name, _ in rows)
    old = dict(before or [])
    for name, val in rows:
        if before is not None and name in old and old[name] != val:
            lines.append(f"  {name:<{width}}  {old[name]}  ->  {val}")
        else:
            lines.append(f"  {name:<{width}}  {val}")
    return lines, rows


def check_values(w: Walkthrough, values: dict[str, str]) -> list[tuple[str, str]]:
    """Validate every parameter and compute the rows, before anything is printed
    (``ValueError`` naming the parameter otherwise)."""
    for p in w.params:
        p.check(values[p.name])
    return w.compute(values)


def parse_assignments(w: Walkthrough, items: Iterable[str]) -> dict[str, str]:
    """``["k=30", "beta=0.2"]`` -> values (defaults for the rest); ValueError on bad names."""
    values = w.defaults()
    for item in items:
        name, sep, val = item.partition("=")
        name = name.strip()
        if not sep or name not in values:
            raise ParameterError(
                f"--set expects NAME=VALUE with NAME one of {', '.join(values)}; got {item!r}"
            )
        values[name] = val.strip()
    return values


def session(
    w: Walkthrough,
    values: dict[str, str] | None = None,
    *,
    interactive: bool = True,
    steps: bool = False,
    notes: Iterable[str] = (),
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[[str], None] = print,
) -> int:
    """Print the numbers at ``values`` first (validated and computed before anything is
    printed), then the proof's verdict and steps when ``steps`` is set (running the proof
    module takes seconds), else how to ask for them; if ``interactive``, loop: prompt for each
    parameter, recompute, and show the effect.  An empty answer keeps the current value; ``q``
    quits; end of input quits cleanly.  Bad values are reported and re-asked.  Returns the
    number of rounds run."""
    values = dict(values or w.defaults())
    check_values(w, values)  # raises before any output
    lines, rows = render_values(w, values)
    print_fn(f"{w.theorem_id}: {w.title}  ({w.reference})")
    for note in notes:
        print_fn(note)
    if w.caution:
        print_fn(w.caution)
    for line in lines:
        print_fn(line)
    print_fn("")
    if steps:
        for line in render_intro(w)[1:]:
            print_fn(line)
    else:
        print_fn(f"Proof steps: dps-verify explore {w.theorem_id} --steps (machine-checked, with their verdicts)")
    if not interactive:
        if w.hint:
            print_fn("")
            print_fn(f"Try: {w.hint}")
        return 0
    rounds = 0
    while True:
        print_fn("")
        print_fn(f"Change a parameter (Enter keeps it, q quits). Try: {w.hint}")
        new = dict(values)
        for p in w.params:
            while True:
                try:
                    raw = input_fn(f"{p.name} [{new[p.name]}]: ")
                except EOFError:
                    print_fn("")
                    return rounds
                raw = raw.strip()
                if raw.lower() in QUIT_WORDS:
                    return rounds
                if not raw:
                    break
                try:
                    p.check(raw)
                except ValueError as exc:
                    print_fn(f"  ! {exc}")
                    continue
                new[p.name] = raw
                break
        try:
            lines, new_rows = render_values(w, new, before=rows)
        except ValueError as exc:
            print_fn(f"  ! {exc}; keeping {', '.join(f'{k} = {v}' for k, v in values.items())}")
            continue
        values, rows = new, new_rows
        rounds += 1
        for line in lines:
            print_fn(line)


__all__ = [
    "PROOF_CACHE",
    "QUIT_WORDS",
    "WALKTHROUGHS",
    "Param",
    "check_values",
    "Walkthrough",
    "get",
    "parse_assignments",
    "render_intro",
    "render_values",
    "session",
]
