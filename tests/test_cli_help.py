"""One help text per command: :data:`dps_verify.cli.COMMANDS` holds each command's one-line help
(``dps-verify --help`` shows it without importing the command), and the command's module takes
its ``HELP`` from there instead of keeping a copy that can drift."""

from __future__ import annotations

import ast
import inspect

import pytest

from dps_verify.cli import COMMANDS, build_parser, load_command


def help_source(tree: ast.Module) -> str | None:
    """How a command module sets ``HELP``: ``"COMMANDS[NAME]"`` or the literal it copies."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "HELP" for t in node.targets):
            return ast.unparse(node.value)
    return None


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_help_is_the_one_in_commands(name):
    mod = load_command(name)
    assert mod.NAME == name
    assert help_source(ast.parse(inspect.getsource(mod))) == "COMMANDS[NAME]"
    assert mod.HELP is COMMANDS[name]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_listing_and_command_help_agree(name):
    """``dps-verify --help`` (command not imported) and ``dps-verify NAME --help`` (imported)
    show the same one-line help."""
    lazy = build_parser([])
    loaded = build_parser([name])
    for parser in (lazy, loaded):
        sub = next(a for a in parser._actions if a.dest == "command")
        helps = {c.dest: c.help for c in sub._choices_actions}
        assert helps[name] == COMMANDS[name]


def test_a_copied_help_text_is_noticed():
    """Negative control: a module keeping its own copy of the text is reported."""
    planted = ast.parse('NAME = "prove"\nHELP = "Machine-check the paper\'s theorems."\n')
    assert help_source(planted) == "\"Machine-check the paper's theorems.\""
    assert help_source(planted) != "COMMANDS[NAME]"
