"""``dps-verify delta --releases T`` and measures.releases (issue #15 item 4)."""

import json
import subprocess
import sys
from fractions import Fraction

from dps_verify import exact
from dps_verify import mechanisms as M
from dps_verify.measures.pld import pair_delta
from dps_verify.measures.releases import group_pair, releases_delta


def test_group_pair_is_the_full_neighbour_pair():
    A = M.StronglySafeKAnonymizer(lambda r: 0, 3)
    p, q = group_pair(6, 3, Fraction(1, 3))
    P = exact.distribution(A, range(6), Fraction(1, 3)).exact
    Q = exact.distribution(A, range(5), Fraction(1, 3)).exact
    assert exact.delta_certified(p, q, 1) == exact.delta_certified(P, Q, 1)


def test_one_release_equals_scan_of_exact_pairs():
    r = releases_delta(3, Fraction(1, 4), 1, 1, n_max=8)
    worst = max(exact.delta_certified(*group_pair(n, 3, Fraction(1, 4)), 1).upper for n in range(3, 9))
    assert r.mode == "exact" and r.delta.upper == worst


def test_two_releases_match_pair_delta():
    r = releases_delta(3, Fraction(1, 4), 1, 2, n_max=6)
    worst = max(pair_delta(*group_pair(n, 3, Fraction(1, 4)), 1, times=2) for n in range(3, 7))
    assert abs(float(r.delta.upper) - float(worst)) < 1e-15


def test_cli_releases_json():
    out = subprocess.run(
        [sys.executable, "-m", "dps_verify.cli", "delta", "--k", "5", "--beta", "1/10",
         "--epsilon", "2", "--releases", "2", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["releases"] == 2 and data["mode"] == "exact"
    assert float(data["value"]) > 0


def test_cli_releases_bad_value_is_usage_error():
    out = subprocess.run(
        [sys.executable, "-m", "dps_verify.cli", "delta", "--k", "5", "--beta", "1/10",
         "--epsilon", "2", "--releases", "0"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 2 and "times" in out.stderr
