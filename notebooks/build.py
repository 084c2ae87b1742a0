"""Build the teaching notebooks from their jupytext sources.

The source of truth is ``notebooks/NN_name.py`` in jupytext's percent format: ordinary Python
files with ``# %%`` cell markers, linted by ruff like the rest of the code.  This script turns
each into ``NN_name.ipynb`` without outputs (CI executes them fresh: ``tests/test_notebooks.py``).

    python notebooks/build.py            # (re)write notebooks/*.ipynb
    python notebooks/build.py --check    # exit 1 if a committed notebook differs from its source
"""

from __future__ import annotations

import argparse
import copy
import functools
import sys
from pathlib import Path

import jupytext
import nbformat

HERE = Path(__file__).resolve().parent

#: notebook -> its jupytext source, in teaching order.  ``06_exercises`` ships without answers;
#: ``07_solutions`` is the same notebook with the answers filled in.
NOTEBOOKS: dict[str, Path] = {
    f"{src.stem}.ipynb": src for src in sorted(HERE.glob("[0-9][0-9]_*.py"))
}

_KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


@functools.cache
def _read(source: Path, mtime_ns: int, size: int) -> nbformat.NotebookNode:
    """jupytext's reading of ``source`` (as it was at ``mtime_ns``, ``size``), once per
    process: the tests read every source twice (the ``--check`` and their checks of the code
    cells)."""
    return jupytext.read(source, fmt="py:percent")


def build(source: Path) -> nbformat.NotebookNode:
    """The notebook of one jupytext source, without outputs, with stable cell ids."""
    stat = Path(source).stat()
    nb = copy.deepcopy(_read(Path(source), stat.st_mtime_ns, stat.st_size))
    nb.metadata = nbformat.NotebookNode(
        kernelspec=_KERNELSPEC, language_info={"name": "python"})
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
        cell["metadata"] = {}
        if cell.cell_type == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return nb


def render(source: Path) -> str:
    return nbformat.writes(build(source)) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if a committed notebook is stale")
    args = ap.parse_args(argv)
    stale = []
    for name, source in NOTEBOOKS.items():
        text = render(source)
        path = HERE / name
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    orphans = sorted(p.name for p in HERE.glob("*.ipynb") if p.name not in NOTEBOOKS)
    if orphans:
        print("notebooks without a source (delete them or add notebooks/NN_name.py):",
              ", ".join(orphans))
        return 1
    if stale:
        print("stale notebooks (run python notebooks/build.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
