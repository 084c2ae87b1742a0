"""Faults of the code under audit are exit 4 / AuditedCodeError, never a
verdict, never "bad usage".  The programs are the zoo in ``examples/faulty/``."""

from __future__ import annotations

import threading
from fractions import Fraction
from pathlib import Path

import pytest

from dps_verify import exact
from dps_verify.audit import audit, load_callable
from dps_verify.cli import main
from dps_verify.engine import calls
from dps_verify.errors import AuditedCodeError, UsageError

FAULTY = Path(__file__).resolve().parent.parent / "examples" / "faulty"
DOMAIN = str(FAULTY / "domain.json")
CLAIM = ["--beta", "0.5", "--epsilon", "1", "--delta", "0.1", "--domain", DOMAIN, "--seed", "0"]

ZOO = {  # file -> (fragment of the one-line message, exception type of the user's code or None)
    "raises_on_some": ("raised RuntimeError: buffer of 2 records overflowed on sample (1, 1, 1)", RuntimeError),
    "raises_value_error": ("raised ValueError: max() arg is an empty sequence on sample ()", ValueError),
    "unhashable": ("returned an unhashable value of type list", TypeError),
    "nondeterministic": ("is not a function of its sample", None),
    "random_on_crowds": ("is not a function of its sample", None),
    "order_dependent": ("depends on the order of the records", None),
    "bad_law": ("returned an invalid law on sample (): randomized anonymizer's probabilities sum to 9/10", ValueError),
    "blackbox_raises": ("raised KeyError: 3 on sample", KeyError),
}


def _load(name: str):
    return load_callable(f"{FAULTY / name}.py:anonymize")[0]


@pytest.mark.parametrize("name", sorted(ZOO))
def test_cli_exit_4_one_line(name, capsys, tmp_path):
    out_json = tmp_path / "r.json"
    rc = main(["audit", f"{FAULTY / name}.py:anonymize", *CLAIM, "--json", str(out_json)])
    out, err = capsys.readouterr()
    assert rc == 4, (out, err)
    assert err.count("\n") == 1 and err.startswith("dps-verify audit: error: the ")
    assert ZOO[name][0] in err
    assert "verdict" not in out and "PASS" not in out and "FAIL" not in out  # no verdict at all
    assert not out_json.exists()


@pytest.mark.parametrize("method", ["exact", "statistical"])
def test_cli_both_methods(method, capsys):
    rc = main(["audit", f"{FAULTY}/raises_on_some.py:anonymize", *CLAIM, "--method", method])
    assert rc == 4 and "RuntimeError" in capsys.readouterr().err


def test_cli_traceback_shows_the_users_frame(capsys):
    rc = main(["audit", f"{FAULTY}/raises_value_error.py:anonymize", *CLAIM, "--traceback"])
    err = capsys.readouterr().err
    assert rc == 4
    assert "Traceback" in err and "raises_value_error.py" in err and "return max(sample)" in err
    assert "The above exception was the direct cause" in err
    assert err.rstrip().splitlines()[-1].startswith("dps-verify audit: error: the anonymizer")


def test_cli_timeout(capsys):
    rc = main(["audit", f"{FAULTY}/hangs.py:anonymize", *CLAIM, "--timeout", "0.2"])
    err = capsys.readouterr().err
    assert rc == 4 and "did not return within 0.2 s (--timeout) on sample (1, 1)" in err


@pytest.mark.parametrize("bad", ["0", "-1", "soon", "inf"])
def test_cli_bad_timeout_is_usage(bad, capsys):
    with pytest.raises(SystemExit) as stop:  # argparse: one line, exit 2
        main(["audit", f"{FAULTY}/hangs.py:anonymize", *CLAIM, "--timeout", bad])
    assert stop.value.code == 2 and capsys.readouterr().err.count("\n") == 1


# ---------------------------------------------------------------------------- Python API


def test_distribution_chains_the_users_exception():
    with pytest.raises(AuditedCodeError) as info:
        exact.distribution(_load("raises_on_some"), [1, 1, 1, 2], Fraction(1, 2))
    err = info.value
    assert isinstance(err.original, RuntimeError) and err.__cause__ is err.original
    assert len(err.sample) >= 3 and set(err.sample) <= {1, 2} and list(err.dataset) == [1, 1, 1, 2]
    assert not isinstance(err, ValueError) and err.exit_code == 4


@pytest.mark.parametrize("name", sorted(ZOO))
def test_audit_api_raises_audited_code_error(name):
    with pytest.raises(AuditedCodeError) as info:
        audit(_load(name) if name != "blackbox_raises" else calls_guarded(_load(name)),
              beta=0.5, epsilon=1, delta=0.1, domain=[1, 2, 3], max_size=4, seed=0)
    expected = ZOO[name][1]
    if expected is not None:
        assert isinstance(info.value.original, expected)


def calls_guarded(fn):
    """Black boxes are guarded by the CLI (cli.audit.guard) until audit/ routes its Monte-Carlo
    calls through engine/calls.py itself."""
    from dps_verify.cli.audit import guard

    return guard(fn)


@pytest.mark.parametrize("name", ["raises_on_some", "raises_value_error", "unhashable", "nondeterministic",
                                  "random_on_crowds", "order_dependent"])
def test_assert_dp_raises_the_users_error_not_assertion(name):
    from dps_verify.testing import assert_dp

    with pytest.raises(AuditedCodeError) as info:
        assert_dp(_load(name), beta=0.5, epsilon=1, delta=0.1, domain=[1, 2, 3])
    err = info.value
    assert not isinstance(err, AssertionError) and err.sample is not None
    # the dataset is attached (calls.attach_dataset) where the caller knows it, e.g. distribution()
    if getattr(err, "dataset", None) is not None:
        assert err.__notes__


def test_timeout_in_python_api_and_off_main_thread():
    hangs = _load("hangs")
    with calls.call_limits(timeout=0.1), pytest.raises(AuditedCodeError, match="did not return"):
        exact.distribution(hangs, [1, 2], Fraction(1, 2))
    assert calls.call_anonymizer(hangs, (1,)) == "no release"  # no limit outside the block
    seen = []

    def worker():
        try:
            with calls.call_limits(timeout=1):
                pass
        except UsageError as exc:
            seen.append(str(exc))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen and "main thread" in seen[0]


def test_user_value_error_is_not_usage_and_keyboard_interrupt_passes():
    def boom(sample):
        raise ValueError("user bug")

    with pytest.raises(AuditedCodeError) as info:
        calls.call_anonymizer(boom, (1,))
    assert not isinstance(info.value, ValueError) and isinstance(info.value.original, ValueError)

    def stop(sample):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        calls.call_anonymizer(stop, (1,))


def test_recheck_and_law_faults():
    flip = iter(range(100))
    with pytest.raises(AuditedCodeError, match="not a function of its sample"):
        calls.call_anonymizer(lambda s: next(flip), (1,), recheck=True)
    neg = exact.randomized(lambda s: {0: Fraction(3, 2), 1: Fraction(-1, 2)})
    with pytest.raises(AuditedCodeError, match="negative probability"):
        calls.call_law(neg, ())
    ok = exact.randomized(lambda s: {len(s): 1})
    assert calls.call_law(ok, (1, 2), recheck=True) == {2: 1}


def test_cli_default_timeout_bounds_a_hanging_anonymizer(monkeypatch, capsys):
    """Without --timeout a hanging anonymizer is still given up on (default per-call limit)."""
    import dps_verify.cli.audit as audit_cmd

    monkeypatch.setattr(audit_cmd, "DEFAULT_TIMEOUT", 0.2)
    rc = main(["audit", f"{FAULTY}/hangs.py:anonymize", *CLAIM])
    err = capsys.readouterr().err
    assert rc == 4 and "did not return within 0.2 s" in err
