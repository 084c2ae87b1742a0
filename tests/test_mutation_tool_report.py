"""The mutation tool rewrites only module sections and the summary table of its report: the
header and every hand-written paragraph (before the summary, between or after the sections)
stay as they were, a module's section is replaced in place, and a new module's section goes in
sorted order."""

import json

from benchmarks.mutation.__main__ import _HEAD, merge_report


def section(module: str, seed: int, note: str = "No survivor.") -> str:
    data = {"date": "2026-11-26", "equivalent": 0, "killed": 3, "lower": 0.3684, "mutants": 9,
            "n": 3, "sampled": 3, "score": 1.0, "seed": seed}
    return (f"<!-- module {module} {json.dumps(data, sort_keys=True)} -->\n## `{module}`\n\n"
            f"{note}\n\n<!-- end module -->\n")


def report(*sections: str, between: str = "\n") -> str:
    head = "# Report\n\nHeader text.\n\nA hand-written paragraph about an unmeasured module.\n\n"
    table = merge_report("", {})  # an empty report: the standard header and an empty table
    summary = table[table.index("## Summary"):]
    return head + summary + between.join(sections) + "\nClosing note by hand.\n"


def test_rewriting_a_section_keeps_every_hand_written_paragraph() -> None:
    old = report(section("dps_verify/a.py", 1), section("dps_verify/c.py", 1),
                 between="\nA note between two sections.\n\n")
    old = merge_report(old, {})  # fill the table
    new = merge_report(old, {"dps_verify/a.py": section("dps_verify/a.py", 5, "Changed.")})
    for kept in ("Header text.", "A hand-written paragraph about an unmeasured module.",
                 "A note between two sections.", "Closing note by hand."):
        assert kept in new
    assert "Changed." in new and "No survivor." in new
    assert "| `dps_verify/a.py` | 9 | 3 | 0 | 3/3 | 100.0 % | 36.8 % | 5, 2026-11-26 |" in new
    assert new.index("A hand-written paragraph") < new.index("## Summary")
    assert new.replace("Changed.", "No survivor.").replace("| 5, 2026", "| 1, 2026").replace(
        '"seed": 5', '"seed": 1') == old


def test_an_unchanged_report_is_rewritten_byte_for_byte() -> None:
    old = merge_report(report(section("dps_verify/a.py", 1)), {})
    assert merge_report(old, {}) == old


def test_a_new_module_goes_between_its_sorted_neighbours() -> None:
    old = merge_report(report(section("dps_verify/a.py", 1), section("dps_verify/c.py", 1)), {})
    new = merge_report(old, {"dps_verify/b.py": section("dps_verify/b.py", 2)})
    assert new.index("## `dps_verify/a.py`") < new.index("## `dps_verify/b.py`") \
        < new.index("## `dps_verify/c.py`")
    assert new.index("| `dps_verify/a.py`") < new.index("| `dps_verify/b.py`") \
        < new.index("| `dps_verify/c.py`")
    assert "Header text." in new and "Closing note by hand." in new


def test_an_empty_report_starts_from_the_standard_header() -> None:
    new = merge_report("", {"dps_verify/a.py": section("dps_verify/a.py", 1)})
    assert new.startswith(_HEAD)
    assert new.index("## Summary") < new.index("<!-- module dps_verify/a.py")


def test_a_section_shows_how_its_kills_were_made() -> None:
    """A time-out kill depends on the machine's load (the default run has no time limit), so the
    score line shows it apart from a kill by a failing test."""
    from benchmarks.mutation.__main__ import kill_kinds, score
    from benchmarks.mutation.operators import Mutant
    from benchmarks.mutation.runner import Outcome

    def outcome(i: int, killed: bool, how: str) -> Outcome:
        return Outcome(Mutant("dps_verify/a.py", i, "f", "constant", i, "1", "2", f"k{i}"),
                       killed, how, 0.1)

    s = score([outcome(0, True, "failed"), outcome(1, True, "timeout"),
               outcome(2, True, "failed (module selection)"), outcome(3, True, "crashed (signal 6)"),
               outcome(4, False, "survived")], {})["dps_verify/a.py"]
    assert kill_kinds(s) == "4 killed: 2 by a failing test, 1 by time-out, 1 by a crash"
    assert kill_kinds(score([outcome(0, True, "failed")], {})["dps_verify/a.py"]) \
        == "1 killed: 1 by a failing test, 0 by time-out"


def test_campaigns_writing_the_report_at_once_keep_each_others_sections(
        tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Campaigns of different modules run concurrently and write one report.  Each writer's
    read-merge-write is made slow here (a pause between reading the old report and writing the
    merged one), which without the lock lets a later writer overwrite an earlier one's section;
    under the lock every section survives, and no temporary file is left behind."""
    import threading
    import time

    import benchmarks.mutation.__main__ as tool

    path = tmp_path / "report.md"
    path.write_text(merge_report(report(), {}), encoding="utf-8")
    real = tool.merge_report

    def slow_merge(old: str, sections: dict[str, str]) -> str:
        time.sleep(0.02)  # another writer gets the chance to read the same old report
        return real(old, sections)

    monkeypatch.setattr(tool, "merge_report", slow_merge)
    modules = [f"dps_verify/m{i}.py" for i in range(6)]
    threads = [threading.Thread(target=tool.update_report, args=(path, {m: section(m, 1)}))
               for m in modules]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    text = path.read_text(encoding="utf-8")
    for m in modules:
        assert f"<!-- module {m} " in text and f"| `{m}` |" in text
    assert "Header text." in text and "Closing note by hand." in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]
