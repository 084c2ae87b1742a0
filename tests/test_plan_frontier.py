"""The plan's frontier: smallest k per measure (certified at k and k − 1) and ARX's rule, checked
against literal loops over k (the brute force) on both sides of every boundary."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dps_verify.cli import main
from dps_verify.inverse.questions import min_k
from dps_verify.plan import arx_beta, arx_choice, frontier
from dps_verify.plan.arx import arx_k_at
from dps_verify.plan.frontier import certified_delta
from dps_verify.plan.grid import beta_grid

GRID = [(e, d) for e in ("0.5", "1", "1.5", "2") for d in ("1e-5", "1e-6", "1e-8")]


def literal_arx_loop(beta: Fraction, eps: str, delta: Fraction) -> int:
    """ARX's loop as written: k = 1; repeat {d_k = d(k); k += 1} until d_k < delta; return k."""
    k, d_k = 1, None
    while d_k is None or not d_k < delta:
        d_k = certified_delta("paper", k, beta, Fraction(eps)).upper
        k += 1
    return k


@pytest.mark.parametrize("eps,delta", GRID)
def test_grid_cell_arx_is_one_more_than_the_certified_minimum_under_d(eps, delta):
    f = frontier(eps, delta, default_grid=False)
    (row,) = f.rows
    assert row.point.is_edge and row.point.in_regime
    ks = {m: mk.k for m, mk in row.by_measure.items()}
    assert row.arx_k == ks["paper"] + 1
    assert f.arx is not None and f.arx.k == f.arx.k_smallest_d + 1
    # the exact hockey-stick delta never needs more than d, and is strictly below it on this grid
    assert ks["hockey-stick"] < ks["paper"]
    dl = Fraction(delta)
    for mk in row.by_measure.values():
        assert mk.delta_at_k.upper <= dl < mk.delta_below.lower  # minimality visible


def test_issue_example_cell_values():
    (row,) = frontier("1", "1e-6", default_grid=False).rows
    assert {m: mk.k for m, mk in row.by_measure.items()} == {"paper": 74, "hockey-stick": 58, "pointwise": 74}
    assert row.arx_k == 75
    assert min_k("edge", 1, "1e-6", bound="hockey-stick") == 58


@pytest.mark.parametrize("eps,delta", [("0.5", "1e-5"), ("1", "1e-3"), ("2", "0.2"), ("ln(3)", "0.01")])
def test_arx_rule_against_the_literal_loop(eps, delta):
    b = arx_beta(eps)
    choice = arx_choice(eps, delta)
    from dps_verify.core.params import epsilon_param

    e = epsilon_param(eps)
    k = 1
    while not certified_delta("paper", k, b, e).upper < Fraction(delta):
        k += 1
    assert choice.k == k + 1 and choice.k_smallest_d == k


def test_literal_loop_agrees_on_a_small_cell():
    from dps_verify.core.params import beta_edge

    b = beta_edge(Fraction(1))
    assert literal_arx_loop(b, "1", Fraction(1, 100)) == arx_k_at(b, "1", "0.01")


def test_arx_beta_is_a_double_at_or_below_the_edge():
    from dps_verify.core.params import beta_edge, in_paper_regime

    for eps in ("0.5", "1", "ln(3)", "2"):
        from dps_verify.core.params import epsilon_param

        e = epsilon_param(eps)
        b = arx_beta(eps)
        assert Fraction(float(b)) == b and b <= beta_edge(e) and in_paper_regime(b, e)


@pytest.mark.parametrize("measure", ["paper", "hockey-stick", "pointwise"])
def test_smallest_k_by_walking_k_small_targets(measure):
    """Brute force: walk k = 1, 2, ... with the certified delta; both sides of the boundary."""
    for eps, delta in (("1", "0.05"), ("0.5", "0.3"), ("2", "0.01")):
        f = frontier(eps, delta, ["0.1"], default_grid=False, measures=[measure])
        for row in f.rows:
            k = 1
            while certified_delta(measure, k, row.beta, Fraction(eps)).upper > Fraction(delta):
                k += 1
            assert row.by_measure[measure].k == k


def test_k_equals_one_boundary_has_no_delta_below():
    f = frontier("2", "0.9", ["0.01"], default_grid=False)
    row = f.row(Fraction(1, 100))
    for mk in row.by_measure.values():
        assert mk.k == 1 and mk.delta_below is None


def test_grid_contains_edge_and_given_beta_and_keeps_above_edge_for_exact_measures():
    from dps_verify.core.params import beta_edge

    pts = beta_grid(Fraction(1), ["0.7", "0.25"])
    assert [p.beta for p in pts] == sorted(p.beta for p in pts)
    assert any(p.is_edge and p.beta == beta_edge(Fraction(1)) for p in pts)
    assert all(p.in_regime for p in pts if p.beta < beta_edge(Fraction(1)))
    f = frontier("1", "1e-3", ["0.7"], default_grid=False)
    above = f.row(Fraction(7, 10))
    assert not above.point.in_regime and "paper" not in above.by_measure and above.arx_k is None
    assert set(above.by_measure) == {"hockey-stick", "pointwise"}


def test_exact_log_edge_is_exact():
    f = frontier("ln(3)", "1e-3", default_grid=False)
    assert f.rows[0].beta == Fraction(2, 3)


@pytest.mark.parametrize("argv,needle", [
    (["--epsilon", "1", "--delta", "0"], "delta must be > 0"),
    (["--epsilon", "1", "--delta", "1"], "delta must be < 1"),
    (["--epsilon", "-1", "--delta", "1e-6"], "epsilon"),
    (["--epsilon", "0", "--delta", "1e-6"], "no beta"),
    (["--epsilon", "1", "--delta", "1e-6", "--beta", "1.5"], "beta"),
    (["--epsilon", "x", "--delta", "1e-6"], "epsilon"),
])
def test_cli_bad_input_is_one_line_exit_2(argv, needle, capsys):
    assert main(["plan", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_cli_json_and_plot_and_ownership(tmp_path, capsys):
    out, png = tmp_path / "plan.json", tmp_path / "k.png"
    argv = ["plan", "--epsilon", "1", "--delta", "1e-6", "--no-grid", "--json", str(out), "--plot", str(png)]
    assert main(argv) == 0
    data = json.loads(out.read_text())
    assert data["generator"] == "dps-verify" and data["arx"]["k"] == 75
    (row,) = data["rows"]
    assert row["smallest_k"]["hockey-stick"]["k"] == 58 and row["arx_k"] == 75
    assert png.read_bytes().startswith(b"\x89PNG")
    assert main(argv) == 0  # our own files are replaced
    foreign = tmp_path / "notes.json"
    foreign.write_text('{"mine": 1}')
    assert main(["plan", "--epsilon", "1", "--delta", "1e-6", "--json", str(foreign)]) == 2
    assert foreign.read_text() == '{"mine": 1}'
    other_png = tmp_path / "photo.png"
    other_png.write_bytes(b"\x89PNG\r\n\x1a\nnot ours")
    assert main(["plan", "--epsilon", "1", "--delta", "1e-6", "--plot", str(other_png)]) == 2
    assert other_png.read_bytes() == b"\x89PNG\r\n\x1a\nnot ours"
    capsys.readouterr()


def test_a_certification_limit_in_one_cell_is_reported_and_the_rest_is_kept(monkeypatch, capsys):
    import importlib

    from dps_verify.core.errors import CertificationError
    from dps_verify.plan.report import print_frontier

    fmod = importlib.import_module("dps_verify.plan.frontier")  # the module, not the function

    real = fmod.minimal_k

    def limited(measure, beta, eps, delta):
        if measure == "pointwise":
            raise CertificationError("work limit reached (test)")
        return real(measure, beta, eps, delta)

    monkeypatch.setattr(fmod, "minimal_k", limited)
    f = fmod.frontier("1", "1e-3", default_grid=False)
    (row,) = f.rows
    assert set(row.by_measure) == {"paper", "hockey-stick"} and row.arx_k == row.by_measure["paper"].k + 1
    assert row.not_applicable["pointwise"].startswith("certification limit")
    print_frontier(f)
    assert "work limit reached (test)" in " ".join(capsys.readouterr().out.split())
    monkeypatch.setattr(fmod, "minimal_k", lambda *a: (_ for _ in ()).throw(CertificationError("x")))
    with pytest.raises(CertificationError, match="no beta of the plan"):
        fmod.frontier("1", "1e-3", default_grid=False)


def test_tiny_beta_needs_k_1_under_every_measure():
    f = frontier("1", "1e-6", ["1e-9"], default_grid=False)
    row = f.row(Fraction(1, 10**9))
    assert {m: mk.k for m, mk in row.by_measure.items()} == {"paper": 1, "hockey-stick": 1, "pointwise": 1}
    assert row.arx_k == 2 and all(mk.delta_below is None for mk in row.by_measure.values())


def test_cli_force_replaces_a_foreign_file(tmp_path, capsys):
    foreign = tmp_path / "notes.json"
    foreign.write_text('{"mine": 1}')
    argv = ["plan", "--epsilon", "1", "--delta", "1e-3", "--no-grid", "--json", str(foreign)]
    assert main(argv) == 2 and foreign.read_text() == '{"mine": 1}'
    assert main([*argv, "--force"]) == 0
    assert json.loads(foreign.read_text())["generator"] == "dps-verify"
    assert main(argv) == 0  # now ours: replaced without --force
    capsys.readouterr()


@pytest.mark.parametrize("eps,delta", GRID)
def test_arx_k_does_not_depend_on_the_last_ulps_of_its_beta(eps, delta):
    """ARX takes the lower end of an interval for 1 - e^-eps, which may sit an ulp or two below
    the double this model uses: on the standard grid its k is the same for 4 ulps below."""
    import math

    from dps_verify.plan.arx import smallest_k_strictly_below

    f = float(arx_beta(eps))
    betas = []
    for _ in range(5):
        betas.append(Fraction(f))
        f = math.nextafter(f, 0.0)
    assert len({smallest_k_strictly_below(b, eps, delta) for b in betas}) == 1


def test_a_wrong_hint_never_changes_arx_k():
    from dps_verify.plan.arx import smallest_k_strictly_below

    b = arx_beta("1")
    k = smallest_k_strictly_below(b, "1", "1e-6")
    for hint in (1, k - 3, k - 1, k, k + 1, k + 5):
        assert smallest_k_strictly_below(b, "1", "1e-6", hint=hint) == k


@pytest.mark.parametrize("extra,clash", [
    (["--json", "{d}/r.csv.json", "--release", "{d}/r.csv", "--data", "{d}/t.csv", "--recoding", "{d}/s.json"],
     "sidecar"),
    (["--json", "{d}/x.png", "--plot", "{d}/x.png"], "--plot"),
    (["--json", "{d}/sub/../p.json", "--plot", "{d}/p.png", "--release", "{d}/p.json", "--data", "{d}/t.csv",
      "--recoding", "{d}/s.json"], "--release"),
])
def test_colliding_output_paths_are_refused_before_any_work(tmp_path, capsys, extra, clash):
    (tmp_path / "sub").mkdir()
    side = tmp_path / "r.csv.json"
    side.write_text('{"generator": "dps-verify", "provenance": "kept"}')
    argv = ["plan", "--epsilon", "1", "--delta", "1e-3", "--no-grid", *[a.format(d=tmp_path) for a in extra]]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "same file" in captured.err and clash in captured.err
    assert side.read_text() == '{"generator": "dps-verify", "provenance": "kept"}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv.json", "sub"]


def test_a_delta_too_long_to_print_exactly_is_a_plan_not_a_crash(tmp_path, capsys, monkeypatch):
    from dps_verify.plan import planner

    # both runs plan the same target: the second reuses the first's plan (half the CPU time)
    # and exercises only what differs, the JSON
    plans: dict[str, object] = {}
    real_plan = planner.plan

    def plan_once(*args, **kwargs):
        key = repr((args, sorted(kwargs.items())))
        if key not in plans:
            plans[key] = real_plan(*args, **kwargs)
        return plans[key]

    monkeypatch.setattr(planner, "plan", plan_once)
    argv = ["plan", "--epsilon", "1", "--delta", "1e-5000", "--no-grid"]
    assert main(argv) == 0  # no JSON asked for: none is built
    assert "error" not in capsys.readouterr().err
    out = tmp_path / "plan.json"
    assert main([*argv, "--json", str(out)]) == 0
    target = json.loads(out.read_text())["target"]["delta"]
    assert target["exact"] is False and target["lower"] == target["upper"] == "1.0000000000000000e-5000"
    assert json.loads(out.read_text())["target"]["epsilon_exact"] == "1"
    assert len(plans) == 1
    capsys.readouterr()


def test_an_edge_beta_that_rounds_to_one_as_a_double_is_planned_or_refused_never_a_float_error(capsys):
    from dps_verify.worstcase.sdgs import _estimate

    beta = 1 - Fraction(1, 10**17)  # float(beta) == 1.0
    assert float(beta) == 1.0
    est = _estimate(5, beta, Fraction(38), "paper-d", False)
    assert est["n0"] >= 1
    rc = main(["plan", "--epsilon", "38", "--delta", "1e-6", "--no-grid"])
    err = capsys.readouterr().err
    assert rc in (0, 5) and "domain error" not in err
    if rc == 5:
        assert err.count("\n") == 1 and "certification limit" in err
