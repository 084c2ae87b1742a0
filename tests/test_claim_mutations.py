"""Mutation test of the claim checks (issue #13): each mutant weakens one check of the registry
(a one-sided comparison, a verdict returned unconditionally, a loosened tolerance …) and must be
caught — the affected claims, run with their negative controls on the mutated package, no longer
all come out as recorded.  Each run is a ``fork`` of the test process that imports the claim
modules (:mod:`dps_verify.paper.claims`) again, the mutated one from its mutated text
(:func:`tests.mutation.run_mutant_forked`; the claim modules import nothing that imports them:
only the report writers and the command line do, which the check does not call), or, where
there is no ``fork``, a fresh interpreter on a mutated copy of the package.

The symbolic proofs are switched off (``DPS_VERIFY_CLAIMS_NO_PROOFS``): the mutants sit in the
exact computations, which then decide alone.  The unmutated package must pass the same check
(otherwise every mutant would be "caught" for nothing).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.mutation import Mutant, run_mutant_forked

S2, S3 = "paper/claims/cp_section2.py", "paper/claims/cp_section3.py"
TAB, TR = "paper/claims/tables.py", "paper/claims/tr.py"
WIT = "paper/claims/witnesses.py"

#: (mutant, the claim ids whose run must catch it)
MUTANTS: list[tuple[Mutant, tuple[str, ...]]] = [
    # --- the nine survivors of the review
    (Mutant("appA1 returns CORRECTED unconditionally", "paper/claims/cp_appendix.py",
            '    if printed_ok:\n        return Result(CONFIRMED, "printed form agrees with Thm 1", note)',
            '    if True:\n        return Result(CORRECTED, "fixed", note)'), ("cp.appA1.statement",)),
    (Mutant("table2 comparison with the printed value removed", TAB,
            "ok = agrees_with_printed(c.lower, c.upper, printed)", "ok = c.lower <= c.upper"),
     ("cp.table2.beta0.05.eps0.25", "cp.table2.beta0.2.eps2.0")),
    (Mutant("thm5 exact accepts up to 10x d", S3,
            "if not x.upper <= lo_bound:", "if not x.upper <= 10 * lo_bound:"), ("cp.theorem5",)),
    (Mutant("beyond accepts up to 2x d", "paper/claims/beyond.py",
            "ok = hs.upper <= d.lower and", "ok = hs.upper <= 2 * d.lower and"),
     ("beyond.table2.beta0.2.eps2.0",)),
    (Mutant("sec2.2 accepts floored parts without checking their delta", WIT,
            "parts_ok = all(x.holds and x.worst <= small for x in floored)", "parts_ok = True"),
     ("cp.sec2.2.xor-noncomposition",)),
    (Mutant("def3 swaps beta and 1 - beta in the mixture", S2,
            "p.get(y, 0) - (1 - beta) * q.get(y, 0)", "p.get(y, 0) - beta * q.get(y, 0)"),
     ("cp.def3.beta-gt-delta",)),
    (Mutant("fig5 k>=2 threshold loosened 100x", S3,
            "bound = Fraction(printed)", "bound = 100 * Fraction(printed)"), ("cp.fig5.k2",)),
    (Mutant("thm6 exact check drops the Def 3 model", S3,
            "ok &= on_sample <= bound and on_full <= bound", "ok &= on_full <= bound"), ("cp.theorem6",)),
    (Mutant("TR Thm 2 witness used without its global premise check", WIT,
            "    prem = thm2_premise(variant)\n    if not prem.holds:\n",
            "    prem = thm2_premise(variant)\n    if False:\n"), ("tr.theorem2",)),
    # --- more of our own
    (Mutant("def3 identity attains 1 - beta", S2, "ok &= d0 == beta", "ok &= d0 == 1 - beta"),
     ("cp.def3.beta-gt-delta",)),
    (Mutant("fig4 accepts any k within 10", S3,
            "return [abs(k - printed[b]) <= 1 for", "return [abs(k - printed[b]) <= 10 for"),
     ("cp.fig4.k-matching",)),
    (Mutant("TR Thm 1 strictness read as '>'", TR,
            "pw.lower >= dc.upper * delta_scale))", "pw.lower > dc.upper * delta_scale))"),
     ("tr.theorem1.strict",)),
    (Mutant("Smith for every beta ignores the margin 3 - E", TAB,
            "if lower_ok and mono and margin.a > 0:", "if lower_ok and mono:"),
     ("cp.sec2.4.smith-every-beta",)),
    (Mutant("crowd of k ignores the size of the group", S3,
            "if not (c == same and same >= k):", "if not (c == same):"), ("cp.sec3.2.crowd-of-k",)),
    (Mutant("Thm 5 vs Def 3 counts any delta as inadmissible", S3,
            "no_admissible = x.lower >= bb", "no_admissible = x.lower >= 0"),
     ("cp.theorem5.beta-gt-delta",)),
    (Mutant("CP §1 factor check reads the corrected form as printed", S2,
            'lit_ok &= this_lit if printed_form == "eps-1" else this_cor', "lit_ok &= this_cor"),
     ("cp.intro.factor-beta",)),
    (Mutant("leaks-r ignores which predicate the pair determines", S2,
            "s_determined = all(v == 0 or ((x ^ y) == s) for (x, y, s), v in cast("
            "\"dict[tuple[bool, bool, bool], Fraction]\", law).items())",
            "s_determined = True"), ("cp.sec2.2.leaks-r",)),
    (Mutant("Thm 1 exact check drops tightness", S2, "    ok = ok and tight\n", "    ok = ok\n"),
     ("cp.theorem1",)),
    (Mutant("table1 epsilon compared one-sided", TAB,
            "ok = agrees_with_printed(e2.a, e2.b, printed)", "ok = e2.b <= printed_interval(printed)[1]"),
     ("cp.table1.one.beta0.1.eps",)),
    (Mutant("TR Thm 5 printed reading given A2's own epsilon", TR,
            "literal_ok = worst <= e1 * 1", "literal_ok = worst <= e1 * e1"), ("tr.theorem5",)),
    (Mutant("TR Thm 6 delta0 check reads the corrected term as printed", TR,
            '(g1 * (1 - b) / g1 if printed == "as-printed" else (g1 - b) / g1)', "((g1 - b) / g1)"),
     ("tr.theorem6",)),
    # --- exact selections and certified searches (this session's #13 leftovers)
    (Mutant("fig5 k1 split ignores beta (gamma >= 1/2 read as e^eps >= 2)", S3,
            "return exp_compare(eps, 2 * (1 - beta) if split is None else split) >= 0",
            "return exp_compare(eps, 2 if split is None else split) >= 0"), ("cp.fig5.k1",)),
    (Mutant("fig5 k1 split by a float threshold good to 3 digits", S3,
            "return exp_compare(eps, 2 * (1 - beta) if split is None else split) >= 0",
            "return float(eps) > 0.668 if split is None else exp_compare(eps, split) >= 0"), ("cp.fig5.k1",)),
    (Mutant("fig5 k1 drops the d == beta side", S3,
            "equal_ok = all(c.lower == beta == c.upper for _, past, c in cs if past)", "equal_ok = True"),
     ("cp.fig5.k1",)),
    (Mutant("fig5 k1 drops the d > beta side", S3,
            "larger_ok = all(c.lower > beta for _, past, c in cs if not past)", "larger_ok = True"),
     ("cp.fig5.k1",)),
    (Mutant("beyond beta search ignores the target", "paper/claims/beyond.py",
            "max_beta(k, eps, target, bound=", "max_beta(k, eps, target / 1000, bound="),
     ("beyond.table2.beta0.1.eps1.0",)),
    (Mutant("beyond beta search returns the starting beta", "paper/claims/beyond.py",
            '    return to_fraction(max_beta(k, eps, target, bound="hockey-stick", tol=tol), "beta")',
            "    return Fraction(beta)"), ("beyond.table2.beta0.1.eps1.0",)),
    (Mutant("fig2 trend ignores the order in k", S3, "ok = ok_eps and ok_k", "ok = ok_eps"),
     ("cp.fig2.trend",)),
    (Mutant("fig2 k+10 band one-sided (no lower end)", S3,
            "ok = Fraction(10) ** (decade - 1) < lo and hi < Fraction(10) ** (decade + 1)",
            "ok = hi < Fraction(10) ** (decade + 1)"), ("cp.fig2.k-plus-10",)),
    (Mutant("fig2 k+10 band one-sided (no upper end)", S3,
            "ok = Fraction(10) ** (decade - 1) < lo and hi < Fraction(10) ** (decade + 1)",
            "ok = Fraction(10) ** (decade - 1) < lo"), ("cp.fig2.k-plus-10",)),
    (Mutant("fig3 accepts any order in beta", S3,
            "ok = all(_strictly_below(figures.delta_certified(20, b1, e)",
            "ok = True or all(_strictly_below(figures.delta_certified(20, b1, e)"), ("cp.fig3.beta",)),
    (Mutant("TR Cor 4 example compared one-sided", TR,
            "ok = exp_compare(x - tol, printed) < 0 < exp_compare(x + tol, printed)",
            "ok = exp_compare(x - tol, printed) < 0"), ("tr.corollary4",)),
    (Mutant("TR Fig 7 ignores the order in eps0", TR,
            "ok = all(all(x[1:]) for x in out)", "ok = all(x[1] and x[3] for x in out)"), ("tr.figure7",)),
    (Mutant("CLR/Mondrian leak accepts any delta", S3,
            "ok = all(expect <= c.lower and c.upper <= beta for c in rows.values())",
            "ok = all(0 <= c.lower and c.upper <= beta for c in rows.values())"), ("cp.sec3.1.clr-mondrian",)),
    (Mutant("A.2 j = 0 ratio checked only below 1", "paper/claims/cp_appendix.py",
            'if not ((1 - b if lower == "1-beta" else 1 - b / 2) <= r < 1):', "if not (r < 1):"),
     ("cp.appA2.j0-ratio",)),
    (Mutant("A.2 steps ignore the first bad j", "paper/claims/cp_appendix.py",
            "if sdgs.first_bad(nm + 1, b, e) != k + first:", "if False:"), ("cp.appA2.steps",)),
]


def _check(ids: tuple[str, ...]) -> str:
    return (
        "from dps_verify.paper.claims import REGISTRY\n"
        "from dps_verify.paper.claims.runner import run_claims\n"
        f"ids = {list(ids)!r}\n"
        "sel = [c for c in REGISTRY if c.id in ids]\n"
        "assert len(sel) == len(ids), sorted(set(ids) - {c.id for c in sel})\n"
        "out = run_claims(sel, parallel_proofs=False)\n"
        "bad = [(o.claim.id, o.result.verdict, o.control and o.control.verdict) for o in out if not o.ok]\n"
        "assert not bad, bad\n"
    )


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """The package imported once in this process before the first fork (each run then
    imports only the claim modules again)."""
    import dps_verify.paper.claims.runner  # noqa: F401


@pytest.fixture(autouse=True)
def _no_proofs(monkeypatch):
    monkeypatch.setenv("DPS_VERIFY_CLAIMS_NO_PROOFS", "1")


#: The default run's mutants: every ninth (four, from different claim modules); all of them
#: run under the deep profile.
SAMPLE = MUTANTS[::9]


def _assert_unmutated_passes(mutants) -> None:
    """The check of ``mutants`` (their claims together, in the same harness, its no-op mutant
    re-importing the claim modules) passes on the unmutated package, so that a failure on a
    mutant means "caught"."""
    ids = tuple(sorted({i for _, ids in mutants for i in ids}))
    anchor = "#: (version, item as the paper numbers it, short description, registry ids)"
    noop = Mutant("no-op", "paper/claims/coverage.py", anchor, anchor)
    res = _run(noop, _check(ids))
    assert res.returncode == 0, res.stderr[-2000:]


def test_unmutated_package_passes_the_sampled_checks():
    """The baseline of the default run's mutants (their claims' checks); the baseline of
    every mutant's claims (~3 s of CPU more) runs with them under the deep profile."""
    _assert_unmutated_passes(SAMPLE)


@pytest.mark.deep
def test_unmutated_package_passes_every_check():
    _assert_unmutated_passes(MUTANTS)


@pytest.mark.deep  # 36 runs: the default run checks a sample (below)
def test_every_claim_mutant_is_caught():
    _assert_caught(MUTANTS)


def test_a_sample_of_claim_mutants_is_caught():
    """The sampled mutants (:data:`SAMPLE`) in the default run; all of them under the deep
    profile."""
    _assert_caught(SAMPLE)


#: the claim modules, imported again in each forked run (see the module docstring)
CLAIMS = "dps_verify.paper.claims"


def _run(mutant: Mutant, check: str):
    return run_mutant_forked(mutant, check, CLAIMS, timeout=300)


def _assert_caught(mutants):
    assert os.environ["DPS_VERIFY_CLAIMS_NO_PROOFS"] == "1"

    def one(item):
        mutant, ids = item
        return mutant.name, _run(mutant, _check(ids))
    if hasattr(os, "fork"):  # one fork at a time (never from two threads at once)
        results = [one(item) for item in mutants]
    else:  # fresh interpreters, two at a time
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(one, mutants))
    survivors = [name for name, res in results if res.returncode == 0]
    assert not survivors, f"mutants not caught: {survivors}"
    # a crash of the check snippet itself (rather than a failed assertion) would hide a survivor
    assert all("AssertionError" in res.stderr or "StaleMutant" in res.stderr
               for _, res in results), [n for n, r in results if "AssertionError" not in r.stderr]
