"""Guarded calls into the code under audit.

Every call dps_verify makes into a user's anonymizer goes through this module, so that a fault
of the user's code is reported as what it is — :class:`~dps_verify.core.errors.AuditedCodeError`
(CLI exit 4) — and never as a verdict (PASS/FAIL) or as bad usage of dps_verify (exit 2), even
when the user's code raises ``ValueError``.

* :func:`call_anonymizer` — ``anonymizer(sample)``; the output must be hashable.
* :func:`call_law` — ``randomized_anonymizer.law(sample)`` (an exact law; its probabilities must
  be non-negative and sum to 1, see :class:`dps_verify.engine.distribution.randomized`).
* :func:`call_blackbox` — ``fn(sample, rng)`` for a black box that draws its own randomness.

Each error message is one line naming the exception type, its message and the sample; the
error has ``.original`` (the user's exception, also chained as ``__cause__``) and ``.sample``.
With ``recheck=True`` the call is made twice and must agree ("not a function of its sample" —
a plain function that draws randomness must be wrapped with ``randomized`` or audited as a
black box); with ``reorder=True`` it is also made on the sample's records reversed and rotated
and must agree (a sample is a multiset, CP §2.1).  :class:`SpotChecks` picks the samples the
engine checks this way: a few of each size (``engine/count_vectors.py``, ``engine/distribution.py``).

Timeouts: ``with call_limits(timeout=2.0): ...`` bounds every guarded call made inside the block
(``dps-verify audit --timeout SECONDS``).  It uses ``signal.setitimer`` / ``SIGALRM``, so it is
available only in the main thread of the main interpreter on POSIX; elsewhere asking for a
timeout raises :class:`~dps_verify.core.errors.UsageError`.  A call that does not return in
time raises ``AuditedCodeError`` (an infinite loop in pure Python is interrupted; a call blocked
inside C code that never returns to the interpreter cannot be).
"""

from __future__ import annotations

import atexit
import contextvars
import functools
import inspect
import io
import os
import signal
import sys
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, TypeVar, cast

from dps_verify.core.errors import AuditedCodeError, DPSVerifyError, UsageError

_MAX_REPR = 200
_timeout: contextvars.ContextVar[float | None] = contextvars.ContextVar("dps_verify_call_timeout", default=None)


class _CallTimedOut(BaseException):
    """Raised by the SIGALRM handler inside user code; a BaseException so that a user's
    ``except Exception`` does not swallow it."""


class _ExitCalled(BaseException):
    """Raised in place of ``os._exit(code)`` while audited code runs (see :func:`audited_code`)."""

    def __init__(self, code: Any) -> None:
        super().__init__(f"os._exit({code!r}) called")
        self.code = code


#: Set by the SIGINT handler :func:`audited_code` installs: a ``KeyboardInterrupt`` is a real
#: Ctrl-C only if the signal arrived; one the audited code raises by itself is its fault.
_sigint = threading.Event()
#: Whether that handler is installed (off the main thread it cannot be: every
#: ``KeyboardInterrupt`` then passes through as a real interrupt).
_sigint_tracked = threading.Event()


def _real_interrupt() -> bool:
    return _sigint.is_set() or not _sigint_tracked.is_set()


def _escape(exc: BaseException) -> str:
    """How an exception that is not an ``Exception`` left the audited code, in words."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r}) (SystemExit)"
    if isinstance(exc, _ExitCalled):
        return f"called os._exit({exc.code!r})"
    if isinstance(exc, KeyboardInterrupt):
        return "raised KeyboardInterrupt by itself (no Ctrl-C was pressed)"
    return f"raised {type(exc).__name__}"


def _short(x: Any) -> str:
    try:
        s = repr(x)
    except Exception as exc:  # noqa: BLE001 - a user's __repr__ may raise too
        s = f"<{type(x).__name__} whose repr raised {type(exc).__name__}>"
    s = " ".join(s.split())
    return s if len(s) <= _MAX_REPR else s[: _MAX_REPR - 3] + "..."


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def _raised(fn: Any, exc: BaseException, sample: Any, what: str) -> AuditedCodeError:
    msg = " ".join(str(exc).split())
    detail = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    err = AuditedCodeError(f"the {what} {_name(fn)} raised {detail} on sample {_short(sample)}",
                           original=exc, sample=sample)
    return err


@contextmanager
def call_limits(*, timeout: float | None = None) -> Iterator[None]:
    """Bound each guarded call made inside the block by ``timeout`` seconds (None: no bound).

    Main thread only (SIGALRM); raises :class:`UsageError` elsewhere or if ``timeout <= 0``.
    """
    if timeout is None:
        yield
        return
    if not timeout > 0:
        raise UsageError(f"--timeout must be > 0 seconds, got {timeout}")
    if not hasattr(signal, "setitimer"):
        raise UsageError("--timeout needs signal.setitimer (POSIX); unavailable on this platform")
    if threading.current_thread() is not threading.main_thread():
        raise UsageError("--timeout uses SIGALRM and works only in the main thread")

    def on_alarm(signum: int, frame: Any) -> None:
        raise _CallTimedOut

    previous = signal.signal(signal.SIGALRM, on_alarm)
    token = _timeout.set(float(timeout))
    try:
        yield
    finally:
        _timeout.reset(token)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_NO_SAMPLE: Any = object()


@contextmanager
def call_deadline(what: str, *, sample: Any = _NO_SAMPLE) -> Iterator[None]:
    """Bound the audited call made inside the block by the current :func:`call_limits` timeout
    (main thread only, as SIGALRM is; no bound elsewhere or outside ``call_limits``).  A call
    that does not return in time is an :class:`AuditedCodeError` naming ``what`` (and the
    ``sample`` it was given, if any) — never a verdict."""
    t = _timeout.get()
    if t is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, t)
    try:
        yield
    except _CallTimedOut as stop:  # chained: --traceback shows where the user's code was
        if sample is _NO_SAMPLE:
            raise AuditedCodeError(f"{what} did not return within {t:g} s (--timeout)") from stop
        raise AuditedCodeError(f"{what} did not return within {t:g} s (--timeout) on sample "
                               f"{_short(sample)}", sample=sample) from stop
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _invoke(fn: Callable, args: tuple, sample: Any, what: str, owner: Any = None) -> Any:
    """``fn(*args)`` under the current time limit; ``owner`` names the user's object in messages."""
    owner = fn if owner is None else owner
    try:
        if _timeout.get() is None:
            # no time limit (the default): what call_deadline does then, without entering a
            # context manager or naming the call, ~4 us of CPU per call of the audited code
            # (the exact engine makes hundreds of thousands per test run)
            return fn(*args)
        with call_deadline(f"the {what} {_name(owner)}", sample=sample):
            return fn(*args)
    except AuditedCodeError:
        raise
    except Exception as exc:  # noqa: BLE001 - user code may raise anything
        raise _raised(owner, exc, sample, what) from exc
    except KeyboardInterrupt as stop:
        if _real_interrupt():
            raise  # Ctrl-C: the user stops dps-verify, not a fault of the code under audit
        raise AuditedCodeError(f"the {what} {_name(owner)} {_escape(stop)} on sample {_short(sample)}",
                               original=stop, sample=sample) from stop
    except BaseException as exc:  # SystemExit, os._exit, GeneratorExit ...: never a verdict
        raise AuditedCodeError(f"the {what} {_name(owner)} {_escape(exc)} on sample {_short(sample)}",
                               original=exc, sample=sample) from exc


def _check_hashable(fn: Any, y: Any, sample: Any, what: str) -> Hashable:
    try:
        hash(y)
    except TypeError as exc:
        raise AuditedCodeError(
            f"the {what} {_name(fn)} returned an unhashable value of type {type(y).__name__} "
            f"({_short(y)}) on sample {_short(sample)}; outputs must be hashable (a tuple, "
            "frozenset, str or number)",
            original=exc, sample=sample,
        ) from exc
    return y


def _not_a_function(fn: Any, sample: Any, a: Any, b: Any, what: str) -> AuditedCodeError:
    if repr(a) == repr(b):  # e.g. NaN: the outputs print alike but are not equal, so they
        # cannot be counted as one outcome (an output must compare equal to itself)
        err = AuditedCodeError(
            f"the {what} {_name(fn)} returned {_short(a)} on sample {_short(sample)} twice, but "
            "the two outputs do not compare equal (NaN?); an output must be equal to itself to "
            "be counted as one outcome of the distribution",
            sample=sample,
        )
        err.multiset_violation = True  # type: ignore[attr-defined]
        return err
    err = AuditedCodeError(
        f"the {what} {_name(fn)} is not a function of its sample: two calls on sample "
        f"{_short(sample)} gave {_short(a)} and {_short(b)} (wrap a randomized anonymizer with "
        "exact.randomized, or audit it as a black box fn(sample, rng))",
        sample=sample,
    )
    err.multiset_violation = True  # type: ignore[attr-defined]
    return err


def _order_dependent(fn: Any, sample: Any, a: Any, other: Any, b: Any, what: str) -> AuditedCodeError:
    err = AuditedCodeError(
        f"the {what} {_name(fn)} depends on the order of the records, not only on the multiset "
        f"of its sample: sample {_short(sample)} gave {_short(a)}, the same records in the order "
        f"{_short(other)} gave {_short(b)} (datasets and samples are multisets, CP §2.1; sort the "
        "records, or count them, before publishing anything that lists them"
        + ("; a float computed from the records rounds differently in another order"
           if isinstance(a, float) and isinstance(b, float) else "") + ")",
        sample=sample,
    )
    err.multiset_violation = True  # type: ignore[attr-defined]
    return err


def reorderings(sample: Any) -> list[tuple]:
    """The reversed and the rotated-by-one orders of ``sample`` that differ from it as sequences
    (none for a sample whose records are all equal)."""
    s = tuple(sample)
    out: list[tuple] = []
    for other in (s[::-1], s[1:] + s[:1]):
        if other != s and other not in out:
            out.append(other)
    return out


#: How many samples of each size (with two distinct records at least) :class:`SpotChecks` picks.
SPOT_CHECKS_PER_SIZE = 2


class SpotChecks:
    """Which calls are re-checked: a mechanism must be a function of its multiset sample.

    The engine anonymizes each sample in one canonical order, once; an anonymizer that depends
    on the order of the records, or that is not deterministic, would go unnoticed.  So, for each
    sample size n ≥ 1, every non-empty sample is anonymized again, and again with its records
    in the :func:`reorderings`, until ``per_size`` (default :data:`SPOT_CHECKS_PER_SIZE`) samples
    of size n holding two distinct records have been checked; any difference raises
    :class:`AuditedCodeError` (CLI exit 4).  A spot check, not a proof.  Its cost per size is
    three calls for each of ``per_size`` samples plus one call for each sample of equal records
    met before them (at most one per record, and only size 1 has nothing else).  ``done`` holds
    the sizes whose quota is met (callers test membership first, on their hot path);
    ``per_size=0`` checks nothing.
    """

    __slots__ = ("per_size", "done", "_seen")

    def __init__(self, per_size: int | None = None):
        self.per_size = SPOT_CHECKS_PER_SIZE if per_size is None else per_size
        self.done: set[int] = set()
        self._seen: dict[int, int] = {}

    def due(self, sample: Sequence) -> bool:
        """Whether this (not yet anonymized) sample is to be checked."""
        n = len(sample)
        if n == 0 or n in self.done or self.per_size <= 0:
            return False
        r0 = sample[0]
        if n == 1 or all(r == r0 for r in sample):
            return True  # nothing to reorder: a second call only
        k = self._seen.get(n, 0) + 1
        self._seen[n] = k
        if k >= self.per_size:
            self.done.add(n)
        return True


def call_anonymizer(anonymizer: Callable[[tuple], Hashable], sample: Any, *, recheck: bool = False,
                    reorder: bool = False, what: str = "anonymizer") -> Hashable:
    """``anonymizer(sample)``, guarded: any exception, an unhashable output, a timeout, (with
    ``recheck``) two disagreeing calls, or (with ``reorder``) a different output on a
    :func:`reorderings` of the sample raise :class:`AuditedCodeError`."""
    y = _check_hashable(anonymizer, _invoke(anonymizer, (sample,), sample, what), sample, what)
    if recheck:
        y2 = _check_hashable(anonymizer, _invoke(anonymizer, (sample,), sample, what), sample, what)
        if y2 != y:
            raise _not_a_function(anonymizer, sample, y, y2, what)
    if reorder:
        for other in reorderings(sample):
            y2 = _check_hashable(anonymizer, _invoke(anonymizer, (other,), other, what), other, what)
            if y2 != y:
                # order dependence only if both orders repeat their outputs; otherwise the code
                # is not deterministic, whatever the order (never blamed on the order)
                again = _invoke(anonymizer, (sample,), sample, what)
                if again != y:
                    raise _not_a_function(anonymizer, sample, y, again, what)
                other_again = _invoke(anonymizer, (other,), other, what)
                if other_again != y2:
                    raise _not_a_function(anonymizer, other, y2, other_again, what)
                raise _order_dependent(anonymizer, sample, y, other, y2, what)
    return y


class _GuardedFn:
    """Stands in for a :class:`randomized` object inside ``randomized.law``: same law
    validation, but the user's function is called through :func:`_invoke`."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable) -> None:
        self.fn = fn


def _law_once(r: Any, fn: Any, sample: Any, what: str) -> dict[Hashable, Fraction]:
    # randomized.law of dps_verify.engine.randomized (recognised by name, as before) validates a
    # user's law; anything else computes its own law.
    validate = getattr(type(r), "law", None)
    if getattr(validate, "__qualname__", "") != "randomized.law" or \
            getattr(validate, "__module__", "") != "dps_verify.engine.randomized":
        law = _invoke(r.law, (sample,), sample, what, fn)
        if not isinstance(law, Mapping):
            raise AuditedCodeError(f"the {what} {_name(fn)} returned {type(law).__name__}, not a law "
                                   f"{{output: probability}}, on sample {_short(sample)}", sample=sample)
        return dict(law)
    shim = _GuardedFn(lambda s: _invoke(fn, (s,), s, what))
    try:
        return cast(Callable[..., dict], validate)(shim, sample)
    except AuditedCodeError:
        raise
    except (ValueError, TypeError, AttributeError) as exc:  # the law itself breaks the contract
        raise AuditedCodeError(
            f"the {what} {_name(fn)} returned an invalid law on sample {_short(sample)}: "
            f"{' '.join(str(exc).split())}",
            original=exc, sample=sample,
        ) from exc


def call_law(randomized_anonymizer: Any, sample: Any, *, recheck: bool = False, reorder: bool = False,
             what: str = "randomized anonymizer") -> dict[Hashable, Fraction]:
    """``randomized_anonymizer.law(sample)``, guarded like :func:`call_anonymizer`; a law whose
    probabilities are negative, unreadable or do not sum to 1 is a fault of the audited code too
    (the contract of :class:`~dps_verify.engine.distribution.randomized`)."""
    fn = getattr(randomized_anonymizer, "fn", randomized_anonymizer)
    law = _law_once(randomized_anonymizer, fn, sample, what)
    if recheck:
        again = _law_once(randomized_anonymizer, fn, sample, what)
        if again != law:
            raise _not_a_function(fn, sample, law, again, what)
    if reorder:
        for other in reorderings(sample):
            again = _law_once(randomized_anonymizer, fn, other, what)
            if again != law:
                same = _law_once(randomized_anonymizer, fn, sample, what)
                if same != law:
                    raise _not_a_function(fn, sample, law, same, what)
                other_again = _law_once(randomized_anonymizer, fn, other, what)
                if other_again != again:
                    raise _not_a_function(fn, other, again, other_again, what)
                raise _order_dependent(fn, sample, law, other, again, what)
    return law


def call_blackbox(fn: Callable[[tuple, Any], Hashable], sample: Any, rng: Any, *,
                  what: str = "black-box anonymizer") -> Hashable:
    """``fn(sample, rng)`` for a black box that draws its own randomness, guarded (no recheck:
    two calls may legitimately differ)."""
    return _check_hashable(fn, _invoke(fn, (sample, rng), sample, what), sample, what)


def attach_dataset(err: AuditedCodeError, dataset: Any) -> AuditedCodeError:
    """Record on ``err`` the dataset whose law was being computed (``err.dataset`` and a note
    shown under the traceback), once: the innermost dataset wins."""
    if getattr(err, "dataset", None) is None:
        err.dataset = dataset  # type: ignore[attr-defined]
        err.add_note(f"while computing the output law of dataset {_short(tuple(dataset))}")
    return err


F = TypeVar("F", bound=Callable[..., Any])


# ----------------------------------------------------------------- the audited code's world

#: Characters of each stream kept from what the audited code prints (the rest is counted).
CAPTURE_LIMIT = 20_000


class _Sink(io.TextIOBase):
    """A text stream keeping the first :data:`CAPTURE_LIMIT` characters and counting the rest."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.kept = 0
        self.chars = 0
        self.lines = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        self.chars += len(text)
        self.lines += text.count("\n")
        room = CAPTURE_LIMIT - self.kept
        if room > 0:
            self.parts.append(text[:room])
            self.kept += min(room, len(text))
        return len(text)

    @property
    def text(self) -> str:
        return "".join(self.parts)


class Captured:
    """What the audited code printed while dps_verify ran it (``stdout``, ``stderr``): the
    text kept (at most :data:`CAPTURE_LIMIT` characters each) and how much there was."""

    def __init__(self) -> None:
        self.out = _Sink()
        self.err = _Sink()

    def as_dict(self) -> dict[str, Any]:
        return {name: {"text": s.text, "chars": s.chars, "lines": s.lines + (1 if s.chars and not s.text.endswith("\n") else 0),
                       "truncated": s.chars > s.kept}
                for name, s in (("stdout", self.out), ("stderr", self.err)) if s.chars}


#: The interpreter's own ``os._exit`` and ``atexit.register``, taken when this module is
#: imported: what :func:`audited_code` puts back, never a value read while a block is open
#: (another thread's block may have replaced it).
_REAL_OS_EXIT = os._exit
_REAL_ATEXIT_REGISTER = atexit.register


class _ThreadStream(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` while any :func:`audited_code` block is open: a write goes
    to the capture of the block its thread is in; a thread in no block writes to the capture of
    the latest block still open (a thread the audited code started), except the main thread,
    which writes to the process's own stream (the verdict, after its block ended)."""

    def __init__(self, name: str, real: Any) -> None:
        self.name, self.real = name, real

    def writable(self) -> bool:
        return True

    def _target(self) -> Any:
        block = getattr(_inside, "block", None)
        if block is None and threading.current_thread() is not threading.main_thread():
            block = _world.latest()
        if block is None or not block.capture:
            return self.real
        return getattr(block.cap, self.name)

    def write(self, text: str) -> int:
        target = self._target()
        if target is None:  # the process has no such stream (pythonw): print drops the text
            return len(text)
        return target.write(text)

    def flush(self) -> None:
        target = self._target()
        if target is self.real and target is not None:
            target.flush()


class _Block:
    """One open :func:`audited_code` block: its capture and whether it captures."""

    def __init__(self, capture: bool) -> None:
        self.cap = Captured()
        self.capture = capture


class _World:
    """The process-wide replacements :func:`audited_code` makes (``os._exit``,
    ``atexit.register``, ``sys.stdout``/``sys.stderr`` by :class:`_ThreadStream`).  Blocks may
    be open in several threads at once (in-process Dask workers, or a task left running after
    its time-out): the first to open makes the replacements, the last to close undoes them,
    under one lock, so an interleaving can never leave a replacement in place or save one as if
    it were the original.  What each block's code prints goes to that block's own capture."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.blocks: list[_Block] = []
        self.streams: tuple[Any, Any] = (None, None)
        self.restore_random: Callable[[], None] = lambda: None

    def latest(self) -> _Block | None:
        blocks = self.blocks
        return blocks[-1] if blocks else None

    def enter(self, capture: bool, seed: int) -> _Block:
        block = _Block(capture)
        with self.lock:
            if not self.blocks:
                self.restore_random = _save_globals()
                self.streams = (sys.stdout, sys.stderr)
            self._install()
            _seed_globals(seed)
            self.blocks.append(block)
        return block

    def _install(self) -> None:
        """(Re)make the replacements: the audited code may have replaced them with its own."""
        os._exit = _trap_os_exit  # type: ignore[assignment]
        atexit.register = _register_contained  # type: ignore[assignment]
        if not isinstance(sys.stdout, _ThreadStream):
            sys.stdout = _ThreadStream("out", self.streams[0])  # type: ignore[assignment]
        if not isinstance(sys.stderr, _ThreadStream):
            sys.stderr = _ThreadStream("err", self.streams[1])  # type: ignore[assignment]

    def leave(self, block: _Block) -> None:
        """Close ``block``.  The last block puts back the streams saved when the first opened,
        the interpreter's ``atexit.register`` and ``os._exit`` (still trapped after
        :func:`seal_process`) whatever the audited code assigned to them, so it cannot keep a
        stream of its own past the verdict; while other blocks stay open, the replacements are
        made again."""
        with self.lock:
            self.blocks.remove(block)
            if self.blocks:
                self._install()
                return
            sys.stdout, sys.stderr = self.streams
            os._exit = _trap_os_exit if _sealed else _REAL_OS_EXIT  # type: ignore[assignment]
            atexit.register = _REAL_ATEXIT_REGISTER  # type: ignore[assignment]
            self.restore_random()
            self.restore_random = lambda: None


_world = _World()
#: Whether :func:`seal_process` has trapped ``os._exit`` for the rest of the process.
_sealed = False
#: Per thread: the :func:`audited_code` block this thread is inside, if any.
_inside = threading.local()


def _on_sigint(signum: int, frame: Any) -> None:
    _sigint.set()
    raise KeyboardInterrupt


def _trap_os_exit(code: Any = 0) -> None:
    raise _ExitCalled(code)


def _contained_at_exit(func: Callable, *args: Any, **kwargs: Any) -> Callable[[], None]:
    """An exit handler the audited code registered, run at interpreter exit with ``os._exit``
    trapped and its output discarded, so it cannot change the exit code or print after the
    verdict (its cleanup still runs)."""

    def run() -> None:
        real_exit, out, err = os._exit, sys.stdout, sys.stderr
        os._exit = _trap_os_exit  # type: ignore[assignment]
        sys.stdout, sys.stderr = _Sink(), _Sink()  # type: ignore[assignment]
        try:
            func(*args, **kwargs)
        except BaseException:  # noqa: BLE001 - nothing the audited code does at exit counts
            pass
        finally:
            os._exit = real_exit  # type: ignore[assignment]
            sys.stdout, sys.stderr = out, err

    return run


def _register_contained(func: Callable, *args: Any, **kwargs: Any) -> Callable:
    """``atexit.register`` while audited code runs: the handler is registered contained."""
    _REAL_ATEXIT_REGISTER(_contained_at_exit(func, *args, **kwargs))
    return func


def seal_process() -> None:
    """After the verdict line is printed (the real command line only): for the rest of the
    process ``os._exit`` is trapped and ``sys.stdout``/``sys.stderr`` discard output, so a
    thread the audited code left running cannot print after the verdict or choose the exit
    code.  (Writes straight to the file descriptors are not intercepted.)"""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    global _sealed
    _sealed = True
    os._exit = _trap_os_exit  # type: ignore[assignment]
    sys.stdout, sys.stderr = _Sink(), _Sink()  # type: ignore[assignment]


#: Seed of the global random generators while the audited code runs, when the audit has none.
DEFAULT_CODE_SEED = 0


def _save_globals() -> Callable[[], None]:
    """The states of :mod:`random` and numpy's legacy global generator (if numpy is loaded);
    returns a function restoring them."""
    import random

    state = random.getstate()
    np = sys.modules.get("numpy")
    np_state = None
    if np is not None:
        try:
            np_state = np.random.get_state()
        except Exception:  # noqa: BLE001 - a partial numpy install: leave it alone
            np_state = None

    def restore() -> None:
        random.setstate(state)
        if np is not None and np_state is not None:
            np.random.set_state(np_state)

    return restore


def _seed_globals(seed: int) -> None:
    """Seed :mod:`random` (and numpy's legacy global generator, if numpy is loaded) for the
    audited code."""
    import random

    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed(seed % 2**32)
        except Exception:  # noqa: BLE001 - a partial numpy install: leave it alone
            pass


@contextmanager
def audited_code(*, capture: bool = True, seed: int | None = None) -> Iterator[Captured]:
    """The world the code under audit runs in (importing it, calling it), so that it cannot
    forge a verdict or an exit code:

    * ``SystemExit`` (``sys.exit``), ``os._exit`` (replaced by a trap while the block runs),
      ``KeyboardInterrupt`` raised by the code itself (a real Ctrl-C is told apart by a SIGINT
      handler, main thread only) and any other ``BaseException`` leaving the block become
      :class:`AuditedCodeError` (CLI exit 4) naming what happened;
    * what the code prints to ``sys.stdout`` / ``sys.stderr`` is captured (``capture``) and
      kept in the :class:`Captured` this yields, so nothing it prints comes after (or floods)
      the verdict.  Output written to the file descriptors directly (C code, ``os.write``) is
      not seen;
    * the global generators of :mod:`random` (and numpy's, if loaded) are seeded with ``seed``
      (:data:`DEFAULT_CODE_SEED` if None) and restored afterwards, so code that draws from them
      without saying so (random 0.2 % of the time, say) gives the same verdict and exit code
      run after run; a spot check that catches it reports it as not deterministic.

    Re-entrant: an inner block shares the outer one's capture.  Blocks open in several threads
    at once (in-process Dask workers; a task left running after its time-out) share one set of
    replacements, undone when the last one closes; each captures what its own thread prints (a
    thread the audited code started prints into the latest open block), and each seeds the
    global generators when it opens.
    """
    if getattr(_inside, "block", None) is not None:
        yield _inside.block.cap
        return
    main = threading.current_thread() is threading.main_thread()
    previous_sigint = None
    if main:
        try:
            previous_sigint = signal.signal(signal.SIGINT, _on_sigint)
            _sigint.clear()
            _sigint_tracked.set()
        except (ValueError, OSError):  # not the main interpreter
            previous_sigint = None
    block = _world.enter(capture, DEFAULT_CODE_SEED if seed is None else seed)
    _inside.block = block
    try:
        yield block.cap
    except (AuditedCodeError, _CallTimedOut):
        raise
    except KeyboardInterrupt as exc:
        if _real_interrupt():
            raise
        raise AuditedCodeError(f"the code under audit {_escape(exc)}", original=exc) from exc
    except DPSVerifyError:
        raise
    except Exception as exc:
        where = _users_frame(exc)
        if where is None:
            raise  # raised by dps_verify itself (a bug: exit 70) or by a library it called
        raise AuditedCodeError(f"the code under audit raised {type(exc).__name__}"
                               + (f": {' '.join(str(exc).split())}" if str(exc).strip() else "")
                               + f" (in {where}, called by dps_verify outside a guarded call: "
                               "an output's __hash__/__eq__ or an attribute)", original=exc) from exc
    except BaseException as exc:  # SystemExit, os._exit ... reaching here came from user code
        raise AuditedCodeError(f"the code under audit {_escape(exc)}", original=exc) from exc
    finally:
        _inside.block = None
        _world.leave(block)
        if previous_sigint is not None:
            signal.signal(signal.SIGINT, previous_sigint)
            _sigint_tracked.clear()


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = tuple({os.path.abspath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)})


def _users_frame(exc: BaseException) -> str | None:
    """``file:line`` of the innermost frame of ``exc``'s traceback that is neither in the
    Python installation (standard library, site-packages) nor in dps_verify, if the innermost
    such frame is the audited code's (None when dps_verify or only libraries raised it)."""
    import traceback as tb_mod

    frames = tb_mod.extract_tb(exc.__traceback__)
    for fr in reversed(frames):
        path = os.path.abspath(fr.filename)
        if path.startswith(_PACKAGE_DIR + os.sep):
            return None  # dps_verify's own frame comes first: not the audited code's fault
        if fr.filename.startswith("<") or path.startswith(_LIBRARY_DIRS):
            continue
        return f"{os.path.basename(path)}:{fr.lineno}"
    return None


def real_streams() -> tuple[Any, Any]:
    """``(stdout, stderr)`` of the process, also while :func:`audited_code` captures (for a
    progress bar on the terminal)."""
    return sys.__stdout__, sys.__stderr__


def guard(anonymizer: Any) -> Any:
    """A plain function under audit, wrapped so every call goes through this module (its
    signature and attributes are kept, so the auditor still recognises a black box
    ``(sample, rng)`` or a ``sufficient_statistic``).  Objects (classes,
    :class:`~dps_verify.engine.distribution.randomized`) are returned unchanged: the exact engine
    guards their calls itself, and :func:`audited_code` catches what escapes elsewhere."""
    if getattr(anonymizer, "_dps_guarded", False):
        return anonymizer
    if not inspect.isfunction(anonymizer):
        if not callable(anonymizer) or any(c.__module__.startswith("dps_verify.") for c in type(anonymizer).__mro__):
            return anonymizer  # dps_verify's own mechanisms and randomized laws: guarded by the engine
        return _GuardedObject(anonymizer)

    @functools.wraps(anonymizer)
    def guarded(sample: Any, *rest: Any) -> Any:
        if rest:
            return call_blackbox(anonymizer, sample, *rest)
        return call_anonymizer(anonymizer, sample)

    guarded._dps_guarded = True  # type: ignore[attr-defined]
    return guarded


class _GuardedObject:
    """A callable object under audit (a user's class instance), called through this module; its
    attributes (``k``, ``sufficient_statistic``, ``from_counts`` …) and signature are the
    object's own, so the auditor recognises it as before."""

    _dps_guarded = True

    def __init__(self, obj: Any) -> None:
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "__wrapped__", obj)  # inspect.signature follows it

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_obj"), name)

    def __call__(self, sample: Any, *rest: Any) -> Any:
        obj = object.__getattribute__(self, "_obj")
        if rest:
            return call_blackbox(obj, sample, *rest)
        return call_anonymizer(obj, sample)

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_obj"))


def audit_entry_point(fn: F) -> F:
    """Decorator for the audit's entry point ``fn(anonymizer, ...)``: the anonymizer is
    :func:`guard`-ed and the whole run happens inside :func:`audited_code`; what the code
    printed is attached to the returned report as ``output`` (when it has that attribute)."""

    @functools.wraps(fn)
    def wrapper(anonymizer: Any, *args: Any, **kwargs: Any) -> Any:
        seed = kwargs.get("seed")
        with audited_code(seed=seed if isinstance(seed, int) else None) as cap:
            rep = fn(guard(anonymizer), *args, **kwargs)
        if hasattr(rep, "output"):
            rep.output = cap.as_dict()
        return rep

    return cast(F, wrapper)


def reports_dataset(fn: F) -> F:
    """Decorator for ``fn(anonymizer, dataset, ...)``: an :class:`AuditedCodeError` raised inside
    carries the dataset (:func:`attach_dataset`)."""

    @functools.wraps(fn)
    def wrapper(anonymizer: Any, dataset: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(anonymizer, dataset, *args, **kwargs)
        except AuditedCodeError as err:
            attach_dataset(err, dataset)
            raise

    return cast(F, wrapper)


__all__ = ["CAPTURE_LIMIT", "SPOT_CHECKS_PER_SIZE", "Captured", "SpotChecks", "attach_dataset", "audit_entry_point",
           "audited_code", "call_anonymizer", "call_blackbox", "call_deadline", "call_law", "call_limits", "guard", "real_streams", "seal_process",
           "reorderings", "reports_dataset"]
