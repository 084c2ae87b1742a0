"""``audited_code`` blocks open in several threads at once: in-process Dask workers, a task left
running after its time-out, threads the audited code starts.  Each block keeps what its own
thread prints and its own seed; the process gets its streams, ``os._exit`` and
``atexit.register`` back when the last block closes; the data audit's tasks of one process run
one at a time, so a worker with several threads counts what a serial run counts."""

from __future__ import annotations

import atexit
import os
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from dps_verify.audit.data import _guarded
from dps_verify.engine import calls


def _seeded_draw(seed: int) -> float:
    state = random.getstate()
    random.seed(seed)
    try:
        return random.random()
    finally:
        random.setstate(state)


def test_a_block_left_open_in_a_worker_does_not_uncapture_or_unseed_later_blocks(capsys):
    real_exit, real_register = os._exit, atexit.register
    entered, finish = threading.Event(), threading.Event()

    def abandoned() -> None:  # a task whose time-out passed, still running
        with calls.audited_code(seed=0):
            entered.set()
            finish.wait(10)
            print("LATE WORKER OUTPUT")

    worker = threading.Thread(target=abandoned)
    worker.start()
    assert entered.wait(10)
    try:
        with calls.audited_code(seed=5) as first:
            a = random.random()
        print("the verdict")  # the main thread, in no block: the process's own stream
        with calls.audited_code(seed=5) as second:
            print("AUDITED CODE OUTPUT")
            b = random.random()
        assert a == b == _seeded_draw(5)
        assert first.out.text == ""
        assert second.out.text == "AUDITED CODE OUTPUT\n"
        assert capsys.readouterr().out == "the verdict\n"
        assert os._exit is not real_exit  # the worker's block is still open: the trap stays
    finally:
        finish.set()
        worker.join(10)
    assert os._exit is real_exit and atexit.register is real_register
    assert not isinstance(sys.stdout, calls._ThreadStream)
    assert "LATE WORKER OUTPUT" not in capsys.readouterr().out


def test_a_thread_started_by_the_audited_code_prints_into_the_open_block(capsys):
    def started_by_the_code() -> None:
        print("FROM A THREAD OF THE CODE")

    with calls.audited_code() as cap:
        t = threading.Thread(target=started_by_the_code)
        t.start()
        t.join(10)
    assert cap.out.text == "FROM A THREAD OF THE CODE\n"
    assert capsys.readouterr().out == ""


def test_data_audit_tasks_on_four_threads_draw_what_a_serial_run_draws():
    """A pipeline drawing from the global generator without saying so, with pauses that let
    threads interleave: each task's draws are the same on a four-thread pool as serially."""

    def pipeline_task(item) -> list[float]:
        out = []
        for _ in range(4):
            out.append(random.random())
            time.sleep(0.002)
        return out

    items = [({"seed": np.random.SeedSequence(s)},) for s in (11, 12, 13, 14)]
    serial = [_guarded(pipeline_task, it) for it in items]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda it: _guarded(pipeline_task, it), items))
    assert threaded == serial
    assert len({tuple(v) for v in serial}) == 4  # each task has its own stream


def test_a_task_left_running_by_another_audit_is_an_error_not_a_wait():
    """A task of an earlier run still holds this process's turn (it hangs, past its deadline):
    a task of a new run fails at once with the cause named; a task of the same run waits."""
    from dps_verify.core.errors import AuditedCodeError

    release = threading.Event()

    def hanging(item) -> None:
        release.wait(10)

    old_run = ({"seed": np.random.SeedSequence(1), "run": "earlier"},)
    holder = threading.Thread(target=_guarded, args=(hanging, old_run))
    holder.start()
    try:
        time.sleep(0.3)
        try:
            _guarded(lambda item: "answered", ({"seed": np.random.SeedSequence(2), "run": "later"},))
        except AuditedCodeError as exc:
            assert "another audit is still running in this process" in str(exc)
        else:
            raise AssertionError("a task of another run waited for a hung task's turn and ran")
        same_run: list[str] = []
        waiter = threading.Thread(target=lambda: same_run.append(_guarded(lambda item: "answered", old_run)))
        waiter.start()
        time.sleep(0.5)
        assert same_run == []  # waiting its turn behind a task of its own run
    finally:
        release.set()
        holder.join(10)
    waiter.join(10)
    assert same_run == ["answered"]


def test_a_process_without_stdout_still_runs_audited_code(monkeypatch):
    """With no sys.stdout (pythonw, a detached process), print outside any block drops the text
    as plain Python does, inside and after a worker's open block."""
    monkeypatch.setattr(sys, "stdout", None)
    entered, finish = threading.Event(), threading.Event()

    def worker() -> None:
        with calls.audited_code():
            entered.set()
            finish.wait(10)

    t = threading.Thread(target=worker)
    t.start()
    try:
        assert entered.wait(10)
        print("dropped")  # the main thread, in no block: the process's (absent) stream
    finally:
        finish.set()
        t.join(10)
    assert sys.stdout is None
