"""Each idea lives once: every duplicate once listed is now one function.

A static scan of the package source (``ast``, no imports) keeps the duplicates the issue listed
from coming back:

- one ``Witness`` class (``verdict/witness.py``), shared by ``testing`` and ``audit``;
- one Monte-Carlo engine (``verdict/montecarlo.py``): no second ``select_event``/``confirm``/
  Clopper–Pearson/sampling-run function anywhere else;
- one bad-set function (``measures/divergence.py``);
- one regime edge ε = −ln(1−β) of CP Thm 5 (``core/params.py``): no ``-log(1 - x)`` or
  ``-log1p(-x)`` elsewhere;
- one n_m = ⌈k/γ − 1⌉ (``worstcase/sdgs.py``, CP App. A.2): no ``ceil(k / g - 1)`` elsewhere.

Sites that compute the same number for another reason are listed in ``ALLOWED`` with that
reason.  A planted copy of each kind in a temporary tree is found by the same scan (negative
control), and the runtime wiring is checked too (the audit calls the shared engine).
"""

from __future__ import annotations

import ast
import math
import textwrap
from collections import Counter
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from tests.test_import_graph import collector_paused, parsed

PACKAGE = Path(__file__).resolve().parents[1] / "dps_verify"
#: The theorem encodings (top-level proofs/), scanned with the package; paths start "proofs/".
PROOFS = Path(__file__).resolve().parents[1] / "proofs"

#: Monte-Carlo engine functions: defined in verdict/montecarlo.py only.
MC_NAMES = frozenset({"select_event", "confirm", "confirm_event", "clopper_pearson",
                      "run_sampled", "exp_upper_float", "epsilon_float_upper",
                      "empirical_event", "event_bounds"})
#: Bad-set functions ({y : P(y) > e^ε Q(y)}): defined in measures/divergence.py only.
BAD_SET_NAMES = frozenset({"_bad", "bad_set", "_bad_set", "_bad_set_forward"})

HOMES = {
    "Witness class": "verdict/witness.py",
    "Monte-Carlo function": "verdict/montecarlo.py",
    "bad-set function": "measures/divergence.py",
    "regime edge -ln(1-beta)": "core/params.py",
    "n_m = ceil(k/gamma - 1)": "worstcase/sdgs.py",
}

#: (kind, path, enclosing function) -> why this site is not a copy of the shared function.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("regime edge -ln(1-beta)", "worstcase/sdgs.py", "_float_kl"):
        "KL(0 || beta) = -ln(1-beta), the rate of the float Chernoff screen, not the regime edge",
    ("n_m = ceil(k/gamma - 1)", "proofs/tr_theorem_6.py", "_approx_witness"):
        "TR §6 witness in the E = e^eps form: E rational, so eps = ln E is not, and "
        "sdgs.n_min takes a rational eps; gamma is an exact Fraction here",
    ("n_m = ceil(k/gamma - 1)", "inverse/screen.py", "n_m"):
        "float screen vectorised over a numpy grid of gamma values (a guess only; the "
        "certified inverse decides, with sdgs.n_min)",
}


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute):
            return f.attr
    return None


def _is_one_minus(node: ast.AST) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub)
            and isinstance(node.left, ast.Constant) and node.left.value == 1)


def _is_edge(node: ast.AST) -> bool:
    """``-log(1 - x)`` or ``-log1p(-x)`` (any module's log)."""
    if not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)):
        return False
    call = node.operand
    name = _call_name(call)
    if not isinstance(call, ast.Call) or len(call.args) != 1:
        return False
    arg = call.args[0]
    if name == "log":
        return _is_one_minus(arg)
    if name == "log1p":
        return isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub)
    return False


def _is_n_m(node: ast.AST) -> bool:
    """``ceil(k / g - 1)`` with k a name called ``k``."""
    if _call_name(node) != "ceil" or not isinstance(node, ast.Call) or len(node.args) != 1:
        return False
    arg = node.args[0]
    return (isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Sub)
            and isinstance(arg.right, ast.Constant) and arg.right.value == 1
            and isinstance(arg.left, ast.BinOp) and isinstance(arg.left.op, ast.Div)
            and isinstance(arg.left.left, ast.Name) and arg.left.left.id == "k")


def scan(root: Path, prefix: str = "") -> tuple[tuple[str, str, str, int], ...]:
    """Every site of a listed idea under ``root``: (kind, ``prefix`` + path, enclosing function,
    line).  Scanned once per root and session (the package is read by two tests): the cache is
    keyed by both arguments, however the caller spells them."""
    return _scan(root, prefix)


def _children(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))``, the same nodes in the same order, read field by
    field without its two generators (the scan walks ~360,000 nodes)."""
    out: list[ast.AST] = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(item for item in value if isinstance(item, ast.AST))
    return out


@cache
def _scan(root: Path, prefix: str) -> tuple[tuple[str, str, str, int], ...]:
    found: list[tuple[str, str, str, int]] = []
    for path in sorted(root.rglob("*.py")):
        rel = prefix + path.relative_to(root).as_posix()
        with collector_paused():  # building syntax trees (see collector_paused)
            tree = parsed(path)  # the session's syntax tree of the file (also read by the import graph)

        def visit(node: ast.AST, func: str, rel: str = rel) -> None:
            for child in _children(node):
                inner = func
                if isinstance(child, ast.ClassDef) and child.name == "Witness":
                    found.append(("Witness class", rel, func, child.lineno))
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    if child.name in MC_NAMES:
                        found.append(("Monte-Carlo function", rel, child.name, child.lineno))
                    if child.name in BAD_SET_NAMES:
                        found.append(("bad-set function", rel, child.name, child.lineno))
                    inner = child.name
                # each test starts with its node's type (a unary minus, a call): asked only there
                if isinstance(child, ast.UnaryOp) and _is_edge(child):
                    found.append(("regime edge -ln(1-beta)", rel, func, child.lineno))
                if isinstance(child, ast.Call) and _is_n_m(child):
                    found.append(("n_m = ceil(k/gamma - 1)", rel, func, child.lineno))
                visit(child, inner)

        visit(tree, "<module>")
    return tuple(found)


def copies(root: Path, prefix: str = "") -> list[str]:
    """Sites outside their idea's home that are not in ``ALLOWED``."""
    return [f"{kind}: {rel}:{line} (in {func}) - use {HOMES[kind]}"
            for kind, rel, func, line in scan(root, prefix)
            if rel != HOMES[kind] and (kind, rel, func) not in ALLOWED]


def test_every_listed_idea_lives_once() -> None:
    assert copies(PACKAGE) + copies(PROOFS, "proofs/") == []


def test_each_home_still_holds_its_idea() -> None:
    """The scan is not vacuous: every idea is found at its home."""
    homes = {(kind, rel) for kind, rel, _, _ in scan(PACKAGE)}
    for kind in ("Witness class", "Monte-Carlo function", "bad-set function"):
        assert (kind, HOMES[kind]) in homes, kind
    kinds = Counter(kind for kind, *_ in scan(PACKAGE))
    assert kinds["Witness class"] == 1


PLANTED = {
    "audit/report.py": """
        from dataclasses import dataclass

        @dataclass
        class Witness:
            dataset: list
        """,
    "audit/statistical.py": """
        def select_event(p, q, n, e_eps):
            return True, frozenset(), 0.0

        def confirm(run, first, second, event):
            return 0.0
        """,
    "audit/core.py": """
        def _bad(P, Q, eps):
            return [y for y in P if P[y] > Q.get(y, 0)]
        """,
    "paper/walkthroughs.py": """
        import math

        def check(b, eps):
            edge = -math.log1p(-float(b))
            return eps >= edge
        """,
    "paper/figures.py": """
        import math

        def edge(beta):
            return -math.log(1 - float(beta))
        """,
    "proofs/tr_theorem_6.py": """
        import mpmath as mp

        def grid(k, g):
            return int(mp.ceil(k / g - 1))
        """,
    # the homes themselves are not copies
    "core/params.py": """
        import math

        def neg_log1m_float(beta):
            return -math.log1p(-float(beta))
        """,
    "verdict/montecarlo.py": """
        def select_event(p, q, e_eps):
            return True, (), 0.0
        """,
}


def test_planted_duplicates_are_found(tmp_path: Path) -> None:
    """Negative control: one planted copy of each kind, each reported (and no home reported)."""
    for rel, src in PLANTED.items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(textwrap.dedent(src), encoding="utf-8")
    found = copies(tmp_path)
    text = "\n".join(found)
    assert "Witness class: audit/report.py" in text
    assert "Monte-Carlo function: audit/statistical.py:2 (in select_event)" in text
    assert "Monte-Carlo function: audit/statistical.py:5 (in confirm)" in text
    assert "bad-set function: audit/core.py" in text
    assert "regime edge -ln(1-beta): paper/walkthroughs.py:5 (in check)" in text
    assert "n_m = ceil(k/gamma - 1): proofs/tr_theorem_6.py" in text
    # figures.edge now calls core.params: a planted copy there is reported too
    assert "regime edge -ln(1-beta): paper/figures.py:5 (in edge)" in text
    assert ": core/params.py:" not in text and ": verdict/montecarlo.py:" not in text
    assert len(found) == 7


# ---------------------------------------------------------------- the shared objects at runtime


def test_one_witness_class_everywhere() -> None:
    import dps_verify.audit as audit_pkg
    import dps_verify.testing as testing_pkg
    from dps_verify.audit.report import Witness as ReportWitness
    from dps_verify.verdict.witness import Witness

    assert audit_pkg.Witness is Witness
    assert testing_pkg.Witness is Witness
    assert ReportWitness is Witness


def test_blackbox_testing_uses_the_shared_engine() -> None:
    from dps_verify.testing import blackbox
    from dps_verify.verdict import montecarlo

    for name in ("empirical_event", "event_bounds", "run_sampled", "exp_upper_float"):
        assert getattr(blackbox, name) is getattr(montecarlo, name), name


def test_audit_statistical_method_uses_the_shared_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from dps_verify import audit
    from dps_verify.verdict import montecarlo

    calls = Counter()
    real_select, real_confirm = montecarlo.select_event, montecarlo.confirm_event

    def select(*a, **k):
        calls["select"] += 1
        return real_select(*a, **k)

    def confirm(*a, **k):
        calls["confirm"] += 1
        return real_confirm(*a, **k)

    monkeypatch.setattr(montecarlo, "select_event", select)
    monkeypatch.setattr(montecarlo, "confirm_event", confirm)

    def leaky(sample, rng):  # publishes the sample size
        return len(sample)

    rep = audit(leaky, beta=0.3, epsilon=0.5, delta=1e-3, domain=[1, 2], seed=3,
                n_select=300, n_confirm=2000)
    assert rep.verdict == "FAIL" and rep.witness is not None
    assert rep.witness.method == "statistical" and rep.witness.confidence == pytest.approx(0.95)
    assert calls["select"] >= 1 and calls["confirm"] >= 1
    # the statistical witness renders in the audit report and its JSON
    assert "implied delta >=" in rep.summary()
    assert rep.to_dict()["witness"]["method"] == "statistical"


# ---------------------------------------------------------------- the one select_event, edges


def test_select_event_edges() -> None:
    from dps_verify.verdict.montecarlo import select_event

    # nothing observed, or the same counts on both sides: no event, forward, estimate 0
    assert select_event(Counter(), Counter(), 1.0) == (True, (), 0.0)
    same = Counter({"a": 5, "b": 5})
    assert select_event(same, same, 1.5) == (True, (), 0.0)
    # forward only
    fwd, ev, est = select_event(Counter({"a": 9, "b": 1}), Counter({"a": 1, "b": 9}), 2.0)
    assert fwd and ev == ("a",) and est == pytest.approx((9 - 2 * 1) / 10)
    # backward only
    fwd, ev, est = select_event(Counter({"a": 10}), Counter({"a": 4, "b": 6}), 3.0)
    assert not fwd and ev == ("b",) and est == pytest.approx(0.6)
    # a tie between the directions keeps the forward one
    fwd, ev, est = select_event(Counter({"a": 6, "b": 4}), Counter({"a": 4, "b": 6}), 1.0)
    assert fwd and ev == ("a",) and est == pytest.approx(0.2)
    # at the boundary count_p = e^eps count_q the output is not in the event (strict >)
    assert select_event(Counter({"a": 2}), Counter({"a": 1}), 2.0) == (True, (), 0.0)
    # unequal run counts are normalised: 10/20 vs 2/10 at e^eps = 2 is a forward event
    fwd, ev, est = select_event(Counter({"a": 10, "b": 10}), Counter({"a": 2, "b": 8}), 2.0)
    assert fwd and ev == ("a",) and est == pytest.approx(10 / 20 - 2 * 2 / 10)


def test_brute_force_select_event() -> None:
    """Against a brute force over every event of a small output space (equal run counts)."""
    import itertools
    import random

    from dps_verify.verdict.montecarlo import select_event

    rng = random.Random(7)
    outs = ("a", "b", "c")
    for _ in range(200):
        p = Counter({y: rng.randint(0, 6) for y in outs})
        q = Counter({y: rng.randint(0, 6) for y in outs})
        n = max(sum(p.values()), sum(q.values()), 1)
        p["pad"] += n - sum(p.values())
        q["pad"] += n - sum(q.values())
        e = rng.choice((1.0, 1.5, 2.0))
        best = 0.0
        for r in range(1, 5):
            for ev in itertools.combinations((*outs, "pad"), r):
                for a, b in ((p, q), (q, p)):
                    best = max(best, (sum(a[y] for y in ev) - e * sum(b[y] for y in ev)) / n)
        _, ev, est = select_event(p, q, e)
        assert est == pytest.approx(best, abs=1e-12)
        assert (est > 0) == bool(ev)


def test_e_to_the_eps_is_rounded_up() -> None:
    from dps_verify.core.numbers import exp_interval
    from dps_verify.verdict.montecarlo import exp_upper_float

    for eps in (Fraction(0), Fraction(1, 10), Fraction(1), Fraction(7, 3), Fraction(20)):
        up = exp_upper_float(eps)
        assert Fraction(up) >= exp_interval(eps)[1]
        assert up >= math.exp(float(eps))


def test_one_witness_renders_both_directions_in_the_audit_report() -> None:
    """A witness whose first dataset is D' (the one without the target): the audit report still
    prints D (with the target) as D, and JSON follows the comparison order."""
    import json

    from dps_verify.audit.report import AuditReport
    from dps_verify.verdict.witness import witness_from_laws

    D, D2 = ("t",), ()
    # adding t makes output 0 much less likely: the violating direction is D' vs D
    P = {0: Fraction(1, 10), 2: Fraction(9, 10)}  # law of A^β(D)
    Q = {0: Fraction(1, 2), 2: Fraction(1, 2)}  # law of A^β(D')
    w = witness_from_laws(P, Q, Fraction(1), D, D2, target="t", shape="singleton")
    assert (w.dataset, w.neighbour, w.event) == (D2, D, (0,))  # 1/2 > e/10, but 9/10 < e/2
    assert w.direction == "D' vs D" and w.with_target == D and w.without_target == D2
    assert w.prob_first == Fraction(1, 2) and w.prob_second == Fraction(1, 10)
    assert 0 < w.implied_delta <= Fraction(1, 2) - Fraction(2718, 10000)  # e > 2.718
    # forward control: the same laws swapped give the D vs D' direction
    w2 = witness_from_laws(Q, P, Fraction(1), D, D2, target="t", shape="singleton")
    assert w2.direction == "D vs D'" and w2.dataset == D
    rep = AuditReport("FAIL", {"delta": "0.001"}, "exact", w)
    text = rep.summary()
    assert "|D| = 1, target 't'" in text and "(D' vs D)" in text
    assert "  D  = {'t'}" in text and "  D' = {}" in text
    d = json.loads(rep.to_json())["witness"]
    assert d["dataset"] == [] and d["neighbour"] == ["'t'"] and d["direction"] == "D' vs D"
    assert d["prob_first"] == {"float": 0.5, "exact": "1/2"}
    assert d["event_size"] == 1 and d["event_sample"] == ["0"]
