"""Execute every teaching notebook fresh, top to bottom; sources are jupytext
percent files ``notebooks/NN_name.py`` built by ``notebooks/build.py``.

The kernel is this interpreter (``sys.executable``), registered under a private kernel name in a
temporary Jupyter data directory, so CI's fresh venv runs the notebooks against the code it just
installed rather than whatever ``python3`` kernel the machine may have.  It is ipykernel's own
kernel, started without the two services a run of the cells never uses (:data:`KERNEL_ARGV`).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
KERNEL = "dps-verify-test"

#: The test kernel's command: ``python -m ipykernel_launcher`` (run as ``__main__``, as ``-m``
#: does) without the kernel's debugger -- debugpy is made unimportable first, so ipykernel
#: does not load it (nothing here debugs a cell) -- and without IPython's input history (an
#: SQLite database in the user's IPython profile, written after every cell).  The cells run,
#: print and draw as in a default kernel, with the same ``sys.path``; a kernel's start and
#: shutdown cost ~0.55 s of CPU instead of ~0.77.
KERNEL_ARGV = [
    sys.executable, "-c",
    "import runpy, sys; sys.modules['debugpy'] = None; "
    "runpy.run_module('ipykernel_launcher', run_name='__main__')",
    "--HistoryManager.enabled=False", "-f", "{connection_file}",
]

pytestmark = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("nbclient", "nbformat", "ipykernel")),
    reason="nbclient, nbformat and ipykernel are needed (pip install -e '.[test]')",
)


@functools.cache
def _build_module():
    """notebooks/build.py, loaded once (its parse of each source is shared by the tests)."""
    spec = importlib.util.spec_from_file_location("notebooks_build", NB_DIR / "build.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory: pytest.TempPathFactory) -> str:
    data = tmp_path_factory.mktemp("jupyter")
    spec_dir = data / "kernels" / KERNEL
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(
        json.dumps(
            {
                "argv": KERNEL_ARGV,
                "display_name": "dps_verify test kernel",
                "language": "python",
                # headless, and unlike plain Agg it turns figures into image outputs
                "env": {"MPLBACKEND": "module://matplotlib_inline.backend_inline"},
            }
        )
    )
    mp = pytest.MonkeyPatch()
    mp.setenv("JUPYTER_PATH", str(data))
    mp.setenv("MPLBACKEND", "Agg")
    yield KERNEL
    mp.undo()


@pytest.fixture(scope="module")
def shared_kernel(kernel_env: str, deep_profile: bool) -> object:
    """By default one kernel (started in notebooks/) runs every notebook of the module, each in
    a namespace cleared first (``%reset -f``: a name a notebook uses without defining or
    importing it still fails): a kernel start with its dps_verify and matplotlib imports costs
    ~2.4 s of CPU, about as much as a short notebook's own cells.  Under the deep profile
    (None) each notebook starts its own kernel."""
    if deep_profile:
        yield None
        return
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name=kernel_env)
    km.start_kernel(cwd=str(NB_DIR))
    try:
        yield km
    finally:
        km.shutdown_kernel(now=True)


def test_committed_notebooks_are_built_and_have_no_outputs() -> None:
    build = _build_module()
    assert build.main(["--check"]) == 0, "run: python notebooks/build.py"
    assert len(build.NOTEBOOKS) == 7
    for name in build.NOTEBOOKS:
        nb = json.loads((NB_DIR / name).read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                assert cell["outputs"] == [] and cell["execution_count"] is None, name


def _code_cells(source: Path) -> list[str]:
    """The code cells of a jupytext source, as notebooks/build.py reads it (the same cells as
    ``jupytext.read`` with the format guessed; compared once on every source)."""
    return [c.source for c in _build_module().build(source).cells if c.cell_type == "code"]


def test_notebooks_use_public_api_only() -> None:
    build = _build_module()
    for name, source in build.NOTEBOOKS.items():
        for src in _code_cells(source):
            for line in src.splitlines():
                s = line.strip()
                if s.startswith(("from dps_verify", "import dps_verify")):
                    assert " _" not in s and "._" not in s, (name, s)
                assert "._" not in s.replace("__", ""), (name, s)


def test_exercises_ship_without_answers_and_solutions_have_them() -> None:
    exercises = [s for s in _code_cells(NB_DIR / "06_exercises.py") if s.startswith("answer =")]
    solutions = [s for s in _code_cells(NB_DIR / "07_solutions.py") if s.startswith("answer =")]
    assert len(exercises) == len(solutions) >= 5
    assert all(s.startswith("answer = None") for s in exercises)
    assert not any("None" in s for s in solutions)


def test_every_plot_has_a_title() -> None:
    """Each figure carries a caption naming what it shows (no bare 'Fig. 6')."""
    import re

    for source in sorted(NB_DIR.glob("[0-9][0-9]_*.py")):
        text = source.read_text(encoding="utf-8")
        figures = len(re.findall(r"plt\.subplots\(", text))
        titles = re.findall(r"set_title\((f?\"[^\"]*\")", text)
        assert len(titles) >= figures, source.name
        assert all(len(t) > 12 for t in titles), (source.name, titles)


#: Cells run before each notebook in the shared kernel: the user namespace is cleared, and the
#: process-wide settings a notebook could leave behind for the next one (mpmath's precision,
#: matplotlib's rcParams) are put back to the defaults a fresh kernel has.
_FRESH_STATE_CELLS = (
    "%reset -f",
    "import matplotlib as _m, mpmath as _p\n_m.rcdefaults(); _p.mp.prec = 53\ndel _m, _p",
)


def _execute(nb: object, kernel_env: str, shared_kernel: object) -> None:
    """Run ``nb`` top to bottom: in the shared kernel after the fresh-state cells, or in a
    kernel of its own (deep profile)."""
    import nbformat
    from nbclient import NotebookClient

    if shared_kernel is not None:
        for i, src in enumerate(_FRESH_STATE_CELLS):
            nb.cells.insert(i, nbformat.v4.new_code_cell(src))  # type: ignore[attr-defined]
    client = NotebookClient(
        nb,
        kernel_name=kernel_env,
        km=shared_kernel,
        timeout=300,
        resources={"metadata": {"path": str(NB_DIR)}},
    )
    try:
        client.execute()
    finally:
        if shared_kernel is not None and client.kc is not None:
            client.kc.stop_channels()


def test_a_notebook_cannot_use_what_an_earlier_one_left_in_the_kernel(
    kernel_env: str, shared_kernel: object
) -> None:
    """Negative control of the shared kernel: a name and an mpmath precision set by one notebook
    are gone for the next, so a notebook that leans on an earlier one fails here as it would
    alone."""
    import nbformat
    from nbclient.exceptions import CellExecutionError

    first = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import mpmath\nleft_behind = 1\nmpmath.mp.prec = 300")])
    _execute(first, kernel_env, shared_kernel)
    uses_name = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("left_behind + 1")])
    with pytest.raises(CellExecutionError):
        _execute(uses_name, kernel_env, shared_kernel)
    checks_prec = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import mpmath\nassert mpmath.mp.prec == 53, mpmath.mp.prec")])
    _execute(checks_prec, kernel_env, shared_kernel)


#: Notebooks of 6-10 s of CPU each (kernel start-up plus their computations): executed under the
#: deep profile; the default run executes the others (the committed notebooks are built from
#: the same sources and checked above either way).  The exercises (06) are the solutions' (07)
#: cells with ``answer = None``: the default run executes the solutions, deep both.
SLOW_NOTEBOOKS = frozenset({
    "02_amplification_theorem1.ipynb", "03_k_anonymity_fails.ipynb",
    "04_theorem5_safe_k_anonymization.ipynb", "05_non_composition.ipynb",
    "06_exercises.ipynb",
})


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.deep) if n in SLOW_NOTEBOOKS else n
     for n in sorted(p.name for p in NB_DIR.glob("[0-9][0-9]_*.ipynb"))],
)
def test_notebook_executes(name: str, kernel_env: str, shared_kernel: object) -> None:
    import nbformat

    nb = nbformat.read(NB_DIR / name, as_version=4)
    t0 = time.perf_counter()
    _execute(nb, kernel_env, shared_kernel)
    elapsed = time.perf_counter() - t0
    images = sum(
        1
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.get("outputs", [])
        if "image/png" in out.get("data", {})
    )
    assert images >= 1, f"{name} draws no plot"
    print(f"{name}: {elapsed:.1f} s, {images} plot(s)")
