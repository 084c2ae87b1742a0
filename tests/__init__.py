"""The test suite is a package, so a test module has one name: pytest imports it as
``tests.<module>``, the same name under which another test module imports its shared reference
(``from tests.test_releases_exact_reference import _law``).  Without this file pytest imported
it as ``<module>`` and the import made a second copy: its top level ran twice, its caches were
kept twice, and its asserts were rewritten twice."""
