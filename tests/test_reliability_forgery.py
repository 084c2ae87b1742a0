"""The audited code cannot forge a verdict or an exit code.

``sys.exit(0)`` in the anonymizer or at its import used to end ``dps-verify audit`` with exit 0
and no output (PASS by the exit-code table), ``sys.exit(3)`` with INCONCLUSIVE; through the API
``SystemExit`` escaped ``audit()``.  Every escape of the audited code is now
``AuditedCodeError`` / exit 4 with one line naming it, the verdict line is the last line
printed, and what the code prints is captured.
"""

from __future__ import annotations

import json
import textwrap
import threading
from pathlib import Path

import pytest

from dps_verify.audit import audit
from dps_verify.cli import main
from dps_verify.engine import calls
from dps_verify.errors import AuditedCodeError

CLAIM = ["--beta", "0.5", "--epsilon", "1", "--delta", "0.1", "--seed", "0"]


def _domain(tmp_path: Path, max_size: int = 4) -> str:
    p = tmp_path / "domain.json"
    p.write_text(json.dumps({"records": [1, 2, 3], "max_size": max_size}))
    return str(p)


def _script(tmp_path: Path, body: str, name: str = "anon.py") -> str:
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return f"{p}:anonymize"


# (source, fragment of the one-line error)
ESCAPES = {
    "sys.exit(0) in the call": ("""
        import sys
        def anonymize(sample):
            sys.exit(0)
        """, "called sys.exit(0) (SystemExit) on sample"),
    "sys.exit(3) in the call": ("""
        import sys
        def anonymize(sample):
            if len(sample) > 1:
                sys.exit(3)
            return 'x'
        """, "called sys.exit(3) (SystemExit) on sample"),
    "raise SystemExit at import": ("""
        raise SystemExit(0)
        def anonymize(sample):
            return 'x'
        """, "called sys.exit(0) (SystemExit)"),
    "KeyboardInterrupt raised by the code": ("""
        def anonymize(sample):
            raise KeyboardInterrupt
        """, "raised KeyboardInterrupt by itself (no Ctrl-C was pressed)"),
    "KeyboardInterrupt at import": ("""
        raise KeyboardInterrupt
        """, "raised KeyboardInterrupt by itself"),
    "os._exit(0) in the call": ("""
        import os
        def anonymize(sample):
            os._exit(0)
        """, "called os._exit(0)"),
    "os._exit imported by name at import": ("""
        from os import _exit
        def anonymize(sample):
            _exit(0)
        """, "called os._exit(0)"),
    "a BaseException subclass": ("""
        class Escape(BaseException):
            pass
        def anonymize(sample):
            raise Escape()
        """, "raised Escape"),
    "GeneratorExit": ("""
        def anonymize(sample):
            raise GeneratorExit
        """, "raised GeneratorExit"),
    "an error at import": ("""
        import no_such_module_anywhere
        """, "raised ModuleNotFoundError"),
    "a black box that exits": ("""
        import sys
        def anonymize(sample, rng):
            sys.exit(0)
        """, "called sys.exit(0) (SystemExit)"),
}


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_cli_escape_is_exit_4_one_line(case, tmp_path, capsys):
    src, fragment = ESCAPES[case]
    rc = main(["audit", _script(tmp_path, src), *CLAIM, "--domain", _domain(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 4, (out, err)
    assert err.count("\n") == 1 and err.startswith("dps-verify audit: error: ")
    assert fragment in err
    assert "verdict" not in out


@pytest.mark.parametrize("method", ["auto", "exact", "statistical"])
def test_api_system_exit_never_escapes_audit(method):
    import sys

    def anonymize(sample):
        sys.exit(0)

    with pytest.raises(AuditedCodeError, match=r"sys\.exit\(0\)") as info:
        audit(anonymize, beta="0.5", epsilon=1, delta="0.1", domain=[1, 2, 3], max_size=4, method=method, seed=0)
    assert isinstance(info.value.original, SystemExit)


def test_api_object_anonymizer_exit_is_caught():
    """A callable object (not a plain function) is not wrapped call by call: its escape is
    caught at the audit's boundary."""

    class Anon:
        def __call__(self, sample):
            raise SystemExit(0)

    with pytest.raises(AuditedCodeError, match="SystemExit"):
        audit(Anon(), beta="0.5", epsilon=1, delta="0.1", domain=[1, 2, 3], max_size=4, seed=0)


def test_api_os_exit_is_trapped_and_restored():
    import os

    real = os._exit

    def anonymize(sample):
        os._exit(0)

    with pytest.raises(AuditedCodeError, match=r"os\._exit\(0\)"):
        audit(anonymize, beta="0.5", epsilon=1, delta="0.1", domain=[1, 2, 3], max_size=4, seed=0)
    assert os._exit is real


def test_real_ctrl_c_is_still_an_interrupt():
    """Negative control: a KeyboardInterrupt that comes with SIGINT (a real Ctrl-C) is not
    blamed on the audited code."""
    import os
    import signal

    def anonymize(sample):
        os.kill(os.getpid(), signal.SIGINT)
        return "x"

    with pytest.raises(KeyboardInterrupt):
        audit(anonymize, beta="0.5", epsilon=1, delta="0.1", domain=[1, 2, 3], max_size=4, seed=0)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_cli_real_ctrl_c_is_exit_130(tmp_path, capsys):
    src = """
        import os, signal
        def anonymize(sample):
            os.kill(os.getpid(), signal.SIGINT)
            return 'x'
        """
    assert main(["audit", _script(tmp_path, src), *CLAIM, "--domain", _domain(tmp_path)]) == 130


#: Prints at import and on the samples of one record (each call printing costs the PASS audit's
#: ~30,000 calls of its recognition phase ~0.4 s of CPU; examples/faulty/prints_a_lot.py, run
#: below, prints on every call, and a flood is bounded: test_flood_is_bounded).
PRINTS = """
    import sys
    print("loading the anonymizer")
    def anonymize(sample):
        if len(sample) == 1:
            print("anonymizing", len(sample), "records")
            print("warning: nothing", file=sys.stderr)
        return len(sample) > 100
    """


def test_printed_output_is_captured_and_the_verdict_is_last(tmp_path, capsys, short_recognition):
    rc = main(["audit", _script(tmp_path, PRINTS), *CLAIM, "--domain", _domain(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 0 and err == ""
    lines = out.rstrip("\n").splitlines()
    assert lines[-1].startswith("verdict: PASS")
    assert "anonymizing" not in out and "loading the anonymizer" not in out
    assert any(line.startswith("note: the audited code printed") and "to stdout" in line for line in lines)
    assert any("to stderr (captured; --show-output prints them)" in line for line in lines)


def test_show_output_prints_it_before_the_verdict(tmp_path, capsys, short_recognition):
    rc = main(["audit", _script(tmp_path, PRINTS), *CLAIM, "--domain", _domain(tmp_path), "--show-output"])
    out = capsys.readouterr().out
    assert rc == 0
    lines = out.rstrip("\n").splitlines()
    assert lines[-1].startswith("verdict: PASS")
    assert "loading the anonymizer" in out and "anonymizing 1 records" in out
    assert out.index("anonymizing") < out.index("verdict: PASS")


def test_api_report_carries_the_output(short_recognition):
    def anonymize(sample):
        print("hello")
        return "same"

    rep = audit(anonymize, beta="0.5", epsilon=1, delta="0.1", domain=[1, 2], max_size=3, seed=0)
    assert rep.verdict == "PASS"
    assert rep.output["stdout"]["text"].startswith("hello\n")
    assert rep.output["stdout"]["lines"] >= 1 and "stderr" not in rep.output


def test_flood_is_bounded():
    cap = calls.Captured()
    for _ in range(10):
        cap.out.write("x" * calls.CAPTURE_LIMIT)
    d = cap.as_dict()["stdout"]
    assert len(d["text"]) == calls.CAPTURE_LIMIT and d["chars"] == 10 * calls.CAPTURE_LIMIT and d["truncated"]


def test_exit_0_only_after_a_pass_line(tmp_path, capsys):
    """A FAIL exits 1 with the FAIL line last; the verdict line is last for every verdict."""
    src = """
        def anonymize(sample):
            return len(sample)
        """
    rc = main(["audit", _script(tmp_path, src), *CLAIM, "--domain", _domain(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 1 and out.rstrip().splitlines()[-1].startswith("verdict: FAIL")


SNEAKY = """
    import atexit, os, threading, time
    atexit.register(os._exit, 0)          # would turn any exit code into 0 at shutdown
    def later():
        time.sleep(0.5)
        print("verdict: PASS")            # would print after the real verdict
        os._exit(0)
    def anonymize(sample):
        if not any(t.name == "sneak" for t in threading.enumerate()):
            threading.Thread(target=later, name="sneak").start()
        return len(sample)
    """


def test_exit_handlers_and_threads_left_behind_cannot_change_the_exit_code(tmp_path):
    """Run as the real command: an exit handler calling os._exit(0) and a thread printing a
    fake verdict and calling os._exit(0) after the audit neither print nor change the exit code."""
    import subprocess
    import sys

    argv = [sys.executable, "-c", "import sys; from dps_verify.cli import main; sys.exit(main())",
            "audit", _script(tmp_path, SNEAKY), *CLAIM, "--domain", _domain(tmp_path)]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, (out.stdout[-500:], out.stderr[-500:])
    assert out.stdout.rstrip().splitlines()[-1].startswith("verdict: FAIL")
    assert out.stdout.count("verdict:") == 1


OBJECTS = """
    class Anon:
        k = 3
        def __call__(self, sample):
            if len(sample) > 2:
                raise ValueError("boom")
            return "x"
    anonymize = Anon()
    class BlackBox:
        def __call__(self, sample, rng):
            raise ValueError("bb boom")
    blackbox = BlackBox()
    """


@pytest.mark.parametrize("name, method", [("anonymize", "exact"), ("anonymize", "statistical"),
                                          ("anonymize", "auto"), ("blackbox", "auto")])
def test_callable_objects_are_guarded_too(name, method, tmp_path, capsys):
    """A callable class instance raising ValueError in the statistical path used to be exit 2
    (bad usage), as if dps-verify had been misused."""
    target = _script(tmp_path, OBJECTS).replace(":anonymize", f":{name}")
    rc = main(["audit", target, *CLAIM, "--domain", _domain(tmp_path), "--method", method])
    err = capsys.readouterr().err
    assert rc == 4 and "raised ValueError" in err and err.count("\n") == 1


def test_guarded_object_keeps_attributes_and_signature():
    import inspect

    class BB:
        k = 7

        def __call__(self, sample, rng):
            return 1

    g = calls.guard(BB())
    assert g.k == 7 and len(inspect.signature(g).parameters) == 2
    assert calls.guard(g) is g


WEIRD_OUTPUT = """
    class Out:
        def __init__(self, n):
            self.n = n
        def __hash__(self):
            return 1
        def __eq__(self, other):
            raise ValueError("cannot compare outputs")
    def anonymize(sample):
        return Out(len(sample))
    """


def test_output_methods_raising_are_the_audited_codes_fault(tmp_path, capsys):
    """An output whose __eq__ raises ValueError, called by the engine outside a guarded call,
    used to be exit 2 (bad usage); it is the audited code's fault (exit 4, naming its line)."""
    rc = main(["audit", _script(tmp_path, WEIRD_OUTPUT), *CLAIM, "--domain", _domain(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 4 and "raised ValueError: cannot compare outputs (in anon.py:" in err


def test_a_bug_of_dps_verify_is_not_blamed_on_the_audited_code():
    """Negative control: an exception raised inside dps_verify stays what it is (exit 70)."""
    def boom():
        from dps_verify.core import numbers

        numbers.to_fraction(object(), "x")  # raises inside dps_verify

    with pytest.raises(ValueError) as info, calls.audited_code(capture=False):
        boom()
    assert not isinstance(info.value, AuditedCodeError)


FAULTY = Path(__file__).resolve().parent.parent / "examples" / "faulty"
ESCAPE_EXAMPLES = {  # examples/faulty entry -> fragment of the one-line message
    "exits_zero": "called sys.exit(0) (SystemExit) on sample",
    "exits_at_import": "exits_at_import.py called sys.exit(0) (SystemExit)",
    "os_exit": "called os._exit(0) on sample",
    "raises_keyboard_interrupt": "raised KeyboardInterrupt by itself",
}


@pytest.mark.parametrize("name", sorted(ESCAPE_EXAMPLES))
def test_escape_examples_are_exit_4(name, capsys):
    rc = main(["audit", f"{FAULTY / name}.py:anonymize", *CLAIM, "--domain", str(FAULTY / "domain.json")])
    out, err = capsys.readouterr()
    assert rc == 4 and err.count("\n") == 1 and ESCAPE_EXAMPLES[name] in err, err
    assert "verdict" not in out


def test_noisy_example_is_summarised(capsys, short_recognition):
    rc = main(["audit", f"{FAULTY / 'prints_a_lot'}.py:anonymize", *CLAIM, "--domain", str(FAULTY / "domain.json")])
    out = capsys.readouterr().out
    assert rc == 0 and "anonymizing" not in out and out.rstrip().splitlines()[-1].startswith("verdict: PASS")


def _open_in_thread(order: list[str], name: str, entered: threading.Event, leave: threading.Event) -> threading.Thread:
    def run() -> None:
        with calls.audited_code():
            order.append(f"{name} in")
            entered.set()
            leave.wait(10)
        order.append(f"{name} out")

    t = threading.Thread(target=run)
    t.start()
    return t


@pytest.mark.parametrize("first_out", ["A", "B"])
def test_blocks_open_in_two_threads_restore_the_real_exit_handlers_and_streams(first_out):
    """In-process Dask workers run audited code in two threads at once.  Whatever order the
    blocks open and close in, the interpreter's own ``os._exit``, ``atexit.register`` and
    streams come back, and an exit handler registered afterwards is registered (a block that
    saved another thread's replacement as the original used to leave ``atexit.register``
    calling itself: RecursionError on the next import that registers one)."""
    import atexit
    import os
    import sys

    real_exit, real_register, out, err = os._exit, atexit.register, sys.stdout, sys.stderr
    order: list[str] = []
    events = {n: (threading.Event(), threading.Event()) for n in "AB"}
    threads = {}
    for n in "AB":
        threads[n] = _open_in_thread(order, n, *events[n])
        assert events[n][0].wait(10)
    assert os._exit is not real_exit and atexit.register is not real_register
    second_out = "B" if first_out == "A" else "A"
    for n in (first_out, second_out):
        events[n][1].set()
        threads[n].join(10)
        if n == first_out:  # the other block is still open: its replacements stay
            assert os._exit is not real_exit and atexit.register is not real_register
    assert order == ["A in", "B in", f"{first_out} out", f"{second_out} out"]
    assert os._exit is real_exit and atexit.register is real_register
    assert sys.stdout is out and sys.stderr is err
    handler = atexit.register(lambda: None)  # the interpreter's own register: no recursion
    atexit.unregister(handler)


@pytest.mark.parametrize("replacement", ["io.StringIO()", "_Rewrite(sys.stdout)"])
def test_code_that_replaces_sys_stdout_cannot_swallow_or_rewrite_the_verdict(replacement, tmp_path, capsys):
    """The audited code assigns sys.stdout at import (a sink, or a wrapper turning FAIL into
    PASS): once its block ends the process's own stream is back, so the FAIL verdict line
    reaches the terminal unchanged."""
    src = f"""
        import io, sys
        class _Rewrite:
            def __init__(self, real):
                self.real = real
            def write(self, text):
                return self.real.write(text.replace("FAIL", "PASS"))
            def flush(self):
                pass
        sys.stdout = {replacement}
        def anonymize(sample):
            return tuple(sorted(sample))
        """
    rc = main(["audit", _script(tmp_path, src), *CLAIM, "--domain", _domain(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 1 and out.rstrip().splitlines()[-1].startswith("verdict: FAIL")
