"""A task of the audited code that never returns must not hang the audit: the Dask backend's
per-task deadline stops it, kills the worker processes of a LocalCluster it started (or cancels
the futures on an external cluster and says its workers may still be busy) and reports an
AuditedCodeError (exit 4), never a verdict."""

from __future__ import annotations

import os
import time

import pytest

from dps_verify.core.errors import AuditedCodeError, ParameterError
from dps_verify.distributed import DaskBackend, choose_backend, task_deadline
from dps_verify.distributed.backend import MIN_TASK_TIMEOUT, TASK_TIMEOUT_ENV, TASK_TIMEOUT_FACTOR


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a killed child not yet reaped is a zombie: dead for our purpose
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def test_task_deadline_from_the_estimate_the_parameter_or_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(TASK_TIMEOUT_ENV, raising=False)
    assert task_deadline(0.0) == MIN_TASK_TIMEOUT
    assert task_deadline(1000.0) == TASK_TIMEOUT_FACTOR * 1000.0
    assert task_deadline(1000.0, 2.5) == 2.5
    monkeypatch.setenv(TASK_TIMEOUT_ENV, "7")
    assert task_deadline(1000.0) == 7.0 and task_deadline(1000.0, 3.0) == 3.0
    monkeypatch.setenv(TASK_TIMEOUT_ENV, "soon")
    with pytest.raises(ParameterError, match=TASK_TIMEOUT_ENV):
        task_deadline(1.0)
    monkeypatch.delenv(TASK_TIMEOUT_ENV)
    with pytest.raises(ParameterError, match="> 0"):
        task_deadline(1.0, 0.0)


def test_a_task_that_sleeps_forever_on_our_local_cluster_is_stopped_and_its_worker_killed() -> None:
    """With distributed's default start method (``spawn``: the product's; the test session's
    other clusters fork their workers from a server, see conftest.py)."""
    import dask

    with dask.config.set({"distributed.worker.multiprocessing-method": "spawn"}):
        be = choose_backend("dask", workers=1, task_timeout=1.0)
    assert isinstance(be, DaskBackend) and be.task_timeout == 1.0
    pids = list(be.client.run(os.getpid).values())
    assert set(be.client.run(os.getppid).values()) == {os.getpid()}  # spawned here, not forked by a server
    assert be.map(abs, [-3, 4]) == [3, 4]  # quick tasks are unaffected
    t0 = time.monotonic()
    with pytest.raises(AuditedCodeError, match="per-task deadline of 1 s") as err:
        be.map(time.sleep, [10**6])  # the audited code hangs
    assert "worker processes were killed" in str(err.value)
    assert time.monotonic() - t0 < 30
    be.close()  # a second close (the caller's finally) is harmless
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def test_a_hung_task_on_an_external_cluster_is_cancelled_and_reported_as_such() -> None:
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        be = DaskBackend(client=client, task_timeout=0.5)
        with pytest.raises(AuditedCodeError, match="may still be busy"):
            be.map(time.sleep, [3])  # 6 deadlines long; the cluster is left to finish it
        be.close()
        assert client.status == "running"  # not ours to stop


def test_the_deadline_is_the_runs_estimate_shared_over_the_tasks_of_a_map(monkeypatch) -> None:
    from dask.distributed import Client, LocalCluster

    monkeypatch.delenv(TASK_TIMEOUT_ENV, raising=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster, Client(cluster) as client:
        be = DaskBackend(client=client, estimated_seconds=100_000.0)
        assert be.map(abs, [-1, -2, -3, -4]) == [1, 2, 3, 4]
        assert be.task_timeout == TASK_TIMEOUT_FACTOR * 100_000.0 / 4


HANGING_PIPELINE = '''
import multiprocessing
import time


def release(table):
    """Hangs in a Dask worker process (in the main process it answers, so that the audit's
    own set-up calls return): the audit must stop it, not wait."""
    if multiprocessing.current_process().name != "MainProcess":
        time.sleep(10**6)
    return len(table)
'''


def test_cli_audit_of_a_pipeline_that_hangs_in_its_workers_exits_4_without_a_verdict(
        tmp_path, capsys, monkeypatch) -> None:
    """The command in this process (``dps_verify.cli.main``); its two Dask workers are
    processes of their own, where the pipeline hangs."""
    from dps_verify.cli import main

    (tmp_path / "hang.py").write_text(HANGING_PIPELINE)
    (tmp_path / "t.csv").write_text("a,b\n" + "".join(f"{i % 3},{i}\n" for i in range(12)))
    monkeypatch.setenv(TASK_TIMEOUT_ENV, "1")
    code = main(["audit", f"{tmp_path / 'hang.py'}:release", "--data", str(tmp_path / "t.csv"),
                 "--qi", "a", "--beta", "0.5", "--epsilon", "1", "--delta", "1e-3",
                 "--question", "this", "--workers", "2"])
    out, err = capsys.readouterr()
    assert code == 4, out + err
    assert "per-task deadline" in err + out
    assert "worker processes were killed" in err
    assert not any(v in out + err for v in ("PASS", "FAIL", "INCONCLUSIVE"))


SERIAL_HANGING_PIPELINE = '''
import time


def release(table):
    """Hangs on a table of more than one row (the serial audit's runs)."""
    if len(table) > 1:
        time.sleep(10**6)
    return len(table)
'''


def test_cli_audit_of_a_pipeline_that_hangs_in_a_serial_run_exits_4_at_its_timeout(tmp_path, capsys) -> None:
    """With one worker the runs are made in this process: ``--timeout`` bounds each one, so a
    hanging pipeline is an audited-code failure (exit 4), never a verdict and never a hung audit."""
    import time

    from dps_verify.cli import main

    (tmp_path / "hang_serial.py").write_text(SERIAL_HANGING_PIPELINE)
    (tmp_path / "t.csv").write_text("a,b\n" + "".join(f"{i % 3},{i}\n" for i in range(12)))
    t0 = time.monotonic()
    code = main(["audit", f"{tmp_path / 'hang_serial.py'}:release", "--data", str(tmp_path / "t.csv"),
                 "--qi", "a", "--beta", "0.5", "--epsilon", "1", "--delta", "1e-3",
                 "--question", "this", "--workers", "1", "--timeout", "0.5"])
    out = capsys.readouterr()
    assert code == 4, out.out + out.err
    assert "did not return within 0.5 s" in out.out + out.err
    assert not any(v in out.out for v in ("PASS", "FAIL", "INCONCLUSIVE"))
    assert time.monotonic() - t0 < 60
