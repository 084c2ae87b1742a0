"""Single-site mutants of a Python module, generated on its syntax tree.

Each mutant changes exactly one place: a comparison (boundary or negation), an arithmetic or
bitwise operator, an integer constant (±1), a boolean operator, a condition (negated), a unary
sign or ``not`` (dropped), ``min``/``max`` (swapped), ``True``/``False`` (swapped) or one
statement (replaced by ``pass``).  Docstrings, annotations and string constants are never
mutated: a mutant there says nothing about the code's arithmetic.

A mutant is identified by a stable key — module, enclosing function, operator, the source text
of the mutated node before and after, and the occurrence of that text inside the function — so
a judgement recorded for it survives edits elsewhere in the module.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

_CMP_SWAPS: dict[type, list[type]] = {
    ast.Lt: [ast.LtE, ast.GtE],
    ast.LtE: [ast.Lt, ast.Gt],
    ast.Gt: [ast.GtE, ast.LtE],
    ast.GtE: [ast.Gt, ast.Lt],
    ast.Eq: [ast.NotEq],
    ast.NotEq: [ast.Eq],
    ast.Is: [ast.IsNot],
    ast.IsNot: [ast.Is],
    ast.In: [ast.NotIn],
    ast.NotIn: [ast.In],
}
_BIN_SWAPS: dict[type, list[type]] = {
    ast.Add: [ast.Sub],
    ast.Sub: [ast.Add],
    ast.Mult: [ast.Div],
    ast.Div: [ast.Mult],
    ast.FloorDiv: [ast.Mult],
    ast.Mod: [ast.FloorDiv],
    ast.Pow: [ast.Mult],
    ast.LShift: [ast.RShift],
    ast.RShift: [ast.LShift],
    ast.BitAnd: [ast.BitOr],
    ast.BitOr: [ast.BitAnd],
}


@dataclass(frozen=True)
class Mutant:
    """One single-site change of ``module`` (a path relative to the repository)."""

    module: str
    index: int  # position in this module's site list (not stable across edits)
    function: str
    operator: str
    line: int
    before: str
    after: str
    key: str  # stable id (see module docstring)

    def describe(self) -> str:
        return f"{self.module}:{self.line} in {self.function}: {self.before!r} -> {self.after!r}"


def _is_docstring(node: ast.AST, parent: ast.AST | None) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


class _Sites(ast.NodeTransformer):
    """Walks the tree; numbers every mutable site; applies the one numbered ``target``."""

    def __init__(self, target: int | None) -> None:
        self.target = target
        self.count = 0
        self.func: list[str] = []
        self.found: list[tuple[str, str, int, ast.AST, ast.AST]] = []  # op, func, line, old, new
        self.applied: tuple[str, int, ast.AST, ast.AST] | None = None

    # -- bookkeeping -----------------------------------------------------------------------
    def _site(self, op: str, old: ast.AST, new: ast.AST) -> ast.AST:
        i = self.count
        self.count += 1
        line = getattr(old, "lineno", 0)
        if self.target is None:
            self.found.append((op, ".".join(self.func) or "<module>", line, old, new))
            return old
        if i == self.target:
            self.applied = (op, line, old, new)
            return ast.copy_location(new, old)
        return old

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.func.append(node.name)
        node.body = self._body(node.body)
        # the visited nodes are put back: a site in a decorator or a default value is applied
        # there (visiting alone numbered it but left the function unchanged)
        node.decorator_list = [self.visit(dec) for dec in node.decorator_list]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        node.args.kw_defaults = [None if d is None else self.visit(d)
                                 for d in node.args.kw_defaults]
        self.func.pop()
        return node  # annotations are not visited

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.func.append(node.name)
        node.body = self._body(node.body)
        self.func.pop()
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self.visit(node.value)
        return node

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for k, stmt in enumerate(body):
            if k == 0 and _is_docstring(stmt, None):
                out.append(stmt)
                continue
            new = self.visit(stmt)
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return, ast.Raise,
                                 ast.If, ast.For, ast.While)) and not _is_docstring(stmt, None):
                if isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Call):
                    out.append(new)
                    continue
                new = self._site("drop statement", new, ast.Pass())
            out.append(new)
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._body(value))
            elif isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    # -- the operators -----------------------------------------------------------------------
    def visit_Module(self, node: ast.Module) -> ast.AST:
        node.body = self._body(node.body)
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        for j, op in enumerate(node.ops):
            for repl in _CMP_SWAPS.get(type(op), []):
                new = ast.Compare(left=node.left, ops=[*node.ops[:j], repl(), *node.ops[j + 1:]],
                                  comparators=node.comparators)
                res = self._site("comparison", node, new)
                if res is not node:
                    return res
        return node

    def _binop(self, node: ast.BinOp | ast.AugAssign, kind: str) -> ast.AST:
        for repl in _BIN_SWAPS.get(type(node.op), []):
            if isinstance(node, ast.BinOp):
                new: ast.AST = ast.BinOp(left=node.left, op=repl(), right=node.right)
            else:
                new = ast.AugAssign(target=node.target, op=repl(), value=node.value)
            res = self._site(kind, node, new)
            if res is not node:
                return res
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            return node  # "%"-formatting or string concatenation
        return self._binop(node, "arithmetic")

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        return self._binop(node, "arithmetic")

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        repl = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return self._site("boolean operator", node, ast.BoolOp(op=repl, values=node.values))

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if isinstance(node.op, (ast.Not, ast.USub)):
            return self._site("drop unary", node, node.operand)
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        v = node.value
        if isinstance(v, bool):
            return self._site("boolean constant", node, ast.Constant(not v))
        if isinstance(v, int):
            res = self._site("constant", node, ast.Constant(v + 1))
            if res is not node:
                return res
            return self._site("constant", node, ast.Constant(v - 1))
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            other = "max" if node.func.id == "min" else "min"
            new = ast.Call(func=ast.Name(id=other, ctx=ast.Load()), args=node.args,
                           keywords=node.keywords)
            return self._site("min/max", node, new)
        return node

    def _negate_test(self, node: ast.If | ast.While | ast.IfExp) -> ast.AST:
        node.test = self.visit(node.test)
        new_test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        res = self._site("negated condition", node.test, new_test)
        node.test = res  # type: ignore[assignment]
        return node

    def visit_If(self, node: ast.If) -> ast.AST:
        self._negate_test(node)
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        self._negate_test(node)
        node.body = self._body(node.body)
        node.orelse = self._body(node.orelse)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self._negate_test(node)
        node.body = self.visit(node.body)
        node.orelse = self.visit(node.orelse)
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return node  # messages are not arithmetic


def _text(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - a description only
        return type(node).__name__


def mutants(module: str, source: str) -> list[Mutant]:
    """Every single-site mutant of ``source`` (the module at repository path ``module``)."""
    walker = _Sites(target=None)
    walker.visit(ast.parse(source))
    out: list[Mutant] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for i, (op, func, line, old, new) in enumerate(walker.found):
        before = _text(old).splitlines()[0][:160]
        after = _text(new).splitlines()[0][:160]
        sig = (func, op, before, after)
        occ = seen.get(sig, 0)
        seen[sig] = occ + 1
        key = hashlib.sha1(f"{module}|{func}|{op}|{before}|{after}|{occ}".encode()).hexdigest()[:12]
        out.append(Mutant(module, i, func, op, line, before, after, key))
    return out


def mutated_source(source: str, index: int) -> str:
    """``source`` with the ``index``-th site mutated (unparsed from the changed tree)."""
    walker = _Sites(target=index)
    tree = walker.visit(ast.parse(source))
    if walker.applied is None:
        raise IndexError(f"no mutation site {index}")
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def iter_modules(paths: list[str], root: str) -> Iterator[tuple[str, str]]:
    """(repository path, source) for each path under ``root``."""
    from pathlib import Path

    for p in paths:
        yield p, (Path(root) / p).read_text(encoding="utf-8")
