"""Choosing with privacy (exponential mechanism on the unsampled table) and releases that follow
the plan: the utility's sensitivity checked exactly on every small case, the sampler's
probabilities, and the release files."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

import mpmath
import pytest

from dps_verify.cli import main
from dps_verify.core.binomial import pmf, upper_tail
from dps_verify.plan import expmech
from dps_verify.plan.utility import expected_published


def one_group(n: int, beta: Fraction, k: int) -> Fraction:
    return expected_published(Counter({n: 1}), beta, [k])[k] if n >= 1 else Fraction(0)


@pytest.mark.parametrize("beta", [Fraction(1, 10), Fraction(1, 2), Fraction(9, 10), Fraction(6321, 10000)])
def test_increment_formula_and_sensitivity_bound_exactly(beta):
    """E[X_{n+1} 1{X_{n+1} >= k}] - E[X_n 1{X_n >= k}] = beta (P(X_n >= k-1) + (k-1) P(X_n = k-1))
    in [0, beta k], for every n <= 40 and k <= 12 (X_n ~ Bin(n, beta))."""
    for k in range(1, 13):
        worst = Fraction(0)
        for n in range(0, 41):
            inc = one_group(n + 1, beta, k) - one_group(n, beta, k)
            tail = upper_tail(k - 1, n, beta) if n >= 0 else Fraction(0)
            at = pmf(k - 1, n, beta) if k - 1 <= n else Fraction(0)
            assert inc == beta * (tail + (k - 1) * at)
            assert 0 <= inc <= beta * k
            worst = max(worst, inc)
        if k == 1:
            assert worst == beta  # the bound beta*k is attained at k = 1


def test_a_smaller_sensitivity_is_refuted():
    """Negative control: beta (k - 1) is not a bound (k = 1: every added record adds beta)."""
    b = Fraction(1, 2)
    assert one_group(4, b, 1) - one_group(3, b, 1) > b * 0
    # k = 2: P(X >= 1) + P(X = 1) > 1 once P(X = 1) > P(X = 0), so beta (k - 1) = beta is exceeded
    assert max(one_group(n + 1, b, 2) - one_group(n, b, 2) for n in range(40)) > b


def test_exponential_mechanism_probabilities_match_the_closed_form():
    u = [Fraction(0), Fraction(5, 2), Fraction(10)]
    eps1, sens = Fraction(1, 2), Fraction(3)
    probs = expmech.probabilities(u, eps1, sens)
    w = [mpmath.exp(mpmath.mpf(float(eps1)) * mpmath.mpf(float(x)) / (2 * mpmath.mpf(float(sens)))) for x in u]
    for (lo, hi), wi in zip(probs, w):
        assert lo <= wi / sum(w) <= hi and hi - lo < 1e-12


def test_exponential_mechanism_sampler_frequencies():
    u = [Fraction(0), Fraction(1), Fraction(3)]
    rng = random.Random(12345)
    n = 6000
    c = Counter(expmech.sample(u, Fraction(1), Fraction(1), rng) for _ in range(n))
    for i, (lo, hi) in enumerate(expmech.probabilities(u, Fraction(1), Fraction(1))):
        p = (lo + hi) / 2
        assert abs(c[i] / n - p) < 5 * (p * (1 - p) / n) ** 0.5


def test_exponential_mechanism_bad_input():
    with pytest.raises(ValueError):
        expmech.sample([], Fraction(1), Fraction(1), random.Random(0))
    with pytest.raises(ValueError):
        expmech.sample([Fraction(1)], Fraction(0), Fraction(1), random.Random(0))
    with pytest.raises(ValueError):
        expmech.sample([Fraction(1)], Fraction(1), Fraction(0), random.Random(0))


def _tiny(tmp_path):
    p = tmp_path / "t.csv"
    rows = [f"{20 + (i % 30)},{'F' if i % 3 else 'M'},{'x' if i % 2 else 'y'}" for i in range(300)]
    p.write_text("age,sex,job\n" + "\n".join(rows) + "\n")
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"qi": ["age", "sex", "job"], "recodings": {
        "fine": {"age": {"bands": [25, 30, 35, 40, 45]}},
        "coarse": {"age": {"bands": [35]}, "job": "*"}}}))
    return p, spec


def test_selection_uses_unsampled_table_and_states_the_reading(tmp_path):
    from dps_verify.plan import plan

    data, spec = _tiny(tmp_path)
    p = plan("2", "1e-3", default_grid=True, data=data, recoding=spec, select_with="0.5", seed=3)
    s = p.selection
    assert s is not None and s.epsilon1 == Fraction(1, 2) and s.epsilon2 == Fraction(3, 2)
    assert p.frontier.epsilon == Fraction(3, 2)  # the anonymization gets epsilon - epsilon1
    assert s.sensitivity == max(c.beta * c.k for c in s.candidates)
    assert {c.recoding for c in s.candidates} == {"fine", "coarse"}
    for c in s.candidates:  # utilities on the unsampled table, exactly
        assert c.delta_at_k.upper <= Fraction(1, 1000)
    assert abs(sum((lo + hi) / 2 for lo, hi in s.probabilities) - 1) < 1e-9
    again = plan("2", "1e-3", data=data, recoding=spec, select_with="0.5", seed=3).selection
    assert again is not None and again.chosen == s.chosen  # seeded: reproducible


def test_cli_select_and_release(tmp_path, capsys):
    data, spec = _tiny(tmp_path)
    out = tmp_path / "rel.csv"
    argv = ["plan", "--epsilon", "2", "--delta", "1e-3", "--data", str(data), "--recoding", str(spec),
            "--select-with", "0.5", "--seed", "1", "--release", str(out), "--json", str(tmp_path / "plan.json")]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "App. A.3" in text and "literal reading" in text and "fails" in text
    side = json.loads((tmp_path / "rel.csv.json").read_text())
    g = side["guarantee"]
    assert g["epsilon"] == "2" and g["epsilon1_selection"] == "0.5"
    assert any("cp-theorem-6-full-data" in r for r in g["rests_on"])
    assert Fraction(g["delta"]) <= Fraction(1, 1000)
    # the whole mechanism's delta is the largest of the candidates it could choose
    doc_sel = json.loads((tmp_path / "plan.json").read_text())["selection"]
    assert Fraction(g["delta"]) == max(Fraction(c["delta_at_k_upper"]) for c in doc_sel["candidates"])
    lines = out.read_text().splitlines()
    assert lines[0] == "age,sex,job" and len(lines) - 1 == side["released_rows"]
    k = side["parameters"]["k"]
    assert all(c >= k for c in Counter(lines[1:]).values())  # strongly-safe: every group has >= k
    assert lines[1:] == sorted(lines[1:])
    first = out.read_text()
    assert main(argv) == 0 and out.read_text() == first  # same seed, same release; ours: replaced
    capsys.readouterr()


def test_release_without_selection_uses_the_exact_k_and_says_what_it_assumes(tmp_path, capsys):
    data, spec = _tiny(tmp_path)
    out = tmp_path / "rel.csv"
    assert main(["plan", "--epsilon", "1", "--delta", "1e-2", "--no-grid", "--data", str(data),
                 "--recoding", f"{spec}:fine", "--seed", "5", "--release", str(out)]) == 0
    side = json.loads((tmp_path / "rel.csv.json").read_text())
    from dps_verify.inverse.questions import min_k

    assert side["parameters"]["k"] == min_k("edge", 1, "1e-2", bound="hockey-stick")
    assert "without looking at this table" in side["guarantee"]["assumes"]
    capsys.readouterr()


def test_release_refuses_files_it_did_not_write(tmp_path, capsys):
    data, spec = _tiny(tmp_path)
    out = tmp_path / "mine.csv"
    out.write_text("precious\n")
    rc = main(["plan", "--epsilon", "1", "--delta", "1e-2", "--no-grid", "--data", str(data),
               "--recoding", str(spec), "--release", str(out)])
    assert rc == 2 and out.read_text() == "precious\n"
    assert not (tmp_path / "mine.csv.json").exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "refusing" in err


@pytest.mark.parametrize("extra,needle", [
    (["--select-with", "2"], "must be below epsilon"),
    (["--select-with", "0"], "must be > 0"),
    (["--select-with", "0.5", "--candidates", "nope"], "not in"),
])
def test_cli_select_bad_input(extra, needle, tmp_path, capsys):
    data, spec = _tiny(tmp_path)
    rc = main(["plan", "--epsilon", "1", "--delta", "1e-2", "--data", str(data), "--recoding", str(spec), *extra])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and needle in err


def test_cli_release_needs_data(tmp_path, capsys):
    assert main(["plan", "--epsilon", "1", "--delta", "1e-2", "--release", str(tmp_path / "r.csv")]) == 2
    assert not (tmp_path / "r.csv").exists()
    capsys.readouterr()


def test_selection_with_the_exact_measure_uses_its_k_and_says_what_it_rests_on(tmp_path):
    from dps_verify.inverse.questions import min_k
    from dps_verify.plan import plan
    from dps_verify.plan.planner import release_choice

    data, spec = _tiny(tmp_path)
    p = plan("2", "1e-3", ["0.5"], default_grid=False, data=data, recoding=spec, select_with="0.5",
             select_measure="hockey-stick", seed=2)
    assert p.selection is not None
    for c in p.selection.candidates:
        assert c.k == min_k(c.beta, Fraction(3, 2), "1e-3", bound="hockey-stick")
    g = release_choice(p)["guarantee"]
    assert g["delta_measure"] == "hockey-stick" and "exact worst-case" in g["rests_on"][0]
    with pytest.raises(ValueError, match="select-measure"):
        plan("2", "1e-3", data=data, recoding=spec, select_with="0.5", select_measure="pointwise")


def test_too_many_betas_are_refused_before_any_work():
    from dps_verify.plan import frontier
    from dps_verify.plan.grid import MAX_BETAS

    with pytest.raises(ValueError, match="budget"):
        frontier("1", "1e-3", [f"{i}/1000" for i in range(1, MAX_BETAS + 2)], default_grid=False)


def _exact_em_probs(utils, eps1, sens, factor=1):
    """Exponential-mechanism probabilities ∝ exp(eps1·u/(factor·sens)), exactly enough for ratio
    checks (mpmath, 50 digits); factor 1 = the monotone weights the selection uses."""
    with mpmath.workdps(50):
        w = [mpmath.exp(mpmath.mpf(eps1.numerator) / eps1.denominator * (mpmath.mpf(u.numerator) / u.denominator)
                        / (factor * mpmath.mpf(sens.numerator) / sens.denominator)) for u in utils]
        tot = sum(w)
        return [x / tot for x in w]


@pytest.mark.parametrize("cands,tight", [
    ([(Fraction(9, 10), 3), (Fraction(1, 2), 2), (Fraction(3, 10), 1)], False),
    # k = 1: the first candidate's utility moves by exactly beta*k = Delta, the second's by 1/10
    ([(Fraction(9, 10), 1), (Fraction(1, 10), 1)], True),
])
def test_selection_is_eps1_dp_on_every_one_record_neighbour_and_a_smaller_sensitivity_is_not(cands, tight):
    """End to end on a small table: for every record one could add (to any group), every
    candidate's utility moves by at most beta*k, and the exponential mechanism's probabilities
    move by at most e^eps1 under the monotone weights exp(eps1*u/Delta) the selection uses; with
    a quarter of the sensitivity some neighbour breaks e^eps1."""
    from collections import Counter as C

    eps1 = Fraction(1)
    base = C({2: 1, 5: 1, 1: 2})  # group sizes of D
    sizes = sorted(base.elements())

    def utils(sz):
        h = C(sz)
        return [expected_published(h, b, [k])[k] for b, k in cands]

    sens = max(b * k for b, k in cands)
    u0 = utils(sizes)
    worst_ratio, worst_small, worst_two_sided = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
    neighbours = [sizes[:i] + [sizes[i] + 1] + sizes[i + 1:] for i in range(len(sizes))] + [sizes + [1]]
    for nb in neighbours:
        u1 = utils(nb)
        for (b, k), a0, a1 in zip(cands, u0, u1):
            assert 0 <= a1 - a0 <= b * k
        for s, acc in ((sens, "ok"), (sens / 4, "small")):
            p0, p1 = _exact_em_probs(u0, eps1, s), _exact_em_probs(u1, eps1, s)
            r = max(max(x / y, y / x) for x, y in zip(p0, p1))
            if acc == "ok":
                worst_ratio = max(worst_ratio, r)
                q0, q1 = _exact_em_probs(u0, eps1, s, factor=2), _exact_em_probs(u1, eps1, s, factor=2)
                worst_two_sided = max(worst_two_sided, *(max(x / y, y / x) for x, y in zip(q0, q1)))
            else:
                worst_small = max(worst_small, r)
    assert worst_ratio <= mpmath.e ** 1
    assert worst_small > mpmath.e ** 1  # negative control: the proved Delta is needed
    if tight:
        # no slack left: some neighbour uses most of the e^eps1 budget, while the two-sided
        # weights exp(eps1*u/(2*Delta)) never use more than e^(eps1/2) of it
        assert worst_ratio > mpmath.e ** Fraction(3, 4)
        assert worst_two_sided <= mpmath.e ** Fraction(1, 2)


def test_the_selection_draws_with_the_monotone_weights(tmp_path):
    from dps_verify.plan import plan

    data, spec = _tiny(tmp_path)
    s = plan("2", "1e-3", data=data, recoding=spec, select_with="0.5", seed=3).selection
    assert s is not None
    exact = _exact_em_probs([c.utility for c in s.candidates], s.epsilon1, s.sensitivity, factor=1)
    for (lo, hi), p in zip(s.probabilities, exact):
        assert lo <= p <= hi


def test_release_mean_matches_the_exact_expectation(tmp_path):
    """The seeded sampler + strongly-safe k-anonymization, averaged over 400 seeds, agrees with
    the exact expected published records (within 5 standard errors)."""
    import statistics

    from dps_verify.plan.recoding import parse_spec
    from dps_verify.plan.release import sample_and_anonymize
    from dps_verify.plan.table import group_sizes, read_table, size_histogram

    p = tmp_path / "t.csv"
    rows = ["a"] * 6 + ["b"] * 4 + ["c"] * 2 + ["d"]
    p.write_text("g\n" + "\n".join(rows) + "\n")
    table = read_table(p, ["g"])
    rec = parse_spec({"recodings": {"r": {"g": "keep"}}}).get("r")
    beta, k = Fraction(3, 5), 3
    exact = expected_published(size_histogram(group_sizes(table, rec)), beta, [k])[k]
    counts = [len(sample_and_anonymize(table, rec, beta, k, seed).rows) for seed in range(400)]
    mean, sd = statistics.fmean(counts), statistics.pstdev(counts)
    assert abs(mean - float(exact)) < 5 * sd / 400**0.5
    assert all(c == 0 or c >= k for c in counts)


def test_a_tiny_positive_selection_probability_has_a_positive_upper_end():
    from dps_verify.plan.report import _probability_text

    (lo0, hi0), (lo1, hi1) = expmech.probabilities([Fraction(0), Fraction(-1500)], Fraction(1), Fraction(1))
    true = mpmath.exp(-750) / (1 + mpmath.exp(-750))  # about 1e-326: below the smallest double
    assert lo1 <= true <= hi1 and hi1 > 0
    assert lo0 <= 1 / (1 + mpmath.exp(-750)) <= hi0 == 1.0
    text = _probability_text(lo1, hi1)
    assert text.startswith("≤") and text.strip("≤ ") != "0" and float(text.strip("≤ ")) > 0
