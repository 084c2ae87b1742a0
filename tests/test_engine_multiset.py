"""A mechanism must be a function of its multiset sample (CP §2.1: datasets are multisets; CP
Def. 3: "sample, then anonymize").  The engine hands every sample over in one canonical order,
so an anonymizer whose output depends on the ORDER of the records, or that is not deterministic
beyond the first sample, would otherwise get a verdict.  ``engine.calls.SpotChecks`` re-runs a
few samples of each size, also reversed and rotated: a difference is an ``AuditedCodeError``
(CLI exit 4) naming the sample and both outputs; negative controls both
ways: correct multiset functions, including every mechanism of dps_verify, pass.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

import dps_verify.mechanisms as M
from dps_verify import exact
from dps_verify.audit import audit, load_callable
from dps_verify.cli import main
from dps_verify.engine import calls
from dps_verify.errors import AuditedCodeError
from dps_verify.mechanisms.examples import DeltaSampling, KDuplication, RandomizedResponse
from dps_verify.testing import assert_dp
from dps_verify.verdict import exhaustive_search

FAULTY = Path(__file__).resolve().parent.parent / "examples" / "faulty"
CLAIM = ["--beta", "0.5", "--epsilon", "1", "--delta", "0.1", "--domain", str(FAULTY / "domain.json"),
         "--seed", "0"]
BETA = Fraction(1, 2)


# ------------------------------------------------------------------ code under audit
def first_record(s):
    """Publishes the quasi-identifier of the record listed first (order-dependent)."""
    return s[0] if s else None


def arrived_sorted(s):
    """Constant on every sorted sample, so without the check it would PASS (order-dependent)."""
    return all(a <= b for a, b in zip(s, s[1:]))


def middle_of_three(s):
    """Order-dependent only on samples of 3+ records (reversal keeps the middle; rotation moves it)."""
    return s[1] if len(s) >= 3 else len(s) > 0


def coin_on_crowds(s):
    """Deterministic below 3 records, random.random() from 3 on: not a function of its sample."""
    return "none" if len(s) < 3 else ("none", random.random())


def smallest_record(s):
    """The order-free twin of first_record: a function of the multiset."""
    return min(s) if s else None


def counts(s):
    return tuple(sorted(Counter(s).items()))


first_record_law = exact.randomized(lambda s: {s[0] if s else None: 1})
counts_law = exact.randomized(lambda s: {counts(s): Fraction(1, 2), len(s): Fraction(1, 2)})


# ------------------------------------------------------------------ the Python API
@pytest.mark.parametrize("anon", [first_record, arrived_sorted, middle_of_three, first_record_law])
def test_order_dependent_is_rejected_by_distribution(anon):
    with pytest.raises(AuditedCodeError, match="depends on the order of the records") as info:
        exact.distribution(anon, [1, 2, 3], BETA)
    err = info.value
    assert err.exit_code == 4 and err.sample is not None and len(err.sample) >= 2
    msg = str(err)
    # names the sample, the reordered sample and both outputs
    assert f"sample {err.sample!r} gave" in msg and "the same records in the order" in msg
    assert "CP §2.1" in msg


@pytest.mark.parametrize("anon", [first_record, arrived_sorted, first_record_law])
def test_order_dependent_is_rejected_by_the_search(anon):
    """Before any verdict: ``first_record`` leaks on one-record samples already, yet the search
    checks the order on the first two records before it looks for a witness."""
    with pytest.raises(AuditedCodeError, match="depends on the order of the records"):
        exhaustive_search(anon, [1, 2, 3], beta=BETA, epsilon=1, delta=Fraction(1, 10), max_size=4)


def test_nondeterminism_beyond_the_first_sample_is_rejected():
    with pytest.raises(AuditedCodeError, match="not a function of its sample") as info:
        exact.distribution(coin_on_crowds, [1, 2, 3, 4], BETA)
    assert len(info.value.sample) >= 3
    with pytest.raises(AuditedCodeError, match="not a function of its sample"):
        exhaustive_search(coin_on_crowds, [1, 2], beta=BETA, epsilon=1, delta=Fraction(1, 10), max_size=4)
    with pytest.raises(AuditedCodeError, match="not a function of its sample"):
        assert_dp(coin_on_crowds, beta=BETA, epsilon=1, delta=Fraction(1, 10), domain=[1, 2])


def test_without_the_check_the_order_dependent_code_would_pass(monkeypatch):
    """What the check prevents: with it switched off, ``arrived_sorted`` gets a PASS."""
    monkeypatch.setattr(calls.SpotChecks, "due", lambda self, sample: False)
    res = exhaustive_search(arrived_sorted, [1, 2, 3], beta=BETA, epsilon=1, delta=Fraction(1, 10),
                            max_size=4)
    assert res.witness is None  # PASS


@pytest.mark.parametrize("anon", [smallest_record, counts, lambda s: tuple(sorted(s)), len, counts_law])
def test_multiset_functions_pass_the_check(anon):
    """Negative control: order-free, deterministic code is never flagged (a verdict, not an error)."""
    law = exact.distribution(anon, [3, 1, 2, 1], BETA)
    assert sum(law.exact.values()) == 1
    res = exhaustive_search(anon, [1, 2, 3], beta=BETA, epsilon=1, delta=Fraction(1, 10), max_size=4)
    assert res.max_size >= 1  # a verdict (PASS, or FAIL with a witness), no error


_XOR, _GENDER = M.xor_pair(2), M.gender_pair(("F", "b"))
_INTS, _PAIRS = [3, 1, 2, 1], [(3, 1), (1, 2), (2, 2), (1, 2)]
_PEOPLE = [("M", "a"), ("F", "b"), ("M", "c"), ("F", "d")]
OWN = {  # id -> (mechanism, dataset)
    "strongly-safe k-anonymization": (M.StronglySafeKAnonymizer(lambda r: r % 2, 2), _INTS),
    "eps1-safe k-anonymization": (M.EpsilonSafeKAnonymizer(
        [lambda r: r % 2, lambda r: r < 2], lambda s: [sum(r % 2 for r in s), sum(r < 2 for r in s)], 2),
        _INTS),
    "CLR": (M.ClusterLocalRecoding(2), _PAIRS),
    "Mondrian": (M.Mondrian(2), _PAIRS),
    "k-duplication": (KDuplication(2), _INTS),
    "delta-sampling": (DeltaSampling(Fraction(1, 3)), _INTS),
    "randomized response": (RandomizedResponse(), [1, 0, 1]),
    **{f"xor pair {i}": (a, _INTS) for i, a in enumerate(_XOR)},
    **{f"gender pair {i}": (a, _PEOPLE) for i, a in enumerate(_GENDER)},
}


@pytest.mark.parametrize("name", sorted(OWN))
def test_dps_verify_own_mechanisms_pass_the_check(name):
    anon, data = OWN[name]
    law = exact.distribution(anon, data, BETA, factorised=False)
    assert sum(law.exact.values()) == 1
    law = exact.distribution(anon, data[::-1], BETA, factorised=False)
    assert sum(law.exact.values()) == 1


def test_the_check_is_cheap():
    """Each distinct sample is anonymized once, plus at most a few re-runs per sample size."""
    seen: Counter = Counter()

    def counted(s):
        seen[tuple(sorted(s))] += 1
        return len(s) // 3

    dom, size = list(range(4)), 6
    res = exhaustive_search(counted, dom, beta=BETA, epsilon=1, delta=1, max_size=size)
    assert res.samples == len(seen)
    extra = sum(seen.values()) - len(seen)
    # per size n ≥ 2: SPOT_CHECKS_PER_SIZE samples × 3 calls (+ 1 per all-equal sample before them)
    bound = len(dom) + size * (3 * calls.SPOT_CHECKS_PER_SIZE + len(dom))
    assert 0 < extra <= bound
    assert max(seen.values()) <= 4  # the call, a second call, two reorderings
    seen.clear()
    exact.distribution(counted, list(range(8)), BETA)
    assert sum(seen.values()) - len(seen) <= 8 + 8 * (3 + 8)  # per_size=1 in distribution()


def test_reorderings():
    assert calls.reorderings((1, 2, 3)) == [(3, 2, 1), (2, 3, 1)]
    assert calls.reorderings((1, 2)) == [(2, 1)]
    assert calls.reorderings((1, 1)) == [] and calls.reorderings(()) == []
    assert calls.reorderings(("a", "b", "a")) == [("b", "a", "a")]  # reversal = itself here


# ------------------------------------------------------------------ the CLI (exit 4) and audit()
@pytest.mark.parametrize("name,fragment", [("order_dependent", "depends on the order of the records"),
                                           ("random_on_crowds", "is not a function of its sample")])
def test_cli_exit_4(name, fragment, capsys):
    rc = main(["audit", f"{FAULTY / name}.py:anonymize", *CLAIM])
    out, err = capsys.readouterr()
    assert rc == 4, (out, err)
    assert err.count("\n") == 1 and fragment in err and "on sample" not in out
    assert "PASS" not in out and "FAIL" not in out


def test_cli_negative_control_gets_a_verdict(tmp_path, capsys, short_recognition):
    """The order-free twin of the faulty example (the output is constant): a PASS, exit 0; and
    ``min(sample)`` (a function of the multiset that leaks): a FAIL, exit 1 — never exit 4.
    (The recognition after the PASS runs at the short budget: it only adds a note.)"""
    twin = tmp_path / "sorted_twin.py"
    twin.write_text("def anonymize(sample):\n    return 'fast path'\n\n"
                    "def smallest(sample):\n    return min(sample) if sample else None\n")
    assert main(["audit", f"{twin}:anonymize", *CLAIM]) == 0
    assert main(["audit", f"{twin}:smallest", *CLAIM]) == 1
    capsys.readouterr()


def test_audit_api_rejects_order_dependence():
    anon = load_callable(f"{FAULTY / 'order_dependent.py'}:anonymize")[0]
    with pytest.raises(AuditedCodeError, match="depends on the order"):
        audit(anon, beta=0.5, epsilon=1, delta=0.1, domain=[1, 2, 3], max_size=4, seed=0)


def test_nan_output_is_named_as_not_equal_to_itself():
    """A deterministic NaN is not 'two different calls' — the message names the real
    fault (an output not equal to itself cannot key one outcome); a NaN-free twin passes."""
    def nan_small(s):
        return float("nan") if len(s) < 2 else len(s)

    with pytest.raises(AuditedCodeError, match=r"do not compare equal \(NaN\?\)") as info:
        exact.distribution(nan_small, (1, 2, 3), BETA)
    assert "not a function of its sample" not in str(info.value)
    law = exact.distribution(lambda s: -1.0 if len(s) < 2 else len(s), (1, 2, 3), BETA)
    assert sum(law.values()) == 1


def test_float_rounding_order_dependence_is_explained():
    """A float sum over the records in list order is order-dependent (0.1 + 0.2 + 0.3 differs from
    0.3 + 0.2 + 0.1); the message says why, and summing the sorted records passes."""
    with pytest.raises(AuditedCodeError, match="rounds differently in another order"):
        exact.distribution(lambda s: sum(s), (0.1, 0.2, 0.3), BETA)
    law = exact.distribution(lambda s: sum(sorted(s)), (0.1, 0.2, 0.3), BETA)
    assert sum(law.values()) == 1
