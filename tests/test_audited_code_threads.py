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
