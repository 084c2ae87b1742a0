"""The mutation tool's second chance: a survivor of its line's tests is re-run against the
module's whole selection unless that is exactly what it already ran.  Deciding by the number of
arguments would skip a line covered by as many node ids as the selection has files."""

from benchmarks.mutation.__main__ import ran_whole_selection
from benchmarks.mutation.operators import Mutant
from benchmarks.mutation.runner import Outcome

SELECTION = ("tests/test_a.py", "tests/test_b.py")
M = Mutant("dps_verify/x.py", 0, "f", "constant", 3, "1", "2", "k1")


def test_line_tests_as_many_as_the_selection_files_are_not_the_whole_selection() -> None:
    line_tests = ("tests/test_a.py::t1", "tests/test_a.py::t2")
    o = Outcome(M, False, "survived", 0.1, len(line_tests), line_tests)
    assert not ran_whole_selection(o, {M.module: SELECTION})


def test_the_whole_selection_is_not_run_twice() -> None:
    o = Outcome(M, False, "survived", 0.1, len(SELECTION), SELECTION)
    assert ran_whole_selection(o, {M.module: SELECTION})
